/* The constant-time entry of the RNS backends (set_words of backend.h):
 * the residues of the words, then one Montgomery product.
 *
 *   x_i = a mod m_i by Horner over the words, acc <- acc 2^64 + a_j mod m_i,
 *         with 2^64 mod m_i public (the base is public) and the fold of
 *         word.h (no division, no branch): a < p is then a valid operand
 *         (tight means below (n + 1) p in value);
 *   r   = x (M'^2 mod p) M'^-1 = a M' mod p, the Montgomery form.
 *
 * Cost: 2n pn word folds and one product (the product dominates). */
#include "rns/rns.h"
#include "rns/word.h"

void mns_rns_set_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_rns *c = ctx;
    const size_t pn = mpz_size(c->p), n2 = 2 * c->n;
    const unsigned e = c->e;
    uint64_t x[2 * MNS_RNS_NMAX];
    for (size_t i = 0; i < n2; i++) {
        const uint64_t m = c->m[i], ci = c->c[i];
        const uint64_t t64 = mns_rns_red_mid((mns_u128)1 << 64, ci, m, e);
        uint64_t acc = 0;
        /* acc t64 + a_j < 2^(2e) + 2^64 <= 2^(2e + 8): red_acc's range */
        for (size_t j = pn; j-- > 0;)
            acc = mns_rns_red_acc((mns_u128)acc * t64 + a[j], 0, ci, m, e);
        x[i] = acc;
    }
    c->mul(c, r, x, c->r2);
}
