/* Kernel descriptors and the one chooser every backend uses (GMP's fat.c
 * idea: the choice is data, not code).
 *
 * A backend lists its kernels in a table, in order of preference: a name
 * (what `kernel=<name>` asks for), the CPU features it needs, the element
 * sizes it serves and the sizes where it is the default, and a cost hint
 * for reports. The sizes are in the backend's own unit (words of p for
 * mont, digits for mont-ifma ...); the thresholds that bound them live in
 * the backend's mparam header.
 *
 * Without `kernel=`, the first row whose features the CPU has (after the
 * MNS_CPU override, read once per process by core/cpu.c) and whose default
 * range holds the size wins; under MNS_CPU=generic the row flagged
 * MNS_KERNEL_TWIN, the portable kernel, which every table names "generic".
 * `kernel=<name>`
 * takes that row wherever it serves the size and the CPU has its features,
 * else the call is refused with MNS_ENOTSUP and a message; an unknown name
 * is MNS_EINVAL with the list of names. */
#ifndef MNS_CORE_KERNEL_H
#define MNS_CORE_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "mns.h"

typedef struct mns_kernel_desc {
    const char *name;
    unsigned features;          /* MNS_CPU_* bits it needs; 0: portable C */
    size_t lo, hi;              /* sizes it serves, inclusive (hi 0: no bound) */
    size_t auto_lo, auto_hi;    /* sizes where it is the default (auto_hi 0: no
                                   bound; MNS_KERNEL_NEVER: only when asked) */
    int cost;                   /* relative cost hint, for describe and docs */
    unsigned flags;             /* MNS_KERNEL_* */
} mns_kernel_desc;

/* The default under MNS_CPU=generic (the portable twin). A backend without
 * such a row (the -ifma ones) is refused there unless a kernel is named. */
#define MNS_KERNEL_TWIN 1u

/* What the AVX-512 IFMA kernels need (core/cpu.h's bits): F, IFMA, VL, BW, DQ */
#define MNS_KERNEL_IFMA_FEATURES (0x04u | 0x08u | 0x10u | 0x20u | 0x40u)

#define MNS_KERNEL_NEVER SIZE_MAX, 0 /* an auto range that holds no size */

/* Chooses a row of tab[0..count) for `size`: the one named `want` (NULL:
 * the default, as above). `have` masks rows this build cannot run (bit i:
 * row i available). An explicit request is checked against the features
 * `cpu` (the backend says which it honours: the raw CPU, or with the
 * override). Returns the row index, or -1 after mns_error() with the status
 * in *st, the messages naming `backend`. */
int mns_kernel_choose(const char *backend, const mns_kernel_desc *tab, size_t count,
                      const char *want, size_t size, unsigned long have, unsigned cpu,
                      mns_status *st);

/* The common case of an "-ifma" backend and its plain sibling: the IFMA
 * kernel, whose portable twin runs only when asked (kernel=generic), and the
 * portable kernel alone. Returns 1 for the IFMA kernel, 0 for the portable
 * one, -1 after mns_error() with *st set. */
int mns_kernel_choose_ifma(const char *backend, int ifma_backend, const char *want,
                           mns_status *st);

#endif
