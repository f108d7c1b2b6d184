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
    /* Optional (NULL: w calls of sqr): k >= 1 squarings in one call (the
     * backend's sqr_k, backend.h). */
    void (*sqr_k)(const void *ctx, uint64_t *r, const uint64_t *a, unsigned k);
} mns_exp_ops;

/* The window width for a `bits`-bit exponent and `limbs`-word elements. */
unsigned mns_exp_window(size_t bits, size_t limbs);

/* Words of scratch that mns_exp_powm needs for an exponent of `bits` bits. */
size_t mns_exp_scratch_words(size_t limbs, size_t bits);

/* r <- a^e, e >= 0, a tight. scratch holds mns_exp_scratch_words() words;
 * r may alias a. */
void mns_exp_powm(const mns_exp_ops *ops, uint64_t *r, const uint64_t *a, const mpz_t e,
                  uint64_t *scratch);

/* Two exponentiations in one instruction stream (RSA-CRT channels sharing
 * a thread). Every product of one is paired with the same
 * product of the other and handed to the backend's x2 kernel (backend.h),
 * where two independent chains keep the multipliers busy while each waits on
 * its own latency; a NULL mul_x2 / sqr_x2 means two ordinary calls. Constant
 * time in both bases and both exponents: the window count follows the
 * longer bit length (the shorter exponent is read zero-extended), so the
 * time depends on max(bits(e0), bits(e1)) and the element sizes only. */
typedef struct mns_exp_x2 {
    mns_exp_ops op[2];
    void (*mul_x2)(const void *ctx0, const void *ctx1, uint64_t *r0, const uint64_t *a0,
                   const uint64_t *b0, uint64_t *r1, const uint64_t *a1, const uint64_t *b1);
    void (*sqr_x2)(const void *ctx0, const void *ctx1, uint64_t *r0, const uint64_t *a0,
                   uint64_t *r1, const uint64_t *a1);
} mns_exp_x2;

/* The window of a pair: that of the larger elements, for the longer exponent. */
unsigned mns_exp_window_x2(size_t bits, size_t limbs0, size_t limbs1);

/* Words of scratch of one lane of mns_exp_powm_x2: its elements have `limbs`
 * words, the other lane's `limbs_other`, the longer exponent `bits` bits. */
size_t mns_exp_x2_lane_words(size_t limbs, size_t bits, size_t limbs_other);

/* r0 <- a0^e0 in op[0]'s field, r1 <- a1^e1 in op[1]'s, e0, e1 >= 0, a0, a1
 * tight; scratch0 / scratch1 hold mns_exp_x2_lane_words() words for their
 * lane. r_j may alias a_j. */
void mns_exp_powm_x2(const mns_exp_x2 *x2, uint64_t *r0, const uint64_t *a0, const mpz_t e0,
                     uint64_t *r1, const uint64_t *a1, const mpz_t e1, uint64_t *scratch0,
                     uint64_t *scratch1);

/* MNS_OK if mns_exp_powm_stack serves `limbs`-word elements at every
 * exponent length (the window is narrowed until the table fits the per-call
 * scratch bound of core/tmp.h), else MNS_ENOTSUP: a field checks it when it
 * is created, so that its powm never needs the heap. */
mns_status mns_exp_check(size_t limbs);

/* Same as mns_exp_powm, with its scratch on the stack, wiped before it
 * returns. MNS_ENOTSUP (r untouched) only where mns_exp_check refuses. */
mns_status mns_exp_powm_stack(const mns_exp_ops *ops, uint64_t *r, const uint64_t *a,
                              const mpz_t e);

#endif
