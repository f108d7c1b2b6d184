/* The FMA kernel of pmns-mp (pmns_mp/fma.c) in vectors of 8 coefficients, for
 * CPUs with AVX-512F: the same text (pmns_mp/fma_body.h) over zmm registers.
 *
 * Why: per 52 x 52-bit product the kernel issues two FMAs, a subtraction
 * and two integer adds. With 256-bit vectors these spread over three ports
 * (the FMAs on two); with 512-bit ones two ports do all five, but on twice
 * the lanes: on a Xeon (Intel, family 6 model 207) a loop of
 * the kernel's product took 0.39 ticks a lane against 0.52 with 4 lanes.
 * The 32 zmm registers also hold twice the accumulators (ACC = 8), so each
 * window load and broadcast serves more products.
 *
 * Built without the instances under MNS_IFMA_EMULATE (core/simd512.h): that
 * build reports AVX-512 on CPUs that may lack it, for the IFMA kernels'
 * scalar model, which has none of the intrinsics used here. */
#include <stdint.h>
#include <string.h>

#include "pmns_mp/ctx.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(MNS_IFMA_EMULATE)
#include <immintrin.h>

/* ---- the 8-lane vocabulary of pmns_mp/fma_body.h: AVX-512F, 32 zmm registers ---- */
#define VL 8
#define ACC 8
#define FMA_TARGET __attribute__((target("avx512f")))
#define AI __attribute__((always_inline))
typedef __m512d vd;
typedef __m512i vi;

static inline AI FMA_TARGET vd vd_zero(void) { return _mm512_setzero_pd(); }
static inline AI FMA_TARGET vd vd_set1(double x) { return _mm512_set1_pd(x); }
static inline AI FMA_TARGET vd vd_load(const double *p) { return _mm512_load_pd(p); }
static inline AI FMA_TARGET vd vd_loadu(const double *p) { return _mm512_loadu_pd(p); }
static inline AI FMA_TARGET void vd_store(double *p, vd x) { _mm512_store_pd(p, x); }
static inline AI FMA_TARGET void vd_storeu(double *p, vd x) { _mm512_storeu_pd(p, x); }
static inline AI FMA_TARGET vd vd_bcast(const double *p) { return _mm512_set1_pd(*p); }
static inline AI FMA_TARGET vd vd_add(vd x, vd y) { return _mm512_add_pd(x, y); }
static inline AI FMA_TARGET vd vd_sub(vd x, vd y) { return _mm512_sub_pd(x, y); }
static inline AI FMA_TARGET vd vd_mul(vd x, vd y) { return _mm512_mul_pd(x, y); }
static inline AI FMA_TARGET vd vd_fma(vd a, vd b, vd c) { return _mm512_fmadd_pd(a, b, c); }
static inline AI FMA_TARGET vi vd_as_vi(vd x) { return _mm512_castpd_si512(x); }
static inline AI FMA_TARGET vd vi_as_vd(vi x) { return _mm512_castsi512_pd(x); }
static inline AI FMA_TARGET vi vi_zero(void) { return _mm512_setzero_si512(); }
static inline AI FMA_TARGET vi vi_set1(long long x) { return _mm512_set1_epi64(x); }
static inline AI FMA_TARGET vi vi_load(const int64_t *p) { return _mm512_load_si512(p); }
static inline AI FMA_TARGET void vi_store(int64_t *p, vi x) { _mm512_store_si512(p, x); }
static inline AI FMA_TARGET void vi_storeu(int64_t *p, vi x) { _mm512_storeu_si512(p, x); }
static inline AI FMA_TARGET vi vi_add(vi x, vi y) { return _mm512_add_epi64(x, y); }
static inline AI FMA_TARGET vi vi_sub(vi x, vi y) { return _mm512_sub_epi64(x, y); }
static inline AI FMA_TARGET vi vi_and(vi x, vi y) { return _mm512_and_si512(x, y); }
static inline AI FMA_TARGET vi vi_or(vi x, vi y) { return _mm512_or_si512(x, y); }
static inline AI FMA_TARGET vi vi_srlv(vi x, vi k) { return _mm512_srlv_epi64(x, k); }
static inline AI FMA_TARGET vi vi_sllv(vi x, vi k) { return _mm512_sllv_epi64(x, k); }
static inline AI FMA_TARGET vi vi_sll1(vi x) { return _mm512_slli_epi64(x, 1); }
static inline AI FMA_TARGET vi vi_mul32(vi x, vi y) { return _mm512_mul_epu32(x, y); }
static inline AI FMA_TARGET vi vi_srl32(vi x) { return _mm512_srli_epi64(x, 32); }
static inline AI FMA_TARGET vi vi_sll32(vi x) { return _mm512_slli_epi64(x, 32); }
static inline AI FMA_TARGET vi vi_opaque(vi x)
{
    __asm__("" : "+v"(x));
    return x;
}

/* lanes < rem (rem >= 8: all, rem <= 0: none), by a compare: no branch */
static inline AI FMA_TARGET __mmask8 lane_mask(int rem)
{
    return _mm512_cmpgt_epi64_mask(_mm512_set1_epi64(rem), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
}

/* masked loads and stores touch only their lanes (and are not microcoded
 * on the Intel CPUs with AVX-512) */
static inline AI FMA_TARGET vi vi_load_lanes(const uint64_t *p, int rem)
{
    return _mm512_maskz_loadu_epi64(lane_mask(rem), p);
}

static inline AI FMA_TARGET void store_lanes(uint64_t *o, vi x, int rem)
{
    _mm512_mask_storeu_epi64(o, lane_mask(rem), x);
}

typedef struct {
    vi kc;
} kshift;

static inline AI FMA_TARGET kshift kshift_make(int k)
{
    const kshift s = {_mm512_set1_epi64(k)};
    return s;
}

static inline AI FMA_TARGET vi vi_srak(vi x, kshift s) { return _mm512_srav_epi64(x, s.kc); }

/* (x_1, .., x_7, y_0) */
static inline AI FMA_TARGET vd lane_shift_1(vd x, vd y)
{
    return _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(y), _mm512_castpd_si512(x), 1));
}

/* lanes rho.. of x:y: one two-source permutation */
typedef struct {
    __m512i idx;
} lane_sel;

static inline AI FMA_TARGET lane_sel lane_sel_make(int rho)
{
    const lane_sel s = {_mm512_add_epi64(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), _mm512_set1_epi64(rho))};
    return s;
}

static inline AI FMA_TARGET vd lane_pick(vd x, vd y, lane_sel s)
{
    return _mm512_permutex2var_pd(x, s.idx, y);
}

#include "pmns_mp/fma_body.h"

#define FM_ROW(S) FM_INST(S, 1) FM_INST(S, 2) FM_INST(S, 3) FM_INST(S, 4) FM_INST(S, 5) FM_INST(S, 6)
FM_ROW(2)
FM_ROW(3)
FM_ROW(4)
#define FS_ROW(S) FS_INST(S, 1) FS_INST(S, 2) FS_INST(S, 3)
FS_ROW(2)
FS_ROW(3)
FS_ROW(4)
#define FS_TAB(K, S) {fs_##K##_##S##_1, fs_##K##_##S##_2, fs_##K##_##S##_3}
static const mp_mul_fn fs_tab[2][3][HMAX] = {{FS_TAB(mul, 2), FS_TAB(mul, 3), FS_TAB(mul, 4)},
                                             {FS_TAB(sqr, 2), FS_TAB(sqr, 3), FS_TAB(sqr, 4)}};
#define FM_TAB(K, S)                                                                            \
    {fm_##K##_##S##_1, fm_##K##_##S##_2, fm_##K##_##S##_3,                                      \
     fm_##K##_##S##_4, fm_##K##_##S##_5, fm_##K##_##S##_6}
static const mp_mul_fn fm_tab[2][3][NV_MAX] = {{FM_TAB(mul, 2), FM_TAB(mul, 3), FM_TAB(mul, 4)},
                                               {FM_TAB(sqr, 2), FM_TAB(sqr, 3), FM_TAB(sqr, 4)}};

mp_mul_fn mns_pmns_mp_fma8_instance(int s, int n, int h, int sq)
{
    const int nv = (n + 7) / 8;
    if (s < 2 || s > 4 || nv < 1 || nv > NV_MAX || h < 0 || h > HMAX)
        return NULL;
    return h ? fs_tab[sq != 0][s - 2][h - 1] : fm_tab[sq != 0][s - 2][nv - 1];
}

#else

mp_mul_fn mns_pmns_mp_fma8_instance(int s, int n, int h, int sq)
{
    (void)s;
    (void)n;
    (void)h;
    (void)sq;
    return NULL;
}
#endif
