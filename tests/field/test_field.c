/* The front door: spec parsing and bad input get a status and a message,
 * never a crash. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

static void expect_status(const char *spec, const char *pdec, mns_status want)
{
    mpz_t p;
    mpz_init_set_str(p, pdec, 10);
    mns_field *f = (mns_field *)0x1;
    mns_status st = mns_field_new(&f, p, spec);
    MT_CHECK(st == want, "spec \"%s\" p=%s: got %s (%s), want %s", spec ? spec : "(null)", pdec,
             mns_strerror(st), mns_last_error(), mns_strerror(want));
    if (st != MNS_OK) {
        MT_CHECK(f == NULL, "failed mns_field_new leaves *f NULL");
        MT_CHECK(mns_last_error()[0] != '\0', "failure without a message for \"%s\"", spec);
    }
    mns_field_free(st == MNS_OK ? f : NULL);
    mpz_clear(p);
}

#define MNS_TEST_LONG_SPEC 5000

int main(void)
{
    mt_init("test_field");
    const char *p = "340282366920938463463374607431768211297"; /* 2^128 - 159, prime */
    expect_status("mont", p, MNS_OK);
    expect_status("auto", p, MNS_OK);
    expect_status(NULL, p, MNS_OK);
    expect_status("mont:kernel=generic", p, MNS_OK);
    expect_status("mont:kernel=bogus", p, MNS_EINVAL);
    expect_status("nosuch", p, MNS_EINVAL);
    expect_status("", p, MNS_EINVAL);
    expect_status("mont:", p, MNS_EINVAL);
    expect_status("mont:k", p, MNS_EINVAL);
    expect_status("mont:=3", p, MNS_EINVAL);
    expect_status("mont:k=", p, MNS_EINVAL);
    expect_status("mont:k=1,", p, MNS_EINVAL);
    expect_status("mont:k=1,k=2", p, MNS_EINVAL);
    expect_status("mont:threads=2", p, MNS_EINVAL);
    expect_status("auto:x=1", p, MNS_EINVAL);
    expect_status("a-backend-name-that-is-far-too-long-to-be-real", p, MNS_EINVAL);
    {
        /* a long option value (params=/a/long/absolute/path.txt) is taken
         * whole; a spec beyond the options buffer is refused */
        static char spec[MNS_TEST_LONG_SPEC + 64];
        int len = snprintf(spec, sizeof spec, "mont:kernel=");
        memset(spec + len, '0', 300);
        strcpy(spec + len + 300, "1"); /* value "000...01": long, well formed, unknown kernel */
        expect_status(spec, p, MNS_EINVAL);
        len = snprintf(spec, sizeof spec, "mpart:threads=");
        memset(spec + len, '0', 300);
        strcpy(spec + len + 300, "1"); /* threads=1 written with 300 leading zeros */
        expect_status(spec, p, MNS_OK);
        memset(spec + len, '0', MNS_TEST_LONG_SPEC);
        strcpy(spec + len + MNS_TEST_LONG_SPEC, "1");
        expect_status(spec, p, MNS_EINVAL);
    }
    expect_status("mont", "4", MNS_EINVAL);
    expect_status("mont", "2", MNS_EINVAL);
    expect_status("mont", "1", MNS_EINVAL);
    expect_status("mont", "0", MNS_EINVAL);
    expect_status("mont", "-7", MNS_EINVAL);
    expect_status("mont", "3", MNS_OK);
    expect_status("auto", "3", MNS_OK);

    mpz_t q;
    mpz_init_set_str(q, p, 10);
    MT_CHECK(mns_field_new(NULL, q, "mont") == MNS_EINVAL, "NULL output pointer");
    mns_field *f = NULL;
    MT_CHECK(mns_field_new(&f, NULL, "mont") == MNS_EINVAL, "NULL modulus");
    MT_CHECK(mns_field_new(&f, q, "mont") == MNS_OK, "mont on 2^128-159");
    MT_CHECK(strstr(mns_field_describe(f), "mont") != NULL, "describe names the backend: %s",
             mns_field_describe(f));
    MT_CHECK(strstr(mns_field_describe(f), "kernel=") != NULL, "describe names the kernel: %s",
             mns_field_describe(f));
    MT_CHECK(mns_field_limbs(f) == 2, "128-bit p takes 2 words");
    MT_CHECK(mns_field_set_mpz(f, NULL, q) == MNS_EINVAL, "set_mpz NULL output");
    mns_field_free(f);
    mns_field_free(NULL);
    for (int s = MNS_OK; s <= MNS_ERANGE; s++)
        MT_CHECK(mns_strerror((mns_status)s)[0] != '\0', "strerror(%d)", s);
    MT_CHECK(strcmp(mns_version(), MNS_VERSION_STRING) == 0, "version");
    mpz_clear(q);
    return mt_finish();
}
