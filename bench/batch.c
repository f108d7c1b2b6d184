/* The batch section of mns-bench, field part (bench/batch.h): modmul and
 * modsqr at the ECC and RSA-channel sizes, full-exponent modexp at 1024 and
 * 2048 bits. Each timed call runs MB_LANES operations: mns's single calls in
 * a loop, mns's batch call, OpenSSL's Montgomery calls in a loop, and
 * crypto_mb's mbx_exp_mb8 (one call for eight) where it runs. */
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>

#include "batch.h"
#include "mns.h"
#include "primes.h"
#include "rsa_ossl.h"

#ifdef MNS_HAVE_CRYPTO_MB
#include <crypto_mb/cpu_features.h>
#include <crypto_mb/exp.h>
#endif

#define ROUNDS 7

void mb_batch_add(mb_run *run, const char *op, unsigned bits, const char *impl, double per_op,
                  double lo, double hi, const char *note)
{
    if (run->nbatch == run->capbatch) {
        run->capbatch = run->capbatch ? 2 * run->capbatch : 64;
        run->batch_rows = realloc(run->batch_rows, run->capbatch * sizeof *run->batch_rows);
        if (!run->batch_rows) {
            fprintf(stderr, "mns-bench: out of memory\n");
            exit(2);
        }
    }
    mb_batch_row *r = &run->batch_rows[run->nbatch++];
    memset(r, 0, sizeof *r);
    snprintf(r->op, sizeof r->op, "%s", op);
    r->bits = bits;
    snprintf(r->impl, sizeof r->impl, "%s", impl);
    r->per_op = per_op;
    r->per_op_min = lo;
    r->per_op_max = hi;
    snprintf(r->note, sizeof r->note, "%s", note ? note : "");
}

void mb_batch_note(mb_run *run, const char *op, unsigned bits, const char *impl, const char *why)
{
    mb_batch_add(run, op, bits, impl, 0, 0, 0, why);
}

/* median, min and max over rounds of the per-batch minimum of one call */
void mb_batch_time(mb_run *run, const char *op, unsigned bits, const char *impl, mb_call_fn fn,
                   void *arg, const char *note)
{
    uint64_t t[ROUNDS];
    mb_warmup(fn, arg, 3, (uint64_t)2e9);
    for (int i = 0; i < ROUNDS; i++)
        t[i] = mb_net(mb_batch_min(fn, arg, 5), run->overhead);
    const uint64_t med = mb_median(t, ROUNDS); /* sorts t */
    mb_batch_add(run, op, bits, impl, (double)med / MB_LANES, (double)t[0] / MB_LANES,
                 (double)t[ROUNDS - 1] / MB_LANES, note);
}

const char *mb_crypto_mb_status(void)
{
#ifdef MNS_HAVE_CRYPTO_MB
    return mbx_is_crypto_mb_applicable(0) ? "crypto_mb: linked, runs on this CPU"
                                          : "crypto_mb: linked, but this CPU lacks what it needs "
                                            "(AVX-512 IFMA): not run";
#else
    return "crypto_mb: not installed when mns-bench was configured (make bench installs "
           "ipp-crypto-static / ipp-crypto-include with pip)";
#endif
}

int mb_crypto_mb_runs(void)
{
#ifdef MNS_HAVE_CRYPTO_MB
    return mbx_is_crypto_mb_applicable(0) != 0;
#else
    return 0;
#endif
}

/* --- products and exponentiations --- */

typedef struct fctx {
    mns_field *f;
    size_t L;
    uint64_t *a, *b, *r;
    mpz_t e[MB_LANES];
    BN_CTX *bn;
    BN_MONT_CTX *mont;
    BIGNUM *p, *ba[MB_LANES], *bb[MB_LANES], *br[MB_LANES], *be[MB_LANES];
#ifdef MNS_HAVE_CRYPTO_MB
    int64u *mb_words; /* base, exponent, modulus, out: nw words per lane each */
    int nw, bits, ebits;
    int8u *mb_buf;
    int mb_len;
#endif
} fctx;

static void mns_mul_1(void *x)
{
    fctx *c = x;
    for (int i = 0; i < MB_LANES; i++)
        mns_field_mul(c->f, c->r + i * c->L, c->a + i * c->L, c->b + i * c->L);
}
static void mns_mul_8(void *x)
{
    fctx *c = x;
    mns_field_mul_n(c->f, c->r, c->a, c->b, MB_LANES);
}
static void mns_sqr_1(void *x)
{
    fctx *c = x;
    for (int i = 0; i < MB_LANES; i++)
        mns_field_sqr(c->f, c->r + i * c->L, c->a + i * c->L);
}
static void mns_sqr_8(void *x)
{
    fctx *c = x;
    mns_field_sqr_n(c->f, c->r, c->a, MB_LANES);
}
static void mns_exp_1(void *x)
{
    fctx *c = x;
    for (int i = 0; i < MB_LANES; i++)
        mns_field_powm(c->f, c->r + i * c->L, c->a + i * c->L, c->e[i]);
}
static void mns_exp_8(void *x)
{
    fctx *c = x;
    mns_field_powm_n(c->f, c->r, c->a, (const mpz_t *)c->e, MB_LANES);
}
static void ossl_mul(void *x)
{
    fctx *c = x;
    for (int i = 0; i < MB_LANES; i++)
        BN_mod_mul_montgomery(c->br[i], c->ba[i], c->bb[i], c->mont, c->bn);
}
static void ossl_sqr(void *x)
{
    fctx *c = x;
    for (int i = 0; i < MB_LANES; i++)
        BN_mod_mul_montgomery(c->br[i], c->ba[i], c->ba[i], c->mont, c->bn);
}
static void ossl_exp(void *x)
{
    fctx *c = x;
    for (int i = 0; i < MB_LANES; i++)
        BN_mod_exp_mont_consttime(c->br[i], c->ba[i], c->be[i], c->p, c->bn, c->mont);
}

#ifdef MNS_HAVE_CRYPTO_MB
static void mb_words_of(int64u *w, int nw, const mpz_t a)
{
    memset(w, 0, (size_t)nw * 8);
    mpz_export(w, NULL, -1, 8, 0, 0, a);
}

static void cmb_exp(void *x)
{
    fctx *c = x;
    const int64u *base[MB_LANES], *ex[MB_LANES], *mod[MB_LANES];
    int64u *out[MB_LANES];
    for (int i = 0; i < MB_LANES; i++) {
        base[i] = c->mb_words + (size_t)(4 * i) * c->nw;
        ex[i] = base[i] + c->nw;
        mod[i] = ex[i] + c->nw;
        out[i] = c->mb_words + (size_t)(4 * i + 3) * c->nw;
    }
    mbx_exp_mb8(out, base, ex, c->ebits, mod, c->bits, c->mb_buf, c->mb_len);
}

/* crypto_mb's exponentiation, checked against GMP before it is timed */
static void crypto_mb_exp(mb_run *run, fctx *c, const mpz_t p, const mpz_t *va, unsigned bits)
{
    if (!mb_crypto_mb_runs()) {
        mb_batch_note(run, "modexp", bits, "crypto_mb mbx_exp_mb8", mb_crypto_mb_status());
        return;
    }
    c->bits = (int)bits;
    c->ebits = (int)bits;
    c->nw = (int)((bits + 63) / 64);
    c->mb_words = calloc((size_t)4 * MB_LANES * c->nw, 8);
    c->mb_len = mbx_exp_BufferSize((int)bits);
    c->mb_buf = aligned_alloc(64, ((size_t)c->mb_len + 63) & ~(size_t)63);
    for (int i = 0; i < MB_LANES; i++) {
        int64u *w = c->mb_words + (size_t)(4 * i) * c->nw;
        mb_words_of(w, c->nw, va[i]);
        mb_words_of(w + c->nw, c->nw, c->e[i]);
        mb_words_of(w + 2 * c->nw, c->nw, p);
    }
    cmb_exp(c);
    int ok = 1;
    mpz_t z, w;
    mpz_inits(z, w, NULL);
    for (int i = 0; i < MB_LANES; i++) {
        mpz_import(z, (size_t)c->nw, -1, 8, 0, 0, c->mb_words + (size_t)(4 * i + 3) * c->nw);
        mpz_powm(w, va[i], c->e[i], p);
        ok &= mpz_cmp(z, w) == 0;
    }
    mpz_clears(z, w, NULL);
    if (ok)
        mb_batch_time(run, "modexp", bits, "crypto_mb mbx_exp_mb8", cmb_exp, c, "one call for 8");
    else
        mb_batch_note(run, "modexp", bits, "crypto_mb mbx_exp_mb8", "MISMATCH against GMP");
    free(c->mb_words);
    free(c->mb_buf);
}
#endif

static const char *batch_spec(void)
{
    /* mont-ifma: its elements are the lanes' digits, so products run in
     * the lanes too; elsewhere the field's own choice */
    mpz_t q;
    mpz_init_set_ui(q, 1000003);
    mns_field *f;
    const int ifma = mns_field_new(&f, q, "mont-ifma") == MNS_OK;
    if (ifma)
        mns_field_free(f);
    mpz_clear(q);
    return ifma ? "mont-ifma" : "auto";
}

static void field_size(mb_run *run, unsigned bits, int exp)
{
    mpz_t p, va[MB_LANES], vb[MB_LANES];
    mpz_init(p);
    mb_prime(p, bits, run->seed);
    fctx c;
    memset(&c, 0, sizeof c);
    const char *spec = batch_spec();
    if (mns_field_new(&c.f, p, spec) != MNS_OK) {
        mb_batch_note(run, exp ? "modexp" : "modmul", bits, spec, mns_last_error());
        mpz_clear(p);
        return;
    }
    c.L = mns_field_limbs(c.f);
    c.a = calloc(3 * MB_LANES * c.L, 8);
    c.b = c.a + MB_LANES * c.L;
    c.r = c.b + MB_LANES * c.L;
    c.bn = BN_CTX_new();
    c.mont = BN_MONT_CTX_new();
    c.p = rsa_ossl_bn(p);
    BN_MONT_CTX_set(c.mont, c.p, c.bn);
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, run->seed + bits);
    for (int i = 0; i < MB_LANES; i++) {
        mpz_inits(va[i], vb[i], c.e[i], NULL);
        mpz_urandomm(va[i], rs, p);
        mpz_urandomm(vb[i], rs, p);
        mpz_urandomb(c.e[i], rs, bits);
        mpz_setbit(c.e[i], bits - 1); /* full-length exponents */
        mns_field_set_mpz(c.f, c.a + i * c.L, va[i]);
        mns_field_set_mpz(c.f, c.b + i * c.L, vb[i]);
        c.ba[i] = rsa_ossl_bn(va[i]);
        c.bb[i] = rsa_ossl_bn(vb[i]);
        c.be[i] = rsa_ossl_bn(c.e[i]);
        c.br[i] = BN_new();
        BN_to_montgomery(c.ba[i], c.ba[i], c.mont, c.bn);
        BN_to_montgomery(c.bb[i], c.bb[i], c.mont, c.bn);
    }
    char single[96], batch[96];
    snprintf(single, sizeof single, "mns %s single x8", spec);
    snprintf(batch, sizeof batch, "mns %s batch of 8", spec);
    const char *d = mns_field_describe(c.f);
    if (exp) {
        mb_batch_time(run, "modexp", bits, single, mns_exp_1, &c, d);
        mb_batch_time(run, "modexp", bits, batch, mns_exp_8, &c, d);
        mb_batch_time(run, "modexp", bits, "openssl consttime x8", ossl_exp, &c, "");
#ifdef MNS_HAVE_CRYPTO_MB
        crypto_mb_exp(run, &c, p, (const mpz_t *)va, bits);
#else
        mb_batch_note(run, "modexp", bits, "crypto_mb mbx_exp_mb8", mb_crypto_mb_status());
#endif
    } else {
        mb_batch_time(run, "modmul", bits, single, mns_mul_1, &c, d);
        mb_batch_time(run, "modmul", bits, batch, mns_mul_8, &c, d);
        mb_batch_time(run, "modmul", bits, "openssl mont x8", ossl_mul, &c, "");
        mb_batch_time(run, "modsqr", bits, single, mns_sqr_1, &c, d);
        mb_batch_time(run, "modsqr", bits, batch, mns_sqr_8, &c, d);
        mb_batch_time(run, "modsqr", bits, "openssl mont x8", ossl_sqr, &c, "");
    }
    for (int i = 0; i < MB_LANES; i++) {
        mpz_clears(va[i], vb[i], c.e[i], NULL);
        BN_free(c.ba[i]), BN_free(c.bb[i]), BN_free(c.be[i]), BN_free(c.br[i]);
    }
    gmp_randclear(rs);
    BN_free(c.p);
    BN_MONT_CTX_free(c.mont);
    BN_CTX_free(c.bn);
    free(c.a);
    mns_field_free(c.f);
    mpz_clear(p);
}

static void print_rows(const mb_run *run, size_t from, FILE *out)
{
    for (size_t i = from; i < run->nbatch; i++) {
        const mb_batch_row *r = &run->batch_rows[i];
        if (r->per_op > 0)
            fprintf(out, "  %-8s %5u  %-34s %12.0f  (%.0f-%.0f)\n", r->op, r->bits, r->impl,
                    r->per_op, r->per_op_min, r->per_op_max);
        else
            fprintf(out, "  %-8s %5u  %-34s %12s  %s\n", r->op, r->bits, r->impl, "-", r->note);
    }
}

void mb_batch_section(mb_run *run, FILE *out)
{
    static const unsigned mul_sizes[] = {256, 384, 1024, 2048};
    static const unsigned exp_sizes[] = {1024, 2048};
    fprintf(out, "\nBatch section: TSC ticks per operation, %d operations per timed call "
                 "(median of %d rounds, range)\n  %s\n  lanes: %s\n",
            MB_LANES, ROUNDS, mb_crypto_mb_status(),
            strcmp(batch_spec(), "mont-ifma") == 0
                ? "IFMA (mont-ifma fields)"
                : "none on this CPU (no AVX-512 IFMA): the batch calls loop over the single calls");
    fprintf(out, "  %-8s %5s  %-34s %12s\n", "op", "bits", "implementation", "ticks/op");
    fflush(out);
    const size_t from = run->nbatch;
    for (size_t i = 0; i < sizeof mul_sizes / sizeof mul_sizes[0]; i++)
        field_size(run, mul_sizes[i], 0);
    for (size_t i = 0; i < sizeof exp_sizes / sizeof exp_sizes[0]; i++)
        field_size(run, exp_sizes[i], 1);
    print_rows(run, from, out);
    fflush(out);
    const size_t rsa_from = run->nbatch;
    mb_batch_rsa(run, out);
    print_rows(run, rsa_from, out);
}
