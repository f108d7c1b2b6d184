/* Modular inversion by Bernstein and Yang's safegcd ("Fast constant-time gcd
 * computation and modular inversion", 2019) on batches of 62 divsteps, for
 * any odd modulus of up to MNS_SAFEGCD_MAX_BITS bits. The structure follows
 * libsecp256k1's modinv64 (signed 62-bit limbs, a 2x2 transition matrix per
 * batch built from the low words only, d and e kept in (-2m, m) by adding
 * multiples of m), generalised from 5 limbs to any count.
 *
 * Divsteps are the original ones (delta starts at 1): Theorem 11.2 of the
 * paper bounds the count for f, g below 2^b by ceil((49 b + 80) / 17), so the
 * constant-time version runs that many, rounded up to whole batches, for
 * every input of a given modulus size. At the end f = +-gcd(x, m): the
 * inverse exists exactly when f = +-1, which also detects the values of a
 * composite modulus that have none.
 *
 * Representation: a value is L = limbs(b) signed 62-bit limbs, the lower
 * L - 1 in [0, 2^62), the top one signed; L leaves the top limb far from
 * overflow for values of magnitude below 2^(b + 2). */
#ifndef MNS_FIELD_SAFEGCD_H
#define MNS_FIELD_SAFEGCD_H

#include <stddef.h>
#include <stdint.h>

#define MNS_SAFEGCD_MAX_BITS 16384

/* r <- x^-1 mod m, m odd of `bits` bits in n words, x < m (n words); r may
 * alias x. Returns all-ones if gcd(x, m) = 1, else 0 and r = 0. With var = 0
 * the time and memory trace depend on bits and n only; var = 1 stops as soon
 * as g reaches 0 (public inputs). bits <= MNS_SAFEGCD_MAX_BITS. */
uint64_t mns_safegcd_inv(uint64_t *r, const uint64_t *x, const uint64_t *m, size_t n,
                         size_t bits, int var);

#endif
