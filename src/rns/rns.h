/* Montgomery RNS: the context and the kernel table (see include/mns_rns.h for
 * the representation and its invariants, docs/rns.md for the proofs).
 *
 * Algorithm 1 is run in a fused form. With s = a b:
 *   xi'_i = s'_i * [(-p^-1) (M'_i)^-1 mod m'_i]                  (n channel products)
 *   w_j   = s_j [M'^-1 mod m_j] + sum_i xi'_i [p (m'_i)^-1 mod m_j]  mod m_j
 * which is steps 2-6 with the Bajard-Imbert extension of t = -s p^-1 mod M'
 * (t^ = sum_i xi'_i M'_i = t + alpha M') folded into the constants A1 below:
 * (s + t^ p) M'^-1 = s M'^-1 + sum_i xi'_i p / m'_i. Then step 7 (Kawamura):
 *   xi_j = w_j [(M_j)^-1 mod m_j],  k = floor(sum_j xi_j / 2^e + 1/2),
 *   w'_i = sum_j xi_j [M_j mod m'_i] + k [-M mod m'_i]  mod m'_i.
 * Both sums are n x n matrix-vector products, the whole cost for large n.
 */
#ifndef MNS_RNS_RNS_H
#define MNS_RNS_RNS_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "mns_rns.h"

typedef void (*mns_rns_mul_fn)(const mns_rns *c, uint64_t *r, const uint64_t *a,
                               const uint64_t *b);
typedef void (*mns_rns_addsub_fn)(const mns_rns *c, uint64_t *r, const uint64_t *a,
                                  const uint64_t *b);

struct mns_rns {
    unsigned e;
    size_t n;     /* channels per base */
    size_t npad;  /* row stride of the matrices: n rounded up to 8 */
    int delta;
    mns_rns_kernel kernel;
    const char *kernel_name;
    mns_rns_mul_fn mul;
    mns_rns_addsub_fn add, sub;

    /* per channel, element order (Bm then Bm'), 2n words each */
    uint64_t *m, *c;
    uint64_t *taup;  /* tau p mod m: the offset that keeps a - b >= 0 */
    uint64_t *one;   /* M' mod p: the tight 1 */
    uint64_t *r2;    /* M'^2 mod p: turns the residues of a < p into a M' (words.c) */

    /* Bm' (n words): (-p^-1) (M'_i)^-1 mod m'_i, and (M'_i)^-1 mod m'_i */
    uint64_t *c1;
    uint64_t *mpinv;
    /* Bm (n words): M'^-1 mod m_j, and (M_j)^-1 mod m_j */
    uint64_t *d;
    uint64_t *minv;
    /* A1(i, j) = p (m'_i)^-1 mod m_j   (row i in Bm', column j in Bm)
     * A2(j, i) = M_j mod m'_i          (row j in Bm, column i in Bm')
     * at mns_rns_mat_index(row, col); negM[i] = -M mod m'_i */
    uint64_t *a1, *a2, *negM;

    mpz_t p, M, Mp;  /* p, M = prod Bm, M' = prod Bm' */
    mpz_t mpinv_p;   /* M'^-1 mod p, for leaving the Montgomery form */
};

/* Widest block of target vectors in the IFMA kernel (12 accumulators). */
#define MNS_RNS_IFMA_VB 6

/* Where matrix entry (row, col) lives. The portable kernel reads rows
 * (stride npad). The IFMA kernel reads column strips, one per block of its
 * blocking (n/8 vectors cut into ceil(V / 6) blocks as even as possible), so
 * each strip is stored contiguously, row after row: one sequential stream
 * per block, which the prefetchers follow once the matrices outgrow L1. */
static inline size_t mns_rns_ifma_block_width(size_t n, size_t b)
{
    size_t V = n / 8, nb = (V + MNS_RNS_IFMA_VB - 1) / MNS_RNS_IFMA_VB;
    return V / nb + (b < V % nb);
}

static inline size_t mns_rns_mat_index(const mns_rns *r, size_t row, size_t col)
{
    if (r->kernel != MNS_RNS_KERNEL_IFMA)
        return row * r->npad + col;
    size_t start = 0;
    for (size_t b = 0;; b++) {
        size_t w = 8 * mns_rns_ifma_block_width(r->n, b);
        if (col < start + w)
            return start * r->n + row * w + (col - start);
        start += w;
    }
}

/* Kernels: same signatures, chosen at context creation. */
void mns_rns_mul_generic(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_rns_add_generic(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_rns_sub_generic(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_rns_mul_ifma(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
/* Two products in one instruction stream (backend.h's mul_x2): c0 and c1
 * both on the IFMA kernel with the same n >= 16 (the caller checks). */
void mns_rns_mul_ifma_x2(const mns_rns *c0, const mns_rns *c1, uint64_t *r0, const uint64_t *a0,
                         const uint64_t *b0, uint64_t *r1, const uint64_t *a1, const uint64_t *b1);
void mns_rns_add_ifma(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_rns_sub_ifma(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
/* Setup helpers shared by the RNS contexts (rns and sor); variable time. */
uint64_t mns_rns_gcd_u64(uint64_t a, uint64_t b);
/* 64-byte aligned, zeroed, freed with free() */
void *mns_rns_alloc_words(size_t words);
/* a^-1 mod m; gcd(a, m) = 1 */
uint64_t mns_rns_invmod_var(uint64_t a, uint64_t m);
/* Extends cs[0..got) to up to `want` moduli 2^e - c, c odd below climit,
 * prime to p and to each other, trying c from *next on; returns the count. */
size_t mns_rns_pick_moduli(uint64_t *cs, size_t got, size_t want, uint64_t *next, unsigned e,
                           uint64_t climit, const mpz_t p);

/* set_words of backend.h (words.c): r <- the tight element of the
 * mpz_size(p)-word value a < p, constant time. */
void mns_rns_set_words(const void *ctx, uint64_t *r, const uint64_t *a);
/* Its IFMA form (kernel_ifma.c), for contexts on the IFMA kernel. */
void mns_rns_set_words_ifma(const mns_rns *c, uint64_t *r, const uint64_t *a, size_t pn);
/* get_words of backend.h (words.c): r <- the canonical value of the tight
 * element a as mpz_size(p) words, constant time, no allocation (its
 * scratch fits MNS_SCRATCH_WORDS at every n of this build). */
void mns_rns_get_words(const void *ctx, uint64_t *r, const uint64_t *a);
/* 1 if this build has the IFMA kernels (x86-64 gcc/clang). */
int mns_rns_ifma_compiled(void);

#endif
