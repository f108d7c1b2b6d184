/* Portable kernel of the multi-precision PMNS: compiled instances of
 * Algorithm 3 for fixed (n, s, plan), in product-scanning order (see
 * fips_flow). This file is compiled with general registers only
 * (CMakeLists.txt): otherwise GCC moves the 128-bit sums between stack slots
 * through SSE registers, 16-byte loads of values just stored as two 8-byte
 * words, which cannot be forwarded from the stores (a stall of about a dozen
 * cycles each, on the chain from one digit to the next). */
#include <string.h>

#include "pmns/mp_generic.h"

/* ---- compiled instances: unsplit plans, product scanning ------------------ */

/* Algorithm 3 for an unsplit plan with n and s known at compile time, in
 * product-scanning order (the "finely integrated" schedule): digit d of R is
 * summed whole, row by row, in one 128-bit register pair,
 *
 *   R_d = carry + sum_(i+j=d) A_j B_i + sum_(i<d, i+j=d, j>=1) T_i M_j,
 *
 * then for d < s: T_d = centre(R_d M'_0 mod 2^k), carry = (R_d + T_d M_0)
 * / 2^k; for d >= s: digit d-s of the result is R_d mod 2^k and carry = R_d
 * / 2^k. The sums are the ones of the operand-scanning flow, regrouped, so
 * the bounds of mns_pmns_mp_generic_plan_ok hold unchanged; R never goes to
 * memory (the flow above adds every product pair into it), the loops over
 * digits and columns unroll, the Toeplitz rows are read in place (row r of
 * the product by the sequence t is sum_c t[r - c + n - 1] v[c]). Squaring:
 * the pairs j > i once, doubled, plus the diagonal. Constant time as the
 * flow: every bound is (n, s). */
#define MP_FI_NMAX 12

/* x + sum_c t[r - c] v[c] with a plain 128-bit sum (one row in flight: GCC
 * keeps it in two registers, where the _addcarry_u64 words of row_mac, their
 * addresses taken, went to memory in this larger function) */
static inline __attribute__((always_inline)) mp_i128 row128(mp_i128 x, const uint64_t *t,
                                                            const uint64_t *v, int b, int r)
{
#pragma GCC unroll 32
    for (int col = 0; col < b; col++)
        x += (mp_i128)(int64_t)t[r - col] * (int64_t)v[col];
    return x;
}

static inline __attribute__((always_inline)) void
fips_flow(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *bb,
          const int sqr, const int N, const int S)
{
    const int k = c->k, sh = 64 - k;
    const size_t ms = (size_t)c->mstride;
    const uint64_t kmask = c->kmask;
    uint64_t na[MNS_PMNS_S_MAX * MP_FI_NMAX], nb[MNS_PMNS_S_MAX * MP_FI_NMAX];
    uint64_t sa[MNS_PMNS_S_MAX][2 * MP_FI_NMAX], T[MNS_PMNS_S_MAX][MP_FI_NMAX];
    int64_t cy[MP_FI_NMAX];
    mp_i128 C[MP_FI_NMAX]; /* the carry into digit d, then R_d */
    normalise_ns(c, na, a, cy, N, S);
    if (!sqr)
        normalise_ns(c, nb, bb, cy, N, S);
    const uint64_t *vb = sqr ? na : nb;
#pragma GCC unroll 16
    for (int j = 0; j < S; j++)
        mns_pmns_mp_toeplitz_seq(sa[j], na + j * N, N, c->lambda);
#pragma GCC unroll 16
    for (int q = 0; q < N; q++)
        C[q] = 0;
#pragma GCC unroll 16
    for (int d = 0; d < 2 * S - 1; d++) {
        const int j0 = d < S ? 0 : d - S + 1, j1 = d < S ? d : S - 1; /* A_j B_(d-j) */
#pragma GCC unroll 1
        for (int q = 0; q < N; q++) {
            mp_i128 x = C[q];
            if (!sqr) {
#pragma GCC unroll 16
                for (int j = j0; j <= j1; j++)
                    x = row128(x, sa[j] + N - 1, vb + (d - j) * N, N, q);
            } else {
                /* j > i = d - j, doubled, then the diagonal j = i */
                mp_i128 y = 0;
#pragma GCC unroll 16
                for (int j = j0; j <= j1; j++)
                    if (2 * j > d)
                        y = row128(y, sa[j] + N - 1, na + (d - j) * N, N, q);
                x += (mp_i128)((mp_u128)y << 1);
                if ((d & 1) == 0)
                    x = row128(x, sa[d / 2] + N - 1, na + (d / 2) * N, N, q);
            }
            /* T_i M_(d-i), i < min(d, s), d - i < s */
            mp_i128 y = 0; /* a second chain: add/adc run at one product a cycle */
#pragma GCC unroll 16
            for (int i = (d < S ? 0 : d - S + 1); i < (d < S ? d : S); i++)
                y = row128(y, c->mseq + (size_t)(d - i) * ms + N - 1, T[i], N, q);
            x += y;
            if (d < S)
                C[q] = x;
            else {
                r[(d - S) * N + q] = (uint64_t)x & kmask;
                C[q] = sar128(x, k);
            }
        }
        if (d < S) {
            /* T_d = centre(R_d M'_0 mod 2^k), from the low words of R_d */
            uint64_t lo[MP_FI_NMAX];
#pragma GCC unroll 16
            for (int q = 0; q < N; q++)
                lo[q] = (uint64_t)C[q];
#define MP_CENTRE(x) ((uint64_t)((int64_t)((x) << sh) >> sh))
            MP_LEAF_LO(T[d], c->mpseq, lo, N, lo, MP_CENTRE);
#undef MP_CENTRE
            /* carry = (R_d + T_d M_0) / 2^k, exact */
#pragma GCC unroll 1
            for (int q = 0; q < N; q++) {
                C[q] = sar128(row128(C[q], c->mseq + N - 1, T[d], N, q), k);
            }
        }
    }
#pragma GCC unroll 16
    for (int q = 0; q < N; q++)
        r[(S - 1) * N + q] = (uint64_t)C[q];
}

/* The same schedule on a plan of one level (factor F, leaves of H = N/F):
 * the digits are summed leaf row by leaf row in the expanded domain (the
 * leaf products of every pair of a digit in one register pair), each digit
 * contracted once; for d < s, T_d comes from the contracted low words
 * (expanded, leaf products mod 2^64 by M'_0, contracted, centred) and
 * T_d M_0 is a second pass of leaf rows. A_j and the vectors B_i, T_i are
 * expanded once. Wrapping sums in the expanded domain: see the top of
 * mp_generic.c. */
static inline __attribute__((always_inline)) void
fips_split1(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *bb,
            const int sqr, const int N, const int S, const int F)
{
    enum { NM = 2 * MP_FI_NMAX, LM = 6, SM = 6 };
    const int H = N / F, L = F == 2 ? 3 : 6, MS = 2 * H - 1;
    const int k = c->k, sh = 64 - k;
    const size_t ms = (size_t)c->mstride, mstep = (size_t)L * ms;
    const uint64_t kmask = c->kmask;
    _Static_assert(SM <= MNS_PMNS_S_MAX, "instances take s <= 6");
    uint64_t na[SM * NM], nb[SM * NM], tseq[2 * NM];
    uint64_t sa[SM][LM * NM], bv[SM][LM * NM / 2], tv[SM][LM * NM / 2];
    uint64_t lo[NM], lov[LM * NM], tl[LM * NM], T[NM];
    int64_t cy[NM];
    mp_i128 C[NM], E[LM * NM], X[NM];
    normalise_ns(c, na, a, cy, N, S);
    if (!sqr)
        normalise_ns(c, nb, bb, cy, N, S);
#pragma GCC unroll 16
    for (int j = 0; j < S; j++) {
        mns_pmns_mp_toeplitz_seq(tseq, na + j * N, N, c->lambda);
        mexp1(tseq, sa[j], (size_t)MS, H, F, N);
        vexp1((sqr ? na : nb) + j * N, bv[j], H, F);
    }
#pragma GCC unroll 16
    for (int q = 0; q < N; q++)
        C[q] = 0;
#pragma GCC unroll 16
    for (int d = 0; d < 2 * S - 1; d++) {
        const int j0 = d < S ? 0 : d - S + 1, j1 = d < S ? d : S - 1;
        /* the rows of a leaf unrolled, its leaves in a loop: 6-10% faster
         * than both rolled at 2048-4096 bits (the loop's counters and
         * addresses share the ALU ports with add/adc), while unrolling the
         * leaves too (twice the code) was 10-30% slower */
#pragma GCC unroll 1
        for (int l = 0; l < L; l++)
#pragma GCC unroll 8
            for (int q = 0; q < H; q++) {
                mp_i128 x = 0;
                if (!sqr) {
#pragma GCC unroll 16
                    for (int j = j0; j <= j1; j++)
                        x = row128(x, sa[j] + l * MS + H - 1, bv[d - j] + l * H, H, q);
                } else {
#pragma GCC unroll 16
                    for (int j = j0; j <= j1; j++)
                        if (2 * j > d)
                            x = row128(x, sa[j] + l * MS + H - 1, bv[d - j] + l * H, H, q);
                    x = (mp_i128)((mp_u128)x << 1);
                    if ((d & 1) == 0)
                        x = row128(x, sa[d / 2] + l * MS + H - 1, bv[d / 2] + l * H, H, q);
                }
                mp_i128 y = 0; /* a second chain: add/adc run at one product a cycle */
#pragma GCC unroll 16
                for (int i = (d < S ? 0 : d - S + 1); i < (d < S ? d : S); i++)
                    y = row128(y, c->mseq + (size_t)(d - i) * mstep + l * ms + H - 1,
                               tv[i] + l * H, H, q);
                E[l * H + q] = x + y;
            }
        MP_CONTRACT1(X, E, H, F);
#pragma GCC unroll 16
        for (int q = 0; q < N; q++)
            X[q] += C[q];
        if (d < S) {
#pragma GCC unroll 16
            for (int q = 0; q < N; q++)
                lo[q] = (uint64_t)X[q];
            vexp1(lo, lov, H, F);
#pragma GCC unroll 1
            for (int l = 0; l < L; l++)
                MP_LEAF_LO(tl + l * H, c->mpseq + l * ms, lov + l * H, H, lov + l * H, MP_RAW);
            MP_CONTRACT1(T, tl, H, F);
#pragma GCC unroll 16
            for (int q = 0; q < N; q++)
                T[q] = (uint64_t)((int64_t)(T[q] << sh) >> sh);
            vexp1(T, tv[d], H, F);
#pragma GCC unroll 1
            for (int l = 0; l < L; l++)
#pragma GCC unroll 8
                for (int q = 0; q < H; q++)
                    E[l * H + q] = row128(0, c->mseq + l * ms + H - 1, tv[d] + l * H, H, q);
            MP_CONTRACT1(C, E, H, F);
#pragma GCC unroll 16
            for (int q = 0; q < N; q++)
                C[q] = sar128(X[q] + C[q], k);
        } else {
#pragma GCC unroll 16
            for (int q = 0; q < N; q++) {
                r[(d - S) * N + q] = (uint64_t)X[q] & kmask;
                C[q] = sar128(X[q], k);
            }
        }
    }
#pragma GCC unroll 16
    for (int q = 0; q < N; q++)
        r[(S - 1) * N + q] = (uint64_t)C[q];
}

/* The instances: the sets of the portable default at 1024 bits (n=6 s=3
 * 3/b2; n=9 s=2 unsplit). Measured and dropped (same runs
 * against the flow above, docs/pmns-mp.md): the one-level instances of
 * the 2048-6144-bit defaults (n=12 s=3 3/b4, n=12 s=6 3/b4, n=18 s=6
 * 3/b6: 20-25% fewer instructions, but as slow or up to 12% slower) and
 * n=9 s=2 3/b3 (no faster than its unsplit instance); n=6 s=3 unsplit
 * (716 ticks) works but its 3/b2 instance (612) always passes the bounds
 * where it does, so it would never run (nor be tested). */
#define MP_FI_CASES(X) X(9, 2)

/* GCC's predictive commoning carries a row's Toeplitz entries over to the
 * next row (they shift by one) through rotating stack slots: more moves than
 * the loads it saves */
#if defined(__GNUC__) && !defined(__clang__)
#define MP_FI_ATTR __attribute__((optimize("no-predictive-commoning", "no-tree-vectorize")))
#else
#define MP_FI_ATTR
#endif

#define MP_FI_INST(N, S)                                                                        \
    static MP_FI_ATTR void fi_mul_##N##_##S(const mns_pmns_mp_ctx *c, uint64_t *r,               \
                                            const uint64_t *a, const uint64_t *b)               \
    {                                                                                           \
        fips_flow(c, r, a, b, 0, N, S);                                                         \
    }                                                                                           \
    static MP_FI_ATTR void fi_sqr_##N##_##S(const mns_pmns_mp_ctx *c, uint64_t *r,               \
                                            const uint64_t *a)                                  \
    {                                                                                           \
        fips_flow(c, r, a, a, 1, N, S);                                                         \
    }
MP_FI_CASES(MP_FI_INST)
#undef MP_FI_INST

/* one-level split instances: (n, s, factor) */
#define MP_FS_CASES(X) X(6, 3, 3) X(12, 3, 3) X(12, 6, 3) X(18, 6, 3)

#define MP_FS_INST(N, S, F)                                                                     \
    static MP_FI_ATTR void fs_mul_##N##_##S##_##F(const mns_pmns_mp_ctx *c, uint64_t *r,         \
                                                  const uint64_t *a, const uint64_t *b)         \
    {                                                                                           \
        fips_split1(c, r, a, b, 0, N, S, F);                                                    \
    }                                                                                           \
    static MP_FI_ATTR void fs_sqr_##N##_##S##_##F(const mns_pmns_mp_ctx *c, uint64_t *r,         \
                                                  const uint64_t *a)                            \
    {                                                                                           \
        fips_split1(c, r, a, a, 1, N, S, F);                                                    \
    }
MP_FS_CASES(MP_FS_INST)

/* 1 if a compiled instance runs (n, s, plan) (the lists above) */
int mns_pmns_mp_fi_has(int n, int s, const mp_plan *pl)
{
#define MP_FI_HAS(N, S)                                                                         \
    if (pl->levels == 0 && n == N && s == S)                                                    \
        return 1;
#define MP_FS_HAS(N, S, F)                                                                      \
    if (pl->levels == 1 && pl->f[0] == F && n == N && s == S)                                   \
        return 1;
    MP_FI_CASES(MP_FI_HAS)
    MP_FS_CASES(MP_FS_HAS)
#undef MP_FI_HAS
#undef MP_FS_HAS
    return 0;
}

int mns_pmns_mp_fi_mul(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                       const uint64_t *b)
{
#define MP_FI_CALL(N, S)                                                                        \
    if (c->plan.levels == 0 && c->n == N && c->s == S) {                                        \
        fi_mul_##N##_##S(c, r, a, b);                                                           \
        return 1;                                                                               \
    }
    MP_FI_CASES(MP_FI_CALL)
#undef MP_FI_CALL
#define MP_FS_CALL(N, S, F)                                                                     \
    if (c->plan.levels == 1 && c->plan.f[0] == F && c->n == N && c->s == S) {                   \
        fs_mul_##N##_##S##_##F(c, r, a, b);                                                     \
        return 1;                                                                               \
    }
    MP_FS_CASES(MP_FS_CALL)
#undef MP_FS_CALL
    return 0;
}

int mns_pmns_mp_fi_sqr(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a)
{
#define MP_FI_CALL(N, S)                                                                        \
    if (c->plan.levels == 0 && c->n == N && c->s == S) {                                        \
        fi_sqr_##N##_##S(c, r, a);                                                              \
        return 1;                                                                               \
    }
    MP_FI_CASES(MP_FI_CALL)
#undef MP_FI_CALL
#define MP_FS_CALL(N, S, F)                                                                     \
    if (c->plan.levels == 1 && c->plan.f[0] == F && c->n == N && c->s == S) {                   \
        fs_sqr_##N##_##S##_##F(c, r, a);                                                        \
        return 1;                                                                               \
    }
    MP_FS_CASES(MP_FS_CALL)
#undef MP_FS_CALL
    return 0;
}
