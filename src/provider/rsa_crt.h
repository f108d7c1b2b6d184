/* The RSA private operation a key runs before its mns_rsa context is ready:
 * one mns_field "mont" per prime (made in microseconds, no parameter
 * generation), the exponentiations by mns_field_powm, the rest with GMP's
 * constant-time mpn_sec_* functions. A one-shot program (openssl dgst
 * -sign) signs on this; a process that keeps signing moves to the full
 * mns_rsa key (rsa_key.c).
 *
 * Constant time: the input is blinded (x r^e, the pair r^e, r^-1 squared
 * after every use, under the key's lock), so what mns_field_set_mpz and
 * mns_field_get_mpz see (x r^e mod p_i, its power) is random; the
 * reductions mod p_i and n, the Garner steps and the unblinding are
 * mpn_sec_mul / mpn_sec_div_r on fixed sizes; the exponents d mod (p_i - 1)
 * are padded by multiples of p_i - 1 to bits(p_i) + 2 bits. Creation is not
 * constant time (one trace per key, as mns_rsa_new). */
#ifndef MNS_PROVIDER_RSA_CRT_H
#define MNS_PROVIDER_RSA_CRT_H

#include <gmp.h>
#include "provider/provider.h"

typedef struct mns_prov_crt mns_prov_crt;

/* 0 on failure (the reason raised as an OpenSSL error). */
int mns_prov_crt_new(mns_prov_crt **out, const mns_prov *prov, const mpz_t n, const mpz_t e,
                     const mpz_t d, const mpz_t *primes, int k);
void mns_prov_crt_free(mns_prov_crt *c);
/* out <- in^d mod n, 0 <= in < n, checked with e; 0 on failure (out
 * untouched, the reason raised). */
int mns_prov_crt_private(mns_prov_crt *c, const mns_prov *prov, mpz_t out, const mpz_t in);
const char *mns_prov_crt_describe(const mns_prov_crt *c);

#endif /* MNS_PROVIDER_RSA_CRT_H */
