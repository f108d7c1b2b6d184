/* n-th roots mod p for gamma, with GMP.
 *
 * Why not FLINT's fmpz_mod_poly_roots on X^n - lambda: Cantor-Zassenhaus
 * first computes X^p mod (X^n - lambda), log2(p) squarings of a degree-n
 * polynomial with log2(p)-bit coefficients -- tens of seconds at 8192 bits.
 * Here a few modular exponentiations do it:
 *   g = gcd(n, p-1), n = g n', p-1 = g m'. x -> x^n has kernel of size g and
 *   image the g-th powers, so X^n = a is solvable iff a^((p-1)/g) = 1. With
 *   e = n'^-1 mod m', z = a^e satisfies z^n' = a, and the g-th roots of z are
 *   exactly the g solutions of X^n = a. g-th roots are taken one prime r | g
 *   at a time by the Adleman-Manders-Miller generalisation of Tonelli-Shanks.
 * FLINT's root finder stays the independent cross-check in the tests.
 */
#include "gen/gen.h"

#include <stdlib.h>

int mns_is_nth_power(const mpz_t a, unsigned long n, const mpz_t p)
{
    mpz_t pm1, g, t;
    mpz_inits(pm1, g, t, NULL);
    mpz_sub_ui(pm1, p, 1);
    mpz_gcd_ui(g, pm1, n);
    if (mpz_cmp_ui(g, 2) <= 0) {
        /* g = 1: every element; g = 2: a square. No exponentiation: at 8192
         * bits the lambda search would otherwise cost seconds. */
        mpz_mod(t, a, p);
        int ok = mpz_cmp_ui(g, 1) == 0 || mpz_jacobi(t, p) == 1;
        mpz_clears(pm1, g, t, NULL);
        return ok;
    }
    mpz_divexact(t, pm1, g);
    mpz_powm(t, a, t, p);
    int ok = mpz_cmp_ui(t, 1) == 0;
    mpz_clears(pm1, g, t, NULL);
    return ok;
}

void mns_chi_cache_clear(mns_chi_cache *c)
{
    for (int i = 0; i < c->cnt; i++)
        mpz_clear(c->e[i].chi);
    free(c->e);
    c->e = NULL;
    c->cnt = c->cap = 0;
}

/* chi_g(q) = q^((p-1)/g) mod p, from the cache or computed into it. */
static mpz_srcptr chi(mns_chi_cache *c, unsigned long g, long q, const mpz_t p)
{
    for (int i = 0; i < c->cnt; i++)
        if (c->e[i].g == g && c->e[i].q == q)
            return c->e[i].chi;
    if (c->cnt == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        mns_chi_entry *e = realloc(c->e, sizeof *e * (size_t)cap);
        if (!e)
            return NULL;
        c->e = e;
        c->cap = cap;
    }
    mns_chi_entry *e = &c->e[c->cnt++];
    e->g = g;
    e->q = q;
    mpz_init(e->chi);
    mpz_t t;
    mpz_init(t);
    mpz_sub_ui(t, p, 1);
    mpz_divexact_ui(t, t, g);
    mpz_set_si(e->chi, q);
    mpz_mod(e->chi, e->chi, p);
    mpz_powm(e->chi, e->chi, t, p);
    mpz_clear(t);
    return e->chi;
}

int mns_is_nth_power_si(mns_chi_cache *c, long lambda, unsigned long n, const mpz_t p)
{
    mpz_t pm1, a;
    mpz_init(pm1);
    mpz_sub_ui(pm1, p, 1);
    unsigned long g = mpz_gcd_ui(NULL, pm1, n);
    mpz_clear(pm1);
    if (g <= 2) {
        /* every element, or a square: no exponentiation either way */
        mpz_init_set_si(a, lambda);
        int ok = mns_is_nth_power(a, n, p);
        mpz_clear(a);
        return ok;
    }
    mpz_init_set_ui(a, 1);
    int ok = 1;
    unsigned long m = lambda < 0 ? (unsigned long)-lambda : (unsigned long)lambda;
    if (lambda < 0) {
        mpz_srcptr x = chi(c, g, -1, p);
        if (!x)
            ok = -1;
        else
            mpz_mul(a, a, x);
    }
    for (unsigned long q = 2; q <= m && ok > 0; q++) {
        while (m % q == 0 && ok > 0) {
            m /= q;
            mpz_srcptr x = chi(c, g, (long)q, p);
            if (!x) {
                ok = -1;
                break;
            }
            mpz_mul(a, a, x);
            mpz_mod(a, a, p);
        }
    }
    if (ok > 0) {
        mpz_mod(a, a, p);
        ok = mpz_cmp_ui(a, 1) == 0;
    }
    mpz_clear(a);
    return ok;
}

/* c <- the smallest integer >= 2 that is not an r-th power mod p (r prime,
 * r | p-1). For r = 2 a Jacobi symbol decides, not an exponentiation: the
 * smallest quadratic non-residue can be 5 or 7 and this runs for every prime
 * factor of every n tried. */
static void non_rth_power(mpz_t c, unsigned long r, const mpz_t p)
{
    mpz_t e, t;
    mpz_inits(e, t, NULL);
    mpz_sub_ui(e, p, 1);
    mpz_divexact_ui(e, e, r);
    for (mpz_set_ui(c, 2);; mpz_add_ui(c, c, 1)) {
        if (r == 2) {
            if (mpz_jacobi(c, p) == -1)
                break;
            continue;
        }
        mpz_powm(t, c, e, p);
        if (mpz_cmp_ui(t, 1) != 0)
            break;
    }
    mpz_clears(e, t, NULL);
}

/* y <- an r-th root of x mod p, r prime dividing p-1, x an r-th power. */
static void rth_root(mpz_t y, const mpz_t x_in, unsigned long r, const mpz_t p)
{
    mpz_t x, pm1, q, u, c, xi, zeta, beta, eps, t, e, *tab;
    mpz_inits(pm1, q, u, c, xi, zeta, beta, eps, t, e, NULL);
    mpz_init_set(x, x_in); /* y may alias x_in */
    mpz_sub_ui(pm1, p, 1);
    unsigned long tt = 0;
    mpz_set(q, pm1);
    while (mpz_divisible_ui_p(q, r)) {
        mpz_divexact_ui(q, q, r);
        tt++;
    }
    /* y0 = x^u with u = r^-1 mod q: y0^r = x * eps, eps in the r-Sylow group */
    if (mpz_cmp_ui(q, 1) == 0) {
        mpz_set_ui(u, 0);
    } else {
        mpz_set_ui(u, r);
        mpz_invert(u, u, q);
    }
    mpz_powm(y, x, u, p);
    if (tt <= 1) {
        /* the r-Sylow group has order r and eps has order dividing r^0 */
        goto done;
    }
    mpz_mul_ui(e, u, r);
    mpz_sub_ui(e, e, 1);
    mpz_powm(eps, x, e, p); /* e = -1 when q = 1: GMP inverts */
    /* xi: generator of the r-Sylow group, from a non-r-th power c */
    non_rth_power(c, r, p);
    mpz_powm(xi, c, q, p);
    mpz_powm_ui(zeta, xi, r, p); /* order r^(tt-1) */
    /* beta = zeta^(r^(tt-2)), of order r; table of its powers */
    mpz_ui_pow_ui(e, r, tt - 2);
    mpz_powm(beta, zeta, e, p);
    tab = malloc(sizeof(mpz_t) * r);
    mpz_init_set_ui(tab[0], 1);
    for (unsigned long l = 1; l < r; l++) {
        mpz_init(tab[l]);
        mpz_mul(tab[l], tab[l - 1], beta);
        mpz_mod(tab[l], tab[l], p);
    }
    /* Pohlig-Hellman: eps = zeta^L, digits of L in base r */
    mpz_t L, rp, cur, zinv;
    mpz_inits(L, rp, cur, zinv, NULL);
    mpz_set_ui(rp, 1);
    mpz_invert(zinv, zeta, p);
    for (unsigned long i = 0; i + 1 < tt; i++) {
        /* cur = (eps * zeta^-L)^(r^(tt-2-i)) = beta^(digit i) */
        mpz_powm(cur, zinv, L, p);
        mpz_mul(cur, cur, eps);
        mpz_mod(cur, cur, p);
        mpz_ui_pow_ui(e, r, tt - 2 - i);
        mpz_powm(cur, cur, e, p);
        unsigned long l = 0;
        while (l < r && mpz_cmp(tab[l], cur) != 0)
            l++;
        if (l == r)
            l = 0; /* cannot happen for an r-th power x */
        mpz_addmul_ui(L, rp, l);
        mpz_mul_ui(rp, rp, r);
    }
    /* y = y0 * xi^-L: (y0 xi^-L)^r = x eps zeta^-L = x */
    mpz_invert(t, xi, p);
    mpz_powm(t, t, L, p);
    mpz_mul(y, y, t);
    mpz_mod(y, y, p);
    mpz_clears(L, rp, cur, zinv, NULL);
    for (unsigned long l = 0; l < r; l++)
        mpz_clear(tab[l]);
    free(tab);
done:
    mpz_clears(x, pm1, q, u, c, xi, zeta, beta, eps, t, e, NULL);
}

static int cmp_mpz(const void *a, const void *b) { return mpz_cmp(*(const mpz_t *)a, *(const mpz_t *)b); }

int mns_nroots(mpz_t *roots, int max, const mpz_t a, unsigned long n, const mpz_t p)
{
    if (max <= 0 || n == 0)
        return 0;
    mpz_t pm1, g, np, mp, e, z, y, w, t;
    mpz_inits(pm1, g, np, mp, e, z, y, w, t, NULL);
    int count = 0;
    mpz_mod(z, a, p);
    if (mpz_sgn(z) == 0 || !mns_is_nth_power(z, n, p))
        goto out;
    mpz_sub_ui(pm1, p, 1);
    mpz_gcd_ui(g, pm1, n);
    unsigned long gg = mpz_get_ui(g);
    mpz_set_ui(np, n / gg);
    mpz_divexact(mp, pm1, g);
    if (mpz_cmp_ui(mp, 1) == 0)
        mpz_set_ui(e, 0);
    else
        mpz_invert(e, np, mp);
    mpz_powm(z, z, e, p);
    if (mpz_cmp_ui(mp, 1) == 0)
        mpz_mod(z, a, p);
    /* y: a g-th root of z, one prime factor of g at a time */
    /* An r-th root of a g-th power need not be a (g/r)-th power: among the
     * r roots y zeta^j one is, so step to it before the next prime. */
    mpz_set(y, z);
    unsigned long rest = gg;
    for (unsigned long r = 2; r <= rest; r++) {
        while (rest % r == 0) {
            rth_root(y, y, r, p);
            rest /= r;
            if (rest > 1 && !mns_is_nth_power(y, rest, p)) {
                /* zeta: a primitive r-th root of unity */
                mpz_divexact_ui(e, pm1, r);
                non_rth_power(t, r, p);
                mpz_powm(w, t, e, p);
                for (unsigned long j = 1; j < r; j++) {
                    mpz_mul(y, y, w);
                    mpz_mod(y, y, p);
                    if (mns_is_nth_power(y, rest, p))
                        break;
                }
            }
        }
    }
    /* omega: a primitive g-th root of unity, the product over r^a || g of
     * c_r^((p-1)/r^a) with c_r not an r-th power (order exactly r^a). The
     * set of roots, sorted below, does not depend on which omega. */
    mpz_set_ui(w, 1);
    {
        unsigned long m = gg;
        for (unsigned long r = 2; r <= m; r++) {
            if (m % r)
                continue;
            unsigned long ra = 1;
            while (m % r == 0) {
                m /= r;
                ra *= r;
            }
            non_rth_power(t, r, p);
            mpz_divexact_ui(e, pm1, ra);
            mpz_powm(z, t, e, p);
            mpz_mul(w, w, z);
            mpz_mod(w, w, p);
        }
    }
    mpz_t *all = malloc(sizeof(mpz_t) * gg);
    mpz_init_set(all[0], y);
    for (unsigned long i = 1; i < gg; i++) {
        mpz_init(all[i]);
        mpz_mul(all[i], all[i - 1], w);
        mpz_mod(all[i], all[i], p);
    }
    qsort(all, gg, sizeof(mpz_t), cmp_mpz);
    for (unsigned long i = 0; i < gg; i++) {
        if ((unsigned long)count < (unsigned long)max)
            mpz_set(roots[count++], all[i]);
        mpz_clear(all[i]);
    }
    free(all);
out:
    mpz_clears(pm1, g, np, mp, e, z, y, w, t, NULL);
    return count;
}
