/* Pairs of channels that share one instruction stream: which can pair and
 * how much exponentiation scratch each lane needs (whether a pair is used:
 * mns_rsa_pair_rule, choose.c). */
#include "field/field_internal.h"
#include "rsa/rsa_internal.h"


/* Channels 2j and 2j + 1 form pair j when their fields can share the x2
 * exponentiation (same backend, same element size). The exponents of a
 * pair may differ in length (unequal primes): the pair then runs for the
 * longer one, so each lane's scratch is sized for the pair's longer
 * exponent. */
void mns_rsa_plan_pairs(mns_rsa *key)
{
    key->npairs = 0;
    for (int i = 0; i < key->k; i++)
        key->pw_words[i] = mns_field_powm_scratch_words(key->ch[i].f, mpz_sizeinbase(key->ch[i].dexp, 2));
    for (int j = 0; 2 * j + 1 < key->k; j++) {
        mns_rsa_channel *a = &key->ch[2 * j], *b = &key->ch[2 * j + 1];
        key->x2[j] = mns_field_x2(a->f, b->f);
        if (!key->x2[j])
            continue;
        size_t ba = mpz_sizeinbase(a->dexp, 2), bb = mpz_sizeinbase(b->dexp, 2);
        size_t bits = ba > bb ? ba : bb;
        size_t wa = mns_field_powm_x2_lane_words(a->f, b->f, bits);
        size_t wb = mns_field_powm_x2_lane_words(b->f, a->f, bits);
        if (wa > key->pw_words[2 * j])
            key->pw_words[2 * j] = wa;
        if (wb > key->pw_words[2 * j + 1])
            key->pw_words[2 * j + 1] = wb;
    }
}
