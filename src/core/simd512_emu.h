/* Scalar model of the AVX-512 F/DQ/IFMA intrinsics the kernels use, for
 * testing them where the CPU has no AVX-512 (see core/simd512.h); the
 * definitions, lane by lane, are in core/simd512_emu.c. Out of line on
 * purpose: inlined into the fully unrolled kernels they take gcc tens of
 * minutes per file. Include only through core/simd512.h: the type names are
 * immintrin.h's own. */
#ifndef MNS_CORE_SIMD512_EMU_H
#define MNS_CORE_SIMD512_EMU_H

#include <emmintrin.h> /* the SSE2 128-bit intrinsics the kernels also use */

typedef long long __m512i __attribute__((vector_size(64), __may_alias__));
typedef unsigned char __mmask8;

__m512i _mm512_setzero_si512(void);
__m512i _mm512_set1_epi64(long long x);
__m512i _mm512_set_epi64(long long e7, long long e6, long long e5, long long e4, long long e3,
                         long long e2, long long e1, long long e0);
__m512i _mm512_loadu_si512(const void *p);
__m512i _mm512_load_si512(const void *p);
void _mm512_storeu_si512(void *p, __m512i a);
void _mm512_store_si512(void *p, __m512i a);
__m512i _mm512_maskz_loadu_epi64(__mmask8 k, const void *p);
void _mm512_mask_storeu_epi64(void *p, __mmask8 k, __m512i a);
__m512i _mm512_slli_epi64(__m512i a, unsigned int c);
__m512i _mm512_srli_epi64(__m512i a, unsigned int c);
long long _mm512_reduce_add_epi64(__m512i a);
__m512i _mm512_ternarylogic_epi64(__m512i a, __m512i b, __m512i c, int imm);
__m512i _mm512_mask_madd52lo_epu64(__m512i a, __mmask8 k, __m512i b, __m512i c);
__m512i _mm512_mask_madd52hi_epu64(__m512i a, __mmask8 k, __m512i b, __m512i c);
__m512i _mm512_madd52lo_epu64(__m512i a, __m512i b, __m512i c);
__m512i _mm512_madd52hi_epu64(__m512i a, __m512i b, __m512i c);
__m512i _mm512_mask_mov_epi64(__m512i src, __mmask8 k, __m512i a);
__m512i _mm512_maskz_mov_epi64(__mmask8 k, __m512i a);
__m512i _mm512_mask_permutexvar_epi64(__m512i src, __mmask8 k, __m512i idx, __m512i a);
__m512i _mm512_permutexvar_epi64(__m512i idx, __m512i a);
__m512i _mm512_permutex2var_epi64(__m512i a, __m512i idx, __m512i b);
__m512i _mm512_alignr_epi64(__m512i a, __m512i b, int imm);
__m512i _mm512_maskz_set1_epi64(__mmask8 k, long long x);
__m512i _mm512_mask_add_epi64(__m512i src, __mmask8 k, __m512i a, __m512i b);
__mmask8 _mm512_cmpgt_epu64_mask(__m512i a, __m512i b);
__mmask8 _mm512_cmpeq_epu64_mask(__m512i a, __m512i b);
__m512i _mm512_add_epi64(__m512i a, __m512i b);
__m512i _mm512_sub_epi64(__m512i a, __m512i b);
__m512i _mm512_and_si512(__m512i a, __m512i b);
__m512i _mm512_mullo_epi64(__m512i a, __m512i b);
__m512i _mm512_min_epu64(__m512i a, __m512i b);
__m512i _mm512_sllv_epi64(__m512i a, __m512i b);
__m512i _mm512_srlv_epi64(__m512i a, __m512i b);
__m512i _mm512_srav_epi64(__m512i a, __m512i b);

#endif
