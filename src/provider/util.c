/* Helpers every operation of the provider shares: raising OpenSSL errors
 * through the core, OSSL_PARAM integers and big-endian byte strings to and
 * from mpz, and random numbers below a bound from the caller's RNG. */
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "provider/provider.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "OSSL_PARAM integers are native-endian; this file reads them as little-endian"
#endif

static OSSL_FUNC_core_new_error_fn *core_new_error;
static OSSL_FUNC_core_set_error_debug_fn *core_set_error_debug;
static OSSL_FUNC_core_vset_error_fn *core_vset_error;

void mns_prov_set_core(const OSSL_DISPATCH *in)
{
    for (; in->function_id != 0; in++) {
        switch (in->function_id) {
        case OSSL_FUNC_CORE_NEW_ERROR:
            core_new_error = OSSL_FUNC_core_new_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            core_set_error_debug = OSSL_FUNC_core_set_error_debug(in);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            core_vset_error = OSSL_FUNC_core_vset_error(in);
            break;
        }
    }
}

void mns_prov_err(const mns_prov *prov, int reason, const char *fmt, ...)
{
    if (!prov || !core_new_error || !core_vset_error)
        return;
    va_list ap;
    va_start(ap, fmt);
    core_new_error(prov->handle);
    if (core_set_error_debug)
        core_set_error_debug(prov->handle, NULL, 0, "mns");
    core_vset_error(prov->handle, (uint32_t)reason, fmt, ap);
    va_end(ap);
}

int mns_param_get_mpz(const OSSL_PARAM *p, mpz_t z)
{
    if (!p || !p->data || p->data_size == 0)
        return 0;
    const unsigned char *b = p->data;
    if (p->data_type == OSSL_PARAM_INTEGER) {
        if (b[p->data_size - 1] & 0x80)
            return 0; /* negative */
    } else if (p->data_type != OSSL_PARAM_UNSIGNED_INTEGER) {
        return 0;
    }
    mpz_import(z, p->data_size, -1, 1, 0, 0, b);
    return 1;
}

int mns_param_set_mpz(OSSL_PARAM *p, const mpz_t z)
{
    if (mpz_sgn(z) < 0)
        return 0;
    size_t need = mpz_sgn(z) ? mpz_sizeinbase(z, 256) : 1;
    if (p->data_type == OSSL_PARAM_INTEGER && mpz_sgn(z) && mpz_sizeinbase(z, 2) % 8 == 0)
        need++; /* room for the sign bit */
    else if (p->data_type != OSSL_PARAM_UNSIGNED_INTEGER && p->data_type != OSSL_PARAM_INTEGER)
        return 0;
    p->return_size = need;
    if (!p->data)
        return 1;
    if (p->data_size < need)
        return 0;
    size_t got = 0;
    memset(p->data, 0, p->data_size);
    mpz_export(p->data, &got, -1, 1, 0, 0, z);
    p->return_size = p->data_size;
    return 1;
}

void mns_mpz_from_bytes(mpz_t z, const unsigned char *b, size_t len)
{
    mpz_import(z, len, 1, 1, 0, 0, b);
}

int mns_mpz_to_bytes(unsigned char *b, size_t len, const mpz_t z)
{
    size_t need = mpz_sgn(z) ? mpz_sizeinbase(z, 256) : 0;
    if (need > len || mpz_sgn(z) < 0)
        return 0;
    memset(b, 0, len - need);
    size_t got = 0;
    if (need)
        mpz_export(b + len - need, &got, 1, 1, 0, 0, z);
    return 1;
}

int mns_prov_random_below(const mns_prov *prov, mpz_t r, const mpz_t bound)
{
    size_t len = mpz_sizeinbase(bound, 256) + 8; /* bias below 2^-64 */
    unsigned char *b = malloc(len);
    if (!b)
        return 0;
    int ok = RAND_priv_bytes_ex(prov->libctx, b, len, 0) == 1;
    if (ok) {
        mns_mpz_from_bytes(r, b, len);
        mpz_mod(r, r, bound);
        if (mpz_sgn(r) == 0)
            mpz_set_ui(r, 1);
    }
    OPENSSL_cleanse(b, len);
    free(b);
    return ok;
}

int mns_param_pad_mode(const OSSL_PARAM *p, int *mode)
{
    static const struct {
        const char *name;
        int mode;
    } names[] = {{"none", 3}, {"pkcs1", 1}, {"oaep", 4}, {"x931", 5}, {"pss", 6}};
    if (p->data_type == OSSL_PARAM_INTEGER)
        return OSSL_PARAM_get_int(p, mode);
    if (p->data_type != OSSL_PARAM_UTF8_STRING || !p->data)
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(p->data, names[i].name) == 0) {
            *mode = names[i].mode;
            return 1;
        }
    return 0;
}

int mns_prov_fetch_md(const mns_prov *prov, EVP_MD **md, const char *name, const char *propq)
{
    EVP_MD *m = EVP_MD_fetch(prov->libctx, name, propq);
    if (!m) {
        MNS_PROV_ERR(prov, MNS_R_BAD_DIGEST, "digest %s not available", name);
        return 0;
    }
    EVP_MD_free(*md);
    *md = m;
    return 1;
}

void mns_mpz_wipe_clear(mpz_t z)
{
    if (mpz_size(z))
        OPENSSL_cleanse(mpz_limbs_modify(z, (mp_size_t)mpz_size(z)), mpz_size(z) * sizeof(mp_limb_t));
    mpz_clear(z);
}
