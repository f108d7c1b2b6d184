/* The provider's "TLS-GROUP" capability: the RFC 7919 groups for TLS 1.3
 * key shares, as the default provider declares them. libssl keeps a group
 * only if the provider that declares it is the one its key manager comes
 * from, so with mns preferred for DH (?provider=mns) the groups must be
 * declared here too, or TLS could not use ffdhe at all. */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/prov_ssl.h>

#include "provider/provider.h"

typedef struct tls_group {
    const char *name;
    unsigned id, secbits;
} tls_group;

static const tls_group groups[] = {{"ffdhe2048", 0x100, 112}, {"ffdhe3072", 0x101, 128},
                                   {"ffdhe4096", 0x102, 128}, {"ffdhe6144", 0x103, 128},
                                   {"ffdhe8192", 0x104, 192}};

static int one_group(const tls_group *g, OSSL_CALLBACK *cb, void *arg)
{
    unsigned id = g->id, secbits = g->secbits, is_kem = 0;
    int min_tls = TLS1_3_VERSION, max_tls = 0, min_dtls = -1, max_dtls = -1;
    OSSL_PARAM p[] = {
        OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_GROUP_NAME, (char *)g->name, strlen(g->name)),
        OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_GROUP_NAME_INTERNAL, (char *)g->name,
                               strlen(g->name)),
        OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_GROUP_ALG, "DH", 2),
        OSSL_PARAM_uint(OSSL_CAPABILITY_TLS_GROUP_ID, &id),
        OSSL_PARAM_uint(OSSL_CAPABILITY_TLS_GROUP_SECURITY_BITS, &secbits),
        OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MIN_TLS, &min_tls),
        OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MAX_TLS, &max_tls),
        OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MIN_DTLS, &min_dtls),
        OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MAX_DTLS, &max_dtls),
        OSSL_PARAM_uint(OSSL_CAPABILITY_TLS_GROUP_IS_KEM, &is_kem),
        OSSL_PARAM_END};
    return cb(p, arg);
}

int mns_prov_get_capabilities(void *provctx, const char *capability, OSSL_CALLBACK *cb, void *arg)
{
    (void)provctx;
    if (strcasecmp(capability, "TLS-GROUP") != 0)
        return 0;
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (!one_group(&groups[i], cb, arg))
            return 0;
    return 1;
}
