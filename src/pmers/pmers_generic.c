/* The portable pmers kernels, one set per element size n = 2..9, n a
 * compile-time constant in each so the steps of pmers_body.h unroll; and the
 * backend's operation tables over them (pmers.c fills in the rest). */
#include "pmers/pmers.h"
#include "pmers/pmers_body.h"
#include "pmers/pmers_ops.h"

#define PM_KERNELS(N)                                                                         \
    static void pm_mul_##N(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b) \
    {                                                                                          \
        uint64_t t[2 * N];                                                                     \
        pm_mul_words(t, a, b, N);                                                              \
        pm_fold(r, t, ((const mns_pmers_ctx *)ctx)->m, N);                                     \
    }                                                                                          \
    static void pm_sqr_##N(const void *ctx, uint64_t *r, const uint64_t *a)                    \
    {                                                                                          \
        uint64_t t[2 * N];                                                                     \
        pm_sqr_words(t, a, N);                                                                 \
        pm_fold(r, t, ((const mns_pmers_ctx *)ctx)->m, N);                                     \
    }                                                                                          \
    static void pm_add_##N(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b) \
    {                                                                                          \
        pm_add_words(r, a, b, ((const mns_pmers_ctx *)ctx)->m, N);                             \
    }                                                                                          \
    static void pm_sub_##N(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b) \
    {                                                                                          \
        pm_sub_words(r, a, b, ((const mns_pmers_ctx *)ctx)->m, N);                             \
    }

PM_KERNELS(2)
PM_KERNELS(3)
PM_KERNELS(4)
PM_KERNELS(5)
PM_KERNELS(6)
PM_KERNELS(7)
PM_KERNELS(8)
PM_KERNELS(9)

#define PM_OPS(N) [N] = MNS_PMERS_OPS(pm_mul_##N, pm_sqr_##N, pm_add_##N, pm_sub_##N)

const mns_field_ops mns_pmers_ops_generic[MNS_PMERS_MAX_WORDS + 1] = {
    PM_OPS(2), PM_OPS(3), PM_OPS(4), PM_OPS(5), PM_OPS(6), PM_OPS(7), PM_OPS(8), PM_OPS(9),
};
