/* The DH group cache and the peer checks (dh_group.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/dh.h>
#include <openssl/obj_mac.h>

#include "provider/dh_group.h"

static const struct {
    const char *name;
    int nid;
} named[] = {{"ffdhe2048", NID_ffdhe2048}, {"ffdhe3072", NID_ffdhe3072},
             {"ffdhe4096", NID_ffdhe4096}, {"ffdhe6144", NID_ffdhe6144},
             {"ffdhe8192", NID_ffdhe8192}, {"modp_1536", NID_modp_1536},
             {"modp_2048", NID_modp_2048}, {"modp_3072", NID_modp_3072},
             {"modp_4096", NID_modp_4096}, {"modp_6144", NID_modp_6144},
             {"modp_8192", NID_modp_8192}};
#define NAMED (sizeof named / sizeof named[0])

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static int instances;
static mns_dh_group *groups; /* named first, then explicit ones */

static void mpz_of_bn(mpz_t z, const BIGNUM *b)
{
    int len = BN_num_bytes(b);
    unsigned char *buf = malloc(len ? (size_t)len : 1);
    if (!buf)
        return;
    BN_bn2bin(b, buf);
    mns_mpz_from_bytes(z, buf, (size_t)len);
    free(buf);
}

static mns_dh_group *group_new(void)
{
    mns_dh_group *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    mpz_inits(g->p, g->g, g->q, NULL);
    pthread_mutex_init(&g->lock, NULL);
    atomic_init(&g->quick, NULL);
    atomic_init(&g->fast, NULL);
    return g;
}

static void group_free(mns_dh_group *g)
{
    if (atomic_load(&g->upgrading))
        pthread_join(g->upgrader, NULL);
    mns_field_free(atomic_load(&g->quick));
    mns_field_free(atomic_load(&g->fast));
    mpz_clears(g->p, g->g, g->q, NULL);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/* The named groups, once; called with cache_lock held. */
static void load_named(void)
{
    if (groups)
        return;
    mns_dh_group **tail = &groups;
    for (size_t i = 0; i < NAMED; i++) {
        DH *dh = DH_new_by_nid(named[i].nid);
        mns_dh_group *g = dh ? group_new() : NULL;
        if (g) {
            const BIGNUM *p, *q, *gen;
            DH_get0_pqg(dh, &p, &q, &gen);
            g->name = named[i].name;
            g->keylen = DH_get_length(dh);
            mpz_of_bn(g->p, p);
            mpz_of_bn(g->g, gen);
            mpz_sub_ui(g->q, g->p, 1);
            mpz_tdiv_q_2exp(g->q, g->q, 1);
            g->safe = 1;
            *tail = g;
            tail = &g->next;
        }
        DH_free(dh);
    }
}

void mns_dh_groups_ref(void)
{
    pthread_mutex_lock(&cache_lock);
    instances++;
    pthread_mutex_unlock(&cache_lock);
}

void mns_dh_groups_unref(void)
{
    pthread_mutex_lock(&cache_lock);
    if (--instances == 0) {
        while (groups) {
            mns_dh_group *g = groups;
            groups = g->next;
            group_free(g);
        }
    }
    pthread_mutex_unlock(&cache_lock);
}

mns_dh_group *mns_dh_group_by_name(const mns_prov *prov, const char *name)
{
    pthread_mutex_lock(&cache_lock);
    load_named();
    mns_dh_group *g = groups;
    while (g && !(g->name && strcasecmp(g->name, name) == 0))
        g = g->next;
    pthread_mutex_unlock(&cache_lock);
    if (!g)
        MNS_PROV_ERR(prov, MNS_R_NOT_SUPPORTED, "DH: unknown group %s", name);
    return g;
}

/* p prime, g in [2, p - 2]; q (given, or (p - 1) / 2 if p is safe) prime
 * dividing p - 1. Fills grp->q and grp->safe. */
static int check_explicit(const mns_prov *prov, mns_dh_group *grp, const mpz_t q)
{
    mpz_t t;
    mpz_init(t);
    mpz_sub_ui(t, grp->p, 2);
    int ok = mpz_odd_p(grp->p) && mpz_sizeinbase(grp->p, 2) >= 512 &&
             mpz_cmp_ui(grp->g, 2) >= 0 && mpz_cmp(grp->g, t) <= 0 &&
             mpz_probab_prime_p(grp->p, 25) != 0;
    mpz_sub_ui(t, grp->p, 1);
    if (ok && q && mpz_sgn(q) > 0) {
        mpz_set(grp->q, q);
        ok = mpz_divisible_p(t, q) && mpz_probab_prime_p(q, 25) != 0;
    } else if (ok) {
        mpz_tdiv_q_2exp(grp->q, t, 1);
        ok = mpz_probab_prime_p(grp->q, 25) != 0;
    }
    mpz_tdiv_q_2exp(t, t, 1);
    grp->safe = ok && mpz_cmp(t, grp->q) == 0;
    mpz_clear(t);
    if (!ok)
        MNS_PROV_ERR(prov, MNS_R_BAD_KEY,
                     "DH: group is not a prime p >= 512 bits with a prime q | p - 1 (or a safe prime)");
    return ok;
}

mns_dh_group *mns_dh_group_find(const mns_prov *prov, const mpz_t p, const mpz_t g,
                                      const mpz_t q)
{
    pthread_mutex_lock(&cache_lock);
    load_named();
    mns_dh_group *it = groups, **tail = &groups;
    for (; it; tail = &it->next, it = it->next)
        if (mpz_cmp(it->p, p) == 0 && mpz_cmp(it->g, g) == 0 &&
            (!q || mpz_sgn(q) == 0 || mpz_cmp(it->q, q) == 0))
            break;
    if (!it && (it = group_new())) {
        mpz_set(it->p, p);
        mpz_set(it->g, g);
        if (check_explicit(prov, it, q)) {
            *tail = it;
        } else {
            group_free(it);
            it = NULL;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    return it;
}

static void *upgrade_main(void *arg)
{
    mns_dh_group *grp = arg;
    mns_field *f = NULL;
    if (mns_field_new(&f, grp->p, "auto:op=exp") == MNS_OK)
        atomic_store(&grp->fast, f);
    return NULL;
}

static long upgrade_after(void)
{
    static atomic_long cached = LONG_MIN;
    long v = atomic_load(&cached);
    if (v == LONG_MIN) {
        const char *s = getenv("MNS_PROVIDER_DH_UPGRADE");
        v = s && *s ? strtol(s, NULL, 10) : MNS_PROV_DH_UPGRADE_AFTER;
        atomic_store(&cached, v);
    }
    return v;
}

const mns_field *mns_dh_group_field(const mns_prov *prov, mns_dh_group *grp)
{
    const unsigned long uses = atomic_fetch_add(&grp->uses, 1);
    mns_field *f = atomic_load(&grp->fast);
    if (f)
        return f;
    const long after = upgrade_after();
    pthread_mutex_lock(&grp->lock);
    if (after == 0 && !atomic_load(&grp->fast))
        upgrade_main(grp);
    else if (after > 0 && uses >= (unsigned long)after && !atomic_load(&grp->upgrading))
        atomic_store(&grp->upgrading, pthread_create(&grp->upgrader, NULL, upgrade_main, grp) == 0);
    if (!(f = atomic_load(&grp->fast)) && !(f = atomic_load(&grp->quick))) {
        if (mns_field_new(&f, grp->p, "mont") == MNS_OK)
            atomic_store(&grp->quick, f);
        else
            MNS_PROV_ERR(prov, MNS_R_INTERNAL, "DH: %s", mns_last_error());
    }
    pthread_mutex_unlock(&grp->lock);
    return f;
}

int mns_dh_group_check_peer(const mns_prov *prov, const mns_dh_group *grp, const mpz_t y)
{
    mpz_t t;
    mpz_init(t);
    mpz_sub_ui(t, grp->p, 2);
    int ok = mpz_cmp_ui(y, 2) >= 0 && mpz_cmp(y, t) <= 0;
    if (!ok) {
        MNS_PROV_ERR(prov, MNS_R_BAD_PEER, "DH: peer value outside [2, p - 2]");
    } else {
        /* public values: variable time */
        if (grp->safe) {
            ok = mpz_jacobi(y, grp->p) == 1;
        } else {
            mpz_powm(t, y, grp->q, grp->p);
            ok = mpz_cmp_ui(t, 1) == 0;
        }
        if (!ok)
            MNS_PROV_ERR(prov, MNS_R_BAD_PEER, "DH: peer value not in the subgroup of order q");
    }
    mpz_clear(t);
    return ok;
}

const char *mns_dh_group_backend(const mns_dh_group *grp)
{
    const mns_field *f = atomic_load(&grp->fast);
    if (!f)
        f = atomic_load(&grp->quick);
    return f ? mns_field_describe(f) : "(no field yet)";
}

int mns_dh_group_power(const mns_prov *prov, mns_dh_group *grp, mpz_t out, const mpz_t base,
                       const mpz_t e)
{
    const mns_field *f = mns_dh_group_field(prov, grp);
    if (!f)
        return 0;
    const size_t words = mns_field_limbs(f);
    uint64_t *el = calloc(words, sizeof *el);
    int ok = el && mns_field_set_mpz(f, el, base) == MNS_OK;
    if (ok) {
        mns_field_powm(f, el, el, e);
        mns_field_get_mpz(f, out, el);
        OPENSSL_cleanse(el, words * sizeof *el);
    } else {
        MNS_PROV_ERR(prov, MNS_R_INTERNAL, "DH: %s", el ? mns_last_error() : "out of memory");
    }
    free(el);
    return ok;
}
