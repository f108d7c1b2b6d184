/* Sum of residues (SOR) reduction in RNS, after Mehrabi, "Improved Sum of
 * Residues Modular Multiplication Algorithm" (../shared/papers/
 * sum-of-residues-rns.txt, Algorithm 2), for p = 2^W - eps with small eps.
 * docs/sor.md has the proofs of every bound used here.
 *
 * One base B = {m_1..m_N}, m_i = 2^k - c_i (k = 63 portable, k = 52 IFMA),
 * M = prod m_i, M_i = M / m_i. For Z = X Y (X, Y given by residues):
 *   gamma_i = <x_i y_i M_i^-1>_{m_i}            Z = sum gamma_i M_i - alpha M
 *   alpha   = floor((sum gamma_i + o) / 2^k)     eq. (13) with q = k, Delta = o / 2^k
 *   S       = sum gamma_i <M_i>_p + alpha <-M>_p  S = Z (mod p), 0 <= S < G p
 *   kappa^  = floor((sum gamma_i a^_i + alpha b^) / 2^T)    eq. (24), T = 96
 *             a^_i = floor(<M_i>_p 2^T / 2^W), b^ = floor(<-M>_p 2^T / 2^W)
 *   z       = S - kappa^ p, in RNS: one (N + 3) x N matrix-vector product
 *             with the coefficients (gamma_1..gamma_N, alpha, kappa0, kappa1),
 *             kappa^ = kappa0 + kappa1 2^k.
 *
 * Representation (the invariant every kernel relies on): an element is npad
 * words, the residues x_i in [0, m_i) for i < N, then zeros up to npad (a
 * multiple of 8 for the IFMA bases, so a vector never reads past an element).
 *   tight: 0 <= X < 2p      (set_mpz gives X < p; mul, sqr, reduce give < 2p)
 *   loose: 0 <= X < 2 (delta + 1) p, a sum of at most delta + 1 tight elements;
 *          sub(a, b) = a - b + 2p residue-wise, b tight.
 * Why 2p and not p: kappa^ is kappa or kappa - 1 (never more, by (K) below),
 * and no estimate of floor(S / p) from the top bits of S can do better: with
 * S = kappa p + r, floor(S / 2^W) = kappa - 1 whenever r < kappa eps, which
 * happens for 1 * 1 (docs/sor.md). get_mpz returns the canonical value.
 *
 * Conditions checked at construction (mns_sor_new) and by mns_sor_check:
 *   (P) m_i pairwise coprime and prime to p; c_i^2 < 2^k; IFMA: c_i < 2^16
 *   (R) 4 (delta + 1)^2 p^2 2^k <= (2^k - o) M, o = sum c_i: (12), Z < (1 - Delta) M
 *   (K) G (eps 2^T + 2^W) <= 2^(W + T), G = sum (m_i - 1) + N - 1: eq. (22)
 *       with the truncation of (24); it gives kappa - 1 <= kappa^ <= kappa
 *   (A) N + 3 <= 255 terms per accumulator; kappa1 < 2^k
 */
#ifndef MNS_RNS_SOR_H
#define MNS_RNS_SOR_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "mns.h"
#include "rns/word.h"

#define MNS_SOR_NMAX 240
#define MNS_SOR_T 96

typedef struct mns_sor mns_sor;
typedef void (*mns_sor_mul_fn)(const mns_sor *s, uint64_t *r, const uint64_t *a,
                               const uint64_t *b);

typedef struct mns_sor_params {
    int ifma;      /* 52-bit bases for the IFMA kernel (else 63-bit, portable) */
    int kernel;    /* for ifma bases: 1 IFMA kernel, 0 the portable twin */
    unsigned N;    /* 0: the smallest that serves p */
    int delta_min; /* minimum free additions */
} mns_sor_params;

struct mns_sor {
    unsigned k, W;
    size_t N, npad;
    int delta;
    const char *kernel_name;
    mns_sor_mul_fn mul, add, sub;

    uint64_t *m, *c;   /* npad words; padding lanes m = 2^k - 1, never used */
    uint64_t *minv;    /* <M_i^-1>_{m_i}, 0 in padding lanes */
    uint64_t *twop;    /* <2p>_{m_i}: the offset of sub */
    uint64_t *one;     /* the residues of 1 */
    uint64_t o;        /* 2^k Delta = sum c_i */
    /* (N + 3) rows of npad: row i < N: <<M_i>_p>_{m_j}; row N: <<-M>_p>_{m_j};
     * row N + 1: <-p>_{m_j}; row N + 2: <-p 2^k>_{m_j} */
    uint64_t *tab;
    /* N + 1 pairs (lo, hi): a^_i, then b^ (each below 2^T) */
    uint64_t *ahat;
    /* the a^_i again in 52-bit limbs for the IFMA kernel: npad words of bits
     * 0-51, then npad words of bits 52-95 (0 in padding lanes) */
    uint64_t *ahat52;

    mpz_t p, M, eps;
};

mns_status mns_sor_new(mns_sor **out, const mpz_t p, const mns_sor_params *prm);
void mns_sor_free(mns_sor *s);
/* Recomputes every condition and every table entry from p and the moduli. */
mns_status mns_sor_check(const mns_sor *s);
/* The largest delta that (R) allows for p with these N moduli of width k
 * (c_i given), or -1; and whether (K) holds. Used by setup and the table
 * program of the tests. */
long mns_sor_max_delta(const mpz_t p, const uint64_t *c, size_t N, unsigned k);
int mns_sor_kappa_ok(const mpz_t p, const uint64_t *c, size_t N, unsigned k);

void mns_sor_from_mpz(const mns_sor *s, uint64_t *r, const mpz_t a); /* a mod p, variable time */
void mns_sor_to_mpz(const mns_sor *s, mpz_t r, const uint64_t *a);   /* canonical, variable time */
/* The integer X < M that the residues stand for (CRT), variable time. */
void mns_sor_value(const mns_sor *s, mpz_t r, const uint64_t *a);
/* The constant-time entry (a < p, pn words) and exit (canonical pn words of
 * a tight element) of backend.h (sor_words.c). */
void mns_sor_set_words(const void *ctx, uint64_t *r, const uint64_t *a);
void mns_sor_get_words(const void *ctx, uint64_t *r, const uint64_t *a);

/* Steps 2 and 4 of Algorithm 2 shared by both kernels: alpha and the two
 * halves of kappa^ from the gamma_i (constant time: fixed loops, no branch). */
static inline void mns_sor_alpha_kappa(const mns_sor *s, const uint64_t *gamma,
                                       uint64_t *alpha, uint64_t *kappa0, uint64_t *kappa1)
{
    const size_t N = s->N;
    const uint64_t *ah = s->ahat;
    /* U = sum gamma_i a^_i + alpha b^ < 2^167 as A + top 2^128 + B 2^64:
     * A sums the products with the low words of a^ (a wrap counter, as the
     * matrix accumulators), B those with the high words (below 2^32, so B
     * stays below 2^103): two independent carry chains */
    mns_u128 sg = s->o, A = 0, B = 0;
    uint64_t top = 0;
    for (size_t i = 0; i <= N; i++) {
        uint64_t g;
        if (i < N) {
            g = gamma[i];
            sg += g;
        } else {
            g = (uint64_t)(sg >> s->k); /* alpha, eq. (13); the branch is on i only */
            *alpha = g;
        }
        mns_u128 p0 = (mns_u128)g * ah[2 * i];
        A += p0;
        top += A < p0;
        B += (mns_u128)g * ah[2 * i + 1];
    }
    /* kappa^ = floor(U / 2^96) < G < 2^(k + 8) */
    mns_u128 kap = ((A >> 64) + B + ((mns_u128)top << 64)) >> 32;
    *kappa0 = (uint64_t)kap & (((uint64_t)1 << s->k) - 1);
    *kappa1 = (uint64_t)(kap >> s->k);
}

void mns_sor_mul_generic(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_sor_add_generic(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_sor_sub_generic(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_sor_mul_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_sor_add_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_sor_sub_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b);

#endif
