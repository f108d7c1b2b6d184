/* The big sweep of pmns-mp / pmns-mp-ifma against GMP: 3072-8192 bits, s = 2..5
 * on both parameter shapes, chains of 10^4 multiplications (make check-slow). */
#include <stdio.h>

#include "mns.h"
#include "primes.h"
#include "testutil.h"

int main(void)
{
    mt_init("test_slow_pmns_mp");
    mpz_t p;
    mpz_init(p);
    static const size_t sizes[] = {3072, 4096, 6144, 8192};
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        /* above MT_PRIME_MAX_BITS mt_modulus is not prime (nextprime takes
         * minutes): mns-bench's shipped primes (bench/primes_table.c) */
        if (sizes[z] > MT_PRIME_MAX_BITS)
            mb_prime(p, (unsigned)sizes[z], MB_DEFAULT_SEED);
        else
            mt_modulus(p, sizes[z], MT_MOD_PRIME);
        /* the IFMA kernel's own choices: the default (the fused kernel,
         * split at 6144-8192 bits) and the split asked for */
        static const char *const own[] = {"pmns-mp-ifma", "pmns-mp-ifma:base=8",
                                          "pmns-mp-ifma:s=6"};
        for (int v = 0; v < 3; v++) {
            mt_field_opts o = {.iters = 10, .chain = 10000, .powms = 2, .allow_notsup = 1};
            long bad = mt_field_check(own[v], p, &o);
            printf("  %-28s %5zu bits: %s\n", own[v], sizes[z], bad ? "FAIL" : "ok");
            fflush(stdout);
        }
        for (int s = 2; s <= 5; s++) {
            if (sizes[z] >= 6144 && s == 2)
                continue; /* s = 2 needs n ~ 60-80: minutes of LLL */
            static const char *const fmt[] = {"pmns-mp:s=%d", "pmns-mp:s=%d,word=u52",
                                              "pmns-mp-ifma:s=%d"};
            for (int v = 0; v < 3; v++) {
                char spec[64];
                snprintf(spec, sizeof spec, fmt[v], s);
                mt_field_opts o = {.iters = 10, .chain = 10000, .powms = 2, .allow_notsup = 1};
                long bad = mt_field_check(spec, p, &o);
                printf("  %-28s %5zu bits: %s\n", spec, sizes[z], bad ? "FAIL" : "ok");
                fflush(stdout);
            }
        }
    }
    mpz_clear(p);
    return mt_finish();
}
