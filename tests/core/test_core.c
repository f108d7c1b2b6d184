/* Core helpers: constant-time masks and selection, and CPU feature reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/ct.h"
#include "testutil.h"

int main(void)
{
    mt_init("test_core");
    static const uint64_t edge[] = {0, 1, 2, 0x7fffffffffffffffull, 0x8000000000000000ull,
                                    0xffffffffffffffffull};
    for (size_t i = 0; i < 6; i++) {
        uint64_t x = edge[i];
        MT_CHECK(mns_ct_mask_nonzero(x) == (x ? ~0ull : 0), "nonzero(%llx)", (unsigned long long)x);
        for (size_t j = 0; j < 6; j++)
            MT_CHECK(mns_ct_mask_eq(x, edge[j]) == (x == edge[j] ? ~0ull : 0), "eq");
    }
    MT_CHECK(mns_ct_mask_bit(1) == ~0ull && mns_ct_mask_bit(0) == 0, "mask_bit");
    for (int it = 0; it < 1000; it++) {
        uint64_t x = mt_u64(), y = it % 3 ? mt_u64() : x;
        MT_CHECK(mns_ct_mask_eq(x, y) == (x == y ? ~0ull : 0), "eq random");
    }
    /* select reads entry idx of any table shape */
    for (size_t count = 1; count <= 64; count *= 2)
        for (size_t n = 1; n <= 9; n += 4) {
            uint64_t *tab = malloc(count * n * 8), *r = malloc(n * 8);
            for (size_t k = 0; k < count * n; k++)
                tab[k] = mt_u64();
            for (size_t idx = 0; idx < count; idx++) {
                mns_ct_select(r, tab, count, n, idx);
                MT_CHECK(memcmp(r, tab + idx * n, n * 8) == 0, "select %zu of %zu", idx, count);
            }
            free(tab);
            free(r);
        }
    uint64_t a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
    mns_ct_cmov(a, b, 3, 0);
    MT_CHECK(a[0] == 1 && a[2] == 3, "cmov 0");
    mns_ct_cmov(a, b, 3, ~0ull);
    MT_CHECK(a[0] == 4 && a[2] == 6, "cmov 1");

    /* MNS_CPU=generic hides every feature from the kernels, never from reports */
    const char *env = getenv("MNS_CPU");
    if (env && strcmp(env, "generic") == 0)
        MT_CHECK(mns_cpu_features() == 0 && !mns_cpu_has_ifma(), "generic hides features");
    else
        MT_CHECK(mns_cpu_features() == mns_cpu_features_raw(), "native shows features");
    MT_CHECK(mns_cpu_features_string()[0] != '\0', "features string");
    printf("cpu features: %s\n", mns_cpu_features_string());
    return mt_finish();
}
