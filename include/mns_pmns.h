/* mns_pmns.h — PMNS parameter sets: generation for any prime at run time,
 * verification, and a text format (src/gen/).
 *
 * A PMNS (Polynomial Modular Number System, papers pmns-multiprecision-cios
 * and pmns-vs-rns-simd) represents a in Z/pZ by a polynomial A of degree < n
 * with A(gamma) = a (mod p) and small coefficients. A parameter set is the
 * tuple the arithmetic needs:
 *
 *   p, n, s, phi, rho, delta, E, lambda, gamma, M, M'
 *
 *   E      the external reduction polynomial, monic of degree n, E(gamma) = 0
 *          (mod p), irreducible over Z:
 *            MNS_PMNS_E_BINOMIAL   E = X^n - lambda   (both papers' default)
 *            MNS_PMNS_E_TRINOMIAL  E = X^n - X - 1    (the ARITH paper's E;
 *                                  lambda is reported as 0)
 *   M      M(gamma) = 0 (mod p), deg M < n, invertible mod (E, phi)
 *   M'     M' = -M^-1 mod (E, phi), every coefficient in [0, phi)
 *   phi    2^phi_log2. s = 1: phi = sigma, the word (2^64 or 2^52), so the
 *          division by phi is "take the high word". s > 1: eq. (8) of the CIOS
 *          paper, phi = 2^(s*k): every coefficient is split into s chunks of
 *          k = chunk_bits bits ("reduced coefficients").
 *   w      the growth of a product mod E: ||A*B mod E||_inf <= w ||A||_inf
 *          ||B||_inf; w = |lambda|(n-1)+1 for X^n - lambda, 2n-1 for X^n-X-1.
 *   N      ||\mathcal{M}||_1, the 1-norm (largest column sum of absolute
 *          values) of the internal reduction matrix of eq. (3), whose row i is
 *          X^i * M mod E. For X^n - lambda: |m_0| + |lambda| sum_{i>0} |m_i|.
 *
 * REPRESENTATION INVARIANTS (what every set returned or read guarantees)
 *
 *   Word kinds:
 *     MNS_PMNS_WORD_S64  signed 64-bit words, sigma = 2^64. A *tight*
 *                        coefficient c satisfies |c| < rho, i.e.
 *                        -(rho-1) <= c <= rho-1 (strict bound, rho exact).
 *     MNS_PMNS_WORD_U52  unsigned 52-bit words for AVX-512 IFMA,
 *                        sigma = 2^52. A tight coefficient satisfies
 *                        0 <= c < rho. M and every entry of \mathcal{M} are
 *                        >= 0 (lambda > 0 or X^n - X - 1), so products and
 *                        reductions never go negative.
 *
 *   Operand of a multiplication ("loose"): a sum (or, for S64, difference) of
 *   at most delta+1 tight polynomials: |c| <= (delta+1)(rho-1), resp.
 *   0 <= c <= (delta+1)(rho-1).
 *
 *   Montgomery closure (verified exactly, with integers): for loose A, B and
 *   V = A*B mod E, every quotient Q = V*M' mod (E, phi) taken with
 *     S64: every coefficient |q| <= Qmax = ceil(2^(k-1) (phi-1) / (2^k-1))
 *          (s = 1: q in [-phi/2, phi/2), the natural int64 wrap; s > 1: the
 *          CIOS quotient digits centred in [-2^(k-1), 2^(k-1)]),
 *     U52: 0 <= q <= phi-1 (digits in [0, 2^k)),
 *   gives S = (V + Q*M mod E) / phi exactly divisible and tight again. The
 *   exact check is  w ((delta+1)(rho-1))^2 + Qmax * N < phi * rho.
 *   Together with it every set also satisfies, each checked on its own:
 *     (B1) phi > 2 w rho (delta+1)^2                    (both papers)
 *     (B2) S64: rho >= N;  U52: rho >= 2N               (rho vs ||M||_1)
 *     (B3) s > 1: t * lambda_eff * 2^k < sigma          (CIOS eq. (7)),
 *          t = toeplitz_adds (n unless asked otherwise), lambda_eff = |lambda|
 *          for X^n - lambda, 2 for X^n - X - 1; 1 for a lambda-carried set
 *          (MNS_PMNS_GEN_LAMBDA_CARRIED: U52, s > 1, X^n - lambda)
 *     (B4) 1 <= gamma <= p-1, E(gamma) = 0, M(gamma) = 0 (mod p)
 *     (B5) M * M' = -1 mod (E, phi); E irreducible over Z; p prime (BPSW)
 *     (B6) 2 <= rho <= p-1 (Definition 1), so every a mod p has a tight
 *          representation (rho > N/2, resp. rho > N: the rows of
 *          \mathcal{M} are a basis of a sub-lattice, [13, Prop. 3]).
 *   A set that fails any check is never returned; the reader re-verifies.
 *
 * s = 1: every |m_i| < 2^63 (S64) or m_i < 2^52 (U52), and M' mod phi fits a
 * word: mns_pmns_params_m_word / _mprime_word give them directly.
 *
 * Everything here is variable time (public data: p and the parameters), hence
 * the _var suffixes; the arithmetic that uses a set is not.
 *
 * Generation needs FLINT (LLL, polynomial arithmetic); without it
 * mns_pmns_generate_var returns MNS_ENOTSUP. Reading, writing, verifying and
 * mns_pmns_represent_var use GMP only.
 */
#ifndef MNS_PMNS_H
#define MNS_PMNS_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "mns.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    MNS_PMNS_WORD_S64 = 0, /* signed coefficients, sigma = 2^64 */
    MNS_PMNS_WORD_U52 = 1  /* unsigned coefficients, sigma = 2^52 (IFMA) */
} mns_pmns_word;

typedef enum {
    MNS_PMNS_E_BINOMIAL = 0, /* X^n - lambda, lambda of smallest |lambda| */
    MNS_PMNS_E_TRINOMIAL = 1, /* X^n - X - 1 (always irreducible, Selmer) */
    MNS_PMNS_E_AUTO = 2       /* options only: X^n - lambda, or X^n - X - 1 when
                                 it gives a smaller n (s = 1 only; the set
                                 says which). Costs one degree-n root search
                                 mod p per n below the binomial's (0.5 s at
                                 2048 bits). */
} mns_pmns_eshape;

/* Limits on what the generator and the reader accept. */
#define MNS_PMNS_N_MAX 1024        /* coefficients per element */
#define MNS_PMNS_S_MAX 16          /* words per coefficient */
#define MNS_PMNS_DELTA_MAX 1023    /* free additions */
#define MNS_PMNS_P_BITS_MAX 32768  /* bits of p */

/* Progress: called with a short stage name ("lambda", "lll", "M", "verify",
 * "done"), the n being tried and a rough fraction of the whole in [0, 1].
 * A nonzero return cancels the generation (mns_pmns_generate_var then returns
 * MNS_ERANGE, "cancelled"). Called from the generating thread only. */
typedef int (*mns_pmns_progress_fn)(void *arg, const char *stage, int n, double fraction);

/* Generation options. Always start from mns_pmns_gen_opts_init(). */
typedef struct mns_pmns_gen_opts {
    mns_pmns_word word;     /* default MNS_PMNS_WORD_S64 */
    int s;                  /* words per coefficient; 0 = automatic (default 1) */
    int s_max;              /* automatic s: largest s tried (default 6) */
    int delta;              /* free additions before a mul (default 0) */
    int n;                  /* 0 = automatic (default); else exactly this n */
    int n_max;              /* automatic n: stop above this (0 = 4 n_opt + 16) */
    mns_pmns_eshape eshape; /* default MNS_PMNS_E_BINOMIAL; MNS_PMNS_E_AUTO */
    long lambda_max;        /* largest |lambda| tried (default 16) */
    int toeplitz_adds;      /* t in (B3); 0 = n, the paper's general bound */
    int gamma_tries;        /* roots gamma tried per (n, lambda), best kept
                               (default 1: the paper takes one root) */
    unsigned flags;         /* MNS_PMNS_GEN_* below */
    mns_pmns_progress_fn progress; /* may be NULL */
    void *progress_arg;
} mns_pmns_gen_opts;

/* Automatic (n, s): prefer an n whose prime factors are all <= 7 (Toeplitz
 * splitting) when it costs at most 1/16 more coefficients s*n. */
#define MNS_PMNS_GEN_SMOOTH_N 1u
/* Skip the positive-M improvement (U52): keep the paper's 2M - R_k. */
#define MNS_PMNS_GEN_NO_IMPROVE 2u
/* Explicit n (opts->n): when the set of the smallest lambda does not fit,
 * try the next lambdas (|lambda| <= lambda_max) in turn, one LLL each. A
 * larger lambda costs bits of w and rho, but its lattice can give a smaller
 * N: about one 1024-bit prime in seven has no n = 8, s = 3 u52 set with its
 * smallest lambda. */
#define MNS_PMNS_GEN_LAMBDA_WALK 4u
/* U52, s > 1, X^n - lambda: a lambda-carried set, for kernels that multiply
 * a whole coefficient by lambda and carry the product into digits (the
 * wrapped Toeplitz entries are then digits of lambda a below 2^k, not lambda
 * times a digit). (B3) then holds with lambda_eff = 1, so lambda no longer
 * limits k: the set can have a larger phi, a smaller n, or a lambda that
 * (B3) would refuse (p = 1 mod 8 at n = 8). Kernels that multiply each
 * digit by lambda must not take such a set
 * (mns_pmns_params_lambda_carried). The text format then has the line
 * "lambda_carried 1" after toeplitz_adds. */
#define MNS_PMNS_GEN_LAMBDA_CARRIED 8u

MNS_API void mns_pmns_gen_opts_init(mns_pmns_gen_opts *o);

/* Opaque, immutable once returned; may be shared between threads. */
typedef struct mns_pmns_params mns_pmns_params;

/* Finds a parameter set for the prime p.
 *   Automatic n (opts->n == 0): starts from n_opt of the CIOS paper (3.2),
 *   runs the process of its section 4.2 and returns the smallest n that
 *   passes every check, found by a walk that a model of ||M||_1 guides (an n
 *   the model puts more than a bit or so short is not reduced; docs/gen.md);
 *   automatic s (opts->s == 0) picks (n, s) with the smallest s*n, then the
 *   smallest s (Table 3's cost).
 *   lambda: the smallest |lambda| (lambda > 0 first) such that X^n - lambda is
 *   irreducible over Z and has a root mod p; gamma: one of its roots.
 *   E auto (s = 1): that search, then X^n - X - 1 below the n it found; the
 *   set has whichever gives the smaller n (X^n - lambda on a tie).
 *   M: section 4.2's heuristic (rows of the LLL basis divided by X while
 *   Proposition 3 allows, invertible mod (E, phi), smallest N); U52: the
 *   paper's all-positive construction, then improved by adding and
 *   subtracting basis rows while it stays positive and invertible.
 * Status: MNS_EINVAL (p even, < 3, composite, NULL, options out of range),
 * MNS_ENOTSUP (no set within the limits asked: requested n too small, rho
 * above p-1 for a tiny p, no lambda <= lambda_max, no FLINT), MNS_ERANGE
 * (cancelled by the progress callback), MNS_ENOMEM. mns_last_error() says
 * why. *out is NULL on failure. */
MNS_API mns_status mns_pmns_generate_var(mns_pmns_params **out, const mpz_t p, const mns_pmns_gen_opts *opts);

/* Re-runs every check listed above. MNS_OK or MNS_ERANGE with the reason. */
MNS_API mns_status mns_pmns_verify_var(const mns_pmns_params *P);

MNS_API void mns_pmns_params_free(mns_pmns_params *P);

/* --- text format -------------------------------------------------------
 * Version 1, one field per line, decimal integers:
 *   # regenerate: <how to regenerate this file>      (mandatory first line)
 *   # ...                                             (optional comments)
 *   mns-pmns 1
 *   p <p>
 *   word s64|u52
 *   s <s>
 *   n <n>
 *   delta <delta>
 *   E X^n-lambda <lambda>       or   E X^n-X-1
 *   gamma <gamma>
 *   phi_log2 <s*k>
 *   toeplitz_adds <t>
 *   lambda_carried 1            (only in a lambda-carried set)
 *   rho <rho>
 *   w <w>
 *   norm1 <N>
 *   M <m_0> ... <m_{n-1}>
 *   Mprime <m'_0> ... <m'_{n-1}>
 *   end
 * The reader is strict: exact keys in this order, single spaces, canonical
 * decimals, nothing after "end". Malformed, truncated or inconsistent data
 * (including any failed check) gives MNS_EPARSE and mns_last_error() names the
 * line. */

/* Returns a malloc'ed NUL-terminated text (free() it), or NULL on ENOMEM.
 * regenerate: the text after "# regenerate: "; NULL for the generator's own
 * command line (mns-pmns-gen --p ... with the options used). */
MNS_API char *mns_pmns_params_to_string_var(const mns_pmns_params *P, const char *regenerate);
MNS_API mns_status mns_pmns_params_from_string_var(mns_pmns_params **out, const char *text, size_t len);
MNS_API mns_status mns_pmns_params_save_var(const mns_pmns_params *P, const char *path, const char *regenerate);
MNS_API mns_status mns_pmns_params_load_var(mns_pmns_params **out, const char *path);

/* --- accessors (pointers stay valid until mns_pmns_params_free) -------- */
MNS_API mpz_srcptr      mns_pmns_params_p(const mns_pmns_params *P);
MNS_API mns_pmns_word   mns_pmns_params_word(const mns_pmns_params *P);
MNS_API int             mns_pmns_params_n(const mns_pmns_params *P);
MNS_API int             mns_pmns_params_s(const mns_pmns_params *P);
MNS_API int             mns_pmns_params_delta(const mns_pmns_params *P);
MNS_API mns_pmns_eshape mns_pmns_params_eshape(const mns_pmns_params *P);
MNS_API long            mns_pmns_params_lambda(const mns_pmns_params *P); /* 0 for X^n-X-1 */
MNS_API mpz_srcptr      mns_pmns_params_gamma(const mns_pmns_params *P);
/* rho exact: tight means |c| < rho (S64) or 0 <= c < rho (U52). */
MNS_API mpz_srcptr      mns_pmns_params_rho(const mns_pmns_params *P);
/* Bits of rho - 1: every tight |c| fits in this many bits. */
MNS_API unsigned        mns_pmns_params_rho_bits(const mns_pmns_params *P);
MNS_API unsigned        mns_pmns_params_phi_log2(const mns_pmns_params *P);   /* s*k */
MNS_API unsigned        mns_pmns_params_chunk_bits(const mns_pmns_params *P); /* k = phi_log2 / s */
MNS_API unsigned        mns_pmns_params_sigma_log2(const mns_pmns_params *P); /* 64 or 52 */
MNS_API int             mns_pmns_params_toeplitz_adds(const mns_pmns_params *P);
/* 1 for a set generated with MNS_PMNS_GEN_LAMBDA_CARRIED, else 0 */
MNS_API int             mns_pmns_params_lambda_carried(const mns_pmns_params *P);
MNS_API uint64_t        mns_pmns_params_w(const mns_pmns_params *P);
MNS_API mpz_srcptr      mns_pmns_params_norm1(const mns_pmns_params *P);      /* N */
/* Coefficient i of M (signed) and of M' (in [0, phi)), 0 <= i < n. */
MNS_API mpz_srcptr      mns_pmns_params_m(const mns_pmns_params *P, int i);
MNS_API mpz_srcptr      mns_pmns_params_mprime(const mns_pmns_params *P, int i);
/* s = 1 only (0 otherwise): m_i as int64 and M' mod phi as a word (for S64
 * read it as int64 two's complement: it is M' mod 2^64). */
MNS_API int64_t         mns_pmns_params_m_word(const mns_pmns_params *P, int i);
MNS_API uint64_t        mns_pmns_params_mprime_word(const mns_pmns_params *P, int i);
/* One line, e.g. "pmns word=s64 s=1 n=17 delta=0 E=X^17-2 rho_bits=61 phi=2^64". */
MNS_API const char *mns_pmns_params_describe(const mns_pmns_params *P);
/* Seconds spent generating (0 for a set that was read). */
MNS_API double          mns_pmns_params_gen_seconds(const mns_pmns_params *P);

/* c[0..n-1] <- a tight representation of a mod p (any a): C(gamma) = a
 * (mod p), |c_i| < rho (S64) or 0 <= c_i < rho (U52). Found with exact
 * RedCoeff steps (GMP only). Not in the Montgomery domain: for that, pass
 * a * phi mod p. c must hold n initialised mpz_t. */
MNS_API mns_status mns_pmns_represent_var(const mns_pmns_params *P, mpz_t *c, const mpz_t a);

/* n_opt of the CIOS paper, section 3.2: the smallest n with
 * log2(p) <= n log2(sigma) - log2(n!)  (sigma_log2 = 64 or 52 per word; for
 * s words per coefficient pass s * chunk bits). */
MNS_API int mns_pmns_nopt(size_t p_bits, unsigned sigma_log2);

#ifdef __cplusplus
}
#endif

#endif /* MNS_PMNS_H */
