/* Finite-field Diffie-Hellman key exchange: the secret is peer^x mod p in
 * the group's cached field (dh_group.h), after the peer's value is checked
 * (2 <= y <= p - 2 and in the subgroup of order q); a secret of 1 is
 * refused too. The output is the big-endian secret without its leading
 * zero bytes, or padded to the size of p with "pad" = 1 (what TLS 1.3
 * asks for). Every successful derive counts in "mns-dh-derives".
 * Constant time: the power is mns_field_powm, constant time for the bit
 * length of x, which is fixed for keys mns generates (dh_gen.c) but is
 * that of x for imported keys (what leaks is the count of x's leading zero
 * bits); the secret leaves the field through mns_field_get_mpz, which is
 * not constant time. */
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "provider/dh_key.h"

typedef struct exch_ctx {
    mns_prov *prov;
    mns_prov_dh *key, *peer;
    unsigned pad;
} exch_ctx;

static void *exch_newctx(void *provctx)
{
    exch_ctx *c = calloc(1, sizeof *c);
    if (c)
        c->prov = provctx;
    return c;
}

static void exch_freectx(void *vc)
{
    exch_ctx *c = vc;
    if (!c)
        return;
    mns_prov_dh_free(c->key);
    mns_prov_dh_free(c->peer);
    free(c);
}

static void *exch_dupctx(void *vc)
{
    exch_ctx *d = malloc(sizeof *d);
    if (!d)
        return NULL;
    *d = *(exch_ctx *)vc;
    if (d->key)
        mns_prov_dh_up_ref(d->key);
    if (d->peer)
        mns_prov_dh_up_ref(d->peer);
    return d;
}

static int exch_set_ctx_params(void *vc, const OSSL_PARAM params[]);

static int exch_init(void *vc, void *vkey, const OSSL_PARAM params[])
{
    exch_ctx *c = vc;
    mns_prov_dh *k = vkey;
    if (!k || !k->grp || !k->has_priv) {
        MNS_PROV_ERR(c->prov, MNS_R_MISSING_KEY, "DH: derive needs a private key on a group");
        return 0;
    }
    mns_prov_dh_up_ref(k);
    mns_prov_dh_free(c->key);
    c->key = k;
    c->pad = 0;
    return exch_set_ctx_params(c, params);
}

static int exch_set_peer(void *vc, void *vpeer)
{
    exch_ctx *c = vc;
    mns_prov_dh *p = vpeer;
    if (!c->key || !p || !p->has_pub || !p->grp || mpz_cmp(p->grp->p, c->key->grp->p) != 0 ||
        mpz_cmp(p->grp->g, c->key->grp->g) != 0) {
        MNS_PROV_ERR(c->prov, MNS_R_BAD_PEER, "DH: peer key missing or on another group");
        return 0;
    }
    if (!mns_dh_group_check_peer(c->prov, c->key->grp, p->pub))
        return 0;
    mns_prov_dh_up_ref(p);
    mns_prov_dh_free(c->peer);
    c->peer = p;
    return 1;
}

static int exch_derive(void *vc, unsigned char *secret, size_t *secretlen, size_t outlen)
{
    exch_ctx *c = vc;
    if (!c->key || !c->peer) {
        MNS_PROV_ERR(c->prov, MNS_R_MISSING_KEY, "DH: derive without key or peer");
        return 0;
    }
    const size_t len = mpz_sizeinbase(c->key->grp->p, 256);
    if (!secret) {
        *secretlen = len;
        return 1;
    }
    if (outlen < len) {
        MNS_PROV_ERR(c->prov, MNS_R_BUFFER_TOO_SMALL, "DH: %zu bytes needed, %zu given", len, outlen);
        return 0;
    }
    mpz_t z;
    mpz_init(z);
    int ok = mns_dh_group_power(c->prov, c->key->grp, z, c->peer->pub, c->key->priv);
    if (ok && mpz_cmp_ui(z, 1) <= 0) {
        MNS_PROV_ERR(c->prov, MNS_R_BAD_PEER, "DH: the shared secret is degenerate");
        ok = 0;
    }
    size_t n = c->pad ? len : mpz_sizeinbase(z, 256);
    if (ok && (ok = mns_mpz_to_bytes(secret, n, z))) {
        *secretlen = n;
        atomic_fetch_add(&mns_prov_dh_ops, 1);
    }
    mns_mpz_wipe_clear(z);
    return ok;
}

static int exch_set_ctx_params(void *vc, const OSSL_PARAM params[])
{
    exch_ctx *c = vc;
    const OSSL_PARAM *p;
    if (!params)
        return 1;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_EXCHANGE_PARAM_PAD)) && !OSSL_PARAM_get_uint(p, &c->pad))
        return 0;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_EXCHANGE_PARAM_KDF_TYPE))) {
        const char *s = NULL;
        if (!OSSL_PARAM_get_utf8_string_ptr(p, &s) || (s && *s)) {
            MNS_PROV_ERR(c->prov, MNS_R_NOT_SUPPORTED, "DH: no KDF in the exchange (X9.42)");
            return 0;
        }
    }
    return 1;
}

static const OSSL_PARAM settable[] = {
    OSSL_PARAM_uint(OSSL_EXCHANGE_PARAM_PAD, NULL),
    OSSL_PARAM_utf8_string(OSSL_EXCHANGE_PARAM_KDF_TYPE, NULL, 0), OSSL_PARAM_END};

static const OSSL_PARAM *exch_settable(void *vc, void *provctx)
{
    (void)vc;
    (void)provctx;
    return settable;
}

typedef void (*fn)(void);
const OSSL_DISPATCH mns_dh_keyexch_functions[] = {
    {OSSL_FUNC_KEYEXCH_NEWCTX, (fn)exch_newctx},
    {OSSL_FUNC_KEYEXCH_INIT, (fn)exch_init},
    {OSSL_FUNC_KEYEXCH_SET_PEER, (fn)exch_set_peer},
    {OSSL_FUNC_KEYEXCH_DERIVE, (fn)exch_derive},
    {OSSL_FUNC_KEYEXCH_FREECTX, (fn)exch_freectx},
    {OSSL_FUNC_KEYEXCH_DUPCTX, (fn)exch_dupctx},
    {OSSL_FUNC_KEYEXCH_SET_CTX_PARAMS, (fn)exch_set_ctx_params},
    {OSSL_FUNC_KEYEXCH_SETTABLE_CTX_PARAMS, (fn)exch_settable},
    {0, NULL}};
