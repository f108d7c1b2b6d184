/* Roots of the ARITH paper's E = X^n - X - 1 modulo p.
 *
 * The roots of f are those of g = gcd(X^p - X, f), and all the work is
 * X^p mod (f, p): log2 p squarings of a degree < n polynomial with
 * coefficients mod p. FLINT's fmpz_mod_poly_roots does the same with a
 * general modular squaring (1.1 s at 2048 bits, n = 40, on this machine);
 * here each squaring is one GMP squaring of the polynomial packed into a
 * single integer (Kronecker substitution, limb-aligned slots so that packing
 * and unpacking are copies), a fold by X^n = X + 1 and n divisions by p,
 * about 10x less. g has as many roots as its degree (usually 1 or 2), and
 * FLINT finds them in milliseconds.
 */
#include "gen/gen.h"

#ifdef MNS_HAVE_FLINT

#include <stdlib.h>
#include <string.h>

#include "gen/flint_thread.h"

#include <flint/flint.h>
#include <flint/fmpz.h>
#include <flint/fmpz_mod.h>
#include <flint/fmpz_mod_poly.h>
#include <flint/fmpz_mod_poly_factor.h>

typedef struct ks {
    int n;
    size_t L;         /* limbs per slot */
    mpz_t big, sq;    /* packed operand, its square */
    mpz_t *c;         /* 2n - 1 unpacked coefficients */
} ks;

/* r <- r^2 mod (X^n - X - 1, p), r[i] in [0, p). */
static void sqr_mod(ks *K, mpz_t *r, const mpz_t p)
{
    int n = K->n;
    size_t L = K->L;
    mp_limb_t *w = mpz_limbs_write(K->big, (mp_size_t)(L * (size_t)n));
    memset(w, 0, sizeof(mp_limb_t) * L * (size_t)n);
    for (int i = 0; i < n; i++) {
        size_t sz = mpz_size(r[i]);
        if (sz)
            memcpy(w + (size_t)i * L, mpz_limbs_read(r[i]), sizeof(mp_limb_t) * sz);
    }
    mpz_limbs_finish(K->big, (mp_size_t)(L * (size_t)n));
    mpz_mul(K->sq, K->big, K->big);
    const mp_limb_t *s = mpz_limbs_read(K->sq);
    size_t total = mpz_size(K->sq);
    for (int k = 0; k < 2 * n - 1; k++) {
        size_t off = (size_t)k * L;
        size_t sz = off >= total ? 0 : (total - off < L ? total - off : L);
        if (sz == 0) {
            mpz_set_ui(K->c[k], 0);
        } else {
            mpz_t view;
            mpz_set(K->c[k], mpz_roinit_n(view, s + off, (mp_size_t)sz));
        }
    }
    /* X^k = X^(k-n+1) + X^(k-n) for k >= n, from the top down */
    for (int k = 2 * n - 2; k >= n; k--) {
        mpz_add(K->c[k - n + 1], K->c[k - n + 1], K->c[k]);
        mpz_add(K->c[k - n], K->c[k - n], K->c[k]);
    }
    for (int i = 0; i < n; i++)
        mpz_tdiv_r(r[i], K->c[i], p);
}

/* r <- X r mod (X^n - X - 1, p) */
static void mulx_mod(mpz_t *r, int n, const mpz_t p)
{
    for (int i = n - 1; i > 0; i--)
        mpz_swap(r[i], r[i - 1]);
    /* r[0] now holds the old top coefficient t: X^n = X + 1 adds t at 0 and 1 */
    mpz_add(r[1], r[1], r[0]);
    if (mpz_cmp(r[1], p) >= 0)
        mpz_sub(r[1], r[1], p);
}

int mns_trinomial_roots(mpz_t *roots, int max, int n, const mpz_t p)
{
    if (n < 2 || max < 1)
        return 0;
    mns_gen_flint_thread_enter(); /* FLINT's caches freed when this thread ends */
    size_t pb = mpz_sizeinbase(p, 2);
    ks K;
    K.n = n;
    /* a coefficient of the square is below n p^2 */
    K.L = (2 * pb + 2 + (size_t)FLINT_BIT_COUNT((mp_limb_t)n) + GMP_NUMB_BITS - 1) / GMP_NUMB_BITS;
    mpz_init(K.big);
    mpz_init(K.sq);
    K.c = malloc(sizeof(mpz_t) * (size_t)(2 * n - 1));
    mpz_t *r = malloc(sizeof(mpz_t) * (size_t)n);
    if (!K.c || !r) {
        free(K.c);
        free(r);
        mpz_clear(K.big);
        mpz_clear(K.sq);
        return 0;
    }
    for (int i = 0; i < 2 * n - 1; i++)
        mpz_init(K.c[i]);
    for (int i = 0; i < n; i++)
        mpz_init(r[i]);
    /* X^p mod f, left to right from X */
    mpz_set_ui(r[1], 1);
    for (size_t b = pb - 1; b-- > 0;) {
        sqr_mod(&K, r, p);
        if (mpz_tstbit(p, b))
            mulx_mod(r, n, p);
    }

    fmpz_t P, c;
    fmpz_init(P);
    fmpz_init(c);
    fmpz_set_mpz(P, p);
    fmpz_mod_ctx_t ctx;
    fmpz_mod_ctx_init(ctx, P);
    fmpz_mod_poly_t f, h, g;
    fmpz_mod_poly_init(f, ctx);
    fmpz_mod_poly_init(h, ctx);
    fmpz_mod_poly_init(g, ctx);
    fmpz_mod_poly_set_coeff_ui(f, (ulong)n, 1, ctx);
    fmpz_mod_poly_set_coeff_si(f, 1, -1, ctx);
    fmpz_mod_poly_set_coeff_si(f, 0, -1, ctx);
    for (int i = 0; i < n; i++) {
        fmpz_set_mpz(c, r[i]);
        if (i == 1)
            fmpz_sub_ui(c, c, 1); /* X^p - X */
        fmpz_mod_poly_set_coeff_fmpz(h, i, c, ctx);
    }
    fmpz_mod_poly_gcd(g, h, f, ctx);
    int cnt = 0;
    slong dg = fmpz_mod_poly_degree(g, ctx);
    if (dg >= 1) {
        fmpz_mod_poly_factor_t fac;
        fmpz_mod_poly_factor_init(fac, ctx);
        fmpz_mod_poly_roots(fac, g, 0, ctx);
        int num = (int)fac->num;
        mpz_t *all = malloc(sizeof(mpz_t) * (size_t)(num > 0 ? num : 1));
        if (all) {
            for (int i = 0; i < num; i++) {
                mpz_init(all[i]);
                fmpz_mod_poly_get_coeff_fmpz(c, fac->poly + i, 0, ctx);
                fmpz_neg(c, c);
                fmpz_mod(c, c, P);
                fmpz_get_mpz(all[i], c);
            }
            /* smallest first: the result does not depend on FLINT's order */
            for (int i = 1; i < num; i++)
                for (int j = i; j > 0 && mpz_cmp(all[j - 1], all[j]) > 0; j--)
                    mpz_swap(all[j - 1], all[j]);
            for (int i = 0; i < num && cnt < max; i++)
                mpz_set(roots[cnt++], all[i]);
            for (int i = 0; i < num; i++)
                mpz_clear(all[i]);
            free(all);
        }
        fmpz_mod_poly_factor_clear(fac, ctx);
    }
    fmpz_mod_poly_clear(f, ctx);
    fmpz_mod_poly_clear(h, ctx);
    fmpz_mod_poly_clear(g, ctx);
    fmpz_mod_ctx_clear(ctx);
    fmpz_clear(P);
    fmpz_clear(c);
    for (int i = 0; i < 2 * n - 1; i++)
        mpz_clear(K.c[i]);
    for (int i = 0; i < n; i++)
        mpz_clear(r[i]);
    free(K.c);
    free(r);
    mpz_clear(K.big);
    mpz_clear(K.sq);
    return cnt;
}

#endif /* MNS_HAVE_FLINT */
