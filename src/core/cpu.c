#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT (mns_cpu_count) */
#include "core/cpu.h"

#include <sched.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
/* CPUID leaf `leaf`, subleaf 0: r = {eax, ebx, ecx, edx} */
static void cpuid(unsigned leaf, unsigned r[4])
{
    unsigned a = leaf, b, c = 0, d;
    __asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    r[0] = a, r[1] = b, r[2] = c, r[3] = d;
}
#endif

static unsigned detect(void)
{
    unsigned f = 0;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("bmi2")) f |= MNS_CPU_BMI2;
    /* gcc 12 has no "adx" name for __builtin_cpu_supports: read CPUID leaf 7
     * EBX bit 19 directly. */
    {
        unsigned r[4];
        cpuid(7, r);
        if (r[1] & (1u << 19)) f |= MNS_CPU_ADX;
    }
    if (__builtin_cpu_supports("avx2")) f |= MNS_CPU_AVX2;
    if (__builtin_cpu_supports("fma")) f |= MNS_CPU_FMA;
    if (__builtin_cpu_supports("avx512f")) f |= MNS_CPU_AVX512F;
    if (__builtin_cpu_supports("avx512ifma")) f |= MNS_CPU_AVX512IFMA;
    if (__builtin_cpu_supports("avx512vl")) f |= MNS_CPU_AVX512VL;
    if (__builtin_cpu_supports("avx512bw")) f |= MNS_CPU_AVX512BW;
    if (__builtin_cpu_supports("avx512dq")) f |= MNS_CPU_AVX512DQ;
#endif
#ifdef MNS_IFMA_EMULATE
    /* the AVX-512 kernels are built over the scalar model (core/simd512.h) */
    f |= MNS_CPU_AVX512F | MNS_CPU_AVX512IFMA | MNS_CPU_AVX512VL | MNS_CPU_AVX512BW |
         MNS_CPU_AVX512DQ;
#endif
    return f;
}

/* compute() once per process, kept in *slot with bit 31 set once known
 * (every feature bit is below it); a race only computes it twice. */
static unsigned once(_Atomic unsigned *slot, unsigned (*compute)(void))
{
    const unsigned CACHED_BIT = 1u << 31;
    unsigned c = atomic_load_explicit(slot, memory_order_relaxed);
    if (!(c & CACHED_BIT)) {
        c = compute() | CACHED_BIT;
        atomic_store_explicit(slot, c, memory_order_relaxed);
    }
    return c & ~CACHED_BIT;
}

/* The hardware does not change under a running process, and detecting costs
 * a CPUID, which traps to the hypervisor on a VM (3600 TSC ticks measured
 * here): callers on hot paths (the exponentiation picks its Select per call)
 * must not pay it each time. */
unsigned mns_cpu_features_raw(void)
{
    static _Atomic unsigned raw;
    return once(&raw, detect);
}

/* The features the kernels may use: the hardware's, narrowed by MNS_CPU.
 * The variable is read once per process, at the first call (as GMP's fat
 * build and OpenSSL's capability vector read theirs): reading it on every
 * call cost about 320 instructions per exponentiation, which picks its
 * Select per call (1% of a 128-bit one). Setting MNS_CPU after the library
 * has chosen a kernel has no effect, so it belongs in the environment the
 * process starts with. */
static unsigned features_from_env(void)
{
    const char *env = getenv("MNS_CPU");
    if (env && strcmp(env, "generic") == 0)
        return 0;
    if (env && strcmp(env, "avx2") == 0) /* a CPU without AVX-512 (as Zen 3) */
        return mns_cpu_features_raw() & (MNS_CPU_BMI2 | MNS_CPU_ADX | MNS_CPU_AVX2 | MNS_CPU_FMA);
    return mns_cpu_features_raw();
}

unsigned mns_cpu_features(void)
{
    static _Atomic unsigned usable;
    return once(&usable, features_from_env);
}

int mns_cpu_has_ifma(void)
{
    const unsigned need = MNS_CPU_AVX512F | MNS_CPU_AVX512IFMA | MNS_CPU_AVX512VL |
                          MNS_CPU_AVX512BW | MNS_CPU_AVX512DQ;
    return (mns_cpu_features() & need) == need;
}

int mns_cpu_has_fma(void)
{
    const unsigned need = MNS_CPU_AVX2 | MNS_CPU_FMA;
    return (mns_cpu_features() & need) == need;
}

static unsigned detect_amd_family(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned r[4];
    cpuid(0, r);
    /* "AuthenticAMD" in EBX, EDX, ECX */
    if (r[1] != 0x68747541u || r[3] != 0x69746e65u || r[2] != 0x444d4163u || r[0] < 1)
        return 0;
    cpuid(1, r);
    const unsigned base = (r[0] >> 8) & 0xf, ext = (r[0] >> 20) & 0xff;
    return base == 0xf ? base + ext : base;
#else
    return 0;
#endif
}

int mns_cpu_amd_family(void)
{
    static _Atomic unsigned family;
    return (int)once(&family, detect_amd_family);
}

/* vendor, family and model from CPUID leaves 0 and 1 (display family and
 * model: the extended fields count for families 6 and 15 and above) */
static void vendor_family_model(char vendor[13], unsigned *family, unsigned *model)
{
    strcpy(vendor, "unknown");
    *family = *model = 0;
#if defined(__x86_64__) || defined(__i386__)
    unsigned r[4];
    cpuid(0, r);
    memcpy(vendor, &r[1], 4);
    memcpy(vendor + 4, &r[3], 4);
    memcpy(vendor + 8, &r[2], 4);
    vendor[12] = '\0';
    for (int i = 0; i < 12; i++)
        if (!((vendor[i] >= 'A' && vendor[i] <= 'Z') || (vendor[i] >= 'a' && vendor[i] <= 'z') ||
              (vendor[i] >= '0' && vendor[i] <= '9')))
            vendor[i] = '_';
    if (r[0] < 1)
        return;
    cpuid(1, r);
    const unsigned base = (r[0] >> 8) & 0xf, ext = (r[0] >> 20) & 0xff;
    const unsigned bmodel = (r[0] >> 4) & 0xf, emodel = (r[0] >> 16) & 0xf;
    *family = base == 0xf ? base + ext : base;
    *model = base == 0x6 || base == 0xf ? (emodel << 4) + bmodel : bmodel;
#endif
}

void mns_cpu_key(char *buf, size_t size)
{
    char vendor[13];
    unsigned family, model;
    vendor_family_model(vendor, &family, &model);
    snprintf(buf, size, "%s-f%u-m%u-x%x", vendor, family, model, mns_cpu_features());
}

const char *mns_cpu_features_string(void)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        {MNS_CPU_BMI2, "bmi2"},         {MNS_CPU_ADX, "adx"},
        {MNS_CPU_AVX2, "avx2"},         {MNS_CPU_FMA, "fma"},
        {MNS_CPU_AVX512F, "avx512f"},
        {MNS_CPU_AVX512IFMA, "avx512ifma"}, {MNS_CPU_AVX512VL, "avx512vl"},
        {MNS_CPU_AVX512BW, "avx512bw"}, {MNS_CPU_AVX512DQ, "avx512dq"},
    };
    static _Thread_local char buf[128];
    unsigned f = mns_cpu_features_raw();
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (f & names[i].bit) {
            if (buf[0]) strcat(buf, " ");
            strcat(buf, names[i].name);
        }
    if (!buf[0]) strcpy(buf, "baseline");
    return buf;
}

int mns_cpu_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int c = CPU_COUNT(&set);
        return c > 0 ? c : 1;
    }
    const long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (int)c : 1;
}
