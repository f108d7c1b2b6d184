/* The big sweep of pmns-mp / pmns-mp-ifma against GMP: 3072-8192 bits, s = 2..5
 * on both parameter shapes, the portable kernel's default, s = 6 and a deep
 * split, chains of 10^4 multiplications (make check-slow). */
#include <stdio.h>

#include "mns.h"
#include "primes.h"
#include "testutil.h"

/* A prime of `bits` bits: mt_modulus runs nextprime up to 3072 bits; above,
 * mns-bench's shipped table (bench/primes_table.c, seed 1). */
static void prime_of(mpz_t p, size_t bits)
{
    for (unsigned i = 0; i < mb_prime_table_len; i++)
        if (mb_prime_table[i].bits == bits) {
            mpz_set_str(p, mb_prime_table[i].hex, 16);
            return;
        }
    mt_modulus(p, bits, MT_MOD_PRIME);
}

/* one spec on p against GMP, long chains; a spec this CPU refuses prints its
 * skip line only */
static void check(const char *spec, const mpz_t p, size_t bits)
{
    mt_field_opts o = {.iters = 10, .chain = 10000, .powms = 2, .allow_notsup = 1};
    long bad = mt_field_check(spec, p, &o);
    if (!mt_field_skipped())
        printf("  %-28s %5zu bits: %s\n", spec, bits, bad ? "FAIL" : "ok");
    fflush(stdout);
}

int main(void)
{
    mt_init("test_slow_pmns_mp");
    mpz_t p;
    mpz_init(p);
    static const size_t sizes[] = {3072, 4096, 6144, 8192};
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        prime_of(p, sizes[z]);
        /* the IFMA kernel's own choices: the default (the fused kernel,
         * split at 6144-8192 bits) and the split asked for */
        static const char *const own[] = {"pmns-mp-ifma", "pmns-mp-ifma:base=8",
                                          "pmns-mp-ifma:s=6"};
        for (int v = 0; v < 3; v++)
            check(own[v], p, sizes[z]);
        for (int s = 2; s <= 5; s++) {
            if (sizes[z] >= 6144 && s == 2)
                continue; /* s = 2 needs n ~ 60-80: minutes of LLL */
            static const char *const fmt[] = {"pmns-mp:s=%d", "pmns-mp:s=%d,word=u52",
                                              "pmns-mp-ifma:s=%d"};
            for (int v = 0; v < 3; v++) {
                char spec[64];
                snprintf(spec, sizeof spec, fmt[v], s);
                check(spec, p, sizes[z]);
            }
        }
    }
    /* the portable kernel: its default (n, s) (cost model), s = 6 (which
     * that default takes at 4096-8192 bits) and a deep split */
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        prime_of(p, sizes[z]);
        static const char *const specs[] = {"pmns-mp", "pmns-mp:s=6", "pmns-mp:s=4,base=2"};
        for (int v = 0; v < 3; v++)
            check(specs[v], p, sizes[z]);
    }
    mpz_clear(p);
    return mt_finish();
}
