/* The thresholds of the multi-precision PMNS backends in one place (GMP's
 * gmp-mparam.h): where the Toeplitz recursion stops and up to which size
 * pmns-mp's default tries the FMA kernel. */
#ifndef MNS_PMNS_MP_MPARAM_H
#define MNS_PMNS_MP_MPARAM_H

/* Leaf size limit of the Toeplitz recursion. IFMA: 64 keeps every n <= 64
 * unsplit, which is what the fused kernel of pmns_mp/ifma.c serves (measured
 * faster than the split flow at 1024-4096 bits, docs/pmns-mp.md). Generic:
 * no limit; mns_pmns_mp_generic_plan_choose picks the exact plan of least
 * modelled cost. */
#define MP_BASE_IFMA 64
/* The largest p for which pmns-mp's default tries the FMA kernel: 8192 bits
 * (s = 4, n = 45-47, split), where it runs 1.2-1.3x faster than the
 * portable kernel on random primes (docs/pmns-mp.md, "FMA kernel"); n <= 48
 * ends it. */
#define MP_FMA_BITS_MAX 8192

#endif
