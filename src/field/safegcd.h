/* Modular inversion by Bernstein and Yang's safegcd ("Fast constant-time gcd
 * computation and modular inversion", 2019) on batches of at most 62
 * divsteps, for any odd modulus of up to MNS_SAFEGCD_MAX_BITS bits. The
 * structure follows libsecp256k1's modinv64 (signed 62-bit limbs, a 2x2
 * transition matrix per batch built from the low words only, d and e kept in
 * (-2m, m) by adding multiples of m), generalised from 5 limbs to any count.
 *
 * Divsteps: up to MNS_SAFEGCD_HD_MAX_BITS bits the half-delta ones
 * (delta starts at 1/2; libsecp256k1's hddivsteps). Their count for
 * 0 <= g <= f <= M, M >= 4257874, is at most floor((3787 log2 M + 2166) /
 * 1644): the convex-hull bound of sipa/safegcd-bounds, verified there for
 * every M <= 2^3805. Below 2^256 it is 590 (libsecp256k1's count, checked in
 * Coq in the same repository). Above MNS_SAFEGCD_HD_MAX_BITS the original
 * divsteps (delta starts at 1), whose count Theorem 11.2 of the paper
 * bounds by ceil((49 b + 80) / 17) for f, g below 2^b. The constant-time
 * version runs that many divsteps, in as few batches of at most 62 as hold
 * them, for every input of a given modulus size. At the end f =
 * +-gcd(x, m): the inverse exists exactly when f = +-1, which also detects
 * the values of a composite modulus that have none.
 *
 * Representation: a value is L = mns_safegcd_limbs(b) signed 62-bit limbs,
 * the lower L - 1 in [0, 2^62), the top one signed. f and g stay in [-m, m]
 * and d, e in (-2m, m), below 2^(b + 1) in magnitude, while 62 (L - 1) >=
 * b - 59: the top limb stays below 2^60 in magnitude, far from overflow in
 * the updates' 128-bit sums. L is 5 up to 307 bits (so 256), 7 at 384, 9 at
 * 521; the inversion is compiled once per L from 4 to 9 with its loops
 * unrolled, and once for any L. */
#ifndef MNS_FIELD_SAFEGCD_H
#define MNS_FIELD_SAFEGCD_H

#include <stddef.h>
#include <stdint.h>

#define MNS_SAFEGCD_MAX_BITS 16384
#define MNS_SAFEGCD_HD_MAX_BITS 3805

/* r <- x^-1 mod m, m odd of `bits` bits in n words, x < m (n words); r may
 * alias x. Returns all-ones if gcd(x, m) = 1, else 0 and r = 0. With var = 0
 * the time and memory trace depend on bits and n only; var = 1 stops as soon
 * as g reaches 0 (public inputs). bits <= MNS_SAFEGCD_MAX_BITS. */
uint64_t mns_safegcd_inv(uint64_t *r, const uint64_t *x, const uint64_t *m, size_t n,
                         size_t bits, int var);

/* the limb count L and the divsteps the constant-time version runs, for a
 * modulus of `bits` bits (above) */
size_t mns_safegcd_limbs(size_t bits);
size_t mns_safegcd_divsteps(size_t bits);

#endif
