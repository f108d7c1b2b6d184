/* Multi-precision PMNS (pmns-mp, pmns-mp-ifma): the context and the Toeplitz
 * plan shared by the kernels. Paper: pmns-multiprecision-cios.txt.
 *
 * REPRESENTATION (an element is limbs = s*n uint64_t words)
 *   e[j*n + i] is digit j of coefficient i ("reduced coefficients", eq. (6)):
 *   a_i = sum_j (int64_t)e[j*n + i] * 2^(k j), A_j = sum_i e[j*n+i] X^i.
 *   The element is A(gamma) * phi^-1 mod p (Montgomery domain, Remark 4).
 *
 * INVARIANTS
 *   tight (set_mpz, mul, sqr, reduce, one, set_words):
 *     S64: digits 0..s-2 in [0, 2^k), digit s-1 signed, |a_i| <= B_i =
 *          tight[i] <= rho - 1: the per-coefficient bound tight_bounds
 *          (pmns_mp/backend.c) proves at creation with exact integers for this
 *          delta (every Montgomery product of loose operands, reduce and
 *          set_mpz land in it again). B_i is about N_i / 2 (N_0 = N = rho
 *          on the generator's sets, N_(n-1) about N / |lambda|), so delta = 1
 *          often fits the set generated for delta = 0 (delta_gen = 0).
 *     U52: every digit >= 0, digits 0..s-2 < 2^k, 0 <= a_i < rho.
 *   loose (add/sub of tight; mul/sqr/reduce accept it):
 *     S64: digit-wise sums/differences of at most delta+1 tight elements:
 *          |a_i| <= (delta+1) B_i, |digit| <= (delta+1) 2^k (reduce: also
 *          a sum of two when delta = 0).
 *     U52: sub(a, b) = a + Z - b, Z a fixed representation of 0 whose digits
 *          dominate every tight digit (so digits never go negative: IFMA is
 *          unsigned). The subtrahend b must be tight. 0 <= a_i <= loose_max.
 *   Every bound the kernels rely on (digit growth through the Toeplitz
 *   splitting, int64 leaf entries, int128 / 52-bit lo-hi accumulators, the
 *   Montgomery closure for the loose bound) is checked at creation with
 *   exact or conservative arithmetic; a set that fails is regenerated with a
 *   larger internal delta or refused.
 *
 * TOEPLITZ PLAN
 *   A product by a polynomial mod E = X^n - lambda is a Toeplitz matrix-vector
 *   product (eq. (2)) with sequence t[d], d in [-(n-1), n-1]: t[d] = b_d,
 *   t[-d] = lambda b_(n-d). The plan splits n by factors 2 (3 products) and 3
 *   (6 products, Hasan-Negre) down to leaves of size b. A vector is
 *   "expanded" into its leaf vectors, a matrix into its leaf sequences, leaf
 *   products accumulate in the expanded domain, and only the digit Alg. 3
 *   needs next is "contracted" back to n coefficients: every product into the
 *   same R_(i+j) shares one contraction.
 */
#ifndef MNS_PMNS_MP_CTX_H
#define MNS_PMNS_MP_CTX_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <gmp.h>
#include "core/alloc.h"
#include "mns.h"
#include "mns_pmns.h"

typedef __int128 mp_i128;
typedef unsigned __int128 mp_u128;

#define MP_PLAN_MAX 12

typedef struct mp_plan {
    int n;                  /* root size */
    int levels;             /* number of splits */
    int f[MP_PLAN_MAX];     /* split factor of each level: 2 or 3 */
    int b;                  /* leaf size */
    int leaves;             /* number of leaf products */
    int nv;                 /* leaves * b: expanded vector length */
    int nm;                 /* leaves * (2b - 1): expanded matrix length */
    int tmp;                /* words of scratch for expand */
    int ctmp;               /* elements of scratch for contract */
} mp_plan;

void mns_pmns_mp_plan_make(mp_plan *pl, int n, int base);
/* A plan with the given split factors (2 or 3 each; their product divides n). */
void mns_pmns_mp_plan_make_factors(mp_plan *pl, int n, const int *f, int levels);
/* growth of leaf entries over the root entries (max over leaves) */
double mns_pmns_mp_plan_vec_growth(const mp_plan *pl);
double mns_pmns_mp_plan_mat_growth(const mp_plan *pl);
/* growth of the contraction (sum of |coefficients| of leaf outputs) */
double mns_pmns_mp_plan_out_growth(const mp_plan *pl);

/* Linear maps on wrapping 64-bit words (exact on int64 values that stay in
 * range; exact mod 2^64 always). tmp holds pl->tmp words. */
void mns_pmns_mp_expand_vec(const mp_plan *pl, const uint64_t *v, uint64_t *out, uint64_t *tmp);
/* t: 2n-1 words, t[d + n - 1]; out: leaves x (2b-1) at stride ostride */
void mns_pmns_mp_expand_mat(const mp_plan *pl, const uint64_t *t, uint64_t *out, int ostride,
                            uint64_t *tmp);
/* in: leaf l's output at in + l*istride; out: n words */
void mns_pmns_mp_contract_u64(const mp_plan *pl, const uint64_t *in, int istride, uint64_t *out,
                              uint64_t *tmp);
void mns_pmns_mp_contract_u128(const mp_plan *pl, const mp_u128 *in, int istride, mp_u128 *out,
                               mp_u128 *tmp);

typedef struct mns_pmns_mp_ctx mns_pmns_mp_ctx;
typedef void (*mp_mul_fn)(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                          const uint64_t *b);
typedef void (*mp_sqr_fn)(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a);
/* two independent products, contexts of one shape (pmns_mp/ifma_x2.c) */
typedef void (*mp_mul2_fn)(const mns_pmns_mp_ctx *c0, const mns_pmns_mp_ctx *c1, uint64_t *r0,
                           const uint64_t *a0, const uint64_t *b0, uint64_t *r1,
                           const uint64_t *a1, const uint64_t *b1);

struct mns_pmns_mp_ctx {
    mns_pmns_params *P;
    int n, s, k, u52;
    long lambda;
    int delta;          /* the user's delta */
    int delta_gen;      /* the delta the set was generated with */
    size_t limbs;
    uint64_t kmask;     /* 2^k - 1 */
    mp_plan plan;
    int base;           /* leaf size limit used for the plan */

    /* portable kernel: leaf sequences, stride mstride per leaf */
    int mstride;        /* 2b - 1 + 8 (padding read by the IFMA loads) */
    uint64_t *mseq;     /* M_j: s x leaves x mstride (int64 values) */
    uint64_t *mpseq;    /* M'_0 mod 2^64: leaves x mstride */

    /* IFMA kernel: column matrices, lanes (j, r) padded to a multiple of 8 */
    int lanes_s;        /* pad8(s b) */
    int lanes_1;        /* pad8(b) */
    uint64_t *mcol;     /* leaves x b x lanes_s: M_j + offset */
    uint64_t *mpcol;    /* leaves x b x lanes_1: M'_0 mod 2^52 */
    int *moff;          /* per leaf: offset exponent (0: none) for the M_j */
    int *aoff;          /* per leaf: offset exponent for the operand matrices */

    /* IFMA fused path (plans with no split, n <= MP_FAST_NMAX, s <= MP_FAST_SMAX):
     * padded Toeplitz sequences read by unaligned loads, so no column matrix
     * is ever built; fast != NULL selects it (pmns_mp/ifma.c). */
    uint64_t *mfast;    /* n x s x pad8(n): aligned column matrices of the M_j */
    uint64_t *mpfast;   /* n x mpl: the columns of M'_0's Toeplitz matrix mod 2^k */
    int mpl;            /* lanes per column of mpfast (8 ceil(n/8), or the split's N) */
    mp_mul_fn fast;
    mp_mul_fn fast_sqr; /* called with b == a */
    mp_mul2_fn fast2;   /* fused x2 (NULL: two calls), for c0 and c1 of one (n, s) */
    mp_mul2_fn fast2_sqr;
    /* fused path with the Toeplitz split inside (pmns_mp/ifma_fused.h): the plan
     * (factors of N = 8 ceil(n/8) padded up, 0 if unsplit) and the leaf
     * column matrices of the M_j (+ 2^51) */
    int fs_plan;        /* e.g. 222: three 2-way levels; 0: none */
    uint64_t *msplit;
    int base_user;      /* the base= asked for (0: automatic) */
    /* FMA kernel (pmns_mp/fma.c): mfast and mpfast as doubles (M_j's columns at
     * mfl = 8 ceil(n/8) lanes, M'_0's at mpl); NULL for the other kernels */
    double *mfd, *mpfd;
    int mfl;
    int mpfl; /* mpfd's columns' stride: mpl, or the split's 2m if more */
    /* its Toeplitz split (fma_h = H > 0: halves of m = fma_vl H lanes): the
     * three m x m column matrices of each M_j's half sequences, mfs[w][c][j][r] */
    double *mfs;
    int fma_h;
    int fma_vl;   /* lanes a vector, 4 (AVX2) or 8 (AVX-512F); before prepare:
                   * the width asked for (lanes=), 0 for the CPU's widest */
    int fma_base; /* base= of kernel=fma: 0 automatic, >= n unsplit, else split */
    mp_mul_fn fm_mul, fm_sqr; /* the FMA instance for (n, s, split) */
    int fma_miss;       /* build: the FMA kernel has no instance for (n, s) */
    int fma_split_miss; /* prepare: the cost rule wanted the split, its bound failed */
    double lg_d;        /* bits of the largest normalised operand digit (build) */
    double lg_top;      /* bits of the largest normalised top digit (build) */
    int lam_carried;    /* a lambda-carried set: only the unsplit fused IFMA
                           kernels (fu_seq, fr_norm, m_seq) may run it */
    int sqr_by_mul;     /* lambda times a digit may reach 2^52: the squarings
                           run the product kernel (fused_prepare) */

    uint64_t *one;      /* tight representation of phi mod p (Montgomery 1) */
    /* S64: the proven tight bound, |a_i| <= tight[i] (n values, tight_bounds
     * in pmns_mp/backend.c); NULL for U52 (tight there is 0 <= a_i < rho) */
    mpz_t *tight;
    int tight0_bits;    /* a coefficient 0 below 2^tight0_bits is tight (set_words) */
    uint64_t *unit;     /* S64: the constant polynomial 1 (set_mpz's last Montgomery step) */
    uint64_t *zero_z;   /* U52: the Z of sub */
    uint64_t *words;    /* set_words (pmns_mp/words.c): G = [2^wbits], P2 = [phi], tight */
    int wbits;          /* bits per chunk of set_words: a constant polynomial stays tight */
    mpz_t p, gamma, phi_inv;
    uint64_t *gw_pow; /* gamma^t R mod p for get_words (get_words.c) */

    mp_mul_fn mul;
    mp_sqr_fn sqr;
    const char *kernel;
    const char *kernel_describe; /* malloc'ed */
    size_t scratch;     /* words of per-call scratch of the kernel */
};

/* Kernels: r <- A B phi^-1 (Alg. 3), tight, for loose a, b; r may alias. */
void mns_pmns_mp_mul_generic(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                             const uint64_t *b);
void mns_pmns_mp_sqr_generic(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a);
size_t mns_pmns_mp_scratch_generic(const mns_pmns_mp_ctx *c);
/* Generic kernel (pmns_mp/generic.c): 1 if it is exact on plan pl (entries fit
 * int64, every digit of R fits int128; dtop bounds the normalised operands'
 * top digit, md holds M's digits), its modelled cost in TSC ticks, and the
 * choice of c->plan: the cheapest exact plan, or with base > 0 the cheapest
 * with leaves <= base (else the smallest leaf that is exact). 0: none. */
int mns_pmns_mp_generic_plan_ok(const mns_pmns_mp_ctx *c, const mp_plan *pl, const uint64_t *md,
                                double dtop);
double mns_pmns_mp_generic_cost(int n, int s, const mp_plan *pl);
int mns_pmns_mp_generic_plan_choose(mns_pmns_mp_ctx *c, const uint64_t *md, double dtop, int base);
/* the default (n, s) of the generic kernel for a p of bits bits: up to max
 * candidates, the cheapest by its cost model first; returns how many */
int mns_pmns_mp_generic_candidates(size_t bits, int *out_n, int *out_s, int max);
void mns_pmns_mp_mul_ifma(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                          const uint64_t *b);
/* FMA kernel (pmns_mp/fma.c): the fused schedule (unsplit or one 2-way split) with double-precision
 * FMA products; prepare (after mns_pmns_mp_ifma_prepare built the fused
 * data) makes mfd/mpfd and sets mul/sqr: 1, 0 without an instance for
 * (n, s) (s = 2..4, n <= 48), -1 out of memory, -2 when the set's digits
 * break the product's bound (mns_pmns_mp_fma_bounds_ok: k <= 51, every
 * product at most 2^102; lg_d: bits of the largest operand digit, mmax: the
 * largest entry of M_j's sequences) */
void mns_pmns_mp_mul_fma(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                         const uint64_t *b);
void mns_pmns_mp_sqr_fma(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a);
int mns_pmns_mp_fma_prepare(mns_pmns_mp_ctx *c);
/* the FMA kernel's 8-lane instances (pmns_mp/fma512.c, AVX-512F): the product
 * (sq: the squaring) for (s, n), unsplit (h = 0) or split into halves of h
 * vectors; NULL where there is none (or the build has no AVX-512F code) */
mp_mul_fn mns_pmns_mp_fma8_instance(int s, int n, int h, int sq);
/* why the FMA kernel cannot run 8 lanes here (no AVX-512F, or a build
 * without the instances), or NULL when it can */
const char *mns_pmns_mp_fma8_missing(void);
int mns_pmns_mp_fma_has(int s, int n);
int mns_pmns_mp_fma_bounds_ok(int k, long lambda, double lg_d, uint64_t mmax, int split);
/* the FMA kernel's cost model of c's choice (unsplit or split), to compare
 * two sets (of any s and n); _predict: of a set of (s, n) whose split
 * bound holds, in vectors of lanes (4, 8; 0: the CPU's widest) */
long mns_pmns_mp_fma_cost(const mns_pmns_mp_ctx *c);
long mns_pmns_mp_fma_cost_predict(int s, int n, int lanes);
/* the n the generator gives for s chunks of k bits at this size, predicted
 * (pmns_mp/ifma_fused.c; within 1 on 1024-8192-bit primes) */
int mns_pmns_mp_predict_n(size_t bits, int s, int k);
void mns_pmns_mp_sqr_ifma(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a);
size_t mns_pmns_mp_scratch_ifma(const mns_pmns_mp_ctx *c);
#define MP_FAST_NMAX 64
#define MP_FAST_SMAX 6
#define MP_FAST_OFF 8
#define MP_FAST_SEQ (2 * MP_FAST_NMAX + 16)

/* set_words of backend.h (pmns_mp/words.c): r <- the tight element of the
 * mpz_size(p)-word value a < p, constant time. words_prepare fills words
 * and wbits (creation time, after one). */
void mns_pmns_mp_set_words(const void *ctx, uint64_t *r, const uint64_t *a);
mns_status mns_pmns_mp_words_prepare(mns_pmns_mp_ctx *c);

/* builds mcol / mpcol from mseq / mpseq (creation time) */
int mns_pmns_mp_ifma_prepare(mns_pmns_mp_ctx *c);
/* the fused path's constant data and kernels (pmns_mp/ifma_fused.c, pmns_mp/ifma_x2.c);
 * nothing for plans with a split */
int mns_pmns_mp_ifma_fused_prepare(mns_pmns_mp_ctx *c);
/* the automatic (s, toeplitz_adds) for the IFMA kernel (s_req: 0 or the s
 * asked for), by the fused kernels' cost; *pre: a set it generated to check
 * a split candidate (to be used as is), or NULL. carried: the unsplit
 * candidates are lambda-carried sets (MNS_PMNS_GEN_LAMBDA_CARRIED) */
void mns_pmns_mp_ifma_choose(const mpz_t p, int s_req, int dgen, int carried, int *s_out,
                             int *tadds_out, mns_pmns_params **pre);
/* "fused" or "fused:2x2x2/b8" (the split of the fused kernel) */
void mns_pmns_mp_ifma_fused_describe(const mns_pmns_mp_ctx *c, char *buf, size_t len);
void mns_pmns_mp_ifma_x2_prepare(mns_pmns_mp_ctx *c);
/* r0 <- a0 b0 in c0, r1 <- a1 b1 in c1 (b = a: squarings), as one fused
 * stream when both contexts have it for the same (n, s), else two calls */
void mns_pmns_mp_mul_x2_any(const mns_pmns_mp_ctx *c0, const mns_pmns_mp_ctx *c1, uint64_t *r0,
                            const uint64_t *a0, const uint64_t *b0, uint64_t *r1,
                            const uint64_t *a1, const uint64_t *b1);
void mns_pmns_mp_sqr_x2_any(const mns_pmns_mp_ctx *c0, const mns_pmns_mp_ctx *c1, uint64_t *r0,
                            const uint64_t *a0, uint64_t *r1, const uint64_t *a1);

/* The Toeplitz sequence of the polynomial with coefficients v (n words, as
 * int64) mod X^n - lambda: t[d + n - 1], 2n-1 words. Wrapping arithmetic. */
static inline void mns_pmns_mp_toeplitz_seq(uint64_t *t, const uint64_t *v, int n, long lambda)
{
    for (int d = 0; d < n; d++)
        t[n - 1 + d] = v[d];
    for (int d = 1; d < n; d++)
        t[n - 1 - d] = v[n - d] * (uint64_t)lambda;
}

/* r <- a with its digits carried: digits 0..s-2 in [0, 2^k), the top digit
 * takes the rest (arithmetic shifts, constant time). The coefficient values
 * do not change, so loose operands (sums of up to delta+1 tight ones) enter
 * the kernels with tight-sized digits and only the Montgomery closure has to
 * cover their size. r must not alias a. */
static inline void mns_pmns_mp_normalize(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a)
{
    const int n = c->n, s = c->s, k = c->k;
    for (int i = 0; i < n; i++) {
        int64_t carry = 0;
        for (int j = 0; j < s - 1; j++) {
            int64_t x = (int64_t)a[(size_t)j * n + i] + carry;
            r[(size_t)j * n + i] = (uint64_t)x & c->kmask;
            carry = x >> k;
        }
        r[(size_t)(s - 1) * n + i] = a[(size_t)(s - 1) * n + i] + (uint64_t)carry;
    }
}


#endif
