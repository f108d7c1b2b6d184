/* The FMA kernel of the multi-precision PMNS (kernel=fma of pmns-mp, its
 * default up to 8192 bits on x86-64 CPUs with AVX2 and FMA; MNS_CPU=generic
 * turns it off): Alg. 3 on the u52 sets of pmns-mp-ifma,
 * the schedule of its unsplit fused kernel (mp_ifma_fused.h: lanes are
 * coefficients, A's digits broadcast against windows of B's Toeplitz
 * sequence, T M_j from aligned column matrices, EARLY operand products), with
 * each 52 x 52-bit product made of two double-precision FMAs, 4 lanes.
 *
 * Why: on a CPU without IFMA the scalar 64 x 64 -> 128-bit multiplier is the
 * bound of the portable kernel (tests/mul_rate.c: 1.8 cycles a product on
 * Zen 3), while two 256-bit FMA pipes give a 4-lane 52 x 52-bit product with
 * both halves in about 1.9 cycles (2.8x the bits^2 per cycle).
 *
 * THE PRODUCT (exact for |ab| < 2^102, a and b integers of either sign below
 * 2^53, round to nearest; FMA_PROD_BITS):
 *   h  = fma(a, b, 3 2^102)      in [2^103, 2^104], a multiple of 2^51:
 *                                bits(h) - bits(3 2^102) = hi = round(ab / 2^51),
 *                                signed (also at 2^104, where the exponent steps)
 *   lo = fma(a, b, C - h), C = 3 2^102 + 3 2^51 (53 significant bits, so C - h
 *        = (3 - hi) 2^51 is exact): lo = ab - 2^51 hi + 3 2^51, exact, in
 *        [2^52 + 2^50, 2^53 - 2^50] as |ab - 2^51 hi| <= 2^50, so that
 *        bits(lo) - bits(3 2^51) = ab - 2^51 hi
 * so ab = lo + 2^51 hi with lo signed: two FMAs, one subtraction and the two
 * integer adds of the accumulators, five operations a product. (A unit of
 * 2^52, which 52 x 52-bit products need, has no such C: 2^104 + 3 2^51 needs
 * 54 bits, and the split costs an add more; the bound costs nothing, see
 * mns_pmns_mp_fma_bounds_ok.) Signed products serve the Toeplitz split
 * below, whose differences of sequence entries are negative as often as not. The IFMA kernel's lo is ab mod 2^52 and its hi
 * the floor of ab / 2^52; every use below only needs lo + 2^51 hi and lo mod
 * 2^k, k <= 51: T reads lo mod 2^k, the exact division shifts lo + carry
 * arithmetically and adds hi 2^(51-k), so R, T and the result are the IFMA
 * kernel's integers exactly (the tests compare the words). The accumulators
 * add bits(h) and bits(lo); the biases (count x the constant's bits) come off
 * once. The lo sums are smaller than IFMA's and the hi sums at most twice
 * theirs, for the same integers: the bounds the u52 set was checked for hold.
 *
 * Rounding: the identities need round to nearest. A caller's MXCSR with
 * another rounding mode (or unmasked exceptions: the FMAs are inexact by
 * design) is saved, set for the call and restored. A mode without rounding
 * control in the hardware would break the split: valgrind ignores MXCSR's
 * rounding field, so a round-down version (one add fewer per product) gave
 * wrong results under it; this one is right under valgrind too.
 *
 * Constant time: loop bounds depend on (n, s) only, no branch or index on
 * data; the operands are integers below 2^53 or multiples of 2^51 near
 * 2^103, never subnormal (where some FPUs are slower). */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "pmns/mp_ctx.h"

#define FMA_PROD_BITS 102

/* The product's bound, |ab| < 2^FMA_PROD_BITS = 2^102, for every product the
 * kernel makes, and 2^51 hi = 0 mod 2^k:
 *   k <= 51;
 *   A's digits (below 2^lg_d: k bits, the top one what the loose bound
 *   leaves) by B's sequence (digits times lambda >= 1): lambda 2^(2 lg_d),
 *   and lambda 2^lg_d < 2^53 so that fm_seq's double product is exact;
 *   T (below 2^k) by M_j's sequence (entries at most mmax): 2^k mmax;
 *   R_i mod 2^k by M'_0's mod 2^k: 2^(2k).
 * The generator's (B3) with t = 1 gives lambda 2^k < 2^52, so k <= 50 and
 * lambda 2^(2k) < 2^(52+k) <= 2^102: the bound holds on every set whose top
 * digits stay within k bits; build() regenerates with more room if not.
 * split: the Toeplitz split's operands (see fs_body): the sums of two halves
 * of a vector (one bit more) by sequence entries, and the differences of
 * entries (no wider, as the entries are >= 0) by the halves: lambda
 * 2^(2 lg_d + 1) and 2^(k+1) mmax, which the sets with k <= 50 and lambda
 * 2 meet (digits below 2^50: the products below 2^102). */
int mns_pmns_mp_fma_bounds_ok(int k, long lambda, double lg_d, uint64_t mmax, int split)
{
    /* exact integers: at 2^102 a product moves h by 2^51 while the exponent
     * field of its binade ends; logarithms are too coarse at the edge. A
     * digit is at most dmax: 2^k - 1, or the top digit's bound 2^lg_d (a
     * strict bound, rounded up) */
    typedef unsigned __int128 u128;
    if (k < 1 || k > 51 || lambda == 0 || labs(lambda) > (1L << 20) || !(lg_d >= k) || lg_d > 53)
        return 0;
    const u128 lam = (u128)labs(lambda), w = split ? 2 : 1, lim = (u128)1 << FMA_PROD_BITS;
    const u128 tmax = ((u128)1 << k) - 1;
    const u128 dmax = lg_d > k ? (u128)ceil(exp2(lg_d)) : tmax;
    return lam * dmax <= ((u128)1 << 53) && lam * dmax * (w * dmax) <= lim &&
           w * tmax * mmax <= lim && tmax * tmax <= lim;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define FMA_TARGET __attribute__((target("avx2,fma")))
#define AI __attribute__((always_inline))
#define SEQ MP_FAST_SEQ
#define OFF MP_FAST_OFF

/* the instances: s = 2..4, up to NV_MAX vectors of 4 coefficients */
#define NV_MAX 12

static const double C_HI = 0x1.8p103;             /* h = ab + 3 2^102, a multiple of 2^51 */
static const double C_MID = 0x1.8p103 + 0x1.8p52; /* lo = ab + (C_MID - h) */
static const double C_INT = 0x1p52;   /* x < 2^52 -> double: bits(2^52) | x, minus 2^52 */
#define BITS_HI 0x4668000000000000ULL /* bits(3 2^102) */
#define BITS_LO 0x4338000000000000ULL /* bits(3 2^51) */
#define BITS_INT 0x4330000000000000ULL

/* lanes < rem of a vector (rem >= 4: all) */
static inline AI FMA_TARGET __m256i lane_mask(int rem)
{
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(rem), _mm256_set_epi64x(3, 2, 1, 0));
}

/* integers in [0, 2^52) -> doubles, exactly */
static inline AI FMA_TARGET __m256d to_double(__m256i x)
{
    const __m256i b = _mm256_set1_epi64x((long long)BITS_INT);
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, b)), _mm256_set1_pd(C_INT));
}

/* (lo, hi) += w x, biased (see the top) */
static inline AI FMA_TARGET void mac(__m256i *lo, __m256i *hi, __m256d w, __m256d x)
{
    const __m256d ch = _mm256_set1_pd(C_HI);
    const __m256d h = _mm256_fmadd_pd(w, x, ch);
    const __m256d l = _mm256_fmadd_pd(w, x, _mm256_sub_pd(_mm256_set1_pd(C_MID), h));
    *hi = _mm256_add_epi64(*hi, _mm256_castpd_si256(h));
    *lo = _mm256_add_epi64(*lo, _mm256_castpd_si256(l));
}

/* p[0..cnt) = 0, cnt a multiple of 4, p 32-byte aligned: vector stores,
 * which the products' loads of R forward from. (memset became rep stos,
 * which loads wait for until it commits, after the previous call's tail
 * retired: 0.1x a 1024-bit product on Zen 3.) */
static inline AI FMA_TARGET void zero_rows(int64_t *p, const size_t cnt)
{
    __m256i z = _mm256_setzero_si256();
    __asm__("" : "+x"(z)); /* opaque: else GCC turns the loop back into memset */
#pragma GCC unroll 8
    for (size_t q = 0; q < cnt; q += 4)
        _mm256_store_si256((__m256i *)(p + q), z);
}

/* x >> k, arithmetic (AVX2 has no 64-bit one): (x + 2^63) >> k - 2^(63-k) */
static inline AI FMA_TARGET __m256i sra(__m256i x, __m256i kc, __m256i top, __m256i topk)
{
    return _mm256_sub_epi64(_mm256_srlv_epi64(_mm256_xor_si256(x, top), kc), topk);
}

/* the digits of a, carried as fu_seq does (digits 0..S-2 in [0, 2^k), the
 * top one the rest, below 2^52 by the set's bounds), as doubles in Toeplitz
 * sequences: t[n-1+d] = a_d, t[n-1-d] = lambda a_(n-d) (lambda a < 2^52:
 * the product is exact), at seq + j SEQ + OFF; zeros after the end for the
 * padding lanes' windows. Whole-vector stores, in an order where each
 * overwrites what the one before spilled past its lanes (lambda a, then a,
 * then the zeros): AMD's masked stores (vmaskmovpd) are microcoded. */
/* digit j of a's n coefficients (NVX vectors, lanes >= n: 0) as doubles,
 * carried (carry: zero before digit 0; TOP: j is the last digit) */
static inline AI FMA_TARGET void fm_digit(const mns_pmns_mp_ctx *c, const uint64_t *a, int j,
                                          __m256i *carry, __m256d *d, const int NVX, const int TOP)
{
    const int n = c->n;
    const __m256i km = _mm256_set1_epi64x((long long)c->kmask), kc = _mm256_set1_epi64x(c->k);
#pragma GCC unroll 16
    for (int v = 0; v < NVX; v++) {
        const __m256i m = lane_mask(n - 4 * v); /* lanes >= n read as 0 */
        __m256i x = _mm256_add_epi64(
            _mm256_maskload_epi64((const long long *)(a + (size_t)j * n + 4 * v), m), carry[v]);
        if (!TOP) {
            carry[v] = _mm256_srlv_epi64(x, kc);
            x = _mm256_and_si256(x, km);
        }
        d[v] = to_double(x);
    }
}

static inline AI FMA_TARGET void fm_seq(const mns_pmns_mp_ctx *c, double *seq, const uint64_t *a,
                                        const int S, const int NV)
{
    const int n = c->n;
    const __m256d lam = _mm256_set1_pd((double)c->lambda);
    __m256i carry[NV_MAX];
#pragma GCC unroll 16
    for (int v = 0; v < NV; v++)
        carry[v] = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int j = 0; j < S; j++) {
        double *t = seq + (size_t)j * SEQ + OFF;
        __m256d d[NV_MAX];
        fm_digit(c, a, j, carry, d, NV, j == S - 1);
        /* lane 0 of v = 0 lands in the front padding; lanes >= n past
         * t[n - 2], where a_0.. is stored next */
#pragma GCC unroll 16
        for (int v = 0; v < NV; v++)
            _mm256_storeu_pd(t + 4 * v - 1, _mm256_mul_pd(d[v], lam));
#pragma GCC unroll 16
        for (int v = 0; v < NV; v++)
            _mm256_storeu_pd(t + (n - 1) + 4 * v, d[v]);
        _mm256_storeu_pd(t + 2 * n - 1, _mm256_setzero_pd());
        _mm256_storeu_pd(t + 2 * n + 3, _mm256_setzero_pd());
    }
}

/* adds the biased sums of cnt products to R's rows 0..SJ-1, vectors v0..,
 * and (DUP > 0) again DUP lanes on (the split's shared product); DBL (the
 * squaring's cross products): rows j > 0 doubled (DBL = 2: every row),
 * after the biases came off, so that the sums keep their bounds */
static inline AI FMA_TARGET void fm_store(int64_t *rlo, int64_t *rhi, const __m256i *lo,
                                          const __m256i *hi, int cnt, const int SJ, const int VB,
                                          const int v0, const size_t L, const int DBL, const int DUP)
{
    const __m256i bl = _mm256_set1_epi64x((long long)((uint64_t)cnt * BITS_LO));
    const __m256i bh = _mm256_set1_epi64x((long long)((uint64_t)cnt * BITS_HI));
#pragma GCC unroll 8
    for (int j = 0; j < SJ; j++)
#pragma GCC unroll 8
        for (int v = 0; v < VB; v++) {
            __m256i *pl = (__m256i *)(rlo + j * L + 4 * (v0 + v));
            __m256i *ph = (__m256i *)(rhi + j * L + 4 * (v0 + v));
            __m256i l = _mm256_sub_epi64(lo[j * VB + v], bl);
            __m256i h = _mm256_sub_epi64(hi[j * VB + v], bh);
            if (DBL == 2 || (DBL && j > 0)) {
                l = _mm256_slli_epi64(l, 1);
                h = _mm256_slli_epi64(h, 1);
            }
            *pl = _mm256_add_epi64(*pl, l);
            *ph = _mm256_add_epi64(*ph, h);
            if (DUP) {
                pl = (__m256i *)((int64_t *)pl + DUP);
                ph = (__m256i *)((int64_t *)ph + DUP);
                *pl = _mm256_add_epi64(*pl, l);
                *ph = _mm256_add_epi64(*ph, h);
            }
        }
}

/* The column loops over v0 (fm_prod_win_all, fm_prod_col_all) stay rolled
 * from ROLL_MIN blocks on: unrolled, every call of theirs is a copy of its
 * loop, and at H = 6 (6144-8192 bits) the kernel was 41 KB of code (more
 * than the 32 KB L1 instruction cache of Zen 3; 25 KB rolled), run through
 * once per product. Against them unrolled, in one process (abn, three
 * primes a size, products / squarings): 0.88x / 0.95x the time at 3072 bits
 * and 0.88x / 0.88x at 4096 (H = 3), 0.91-0.96x / 0.95-0.97x at 6144,
 * 0.96x / 0.96-0.97x at 8192; rolled from 2 blocks, 2048 bits (H = 2)
 * measured within noise, so it stays unrolled there. */
#define ROLL_MIN 3
/* operand products: R[j][v] += sum_c xd[j XS + c] seq[4 v - c ..], c < n,
 * j < SJ, v in [v0, v0 + VB) (seq points at t_B + (n - 1), xd at A's
 * digits); DUP: see fm_store */
static inline AI FMA_TARGET void fm_prod_win(int64_t *rlo, int64_t *rhi, const double *seq,
                                             const double *xd, const int XS, int n, const int SJ,
                                             const int VB, const int v0, const size_t L,
                                             const int DBL, const int DUP)
{
    __m256i lo[8], hi[8];
#pragma GCC unroll 8
    for (int g = 0; g < SJ * VB; g++)
        lo[g] = hi[g] = _mm256_setzero_si256();
    const double *s0 = seq + 4 * v0;
    for (int cc = 0; cc < n; cc++) {
        __m256d w[4];
#pragma GCC unroll 4
        for (int v = 0; v < VB; v++)
            w[v] = _mm256_loadu_pd(s0 + 4 * v - cc);
#pragma GCC unroll 4
        for (int j = 0; j < SJ; j++) {
            const __m256d x = _mm256_broadcast_sd(xd + j * XS + cc);
#pragma GCC unroll 4
            for (int v = 0; v < VB; v++)
                mac(&lo[j * VB + v], &hi[j * VB + v], w[v], x);
        }
    }
    fm_store(rlo, rhi, lo, hi, n, SJ, VB, v0, L, DBL, DUP);
}

/* all S x NV outputs: every digit of A against VB vectors at a time, VB
 * = 4 / S (at least 1): at most 4 accumulator pairs in the 16 ymm registers
 * with the windows, the broadcast and the constants */
static inline AI FMA_TARGET void fm_prod_win_all(int64_t *rlo, int64_t *rhi, const double *seq,
                                                 const double *xd, const int XS, int n,
                                                 const int S, const int NV, const size_t L,
                                                 const int DBL, const int DUP)
{
    const int VB = S >= 4 ? 1 : (4 / S < NV ? 4 / S : NV);
    int v0 = 0;
    if (NV / VB >= ROLL_MIN) {
#pragma GCC unroll 1
        for (; v0 + VB <= NV; v0 += VB)
            fm_prod_win(rlo, rhi, seq, xd, XS, n, S, VB, v0, L, DBL, DUP);
    } else
#pragma GCC unroll 16
    for (; v0 + VB <= NV; v0 += VB)
        fm_prod_win(rlo, rhi, seq, xd, XS, n, S, VB, v0, L, DBL, DUP);
    if (NV - v0 > 0)
        fm_prod_win(rlo, rhi, seq, xd, XS, n, S, NV - v0, v0, L, DBL, DUP);
}

/* the operand products of step i: R_(i+j) += A_j B_i, j < S; SQ (b = a):
 * R_(2i) += A_i A_i and R_(i+j) += 2 A_j A_i for j > i, s(s+1)/2 products
 * in all instead of s^2 (rows from 2i: the digits from A_i on against A_i's
 * windows, the cross rows doubled). The number of rows is a constant per
 * case, as the accumulators need. */
static inline AI FMA_TARGET void fm_ops(int64_t *rlo, int64_t *rhi, const double *seqa,
                                        const double *seqb, int n, const int i, const int S,
                                        const int NV, const size_t L, const int SQ)
{
    const double *adig = seqa + OFF + (n - 1);
    if (!SQ) {
        fm_prod_win_all(rlo + i * L, rhi + i * L, seqb + (size_t)i * SEQ + OFF + (n - 1), adig, SEQ,
                        n, S, NV, L, 0, 0);
        return;
    }
    const double *win = seqa + (size_t)i * SEQ + OFF + (n - 1), *xd = adig + (size_t)i * SEQ;
    int64_t *l2 = rlo + 2 * i * L, *h2 = rhi + 2 * i * L;
    switch (S - i) {
    case 4: fm_prod_win_all(l2, h2, win, xd, SEQ, n, 4, NV, L, 1, 0); break;
    case 3: fm_prod_win_all(l2, h2, win, xd, SEQ, n, 3, NV, L, 1, 0); break;
    case 2: fm_prod_win_all(l2, h2, win, xd, SEQ, n, 2, NV, L, 1, 0); break;
    default: fm_prod_win_all(l2, h2, win, xd, SEQ, n, 1, NV, L, 1, 0); break;
    }
}

/* T M_j: R[j][v] += sum_c x[c] cols[c][j][v] (cols: the column matrices of
 * the M_j, CL lanes per (c, j)) */
static inline AI FMA_TARGET void fm_prod_col(int64_t *rlo, int64_t *rhi, const double *cols,
                                             const double *x, int n, const int S, const int SJ,
                                             const int VB, const int v0, const size_t L,
                                             const size_t CL, const int DUP)
{
    const size_t CS = (size_t)S * CL;
    __m256i lo[8], hi[8];
#pragma GCC unroll 8
    for (int g = 0; g < SJ * VB; g++)
        lo[g] = hi[g] = _mm256_setzero_si256();
    const double *col = cols + 4 * v0;
    for (int cc = 0; cc < n; cc++, col += CS) {
        const __m256d xv = _mm256_broadcast_sd(x + cc);
#pragma GCC unroll 4
        for (int j = 0; j < SJ; j++)
#pragma GCC unroll 4
            for (int v = 0; v < VB; v++)
                mac(&lo[j * VB + v], &hi[j * VB + v], _mm256_load_pd(col + j * CL + 4 * v), xv);
    }
    fm_store(rlo, rhi, lo, hi, n, SJ, VB, v0, L, 0, DUP);
}

static inline AI FMA_TARGET void fm_prod_col_all(int64_t *rlo, int64_t *rhi, const double *cols,
                                                 const double *x, int n, const int S, const int NV,
                                                 const size_t L, const size_t CL, const int DUP)
{
    const int VB = S >= 4 ? 1 : (4 / S < NV ? 4 / S : NV);
    int v0 = 0;
    if (NV / VB >= ROLL_MIN) {
#pragma GCC unroll 1
        for (; v0 + VB <= NV; v0 += VB)
            fm_prod_col(rlo, rhi, cols, x, n, S, S, VB, v0, L, CL, DUP);
    } else
#pragma GCC unroll 16
    for (; v0 + VB <= NV; v0 += VB)
        fm_prod_col(rlo, rhi, cols, x, n, S, S, VB, v0, L, CL, DUP);
    if (NV - v0 > 0)
        fm_prod_col(rlo, rhi, cols, x, n, S, S, NV - v0, v0, L, CL, DUP);
}

/* T = ((R_i + carry) mod 2^k) M'_0 mod (E, 2^k), as doubles into tb: only lo
 * matters (mod 2^k); xb: the broadcasts. H > 0 (the split, NV = 2H): also
 * the sums of T's halves into ts, from registers (a load of tb back would
 * add a store-to-load round trip to T's latency chain) */
static inline AI FMA_TARGET void fm_t(const mns_pmns_mp_ctx *c, const int64_t *rlo,
                                      const __m256i *carry, double *xb, double *tb, double *ts,
                                      __m256i km, const int NV, const int H)
{
    const int n = c->n;
    const size_t CL = (size_t)c->mpl;
    const __m256d ch = _mm256_set1_pd(C_HI), cm = _mm256_set1_pd(C_MID);
    __m256i acc[NV_MAX];
#pragma GCC unroll 16
    for (int v = 0; v < NV; v++) {
        const __m256i x = _mm256_add_epi64(_mm256_load_si256((const __m256i *)(rlo + 4 * v)), carry[v]);
        _mm256_store_pd(xb + 4 * v, to_double(_mm256_and_si256(x, km)));
        acc[v] = _mm256_setzero_si256();
    }
    for (int cc = 0; cc < n; cc++) {
        const __m256d x = _mm256_broadcast_sd(xb + cc);
#pragma GCC unroll 16
        for (int v = 0; v < NV; v++) {
            const __m256d w = _mm256_load_pd(c->mpfd + (size_t)cc * CL + 4 * v);
            const __m256d h = _mm256_fmadd_pd(w, x, ch);
            const __m256d l = _mm256_fmadd_pd(w, x, _mm256_sub_pd(cm, h));
            acc[v] = _mm256_add_epi64(acc[v], _mm256_castpd_si256(l));
        }
    }
    const __m256i bl = _mm256_set1_epi64x((long long)((uint64_t)n * BITS_LO));
    __m256d t[NV_MAX];
#pragma GCC unroll 16
    for (int v = 0; v < NV; v++) {
        t[v] = to_double(_mm256_and_si256(_mm256_sub_epi64(acc[v], bl), km));
        _mm256_store_pd(tb + 4 * v, t[v]);
    }
#pragma GCC unroll 8
    for (int v = 0; v < H; v++)
        _mm256_store_pd(ts + 4 * v, _mm256_add_pd(t[v], t[v + H]));
}

/* the exact division: carry = (R_i + carry) / 2^k = (lo + carry) >> k + hi
 * 2^(51-k), lo + carry divisible by 2^k */
static inline AI FMA_TARGET void fm_div(const int64_t *rlo, const int64_t *rhi, __m256i *carry,
                                        __m256i kc, __m256i kh, __m256i top, __m256i topk,
                                        const int NV)
{
#pragma GCC unroll 16
    for (int v = 0; v < NV; v++) {
        const __m256i x = _mm256_add_epi64(_mm256_load_si256((const __m256i *)(rlo + 4 * v)), carry[v]);
        carry[v] = _mm256_add_epi64(sra(x, kc, top, topk),
                                    _mm256_sllv_epi64(_mm256_load_si256((const __m256i *)(rhi + 4 * v)), kh));
    }
}

/* the first rem lanes of x (1 <= rem <= 4, public) to o: the 128/64-bit
 * halves a whole-vector store would spill past a buffer's end. (A
 * variable-length copy became a call to memcpy, and a masked store is
 * microcoded on AMD; against the memcpy this measured the same at 1024 and
 * 2048 bits: it keeps a libc call out of the kernel, no speed claimed.) */
static inline AI FMA_TARGET void store_lanes(uint64_t *o, __m256i x, int rem)
{
    const __m128i lo = _mm256_castsi256_si128(x), hi = _mm256_extracti128_si256(x, 1);
    if (rem >= 2)
        _mm_storeu_si128((__m128i *)o, lo);
    else
        _mm_storel_epi64((__m128i *)o, lo);
    if (rem == 4)
        _mm_storeu_si128((__m128i *)(o + 2), hi);
    else if (rem == 3)
        _mm_storel_epi64((__m128i *)(o + 2), hi);
}

/* lines 15-18 of Alg. 3: C_j = R_(s+j) mod 2^k, carried; the top digit is
 * the last carry. NVO = ceil(n/4) vectors, rows L lanes apart. r may alias a
 * or b: both were read before. Whole vectors (a row's padding lanes spill
 * into the next row, written after it), but the last one lane by lane */
static inline AI FMA_TARGET void fm_out(const mns_pmns_mp_ctx *c, uint64_t *r, const int64_t *rlo,
                                        const int64_t *rhi, __m256i *carry, const int S,
                                        const int NVO, const size_t L)
{
    const int n = c->n;
    const __m256i km = _mm256_set1_epi64x((long long)c->kmask), kc = _mm256_set1_epi64x(c->k);
    const __m256i kh = _mm256_set1_epi64x(51 - c->k);
    const __m256i top = _mm256_set1_epi64x((long long)(1ULL << 63));
    const __m256i topk = _mm256_set1_epi64x((long long)((1ULL << 63) >> c->k));
#pragma GCC unroll 8
    for (int j = 0; j < S; j++)
#pragma GCC unroll 16
        for (int v = 0; v < NVO; v++) {
            __m256i *o = (__m256i *)(r + (size_t)j * n + 4 * v);
            if (j < S - 1) {
                const size_t d = (size_t)(S + j) * L + 4 * v;
                const __m256i x = _mm256_add_epi64(_mm256_load_si256((const __m256i *)(rlo + d)), carry[v]);
                _mm256_storeu_si256(o, _mm256_and_si256(x, km));
                carry[v] = _mm256_add_epi64(sra(x, kc, top, topk),
                                            _mm256_sllv_epi64(_mm256_load_si256((const __m256i *)(rhi + d)), kh));
            } else if (v < NVO - 1)
                _mm256_storeu_si256(o, carry[v]);
            else
                store_lanes((uint64_t *)o, carry[v], n - 4 * v);
        }
}

/* r <- a b phi^-1 (Alg. 3); SQ: b == a, the squaring */
static inline AI FMA_TARGET void fm_body(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                                         const uint64_t *b, const int S, const int NV, const int SQ)
{
    enum { LM = 4 * NV_MAX, SM = 4 };
    const size_t L = 4 * (size_t)NV;
    const int n = c->n;
    _Alignas(32) double seqa[SM * SEQ], seqb[SQ ? 1 : SM * SEQ], xb[LM], tb[LM];
    _Alignas(32) int64_t rlo[2 * SM * LM], rhi[2 * SM * LM];
    const __m256i km = _mm256_set1_epi64x((long long)c->kmask), kc = _mm256_set1_epi64x(c->k);
    const __m256i kh = _mm256_set1_epi64x(51 - c->k);
    const __m256i top = _mm256_set1_epi64x((long long)(1ULL << 63));
    const __m256i topk = _mm256_set1_epi64x((long long)((1ULL << 63) >> c->k));
    __m256i carry[NV_MAX];
    fm_seq(c, seqa, a, S, NV);
    if (!SQ)
        fm_seq(c, seqb, b, S, NV);
    zero_rows(rlo, 2 * S * L);
    zero_rows(rhi, 2 * S * L);
#pragma GCC unroll 16
    for (int v = 0; v < NV; v++)
        carry[v] = _mm256_setzero_si256();
    fm_ops(rlo, rhi, seqa, seqb, n, 0, S, NV, L, SQ);
#pragma GCC unroll 1
    for (int i = 0; i < S; i++) {
        fm_t(c, rlo + i * L, carry, xb, tb, NULL, km, NV, 0);
        /* EARLY (as fu_body): the operand products of step i + 1 fill the
         * latency of T -> T M_j -> carry (the squaring's step i + 1 only
         * adds to rows from 2i + 2, after T_(i+1) reads row i + 1) */
        if (i + 1 < S)
            fm_ops(rlo, rhi, seqa, seqb, n, i + 1, S, NV, L, SQ);
        fm_prod_col_all(rlo + i * L, rhi + i * L, c->mfd, tb, n, S, NV, L, (size_t)c->mfl, 0);
        fm_div(rlo + i * L, rhi + i * L, carry, kc, kh, top, topk, NV);
    }
    fm_out(c, r, rlo, rhi, carry, S, NV, L);
}

/* ---- the Toeplitz split: one 2-way level (Karatsuba on Toeplitz blocks) ----
 * With m = 4H lanes a half (2m = 8 ceil(n/8) >= n, coefficients past n are
 * 0) the 2m x 2m Toeplitz matrix of t is [[T1, T0], [T2, T1]], the m x m
 * blocks of t[x], t[x - m] and t[x + m], x in (-m, m), and
 *   out_lo = T1 (a_lo + a_hi) + (T0 - T1) a_hi
 *   out_hi = T1 (a_lo + a_hi) + (T2 - T1) a_lo
 * three m x m products instead of four (the shared one added to both halves:
 * fm_store's DUP, or fs_tri's shared sums), for A_j B_i (B_i's three half
 * sequences made per call)
 * and for T M_j (M_j's three column matrices made once, mfs). The integers
 * are the unsplit kernel's, lanes < n; rows past n are junk that never
 * reaches a result (T's lanes >= n are 0, as M'_0's columns there are; fm_out
 * stores lanes < n). The cost: the sums, the differences and the shared
 * product's second store, against a quarter of the products: measured in
 * docs/pmns-mp.md. */
#define HMAX 6           /* halves of up to 6 vectors: n <= 48 */
#define HSTR (8 * HMAX)  /* stride of a digit's vectors and half sequences */

/* (x_1, x_2, x_3, y_0) */
static inline AI FMA_TARGET __m256d lane_shift_1(__m256d x, __m256d y)
{
    return _mm256_shuffle_pd(x, _mm256_permute2f128_pd(x, y, 0x21), 5);
}

/* U[v] += lambda (lanes 4v + f .. 4v + f + 3 of the digits d, zero outside
 * [0, 8H)), v < 2H, f in [-6, 1] (public: from n): a whole-vector offset
 * through aligned stores and loads of the same size (which forward), and
 * the rest of the shift by a lane rotation with a run-time index and a
 * blend */
static inline AI FMA_TARGET void lam_shift_add(__m256d *U, const __m256d *d, __m256d lam, int f,
                                               const int H)
{
    _Alignas(32) double z[4 * (2 * HMAX + 4)];
#pragma GCC unroll 16
    for (int v = 0; v < 2 * H + 4; v++)
        _mm256_store_pd(z + 4 * v, v >= 2 && v < 2 * H + 2 ? d[v - 2] : _mm256_setzero_pd());
    const int F = (f + 8) / 4 - 2, rho = f - 4 * F; /* f = 4F + rho, rho in [0, 4) */
    const __m256i idx = _mm256_and_si256(
        _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(2 * rho)),
        _mm256_set1_epi32(7));
    const __m256d from_y = _mm256_castsi256_pd(
        _mm256_cmpgt_epi64(_mm256_setr_epi64x(0, 1, 2, 3), _mm256_set1_epi64x(3 - rho)));
    const double *zb = z + 4 * (F + 2);
#pragma GCC unroll 16
    for (int v = 0; v < 2 * H; v++) {
        const __m256 x = _mm256_castpd_ps(_mm256_load_pd(zb + 4 * v));
        const __m256 y = _mm256_castpd_ps(_mm256_load_pd(zb + 4 * v + 4));
        const __m256d w = _mm256_blendv_pd(_mm256_castps_pd(_mm256_permutevar8x32_ps(x, idx)),
                                           _mm256_castps_pd(_mm256_permutevar8x32_ps(y, idx)), from_y);
        U[v] = _mm256_fmadd_pd(w, lam, U[v]); /* lambda a exact, U[v] is 0 or a_0 in lane 3 */
    }
}

/* a's digits for the split: dig[j HSTR ..], 2m doubles (lanes >= n: 0);
 * sum[j HSTR ..], the m sums of the two halves; hs (not NULL): the three half
 * sequences of each digit, hs[(3 j + w) HSTR + q], q = x + m - 1: w = 0
 * t[x], w = 1 t[x - m] - t[x], w = 2 t[x + m] - t[x], t the digit's Toeplitz
 * sequence (t[d] = a_d, t[-d] = lambda a_(n-d)) with zeros past (-n, 2m) */
static inline AI FMA_TARGET void fs_prep(const mns_pmns_mp_ctx *c, const uint64_t *a, double *dig,
                                         double *sum, double *hs, const int S, const int H)
{
    const int n = c->n, m = 4 * H;
    const __m256d lam = _mm256_set1_pd((double)c->lambda);
    __m256i carry[2 * HMAX];
#pragma GCC unroll 16
    for (int v = 0; v < 2 * H; v++)
        carry[v] = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int j = 0; j < S; j++) {
        __m256d d[2 * HMAX];
        fm_digit(c, a, j, carry, d, 2 * H, j == S - 1);
        if (dig) {
#pragma GCC unroll 16
            for (int v = 0; v < 2 * H; v++)
                _mm256_store_pd(dig + j * HSTR + 4 * v, d[v]);
#pragma GCC unroll 8
            for (int v = 0; v < H; v++)
                _mm256_store_pd(sum + j * HSTR + 4 * v, _mm256_add_pd(d[v], d[v + H]));
        }
        if (!hs)
            continue;
        /* U_v = u0[4v .. 4v + 3], u0[d + 2m - 1] = t[d] for d in [-(2m - 1),
         * 2m - 1] (zeros outside (-n, n)), built in registers: stored
         * vectors read back at other offsets wait until the stores commit
         * (no store forwarding), after the previous call's tail retired,
         * which cost 0.1x a 1024-bit product. For 4v + l <= 2m - 2 it is
         * lambda a_(4v + l + f), f = n + 1 - 2m (zero outside [0, n): a
         * shift by f lanes of the zero-padded digits, f public), and from
         * 2m - 1 on a_(4v + l - (2m - 1)) (a shift by one lane less than a
         * whole vector) */
        __m256d U[4 * HMAX];
#pragma GCC unroll 32
        for (int v = 0; v < 4 * H; v++) {
            const __m256d z = _mm256_setzero_pd();
            U[v] = lane_shift_1(v >= 2 * H ? d[v - 2 * H] : z,
                                v + 1 >= 2 * H && v + 1 < 4 * H ? d[v + 1 - 2 * H] : z);
        }
        lam_shift_add(U, d, lam, n + 1 - 2 * m, H);
#pragma GCC unroll 16
        for (int u = 0; u < 2 * H; u++) {
            const __m256d s1 = U[u + H];
            _mm256_store_pd(hs + (3 * j + 0) * HSTR + 4 * u, s1);
            _mm256_store_pd(hs + (3 * j + 1) * HSTR + 4 * u, _mm256_sub_pd(U[u], s1));
            _mm256_store_pd(hs + (3 * j + 2) * HSTR + 4 * u, _mm256_sub_pd(U[u + 2 * H], s1));
        }
    }
}

/* The three split products of a block of SJ <= 2 rows (from j0) and one
 * vector v of each half, summed in registers: X = P1 + P2 (lanes [0, m)),
 * Y = P1 + P3 (lanes [m, 2m)), P1's sums the start of both. One
 * read-modify-write of R per half instead of four (P1 twice), and its bias
 * once, and one store-to-load round trip less between T and the next
 * division. At most 8 accumulators: with the windows, broadcasts and
 * constants in the 16 ymm registers. Measured on Zen 3 against the three
 * products one at a time (in one process, three primes a size): 0.92-0.95x
 * the time at H = 1 (1024 bits), 0.98-1.05x at H = 2-3, 1.04-1.11x at H = 6
 * (fewer rows share each window load): TRI_HMAX. */
#define TRI_HMAX 1
static inline AI FMA_TARGET void fs_tri_store(int64_t *rlo, int64_t *rhi, const __m256i *xl,
                                              const __m256i *xh, const __m256i *yl,
                                              const __m256i *yh, const int SJ, const int v,
                                              const int H, const size_t L, const int DBL)
{
    fm_store(rlo, rhi, xl, xh, 8 * H, SJ, 1, v, L, DBL, 0);
    fm_store(rlo + 4 * H, rhi + 4 * H, yl, yh, 8 * H, SJ, 1, v, L, DBL, 0);
}

/* operand products: P1 = sum x hs0, P2 = dig_hi x hs1, P3 = dig_lo x hs2
 * (windows of the half sequences, digits broadcast), rows from rlo */
static inline AI FMA_TARGET void fs_tri_win(int64_t *rlo, int64_t *rhi, const double *hs,
                                            const double *dig, const double *sum, const int SJ,
                                            const int v, const int H, const size_t L,
                                            const int DBL)
{
    const int m = 4 * H;
    __m256i xl[2], xh[2], yl[2], yh[2];
#pragma GCC unroll 2
    for (int j = 0; j < SJ; j++)
        xl[j] = xh[j] = _mm256_setzero_si256();
    const double *w0 = hs + (m - 1) + 4 * v, *w1 = w0 + HSTR, *w2 = w0 + 2 * HSTR;
    for (int cc = 0; cc < m; cc++) {
        const __m256d w = _mm256_loadu_pd(w0 - cc);
#pragma GCC unroll 2
        for (int j = 0; j < SJ; j++)
            mac(&xl[j], &xh[j], w, _mm256_broadcast_sd(sum + j * HSTR + cc));
    }
#pragma GCC unroll 2
    for (int j = 0; j < SJ; j++) {
        yl[j] = xl[j];
        yh[j] = xh[j];
    }
    for (int cc = 0; cc < m; cc++) {
        const __m256d wa = _mm256_loadu_pd(w1 - cc), wb = _mm256_loadu_pd(w2 - cc);
#pragma GCC unroll 2
        for (int j = 0; j < SJ; j++) {
            mac(&xl[j], &xh[j], wa, _mm256_broadcast_sd(dig + j * HSTR + m + cc));
            mac(&yl[j], &yh[j], wb, _mm256_broadcast_sd(dig + j * HSTR + cc));
        }
    }
    fs_tri_store(rlo, rhi, xl, xh, yl, yh, SJ, v, H, L, DBL);
}

/* T M_j: P1 = ts x M0, P2 = T_hi x M1, P3 = T_lo x M2 (mfs' three column
 * matrices, CM apart, column cc of row j at (cc S + j) m), rows j0.. */
static inline AI FMA_TARGET void fs_tri_col(int64_t *rlo, int64_t *rhi, const double *mfs,
                                            const double *ts, const double *tb, const int S,
                                            const int j0, const int SJ, const int v, const int H,
                                            const size_t L)
{
    const int m = 4 * H;
    const size_t CM = (size_t)m * S * m;
    __m256i xl[2], xh[2], yl[2], yh[2];
#pragma GCC unroll 2
    for (int j = 0; j < SJ; j++)
        xl[j] = xh[j] = _mm256_setzero_si256();
    const double *col = mfs + (size_t)j0 * m + 4 * v;
    for (int cc = 0; cc < m; cc++) {
        const __m256d b = _mm256_broadcast_sd(ts + cc);
#pragma GCC unroll 2
        for (int j = 0; j < SJ; j++)
            mac(&xl[j], &xh[j], _mm256_load_pd(col + ((size_t)cc * S + j) * m), b);
    }
#pragma GCC unroll 2
    for (int j = 0; j < SJ; j++) {
        yl[j] = xl[j];
        yh[j] = xh[j];
    }
    for (int cc = 0; cc < m; cc++) {
        const __m256d ba = _mm256_broadcast_sd(tb + m + cc), bb = _mm256_broadcast_sd(tb + cc);
#pragma GCC unroll 2
        for (int j = 0; j < SJ; j++) {
            const size_t o = ((size_t)cc * S + j) * m;
            mac(&xl[j], &xh[j], _mm256_load_pd(col + CM + o), ba);
            mac(&yl[j], &yh[j], _mm256_load_pd(col + 2 * CM + o), bb);
        }
    }
    fs_tri_store(rlo + (size_t)j0 * L, rhi + (size_t)j0 * L, xl, xh, yl, yh, SJ, v, H, L, 0);
}

/* the three split products of the digits (dig, sum: SJ digits) by the half
 * sequences hs of one digit, into rows from rlo/rhi (DBL: see fm_store):
 * fused in blocks of two rows up to TRI_HMAX (the second block's first row
 * is a cross row), else one product at a time, SJ rows against each window
 * (fewer loads a product, which pays at larger halves) */
static inline AI FMA_TARGET void fs_prod3(int64_t *rlo, int64_t *rhi, const double *hs,
                                          const double *dig, const double *sum, const int SJ,
                                          const int H, const size_t L, const int DBL)
{
    const int m = 4 * H;
    if (H > TRI_HMAX) {
        fm_prod_win_all(rlo, rhi, hs + (m - 1), sum, HSTR, m, SJ, H, L, DBL, m);
        fm_prod_win_all(rlo, rhi, hs + HSTR + (m - 1), dig + m, HSTR, m, SJ, H, L, DBL, 0);
        fm_prod_win_all(rlo + m, rhi + m, hs + 2 * HSTR + (m - 1), dig, HSTR, m, SJ, H, L, DBL, 0);
        return;
    }
#pragma GCC unroll 2
    for (int j0 = 0; j0 < SJ; j0 += 2)
#pragma GCC unroll 8
        for (int v = 0; v < H; v++)
            fs_tri_win(rlo + (size_t)j0 * L, rhi + (size_t)j0 * L, hs, dig + j0 * HSTR,
                       sum + j0 * HSTR, SJ - j0 >= 2 ? 2 : 1, v, H, L, DBL && j0 ? 2 : DBL);
}

/* the operand products of step i (as fm_ops), split */
static inline AI FMA_TARGET void fs_ops(int64_t *rlo, int64_t *rhi, const double *dig,
                                        const double *sum, const double *hsa, const double *hsb,
                                        const int i, const int S, const int H, const size_t L,
                                        const int SQ)
{
    if (!SQ) {
        fs_prod3(rlo + i * L, rhi + i * L, hsb + 3 * i * HSTR, dig, sum, S, H, L, 0);
        return;
    }
    const double *hs = hsa + 3 * i * HSTR, *dg = dig + i * HSTR, *sm = sum + i * HSTR;
    int64_t *l2 = rlo + 2 * i * L, *h2 = rhi + 2 * i * L;
    switch (S - i) {
    case 4: fs_prod3(l2, h2, hs, dg, sm, 4, H, L, 1); break;
    case 3: fs_prod3(l2, h2, hs, dg, sm, 3, H, L, 1); break;
    case 2: fs_prod3(l2, h2, hs, dg, sm, 2, H, L, 1); break;
    default: fs_prod3(l2, h2, hs, dg, sm, 1, H, L, 1); break;
    }
}

/* r <- a b phi^-1 (Alg. 3) with the split; SQ: b == a */
static inline AI FMA_TARGET void fs_body(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                                         const uint64_t *b, const int S, const int H, const int SQ)
{
    enum { LM = 8 * HMAX, SM = 4 };
    const int m = 4 * H, NV = 2 * H;
    const size_t L = 2 * (size_t)m;
    _Alignas(32) double dig[SM * HSTR], sum[SM * HSTR], hsa[SQ ? 3 * SM * HSTR : 1],
        hsb[SQ ? 1 : 3 * SM * HSTR], xb[LM], tb[LM], ts[LM / 2];
    _Alignas(32) int64_t rlo[2 * SM * LM], rhi[2 * SM * LM];
    const __m256i km = _mm256_set1_epi64x((long long)c->kmask), kc = _mm256_set1_epi64x(c->k);
    const __m256i kh = _mm256_set1_epi64x(51 - c->k);
    const __m256i top = _mm256_set1_epi64x((long long)(1ULL << 63));
    const __m256i topk = _mm256_set1_epi64x((long long)((1ULL << 63) >> c->k));
    __m256i carry[2 * HMAX];
    fs_prep(c, a, dig, sum, SQ ? hsa : NULL, S, H);
    if (!SQ)
        fs_prep(c, b, NULL, NULL, hsb, S, H);
    zero_rows(rlo, 2 * S * L);
    zero_rows(rhi, 2 * S * L);
#pragma GCC unroll 16
    for (int v = 0; v < NV; v++)
        carry[v] = _mm256_setzero_si256();
    fs_ops(rlo, rhi, dig, sum, hsa, hsb, 0, S, H, L, SQ);
#pragma GCC unroll 1
    for (int i = 0; i < S; i++) {
        fm_t(c, rlo + i * L, carry, xb, tb, ts, km, NV, H);
        if (i + 1 < S) /* EARLY, as fm_body */
            fs_ops(rlo, rhi, dig, sum, hsa, hsb, i + 1, S, H, L, SQ);
        int64_t *ril = rlo + i * L, *rih = rhi + i * L;
        if (H > TRI_HMAX) {
            const size_t CM = (size_t)m * S * m; /* one of mfs' three matrices */
            fm_prod_col_all(ril, rih, c->mfs, ts, m, S, H, L, (size_t)m, m);
            fm_prod_col_all(ril, rih, c->mfs + CM, tb + m, m, S, H, L, (size_t)m, 0);
            fm_prod_col_all(ril + m, rih + m, c->mfs + 2 * CM, tb, m, S, H, L, (size_t)m, 0);
        } else /* rows i and i + 1 first: the division and the next T wait for them */
#pragma GCC unroll 2
            for (int j0 = 0; j0 < S; j0 += 2)
#pragma GCC unroll 8
                for (int v = 0; v < H; v++)
                    fs_tri_col(ril, rih, c->mfs, ts, tb, S, j0, S - j0 >= 2 ? 2 : 1, v, H, L);
        fm_div(ril, rih, carry, kc, kh, top, topk, NV);
    }
    fm_out(c, r, rlo, rhi, carry, S, (c->n + 3) / 4, L);
}

typedef void (*fm_fn)(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b);

/* the product and the squaring of an instance of BODY (fm_body, fs_body) */
#define FMA_INST(P, BODY, S, X)                                                                 \
    static FMA_TARGET void P##_mul_##S##_##X(const mns_pmns_mp_ctx *c, uint64_t *r,             \
                                             const uint64_t *a, const uint64_t *b)              \
    {                                                                                           \
        BODY(c, r, a, b, S, X, 0);                                                              \
    }                                                                                           \
    static FMA_TARGET void P##_sqr_##S##_##X(const mns_pmns_mp_ctx *c, uint64_t *r,             \
                                             const uint64_t *a, const uint64_t *b)              \
    {                                                                                           \
        BODY(c, r, a, b, S, X, 1);                                                              \
    }
#define FM_INST(S, NV) FMA_INST(fm, fm_body, S, NV)
#define FM_ROW(S)                                                                               \
    FM_INST(S, 1) FM_INST(S, 2) FM_INST(S, 3) FM_INST(S, 4) FM_INST(S, 5) FM_INST(S, 6)         \
        FM_INST(S, 7) FM_INST(S, 8) FM_INST(S, 9) FM_INST(S, 10) FM_INST(S, 11) FM_INST(S, 12)
FM_ROW(2)
FM_ROW(3)
FM_ROW(4)
#define FS_INST(S, H) FMA_INST(fs, fs_body, S, H)
#define FS_ROW(S) FS_INST(S, 1) FS_INST(S, 2) FS_INST(S, 3) FS_INST(S, 4) FS_INST(S, 5) FS_INST(S, 6)
FS_ROW(2)
FS_ROW(3)
FS_ROW(4)
#define FS_TAB(K, S) {fs_##K##_##S##_1, fs_##K##_##S##_2, fs_##K##_##S##_3, fs_##K##_##S##_4, fs_##K##_##S##_5, fs_##K##_##S##_6}
static const fm_fn fs_tab[2][3][HMAX] = {{FS_TAB(mul, 2), FS_TAB(mul, 3), FS_TAB(mul, 4)},
                                             {FS_TAB(sqr, 2), FS_TAB(sqr, 3), FS_TAB(sqr, 4)}};
#define FM_TAB(K, S)                                                                            \
    {fm_##K##_##S##_1, fm_##K##_##S##_2,  fm_##K##_##S##_3,  fm_##K##_##S##_4,                  \
     fm_##K##_##S##_5, fm_##K##_##S##_6,  fm_##K##_##S##_7,  fm_##K##_##S##_8,                  \
     fm_##K##_##S##_9, fm_##K##_##S##_10, fm_##K##_##S##_11, fm_##K##_##S##_12}
static const fm_fn fm_tab[2][3][NV_MAX] = {{FM_TAB(mul, 2), FM_TAB(mul, 3), FM_TAB(mul, 4)},
                                           {FM_TAB(sqr, 2), FM_TAB(sqr, 3), FM_TAB(sqr, 4)}};

/* the cost model of the choice, in units where the unsplit kernel costs
 * 40 n^2 and the split (halves of H vectors) 33 (2m)^2, m = 4H (measured,
 * see prepare) */
static long fma_cost(int n, int H)
{
    return H ? 33L * 64 * H * H : 40L * n * n;
}

/* the rule of base= 0: split (halves of ceil(n/8) vectors) where the model
 * prices it below the unsplit kernel */
static int split_pays(int n) { return fma_cost(n, (n + 7) / 8) < fma_cost(n, 0); }

/* The cost of a set against sets of another s or n (the choice of the
 * default set, mp_backend.c): s (2s + 1) products of polynomials per
 * product (s steps of s operand products, T and s T M_j), each priced as
 * above with the unsplit kernel's n rounded up to its whole vectors of 4
 * lanes. Fitted on 7 sets at 2048-4096 bits (Xeon with IFMA, 2026-11-28:
 * s = 3, 4; n = 11-31; split and unsplit): ticks / cost within +-9% */
static long fma_cost_sets(int s, int n, int H)
{
    const int lanes = 4 * ((n + 3) / 4);
    return (long)s * (2 * s + 1) * (H ? fma_cost(n, H) : fma_cost(lanes, 0));
}

long mns_pmns_mp_fma_cost(const mns_pmns_mp_ctx *c) { return fma_cost_sets(c->s, c->n, c->fma_h); }

long mns_pmns_mp_fma_cost_predict(int s, int n)
{
    const int H = (n + 7) / 8;
    return fma_cost_sets(s, n, H >= 1 && H <= HMAX && split_pays(n) ? H : 0);
}

/* the instance for (s, n), sq: the squaring */
static fm_fn fm_pick(int s, int n, int sq)
{
    const int nv = (n + 3) / 4;
    return s >= 2 && s <= 4 && nv >= 1 && nv <= NV_MAX ? fm_tab[sq][s - 2][nv - 1] : NULL;
}

/* round to nearest, every exception masked, flags as they were */
#define MXCSR_WANT(csr) (((csr) & ~0x6000u) | 0x1F80u)

static void fm_call(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b,
                    int sq)
{
    const mp_mul_fn f = sq ? c->fm_sqr : c->fm_mul;
    const unsigned csr = _mm_getcsr();
    if (csr == MXCSR_WANT(csr)) {
        f(c, r, a, b);
        return;
    }
    _mm_setcsr(MXCSR_WANT(csr));
    f(c, r, a, b);
    _mm_setcsr(csr);
}

void mns_pmns_mp_mul_fma(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                         const uint64_t *b)
{
    fm_call(c, r, a, b, 0);
}

void mns_pmns_mp_sqr_fma(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a)
{
    fm_call(c, r, a, a, 1);
}

int mns_pmns_mp_fma_has(int s, int n) { return fm_pick(s, n, 0) != NULL && n <= MP_FAST_NMAX; }

int mns_pmns_mp_fma_prepare(mns_pmns_mp_ctx *c)
{
    const int n = c->n, s = c->s;
    /* the unsplit fused data of mp_ifma_fused.c: M_j's columns at 8
     * ceil(n/8) lanes, M'_0's at mpl lanes */
    if (!fm_pick(s, n, 0) || !c->mfast || !c->mpfast || c->fs_plan)
        return 0;
    c->mfl = 8 * ((n + 7) / 8);
    const size_t nm = (size_t)n * s * c->mfl, np = (size_t)n * c->mpl;
    uint64_t mmax = 0;
    for (size_t i = 0; i < nm; i++)
        mmax = c->mfast[i] > mmax ? c->mfast[i] : mmax;
    if (!mns_pmns_mp_fma_bounds_ok(c->k, c->lambda, c->lg_d, mmax, 0))
        return -2;
    c->mfd = mns_alloc64(nm * sizeof(double));
    c->mpfd = mns_alloc64(np * sizeof(double));
    if (!c->mfd || !c->mpfd)
        return -1;
    for (size_t i = 0; i < nm; i++)
        c->mfd[i] = (double)c->mfast[i]; /* < 2^52: exact */
    for (size_t i = 0; i < np; i++)
        c->mpfd[i] = (double)c->mpfast[i];
    c->fm_mul = fm_pick(s, n, 0);
    c->fm_sqr = fm_pick(s, n, 1);
    /* the split where it pays (base= 0): three (2m)^2 / 4 products and
     * their overhead (measured on Zen 3: 0.83x the time at n = 23, 2m = 24;
     * 0.88x at n = 16; 1.35x at n = 12, 2m = 16) against n^2: 33 (2m)^2 <
     * 40 n^2. base= >= n: never; 0 < base < n: wherever the bounds hold */
    const int H = (n + 7) / 8, b = c->fma_base;
    const int want = b == 0 ? split_pays(n) : b < n;
    const int split_ok = mns_pmns_mp_fma_bounds_ok(c->k, c->lambda, c->lg_d, mmax, 1);
    c->fma_split_miss = H >= 1 && H <= HMAX && want && !split_ok;
    if (H >= 1 && H <= HMAX && want && split_ok) {
        /* M_j's half sequences from its unsplit columns (column cc, lane r:
         * t[r - cc]), zeros past (-n, n) */
        const int m = 4 * H;
        const size_t CM = (size_t)m * s * m;
        if (!(c->mfs = mns_alloc64(3 * CM * sizeof(double))))
            return -1;
        int64_t t[4 * 4 * HMAX + 1], *t0 = t + 2 * m; /* t0[d], d in [-2m, 2m] */
        for (int j = 0; j < s; j++) {
            memset(t, 0, sizeof t);
            for (int d = 0; d < n; d++) {
                t0[d] = (int64_t)c->mfast[(size_t)j * c->mfl + d];
                if (d > 0)
                    t0[-d] = (int64_t)c->mfast[((size_t)d * s + j) * c->mfl];
            }
            for (int cc = 0; cc < m; cc++)
                for (int r = 0; r < m; r++) {
                    const int x = r - cc;
                    const size_t o = ((size_t)cc * s + j) * m + r;
                    c->mfs[o] = (double)t0[x];
                    c->mfs[CM + o] = (double)(t0[x - m] - t0[x]);
                    c->mfs[2 * CM + o] = (double)(t0[x + m] - t0[x]);
                }
        }
        c->fma_h = H;
        c->fm_mul = fs_tab[0][s - 2][H - 1];
        c->fm_sqr = fs_tab[1][s - 2][H - 1];
    }
    /* the IFMA kernels mp_ifma_fused.c chose must never run here */
    c->fast = c->fast_sqr = NULL;
    c->fast2 = c->fast2_sqr = NULL;
    c->mul = mns_pmns_mp_mul_fma;
    c->sqr = mns_pmns_mp_sqr_fma;
    c->kernel = "fma";
    return 1;
}

#else /* not x86-64 with GCC-style target attributes: no FMA kernel */

void mns_pmns_mp_mul_fma(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                         const uint64_t *b)
{
    mns_pmns_mp_mul_generic(c, r, a, b);
}

void mns_pmns_mp_sqr_fma(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a)
{
    mns_pmns_mp_sqr_generic(c, r, a);
}

long mns_pmns_mp_fma_cost(const mns_pmns_mp_ctx *c)
{
    (void)c;
    return 0;
}

long mns_pmns_mp_fma_cost_predict(int s, int n)
{
    (void)s;
    (void)n;
    return 0;
}

int mns_pmns_mp_fma_has(int s, int n)
{
    (void)s;
    (void)n;
    return 0;
}

int mns_pmns_mp_fma_prepare(mns_pmns_mp_ctx *c)
{
    (void)c;
    return 0;
}
#endif
