/* Pairs of channels that share one instruction stream: which can pair, how
 * much exponentiation scratch each lane needs, and, for an explicit spec,
 * whether a pair pays (timed once when the key is made). */
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

/* Whether a pair pays is measured, not assumed: two exponentiations in one
 * instruction stream win where one product leaves the multipliers idle,
 * and lose where the two channels' working sets (rns-ifma: two contexts'
 * matrices and two tables) no longer fit the L1 cache. A key with an
 * explicit spec times each of its pairs once, as whole jobs with the real
 * exponents (mns_rsa_pair_ratio, the timing units of "auto"'s choice in
 * choose.c), and uses a pair where it took less than 97% of the two
 * channels one after the other. Results do not depend on this choice,
 * only the time does; the ratios are in mns_rsa_describe. */
void mns_rsa_probe_pairs(mns_rsa *key)
{
    key->npairs = 0;
    for (int j = 0; 2 * j + 1 < key->k; j++) {
        key->probe_ratio[j] = key->x2[j] ? mns_rsa_pair_ratio(key, j) : 0;
        key->pair_on[j] = key->probe_ratio[j] > 0 && key->probe_ratio[j] < 0.97;
        key->npairs += key->pair_on[j];
    }
}
