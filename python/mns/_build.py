"""cffi build script (out-of-line API mode) for mns._mns.

Links the static libmns.a of the C build tree (MNS_BUILD_DIR, which setup.py
configures and builds unless the caller names one), so the extension does not
depend on where (or whether) the shared library is installed. The headers
come from the C tree MNS_SOURCE_DIR (setup.py: the repository, or an sdist's
csrc/). The C shim
below moves integers across as big-endian bytes, since mpz_t does not cross
the cffi boundary well."""
import os
import re

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.environ.get("MNS_SOURCE_DIR", os.path.join(HERE, "..", "..")))
BUILD = os.path.abspath(os.environ.get("MNS_BUILD_DIR", os.path.join(ROOT, "build")))


def _private_libs(build=BUILD):
    """-l flags of Libs.private in the build tree's mns.pc (FLINT when built)."""
    libs = ["gmp", "m", "pthread"]
    try:
        with open(os.path.join(build, "mns.pc")) as f:
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
void mns_field_mul_n(const mns_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b, size_t count);

int mnspy_field_new(mns_field **f, const unsigned char *p, size_t len, const char *spec);
int mnspy_set(const mns_field *f, uint64_t *r, const unsigned char *a, size_t len, int negative);
size_t mnspy_get(const mns_field *f, const uint64_t *a, unsigned char *out, size_t cap);
void mnspy_powm(const mns_field *f, uint64_t *r, const uint64_t *a, const unsigned char *e, size_t len);
const char *mnspy_cpu_features(void);
const char *mnspy_build_dir(void);
int mnspy_probab_prime(const unsigned char *a, size_t len, int reps);
void mnspy_free(void *ptr);

/* integers out of the library: |z| big-endian, right-aligned in cap bytes;
   returns the sign (-1, 0, 1), or 2 if cap is too small */
size_t mnspy_mpz_bytes(const void *z);
int mnspy_mpz_export(const void *z, unsigned char *out, size_t cap);

/* mns_pmns.h */
typedef struct mns_pmns_params mns_pmns_params;
extern "Python" int mnspy_progress(void *arg, const char *stage, int n, double fraction);
int mnspy_pmns_generate(mns_pmns_params **out, const unsigned char *p, size_t len,
                        const int *iopt, long lambda_max, unsigned flags, void *progress_arg);
void mns_pmns_params_free(mns_pmns_params *P);
int mns_pmns_verify_var(const mns_pmns_params *P);
char *mns_pmns_params_to_string_var(const mns_pmns_params *P, const char *regenerate);
int mns_pmns_params_from_string_var(mns_pmns_params **out, const char *text, size_t len);
int mns_pmns_params_save_var(const mns_pmns_params *P, const char *path, const char *regenerate);
int mns_pmns_params_load_var(mns_pmns_params **out, const char *path);
int mns_pmns_params_word(const mns_pmns_params *P);
int mns_pmns_params_n(const mns_pmns_params *P);
int mns_pmns_params_s(const mns_pmns_params *P);
int mns_pmns_params_delta(const mns_pmns_params *P);
int mns_pmns_params_eshape(const mns_pmns_params *P);
long mns_pmns_params_lambda(const mns_pmns_params *P);
unsigned mns_pmns_params_rho_bits(const mns_pmns_params *P);
unsigned mns_pmns_params_phi_log2(const mns_pmns_params *P);
unsigned mns_pmns_params_chunk_bits(const mns_pmns_params *P);
unsigned mns_pmns_params_sigma_log2(const mns_pmns_params *P);
int mns_pmns_params_toeplitz_adds(const mns_pmns_params *P);
int mns_pmns_params_lambda_carried(const mns_pmns_params *P);
uint64_t mns_pmns_params_w(const mns_pmns_params *P);
const char *mns_pmns_params_describe(const mns_pmns_params *P);
double mns_pmns_params_gen_seconds(const mns_pmns_params *P);
int mns_pmns_nopt(size_t p_bits, unsigned sigma_log2);
const void *mnspy_pmns_mpz(const mns_pmns_params *P, int which, int i);

/* mns_rsa.h */
typedef struct mns_rsa mns_rsa;
int mnspy_rsa_new(mns_rsa **key, const unsigned char *nums, const size_t *lens, int k, const char *spec);
void mns_rsa_free(mns_rsa *key);
int mnspy_rsa_private(const mns_rsa *key, unsigned char *out, const unsigned char *in, size_t len,
                      int threads);
int mns_rsa_sign_pkcs1v15(const mns_rsa *key, unsigned char *sig, const char *hash,
                          const unsigned char *digest, size_t digest_len, int threads);
int mns_rsa_sign_pkcs1v15_n(const mns_rsa *key, unsigned char *sig, const char *hash,
                            const unsigned char *digest, size_t digest_len, size_t count, int threads);
size_t mns_rsa_bytes(const mns_rsa *key);
int mns_rsa_primes(const mns_rsa *key);
const char *mns_rsa_describe(const mns_rsa *key);
int mns_rsa_restrict(mns_rsa *key, unsigned flags);
void mns_rsa_wait(const mns_rsa *key);
int mns_rsa_tuned(const mns_rsa *key);
#define MNS_RSA_PSS_ONLY 1
"""

SHIM = r"""
#include <mns.h>
#include <mns_pmns.h>
#include <mns_rsa.h>
#include <stdlib.h>
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

/* where mns-bench was built, for `mns bench` (see cli.find_bench) */
const char *mnspy_build_dir(void) { return MNSPY_BUILD_DIR; }

int mnspy_probab_prime(const unsigned char *a, size_t len, int reps)
{
    mpz_t z;
    mpz_init(z);
    import_be(z, a, len);
    int r = mpz_probab_prime_p(z, reps);
    mpz_clear(z);
    return r;
}

void mnspy_free(void *ptr) { free(ptr); }

size_t mnspy_mpz_bytes(const void *z) { return mpz_sizeinbase((mpz_srcptr)z, 256); }

int mnspy_mpz_export(const void *z, unsigned char *out, size_t cap)
{
    mpz_srcptr x = z;
    size_t need = mpz_sizeinbase(x, 256), count = 0;
    if (need > cap)
        return 2;
    memset(out, 0, cap);
    if (mpz_sgn(x) != 0)
        mpz_export(out + (cap - need), &count, 1, 1, 0, 0, x);
    return mpz_sgn(x);
}

/* the generator's progress goes to Python (which takes the GIL back for it) */
static int mnspy_progress(void *arg, const char *stage, int n, double fraction);

/* iopt: word, s, s_max, delta, n, n_max, eshape, toeplitz_adds, gamma_tries */
int mnspy_pmns_generate(mns_pmns_params **out, const unsigned char *p, size_t len,
                        const int *iopt, long lambda_max, unsigned flags, void *progress_arg)
{
    mns_pmns_gen_opts o;
    mns_pmns_gen_opts_init(&o);
    o.word = (mns_pmns_word)iopt[0];
    o.s = iopt[1];
    if (iopt[2])
        o.s_max = iopt[2];
    o.delta = iopt[3];
    o.n = iopt[4];
    o.n_max = iopt[5];
    o.eshape = (mns_pmns_eshape)iopt[6];
    o.toeplitz_adds = iopt[7];
    if (iopt[8])
        o.gamma_tries = iopt[8];
    if (lambda_max)
        o.lambda_max = lambda_max;
    o.flags = flags;
    if (progress_arg) {
        o.progress = mnspy_progress;
        o.progress_arg = progress_arg;
    }
    mpz_t z;
    mpz_init(z);
    import_be(z, p, len);
    mns_status st = mns_pmns_generate_var(out, z, &o);
    mpz_clear(z);
    return st;
}

/* which: 0 p, 1 gamma, 2 rho, 3 norm1, 4 M[i], 5 M'[i] */
const void *mnspy_pmns_mpz(const mns_pmns_params *P, int which, int i)
{
    if ((which == 4 || which == 5) && (i < 0 || i >= mns_pmns_params_n(P)))
        return NULL;
    switch (which) {
    case 0: return mns_pmns_params_p(P);
    case 1: return mns_pmns_params_gamma(P);
    case 2: return mns_pmns_params_rho(P);
    case 3: return mns_pmns_params_norm1(P);
    case 4: return mns_pmns_params_m(P, i);
    case 5: return mns_pmns_params_mprime(P, i);
    default: return NULL;
    }
}

/* nums: n, e, d, p_1..p_k big-endian, back to back; lens: their lengths */
int mnspy_rsa_new(mns_rsa **key, const unsigned char *nums, const size_t *lens, int k, const char *spec)
{
    if (k < 0 || k > MNS_RSA_MAX_PRIMES) {
        /* no numbers to read: mns_rsa_new refuses the count itself, with its message */
        mpz_t z;
        mpz_init_set_ui(z, 0);
        mns_status st = mns_rsa_new(key, z, z, z, (const mpz_t *)&z, k, spec);
        mpz_clear(z);
        return st;
    }
    mpz_t v[3 + MNS_RSA_MAX_PRIMES];
    for (int i = 0; i < 3 + k; i++) {
        mpz_init(v[i]);
        import_be(v[i], nums, lens[i]);
        nums += lens[i];
    }
    mns_status st = mns_rsa_new(key, v[0], v[1], v[2], (const mpz_t *)&v[3], k, spec);
    for (int i = 0; i < 3 + k; i++)
        mpz_clear(v[i]);
    return st;
}

/* out: mns_rsa_bytes(key) bytes, big-endian */
int mnspy_rsa_private(const mns_rsa *key, unsigned char *out, const unsigned char *in, size_t len,
                      int threads)
{
    mpz_t x, y;
    mpz_inits(x, y, NULL);
    import_be(x, in, len);
    mns_status st = mns_rsa_private(key, y, x, threads);
    if (st == MNS_OK) {
        size_t cap = mns_rsa_bytes(key), need = mpz_sizeinbase(y, 256), count = 0;
        memset(out, 0, cap);
        if (mpz_sgn(y) != 0 && need <= cap)
            mpz_export(out + (cap - need), &count, 1, 1, 0, 0, y);
    }
    mpz_clears(x, y, NULL);
    return st;
}
"""

ffibuilder = FFI()
ffibuilder.cdef(CDEF)
ffibuilder.set_source(
    "mns._mns",
    SHIM,
    include_dirs=[os.path.join(ROOT, "include")],
    extra_objects=[os.path.join(BUILD, "libmns.a")],
    # a rebuilt libmns.a relinks the extension: setuptools compares only the
    # sources and `depends` with the built module, so without this a
    # reinstall after a library change kept the old library (python/build/)
    depends=[os.path.join(BUILD, "libmns.a")],
    libraries=_private_libs(),
    define_macros=[("MNSPY_BUILD_DIR", '"%s"' % BUILD.replace("\\", "\\\\").replace('"', '\\"'))],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
