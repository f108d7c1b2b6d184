/* The `mont` backend against GMP: every modulus shape from 2 to 128 words
 * (8192 bits) and a few far larger, through the shared conformance check. */
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

int main(void)
{
    mt_init("test_mont");
    mpz_t p;
    mpz_init(p);
    const mt_field_opts quick = {.iters = 20, .chain = 300, .powms = 8};
    const mt_field_opts light = {.iters = 3, .chain = 30, .powms = 3};

    /* every size from 2 bits... to 8 words bit by bit near word edges */
    static const size_t sizes[] = {2,   3,   5,   31,  63,  64,  65,  127, 128,  129, 191, 192,
                                   193, 255, 256, 257, 384, 448, 511, 512, 521,  767, 1023, 1024,
                                   1025, 1536, 2048, 3072, 4096};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int k = 0; k < MT_MOD_KINDS; k++) {
            if (sizes[i] < 4 && k != MT_MOD_RANDOM && k != MT_MOD_PRIME)
                continue;
            if (k == MT_MOD_PSEUDO_MERSENNE && sizes[i] < 24)
                continue;
            mt_modulus(p, sizes[i], (mt_mod_kind)k);
            mt_field_check("mont", p, &quick);
        }
    static const size_t big[] = {6144, 8192, 8191, 8193};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        for (int k = 0; k < MT_MOD_KINDS; k++) {
            if (k == MT_MOD_PRIME)
                continue; /* nextprime at 8192 bits costs seconds */
            mt_modulus(p, big[i], (mt_mod_kind)k);
            mt_field_check("mont", p, &light);
        }
    /* far larger: beyond the stack scratch (heap path) */
    const mt_field_opts huge = {.iters = 1, .chain = 3, .powms = 0};
    mt_modulus(p, 70000, MT_MOD_RANDOM);
    mt_field_check("mont", p, &huge);
    /* "auto" must serve the same moduli */
    mt_modulus(p, 2048, MT_MOD_PRIME);
    mt_field_check("auto", p, &light);
    mt_modulus(p, 192, MT_MOD_RANDOM);
    mt_field_check("auto", p, &light);
    mpz_clear(p);
    return mt_finish();
}
