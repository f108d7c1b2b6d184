/* Portable kernel of the multi-precision PMNS: compiled instances of
 * Algorithm 3 for fixed (n, s, plan), in product-scanning order (see
 * fips_flow). This file is compiled with general registers only
 * (CMakeLists.txt): otherwise GCC moves the 128-bit sums between stack slots
 * through SSE registers, 16-byte loads of values just stored as two 8-byte
 * words, which cannot be forwarded from the stores (a stall of about a dozen
 * cycles each, on the chain from one digit to the next). */
#include <string.h>

#include "pmns_mp/generic.h"

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

/* The linear maps of a plan of one level (F2 = 1) or two (F1 then F2), leaf
 * order as in pmns_mp/plan.c (depth first: the F2-leaves of level-1 leaf l1 are
 * l1 L2 .. l1 L2 + L2 - 1). v: N words; o: the leaves' vectors, H each. */
static inline __attribute__((always_inline)) void vexp2(const uint64_t *v, uint64_t *o,
                                                         uint64_t *tmp, int N, int F1, int F2)
{
    const int H1 = N / F1, L1 = F1 == 2 ? 3 : 6;
    if (F2 == 1) {
        vexp1(v, o, H1, F1);
        return;
    }
    const int H = H1 / F2, L2 = F2 == 2 ? 3 : 6;
    vexp1(v, tmp, H1, F1);
#pragma GCC unroll 1
    for (int l1 = 0; l1 < L1; l1++)
        vexp1(tmp + l1 * H1, o + l1 * L2 * H, H, F2);
}

/* t: the 2N - 1 entries of a Toeplitz sequence; o: its leaves' sequences at
 * stride 2H - 1 */
static inline __attribute__((always_inline)) void mexp2(const uint64_t *t, uint64_t *o,
                                                         uint64_t *tmp, int N, int F1, int F2)
{
    const int H1 = N / F1, L1 = F1 == 2 ? 3 : 6;
    if (F2 == 1) {
        mexp1(t, o, (size_t)(2 * H1 - 1), H1, F1, N);
        return;
    }
    const int H = H1 / F2, L2 = F2 == 2 ? 3 : 6;
    mexp1(t, tmp, (size_t)(2 * H1 - 1), H1, F1, N);
#pragma GCC unroll 1
    for (int l1 = 0; l1 < L1; l1++)
        mexp1(tmp + l1 * (2 * H1 - 1), o + l1 * L2 * (2 * H - 1), (size_t)(2 * H - 1), H, F2,
              H1);
}

/* o (N values) <- the contraction of the leaf outputs in (L H values);
 * tmp: L1 H1 values */
#define MP_CONTRACT2(o, in, tmp, N, F1, F2)                                                     \
    do {                                                                                        \
        const int H1_ = (N) / (F1), L1_ = (F1) == 2 ? 3 : 6;                                    \
        if ((F2) == 1)                                                                          \
            MP_CONTRACT1(o, in, H1_, F1);                                                       \
        else {                                                                                  \
            const int H_ = H1_ / (F2), L2_ = (F2) == 2 ? 3 : 6;                                 \
            _Pragma("GCC unroll 1") for (int l1 = 0; l1 < L1_; l1++)                            \
            {                                                                                   \
                __typeof__(&(tmp)[0]) o_ = (tmp) + l1 * H1_;                                    \
                const __typeof__(&(in)[0]) i_ = (in) + l1 * L2_ * H_;                           \
                MP_CONTRACT1(o_, i_, H_, F2);                                                   \
            }                                                                                   \
            MP_CONTRACT1(o, tmp, H1_, F1);                                                      \
        }                                                                                       \
    } while (0)

/* The same schedule on a plan of one level (factor F1, F2 = 1) or two (F1
 * then F2; leaves of H = N/(F1 F2)): the digits are summed leaf row by leaf
 * row in the expanded domain (the leaf products of every pair of a digit in
 * one register pair), each digit contracted once; for d < s, T_d comes from
 * the contracted low words (expanded, leaf products mod 2^64 by M'_0,
 * contracted, centred) and T_d M_0 is a second pass of leaf rows. A_j and
 * the vectors B_i, T_i are expanded once. Wrapping sums in the expanded
 * domain: see the top of pmns_mp/generic.c. Array sizes: N <= NM, L H <= 4 N
 * (VM) and L (2H - 1) <= 8 N (MM) for every plan of at most two levels; the
 * instance macros check N and S at compile time. */
static inline __attribute__((always_inline)) void
fips_split(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *bb,
           const int sqr, const int N, const int S, const int F1, const int F2)
{
    enum { NM = 2 * MP_FI_NMAX, VM = 4 * NM, MM = 8 * NM, SM = 6 };
    const int L = (F1 == 2 ? 3 : 6) * (F2 == 1 ? 1 : F2 == 2 ? 3 : 6);
    const int H = N / F1 / F2, MS = 2 * H - 1;
    const int k = c->k, sh = 64 - k;
    const size_t ms = (size_t)c->mstride, mstep = (size_t)L * ms;
    const uint64_t kmask = c->kmask;
    _Static_assert(SM <= MNS_PMNS_S_MAX, "instances take s <= 6");
    uint64_t na[SM * NM], nb[SM * NM], tseq[2 * NM], etmp[MM];
    uint64_t sa[SM][MM], bv[SM][VM], tv[SM][VM];
    uint64_t lo[NM], lov[VM], tl[VM], T[NM], ltmp[VM];
    int64_t cy[NM];
    mp_i128 C[NM], E[VM], X[NM], ctmp[VM];
    normalise_ns(c, na, a, cy, N, S);
    if (!sqr)
        normalise_ns(c, nb, bb, cy, N, S);
#pragma GCC unroll 16
    for (int j = 0; j < S; j++) {
        mns_pmns_mp_toeplitz_seq(tseq, na + j * N, N, c->lambda);
        mexp2(tseq, sa[j], etmp, N, F1, F2);
        vexp2((sqr ? na : nb) + j * N, bv[j], etmp, N, F1, F2);
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
        MP_CONTRACT2(X, E, ctmp, N, F1, F2);
#pragma GCC unroll 16
        for (int q = 0; q < N; q++)
            X[q] += C[q];
        if (d < S) {
#pragma GCC unroll 16
            for (int q = 0; q < N; q++)
                lo[q] = (uint64_t)X[q];
            vexp2(lo, lov, etmp, N, F1, F2);
#pragma GCC unroll 1
            for (int l = 0; l < L; l++)
                MP_LEAF_LO(tl + l * H, c->mpseq + l * ms, lov + l * H, H, lov + l * H, MP_RAW);
            MP_CONTRACT2(T, tl, ltmp, N, F1, F2);
#pragma GCC unroll 16
            for (int q = 0; q < N; q++)
                T[q] = (uint64_t)((int64_t)(T[q] << sh) >> sh);
            vexp2(T, tv[d], etmp, N, F1, F2);
#pragma GCC unroll 1
            for (int l = 0; l < L; l++)
#pragma GCC unroll 8
                for (int q = 0; q < H; q++)
                    E[l * H + q] = row128(0, c->mseq + l * ms + H - 1, tv[d] + l * H, H, q);
            MP_CONTRACT2(C, E, ctmp, N, F1, F2);
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

/* The instances: the portable defaults' sets on mns-bench's primes (docs/
 * pmns-mp.md): n=9 s=2 unsplit and n=6 s=3 3/b2 (1024 bits), n=12 s=3 3/b4
 * (2048, delta = 0), n=9 s=4 3/b3 (2048, delta = 1), n=9 s=6 3/b3 (3072),
 * n=12 s=6 2x2/b3 (4096), n=18 s=6 3/b6 (6144, delta = 0), n=24 s=6 2x3/b4
 * (8192). Measured and dropped (same runs): n=12 s=3 2x2/b3 (7% slower
 * than 3/b4), n=22 s=5 2/b11 (6144 with delta = 1: no faster than the
 * flow), n=18 s=6 with two levels (its entries do not fit: lambda = -4),
 * n=12 s=6 3/b4 (2x2/b3 is 4-6% faster and passes wherever it does on
 * these sets), n=9 s=2 3/b3 (no faster than unsplit).
 * And the sets that random primes reach through their lambda (measured on
 * 16 random primes per size on a Zen 3): n=6 s=3 unsplit (1024 bits, about
 * half of the primes: |lambda| >= 4 makes the 3/b2 entries too wide; 3/b2
 * stays 15% faster where both fit and the cost model keeps it), n=3 s=6
 * unsplit (1024), n=6 s=6 unsplit (2048, about a third), n=15 s=5 3/b5
 * (4096, one in eight). The general flow takes 1.17-1.24x these
 * instances' time (n=6 s=3), 1.18x (n=3 s=6), 1.08-1.19x (n=6 s=6)
 * and 1.11x (n=15 s=5): both builds in one process, same primes.
 * Measured and dropped: n=14 s=4 2/b7 (3072, 3 primes in 16: no faster
 * than the flow), n=30 s=5 3/b10 (8192, 2 primes in 7, one with 2x3/b5:
 * 2.5% faster than the flow, at the price of n up to 30 in every split
 * instance's arrays). The paper's shapes at 4096 and 6144 bits (n=24 s=3,
 * n=36 s=3: fewer 128-bit products) have no set on random primes. */
#define MP_FI_CASES(X) X(9, 2) X(6, 3) X(3, 6) X(6, 6)

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

/* split instances: (n, s, first factor, second factor or 1 for one level) */
#define MP_FS_CASES(X)                                                                          \
    X(6, 3, 3, 1) X(12, 3, 3, 1) X(18, 6, 3, 1) X(24, 6, 2, 3) X(12, 6, 2, 2) X(9, 4, 3, 1)     \
        X(9, 6, 3, 1) X(24, 5, 2, 3) X(15, 5, 3, 1)

#define MP_FS_INST(N, S, F, G)                                                                  \
    _Static_assert((N) <= 2 * MP_FI_NMAX && (S) <= 6 && (N) % ((F) * (G)) == 0,                 \
                   "fips_split's arrays");                                                      \
    static MP_FI_ATTR void fs_mul_##N##_##S##_##F##G(const mns_pmns_mp_ctx *c, uint64_t *r,      \
                                                     const uint64_t *a, const uint64_t *b)      \
    {                                                                                           \
        fips_split(c, r, a, b, 0, N, S, F, G);                                                  \
    }                                                                                           \
    static MP_FI_ATTR void fs_sqr_##N##_##S##_##F##G(const mns_pmns_mp_ctx *c, uint64_t *r,      \
                                                     const uint64_t *a)                         \
    {                                                                                           \
        fips_split(c, r, a, a, 1, N, S, F, G);                                                  \
    }
MP_FS_CASES(MP_FS_INST)

/* plan pl is F (G = 1) or F then G */
#define MP_FS_PLAN(pl, F, G)                                                                    \
    ((G) == 1 ? (pl)->levels == 1 && (pl)->f[0] == (F)                                          \
              : (pl)->levels == 2 && (pl)->f[0] == (F) && (pl)->f[1] == (G))

/* 1 if a compiled instance runs (n, s, plan) (the lists above) */
int mns_pmns_mp_fi_has(int n, int s, const mp_plan *pl)
{
#define MP_FI_HAS(N, S)                                                                         \
    if (pl->levels == 0 && n == N && s == S)                                                    \
        return 1;
#define MP_FS_HAS(N, S, F, G)                                                                   \
    if (MP_FS_PLAN(pl, F, G) && n == N && s == S)                                               \
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
#define MP_FS_CALL(N, S, F, G)                                                                  \
    if (MP_FS_PLAN(&c->plan, F, G) && c->n == N && c->s == S) {                                 \
        fs_mul_##N##_##S##_##F##G(c, r, a, b);                                                     \
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
#define MP_FS_CALL(N, S, F, G)                                                                  \
    if (MP_FS_PLAN(&c->plan, F, G) && c->n == N && c->s == S) {                                 \
        fs_sqr_##N##_##S##_##F##G(c, r, a);                                                        \
        return 1;                                                                               \
    }
    MP_FS_CASES(MP_FS_CALL)
#undef MP_FS_CALL
    return 0;
}
