"""cffi build script (out-of-line API mode) for mns._mns.

Links the static libmns.a of the C build tree, so the extension does not
depend on where (or whether) the shared library is installed. The C shim
below moves integers across as big-endian bytes, since mpz_t does not cross
the cffi boundary well."""
import os
import re

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
BUILD = os.path.abspath(os.environ.get("MNS_BUILD_DIR", os.path.join(ROOT, "build")))


def _private_libs():
    """-l flags of Libs.private in the build tree's mns.pc (FLINT when built)."""
    libs = ["gmp", "m", "pthread"]
    try:
        with open(os.path.join(BUILD, "mns.pc")) as f:
            for line in f:
                if line.startswith("Libs.private:"):
                    libs = re.findall(r"-l(\S+)", line) + ["gmp"]
    except OSError:
        pass
    return libs


CDEF = """
typedef enum { MNS_OK = 0, MNS_EINVAL, MNS_ENOMEM, MNS_ENOTSUP, MNS_EPARSE, MNS_ERANGE } mns_status;
typedef struct mns_field mns_field;
const char *mns_strerror(mns_status s);
const char *mns_last_error(void);
const char *mns_version(void);
void mns_field_free(mns_field *f);
const char *mns_field_describe(const mns_field *f);
size_t mns_field_limbs(const mns_field *f);
int mns_field_delta(const mns_field *f);
void mns_field_mul(const mns_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_field_sqr(const mns_field *f, uint64_t *r, const uint64_t *a);
void mns_field_add(const mns_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_field_sub(const mns_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_field_reduce(const mns_field *f, uint64_t *r, const uint64_t *a);

int mnspy_field_new(mns_field **f, const unsigned char *p, size_t len, const char *spec);
int mnspy_set(const mns_field *f, uint64_t *r, const unsigned char *a, size_t len, int negative);
size_t mnspy_get(const mns_field *f, const uint64_t *a, unsigned char *out, size_t cap);
void mnspy_powm(const mns_field *f, uint64_t *r, const uint64_t *a, const unsigned char *e, size_t len);
const char *mnspy_cpu_features(void);
"""

SHIM = r"""
#include <mns.h>
#include <string.h>

static void import_be(mpz_t z, const unsigned char *b, size_t len)
{
    mpz_import(z, len, 1, 1, 0, 0, b);
}

int mnspy_field_new(mns_field **f, const unsigned char *p, size_t len, const char *spec)
{
    mpz_t z;
    mpz_init(z);
    import_be(z, p, len);
    mns_status st = mns_field_new(f, z, spec);
    mpz_clear(z);
    return st;
}

int mnspy_set(const mns_field *f, uint64_t *r, const unsigned char *a, size_t len, int negative)
{
    mpz_t z;
    mpz_init(z);
    import_be(z, a, len);
    if (negative)
        mpz_neg(z, z);
    mns_status st = mns_field_set_mpz(f, r, z);
    mpz_clear(z);
    return st;
}

/* Big-endian bytes of the canonical value; returns the length (<= cap). */
size_t mnspy_get(const mns_field *f, const uint64_t *a, unsigned char *out, size_t cap)
{
    mpz_t z;
    mpz_init(z);
    mns_field_get_mpz(f, z, a);
    size_t count = 0;
    if ((mpz_sizeinbase(z, 256) <= cap))
        mpz_export(out, &count, 1, 1, 0, 0, z);
    mpz_clear(z);
    return count;
}

void mnspy_powm(const mns_field *f, uint64_t *r, const uint64_t *a, const unsigned char *e, size_t len)
{
    mpz_t z;
    mpz_init(z);
    import_be(z, e, len);
    mns_field_powm(f, r, a, z);
    mpz_clear(z);
}

/* internal: src/core/cpu.c */
const char *mns_cpu_features_string(void);
const char *mnspy_cpu_features(void) { return mns_cpu_features_string(); }
"""

ffibuilder = FFI()
ffibuilder.cdef(CDEF)
ffibuilder.set_source(
    "mns._mns",
    SHIM,
    include_dirs=[os.path.join(ROOT, "include")],
    extra_objects=[os.path.join(BUILD, "libmns.a")],
    libraries=_private_libs(),
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
