/* Partial Montgomery (PMR, Algorithm 1) and partial Barrett (PBR, Algorithm
 * 2) reductions, the final reduction of the multipartite sum, and the
 * accumulation helpers. Every length here is public; the only data-dependent
 * decisions are taken with masks. */
#include <stdlib.h>
#include <string.h>

#include "core/ct.h"
#include "mpart/mpart.h"

typedef unsigned __int128 u128;

/* r (rn words) <- r - (p & mask) where p has pn <= rn words; returns the
 * borrow. */
static uint64_t sub_masked(uint64_t *r, size_t rn, const uint64_t *p, size_t pn, uint64_t mask)
{
    uint64_t b = 0;
    for (size_t i = 0; i < rn; i++) {
        uint64_t pi = i < pn ? (p[i] & mask) : 0;
        u128 d = (u128)r[i] - pi - b;
        r[i] = (uint64_t)d;
        b = (uint64_t)(d >> 64) & 1;
    }
    return b;
}

/* all-ones if any of the n words is nonzero */
static uint64_t mask_any(const uint64_t *x, size_t n)
{
    uint64_t o = 0;
    for (size_t i = 0; i < n; i++)
        o |= x[i];
    return mns_ct_mask_nonzero(o);
}

void mns_mpart_csub(uint64_t *r, uint64_t hi, const uint64_t *p, size_t n)
{
    /* subtract, then add back unless the value was >= p (a borrow with hi =
     * 0 means it was below) */
    uint64_t bw = mpn_sub_n((mp_ptr)r, (mp_srcptr)r, (mp_srcptr)p, (mp_size_t)n);
    uint64_t back = bw & ~mns_ct_mask_nonzero(hi) & 1;
    mpn_cnd_add_n(back, (mp_ptr)r, (mp_srcptr)r, (mp_srcptr)p, (mp_size_t)n);
}

void mns_mpart_pmr_q(uint64_t *q, const uint64_t *s, size_t sn, const uint64_t *mu, size_t t,
                     uint64_t *scratch, int fast)
{
    if (sn >= t) {
        mns_mpart_mullo(q, s, mu, t, scratch, fast);
        return;
    }
    /* S of sn < t words: S mu mod beta^t = S (mu mod beta^(t-sn)) (t words,
     * exact) + (S (mu div beta^(t-sn)) mod beta^sn) beta^(t-sn) */
    uint64_t *lo = scratch, *rest = scratch + sn;
    mns_mpart_mul_any(q, s, sn, mu, t - sn);
    mns_mpart_mullo(lo, s, mu + (t - sn), sn, rest, fast);
    mpn_add_n((mp_ptr)(q + t - sn), (mp_srcptr)(q + t - sn), (mp_srcptr)lo, (mp_size_t)sn);
}

void mns_mpart_pbr_q(uint64_t *q, const uint64_t *c1, size_t cn, size_t pad, const uint64_t *nu_t,
                     uint64_t *scratch)
{
    size_t t = cn + pad;
    /* C1 nu_t / beta^t with C1 = c1 beta^pad: the pad words never meet nu_t */
    mpn_mul((mp_ptr)scratch, (mp_srcptr)nu_t, (mp_size_t)(t + 1), (mp_srcptr)c1, (mp_size_t)cn);
    memcpy(q, scratch + cn, (t + 1) * sizeof(uint64_t));
}

void mns_mpart_pmr(uint64_t *r, const uint64_t *c, size_t m, const uint64_t *p, size_t n,
                   const uint64_t *mu, size_t t, uint64_t *scratch, int fast, int *subs)
{
    uint64_t *q = scratch;          /* t */
    uint64_t *qp = q + t;           /* n + t */
    uint64_t *sum = qp + n + t;     /* m + 1 */
    uint64_t *tmp = sum + m + 1;    /* 2 t */
    mns_mpart_pmr_q(q, c, m, mu, t, tmp, fast);
    mns_mpart_mul_any(qp, q, t, p, n);
    /* C + QP: QP has n + t <= m words */
    memcpy(sum, c, m * sizeof(uint64_t));
    uint64_t cy = mpn_add_n((mp_ptr)sum, (mp_srcptr)sum, (mp_srcptr)qp, (mp_size_t)(n + t));
    for (size_t i = n + t; i < m; i++) {
        u128 s = (u128)sum[i] + cy;
        sum[i] = (uint64_t)s;
        cy = (uint64_t)(s >> 64);
    }
    sum[m] = cy;
    /* R = sum / beta^t < beta^(m-t) + P: one masked subtraction when the word
     * m - t of R is set */
    uint64_t *R = sum + t; /* m - t + 1 words */
    uint64_t big = mns_ct_mask_nonzero(R[m - t]);
    sub_masked(R, m - t + 1, p, n, big);
    memcpy(r, R, (m - t) * sizeof(uint64_t));
    if (subs)
        *subs = (int)(big & 1);
}

void mns_mpart_pbr(uint64_t *r, const uint64_t *c, size_t m, const uint64_t *p, size_t n,
                   const uint64_t *nu, size_t t, uint64_t *scratch, int *subs)
{
    uint64_t *q = scratch;            /* t + 1 */
    uint64_t *qp = q + t + 1;         /* n + t + 1 */
    uint64_t *R = qp + n + t + 1;     /* m */
    uint64_t *tmp = R + m;            /* 2 t + 1 */
    const size_t sh = m - n - t;      /* Q = Q' beta^(m-n-t) */
    mns_mpart_pbr_q(q, c + (m - t), t, 0, nu, tmp);
    mns_mpart_mul_any(qp, q, t + 1, p, n);
    /* 0 <= C - QP < beta^m: the top word of Q'P at word m is zero */
    memcpy(R, c, m * sizeof(uint64_t));
    mpn_sub_n((mp_ptr)(R + sh), (mp_srcptr)(R + sh), (mp_srcptr)qp, (mp_size_t)(n + t));
    /* R < beta^(m-t) + 2 beta^(m-n-t) P (bound (5)): two masked steps */
    int taken = 0;
    for (int k = 0; k < 2; k++) {
        uint64_t big = mask_any(R + (m - t), t);
        sub_masked(R + sh, m - sh, p, n, big);
        taken += (int)(big & 1);
    }
    memcpy(r, R, (m - t) * sizeof(uint64_t));
    if (subs)
        *subs = taken;
}

/* Barrett on bits with two guard bits: q1 = floor(x / 2^a), a = bits - 3,
 * fmu = floor(2^(64F + 2) / p), q = floor(q1 fmu / 2^(64F + 2 - a)). With x <
 * 2^(64F), q >= floor(x / p - x / 2^(64F + 2) - 2^a / p) > floor(x / p - 1/2),
 * so x - q p < 2p: one masked subtraction. */
int mns_mpart_fold_init(mns_mpart_fold *fd, const mpz_t p, size_t F)
{
    fd->n = mpz_size(p);
    fd->F = F;
    fd->bits = mpz_sizeinbase(p, 2);
    fd->a = fd->bits >= 3 ? fd->bits - 3 : 0;
    fd->q1n = F - fd->a / 64;
    fd->mun = (64 * F + 2 - (fd->bits - 1) + 63) / 64 + 1;
    fd->fmu = calloc(fd->mun, sizeof(uint64_t));
    if (!fd->fmu)
        return 0;
    mpz_t t;
    mpz_init_set_ui(t, 1);
    mpz_mul_2exp(t, t, 64 * F + 2);
    mpz_fdiv_q(t, t, p);
    size_t count = 0;
    mpz_export(fd->fmu, &count, -1, sizeof(uint64_t), 0, 0, t);
    mpz_clear(t);
    return 1;
}

void mns_mpart_fold_clear(mns_mpart_fold *fd)
{
    free(fd->fmu);
    fd->fmu = NULL;
}

size_t mns_mpart_fold_scratch(const mns_mpart_fold *fd)
{
    return 3 * fd->q1n + 2 * fd->mun + 3 * fd->n + 8;
}

void mns_mpart_fold_run(const mns_mpart_fold *fd, const uint64_t *p, uint64_t *r,
                        const uint64_t *x, uint64_t *scratch)
{
    const size_t n = fd->n, q1n = fd->q1n, mun = fd->mun, wo = fd->a / 64;
    const unsigned sh = (unsigned)(fd->a % 64);
    uint64_t *q1 = scratch;              /* q1n */
    uint64_t *pr = q1 + q1n;             /* q1n + mun */
    uint64_t *q = pr + q1n + mun;        /* q1n + mun */
    uint64_t *t = q + q1n + mun;         /* n + q1n */
    uint64_t *rr = t + n + q1n;          /* n + 1 */
    uint64_t *d = rr + n + 1;            /* n + 1 */
    if (sh)
        mpn_rshift((mp_ptr)q1, (mp_srcptr)(x + wo), (mp_size_t)q1n, sh);
    else
        memcpy(q1, x + wo, q1n * sizeof(uint64_t));
    mns_mpart_mul_any(pr, q1, q1n, fd->fmu, mun);
    const size_t c = 64 * fd->F + 2 - fd->a, wc = c / 64, avail = q1n + mun - wc;
    const unsigned shc = (unsigned)(c % 64);
    if (shc)
        mpn_rshift((mp_ptr)q, (mp_srcptr)(pr + wc), (mp_size_t)avail, shc);
    else
        memcpy(q, pr + wc, avail * sizeof(uint64_t));
    /* q < 2^(64F - bits + 1) fits q1n words; only the low n + 1 words of q p
     * matter, as x - q p < 2p < beta^(n+1) */
    mns_mpart_mul_any(t, q, q1n, p, n);
    mpn_sub_n((mp_ptr)rr, (mp_srcptr)x, (mp_srcptr)t, (mp_size_t)(n + 1));
    uint64_t bw = mpn_sub((mp_ptr)d, (mp_srcptr)rr, (mp_size_t)(n + 1), (mp_srcptr)p, (mp_size_t)n);
    uint64_t keep = mns_ct_mask_bit(bw);
    for (size_t i = 0; i < n; i++)
        r[i] = (rr[i] & keep) | (d[i] & ~keep);
}

void mns_mpart_acc_add(uint64_t *acc, uint64_t *cy, size_t W, size_t off, const uint64_t *x,
                       size_t xn)
{
    if (off >= W || xn == 0)
        return;
    size_t len = xn < W - off ? xn : W - off;
    cy[off + len] += mpn_add_n((mp_ptr)(acc + off), (mp_srcptr)(acc + off), (mp_srcptr)x,
                               (mp_size_t)len);
}

/* ---- accumulation modulo beta^K - 1 ------------------------------------- */

/* acc +- x at word off, modulo beta^K - 1: slices up to the top, then from
 * word 0 on (beta^K = 1); a carry or borrow out of the top word counts at
 * word 0 */
static void ring_op(uint64_t *acc, int64_t *d, size_t K, size_t off, const uint64_t *x, size_t xn,
                    int sub)
{
    while (xn > 0) {
        size_t len = xn < K - off ? xn : K - off;
        mp_ptr r = (mp_ptr)(acc + off);
        int64_t c = sub ? -(int64_t)mpn_sub_n(r, r, (mp_srcptr)x, (mp_size_t)len)
                        : (int64_t)mpn_add_n(r, r, (mp_srcptr)x, (mp_size_t)len);
        d[off + len == K ? 0 : off + len] += c;
        x += len;
        xn -= len;
        off = 0;
    }
}

void mns_mpart_ring_add(uint64_t *acc, int64_t *d, size_t K, size_t off, const uint64_t *x,
                        size_t xn)
{
    ring_op(acc, d, K, off, x, xn, 0);
}

void mns_mpart_ring_sub(uint64_t *acc, int64_t *d, size_t K, size_t off, const uint64_t *x,
                        size_t xn)
{
    ring_op(acc, d, K, off, x, xn, 1);
}

int64_t mns_mpart_ring_settle(uint64_t *acc, const int64_t *d, size_t K)
{
    __int128 c = 0;
    for (size_t i = 0; i < K; i++) {
        __int128 t = (__int128)acc[i] + d[i] + c;
        acc[i] = (uint64_t)t;
        c = t >> 64; /* arithmetic: c may be negative */
    }
    return (int64_t)c;
}

void mns_mpart_ring_finish(uint64_t *s, size_t K, int64_t e)
{
    /* V = S + e as an integer: R = V when V < beta^K (or R = 0 when V =
     * beta^K - 1), and R = V - beta^K + 1 when V >= beta^K, in which case V -
     * beta^K is below e and the + 1 stays in word 0. V < 0 would give R >=
     * beta^K - 1 - |e| > beta^(K-1). */
    __int128 c = e;
    for (size_t i = 0; i < K; i++) {
        __int128 t = (__int128)s[i] + c;
        s[i] = (uint64_t)t;
        c = t >> 64;
    }
    s[0] += (uint64_t)c;
    /* R < beta^(K-1): a nonzero top word means V = beta^K - 1, i.e. R = 0 */
    uint64_t zero = ~mns_ct_mask_nonzero(s[K - 1]);
    for (size_t i = 0; i < K; i++)
        s[i] &= zero;
}
