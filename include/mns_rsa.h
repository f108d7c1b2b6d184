/* mns_rsa — RSA private operation by the CRT with 2..8 primes, one channel
 * per prime, the channels spread over up to `threads` threads.
 *
 * Each channel i holds its own mns_field for p_i (backend picked by `spec`,
 * "auto" by default, so a key speeds up when faster backends land) and
 * computes s_i = in^(d_i) mod p_i with mns_field_powm; the s_i are joined by
 * Garner's mixed-radix CRT (the two-prime Garner formula is its k = 2 case).
 *
 * Invariants of a key (checked by mns_rsa_new, which refuses anything else
 * with MNS_EINVAL and a message in mns_last_error()):
 *   - 2 <= k <= 8 distinct odd primes (BPSW-probable primes) whose product is n;
 *   - e >= 3, 0 < d < n, e d = 1 mod lcm(p_i - 1).
 * A key may be used from several threads at once. What changes inside it:
 * its thread pool (k - 1 workers, created with the key), which is locked (a
 * call that finds it busy runs on threads of its own); for an "auto" key,
 * the channels that serve calls, switched once, atomically, from the
 * starting ones to the tuned ones (each call runs wholly on one set, and
 * the result is the same on both); and the pairs of the tuned channels,
 * decided again while the key is used.
 *
 * Constant time (see docs/rsa.md for exactly what is covered): the
 * reduction of `in` mod p_i, its entry into the field, the exponentiation
 * (exponent padded to a length fixed by the size of p_i), the exit from the
 * field (multiplied by a secret random mask drawn at key creation, because
 * mns_field_get_mpz is not constant time) and the CRT reconstruction do not
 * branch on or index memory by secret data. Key creation is not constant
 * time (one trace per key). The final check out^e == in (mod n) and the conversions of
 * the public input and output are variable time: they touch public data only.
 *
 * Fault countermeasure: every result is checked with e before it is
 * returned; on mismatch the call returns MNS_ERANGE ("fault check failed"),
 * and writes no output.
 */
#ifndef MNS_RSA_H
#define MNS_RSA_H

#include <stddef.h>
#include <gmp.h>
#include "mns.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MNS_RSA_MAX_PRIMES 8

typedef struct mns_rsa mns_rsa;

/* Creates a key from n, e, d and the k primes of n (any order; channel i is
 * primes[i]). spec is the mns_field spec of every channel (NULL = "auto").
 *   - "auto" (or NULL): the key is usable at once. Its channels start on a
 *     backend that needs no parameter generation (mont-ifma on a CPU with
 *     AVX-512 IFMA, else mont), and one background thread makes the tuned
 *     channels (parameter generation, then the timing of the candidates on
 *     this key's primes); calls switch to them, atomically, once they are
 *     complete. Results never depend on which channels served a call.
 *     mns_rsa_wait() waits for the tuning, mns_rsa_tuned() tells whether it
 *     is in use; mns_rsa_free() stops and joins it.
 *   - an explicit spec: the fields' parameters are generated here, the
 *     channels side by side on up to min(k, CPUs of the process)
 *     short-lived threads, joined before this returns.
 * Creation costs are in mns_rsa_describe(). Errors: MNS_EINVAL (bad key or argument, with a
 * message), MNS_ENOMEM, and whatever mns_field_new returns for a channel
 * (MNS_EINVAL for an unknown spec, MNS_ENOTSUP if the backend cannot serve a
 * prime); MNS_ENOTSUP also if the system random source (getrandom, for the
 * exit masks) fails. *key is NULL on failure. */
MNS_API mns_status mns_rsa_new(mns_rsa **key, const mpz_t n, const mpz_t e, const mpz_t d,
                               const mpz_t *primes, int k, const char *spec);
/* Stops the background tuning of an "auto" key (if it still runs), joins
 * it, and frees the key. No call on the key may be running. */
MNS_API void mns_rsa_free(mns_rsa *key);
/* Blocks until the background tuning of key has ended (at once for an
 * explicit spec, or once it has). Safe from several threads. */
MNS_API void mns_rsa_wait(const mns_rsa *key);
/* 1 if calls on key now run on its tuned channels, else 0 (explicit spec,
 * tuning not finished, or nothing to tune: primes of 128 bits or fewer). */
MNS_API int mns_rsa_tuned(const mns_rsa *key);

/* Restrictions of a key's use, for mns_rsa_restrict. */
#define MNS_RSA_PSS_ONLY 1u /* RSASSA-PSS key (PKCS#8 id-RSASSA-PSS): no PKCS#1 v1.5 */
/* Adds the restrictions in flags (a bitwise or of MNS_RSA_* above) to key;
 * they cannot be removed. Call it before the key is shared between threads
 * (a key loader does it right after mns_rsa_new). With MNS_RSA_PSS_ONLY,
 * mns_rsa_sign_pkcs1v15 returns MNS_EINVAL with a message; mns_rsa_private
 * (on which a PSS signer builds) still works. MNS_EINVAL for unknown flags. */
MNS_API mns_status mns_rsa_restrict(mns_rsa *key, unsigned flags);

/* out <- in^d mod n, for 0 <= in < n (else MNS_EINVAL). threads >= 1 (more
 * than k is the same as k); the result does not depend on it. out may alias
 * in. MNS_ERANGE if the fault check failed (out untouched), MNS_ENOMEM. */
MNS_API mns_status mns_rsa_private(const mns_rsa *key, mpz_t out, const mpz_t in, int threads);

/* RSASSA-PKCS1-v1_5 signature (RFC 8017 8.2.1, EMSA-PKCS1-v1_5 of 9.2) of
 * an already computed digest. hash (case-insensitive): "sha1", "sha224",
 * "sha256", "sha384", "sha512", "sha512-224", "sha512-256", "sha3-224",
 * "sha3-256", "sha3-384", "sha3-512" ("_" or "/" may stand for the "-",
 * OpenSSL's "sha2-256" style and "sha-256" are accepted too); digest_len
 * must be that hash's length; sig receives mns_rsa_bytes(key) bytes,
 * big-endian. MNS_EINVAL for an unknown hash, a wrong digest length, a
 * modulus too short for the encoding (fewer than digest info + 11 bytes),
 * or a key restricted to PSS (mns_rsa_restrict); sig is untouched on every
 * error. */
MNS_API mns_status mns_rsa_sign_pkcs1v15(const mns_rsa *key, unsigned char *sig, const char *hash,
                                         const unsigned char *digest, size_t digest_len,
                                         int threads);

/* Extras. */
/* Byte length of n (the length of a signature). */
MNS_API size_t mns_rsa_bytes(const mns_rsa *key);
/* Number of primes (channels). */
MNS_API int mns_rsa_primes(const mns_rsa *key);
/* One line per channel: its field's describe() and the time its creation
 * (parameter generation included) took, then the key's total creation time,
 * e.g. "rsa bits=2048 k=2 create_ms=12.5 plan=start ...\n ch0 bits=1024 create_ms=6.1 mont kernel=...".
 * plan= says which channels serve calls now: start (an "auto" key before
 * its tuning is in use), tuned, or explicit. The string stays valid until
 * mns_rsa_free. */
MNS_API const char *mns_rsa_describe(const mns_rsa *key);

#ifdef __cplusplus
}
#endif

#endif /* MNS_RSA_H */
