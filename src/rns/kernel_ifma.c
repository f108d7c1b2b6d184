/* The AVX-512 IFMA kernel: Algorithm 1 in the fused form of rns.h, e = 52,
 * 8 channels per zmm vector, n a multiple of 8.
 *
 * vpmadd52luq / vpmadd52huq add the low / high 52 bits of a 52 x 52-bit
 * product to a 64-bit lane, so a matrix-vector product keeps two accumulators
 * per target vector, lo and hi, with value lo + hi 2^52; at most n + 1 <= 241
 * terms of each are below 2^52, so both stay below 2^60.
 *
 * Throughput: vpmadd52 has a latency of ~4 cycles and two issue per cycle, so
 * the matrix loops keep MNS_RNS_VB target vectors (2 MNS_RNS_VB independent
 * accumulators) in flight; each matrix row segment is loaded once for its lo
 * and hi products and the source residue is a memory broadcast.
 *
 * Compiled per function for the IFMA target, so the library stays baseline
 * x86-64; the context only picks these after checking the CPU. */
#include "rns/rns.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include "rns/ifma52.h"

#define MNS_RNS_VB MNS_RNS_IFMA_VB

int mns_rns_ifma_compiled(void) { return 1; }

/* matvec of ifma52.h on L = 1 or 2 lanes in one loop (the x2 kernel's two
 * products): lo_l/hi_l[v] += sum_i x_l[i] A_l[i * stride + 8 v]. Each row
 * segment is loaded once into a register for its lo and hi products: gcc
 * otherwise folds the load into both vpmadd52 instructions, and 2 VB + 1
 * loads per row for 2 VB products make the loop load-bound (measured: the
 * x2 kernel at n = 40 went from 0.99x to 1.2x two calls with this). Used
 * where L VB >= 4: 8 or more independent accumulations in flight. */
MNS_IFMA static inline __attribute__((always_inline)) void
matvec_lanes(int L, const uint64_t *const *x, size_t rows, const uint64_t *const *A,
             size_t stride, int VB, __m512i (*lo)[MNS_RNS_VB], __m512i (*hi)[MNS_RNS_VB])
{
    for (size_t i = 0; i < rows; i++) {
        __m512i y[2];
        for (int l = 0; l < L; l++)
            y[l] = _mm512_set1_epi64((int64_t)x[l][i]);
#pragma GCC unroll 6
        for (int v = 0; v < VB; v++)
            for (int l = 0; l < L; l++) {
                __m512i a = LD(A[l] + i * stride + 8 * v);
                MNS_SIMD512_OPAQUE(a);
                lo[l][v] = _mm512_madd52lo_epu64(lo[l][v], y[l], a);
                hi[l][v] = _mm512_madd52hi_epu64(hi[l][v], y[l], a);
            }
    }
}

/* The kernel below runs L = 1 or 2 independent products ("lanes") of
 * contexts with the same n; every helper is inlined with L and VB constant,
 * so the per-lane arrays of vectors live in registers. */
#define LANES 2

/* First extension and steps 4-6 for VB target vectors of Bm starting at
 * channel j, then xi_j for the second extension; adds the xi into sum. */
MNS_IFMA static inline __attribute__((always_inline)) void
ext1_block(int L, const mns_rns *const *c, uint64_t (*xip)[MNS_RNS_NMAX],
           uint64_t (*s)[MNS_RNS_NMAX], size_t j, int VB, uint64_t *const *w,
           uint64_t (*xi)[MNS_RNS_NMAX], __m512i *sum)
{
    const __m512i z = _mm512_setzero_si512();
    __m512i lo[LANES][MNS_RNS_VB], hi[LANES][MNS_RNS_VB];
    for (int l = 0; l < L; l++)
        for (int v = 0; v < VB; v++) {
            __m512i sv = LD(s[l] + j + 8 * v), dv = LD(c[l]->d + j + 8 * v);
            lo[l][v] = _mm512_madd52lo_epu64(z, sv, dv);
            hi[l][v] = _mm512_madd52hi_epu64(z, sv, dv);
        }
    /* the strip of columns j.. */
    const size_t n = c[0]->n;
    const uint64_t *x[2] = {xip[0], xip[L - 1]}, *A[2] = {c[0]->a1 + j * n, c[L - 1]->a1 + j * n};
    if (L == 1 && VB < 4) /* too few chains: ifma52.h's matvec splits the rows */
        matvec(x[0], n, A[0], 8 * (size_t)VB, VB, lo[0], hi[0]);
    else
        matvec_lanes(L, x, n, A, 8 * (size_t)VB, VB, lo, hi);
    for (int l = 0; l < L; l++)
        for (int v = 0; v < VB; v++) {
            const mns_rns *cl = c[l];
            __m512i m = LD(cl->m + j + 8 * v), cc = LD(cl->c + j + 8 * v);
            __m512i wv = red52(lo[l][v], hi[l][v], cc, m);
            __m512i xv = mulmod52(wv, LD(cl->minv + j + 8 * v), cc, m);
            ST(w[l] + j + 8 * v, wv);
            ST(xi[l] + j + 8 * v, xv);
            sum[l] = _mm512_add_epi64(sum[l], xv);
        }
}

/* Second extension for VB target vectors of Bm' starting at channel i. */
MNS_IFMA static inline __attribute__((always_inline)) void
ext2_block(int L, const mns_rns *const *c, uint64_t (*xi)[MNS_RNS_NMAX], const __m512i *kv,
           size_t i, int VB, uint64_t *const *out)
{
    const size_t n = c[0]->n;
    __m512i lo[LANES][MNS_RNS_VB], hi[LANES][MNS_RNS_VB];
    for (int l = 0; l < L; l++)
        for (int v = 0; v < VB; v++)
            lo[l][v] = hi[l][v] = _mm512_setzero_si512();
    /* the matrix product first and k's term last: only that term waits for
     * k (a horizontal sum of the xi), so the core runs the matvec while k
     * is being found instead of stalling every chain on it */
    const uint64_t *x[2] = {xi[0], xi[L - 1]}, *A[2] = {c[0]->a2 + i * n, c[L - 1]->a2 + i * n};
    if (L == 1 && VB < 4)
        matvec(x[0], n, A[0], 8 * (size_t)VB, VB, lo[0], hi[0]);
    else
        matvec_lanes(L, x, n, A, 8 * (size_t)VB, VB, lo, hi);
    for (int l = 0; l < L; l++)
        for (int v = 0; v < VB; v++) {
            __m512i nm = LD(c[l]->negM + i + 8 * v);
            __m512i lv = _mm512_madd52lo_epu64(lo[l][v], kv[l], nm);
            __m512i hv = _mm512_madd52hi_epu64(hi[l][v], kv[l], nm);
            ST(out[l] + n + i + 8 * v,
               red52(lv, hv, LD(c[l]->c + n + i + 8 * v), LD(c[l]->m + n + i + 8 * v)));
        }
}

/* The block loops of both extensions: the n / 8 target vectors are cut into
 * blocks of at most MNS_RNS_VB, as even as possible, so no block is left
 * with too few chains (the layout of the matrices follows the same cut,
 * mns_rns_mat_index). The switch makes VB a constant in each copy. */
#define MNS_RNS_VB_SWITCH(vb, CALL)                                                            \
    switch (vb) {                                                                              \
    case 6: CALL(6); break;                                                                    \
    case 5: CALL(5); break;                                                                    \
    case 4: CALL(4); break;                                                                    \
    case 3: CALL(3); break;                                                                    \
    case 2: CALL(2); break;                                                                    \
    default: CALL(1); break;                                                                   \
    }

MNS_IFMA static inline __attribute__((always_inline)) void
mul_lanes(int L, const mns_rns *const *c, uint64_t *const *r, const uint64_t *const *a,
          const uint64_t *const *b)
{
    const size_t n = c[0]->n;
    _Alignas(64) uint64_t s[LANES][MNS_RNS_NMAX], xip[LANES][MNS_RNS_NMAX],
        xi[LANES][MNS_RNS_NMAX];

    /* step 1 in both bases and xi' in Bm'; all reads of a and b are here,
     * for every lane before any r is written */
    for (int l = 0; l < L; l++) {
        const mns_rns *cl = c[l];
        for (size_t i = 0; i < n; i += 8) {
            __m512i mp = LD(cl->m + n + i), cp = LD(cl->c + n + i);
            __m512i sp = mulmod52(LD(a[l] + n + i), LD(b[l] + n + i), cp, mp);
            ST(xip[l] + i, mulmod52(sp, LD(cl->c1 + i), cp, mp));
            ST(s[l] + i, mulmod52(LD(a[l] + i), LD(b[l] + i), LD(cl->c + i), LD(cl->m + i)));
        }
    }
    /* steps 3-6 into r's Bm half (a and b are no longer read) */
    const size_t V = n / 8, nb = (V + MNS_RNS_VB - 1) / MNS_RNS_VB; /* as mns_rns_mat_index */
    __m512i ksum[LANES] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
    for (size_t blk = 0, j = 0; blk < nb; blk++) {
        size_t vb = mns_rns_ifma_block_width(n, blk);
#define EXT1(VB) ext1_block(L, c, xip, s, j, VB, r, xi, ksum)
        MNS_RNS_VB_SWITCH(vb, EXT1)
#undef EXT1
        j += 8 * vb;
    }
    /* Kawamura's k: the xi are below 2^52 and n <= 240, so the sum fits */
    __m512i kv[LANES];
    for (int l = 0; l < L; l++) {
        uint64_t k = ((uint64_t)_mm512_reduce_add_epi64(ksum[l]) + ((uint64_t)1 << 51)) >> 52;
        kv[l] = _mm512_set1_epi64((int64_t)k);
    }
    for (size_t blk = 0, i = 0; blk < nb; blk++) {
        size_t vb = mns_rns_ifma_block_width(n, blk);
#define EXT2(VB) ext2_block(L, c, xi, kv, i, VB, r)
        MNS_RNS_VB_SWITCH(vb, EXT2)
#undef EXT2
        i += 8 * vb;
    }
}

MNS_IFMA void mns_rns_mul_ifma(const mns_rns *c, uint64_t *r, const uint64_t *a,
                               const uint64_t *b)
{
    mul_lanes(1, &c, &r, &a, &b);
}

/* Two products (backend.h's mul_x2), c0 and c1 with the same n >= 16 (at
 * least two target vectors per block, so matvec_lanes has 8 chains or more) on
 * the IFMA kernel: the caller (backend.c) checks and makes two calls
 * otherwise, so this function is entered only where IFMA runs. */
MNS_IFMA void mns_rns_mul_ifma_x2(const mns_rns *c0, const mns_rns *c1, uint64_t *r0,
                                  const uint64_t *a0, const uint64_t *b0, uint64_t *r1,
                                  const uint64_t *a1, const uint64_t *b1)
{
    const mns_rns *const c[2] = {c0, c1};
    uint64_t *const r[2] = {r0, r1};
    const uint64_t *const a[2] = {a0, a1}, *const b[2] = {b0, b1};
    mul_lanes(2, c, r, a, b);
}

/* set_words (words.c) on the IFMA kernel's channels, m = 2^52 - c, 8 per
 * vector: the value's 52-bit digits by Horner, acc <- acc 2^52 + d mod m,
 * with 2^52 = c (mod m):
 *   acc c + d = lo + hi 2^52 (lo < 2^53, hi < 2^16) = lo + hi c (mod m),
 *   t = lo + hi c < 2^54; t = (t mod 2^52) + (t >> 52) c < 2^52 + 2^18 < 2m;
 *   acc = min(t, t - m) (t - m wraps when t < m).
 * The chains of the 2n channels run side by side; the digits are cut from
 * the words by public shifts. Then r = x (M'^2 mod p) M'^-1, as the portable
 * path. Constant time: no branch, no index on the value. */
MNS_IFMA void mns_rns_set_words_ifma(const mns_rns *c, uint64_t *r, const uint64_t *a, size_t pn)
{
    const size_t n2 = 2 * c->n, nv = n2 / 8, nd = (64 * pn + 51) / 52;
    const __m512i mask = _mm512_set1_epi64(((int64_t)1 << 52) - 1), z = _mm512_setzero_si512();
    __m512i acc[2 * MNS_RNS_NMAX / 8];
    _Alignas(64) uint64_t x[2 * MNS_RNS_NMAX];
    for (size_t v = 0; v < nv; v++)
        acc[v] = z;
    for (size_t k = nd; k-- > 0;) {
        /* digit k: bits [52 k, 52 k + 52) of the pn words */
        const size_t bit = 52 * k, w = bit / 64;
        const unsigned sh = (unsigned)(bit % 64);
        uint64_t d = a[w] >> sh;
        if (sh > 12 && w + 1 < pn) /* public: the digit spans two words */
            d |= a[w + 1] << (64 - sh);
        const __m512i dv = _mm512_set1_epi64((int64_t)(d & (((uint64_t)1 << 52) - 1)));
        for (size_t v = 0; v < nv; v++) {
            const __m512i cv = LD(c->c + 8 * v), mv = LD(c->m + 8 * v);
            __m512i lo = _mm512_madd52lo_epu64(dv, acc[v], cv);
            __m512i hi = _mm512_madd52hi_epu64(z, acc[v], cv);
            __m512i t = _mm512_madd52lo_epu64(lo, hi, cv);
            t = _mm512_madd52lo_epu64(_mm512_and_si512(t, mask), _mm512_srli_epi64(t, 52), cv);
            acc[v] = _mm512_min_epu64(t, _mm512_sub_epi64(t, mv));
        }
    }
    for (size_t v = 0; v < nv; v++)
        ST(x + 8 * v, acc[v]);
    c->mul(c, r, x, c->r2);
}

MNS_IFMA void mns_rns_add_ifma(const mns_rns *c, uint64_t *r, const uint64_t *a,
                               const uint64_t *b)
{
    mns_ifma52_add(r, a, b, c->m, 2 * c->n);
}

MNS_IFMA void mns_rns_sub_ifma(const mns_rns *c, uint64_t *r, const uint64_t *a,
                               const uint64_t *b)
{
    mns_ifma52_sub(r, a, b, c->taup, c->m, 2 * c->n);
}

#else /* no IFMA kernels in this build: never selected */

int mns_rns_ifma_compiled(void) { return 0; }
void mns_rns_mul_ifma(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_rns_mul_generic(c, r, a, b);
}
void mns_rns_add_ifma(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_rns_add_generic(c, r, a, b);
}
void mns_rns_sub_ifma(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_rns_sub_generic(c, r, a, b);
}
void mns_rns_mul_ifma_x2(const mns_rns *c0, const mns_rns *c1, uint64_t *r0, const uint64_t *a0,
                         const uint64_t *b0, uint64_t *r1, const uint64_t *a1, const uint64_t *b1)
{
    c0->mul(c0, r0, a0, b0);
    c1->mul(c1, r1, a1, b1);
}
void mns_rns_set_words_ifma(const mns_rns *c, uint64_t *r, const uint64_t *a, size_t pn)
{
    (void)c, (void)r, (void)a, (void)pn; /* never selected: no IFMA kernel in this build */
}

#endif
