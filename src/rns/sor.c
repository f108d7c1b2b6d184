/* Sum of residues: the moduli, the conditions (R), (K), (P), (A) of sor.h and
 * the precomputed tables of Algorithm 2. Setup is variable time and divides
 * freely; only the kernels may not. */
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/error.h"
#include "rns/rns.h"
#include "rns/sor.h"
#include "rns/word.h"

#define IFMA_C_LIMIT ((uint64_t)1 << 16)
#define DELTA_CAP (1 << 24)

void mns_sor_free(mns_sor *s)
{
    if (!s)
        return;
    free(s->m);
    free(s->c);
    free(s->minv);
    free(s->twop);
    free(s->one);
    free(s->tab);
    free(s->ahat);
    free(s->ahat52);
    mpz_clears(s->p, s->M, s->eps, NULL);
    free(s);
}

static void base_product(mpz_t M, const uint64_t *c, size_t N, unsigned k)
{
    mpz_set_ui(M, 1);
    for (size_t i = 0; i < N; i++)
        mpz_mul_ui(M, M, ((uint64_t)1 << k) - c[i]);
}

static uint64_t offset_o(const uint64_t *c, size_t N)
{
    uint64_t o = 0;
    for (size_t i = 0; i < N; i++)
        o += c[i];
    return o;
}

/* (R): (delta + 1)^2 <= (2^k - o) M / (4 p^2 2^k) */
long mns_sor_max_delta(const mpz_t p, const uint64_t *c, size_t N, unsigned k)
{
    mpz_t M, t, q;
    mpz_inits(M, t, q, NULL);
    base_product(M, c, N, k);
    uint64_t o = offset_o(c, N);
    long d = -1;
    if (o < ((uint64_t)1 << k)) {
        mpz_mul_ui(q, M, ((uint64_t)1 << k) - o);
        mpz_mul(t, p, p);
        mpz_mul_2exp(t, t, k + 2);
        mpz_fdiv_q(q, q, t);
        mpz_sqrt(q, q);
        d = mpz_cmp_ui(q, DELTA_CAP + 1) > 0 ? DELTA_CAP : (long)mpz_get_ui(q) - 1;
    }
    mpz_clears(M, t, q, NULL);
    return d;
}

/* (K): G (eps 2^T + 2^W) <= 2^(W + T), G = sum (m_i - 1) + N - 1 */
int mns_sor_kappa_ok(const mpz_t p, const uint64_t *c, size_t N, unsigned k)
{
    const size_t W = mpz_sizeinbase(p, 2);
    mpz_t G, t, u;
    mpz_inits(G, t, u, NULL);
    mpz_set_ui(G, (unsigned long)(N - 1));
    for (size_t i = 0; i < N; i++)
        mpz_add_ui(G, G, ((uint64_t)1 << k) - c[i] - 1);
    mpz_setbit(t, W);
    mpz_sub(t, t, p); /* eps = 2^W - p >= 1 */
    mpz_mul_2exp(t, t, MNS_SOR_T);
    mpz_setbit(u, W);
    mpz_add(t, t, u);
    mpz_mul(t, t, G);
    mpz_set_ui(u, 0);
    mpz_setbit(u, W + MNS_SOR_T);
    int ok = mpz_cmp(t, u) <= 0;
    mpz_clears(G, t, u, NULL);
    return ok;
}

static mns_status precompute(mns_sor *s, const uint64_t *cs)
{
    const size_t N = s->N, np = s->npad;
    const unsigned k = s->k;
    s->m = mns_rns_alloc_words(np);
    s->c = mns_rns_alloc_words(np);
    s->minv = mns_rns_alloc_words(np);
    s->twop = mns_rns_alloc_words(np);
    s->one = mns_rns_alloc_words(np);
    s->tab = mns_rns_alloc_words((N + 3) * np);
    s->ahat = mns_rns_alloc_words(2 * (N + 1));
    s->ahat52 = mns_rns_alloc_words(2 * np);
    if (!s->m || !s->c || !s->minv || !s->twop || !s->one || !s->tab || !s->ahat || !s->ahat52)
        return mns_error(MNS_ENOMEM, "sor: out of memory");
    for (size_t j = 0; j < np; j++) {
        s->c[j] = j < N ? cs[j] : 1; /* padding lanes: any valid modulus */
        s->m[j] = ((uint64_t)1 << k) - s->c[j];
    }
    mpz_t Mi, a, t;
    mpz_inits(Mi, a, t, NULL);
    mpz_mul_2exp(t, s->p, 1);
    for (size_t j = 0; j < N; j++) {
        s->twop[j] = mpz_fdiv_ui(t, s->m[j]);
        s->one[j] = 1;
    }
    /* row i < N: <M_i>_p; row N: <-M>_p; and their a^ = floor(a 2^T / 2^W) */
    for (size_t i = 0; i <= N; i++) {
        if (i < N) {
            mpz_divexact_ui(Mi, s->M, s->m[i]);
            s->minv[i] = mns_rns_invmod_var(mpz_fdiv_ui(Mi, s->m[i]), s->m[i]);
            mpz_mod(a, Mi, s->p);
        } else {
            mpz_neg(a, s->M);
            mpz_mod(a, a, s->p);
        }
        for (size_t j = 0; j < N; j++)
            s->tab[i * np + j] = mpz_fdiv_ui(a, s->m[j]);
        mpz_mul_2exp(t, a, MNS_SOR_T);
        mpz_fdiv_q_2exp(t, t, s->W);
        s->ahat[2 * i] = mpz_getlimbn(t, 0);
        s->ahat[2 * i + 1] = mpz_size(t) > 1 ? mpz_getlimbn(t, 1) : 0;
        if (i < N) {
            s->ahat52[i] = s->ahat[2 * i] & (((uint64_t)1 << 52) - 1);
            s->ahat52[np + i] = (s->ahat[2 * i] >> 52) | (s->ahat[2 * i + 1] << 12);
        }
    }
    /* rows N + 1, N + 2: <-p>_{m_j}, <-p 2^k>_{m_j} */
    for (size_t j = 0; j < N; j++) {
        mpz_neg(t, s->p);
        s->tab[(N + 1) * np + j] = mpz_fdiv_ui(t, s->m[j]);
        mpz_mul_2exp(t, t, k);
        s->tab[(N + 2) * np + j] = mpz_fdiv_ui(t, s->m[j]);
    }
    mpz_clears(Mi, a, t, NULL);
    return MNS_OK;
}

mns_status mns_sor_new(mns_sor **out, const mpz_t p, const mns_sor_params *prm)
{
    if (!out || !p || !prm)
        return mns_error(MNS_EINVAL, "sor: NULL argument");
    *out = NULL;
    if (mpz_cmp_ui(p, 3) < 0 || mpz_even_p(p))
        return mns_error(MNS_EINVAL, "sor: the modulus must be odd and >= 3");
    if (prm->delta_min < 0 || prm->delta_min > DELTA_CAP)
        return mns_error(MNS_EINVAL, "sor: delta_min = %d out of [0, %d]", prm->delta_min,
                         DELTA_CAP);
    if (prm->N > MNS_SOR_NMAX)
        return mns_error(MNS_ENOTSUP, "sor: N = %u exceeds %d", prm->N, MNS_SOR_NMAX);
    const unsigned k = prm->ifma ? 52 : 63;
    const uint64_t climit = prm->ifma ? IFMA_C_LIMIT : (uint64_t)1 << (k / 2);
    if (prm->ifma && prm->kernel &&
        (!mns_rns_ifma_compiled() || !mns_cpu_has_ifma()))
        return mns_error(MNS_ENOTSUP, "sor: AVX-512 IFMA kernel not available (%s; MNS_CPU=%s)",
                         mns_cpu_features_string(),
                         getenv("MNS_CPU") ? getenv("MNS_CPU") : "unset");
    const size_t W = mpz_sizeinbase(p, 2);

    uint64_t *cs = malloc(MNS_SOR_NMAX * sizeof(uint64_t));
    if (!cs)
        return mns_error(MNS_ENOMEM, "sor: out of memory");
    size_t have = 0, N = prm->N ? prm->N : (2 * W + k) / k; /* log2 M > 2W first */
    uint64_t next_c = 1;
    long delta = -1;
    for (; N <= MNS_SOR_NMAX; N++) {
        have = mns_rns_pick_moduli(cs, have, N, &next_c, k, climit, p);
        if (have < N)
            break;
        delta = mns_sor_max_delta(p, cs, N, k);
        if (delta >= prm->delta_min || prm->N)
            break;
    }
    if (delta < prm->delta_min) {
        free(cs);
        return mns_error(MNS_ENOTSUP,
                         "sor: %s%u moduli 2^%u - c give no dynamic range for a %zu-bit p "
                         "with delta >= %d (condition (12): 4 (delta+1)^2 p^2 < (1 - Delta) M)",
                         prm->N ? "N = " : "at most ", prm->N ? prm->N : MNS_SOR_NMAX, k, W,
                         prm->delta_min);
    }
    if (!mns_sor_kappa_ok(p, cs, N, k)) {
        free(cs);
        mpz_t eps;
        mpz_init(eps);
        mpz_setbit(eps, W);
        mpz_sub(eps, eps, p);
        size_t eb = mpz_sizeinbase(eps, 2);
        mpz_clear(eps);
        return mns_error(MNS_ENOTSUP,
                         "sor: p = 2^%zu - eps with a %zu-bit eps is not served: kappa is "
                         "exact only for eps < 2^(W-k)/N (eq. (22); here W = %zu, k = %u, "
                         "N = %zu, so eps must have at most about %zu bits)",
                         W, eb, W, k, N, W > k + 8 ? W - k - 8 : 0);
    }

    mns_sor *s = calloc(1, sizeof *s);
    if (!s) {
        free(cs);
        return mns_error(MNS_ENOMEM, "sor: out of memory");
    }
    mpz_inits(s->p, s->M, s->eps, NULL);
    mpz_set(s->p, p);
    base_product(s->M, cs, N, k);
    mpz_setbit(s->eps, W);
    mpz_sub(s->eps, s->eps, p);
    s->k = k;
    s->W = (unsigned)W;
    s->N = N;
    s->npad = prm->ifma ? (N + 7) / 8 * 8 : N;
    s->delta = (int)delta;
    s->o = offset_o(cs, N);
    mns_status st = precompute(s, cs);
    free(cs);
    if (st != MNS_OK) {
        mns_sor_free(s);
        return st;
    }
    /* every condition and every table entry, recomputed independently of
     * precompute(): a wrong table would give wrong products silently */
    if ((st = mns_sor_check(s)) != MNS_OK) {
        mns_sor_free(s);
        return st;
    }
    if (prm->ifma && prm->kernel) {
        s->kernel_name = "ifma";
        s->mul = mns_sor_mul_ifma;
        s->add = mns_sor_add_ifma;
        s->sub = mns_sor_sub_ifma;
    } else {
        s->kernel_name = "generic";
        s->mul = mns_sor_mul_generic;
        s->add = mns_sor_add_generic;
        s->sub = mns_sor_sub_generic;
    }
    *out = s;
    return MNS_OK;
}

mns_status mns_sor_check(const mns_sor *s)
{
    const size_t N = s->N, np = s->npad;
    const unsigned k = s->k;
    const int ifma = k == 52;
    for (size_t i = 0; i < N; i++) {
        uint64_t c = s->c[i];
        if (s->m[i] != ((uint64_t)1 << k) - c || c == 0 || (mns_u128)c * c >= (mns_u128)1 << k ||
            (ifma && c >= IFMA_C_LIMIT))
            return mns_error(MNS_ERANGE, "sor: modulus %zu: c = %llu out of range", i,
                             (unsigned long long)c);
        if (mpz_gcd_ui(NULL, s->p, s->m[i]) != 1)
            return mns_error(MNS_ERANGE, "sor: modulus %zu not prime to p", i);
        for (size_t j = 0; j < i; j++)
            if (mns_rns_gcd_u64(s->m[i], s->m[j]) != 1)
                return mns_error(MNS_ERANGE, "sor: moduli %zu and %zu not coprime", j, i);
    }
    if (N + 3 > 255 || N > MNS_SOR_NMAX || (ifma && np % 8) || np < N)
        return mns_error(MNS_ERANGE, "sor: N = %zu not allowed", N);
    if (mns_sor_max_delta(s->p, s->c, N, k) < s->delta)
        return mns_error(MNS_ERANGE, "sor: (12) fails for delta = %d", s->delta);
    if (!mns_sor_kappa_ok(s->p, s->c, N, k))
        return mns_error(MNS_ERANGE, "sor: (22) fails: kappa^ not within one of kappa");
    if (s->o != offset_o(s->c, N))
        return mns_error(MNS_ERANGE, "sor: offset o is not sum c_i");
    /* every table entry, recomputed */
    mpz_t M, Mi, a, t;
    mpz_inits(M, Mi, a, t, NULL);
    base_product(M, s->c, N, k);
    int ok = mpz_cmp(M, s->M) == 0;
    for (size_t i = 0; ok && i <= N; i++) {
        if (i < N) {
            mpz_divexact_ui(Mi, M, s->m[i]);
            ok &= (mns_u128)s->minv[i] * mpz_fdiv_ui(Mi, s->m[i]) % s->m[i] == 1;
            mpz_mod(a, Mi, s->p);
        } else {
            mpz_neg(a, M);
            mpz_mod(a, a, s->p);
        }
        for (size_t j = 0; j < N; j++)
            ok &= s->tab[i * np + j] == mpz_fdiv_ui(a, s->m[j]);
        mpz_mul_2exp(t, a, MNS_SOR_T);
        mpz_fdiv_q_2exp(t, t, s->W);
        mpz_sub_ui(t, t, s->ahat[2 * i]);
        mpz_fdiv_q_2exp(t, t, 64);
        ok &= mpz_cmp_ui(t, s->ahat[2 * i + 1]) == 0 && s->ahat[2 * i + 1] < ((uint64_t)1 << 32);
        if (i < N) {
            mns_u128 a = ((mns_u128)s->ahat[2 * i + 1] << 64) | s->ahat[2 * i];
            ok &= s->ahat52[i] < ((uint64_t)1 << 52) && s->ahat52[np + i] < ((uint64_t)1 << 44) &&
                  (((mns_u128)s->ahat52[np + i] << 52) | s->ahat52[i]) == a;
        }
    }
    for (size_t j = 0; ok && j < N; j++) {
        mpz_neg(t, s->p);
        ok &= s->tab[(N + 1) * np + j] == mpz_fdiv_ui(t, s->m[j]);
        mpz_mul_2exp(t, t, k);
        ok &= s->tab[(N + 2) * np + j] == mpz_fdiv_ui(t, s->m[j]);
        mpz_mul_2exp(t, s->p, 1);
        ok &= s->twop[j] == mpz_fdiv_ui(t, s->m[j]) && s->one[j] == 1;
    }
    for (size_t j = N; ok && j < np; j++) {
        ok &= s->ahat52[j] == 0 && s->ahat52[np + j] == 0;
        ok &= s->minv[j] == 0 && s->twop[j] == 0 && s->one[j] == 0;
        for (size_t i = 0; i < N + 3; i++)
            ok &= s->tab[i * np + j] == 0;
    }
    mpz_clears(M, Mi, a, t, NULL);
    if (!ok)
        return mns_error(MNS_ERANGE, "sor: a precomputed table entry is wrong");
    return MNS_OK;
}

void mns_sor_from_mpz(const mns_sor *s, uint64_t *r, const mpz_t a)
{
    mpz_t t;
    mpz_init(t);
    mpz_mod(t, a, s->p);
    for (size_t j = 0; j < s->npad; j++)
        r[j] = j < s->N ? mpz_fdiv_ui(t, s->m[j]) : 0;
    mpz_clear(t);
}

void mns_sor_value(const mns_sor *s, mpz_t r, const uint64_t *a)
{
    mpz_t Mi;
    mpz_init(Mi);
    mpz_set_ui(r, 0);
    for (size_t i = 0; i < s->N; i++) {
        mpz_divexact_ui(Mi, s->M, s->m[i]);
        mpz_addmul_ui(r, Mi, (uint64_t)((mns_u128)a[i] * s->minv[i] % s->m[i]));
    }
    mpz_mod(r, r, s->M);
    mpz_clear(Mi);
}

void mns_sor_to_mpz(const mns_sor *s, mpz_t r, const uint64_t *a)
{
    mns_sor_value(s, r, a);
    mpz_mod(r, r, s->p);
}
