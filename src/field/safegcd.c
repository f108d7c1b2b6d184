/* safegcd modular inversion (see safegcd.h for the method and its bounds). */
#include <string.h>

#include "core/ct.h"
#include "core/inverse.h"
#include "field/safegcd.h"

#define M62 (((uint64_t)1 << 62) - 1)
#define LMAX (MNS_SAFEGCD_MAX_BITS / 62 + 3)

typedef __int128 i128;

/* the transition matrix of 62 divsteps, scaled by 2^62: [u v; q r] */
typedef struct trans {
    int64_t u, v, q, r;
} trans;

static size_t limbs_for(size_t bits) { return (bits + 2) / 62 + 2; }

/* 62 divsteps on the low words of f (odd) and g, branch-free:
 *   delta > 0 and g odd: (delta, f, g) <- (1 - delta, g, (g - f) / 2)
 *   else:                (delta, f, g) <- (1 + delta, f, (g + (g mod 2) f) / 2)
 * The swap is folded into two masked additions (libsecp256k1's form): g
 * gains -f or f, then f gains the new g, which is the old g when swapping. */
static int64_t divsteps_62(int64_t delta, uint64_t f, uint64_t g, trans *t)
{
    uint64_t u = 1, v = 0, q = 0, r = 1;
    for (int i = 0; i < 62; i++) {
        uint64_t c1 = mns_ct_barrier((uint64_t)((-delta) >> 63)); /* delta > 0 */
        const uint64_t c2 = (uint64_t)0 - mns_ct_barrier(g & 1);
        const uint64_t x = (f ^ c1) - c1, y = (u ^ c1) - c1, z = (v ^ c1) - c1;
        g += x & c2;
        q += y & c2;
        r += z & c2;
        c1 &= c2;
        delta = (int64_t)(((uint64_t)delta ^ c1) - c1) + 1;
        f += g & c1;
        u += q & c1;
        v += r & c1;
        g >>= 1;
        u <<= 1;
        v <<= 1;
    }
    t->u = (int64_t)u;
    t->v = (int64_t)v;
    t->q = (int64_t)q;
    t->r = (int64_t)r;
    return delta;
}

/* (f, g) <- t (f, g) / 2^62: exact, the low 62 bits of both sums are 0 */
static void update_fg(int64_t *f, int64_t *g, size_t L, const trans *t)
{
    i128 cf = (i128)t->u * f[0] + (i128)t->v * g[0];
    i128 cg = (i128)t->q * f[0] + (i128)t->r * g[0];
    cf >>= 62;
    cg >>= 62;
    for (size_t i = 1; i < L; i++) {
        cf += (i128)t->u * f[i] + (i128)t->v * g[i];
        cg += (i128)t->q * f[i] + (i128)t->r * g[i];
        f[i - 1] = (int64_t)((uint64_t)cf & M62);
        g[i - 1] = (int64_t)((uint64_t)cg & M62);
        cf >>= 62;
        cg >>= 62;
    }
    f[L - 1] = (int64_t)cf;
    g[L - 1] = (int64_t)cg;
}

/* (d, e) <- (t (d, e) + m (md, me)) / 2^62 with md, me chosen so that the
 * division is exact and d, e stay in (-2m, m) (libsecp256k1's update_de:
 * first add the matrix column of a negative input, then correct the low 62
 * bits with m^-1 mod 2^62) */
static void update_de(int64_t *d, int64_t *e, size_t L, const trans *t, const int64_t *m,
                      uint64_t minv62)
{
    const int64_t sd = d[L - 1] >> 63, se = e[L - 1] >> 63;
    int64_t md = (t->u & sd) + (t->v & se);
    int64_t me = (t->q & sd) + (t->r & se);
    i128 cd = (i128)t->u * d[0] + (i128)t->v * e[0];
    i128 ce = (i128)t->q * d[0] + (i128)t->r * e[0];
    md -= (int64_t)((minv62 * (uint64_t)cd + (uint64_t)md) & M62);
    me -= (int64_t)((minv62 * (uint64_t)ce + (uint64_t)me) & M62);
    cd += (i128)m[0] * md;
    ce += (i128)m[0] * me;
    cd >>= 62;
    ce >>= 62;
    for (size_t i = 1; i < L; i++) {
        cd += (i128)t->u * d[i] + (i128)t->v * e[i] + (i128)m[i] * md;
        ce += (i128)t->q * d[i] + (i128)t->r * e[i] + (i128)m[i] * me;
        d[i - 1] = (int64_t)((uint64_t)cd & M62);
        e[i - 1] = (int64_t)((uint64_t)ce & M62);
        cd >>= 62;
        ce >>= 62;
    }
    d[L - 1] = (int64_t)cd;
    e[L - 1] = (int64_t)ce;
}

/* n words (non-negative) -> L signed 62-bit limbs */
static void from_words(int64_t *s, size_t L, const uint64_t *w, size_t n)
{
    for (size_t j = 0; j < L; j++) {
        const size_t bit = 62 * j, i = bit / 64, sh = bit % 64;
        uint64_t x = i < n ? w[i] >> sh : 0;
        if (sh > 2 && i + 1 < n)
            x |= w[i + 1] << (64 - sh);
        s[j] = (int64_t)(x & M62);
    }
}

/* L limbs (top signed, small) -> W words of two's complement */
static void to_words(uint64_t *w, size_t W, const int64_t *s, size_t L)
{
    const uint64_t sign = (uint64_t)(s[L - 1] >> 63);
    for (size_t i = 0; i < W; i++) {
        uint64_t x = 0;
        for (size_t b = 0; b < 64;) {
            const size_t bit = 64 * i + b, j = bit / 62, sh = bit % 62;
            const uint64_t limb = j < L ? (uint64_t)s[j] & M62 : sign & M62;
            x |= (limb >> sh) << b;
            b += 62 - sh;
        }
        w[i] = x;
    }
}

/* x <- x + (mask & y) over W words (y zero-extended from n words) */
static void cadd(uint64_t *x, const uint64_t *y, size_t n, size_t W, uint64_t mask)
{
    unsigned __int128 c = 0;
    for (size_t i = 0; i < W; i++) {
        c += (unsigned __int128)x[i] + ((i < n ? y[i] : 0) & mask);
        x[i] = (uint64_t)c;
        c >>= 64;
    }
}

/* r <- d s mod m for d in (-2m, m), s = +-1 (mask all-ones for -1), as
 * libsecp256k1's normalize: add m if negative (now in (-m, m)), negate
 * under the mask (still in (-m, m)), add m if negative (now in [0, m)) */
static void normalize(uint64_t *r, const int64_t *d, size_t L, uint64_t neg, const uint64_t *m,
                      size_t n)
{
    uint64_t x[LMAX * 62 / 64 + 2];
    const size_t W = n + 1;
    to_words(x, W, d, L);
    cadd(x, m, n, W, (uint64_t)0 - (x[n] >> 63));
    for (size_t i = 0; i < W; i++) /* two's complement negation under the mask */
        x[i] ^= neg;
    cadd(x, (const uint64_t[]){1}, 1, W, neg);
    cadd(x, m, n, W, (uint64_t)0 - (x[n] >> 63));
    for (size_t i = 0; i < n; i++)
        r[i] = x[i];
    explicit_bzero(x, sizeof x);
}

static int is_zero_var(const int64_t *g, size_t L)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < L; i++)
        acc |= (uint64_t)g[i];
    return acc == 0;
}

uint64_t mns_safegcd_inv(uint64_t *r, const uint64_t *x, const uint64_t *m, size_t n,
                         size_t bits, int var)
{
    if (n == 0 || n > (MNS_SAFEGCD_MAX_BITS + 63) / 64 || bits > MNS_SAFEGCD_MAX_BITS)
        return 0; /* outside the stack arrays: the caller checks the size first */
    const size_t L = limbs_for(bits);
    int64_t f[LMAX], g[LMAX], d[LMAX], e[LMAX], m62[LMAX];
    from_words(m62, L, m, n);
    memcpy(f, m62, L * sizeof *f);
    from_words(g, L, x, n);
    memset(d, 0, L * sizeof *d);
    memset(e, 0, L * sizeof *e);
    e[0] = 1;
    const uint64_t minv62 = (0 - mns_neg_inverse_word(m[0])) & M62;
    const size_t steps = (49 * bits + 80 + 16) / 17, batches = (steps + 61) / 62;
    int64_t delta = 1;
    for (size_t b = 0; b < batches; b++) {
        trans t;
        delta = divsteps_62(delta, (uint64_t)f[0], (uint64_t)g[0], &t);
        update_de(d, e, L, &t, m62, minv62);
        update_fg(f, g, L, &t);
        if (var && is_zero_var(g, L))
            break;
    }
    /* f = +-gcd: invertible exactly when f is 1 or -1 */
    uint64_t one = (uint64_t)f[0] ^ 1, mone = ((uint64_t)f[0] ^ M62) | ((uint64_t)f[L - 1] ^ ~(uint64_t)0);
    for (size_t i = 1; i < L; i++) {
        one |= (uint64_t)f[i];
        if (i < L - 1)
            mone |= (uint64_t)f[i] ^ M62;
    }
    const uint64_t ok = ~mns_ct_mask_nonzero(one) | ~mns_ct_mask_nonzero(mone);
    normalize(r, d, L, (uint64_t)(f[L - 1] >> 63), m, n);
    for (size_t i = 0; i < n; i++)
        r[i] &= ok;
    explicit_bzero(f, sizeof f);
    explicit_bzero(g, sizeof g);
    explicit_bzero(d, sizeof d);
    explicit_bzero(e, sizeof e);
    return ok;
}
