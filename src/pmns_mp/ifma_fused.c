/* The fused IFMA kernels for one product, unsplit (one instance per (s,
 * ceil(n/8))) and with the Toeplitz split inside (one per (s, plan)), the
 * choice between them, and the constant data they read (pmns_mp/ifma_fused.h has
 * the method). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "pmns_mp/ifma_fused_reg.h"
#include "pmns_mp/ifma_fused_split.h"

/* ---- unsplit ---------------------------------------------------------------- */

#define FU_INST1(S, NV, SQ, NAME)                                                              \
    IFMA_TARGET static void NAME(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,     \
                                 const uint64_t *b)                                            \
    {                                                                                          \
        _Alignas(64) uint64_t w[FUSED_WORDS(S, NV)];                                           \
        const mns_pmns_mp_ctx *cx[1] = {c};                                                    \
        uint64_t *rr[1] = {r};                                                                 \
        const uint64_t *aa[1] = {a}, *bb[1] = {b};                                             \
        fu_body(cx, rr, aa, bb, w, S, NV, SQ, 1, (NV) == 2);                                   \
    }
#define FU_INST(S, NV) FU_INST1(S, NV, 0, fu_mul_##S##_##NV) FU_INST1(S, NV, 1, fu_sqr_##S##_##NV)
#define FU_ROW(S)                                                                              \
    FU_INST(S, 1) FU_INST(S, 2) FU_INST(S, 3) FU_INST(S, 4) FU_INST(S, 5) FU_INST(S, 6)        \
    FU_INST(S, 7) FU_INST(S, 8)
FU_ROW(2)
FU_ROW(3)
FU_ROW(4)
FU_ROW(5)
FU_ROW(6)
#define FU_REF(P, S) {P##S##_1, P##S##_2, P##S##_3, P##S##_4, P##S##_5, P##S##_6, P##S##_7, P##S##_8}
static const mp_mul_fn fu_mul_tab[MP_FAST_SMAX - 1][8] = {
    FU_REF(fu_mul_, 2), FU_REF(fu_mul_, 3), FU_REF(fu_mul_, 4), FU_REF(fu_mul_, 5),
    FU_REF(fu_mul_, 6)};
static const mp_mul_fn fu_sqr_tab[MP_FAST_SMAX - 1][8] = {
    FU_REF(fu_sqr_, 2), FU_REF(fu_sqr_, 3), FU_REF(fu_sqr_, 4), FU_REF(fu_sqr_, 5),
    FU_REF(fu_sqr_, 6)};
/* n = 6, 7, 8 (one vector per polynomial): the register kernel (fr_body),
 * one instance per (s, n) so that every loop is unrolled. Its windows of B
 * are built in registers up to s = 4 (1024 bits, s = 3: 248 vs 271 ticks
 * per product, 217-235 vs 254 per squaring; s = 4, n = 6: 354 vs 357, 309
 * vs 324) and loaded from the sequences above (s = 5, n = 7: 510-526 vs
 * 739-762, the 2 s window registers spill R there) */
#define FR_INST1(S, N, SQ, NAME)                                                               \
    IFMA_TARGET static void NAME(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,     \
                                 const uint64_t *b)                                            \
    {                                                                                          \
        _Alignas(64) uint64_t w[FR_WORDS(S)];                                                  \
        const mns_pmns_mp_ctx *cx[1] = {c};                                                    \
        uint64_t *rr[1] = {r};                                                                 \
        const uint64_t *aa[1] = {a}, *bb[1] = {b};                                             \
        fr_body(cx, rr, aa, bb, w, S, SQ, N, (S) <= FR_RW_SMAX, 1, 0);                          \
    }
#define FR_INST(S, N) FR_INST1(S, N, 0, fr_mul_##S##_##N) FR_INST1(S, N, 1, fr_sqr_##S##_##N)
#define FR_ROW(S) FR_INST(S, 6) FR_INST(S, 7) FR_INST(S, 8)
FR_ROW(2)
FR_ROW(3)
FR_ROW(4)
FR_ROW(5)
FR_ROW(6)
#define FR_REF(P, S) {P##S##_6, P##S##_7, P##S##_8}
static const mp_mul_fn fr_mul_tab[MP_FAST_SMAX - 1][3] = {
    FR_REF(fr_mul_, 2), FR_REF(fr_mul_, 3), FR_REF(fr_mul_, 4), FR_REF(fr_mul_, 5),
    FR_REF(fr_mul_, 6)};
static const mp_mul_fn fr_sqr_tab[MP_FAST_SMAX - 1][3] = {
    FR_REF(fr_sqr_, 2), FR_REF(fr_sqr_, 3), FR_REF(fr_sqr_, 4), FR_REF(fr_sqr_, 5),
    FR_REF(fr_sqr_, 6)};
/* ---- split -------------------------------------------------------------------- */

/* per-call scratch on the stack, its size fixed by the instance (S and the
 * plan): every instance fits 128 KiB, checked here at compile time */
#define FS_STACK_WORDS 16384
#define FS_INST1(S, F0, F1, F2, SQ, NAME)                                                      \
    _Static_assert(FS_WORDS(S, F0, F1, F2) <= FS_STACK_WORDS, "fused scratch above the bound"); \
    IFMA_TARGET static void NAME(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,     \
                                 const uint64_t *b)                                            \
    {                                                                                          \
        const mns_pmns_mp_ctx *cx[1] = {c};                                                    \
        uint64_t *rr[1] = {r};                                                                 \
        const uint64_t *aa[1] = {a}, *bb[1] = {b};                                             \
        _Alignas(64) uint64_t w[FS_WORDS(S, F0, F1, F2)];                                      \
        fs_body(cx, rr, aa, bb, w, S, (c->n + 7) / 8, SQ, 1, F0, F1, F2);                      \
    }
/* NV is a run-time value here (the plan fixes the vector count N / 8 >= NV) */
#define FS_INST(S, P, F0, F1, F2)                                                              \
    FS_INST1(S, F0, F1, F2, 0, fs_mul_##S##_##P) FS_INST1(S, F0, F1, F2, 1, fs_sqr_##S##_##P)
#define FS_ROW(S)                                                                              \
    FS_INST(S, 2, 2, 0, 0) FS_INST(S, 3, 3, 0, 0) FS_INST(S, 22, 2, 2, 0)                      \
    FS_INST(S, 23, 2, 3, 0) FS_INST(S, 222, 2, 2, 2)
FS_ROW(2)
FS_ROW(3)
FS_ROW(4)
FS_ROW(5)
FS_ROW(6)
#define FS_REF(P, S) {P##S##_2, P##S##_3, P##S##_22, P##S##_23, P##S##_222}
static const mp_mul_fn fs_mul_tab[MP_FAST_SMAX - 1][5] = {
    FS_REF(fs_mul_, 2), FS_REF(fs_mul_, 3), FS_REF(fs_mul_, 4), FS_REF(fs_mul_, 5),
    FS_REF(fs_mul_, 6)};
static const mp_mul_fn fs_sqr_tab[MP_FAST_SMAX - 1][5] = {
    FS_REF(fs_sqr_, 2), FS_REF(fs_sqr_, 3), FS_REF(fs_sqr_, 4), FS_REF(fs_sqr_, 5),
    FS_REF(fs_sqr_, 6)};

/* the plan for ceil(n/8) vectors: factors of N/8 >= nv (padded up) */
static const struct fs_plan {
    int code, f[3], m, leaves;
    double vg, mg, og; /* growth of vector entries, matrix entries, outputs */
} fs_plans[5] = {
    {2, {2, 0, 0}, 2, 3, 2, 2, 2},       {3, {3, 0, 0}, 3, 6, 3, 4, 4},
    {22, {2, 2, 0}, 4, 9, 4, 4, 4},      {23, {2, 3, 0}, 6, 18, 6, 8, 8},
    {222, {2, 2, 2}, 8, 27, 8, 8, 8}};
static int fs_plan_index(int nv)
{
    static const int idx[9] = {-1, -1, 0, 1, 2, 3, 3, 4, 4};
    return nv >= 0 && nv <= 8 ? idx[nv] : -1;
}

/* The exact range of the split's matrix-side leaf entries (fs_seq_leaves):
 * every entry is an integer combination of the sequence entries t[d], d in
 * [-N, N), with t[d] in [0, X] for 0 <= d < n (digits), [0, |lambda| X] for
 * -n <= d < 0 (lambda times a digit) and 0 elsewhere; the leaf entry's range
 * is the sum over d of its coefficient times that interval. The unit sequence
 * of each d is expanded exactly as the kernel does (scalar), so the bound is
 * the real one and not (sum of |coefficients|) x lambda X: a difference of two
 * digits is in [-X, X], not 2 X wide on each side, and the lambda entries
 * only ever reach one side of it. 3-way with lambda = 2: [-4 X, 3 X] against
 * 8 X, so k = 49 passes where the growth bound needed k <= 47. Returns the
 * largest |entry| (only the lanes a window reads: leaf entries -7..7). */
static double fs_mat_bound(const struct fs_plan *pl, int n, long lambda, double X)
{
    enum { NMAX = 64, SEQ = 2 * NMAX, LEAFW = 16 };
    const int N = 8 * pl->m, NL = pl->leaves;
    double hi[27 * LEAFW], lo[27 * LEAFW];
    int a[27 * SEQ], b[27 * SEQ]; /* one level's sequences, 2 m entries each */
    for (int i = 0; i < NL * LEAFW; i++)
        hi[i] = lo[i] = 0;
    for (int src = -N; src < N; src++) {
        const double xs = src >= 0 ? (src < n ? X : 0) : (src >= -n ? labs(lambda) * X : 0);
        if (xs == 0)
            continue;
        for (int i = 0; i < 2 * N; i++)
            a[i] = 0;
        a[src + N] = 1;
        int *x = a, *y = b, count = 1, m = N;
        for (int l = 0; l < 3 && pl->f[l]; l++) {
            const int f = pl->f[l], h = m / f, kids = FS_KIDS(f);
            for (int q = 0; q < count; q++)
                for (int e = -h; e < h; e++) {
                    const int *p = x + (size_t)q * 2 * m + m; /* entry 0 */
                    const int u0 = p[e], um1 = p[e - h], up1 = p[e + h];
                    int v[6] = {u0, um1 - u0, up1 - u0, 0, 0, 0};
                    if (f == 3) {
                        v[3] = p[e - 2 * h] - um1;
                        v[4] = p[e + 2 * h] - up1;
                        v[5] = up1 + um1 - 2 * u0;
                    }
                    for (int k = 0; k < kids; k++)
                        y[(size_t)(q * kids + k) * 2 * h + e + h] = v[k];
                }
            int *t = x;
            x = y;
            y = t;
            count *= kids;
            m = h;
        }
        for (int l = 0; l < NL; l++)
            for (int e = 1; e < LEAFW; e++) {
                const double cf = x[l * LEAFW + e];
                hi[l * LEAFW + e] += cf > 0 ? cf * xs : 0;
                lo[l * LEAFW + e] += cf < 0 ? cf * xs : 0;
            }
    }
    double mx = 0;
    for (int i = 0; i < NL * LEAFW; i++)
        mx = fmax(mx, fmax(hi[i], -lo[i]));
    return mx;
}

/* Every bound of the split kernel (pmns_mp/ifma_fused.h), for the loosest operand
 * the context accepts (its digits after the carry: k bits, the top one up to
 * 2^lg_d): matrix entries (operand digits and T, times lambda, through the
 * differences) in [-2^51, 2^51) so that + 2^51 is a 52-bit input, by their
 * exact range (fs_mat_bound), and lambda times a digit below 2^52 (its low
 * half is taken); vector entries (block sums of operand and M digits) below
 * 2^52; the lo / hi lanes of R (leaf sums below 2^55, through the
 * contraction, up to 3s products per row) inside int64. */
static int fs_bounds_ok_x(const struct fs_plan *pl, int n, int s, int k, long lambda, double lg_d,
                          uint64_t mdmax)
{
    const double X = ldexp(1.0, (int)ceil(fmax(lg_d, (double)k)));
    double lvec = fmax(lg_d, log2((double)mdmax + 1)) + log2(pl->vg);
    double lacc = 55 + log2(pl->og) + log2(3.0 * s);
    return lvec < 51.99 && labs(lambda) * X < ldexp(1.0, 52) &&
           fs_mat_bound(pl, n, lambda, X) <= ldexp(1.0, 51) && lacc < 62.9;
}
/* The cost the choices compare, in TSC ticks: half a tick per vpmadd52 (two
 * per cycle) and 30 per CIOS step (the chain T -> T M_0 -> carry, which the
 * products of one step do not hide at small n), fitted on 1024-8192-bit
 * runs of both kernels (docs/pmns-mp.md). vpmadd52 per multiplication:
 * unsplit s n nv (4s + 1); split s (32 s leaves + n nv) (8 x 8 leaves, the
 * product by M'_0 unsplit), times the split's extra work per vpmadd52
 * (expansions, contractions, the leaf domain's loads and stores): 1.1 with 6
 * or more leaves (0.55-0.58 ticks per vpmadd52 at 6144-8192 bits, s = 6),
 * 1.35 for the 3 leaves of a single 2-way level (measured slower than the
 * unsplit kernel at 2048-4096 bits), and 150 per step of the split's work
 * that does not scale with s (the row contractions, T's sequence and its
 * expansion): with the exact bounds of fs_bounds_ok_x the single 3-way level
 * became possible at 3072-4096 bits (s = 3, 4, n = 23), where it measured no
 * faster than the unsplit kernel (one process, A/B on one set: 4096 bits mul
 * 0.95-0.99, sqr 1.03; 3072 mul 1.02, sqr 1.12), while at s = 6 (6144) it
 * is 25% faster; 150 keeps both. */
static double cost_unsplit(int s, int n)
{
    int nv = (n + 7) / 8;
    return 0.5 * s * n * nv * (4 * s + 1) + 30.0 * s;
}
static double cost_split(int s, int n, int leaves)
{
    int nv = (n + 7) / 8;
    double pen = leaves <= 3 ? 1.35 : 1.1;
    return 0.5 * pen * s * (32.0 * s * leaves + (double)n * nv) + (30.0 + 150.0) * s;
}

/* the n the generator gives for s chunks of k bits, predicted: the smallest n
 * with bits/n + log2(n/e) + 3.2 <= s k - 7.5 (rho of the LLL basis, Section 3,
 * and phi > 2 w rho; fitted on 1024-8192-bit primes, within 1) */
int mns_pmns_mp_predict_n(size_t bits, int s, int k)
{
    for (int n = 2; n < 4 * MP_FAST_NMAX; n++)
        if ((double)bits / n + log2(n / 2.718281828) + 3.2 <= (double)s * k - 7.5)
            return n;
    return 4 * MP_FAST_NMAX;
}

/* the k the generator gives the unsplit kernel with lambda = 2: (B3) with t
 * = 1 leaves lambda 2^k < 2^52, so 50; a lambda-carried set only 2^k < 2^52 */
static int unsplit_k(int carried) { return carried ? 51 : 50; }

/* The unsplit kernel's s by the cost of its real set. The predicted n
 * assumes lambda = 2; the IFMA sets take lambda > 0 only (unsigned digits),
 * and for p = 1 mod 8 (one 1024-bit prime in four) no small lambda is an 8th
 * power: s = 3 then lands on n = 9, one coefficient past a vector, which
 * measured 473-488 ticks per product against 213 for the n = 8 of the other
 * primes, where s = 4 gives n = 6 (292-301) and s = 2 n = 12 or 13 (309).
 * A candidate that misses its predicted n is generated again at that n with
 * the lambda walk (MNS_PMNS_GEN_LAMBDA_WALK, |lambda| <= 64): most such
 * primes have a larger lambda that fits n = 8.
 * So the candidates s[0..cnt) (cheapest predicted first) are generated in
 * turn while one could still beat the best real cost so far (a real n is
 * never below the predicted one, within the model's error) and `bar` (a
 * split set's real cost); the cheapest real set goes to *pre and its s to
 * *s_out. Normally the first one lands on its predicted n and is the only
 * one generated (the set the backend would have generated anyway). Returns
 * whether it found a set cheaper than bar. */
static int unsplit_by_real_n(const mpz_t p, int dgen, int carried, const int *s,
                             const double *predicted, int cnt, double bar, int *s_out,
                             mns_pmns_params **pre)
{
    double best = bar;
    mns_pmns_params *bp = NULL;
    for (int i = 0; i < cnt; i++) {
        if (predicted[i] >= best)
            break;
        mns_pmns_gen_opts o;
        mns_pmns_gen_opts_init(&o);
        o.word = MNS_PMNS_WORD_U52;
        o.s = s[i];
        o.delta = dgen > MNS_PMNS_DELTA_MAX ? MNS_PMNS_DELTA_MAX : dgen;
        o.toeplitz_adds = 1;
        if (carried)
            o.flags |= MNS_PMNS_GEN_LAMBDA_CARRIED;
        mns_pmns_params *P = NULL;
        if (mns_pmns_generate_var(&P, p, &o) != MNS_OK)
            P = NULL;
        const int want = mns_pmns_mp_predict_n(mpz_sizeinbase(p, 2), s[i], unsplit_k(carried));
        if ((!P || mns_pmns_params_n(P) > want) && want <= MP_FAST_NMAX) {
            /* missed the predicted n: that n with the next lambdas (the
             * automatic walk takes the smallest lambda of each n, and skips
             * an n whose lambda the model puts short) */
            mns_pmns_gen_opts ow = o;
            ow.n = want;
            ow.lambda_max = 64;
            ow.flags |= MNS_PMNS_GEN_LAMBDA_WALK;
            mns_pmns_params *W = NULL;
            if (mns_pmns_generate_var(&W, p, &ow) == MNS_OK) {
                mns_pmns_params_free(P);
                P = W;
            }
        }
        if (!P)
            continue;
        const int n = mns_pmns_params_n(P);
        const double c = n <= MP_FAST_NMAX ? cost_unsplit(s[i], n) : 1e30;
        if (c < best) {
            mns_pmns_params_free(bp);
            bp = P;
            best = c;
            *s_out = s[i];
        } else {
            mns_pmns_params_free(P);
        }
    }
    *pre = bp;
    return bp != NULL;
}

/* The automatic (s, toeplitz_adds) of pmns-mp-ifma: the cheapest of the
 * unsplit kernel (t = 1: lambda 2^k < 2^52, so k = 50 for lambda = 2) and the
 * split one (t = 2 x the plan's matrix growth, so that the leaf entries stay
 * below 2^51 after the differences) over s = 2..6 (or the s asked for), by
 * the cost above on the predicted n. A split candidate is generated here and
 * costed on its real n, lambda and k (lambda > 2 or an n past a vector
 * boundary can make it lose to the unsplit kernel): if it still wins, *pre
 * gets the set (the backend uses it instead of generating again), else the
 * best unsplit (s, 1) is returned. The kernel choice is made again on the
 * real set (fused_prepare). */
void mns_pmns_mp_ifma_choose(const mpz_t p, int s_req, int dgen, int carried, int *s_out,
                             int *tadds_out, mns_pmns_params **pre)
{
    const size_t bits = mpz_sizeinbase(p, 2);
    double best_u = 0, best_s = 0;
    int us = s_req ? s_req : 3, ss = 0, st_ = 0, spi = -1;
    int us_cand[MP_FAST_SMAX + 1], n_cand = 0; /* unsplit s, cheapest predicted first */
    double u_cost[MP_FAST_SMAX + 1];
    *pre = NULL;
    for (int s = s_req ? s_req : 2; s <= (s_req ? s_req : MP_FAST_SMAX); s++) {
        int n = mns_pmns_mp_predict_n(bits, s, unsplit_k(carried));
        if (n <= MP_FAST_NMAX) {
            /* the unsplit candidates, cheapest predicted first (ties: the
             * smaller s); the first is the unsplit choice */
            const double cu = cost_unsplit(s, n);
            int q = n_cand++;
            for (; q > 0 && u_cost[q - 1] > cu; q--) {
                us_cand[q] = us_cand[q - 1];
                u_cost[q] = u_cost[q - 1];
            }
            us_cand[q] = s;
            u_cost[q] = cu;
            us = us_cand[0];
            best_u = u_cost[0];
        }
        for (int pi = 0; pi < 5; pi++) {
            /* t = 2 x the plan's matrix growth: the generator's k then
             * leaves the split's exact bounds (fs_bounds_ok_x) two bits of
             * room. Asking for the largest k they allow (lambda = 2: 50 for
             * the plan 2, 49 for 3 and 2x2, 48 for 2x3 and 2x2x2, against
             * 48, 47, 47, 46, 46 by the growth bound) moved the cost model's
             * choice to shapes it does not price (6144 bits: s=3 n=49
             * 2x2x2; 8192: 7-10 s of generation, then unsplit n=29): not
             * measured, left as it was */
            const int t = 2 * (int)fs_plans[pi].mg;
            const int k = 50 - (int)ceil(log2((double)t));
            int ns = mns_pmns_mp_predict_n(bits, s, k);
            if (fs_plan_index((ns + 7) / 8) != pi)
                continue;
            double c = cost_split(s, ns, fs_plans[pi].leaves);
            if (best_s == 0 || c < best_s) {
                best_s = c;
                ss = s;
                st_ = t;
                spi = pi;
            }
        }
    }
    *s_out = us;
    *tadds_out = 1;
    if (s_req && n_cand == 0) { /* beyond the model's n: generated all the same */
        us_cand[0] = s_req;
        u_cost[0] = 0;
        n_cand = 1;
    }
    if (spi < 0 || (best_u != 0 && best_s >= best_u)) {
        unsplit_by_real_n(p, dgen, carried, us_cand, u_cost, n_cand, 1e30, s_out, pre);
        return;
    }
    mns_pmns_gen_opts o;
    mns_pmns_gen_opts_init(&o);
    o.word = MNS_PMNS_WORD_U52;
    o.s = ss;
    o.delta = dgen > MNS_PMNS_DELTA_MAX ? MNS_PMNS_DELTA_MAX : dgen;
    o.toeplitz_adds = st_;
    mns_pmns_params *P = NULL;
    if (mns_pmns_generate_var(&P, p, &o) != MNS_OK) {
        unsplit_by_real_n(p, dgen, carried, us_cand, u_cost, n_cand, 1e30, s_out, pre);
        return;
    }
    const int n = mns_pmns_params_n(P), k = (int)mns_pmns_params_chunk_bits(P);
    const int pi = fs_plan_index((n + 7) / 8);
    double c = n <= MP_FAST_NMAX ? cost_unsplit(ss, n) : 1e30;
    if (pi >= 0 && fs_bounds_ok_x(&fs_plans[pi], n, ss, k, mns_pmns_params_lambda(P), k,
                                  ((uint64_t)1 << k) - 1))
        c = fmin(c, cost_split(ss, n, fs_plans[pi].leaves));
    if (best_u != 0 && c >= best_u && unsplit_by_real_n(p, dgen, carried, us_cand, u_cost, n_cand, c, s_out, pre)) {
        mns_pmns_params_free(P);
        return;
    }
    *s_out = ss;
    *tadds_out = st_;
    *pre = P;
}

/* digit j of lam times M's coefficient i (u52: nonnegative), k-bit digits,
 * the top one taking the rest; UINT64_MAX if it does not fit a word */
static uint64_t lam_m_digit(const mns_pmns_mp_ctx *c, unsigned long lam, int i, int j)
{
    mpz_t t;
    mpz_init(t);
    mpz_mul_ui(t, mns_pmns_params_m(c->P, i), lam);
    mpz_fdiv_q_2exp(t, t, (mp_bitcnt_t)c->k * j);
    if (j < c->s - 1)
        mpz_fdiv_r_2exp(t, t, (mp_bitcnt_t)c->k);
    uint64_t d = mpz_fits_ulong_p(t) ? mpz_get_ui(t) : UINT64_MAX;
    mpz_clear(t);
    return d;
}

/* digit j of M's coefficient i */
static uint64_t m_digit(const mns_pmns_mp_ctx *c, int i, int j) { return lam_m_digit(c, 1, i, j); }

/* the Toeplitz sequence of M_j for the unsplit kernels: t[d] = digit j of
 * m_d, t[-d] = digit j of lambda m_(n-d) (carried as fu_lam_digit does),
 * d in (-n, n), at
 * t[d + N] (2N words, zero elsewhere); returns the largest entry */
static uint64_t m_seq(const mns_pmns_mp_ctx *c, int j, uint64_t *t, int N)
{
    const int n = c->n;
    uint64_t mx = 0;
    memset(t, 0, (size_t)2 * N * sizeof *t);
    for (int d = 0; d < n; d++) {
        const uint64_t md = m_digit(c, d, j);
        t[N + d] = md;
        mx = md > mx ? md : mx;
        if (d > 0) {
            const uint64_t lmd = lam_m_digit(c, (unsigned long)c->lambda, d, j);
            t[N + d - n] = lmd;
            mx = lmd > mx ? lmd : mx;
        }
    }
    return mx;
}

static int fs_bounds_ok(const mns_pmns_mp_ctx *c, const struct fs_plan *pl, uint64_t mdmax)
{
    return fs_bounds_ok_x(pl, c->n, c->s, c->k, c->lambda, c->lg_d, mdmax);
}

/* msplit: the vector expansion of the digits of M_j (s x NL x 8 words), then
 * the excess - 2^51 sum of each leaf as (lo, hi) (s x NL x 2) */
IFMA_TARGET static int fs_prepare(mns_pmns_mp_ctx *c, const struct fs_plan *pl)
{
    const int s = c->s, n = c->n, N = 8 * pl->m, NL = pl->leaves;
    uint64_t *dig = mns_alloc64((size_t)N * 8);
    uint64_t *tmp = mns_alloc64((size_t)16 * N * 8);
    c->msplit = mns_alloc64(((size_t)s * NL * 10 + 8) * 8);
    int ok = dig && tmp && c->msplit;
    uint64_t mdmax = 0;
    for (int j = 0; ok == 1 && j < s; j++) {
        memset(dig, 0, (size_t)N * 8);
        for (int d = 0; d < n; d++) {
            dig[d] = m_digit(c, d, j);
            mdmax = dig[d] > mdmax ? dig[d] : mdmax;
        }
        fs_expand_vec(dig, c->msplit + (size_t)j * NL * 8, tmp, N, pl->f[0], pl->f[1], pl->f[2]);
        fs_corr(dig, c->msplit + (size_t)s * NL * 8 + (size_t)j * NL * 2, N, pl->f[0], pl->f[1],
                pl->f[2]);
    }
    if (ok && !fs_bounds_ok(c, pl, mdmax))
        ok = -1;
    free(dig);
    free(tmp);
    if (ok != 1) {
        free(c->msplit);
        c->msplit = NULL;
    }
    return ok;
}

/* c->mpfast <- M'_0's columns mod 2^k in lanes lanes: column c, lane r:
 * t'[r - c], t'[d] = m'_d, t'[-d] = lambda m'_(n-d); 0 when memory is
 * short. */
static int mprime_columns(mns_pmns_mp_ctx *c, int lanes)
{
    const int n = c->n;
    c->mpl = lanes;
    c->mpfast = mns_alloc64((size_t)n * c->mpl * 8);
    uint64_t *tp = malloc((size_t)2 * n * 8);
    if (!c->mpfast || !tp) {
        free(tp);
        return 0;
    }
    memset(c->mpfast, 0, (size_t)n * c->mpl * 8);
    mpz_t t;
    mpz_init(t);
    for (int d = 0; d < n; d++) {
        mpz_fdiv_r_2exp(t, mns_pmns_params_mprime(c->P, d), (mp_bitcnt_t)c->k);
        uint64_t v = mpz_get_ui(t);
        tp[n - 1 + d] = v;
        if (d > 0)
            tp[n - 1 - (n - d)] = (v * (uint64_t)c->lambda) & c->kmask;
    }
    mpz_clear(t);
    for (int cc = 0; cc < n; cc++)
        for (int r = 0; r < n; r++)
            c->mpfast[(size_t)cc * c->mpl + r] = tp[n - 1 + r - cc];
    free(tp);
    return 1;
}

/* The fused path's constant data and kernel (creation time): M'_0's sequence
 * mod 2^k for T (both forms), then the unsplit M_j column matrices (column c
 * of M_j, lane r: t_j[r - c]; lanes >= n stay 0) or the split leaves. The
 * choice: base= >= n asks for no split, 8 <= base < n for the split (8-lane
 * leaves); automatic (no base=): the split when its bounds hold and it costs
 * less than the unsplit kernel (cost_split, cost_unsplit). base < 8 keeps the
 * expand/contract flow of pmns_mp/ifma.c. Returns 0 on out of memory only. */
int mns_pmns_mp_ifma_fused_prepare(mns_pmns_mp_ctx *c)
{
    const int n = c->n, s = c->s, nv = (n + 7) / 8;
    if (n > MP_FAST_NMAX || s > MP_FAST_SMAX || s < 2)
        return 1;
    const int b = c->base_user;
    const int pi = fs_plan_index(nv);
    int want_split = 0, want_unsplit = 0;
    if (c->lam_carried) {
        /* only the unsplit kernels carry lambda a into digits; their window
         * entries: digits below 2^k (k < 52), and the top digit of lambda a,
         * below lambda (2^lg_top - 1) + lambda - 1; fu_lam_digit's 64-bit
         * product lambda x_j needs lambda 2^max(k, lg_top) < 2^63 */
        const double llam = log2((double)c->lambda);
        if ((b != 0 && b < n) || llam + c->lg_top >= 51.99 || llam + c->k >= 63)
            return 1;
        want_unsplit = 1;
    } else if (b == 0) {
        want_unsplit = 1;
        want_split = pi >= 0 && cost_split(s, n, fs_plans[pi].leaves) < cost_unsplit(s, n);
    } else if (b >= n)
        want_unsplit = 1;
    else if (b >= 8)
        want_split = pi >= 0;
    else
        want_unsplit = c->plan.levels == 0;
    if (!want_split && !want_unsplit)
        return 1;
    /* M'_0's columns, lanes up to the split's N (its T covers N lanes) or
     * 8 ceil(n/8) */
    if (!mprime_columns(c, want_split && pi >= 0 ? 8 * fs_plans[pi].m : 8 * nv))
        return 0;
    if (want_split) {
        int ok = fs_prepare(c, &fs_plans[pi]);
        if (ok == 0)
            return 0;
        if (ok == 1) {
            c->fs_plan = fs_plans[pi].code;
            c->fast = fs_mul_tab[s - 2][pi];
            c->fast_sqr = fs_sqr_tab[s - 2][pi];
            mns_pmns_mp_ifma_x2_prepare(c);
            return 1;
        }
        if (b != 0) { /* split asked for but its bounds fail: the flow of pmns_mp/ifma.c */
            free(c->mpfast);
            c->mpfast = NULL;
            return 1;
        }
        if (c->mpl != 8 * nv) { /* the unsplit kernel reads 8 ceil(n/8) lanes per column */
            uint64_t *m2 = mns_alloc64((size_t)n * 8 * nv * 8);
            if (!m2)
                return 0;
            for (int cc = 0; cc < n; cc++)
                memcpy(m2 + (size_t)cc * 8 * nv, c->mpfast + (size_t)cc * c->mpl, (size_t)8 * nv * 8);
            free(c->mpfast);
            c->mpfast = m2;
            c->mpl = 8 * nv;
        }
    }
    const size_t L = (size_t)nv * 8;
    c->mfast = mns_alloc64((size_t)n * s * L * 8);
    uint64_t *seq = malloc((size_t)2 * L * 8);
    if (!c->mfast || !seq) {
        free(seq);
        return 0;
    }
    memset(c->mfast, 0, (size_t)n * s * L * 8);
    uint64_t mmax = 0;
    for (int j = 0; j < s; j++) {
        const uint64_t mx = m_seq(c, j, seq, (int)L);
        mmax = mx > mmax ? mx : mmax;
        for (int cc = 0; cc < n; cc++)
            for (int r = 0; r < n; r++)
                c->mfast[((size_t)cc * s + j) * L + r] = seq[L + r - cc];
    }
    free(seq);
    if (mmax >> 52) { /* an IFMA input (a lambda-carried set's top digit) */
        free(c->mfast);
        free(c->mpfast);
        c->mfast = c->mpfast = NULL;
        return 1;
    }
    c->fast = fu_mul_tab[s - 2][nv - 1];
    c->fast_sqr = fu_sqr_tab[s - 2][nv - 1];
    if (n >= FR_NMIN && n <= 8) { /* fr_body: 5-15% faster at 768-1536 bits */
        c->fast = fr_mul_tab[s - 2][n - FR_NMIN];
        c->fast_sqr = fr_sqr_tab[s - 2][n - FR_NMIN];
    }
    /* the squaring kernels multiply each digit by lambda (fu_seq): a
     * lambda-carried set where that can reach 2^52 squares with the product
     * kernel (about 1.2x a squaring's madds) */
    c->sqr_by_mul = c->lam_carried && log2((double)c->lambda) + c->lg_d >= 51.99;
    if (c->sqr_by_mul)
        c->fast_sqr = c->fast;
    mns_pmns_mp_ifma_x2_prepare(c);
    if (c->sqr_by_mul) /* and no interleaved squaring: two calls of the product */
        c->fast2_sqr = NULL;
    return 1;
}

void mns_pmns_mp_ifma_fused_describe(const mns_pmns_mp_ctx *c, char *buf, size_t len)
{
    if (!c->fs_plan) {
        snprintf(buf, len, "fused");
        return;
    }
    char f[16];
    int o = 0;
    for (int l = 0, p = c->fs_plan; p; l++, p /= 10)
        f[o++] = (char)('0' + p % 10);
    /* the digits of the code, most significant first */
    char out[16];
    int q = 0;
    for (int i = o - 1; i >= 0; i--) {
        out[q++] = f[i];
        if (i)
            out[q++] = 'x';
    }
    out[q] = 0;
    snprintf(buf, len, "fused:%s/b8", out);
}
