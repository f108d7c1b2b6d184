/* The bigger RNS sweep (label "slow"): every size from 128 to 8192 bits in
 * steps, every modulus shape, the three RNS specs, long chains, several
 * delta and n choices; the quick version is test_rns.c. */
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

int main(void)
{
    mt_init("test_slow_rns");
    mpz_t p;
    mpz_init(p);
    static const char *const specs[] = {"rns", "rns-ifma", "rns-ifma:kernel=generic"};
    const mt_field_opts deep = {.iters = 30, .chain = 3000, .powms = 10, .allow_notsup = 1};
    const mt_field_opts wide = {.iters = 6, .chain = 300, .powms = 4, .allow_notsup = 1};
    for (size_t bits = 128; bits <= 8192; bits += bits < 1024 ? 37 : (bits < 4096 ? 211 : 997))
        for (int k = 0; k < MT_MOD_KINDS; k++) {
            if (k == MT_MOD_PRIME && bits > 3000)
                continue; /* nextprime costs seconds there */
            mt_modulus(p, bits, (mt_mod_kind)k);
            for (size_t i = 0; i < 3; i++)
                mt_field_check(specs[i], p, bits <= 1024 ? &deep : &wide);
        }
    /* forced n and delta: from the smallest n that serves p upwards */
    static const char *const forced[] = {"rns:delta=0",       "rns:delta=40",
                                         "rns:n=40",          "rns:n=41,delta=0",
                                         "rns-ifma:delta=0",  "rns-ifma:n=48",
                                         "rns-ifma:n=40,delta=0", "rns-ifma:kernel=generic,n=56"};
    for (int round = 0; round < 20; round++) {
        mt_modulus(p, 1900 + mt_below(150), (mt_mod_kind)(round % MT_MOD_KINDS));
        for (size_t i = 0; i < sizeof forced / sizeof forced[0]; i++)
            mt_field_check(forced[i], p, &wide);
    }
    mpz_clear(p);
    return mt_finish();
}
