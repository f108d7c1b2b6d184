/* Sum of residues (src/rns/sor*.c, docs/sor.md) against GMP.
 *
 * 1. The table of the paper's Table 2, recomputed for the moduli sets in use
 *    (k = 63 portable, k = 52 IFMA) and printed (docs/sor.md keeps it): every
 *    prime of Table 2 and Curve448's p is served, mns_sor_check passes, and
 *    the condition (K) is recomputed here independently;
 * 2. Algorithm 2's corrections on their own: alpha exact, and
 *    kappa - 1 <= kappa^ <= kappa, on random and extreme gamma; the paper's
 *    eq. (23) shown one short on 1 * 1 (why the output bound is 2p);
 * 3. chains of 10^4 multiplications and squarings on every Table 2 prime and
 *    random pseudo-Mersenne primes of 127-521 bits, each product compared
 *    with GMP and its value checked below 2p (the tandem property), random
 *    and structured operands, both kernels bit for bit on the same moduli;
 * 4. the mns_field conformance harness (mt_field_check) with powm;
 * 5. refusals: random primes, pseudo-Mersenne primes whose eps is just too
 *    large, options out of range: MNS_ENOTSUP / MNS_EINVAL, never a field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "rns/rns.h"
#include "rns/sor.h"
#include "testutil.h"

static const struct {
    const char *name, *hex_or_expr;
} curves[] = {
    {"ED25519", "2^255-19"},
    {"SECP160K1", "2^160-2^32-21389"},
    {"SECP160R1", "2^160-2^31-1"},
    {"SECP192K1", "2^192-2^32-4553"},
    {"SECP192R1", "2^192-2^64-1"},
    {"SECP224K1", "2^224-2^32-6803"},
    {"SECP224R1", "2^224-2^96+1"},
    {"SECP256K1", "2^256-2^32-977"},
    {"SECP384R1", "2^384-2^128-2^96+2^32-1"},
    {"SECP521R1", "2^521-1"},
    {"Curve448", "2^448-2^224-1"},
};

/* "2^a-2^b-c+2^d..." : a sum of signed powers of two and integers */
static void parse_expr(mpz_t p, const char *s)
{
    mpz_set_ui(p, 0);
    mpz_t t;
    mpz_init(t);
    int sign = 1;
    while (*s) {
        if (*s == '+' || *s == '-') {
            sign = *s == '-' ? -1 : 1;
            s++;
        }
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (*end == '^') {
            unsigned long e = strtoul(end + 1, &end, 10);
            mpz_ui_pow_ui(t, v, e);
        } else {
            mpz_set_ui(t, v);
        }
        if (sign > 0)
            mpz_add(p, p, t);
        else
            mpz_sub(p, p, t);
        s = end;
    }
    mpz_clear(t);
}

static int have_ifma(void) { return mns_rns_ifma_compiled() && mns_cpu_has_ifma(); }

/* (K) recomputed: G (eps 2^96 + 2^W) <= 2^(W + 96) */
static int kappa_cond(const mns_sor *s)
{
    mpz_t G, t, u;
    mpz_inits(G, t, u, NULL);
    mpz_set_ui(G, s->N - 1);
    for (size_t i = 0; i < s->N; i++)
        mpz_add_ui(G, G, s->m[i] - 1);
    mpz_mul_2exp(t, s->eps, 96);
    mpz_ui_pow_ui(u, 2, s->W);
    mpz_add(t, t, u);
    mpz_mul(t, t, G);
    mpz_ui_pow_ui(u, 2, s->W + 96);
    int ok = mpz_cmp(t, u) <= 0;
    mpz_clears(G, t, u, NULL);
    return ok;
}

/* 1. the table */
static void table(void)
{
    printf("| curve | W | eps (bits) | k | N | log2 M | delta | bound of (22) on eps (bits) | served |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    mpz_t p, M;
    mpz_inits(p, M, NULL);
    for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++) {
        parse_expr(p, curves[i].hex_or_expr);
        MT_CHECK(mpz_probab_prime_p(p, 30), "%s is not prime", curves[i].name);
        for (int ifma = 0; ifma < 2; ifma++) {
            mns_sor_params prm = {.ifma = ifma, .kernel = 0, .N = 0, .delta_min = 1};
            mns_sor *s = NULL;
            mns_status st = mns_sor_new(&s, p, &prm);
            MT_CHECK(st == MNS_OK, "%s k=%d: %s", curves[i].name, ifma ? 52 : 63,
                     mns_last_error());
            if (st != MNS_OK)
                continue;
            MT_CHECK(mns_sor_check(s) == MNS_OK, "%s: check: %s", curves[i].name,
                     mns_last_error());
            MT_CHECK(kappa_cond(s), "%s: (K) recomputed fails", curves[i].name);
            /* log2 M > 2W (the paper's dynamic range) */
            MT_CHECK(mpz_sizeinbase(s->M, 2) > 2 * s->W + 2, "%s: M too small", curves[i].name);
            /* the bound on eps: largest e with (K): (2^(W+96)/G - 2^W) / 2^96 */
            mpz_t G;
            mpz_init_set_ui(G, s->N - 1);
            for (size_t j = 0; j < s->N; j++)
                mpz_add_ui(G, G, s->m[j] - 1);
            mpz_ui_pow_ui(M, 2, s->W + 96);
            mpz_fdiv_q(M, M, G);
            mpz_fdiv_q_2exp(M, M, 96);
            printf("| %s | %u | %zu | %u | %zu | %zu | %d | %zu | yes |\n", curves[i].name,
                   s->W, mpz_sizeinbase(s->eps, 2), s->k, s->N, mpz_sizeinbase(s->M, 2) - 1,
                   s->delta, mpz_sizeinbase(M, 2) - 1);
            mpz_clear(G);
            mns_sor_free(s);
        }
    }
    mpz_clears(p, M, NULL);
}

/* 2. alpha and kappa^ against their exact values, for given gamma */
static void check_corrections(const mns_sor *s, const uint64_t *gamma, const char *what)
{
    mpz_t Z, S, t, Mi, kap;
    mpz_inits(Z, S, t, Mi, kap, NULL);
    mpz_set_ui(Z, 0);
    for (size_t i = 0; i < s->N; i++) {
        mpz_divexact_ui(Mi, s->M, s->m[i]);
        mpz_addmul_ui(Z, Mi, gamma[i]);
    }
    mpz_fdiv_q(t, Z, s->M); /* alpha, exact */
    uint64_t alpha, k0, k1;
    mns_sor_alpha_kappa(s, gamma, &alpha, &k0, &k1);
    mpz_mod(Z, Z, s->M);
    /* alpha^ is exact when Z < (1 - o / 2^k) M */
    mpz_mul_ui(Mi, s->M, ((uint64_t)1 << s->k) - s->o);
    mpz_fdiv_q_2exp(Mi, Mi, s->k);
    if (mpz_cmp(Z, Mi) < 0)
        MT_CHECK(mpz_cmp_ui(t, alpha) == 0, "%s: alpha^ = %llu, alpha = %lu", what,
                 (unsigned long long)alpha, mpz_get_ui(t));
    /* S = sum gamma_i <M_i>_p + alpha^ <-M>_p; kappa = floor(S / p) */
    mpz_set_ui(S, 0);
    for (size_t i = 0; i < s->N; i++) {
        mpz_divexact_ui(Mi, s->M, s->m[i]);
        mpz_mod(Mi, Mi, s->p);
        mpz_addmul_ui(S, Mi, gamma[i]);
    }
    mpz_neg(Mi, s->M);
    mpz_mod(Mi, Mi, s->p);
    mpz_addmul_ui(S, Mi, alpha);
    mpz_fdiv_q(kap, S, s->p);
    mpz_set_ui(t, k1);
    mpz_mul_2exp(t, t, s->k);
    mpz_add_ui(t, t, k0);
    mpz_sub(t, kap, t); /* kappa - kappa^ in {0, 1} */
    MT_CHECK(mpz_cmp_ui(t, 0) >= 0 && mpz_cmp_ui(t, 1) <= 0, "%s: kappa - kappa^ = %ld", what,
             mpz_get_si(t));
    mpz_clears(Z, S, t, Mi, kap, NULL);
}

static void corrections(const mns_sor *s)
{
    uint64_t g[MNS_SOR_NMAX];
    for (int r = 0; r < 200; r++) {
        for (size_t i = 0; i < s->N; i++) {
            switch (r % 4) {
            case 0: g[i] = mt_u64() % s->m[i]; break;
            case 1: g[i] = s->m[i] - 1 - mt_below(3); break; /* gamma at the top */
            case 2: g[i] = mt_below(2) ? 0 : s->m[i] - 1; break;
            default: g[i] = mt_below(4); break;
            }
        }
        check_corrections(s, g, "random gamma");
    }
}

/* the paper's eq. (23), kappa = floor(S / 2^W), on 1 * 1: S = sum gamma_i
 * <M_i>_p with gamma_i = <M_i^-1>_{m_i}, S = 1 (mod p) */
static void paper_kappa_short(const mns_sor *s, const char *name)
{
    mpz_t S, Mi, t;
    mpz_inits(S, Mi, t, NULL);
    for (size_t i = 0; i < s->N; i++) {
        mpz_divexact_ui(Mi, s->M, s->m[i]);
        mpz_mod(Mi, Mi, s->p);
        mpz_addmul_ui(S, Mi, s->minv[i]);
    }
    /* alpha = floor(sum gamma_i / m_i): here Z = 1, so alpha = (sum gamma_i M_i - 1) / M */
    mpz_set_ui(t, 0);
    for (size_t i = 0; i < s->N; i++) {
        mpz_divexact_ui(Mi, s->M, s->m[i]);
        mpz_addmul_ui(t, Mi, s->minv[i]);
    }
    mpz_sub_ui(t, t, 1);
    mpz_divexact(t, t, s->M);
    mpz_neg(Mi, s->M);
    mpz_mod(Mi, Mi, s->p);
    mpz_addmul(S, Mi, t);
    mpz_mod(t, S, s->p);
    MT_CHECK(mpz_cmp_ui(t, 1) == 0, "%s: S is not 1 mod p", name);
    mpz_fdiv_q(t, S, s->p);
    mpz_fdiv_q_2exp(Mi, S, s->W);
    MT_CHECK(mpz_cmp(Mi, t) < 0, "%s: expected eq. (23) to be one short on 1 * 1", name);
    gmp_printf("%s: 1 * 1: kappa = floor(S/p) = %Zd, eq. (23) floor(S/2^W) = %Zd\n", name, t,
               Mi);
    mpz_clears(S, Mi, t, NULL);
}

/* 3. a chain of multiplications through the kernels of one context (and
 * optionally a second context on the same moduli with the other kernel),
 * each product compared with GMP and kept below 2p */
static void chain(const mns_sor *s, const mns_sor *twin, unsigned len, const char *name)
{
    const size_t L = s->npad;
    uint64_t *x = calloc(L, 8), *y = calloc(L, 8), *z = calloc(L, 8), *z2 = calloc(L, 8);
    mpz_t a, b, v, twop;
    mpz_inits(a, b, v, twop, NULL);
    mpz_mul_2exp(twop, s->p, 1);
    mt_operand(a, s->p, mt_op_pick());
    mt_operand(b, s->p, mt_op_pick());
    mpz_mod(a, a, s->p);
    mpz_mod(b, b, s->p);
    mns_sor_from_mpz(s, x, a);
    mns_sor_from_mpz(s, y, b);
    long bad = 0, mismatch = 0;
    for (unsigned i = 0; i < len; i++) {
        int sq = i % 3 == 2;
        s->mul(s, z, x, sq ? x : y);
        if (twin) {
            twin->mul(twin, z2, x, sq ? x : y);
            mismatch += memcmp(z, z2, L * 8) != 0;
        }
        mpz_mul(a, a, sq ? a : b);
        mpz_mod(a, a, s->p);
        mns_sor_value(s, v, z);
        bad += mpz_cmp(v, twop) >= 0;
        mpz_mod(v, v, s->p);
        bad += mpz_cmp(v, a) != 0;
        memcpy(x, z, L * 8);
        if (i % 1000 == 999) { /* fresh structured operands now and then */
            mt_operand(b, s->p, mt_op_pick());
            mpz_mod(b, b, s->p);
            mns_sor_from_mpz(s, y, b);
        }
    }
    MT_CHECK(bad == 0, "%s: %ld products wrong or >= 2p in a chain of %u", name, bad, len);
    MT_CHECK(mismatch == 0, "%s: kernels differ on %ld products", name, mismatch);
    mpz_clears(a, b, v, twop, NULL);
    free(x);
    free(y);
    free(z);
    free(z2);
}

/* 1 if x y (residues of a, b) is not a b mod p or not below 2p */
static int mul_wrong(const mns_sor *s, const uint64_t *x, const uint64_t *y, const mpz_t a,
                     const mpz_t b)
{
    uint64_t z[MNS_SOR_NMAX + 8];
    mpz_t v, w;
    mpz_inits(v, w, NULL);
    s->mul(s, z, x, y);
    mns_sor_value(s, v, z);
    mpz_mul(w, a, b);
    mpz_mod(w, w, s->p);
    mpz_sub(w, v, w); /* v - (ab mod p) must be 0 or p: v = ab mod p, v < 2p */
    int bad = !(mpz_cmp_ui(w, 0) == 0 || mpz_cmp(w, s->p) == 0);
    mpz_clears(v, w, NULL);
    return bad;
}

/* every pair of structured operands, at the loose bound too */
static void structured(const mns_sor *s, const char *name)
{
    const size_t L = s->npad;
    uint64_t *x = calloc(L, 8), *y = calloc(L, 8);
    mpz_t a, b, twop;
    mpz_inits(a, b, twop, NULL);
    mpz_mul_2exp(twop, s->p, 1);
    long bad = 0;
    for (int ka = 0; ka < MT_OP_KINDS; ka++)
        for (int kb = 0; kb < MT_OP_KINDS; kb++) {
            mt_operand(a, s->p, (mt_op_kind)ka);
            mt_operand(b, s->p, (mt_op_kind)kb);
            mpz_mod(a, a, s->p);
            mpz_mod(b, b, s->p);
            mns_sor_from_mpz(s, x, a);
            mns_sor_from_mpz(s, y, b);
            bad += mul_wrong(s, x, y, a, b);
        }
    /* operands at the loose bound: X = 2 (delta + 1) p - 1 in residues */
    for (int r = 0; r < 20; r++) {
        mpz_mul_ui(a, twop, (unsigned long)s->delta + 1);
        mpz_sub_ui(a, a, 1 + (unsigned long)mt_below(r ? 1000 : 1));
        mpz_set(b, a);
        if (r & 1)
            mpz_urandomm(b, mt_rand, a);
        for (size_t j = 0; j < s->N; j++) {
            x[j] = mpz_fdiv_ui(a, s->m[j]);
            y[j] = mpz_fdiv_ui(b, s->m[j]);
        }
        bad += mul_wrong(s, x, y, a, b);
    }
    MT_CHECK(bad == 0, "%s: %ld structured / bound products wrong", name, bad);
    mpz_clears(a, b, twop, NULL);
    free(x);
    free(y);
}

static void one_prime(const mpz_t p, const char *name, unsigned chain_len, int harness)
{
    for (int ifma = 0; ifma < 2; ifma++) {
        mns_sor_params prm = {.ifma = ifma, .kernel = 0, .N = 0, .delta_min = 1};
        mns_sor *s = NULL, *t = NULL;
        if (mns_sor_new(&s, p, &prm) != MNS_OK) {
            MT_CHECK(0, "%s: refused: %s", name, mns_last_error());
            continue;
        }
        MT_CHECK(mns_sor_check(s) == MNS_OK, "%s: %s", name, mns_last_error());
        if (ifma && have_ifma()) {
            prm.kernel = 1;
            MT_CHECK(mns_sor_new(&t, p, &prm) == MNS_OK, "%s: ifma: %s", name, mns_last_error());
        }
        corrections(s);
        structured(s, name);
        if (t)
            structured(t, name);
        chain(t ? t : s, t ? s : NULL, mt_scaled(chain_len), name);
        mns_sor_free(s);
        mns_sor_free(t);
    }
    if (harness) {
        mt_field_opts o = {.iters = 30, .chain = 200, .powms = 8, .allow_notsup = 0};
        mt_field_check("sor", p, &o);
        mt_field_check("sor-ifma:kernel=generic", p, &o);
        o.allow_notsup = 1;
        mt_field_check("sor-ifma", p, &o);
    }
}

/* a random prime 2^W - eps with eps of eb bits (eb >= 1) */
/* p = 2^W - e, e odd with exactly *eb bits. A small *eb leaves few candidates
 * (2^(*eb - 2)), and for some W none of them is prime (W = 169, eb = 8):
 * after twice that many draws *eb grows by one, so the loop always ends. */
static void pm_prime(mpz_t p, unsigned W, unsigned *eb)
{
    mpz_t e;
    mpz_init(e);
    unsigned long tries = 0;
    do {
        if (*eb < 40 && ++tries > (2ul << (*eb - 2))) {
            (*eb)++;
            tries = 0;
        }
        mpz_urandomb(e, mt_rand, *eb);
        mpz_setbit(e, *eb - 1);
        mpz_setbit(e, 0);
        mpz_ui_pow_ui(p, 2, W);
        mpz_sub(p, p, e);
    } while (!mpz_probab_prime_p(p, 25));
    mpz_clear(e);
}

static void refusals(void)
{
    mpz_t p;
    mpz_init(p);
    mns_field *f = NULL;
    static const unsigned sizes[] = {127, 255, 256, 384, 448, 521};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned W = sizes[i];
        /* a random prime: eps about 2^(W-1) */
        mt_modulus(p, W, MT_MOD_PRIME);
        MT_CHECK(mns_field_new(&f, p, "sor") == MNS_ENOTSUP, "%u-bit random prime served", W);
        MT_CHECK(strstr(mns_last_error(), "eps") != NULL, "unclear message: %s",
                 mns_last_error());
        MT_CHECK(mns_field_new(&f, p, "sor-ifma:kernel=generic") == MNS_ENOTSUP,
                 "%u-bit random prime served (ifma bases)", W);
        /* pseudo-Mersenne looking, eps just above the bound, and just below */
        for (int ifma = 0; ifma < 2; ifma++) {
            unsigned k = ifma ? 52 : 63;
            const char *spec = ifma ? "sor-ifma:kernel=generic" : "sor";
            mns_sor_params prm = {.ifma = ifma, .kernel = 0, .N = 0, .delta_min = 1};
            unsigned eb16 = 16;
            pm_prime(p, W, &eb16);
            mns_sor *s = NULL;
            if (mns_sor_new(&s, p, &prm) != MNS_OK) {
                MT_CHECK(0, "2^%u - small refused: %s", W, mns_last_error());
                continue;
            }
            size_t N = s->N;
            mns_sor_free(s);
            /* (K) needs about eps < 2^(W - k) / N: a few bits above fails,
             * a few bits below passes */
            unsigned lb = 0;
            while ((1u << lb) < N)
                lb++;
            unsigned eb_above = W - k - lb + 2, eb_below = W - k - lb - 2;
            pm_prime(p, W, &eb_above);
            MT_CHECK(mns_field_new(&f, p, spec) == MNS_ENOTSUP, "%s: %u-bit eps served on %u bits",
                     spec, eb_above, W);
            MT_CHECK(strstr(mns_last_error(), "(22)") != NULL, "unclear message: %s",
                     mns_last_error());
            pm_prime(p, W, &eb_below);
            mns_status st = mns_sor_new(&s, p, &prm);
            MT_CHECK(st == MNS_OK, "%s: %u-bit eps on %u bits refused: %s", spec,
                     eb_below, W, mns_last_error());
            if (st == MNS_OK) {
                MT_CHECK(kappa_cond(s), "(K) fails but served");
                corrections(s);
                structured(s, "eps near the bound");
                chain(s, NULL, mt_scaled(500), "eps near the bound");
                mns_sor_free(s);
            }
        }
    }
    parse_expr(p, "2^255-19");
    MT_CHECK(mns_field_new(&f, p, "sor:N=3") == MNS_ENOTSUP, "N = 3 served 255 bits");
    MT_CHECK(mns_field_new(&f, p, "sor:bogus=1") == MNS_EINVAL, "unknown option taken");
    MT_CHECK(mns_field_new(&f, p, "sor-ifma:kernel=avx2") == MNS_EINVAL, "bad kernel taken");
    MT_CHECK(mns_field_new(&f, p, "sor:delta=100000000") == MNS_EINVAL, "delta out of range");
    /* a large delta asks for more channels, and gets them */
    MT_CHECK(mns_field_new(&f, p, "sor:delta=1000") == MNS_OK, "delta = 1000: %s",
             mns_last_error());
    if (f) {
        MT_CHECK(strstr(mns_field_describe(f), "kernel=generic") != NULL, "describe: %s",
                 mns_field_describe(f));
        mns_field_free(f);
    }
    mpz_clear(p);
}

int main(void)
{
    mt_init("test_sor");
    table();
    mpz_t p;
    mpz_init(p);
    for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++) {
        parse_expr(p, curves[i].hex_or_expr);
        if (i == 0 || i == 7) {
            mns_sor_params prm = {.ifma = 0, .kernel = 0, .N = 0, .delta_min = 1};
            mns_sor *s = NULL;
            if (mns_sor_new(&s, p, &prm) == MNS_OK) {
                paper_kappa_short(s, curves[i].name);
                mns_sor_free(s);
            }
        }
        one_prime(p, curves[i].name, 10000, 1);
    }
    /* random pseudo-Mersenne primes of 127-521 bits, eps of 1 bit to near the bound */
    for (int r = 0; r < 8; r++) {
        unsigned W = 127 + (unsigned)mt_below(521 - 127 + 1);
        unsigned eb = 8 + (unsigned)mt_below(W - 63 - 16);
        pm_prime(p, W, &eb);
        char name[64];
        snprintf(name, sizeof name, "2^%u - eps(%u bits)", W, eb);
        one_prime(p, name, r < 2 ? 10000 : 2000, r < 3);
    }
    refusals();
    mpz_clear(p);
    return mt_finish();
}
