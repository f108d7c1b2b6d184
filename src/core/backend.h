/* The contract between the front door (src/field/field.c) and a number system.
 *
 * A backend is a name and a create function. create() builds an immutable
 * context for one modulus and fills an mns_backend_inst: the context, its
 * operations, the element size in words, delta and a description. The front
 * door owns the instance and calls ops->destroy(ctx) when the field is freed.
 *
 * Rules every backend follows (see include/mns.h for the element contract):
 *   - ctx is immutable after create and may be used from several threads at
 *     once; scratch is per call (stack or mns_tmp_*), never in ctx.
 *   - mul, sqr, add, sub, reduce, one: constant time, r may alias a or b.
 *   - set_mpz / get_mpz may be variable time.
 *   - set_words and get_words may be NULL; when present they are constant
 *     time (see below).
 *   - powm may be NULL: the front door then runs the shared constant-time
 *     fixed-window exponentiation of src/exp/ over mul, sqr and one.
 *   - create never aborts: it returns a status and, on failure, explains
 *     with mns_error().
 */
#ifndef MNS_CORE_BACKEND_H
#define MNS_CORE_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "mns.h"
#include "core/opts.h"

typedef struct mns_field_ops {
    void (*mul)(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*sqr)(const void *ctx, uint64_t *r, const uint64_t *a);
    /* Optional (NULL: k calls of sqr). k >= 1 squarings in one call, each
     * with sqr's contract (r may alias a); the time depends on k (public)
     * and the field's size only. The shared exponentiation squares w times
     * per window through it: a kernel that keeps a in registers between
     * squarings saves the chain a store, a reload and a call per squaring. */
    void (*sqr_k)(const void *ctx, uint64_t *r, const uint64_t *a, unsigned k);
    void (*add)(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*sub)(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*reduce)(const void *ctx, uint64_t *r, const uint64_t *a);
    /* r <- the tight representation of 1. */
    void (*one)(const void *ctx, uint64_t *r);
    mns_status (*set_mpz)(const void *ctx, uint64_t *r, const mpz_t a);
    void (*get_mpz)(const void *ctx, mpz_t r, const uint64_t *a);
    /* Optional (NULL: shared exponentiation). e >= 0 is guaranteed. */
    void (*powm)(const void *ctx, uint64_t *r, const uint64_t *a, const mpz_t e);
    /* Optional (NULL: callers enter secret values by mul/add/reduce, as
     * src/rsa/channel.c does). r <- the tight element of the integer a, given
     * as mpz_size(p) 64-bit words, least significant first, value < p.
     * Constant time in a and in p: no branch, no memory index on either (the
     * secret-input entry of RSA-CRT, where p is a secret prime). */
    void (*set_words)(const void *ctx, uint64_t *r, const uint64_t *a);
    /* Optional (NULL: callers leave through get_mpz, as src/rsa/channel.c
     * does behind a mask). The way back of set_words: r <- the canonical
     * value in [0, p) of the tight element a, as mpz_size(p) 64-bit words.
     * Constant time in a and in p, and allocates nothing (the secret-result
     * exit of RSA-CRT, on a signing path without allocation). r may alias a. */
    void (*get_words)(const void *ctx, uint64_t *r, const uint64_t *a);
    /* Optional (NULL: the caller makes two calls). Two independent products
     * in one instruction stream, r0 <- a0 b0 in ctx0's field and r1 <- a1 b1
     * in ctx1's (OpenSSL's _x2 idea: RSA-CRT channels sharing one thread keep
     * the multipliers busy while one product waits on its own latency).
     * ctx0 and ctx1 were created by this backend (they may be the same
     * context); if they differ in element size or shape the function makes
     * two ordinary calls. Each product keeps mul's / sqr's contract, r_i may
     * alias a_i or b_i, and the time depends on the two contexts' public
     * sizes only. */
    void (*mul_x2)(const void *ctx0, const void *ctx1, uint64_t *r0, const uint64_t *a0,
                   const uint64_t *b0, uint64_t *r1, const uint64_t *a1, const uint64_t *b1);
    void (*sqr_x2)(const void *ctx0, const void *ctx1, uint64_t *r0, const uint64_t *a0,
                   uint64_t *r1, const uint64_t *a1);
    void (*destroy)(void *ctx);
} mns_field_ops;

#define MNS_DESCRIBE_MAX 256

typedef struct mns_backend_inst {
    void *ctx;
    const mns_field_ops *ops;
    size_t limbs;                     /* uint64_t words per element */
    int delta;                        /* free additions before a mul */
    char describe[MNS_DESCRIBE_MAX];  /* "name kernel=... key=value ..." */
} mns_backend_inst;

typedef struct mns_backend {
    const char *name;
    /* p is odd and >= 3 (checked by the front door). opts holds the options
     * of the spec; the backend rejects (MNS_EINVAL) any key it does not take,
     * with mns_opts_check(). */
    mns_status (*create)(mns_backend_inst *out, const mpz_t p, const mns_opts *opts);
} mns_backend;

#endif
