/* One implementation under test, seen by the driver: mns backends (through
 * the public mns_field API), GMP and OpenSSL references all look alike.
 *
 * The driver hands every implementation the same canonical inputs of a data
 * set (load, not timed), times `call[op]` alone, then asks for the canonical
 * result of the last call (result, not timed) to check it against GMP. */
#ifndef MNS_BENCH_IMPL_H
#define MNS_BENCH_IMPL_H

#include <gmp.h>

#include "timing.h"

typedef enum { MB_MODMUL, MB_MODSQR, MB_MODEXP, MB_NOPS } mb_op;

extern const char *const mb_op_names[MB_NOPS];

typedef enum { MB_KIND_MNS, MB_KIND_GMP, MB_KIND_OPENSSL, MB_KIND_IPP } mb_kind;

#define MB_DESCRIBE_MAX 512

typedef struct mb_impl {
    char name[96];                  /* column name: "mont", "gmp-mont", ... */
    mb_kind kind;
    char describe[MB_DESCRIBE_MAX]; /* kernel / function actually used */
    void *state;
    mb_call_fn call[MB_NOPS];       /* NULL: op not offered */
    /* a, b in [0, p); e > 0 (modexp only). b is ignored by modsqr. */
    void (*load)(void *state, mb_op op, const mpz_t a, const mpz_t b, const mpz_t e);
    /* out <- the canonical value in [0, p) of the last call's result. */
    void (*result)(void *state, mb_op op, mpz_t out);
    void (*destroy)(void *state);
} mb_impl;

void mb_impl_destroy(mb_impl *im);

#endif
