/* The scalar model of the AVX-512 intrinsics (declared in core/simd512_emu.h),
 * built only with MNS_IFMA_EMULATE. Each function follows the lane semantics
 * of Intel's intrinsics guide, with the edge cases the kernels may hit: shift
 * counts of 64 or more (zero, or the sign for arithmetic shifts), 52-bit
 * inputs of vpmadd52 (bits 52..63 ignored), masked loads and stores that
 * touch only the selected lanes (so ASan checks exactly what the instruction
 * touches), and aligned loads and stores that fault on a misaligned address,
 * as vmovdqa64 does. */
#ifdef MNS_IFMA_EMULATE

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/simd512_emu.h"

typedef struct {
    uint64_t q[8];
} emu512;

static inline emu512 emu_get(__m512i v)
{
    emu512 r;
    memcpy(r.q, &v, 64);
    return r;
}

static inline __m512i emu_put(emu512 r)
{
    __m512i v;
    memcpy(&v, r.q, 64);
    return v;
}

#define EMU_LANES(i) for (int i = 0; i < 8; i++)
#define EMU_M52 ((uint64_t)0xFFFFFFFFFFFFF)

/* ---- construction ---- */
__m512i _mm512_setzero_si512(void)
{
    emu512 r = {{0}};
    return emu_put(r);
}

__m512i _mm512_set1_epi64(long long x)
{
    emu512 r;
    EMU_LANES(i) r.q[i] = (uint64_t)x;
    return emu_put(r);
}

__m512i _mm512_set_epi64(long long e7, long long e6, long long e5, long long e4, long long e3,
                         long long e2, long long e1, long long e0)
{
    emu512 r = {{(uint64_t)e0, (uint64_t)e1, (uint64_t)e2, (uint64_t)e3, (uint64_t)e4,
                 (uint64_t)e5, (uint64_t)e6, (uint64_t)e7}};
    return emu_put(r);
}

/* ---- memory ---- */
static inline void emu_check_aligned(const void *p)
{
    if ((uintptr_t)p & 63) /* vmovdqa64 raises #GP */
        abort();
}

__m512i _mm512_loadu_si512(const void *p)
{
    emu512 r;
    memcpy(r.q, p, 64);
    return emu_put(r);
}

__m512i _mm512_load_si512(const void *p)
{
    emu_check_aligned(p);
    return _mm512_loadu_si512(p);
}

void _mm512_storeu_si512(void *p, __m512i a)
{
    emu512 v = emu_get(a);
    memcpy(p, v.q, 64);
}

void _mm512_store_si512(void *p, __m512i a)
{
    emu_check_aligned(p);
    _mm512_storeu_si512(p, a);
}

__m512i _mm512_maskz_loadu_epi64(__mmask8 k, const void *p)
{
    emu512 r;
    EMU_LANES(i)
    {
        r.q[i] = 0;
        if (k >> i & 1)
            memcpy(&r.q[i], (const char *)p + 8 * i, 8);
    }
    return emu_put(r);
}

void _mm512_mask_storeu_epi64(void *p, __mmask8 k, __m512i a)
{
    emu512 v = emu_get(a);
    EMU_LANES(i)
    if (k >> i & 1)
        memcpy((char *)p + 8 * i, &v.q[i], 8);
}

/* ---- lane-wise integer operations ---- */
#define EMU_BINARY(name, expr)                                                                \
    __m512i name(__m512i a_, __m512i b_)                                                    \
    {                                                                                        \
        emu512 a = emu_get(a_), b = emu_get(b_), r;                                          \
        EMU_LANES(i) r.q[i] = (expr);                                                        \
        return emu_put(r);                                                                   \
    }

EMU_BINARY(_mm512_add_epi64, a.q[i] + b.q[i])
EMU_BINARY(_mm512_sub_epi64, a.q[i] - b.q[i])
EMU_BINARY(_mm512_and_si512, a.q[i] & b.q[i])
EMU_BINARY(_mm512_mullo_epi64, a.q[i] * b.q[i])
EMU_BINARY(_mm512_min_epu64, a.q[i] < b.q[i] ? a.q[i] : b.q[i])
EMU_BINARY(_mm512_sllv_epi64, b.q[i] > 63 ? 0 : a.q[i] << b.q[i])
EMU_BINARY(_mm512_srlv_epi64, b.q[i] > 63 ? 0 : a.q[i] >> b.q[i])
/* arithmetic right shift; a count above 63 fills with the sign */
EMU_BINARY(_mm512_srav_epi64,
           (uint64_t)((int64_t)a.q[i] >> (b.q[i] > 63 ? 63 : b.q[i])))

__m512i _mm512_slli_epi64(__m512i a_, unsigned int c)
{
    emu512 a = emu_get(a_), r;
    EMU_LANES(i) r.q[i] = c > 63 ? 0 : a.q[i] << c;
    return emu_put(r);
}

__m512i _mm512_srli_epi64(__m512i a_, unsigned int c)
{
    emu512 a = emu_get(a_), r;
    EMU_LANES(i) r.q[i] = c > 63 ? 0 : a.q[i] >> c;
    return emu_put(r);
}

long long _mm512_reduce_add_epi64(__m512i a_)
{
    emu512 a = emu_get(a_);
    uint64_t s = 0;
    EMU_LANES(i) s += a.q[i];
    return (long long)s;
}

/* vpternlogq: bit j of the result is bit (a_j b_j c_j) of imm, i.e. the
 * union of the minterms t whose imm bit is set */
__m512i _mm512_ternarylogic_epi64(__m512i a_, __m512i b_, __m512i c_, int imm)
{
    emu512 a = emu_get(a_), b = emu_get(b_), c = emu_get(c_), r;
    EMU_LANES(i)
    {
        r.q[i] = 0;
        for (int t = 0; t < 8; t++)
            if (imm >> t & 1)
                r.q[i] |= (t & 4 ? a.q[i] : ~a.q[i]) & (t & 2 ? b.q[i] : ~b.q[i]) &
                          (t & 1 ? c.q[i] : ~c.q[i]);
    }
    return emu_put(r);
}

/* ---- IFMA: 52 x 52 -> 104-bit products of the low 52 bits ---- */
static inline unsigned __int128 emu_mul52(uint64_t b, uint64_t c)
{
    return (unsigned __int128)(b & EMU_M52) * (c & EMU_M52);
}

__m512i _mm512_mask_madd52lo_epu64(__m512i a_, __mmask8 k, __m512i b_, __m512i c_)
{
    emu512 a = emu_get(a_), b = emu_get(b_), c = emu_get(c_);
    EMU_LANES(i)
    if (k >> i & 1)
        a.q[i] += (uint64_t)emu_mul52(b.q[i], c.q[i]) & EMU_M52;
    return emu_put(a);
}

__m512i _mm512_mask_madd52hi_epu64(__m512i a_, __mmask8 k, __m512i b_, __m512i c_)
{
    emu512 a = emu_get(a_), b = emu_get(b_), c = emu_get(c_);
    EMU_LANES(i)
    if (k >> i & 1)
        a.q[i] += (uint64_t)(emu_mul52(b.q[i], c.q[i]) >> 52);
    return emu_put(a);
}

__m512i _mm512_madd52lo_epu64(__m512i a, __m512i b, __m512i c)
{
    return _mm512_mask_madd52lo_epu64(a, 0xFF, b, c);
}

__m512i _mm512_madd52hi_epu64(__m512i a, __m512i b, __m512i c)
{
    return _mm512_mask_madd52hi_epu64(a, 0xFF, b, c);
}

/* ---- masked moves and permutations ---- */
__m512i _mm512_mask_mov_epi64(__m512i src_, __mmask8 k, __m512i a_)
{
    emu512 s = emu_get(src_), a = emu_get(a_);
    EMU_LANES(i)
    if (k >> i & 1)
        s.q[i] = a.q[i];
    return emu_put(s);
}

__m512i _mm512_maskz_mov_epi64(__mmask8 k, __m512i a)
{
    return _mm512_mask_mov_epi64(_mm512_setzero_si512(), k, a);
}

__m512i _mm512_mask_permutexvar_epi64(__m512i src_, __mmask8 k, __m512i idx_, __m512i a_)
{
    emu512 s = emu_get(src_), idx = emu_get(idx_), a = emu_get(a_);
    EMU_LANES(i)
    if (k >> i & 1)
        s.q[i] = a.q[idx.q[i] & 7];
    return emu_put(s);
}

__m512i _mm512_permutexvar_epi64(__m512i idx, __m512i a)
{
    return _mm512_mask_permutexvar_epi64(_mm512_setzero_si512(), 0xFF, idx, a);
}

/* lane i from a (index bit 3 clear) or b (set), at index bits 0..2 */
__m512i _mm512_permutex2var_epi64(__m512i a_, __m512i idx_, __m512i b_)
{
    emu512 a = emu_get(a_), idx = emu_get(idx_), b = emu_get(b_), r;
    EMU_LANES(i) r.q[i] = (idx.q[i] & 8 ? b.q : a.q)[idx.q[i] & 7];
    return emu_put(r);
}

__m512i _mm512_maskz_set1_epi64(__mmask8 k, long long x)
{
    return _mm512_maskz_mov_epi64(k, _mm512_set1_epi64(x));
}

__m512i _mm512_mask_add_epi64(__m512i src, __mmask8 k, __m512i a, __m512i b)
{
    return _mm512_mask_mov_epi64(src, k, _mm512_add_epi64(a, b));
}

/* ---- unsigned comparisons, one mask bit per lane ---- */
__mmask8 _mm512_cmpgt_epu64_mask(__m512i a_, __m512i b_)
{
    emu512 a = emu_get(a_), b = emu_get(b_);
    unsigned k = 0;
    EMU_LANES(i) k |= (unsigned)(a.q[i] > b.q[i]) << i;
    return (__mmask8)k;
}

__mmask8 _mm512_cmpeq_epu64_mask(__m512i a_, __m512i b_)
{
    emu512 a = emu_get(a_), b = emu_get(b_);
    unsigned k = 0;
    EMU_LANES(i) k |= (unsigned)(a.q[i] == b.q[i]) << i;
    return (__mmask8)k;
}

/* valignq: the 16 lanes b:a (a high) shifted down by imm lanes, low 8 kept */
__m512i _mm512_alignr_epi64(__m512i a_, __m512i b_, int imm)
{
    emu512 a = emu_get(a_), b = emu_get(b_), r;
    int s = imm & 7;
    EMU_LANES(i) r.q[i] = i + s < 8 ? b.q[i + s] : a.q[i + s - 8];
    return emu_put(r);
}

#undef EMU_BINARY

#else
typedef int mns_simd512_emu_unused; /* ISO C: no empty translation unit */
#endif
