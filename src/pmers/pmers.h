/* The pseudo-Mersenne backend `pmers`: p = 2^k - c with small c
 * (2^255 - 19, 2^127 - 1, 2^521 - 1, 2^256 - 189, ...), reduced by folding
 * instead of a Montgomery or Barrett step (Crandall's reduction; the
 * arithmetic of Bernstein's Curve25519 and of OpenSSL's x25519-x86_64).
 *
 * Representation. An element is n = ceil(k / 64) words, any value in
 * [0, 2^(64 n)) standing for itself mod p: every such value is tight, so
 * add and sub also give tight results (delta is unbounded) and reduce is a
 * copy. With h = 64 n - k, 2^(64 n) = 2^h c mod p, and m = 2^h c is the fold
 * constant: a 2n-word product H 2^(64 n) + L becomes L + H m (n + 1 words),
 * its top word t <= m folds again as t m, and a last carry out of the n
 * words adds m once more, which cannot carry again. get_words and get_mpz
 * make the canonical value: x = x_hi 2^k + x_lo -> x_lo + x_hi c < 2^k + m,
 * then one conditional subtraction of p.
 *
 * Served: 2 <= n <= MNS_PMERS_MAX_WORDS, c >= 1 and m < 2^63. The bound on
 * m is what the carries need: the top word t <= m after the first fold, t m
 * < 2^126 fits two words, a carry out of the second fold leaves a value
 * below t m, and a double carry (borrow) in add (sub) leaves r[0] < m
 * (>= 2^64 - m), so adding (subtracting) m once more stays in r[0].
 * Every kernel is constant time: no branch and no memory index on the
 * operands; n, k and c are public. */
#ifndef MNS_PMERS_H
#define MNS_PMERS_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>

#define MNS_PMERS_MAX_WORDS 9

typedef struct mns_pmers_ctx {
    size_t n;      /* words per element */
    unsigned k, h; /* p = 2^k - c, h = 64 n - k */
    uint64_t c, m; /* m = 2^h c: 2^(64 n) mod p */
    uint64_t p[MNS_PMERS_MAX_WORDS];
    const char *kernel;
} mns_pmers_ctx;

/* 1 if p = 2^k - c in the form above; fills k, c and n */
int mns_pmers_form(const mpz_t p, unsigned *k, uint64_t *c, size_t *n);

/* The canonical value in [0, p) of x < 2^(64 n) (constant time) */
void mns_pmers_canon(const mns_pmers_ctx *ctx, uint64_t *r, const uint64_t *x);

#endif
