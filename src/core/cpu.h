/* CPU features and the kernel-path override.
 *
 * The library is compiled for baseline x86-64; faster kernels are compiled
 * per function (target attributes) and chosen at context creation from what
 * the CPU reports. MNS_CPU=generic in the environment forces the portable
 * kernels everywhere, so tests can run both paths on one machine;
 * MNS_CPU=avx2 hides AVX-512 (the kernels of a CPU such as Zen 3: the FMA
 * kernel's 4-lane instances, no IFMA). */
#ifndef MNS_CORE_CPU_H
#define MNS_CORE_CPU_H

#include <stddef.h>

enum {
    MNS_CPU_BMI2 = 1 << 0,  /* mulx */
    MNS_CPU_ADX = 1 << 1,   /* adcx/adox */
    MNS_CPU_AVX512F = 1 << 2,
    MNS_CPU_AVX512IFMA = 1 << 3,
    MNS_CPU_AVX512VL = 1 << 4,
    MNS_CPU_AVX512BW = 1 << 5,
    MNS_CPU_AVX512DQ = 1 << 6,
    MNS_CPU_AVX2 = 1 << 7,
    MNS_CPU_FMA = 1 << 8    /* vfmadd (FMA3) */
};

/* Features the kernels may use: what the CPU has, 0 under MNS_CPU=generic,
 * without AVX-512 under MNS_CPU=avx2; MNS_CPU is read once per process. */
unsigned mns_cpu_features(void);
/* What the CPU has, regardless of MNS_CPU. */
unsigned mns_cpu_features_raw(void);
/* 1 if every feature of the IFMA kernels (avx512f, ifma, vl, bw, dq) is usable. */
int mns_cpu_has_ifma(void);
/* 1 if AVX2 and FMA are usable (the FMA kernel of pmns-mp, src/pmns_mp/fma.c). */
int mns_cpu_has_fma(void);
/* The CPU family of an AMD CPU (CPUID leaf 1, base plus extended family:
 * 25 Zen 3 and Zen 4, 26 Zen 5), 0 for other vendors and non-x86 builds;
 * regardless of MNS_CPU. The tuning tables are per kernel class, and one
 * class's best backend differs between vendors (src/field/tune.c). */
int mns_cpu_amd_family(void);
/* The key of this CPU model and kernel path, e.g. "AuthenticAMD-f25-m1-x183":
 * vendor, family, model (CPUID) and mns_cpu_features() in hex (so MNS_CPU
 * counts). A calibrated tuning table is valid for exactly one key. */
void mns_cpu_key(char *buf, size_t size);
/* "bmi2 adx avx512f avx512ifma ..." for reports. */
const char *mns_cpu_features_string(void);
/* CPUs this process may run on (its affinity mask; the online count where
 * that cannot be read), at least 1. */
int mns_cpu_count(void);

#endif
