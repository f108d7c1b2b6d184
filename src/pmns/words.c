/* The constant-time entry of the single-precision PMNS backends (set_words
 * of backend.h): the radix-sum conversion of mns_pmns_from_mpz_var, read
 * straight from the words instead of an mpz reduced with mpz_mod.
 *
 *   V = sum_j d_j digits[j],  d_j the 32-bit digits of a,  digits[j] the
 *   tight polynomial of 2^(32 j) phi^2 mod p;  r = RedCoeff(V) = a phi.
 *
 * The number of digits, ceil(bits(p) / 32), is public, the loops run over
 * all of them, and the only operations on digits are 128-bit products and
 * sums; ctx creation checked that V stays below the RedCoeff bound for any
 * digits (bounds() in ctx.c), so r is tight for every a < 2^bits(p).
 * Cost: ndigits x n multiply-adds and one RedCoeff, against the n^2 of a
 * product: the entry is about one product. */
#include "pmns/pmns.h"

void mns_pmns_set_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_pmns_ctx *c = ctx;
    const int n = c->n;
    const int s64 = c->word == MNS_PMNS_WORD_S64;
    __int128 v[MNS_PMNS_ARITH_N_MAX];
    for (int i = 0; i < n; i++)
        v[i] = 0;
    for (int j = 0; j < c->ndigits; j++) {
        const __int128 d = (__int128)((a[j / 2] >> (32 * (j & 1))) & 0xffffffffu);
        const uint64_t *t = c->digits + (size_t)j * (size_t)n;
        for (int i = 0; i < n; i++)
            v[i] += d * (s64 ? (__int128)(int64_t)t[i] : (__int128)t[i]);
    }
    mns_pmns_redc_wide_generic(c, r, v);
}
