/* Constant-time fixed-window exponentiation over any backend.
 *
 * A backend provides mul, sqr and one (its tight 1); table selection is done
 * here with masks over every entry, so a backend gets a constant-time powm by
 * filling mns_exp_ops. The loop is the Exp algorithm of the RSA-CRT slides:
 * for each w-bit window of e, from the top, w squarings then one
 * multiplication by Select(table, window). The window count depends only on
 * the bit length of e, and the multiplication by table[0] = 1 is done like
 * any other, so neither the time nor the memory trace depends on the bits of
 * e or on the base. */
#ifndef MNS_EXP_EXP_H
#define MNS_EXP_EXP_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "mns.h"

typedef struct mns_exp_ops {
    const void *ctx;
    size_t limbs;
    void (*mul)(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*sqr)(const void *ctx, uint64_t *r, const uint64_t *a);
    void (*one)(const void *ctx, uint64_t *r);
} mns_exp_ops;

/* The window width for a `bits`-bit exponent and `limbs`-word elements. */
unsigned mns_exp_window(size_t bits, size_t limbs);

/* Words of scratch that mns_exp_powm needs for an exponent of `bits` bits. */
size_t mns_exp_scratch_words(size_t limbs, size_t bits);

/* r <- a^e, e >= 0, a tight. scratch holds mns_exp_scratch_words() words;
 * r may alias a. */
void mns_exp_powm(const mns_exp_ops *ops, uint64_t *r, const uint64_t *a, const mpz_t e,
                  uint64_t *scratch);

/* Same, allocating the scratch (MNS_ENOMEM if that fails; r untouched). */
mns_status mns_exp_powm_alloc(const mns_exp_ops *ops, uint64_t *r, const uint64_t *a,
                              const mpz_t e);

#endif
