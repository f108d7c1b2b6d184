/* DH key management: import / export of keys on named or explicit groups
 * (group name, or p, g and q), has, match, validate, the key parameters
 * (bits, security bits, the encoded public key TLS sends, "mns-backend")
 * and generation: key pairs (x random of the group's private length,
 * g^x in the group's field) and domain parameters of a named group, which
 * TLS asks for. New explicit groups are not generated here. */
#include <stdlib.h>
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "provider/dh_key.h"

#define DOMAIN OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS
#define KEYPAIR OSSL_KEYMGMT_SELECT_KEYPAIR

mns_prov_dh *mns_prov_dh_new(mns_prov *prov)
{
    mns_prov_dh *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->prov = prov;
    atomic_init(&k->refs, 1);
    mpz_inits(k->pub, k->priv, NULL);
    return k;
}

void mns_prov_dh_up_ref(mns_prov_dh *key) { atomic_fetch_add(&key->refs, 1); }

void mns_prov_dh_free(mns_prov_dh *key)
{
    if (!key || atomic_fetch_sub(&key->refs, 1) != 1)
        return;
    mns_mpz_wipe_clear(key->priv);
    mpz_clear(key->pub);
    free(key);
}

static void *dh_new(void *provctx) { return mns_prov_dh_new(provctx); }
static void dh_free(void *k) { mns_prov_dh_free(k); }

static int dh_has(const void *vk, int selection)
{
    const mns_prov_dh *k = vk;
    if (!k)
        return 0;
    int ok = 1;
    if (selection & DOMAIN)
        ok = ok && k->grp;
    if (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY)
        ok = ok && k->has_pub;
    if (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY)
        ok = ok && k->has_priv;
    return ok;
}

static int dh_match(const void *va, const void *vb, int selection)
{
    const mns_prov_dh *a = va, *b = vb;
    int ok = 1;
    if (selection & DOMAIN)
        ok = a->grp && b->grp && mpz_cmp(a->grp->p, b->grp->p) == 0 &&
             mpz_cmp(a->grp->g, b->grp->g) == 0;
    if (ok && (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY))
        ok = a->has_pub && b->has_pub && mpz_cmp(a->pub, b->pub) == 0;
    if (ok && (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) &&
        !(selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY))
        ok = a->has_priv && b->has_priv && mpz_cmp(a->priv, b->priv) == 0;
    return ok;
}

static int import_domain(mns_prov_dh *k, const OSSL_PARAM params[])
{
    const OSSL_PARAM *pn = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_GROUP_NAME);
    const char *name = NULL;
    if (pn && OSSL_PARAM_get_utf8_string_ptr(pn, &name) && name)
        return (k->grp = mns_dh_group_by_name(k->prov, name)) != NULL;
    const OSSL_PARAM *pp = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_FFC_P);
    const OSSL_PARAM *pg = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_FFC_G);
    const OSSL_PARAM *pq = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_FFC_Q);
    if (!pp || !pg) {
        MNS_PROV_ERR(k->prov, MNS_R_BAD_KEY, "DH: a group name or p and g are required");
        return 0;
    }
    mpz_t p, g, q;
    mpz_inits(p, g, q, NULL);
    int ok = mns_param_get_mpz(pp, p) && mns_param_get_mpz(pg, g) && (!pq || mns_param_get_mpz(pq, q));
    if (ok)
        ok = (k->grp = mns_dh_group_find(k->prov, p, g, q)) != NULL;
    mpz_clears(p, g, q, NULL);
    return ok;
}

static int dh_import(void *vk, int selection, const OSSL_PARAM params[])
{
    mns_prov_dh *k = vk;
    if (!k || !(selection & (DOMAIN | KEYPAIR)))
        return 0;
    if (!import_domain(k, params))
        return 0;
    const OSSL_PARAM *p;
    if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) &&
        (p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PUB_KEY))) {
        if (!mns_param_get_mpz(p, k->pub))
            return 0;
        k->has_pub = 1;
    }
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) &&
        (p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY))) {
        if (!mns_param_get_mpz(p, k->priv) || mpz_sgn(k->priv) == 0 ||
            mpz_cmp(k->priv, k->grp->p) >= 0) {
            MNS_PROV_ERR(k->prov, MNS_R_BAD_KEY, "DH: private value outside [1, p)");
            return 0;
        }
        k->has_priv = 1;
    }
    return 1;
}

static const OSSL_PARAM io_types[] = {
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_FFC_P, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_FFC_G, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_FFC_Q, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_PUB_KEY, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_PRIV_KEY, NULL, 0),
    OSSL_PARAM_END};

static const OSSL_PARAM *dh_io_types(int selection)
{
    return (selection & (DOMAIN | KEYPAIR)) ? io_types : NULL;
}

static int dh_export(void *vk, int selection, OSSL_CALLBACK *cb, void *cbarg)
{
    mns_prov_dh *k = vk;
    if (!k || !k->grp)
        return 0;
    const size_t len = mpz_sizeinbase(k->grp->p, 256) + 1;
    unsigned char *buf = calloc(5, len);
    OSSL_PARAM ps[7];
    int n = 0;
    if (!buf)
        return 0;
    if (k->grp->name)
        ps[n++] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)k->grp->name, 0);
    const mpz_srcptr vals[5] = {k->grp->p, k->grp->g, k->grp->q, k->pub, k->priv};
    const char *names[5] = {OSSL_PKEY_PARAM_FFC_P, OSSL_PKEY_PARAM_FFC_G, OSSL_PKEY_PARAM_FFC_Q,
                            OSSL_PKEY_PARAM_PUB_KEY, OSSL_PKEY_PARAM_PRIV_KEY};
    const int want[5] = {1, 1, 1, (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) && k->has_pub,
                         (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && k->has_priv};
    for (int i = 0; i < 5; i++) {
        if (!want[i])
            continue;
        ps[n] = OSSL_PARAM_construct_BN(names[i], buf + (size_t)i * len, len);
        mns_param_set_mpz(&ps[n++], vals[i]);
    }
    ps[n] = OSSL_PARAM_construct_end();
    int ok = cb(ps, cbarg);
    OPENSSL_clear_free(buf, 5 * len);
    return ok;
}

static int set_encoded(OSSL_PARAM *p, const mpz_t pub, size_t len)
{
    p->return_size = len;
    if (!p->data)
        return 1;
    if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data_size < len)
        return 0;
    return mns_mpz_to_bytes(p->data, len, pub);
}

static int dh_get_params(void *vk, OSSL_PARAM params[])
{
    mns_prov_dh *k = vk;
    OSSL_PARAM *p;
    if (!k->grp)
        return 1;
    const int bits = (int)mpz_sizeinbase(k->grp->p, 2), qbits = (int)mpz_sizeinbase(k->grp->q, 2);
    const size_t bytes = (size_t)(bits + 7) / 8;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_BITS)) && !OSSL_PARAM_set_int(p, bits))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_SECURITY_BITS)) &&
        !OSSL_PARAM_set_int(p, BN_security_bits(bits, qbits)))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MAX_SIZE)) && !OSSL_PARAM_set_int(p, (int)bytes))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY)) &&
        (!k->has_pub || !set_encoded(p, k->pub, bytes)))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_GROUP_NAME)) &&
        (!k->grp->name || !OSSL_PARAM_set_utf8_string(p, k->grp->name)))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_FFC_P)) && !mns_param_set_mpz(p, k->grp->p))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_FFC_G)) && !mns_param_set_mpz(p, k->grp->g))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_FFC_Q)) && !mns_param_set_mpz(p, k->grp->q))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_PUB_KEY)) &&
        (!k->has_pub || !mns_param_set_mpz(p, k->pub)))
        return 0;
    if ((p = OSSL_PARAM_locate(params, "mns-backend")) &&
        !OSSL_PARAM_set_utf8_ptr(p, mns_dh_group_backend(k->grp)))
        return 0;
    return 1;
}

static const OSSL_PARAM gettable[] = {
    OSSL_PARAM_int(OSSL_PKEY_PARAM_BITS, NULL),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_BITS, NULL),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_MAX_SIZE, NULL),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_FFC_P, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_FFC_G, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_FFC_Q, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_PUB_KEY, NULL, 0),
    OSSL_PARAM_utf8_ptr("mns-backend", NULL, 0),
    OSSL_PARAM_END};

static const OSSL_PARAM *dh_gettable(void *provctx)
{
    (void)provctx;
    return gettable;
}

static int dh_set_params(void *vk, const OSSL_PARAM params[])
{
    mns_prov_dh *k = vk;
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY);
    if (!p)
        return 1;
    if (p->data_type != OSSL_PARAM_OCTET_STRING || !p->data || p->data_size == 0)
        return 0;
    mns_mpz_from_bytes(k->pub, p->data, p->data_size);
    k->has_pub = 1;
    return 1;
}

static const OSSL_PARAM settable[] = {
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, NULL, 0), OSSL_PARAM_END};

static const OSSL_PARAM *dh_settable(void *provctx)
{
    (void)provctx;
    return settable;
}

static int dh_validate(const void *vk, int selection, int checktype)
{
    (void)checktype;
    const mns_prov_dh *k = vk;
    if (!dh_has(k, selection & (DOMAIN | KEYPAIR)))
        return 0;
    if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) &&
        !mns_dh_group_check_peer(k->prov, k->grp, k->pub))
        return 0;
    return 1;
}

static const char *dh_query_name(int id)
{
    (void)id;
    return "DH";
}


typedef void (*fn)(void);
const OSSL_DISPATCH mns_dh_keymgmt_functions[] = {
    {OSSL_FUNC_KEYMGMT_NEW, (fn)dh_new},
    {OSSL_FUNC_KEYMGMT_FREE, (fn)dh_free},
    {OSSL_FUNC_KEYMGMT_HAS, (fn)dh_has},
    {OSSL_FUNC_KEYMGMT_MATCH, (fn)dh_match},
    {OSSL_FUNC_KEYMGMT_IMPORT, (fn)dh_import},
    {OSSL_FUNC_KEYMGMT_IMPORT_TYPES, (fn)dh_io_types},
    {OSSL_FUNC_KEYMGMT_EXPORT, (fn)dh_export},
    {OSSL_FUNC_KEYMGMT_EXPORT_TYPES, (fn)dh_io_types},
    {OSSL_FUNC_KEYMGMT_GET_PARAMS, (fn)dh_get_params},
    {OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS, (fn)dh_gettable},
    {OSSL_FUNC_KEYMGMT_SET_PARAMS, (fn)dh_set_params},
    {OSSL_FUNC_KEYMGMT_SETTABLE_PARAMS, (fn)dh_settable},
    {OSSL_FUNC_KEYMGMT_VALIDATE, (fn)dh_validate},
    {OSSL_FUNC_KEYMGMT_QUERY_OPERATION_NAME, (fn)dh_query_name},
    {OSSL_FUNC_KEYMGMT_GEN_INIT, (fn)mns_dh_gen_init},
    {OSSL_FUNC_KEYMGMT_GEN_SET_TEMPLATE, (fn)mns_dh_gen_set_template},
    {OSSL_FUNC_KEYMGMT_GEN_SET_PARAMS, (fn)mns_dh_gen_set_params},
    {OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS, (fn)mns_dh_gen_settable_params},
    {OSSL_FUNC_KEYMGMT_GEN, (fn)mns_dh_gen},
    {OSSL_FUNC_KEYMGMT_GEN_CLEANUP, (fn)mns_dh_gen_cleanup},
    {0, NULL}};
