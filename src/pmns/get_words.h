/* get_words of backend.h for the PMNS backends (get_words.c): r <- the
 * canonical value in [0, p) of a tight element, as mpz_size(p) words.
 * Constant time in the element and in p; no allocation up to the sizes
 * given in get_words.c (their stack scratch). r may alias a. */
#ifndef MNS_PMNS_GET_WORDS_H
#define MNS_PMNS_GET_WORDS_H

#include <stdint.h>

/* pmns, pmns-ifma (ctx: mns_pmns_ctx) */
void mns_pmns_get_words(const void *ctx, uint64_t *r, const uint64_t *a);
/* pmns-mp, pmns-mp-ifma (ctx: mns_pmns_mp_ctx) */
void mns_pmns_mp_get_words(const void *ctx, uint64_t *r, const uint64_t *a);

#endif
