/* Polynomial arithmetic mod E and the bounds of include/mns_pmns.h, with GMP
 * only, so that reading and checking a parameter set never needs FLINT. */
#include "pmns/params.h"

#include <stdlib.h>

/* Folds c[0..2n-2] into c[0..n-1] mod E. For X^n - X - 1 the fold runs from
 * the top, since X^k = X^(k-n+1) + X^(k-n) may land again at degree >= n. */
static void fold(mpz_t *c, int n, mns_pmns_eshape e, long lambda)
{
    if (e == MNS_PMNS_E_BINOMIAL) {
        for (int i = 0; i + n <= 2 * n - 2; i++) {
            if (lambda >= 0)
                mpz_addmul_ui(c[i], c[i + n], (unsigned long)lambda);
            else
                mpz_submul_ui(c[i], c[i + n], (unsigned long)-lambda);
        }
    } else {
        for (int k = 2 * n - 2; k >= n; k--) {
            mpz_add(c[k - n], c[k - n], c[k]);
            mpz_add(c[k - n + 1], c[k - n + 1], c[k]);
        }
    }
}

void mns_poly_mulmod(mpz_t *r, mpz_t *const a, mpz_t *const b, int n, mns_pmns_eshape e, long lambda)
{
    mpz_t *c = malloc(sizeof(mpz_t) * (size_t)(2 * n));
    for (int i = 0; i < 2 * n; i++)
        mpz_init(c[i]);
    for (int i = 0; i < n; i++) {
        if (mpz_sgn(a[i]) == 0)
            continue;
        for (int j = 0; j < n; j++)
            mpz_addmul(c[i + j], a[i], b[j]);
    }
    fold(c, n, e, lambda);
    for (int i = 0; i < n; i++)
        mpz_swap(r[i], c[i]);
    for (int i = 0; i < 2 * n; i++)
        mpz_clear(c[i]);
    free(c);
}

void mns_poly_mulx(mpz_t *r, mpz_t *const a, int n, mns_pmns_eshape e, long lambda)
{
    mpz_t top;
    mpz_init_set(top, a[n - 1]);
    for (int i = n - 1; i > 0; i--)
        mpz_set(r[i], a[i - 1]);
    if (e == MNS_PMNS_E_BINOMIAL) {
        mpz_mul_si(r[0], top, lambda);
    } else {
        mpz_set(r[0], top);
        mpz_add(r[1], r[1], top);
    }
    mpz_clear(top);
}

void mns_poly_eval(mpz_t v, mpz_t *const a, int n, const mpz_t x, const mpz_t p)
{
    mpz_t t;
    mpz_init(t);
    for (int i = n - 1; i >= 0; i--) {
        mpz_mul(t, t, x);
        mpz_add(t, t, a[i]);
        mpz_mod(t, t, p);
    }
    mpz_set(v, t);
    mpz_clear(t);
}

void mns_poly_norm1(mpz_t N, int *nonneg, mpz_t *const m, int n, mns_pmns_eshape e, long lambda)
{
    mpz_t *row = malloc(sizeof(mpz_t) * (size_t)n);
    mpz_t *col = malloc(sizeof(mpz_t) * (size_t)n);
    int pos = 1;
    for (int i = 0; i < n; i++) {
        mpz_init_set(row[i], m[i]);
        mpz_init(col[i]);
    }
    for (int r = 0; r < n; r++) {
        for (int j = 0; j < n; j++) {
            if (mpz_sgn(row[j]) < 0)
                pos = 0;
            if (mpz_sgn(row[j]) >= 0)
                mpz_add(col[j], col[j], row[j]);
            else
                mpz_sub(col[j], col[j], row[j]);
        }
        if (r + 1 < n)
            mns_poly_mulx(row, row, n, e, lambda);
    }
    mpz_set_ui(N, 0);
    for (int j = 0; j < n; j++)
        if (mpz_cmp(col[j], N) > 0)
            mpz_set(N, col[j]);
    for (int i = 0; i < n; i++) {
        mpz_clear(row[i]);
        mpz_clear(col[i]);
    }
    free(row);
    free(col);
    if (nonneg)
        *nonneg = pos;
}

uint64_t mns_pmns_w(int n, mns_pmns_eshape e, long lambda)
{
    if (e == MNS_PMNS_E_TRINOMIAL)
        return 2 * (uint64_t)n - 1;
    uint64_t l = (uint64_t)(lambda < 0 ? -lambda : lambda);
    /* column j of A*B mod E collects j+1 plain products and n-1-j products
     * times lambda: the worst column is j = 0 when |lambda| >= 1. */
    return l * (uint64_t)(n - 1) + 1;
}

unsigned long mns_pmns_lambda_eff(mns_pmns_eshape e, long lambda)
{
    if (e == MNS_PMNS_E_TRINOMIAL)
        return 2; /* Toeplitz entries are b_j or b_j + b_(j-1) */
    return (unsigned long)(lambda < 0 ? -lambda : lambda);
}

/* Capelli: X^n - a is irreducible over Q iff a is not a q-th power for any
 * prime q | n, and a is not -4c^4 when 4 | n. */
int mns_binomial_irreducible(int n, long lambda)
{
    if (lambda == 0 || n < 1)
        return 0;
    if (n == 1)
        return 1;
    mpz_t a, r;
    mpz_init_set_si(a, lambda);
    mpz_init(r);
    int irr = 1;
    int m = n;
    for (int q = 2; q <= m && irr; q++) {
        if (m % q)
            continue;
        while (m % q == 0)
            m /= q;
        /* q is a prime factor of n */
        if (q == 2) {
            if (mpz_sgn(a) > 0 && mpz_perfect_square_p(a))
                irr = 0;
        } else {
            mpz_abs(r, a);
            if (mpz_root(r, r, (unsigned long)q))
                irr = 0; /* odd q: (-c)^q = -(c^q) covers negative a */
        }
    }
    if (irr && n % 4 == 0 && lambda < 0 && (-lambda) % 4 == 0) {
        mpz_set_si(r, -lambda / 4);
        if (mpz_root(r, r, 4))
            irr = 0;
    }
    mpz_clear(a);
    mpz_clear(r);
    return irr;
}

void mns_pmns_qmax(mpz_t q, mns_pmns_word word, int s, unsigned k)
{
    if (word == MNS_PMNS_WORD_U52) {
        mpz_set_ui(q, 0);
        mpz_setbit(q, (mp_bitcnt_t)s * k);
        mpz_sub_ui(q, q, 1);
        return;
    }
    /* centred digits: |q| <= 2^(k-1) (1 + 2^k + ... + 2^(k(s-1))) */
    mpz_set_ui(q, 0);
    for (int i = 0; i < s; i++)
        mpz_setbit(q, (mp_bitcnt_t)i * k + k - 1);
}

int mns_pmns_rho_ok(const mpz_t rho, const mpz_t N, uint64_t w, int delta, mns_pmns_word word, int s,
                    unsigned k)
{
    if (mpz_cmp_ui(rho, 2) < 0 || k == 0)
        return 0;
    mpz_t a, b, q;
    mpz_inits(a, b, q, NULL);
    int ok = 1;
    unsigned long d1 = (unsigned long)delta + 1;
    mp_bitcnt_t h = (mp_bitcnt_t)s * k;
    /* (B1) phi > 2 w rho (delta+1)^2 */
    mpz_mul_ui(a, rho, w);
    mpz_mul_ui(a, a, d1 * d1);
    mpz_mul_2exp(a, a, 1);
    if (mpz_sizeinbase(a, 2) > h)
        ok = 0;
    /* (B2) */
    mpz_set(b, N);
    if (word == MNS_PMNS_WORD_U52)
        mpz_mul_2exp(b, b, 1);
    if (mpz_cmp(rho, b) < 0)
        ok = 0;
    /* exact closure: w ((delta+1)(rho-1))^2 + Qmax N < phi rho */
    mpz_sub_ui(a, rho, 1);
    mpz_mul_ui(a, a, d1);
    mpz_mul(a, a, a);
    mpz_mul_ui(a, a, w);
    mns_pmns_qmax(q, word, s, k);
    mpz_addmul(a, q, N);
    mpz_mul_2exp(b, rho, h);
    if (mpz_cmp(a, b) >= 0)
        ok = 0;
    mpz_clears(a, b, q, NULL);
    return ok;
}

void mns_pmns_rho_min(mpz_t rho, const mpz_t N, uint64_t w, int delta, mns_pmns_word word, int s,
                      unsigned k)
{
    mpz_t lo, hi, mid;
    mpz_inits(lo, hi, mid, NULL);
    unsigned long d1 = (unsigned long)delta + 1;
    /* lo: (B2) and rho >= 2 */
    mpz_set(lo, N);
    if (word == MNS_PMNS_WORD_U52)
        mpz_mul_2exp(lo, lo, 1);
    if (mpz_cmp_ui(lo, 2) < 0)
        mpz_set_ui(lo, 2);
    /* hi: the largest rho allowed by (B1), rho < phi / (2 w (delta+1)^2);
     * the closure is increasing in rho below it, so bisect. */
    mpz_set_ui(hi, 0);
    mpz_setbit(hi, (mp_bitcnt_t)s * k);
    mpz_set_ui(mid, w);
    mpz_mul_ui(mid, mid, d1 * d1);
    mpz_mul_2exp(mid, mid, 1);
    mpz_sub_ui(hi, hi, 1);
    mpz_fdiv_q(hi, hi, mid);
    mpz_set_ui(rho, 0);
    if (mpz_cmp(lo, hi) <= 0 && mns_pmns_rho_ok(hi, N, w, delta, word, s, k)) {
        while (mpz_cmp(lo, hi) < 0) {
            mpz_add(mid, lo, hi);
            mpz_fdiv_q_2exp(mid, mid, 1);
            if (mns_pmns_rho_ok(mid, N, w, delta, word, s, k))
                mpz_set(hi, mid);
            else
                mpz_add_ui(lo, mid, 1);
        }
        if (mns_pmns_rho_ok(lo, N, w, delta, word, s, k))
            mpz_set(rho, lo);
    }
    mpz_clears(lo, hi, mid, NULL);
}
