/* Composite moduli are refused by the PMNS families before any parameter
 * generation, and "auto" serves them with the next measured backend:
 *   - pmns-mp (default and its s=, delta= variants) on an RSA modulus (a
 *     product of two primes: no small factor, so only the probable-prime
 *     test can tell) and on random odd composites of 1024-8192 bits:
 *     MNS_EINVAL, "not prime" in the message, no field;
 *   - "auto" and "auto:op=exp,delta=0" on the same moduli: a field on a
 *     backend other than the PMNS families, every PMNS candidate it tried
 *     refused for compositeness, and computing as GMP does (mt_field_check);
 *   - a prime is still served by pmns-mp (the test does not refuse primes).
 * The times are printed, not asserted (a timing bound is a benchmark). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mns.h"
#include "rsa_keygen.h"
#include "testutil.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* 1 if every PMNS candidate that "auto" tried on a composite (its
 * "refused:" list) gave compositeness as the reason */
static int refusals_say_composite(const char *d)
{
    const char *r = strstr(d, "refused: ");
    for (const char *q = r; q && (q = strstr(q, "pmns")); q++) {
        const char *why = strchr(q, '(');
        if (!why || (strncmp(why, "(p is composite)", 16) != 0 && !strstr(why, "not prime)")))
            return 0;
        q = strchr(why, ')'); /* past the reason, which may name pmns-mp itself */
        if (!q)
            return 0;
    }
    return 1;
}

static void refuse(const char *what, const mpz_t n)
{
    static const char *const pmns[] = {"pmns-mp", "pmns-mp:s=3", "pmns-mp:delta=0"};
    size_t bits = mpz_sizeinbase(n, 2);
    for (size_t i = 0; i < sizeof pmns / sizeof pmns[0]; i++) {
        mns_field *f = (mns_field *)&f; /* must come back NULL */
        double t0 = now_ms();
        mns_status st = mns_field_new(&f, n, pmns[i]);
        double ms = now_ms() - t0;
        MT_CHECK(st == MNS_EINVAL && f == NULL && strstr(mns_last_error(), "not prime"),
                 "%s %zu %s: status %d (%s)", what, bits, pmns[i], (int)st, mns_last_error());
        printf("  %s %zu bits %s: refused in %.1f ms: %s\n", what, bits, pmns[i], ms,
               mns_last_error());
        if (st == MNS_OK)
            mns_field_free(f);
    }
    static const char *const autos[] = {"auto", "auto:op=exp,delta=0"};
    for (size_t i = 0; i < sizeof autos / sizeof autos[0]; i++) {
        mns_field *f = NULL;
        double t0 = now_ms();
        mns_status st = mns_field_new(&f, n, autos[i]);
        double ms = now_ms() - t0;
        const char *d = st == MNS_OK ? mns_field_describe(f) : mns_last_error();
        MT_CHECK(st == MNS_OK && strncmp(d, "pmns", 4) != 0 && refusals_say_composite(d),
                 "%s %zu %s: status %d, a PMNS family served or refused a composite for another "
                 "reason: %s", what, bits, autos[i], (int)st, d);
        printf("  %s %zu bits %s: %.1f ms, %.*s\n", what, bits, autos[i], ms, (int)strcspn(d, " "),
               d);
        mns_field_free(f);
        mt_field_opts o = {.iters = 8, .chain = 8, .powms = 3, .allow_notsup = 0};
        MT_CHECK(mt_field_check(autos[i], n, &o) == 0, "%s %zu %s: wrong results", what, bits,
                 autos[i]);
    }
}

int main(void)
{
    mt_init("test_pmns_mp_composite");
    static const size_t sizes[] = {1024, 2048, 4096, 8192};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        mpz_t n;
        mpz_init(n);
        mt_modulus(n, sizes[i], MT_MOD_RANDOM);
        if (!mpz_probab_prime_p(n, 25))
            refuse("random odd composite", n);
        if (sizes[i] <= 4096) { /* an RSA modulus: two primes of half the size */
            rsa_test_key t;
            rsa_test_key_make(&t, sizes[i], 2, mt_rand);
            refuse("RSA modulus", t.n);
            /* and a prime is still served */
            mns_field *f = NULL;
            if (sizes[i] <= 2048) {
                mns_status st = mns_field_new(&f, t.p[0], "pmns-mp");
                MT_CHECK(st == MNS_OK, "prime %zu: pmns-mp refused it: %s", sizes[i] / 2,
                         mns_last_error());
                mns_field_free(f);
            }
            rsa_test_key_clear(&t);
        }
        mpz_clear(n);
    }
    return mt_finish();
}
