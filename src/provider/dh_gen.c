/* DH key generation on a known group (dh_key.h). The private value has a
 * fixed bit length N (its top bit set), because mns_field_powm is constant
 * time for a given exponent length: N is the group's private length
 * (RFC 7919 / OpenSSL's for named groups, or "priv_len"), twice the
 * security level for other safe primes, else x is uniform in [1, q). */
#include <stdlib.h>
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include "provider/dh_key.h"

typedef struct gen_ctx {
    mns_prov *prov;
    int selection;
    mns_dh_group *grp;
    int privlen;
} gen_ctx;

void *mns_dh_gen_init(void *provctx, int selection, const OSSL_PARAM params[])
{
    gen_ctx *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->prov = provctx;
    g->selection = selection;
    if (!mns_dh_gen_set_params(g, params)) {
        free(g);
        return NULL;
    }
    return g;
}

int mns_dh_gen_set_template(void *vg, void *templ)
{
    gen_ctx *g = vg;
    const mns_prov_dh *t = templ;
    if (!t || !t->grp)
        return 0;
    g->grp = t->grp;
    return 1;
}

int mns_dh_gen_set_params(void *vg, const OSSL_PARAM params[])
{
    gen_ctx *g = vg;
    const OSSL_PARAM *p;
    const char *name = NULL;
    if (!params)
        return 1;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_GROUP_NAME))) {
        if (!OSSL_PARAM_get_utf8_string_ptr(p, &name) ||
            !(g->grp = mns_dh_group_by_name(g->prov, name)))
            return 0;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_DH_PRIV_LEN)) &&
        !OSSL_PARAM_get_int(p, &g->privlen))
        return 0;
    return 1;
}

static const OSSL_PARAM settable[] = {
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_DH_PRIV_LEN, NULL), OSSL_PARAM_END};

const OSSL_PARAM *mns_dh_gen_settable_params(void *vg, void *provctx)
{
    (void)vg;
    (void)provctx;
    return settable;
}

/* x of the group's private length (the file's comment). */
static int private_value(const gen_ctx *g, mpz_t x)
{
    const mns_dh_group *grp = g->grp;
    const size_t pbits = mpz_sizeinbase(grp->p, 2), qbits = mpz_sizeinbase(grp->q, 2);
    long n = g->privlen > 0 ? g->privlen : grp->keylen;
    if (n <= 0 && grp->safe)
        n = 2 * BN_security_bits((int)pbits, -1);
    if (n <= 1 || (size_t)n >= qbits)
        return mns_prov_random_below(g->prov, x, grp->q);
    mpz_t bound;
    mpz_init(bound);
    mpz_setbit(bound, (mp_bitcnt_t)n - 1);
    int ok = mns_prov_random_below(g->prov, x, bound);
    mpz_setbit(x, (mp_bitcnt_t)n - 1);
    mpz_clear(bound);
    return ok;
}

void *mns_dh_gen(void *vg, OSSL_CALLBACK *cb, void *cbarg)
{
    (void)cb;
    (void)cbarg;
    gen_ctx *g = vg;
    if (!g->grp) {
        MNS_PROV_ERR(g->prov, MNS_R_NOT_SUPPORTED,
                     "DH: mns generates keys on a named or given group only");
        return NULL;
    }
    mns_prov_dh *k = mns_prov_dh_new(g->prov);
    if (!k)
        return NULL;
    k->grp = g->grp;
    if (g->selection & OSSL_KEYMGMT_SELECT_KEYPAIR) {
        if (!private_value(g, k->priv) || !mns_dh_group_power(g->prov, k->grp, k->pub, k->grp->g, k->priv)) {
            mns_prov_dh_free(k);
            return NULL;
        }
        k->has_priv = k->has_pub = 1;
    }
    return k;
}

void mns_dh_gen_cleanup(void *vg) { free(vg); }
