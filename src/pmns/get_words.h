/* get_words of backend.h for the PMNS backends (get_words.c): r <- the
 * canonical value in [0, p) of a tight element, as mpz_size(p) words.
 * Constant time in the element and in p; no allocation: the scratch is on
 * the stack, its size checked at creation (mns_pmns_gw_scratch). r may
 * alias a. */
#ifndef MNS_PMNS_GET_WORDS_H
#define MNS_PMNS_GET_WORDS_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>

/* The context's table for get_words: gamma^t R mod p (R = 2^(64 mpz_size(p)),
 * t = 0 .. ceil(sqrt(n))), mpz_size(p) words each; malloc'd (free()), NULL
 * if out of memory. Built once per context, at creation. */
uint64_t *mns_pmns_gw_powers(mpz_srcptr p, mpz_srcptr gamma, int n);
/* Words of per-call scratch of get_words: elements of L words, p of pn
 * words, coefficients of cw words, n coefficients. */
size_t mns_pmns_gw_scratch(size_t L, size_t pn, size_t cw, int n);
/* pmns, pmns-ifma (ctx: mns_pmns_ctx) */
void mns_pmns_get_words(const void *ctx, uint64_t *r, const uint64_t *a);
/* pmns-mp, pmns-mp-ifma (ctx: mns_pmns_mp_ctx); mns_pmns_mp_gw_cw: the
 * words of one coefficient there */
struct mns_pmns_mp_ctx;
size_t mns_pmns_mp_gw_cw(const struct mns_pmns_mp_ctx *c);
void mns_pmns_mp_get_words(const void *ctx, uint64_t *r, const uint64_t *a);

#endif
