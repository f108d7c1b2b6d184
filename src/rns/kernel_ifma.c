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

/* First extension and steps 4-6 for VB target vectors of Bm starting at
 * channel j, then xi_j for the second extension; returns the sum of the xi. */
MNS_IFMA static inline __attribute__((always_inline)) __m512i
ext1_block(const mns_rns *c, const uint64_t *xip, const uint64_t *s, size_t j, int VB,
           uint64_t *w, uint64_t *xi)
{
    const __m512i z = _mm512_setzero_si512();
    __m512i lo[MNS_RNS_VB], hi[MNS_RNS_VB];
    for (int v = 0; v < VB; v++) {
        __m512i sv = LD(s + j + 8 * v), dv = LD(c->d + j + 8 * v);
        lo[v] = _mm512_madd52lo_epu64(z, sv, dv);
        hi[v] = _mm512_madd52hi_epu64(z, sv, dv);
    }
    matvec(xip, c->n, c->a1 + j * c->n, 8 * (size_t)VB, VB, lo, hi); /* strip of columns j.. */
    __m512i sum = z;
    for (int v = 0; v < VB; v++) {
        __m512i m = LD(c->m + j + 8 * v), cc = LD(c->c + j + 8 * v);
        __m512i wv = red52(lo[v], hi[v], cc, m);
        __m512i xv = mulmod52(wv, LD(c->minv + j + 8 * v), cc, m);
        ST(w + j + 8 * v, wv);
        ST(xi + j + 8 * v, xv);
        sum = _mm512_add_epi64(sum, xv);
    }
    return sum;
}

/* Second extension for VB target vectors of Bm' starting at channel i. */
MNS_IFMA static inline __attribute__((always_inline)) void
ext2_block(const mns_rns *c, const uint64_t *xi, __m512i kv, size_t i, int VB, uint64_t *out)
{
    const size_t n = c->n;
    const __m512i z = _mm512_setzero_si512();
    const uint64_t *negM = c->negM;
    __m512i lo[MNS_RNS_VB], hi[MNS_RNS_VB];
    for (int v = 0; v < VB; v++) {
        __m512i nm = LD(negM + i + 8 * v);
        lo[v] = _mm512_madd52lo_epu64(z, kv, nm);
        hi[v] = _mm512_madd52hi_epu64(z, kv, nm);
    }
    matvec(xi, n, c->a2 + i * n, 8 * (size_t)VB, VB, lo, hi);
    for (int v = 0; v < VB; v++)
        ST(out + i + 8 * v,
           red52(lo[v], hi[v], LD(c->c + n + i + 8 * v), LD(c->m + n + i + 8 * v)));
}

MNS_IFMA void mns_rns_mul_ifma(const mns_rns *c, uint64_t *r, const uint64_t *a,
                               const uint64_t *b)
{
    const size_t n = c->n;
    _Alignas(64) uint64_t s[MNS_RNS_NMAX], xip[MNS_RNS_NMAX], xi[MNS_RNS_NMAX];

    /* step 1 in both bases and xi' in Bm'; all reads of a and b are here */
    for (size_t i = 0; i < n; i += 8) {
        __m512i mp = LD(c->m + n + i), cp = LD(c->c + n + i);
        __m512i sp = mulmod52(LD(a + n + i), LD(b + n + i), cp, mp);
        ST(xip + i, mulmod52(sp, LD(c->c1 + i), cp, mp));
        ST(s + i, mulmod52(LD(a + i), LD(b + i), LD(c->c + i), LD(c->m + i)));
    }
    /* steps 3-6 into r's Bm half (a and b are no longer read). The n / 8
     * target vectors are cut into blocks of at most MNS_RNS_VB, as even as
     * possible, so no block is left with too few chains. */
    const size_t V = n / 8, nb = (V + MNS_RNS_VB - 1) / MNS_RNS_VB; /* as mns_rns_mat_index */
    __m512i ksum = _mm512_setzero_si512();
    for (size_t blk = 0, j = 0; blk < nb; blk++) {
        size_t vb = mns_rns_ifma_block_width(n, blk);
        switch (vb) {
        case 6: ksum = _mm512_add_epi64(ksum, ext1_block(c, xip, s, j, 6, r, xi)); break;
        case 5: ksum = _mm512_add_epi64(ksum, ext1_block(c, xip, s, j, 5, r, xi)); break;
        case 4: ksum = _mm512_add_epi64(ksum, ext1_block(c, xip, s, j, 4, r, xi)); break;
        case 3: ksum = _mm512_add_epi64(ksum, ext1_block(c, xip, s, j, 3, r, xi)); break;
        case 2: ksum = _mm512_add_epi64(ksum, ext1_block(c, xip, s, j, 2, r, xi)); break;
        default: ksum = _mm512_add_epi64(ksum, ext1_block(c, xip, s, j, 1, r, xi)); break;
        }
        j += 8 * vb;
    }
    /* Kawamura's k: the xi are below 2^52 and n <= 240, so the sum fits */
    uint64_t k = ((uint64_t)_mm512_reduce_add_epi64(ksum) + ((uint64_t)1 << 51)) >> 52;
    const __m512i kv = _mm512_set1_epi64((int64_t)k);
    for (size_t blk = 0, i = 0; blk < nb; blk++) {
        size_t vb = mns_rns_ifma_block_width(n, blk);
        switch (vb) {
        case 6: ext2_block(c, xi, kv, i, 6, r + n); break;
        case 5: ext2_block(c, xi, kv, i, 5, r + n); break;
        case 4: ext2_block(c, xi, kv, i, 4, r + n); break;
        case 3: ext2_block(c, xi, kv, i, 3, r + n); break;
        case 2: ext2_block(c, xi, kv, i, 2, r + n); break;
        default: ext2_block(c, xi, kv, i, 1, r + n); break;
        }
        i += 8 * vb;
    }
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

#endif
