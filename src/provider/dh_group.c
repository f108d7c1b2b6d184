/* The DH group cache and the peer checks (dh_group.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

static void destroy(mns_dh_group *g)
{
    mns_field_free(atomic_load(&g->quick));
    mns_field_free(atomic_load(&g->fast));
    mpz_clears(g->p, g->g, g->q, NULL);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/* An "auto" field can take seconds to make (20 s at 8192 bits on a loaded
 * Zen 3): a group whose upgrade still runs is left to its thread, which
 * frees it, so that unloading the module does not wait. */
static void group_free(mns_dh_group *g)
{
    pthread_mutex_lock(&g->lock);
    const int running = atomic_load(&g->upgrading) && !g->up_done;
    const pthread_t th = g->upgrader;
    g->orphan = running;
    pthread_mutex_unlock(&g->lock);
    if (running) {
        pthread_detach(th);
        return;
    }
    if (atomic_load(&g->upgrading))
        pthread_join(th, NULL);
    destroy(g);
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

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds of one derive-shaped operation in f (entry, power, exit), the
 * best of three. */
static double derive_time(const mns_field *f, const mpz_t base, const mpz_t e)
{
    uint64_t *el = calloc(mns_field_limbs(f), sizeof *el);
    double best = 1e30;
    mpz_t out;
    mpz_init(out);
    for (int i = 0; i < 3 && el; i++) {
        double t0 = now_s();
        mns_field_set_mpz(f, el, base);
        mns_field_powm(f, el, el, e);
        mns_field_get_mpz(f, out, el);
        double t = now_s() - t0;
        best = t < best ? t : best;
    }
    mpz_clear(out);
    free(el);
    return best;
}

/* The "auto" field is kept only if it derives faster than the quick one:
 * "auto" follows the tuning table's full-length exponentiations, while a
 * DH exponent has a few hundred bits and the entry and exit weigh more
 * (on the Zen 3, pmns-mp at 3072-8192 bits: 2-4x slower than mont). */
static int auto_is_faster(const mns_dh_group *grp, const mns_field *fast, const mns_field *quick)
{
    mpz_t base, e;
    mpz_inits(base, e, NULL);
    mpz_sub_ui(base, grp->p, 3);
    long bits = grp->keylen > 0 ? grp->keylen : 2 * BN_security_bits((int)mpz_sizeinbase(grp->p, 2), -1);
    mpz_setbit(e, (mp_bitcnt_t)bits);
    mpz_sub_ui(e, e, 1);
    double tf = 1e30, tq = 1e30;
    for (int r = 0; r < 3; r++) { /* alternating, so a change of load hits both */
        double a = derive_time(fast, base, e), b = derive_time(quick, base, e);
        tf = a < tf ? a : tf;
        tq = b < tq ? b : tq;
    }
    mpz_clears(base, e, NULL);
    return tf < 0.95 * tq;
}

static mns_field *make_fast(const mns_dh_group *grp)
{
    mns_field *f = NULL;
    return mns_field_new(&f, grp->p, "auto:op=exp") == MNS_OK ? f : NULL;
}

static void *upgrade_thread(void *arg)
{
    mns_dh_group *grp = arg;
    mns_field *f = make_fast(grp), *quick = atomic_load(&grp->quick);
    if (f && quick && !auto_is_faster(grp, f, quick)) {
        mns_field_free(f);
        f = NULL;
    }
    pthread_mutex_lock(&grp->lock);
    grp->up_done = 1;
    const int orphan = grp->orphan;
    if (!orphan && f)
        atomic_store(&grp->fast, f);
    atomic_store(&grp->settled, 1);
    pthread_mutex_unlock(&grp->lock);
    if (orphan) {
        mns_field_free(f);
        destroy(grp);
    }
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
    if (atomic_load(&grp->settled) && (f = atomic_load(&grp->quick)))
        return f;
    const long after = upgrade_after();
    pthread_mutex_lock(&grp->lock);
    if (after == 0 && !atomic_load(&grp->fast) && !atomic_load(&grp->settled)) {
        atomic_store(&grp->fast, make_fast(grp));
        atomic_store(&grp->settled, 1);
    } else if (after > 0 && uses >= (unsigned long)after && !atomic_load(&grp->upgrading)) {
        atomic_store(&grp->upgrading, pthread_create(&grp->upgrader, NULL, upgrade_thread, grp) == 0);
    }
    if (!(f = atomic_load(&grp->fast)) && !(f = atomic_load(&grp->quick))) {
        if (mns_field_new(&f, grp->p, "mont") == MNS_OK) {
            snprintf(grp->quick_desc, sizeof grp->quick_desc, "quick %s", mns_field_describe(f));
            atomic_store(&grp->quick, f);
        }
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
    if (f)
        return mns_field_describe(f);
    if (!atomic_load(&grp->quick))
        return "(no field yet)";
    return atomic_load(&grp->settled) ? mns_field_describe(atomic_load(&grp->quick)) : grp->quick_desc;
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
