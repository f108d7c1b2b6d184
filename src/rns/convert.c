/* Conversions between integers and RNS residues (forward: one remainder per
 * channel; backward: CRT with Kawamura's k, or mixed radix), the two base
 * extensions on their own, and the arithmetic entry points of mns_rns.h. */
#include <stdlib.h>
#include <string.h>

#include "rns/rns.h"
#include "rns/word.h"

void mns_rns_from_mpz(const mns_rns *r, uint64_t *x, const mpz_t a)
{
    /* fdiv: the remainder has the sign of the divisor, so negative a works */
    for (size_t i = 0; i < 2 * r->n; i++)
        x[i] = mpz_fdiv_ui(a, r->m[i]);
}

/* Kawamura's k for the xi of a base: floor(sum xi / 2^e + 1/2). It equals
 * floor(sum xi / m) = the CRT's k when X < M/2, since the error of taking 2^e
 * for each m is below n c_max / 2^e <= 1/2 (condition B3). */
static uint64_t kawamura_k(const uint64_t *xi, size_t n, unsigned e)
{
    mns_u128 sum = (mns_u128)1 << (e - 1);
    for (size_t j = 0; j < n; j++)
        sum += xi[j];
    return (uint64_t)(sum >> e);
}

/* xi_j = x_j (B_j)^-1 mod m_j for base `base`, B_j = B / m_j. */
static void crt_xi(const mns_rns *r, uint64_t *xi, const uint64_t *x, int base)
{
    const size_t n = r->n, off = base ? n : 0;
    const uint64_t *inv = base ? r->mpinv : r->minv;
    for (size_t j = 0; j < n; j++)
        xi[j] = mns_rns_mulmod(x[j], inv[j], r->c[off + j], r->m[off + j], r->e);
}

void mns_rns_to_mpz_crt(const mns_rns *r, mpz_t out, const uint64_t *x, int base)
{
    const size_t n = r->n, off = base ? n : 0;
    const mpz_t *B = base ? &r->Mp : &r->M;
    uint64_t xi[MNS_RNS_NMAX]; /* n <= MNS_RNS_NMAX: no allocation to fail */
    crt_xi(r, xi, x, base);
    mpz_t Bj;
    mpz_init(Bj);
    mpz_set_ui(out, 0);
    for (size_t j = 0; j < n; j++) {
        mpz_divexact_ui(Bj, *B, r->m[off + j]);
        mpz_addmul_ui(out, Bj, xi[j]);
    }
    mpz_submul_ui(out, *B, kawamura_k(xi, n, r->e));
    mpz_clear(Bj);
}

void mns_rns_to_mpz_mrs(const mns_rns *r, mpz_t out, const uint64_t *x, int base)
{
    const size_t n = r->n, off = base ? n : 0;
    const uint64_t *m = r->m + off, *c = r->c + off;
    uint64_t v[MNS_RNS_NMAX]; /* n <= MNS_RNS_NMAX: no allocation to fail */
    /* mixed-radix digits: X = v_0 + v_1 m_0 + v_2 m_0 m_1 + ..., each v_i
     * found by peeling the lower digits off x_i (Szabo-Tanaka) */
    for (size_t i = 0; i < n; i++) {
        uint64_t t = x[i];
        for (size_t k = 0; k < i; k++) {
            t = mns_rns_submod(t, mns_rns_csub(v[k], m[i]), m[i]); /* v_k < 2^e < 2 m_i */
            t = mns_rns_mulmod(t, mns_rns_invmod_var(m[k] % m[i], m[i]), c[i], m[i], r->e);
        }
        v[i] = t;
    }
    mpz_set_ui(out, 0);
    for (size_t i = n; i-- > 0;) {
        mpz_mul_ui(out, out, m[i]);
        mpz_add_ui(out, out, v[i]);
    }
}

void mns_rns_mont_set(const mns_rns *r, uint64_t *x, const mpz_t a)
{
    mpz_t t;
    mpz_init(t);
    mpz_mul(t, a, r->Mp);
    mpz_mod(t, t, r->p);
    mns_rns_from_mpz(r, x, t);
    mpz_clear(t);
}

void mns_rns_mont_get(const mns_rns *r, mpz_t out, const uint64_t *x)
{
    /* loose values are below L p <= M / 2 (condition B2): the CRT is exact */
    mns_rns_to_mpz_crt(r, out, x, 0);
    mpz_mul(out, out, r->mpinv_p);
    mpz_mod(out, out, r->p);
}

void mns_rns_bext_approx(const mns_rns *r, uint64_t *out, const uint64_t *t)
{
    /* t^ = sum_i xi'_i M'_i, xi'_i = t'_i (M'_i)^-1 mod m'_i, without k:
     * t^ = t + alpha M' with alpha = floor(sum_i xi'_i / m'_i) < n */
    const size_t n = r->n;
    const unsigned e = r->e;
    uint64_t xi[MNS_RNS_NMAX];
    for (size_t i = 0; i < n; i++)
        xi[i] = mns_rns_mulmod(t[i], r->mpinv[i], r->c[n + i], r->m[n + i], e);
    for (size_t j = 0; j < n; j++) {
        /* M'_i mod m_j = (M' mod m_j) (m'_i)^-1, rebuilt from public values:
         * the fused kernels never need it */
        uint64_t Mpj = mpz_fdiv_ui(r->Mp, r->m[j]);
        mns_u128 s = 0;
        uint64_t top = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t Mpi = mns_rns_mulmod(Mpj, mns_rns_invmod_var(r->m[n + i] % r->m[j], r->m[j]), r->c[j],
                                          r->m[j], e);
            mns_u128 pr = (mns_u128)xi[i] * Mpi;
            s += pr;
            top += s < pr;
        }
        out[j] = mns_rns_red_acc(s, top, r->c[j], r->m[j], e);
    }
}

void mns_rns_bext_exact(const mns_rns *r, uint64_t *out, const uint64_t *x)
{
    const size_t n = r->n;
    const unsigned e = r->e;
    uint64_t xi[MNS_RNS_NMAX];
    crt_xi(r, xi, x, 0);
    uint64_t k = kawamura_k(xi, n, e);
    for (size_t i = 0; i < n; i++) {
        mns_u128 s = (mns_u128)k * r->negM[i];
        uint64_t top = 0;
        for (size_t j = 0; j < n; j++) {
            mns_u128 pr = (mns_u128)xi[j] * r->a2[mns_rns_mat_index(r, j, i)];
            s += pr;
            top += s < pr;
        }
        out[i] = mns_rns_red_acc(s, top, r->c[n + i], r->m[n + i], e);
    }
}

void mns_rns_mul(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    c->mul(c, r, a, b);
}

void mns_rns_add(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    c->add(c, r, a, b);
}

void mns_rns_sub(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    c->sub(c, r, a, b);
}

void mns_rns_reduce(const mns_rns *c, uint64_t *r, const uint64_t *a)
{
    /* a (M' mod p) M'^-1 = a mod p, and M' mod p < p is tight */
    c->mul(c, r, a, c->one);
}

void mns_rns_one(const mns_rns *c, uint64_t *r) { memcpy(r, c->one, 2 * c->n * sizeof(uint64_t)); }
