#include "primes.h"

void mb_prime_generate(mpz_t p, unsigned bits, unsigned long seed)
{
    gmp_randstate_t rs;
    mpz_t s;
    gmp_randinit_mt(rs);
    mpz_init_set_ui(s, seed);
    mpz_mul_2exp(s, s, 20);
    mpz_add_ui(s, s, bits);
    gmp_randseed(rs, s);
    do {
        mpz_urandomb(p, rs, bits);
        mpz_setbit(p, bits - 1);
        mpz_nextprime(p, p);
    } while (mpz_sizeinbase(p, 2) != bits);
    mpz_clear(s);
    gmp_randclear(rs);
}

static const mb_prime_entry *lookup(unsigned bits, unsigned long seed)
{
    if (seed == mb_prime_table_seed)
        for (unsigned i = 0; i < mb_prime_table_len; i++)
            if (mb_prime_table[i].bits == bits)
                return &mb_prime_table[i];
    return 0;
}

int mb_prime_in_table(unsigned bits, unsigned long seed) { return lookup(bits, seed) != 0; }

int mb_prime(mpz_t p, unsigned bits, unsigned long seed)
{
    const mb_prime_entry *e = lookup(bits, seed);
    if (e) {
        mpz_set_str(p, e->hex, 16);
        return 1;
    }
    mb_prime_generate(p, bits, seed);
    return 0;
}

void mb_prime_pm(mpz_t p, unsigned bits)
{
    static const struct {
        unsigned bits;
        const char *hex;
    } known[] = {
        {255, "7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed"},
        {256, "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f"},
        {384, "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff"
              "0000000000000000ffffffff"},
        {448, "fffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffffffffffff"
              "ffffffffffffffffffffffffffffffffffffffff"},
        {521, "1fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
              "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].bits == bits) {
            mpz_set_str(p, known[i].hex, 16);
            return;
        }
    /* the largest prime 2^bits - c: odd candidates from 2^bits - 1 down */
    mpz_ui_pow_ui(p, 2, bits);
    mpz_sub_ui(p, p, 1);
    while (!mpz_probab_prime_p(p, 30))
        mpz_sub_ui(p, p, 2);
}
