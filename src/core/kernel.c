#include "core/kernel.h"

#include <stdio.h>
#include <string.h>

#include "core/cpu.h"
#include "core/error.h"

static int in_range(size_t size, size_t lo, size_t hi)
{
    return size >= lo && (hi == 0 || size <= hi);
}

static int row_has(unsigned long have, size_t i) { return i >= 32 || ((have >> i) & 1); }

/* "a, b, c" of the table's names, for the unknown-name message */
static void names_of(const mns_kernel_desc *tab, size_t count, char *buf, size_t cap)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < count && off + 2 < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%s", i ? ", " : "", tab[i].name);
}

static int choose_named(const char *backend, const mns_kernel_desc *tab, size_t count,
                        const char *want, size_t size, unsigned long have, unsigned cpu,
                        mns_status *st)
{
    for (size_t i = 0; i < count; i++) {
        const mns_kernel_desc *k = &tab[i];
        if (strcmp(k->name, want) != 0)
            continue;
        if (!row_has(have, i) || !in_range(size, k->lo, k->hi)) {
            *st = k->hi ? mns_error(MNS_ENOTSUP, "%s: kernel %s takes sizes %zu to %zu (this: %zu%s)",
                                    backend, want, k->lo, k->hi, size,
                                    row_has(have, i) ? "" : ", or not in this build")
                        : mns_error(MNS_ENOTSUP, "%s: kernel %s is not in this build", backend, want);
            return -1;
        }
        if ((cpu & k->features) != k->features) {
            *st = mns_error(MNS_ENOTSUP, "%s: kernel %s needs CPU features this one lacks (has: %s%s)",
                            backend, want, mns_cpu_features_string(),
                            mns_cpu_features() == 0 ? "; MNS_CPU=generic" : "");
            return -1;
        }
        return (int)i;
    }
    char names[256];
    names_of(tab, count, names, sizeof names);
    *st = mns_error(MNS_EINVAL, "%s: unknown kernel \"%s\" (%s)", backend, want, names);
    return -1;
}

int mns_kernel_choose(const char *backend, const mns_kernel_desc *tab, size_t count,
                      const char *want, size_t size, unsigned long have, unsigned cpu,
                      mns_status *st)
{
    *st = MNS_OK;
    if (want)
        return choose_named(backend, tab, count, want, size, have, cpu, st);
    const unsigned f = mns_cpu_features();
    for (size_t i = 0; i < count; i++) {
        const mns_kernel_desc *k = &tab[i];
        if (!row_has(have, i) || !in_range(size, k->lo, k->hi))
            continue;
        if (f == 0 ? (k->flags & MNS_KERNEL_TWIN) != 0
                   : (f & k->features) == k->features && in_range(size, k->auto_lo, k->auto_hi))
            return (int)i;
    }
    /* say what the CPU lacks: "ifma needs AVX-512 IFMA", ... */
    char why[160] = "";
    size_t off = 0;
    for (size_t i = 0; i < count && off + 2 < sizeof why; i++)
        if ((f & tab[i].features) != tab[i].features)
            off += (size_t)snprintf(why + off, sizeof why - off, "%s%s needs %s", off ? ", " : "",
                                    tab[i].name,
                                    tab[i].features & MNS_CPU_AVX512IFMA ? "AVX-512 IFMA"
                                                                          : "CPU features absent here");
    *st = mns_error(MNS_ENOTSUP, "%s: no kernel for this CPU and size (%s%s; CPU has: %s%s)", backend,
                    why, why[0] ? "" : "no row serves it", mns_cpu_features_string(),
                    f == 0 ? "; MNS_CPU=generic" : "");
    return -1;
}

static const mns_kernel_desc ifma_pair[] = {
    {"ifma", MNS_KERNEL_IFMA_FEATURES, 0, 0, 0, 0, 1, 0},
    {"generic", 0, 0, 0, MNS_KERNEL_NEVER, 2, 0},
};
static const mns_kernel_desc portable_only[] = {
    {"generic", 0, 0, 0, 0, 0, 2, MNS_KERNEL_TWIN},
};

int mns_kernel_choose_ifma(const char *backend, int ifma_backend, const char *want,
                           mns_status *st)
{
    if (!ifma_backend)
        return mns_kernel_choose(backend, portable_only, 1, want, 0, ~0ul, mns_cpu_features(), st) < 0
                   ? -1
                   : 0;
    const int k = mns_kernel_choose(backend, ifma_pair, 2, want, 0, ~0ul, mns_cpu_features(), st);
    return k < 0 ? -1 : k == 0;
}
