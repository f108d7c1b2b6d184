/* Allocation failure, on every backend at 256-2048 bits.
 *
 * The program interposes malloc, calloc, realloc, aligned_alloc and
 * posix_memalign (glibc's __libc_* underneath) and can make the library's
 * allocations fail: only calls made from this executable's own code (the
 * statically linked library) are refused, not GMP's or FLINT's (shared
 * libraries, which abort on a refusal by design) nor libc's.
 *
 * 1. Creation: the allocations of one mns_field_new are counted, then each
 *    of them is made to fail in turn (every one where there are at most
 *    MAX_TRIALS, else an evenly spaced MAX_TRIALS of them from a seeded
 *    offset): the call must report MNS_ENOMEM, or succeed, and whatever
 *    field it returns must then compute right.
 * 2. Operations: with every allocation refused, mul, sqr, add, sub, reduce
 *    and powm must make no allocation at all and give GMP's values.
 *
 * A backend this CPU or this p cannot serve (MNS_ENOTSUP without any
 * failure) is skipped with a message. The PMNS backends get step 2 only:
 * their parameter generator does not yet survive a refused allocation. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mns.h"
#include "testutil.h"

/* ---- the allocation hook ---------------------------------------------------- */

#if defined(__SANITIZE_ADDRESS__)
#define MT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MT_ASAN 1
#endif
#endif

static _Thread_local int hook_armed; /* 1: count; 2: also refuse */
static _Thread_local long hook_count, hook_fail_at; /* fail_at < 0: refuse all */
static _Thread_local long hook_refused;

#ifndef MT_ASAN /* AddressSanitizer owns malloc: no refusal there (main says so) */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern char __executable_start, etext;

/* 1 if this allocation, made from `caller`, is refused */
static int refuse(const void *caller)
{
    const char *c = caller;
    if (!hook_armed || c < &__executable_start || c >= &etext)
        return 0;
    long k = hook_count++;
    if (hook_armed == 2 && (hook_fail_at < 0 || k == hook_fail_at)) {
        hook_refused++;
        return 1;
    }
    return 0;
}

void *malloc(size_t n)
{
    if (refuse(__builtin_return_address(0)))
        return NULL;
    return __libc_malloc(n);
}

void *calloc(size_t k, size_t n)
{
    if (refuse(__builtin_return_address(0)))
        return NULL;
    return __libc_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
    if (refuse(__builtin_return_address(0)))
        return NULL;
    return __libc_realloc(p, n);
}

void *aligned_alloc(size_t a, size_t n)
{
    if (refuse(__builtin_return_address(0)))
        return NULL;
    return __libc_memalign(a, n);
}

int posix_memalign(void **out, size_t a, size_t n)
{
    if (refuse(__builtin_return_address(0)))
        return ENOMEM;
    void *p = __libc_memalign(a, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

#endif

static void hook_count_only(void)
{
    hook_count = 0;
    hook_refused = 0;
    hook_armed = 1;
}

static void hook_fail(long at)
{
    hook_count = 0;
    hook_refused = 0;
    hook_fail_at = at;
    hook_armed = 2;
}

static void hook_off(void) { hook_armed = 0; }

/* ---- the checks ---------------------------------------------------------------- */

#define MAX_TRIALS 160

static const char *const specs[] = {
    "mont",  "mont-ifma", "mpart", "bipartite", "mpart-mont", "mpart-barrett", "rns", "rns-ifma",
    "sor",   "sor-ifma",  "pmns",  "pmns-ifma", "pmns-mp",    "pmns-mp-ifma",
};
static const size_t sizes[] = {256, 1024, 2048};

/* The operations of a created field with every allocation refused: each
 * result against GMP. Returns the failed checks. */
static long check_ops(const mns_field *f, const mpz_t p, const char *what)
{
    const long before = mt_failed();
    const size_t L = mns_field_limbs(f);
    uint64_t *A = calloc(L, 8), *B = calloc(L, 8), *R[6];
    for (int i = 0; i < 6; i++)
        R[i] = calloc(L, 8);
    mpz_t a, b, e, want, got;
    mpz_inits(a, b, e, want, got, NULL);
    mpz_urandomm(a, mt_rand, p);
    mpz_urandomm(b, mt_rand, p);
    mpz_urandomb(e, mt_rand, mpz_sizeinbase(p, 2));
    mpz_setbit(e, mpz_sizeinbase(p, 2) - 1);
    MT_CHECK(mns_field_set_mpz(f, A, a) == MNS_OK && mns_field_set_mpz(f, B, b) == MNS_OK,
             "%s: set_mpz", what);

    hook_fail(-1);
    mns_field_mul(f, R[0], A, B);
    mns_field_sqr(f, R[1], A);
    mns_field_add(f, R[2], A, B);
    mns_field_reduce(f, R[2], R[2]);
    mns_field_sub(f, R[3], A, B);
    mns_field_reduce(f, R[3], R[3]);
    mns_field_powm(f, R[4], A, e);
    mns_field_mul(f, R[5], R[0], R[1]); /* tight outputs are valid inputs */
    const long attempts = hook_count;
    hook_off();
    MT_CHECK(attempts == 0, "%s: %ld allocation(s) attempted by element operations", what,
             attempts);

    for (int i = 0; i < 6; i++) {
        switch (i) {
        case 0: mpz_mul(want, a, b); break;
        case 1: mpz_mul(want, a, a); break;
        case 2: mpz_add(want, a, b); break;
        case 3: mpz_sub(want, a, b); break;
        case 4: mpz_powm(want, a, e, p); break;
        default: mpz_mul(want, a, b); mpz_mul(want, want, a); mpz_mul(want, want, a); break;
        }
        mpz_mod(want, want, p);
        mns_field_get_mpz(f, got, R[i]);
        static const char *const name[6] = {"mul", "sqr", "add", "sub", "powm", "mul of products"};
        MT_CHECK(mpz_cmp(got, want) == 0, "%s: %s differs from GMP", what, name[i]);
    }
    mpz_clears(a, b, e, want, got, NULL);
    free(A);
    free(B);
    for (int i = 0; i < 6; i++)
        free(R[i]);
    return mt_failed() - before;
}

static void check_backend(const char *spec, size_t bits)
{
    mpz_t p;
    mpz_init(p);
    mt_modulus(p, bits, strncmp(spec, "sor", 3) == 0 ? MT_MOD_PSEUDO_MERSENNE : MT_MOD_PRIME);
    char what[96];
    snprintf(what, sizeof what, "%s at %zu bits", spec, bits);

    mns_field *f = NULL;
    hook_count_only();
    mns_status st = mns_field_new(&f, p, spec);
    const long total = hook_count;
    hook_off();
    if (st == MNS_ENOTSUP) {
        printf("  skip %s: %s\n", what, mns_last_error());
        mpz_clear(p);
        return;
    }
    MT_CHECK(st == MNS_OK, "%s: creation without failure: %s (%s)", what, mns_strerror(st),
             mns_last_error());
    if (st != MNS_OK) {
        mpz_clear(p);
        return;
    }
    check_ops(f, p, what);
    mns_field_free(f);

    /* every allocation of the creation refused in turn; not yet for the
     * PMNS family, whose parameter generator (src/gen/gen.c) does not check
     * its allocations (refusing one there crashes) */
    if (strncmp(spec, "pmns", 4) == 0) {
        printf("  %s: %ld allocations at creation; refusing them is not checked (the generator "
               "does not handle a refusal yet)\n",
               what, total);
        mpz_clear(p);
        return;
    }
    const long trials = total < MAX_TRIALS ? total : MAX_TRIALS;
    const long offset = total > MAX_TRIALS ? (long)mt_below((unsigned long)(total / MAX_TRIALS)) : 0;
    long nomem = 0, served = 0;
    for (long t = 0; t < trials; t++) {
        const long at = total > MAX_TRIALS ? offset + t * total / MAX_TRIALS : t;
        f = NULL;
        hook_fail(at);
        st = mns_field_new(&f, p, spec);
        const long refused = hook_refused;
        hook_off();
        if (st == MNS_OK) {
            char w[160];
            snprintf(w, sizeof w, "%s, allocation %ld of %ld refused, created anyway", what, at,
                     total);
            check_ops(f, p, w);
            mns_field_free(f);
            served++;
            continue;
        }
        MT_CHECK(st == MNS_ENOMEM && f == NULL,
                 "%s: allocation %ld of %ld refused (%ld refusals): %s (%s), want out of memory",
                 what, at, total, refused, mns_strerror(st), mns_last_error());
        nomem++;
    }
    printf("  %s: %ld allocations at creation, %ld refused in turn: %ld MNS_ENOMEM, %ld created "
           "anyway (checked)\n",
           what, total, trials, nomem, served);
    mpz_clear(p);
}

int main(void)
{
    mt_init("test_alloc_fail");
#ifdef MT_ASAN
    printf("skipped: under AddressSanitizer, which owns malloc, no allocation can be refused\n");
    return mt_finish();
#endif
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
            check_backend(specs[i], sizes[s]);
    return mt_finish();
}
