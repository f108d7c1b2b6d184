/* pmns-mp and pmns-mp-ifma against GMP (tests/testutil's conformance check):
 * every s the generator offers at 512-2048 bits, fixed s at 3072-8192, delta
 * limits, both parameter shapes on the portable kernel, and the IFMA kernel
 * compared word for word with the portable one on the same set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mns.h"
#include "mns_pmns_mp.h"
#include "primes.h"
#include "testutil.h"

/* may_refuse: the spec may be refused for this prime (MNS_ENOTSUP); the
 * default "pmns-mp" must accept every prime (its automatic (n, s) falls back
 * to another s when the kernel bounds fail, e.g. n=6 s=3 k=60 at 1024 bits) */
static void check_r(const char *spec, const mpz_t p, unsigned iters, unsigned chain,
                    unsigned powms, int may_refuse)
{
    mt_field_opts o = {.iters = iters, .chain = chain, .powms = powms, .allow_notsup = may_refuse};
    long bad = mt_field_check(spec, p, &o);
    printf("  %-34s %5zu bits: %s\n", spec, mpz_sizeinbase(p, 2), bad ? "FAIL" : "ok");
    fflush(stdout);
}

static void check(const char *spec, const mpz_t p, unsigned iters, unsigned chain, unsigned powms)
{
    check_r(spec, p, iters, chain, powms, 1);
}

int main(void)
{
    mt_init("test_pmns_mp");
    mpz_t p;
    mpz_init(p);
    static const size_t sizes[] = {512, 1024, 2048};
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        mt_modulus(p, sizes[z], MT_MOD_PRIME);
        check_r("pmns-mp", p, 30, 10000, 8, 0);
        check("pmns-mp-ifma", p, 30, 10000, 8);
        for (int s = 2; s <= 4; s++) {
            char spec[64];
            snprintf(spec, sizeof spec, "pmns-mp:s=%d", s);
            check(spec, p, 20, 1000, 3);
            snprintf(spec, sizeof spec, "pmns-mp:s=%d,word=u52", s);
            check(spec, p, 20, 1000, 3);
            snprintf(spec, sizeof spec, "pmns-mp-ifma:s=%d", s);
            check(spec, p, 20, 1000, 3);
        }
        check("pmns-mp:delta=3", p, 10, 1000, 2);
        check("pmns-mp:delta=2,word=u52", p, 10, 1000, 2);
        check("pmns-mp-ifma:delta=2", p, 10, 1000, 2);
        check("pmns-mp:base=1", p, 10, 1000, 2);
        check("pmns-mp:base=4", p, 10, 1000, 2);
        check("pmns-mp:base=1,word=u52", p, 10, 1000, 2);
        check("pmns-mp-ifma:base=1", p, 10, 1000, 2);
        /* the portable kernel's other s (its default takes up to 6), and a
         * split flow with loose operands at the delta limit */
        check("pmns-mp:s=5", p, 10, 1000, 2);
        check("pmns-mp:s=6", p, 10, 1000, 2);
        check("pmns-mp:delta=2,base=2", p, 10, 1000, 2);
        check("pmns-mp-ifma:base=8", p, 10, 1000, 2);          /* fused, split */
        check("pmns-mp-ifma:s=2,base=8,delta=2", p, 10, 1000, 2);
    }
    /* the portable kernel's compiled instances (mp_generic_fi.c: n=6 s=3
     * 3/b2, n=9 s=2 unsplit at 1024 bits, n=12 s=3 3/b4 at 2048, n=12 s=6
     * 3/b4 at 4096, n=18 s=6 3/b6 at 6144: the defaults; n=24 s=6 at 8192
     * runs the flow, 2x3/b4),
     * loose operands included, on mns-bench's primes (the generator's sets
     * at a given n, s depend on p: these are the ones the benchmarks time) */
    static const struct {
        unsigned bits;
        const char *spec;
    } inst[] = {
        {1024, "pmns-mp:n=6,s=3"},   {1024, "pmns-mp:n=9,s=2"},
        {1024, "pmns-mp:n=6,s=3,delta=2"}, {2048, "pmns-mp:n=12,s=3"},
        {4096, "pmns-mp:n=12,s=6"},
        {6144, "pmns-mp:n=18,s=6"},  {8192, "pmns-mp:n=24,s=6"},
    };
    for (size_t i = 0; i < sizeof inst / sizeof *inst; i++)
        for (unsigned t = 0; t < mb_prime_table_len; t++)
            if (mb_prime_table[t].bits == inst[i].bits) {
                mpz_set_str(p, mb_prime_table[t].hex, 16);
                check_r(inst[i].spec, p, 20, 1000, 2, 0);
            }
    mpz_clear(p);
    return mt_finish();
}
