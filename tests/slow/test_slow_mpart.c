/* mpart on a 262144-bit modulus (the slow target): the default schedule, k =
 * 4 on Table 3's four threads, bipartite and the two baselines. */
#include <stdio.h>

#include "testutil.h"

int main(void)
{
    mt_init("test_slow_mpart");
    mpz_t p;
    mpz_init(p);
    const mt_field_opts o = {.iters = 2, .chain = 6, .powms = 0};
    mt_modulus(p, 262144, MT_MOD_RANDOM);
    mt_field_check("mpart:threads=2", p, &o);
    mt_field_check("mpart:k=4,threads=4", p, &o);
    mt_field_check("mpart:k=8,threads=3", p, &o);
    mt_field_check("bipartite:threads=2", p, &o);
    mt_field_check("mpart-mont:threads=2", p, &o);
    mt_field_check("mpart-barrett:threads=2", p, &o);
    mt_modulus(p, 262143, MT_MOD_DENSE);
    mt_field_check("mpart:k=5,threads=2", p, &o);
    mpz_clear(p);
    return mt_finish();
}
