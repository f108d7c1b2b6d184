/* The multi-precision PMNS: the bounds every kernel relies on, checked when
 * a context is made (the generator's closure, the tight bound of s64
 * elements, the zero polynomial of sub, the IFMA kernels' plan bounds). */
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
#include "pmns_mp/create.h"

/* w La Lb + Qmax N < phi rho: the Montgomery closure of the generator
 * (mns_pmns.h), for the operand bounds this backend actually produces. */
int mns_pmns_mp_closure_ok(const mns_pmns_params *P, const mpz_t La, const mpz_t Lb)
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
int mns_pmns_mp_closure_one_ok(const mns_pmns_mp_ctx *c, const mpz_t La)
{
    const int n = c->n;
    mpz_t W, row, v, l, r, q;
    mpz_inits(W, row, v, l, r, q, NULL);
    for (int rr = 0; rr < n; rr++) {
        mpz_set_ui(row, 0);
        for (int d = 0; d < n; d++) {
            mns_pmns_mp_coef_value(v, c, c->one, d);
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

double mns_pmns_mp_log2_mpz(const mpz_t x)
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
int mns_pmns_mp_tight_bounds(mns_pmns_mp_ctx *c)
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
        mns_pmns_mp_coef_value(o[i], c, c->one, i);
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
mns_status mns_pmns_mp_make_z(mns_pmns_mp_ctx *c, mpz_t zmax)
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
        st = mns_pmns_mp_represent(c, cb, x);
        /* z_i = K - cb_i: valid if every z_i >= Lo; its cost: max z_i */
        int ok = st == MNS_OK;
        mpz_set_ui(t, 0);
        for (int i = 0; ok && i < n; i++) {
            mns_pmns_mp_coef_value(v, c, cb, i);
            mpz_sub(v, K, v);
            ok = mpz_cmp(v, Lo) >= 0;
            if (mpz_cmp(v, t) > 0)
                mpz_set(t, v);
        }
        if (ok && (mpz_sgn(best) == 0 || mpz_cmp(t, best) < 0)) {
            mpz_set(best, t);
            for (int i = 0; i < n; i++) {
                mns_pmns_mp_coef_value(v, c, cb, i);
                mpz_sub(v, K, v);
                mns_pmns_mp_split_digits(zb + i, (size_t)n, v, s, k);
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
int mns_pmns_mp_plan_ok(mns_pmns_mp_ctx *c, double lg_d, double lg_md, int ifma, int *mo_a, int *mo_m)
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
