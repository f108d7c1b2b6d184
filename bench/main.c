/* mns-bench: every mns backend against GMP and OpenSSL, same moduli, same
 * data, same process; see docs/bench.md. This file is the driver: options,
 * moduli, the measurement of each (size, operation) cell and the checks. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mns.h>

#include "backends.h"
#include "field_api.h"
#include "curve.h"
#include "batch.h"
#include "baselines.h"
#include "primes.h"
#include "run.h"
#include "timing.h"

static const unsigned default_sizes[] = {256,  401,  512,  807,  1024, 1214, 1621, 2029,
                                         2048, 2436, 2844, 3072, 3251, 4096, 6144, 8192};

/* name, data sets (max, min), batch (max, kept under pressure), warm-up
 * calls, batch duration, budget */
static const mb_mode modes[] = {
    {"quick", 11, 1, 100, 5, 100, 0.5e-3, 10.0},
    {"default", 31, 5, 500, 20, 1000, 2e-3, 80.0},
    {"full", 101, 11, 1001, 51, 1000, 10e-3, 1200.0},
};

/* Growth of one call's cost with the size of p, for foreseeing floors:
 * schoolbook products for modmul/modsqr, times bits squarings for modexp.
 * Pessimistic for sub-quadratic products, which is the safe side. */
static const double growth[MB_NOPS] = {2.0, 2.0, 3.0};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        fprintf(stderr, "mns-bench: out of memory\n");
        exit(2);
    }
    return q;
}

static void add_skip(mb_run *run, const char *spec, unsigned bits, int st, const char *why)
{
    static const char *const names[] = {"MNS_OK",     "MNS_EINVAL", "MNS_ENOMEM",
                                        "MNS_ENOTSUP", "MNS_EPARSE", "MNS_ERANGE"};
    if (run->nskips == run->capskips) {
        run->capskips = run->capskips ? 2 * run->capskips : 16;
        run->skips = xrealloc(run->skips, run->capskips * sizeof *run->skips);
    }
    mb_skip *s = &run->skips[run->nskips++];
    snprintf(s->spec, sizeof s->spec, "%s", spec);
    s->bits = bits;
    snprintf(s->status, sizeof s->status, "%s",
             st >= 0 && st < (int)(sizeof names / sizeof names[0]) ? names[st] : "?");
    snprintf(s->why, sizeof s->why, "%s", why);
}

static void add_column(mb_run *run, const mb_impl *im)
{
    for (size_t i = 0; i < run->ncolumns; i++)
        if (strcmp(run->columns[i], im->name) == 0)
            return;
    if (run->ncolumns < MB_MAX_COLUMNS) {
        snprintf(run->columns[run->ncolumns], sizeof run->columns[0], "%s", im->name);
        run->column_kind[run->ncolumns++] = im->kind;
    }
}

static mb_result *new_result(mb_run *run)
{
    if (run->nres == run->capres) {
        run->capres = run->capres ? 2 * run->capres : 64;
        run->res = xrealloc(run->res, run->capres * sizeof *run->res);
    }
    mb_result *r = &run->res[run->nres++];
    memset(r, 0, sizeof *r);
    return r;
}

/* ---- one cell: one size, one operation, every implementation ------------ */

typedef struct cell_impl {
    mb_impl *im;
    double setup_s;
    unsigned datasets, batch;
    uint64_t *samples;
    unsigned mismatches;
} cell_impl;

/* Batch size and data set count: a batch lasts at most batch_ticks; then,
 * to keep datasets x batch x cost within budget, shrink the batch to
 * pref_batch first, then the data sets to min_datasets, then the batch down
 * to one call. */
static void plan(const mb_mode *m, double tps, double cost, double batch_ticks, double budget,
                 unsigned *d_out, unsigned *b_out)
{
    double d = m->datasets, b = batch_ticks / cost;
    if (b > m->batch)
        b = m->batch;
    if (b < 1)
        b = 1;
    if (d * b * cost > budget) {
        double keep = b < m->pref_batch ? b : m->pref_batch;
        b = budget / (d * cost);
        if (b < keep)
            b = keep;
    }
    if (d * b * cost > budget) {
        d = budget / (b * cost);
        if (d < m->min_datasets)
            d = m->min_datasets;
    }
    if (d * b * cost > budget) {
        b = budget / (d * cost);
        if (b < 1)
            b = 1;
    }
    /* the guard against a pathological implementation (a thread-synchronising
     * backend on a crowded machine can be 100x slower than usual): no cell
     * implementation may take more than a sixteenth of the whole budget,
     * even if that leaves fewer than min_datasets data sets (one at least) */
    const double cap = m->budget_s / 16 * tps;
    if (d * b * cost > cap) {
        d = cap / (b * cost);
        if (d < 1)
            d = 1;
    }
    *d_out = (unsigned)d;
    *b_out = (unsigned)b;
}

/* Cost of one call of impl at this size, foreseen from the last size it was
 * measured at (0: never measured). */
static double foreseen_cost(const mb_run *run, mb_op op, const char *impl, unsigned bits)
{
    for (size_t i = 0; i < run->nseen_impl[op]; i++)
        if (strcmp(run->seen_impl[op][i].impl, impl) == 0)
            return run->seen_impl[op][i].cost *
                   pow((double)bits / run->seen_impl[op][i].bits, growth[op]);
    return 0;
}

static void remember_cost(mb_run *run, mb_op op, const char *impl, unsigned bits, double cost)
{
    size_t i = 0;
    while (i < run->nseen_impl[op] && strcmp(run->seen_impl[op][i].impl, impl) != 0)
        i++;
    if (i == MB_MAX_COLUMNS)
        return;
    if (i == run->nseen_impl[op])
        run->nseen_impl[op]++;
    snprintf(run->seen_impl[op][i].impl, sizeof run->seen_impl[op][i].impl, "%s", impl);
    run->seen_impl[op][i].bits = bits;
    run->seen_impl[op][i].cost = cost;
}

static void draw(gmp_randstate_t rs, const mpz_t p, unsigned bits, mpz_t a, mpz_t b, mpz_t e)
{
    mpz_urandomm(a, rs, p);
    mpz_urandomm(b, rs, p);
    mpz_urandomb(e, rs, bits);
    mpz_setbit(e, bits - 1); /* full-size exponent */
}

/* Long values as head...tail: a wrong answer often differs only at one end. */
static void abbrev(char *dst, size_t len, const mpz_t x)
{
    char *hex = mpz_get_str(NULL, 16, x);
    size_t n = strlen(hex);
    if (n <= 40)
        snprintf(dst, len, "%s", hex);
    else
        snprintf(dst, len, "%.16s...%s (%zu hex digits)", hex, hex + n - 16, n);
    free(hex);
}

static void report_mismatch(const char *impl, mb_op op, unsigned bits, unsigned d,
                            const mpz_t got, const mpz_t want)
{
    char g[80], w[80];
    abbrev(g, sizeof g, got);
    abbrev(w, sizeof w, want);
    fprintf(stderr, "\n*** MISMATCH: %s %s at %u bits, data set %u:\n***   got      %s\n"
                    "***   GMP says %s\n", impl, mb_op_names[op], bits, d, g, w);
}

static void run_cell(mb_run *run, unsigned bits, const mpz_t p, mb_op op, mb_impl *impls,
                     const double *setup_s, size_t nimpl, double budget_s)
{
    const mb_mode *m = &run->mode;
    cell_impl ci[MB_MAX_COLUMNS];
    size_t n = 0;
    for (size_t i = 0; i < nimpl; i++)
        if (impls[i].call[op] && n < MB_MAX_COLUMNS)
            ci[n++] = (cell_impl){&impls[i], setup_s[i], 0, 0, NULL, 0};
    if (n == 0)
        return;

    gmp_randstate_t rs;
    mpz_t a, b, e, ref, got, s;
    gmp_randinit_mt(rs);
    mpz_inits(a, b, e, ref, got, s, NULL);
    mpz_set_ui(s, run->seed);
    mpz_mul_2exp(s, s, 20);
    mpz_add_ui(s, s, bits);
    mpz_mul_ui(s, s, 8);
    mpz_add_ui(s, s, 1 + (unsigned)op);
    gmp_randseed(rs, s);

    /* warm-up (papers: about 1000 calls heat caches and predictors), which
     * also gives the cost that sizes the batches. A call foreseen to last
     * longer than 25 batches (large modexp) heats the caches in its own first
     * microseconds: it is not warmed up, and its cost is foreseen from the
     * last size instead, which saves a whole call per implementation where
     * calls are the most expensive. */
    const double tps = run->tsc_ghz * 1e9;
    const double share = budget_s * tps / n; /* ticks per implementation */
    draw(rs, p, bits, a, b, e);
    unsigned dmax = 0;
    double sum = 0, fastest = 0;
    for (size_t i = 0; i < n; i++) {
        double cost = foreseen_cost(run, op, ci[i].im->name, bits), used = 0;
        if (cost <= 25 * m->batch_s * tps) {
            ci[i].im->load(ci[i].im->state, op, a, b, e);
            uint64_t t0 = mb_tsc_start();
            uint64_t w = mb_warmup(ci[i].im->call[op], ci[i].im->state, m->warmup,
                                   (uint64_t)(0.1 * share));
            used = (double)(mb_tsc_stop() - t0);
            cost = (double)w; /* raw: the timing itself costs time too */
        }
        plan(m, tps, cost, m->batch_s * tps, share - used > 0.5 * share ? share - used : 0.5 * share,
             &ci[i].datasets, &ci[i].batch);
        ci[i].samples = xrealloc(NULL, ci[i].datasets * sizeof *ci[i].samples);
        if (ci[i].datasets > dmax)
            dmax = ci[i].datasets;
    }

    /* data sets outside, implementations inside: whatever else the machine
     * does at a given moment hits every implementation alike */
    for (unsigned d = 0; d < dmax; d++) {
        draw(rs, p, bits, a, b, e);
        switch (op) {
        case MB_MODMUL: mpz_mul(ref, a, b); mpz_mod(ref, ref, p); break;
        case MB_MODSQR: mpz_mul(ref, a, a); mpz_mod(ref, ref, p); break;
        default: mpz_powm(ref, a, e, p); break;
        }
        for (size_t i = 0; i < n; i++) {
            if (d >= ci[i].datasets)
                continue;
            mb_impl *im = ci[i].im;
            im->load(im->state, op, a, b, e);
            ci[i].samples[d] = mb_net(mb_batch_min(im->call[op], im->state, ci[i].batch),
                                      run->overhead);
            im->result(im->state, op, got);
            if (mpz_cmp(got, ref) != 0) {
                if (ci[i].mismatches++ == 0)
                    report_mismatch(im->name, op, bits, d, got, ref);
                run->mismatches++;
            }
        }
    }

    for (size_t i = 0; i < n; i++) {
        mb_result *r = new_result(run);
        r->op = op;
        r->bits = bits;
        snprintf(r->impl, sizeof r->impl, "%s", ci[i].im->name);
        r->kind = ci[i].im->kind;
        snprintf(r->describe, sizeof r->describe, "%s", ci[i].im->describe);
        r->ticks = mb_median(ci[i].samples, ci[i].datasets); /* sorts */
        r->ticks_min = ci[i].samples[0];
        r->ticks_max = ci[i].samples[ci[i].datasets - 1];
        r->datasets = ci[i].datasets;
        r->batch = ci[i].batch;
        r->mismatches = ci[i].mismatches;
        r->setup_s = ci[i].setup_s;
        double cost = (double)(r->ticks + run->overhead);
        remember_cost(run, op, r->impl, bits, cost);
        sum += cost;
        if (fastest == 0 || cost < fastest)
            fastest = cost;
        if (run->verbose)
            fprintf(stderr, "    %-7s %5u %-16s %3u x %4u  %12llu ticks%s\n", mb_op_names[op],
                    bits, r->impl, r->datasets, r->batch, (unsigned long long)r->ticks,
                    r->mismatches ? "  MISMATCH" : "");
        free(ci[i].samples);
    }
    run->seen_bits[op] = bits;
    run->seen_sum[op] = sum;
    run->seen_min[op] = fastest;
    mpz_clears(a, b, e, ref, got, s, NULL);
    gmp_randclear(rs);
}

/* ---- one size ------------------------------------------------------------ */

/* Seconds the sizes after si will take at the very least (min_datasets single
 * calls, one warm-up call and the GMP reference per data set), foreseen from
 * the costs of the last size measured: kept out of the budget shared now, so
 * that the large sizes at the end do not overrun it. */
static double reserve(const mb_run *run, size_t si)
{
    double ticks = 0;
    const double dmin = run->mode.min_datasets;
    for (size_t j = si + 1; j < run->nsizes; j++)
        for (int op = 0; op < MB_NOPS; op++) {
            if (!run->ops[op] || !run->seen_bits[op])
                continue;
            double scale = pow((double)run->sizes[j] / run->seen_bits[op], growth[op]);
            ticks += ((dmin + 1) * run->seen_sum[op] + dmin * run->seen_min[op]) * scale;
        }
    return ticks / (run->tsc_ghz * 1e9);
}

/* Every implementation for this p: mns backends (dropping names that are not
 * built, skipping those that cannot serve p), then the references. */
static size_t make_impls(mb_run *run, unsigned bits, const mpz_t p, mb_impl *impls,
                         double *setup_s)
{
    size_t n = 0;
    for (size_t i = 0; i < run->nspecs; i++) {
        if (!run->specs[i])
            continue;
        char why[512];
        if (!run->specs_given && !mb_default_window(run->specs[i], bits)) {
            add_skip(run, run->specs[i], bits, MNS_ENOTSUP,
                     "outside the default run's size window (setup cost); name it with "
                     "--backends to measure it here");
            continue;
        }
        int st = mb_mns_new(&impls[n], p, run->specs[i], &setup_s[n], why, sizeof why);
        if (setup_s[n] > 1.0)
            fprintf(stderr, "  %-12s mns_field_new took %.1f s at %u bits\n", run->specs[i],
                    setup_s[n], bits);
        if (st == MNS_OK) {
            add_column(run, &impls[n]);
            n++;
        } else if (st == MNS_EINVAL && !run->specs_given) {
            fprintf(stderr, "  %-12s skipped: %s (not built)\n", run->specs[i], why);
            add_skip(run, run->specs[i], 0, st, why);
            free(run->specs[i]);
            run->specs[i] = NULL;
        } else if (st == MNS_EINVAL) {
            fprintf(stderr, "mns-bench: backend \"%s\": %s\n", run->specs[i], why);
            exit(2);
        } else {
            if (run->verbose || run->specs_given)
                fprintf(stderr, "  %-12s skipped at %u bits: %s\n", run->specs[i], bits, why);
            add_skip(run, run->specs[i], bits, st, why);
        }
    }
    int (*refs[])(mb_impl *, const mpz_t) = {mb_gmp_mul_tdiv_new, mb_gmp_mont_new,
                                             mb_gmp_powm_sec_new, mb_openssl_mont_new,
                                             mb_openssl_mont_ct_new, mb_ipp_exp_new};
    const int fam[] = {1, 1, 1, 2, 2, 4};
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        if (!(run->baselines & fam[i]))
            continue;
        const int st = refs[i](&impls[n], p);
        if (st == 1)
            continue;
        if (st != 0)
            exit(2);
        setup_s[n] = 0;
        add_column(run, &impls[n]);
        n++;
    }
    return n;
}

static int parse_list_u(const char *s, unsigned *out, size_t max, size_t *n)
{
    *n = 0;
    while (*s) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || errno || v < 8 || v > 1u << 20 || *n == max)
            return -1;
        out[(*n)++] = (unsigned)v;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return *n ? 0 : -1;
}

/* "a,b:k=1,t=2,c" -> a | b:k=1,t=2 | c: a token with '=' and no ':' is one
 * more option of the spec before it. ';' also separates. */
static int parse_specs(mb_run *run, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    for (char *tok = strtok_r(copy, ",;", &save); tok; tok = strtok_r(NULL, ",;", &save)) {
        if (strchr(tok, '=') && !strchr(tok, ':') && run->nspecs) {
            char *prev = run->specs[run->nspecs - 1];
            size_t len = strlen(prev) + strlen(tok) + 2;
            run->specs[run->nspecs - 1] = xrealloc(prev, len);
            strcat(strcat(run->specs[run->nspecs - 1], ","), tok);
        } else if (run->nspecs < MB_MAX_SPECS) {
            run->specs[run->nspecs++] = strdup(tok);
        } else {
            free(copy);
            return -1;
        }
    }
    free(copy);
    return run->nspecs ? 0 : -1;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mns-bench [options]\n"
            "  --sizes a,b,...     prime sizes in bits (default: 256 401 512 807 1024 1214 1621\n"
            "                      2029 2048 2436 2844 3072 3251 4096 6144 8192)\n"
            "  --ops LIST          modmul,modsqr,modexp (default: all three)\n"
            "  --backends LIST     mns specs, e.g. mont,auto,pmns-mp:s=3 (default: every known\n"
            "                      name that mns_field_new accepts)\n"
            "  --baselines LIST    gmp,openssl,ipp (default; ipp where IPP was found), or a part, or none\n"
            "  --quick | --full    fewer / more data sets and calls (default: in between)\n"
            "  --budget SECONDS    target duration of the run (default 80, quick 10, full 1200)\n"
            "  --datasets N        data sets per cell, at most\n"
            "  --batch N           calls per batch, at most\n"
            "  --seed N            seed of primes and data (default %lu: shipped primes)\n"
            "  --threads N         for multi-threaded backends (accepted, recorded, unused)\n"
            "  --json FILE         write every figure and the metadata as JSON\n"
            "  --batch-section X   on (default), off, or only: the batch calls in groups of 8\n"
            "                      against single calls, OpenSSL, crypto_mb, IPP (docs/batch.md)\n"
            "  --moduli KIND       random (default: the primes above) or pseudo-mersenne\n"
            "                      (2^255-19, secp256k1, P-384, Curve448, P-521 at their sizes,\n"
            "                      else the largest prime below 2^bits; for sor)\n"
            "  --gen-primes        print primes_table.c for --sizes and --seed, and exit\n"
            "  --curve [--repeat N] [--spec SPEC]\n"
            "                      (first argument) X25519 and brainpool ECDH on the field API\n"
            "                      against OpenSSL, N runs, the range of the ratios\n"
            "  -v, --verbose       one line per measurement on stderr\n"
            "  -h, --help\n"
            "Figures are TSC ticks per call: the median over data sets of the minimum over\n"
            "a batch. Ratios: xGMP = best GMP / mns, xOpenSSL = OpenSSL / mns (> 1: mns\n"
            "faster). Exit status 1 if any result differs from GMP's.\n",
            MB_DEFAULT_SEED);
}

static void gen_primes(const mb_run *run)
{
    printf("/* Generated by `mns-bench --gen-primes");
    if (run->seed != MB_DEFAULT_SEED)
        printf(" --seed %lu", run->seed);
    if (!(run->nsizes == sizeof default_sizes / sizeof default_sizes[0] &&
          memcmp(run->sizes, default_sizes, sizeof default_sizes) == 0))
        for (size_t i = 0; i < run->nsizes; i++)
            printf("%s%u", i ? "," : " --sizes ", run->sizes[i]);
    printf(" > bench/primes_table.c`; see primes.h. */\n#include \"primes.h\"\n\n"
           "const mb_prime_entry mb_prime_table[] = {\n");
    mpz_t p;
    mpz_init(p);
    for (size_t i = 0; i < run->nsizes; i++) {
        fprintf(stderr, "%u bits...\n", run->sizes[i]);
        mb_prime_generate(p, run->sizes[i], run->seed);
        char *hex = mpz_get_str(NULL, 16, p);
        printf("    {%u,\n", run->sizes[i]);
        for (size_t k = 0; k < strlen(hex); k += 64)
            printf("     \"%.64s\"\n", hex + k);
        printf("    },\n");
        free(hex);
    }
    printf("};\nconst unsigned mb_prime_table_len = sizeof mb_prime_table / sizeof "
           "mb_prime_table[0];\nconst unsigned long mb_prime_table_seed = %lu;\n",
           run->seed);
    mpz_clear(p);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--field-api") == 0)
        return mb_field_api_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "--curve") == 0)
        return mb_curve_main(argc - 1, argv + 1);
    static mb_run run;
    run.mode = modes[1];
    run.seed = MB_DEFAULT_SEED;
    run.threads = 1;
    run.baselines = 7;
    run.batch_section = 1;
    memcpy(run.sizes, default_sizes, sizeof default_sizes);
    run.nsizes = sizeof default_sizes / sizeof default_sizes[0];
    for (int i = 0; i < MB_NOPS; i++)
        run.ops[i] = 1;
    for (int i = 0, k = 0; i < argc && k < (int)sizeof run.argv_line - 2; i++)
        k += snprintf(run.argv_line + k, sizeof run.argv_line - k, "%s%s", i ? " " : "",
                      argv[i]);

    enum { O_SIZES = 256, O_OPS, O_BACKENDS, O_BASELINES, O_QUICK, O_FULL, O_BUDGET,
           O_DATASETS, O_BATCH, O_SEED, O_THREADS, O_JSON, O_GEN, O_MODULI, O_BATCH_SECTION };
    static const struct option longopts[] = {
        {"sizes", required_argument, 0, O_SIZES},   {"ops", required_argument, 0, O_OPS},
        {"backends", required_argument, 0, O_BACKENDS},
        {"baselines", required_argument, 0, O_BASELINES},
        {"quick", no_argument, 0, O_QUICK},         {"full", no_argument, 0, O_FULL},
        {"budget", required_argument, 0, O_BUDGET},
        {"datasets", required_argument, 0, O_DATASETS},
        {"batch", required_argument, 0, O_BATCH},   {"seed", required_argument, 0, O_SEED},
        {"threads", required_argument, 0, O_THREADS},
        {"json", required_argument, 0, O_JSON},     {"gen-primes", no_argument, 0, O_GEN},
        {"moduli", required_argument, 0, O_MODULI},
        {"batch-section", required_argument, 0, O_BATCH_SECTION},
        {"verbose", no_argument, 0, 'v'},           {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    double budget = -1;
    long datasets = -1, batch = -1;
    int gen = 0, opt;
    while ((opt = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
        char *end = NULL;
        switch (opt) {
        case O_SIZES:
            if (parse_list_u(optarg, run.sizes, MB_MAX_SIZES, &run.nsizes) != 0) {
                fprintf(stderr, "mns-bench: bad --sizes \"%s\" (bits >= 8)\n", optarg);
                return 2;
            }
            break;
        case O_OPS: {
            int any = 0;
            memset(run.ops, 0, sizeof run.ops);
            char *copy = strdup(optarg), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int k = 0;
                while (k < MB_NOPS && strcmp(t, mb_op_names[k]) != 0)
                    k++;
                if (k == MB_NOPS) {
                    fprintf(stderr, "mns-bench: unknown op \"%s\" (modmul, modsqr, modexp)\n",
                            t);
                    return 2;
                }
                run.ops[k] = any = 1;
            }
            free(copy);
            if (!any)
                return usage(stderr), 2;
            break;
        }
        case O_BACKENDS:
            if (parse_specs(&run, optarg) != 0) {
                fprintf(stderr, "mns-bench: bad --backends \"%s\"\n", optarg);
                return 2;
            }
            run.specs_given = 1;
            break;
        case O_BASELINES:
            run.baselines = 0;
            if (strstr(optarg, "gmp")) run.baselines |= 1;
            if (strstr(optarg, "openssl")) run.baselines |= 2;
            if (strstr(optarg, "ipp")) run.baselines |= 4;
            if (!run.baselines && strcmp(optarg, "none") != 0) {
                fprintf(stderr, "mns-bench: bad --baselines \"%s\"\n", optarg);
                return 2;
            }
            break;
        case O_QUICK: run.mode = modes[0]; break;
        case O_FULL: run.mode = modes[2]; break;
        case O_BUDGET:
            budget = strtod(optarg, &end);
            if (*end || budget <= 0) return usage(stderr), 2;
            break;
        case O_DATASETS:
            datasets = strtol(optarg, &end, 10);
            if (*end || datasets < 1) return usage(stderr), 2;
            break;
        case O_BATCH:
            batch = strtol(optarg, &end, 10);
            if (*end || batch < 1) return usage(stderr), 2;
            break;
        case O_SEED:
            run.seed = strtoul(optarg, &end, 10);
            if (*end) return usage(stderr), 2;
            break;
        case O_THREADS:
            run.threads = (int)strtol(optarg, &end, 10);
            if (*end || run.threads < 1) return usage(stderr), 2;
            break;
        case O_JSON: run.json_path = optarg; break;
        case O_BATCH_SECTION:
            run.batch_section = strcmp(optarg, "off") == 0 ? 0 : strcmp(optarg, "only") == 0 ? 2 : 1;
            if (run.batch_section == 1 && strcmp(optarg, "on") != 0) {
                fprintf(stderr, "mns-bench: bad --batch-section \"%s\" (on, off, only)\n", optarg);
                return 2;
            }
            break;
        case O_GEN: gen = 1; break;
        case O_MODULI:
            if (strcmp(optarg, "random") != 0 && strcmp(optarg, "pseudo-mersenne") != 0) {
                fprintf(stderr, "mns-bench: bad --moduli \"%s\" (random, pseudo-mersenne)\n",
                        optarg);
                return 2;
            }
            run.pseudo_mersenne = strcmp(optarg, "pseudo-mersenne") == 0;
            break;
        case 'v': run.verbose = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "mns-bench: unexpected argument \"%s\"\n", argv[optind]);
        return 2;
    }
    if (gen) {
        gen_primes(&run);
        return 0;
    }
    if (budget > 0) run.mode.budget_s = budget;
    if (datasets > 0) {
        run.mode.datasets = (unsigned)datasets;
        if (run.mode.min_datasets > run.mode.datasets) run.mode.min_datasets = run.mode.datasets;
    }
    if (batch > 0) {
        run.mode.batch = (unsigned)batch;
        if (run.mode.pref_batch > run.mode.batch) run.mode.pref_batch = run.mode.batch;
    }
    if (!run.specs_given)
        for (size_t i = 0; mb_known_backends[i]; i++)
            run.specs[run.nspecs++] = strdup(mb_known_backends[i]);

    /* a misspelt --backends name fails now, not after the first size */
    if (run.specs_given) {
        mpz_t q;
        mpz_init_set_ui(q, 1);
        mpz_mul_2exp(q, q, 255);
        mpz_sub_ui(q, q, 19);
        for (size_t i = 0; i < run.nspecs; i++) {
            mb_impl im;
            double t;
            char why[512];
            int st = mb_mns_new(&im, q, run.specs[i], &t, why, sizeof why);
            if (st == MNS_OK)
                mb_impl_destroy(&im);
            else if (st == MNS_EINVAL) {
                fprintf(stderr, "mns-bench: backend \"%s\": %s\n", run.specs[i], why);
                mpz_clear(q);
                return 2;
            }
        }
        mpz_clear(q);
    }

    mb_report_machine(&run);
    mb_report_header(&run, stdout);
    fflush(stdout);

    /* The budget is shared out as the run goes: each cell gets the time left
     * divided by the cells left, so cheap cells (small sizes, modmul) leave
     * their unused share to the expensive ones (large modexp). */
    const double t_start = now_s();
    for (size_t si = 0; si < run.nsizes && run.batch_section != 2; si++) {
        const unsigned bits = run.sizes[si];
        mpz_t p;
        mpz_init(p);
        double t0 = now_s();
        mb_prime_info *pi = &run.primes[si];
        pi->bits = bits;
        if (run.pseudo_mersenne) {
            mb_prime_pm(p, bits);
            pi->from_table = 0;
        } else {
            if (!mb_prime_in_table(bits, run.seed))
                fprintf(stderr, "  %u-bit prime for seed %lu: generating (slow for large sizes)\n",
                        bits, run.seed);
            pi->from_table = mb_prime(p, bits, run.seed);
        }
        pi->gen_s = now_s() - t0;
        pi->hex = mpz_get_str(NULL, 16, p);

        mb_impl impls[MB_MAX_COLUMNS];
        double setup_s[MB_MAX_COLUMNS];
        size_t nimpl = make_impls(&run, bits, p, impls, setup_s);

        fprintf(stderr, "[%2zu/%zu] %5u bits:", si + 1, run.nsizes, bits);
        double ts = now_s();
        size_t cells_here = 0;
        for (int op = 0; op < MB_NOPS; op++)
            for (size_t i = 0; i < nimpl && run.ops[op]; i++)
                cells_here += impls[i].call[op] != NULL;
        size_t done_here = 0;
        for (int op = 0; op < MB_NOPS; op++) {
            if (!run.ops[op])
                continue;
            size_t k = 0;
            for (size_t i = 0; i < nimpl; i++)
                k += impls[i].call[op] != NULL;
            double left = run.mode.budget_s - (now_s() - t_start) - reserve(&run, si);
            size_t cells_left = cells_here - done_here + cells_here * (run.nsizes - si - 1);
            double share = left / (double)cells_left * (double)k;
            if (share < 0.02 * (double)k)
                share = 0.02 * (double)k;
            if (run.verbose)
                fprintf(stderr, "\n  %s: %.2f s for %zu implementations\n", mb_op_names[op],
                        share, k);
            else
                fprintf(stderr, " %s", mb_op_names[op]);
            run_cell(&run, bits, p, (mb_op)op, impls, setup_s, nimpl, share);
            done_here += k;
        }
        fprintf(stderr, "  (%.1f s)\n", now_s() - ts);
        for (size_t i = 0; i < nimpl; i++)
            mb_impl_destroy(&impls[i]);
        mpz_clear(p);
    }
    run.elapsed_s = now_s() - t_start;

    if (run.batch_section != 2)
        mb_report_tables(&run, stdout);
    if (run.batch_section) {
        fprintf(stderr, "batch section\n");
        mb_batch_section(&run, stdout);
    }
    run.elapsed_s = now_s() - t_start;
    int rc = 0;
    if (run.json_path && mb_report_json(&run, run.json_path) != 0)
        rc = 2;
    if (run.mismatches) {
        printf("\n*** %u RESULTS DIFFER FROM GMP: see the MISMATCH lines on stderr ***\n",
               run.mismatches);
        fprintf(stderr, "\n*** %u RESULTS DIFFER FROM GMP ***\n", run.mismatches);
        rc = 1;
    }
    for (size_t i = 0; i < run.nsizes; i++)
        free(run.primes[i].hex);
    for (size_t i = 0; i < run.nspecs; i++)
        free(run.specs[i]);
    free(run.res);
    free(run.skips);
    free(run.batch_rows);
    return rc;
}
