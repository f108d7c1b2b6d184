/* The zero polynomial Z that u52 subtraction adds (src/pmns/ctx.c):
 * sub(a, b) = a + Z - b keeps every coefficient >= 0 if z_i >= rho - 1, and
 * Z(gamma) = 0 (mod p) keeps the value. The loose bound a mul must accept
 * grows with max z_i (a - b reaches rho - 1 + zmax), so Z should sit just
 * above rho - 1 in every coefficient.
 *
 * Z is sought in the lattice spanned by the rows R_i = X^i M mod E (each
 * vanishes at gamma; u52 sets have every entry >= 0):
 *   1. Babai rounding: the real c with sum_i c_i R_i = tau (1, ..., 1)
 *      (Gaussian elimination in long double), rounded to integers; the
 *      rounding error of a coefficient is at most half its column sum;
 *   2. a local search on the integer c_i (+-1 steps) that first lifts the
 *      smallest coefficient to rho - 1, then lowers the largest;
 *   3. a few targets tau just above rho - 1, the best kept.
 * Every candidate is checked exactly (128-bit integers); the floating point
 * only steers the search. On the bench primes' sets of 256-2048 bits this
 * gives zmax = (1.025-1.15)(rho - 1) where the plain multiple of the row sum
 * (kept as the fallback) gave 2-4.5 (rho - 1): a difference of two tight
 * elements stays near 2 (rho - 1), the bound of a delta-1 set.
 * Variable time (public data only). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "pmns/pmns.h"

typedef __int128 i128;

/* Babai is used up to this n: n^2 long doubles, n^3 / 3 operations for the
 * solve and 16 searches of O(n^2) per sweep. Measured, the whole context
 * creation of a u52 set: 4.4 ms of CPU at n = 53, 30 ms at n = 106, 80 ms
 * at n = 155 (params/, loaded machine); larger sets keep the row-sum Z. */
#define ZSUB_BABAI_N_MAX 512

/* R[i n + j] = coefficient j of X^i M mod E. */
static void build_rows(const mns_pmns_ctx *c, i128 *R)
{
    const int n = c->n;
    for (int j = 0; j < n; j++)
        R[j] = c->m[j];
    for (int i = 1; i < n; i++) {
        const i128 *prev = R + (size_t)(i - 1) * n;
        i128 *row = R + (size_t)i * n;
        const i128 top = prev[n - 1];
        for (int j = n - 1; j > 0; j--)
            row[j] = prev[j - 1];
        if (c->eshape == MNS_PMNS_E_BINOMIAL) {
            row[0] = top * c->lambda;
        } else {
            row[0] = top;
            row[1] += top;
        }
    }
}

/* The plain construction: Z = k * (sum of the rows), k the smallest making
 * every z_i >= rho - 1. 0 if impossible (a column sum <= 0 or z_i >= 2^52). */
static int zsub_rowsum(const mns_pmns_ctx *c, const i128 *R, i128 *z)
{
    const int n = c->n;
    i128 mn = 0;
    for (int j = 0; j < n; j++) {
        i128 s = 0;
        for (int i = 0; i < n; i++)
            s += R[(size_t)i * n + j];
        z[j] = s;
        if (j == 0 || s < mn)
            mn = s;
    }
    if (mn <= 0)
        return 0;
    const i128 k = ((i128)c->rho_m1 + mn - 1) / mn;
    for (int j = 0; j < n; j++) {
        z[j] *= k;
        if (z[j] >> 52)
            return 0;
    }
    return 1;
}

/* x <- the solution of sum_i x_i R_i = (1, ..., 1): R^T x = 1 by Gaussian
 * elimination with partial pivoting. 0 if singular (within long double). */
static int solve_ones(const i128 *R, int n, long double *A, long double *x)
{
    const size_t w = (size_t)n + 1;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < n; i++)
            A[(size_t)j * w + i] = (long double)R[(size_t)i * n + j];
        A[(size_t)j * w + n] = 1;
    }
    for (int k = 0; k < n; k++) {
        int piv = k;
        for (int r = k + 1; r < n; r++)
            if (fabsl(A[(size_t)r * w + k]) > fabsl(A[(size_t)piv * w + k]))
                piv = r;
        if (A[(size_t)piv * w + k] == 0)
            return 0;
        if (piv != k)
            for (size_t q = 0; q < w; q++) {
                long double t = A[(size_t)k * w + q];
                A[(size_t)k * w + q] = A[(size_t)piv * w + q];
                A[(size_t)piv * w + q] = t;
            }
        for (int r = k + 1; r < n; r++) {
            long double f = A[(size_t)r * w + k] / A[(size_t)k * w + k];
            if (f != 0)
                for (size_t q = (size_t)k; q < w; q++)
                    A[(size_t)r * w + q] -= f * A[(size_t)k * w + q];
        }
    }
    for (int k = n - 1; k >= 0; k--) {
        long double s = A[(size_t)k * w + n];
        for (int q = k + 1; q < n; q++)
            s -= A[(size_t)k * w + q] * x[q];
        x[k] = s / A[(size_t)k * w + k];
    }
    return 1;
}

static void min_max(const i128 *z, const i128 *row, int dd, int n, i128 *mn, i128 *mx)
{
    i128 lo = z[0] + dd * (row ? row[0] : 0), hi = lo;
    for (int j = 1; j < n; j++) {
        i128 v = z[j] + dd * (row ? row[j] : 0);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    *mn = lo;
    *mx = hi;
}

/* z <- sum_i round(tau x_i) R_i, then the +-1 local search. */
static void babai_search(const mns_pmns_ctx *c, const i128 *R, const long double *x, long double tau,
                         i128 *z, i128 *mn_out, i128 *mx_out)
{
    const int n = c->n;
    const i128 r1 = (i128)c->rho_m1;
    memset(z, 0, sizeof(i128) * (size_t)n);
    for (int i = 0; i < n; i++) {
        /* an ill-conditioned solve gives huge c: give the candidate up
         * (and keep the sums far from 128-bit overflow) */
        if (!(fabsl(tau * x[i]) < 0x1p40L)) {
            *mn_out = -1;
            *mx_out = 0;
            return;
        }
        const i128 ci = (i128)llrintl(tau * x[i]);
        for (int j = 0; j < n; j++)
            z[j] += ci * R[(size_t)i * n + j];
    }
    i128 mn, mx;
    min_max(z, NULL, 0, n, &mn, &mx);
    /* each accepted step strictly raises mn (while below r1) or strictly
     * lowers mx (keeping mn >= r1): finitely many; the cap bounds the time */
    for (int sweep = 0, improved = 1; improved && sweep < 64; sweep++) {
        improved = 0;
        for (int i = 0; i < n; i++)
            for (int dd = -1; dd <= 1; dd += 2) {
                const i128 *row = R + (size_t)i * n;
                i128 mn2, mx2;
                min_max(z, row, dd, n, &mn2, &mx2);
                if (mn < r1 ? mn2 > mn : (mn2 >= r1 && mx2 < mx)) {
                    for (int j = 0; j < n; j++)
                        z[j] += dd * row[j];
                    mn = mn2;
                    mx = mx2;
                    improved = 1;
                }
            }
    }
    *mn_out = mn;
    *mx_out = mx;
}

mns_status mns_pmns_make_zsub(mns_pmns_ctx *c)
{
    const int n = c->n;
    const i128 r1 = (i128)c->rho_m1, top = (i128)1 << 52;
    i128 *R = malloc(sizeof(i128) * (size_t)n * (size_t)n);
    i128 *z = malloc(sizeof(i128) * (size_t)n), *best = malloc(sizeof(i128) * (size_t)n);
    if (!R || !z || !best) {
        free(R);
        free(z);
        free(best);
        return mns_error(MNS_ENOMEM, "pmns: out of memory");
    }
    build_rows(c, R);
    i128 best_max = top;
    if (zsub_rowsum(c, R, best)) {
        i128 mn;
        min_max(best, NULL, 0, n, &mn, &best_max);
    }
    if (n <= ZSUB_BABAI_N_MAX) {
        long double *A = malloc(sizeof(long double) * (size_t)n * (size_t)(n + 1));
        long double *x = malloc(sizeof(long double) * (size_t)n);
        if (A && x && solve_ones(R, n, A, x)) {
            /* column sum bound of the rounding error: the targets step
             * through a small part of it above rho - 1 (the search lifts
             * the minimum anyway; larger offsets only raised the maximum) */
            const long double step = (long double)mpz_get_d(mns_pmns_params_norm1(c->P)) / 128;
            for (int s = 0; s < 16; s++) {
                i128 mn, mx;
                babai_search(c, R, x, (long double)c->rho_m1 + s * step, z, &mn, &mx);
                if (mn >= r1 && mx < best_max) {
                    best_max = mx;
                    memcpy(best, z, sizeof(i128) * (size_t)n);
                }
            }
        }
        free(A);
        free(x);
    }
    mns_status st = MNS_OK;
    if (best_max >= top) {
        st = mns_error(MNS_ENOTSUP, "pmns: u52 set without a zero polynomial for sub below 2^52");
    } else {
        c->zmax = (uint64_t)best_max;
        for (int j = 0; j < n; j++)
            c->zsub[j] = (uint64_t)best[j];
    }
    free(R);
    free(z);
    free(best);
    return st;
}
