/* RSA key management, for the RSA and the RSA-PSS key types: keys made by
 * any provider come in through import (n, e, d, the factors, CRT exponents
 * and coefficients; an RSA-PSS key's restrictions) and go out through
 * export; has, match, validate, dup and the key parameters (bits, security
 * bits, size, and "mns-backend": what serves the key's private operation).
 * Encoding and decoding stay with the default provider; generation is
 * delegated to it (rsa_gen.c). */
#include <stdlib.h>
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include "provider/rsa_pss.h"

#define MNS_OSSL_MAX_FACTORS 10

static const char *const factor_names[MNS_OSSL_MAX_FACTORS] = {
    OSSL_PKEY_PARAM_RSA_FACTOR1, OSSL_PKEY_PARAM_RSA_FACTOR2, OSSL_PKEY_PARAM_RSA_FACTOR3,
    OSSL_PKEY_PARAM_RSA_FACTOR4, OSSL_PKEY_PARAM_RSA_FACTOR5, OSSL_PKEY_PARAM_RSA_FACTOR6,
    OSSL_PKEY_PARAM_RSA_FACTOR7, OSSL_PKEY_PARAM_RSA_FACTOR8, OSSL_PKEY_PARAM_RSA_FACTOR9,
    OSSL_PKEY_PARAM_RSA_FACTOR10};
static const char *const exponent_names[MNS_OSSL_MAX_FACTORS] = {
    OSSL_PKEY_PARAM_RSA_EXPONENT1, OSSL_PKEY_PARAM_RSA_EXPONENT2, OSSL_PKEY_PARAM_RSA_EXPONENT3,
    OSSL_PKEY_PARAM_RSA_EXPONENT4, OSSL_PKEY_PARAM_RSA_EXPONENT5, OSSL_PKEY_PARAM_RSA_EXPONENT6,
    OSSL_PKEY_PARAM_RSA_EXPONENT7, OSSL_PKEY_PARAM_RSA_EXPONENT8, OSSL_PKEY_PARAM_RSA_EXPONENT9,
    OSSL_PKEY_PARAM_RSA_EXPONENT10};
/* coefficient i (1-based) goes with factor i + 1 */
static const char *const coefficient_names[MNS_OSSL_MAX_FACTORS - 1] = {
    OSSL_PKEY_PARAM_RSA_COEFFICIENT1, OSSL_PKEY_PARAM_RSA_COEFFICIENT2,
    OSSL_PKEY_PARAM_RSA_COEFFICIENT3, OSSL_PKEY_PARAM_RSA_COEFFICIENT4,
    OSSL_PKEY_PARAM_RSA_COEFFICIENT5, OSSL_PKEY_PARAM_RSA_COEFFICIENT6,
    OSSL_PKEY_PARAM_RSA_COEFFICIENT7, OSSL_PKEY_PARAM_RSA_COEFFICIENT8,
    OSSL_PKEY_PARAM_RSA_COEFFICIENT9};

#define KEYPAIR OSSL_KEYMGMT_SELECT_KEYPAIR

static void *rsa_new(void *provctx) { return mns_prov_rsa_new(provctx); }
static void *pss_new(void *provctx)
{
    mns_prov_rsa *key = mns_prov_rsa_new(provctx);
    if (key)
        key->pss = 1;
    return key;
}
static void *rsa_dup(const void *keydata, int selection) { return mns_prov_rsa_dup(keydata, selection); }
static void rsa_free(void *keydata) { mns_prov_rsa_free(keydata); }

static int rsa_has(const void *keydata, int selection)
{
    const mns_prov_rsa *key = keydata;
    if (!key)
        return 0;
    int ok = 1;
    if (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY)
        ok = ok && mpz_sgn(key->n) > 0 && mpz_sgn(key->e) > 0;
    if (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY)
        ok = ok && key->k > 0;
    return ok;
}

static int rsa_match(const void *a, const void *b, int selection)
{
    const mns_prov_rsa *x = a, *y = b;
    int ok = 1;
    if (selection & KEYPAIR)
        ok = mpz_cmp(x->n, y->n) == 0 && mpz_cmp(x->e, y->e) == 0;
    if (ok && (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) &&
        !(selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY))
        ok = x->has_d && y->has_d && mpz_cmp(x->d, y->d) == 0;
    return ok;
}

static int get_opt(const OSSL_PARAM params[], const char *name, mpz_t z, int *found)
{
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, name);
    *found = p != NULL;
    return !p || mns_param_get_mpz(p, z);
}

static int import_private(mns_prov_rsa *key, const OSSL_PARAM params[])
{
    int found;
    if (!get_opt(params, OSSL_PKEY_PARAM_RSA_D, key->d, &found))
        return 0;
    key->has_d = found;
    int k = 0;
    for (int i = 0; i < MNS_OSSL_MAX_FACTORS; i++) {
        mpz_t dummy;
        mpz_init(dummy);
        int ok = get_opt(params, factor_names[i], i < MNS_RSA_MAX_PRIMES ? key->p[i] : dummy, &found);
        mpz_clear(dummy);
        if (!ok)
            return 0;
        if (!found)
            break;
        k = i + 1;
    }
    if (k > MNS_RSA_MAX_PRIMES) {
        MNS_PROV_ERR(key->prov, MNS_R_BAD_KEY, "RSA key: %d primes (2..%d supported)", k,
                     MNS_RSA_MAX_PRIMES);
        return 0;
    }
    key->k = key->has_d ? k : 0;
    if (key->has_d && k < 2) {
        MNS_PROV_ERR(key->prov, MNS_R_BAD_KEY, "RSA key: a private key without its primes");
        return 0;
    }
    return 1;
}

int mns_prov_rsa_import(mns_prov_rsa *key, int selection, const OSSL_PARAM params[])
{
    if (!key || !(selection & KEYPAIR))
        return 0;
    int fn, fe;
    if (!get_opt(params, OSSL_PKEY_PARAM_RSA_N, key->n, &fn) ||
        !get_opt(params, OSSL_PKEY_PARAM_RSA_E, key->e, &fe) || !fn || !fe) {
        MNS_PROV_ERR(key->prov, MNS_R_BAD_KEY, "RSA key: n and e are required");
        return 0;
    }
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && !import_private(key, params))
        return 0;
    if (key->pss && !mns_pss_import(key, params))
        return 0;
    return mns_prov_rsa_complete(key);
}

#define BN_PARAM(name) OSSL_PARAM_BN(name, NULL, 0)
static const OSSL_PARAM key_types[] = {
    BN_PARAM(OSSL_PKEY_PARAM_RSA_N), BN_PARAM(OSSL_PKEY_PARAM_RSA_E), BN_PARAM(OSSL_PKEY_PARAM_RSA_D),
    BN_PARAM(OSSL_PKEY_PARAM_RSA_FACTOR1), BN_PARAM(OSSL_PKEY_PARAM_RSA_FACTOR2),
    BN_PARAM(OSSL_PKEY_PARAM_RSA_FACTOR3), BN_PARAM(OSSL_PKEY_PARAM_RSA_FACTOR4),
    BN_PARAM(OSSL_PKEY_PARAM_RSA_FACTOR5), BN_PARAM(OSSL_PKEY_PARAM_RSA_FACTOR6),
    BN_PARAM(OSSL_PKEY_PARAM_RSA_FACTOR7), BN_PARAM(OSSL_PKEY_PARAM_RSA_FACTOR8),
    BN_PARAM(OSSL_PKEY_PARAM_RSA_EXPONENT1), BN_PARAM(OSSL_PKEY_PARAM_RSA_EXPONENT2),
    BN_PARAM(OSSL_PKEY_PARAM_RSA_EXPONENT3), BN_PARAM(OSSL_PKEY_PARAM_RSA_EXPONENT4),
    BN_PARAM(OSSL_PKEY_PARAM_RSA_EXPONENT5), BN_PARAM(OSSL_PKEY_PARAM_RSA_EXPONENT6),
    BN_PARAM(OSSL_PKEY_PARAM_RSA_EXPONENT7), BN_PARAM(OSSL_PKEY_PARAM_RSA_EXPONENT8),
    BN_PARAM(OSSL_PKEY_PARAM_RSA_COEFFICIENT1), BN_PARAM(OSSL_PKEY_PARAM_RSA_COEFFICIENT2),
    BN_PARAM(OSSL_PKEY_PARAM_RSA_COEFFICIENT3), BN_PARAM(OSSL_PKEY_PARAM_RSA_COEFFICIENT4),
    BN_PARAM(OSSL_PKEY_PARAM_RSA_COEFFICIENT5), BN_PARAM(OSSL_PKEY_PARAM_RSA_COEFFICIENT6),
    BN_PARAM(OSSL_PKEY_PARAM_RSA_COEFFICIENT7), OSSL_PARAM_END};

static const OSSL_PARAM *rsa_io_types(int selection)
{
    return (selection & KEYPAIR) ? key_types : NULL;
}

/* key_types and the PSS parameters, made once */
static OSSL_PARAM pss_types[sizeof key_types / sizeof key_types[0] + MNS_PSS_NPARAMS];
static void make_pss_types(void)
{
    const size_t nk = sizeof key_types / sizeof key_types[0] - 1;
    memcpy(pss_types, key_types, nk * sizeof key_types[0]);
    memcpy(pss_types + nk, mns_pss_param_types, (MNS_PSS_NPARAMS + 1) * sizeof key_types[0]);
}

static const OSSL_PARAM *pss_io_types(int selection)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_pss_types);
    return (selection & KEYPAIR) ? pss_types : NULL;
}

/* One OSSL_PARAM per value, the integers in one buffer. */
typedef struct export_list {
    OSSL_PARAM p[3 + 3 * MNS_RSA_MAX_PRIMES + MNS_PSS_NPARAMS + 1];
    int np;
    unsigned char *buf;
    size_t used, cap;
} export_list;

static void export_add(export_list *l, const char *name, const mpz_t z)
{
    size_t len = mpz_sizeinbase(z, 256) + 1;
    l->p[l->np] = OSSL_PARAM_construct_BN(name, l->buf + l->used, len);
    mns_param_set_mpz(&l->p[l->np], z);
    l->used += len;
    l->np++;
}

static int rsa_export(void *keydata, int selection, OSSL_CALLBACK *cb, void *cbarg)
{
    mns_prov_rsa *key = keydata;
    if (!key || !(selection & KEYPAIR))
        return 0;
    export_list l = {.np = 0, .used = 0};
    const int priv = (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && key->k > 0;
    l.cap = (3 + 3 * (size_t)key->k) * (mpz_sizeinbase(key->n, 256) + 1);
    l.buf = calloc(1, l.cap);
    if (!l.buf)
        return 0;
    export_add(&l, OSSL_PKEY_PARAM_RSA_N, key->n);
    export_add(&l, OSSL_PKEY_PARAM_RSA_E, key->e);
    if (priv) {
        export_add(&l, OSSL_PKEY_PARAM_RSA_D, key->d);
        for (int i = 0; i < key->k; i++)
            export_add(&l, factor_names[i], key->p[i]);
        for (int i = 0; i < key->k; i++)
            export_add(&l, exponent_names[i], key->dp[i]);
        for (int i = 1; i < key->k; i++)
            export_add(&l, coefficient_names[i - 1], key->coef[i]);
    }
    int salt = key->pss_params.saltlen;
    if (key->pss && key->pss_params.restricted) {
        l.p[l.np++] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST,
                                                       key->pss_params.md, 0);
        l.p[l.np++] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_MASKGENFUNC,
                                                       (char *)"MGF1", 0);
        l.p[l.np++] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST,
                                                       key->pss_params.mgf1, 0);
        l.p[l.np++] = OSSL_PARAM_construct_int(OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, &salt);
    }
    l.p[l.np] = OSSL_PARAM_construct_end();
    int ok = cb(l.p, cbarg);
    OPENSSL_clear_free(l.buf, l.cap);
    return ok;
}

static const OSSL_PARAM gettable[] = {
    OSSL_PARAM_int(OSSL_PKEY_PARAM_BITS, NULL),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_BITS, NULL),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_MAX_SIZE, NULL),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_DEFAULT_DIGEST, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_N, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_E, NULL, 0),
    OSSL_PARAM_utf8_ptr("mns-backend", NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_MASKGENFUNC, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST, NULL, 0),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, NULL),
    OSSL_PARAM_END};

static const OSSL_PARAM *rsa_gettable(void *provctx)
{
    (void)provctx;
    return gettable;
}

static int rsa_get_params(void *keydata, OSSL_PARAM params[])
{
    mns_prov_rsa *key = keydata;
    const int bits = (int)mpz_sizeinbase(key->n, 2);
    OSSL_PARAM *p;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_BITS)) && !OSSL_PARAM_set_int(p, bits))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_SECURITY_BITS)) &&
        !OSSL_PARAM_set_int(p, BN_security_bits(bits, -1)))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MAX_SIZE)) &&
        !OSSL_PARAM_set_int(p, (int)mns_prov_rsa_bytes(key)))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_DEFAULT_DIGEST)) &&
        !OSSL_PARAM_set_utf8_string(p, key->pss && key->pss_params.restricted ? key->pss_params.md
                                                                                : "SHA256"))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_RSA_N)) && !mns_param_set_mpz(p, key->n))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_RSA_E)) && !mns_param_set_mpz(p, key->e))
        return 0;
    if ((p = OSSL_PARAM_locate(params, "mns-backend")) &&
        !OSSL_PARAM_set_utf8_ptr(p, mns_prov_rsa_backend(key)))
        return 0;
    return mns_pss_get_params(key, params);
}

static int rsa_validate(const void *keydata, int selection, int checktype)
{
    (void)checktype;
    const mns_prov_rsa *key = keydata;
    if (!rsa_has(key, selection & KEYPAIR))
        return 0;
    if (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY)
        return mns_prov_rsa_check(key);
    return mpz_odd_p(key->n) && mpz_odd_p(key->e) && mpz_cmp_ui(key->e, 3) >= 0;
}

static const char *rsa_query_name(int operation_id)
{
    (void)operation_id;
    return "RSA";
}

#define COMMON_FUNCTIONS                                                                           \
    {OSSL_FUNC_KEYMGMT_FREE, (void (*)(void))rsa_free},                                           \
        {OSSL_FUNC_KEYMGMT_DUP, (void (*)(void))rsa_dup},                                         \
        {OSSL_FUNC_KEYMGMT_HAS, (void (*)(void))rsa_has},                                         \
        {OSSL_FUNC_KEYMGMT_MATCH, (void (*)(void))rsa_match},                                     \
        {OSSL_FUNC_KEYMGMT_IMPORT, (void (*)(void))mns_prov_rsa_import},                          \
        {OSSL_FUNC_KEYMGMT_EXPORT, (void (*)(void))rsa_export},                                   \
        {OSSL_FUNC_KEYMGMT_GET_PARAMS, (void (*)(void))rsa_get_params},                           \
        {OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS, (void (*)(void))rsa_gettable},                        \
        {OSSL_FUNC_KEYMGMT_VALIDATE, (void (*)(void))rsa_validate},                               \
        {OSSL_FUNC_KEYMGMT_QUERY_OPERATION_NAME, (void (*)(void))rsa_query_name}

#define GEN_FUNCTIONS                                                                              \
    {OSSL_FUNC_KEYMGMT_GEN_SET_PARAMS, (void (*)(void))mns_rsa_gen_set_params},                   \
        {OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS, (void (*)(void))mns_rsa_gen_settable_params},     \
        {OSSL_FUNC_KEYMGMT_GEN, (void (*)(void))mns_rsa_gen},                                     \
        {OSSL_FUNC_KEYMGMT_GEN_CLEANUP, (void (*)(void))mns_rsa_gen_cleanup}

const OSSL_DISPATCH mns_rsa_keymgmt_functions[] = {
    {OSSL_FUNC_KEYMGMT_NEW, (void (*)(void))rsa_new},
    COMMON_FUNCTIONS,
    {OSSL_FUNC_KEYMGMT_IMPORT_TYPES, (void (*)(void))rsa_io_types},
    {OSSL_FUNC_KEYMGMT_EXPORT_TYPES, (void (*)(void))rsa_io_types},
    {OSSL_FUNC_KEYMGMT_GEN_INIT, (void (*)(void))mns_rsa_gen_init},
    GEN_FUNCTIONS,
    {0, NULL}};

/* RSA-PSS keys: their signatures are the RSA signature implementation's
 * (query_operation_name), which reads the key's restrictions */
const OSSL_DISPATCH mns_rsa_pss_keymgmt_functions[] = {
    {OSSL_FUNC_KEYMGMT_NEW, (void (*)(void))pss_new},
    COMMON_FUNCTIONS,
    {OSSL_FUNC_KEYMGMT_IMPORT_TYPES, (void (*)(void))pss_io_types},
    {OSSL_FUNC_KEYMGMT_EXPORT_TYPES, (void (*)(void))pss_io_types},
    {OSSL_FUNC_KEYMGMT_GEN_INIT, (void (*)(void))mns_rsa_pss_gen_init},
    GEN_FUNCTIONS,
    {0, NULL}};
