/* The AVX-512 IFMA kernel of the sum of residues (sor.h): k = 52, 8 channels
 * per zmm vector, elements padded to npad = 8 ceil(N / 8) words.
 *
 * Steps 1-2 are vectors; alpha and kappa^ are the scalar
 * mns_sor_alpha_kappa (N + 1 pairs of mulq, off the vector ports); steps 3, 5
 * and 6 are one (N + 3)-row matrix-vector product with lo/hi accumulators
 * per target vector (N + 3 <= 255 terms of 52 bits: both stay below 2^60, as
 * red52 needs). The matrix product is the shared matvec of ifma52.h, which
 * keeps 8 or more accumulation chains in flight. */
#include "rns/rns.h"
#include "rns/sor.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include "rns/ifma52.h"

/* Target vectors v0 .. v0 + VB - 1 of r. */
MNS_IFMA static inline __attribute__((always_inline)) void
sor_block(const mns_sor *s, const uint64_t *x, size_t v0, int VB, uint64_t *r)
{
    __m512i lo[MNS_RNS_IFMA_VB], hi[MNS_RNS_IFMA_VB];
    for (int v = 0; v < VB; v++)
        lo[v] = hi[v] = _mm512_setzero_si512();
    matvec(x, s->N + 3, s->tab + 8 * v0, s->npad, VB, lo, hi);
    for (int v = 0; v < VB; v++) {
        size_t j = 8 * (v0 + (size_t)v);
        ST(r + j, red52(lo[v], hi[v], LD(s->c + j), LD(s->m + j)));
    }
}

MNS_IFMA void mns_sor_mul_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a,
                               const uint64_t *b)
{
    const size_t N = s->N, np = s->npad;
    _Alignas(64) uint64_t x[MNS_SOR_NMAX + 8];

    /* steps 1-2 (padding lanes: minv = 0, so gamma = 0); all reads of a, b */
    for (size_t i = 0; i < np; i += 8) {
        __m512i m = LD(s->m + i), c = LD(s->c + i);
        ST(x + i, mulmod52(mulmod52(LD(a + i), LD(b + i), c, m), LD(s->minv + i), c, m));
    }
    mns_sor_alpha_kappa(s, x, &x[N], &x[N + 1], &x[N + 2]);
    /* the target vectors in blocks of at most MNS_RNS_IFMA_VB, as even as
     * possible (the blocking of the Montgomery RNS kernel) */
    const size_t V = np / 8, nb = (V + MNS_RNS_IFMA_VB - 1) / MNS_RNS_IFMA_VB;
    for (size_t blk = 0, v0 = 0; blk < nb; blk++) {
        size_t vb = V / nb + (blk < V % nb);
        switch (vb) {
        case 6: sor_block(s, x, v0, 6, r); break;
        case 5: sor_block(s, x, v0, 5, r); break;
        case 4: sor_block(s, x, v0, 4, r); break;
        case 3: sor_block(s, x, v0, 3, r); break;
        case 2: sor_block(s, x, v0, 2, r); break;
        default: sor_block(s, x, v0, 1, r); break;
        }
        v0 += vb;
    }
}

MNS_IFMA void mns_sor_add_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a,
                               const uint64_t *b)
{
    mns_ifma52_add(r, a, b, s->m, s->npad);
}

MNS_IFMA void mns_sor_sub_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a,
                               const uint64_t *b)
{
    mns_ifma52_sub(r, a, b, s->twop, s->m, s->npad);
}

#else /* no IFMA kernels in this build: never selected */

void mns_sor_mul_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_sor_mul_generic(s, r, a, b);
}
void mns_sor_add_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_sor_add_generic(s, r, a, b);
}
void mns_sor_sub_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_sor_sub_generic(s, r, a, b);
}

#endif
