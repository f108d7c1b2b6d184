/* The constant-time exit of the PMNS backends (get_words of backend.h):
 * the canonical value of a tight element as mpz_size(p) words, without a
 * branch or memory index on the element or on p, and without allocation.
 * It is the exit of an RSA-CRT channel (src/rsa/channel.c), where p and
 * the value are secret; get_mpz (mpz_mul / mpz_mod, variable time and
 * allocating) is not usable there.
 *
 * The element A stands for A(gamma) phi^-1 mod p. One product by the
 * constant polynomial 1 inside the field gives B = A 1 phi^-1, tight, with
 * B(gamma) = the value (mod p) and small coefficients b_i. B(gamma) is then
 * evaluated on words by baby steps and giant steps in the Montgomery domain
 * of R = 2^(64 pn) (eval_gamma): about 2 sqrt(n) full products and one
 * division instead of n products. The powers gamma^t R mod p it needs
 * depend on the context only: mns_pmns_gw_powers builds them at context
 * creation, so a call does no division for them. Every operation on the
 * element is an mpn_sec_* call or a fixed-length mpn_add_n / mpn_addmul_1
 * (GMP's loops over public lengths, no data-dependent branch); the digit
 * positions depend on (n, s, k) only. */
#include <stdlib.h>
#include <string.h>

#include "core/inverse.h"
#include "core/tmp.h"
#include "pmns/get_words.h"
#include "pmns_mp/ctx.h"
#include "pmns/pmns.h"

/* c (pn + 1 words, two's complement) += d 2^off, d a signed 64-bit digit,
 * sign-extended; bits beyond pn + 1 words are dropped (the sum is taken
 * mod 2^(64 (pn + 1)), and the true coefficient fits). t: pn + 1 words. */
static void add_digit(uint64_t *c, uint64_t *t, size_t w, int64_t d, size_t off)
{
    const uint64_t sign = (uint64_t)(d >> 63);
    const size_t at = off / 64;
    const unsigned sh = (unsigned)(off % 64);
    for (size_t i = 0; i < w; i++)
        t[i] = i < at ? 0 : sign;
    if (at < w)
        t[at] = (uint64_t)d << sh;
    if (at + 1 < w)
        t[at + 1] = sh ? (uint64_t)(d >> (64 - sh)) : sign;
    mpn_add_n(t, t, c, (mp_size_t)w);
    memcpy(c, t, w * sizeof *c);
}

/* How a backend hands its coefficient i of B to the evaluation: c <- b_i
 * as w words, two's complement (t: w words of scratch). */
typedef void (*coef_fn)(const void *ctx, const uint64_t *b, int i, uint64_t *c, uint64_t *t,
                        size_t w);

/* Public shape of one evaluation: pn words of p, cw words per coefficient,
 * g coefficients per group (baby steps), xw words of the accumulator. */
typedef struct shape {
    size_t pn, cw, xw, g, lt, itch;
} shape;

static size_t max3(size_t a, size_t b, size_t c)
{
    size_t m = a > b ? a : b;
    return m > c ? m : c;
}

static shape shape_of(size_t pn, size_t cw, int n)
{
    shape h;
    h.pn = pn;
    h.cw = cw;
    h.g = 1;
    while (h.g * h.g < (size_t)n)
        h.g++;
    h.xw = pn + cw + 2;
    h.lt = h.xw > 2 * pn ? h.xw + 1 : 2 * pn + 1; /* the last REDC's buffer */
    size_t big = pn > cw ? pn : cw, small = pn > cw ? cw : pn;
    size_t i1 = max3((size_t)mpn_sec_mul_itch((mp_size_t)h.xw, (mp_size_t)pn),
                     (size_t)mpn_sec_mul_itch((mp_size_t)pn, (mp_size_t)pn),
                     (size_t)mpn_sec_mul_itch((mp_size_t)big, (mp_size_t)small));
    size_t i2 = max3((size_t)mpn_sec_div_r_itch((mp_size_t)(2 * pn), (mp_size_t)pn),
                     (size_t)mpn_sec_div_r_itch((mp_size_t)(pn + 1), (mp_size_t)pn),
                     (size_t)mpn_sec_div_r_itch((mp_size_t)(h.lt - pn), (mp_size_t)pn));
    h.itch = i1 > i2 ? i1 : i2;
    return h;
}

/* T: xw + pn (>= lt); X, S: xw; c, a: cw; u, v, Pm: pn + cw; then the
 * mpn_sec_* scratch */
static size_t eval_words(const shape *h)
{
    size_t T = h->xw + h->pn > h->lt ? h->xw + h->pn : h->lt;
    return T + 2 * h->xw + 2 * h->cw + 3 * (h->pn + h->cw) + h->itch;
}

/* r (len - pn words) <- REDC of T (len >= 2 pn words, destroyed): T R^-1
 * mod p, below T / R + p. T[j] becomes the carry into T[j + pn] (GMP's
 * redc_1 layout); the carry out of the pn-word addition runs through the
 * rest without a data-dependent branch. */
static void redc(uint64_t *r, uint64_t *T, size_t len, const mp_limb_t *p, size_t pn,
                 uint64_t pinv)
{
    for (size_t j = 0; j < pn; j++)
        T[j] = mpn_addmul_1(T + j, p, (mp_size_t)pn, T[j] * pinv);
    uint64_t cy = mpn_add_n(r, T + pn, T, (mp_size_t)pn);
    for (size_t j = pn; j < len - pn; j++) {
        uint64_t v = T[pn + j] + cy;
        cy = v < cy;
        r[j] = v;
    }
}

/* x (pn + 1 words, < 2p: p may be above R / 2, so 2p may need the extra
 * word) <- x mod p in its low pn words, constant time */
static void sub_p(uint64_t *x, const mp_limb_t *p, size_t pn)
{
    mp_limb_t b = mpn_sub_n(x, x, p, (mp_size_t)pn);
    mpn_cnd_add_n(b & (x[pn] ^ 1), x, x, p, (mp_size_t)pn);
}

/* S (xw words) += b H mod p as a non-negative value below p 2^(64 cw): b H
 * for b >= 0, p 2^(64 cw) - |b| H for b < 0 (|b| < 2^(64 cw), H < p). */
static void add_term(const shape *h, uint64_t *S, const uint64_t *b, const uint64_t *H,
                     const uint64_t *Pm, uint64_t *a, uint64_t *u, uint64_t *v, uint64_t *tp)
{
    const size_t pn = h->pn, cw = h->cw, uw = pn + cw;
    const uint64_t m = 0 - (b[cw - 1] >> 63);
    uint64_t cy = m & 1;
    for (size_t j = 0; j < cw; j++) { /* |b| */
        uint64_t x = (b[j] ^ m) + cy;
        cy = x < cy;
        a[j] = x;
    }
    if (pn >= cw)
        mpn_sec_mul(u, H, (mp_size_t)pn, a, (mp_size_t)cw, tp);
    else
        mpn_sec_mul(u, a, (mp_size_t)cw, H, (mp_size_t)pn, tp);
    mpn_sub_n(v, Pm, u, (mp_size_t)uw);
    mpn_cnd_swap(m & 1, u, v, (mp_size_t)uw);
    cy = mpn_add_n(S, S, u, (mp_size_t)uw);
    for (size_t j = uw; j < h->xw; j++) {
        uint64_t x = S[j] + cy;
        cy = x < cy;
        S[j] = x;
    }
}

uint64_t *mns_pmns_gw_powers(mpz_srcptr p, mpz_srcptr gamma, int n)
{
    const size_t pn = mpz_size(p);
    const shape h = shape_of(pn, 1, n);
    const size_t g = h.g;
    const mp_limb_t *pw = mpz_limbs_read(p);
    const uint64_t pinv = mns_neg_inverse_word(pw[0]);
    uint64_t *H = malloc((g + 1) * pn * sizeof *H);
    uint64_t *D = malloc((2 * pn + 1 + 2 * pn + 1 + h.itch) * sizeof *D);
    if (!H || !D) {
        free(H);
        free(D);
        return NULL;
    }
    uint64_t *T = D + 2 * pn + 1, *tp = T + 2 * pn + 1;
    /* H_0 = R mod p, H_1 = gamma R mod p (gamma < p: at most pn words) */
    memset(D, 0, 2 * pn * sizeof *D);
    D[pn] = 1;
    mpn_sec_div_r(D, (mp_size_t)(pn + 1), pw, (mp_size_t)pn, tp);
    memcpy(H, D, pn * sizeof *H);
    memset(D, 0, 2 * pn * sizeof *D);
    size_t gn = mpz_size(gamma);
    memcpy(D + pn, mpz_limbs_read(gamma), (gn < pn ? gn : pn) * sizeof *D);
    mpn_sec_div_r(D, (mp_size_t)(2 * pn), pw, (mp_size_t)pn, tp);
    memcpy(H + pn, D, pn * sizeof *H);
    for (size_t t = 2; t <= g; t++) {
        mpn_sec_mul(T, H + (t - 1) * pn, (mp_size_t)pn, H + pn, (mp_size_t)pn, tp);
        T[2 * pn] = 0;
        redc(D, T, 2 * pn + 1, pw, pn, pinv);
        sub_p(D, pw, pn);
        memcpy(H + t * pn, D, pn * sizeof *H);
    }
    explicit_bzero(D, (4 * pn + 2 + h.itch) * sizeof *D);
    free(D);
    return H;
}

/* r (pn words) <- B(gamma) mod p, canonical; s: eval_words words.
 *
 * Baby steps, giant steps in the Montgomery domain of R = 2^(64 pn): with
 * H_t = gamma^t R mod p for t <= g (mns_pmns_gw_powers, at creation), the
 * coefficients in groups of g, S_j = sum_t b_(g j + t) H_t (short products:
 * the coefficients have cw << pn words), then Horner over the groups with
 * the giant step H_g: X <- REDC(X H_g) + S_j, and a last REDC leaves the
 * domain. About 2 sqrt(n) full products instead of n. X stays below
 * (J + 1) g p 2^(64 cw) (J groups), inside xw words. */
static void eval_gamma(const void *ctx, coef_fn coef, const uint64_t *b, int n, mpz_srcptr p,
                       const uint64_t *H, uint64_t *r, const shape *h, uint64_t *s)
{
    const size_t pn = h->pn, cw = h->cw, xw = h->xw, g = h->g, uw = pn + cw;
    const mp_limb_t *pw = mpz_limbs_read(p);
    size_t tlen = xw + pn > h->lt ? xw + pn : h->lt;
    uint64_t *T = s, *X = T + tlen, *S = X + xw, *c = S + xw, *a = c + cw, *u = a + cw,
             *v = u + uw, *Pm = v + uw, *tp = Pm + uw;
    const uint64_t pinv = mns_neg_inverse_word(pw[0]);

    memset(Pm, 0, cw * sizeof *Pm);
    memcpy(Pm + cw, pw, pn * sizeof *Pm);
    const size_t J = ((size_t)n + g - 1) / g;
    for (size_t j = J; j-- > 0;) {
        memset(S, 0, xw * sizeof *S);
        for (size_t t = 0; t < g && g * j + t < (size_t)n; t++) {
            coef(ctx, b, (int)(g * j + t), c, a, cw);
            add_term(h, S, c, H + t * pn, Pm, a, u, v, tp);
        }
        if (j + 1 == J) {
            memcpy(X, S, xw * sizeof *X);
            continue;
        }
        mpn_sec_mul(T, X, (mp_size_t)xw, H + g * pn, (mp_size_t)pn, tp);
        redc(X, T, xw + pn, pw, pn, pinv);
        mpn_add_n(X, X, S, (mp_size_t)xw);
    }
    /* leave the domain: X R^-1, then the canonical value */
    memset(T, 0, h->lt * sizeof *T);
    memcpy(T, X, xw * sizeof *T);
    redc(X, T, h->lt, pw, pn, pinv);
    mpn_sec_div_r(X, (mp_size_t)(h->lt - pn), pw, (mp_size_t)pn, tp);
    memcpy(r, X, pn * sizeof *r);
}

/* ---- pmns, pmns-ifma: one word per coefficient (S64 signed, U52 unsigned) */

static void coef_single(const void *ctx, const uint64_t *b, int i, uint64_t *c, uint64_t *t,
                        size_t w)
{
    (void)ctx, (void)t, (void)w; /* w = 1: S64 signed; U52 below rho < 2^63 */
    c[0] = b[i];
}

size_t mns_pmns_gw_scratch(size_t L, size_t pn, size_t cw, int n)
{
    const shape h = shape_of(pn, cw, n);
    return 2 * L + eval_words(&h);
}

void mns_pmns_get_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_pmns_ctx *c = ctx;
    const size_t L = (size_t)c->n, pn = mpz_size(c->p);
    const shape h = shape_of(pn, 1, c->n);
    const size_t words = mns_pmns_gw_scratch(L, pn, 1, c->n);
    mns_tmp tmp;
    uint64_t *s = mns_tmp_get(&tmp, words);
    uint64_t *one = s, *B = one + L;
    memset(one, 0, L * sizeof *one);
    one[0] = 1;
    c->mul(c, B, a, one); /* B(gamma) = A(gamma) phi^-1: the value */
    eval_gamma(c, coef_single, B, c->n, c->p, c->gw_pow, r, &h, B + L);
    explicit_bzero(s, words * sizeof *s);
}

/* ---- pmns-mp, pmns-mp-ifma: s digits of k bits per coefficient ---- */

static void coef_mp(const void *ctx, const uint64_t *b, int i, uint64_t *c, uint64_t *t, size_t w)
{
    const mns_pmns_mp_ctx *mc = ctx;
    memset(c, 0, w * sizeof *c);
    for (int j = 0; j < mc->s; j++) /* a_i = sum_j (int64) e[j n + i] 2^(k j) */
        add_digit(c, t, w, (int64_t)b[(size_t)j * (size_t)mc->n + (size_t)i],
                  (size_t)mc->k * (size_t)j);
}

size_t mns_pmns_mp_gw_cw(const mns_pmns_mp_ctx *c)
{
    /* a_i = sum_j digit_j 2^(k j), the top digit a signed word */
    return ((size_t)c->k * (size_t)(c->s - 1) + 64 + 63) / 64;
}

void mns_pmns_mp_get_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_pmns_mp_ctx *c = ctx;
    const size_t L = c->limbs, pn = mpz_size(c->p);
    const shape h = shape_of(pn, mns_pmns_mp_gw_cw(c), c->n);
    const size_t words = mns_pmns_gw_scratch(L, pn, mns_pmns_mp_gw_cw(c), c->n);
    mns_tmp tmp;
    uint64_t *s = mns_tmp_get(&tmp, words);
    uint64_t *one = s, *B = one + L;
    memset(one, 0, L * sizeof *one);
    one[0] = 1; /* digit 0 of coefficient 0 */
    c->mul(c, B, a, one);
    eval_gamma(c, coef_mp, B, c->n, c->p, c->gw_pow, r, &h, B + L);
    explicit_bzero(s, words * sizeof *s);
}
