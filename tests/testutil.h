/* Shared test support: seeds, random and structured moduli and operands, and
 * the conformance check of a whole mns_field against GMP that every backend's
 * test runs (FLINT's t-mul.c habit: random and structured inputs, aliasing,
 * every result compared with a reference).
 *
 * Every test program calls mt_init() first: it takes the seed from
 * MNS_TEST_SEED (decimal) or makes one, and prints it with the kernel path
 * (MNS_CPU), so any failure can be re-run exactly. mt_finish() prints the
 * closing "N passed, N failed" line and returns the exit code. */
#ifndef MNS_TESTUTIL_H
#define MNS_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "mns.h"

extern gmp_randstate_t mt_rand;
extern unsigned long mt_seed;

void mt_init(const char *name);
int mt_finish(void);

/* Counts a check; on failure prints file:line, the message and the seed. */
#define MT_CHECK(cond, ...) mt_check_at((cond) != 0, __FILE__, __LINE__, __VA_ARGS__)
void mt_check_at(int ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Number of failed checks so far. */
long mt_failed(void);

uint64_t mt_u64(void);
/* uniform in [0, n) for small n */
unsigned long mt_below(unsigned long n);

/* MNS_TEST_SCALE (default 1): a factor on iteration counts, < 1 for slow
 * builds (the sanitizer run uses 0.25). mt_scaled(n) >= 1 for n >= 1. */
double mt_scale(void);
unsigned mt_scaled(unsigned count);

#define MT_PRIME_MAX_BITS 4096

/* Modulus shapes for structured tests. */
typedef enum {
    MT_MOD_RANDOM,      /* random odd, top bit set */
    MT_MOD_PRIME,       /* random prime, top bit set; above MT_PRIME_MAX_BITS a
                           random odd modulus (nextprime takes minutes there) */
    MT_MOD_2K_MINUS_1,  /* 2^bits - 1 */
    MT_MOD_2K_PLUS_1,   /* 2^(bits-1) + 1 */
    MT_MOD_SPARSE,      /* 2^(bits-1) + a few random bits + 1 */
    MT_MOD_DENSE,       /* all ones but a few random bits, odd */
    MT_MOD_PSEUDO_MERSENNE, /* 2^bits - c, c small odd */
    MT_MOD_KINDS
} mt_mod_kind;
const char *mt_mod_kind_name(mt_mod_kind k);
void mt_modulus(mpz_t p, size_t bits, mt_mod_kind kind);

/* Operand shapes: 0, 1, p-1, random in [0, p), all-ones words, far above p,
 * negative, sparse. */
typedef enum {
    MT_OP_RANDOM,
    MT_OP_ZERO,
    MT_OP_ONE,
    MT_OP_PM1,
    MT_OP_ALL_ONES,
    MT_OP_HUGE,
    MT_OP_NEGATIVE,
    MT_OP_SPARSE,
    MT_OP_KINDS
} mt_op_kind;
void mt_operand(mpz_t a, const mpz_t p, mt_op_kind kind);
/* A random operand kind, weighted towards MT_OP_RANDOM. */
mt_op_kind mt_op_pick(void);

/* Radix-2^52 digits (the mont52 and batch kernels' words): r <- the value of
 * d[0..m), d[0] lowest; d[0..m) <- the low 52 m bits of a (a >= 0). */
void mt_mpz_from_digits52(mpz_t r, const uint64_t *d, size_t m);
void mt_digits52_from_mpz(uint64_t *d, size_t m, const mpz_t a);

/* Conformance check of the backend `spec` on modulus p against GMP:
 * set/get round trip on every operand kind, mul, sqr, add, sub, reduce with
 * aliasing, operands at the delta limit, a chain of `chain` multiplications
 * and squarings, and powm with structured and random exponents.
 * Returns the number of failed checks (0 if the backend answered MNS_ENOTSUP
 * and allow_notsup is set; the skip is printed). */
typedef struct mt_field_opts {
    unsigned iters;      /* random rounds of mul/sqr/add/sub */
    unsigned chain;      /* length of the multiplication chain */
    unsigned powms;      /* exponentiations: the first six structured, then random */
    int allow_notsup;    /* MNS_ENOTSUP is a skip, not a failure */
} mt_field_opts;
long mt_field_check(const char *spec, const mpz_t p, const mt_field_opts *o);
/* 1 if the last mt_field_check of this thread was a skip (MNS_ENOTSUP allowed) */
int mt_field_skipped(void);

#endif
