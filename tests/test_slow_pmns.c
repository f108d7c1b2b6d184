/* Long PMNS sweeps (label "slow"): generated primes up to 4096 bits for both
 * word kinds and both E, every structured modulus shape, and long chains
 * through mt_field_check. Generation dominates the run time (tens of seconds
 * per u52 set above 2048 bits on this machine). */
#include <stdio.h>

#include "mns.h"
#include "testutil.h"

int main(void)
{
    mt_init("test_slow_pmns");
    static const size_t sizes[] = {160, 255, 448, 512, 607, 807, 1214, 1536, 1621, 2048, 3072, 4096};
    static const char *const specs[] = {"pmns", "pmns-ifma", "pmns:E=x1", "pmns-ifma:E=x1",
                                        "pmns:delta=3", "pmns-ifma:delta=2", NULL};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        mpz_t p;
        mpz_init(p);
        mt_modulus(p, sizes[i], MT_MOD_PRIME);
        mt_field_opts o = {.iters = 50, .chain = 10000, .powms = 10, .allow_notsup = 1};
        for (int s = 0; specs[s]; s++) {
            /* the E=x1 and delta variants only up to 2048 bits: generation time */
            if (s >= 2 && sizes[i] > 2048)
                continue;
            long bad = mt_field_check(specs[s], p, &o);
            MT_CHECK(bad == 0, "%s on %zu bits: %ld failures", specs[s], sizes[i], bad);
        }
        mpz_clear(p);
    }
    return mt_finish();
}
