/* The one include point of the AVX-512 (IFMA) kernels.
 *
 * Normally this is <immintrin.h> and the target attributes that let gcc emit
 * AVX-512 in a file built for baseline x86-64 (the run-time dispatch picks
 * those functions only where CPUID reports the features).
 *
 * Built with -DMNS_IFMA_EMULATE (cmake -DMNS_IFMA_EMULATE=ON, `make
 * check-ifma-emu`), the same kernels compile to portable C over the scalar
 * model of every intrinsic they use (core/simd512_emu.h) and the CPU reports
 * IFMA: their logic -- bounds, masks, sign handling, tails -- is then tested
 * against GMP on a machine without AVX-512, and under ASan, which sees every
 * lane a masked load or store really touches. Timing means nothing there. */
#ifndef MNS_CORE_SIMD512_H
#define MNS_CORE_SIMD512_H

#ifdef MNS_IFMA_EMULATE
#include "core/simd512_emu.h"
#define MNS_TARGET_AVX512F
#define MNS_TARGET_IFMA
#define MNS_SIMD512_OPAQUE(x) __asm__("" : "+m"(x))
#else
#include <immintrin.h>
#define MNS_TARGET_AVX512F __attribute__((target("avx512f")))
#define MNS_TARGET_IFMA __attribute__((target("avx512f,avx512ifma,avx512vl,avx512bw,avx512dq")))
/* hides a vector's origin from the compiler (keeps a load where it is
 * written, in a zmm register), at no cost */
#define MNS_SIMD512_OPAQUE(x) __asm__("" : "+v"(x))
#endif

#endif
