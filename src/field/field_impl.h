/* The front door's own state, shared by the files of src/field/ only: the
 * field struct and the constants of the constant-time element API (bytes,
 * selection, inversion, square roots, powm_var) that field.c builds once at
 * creation, so no call on elements allocates.
 *
 * Scratch: every call of that API works in one stack block of
 * MNS_FIELD_API_WORDS words (no VLA, no heap); api_words is what this field
 * needs of it, fixed at creation. A field whose elements are too large for
 * the block answers MNS_ENOTSUP from those calls (api_ok = 0). */
#ifndef MNS_FIELD_IMPL_H
#define MNS_FIELD_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>

#include "core/backend.h"
#include "mns.h"

#define MNS_FIELD_API_WORDS 16384 /* 128 KiB of stack */

typedef struct mns_field_api {
    int ok;            /* the block below serves this field */
    size_t pn, pbits;  /* words and bits of p */
    size_t pbytes;     /* bytes of p: the shortest get_bytes buffer */
    const uint64_t *pw;/* p's words (mpz_limbs_read of the field's p) */
    uint64_t *zero;    /* tight elements of 0, 1 and p - 1 */
    uint64_t *one;
    uint64_t *minus_one;
    /* square roots: p mod 8, and for p = 1 mod 8 the Tonelli-Shanks data
     * p - 1 = 2^ts_s q, q odd, and the canonical words of c = z^q for the
     * smallest z with Jacobi symbol (z / p) = -1 */
    unsigned pmod8;
    unsigned ts_s;
    uint64_t *ts_c;
    int ts_none;       /* made without it (mns_field_new_nosqrt_): no sqrt */
    mpz_t e_sqrt;      /* (p + 1) / 4, (p - 5) / 8 or (q - 1) / 2 */
    mpz_t e_half;      /* (p - 1) / 2: Euler's criterion */
} mns_field_api;

struct mns_field {
    /* hot operations first, copied out of ops so a call costs one load */
    void (*mul)(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*sqr)(const void *ctx, uint64_t *r, const uint64_t *a);
    void (*add)(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*sub)(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b);
    void *ctx;
    mns_backend_inst inst;
    mpz_t p;
    mns_field_api api;
    /* the lane kernel of the batch calls (src/field/batch.c), NULL where
     * none applies; lanes_native: the backend's elements are its lane
     * digits (mont-ifma) */
    struct mns_mb52_ctx *lanes;
    int lanes_native;
    char describe[MNS_DESCRIBE_MAX + 1440];
};

/* Builds f->api once the backend exists (src/field/api.c); MNS_ENOMEM only.
 * sqrt_data = 0 (mns_field_new_nosqrt_) leaves out the Tonelli-Shanks
 * constant of p = 1 mod 8 (ts_none). */
mns_status mns_field_api_init(mns_field *f, int sqrt_data);
void mns_field_api_clear(mns_field *f);

/* MNS_OK, or MNS_ENOTSUP with the reason when the field's elements do not
 * fit the API's stack block; `who` names the caller in the message. */
mns_status mns_field_api_check(const mns_field *f, const char *who);

/* r <- the canonical words (pn of them) of any tight or loose element a:
 * reduce into t (limbs words of scratch), then the backend's get_words. */
void mns_field_canon(const mns_field *f, uint64_t *r, const uint64_t *a, uint64_t *t);

/* All-ones if a and b (b NULL: 0) are the same value, any tight or loose
 * representations; scratch holds MNS_FIELD_EQ_WORDS(f) words (wiped). */
#define MNS_FIELD_EQ_WORDS(f) (2 * (f)->api.pn + (f)->inst.limbs)
uint64_t mns_field_eq_in(const mns_field *f, const uint64_t *a, const uint64_t *b,
                         uint64_t *scratch);

/* Words of scratch of mns_field_powm_scratch for an exponent of p's size
 * (plus the elements each caller keeps beside it). */
size_t mns_field_api_powm_words(const mns_field *f);

#endif
