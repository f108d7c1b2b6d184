/* The provider's DH key object: a cached group (dh_group.h) and the public
 * and private values; shared by the key manager and the exchange. */
#ifndef MNS_PROVIDER_DH_KEY_H
#define MNS_PROVIDER_DH_KEY_H

#include <stdatomic.h>
#include <gmp.h>
#include "provider/dh_group.h"

typedef struct mns_prov_dh {
    mns_prov *prov;
    atomic_int refs;
    mns_dh_group *grp; /* NULL until the domain parameters are set */
    int has_pub, has_priv;
    mpz_t pub, priv;
} mns_prov_dh;

mns_prov_dh *mns_prov_dh_new(mns_prov *prov);
void mns_prov_dh_up_ref(mns_prov_dh *key);
void mns_prov_dh_free(mns_prov_dh *key);

/* Key generation (dh_gen.c): a key pair on the group of a template key
 * or of a group name, or the domain parameters of a named group. */
void *mns_dh_gen_init(void *provctx, int selection, const OSSL_PARAM params[]);
int mns_dh_gen_set_template(void *genctx, void *templ);
int mns_dh_gen_set_params(void *genctx, const OSSL_PARAM params[]);
const OSSL_PARAM *mns_dh_gen_settable_params(void *genctx, void *provctx);
void *mns_dh_gen(void *genctx, OSSL_CALLBACK *cb, void *cbarg);
void mns_dh_gen_cleanup(void *genctx);

#endif /* MNS_PROVIDER_DH_KEY_H */
