/* mns — modular arithmetic on large primes with alternative number systems.
 *
 * The front door: one modulus p, one representation ("backend"), elements
 * stored as arrays of mns_field_limbs(f) uint64_t words in that backend's own
 * representation (Montgomery form, PMNS polynomial, RNS residues, ...).
 *
 * Element contract (fiat-crypto's tight / loose):
 *   - set_mpz, mul, sqr, reduce and powm return *tight* elements;
 *   - add and sub of tight elements return *loose* ones;
 *   - mul and sqr accept any operand that is a sum or difference of at most
 *     mns_field_delta(f) + 1 tight elements; reduce makes such an operand tight;
 *   - the output may alias any input.
 * Constant time: mul, sqr, add, sub, reduce; powm is constant time in the base
 * and in the exponent for a given bit length of the exponent. set_mpz and
 * get_mpz are NOT constant time (they go through GMP's mpz layer).
 *
 * Every call that can fail returns a status; mns_last_error() then holds a
 * human-readable reason for the calling thread.
 */
#ifndef MNS_H
#define MNS_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; what is public says so. */
#if defined(__GNUC__)
#define MNS_API __attribute__((visibility("default")))
#else
#define MNS_API
#endif

#define MNS_VERSION_MAJOR 0
#define MNS_VERSION_MINOR 1
#define MNS_VERSION_PATCH 0
#define MNS_VERSION_STRING "0.1.0"

typedef enum {
    MNS_OK = 0,
    MNS_EINVAL,  /* bad argument: NULL, even or too small modulus, unknown spec */
    MNS_ENOMEM,  /* allocation failed */
    MNS_ENOTSUP, /* the backend cannot serve this modulus or this CPU */
    MNS_EPARSE,  /* malformed parameter file */
    MNS_ERANGE   /* a value outside what the operation accepts */
} mns_status;

/* Fixed text for a status code. */
MNS_API const char *mns_strerror(mns_status s);
/* The reason for the last failure in the calling thread ("" if none). */
MNS_API const char *mns_last_error(void);
/* Library version string, e.g. "0.1.0". */
MNS_API const char *mns_version(void);

typedef struct mns_field mns_field;

/* spec: "auto", or a backend name with options, e.g. "mont", "pmns",
 * "pmns-ifma", "pmns-mp:s=3", "rns", "sor", "mpart:k=4,threads=2".
 * Unknown names or options -> MNS_EINVAL; a backend that cannot serve this p
 * (or this CPU) -> MNS_ENOTSUP. p must be odd and >= 3. Never aborts.
 * A NULL spec means "auto". */
MNS_API mns_status  mns_field_new(mns_field **f, const mpz_t p, const char *spec);
MNS_API void        mns_field_free(mns_field *f);
/* Backend, kernel and parameters actually used, e.g.
 * "mont kernel=mulx limbs=32 bits=2048". */
MNS_API const char *mns_field_describe(const mns_field *f);
/* uint64_t words per element. */
MNS_API size_t      mns_field_limbs(const mns_field *f);
/* r <- a mod p (any sign, any size), tight. Not constant time. */
MNS_API mns_status  mns_field_set_mpz(const mns_field *f, uint64_t *r, const mpz_t a);
/* r <- the canonical value in [0, p). Not constant time. */
MNS_API void        mns_field_get_mpz(const mns_field *f, mpz_t r, const uint64_t *a);
MNS_API void        mns_field_mul(const mns_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b);
MNS_API void        mns_field_sqr(const mns_field *f, uint64_t *r, const uint64_t *a);
MNS_API void        mns_field_add(const mns_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b);
MNS_API void        mns_field_sub(const mns_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b);
MNS_API void        mns_field_reduce(const mns_field *f, uint64_t *r, const uint64_t *a);
/* Number of free additions before a mul (INT_MAX: add/sub reduce fully). */
MNS_API int         mns_field_delta(const mns_field *f);
/* r <- a^e, tight. e must be >= 0 (e = 0 gives 1, also for a = 0); for a
 * negative e, r is set to 0 and mns_last_error() says why. Constant time in a
 * and e for a given bit length of e (the bit length itself is public). */
MNS_API void        mns_field_powm(const mns_field *f, uint64_t *r, const uint64_t *a, const mpz_t e);

/* ---- the constant-time element API ------------------------------------------
 * Every call below is constant time in the element values (and in the bytes
 * or words given) except the _var ones, and none allocates: each works in a
 * stack block whose use is fixed when the field is created. A field whose
 * elements are too large for that block answers MNS_ENOTSUP (docs/field-api.md
 * gives the bound). Inputs may be tight or loose (what mul accepts) unless
 * said otherwise; outputs are tight; outputs may alias inputs. */
typedef enum { MNS_BIG_ENDIAN, MNS_LITTLE_ENDIAN } mns_order;

/* r <- the integer in buf[0..len) (any len, leading zeros allowed) mod p. */
MNS_API mns_status mns_field_set_bytes(const mns_field *f, uint64_t *r, const unsigned char *buf,
                                       size_t len, mns_order order);
/* buf <- the canonical value of a in [0, p), zero-padded to len bytes;
 * MNS_ERANGE if len is below the byte length of p. */
MNS_API mns_status mns_field_get_bytes(const mns_field *f, unsigned char *buf, size_t len,
                                       const uint64_t *a, mns_order order);
/* r <- the integer of the n = mpz_size(p) words a (least significant first);
 * MNS_EINVAL for another n, MNS_ERANGE (r untouched) if the value is not
 * below p. Constant time in a (and in p: RSA enters secret primes here). */
MNS_API mns_status mns_field_set_words(const mns_field *f, uint64_t *r, const uint64_t *a, size_t n);
/* r <- the canonical value of the TIGHT element a as n = mpz_size(p) words;
 * MNS_EINVAL for another n. Constant time in a and p; r may alias a. */
MNS_API mns_status mns_field_get_words(const mns_field *f, uint64_t *r, const uint64_t *a, size_t n);
/* r <- v mod p. */
MNS_API void mns_field_set_ui(const mns_field *f, uint64_t *r, uint64_t v);

/* r <- -a (one product by p - 1: a may be anything mul accepts). */
MNS_API void mns_field_neg(const mns_field *f, uint64_t *r, const uint64_t *a);
/* All-ones if a = 0 (resp. a = b) as values mod p, 0 otherwise. */
MNS_API uint64_t mns_field_is_zero(const mns_field *f, const uint64_t *a);
MNS_API uint64_t mns_field_equal(const mns_field *f, const uint64_t *a, const uint64_t *b);
/* r <- a where mask is all-ones, r unchanged where it is 0 (any nonzero mask
 * counts as all-ones); cswap exchanges a and b the same way. Word copies of
 * the representation: a and b keep their tight or loose state. */
MNS_API void mns_field_cmov(const mns_field *f, uint64_t *r, const uint64_t *a, uint64_t mask);
MNS_API void mns_field_cswap(const mns_field *f, uint64_t *a, uint64_t *b, uint64_t mask);

/* r <- a^-1 (safegcd, any odd modulus, prime or not). MNS_ERANGE and r = 0
 * when a has no inverse (a = 0, or a common factor with a composite p); the
 * time does not depend on which. _var: variable time, for public values. */
MNS_API mns_status mns_field_inv(const mns_field *f, uint64_t *r, const uint64_t *a);
MNS_API mns_status mns_field_inv_var(const mns_field *f, uint64_t *r, const uint64_t *a);
/* r <- a square root of a (p prime: p = 3 mod 4, 5 mod 8 and 1 mod 8 all
 * constant time); MNS_ERANGE and r = 0 when a is not a square. An MNS_OK
 * root is checked (r^2 = a), also on a composite modulus. */
MNS_API mns_status mns_field_sqrt(const mns_field *f, uint64_t *r, const uint64_t *a);
/* The Legendre symbol (a / p) for a prime p: 0, 1 or -1 (Euler's criterion). */
MNS_API int mns_field_legendre(const mns_field *f, const uint64_t *a);
/* r <- a^e, e >= 0, sliding window: variable time in e (public exponents:
 * signature verification, Fermat tests), constant time in a. A negative e
 * gives r = 0 and mns_last_error() says why. */
MNS_API void mns_field_powm_var(const mns_field *f, uint64_t *r, const uint64_t *a, const mpz_t e);

#ifdef __cplusplus
}
#endif

#endif /* MNS_H */
