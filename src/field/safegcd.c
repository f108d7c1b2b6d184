/* safegcd modular inversion (see safegcd.h for the method and its bounds). */
#include <string.h>

#include "core/ct.h"
#include "core/inverse.h"
#include "field/safegcd.h"

#define M62 (((uint64_t)1 << 62) - 1)
#define LMAX (MNS_SAFEGCD_MAX_BITS / 62 + 2)
#define ALWAYS_INLINE static inline __attribute__((always_inline))

typedef __int128 i128;

/* the transition matrix of one batch of divsteps, scaled by 2^62: [u v; q r] */
typedef struct trans {
    int64_t u, v, q, r;
} trans;

size_t mns_safegcd_limbs(size_t bits) { return (bits + 2) / 62 + 1; }

/* Theorem 11.2's bound for the original divsteps */
static size_t orig_divsteps(size_t bits) { return (49 * bits + 80 + 16) / 17; }

size_t mns_safegcd_divsteps(size_t bits)
{
    if (bits > MNS_SAFEGCD_HD_MAX_BITS)
        return orig_divsteps(bits);
    const size_t b = bits < 23 ? 23 : bits; /* the formula holds from M >= 2^22.1 */
    const size_t s = (3787 * b + 2166) / 1644;
    return bits <= 256 && s > 590 ? 590 : s;
}

/* k <= 62 divsteps on the low words of f (odd) and g, branch-free, in
 * theta = delta - 1/2 (half-delta divsteps) or theta = delta - 1 (the
 * original ones), so that "delta > 0" is "theta >= 0" either way:
 *   delta > 0 and g odd: (delta, f, g) <- (1 - delta, g, (g - f) / 2)
 *   else:                (delta, f, g) <- (1 + delta, f, (g + (g mod 2) f) / 2)
 * The swap is two masked additions: g gains -f or f, then f gains the new
 * g, which is the old g when swapping. For delta <= 0 g gains ~f = -f - 1
 * instead of f: g + f is even, so the shift drops the extra 1, and the same
 * holds for q and r, which stay multiples of 2^(62 - i) >= 2 at step i
 * because the matrix starts at 2^62 times the identity and the rows of g
 * are halved at each step (so k steps leave it scaled by 2^62 whatever k
 * is). |q| + |r| and |u| + |v| stay at most 2^62 (paper, 8.3) and the
 * determinant is never 0, so q +- u stays inside int64. */
ALWAYS_INLINE int64_t divsteps(int64_t theta, uint64_t f, uint64_t g, int k, uint64_t orig,
                               trans *t)
{
    uint64_t u = (uint64_t)1 << 62, v = 0, q = 0, r = (uint64_t)1 << 62;
    for (int i = 0; i < k; i++) {
        const uint64_t c1 = mns_ct_barrier((uint64_t)(theta >> 63)); /* delta <= 0 */
        const uint64_t c2 = (uint64_t)0 - mns_ct_barrier(g & 1);
        g -= (f ^ c1) & c2;
        q -= (u ^ c1) & c2;
        r -= (v ^ c1) & c2;
        const uint64_t c3 = ~c1 & c2; /* swap */
        /* swap: half-delta theta -> -theta, original theta -> ~theta; then + 1 */
        theta = (int64_t)(((uint64_t)theta ^ c3) + 1 + (c3 & orig));
        f += g & c3;
        u += q & c3;
        v += r & c3;
        g >>= 1;
        q = (uint64_t)((int64_t)q >> 1);
        r = (uint64_t)((int64_t)r >> 1);
    }
    t->u = (int64_t)u;
    t->v = (int64_t)v;
    t->q = (int64_t)q;
    t->r = (int64_t)r;
    return theta;
}

/* 62 original divsteps in eta = -delta, variable time (libsecp256k1's
 * divsteps_62_var): a run of zeros at the bottom of g is shifted out at once,
 * and an odd g has as many low bits cancelled at once as the next steps
 * allow (up to eta + 1, and 6 after a swap, 4 otherwise) by adding w f with
 * w = -g / f mod 2^limit. Here u and v start at 1 and double at every step,
 * so the matrix comes out scaled by 2^62 too. */
static int64_t divsteps_var(int64_t eta, uint64_t f, uint64_t g, trans *t)
{
    uint64_t u = 1, v = 0, q = 0, r = 1, w, tmp;
    int i = 62;
    for (;;) {
        const int zeros = __builtin_ctzll(g | (~(uint64_t)0 << i)); /* at most i */
        g >>= zeros;
        u <<= zeros;
        v <<= zeros;
        eta -= zeros;
        i -= zeros;
        if (i == 0)
            break;
        int limit;
        if (eta < 0) { /* (eta, f, g) <- (-eta, g, -f), and the matrix rows alike */
            eta = -eta;
            tmp = f, f = g, g = 0 - tmp;
            tmp = u, u = q, q = 0 - tmp;
            tmp = v, v = r, r = 0 - tmp;
            limit = (int)eta + 1 > i ? i : (int)eta + 1;
            w = (f * g * (f * f - 2)) & ((~(uint64_t)0 >> (64 - limit)) & 63); /* -1/f = f (f^2 - 2) mod 2^6 */
        } else {
            limit = (int)eta + 1 > i ? i : (int)eta + 1;
            w = f + (((f + 1) & 4) << 1); /* -1/f mod 2^4 */
            w = ((uint64_t)0 - w * g) & ((~(uint64_t)0 >> (64 - limit)) & 15);
        }
        g += f * w;
        q += u * w;
        r += v * w;
    }
    t->u = (int64_t)u;
    t->v = (int64_t)v;
    t->q = (int64_t)q;
    t->r = (int64_t)r;
    return eta;
}

/* (f, g) <- t (f, g) / 2^62: exact, the low 62 bits of both sums are 0 */
ALWAYS_INLINE void update_fg(int64_t *f, int64_t *g, size_t L, const trans *t)
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
ALWAYS_INLINE void update_de(int64_t *d, int64_t *e, size_t L, const trans *t, const int64_t *m,
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
    explicit_bzero(x, W * sizeof x[0]);
}

static int is_zero_var(const int64_t *g, size_t L)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < L; i++)
        acc |= (uint64_t)g[i];
    return acc == 0;
}

/* all-ones if f (L limbs) is 1 or -1 */
static uint64_t is_unit(const int64_t *f, size_t L)
{
    uint64_t one = (uint64_t)f[0] ^ 1, mone = (uint64_t)f[L - 1] ^ ~(uint64_t)0;
    for (size_t i = 1; i < L; i++)
        one |= (uint64_t)f[i];
    for (size_t i = 0; i + 1 < L; i++)
        mone |= (uint64_t)f[i] ^ M62;
    return ~mns_ct_mask_nonzero(one) | ~mns_ct_mask_nonzero(mone);
}

/* The whole inversion for L limbs; inlined into one copy per fixed L (the
 * update loops unrolled) and one for any L. Constant time: `batches` of k
 * divsteps, orig all-ones for the original ones, 0 for the half-delta ones.
 * var: batches of 62 variable-time original divsteps until g = 0, at most
 * `batches` (Theorem 11.2's bound). */
ALWAYS_INLINE uint64_t inv_body(uint64_t *r, const uint64_t *x, const uint64_t *m, size_t n,
                                size_t L, size_t batches, int k, uint64_t orig, int var)
{
    int64_t f[LMAX], g[LMAX], d[LMAX], e[LMAX], m62[LMAX];
    from_words(m62, L, m, n);
    memcpy(f, m62, L * sizeof *f);
    from_words(g, L, x, n);
    memset(d, 0, L * sizeof *d);
    memset(e, 0, L * sizeof *e);
    e[0] = 1;
    const uint64_t minv62 = (0 - mns_neg_inverse_word(m[0])) & M62;
    int64_t theta = 0, eta = -1;
    for (size_t b = 0; b < batches; b++) {
        trans t;
        if (var)
            eta = divsteps_var(eta, (uint64_t)f[0], (uint64_t)g[0], &t);
        else
            theta = divsteps(theta, (uint64_t)f[0], (uint64_t)g[0], k, orig, &t);
        update_fg(f, g, L, &t);
        update_de(d, e, L, &t, m62, minv62);
        if (var && is_zero_var(g, L))
            break;
    }
    /* f = +-gcd: invertible exactly when f is 1 or -1 */
    const uint64_t ok = is_unit(f, L);
    normalize(r, d, L, (uint64_t)(f[L - 1] >> 63), m, n);
    for (size_t i = 0; i < n; i++)
        r[i] &= ok;
    explicit_bzero(f, L * sizeof *f);
    explicit_bzero(g, L * sizeof *g);
    explicit_bzero(d, L * sizeof *d);
    explicit_bzero(e, L * sizeof *e);
    return ok;
}

typedef uint64_t inv_fn(uint64_t *r, const uint64_t *x, const uint64_t *m, size_t n,
                        size_t batches, int k, int var);

/* fixed L: the half-delta divsteps (these sizes are far below their bound's range) */
#define INV_FIXED(LL)                                                                         \
    static uint64_t inv_##LL(uint64_t *r, const uint64_t *x, const uint64_t *m, size_t n,    \
                             size_t batches, int k, int var)                                  \
    {                                                                                         \
        return inv_body(r, x, m, n, LL, batches, k, 0, var);                                  \
    }
INV_FIXED(4)
INV_FIXED(5)
INV_FIXED(6)
INV_FIXED(7)
INV_FIXED(8)
INV_FIXED(9)

static uint64_t inv_any(uint64_t *r, const uint64_t *x, const uint64_t *m, size_t n, size_t L,
                        size_t batches, int k, uint64_t orig, int var)
{
    return inv_body(r, x, m, n, L, batches, k, orig, var);
}

uint64_t mns_safegcd_inv(uint64_t *r, const uint64_t *x, const uint64_t *m, size_t n,
                         size_t bits, int var)
{
    if (n == 0 || n > (MNS_SAFEGCD_MAX_BITS + 63) / 64 || bits > MNS_SAFEGCD_MAX_BITS)
        return 0; /* outside the stack arrays: the caller checks the size first */
    static inv_fn *const fixed[10] = {[4] = inv_4, [5] = inv_5, [6] = inv_6,
                                      [7] = inv_7, [8] = inv_8, [9] = inv_9};
    const size_t L = mns_safegcd_limbs(bits);
    const size_t steps = var ? orig_divsteps(bits) : mns_safegcd_divsteps(bits);
    /* as few batches of at most 62 as the bound needs, spread evenly */
    const size_t batches = (steps + 61) / 62;
    const int k = (int)((steps + batches - 1) / batches);
    if (L < 10 && fixed[L])
        return fixed[L](r, x, m, n, batches, k, var);
    const uint64_t orig = bits > MNS_SAFEGCD_HD_MAX_BITS ? ~(uint64_t)0 : 0;
    return inv_any(r, x, m, n, L, batches, k, orig, var);
}
