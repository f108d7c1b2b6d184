/* The multi-precision PMNS context: parameter set, the bounds every kernel
 * relies on, the constant Toeplitz matrices (M_j, M'_0), conversions in and
 * out of the Montgomery domain, add/sub with delta, and the mns_field
 * backends "pmns-mp" and "pmns-mp-ifma". */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/cpu.h"
#include "core/error.h"
#include "core/kernel.h"
#include "core/tmp.h"
#include "mns_pmns_mp.h"
#include "gen/gen.h"
#include "pmns_mp/ctx.h"
#include "pmns/get_words.h"

/* Leaf size limit of the Toeplitz recursion. IFMA: 64 keeps every n <= 64
 * unsplit, which is what the fused kernel of pmns_mp/ifma.c serves (measured
 * faster than the split flow at 1024-4096 bits, docs/pmns-mp.md). Generic:
 * no limit; mns_pmns_mp_generic_plan_choose picks the exact plan of least
 * modelled cost. */
#define MP_BASE_IFMA 64
/* the largest p for which pmns-mp's default tries the FMA kernel: 8192 bits
 * (s = 4, n = 45-47, split) since session 13, where it ran 1.2-1.3x faster
 * than the portable kernel in one process on random primes and generated in
 * 4-11 s (docs/pmns-mp.md, "FMA kernel, session 13"); n <= 48 ends it */
#define MP_FMA_BITS_MAX 8192

/* ---- conversions ---------------------------------------------------------- */

/* digits of x: low s-1 digits in [0, 2^k), the top digit takes the rest
 * (floor division, so it carries the sign) */
static int split_digits(uint64_t *d, size_t stride, const mpz_t x, int s, int k)
{
    mpz_t t, q;
    mpz_init_set(t, x);
    mpz_init(q);
    for (int j = 0; j < s - 1; j++) {
        mpz_fdiv_r_2exp(q, t, (mp_bitcnt_t)k);
        d[(size_t)j * stride] = mpz_get_ui(q);
        mpz_fdiv_q_2exp(t, t, (mp_bitcnt_t)k);
    }
    int ok = mpz_fits_slong_p(t);
    d[(size_t)(s - 1) * stride] = (uint64_t)(int64_t)mpz_get_si(t);
    mpz_clears(t, q, NULL);
    return ok;
}

static void coef_value(mpz_t v, const mns_pmns_mp_ctx *c, const uint64_t *a, int i)
{
    mpz_set_si(v, 0);
    for (int j = c->s - 1; j >= 0; j--) {
        mpz_mul_2exp(v, v, (mp_bitcnt_t)c->k);
        int64_t d = (int64_t)a[(size_t)j * c->n + i];
        if (d >= 0)
            mpz_add_ui(v, v, (unsigned long)d);
        else
            mpz_sub_ui(v, v, (unsigned long)(-(d + 1)) + 1);
    }
}

/* r <- tight digits of a polynomial with A(gamma) = x (not Montgomery) */
static mns_status represent(const mns_pmns_mp_ctx *c, uint64_t *r, const mpz_t x)
{
    mpz_t *co = malloc((size_t)c->n * sizeof *co);
    if (!co)
        return mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
    for (int i = 0; i < c->n; i++)
        mpz_init(co[i]);
    mns_status st = mns_pmns_represent_var(c->P, co, x);
    for (int i = 0; st == MNS_OK && i < c->n; i++)
        if (!split_digits(r + i, (size_t)c->n, co[i], c->s, c->k))
            st = mns_error(MNS_ERANGE, "pmns-mp: top digit out of range");
    for (int i = 0; i < c->n; i++)
        mpz_clear(co[i]);
    free(co);
    return st;
}

/* S64: the raw value a phi^2 is represented (|y_i| < rho) and divided by phi
 * with one Montgomery product by the constant polynomial 1, so set_mpz's
 * output has the bound of a product's output (about N_i / 2, see
 * tight_bounds), not only |a_i| < rho. U52 (and S64 while the context is
 * built, before the kernel exists): the representation of a phi itself. */
mns_status mns_pmns_mp_set_mpz_var(const mns_pmns_mp *c, uint64_t *r, const mpz_t a)
{
    mpz_t t;
    mpz_init(t);
    mpz_mod(t, a, c->p);
    mpz_mul_2exp(t, t, mns_pmns_params_phi_log2(c->P) * (c->unit ? 2 : 1)); /* Montgomery */
    mpz_mod(t, t, c->p);
    mns_status st;
    if (c->unit) {
        uint64_t *y = malloc(c->limbs * sizeof *y);
        st = y ? represent(c, y, t) : mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
        if (st == MNS_OK)
            c->mul(c, r, y, c->unit);
        free(y);
    } else
        st = represent(c, r, t);
    mpz_clear(t);
    return st;
}

void mns_pmns_mp_get_mpz_var(const mns_pmns_mp *c, mpz_t r, const uint64_t *a)
{
    mpz_t v;
    mpz_init(v);
    mpz_set_ui(r, 0);
    for (int i = c->n - 1; i >= 0; i--) { /* Horner in gamma */
        mpz_mul(r, r, c->gamma);
        coef_value(v, c, a, i);
        mpz_add(r, r, v);
        mpz_mod(r, r, c->p);
    }
    mpz_mul(r, r, c->phi_inv);
    mpz_mod(r, r, c->p);
    mpz_clear(v);
}

/* ---- arithmetic ------------------------------------------------------------ */

void mns_pmns_mp_mul(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    c->mul(c, r, a, b);
}

void mns_pmns_mp_sqr(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a) { c->sqr(c, r, a); }

/* Carry-free: the digit bounds of loose elements were checked at creation. */
void mns_pmns_mp_add(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    for (size_t i = 0; i < c->limbs; i++)
        r[i] = a[i] + b[i];
}

void mns_pmns_mp_sub(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    if (c->u52) /* unsigned digits: a + Z - b, Z's digits dominate b's */
        for (size_t i = 0; i < c->limbs; i++)
            r[i] = a[i] + (c->zero_z[i] - b[i]);
    else
        for (size_t i = 0; i < c->limbs; i++)
            r[i] = a[i] - b[i];
}

/* a * (phi mod p) * phi^-1 = a, through the Montgomery closure with a tight
 * second operand (checked at creation for the loosest operand). */
void mns_pmns_mp_reduce(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a)
{
    c->mul(c, r, a, c->one);
}

/* ---- creation ---------------------------------------------------------------- */

void mns_pmns_mp_free(mns_pmns_mp *c)
{
    if (!c)
        return;
    mns_pmns_params_free(c->P);
    free(c->mseq);
    free(c->mpseq);
    free(c->mcol);
    free(c->mpcol);
    free(c->mfast);
    free(c->mfd);
    free(c->mpfd);
    free(c->mfs);
    free(c->mpfast);
    free(c->msplit);
    free(c->moff);
    free(c->aoff);
    free(c->one);
    free(c->unit);
    if (c->tight) {
        for (int i = 0; i < c->n; i++)
            mpz_clear(c->tight[i]);
        free(c->tight);
    }
    free(c->zero_z);
    free(c->words);
    free(c->gw_pow);
    mpz_clears(c->p, c->gamma, c->phi_inv, NULL);
    free((void *)c->kernel_describe);
    free(c);
}

const mns_pmns_params *mns_pmns_mp_params(const mns_pmns_mp *c) { return c->P; }
size_t mns_pmns_mp_limbs(const mns_pmns_mp *c) { return c->limbs; }
const char *mns_pmns_mp_describe(const mns_pmns_mp *c) { return c->kernel_describe; }

/* w La Lb + Qmax N < phi rho: the Montgomery closure of the generator
 * (mns_pmns.h), for the operand bounds this backend actually produces. */
static int closure_ok(const mns_pmns_params *P, const mpz_t La, const mpz_t Lb)
{
    mpz_t l, r, q;
    mpz_inits(l, r, q, NULL);
    mns_pmns_qmax(q, mns_pmns_params_word(P), mns_pmns_params_s(P),
                  mns_pmns_params_chunk_bits(P));
    mpz_mul(l, La, Lb);
    mpz_mul_ui(l, l, mns_pmns_params_w(P));
    mpz_addmul(l, q, mns_pmns_params_norm1(P));
    mpz_set_ui(r, 0);
    mpz_setbit(r, mns_pmns_params_phi_log2(P));
    mpz_mul(r, r, mns_pmns_params_rho(P));
    int ok = mpz_cmp(l, r) < 0;
    mpz_clears(l, r, q, NULL);
    return ok;
}

/* The same closure for reduce = mul(a, one) with the exact product bound of
 * this second operand: ||A one mod E||_inf <= La W, W the largest row sum of
 * |Toeplitz(one)| (<= w (rho-1), often half of it). With delta = 0, reduce's
 * input is a sum of two tight elements; w La Lb would ask for one more bit of
 * phi than mul does and push some sets (1024 bits: n=9 s=2) to a larger k. */
static void coef_value(mpz_t v, const mns_pmns_mp_ctx *c, const uint64_t *a, int i);
static int closure_one_ok(const mns_pmns_mp_ctx *c, const mpz_t La)
{
    const int n = c->n;
    mpz_t W, row, v, l, r, q;
    mpz_inits(W, row, v, l, r, q, NULL);
    for (int rr = 0; rr < n; rr++) {
        mpz_set_ui(row, 0);
        for (int d = 0; d < n; d++) {
            coef_value(v, c, c->one, d);
            mpz_abs(v, v);
            if (d > rr)
                mpz_mul_ui(v, v, (unsigned long)labs(c->lambda));
            mpz_add(row, row, v);
        }
        if (mpz_cmp(row, W) > 0)
            mpz_set(W, row);
    }
    mns_pmns_qmax(q, mns_pmns_params_word(c->P), mns_pmns_params_s(c->P),
                  mns_pmns_params_chunk_bits(c->P));
    mpz_mul(l, La, W);
    mpz_addmul(l, q, mns_pmns_params_norm1(c->P));
    mpz_set_ui(r, 0);
    mpz_setbit(r, mns_pmns_params_phi_log2(c->P));
    mpz_mul(r, r, mns_pmns_params_rho(c->P));
    int ok = mpz_cmp(l, r) < 0;
    mpz_clears(W, row, v, l, r, q, NULL);
    return ok;
}

static double log2_mpz(const mpz_t x)
{
    if (mpz_sgn(x) == 0)
        return -1e9;
    long e;
    double d = mpz_get_d_2exp(&e, x);
    return (double)e + log2(fabs(d));
}

/* ---- the tight bound of S64 elements (docs/pmns-mp.md "Tight bound") ------
 *
 * Every S64 producer of a tight element ends with a Montgomery product
 * (Alg. 3): mul, sqr, reduce = mul(a, one), set_mpz = mul(y, 1) with |y_i| <
 * rho, and so one, set_words (a product last) and powm. Its output is C =
 * (A B mod E + Q M mod E) / phi exactly, with |q_j| <= Qmax (centred CIOS
 * digits), so coefficient i obeys
 *   |c_i| <= floor((P_i + Qmax N_i) / phi),
 *   P_i = sum_(j<=i) |a_j| |b_(i-j)| + |lambda| sum_(j>i) |a_j| |b_(n+i-j)|,
 *   N_i = sum_(d<=i) |m_d| + |lambda| sum_(d>i) |m_d|     (N_0 = N).
 * The generator's closure takes |a_j|, |b_j| <= (delta+1)(rho-1) and the
 * largest row (w, N), so it proves |c_i| < rho. But the outputs are about
 * Qmax N_i / phi ~ N_i / 2 <= rho / 2 (rho = N on these sets): a vector
 * B with
 *   (mul)    P_i((delta+1) B, (delta+1) B) + Qmax N_i < phi (B_i + 1),
 *   (reduce) P_i(max(delta+1, 2) B, |one|) + Qmax N_i < phi (B_i + 1),
 *   (set)    rho - 1 + Qmax N_i < phi (B_i + 1),   B_i <= rho - 1
 * is an invariant: if every tight element has |a_i| <= B_i, so has every
 * output, for operands that are sums or differences of delta + 1 of them.
 * That is about 1-1.5 bits of phi cheaper than (delta+1)(rho-1) with w for
 * delta = 1 (the per-coefficient bounds fall from N_0 / 2 to about
 * N_(n-1) / 2 ~ N / (2 |lambda|), and the largest P_i pairs large with small
 * bounds), which is what lets delta = 1 use the set delta = 0 gets on many
 * primes. B is found as the least fixed point of the map in floating point
 * (scaled by N), raised by 2^-30 (then 2^-20, ...), and the three conditions
 * are checked on it with exact integers (GMP): the float only proposes. */

/* P_i for coefficient bounds x, y (doubles) */
static double prod_bound_d(const double *x, const double *y, int n, double lam, int i)
{
    double lo = 0, hi = 0;
    for (int j = 0; j <= i; j++)
        lo += x[j] * y[i - j];
    for (int j = i + 1; j < n; j++)
        hi += x[j] * y[n + i - j];
    return lo + lam * hi;
}

/* out <- P_i for coefficient bounds x, y (exact) */
static void prod_bound(mpz_t out, mpz_t tmp, const mpz_t *x, const mpz_t *y, int n,
                       unsigned long lam, int i)
{
    mpz_set_ui(out, 0);
    mpz_set_ui(tmp, 0);
    for (int j = 0; j <= i; j++)
        mpz_addmul(out, x[j], y[i - j]);
    for (int j = i + 1; j < n; j++)
        mpz_addmul(tmp, x[j], y[n + i - j]);
    mpz_addmul_ui(out, tmp, lam);
}

/* x / y as a double, for operands of any size */
static double mpz_ratio(const mpz_t x, const mpz_t y)
{
    if (mpz_sgn(x) == 0)
        return 0;
    long ex, ey;
    double dx = mpz_get_d_2exp(&ex, x), dy = mpz_get_d_2exp(&ey, y);
    return ldexp(dx / dy, (int)(ex - ey));
}

/* Finds and checks B (c->tight); 1 if it holds. Needs c->one. */
static int tight_bounds(mns_pmns_mp_ctx *c)
{
    const int n = c->n;
    const unsigned long lam = (unsigned long)labs(c->lambda);
    const unsigned long dm = (unsigned long)c->delta + 1, dr = dm > 2 ? dm : 2;
    const unsigned h = mns_pmns_params_phi_log2(c->P);
    mpz_srcptr rho = mns_pmns_params_rho(c->P), N = mns_pmns_params_norm1(c->P);
    mpz_t *v = malloc(sizeof(mpz_t) * (size_t)n * 4); /* N_i, |one_i|, B_i, scratch */
    double *d = malloc(sizeof(double) * (size_t)n * 5);
    if (!v || !d) {
        free(v);
        free(d);
        return 0;
    }
    mpz_t *Ni = v, *o = v + n, *B = v + 2 * n;
    for (int i = 0; i < 4 * n; i++)
        mpz_init(v[i]);
    mpz_t q, phi, lhs, rhs, t, rm1;
    mpz_inits(q, phi, lhs, rhs, t, rm1, NULL);
    mns_pmns_qmax(q, MNS_PMNS_WORD_S64, c->s, (unsigned)c->k);
    mpz_setbit(phi, h);
    mpz_sub_ui(rm1, rho, 1);
    for (int i = 0; i < n; i++) {
        for (int dd = 0; dd < n; dd++) {
            mpz_abs(t, mns_pmns_params_m(c->P, dd));
            if (dd > i)
                mpz_mul_ui(t, t, lam);
            mpz_add(Ni[i], Ni[i], t);
        }
        coef_value(o[i], c, c->one, i);
        mpz_abs(o[i], o[i]);
    }
    /* floats scaled by N: y = B / N; P_i(B, B) / phi = (N / phi) P_i(y, y) N */
    double *y = d, *ny = d + n, *beta = d + 2 * n, *og = d + 3 * n, *rs = d + 4 * n;
    const double a = mpz_ratio(N, phi), ymax = mpz_ratio(rho, N), lamd = (double)lam;
    const double qphi = mpz_ratio(q, phi);
    mpz_mul_2exp(t, N, h);
    const double rphin = mpz_ratio(rm1, t); /* (rho - 1) / (phi N) */
    for (int i = 0; i < n; i++) {
        beta[i] = qphi * mpz_ratio(Ni[i], N);
        og[i] = mpz_ratio(o[i], phi);
        rs[i] = beta[i] + rphin;
        y[i] = rs[i];
    }
    /* monotone from below to the least fixed point; 1e-14: a few ulps (the
     * margins below cover the rest); slow convergence near the critical
     * point stops at 4000 steps and is left to the margins and the check */
    int ok = 1;
    for (int it = 0; it < 4000; it++) {
        double change = 0;
        for (int i = 0; i < n; i++) {
            double m1 = (double)(dm * dm) * a * prod_bound_d(y, y, n, lamd, i) + beta[i];
            double m2 = (double)dr * prod_bound_d(y, og, n, lamd, i) + beta[i];
            ny[i] = fmax(rs[i], fmax(m1, m2));
            ok &= ny[i] <= ymax * (1 + 0x1p-20); /* the clamp and the check decide */
            change = fmax(change, (ny[i] - y[i]) / ny[i]);
        }
        memcpy(y, ny, sizeof(double) * (size_t)n);
        if (!ok || change < 1e-14)
            break;
    }
    for (int e = 30; ok && e >= 6; e -= e > 10 ? 10 : 2) {
        int good = 1;
        for (int i = 0; i < n; i++) {
            /* B_i = min(floor(y_i (1 + 2^-e) N) + 1, rho - 1): where the old
             * closure holds, B = rho - 1 is itself an invariant, so the
             * clamp keeps every set the old check accepted */
            mpz_set_d(t, ldexp(y[i] * (1 + ldexp(1, -e)), 62));
            mpz_mul(B[i], t, N);
            mpz_fdiv_q_2exp(B[i], B[i], 62);
            mpz_add_ui(B[i], B[i], 1);
            if (mpz_cmp(B[i], rm1) > 0)
                mpz_set(B[i], rm1);
        }
        for (int i = 0; good && i < n; i++) {
            mpz_add_ui(rhs, B[i], 1);
            mpz_mul_2exp(rhs, rhs, h);
            mpz_mul(t, q, Ni[i]);
            /* (set) */
            mpz_add(lhs, t, rm1);
            good &= mpz_cmp(lhs, rhs) < 0;
            /* (mul) */
            prod_bound(lhs, v[3 * n], B, B, n, lam, i);
            mpz_mul_ui(lhs, lhs, dm * dm);
            mpz_add(lhs, lhs, t);
            good &= mpz_cmp(lhs, rhs) < 0;
            /* (reduce) */
            prod_bound(lhs, v[3 * n], B, o, n, lam, i);
            mpz_mul_ui(lhs, lhs, dr);
            mpz_add(lhs, lhs, t);
            good &= mpz_cmp(lhs, rhs) < 0;
        }
        if (good) {
            c->tight = malloc(sizeof(mpz_t) * (size_t)n);
            if (c->tight) {
                for (int i = 0; i < n; i++)
                    mpz_init_set(c->tight[i], B[i]);
                mpz_add_ui(t, B[0], 1);
                c->tight0_bits = (int)mpz_sizeinbase(t, 2) - 1;
            }
            break;
        }
    }
    ok = c->tight != NULL;
    mpz_clears(q, phi, lhs, rhs, t, rm1, NULL);
    for (int i = 0; i < 4 * n; i++)
        mpz_clear(v[i]);
    free(v);
    free(d);
    return ok;
}

/* Z for u52 subtraction: C - Cbar, C = (K, ..., K), Cbar a tight
 * representation of C(gamma), so Z(gamma) = 0 mod p. Every coefficient must
 * be >= Lo = rho + 3 2^(k(s-1)) (then the digits can be re-split so that each
 * low digit is >= 2^k - 1 and the top one exceeds every tight top digit: they
 * dominate any tight subtrahend), and the largest one, zmax, is what the
 * loose bound rho - 1 + delta zmax costs. K = Lo + rho always works (Cbar is
 * in [0, rho)), but then zmax is about 2 rho and a loose operand 3 rho. The
 * representations the generator's RedCoeff produces are much narrower than
 * [0, rho) (about 0.05-0.3 rho at 1024-6144 bits), so Z is searched: K = Lo
 * + cap for a few caps and offsets (Cbar changes pseudo-randomly with K),
 * keeping the valid Z (max Cbar <= cap) of least zmax, about 1.1-1.3 rho.
 * With delta = 1 that is a loose bound near 2.2 rho instead of 3 rho: 1 bit
 * less of phi for the closure (2048 bits: n = 15 k = 50 instead of n = 16). */
#define Z_CAPS 8
#define Z_TRIES 10
static mns_status make_z(mns_pmns_mp_ctx *c, mpz_t zmax)
{
    const int n = c->n, s = c->s, k = c->k;
    mns_status st = MNS_OK;
    mpz_t K, Lo, v, x, t, top, S, best;
    mpz_inits(K, Lo, v, x, t, top, S, best, NULL);
    mpz_set_ui(t, 3);
    mpz_mul_2exp(t, t, (mp_bitcnt_t)k * (s - 1));
    mpz_add(Lo, mns_pmns_params_rho(c->P), t);
    /* S = sum gamma^i mod p: C(gamma) = K S */
    mpz_set_ui(S, 0);
    for (int i = 0; i < n; i++) {
        mpz_mul(S, S, c->gamma);
        mpz_add_ui(S, S, 1);
        mpz_mod(S, S, c->p);
    }
    uint64_t *cb = calloc(c->limbs, sizeof *cb), *zb = calloc(c->limbs, sizeof *zb);
    c->zero_z = calloc(c->limbs, sizeof *c->zero_z);
    if (!cb || !zb || !c->zero_z) {
        st = mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
        goto out;
    }
    /* caps 2 rho / (4 + ci): rho/2 .. 2 rho/11, Z_TRIES offsets each; then
     * cap rho (always valid) if none was */
    for (int q = 0; q <= Z_CAPS * Z_TRIES && st == MNS_OK; q++) {
        const int ci = q / Z_TRIES, tr = q % Z_TRIES;
        if (ci == Z_CAPS && mpz_sgn(best) != 0)
            break;
        if (ci < Z_CAPS) {
            mpz_mul_2exp(K, mns_pmns_params_rho(c->P), 1);
            mpz_tdiv_q_ui(K, K, 4ul + (unsigned long)ci);
        } else
            mpz_set(K, mns_pmns_params_rho(c->P));
        mpz_add(K, K, Lo);
        mpz_add_ui(K, K, (unsigned long)tr);
        mpz_mul(x, K, S);
        mpz_mod(x, x, c->p);
        st = represent(c, cb, x);
        /* z_i = K - cb_i: valid if every z_i >= Lo; its cost: max z_i */
        int ok = st == MNS_OK;
        mpz_set_ui(t, 0);
        for (int i = 0; ok && i < n; i++) {
            coef_value(v, c, cb, i);
            mpz_sub(v, K, v);
            ok = mpz_cmp(v, Lo) >= 0;
            if (mpz_cmp(v, t) > 0)
                mpz_set(t, v);
        }
        if (ok && (mpz_sgn(best) == 0 || mpz_cmp(t, best) < 0)) {
            mpz_set(best, t);
            for (int i = 0; i < n; i++) {
                coef_value(v, c, cb, i);
                mpz_sub(v, K, v);
                split_digits(zb + i, (size_t)n, v, s, k);
            }
        }
    }
    if (st != MNS_OK)
        goto out;
    mpz_set(zmax, best);
    memcpy(c->zero_z, zb, c->limbs * sizeof *zb);
    /* largest tight top digit */
    mpz_fdiv_q_2exp(top, mns_pmns_params_rho(c->P), (mp_bitcnt_t)k * (s - 1));
    for (int i = 0; i < n; i++) {
        /* borrow: digit j += 2^k (minus 1 for the middle ones), top -= 1 */
        for (int j = 0; j < s - 1; j++) {
            c->zero_z[(size_t)j * n + i] += (uint64_t)1 << k;
            c->zero_z[(size_t)(j + 1) * n + i] -= 1;
        }
        int64_t zt = (int64_t)c->zero_z[(size_t)(s - 1) * n + i];
        if (zt < 0 || mpz_cmp_si(top, zt) > 0) {
            st = mns_error(MNS_ERANGE, "pmns-mp: Z top digit too small");
            goto out;
        }
    }
out:
    free(cb);
    free(zb);
    mpz_clears(K, Lo, v, x, t, top, S, best, NULL);
    return st;
}

/* Checks the kernel bounds for a plan (see pmns_mp/ctx.h). ifma: 52-bit inputs,
 * lo/hi lanes. Returns 1 if every bound holds, and fills the offsets. */
static int plan_ok(mns_pmns_mp_ctx *c, double lg_d, double lg_md, int ifma, int *mo_a, int *mo_m)
{
    const mp_plan *pl = &c->plan;
    double lv = log2(mns_pmns_mp_plan_vec_growth(pl));
    double lm = log2(mns_pmns_mp_plan_mat_growth(pl));
    double lo = log2(mns_pmns_mp_plan_out_growth(pl));
    double llam = log2((double)labs(c->lambda));
    double tmax = c->u52 ? c->k : c->k - 1;
    /* vector entries: normalised operand digits, T digits */
    double vb = fmax(lg_d, tmax) + lv;
    /* matrix entries: operand digits and M digits, times lambda */
    double mba = lg_d + llam + lm, mbm = lg_md + llam + lm;
    double mb = fmax(mba, mbm);
    /* a digit of R collects s products A_j B_i and s products T M_j of b
     * terms each (doubled cross products of the squaring: s+1 terms) */
    double sb = log2(2.0 * (c->s + 1) * pl->b);
    if (!ifma)
        return vb < 62.9 && mb < 62.9 && vb + mb + sb + lo < 126.5;
    *mo_a = (int)ceil(mba + 0.01);
    *mo_m = (int)ceil(mbm + 0.01);
    if (pl->levels == 0)
        *mo_a = *mo_m = 0; /* no differences: every entry is >= 0 */
    if (vb >= 52 || *mo_a + 1 > 52 || *mo_m + 1 > 52)
        return 0;
    /* lo/hi lanes: that many terms below 2^52 each (and the offset
     * corrections), through the contraction, plus the division's carry */
    return 52 + sb + 1 + lo < 62.5 && c->k + sb + lo + 2 < 62.5;
}

/* ifma: the u52 vector kernels' bounds and fused data; fma: then the FMA
 * kernel (pmns_mp/fma.c) instead of the IFMA ones */
static mns_status build(mns_pmns_mp_ctx *c, int base, int ifma, int fma)
{
    const int n = c->n, s = c->s, k = c->k;
    mns_status st;
    mpz_t t, La, Lb, zmax;
    mpz_inits(t, La, Lb, zmax, NULL);
    c->limbs = (size_t)n * s;
    c->kmask = ((uint64_t)1 << k) - 1;
    c->one = calloc(c->limbs, sizeof *c->one);
    if (!c->one) {
        st = mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
        goto out;
    }
    /* operand bounds (coefficients): tight rho-1; loose and reduce inputs */
    mpz_sub_ui(Lb, mns_pmns_params_rho(c->P), 1);
    if (c->u52) {
        st = make_z(c, zmax);
        if (st != MNS_OK)
            goto out;
        /* loose: rho-1 + delta Z; reduce: also a + Z - b */
        mpz_mul_ui(La, zmax, (unsigned long)(c->delta > 1 ? c->delta : 1));
        mpz_add(La, La, Lb);
    } else
        mpz_mul_ui(La, Lb, (unsigned long)(c->delta > 1 ? c->delta + 1 : 2));
    /* normalised digits: k bits, the top one as large as La / 2^(k(s-1)) */
    double lg_dl = fmax((double)k, log2_mpz(La) - (double)k * (s - 1) + 1);
    if (c->u52) { /* S64: tight_bounds below, once the kernel exists */
        mpz_t Ll;
        mpz_init(Ll);
        mpz_mul_ui(Ll, zmax, (unsigned long)c->delta);
        mpz_add(Ll, Ll, Lb);
        /* Montgomery 1 (a tight representation of phi mod p) first: its
         * exact row sums bound reduce's product */
        mpz_set_ui(t, 1);
        int ok = mns_pmns_mp_set_mpz_var(c, c->one, t) == MNS_OK && closure_ok(c->P, Ll, Ll) &&
                 closure_one_ok(c, La);
        mpz_clear(Ll);
        if (!ok) {
            st = MNS_ERANGE; /* the caller regenerates with a larger delta */
            goto out;
        }
        /* a chunk below 2^(rho_bits - 1) <= rho is tight */
        c->tight0_bits = (int)mns_pmns_params_rho_bits(c->P) - 1;
    }
    /* M digits */
    uint64_t *md = calloc(c->limbs, sizeof *md), *mp0 = calloc((size_t)n, sizeof *mp0);
    if (!md || !mp0) {
        free(md);
        free(mp0);
        st = mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
        goto out;
    }
    double lg_md = 0;
    for (int i = 0; i < n; i++) {
        split_digits(md + i, (size_t)n, mns_pmns_params_m(c->P, i), s, k);
        mpz_fdiv_r_2exp(t, mns_pmns_params_mprime(c->P, i), (mp_bitcnt_t)k);
        mp0[i] = mpz_get_ui(t);
    }
    for (size_t i = 0; i < c->limbs; i++) {
        int64_t d = (int64_t)md[i];
        lg_md = fmax(lg_md, log2(fabs((double)d) + 1));
    }
    c->lg_d = lg_dl; /* for the fused IFMA split's own bound checks */
    c->lg_top = log2_mpz(La) - (double)k * (s - 1) + 1;
    /* the plan: split while the bounds allow, else larger leaves */
    int mo_a = 0, mo_m = 0, found = 0;
    const double dtop = ldexp(mpz_get_d(La), -k * (s - 1)) + 2; /* normalised top digit */
    if (!ifma) /* the generic kernel's exact bounds and cost model */
        found = mns_pmns_mp_generic_plan_choose(c, md, dtop, base);
    for (int bs = base < n ? base : n; ifma && bs <= n && !found;
         bs = bs < n ? (bs * 2 > n ? n : bs * 2) : n + 1) {
        mns_pmns_mp_plan_make(&c->plan, n, bs);
        found = plan_ok(c, lg_dl, lg_md, ifma, &mo_a, &mo_m);
    }
    if (!found) {
        free(md);
        free(mp0);
        st = mns_error(MNS_ENOTSUP, "pmns-mp: the kernel bounds fail for n=%d s=%d k=%d", n, s, k);
        goto out;
    }
    c->base = base;
    const mp_plan *pl = &c->plan;
    c->mstride = 2 * pl->b - 1 + 8;
    size_t ms = (size_t)pl->leaves * c->mstride;
    c->mseq = calloc((size_t)s * ms + 16, sizeof *c->mseq);
    c->mpseq = calloc(ms + 16, sizeof *c->mpseq);
    uint64_t *tseq = calloc((size_t)2 * n + 8, sizeof *tseq);
    uint64_t *etmp = calloc((size_t)pl->tmp + 8, sizeof *etmp);
    if (!c->mseq || !c->mpseq || !tseq || !etmp) {
        free(md);
        free(mp0);
        free(tseq);
        free(etmp);
        st = mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
        goto out;
    }
    for (int j = 0; j < s; j++) {
        mns_pmns_mp_toeplitz_seq(tseq, md + (size_t)j * n, n, c->lambda);
        mns_pmns_mp_expand_mat(pl, tseq, c->mseq + (size_t)j * ms, c->mstride, etmp);
    }
    mns_pmns_mp_toeplitz_seq(tseq, mp0, n, c->lambda);
    mns_pmns_mp_expand_mat(pl, tseq, c->mpseq, c->mstride, etmp);
    free(md);
    free(mp0);
    free(tseq);
    free(etmp);
    if (ifma) {
        c->moff = calloc((size_t)pl->leaves, sizeof *c->moff);
        c->aoff = calloc((size_t)pl->leaves, sizeof *c->aoff);
        if (!c->moff || !c->aoff) {
            st = mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
            goto out;
        }
        for (int l = 0; l < pl->leaves; l++) {
            c->moff[l] = mo_m;
            c->aoff[l] = mo_a;
        }
        if (!mns_pmns_mp_ifma_prepare(c)) {
            st = mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
            goto out;
        }
        if (c->lam_carried && (!c->fast || c->fs_plan)) {
            /* the other IFMA paths multiply each digit by lambda */
            st = mns_error(MNS_ENOTSUP, "pmns-mp: a lambda-carried set (n=%d s=%d k=%d "
                                        "lambda=%ld) needs the unsplit fused IFMA kernel",
                           n, s, k, c->lambda);
            goto out;
        }
        c->mul = mns_pmns_mp_mul_ifma;
        c->sqr = mns_pmns_mp_sqr_ifma;
        c->kernel = "ifma";
        if (fma) {
            const int r = mns_pmns_mp_fma_prepare(c);
            if (r <= 0) {
                /* no instance: final; the bound: more room in the words
                 * (a smaller k) may pass, as for the other kernel bounds */
                c->fma_miss = r == 0;
                st = r == -1 ? mns_error(MNS_ENOMEM, "pmns-mp: out of memory")
                     : r == 0
                         ? mns_error(MNS_ENOTSUP,
                                     "pmns-mp: the FMA kernel has no instance for n=%d s=%d "
                                     "(s = 2..4, n <= 48)",
                                     n, s)
                         : mns_error(MNS_ENOTSUP,
                                     "pmns-mp: the FMA kernel's products leave 2^102 for n=%d "
                                     "s=%d k=%d lambda=%ld",
                                     n, s, k, c->lambda);
                goto out;
            }
        }
    } else {
        c->mul = mns_pmns_mp_mul_generic;
        c->sqr = mns_pmns_mp_sqr_generic;
        c->kernel = "generic";
    }
    /* the kernels' and the conversions' per-call scratch lives on the
     * stack: a plan that needs more than the bound is refused here */
    {
        size_t need = mns_pmns_mp_scratch_generic(c) + 2;
        if (ifma && mns_pmns_mp_scratch_ifma(c) > need)
            need = mns_pmns_mp_scratch_ifma(c);
        if (2 * c->limbs > need)
            need = 2 * c->limbs;
        if ((st = mns_scratch_check("pmns-mp", need)) != MNS_OK)
            goto out;
    }
    if (!c->u52) {
        /* set_mpz ends with a product by 1 from here on; one, then the
         * tight bound (its reduce condition uses one's coefficients) */
        if (!(c->unit = calloc(c->limbs, sizeof *c->unit))) {
            st = mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
            goto out;
        }
        c->unit[0] = 1;
        mpz_set_ui(t, 1);
        if (mns_pmns_mp_set_mpz_var(c, c->one, t) != MNS_OK || !tight_bounds(c)) {
            st = MNS_ERANGE; /* the caller regenerates with a larger delta */
            goto out;
        }
    }
    st = mns_pmns_mp_words_prepare(c);
out:
    mpz_clears(t, La, Lb, zmax, NULL);
    return st;
}

/* tadds_min: the smallest (B3) t to ask the generator for (0: the kernel's
 * own); see the FMA kernel's second try below. carry: the IFMA kernel's
 * unsplit sets lambda-carried (MNS_PMNS_GEN_LAMBDA_CARRIED); CARRY_FMA: the
 * FMA kernel's too (fma_default) */
enum { CARRY_FMA = 2 };
static mns_status new_impl(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int s, int n,
                           int delta, int base, mns_pmns_mp_kernel kernel, int tadds_min,
                           int lanes, int carry);
/* new_impl without the FMA kernel's choice of n (fma_default): one set */
static mns_status new_set(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int s, int n,
                          int delta, int base, mns_pmns_mp_kernel kernel, int tadds_min,
                          int lanes, int carry);

mns_status mns_pmns_mp_new_var(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int s, int n,
                               int delta, int base, mns_pmns_mp_kernel kernel)
{
    return new_impl(out, p, word, s, n, delta, base, kernel, 0, 0, 1);
}

/* The FMA kernel's split bound, lambda 2^(2 lg_d + 1) <= 2^102, fails on a
 * set with k = 50 and lambda >= 3 (seen at 8192 bits), which then runs
 * unsplit where the cost rule wants the split. (B3) with t = 2 asks for
 * k <= 49 (lambda 2^k < 2^51), which the split's bound takes up to lambda =
 * 8, at the cost of n + 0..2. The second set is kept if the cost model of
 * pmns_mp/fma.c prices it lower. */
static mns_pmns_mp *fma_retry(mns_pmns_mp *c, const mpz_t p, mns_pmns_word word, int n, int delta,
                              int base, mns_pmns_mp_kernel kernel, int lanes)
{
    mns_pmns_mp *alt = NULL;
    if (!c->fma_split_miss || c->fma_base != 0 ||
        new_set(&alt, p, word, c->s, n, delta, base, kernel, 2, lanes, 0) != MNS_OK)
        return c;
    if (mns_pmns_mp_fma_cost(alt) < mns_pmns_mp_fma_cost(c)) {
        mns_pmns_mp_free(c);
        return alt;
    }
    mns_pmns_mp_free(alt);
    return c;
}

/* The FMA kernel's s by the size of p, measured on Zen 3 (docs/pmns-mp.md,
 * "FMA kernel"): s = 3 up to 3072 bits, s = 4 at 4096 (n = 23, split), s = 3
 * past it up to 6144 (n = 47 split: 0.94x the time of s = 4 n = 34, which
 * the split does not serve), s = 4 beyond (n <= 48); s = 5 and 6 slower:
 * their products per step outrun the registers */
static int fma_size_s(size_t bits) { return bits <= 3072 || (bits > 4096 && bits <= 6144) ? 3 : 4; }

/* The FMA kernel's default set. The size rule's s with the generator's own
 * n is the cheapest set on most primes, but not on all: the generator takes
 * the smallest lambda of each n and moves to the next n when it does not
 * fit, and a set it does give can have a k too small for the split (k <=
 * 49 with lambda <= 8, or k = 50 with lambda = 2). Seen on random primes
 * (Xeon, 2026-11-28): 2048 bits n = 17 s = 3 unsplit, 2851 ticks, where n =
 * 16 (lambda = 7, split) takes 1726; 4096 bits n = 25 s = 4 k = 46
 * unsplit, 9103, where s = 3 n = 31 (split) takes 6101. So when a set of
 * another s (3 or 4) or a smaller n is predicted at least 10% cheaper by
 * the kernel's cost model, it is generated at its predicted n and the next
 * (explicit n: the lambda walk) and the cheapest real set kept. On the
 * primes where the first set is as good as predicted nothing more is
 * generated. */
static mns_status fma_default(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int s_req,
                              int delta, mns_pmns_mp_kernel kernel, int lanes)
{
    const size_t bits = mpz_sizeinbase(p, 2);
    const int s0 = s_req ? s_req : fma_size_s(bits);
    mns_pmns_mp *best = NULL;
    mns_status st = new_set(&best, p, word, s0, 0, delta, 0, kernel, 0, lanes, 0);
    if (st != MNS_OK)
        best = NULL;
    for (int sc = s_req ? s_req : 3; sc <= (s_req ? s_req : 4); sc++) {
        /* n0: the plain sets' predicted n (lambda = 2, k = 50); n0c, the
         * lambda-carried sets' (k = 51), can be one less */
        const int n0 = mns_pmns_mp_predict_n(bits, sc, 50), n0c = mns_pmns_mp_predict_n(bits, sc, 51);
        for (int nc = n0c; nc <= n0 + 1 && nc <= 48; nc++) {
            if (best && ((best->s == sc && best->n <= nc) ||
                         10 * mns_pmns_mp_fma_cost_predict(sc, nc, lanes) >= 9 * mns_pmns_mp_fma_cost(best)))
                continue;
            /* the plain set first; a lambda-carried one where it has none */
            for (int cy = nc < n0; cy < 2; cy++) {
                mns_pmns_mp *alt = NULL;
                if (new_set(&alt, p, word, sc, nc, delta, 0, kernel, 0, lanes, cy ? CARRY_FMA : 0) !=
                    MNS_OK)
                    continue;
                if (!best || mns_pmns_mp_fma_cost(alt) < mns_pmns_mp_fma_cost(best)) {
                    mns_pmns_mp_free(best);
                    best = alt;
                } else {
                    mns_pmns_mp_free(alt);
                }
                break;
            }
        }
    }
    if (!best)
        return st != MNS_OK ? st : mns_error(MNS_ENOTSUP, "pmns-mp: no set for the FMA kernel");
    mns_error_clear();
    *out = best;
    return MNS_OK;
}

/* the FMA kernel's sets without n or base= given: its choice (fma_default,
 * for the s given or both) */
static mns_status new_impl(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int s, int n,
                           int delta, int base, mns_pmns_mp_kernel kernel, int tadds_min,
                           int lanes, int carry)
{
    if (kernel == MNS_PMNS_MP_KERNEL_FMA && n == 0 && base == 0 && tadds_min == 0 && out && p)
        return fma_default(out, p, word, s, delta, kernel, lanes);
    return new_set(out, p, word, s, n, delta, base, kernel, tadds_min, lanes, carry);
}

static mns_status new_set(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int s, int n,
                          int delta, int base, mns_pmns_mp_kernel kernel, int tadds_min,
                          int lanes, int carry)
{
    const int base_in = base;
    if (!out || !p)
        return mns_error(MNS_EINVAL, "pmns-mp: NULL argument");
    *out = NULL;
    if (s < 0 || s == 1 || s > MNS_PMNS_S_MAX || n < 0 || n > MNS_PMNS_N_MAX || delta < 0 ||
        delta > 255 || base < 0)
        return mns_error(MNS_EINVAL, "pmns-mp: s in 2..%d (0: automatic), n in 0..%d, delta in "
                                     "0..255",
                         MNS_PMNS_S_MAX, MNS_PMNS_N_MAX);
    const int fma = kernel == MNS_PMNS_MP_KERNEL_FMA;
    if (fma && word != MNS_PMNS_WORD_U52)
        return mns_error(MNS_EINVAL, "pmns-mp: the FMA kernel needs the u52 word");
    if (fma && !mns_cpu_has_fma())
        return mns_error(MNS_ENOTSUP, "pmns-mp: this CPU has no AVX2 and FMA for the FMA kernel%s",
                         mns_cpu_features() == 0 ? " (MNS_CPU=generic)" : "");
    /* the FMA kernel runs the IFMA kernels' sets and fused data: from here
     * on it takes their path (ifma), unsplit, and swaps the kernel at the end */
    int ifma = fma || kernel == MNS_PMNS_MP_KERNEL_IFMA ||
               (kernel == MNS_PMNS_MP_KERNEL_AUTO && word == MNS_PMNS_WORD_U52 &&
                mns_cpu_has_ifma());
    if (ifma && (word != MNS_PMNS_WORD_U52))
        return mns_error(MNS_EINVAL, "pmns-mp: the IFMA kernel needs the u52 word");
    if (ifma && !fma && !mns_cpu_has_ifma())
        return mns_error(MNS_ENOTSUP, "pmns-mp-ifma: this CPU has no AVX-512 IFMA%s",
                         mns_cpu_features() == 0 ? " (MNS_CPU=generic)" : "");
    if (fma && s != 0 && !mns_pmns_mp_fma_has(s, 4))
        return mns_error(MNS_EINVAL, "pmns-mp: the FMA kernel takes s = 2..4");
    /* the FMA kernel's base=: 0 its cost rule for the Toeplitz split, >= n
     * unsplit, else split where its bounds hold (as pmns-mp-ifma's) */
    const int fma_base = fma ? base : 0;
    if (fma)
        base = 0;
    if (fma && s == 0) /* an n or base= given: the size rule's s */
        s = fma_size_s(mpz_sizeinbase(p, 2));
    /* n > 48 has no instance: refuse before generating (n s k is about bits
     * plus the room of rho, k <= 50: 47 bits per digit is a safe guess) */
    if (fma && (n ? n : (int)((mpz_sizeinbase(p, 2) + 47 * s - 1) / (47 * s))) > 48)
        return mns_error(MNS_ENOTSUP, "pmns-mp: the FMA kernel takes n <= 48 (s = %d at %zu bits)",
                         s, mpz_sizeinbase(p, 2));
    const int base_user = fma ? MNS_PMNS_N_MAX : base; /* 0: the kernel chooses
                                 * (pmns_mp/ifma_fused.c, or the generic kernel's
                                 * cost model); >= n: unsplit */
    if (base == 0 && ifma)
        base = MP_BASE_IFMA;

    if (!ifma && word == MNS_PMNS_WORD_S64 && s == 0 && n == 0) {
        /* the generic kernel's default (n, s): its cost model's candidates
         * in order, each generated with its (n, s); the generator's
         * automatic choice below if none passes */
        int cn[4], cs[4], nc = mns_pmns_mp_generic_candidates(mpz_sizeinbase(p, 2), cn, cs, 4);
        for (int q = 0; q < nc; q++)
            if (mns_pmns_mp_new_var(out, p, word, cs[q], cn[q], delta, base, kernel) == MNS_OK)
                return MNS_OK;
    }
    /* the generator's delta: ours covers what add/sub/reduce produce; a set
     * whose phi leaves no room for it is regenerated with a larger one. u52:
     * a loose operand reaches rho - 1 + delta zmax with zmax about 1.1-1.3
     * rho (make_z), so (dgen + 1) rho with dgen about 1.25 delta. s64: the
     * delta = 0 set first (tight_bounds proves delta = 1 on it when phi has
     * the room), and the delta set if not */
    int dgen = word == MNS_PMNS_WORD_U52 ? (5 * delta + 2) / 4 : 0;
    mns_status st = MNS_ENOTSUP;
    /* (B3)'s t: the unsplit IFMA product adds nothing before multiplying, so
     * it only needs lambda 2^k < 2^52 (t = 1), which buys the largest k and so
     * the smallest n*s. plan_ok checks the real bounds; if they fail (a split
     * asked for by base=), t grows below. The generic kernel's exact check
     * (mns_pmns_mp_generic_plan_ok) replaces (B3) the same way: t = 1. */
    int tadds = (ifma && base >= MP_BASE_IFMA) || !ifma ? 1 : 0;
    if (tadds < tadds_min)
        tadds = tadds_min;
    /* (The FMA kernel's Toeplitz split wants k <= 49, which t = 2 would
     * prove; t = 1 gives it where the split pays on the sets seen (2048 bits
     * n = 16, 4096 bits n = 23), and t = 2 costs n: 3072 bits n = 25 k = 48
     * lambda = 7 instead of n = 23 k = 50, 6144 bits n = 35 at s = 4 and n =
     * 49 at s = 3, past the instances. Not taken.) */
    int tadds0 = tadds, s_auto = 0; /* s_auto: the s tried after an automatic one failed */
    mns_pmns_params *pre = NULL; /* a set the IFMA choice already generated */
    /* the IFMA kernel's own cost picks s (if not given) and t (unsplit or
     * split); the generator's Table-3 cost does not know the kernel. Made
     * again for each larger dgen: its set (a lambda walk's n = 8 s = 3 with
     * lambda = 13 at 1024 bits) can pass the generator and fail make_z
     * here, and regenerating its s without n would land on the n past a
     * vector (n = 9 s = 3, twice the cost) where another s is cheaper */
    const int ifma_choice = ifma && base_user == 0 && n == 0;
    /* lambda-carried sets: the unsplit fused IFMA kernels (not the split nor
     * the expand/contract flow, which multiply each digit by lambda), asked
     * for when t = 1 (the unsplit kernel); and the FMA kernel's unsplit one
     * when fma_default asks (CARRY_FMA) */
    const int carried = ifma && (fma ? carry == CARRY_FMA
                                     : carry && (base_user == 0 || base_user >= MP_BASE_IFMA));
    int choose = ifma_choice;
    for (int attempt = 0; attempt < 16; attempt++) {
        if (choose) {
            int sc = 0;
            mns_pmns_mp_ifma_choose(p, s, dgen, carried, &sc, &tadds, &pre);
            if (s == 0)
                s_auto = sc;
            tadds0 = tadds;
            choose = 0;
        }
        mns_pmns_gen_opts o;
        mns_pmns_gen_opts_init(&o);
        o.word = word;
        o.s = s ? s : s_auto;
        o.n = n;
        if (n) { /* an explicit n: the next lambdas if the smallest does not fit */
            o.flags |= MNS_PMNS_GEN_LAMBDA_WALK;
            o.lambda_max = 64;
        }
        o.delta = dgen > MNS_PMNS_DELTA_MAX ? MNS_PMNS_DELTA_MAX : dgen;
        o.toeplitz_adds = tadds;
        if (carried && tadds == 1)
            o.flags |= MNS_PMNS_GEN_LAMBDA_CARRIED;
        mns_pmns_params *P = NULL;
        if (pre) {
            P = pre;
            pre = NULL;
            st = MNS_OK;
        } else
            st = mns_pmns_generate_var(&P, p, &o);
        if (st == MNS_OK && mns_pmns_params_s(P) == 1 && s == 0) {
            /* automatic s chose one word: the multi-precision form wants 2 */
            mns_pmns_params_free(P);
            P = NULL;
            o.s = 2;
            st = mns_pmns_generate_var(&P, p, &o);
        }
        if (st != MNS_OK)
            return st;
        if (mns_pmns_params_eshape(P) != MNS_PMNS_E_BINOMIAL || mns_pmns_params_s(P) < 2 ||
            mns_pmns_params_chunk_bits(P) > (word == MNS_PMNS_WORD_U52 ? 52u : 62u)) {
            mns_pmns_params_free(P);
            return mns_error(MNS_ENOTSUP, "pmns-mp: the set is not multi-precision X^n - lambda");
        }
        mns_pmns_mp_ctx *c = calloc(1, sizeof *c);
        if (!c) {
            mns_pmns_params_free(P);
            return mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
        }
        mpz_inits(c->p, c->gamma, c->phi_inv, NULL);
        c->P = P;
        c->n = mns_pmns_params_n(P);
        c->s = mns_pmns_params_s(P);
        c->k = (int)mns_pmns_params_chunk_bits(P);
        c->u52 = word == MNS_PMNS_WORD_U52;
        c->lambda = mns_pmns_params_lambda(P);
        c->lam_carried = mns_pmns_params_lambda_carried(P);
        c->delta = delta;
        c->delta_gen = dgen;
        c->base_user = base_user;
        c->fma_base = fma_base;
        c->fma_vl = lanes;
        mpz_set(c->p, p);
        mpz_set(c->gamma, mns_pmns_params_gamma(P));
        mpz_set_ui(c->phi_inv, 0);
        mpz_setbit(c->phi_inv, mns_pmns_params_phi_log2(P));
        mpz_invert(c->phi_inv, c->phi_inv, p);
        st = build(c, base, ifma, fma);
        if (st == MNS_OK && !(c->gw_pow = mns_pmns_gw_powers(c->p, c->gamma, c->n)))
            st = mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
        if (st == MNS_OK)
            st = mns_scratch_check("pmns-mp", mns_pmns_gw_scratch(c->limbs, mpz_size(c->p),
                                                                  mns_pmns_mp_gw_cw(c), c->n));
        if (st == MNS_OK) {
            char buf[MNS_DESCRIBE_MAX];
            char plan[64] = "";
            size_t off = 0;
            for (int l = 0; l < c->plan.levels; l++)
                off += (size_t)snprintf(plan + off, sizeof plan - off, "%s%d", l ? "x" : "",
                                        c->plan.f[l]);
            snprintf(plan + off, sizeof plan - off, "%sb%d", c->plan.levels ? "/" : "", c->plan.b);
            if (c->fast || c->mfd) /* the fused IFMA (FMA) kernel has its own plan */
                mns_pmns_mp_ifma_fused_describe(c, plan, sizeof plan);
            if (c->fma_h) /* the FMA kernel's one 2-way split, halves of vl H lanes */
                snprintf(plan, sizeof plan, "fused:2/b%d", c->fma_vl * c->fma_h);
            char lanes_s[16] = ""; /* the FMA kernel's vector width */
            if (c->mfd)
                snprintf(lanes_s, sizeof lanes_s, " lanes=%d", c->fma_vl);
            snprintf(buf, sizeof buf,
                     "kernel=%s%s word=%s n=%d s=%d k=%d lambda=%ld delta=%d delta_gen=%d "
                     "rho_bits=%u toeplitz=%s bits=%zu%s",
                     c->kernel, lanes_s, c->u52 ? "u52" : "s64", c->n, c->s, c->k, c->lambda, delta, dgen,
                     mns_pmns_params_rho_bits(P), plan, mpz_sizeinbase(p, 2),
                     c->sqr_by_mul ? " sqr=mul" : "");
            c->kernel_describe = strdup(buf);
            *out = fma && tadds_min == 0 ? fma_retry(c, p, word, n, delta, base_in, kernel, lanes) : c;
            return MNS_OK;
        }
        int nn = c->n, ss = c->s;
        const int miss = c->fma_miss;
        mns_pmns_mp_free(c);
        if (miss) /* another t or delta does not make an instance */
            return st;
        if (st == MNS_ENOTSUP && tadds < 64 * nn) {
            /* the kernel bounds fail: ask for more room in the words
             * ((B3) with a larger t, so a smaller k) */
            tadds = tadds ? 4 * tadds : 4 * nn;
            continue;
        }
        if (st == MNS_ENOTSUP && s == 0 && n == 0 && s_auto < MNS_PMNS_S_MAX) {
            /* the automatic (n, s) leaves no room the kernel can use (e.g.
             * 1024 bits: n=6 s=3 k=60): the next s, from 2, skipping it */
            s_auto = s_auto ? s_auto + 1 : 2;
            if (s_auto == ss)
                s_auto++;
            tadds = tadds0;
            if (s_auto <= MNS_PMNS_S_MAX)
                continue;
        }
        if (st != MNS_ERANGE)
            return st;
        /* S64 starts from the delta = 0 set, which tight_bounds often
         * proves for delta = 1; else the set generated for delta itself
         * (the generator's closure with (delta+1)(rho-1)), then larger */
        dgen = word == MNS_PMNS_WORD_S64 && dgen < delta ? delta : dgen + 1;
        choose = ifma_choice;
    }
    return mns_error(MNS_ENOTSUP, "pmns-mp: no parameter set leaves room for delta=%d", delta);
}

/* ---- mns_field backends ------------------------------------------------------- */

static void f_mul(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_pmns_mp_ctx *c = ctx;
    c->mul(c, r, a, b);
}
static void f_sqr(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_pmns_mp_ctx *c = ctx;
    c->sqr(c, r, a);
}
static void f_add(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_pmns_mp_add(ctx, r, a, b);
}
static void f_sub(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_pmns_mp_sub(ctx, r, a, b);
}
static void f_reduce(const void *ctx, uint64_t *r, const uint64_t *a)
{
    mns_pmns_mp_reduce(ctx, r, a);
}
static void f_one(const void *ctx, uint64_t *r)
{
    const mns_pmns_mp_ctx *c = ctx;
    memcpy(r, c->one, c->limbs * sizeof *r);
}
static mns_status f_set(const void *ctx, uint64_t *r, const mpz_t a)
{
    return mns_pmns_mp_set_mpz_var(ctx, r, a);
}
static void f_get(const void *ctx, mpz_t r, const uint64_t *a) { mns_pmns_mp_get_mpz_var(ctx, r, a); }
static void f_destroy(void *ctx) { mns_pmns_mp_free(ctx); }
static void f_mul_x2(const void *c0, const void *c1, uint64_t *r0, const uint64_t *a0,
                     const uint64_t *b0, uint64_t *r1, const uint64_t *a1, const uint64_t *b1)
{
    mns_pmns_mp_mul_x2_any(c0, c1, r0, a0, b0, r1, a1, b1);
}
static void f_sqr_x2(const void *c0, const void *c1, uint64_t *r0, const uint64_t *a0,
                     uint64_t *r1, const uint64_t *a1)
{
    mns_pmns_mp_sqr_x2_any(c0, c1, r0, a0, r1, a1);
}

static const mns_field_ops mp_ops = {
    .mul = f_mul,
    .sqr = f_sqr,
    .add = f_add,
    .sub = f_sub,
    .reduce = f_reduce,
    .one = f_one,
    .set_mpz = f_set,
    .get_mpz = f_get,
    .powm = NULL, /* the shared constant-time fixed-window exponentiation */
    .set_words = mns_pmns_mp_set_words,
    .get_words = mns_pmns_mp_get_words,
    .mul_x2 = f_mul_x2, /* fused for pmns-mp-ifma (pmns_mp/ifma_x2.c), else two calls */
    .sqr_x2 = f_sqr_x2,
    .destroy = f_destroy,
};

/* pmns-mp's kernels (core/kernel.h): the FMA kernel (AVX2 + FMA, u52 sets)
 * where create_common's rule picks it, else the portable one. */
static const mns_kernel_desc mp_kernels[] = {
    {"fma", MNS_CPU_AVX2 | MNS_CPU_FMA, 0, 0, MNS_KERNEL_NEVER, 1, 0},
    {"generic", 0, 0, 0, 0, 0, 2, MNS_KERNEL_TWIN},
};

static mns_status create_common(mns_backend_inst *out, const mpz_t p, const mns_opts *opts,
                                const char *name, int ifma)
{
    static const char *const allowed_mp[] = {"s",    "n",      "delta", "base",
                                              "word", "kernel", "lanes", NULL};
    static const char *const allowed_ifma[] = {"s", "n", "delta", "base", "carry", "kernel", NULL};
    const int ifma_backend = ifma;
    mns_status st = mns_opts_check(opts, name, ifma ? allowed_ifma : allowed_mp);
    if (st != MNS_OK)
        return st;
    /* delta = 1 by default, as every other backend: mul(add(a, b), c) is
     * right without looking at mns_field_delta. It costs no n or s with the
     * u52 Z of make_z (pmns-mp-ifma: same (n, s, kernel) as delta = 0 at
     * 1024-8192 bits; docs/pmns-mp.md "delta default") */
    long s = 0, n = 0, delta = 1, base = 0, lanes = 0, carry = 1;
    if ((st = mns_opts_get_long(opts, name, "carry", 0, 1, &carry)) != MNS_OK ||
        (st = mns_opts_get_long(opts, name, "s", 2, MNS_PMNS_S_MAX, &s)) != MNS_OK ||
        (st = mns_opts_get_long(opts, name, "n", 2, MNS_PMNS_N_MAX, &n)) != MNS_OK ||
        (st = mns_opts_get_long(opts, name, "delta", 0, 255, &delta)) != MNS_OK ||
        (st = mns_opts_get_long(opts, name, "base", 1, MNS_PMNS_N_MAX, &base)) != MNS_OK ||
        (st = mns_opts_get_long(opts, name, "lanes", 4, 8, &lanes)) != MNS_OK)
        return st;
    if (lanes != 0 && lanes != 4 && lanes != 8)
        return mns_error(MNS_EINVAL, "%s: lanes is 4 or 8, not %ld", name, lanes);
    mns_pmns_word word = ifma ? MNS_PMNS_WORD_U52 : MNS_PMNS_WORD_S64;
    const char *w = mns_opts_get(opts, "word");
    if (w) {
        if (strcmp(w, "u52") == 0)
            word = MNS_PMNS_WORD_U52;
        else if (strcmp(w, "s64") != 0)
            return mns_error(MNS_EINVAL, "%s: word is s64 or u52, not \"%s\"", name, w);
    }
    const char *kv = mns_opts_get(opts, "kernel");
    if (ifma) {
        /* pmns-mp-ifma: the IFMA kernels, or kernel=generic, their portable
         * twin on the same u52 sets */
        const int k = mns_kernel_choose_ifma(name, 1, kv, &st);
        if (k < 0)
            return st;
        ifma = k;
        kv = NULL;
    } else if (kv && mns_kernel_choose(name, mp_kernels, sizeof mp_kernels / sizeof mp_kernels[0],
                                       kv, 0, ~0ul, mns_cpu_features(), &st) < 0)
        return st;
    /* pmns-mp's kernel: kernel=generic (portable C, the s64 word unless
     * word=u52) or kernel=fma (AVX2 + FMA, u52). Without kernel=, word= and
     * base=, the FMA kernel where the CPU has it, up to MP_FMA_BITS_MAX
     * (s = 2..4), else the portable one (docs/pmns-mp.md, "FMA kernel": on
     * Zen 3, in one process, faster than the portable kernel at 1024-8192
     * bits; at 6144 and 8192 since its Toeplitz split) */
    mns_pmns_mp_kernel kern = ifma ? MNS_PMNS_MP_KERNEL_IFMA : MNS_PMNS_MP_KERNEL_GENERIC;
    int try_fma = 0;
    if (kv && strcmp(kv, "fma") == 0) {
        if (w && word != MNS_PMNS_WORD_U52)
            return mns_error(MNS_EINVAL, "%s: kernel=fma runs u52 sets, not word=%s", name, w);
        kern = MNS_PMNS_MP_KERNEL_FMA;
        word = MNS_PMNS_WORD_U52;
    } else if (!kv && !ifma_backend)
        try_fma = !w && !base && (s == 0 || s <= 4) && mpz_sizeinbase(p, 2) <= MP_FMA_BITS_MAX &&
                  mns_cpu_has_fma();
    mns_pmns_mp_ctx *c = NULL;
    st = MNS_ENOTSUP;
    if (lanes && kern != MNS_PMNS_MP_KERNEL_FMA && !try_fma)
        return mns_error(MNS_EINVAL, "%s: lanes= is an option of kernel=fma", name);
    const char *no8 = lanes == 8 ? mns_pmns_mp_fma8_missing() : NULL;
    if (no8)
        return mns_error(MNS_ENOTSUP, "%s: lanes=8: %s", name, no8);
    if (try_fma)
        st = new_impl(&c, p, MNS_PMNS_WORD_U52, (int)s, (int)n, (int)delta, 0,
                      MNS_PMNS_MP_KERNEL_FMA, 0, (int)lanes, 0);
    if (st != MNS_OK && !(try_fma && lanes))
        st = new_impl(&c, p, word, (int)s, (int)n, (int)delta, (int)base, kern, 0, (int)lanes,
                      (int)carry);
    if (st != MNS_OK)
        return st;
    out->ctx = c;
    out->ops = &mp_ops;
    out->limbs = c->limbs;
    out->delta = (int)delta;
    snprintf(out->describe, sizeof out->describe, "%s %s", name, c->kernel_describe);
    return MNS_OK;
}

static mns_status create_mp(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    return create_common(out, p, opts, "pmns-mp", 0);
}

static mns_status create_mp_ifma(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    return create_common(out, p, opts, "pmns-mp-ifma", 1);
}

const mns_backend mns_backend_pmns_mp = {"pmns-mp", create_mp};
const mns_backend mns_backend_pmns_mp_ifma = {"pmns-mp-ifma", create_mp_ifma};
