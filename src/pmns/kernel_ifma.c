/* AVX-512 IFMA kernels for u52 sets (phi = 2^52, coefficients unsigned).
 *
 * Layout: a product X*Y mod E is a matrix-vector product whose matrix is
 * Toeplitz: coefficient k is sum_i x_i f(k - i) with, for d = k - i,
 *   X^n - lambda:  f(d) = y_d (d >= 0),  lambda y_{n+d} (d < 0);
 *   X^n - X - 1:   f(d) = y_d (d > 0),  y_0 + y_{n-1} (d = 0),
 *                  y_{n+d} + y_{n+d-1} (d < 0), except on row k = 0, which
 *                  is computed apart (a scalar dot product).
 * f is laid out once per operand ("ext", f(d) at index d + n - 1), so the 8
 * coefficients k = 8c..8c+7 of output chunk c take, for each i, one unaligned
 * load of ext at 8c - i + n - 1 and one broadcast of x_i: no external
 * reduction pass and no wasted lanes but the last chunk's padding. For the
 * constant operands M' and M the ext rows are precomputed in the context.
 *
 * Each output chunk keeps two accumulators (vpmadd52luq / vpmadd52huq: low
 * and high 52 bits of each 104-bit product); up to 8 chunks are processed per
 * pass over i, so 8-16 independent accumulations are in flight (the latency of
 * 4 cycles and the throughput of 2 per cycle ask for at least 8). Coefficient
 * values are lo + 2^52 hi with lo, hi in 64-bit lanes: n products of
 * 52 bits each stay far below 2^64.
 *
 * Algorithm 3 then reads:  V = A B mod E          (lo, hi)
 *                          Q = V M' mod (E, 2^52) (lo only; IFMA reads only
 *                                                  the low 52 bits of V)
 *                          T = Q M mod E          (lo, hi)
 *                          S = V_hi + T_hi + (V_lo + T_lo) >> 52
 * which is exact because V + T = 0 mod 2^52. No branch and no address
 * depends on the coefficients; loop bounds and masks depend on n only. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "pmns/pmns.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "core/simd512.h"

#define TGT MNS_TARGET_IFMA
#define INL static inline __attribute__((always_inline)) TGT

#define M52 ((uint64_t)0xfffffffffffff)

typedef unsigned __int128 u128;

/* ext[t] = f(t - n + 1) of the header comment; len words, zero beyond 2n-1. */
static void build_ext_scalar(const mns_pmns_ctx *c, uint64_t *ext, const uint64_t *y, size_t len,
                             uint64_t mask)
{
    const int n = c->n;
    memset(ext, 0, len * 8);
    for (int t = 0; t < 2 * n - 1; t++) {
        int d = t - n + 1;
        uint64_t v;
        if (c->eshape == MNS_PMNS_E_BINOMIAL)
            v = d >= 0 ? y[d] : (uint64_t)c->lambda * y[n + d];
        else if (d > 0)
            v = y[d];
        else if (d == 0)
            v = y[0] + y[n - 1];
        else
            v = y[n + d] + y[n + d - 1];
        ext[t] = v & mask;
    }
}

/* row0[i]: the coefficient of x_i in output 0 for X^n - X - 1. */
static void build_row0(const mns_pmns_ctx *c, uint64_t *row0, const uint64_t *y, uint64_t mask)
{
    row0[0] = y[0] & mask;
    for (int i = 1; i < c->n; i++)
        row0[i] = y[c->n - i] & mask;
}

mns_status mns_pmns_ifma_prepare(mns_pmns_ctx *c)
{
    const int n = c->n;
    c->nchunks = (n + 7) / 8;
    c->ext_len = (size_t)(8 * c->nchunks + n + 8);
    size_t bytes = (c->ext_len * 8 + 63) & ~(size_t)63;
    c->m_ext = mns_alloc64(bytes);
    c->mp_ext = mns_alloc64(bytes);
    c->m_row0 = calloc((size_t)n, 8);
    c->mp_row0 = calloc((size_t)n, 8);
    if (!c->m_ext || !c->mp_ext || !c->m_row0 || !c->mp_row0)
        return mns_error(MNS_ENOMEM, "pmns: out of memory");
    /* M >= 0 for u52 sets; M' is kept mod 2^52 (only Q mod 2^52 matters) */
    build_ext_scalar(c, c->m_ext, (const uint64_t *)c->m, c->ext_len, ~(uint64_t)0);
    build_ext_scalar(c, c->mp_ext, c->mp, c->ext_len, M52);
    build_row0(c, c->m_row0, (const uint64_t *)c->m, ~(uint64_t)0);
    build_row0(c, c->mp_row0, c->mp, M52);
    for (size_t t = 0; t < c->ext_len; t++)
        if (c->m_ext[t] > M52)
            return mns_error(MNS_ENOTSUP, "pmns: M row entry above 52 bits");
    c->ext8_stride = (c->ext_len + 7) & ~(size_t)7;
    size_t b8 = 8 * c->ext8_stride * 8;
    c->m_ext8 = mns_alloc64(b8);
    c->mp_ext8 = mns_alloc64(b8);
    c->off_u = calloc((size_t)n, sizeof(int32_t));
    c->off_a = calloc((size_t)n, sizeof(int32_t));
    if (!c->m_ext8 || !c->mp_ext8 || !c->off_u || !c->off_a)
        return mns_error(MNS_ENOMEM, "pmns: out of memory");
    memset(c->m_ext8, 0, b8);
    memset(c->mp_ext8, 0, b8);
    for (size_t sh = 0; sh < 8; sh++)
        for (size_t u = 0; u + sh < c->ext_len; u++) {
            c->m_ext8[sh * c->ext8_stride + u] = c->m_ext[u + sh];
            c->mp_ext8[sh * c->ext8_stride + u] = c->mp_ext[u + sh];
        }
    for (int i = 0; i < n; i++) {
        int o = n - 1 - i;
        c->off_u[i] = o;
        c->off_a[i] = (int32_t)((size_t)(o & 7) * c->ext8_stride + (size_t)(8 * (o >> 3)));
    }
    return MNS_OK;
}

/* The per-call ext of the operand B, vectorised (build_ext_scalar's
 * layout): ext[0..n-2] from b[1..n-1] (times lambda, or b[t+1] + b[t]),
 * ext[n-1..2n-2] = b, zeros up to len. */
TGT static void build_ext(const mns_pmns_ctx *c, uint64_t *ext, const uint64_t *b, size_t len)
{
    const int n = c->n;
    const __m512i z = _mm512_setzero_si512();
    for (size_t t = (size_t)(2 * n - 1) & ~(size_t)7; t < len; t += 8)
        _mm512_storeu_si512((void *)(ext + t), z);
    if (c->eshape == MNS_PMNS_E_BINOMIAL) {
        const __m512i lam = _mm512_set1_epi64(c->lambda);
        for (int j = 0; j < n - 1; j += 8) {
            int left = n - 1 - j;
            __mmask8 m = left >= 8 ? (__mmask8)0xff : (__mmask8)((1u << left) - 1);
            __m512i v = _mm512_maskz_loadu_epi64(m, (const void *)(b + 1 + j));
            _mm512_mask_storeu_epi64((void *)(ext + j), m, _mm512_mullo_epi64(v, lam));
        }
    } else {
        for (int j = 0; j < n - 1; j += 8) {
            int left = n - 1 - j;
            __mmask8 m = left >= 8 ? (__mmask8)0xff : (__mmask8)((1u << left) - 1);
            __m512i v = _mm512_add_epi64(_mm512_maskz_loadu_epi64(m, (const void *)(b + 1 + j)),
                                         _mm512_maskz_loadu_epi64(m, (const void *)(b + j)));
            _mm512_mask_storeu_epi64((void *)(ext + j), m, v);
        }
    }
    for (int j = 0; j < n; j += 8) {
        int left = n - j;
        __mmask8 m = left >= 8 ? (__mmask8)0xff : (__mmask8)((1u << left) - 1);
        _mm512_mask_storeu_epi64((void *)(ext + n - 1 + j), m,
                                 _mm512_maskz_loadu_epi64(m, (const void *)(b + j)));
    }
    if (c->eshape == MNS_PMNS_E_TRINOMIAL)
        ext[n - 1] = b[0] + b[n - 1];
}

/* G output chunks from chunk c0: lo/hi accumulators of sum_i x_i ext[...].
 * U > 1 splits i by residue mod U with separate accumulators, for small G
 * where G chains alone would wait on the IFMA latency. */
INL void tp_lohi(const int G, const int U, const uint64_t *x, const uint64_t *ext,
                 const int32_t *off, int n, int c0, uint64_t *lo_out, uint64_t *hi_out)
{
    __m512i lo[4][8], hi[4][8];
    const __m512i z = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int u = 0; u < U; u++)
#pragma GCC unroll 8
        for (int g = 0; g < G; g++)
            lo[u][g] = hi[u][g] = z;
    const uint64_t *base = ext + 8 * c0;
    int i = 0;
    for (; i + U <= n; i += U) {
#pragma GCC unroll 4
        for (int u = 0; u < U; u++) {
            const __m512i bx = _mm512_set1_epi64((long long)x[i + u]);
            const uint64_t *w = base + off[i + u];
#pragma GCC unroll 8
            for (int g = 0; g < G; g++) {
                const __m512i W = _mm512_loadu_si512((const void *)(w + 8 * g));
                lo[u][g] = _mm512_madd52lo_epu64(lo[u][g], bx, W);
                hi[u][g] = _mm512_madd52hi_epu64(hi[u][g], bx, W);
            }
        }
    }
    for (; i < n; i++) {
        const __m512i bx = _mm512_set1_epi64((long long)x[i]);
        const uint64_t *w = base + off[i];
#pragma GCC unroll 8
        for (int g = 0; g < G; g++) {
            const __m512i W = _mm512_loadu_si512((const void *)(w + 8 * g));
            lo[0][g] = _mm512_madd52lo_epu64(lo[0][g], bx, W);
            hi[0][g] = _mm512_madd52hi_epu64(hi[0][g], bx, W);
        }
    }
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) {
#pragma GCC unroll 4
        for (int u = 1; u < U; u++) {
            lo[0][g] = _mm512_add_epi64(lo[0][g], lo[u][g]);
            hi[0][g] = _mm512_add_epi64(hi[0][g], hi[u][g]);
        }
        _mm512_store_si512((void *)(lo_out + 8 * (c0 + g)), lo[0][g]);
        _mm512_store_si512((void *)(hi_out + 8 * (c0 + g)), hi[0][g]);
    }
}

/* Splits nc chunks into passes of at most 8, as even as possible. */
static inline int next_group(int left)
{
    int passes = (left + 7) / 8;
    return (left + passes - 1) / passes;
}

/* {s, s+1, ..., s+7}: lanes s..s+7 of the pair (x, y) for vpermt2q */
static const _Alignas(64) uint64_t win_idx[8][8] = {
    {0, 1, 2, 3, 4, 5, 6, 7},     {1, 2, 3, 4, 5, 6, 7, 8},     {2, 3, 4, 5, 6, 7, 8, 9},
    {3, 4, 5, 6, 7, 8, 9, 10},    {4, 5, 6, 7, 8, 9, 10, 11},   {5, 6, 7, 8, 9, 10, 11, 12},
    {6, 7, 8, 9, 10, 11, 12, 13}, {7, 8, 9, 10, 11, 12, 13, 14},
};

/* tp_lohi for the per-call ext of B: the windows are built from two
 * aligned loads and a vpermt2q instead of one unaligned load. ext was just
 * written by aligned 64-byte stores; an unaligned window straddles two of
 * them and cannot be forwarded from the store buffer, so every such load
 * would wait for the stores to commit; an aligned load matching one store
 * forwards, and the permute runs on port 5 beside the IFMA on port 0. U = 1
 * (called with G >= 3 only). */
INL void tp_lohi_perm(const int G, const uint64_t *x, const uint64_t *ext, int n, int c0,
                      uint64_t *lo_out, uint64_t *hi_out)
{
    __m512i lo[8], hi[8];
    const __m512i z = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int g = 0; g < G; g++)
        lo[g] = hi[g] = z;
    const uint64_t *base = ext + 8 * c0;
    for (int i = 0; i < n; i++) {
        const __m512i bx = _mm512_set1_epi64((long long)x[i]);
        const int o = n - 1 - i;
        const uint64_t *w = base + (o & ~7);
        const __m512i idx = _mm512_load_si512((const void *)win_idx[o & 7]);
        __m512i prev = _mm512_load_si512((const void *)w);
#pragma GCC unroll 8
        for (int g = 0; g < G; g++) {
            const __m512i next = _mm512_load_si512((const void *)(w + 8 * g + 8));
            const __m512i W = _mm512_permutex2var_epi64(prev, idx, next);
            prev = next;
            lo[g] = _mm512_madd52lo_epu64(lo[g], bx, W);
            hi[g] = _mm512_madd52hi_epu64(hi[g], bx, W);
        }
    }
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) {
        _mm512_store_si512((void *)(lo_out + 8 * (c0 + g)), lo[g]);
        _mm512_store_si512((void *)(hi_out + 8 * (c0 + g)), hi[g]);
    }
}

TGT static void prod_lohi_b(const uint64_t *x, const uint64_t *ext, const int32_t *off, int n,
                            int nc, uint64_t *lo, uint64_t *hi)
{
    for (int c0 = 0; c0 < nc;) {
        int g = next_group(nc - c0);
        switch (g) {
        case 1: tp_lohi(1, 4, x, ext, off, n, c0, lo, hi); break;
        case 2: tp_lohi(2, 4, x, ext, off, n, c0, lo, hi); break;
        case 3: tp_lohi_perm(3, x, ext, n, c0, lo, hi); break;
        case 4: tp_lohi_perm(4, x, ext, n, c0, lo, hi); break;
        case 5: tp_lohi_perm(5, x, ext, n, c0, lo, hi); break;
        case 6: tp_lohi_perm(6, x, ext, n, c0, lo, hi); break;
        case 7: tp_lohi_perm(7, x, ext, n, c0, lo, hi); break;
        default: tp_lohi_perm(8, x, ext, n, c0, lo, hi); break;
        }
        c0 += g;
    }
}

INL void tp_lo(const int G, const int U, const uint64_t *x, const uint64_t *ext,
               const int32_t *off, int n, int c0, uint64_t *lo_out)
{
    __m512i lo[4][8];
    const __m512i z = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int u = 0; u < U; u++)
#pragma GCC unroll 8
        for (int g = 0; g < G; g++)
            lo[u][g] = z;
    const uint64_t *base = ext + 8 * c0;
    int i = 0;
    for (; i + U <= n; i += U) {
#pragma GCC unroll 4
        for (int u = 0; u < U; u++) {
            const __m512i bx = _mm512_set1_epi64((long long)x[i + u]);
            const uint64_t *w = base + off[i + u];
#pragma GCC unroll 8
            for (int g = 0; g < G; g++)
                lo[u][g] = _mm512_madd52lo_epu64(lo[u][g], bx,
                                                 _mm512_loadu_si512((const void *)(w + 8 * g)));
        }
    }
    for (; i < n; i++) {
        const __m512i bx = _mm512_set1_epi64((long long)x[i]);
        const uint64_t *w = base + off[i];
#pragma GCC unroll 8
        for (int g = 0; g < G; g++)
            lo[0][g] = _mm512_madd52lo_epu64(lo[0][g], bx, _mm512_loadu_si512((const void *)(w + 8 * g)));
    }
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) {
#pragma GCC unroll 4
        for (int u = 1; u < U; u++)
            lo[0][g] = _mm512_add_epi64(lo[0][g], lo[u][g]);
        _mm512_store_si512((void *)(lo_out + 8 * (c0 + g)), lo[0][g]);
    }
}


TGT static void prod_lohi(const uint64_t *x, const uint64_t *ext, const int32_t *off, int n, int nc,
                          uint64_t *lo, uint64_t *hi)
{
    for (int c0 = 0; c0 < nc;) {
        int g = next_group(nc - c0);
        switch (g) {
        case 1: tp_lohi(1, 4, x, ext, off, n, c0, lo, hi); break;
        case 2: tp_lohi(2, 4, x, ext, off, n, c0, lo, hi); break;
        case 3: tp_lohi(3, 2, x, ext, off, n, c0, lo, hi); break;
        case 4: tp_lohi(4, 2, x, ext, off, n, c0, lo, hi); break;
        case 5: tp_lohi(5, 1, x, ext, off, n, c0, lo, hi); break;
        case 6: tp_lohi(6, 1, x, ext, off, n, c0, lo, hi); break;
        case 7: tp_lohi(7, 1, x, ext, off, n, c0, lo, hi); break;
        default: tp_lohi(8, 1, x, ext, off, n, c0, lo, hi); break;
        }
        c0 += g;
    }
}

TGT static void prod_lo(const uint64_t *x, const uint64_t *ext, const int32_t *off, int n, int nc,
                        uint64_t *lo)
{
    for (int c0 = 0; c0 < nc;) {
        int g = next_group(nc - c0);
        switch (g) {
        case 1: tp_lo(1, 4, x, ext, off, n, c0, lo); break;
        case 2: tp_lo(2, 4, x, ext, off, n, c0, lo); break;
        case 3: tp_lo(3, 4, x, ext, off, n, c0, lo); break;
        case 4: tp_lo(4, 4, x, ext, off, n, c0, lo); break;
        case 5: tp_lo(5, 2, x, ext, off, n, c0, lo); break;
        case 6: tp_lo(6, 2, x, ext, off, n, c0, lo); break;
        case 7: tp_lo(7, 2, x, ext, off, n, c0, lo); break;
        default: tp_lo(8, 2, x, ext, off, n, c0, lo); break;
        }
        c0 += g;
    }
}

/* Per-call scratch on the stack: five chunked arrays and one ext array
 * sized for n = MNS_PMNS_SCRATCH_N_MAX (ext_len = 8 nchunks + n + 8 fits
 * EXT_W there), the largest n that mns_pmns_ctx_new accepts. */
#define CH_W (MNS_PMNS_SCRATCH_N_MAX + 8)       /* words of one chunked array */
#define EXT_W (2 * MNS_PMNS_SCRATCH_N_MAX + 16) /* words of one ext array */

typedef struct ifma_scratch {
    _Alignas(64) uint64_t stack[5 * CH_W + EXT_W];
} ifma_scratch;

static uint64_t *scratch_get(ifma_scratch *s, size_t *chw)
{
    *chw = CH_W;
    return s->stack;
}

/* vlo, vhi: V; q, tlo, thi: scratch of chunked size. r <- (V + Q M) / 2^52. */
TGT static void redc_core(const mns_pmns_ctx *c, uint64_t *r, uint64_t *vlo, const uint64_t *vhi,
                          uint64_t *q, uint64_t *tlo, uint64_t *thi)
{
    const int n = c->n, nc = c->nchunks;
    prod_lo(vlo, c->mp_ext8, c->off_a, n, nc, q);
    if (c->eshape == MNS_PMNS_E_TRINOMIAL) {
        uint64_t s = 0;
        for (int i = 0; i < n; i++)
            s += (vlo[i] & M52) * c->mp_row0[i];
        q[0] = s;
    }
    prod_lohi(q, c->m_ext8, c->off_a, n, nc, tlo, thi);
    if (c->eshape == MNS_PMNS_E_TRINOMIAL) {
        u128 s = 0;
        for (int i = 0; i < n; i++)
            s += (u128)(q[i] & M52) * c->m_row0[i];
        tlo[0] = (uint64_t)s & M52;
        thi[0] = (uint64_t)(s >> 52);
    }
    for (int k = 0; k < nc; k++) {
        __m512i l = _mm512_add_epi64(_mm512_load_si512((const void *)(vlo + 8 * k)),
                                     _mm512_load_si512((const void *)(tlo + 8 * k)));
        __m512i h = _mm512_add_epi64(_mm512_load_si512((const void *)(vhi + 8 * k)),
                                     _mm512_load_si512((const void *)(thi + 8 * k)));
        __m512i s = _mm512_add_epi64(h, _mm512_srli_epi64(l, 52));
        int left = n - 8 * k;
        __mmask8 m = left >= 8 ? (__mmask8)0xff : (__mmask8)((1u << left) - 1);
        _mm512_mask_storeu_epi64((void *)(r + 8 * k), m, s);
    }
}

TGT void mns_pmns_mul_ifma(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const int n = c->n, nc = c->nchunks;
    ifma_scratch s;
    size_t chw;
    uint64_t *w = scratch_get(&s, &chw);
    uint64_t *vlo = w, *vhi = w + chw, *q = w + 2 * chw, *tlo = w + 3 * chw, *thi = w + 4 * chw;
    uint64_t *bext = w + 5 * chw;
    /* r is written last, so it may alias a or b */
    build_ext(c, bext, b, c->ext_len);
    prod_lohi_b(a, bext, c->off_u, n, nc, vlo, vhi);
    if (c->eshape == MNS_PMNS_E_TRINOMIAL) {
        u128 t = (u128)a[0] * b[0];
        for (int i = 1; i < n; i++)
            t += (u128)a[i] * b[n - i];
        vlo[0] = (uint64_t)t & M52;
        vhi[0] = (uint64_t)(t >> 52);
    }
    redc_core(c, r, vlo, vhi, q, tlo, thi);
}

TGT void mns_pmns_sqr_ifma(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a)
{
    mns_pmns_mul_ifma(c, r, a, a);
}

TGT void mns_pmns_redc_ifma(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a)
{
    const int n = c->n;
    ifma_scratch s;
    size_t chw;
    uint64_t *w = scratch_get(&s, &chw);
    uint64_t *vlo = w, *vhi = w + chw, *q = w + 2 * chw, *tlo = w + 3 * chw, *thi = w + 4 * chw;
    memset(vlo, 0, chw * 8);
    memset(vhi, 0, chw * 8);
    /* any 64-bit word: split so that V_lo + T_lo cannot wrap */
    for (int i = 0; i < n; i++) {
        vlo[i] = a[i] & M52;
        vhi[i] = a[i] >> 52;
    }
    redc_core(c, r, vlo, vhi, q, tlo, thi);
}

#else /* no x86-64 GCC: the IFMA kernels are never selected */

mns_status mns_pmns_ifma_prepare(mns_pmns_ctx *c)
{
    (void)c;
    return mns_error(MNS_ENOTSUP, "pmns: IFMA kernels not built for this target");
}
void mns_pmns_mul_ifma(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_pmns_mul_generic(c, r, a, b);
}
void mns_pmns_sqr_ifma(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a)
{
    mns_pmns_sqr_generic(c, r, a);
}
void mns_pmns_redc_ifma(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a)
{
    mns_pmns_redc_generic(c, r, a);
}
#endif
