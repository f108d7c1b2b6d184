#include "testutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

gmp_randstate_t mt_rand;
unsigned long mt_seed;
static long passed, failed;
static const char *test_name = "test";

void mt_init(const char *name)
{
    test_name = name;
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *env = getenv("MNS_TEST_SEED");
    if (env && *env)
        mt_seed = strtoul(env, NULL, 10);
    else
        mt_seed = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
    gmp_randinit_default(mt_rand);
    gmp_randseed_ui(mt_rand, mt_seed);
    const char *cpu = getenv("MNS_CPU");
    printf("%s: seed %lu (re-run with MNS_TEST_SEED=%lu), MNS_CPU=%s\n", name, mt_seed, mt_seed,
           cpu ? cpu : "native");
    fflush(stdout);
}

int mt_finish(void)
{
    printf("%s: %ld passed, %ld failed\n", test_name, passed, failed);
    if (failed)
        printf("%s: FAILED with seed %lu (MNS_TEST_SEED=%lu)\n", test_name, mt_seed, mt_seed);
    gmp_randclear(mt_rand);
    return failed ? 1 : 0;
}

long mt_failed(void) { return failed; }

void mt_check_at(int ok, const char *file, int line, const char *fmt, ...)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    if (failed > 50)
        return; /* enough to debug; keep the log readable */
    va_list ap;
    va_start(ap, fmt);
    fprintf(stdout, "FAIL %s:%d (seed %lu): ", file, line, mt_seed);
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    fflush(stdout);
}

uint64_t mt_u64(void)
{
    return ((uint64_t)gmp_urandomb_ui(mt_rand, 32) << 32) | gmp_urandomb_ui(mt_rand, 32);
}

unsigned long mt_below(unsigned long n) { return n ? gmp_urandomm_ui(mt_rand, n) : 0; }

const char *mt_mod_kind_name(mt_mod_kind k)
{
    static const char *names[] = {"random", "prime", "2^k-1", "2^k+1", "sparse", "dense",
                                  "pseudo-mersenne"};
    return k < MT_MOD_KINDS ? names[k] : "?";
}

void mt_modulus(mpz_t p, size_t bits, mt_mod_kind kind)
{
    mpz_t t;
    mpz_init(t);
    switch (kind) {
    case MT_MOD_PRIME:
        /* nextprime costs minutes at 8192 bits: above MT_PRIME_MAX_BITS a
         * random odd modulus stands in (only the PMNS and SOR backends need
         * a prime, and their tests pick their own) */
        if (bits > MT_PRIME_MAX_BITS) {
            mpz_urandomb(p, mt_rand, bits);
            mpz_setbit(p, bits - 1);
            mpz_setbit(p, 0);
            break;
        }
        do {
            mpz_urandomb(p, mt_rand, bits);
            mpz_setbit(p, bits - 1);
            mpz_nextprime(p, p);
        } while (mpz_sizeinbase(p, 2) != bits);
        break;
    case MT_MOD_2K_MINUS_1:
        mpz_ui_pow_ui(p, 2, bits);
        mpz_sub_ui(p, p, 1);
        break;
    case MT_MOD_2K_PLUS_1:
        mpz_ui_pow_ui(p, 2, bits - 1);
        mpz_add_ui(p, p, 1);
        break;
    case MT_MOD_SPARSE:
        mpz_set_ui(p, 1);
        mpz_setbit(p, bits - 1);
        for (int i = 0; i < 3; i++)
            mpz_setbit(p, mt_below(bits - 1));
        break;
    case MT_MOD_DENSE:
        mpz_ui_pow_ui(p, 2, bits);
        mpz_sub_ui(p, p, 1);
        for (int i = 0; i < 3; i++)
            mpz_clrbit(p, 1 + mt_below(bits - 2));
        break;
    case MT_MOD_PSEUDO_MERSENNE:
        mpz_ui_pow_ui(p, 2, bits);
        mpz_sub_ui(p, p, 2 * mt_below(1u << 20) + 1);
        break;
    default:
        mpz_urandomb(p, mt_rand, bits);
        mpz_setbit(p, bits - 1);
        mpz_setbit(p, 0);
        break;
    }
    if (mpz_cmp_ui(p, 3) < 0)
        mpz_set_ui(p, 3);
    mpz_clear(t);
}

void mt_mpz_from_digits52(mpz_t r, const uint64_t *d, size_t m)
{
    mpz_set_ui(r, 0);
    for (size_t j = m; j-- > 0;) {
        mpz_mul_2exp(r, r, 52);
        mpz_add_ui(r, r, d[j]);
    }
}

void mt_digits52_from_mpz(uint64_t *d, size_t m, const mpz_t a)
{
    mpz_t t;
    mpz_init_set(t, a);
    for (size_t j = 0; j < m; j++) {
        d[j] = mpz_getlimbn(t, 0) & (((uint64_t)1 << 52) - 1);
        mpz_fdiv_q_2exp(t, t, 52);
    }
    mpz_clear(t);
}

void mt_operand(mpz_t a, const mpz_t p, mt_op_kind kind)
{
    size_t bits = mpz_sizeinbase(p, 2);
    switch (kind) {
    case MT_OP_ZERO: mpz_set_ui(a, 0); break;
    case MT_OP_ONE: mpz_set_ui(a, 1); break;
    case MT_OP_PM1: mpz_sub_ui(a, p, 1); break;
    case MT_OP_ALL_ONES: /* every word of the element size all ones */
        mpz_ui_pow_ui(a, 2, 64 * ((bits + 63) / 64));
        mpz_sub_ui(a, a, 1);
        break;
    case MT_OP_HUGE:
        mpz_urandomb(a, mt_rand, 3 * bits + mt_below(200));
        break;
    case MT_OP_NEGATIVE:
        mpz_urandomb(a, mt_rand, bits + mt_below(130));
        mpz_neg(a, a);
        break;
    case MT_OP_SPARSE:
        mpz_set_ui(a, 0);
        for (int i = 0; i < 3; i++)
            mpz_setbit(a, mt_below(bits));
        mpz_mod(a, a, p);
        break;
    default:
        mpz_urandomm(a, mt_rand, p);
        break;
    }
}

mt_op_kind mt_op_pick(void)
{
    unsigned long r = mt_below(16);
    return r < MT_OP_KINDS ? (mt_op_kind)r : MT_OP_RANDOM;
}

/* ---- the conformance check ------------------------------------------------ */

typedef struct chk {
    const mns_field *f;
    const mpz_t *p;
    const char *spec;
    mpz_t got, want, t;
} chk;

static int expect(chk *c, const uint64_t *x, const mpz_t want, const char *what)
{
    mns_field_get_mpz(c->f, c->got, x);
    mpz_mod(c->t, want, *c->p);
    int ok = mpz_cmp(c->got, c->t) == 0;
    MT_CHECK(ok, "%s: %s (%zu-bit p) got %s want %s", c->spec, what,
             mpz_sizeinbase(*c->p, 2), ok ? "" : mpz_get_str(NULL, 16, c->got),
             ok ? "" : mpz_get_str(NULL, 16, c->t));
    return ok;
}

double mt_scale(void)
{
    const char *env = getenv("MNS_TEST_SCALE");
    double s = env && *env ? atof(env) : 1.0;
    return s > 0 ? s : 1.0;
}

unsigned mt_scaled(unsigned count)
{
    if (count == 0)
        return 0;
    double v = count * mt_scale();
    return v < 1 ? 1 : (unsigned)v;
}

static _Thread_local int field_skipped;

int mt_field_skipped(void) { return field_skipped; }

long mt_field_check(const char *spec, const mpz_t p, const mt_field_opts *opts)
{
    long before = mt_failed();
    field_skipped = 0;
    /* MNS_TEST_SCALE shrinks the counts (sanitizer runs) but keeps every kind
     * of check: at least one round of each */
    mt_field_opts scaled = *opts;
    scaled.iters = mt_scaled(opts->iters);
    scaled.chain = mt_scaled(opts->chain);
    scaled.powms = opts->powms < 6 ? opts->powms : 6 + mt_scaled(opts->powms - 6);
    const mt_field_opts *o = &scaled;
    mns_field *f = NULL;
    mns_status st = mns_field_new(&f, p, spec);
    if (st == MNS_ENOTSUP && o->allow_notsup) {
        printf("  skip %s on %zu-bit p: %s\n", spec, mpz_sizeinbase(p, 2), mns_last_error());
        field_skipped = 1;
        return 0;
    }
    MT_CHECK(st == MNS_OK, "mns_field_new(%s, %zu-bit p): %s: %s", spec, mpz_sizeinbase(p, 2),
             mns_strerror(st), mns_last_error());
    if (st != MNS_OK)
        return mt_failed() - before;

    chk c = {.f = f, .p = (const mpz_t *)p, .spec = spec};
    mpz_inits(c.got, c.want, c.t, NULL);
    const size_t L = mns_field_limbs(f);
    uint64_t *A = calloc(L, 8), *B = calloc(L, 8), *R = calloc(L, 8), *S = calloc(L, 8);
    mpz_t a, b, e;
    mpz_inits(a, b, e, NULL);

    /* round trips on every operand kind */
    for (int k = 0; k < MT_OP_KINDS; k++) {
        mt_operand(a, p, (mt_op_kind)k);
        MT_CHECK(mns_field_set_mpz(f, A, a) == MNS_OK, "%s: set_mpz kind %d", spec, k);
        expect(&c, A, a, "set/get round trip");
    }

    for (unsigned it = 0; it < o->iters; it++) {
        mt_operand(a, p, mt_op_pick());
        mt_operand(b, p, mt_op_pick());
        mns_field_set_mpz(f, A, a);
        mns_field_set_mpz(f, B, b);

        mns_field_mul(f, R, A, B);
        mpz_mul(c.want, a, b);
        expect(&c, R, c.want, "mul");
        mns_field_sqr(f, R, A);
        mpz_mul(c.want, a, a);
        expect(&c, R, c.want, "sqr");
        mns_field_add(f, R, A, B);
        mpz_add(c.want, a, b);
        mns_field_reduce(f, S, R);
        expect(&c, S, c.want, "add+reduce");
        mns_field_sub(f, R, A, B);
        mpz_sub(c.want, a, b);
        mns_field_reduce(f, S, R);
        expect(&c, S, c.want, "sub+reduce");

        /* aliasing: r == a, r == b, r == a == b */
        memcpy(R, A, L * 8);
        mns_field_mul(f, R, R, B);
        mpz_mul(c.want, a, b);
        expect(&c, R, c.want, "mul r==a");
        memcpy(R, B, L * 8);
        mns_field_mul(f, R, A, R);
        expect(&c, R, c.want, "mul r==b");
        memcpy(R, A, L * 8);
        mns_field_mul(f, R, R, R);
        mpz_mul(c.want, a, a);
        expect(&c, R, c.want, "mul r==a==b");
        memcpy(R, A, L * 8);
        mns_field_sqr(f, R, R);
        expect(&c, R, c.want, "sqr r==a");
        memcpy(R, A, L * 8);
        mns_field_add(f, R, R, B);
        mns_field_reduce(f, R, R);
        mpz_add(c.want, a, b);
        expect(&c, R, c.want, "add r==a, reduce r==a");
        memcpy(R, B, L * 8);
        mns_field_sub(f, R, A, R);
        mns_field_reduce(f, R, R);
        mpz_sub(c.want, a, b);
        expect(&c, R, c.want, "sub r==b");
    }

    /* operands at the delta limit: sums and differences of delta + 1 tight
     * elements, the extreme values p-1 and 0 among them, then mul/sqr/reduce */
    {
        int d = mns_field_delta(f);
        int terms = d < 15 ? d + 1 : 16;
        for (int round = 0; round < 8; round++) {
            mpz_t acc;
            mpz_init(acc);
            mt_operand(a, p, round < 2 ? MT_OP_PM1 : MT_OP_RANDOM);
            mns_field_set_mpz(f, A, a);
            mpz_set(acc, a);
            for (int i = 1; i < terms; i++) {
                mt_operand(b, p, round < 2 ? MT_OP_PM1 : (round < 4 ? MT_OP_ZERO : MT_OP_RANDOM));
                mns_field_set_mpz(f, B, b);
                int subtract = round % 2 == 1 && (i % 2 == 1);
                if (subtract) {
                    mns_field_sub(f, A, A, B);
                    mpz_sub(acc, acc, b);
                } else {
                    mns_field_add(f, A, A, B);
                    mpz_add(acc, acc, b);
                }
            }
            mns_field_sqr(f, R, A);
            mpz_mul(c.want, acc, acc);
            expect(&c, R, c.want, "sqr at the delta limit");
            mt_operand(b, p, MT_OP_PM1);
            mns_field_set_mpz(f, B, b);
            mns_field_mul(f, R, A, B);
            mpz_mul(c.want, acc, b);
            expect(&c, R, c.want, "mul at the delta limit");
            mns_field_mul(f, R, A, A);
            mpz_mul(c.want, acc, acc);
            expect(&c, R, c.want, "mul both at the delta limit");
            mns_field_reduce(f, R, A);
            expect(&c, R, acc, "reduce at the delta limit");
            mpz_clear(acc);
        }
    }

    /* a long chain: errors accumulate if any bound is not kept */
    {
        mt_operand(a, p, MT_OP_RANDOM);
        mt_operand(b, p, MT_OP_RANDOM);
        mns_field_set_mpz(f, A, a);
        mns_field_set_mpz(f, B, b);
        mpz_set(c.want, a);
        for (unsigned i = 0; i < o->chain; i++) {
            if (i % 3 == 2) {
                mns_field_sqr(f, A, A);
                mpz_mul(c.want, c.want, c.want);
            } else {
                mns_field_mul(f, A, A, B);
                mpz_mul(c.want, c.want, b);
            }
            mpz_mod(c.want, c.want, p);
        }
        expect(&c, A, c.want, "chain of multiplications");
    }

    /* powm: structured and random exponents */
    /* the first six are structured (0, 1, p-1, p-2, 65537, all ones) */
    for (unsigned it = 0; it < o->powms; it++) {
        mt_operand(a, p, it < 6 ? MT_OP_RANDOM : mt_op_pick());
        switch (it) {
        case 0: mpz_set_ui(e, 0); break;
        case 1: mpz_set_ui(e, 1); break;
        case 2: mpz_sub_ui(e, p, 1); break;
        case 3: mpz_sub_ui(e, p, 2); break;
        case 4: mpz_set_ui(e, 65537); break;
        case 5: mpz_ui_pow_ui(e, 2, mpz_sizeinbase(p, 2)); mpz_sub_ui(e, e, 1); break;
        default: mpz_urandomb(e, mt_rand, 1 + mt_below(mpz_sizeinbase(p, 2) + 64)); break;
        }
        mns_field_set_mpz(f, A, a);
        mns_field_powm(f, R, A, e);
        mpz_mod(c.t, a, p);
        mpz_powm(c.want, c.t, e, p);
        expect(&c, R, c.want, "powm");
        mns_field_powm(f, A, A, e);
        expect(&c, A, c.want, "powm r==a");
    }
    /* a negative exponent is refused, not mis-computed */
    mpz_set_si(e, -3);
    mns_field_powm(f, R, A, e);
    MT_CHECK(strstr(mns_last_error(), "negative") != NULL, "%s: negative exponent not refused",
             spec);

    mpz_clears(a, b, e, c.got, c.want, c.t, NULL);
    free(A);
    free(B);
    free(R);
    free(S);
    mns_field_free(f);
    return mt_failed() - before;
}
