/* Base construction and the precomputed constants of Montgomery RNS.
 *
 * Moduli are 2^e - c for c = 1, 3, 5, ... (largest first), each kept if it is
 * prime to p and to every modulus kept before; they are dealt alternately to
 * Bm' and Bm so both products grow alike. n is the smallest multiple of
 * n_step for which every condition below holds (docs/rns.md proves why each
 * is needed):
 *   (P1) c^2 < 2^e for every modulus                      [paper, IV.A]
 *   (P2) the 2n moduli pairwise coprime, and prime to p   [RNS, p^-1 mod M']
 *   (P3) (n + 2)^2 p < M and (n + 2)^2 p < M'             [paper, III.A]
 *   (B1) (delta + 1)^2 tau^2 p <= M'    Montgomery output < tau p for loose inputs
 *   (B2) 2 (delta + 1) tau p <= M       Kawamura exact for every loose value
 *   (B3) 2 n c_max <= 2^e               Kawamura's error n eps below alpha = 1/2
 *   (K1) n <= MNS_RNS_NMAX, and c < 2^16 for the IFMA kernel
 * Setup is variable time and uses division freely; only the kernels may not. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cpu.h"
#include "core/error.h"
#include "rns/rns.h"
#include "rns/word.h"

#define IFMA_C_LIMIT ((uint64_t)1 << 16)
#define DELTA_CAP (1 << 24)

uint64_t mns_rns_gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static uint64_t mulmod_var(uint64_t a, uint64_t b, uint64_t m)
{
    return (uint64_t)((mns_u128)a * b % m);
}

/* a^-1 mod m by the extended Euclid algorithm; gcd(a, m) = 1. */
uint64_t mns_rns_invmod_var(uint64_t a, uint64_t m)
{
    __int128 t0 = 0, t1 = 1;
    uint64_t r0 = m, r1 = a % m;
    while (r1) {
        uint64_t q = r0 / r1, r2 = r0 - q * r1;
        __int128 t2 = t0 - (__int128)q * t1;
        r0 = r1;
        r1 = r2;
        t0 = t1;
        t1 = t2;
    }
    if (t0 < 0)
        t0 += m;
    return (uint64_t)t0;
}

void *mns_rns_alloc_words(size_t words)
{
    return mns_alloc64_words_zero(words);
}

void mns_rns_free(mns_rns *r)
{
    if (!r)
        return;
    free(r->m);
    free(r->c);
    free(r->taup);
    free(r->one);
    free(r->r2);
    free(r->c1);
    free(r->mpinv);
    free(r->d);
    free(r->minv);
    free(r->a1);
    free(r->a2);
    free(r->negM);
    mpz_clears(r->p, r->M, r->Mp, r->mpinv_p, NULL);
    free(r);
}

/* Extends cs[0..got) to up to `want` moduli 2^e - c, c odd below climit,
 * prime to p and to each other, trying c from *next on; returns the count. */
size_t mns_rns_pick_moduli(uint64_t *cs, size_t got, size_t want, uint64_t *next, unsigned e,
                          uint64_t climit, const mpz_t p)
{
    for (uint64_t c = *next; c < climit && got < want; c += 2) {
        *next = c + 2;
        uint64_t m = ((uint64_t)1 << e) - c;
        if (mpz_gcd_ui(NULL, p, m) != 1)
            continue;
        size_t k = 0;
        while (k < got && mns_rns_gcd_u64(m, ((uint64_t)1 << e) - cs[k]) == 1)
            k++;
        if (k == got)
            cs[got++] = c;
    }
    return got;
}

/* The largest delta (capped) that (B1) and (B2) allow for these bases; -1 if
 * not even delta = 0 fits. */
static long max_delta(const mpz_t p, const mpz_t M, const mpz_t Mp, size_t n)
{
    mpz_t t, q;
    mpz_inits(t, q, NULL);
    /* (B1): (delta + 1)^2 <= M' / (tau^2 p) */
    mpz_mul_ui(t, p, (unsigned long)((n + 1) * (n + 1)));
    mpz_fdiv_q(q, Mp, t);
    mpz_sqrt(q, q);
    long d1 = mpz_cmp_ui(q, DELTA_CAP + 1) > 0 ? DELTA_CAP + 1 : (long)mpz_get_ui(q);
    /* (B2): delta + 1 <= M / (2 tau p) */
    mpz_mul_ui(t, p, (unsigned long)(2 * (n + 1)));
    mpz_fdiv_q(q, M, t);
    long d2 = mpz_cmp_ui(q, DELTA_CAP + 1) > 0 ? DELTA_CAP + 1 : (long)mpz_get_ui(q);
    mpz_clears(t, q, NULL);
    long d = d1 < d2 ? d1 : d2;
    return d - 1 > DELTA_CAP ? DELTA_CAP : d - 1;
}

/* (P3): (n + 2)^2 p < X */
static int paper_bound(const mpz_t p, const mpz_t X, size_t n)
{
    mpz_t t;
    mpz_init(t);
    mpz_mul_ui(t, p, (unsigned long)((n + 2) * (n + 2)));
    int ok = mpz_cmp(t, X) < 0;
    mpz_clear(t);
    return ok;
}

static void products(const uint64_t *cs, size_t n, unsigned e, mpz_t M, mpz_t Mp)
{
    mpz_set_ui(M, 1);
    mpz_set_ui(Mp, 1);
    for (size_t i = 0; i < 2 * n; i++)
        mpz_mul_ui(i % 2 ? M : Mp, i % 2 ? M : Mp, ((uint64_t)1 << e) - cs[i]);
}

static mns_status precompute(mns_rns *r, const uint64_t *cs)
{
    const size_t n = r->n, np = r->npad;
    const unsigned e = r->e;
    r->m = mns_rns_alloc_words(2 * n);
    r->c = mns_rns_alloc_words(2 * n);
    r->taup = mns_rns_alloc_words(2 * n);
    r->one = mns_rns_alloc_words(2 * n);
    r->r2 = mns_rns_alloc_words(2 * n);
    r->c1 = mns_rns_alloc_words(n);
    r->mpinv = mns_rns_alloc_words(n);
    r->d = mns_rns_alloc_words(n);
    r->minv = mns_rns_alloc_words(n);
    r->a1 = mns_rns_alloc_words(n * np);
    r->a2 = mns_rns_alloc_words(n * np);
    r->negM = mns_rns_alloc_words(n);
    if (!r->m || !r->c || !r->taup || !r->one || !r->r2 || !r->c1 || !r->mpinv || !r->d || !r->minv ||
        !r->a1 || !r->a2 || !r->negM)
        return mns_error(MNS_ENOMEM, "rns: out of memory");
    /* element order: Bm (odd picks) then Bm' (even picks) */
    for (size_t i = 0; i < n; i++) {
        r->c[i] = cs[2 * i + 1];
        r->c[n + i] = cs[2 * i];
    }
    for (size_t i = 0; i < 2 * n; i++)
        r->m[i] = ((uint64_t)1 << e) - r->c[i];
    const uint64_t *m = r->m, *mp = r->m + n;

    mpz_t t;
    mpz_init(t);
    mpz_mul_ui(t, r->p, (unsigned long)(n + 1));
    for (size_t i = 0; i < 2 * n; i++)
        r->taup[i] = mpz_fdiv_ui(t, m[i]);
    mpz_mod(t, r->Mp, r->p);
    for (size_t i = 0; i < 2 * n; i++)
        r->one[i] = mpz_fdiv_ui(t, m[i]);
    mpz_mul(t, t, t);
    mpz_mod(t, t, r->p);
    for (size_t i = 0; i < 2 * n; i++)
        r->r2[i] = mpz_fdiv_ui(t, m[i]);
    mpz_invert(r->mpinv_p, r->Mp, r->p);

    for (size_t i = 0; i < n; i++) {
        /* (M'_i)^-1 mod m'_i and (-p^-1) (M'_i)^-1 mod m'_i */
        mpz_divexact_ui(t, r->Mp, mp[i]);
        r->mpinv[i] = mns_rns_invmod_var(mpz_fdiv_ui(t, mp[i]), mp[i]);
        uint64_t pinv = mns_rns_invmod_var(mpz_fdiv_ui(r->p, mp[i]), mp[i]);
        r->c1[i] = mulmod_var(mp[i] - pinv, r->mpinv[i], mp[i]);
        /* M'^-1 mod m_j and (M_j)^-1 mod m_j */
        r->d[i] = mns_rns_invmod_var(mpz_fdiv_ui(r->Mp, m[i]), m[i]);
        mpz_divexact_ui(t, r->M, m[i]);
        r->minv[i] = mns_rns_invmod_var(mpz_fdiv_ui(t, m[i]), m[i]);
    }
    for (size_t j = 0; j < n; j++) {
        uint64_t pj = mpz_fdiv_ui(r->p, m[j]);
        for (size_t i = 0; i < n; i++)
            r->a1[mns_rns_mat_index(r, i, j)] = mulmod_var(pj, mns_rns_invmod_var(mp[i] % m[j], m[j]), m[j]);
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t Mi = mpz_fdiv_ui(r->M, mp[i]);
        for (size_t j = 0; j < n; j++)
            r->a2[mns_rns_mat_index(r, j, i)] = mulmod_var(Mi, mns_rns_invmod_var(m[j] % mp[i], mp[i]), mp[i]);
        r->negM[i] = Mi ? mp[i] - Mi : 0;
    }
    mpz_clear(t);
    return MNS_OK;
}

mns_status mns_rns_new(mns_rns **out, const mpz_t p, const mns_rns_params *prm)
{
    if (!out || !p || !prm)
        return mns_error(MNS_EINVAL, "rns: NULL argument");
    *out = NULL;
    if (mpz_cmp_ui(p, 3) < 0)
        return mns_error(MNS_EINVAL, "rns: the modulus must be >= 3");
    const unsigned e = prm->e;
    if (e < 48 || e > 63)
        return mns_error(MNS_EINVAL, "rns: e = %u, the kernels need 48 <= e <= 63", e);
    if (prm->delta_min < 0 || prm->delta_min > DELTA_CAP)
        return mns_error(MNS_EINVAL, "rns: delta_min = %d out of [0, %d]", prm->delta_min,
                         DELTA_CAP);
    size_t step = prm->n_step ? prm->n_step : 1;
    uint64_t climit = (uint64_t)1 << (e / 2); /* c < 2^floor(e/2) implies c^2 < 2^e */
    if (prm->kernel == MNS_RNS_KERNEL_IFMA) {
        if (e != 52)
            return mns_error(MNS_EINVAL, "rns: the IFMA kernel needs e = 52 (got %u)", e);
        if (step % 8)
            step = step * 8 / mns_rns_gcd_u64(step, 8);
        if (!mns_rns_ifma_compiled() || !mns_cpu_has_ifma())
            return mns_error(MNS_ENOTSUP,
                             "rns: AVX-512 IFMA kernel not available (%s; MNS_CPU=%s)",
                             mns_cpu_features_string(),
                             getenv("MNS_CPU") ? getenv("MNS_CPU") : "unset");
        climit = IFMA_C_LIMIT;
    } else if (prm->kernel != MNS_RNS_KERNEL_GENERIC) {
        return mns_error(MNS_EINVAL, "rns: unknown kernel %d", (int)prm->kernel);
    }
    if (prm->n && prm->n % step)
        return mns_error(MNS_EINVAL, "rns: n = %u is not a multiple of %zu", prm->n, step);
    if (prm->n > MNS_RNS_NMAX)
        return mns_error(MNS_ENOTSUP, "rns: n = %u exceeds %d", prm->n, MNS_RNS_NMAX);

    const size_t bits = mpz_sizeinbase(p, 2);
    size_t nmax = MNS_RNS_NMAX / step * step;
    size_t n = prm->n ? prm->n : (bits + e - 1) / e;
    n = (n + step - 1) / step * step;
    if (n < step)
        n = step;

    uint64_t *cs = malloc(2 * MNS_RNS_NMAX * sizeof(uint64_t));
    if (!cs)
        return mns_error(MNS_ENOMEM, "rns: out of memory");
    size_t have = 0;
    uint64_t next_c = 1;

    mpz_t M, Mp;
    mpz_inits(M, Mp, NULL);
    long delta = -1;
    for (; n <= nmax; n += step) {
        have = mns_rns_pick_moduli(cs, have, 2 * n, &next_c, e, climit, p);
        if (have < 2 * n)
            break;
        products(cs, n, e, M, Mp);
        uint64_t cmax = 0;
        for (size_t i = 0; i < 2 * n; i++)
            cmax = cs[i] > cmax ? cs[i] : cmax;
        delta = max_delta(p, M, Mp, n);
        if (paper_bound(p, M, n) && paper_bound(p, Mp, n) && delta >= prm->delta_min &&
            2 * n * cmax <= ((uint64_t)1 << e))
            break;
        delta = -1;
        if (prm->n)
            break;
    }
    if (delta < 0) {
        mpz_clears(M, Mp, NULL);
        free(cs);
        if (prm->n)
            return mns_error(MNS_ENOTSUP,
                             "rns: n = %u moduli of %u bits cannot serve a %zu-bit p with "
                             "delta >= %d ((n+2)^2 p < M, M' and the bounds of docs/rns.md)",
                             prm->n, e, bits, prm->delta_min);
        return mns_error(MNS_ENOTSUP,
                         "rns: no base of at most %zu moduli 2^%u - c serves a %zu-bit p "
                         "(found %zu usable moduli)",
                         nmax, e, bits, have);
    }

    mns_rns *r = calloc(1, sizeof *r);
    if (!r) {
        mpz_clears(M, Mp, NULL);
        free(cs);
        return mns_error(MNS_ENOMEM, "rns: out of memory");
    }
    mpz_inits(r->p, r->M, r->Mp, r->mpinv_p, NULL);
    mpz_set(r->p, p);
    mpz_swap(r->M, M);
    mpz_swap(r->Mp, Mp);
    mpz_clears(M, Mp, NULL);
    r->e = e;
    r->n = n;
    r->npad = (n + 7) / 8 * 8;
    r->delta = (int)delta;
    r->kernel = prm->kernel; /* before precompute: it fixes the matrix layout */
    mns_status st = precompute(r, cs);
    free(cs);
    if (st != MNS_OK) {
        mns_rns_free(r);
        return st;
    }
    if (prm->kernel == MNS_RNS_KERNEL_IFMA) {
        r->kernel_name = "ifma";
        r->mul = mns_rns_mul_ifma;
        r->add = mns_rns_add_ifma;
        r->sub = mns_rns_sub_ifma;
    } else {
        r->kernel_name = "generic";
        r->mul = mns_rns_mul_generic;
        r->add = mns_rns_add_generic;
        r->sub = mns_rns_sub_generic;
    }
    *out = r;
    return MNS_OK;
}

mns_status mns_rns_check(const mns_rns *r)
{
    const size_t n = r->n;
    const unsigned e = r->e;
    uint64_t cmax = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        uint64_t c = r->c[i];
        if (r->m[i] != ((uint64_t)1 << e) - c || c == 0 || (mns_u128)c * c >= (mns_u128)1 << e)
            return mns_error(MNS_ERANGE, "rns: modulus %zu: c = %llu, not c^2 < 2^%u", i,
                             (unsigned long long)c, e);
        if (r->kernel == MNS_RNS_KERNEL_IFMA && c >= IFMA_C_LIMIT)
            return mns_error(MNS_ERANGE, "rns: modulus %zu: c >= 2^16 for the IFMA kernel", i);
        cmax = c > cmax ? c : cmax;
        if (mpz_gcd_ui(NULL, r->p, r->m[i]) != 1)
            return mns_error(MNS_ERANGE, "rns: modulus %zu not prime to p", i);
        for (size_t k = 0; k < i; k++)
            if (mns_rns_gcd_u64(r->m[i], r->m[k]) != 1)
                return mns_error(MNS_ERANGE, "rns: moduli %zu and %zu not coprime", k, i);
    }
    if (n > MNS_RNS_NMAX || (r->kernel == MNS_RNS_KERNEL_IFMA && n % 8))
        return mns_error(MNS_ERANGE, "rns: n = %zu not allowed for this kernel", n);
    if (2 * n * cmax > ((uint64_t)1 << e))
        return mns_error(MNS_ERANGE, "rns: Kawamura error 2 n c_max > 2^e");
    if (!paper_bound(r->p, r->M, n) || !paper_bound(r->p, r->Mp, n))
        return mns_error(MNS_ERANGE, "rns: (n+2)^2 p < M, M' fails");
    if (max_delta(r->p, r->M, r->Mp, n) < r->delta)
        return mns_error(MNS_ERANGE, "rns: delta = %d too large for the bounds", r->delta);
    mpz_t t;
    mpz_init_set_ui(t, 1);
    for (size_t i = 0; i < n; i++)
        mpz_mul_ui(t, t, r->m[i]);
    int okM = mpz_cmp(t, r->M) == 0;
    mpz_set_ui(t, 1);
    for (size_t i = 0; i < n; i++)
        mpz_mul_ui(t, t, r->m[n + i]);
    int okMp = mpz_cmp(t, r->Mp) == 0;
    mpz_clear(t);
    if (!okM || !okMp)
        return mns_error(MNS_ERANGE, "rns: M or M' is not the product of its base");
    return MNS_OK;
}

size_t mns_rns_n(const mns_rns *r) { return r->n; }
unsigned mns_rns_e(const mns_rns *r) { return r->e; }
int mns_rns_delta(const mns_rns *r) { return r->delta; }
size_t mns_rns_limbs(const mns_rns *r) { return 2 * r->n; }
const char *mns_rns_kernel_name(const mns_rns *r) { return r->kernel_name; }
const uint64_t *mns_rns_moduli(const mns_rns *r) { return r->m; }
void mns_rns_base_product(const mns_rns *r, mpz_t out, int base)
{
    mpz_set(out, base ? r->Mp : r->M);
}
