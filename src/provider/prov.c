/* The provider's entry point: OSSL_provider_init, the algorithm tables,
 * the provider parameters (name, version, status, the operation counters)
 * and the reason strings of its errors.
 *
 * Every algorithm carries the property "provider=mns", so a caller can ask
 * for it (`-propquery provider=mns`) or prefer it (`?provider=mns`) while
 * the default provider keeps what mns does not do (encoders, decoders). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/core_names.h>

#include "mns.h"
#include "provider/dh_group.h"
#include "provider/provider.h"

atomic_ulong mns_prov_rsa_ops;
atomic_ulong mns_prov_dh_ops;

#define MNS_PROV_PROPS "provider=mns"

const OSSL_ITEM mns_prov_reasons[] = {
    {MNS_R_BAD_KEY, "invalid key"},
    {MNS_R_MISSING_KEY, "missing key"},
    {MNS_R_BUFFER_TOO_SMALL, "output buffer too small"},
    {MNS_R_VALUE_TOO_LARGE, "value too large for the modulus"},
    {MNS_R_BAD_PEER, "invalid peer public value"},
    {MNS_R_BAD_PADDING, "bad padding"},
    {MNS_R_BAD_DIGEST, "unsupported digest"},
    {MNS_R_BAD_PARAM, "invalid parameter"},
    {MNS_R_NOT_SUPPORTED, "operation not supported"},
    {MNS_R_FAULT, "fault check failed"},
    {MNS_R_INTERNAL, "internal error"},
    {MNS_R_VERIFY_FAILED, "signature verification failed"},
    {0, NULL}};

static const OSSL_ALGORITHM rsa_keymgmt[] = {
    {"RSA:rsaEncryption:1.2.840.113549.1.1.1", MNS_PROV_PROPS, mns_rsa_keymgmt_functions,
     "mns RSA key manager"},
    {"RSA-PSS:RSASSA-PSS:1.2.840.113549.1.1.10", MNS_PROV_PROPS, mns_rsa_pss_keymgmt_functions,
     "mns RSA-PSS key manager"},
    {"DH:dhKeyAgreement:1.2.840.113549.1.3.1", MNS_PROV_PROPS, mns_dh_keymgmt_functions,
     "mns DH key manager"},
    {NULL, NULL, NULL, NULL}};
static const OSSL_ALGORITHM rsa_signature[] = {
    {"RSA:rsaEncryption:1.2.840.113549.1.1.1", MNS_PROV_PROPS, mns_rsa_signature_functions,
     "mns RSA signatures (PKCS#1 v1.5, PSS)"},
    {NULL, NULL, NULL, NULL}};
static const OSSL_ALGORITHM rsa_cipher[] = {
    {"RSA:rsaEncryption:1.2.840.113549.1.1.1", MNS_PROV_PROPS, mns_rsa_asym_cipher_functions,
     "mns RSA encryption (none, PKCS#1 v1.5, OAEP)"},
    {NULL, NULL, NULL, NULL}};
static const OSSL_ALGORITHM dh_exchange[] = {
    {"DH:dhKeyAgreement:1.2.840.113549.1.3.1", MNS_PROV_PROPS, mns_dh_keyexch_functions,
     "mns finite-field Diffie-Hellman"},
    {NULL, NULL, NULL, NULL}};

static const OSSL_ALGORITHM *query(void *provctx, int id, int *no_cache)
{
    (void)provctx;
    *no_cache = 0;
    switch (id) {
    case OSSL_OP_KEYMGMT:
        return rsa_keymgmt;
    case OSSL_OP_SIGNATURE:
        return rsa_signature;
    case OSSL_OP_ASYM_CIPHER:
        return rsa_cipher;
    case OSSL_OP_KEYEXCH:
        return dh_exchange;
    }
    return NULL;
}

static const OSSL_PARAM gettable[] = {
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, NULL, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, NULL, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, NULL, 0),
    OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, NULL),
    OSSL_PARAM_ulong("mns-rsa-private-ops", NULL),
    OSSL_PARAM_ulong("mns-dh-derives", NULL),
    OSSL_PARAM_END};

static const OSSL_PARAM *gettable_params(void *provctx)
{
    (void)provctx;
    return gettable;
}

static int get_params(void *provctx, OSSL_PARAM params[])
{
    (void)provctx;
    OSSL_PARAM *p;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) && !OSSL_PARAM_set_utf8_ptr(p, "mns"))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) &&
        !OSSL_PARAM_set_utf8_ptr(p, mns_version()))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) &&
        !OSSL_PARAM_set_utf8_ptr(p, "mns " MNS_VERSION_STRING))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) && !OSSL_PARAM_set_int(p, 1))
        return 0;
    if ((p = OSSL_PARAM_locate(params, "mns-rsa-private-ops")) &&
        !OSSL_PARAM_set_ulong(p, atomic_load(&mns_prov_rsa_ops)))
        return 0;
    if ((p = OSSL_PARAM_locate(params, "mns-dh-derives")) &&
        !OSSL_PARAM_set_ulong(p, atomic_load(&mns_prov_dh_ops)))
        return 0;
    return 1;
}

static const OSSL_ITEM *reason_strings(void *provctx)
{
    (void)provctx;
    return mns_prov_reasons;
}

/* Programs such as s_server cannot be asked for a provider parameter from
 * outside; with MNS_PROVIDER_STATS=file the counters are appended there
 * when the module is unloaded (nothing is written otherwise). */
static void write_stats(void)
{
    const char *path = getenv("MNS_PROVIDER_STATS");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    fprintf(f, "rsa_private_ops=%lu dh_derives=%lu\n", atomic_load(&mns_prov_rsa_ops),
            atomic_load(&mns_prov_dh_ops));
    fclose(f);
}

static void teardown(void *provctx)
{
    mns_prov *prov = provctx;
    write_stats();
    mns_dh_groups_unref();
    OSSL_LIB_CTX_free(prov->libctx);
    free(prov);
}

static const OSSL_DISPATCH provider_functions[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))teardown},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))query},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))gettable_params},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))get_params},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))reason_strings},
    {OSSL_FUNC_PROVIDER_GET_CAPABILITIES, (void (*)(void))mns_prov_get_capabilities},
    {0, NULL}};

__attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE *handle,
                                                              const OSSL_DISPATCH *in,
                                                              const OSSL_DISPATCH **out,
                                                              void **provctx)
{
    mns_prov_set_core(in);
    mns_prov *prov = calloc(1, sizeof *prov);
    if (!prov)
        return 0;
    prov->handle = handle;
    prov->libctx = OSSL_LIB_CTX_new_child(handle, in);
    if (!prov->libctx) {
        free(prov);
        return 0;
    }
    mns_dh_groups_ref();
    *out = provider_functions;
    *provctx = prov;
    return 1;
}
