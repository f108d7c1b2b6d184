/* The sub-quadratic Toeplitz matrix-vector product (Hasan-Negre, [15] of the
 * CIOS paper) as three linear maps: expand the vector, expand the matrix,
 * contract the leaf outputs. Splitting n by 2 gives 3 products of n/2:
 *   P0 = U0 (v0+v1), P1 = (U-1 - U0) v1, P2 = (U1 - U0) v0,
 *   out0 = P0 + P1, out1 = P0 + P2;
 * by 3, 6 products of n/3:
 *   P0 = U0 (v0+v1+v2), P1 = (U-1 - U0)(v1+v2), P2 = (U1 - U0)(v0+v1),
 *   P3 = (U-2 - U-1) v2, P4 = (U2 - U1) v0, P5 = (U1 + U-1 - 2 U0) v1,
 *   out0 = P0 + P1 + P3, out1 = P0 + P1 + P2 - P5, out2 = P0 + P2 + P4,
 * where U_e is the block Toeplitz matrix of block diagonal e (U_e[d] =
 * t[d + e h]). Levels are processed breadth first with two ping-pong buffers,
 * which orders the leaves as a depth-first recursion would. Everything is
 * wrapping 64-bit (or 128-bit) arithmetic: exact for values the context has
 * checked to stay in range, and exact modulo 2^64 always (the M' product).
 * Branches depend on the plan only (public). */
#include <string.h>

#include "pmns_mp/ctx.h"

void mns_pmns_mp_plan_make(mp_plan *pl, int n, int base)
{
    int f[MP_PLAN_MAX], levels = 0, m = n;
    if (base < 1)
        base = 1;
    while (m > base && levels < MP_PLAN_MAX) {
        /* 2-way first: 3 products for a factor 2 beats 6 for a factor 3
         * per unit of size (exponent log2 3 = 1.58 vs log3 6 = 1.63) */
        if (m % 2 == 0 && m / 2 >= 2)
            f[levels++] = 2, m /= 2;
        else if (m % 3 == 0 && m / 3 >= 2)
            f[levels++] = 3, m /= 3;
        else
            break;
    }
    mns_pmns_mp_plan_make_factors(pl, n, f, levels);
}

void mns_pmns_mp_plan_make_factors(mp_plan *pl, int n, const int *f, int levels)
{
    memset(pl, 0, sizeof *pl);
    pl->n = n;
    int m = n, leaves = 1;
    for (int l = 0; l < levels && l < MP_PLAN_MAX; l++) {
        pl->f[pl->levels++] = f[l];
        m /= f[l];
        leaves *= f[l] == 2 ? 3 : 6;
    }
    pl->b = m;
    pl->leaves = leaves;
    pl->nv = leaves * m;
    pl->nm = leaves * (2 * m - 1);
    /* the largest level array: matrices grow at most to nm, vectors to nv */
    int t = 2 * n;
    if (pl->nm + 8 > t)
        t = pl->nm + 8;
    pl->tmp = 2 * t + 16;
    pl->ctmp = 2 * (pl->nv + n + 8);
}

double mns_pmns_mp_plan_vec_growth(const mp_plan *pl)
{
    double g = 1;
    for (int l = 0; l < pl->levels; l++)
        g *= pl->f[l] == 2 ? 2 : 3;
    return g;
}

double mns_pmns_mp_plan_mat_growth(const mp_plan *pl)
{
    double g = 1;
    for (int l = 0; l < pl->levels; l++)
        g *= pl->f[l] == 2 ? 2 : 4;
    return g;
}

double mns_pmns_mp_plan_out_growth(const mp_plan *pl)
{
    double g = 1;
    for (int l = 0; l < pl->levels; l++)
        g *= pl->f[l] == 2 ? 2 : 4;
    return g;
}

void mns_pmns_mp_expand_vec(const mp_plan *pl, const uint64_t *v, uint64_t *out, uint64_t *tmp)
{
    if (pl->levels == 0) {
        memcpy(out, v, (size_t)pl->n * sizeof *v);
        return;
    }
    uint64_t *buf[2] = {tmp, tmp + pl->tmp / 2};
    const uint64_t *src = v;
    int count = 1, m = pl->n;
    for (int l = 0; l < pl->levels; l++) {
        uint64_t *dst = l == pl->levels - 1 ? out : buf[l & 1];
        int h = m / pl->f[l];
        uint64_t *d = dst;
        for (int q = 0; q < count; q++) {
            const uint64_t *x = src + (size_t)q * m;
            if (pl->f[l] == 2) {
                for (int i = 0; i < h; i++) {
                    d[i] = x[i] + x[h + i];
                    d[h + i] = x[h + i];
                    d[2 * h + i] = x[i];
                }
                d += 3 * h;
            } else {
                for (int i = 0; i < h; i++) {
                    uint64_t v0 = x[i], v1 = x[h + i], v2 = x[2 * h + i];
                    d[i] = v0 + v1 + v2;
                    d[h + i] = v1 + v2;
                    d[2 * h + i] = v0 + v1;
                    d[3 * h + i] = v2;
                    d[4 * h + i] = v0;
                    d[5 * h + i] = v1;
                }
                d += 6 * h;
            }
        }
        count *= pl->f[l] == 2 ? 3 : 6;
        m = h;
        src = dst;
    }
}

void mns_pmns_mp_expand_mat(const mp_plan *pl, const uint64_t *t, uint64_t *out, int ostride,
                            uint64_t *tmp)
{
    if (pl->levels == 0) {
        memcpy(out, t, (size_t)(2 * pl->n - 1) * sizeof *t);
        return;
    }
    uint64_t *buf[2] = {tmp, tmp + pl->tmp / 2};
    const uint64_t *src = t;
    int count = 1, m = pl->n;
    for (int l = 0; l < pl->levels; l++) {
        int last = l == pl->levels - 1;
        uint64_t *dst = buf[l & 1];
        int h = m / pl->f[l];
        int cl = 2 * h - 1;                 /* child sequence length */
        int dstride = last ? ostride : cl;  /* children of the last level go to out */
        uint64_t *d = last ? out : dst;
        for (int q = 0; q < count; q++) {
            /* x[d] for d in [-(m-1), m-1] */
            const uint64_t *x = src + (size_t)q * (2 * m - 1) + (m - 1);
            for (int i = 0; i < cl; i++) {
                int dd = i - (h - 1);
                uint64_t u0 = x[dd], um1 = x[dd - h], up1 = x[dd + h];
                if (pl->f[l] == 2) {
                    d[i] = u0;
                    d[dstride + i] = um1 - u0;
                    d[2 * dstride + i] = up1 - u0;
                } else {
                    uint64_t um2 = x[dd - 2 * h], up2 = x[dd + 2 * h];
                    d[i] = u0;
                    d[dstride + i] = um1 - u0;
                    d[2 * dstride + i] = up1 - u0;
                    d[3 * dstride + i] = um2 - um1;
                    d[4 * dstride + i] = up2 - up1;
                    d[5 * dstride + i] = up1 + um1 - 2 * u0;
                }
            }
            d += (size_t)(pl->f[l] == 2 ? 3 : 6) * dstride;
        }
        count *= pl->f[l] == 2 ? 3 : 6;
        m = h;
        src = dst;
    }
}

/* One contraction level, generic over the word type by a macro (64 and
 * 128-bit words share the shape). */
#define MP_CONTRACT_BODY(W)                                                                  \
    do {                                                                                     \
        if (pl->levels == 0) {                                                               \
            for (int i = 0; i < pl->n; i++)                                                  \
                out[i] = in[i];                                                              \
            return;                                                                          \
        }                                                                                    \
        /* sizes and counts per level */                                                     \
        int size[MP_PLAN_MAX + 1], cnt[MP_PLAN_MAX + 1];                                     \
        size[0] = pl->n;                                                                     \
        cnt[0] = 1;                                                                          \
        for (int l = 0; l < pl->levels; l++) {                                               \
            size[l + 1] = size[l] / pl->f[l];                                                \
            cnt[l + 1] = cnt[l] * (pl->f[l] == 2 ? 3 : 6);                                   \
        }                                                                                    \
        W *buf[2] = {tmp, tmp + pl->ctmp / 2};                                                \
        const W *src = in;                                                                   \
        int sstride = istride;                                                               \
        for (int l = pl->levels - 1; l >= 0; l--) {                                          \
            W *dst = l == 0 ? out : buf[l & 1];                                              \
            int h = size[l + 1], m = size[l];                                                \
            int kids = pl->f[l] == 2 ? 3 : 6;                                                \
            for (int q = 0; q < cnt[l]; q++) {                                               \
                const W *P0 = src + (size_t)(q * kids) * sstride;                            \
                const W *P1 = P0 + sstride, *P2 = P1 + sstride;                              \
                W *o = dst + (size_t)q * m;                                                  \
                if (pl->f[l] == 2) {                                                         \
                    for (int i = 0; i < h; i++) {                                            \
                        o[i] = P0[i] + P1[i];                                                \
                        o[h + i] = P0[i] + P2[i];                                            \
                    }                                                                        \
                } else {                                                                     \
                    const W *P3 = P2 + sstride, *P4 = P3 + sstride, *P5 = P4 + sstride;      \
                    for (int i = 0; i < h; i++) {                                            \
                        W s01 = P0[i] + P1[i];                                               \
                        o[i] = s01 + P3[i];                                                  \
                        o[h + i] = s01 + P2[i] - P5[i];                                      \
                        o[2 * h + i] = P0[i] + P2[i] + P4[i];                                \
                    }                                                                        \
                }                                                                            \
            }                                                                                \
            src = dst;                                                                       \
            sstride = m;                                                                     \
        }                                                                                    \
    } while (0)

void mns_pmns_mp_contract_u64(const mp_plan *pl, const uint64_t *in, int istride, uint64_t *out,
                              uint64_t *tmp)
{
    MP_CONTRACT_BODY(uint64_t);
}

void mns_pmns_mp_contract_u128(const mp_plan *pl, const mp_u128 *in, int istride, mp_u128 *out,
                               mp_u128 *tmp)
{
    MP_CONTRACT_BODY(mp_u128);
}
