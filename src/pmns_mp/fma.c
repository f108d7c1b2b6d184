/* The FMA kernel of the multi-precision PMNS (kernel=fma of pmns-mp, its
 * default up to 8192 bits on x86-64 CPUs with AVX2 and FMA; MNS_CPU=generic
 * turns it off): Alg. 3 on the u52 sets of pmns-mp-ifma,
 * the schedule of its unsplit fused kernel (pmns_mp/ifma_fused.h: lanes are
 * coefficients, A's digits broadcast against windows of B's Toeplitz
 * sequence, T M_j from aligned column matrices, EARLY operand products), with
 * each 52 x 52-bit product made of two double-precision FMAs. This file: the
 * product's arithmetic and bounds, the 4-lane (AVX2) instances, the choice
 * of width, split and cost; the kernel's text is pmns_mp/fma_body.h, and
 * pmns_mp/fma512.c has its 8-lane (AVX-512F) instances, the default where the
 * CPU has AVX-512F.
 *
 * Why: on a CPU without IFMA the scalar 64 x 64 -> 128-bit multiplier is the
 * bound of the portable kernel (bench/profile/mul_rate.c: 1.8 cycles a product on
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
#include "core/cpu.h"
#include "pmns_mp/ctx.h"

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

/* ---- the 4-lane vocabulary of pmns_mp/fma_body.h: AVX2 + FMA, 16 ymm registers ---- */
#define VL 4
#define ACC 4
#define FMA_TARGET __attribute__((target("avx2,fma")))
#define AI __attribute__((always_inline))
typedef __m256d vd;
typedef __m256i vi;

static inline AI FMA_TARGET vd vd_zero(void) { return _mm256_setzero_pd(); }
static inline AI FMA_TARGET vd vd_set1(double x) { return _mm256_set1_pd(x); }
static inline AI FMA_TARGET vd vd_load(const double *p) { return _mm256_load_pd(p); }
static inline AI FMA_TARGET vd vd_loadu(const double *p) { return _mm256_loadu_pd(p); }
static inline AI FMA_TARGET void vd_store(double *p, vd x) { _mm256_store_pd(p, x); }
static inline AI FMA_TARGET void vd_storeu(double *p, vd x) { _mm256_storeu_pd(p, x); }
static inline AI FMA_TARGET vd vd_bcast(const double *p) { return _mm256_broadcast_sd(p); }
static inline AI FMA_TARGET vd vd_add(vd x, vd y) { return _mm256_add_pd(x, y); }
static inline AI FMA_TARGET vd vd_sub(vd x, vd y) { return _mm256_sub_pd(x, y); }
static inline AI FMA_TARGET vd vd_mul(vd x, vd y) { return _mm256_mul_pd(x, y); }
static inline AI FMA_TARGET vd vd_fma(vd a, vd b, vd c) { return _mm256_fmadd_pd(a, b, c); }
static inline AI FMA_TARGET vi vd_as_vi(vd x) { return _mm256_castpd_si256(x); }
static inline AI FMA_TARGET vd vi_as_vd(vi x) { return _mm256_castsi256_pd(x); }
static inline AI FMA_TARGET vi vi_zero(void) { return _mm256_setzero_si256(); }
static inline AI FMA_TARGET vi vi_set1(long long x) { return _mm256_set1_epi64x(x); }
static inline AI FMA_TARGET vi vi_load(const int64_t *p) { return _mm256_load_si256((const __m256i *)p); }
static inline AI FMA_TARGET void vi_store(int64_t *p, vi x) { _mm256_store_si256((__m256i *)p, x); }
static inline AI FMA_TARGET void vi_storeu(int64_t *p, vi x) { _mm256_storeu_si256((__m256i *)p, x); }
static inline AI FMA_TARGET vi vi_add(vi x, vi y) { return _mm256_add_epi64(x, y); }
static inline AI FMA_TARGET vi vi_sub(vi x, vi y) { return _mm256_sub_epi64(x, y); }
static inline AI FMA_TARGET vi vi_and(vi x, vi y) { return _mm256_and_si256(x, y); }
static inline AI FMA_TARGET vi vi_or(vi x, vi y) { return _mm256_or_si256(x, y); }
static inline AI FMA_TARGET vi vi_srlv(vi x, vi k) { return _mm256_srlv_epi64(x, k); }
static inline AI FMA_TARGET vi vi_sllv(vi x, vi k) { return _mm256_sllv_epi64(x, k); }
static inline AI FMA_TARGET vi vi_sll1(vi x) { return _mm256_slli_epi64(x, 1); }
static inline AI FMA_TARGET vi vi_mul32(vi x, vi y) { return _mm256_mul_epu32(x, y); }
static inline AI FMA_TARGET vi vi_srl32(vi x) { return _mm256_srli_epi64(x, 32); }
static inline AI FMA_TARGET vi vi_sll32(vi x) { return _mm256_slli_epi64(x, 32); }
static inline AI FMA_TARGET vi vi_opaque(vi x)
{
    __asm__("" : "+x"(x));
    return x;
}

/* lanes < rem of a vector (rem >= 4: all, rem <= 0: none) */
static inline AI FMA_TARGET vi lane_mask(int rem)
{
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(rem), _mm256_set_epi64x(3, 2, 1, 0));
}

static inline AI FMA_TARGET vi vi_load_lanes(const uint64_t *p, int rem)
{
    return _mm256_maskload_epi64((const long long *)p, lane_mask(rem));
}

/* the first rem lanes of x (1 <= rem <= 4, public) to o: the 128/64-bit
 * halves a whole-vector store would spill past a buffer's end. (A
 * variable-length copy became a call to memcpy, and a masked store is
 * microcoded on AMD; against the memcpy this measured the same at 1024 and
 * 2048 bits: it keeps a libc call out of the kernel, no speed claimed.) */
static inline AI FMA_TARGET void store_lanes(uint64_t *o, vi x, int rem)
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

/* x >> k, arithmetic (AVX2 has no 64-bit one): (x + 2^63) >> k - 2^(63-k) */
typedef struct {
    vi kc, top, topk;
} kshift;

static inline AI FMA_TARGET kshift kshift_make(int k)
{
    const kshift s = {_mm256_set1_epi64x(k), _mm256_set1_epi64x((long long)(1ULL << 63)),
                      _mm256_set1_epi64x((long long)((1ULL << 63) >> k))};
    return s;
}

static inline AI FMA_TARGET vi vi_srak(vi x, kshift s)
{
    return _mm256_sub_epi64(_mm256_srlv_epi64(_mm256_xor_si256(x, s.top), s.kc), s.topk);
}

/* (x_1, x_2, x_3, y_0) */
static inline AI FMA_TARGET vd lane_shift_1(vd x, vd y)
{
    return _mm256_shuffle_pd(x, _mm256_permute2f128_pd(x, y, 0x21), 5);
}

/* lanes rho.. of x:y: a rotation of both by a run-time index (of 32-bit
 * halves) and a blend */
typedef struct {
    __m256i idx;
    __m256d from_y;
} lane_sel;

static inline AI FMA_TARGET lane_sel lane_sel_make(int rho)
{
    const lane_sel s = {
        _mm256_and_si256(_mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                          _mm256_set1_epi32(2 * rho)),
                         _mm256_set1_epi32(7)),
        _mm256_castsi256_pd(
            _mm256_cmpgt_epi64(_mm256_setr_epi64x(0, 1, 2, 3), _mm256_set1_epi64x(3 - rho)))};
    return s;
}

static inline AI FMA_TARGET vd lane_pick(vd x, vd y, lane_sel s)
{
    const __m256 xr = _mm256_permutevar8x32_ps(_mm256_castpd_ps(x), s.idx);
    const __m256 yr = _mm256_permutevar8x32_ps(_mm256_castpd_ps(y), s.idx);
    return _mm256_blendv_pd(_mm256_castps_pd(xr), _mm256_castps_pd(yr), s.from_y);
}

#include "pmns_mp/fma_body.h"

#define FM_ROW(S)                                                                               \
    FM_INST(S, 1) FM_INST(S, 2) FM_INST(S, 3) FM_INST(S, 4) FM_INST(S, 5) FM_INST(S, 6)         \
        FM_INST(S, 7) FM_INST(S, 8) FM_INST(S, 9) FM_INST(S, 10) FM_INST(S, 11) FM_INST(S, 12)
FM_ROW(2)
FM_ROW(3)
FM_ROW(4)
#define FS_ROW(S) FS_INST(S, 1) FS_INST(S, 2) FS_INST(S, 3) FS_INST(S, 4) FS_INST(S, 5) FS_INST(S, 6)
FS_ROW(2)
FS_ROW(3)
FS_ROW(4)
#define FS_TAB(K, S) {fs_##K##_##S##_1, fs_##K##_##S##_2, fs_##K##_##S##_3, fs_##K##_##S##_4, fs_##K##_##S##_5, fs_##K##_##S##_6}
static const mp_mul_fn fs_tab[2][3][HMAX] = {{FS_TAB(mul, 2), FS_TAB(mul, 3), FS_TAB(mul, 4)},
                                             {FS_TAB(sqr, 2), FS_TAB(sqr, 3), FS_TAB(sqr, 4)}};
#define FM_TAB(K, S)                                                                            \
    {fm_##K##_##S##_1, fm_##K##_##S##_2,  fm_##K##_##S##_3,  fm_##K##_##S##_4,                  \
     fm_##K##_##S##_5, fm_##K##_##S##_6,  fm_##K##_##S##_7,  fm_##K##_##S##_8,                  \
     fm_##K##_##S##_9, fm_##K##_##S##_10, fm_##K##_##S##_11, fm_##K##_##S##_12}
static const mp_mul_fn fm_tab[2][3][NV_MAX] = {{FM_TAB(mul, 2), FM_TAB(mul, 3), FM_TAB(mul, 4)},
                                               {FM_TAB(sqr, 2), FM_TAB(sqr, 3), FM_TAB(sqr, 4)}};

/* the 4-lane instance for (s, n), unsplit (h = 0) or split into halves of
 * h vectors; sq: the squaring */
static mp_mul_fn fma4_instance(int s, int n, int h, int sq)
{
    const int nv = (n + 3) / 4;
    if (s < 2 || s > 4 || nv < 1 || nv > NV_MAX || h < 0 || h > HMAX)
        return NULL;
    return h ? fs_tab[sq][s - 2][h - 1] : fm_tab[sq][s - 2][nv - 1];
}

/* the cost model of the choice, in units where the unsplit kernel costs
 * 40 n^2 and the split (halves of m lanes) 33 (2m)^2 (measured with 4
 * lanes, see prepare) */
static long fma_cost(int n, int m)
{
    return m ? 33L * 4 * m * m : 40L * n * n;
}

const char *mns_pmns_mp_fma8_missing(void)
{
    if (!(mns_cpu_features() & MNS_CPU_AVX512F))
        return mns_cpu_features() == 0 ? "needs AVX-512F (absent, or disabled by MNS_CPU=generic)"
                                       : "needs AVX-512F (absent)";
    if (!mns_pmns_mp_fma8_instance(2, 8, 0, 0))
        return "this build has no 8-lane FMA code (built with MNS_IFMA_EMULATE, see pmns_mp/fma512.c)";
    return NULL;
}

/* lanes of the vectors the CPU gives the kernel: 8 where it has AVX-512F
 * (and the build its instances), else 4; want: 4 or 8 asks for that width
 * (0: the default) */
static int fma_lanes(int want)
{
    const int has8 = mns_pmns_mp_fma8_missing() == NULL;
    if (want == 8)
        return has8 ? 8 : 0;
    if (want == 4)
        return 4;
    return has8 ? 8 : 4;
}

/* the halves' length m of the split for n coefficients in vectors of vl
 * lanes: vl ceil(n / 2vl) (2m >= n) */
static int split_m(int n, int vl) { return vl * ((n + 2 * vl - 1) / (2 * vl)); }

/* the rule of base= 0: split where the model prices it below the unsplit
 * kernel */
static int split_pays(int n, int vl) { return fma_cost(n, split_m(n, vl)) < fma_cost(n, 0); }

/* The cost of a set against sets of another s or n (the choice of the
 * default set, pmns_mp/backend.c): s (2s + 1) products of polynomials per
 * product (s steps of s operand products, T and s T M_j), each priced as
 * above with the unsplit kernel's n rounded up to its whole vectors. Fitted
 * with 4 lanes on 7 sets at 2048-4096 bits (Xeon with IFMA:
 * s = 3, 4; n = 11-31; split and unsplit): ticks / cost within +-9% */
static long fma_cost_sets(int s, int n, int m, int vl)
{
    const int lanes = vl * ((n + vl - 1) / vl);
    return (long)s * (2 * s + 1) * (m ? fma_cost(n, m) : fma_cost(lanes, 0));
}

/* (a set that squares with the product kernel: 7/6, the squaring's share
 * of an exponentiation priced at a product's s^2 operand products instead
 * of s(s+1)/2, s = 3) */
long mns_pmns_mp_fma_cost(const mns_pmns_mp_ctx *c)
{
    const long x = fma_cost_sets(c->s, c->n, c->fma_vl * c->fma_h, c->fma_vl);
    return c->sqr_by_mul ? x * 7 / 6 : x;
}

long mns_pmns_mp_fma_cost_predict(int s, int n, int lanes)
{
    const int w = fma_lanes(lanes), vl = w ? w : 4, m = split_m(n, vl);
    return fma_cost_sets(s, n, m <= 24 && split_pays(n, vl) ? m : 0, vl);
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

int mns_pmns_mp_fma_has(int s, int n) { return fma4_instance(s, n, 0, 0) != NULL && n <= MP_FAST_NMAX; }

int mns_pmns_mp_fma_prepare(mns_pmns_mp_ctx *c)
{
    const int n = c->n, s = c->s, vl = fma_lanes(c->fma_vl);
    mp_mul_fn (*const inst)(int, int, int, int) =
        vl == 8 ? mns_pmns_mp_fma8_instance : fma4_instance;
    /* the unsplit fused data of pmns_mp/ifma_fused.c: M_j's columns at 8
     * ceil(n/8) lanes, M'_0's at mpl lanes */
    if (!vl || !inst(s, n, 0, 0) || !c->mfast || !c->mpfast || c->fs_plan)
        return 0;
    c->mfl = 8 * ((n + 7) / 8);
    /* T's vectors cover the split's 2m lanes, which with 8 lanes can be
     * more than mpl (n = 7: 2m = 16, mpl = 8): M'_0's columns are then
     * copied at a wider stride, zeros past mpl (its lanes >= n are 0) */
    const int m = split_m(n, vl), H = m / vl;
    c->mpfl = c->mpl >= 2 * m ? c->mpl : 2 * m;
    const size_t nm = (size_t)n * s * c->mfl, np = (size_t)n * c->mpfl;
    uint64_t mmax = 0;
    for (size_t i = 0; i < nm; i++)
        mmax = c->mfast[i] > mmax ? c->mfast[i] : mmax;
    /* A lambda-carried set (pmns_mp/backend.c asks for one where no other set of
     * the size's n exists): the product's wrapped entries are the digits of
     * lambda b (fm_seq), below 2^k but the top one, below lambda 2^lg_top
     * (< 2^52: mns_pmns_mp_ifma_fused_prepare checked), so its bound is that
     * of lambda = 1 on the larger of them and A's digits. The squaring keeps
     * lambda times each digit: where that leaves the bound it squares with
     * the product kernel (sqr_by_mul, about 7/6 the time). Unsplit only:
     * the split multiplies digits by lambda (lam_shift_add). */
    int sqr_ok;
    if (c->lam_carried) {
        const double lg_e = fmax(c->lg_d, log2((double)c->lambda) + c->lg_top);
        if (!mns_pmns_mp_fma_bounds_ok(c->k, 1, lg_e, mmax, 0))
            return -2;
        sqr_ok = mns_pmns_mp_fma_bounds_ok(c->k, c->lambda, c->lg_d, mmax, 0);
    } else {
        if (!mns_pmns_mp_fma_bounds_ok(c->k, c->lambda, c->lg_d, mmax, 0))
            return -2;
        sqr_ok = 1;
    }
    c->mfd = mns_alloc64(nm * sizeof(double));
    c->mpfd = mns_alloc64(np * sizeof(double));
    if (!c->mfd || !c->mpfd)
        return -1;
    for (size_t i = 0; i < nm; i++)
        c->mfd[i] = (double)c->mfast[i]; /* < 2^52: exact */
    for (size_t i = 0; i < np; i++) {
        const size_t cc = i / (size_t)c->mpfl, r = i % (size_t)c->mpfl;
        c->mpfd[i] = r < (size_t)c->mpl ? (double)c->mpfast[cc * c->mpl + r] : 0.0;
    }
    c->fma_vl = vl;
    c->fm_mul = inst(s, n, 0, 0);
    c->fm_sqr = sqr_ok ? inst(s, n, 0, 1) : c->fm_mul; /* called with b = a */
    c->sqr_by_mul = !sqr_ok;
    /* the split where it pays (base= 0): three (2m)^2 / 4 products and
     * their overhead (measured on Zen 3: 0.83x the time at n = 23, 2m = 24;
     * 0.88x at n = 16; 1.35x at n = 12, 2m = 16) against n^2: 33 (2m)^2 <
     * 40 n^2. base= >= n: never; 0 < base < n: wherever the bounds hold */
    const int b = c->fma_base;
    const int want = c->lam_carried ? 0 : b == 0 ? split_pays(n, vl) : b < n;
    const int split_ok = mns_pmns_mp_fma_bounds_ok(c->k, c->lambda, c->lg_d, mmax, 1);
    const int have = inst(s, n, H, 0) != NULL;
    c->fma_split_miss = have && want && !split_ok;
    if (have && want && split_ok) {
        /* M_j's half sequences from its unsplit columns (column cc, lane r:
         * t[r - cc]), zeros past (-n, n) */
        const size_t CM = (size_t)m * s * m;
        if (!(c->mfs = mns_alloc64(3 * CM * sizeof(double))))
            return -1;
        int64_t t[4 * 24 + 1], *t0 = t + 2 * m; /* t0[d], d in [-2m, 2m] */
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
        c->fm_mul = inst(s, n, H, 0);
        c->fm_sqr = inst(s, n, H, 1);
    }
    /* the IFMA kernels pmns_mp/ifma_fused.c chose must never run here */
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

long mns_pmns_mp_fma_cost_predict(int s, int n, int lanes)
{
    (void)s;
    (void)n;
    (void)lanes;
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
