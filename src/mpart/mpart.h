/* Multipartite modular multiplication (Giorgi, Imbert, Izard, "Multipartite
 * Modular Multiplication", 2011): the internal side of the `mpart`,
 * `bipartite`, `mpart-mont` and `mpart-barrett` backends.
 *
 * Radix beta = 2^64, P odd with n words (beta^(n-1) <= P < beta^n), h =
 * ceil(n/2). A is cut into ka chunks of ca = ceil(n/ka) words, B into kb
 * chunks of cb = ceil(n/kb) words (the last chunk of each may be shorter; a
 * chunk count is lowered until no chunk is empty). Product A_i B_j has weight
 * w = i ca + j cb words.
 *
 * Products of equal weight form a *group* (the i + j classes of the paper's
 * section 3.4, where the partial products of one weight are summed before a
 * single reduction). With S_g the sum of a group and w_g its weight:
 *   - lo (w_g < h): a Montgomery quotient (PMR, Algorithm 1)
 *       Q_g = (S_g mod beta^(h - w_g)) mu mod beta^(h - w_g),
 *     mu = -P^-1 mod beta^h, so S_g beta^w_g + Q_g beta^w_g P = 0 mod beta^h;
 *   - hi (a product reaches above word n + h): a Barrett quotient (PBR,
 *     Algorithm 2) of C = S_g beta^(w_g - h) by P from its words above n,
 *       Q_g = floor(floor(C / beta^n) nu_t / beta^t),  nu_t = floor(beta^(n+t) / P),
 *     so 0 <= C - Q_g P < beta^n + 2P (bound (5) of the paper);
 *   - a group can be both (k = 1: one product, reduced from both ends, the
 *     combined remainder is < beta^n + 3P + 1) or neither (a middle group,
 *     left as it is: S_g beta^(w_g - h) < (its bound) beta^n).
 * The quotients are summed (Lemma 5: Q_lo = sum Q_g beta^w_g < g_lo beta^h,
 * Q_hi = sum Q_g) and multiplied by P once per side, possibly in pieces of P on
 * several threads. Then
 *     R = (A B + Q_lo P - Q_hi P beta^h) / beta^h = A B beta^-h (mod P),
 * with 0 <= R < bound < beta^F, the bound computed exactly (mpz) at context
 * creation from the chunk sizes. A last small reduction (fold) takes R from F
 * words to [0, P). So the stored element is x beta^h mod P, and mul gives
 * (a beta^h)(b beta^h) beta^-h = ab beta^h: the Montgomery-like domain of the
 * paper, converted by set_mpz / get_mpz.
 *
 * Accumulation modulo beta^K - 1 (a "ring" of K words, K > F chosen so that
 * GMP's wrap-around product is efficient): R beta^h is an exact sum of
 * products, so R = beta^-h (sum) mod (beta^K - 1), and R < beta^(K-1)
 * identifies R among its residues. Each thread owns a K-word accumulator and
 * adds its products at weight w - h mod K (beta^-h is a rotation), adds its
 * pieces of Q_lo P at -h mod K and subtracts those of Q_hi P at 0; Q P itself
 * is computed modulo beta^K - 1 (mpn_mulmod_bnm1: about 0.6 of the full
 * product at 2^17 bits and beyond). The carries and borrows out of each
 * addition are counted in a side vector instead of being propagated
 * (propagation would be data dependent and O(K) per product); each thread
 * applies them once at the end, the caller sums the accumulators and takes
 * the residue (mns_mpart_ring_finish).
 */
#ifndef MNS_MPART_MPART_H
#define MNS_MPART_MPART_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <gmp.h>

#include "mns_mpart.h"
#include "core/pool.h"

/* ---- products that compute only what is needed (mpn_ext.c) --------------- */

/* 1 when GMP's mpn_mullo_n / mpn_mulmod_bnm1 passed the configure check. */
int mns_mpart_have_mullo(void);
int mns_mpart_have_bnm1(void);
/* r (an + bn words) <- a b, either operand the longer, both nonempty. */
void mns_mpart_mul_any(uint64_t *r, const uint64_t *a, size_t an, const uint64_t *b, size_t bn);
/* r (n words) <- a b mod beta^n; GMP's mpn_mullo_n when fast and present,
 * else a full product into scratch (2 n words). */
void mns_mpart_mullo(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n,
                     uint64_t *scratch, int fast);
/* A ring size >= n for which mns_mpart_mulmod_bnm1 is efficient (n itself
 * without GMP's function), and the scratch that function needs. */
size_t mns_mpart_bnm1_size(size_t n, int fast);
size_t mns_mpart_bnm1_scratch(size_t K);
/* a b modulo beta^K - 1, an, bn <= K: if an + bn <= K the plain product (an +
 * bn words, returned), else K words (returned) congruent to it, where 0 may
 * come out as beta^K - 1 (GMP's convention). */
size_t mns_mpart_mulmod_bnm1(uint64_t *r, size_t K, const uint64_t *a, size_t an,
                             const uint64_t *b, size_t bn, uint64_t *tp, int fast);

/* r (L words) <- a b mod beta^L, an, bn <= L: the part below beta^L whole,
 * the rest by a low half product. scratch: 4 max(an, bn) words. Returns L. */
size_t mns_mpart_mullo_any(uint64_t *r, size_t L, const uint64_t *a, size_t an, const uint64_t *b,
                           size_t bn, uint64_t *scratch, int fast);

/* The high half of a product whose low half is known: for q, p of h words
 * and s (h words) with q p = -s mod beta^h (a Montgomery quotient's defining
 * property), X_hi + [s != 0] = x + adj[0] + adj[1] beta^h, where X_hi = (q p)
 * div beta^h and [s != 0] is the carry of s + (q p mod beta^h) into word h
 * (x: h words, adj[] small and signed, for the caller's carry counts). By the
 * wrap-around product modulo beta^h - 1 when fast, h is even and h >=
 * MNS_MPART_MULHI_BNM1_MIN (about 0.6 of the full product from 20 words on),
 * else by the full product. scratch: 2 h + 8 words. */
#define MNS_MPART_MULHI_BNM1_MIN 20
void mns_mpart_mulhi_known(uint64_t *x, int64_t adj[2], const uint64_t *q, const uint64_t *p,
                           size_t h, const uint64_t *s, uint64_t *scratch, int fast);

/* ---- PMR, PBR and the final reduction (reduce.c) ------------------------- */

/* Algorithm 1, PMR. c has m words, p has n words (odd), mu = -p^-1 mod
 * beta^t (t words), 1 <= t and n + t <= m. r (m - t words) <- R = c beta^-t
 * mod p with 0 <= R < beta^(m-t): step 3's subtraction is masked. *subs gets
 * the number of subtractions that were needed (0 or 1; for tests). fast:
 * as for mns_mpart_mullo. scratch: 3 m + 3 t + 4 words. */
void mns_mpart_pmr(uint64_t *r, const uint64_t *c, size_t m, const uint64_t *p, size_t n,
                   const uint64_t *mu, size_t t, uint64_t *scratch, int fast, int *subs);

/* Algorithm 2, PBR. c has m words, p has n words with p[n-1] != 0, 1 <= t <=
 * m - n, nu = floor(beta^(n+t) / p) (t + 1 words). r (m - t words) <- R = c
 * mod p with 0 <= R < beta^(m-t); step 3 runs exactly twice with masks
 * (Theorem 2: never more is needed). *subs gets how many of the two were
 * taken. scratch: 3 m + 3 t + 4 words. */
void mns_mpart_pbr(uint64_t *r, const uint64_t *c, size_t m, const uint64_t *p, size_t n,
                   const uint64_t *nu, size_t t, uint64_t *scratch, int *subs);

/* The quotient of PMR alone: q (t words) <- (s mod beta^t) mu mod beta^t, s
 * of sn words (sn may be < t), by a short product. scratch: 3 t words. */
void mns_mpart_pmr_q(uint64_t *q, const uint64_t *s, size_t sn, const uint64_t *mu, size_t t,
                     uint64_t *scratch, int fast);

/* The quotient of PBR alone: q (t + 1 words) <- floor(c1 nu_t / beta^(t-pad))
 * where c1 = the cn words of the top of C, C1 = c1 beta^pad, t = cn + pad
 * (see the header comment). scratch: cn + t + 1 words. */
void mns_mpart_pbr_q(uint64_t *q, const uint64_t *c1, size_t cn, size_t pad, const uint64_t *nu_t,
                     uint64_t *scratch);

/* Final reduction of an F-word x (F >= n + 1) to x mod p in n words, by a
 * Barrett step on bits (p may have a small top word) with two guard bits and
 * one masked subtraction. init: 0 when out of memory. */
typedef struct mns_mpart_fold {
    size_t n, F, bits;  /* bits of p */
    size_t a;           /* q1 = floor(x / 2^a) */
    size_t q1n, mun;    /* words of q1 and of fmu */
    uint64_t *fmu;      /* floor(2^(64 F + 2) / p) */
} mns_mpart_fold;
int mns_mpart_fold_init(mns_mpart_fold *fd, const mpz_t p, size_t F);
void mns_mpart_fold_clear(mns_mpart_fold *fd);
size_t mns_mpart_fold_scratch(const mns_mpart_fold *fd);
void mns_mpart_fold_run(const mns_mpart_fold *fd, const uint64_t *p, uint64_t *r,
                        const uint64_t *x, uint64_t *scratch);

/* r (n words) <- r - p if r >= p, with masks; r < 2p, held as n words and a
 * top word hi. */
void mns_mpart_csub(uint64_t *r, uint64_t hi, const uint64_t *p, size_t n);

/* acc (W + 1 words) += x at word off, modulo beta^W; the carry out of the
 * addition is counted in cy[off + len] (cy: W + 1 words; the word W collects
 * what falls off the top and is ignored). For the baselines' sums. */
void mns_mpart_acc_add(uint64_t *acc, uint64_t *cy, size_t W, size_t off, const uint64_t *x,
                       size_t xn);

/* ---- accumulation modulo beta^K - 1 (the ring) ----------------------------- */

/* acc (K words) +=, -= x (any xn) at word off < K, modulo beta^K - 1; the
 * carries, borrows out of each slice are counted in d (K signed words). */
void mns_mpart_ring_add(uint64_t *acc, int64_t *d, size_t K, size_t off, const uint64_t *x,
                        size_t xn);
void mns_mpart_ring_sub(uint64_t *acc, int64_t *d, size_t K, size_t off, const uint64_t *x,
                        size_t xn);
/* acc <- acc + d as integers (mod beta^K); returns the signed carry out of
 * the top, which belongs at word 0. */
int64_t mns_mpart_ring_settle(uint64_t *acc, const int64_t *d, size_t K);
/* s (K words) <- R, given that R = s + e mod beta^K - 1 (e small, signed) and
 * 0 <= R < beta^(K-1). */
void mns_mpart_ring_finish(uint64_t *s, size_t K, int64_t e);

/* ---- the multipartite scheme -------------------------------------------- */

typedef struct mp_prod {
    uint32_t i, j;       /* chunk indices */
    uint32_t aoff, an;   /* chunk of A: words [aoff, aoff + an) */
    uint32_t boff, bn;
    uint32_t w;          /* weight aoff + boff */
    uint32_t twice;      /* squaring: A_i A_j stands for A_i A_j + A_j A_i */
    uint32_t group;
} mp_prod;

typedef struct mp_group {
    uint32_t w, sz;          /* weight; words of S_g (carries included) */
    uint32_t first, count;   /* products prods[first .. first + count) */
    uint32_t lo, hi;
    uint32_t kara_sub;       /* Karatsuba middle: S_g is also subtracted at kara_w */
    uint32_t tlo;            /* lo: h - w */
    uint32_t hoff, hpad, thi;/* hi: C1 = S[hoff .. sz) beta^hpad, t = thi */
    uint32_t qlo, qhi;       /* offsets of Q_g in the shared Q area */
} mp_group;

/* MP_T_PROD: product idx, the words [pa, pb) of its B chunk; MP_T_GROUP: group
 * idx; MP_T_QP: Q_side times P's words [pa, pb); MP_T_KARA: the Karatsuba
 * middle (A_0 + A_1) times the words [pa, pb) of (B_0 + B_1); MP_T_LOSIDE,
 * MP_T_HISIDE: group idx, the only one of its side, with its Q P (section 3.4
 * with one group a side: k = 2 and the bipartite), for schedules that keep a
 * side on one thread; with side = 1 the Barrett side leaves the low half
 * product of its Q P to MP_T_HILO, which the other side's thread takes if
 * Q_hi is ready by then (side = 0: try; side = 1: do it unless taken). */
enum { MP_T_PROD, MP_T_GROUP, MP_T_QP, MP_T_KARA, MP_T_LOSIDE, MP_T_HISIDE, MP_T_HILO };
enum { MP_LO, MP_HI };

typedef struct mp_task {
    uint32_t kind, side, idx, pa, pb;
} mp_task;

/* Who does what: tasks of worker w in phase 1 are tasks[start[2w] ..
 * start[2w+1]), in phase 2 tasks[start[2w+1] .. start[2w+2]). With barrier
 * set, every worker waits for all at the end of phase 1 (phase-2 tasks read
 * Q-values written by other workers). */
typedef struct mp_plan {
    const struct mp_scheme *s; /* the scheme it schedules */
    int T, barrier;
    const char *name;  /* "table3", "table4", "chain", "lpt", "seq" */
    uint32_t *start;   /* 2 T + 1 */
    mp_task *tasks;
    uint32_t ntasks;
    double est;        /* estimated cost (model units) */
} mp_plan;

typedef struct mp_scheme {
    uint32_t nprods, ngroups;
    mp_prod *prods;
    mp_group *groups;
    int have_lo, have_hi;
    size_t qlo_words;   /* Q_lo = sum Q_g beta^w_g: h (+ 1 for a sum) words */
    size_t qhi_words;   /* Q_hi = sum Q_g: tmax + 1 (+ 1 for a sum) words */
    uint32_t qlo_at, qhi_at; /* where Q_lo, Q_hi lie in the Q area, if no sum is needed */
    size_t qarea;       /* shared Q area words */
    size_t scratch;     /* per-worker scratch words for products and groups */
    size_t tmax;        /* largest Barrett t of the scheme */
    size_t fwords;      /* words of the exact bound on R (before the fold) */
    /* k = 2, A B: the two middle products A_0 B_1 + A_1 B_0 = (A_0 + A_1)(B_0 +
     * B_1) - A_0 B_0 - A_1 B_1 (Karatsuba), the last two subtracted by the
     * tasks of groups 0 and 2, which have them anyway; the middle group's
     * products are then not run. kara_an, kara_bn: words of the sums. */
    int kara;
    uint32_t kara_group, kara_w, kara_an, kara_bn;
    /* the group of a side that can run as MP_T_LOSIDE / MP_T_HISIDE, or
     * UINT32_MAX */
    uint32_t lo_side, hi_side;
    /* MP_T_HILO: words of P below its part (m = n + 1 - qn), its Q's words,
     * and the Q-area slots of the two values it compares with MP_T_HISIDE */
    uint32_t hilo_m, hilo_qn, slot_v, slot_lo2;
    mp_plan pool_plan;  /* for the pool's thread count */
    mp_plan seq_plan;   /* one thread: the fallback when the pool is busy */
} mp_scheme;

/* Buffers of one execution: per worker acc/d/scratch, the Q area and the
 * caller's final scratch. One block, allocated at context creation for the
 * pool, or per call for the sequential fallback. */
typedef struct mp_exec {
    int T;
    size_t per_worker;
    uint64_t *block;  /* per worker: acc (K), d (K), e (1, padded), scratch */
    struct mp_sync *sync; /* one cache line: the hand-over of MP_T_HILO (mpart.c) */
    uint64_t *qarea;
    uint64_t *fin;    /* fold scratch */
} mp_exec;

typedef struct mns_mpart_ctx {
    size_t n, h, F, K;    /* K: ring words, > F */
    size_t ka, kb, ca, cb;
    int T;
    int bipartite;
    int plan_pref;        /* 0 auto (paper's tables where they apply), 1 chain, 2 lpt */
    int fast_lo, fast_bnm1; /* GMP's mpn_mullo_n, mpn_mulmod_bnm1 in use */
    size_t task_scratch;  /* per-worker scratch words for any task */
    uint64_t *p;          /* n words */
    uint64_t *mu;         /* -p^-1 mod beta^h, h words */
    uint64_t *nu;         /* floor(beta^(n + Tmax) / p), Tmax + 1 words */
    size_t tmax;
    mns_mpart_fold fold;
    uint64_t *one;        /* beta^h mod p */
    uint64_t *r2;         /* beta^2h mod p: set_words is one product by it */
    uint64_t *unit;       /* the integer 1: get_words is one product by it */
    mpz_t pz, rinv;       /* p, beta^-h mod p (conversions) */
    mp_scheme mul, sqr;   /* sqr == mul when ka != kb (flag sqr_is_mul) */
    int sqr_is_mul;
    mp_exec pexec;        /* the pool's buffers */
    mns_pool *pool; /* NULL when T == 1 */
    /* held while the pool or pexec is in use; written on every call, so on a
     * line of its own, away from what the workers read */
    alignas(64) pthread_mutex_t busy;
    char pad_busy[64];
} mns_mpart_ctx;

/* plan.c */
int mns_mpart_scheme_build(mp_scheme *s, const mns_mpart_ctx *c, int square);
void mns_mpart_scheme_free(mp_scheme *s);
int mns_mpart_plan_build(mp_plan *pl, const mp_scheme *s, const mns_mpart_ctx *c, int T);
void mns_mpart_plan_free(mp_plan *pl);

/* Default chunk count for T threads (Table 5 of the paper; k = 2 below 4). */
int mns_mpart_default_k(int T);
/* Default thread count for a modulus of `bits` bits on this machine. */
int mns_mpart_default_threads(size_t bits);

#endif
