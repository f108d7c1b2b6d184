/* mns-tune: measures every backend of the library (and its main options) on
 * this machine, per size and operation mix, and writes the tuning table that
 * "auto" reads (format: include/mns_tune.h; method: docs/auto.md). With
 * --check it also measures "auto" in the same run and fails if auto is more
 * than 10% slower than the fastest backend for modmul or modexp.
 *
 * Method (the benchmark's, docs/bench.md, made robust to a shared machine):
 * every implementation of a size is created once (its setup time recorded),
 * warmed up, then measured in interleaved rounds -- a fresh data set per
 * round, every implementation in turn, starting from a different one each
 * round -- and its figure is the minimum over rounds of the per-batch minima
 * of rdtsc-timed single calls. Every result is checked against GMP. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mns.h>
#include <mns_tune.h>

#include "core/deadline.h"

#include "backends.h"
#include "baselines.h"
#include "primes.h"
#include "timing.h"

#define MAX_SIZES 32
#define MAX_SPECS 48
#define MAX_IMPLS (MAX_SPECS + 8)
#define NOPS 2 /* table ops: mul (modmul), exp (modexp) */
#define NFORMS 3 /* prime p, pseudo-Mersenne prime p, odd composite p */
#define FORM_ODD 2 /* measured by --check: no row of its own (see write_table) */

static const mb_op op_of[NOPS] = {MB_MODMUL, MB_MODEXP};
static const char *const op_word[NOPS] = {"mul", "exp"};
static const char *const form_word[NFORMS] = {"any", "pm", "odd"};

static const unsigned standard_sizes[] = {256,  401,  512,  807,  1024, 1214, 1621, 2029,
                                          2048, 2436, 2844, 3072, 3251, 4096, 6144, 8192};

/* The main options worth a table row of their own, beside each backend's
 * defaults: coefficient words s of multi-precision PMNS (the paper's 1024-
 * 8192 bit range uses s = 2..4), and threads for the multipartite methods. */
static const struct {
    const char *backend, *opts;
} variants[] = {
    {"pmns-mp", "s=2"},      {"pmns-mp", "s=3"},       {"pmns-mp-ifma", "s=2"},
    {"pmns-mp-ifma", "s=3"}, {"mpart", "k=2,threads=2"}, {"bipartite", "threads=2"},
};

typedef struct cfg {
    unsigned sizes[MAX_SIZES];
    size_t nsizes;
    int ops[NOPS];
    int forms[NFORMS];
    char *specs[MAX_SPECS];
    size_t nspecs;
    unsigned rounds;
    double cell_budget_s;   /* per size and op, all implementations */
    double batch_s;
    double max_setup_s;
    double tolerance;       /* --check: auto may be this much slower */
    double prune;           /* drop from the rounds what is this much slower */
    int check;
    int verbose;
    int ct_only;            /* --quick: only what a table may hold */
    int no_refs;            /* --quick: GMP checks every result, nobody times it */
    int cache;              /* --cache: write the table where the library finds it */
    const char *cpu;        /* the table's "cpu" line; NULL: none (--from-csv) */
    const char *name;       /* --name: the table's class, if not this process's */
    unsigned long seed;
    const char *out, *csv;
    char argv_line[1024];
    const char *from_csv;
    const char *notes[4];   /* --note, into the table */
    size_t nnotes;
} cfg;

/* One measured figure. */
typedef struct fig {
    unsigned bits;
    int op, form;
    char impl[96];
    int is_mns, is_auto;
    mb_kind kind;
    uint64_t ticks;        /* min over rounds of per-batch minima, net */
    double setup_s;
    unsigned mismatches;
    char describe[MB_DESCRIBE_MAX];
} fig;

static fig *figs;
static size_t nfigs, capfigs;
static unsigned total_mismatches;
static uint64_t overhead;
static double tsc_ghz;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static fig *new_fig(void)
{
    if (nfigs == capfigs) {
        capfigs = capfigs ? 2 * capfigs : 256;
        figs = realloc(figs, capfigs * sizeof *figs);
        if (!figs) {
            fprintf(stderr, "mns-tune: out of memory\n");
            exit(2);
        }
    }
    memset(&figs[nfigs], 0, sizeof *figs);
    return &figs[nfigs++];
}

/* ---- moduli ---------------------------------------------------------------- */

/* The largest prime 2^bits - eps (eps odd, smallest first): the pseudo-
 * Mersenne modulus of a size, as sum-of-residues RNS wants it. */
static void pm_prime(mpz_t p, unsigned bits)
{
    mpz_set_ui(p, 0);
    mpz_setbit(p, bits);
    mpz_sub_ui(p, p, 1);
    while (!mpz_probab_prime_p(p, 30))
        mpz_sub_ui(p, p, 2);
}

/* A random odd composite of exactly `bits` bits (an RSA modulus, Paillier's
 * n^2, any user not on a prime), the same for a given seed. */
static void odd_composite(mpz_t p, unsigned bits, unsigned long seed)
{
    gmp_randstate_t rs;
    gmp_randinit_mt(rs);
    gmp_randseed_ui(rs, seed * 7919UL + bits);
    do {
        mpz_urandomb(p, rs, bits);
        mpz_setbit(p, bits - 1);
        mpz_setbit(p, 0);
    } while (mpz_probab_prime_p(p, 30));
    gmp_randclear(rs);
}

/* ---- one cell: one size, one op, a set of implementations ---------------- */

static void draw(gmp_randstate_t rs, const mpz_t p, unsigned bits, mpz_t a, mpz_t b, mpz_t e)
{
    mpz_urandomm(a, rs, p);
    mpz_urandomm(b, rs, p);
    mpz_urandomb(e, rs, bits);
    mpz_setbit(e, bits - 1);
}

/* best[i] <- min over rounds of the batch minimum of impl i; bad[i] counts
 * results that differ from GMP. */
static void measure(const cfg *c, gmp_randstate_t rs, const mpz_t p, unsigned bits, mb_op op,
                    mb_impl **im, size_t n, uint64_t *best, unsigned *bad)
{
    mpz_t a, b, e, ref, got;
    mpz_inits(a, b, e, ref, got, NULL);
    const double tps = tsc_ghz * 1e9;
    unsigned batch[MAX_IMPLS];
    double cost[MAX_IMPLS], round_ticks = 0;
    draw(rs, p, bits, a, b, e);
    for (size_t i = 0; i < n; i++) {
        im[i]->load(im[i]->state, op, a, b, e);
        cost[i] = (double)mb_warmup(im[i]->call[op], im[i]->state, 200,
                                    (uint64_t)(0.02 * c->cell_budget_s * tps));
        double bt = c->batch_s * tps / cost[i];
        batch[i] = bt < 1 ? 1 : bt > 200 ? 200 : (unsigned)bt;
        round_ticks += cost[i] * batch[i];
        best[i] = UINT64_MAX;
        bad[i] = 0;
    }
    /* an mns implementation more than --prune times slower than the fastest
     * at warm-up can neither win nor hand over usefully: its warm-up figure
     * stands, and the rounds are spent on the others (the references always
     * run). This is what keeps 8192-bit modexp affordable. */
    double fastest = 0;
    for (size_t i = 0; i < n; i++)
        if (im[i]->kind == MB_KIND_MNS && (fastest == 0 || cost[i] < fastest))
            fastest = cost[i];
    int skip[MAX_IMPLS];
    for (size_t i = 0; i < n; i++) {
        skip[i] = im[i]->kind == MB_KIND_MNS && cost[i] > c->prune * fastest;
        if (skip[i]) {
            best[i] = mb_net((uint64_t)cost[i], overhead);
            round_ticks -= cost[i] * batch[i];
        }
    }
    /* rounds within the cell's budget, but never fewer than three */
    unsigned rounds = c->rounds;
    while (rounds > 3 && rounds * round_ticks > c->cell_budget_s * tps)
        rounds--;
    for (unsigned r = 0; r < rounds; r++) {
        draw(rs, p, bits, a, b, e);
        if (op == MB_MODEXP)
            mpz_powm(ref, a, e, p);
        else {
            mpz_mul(ref, a, b);
            mpz_mod(ref, ref, p);
        }
        for (size_t k = 0; k < n; k++) {
            size_t i = (k + r) % n; /* a different first implementation each round */
            if (skip[i])
                continue;
            im[i]->load(im[i]->state, op, a, b, e);
            uint64_t t = mb_net(mb_batch_min(im[i]->call[op], im[i]->state, batch[i]), overhead);
            if (t < best[i])
                best[i] = t;
            im[i]->result(im[i]->state, op, got);
            if (mpz_cmp(got, ref) != 0) {
                if (bad[i]++ == 0)
                    fprintf(stderr, "*** MISMATCH: %s %s at %u bits\n", im[i]->name,
                            mb_op_names[op], bits);
                total_mismatches++;
            }
        }
    }
    mpz_clears(a, b, e, ref, got, NULL);
}

/* 1 if auto's description (the backend's, then ' auto="...') names the very
 * backend and parameters of `other`: the two then time the same code. */
static int same_backend(const char *auto_describe, const char *other)
{
    const char *cut = strstr(auto_describe, " auto=\"");
    size_t n = cut ? (size_t)(cut - auto_describe) : strlen(auto_describe);
    return strlen(other) == n && strncmp(auto_describe, other, n) == 0;
}

/* --check on a shared machine: a cell where auto looks more than the
 * tolerance slower than the fastest backend is measured again, auto and that
 * backend only, twice at most, keeping the minima: a burst of load during
 * auto's turn is not a wrong choice. */
static void recheck(const cfg *c, gmp_randstate_t rs, const mpz_t p, unsigned bits, mb_op op,
                    mb_impl **im, const size_t *idx, const int *is_auto, size_t m,
                    uint64_t *best, unsigned *bad)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        size_t a = m, f = m;
        for (size_t k = 0; k < m; k++) {
            if (is_auto[idx[k]])
                a = k;
            else if (im[k]->kind == MB_KIND_MNS && !bad[k] && (f == m || best[k] < best[f]))
                f = k;
        }
        if (a == m || f == m || best[a] <= (1 + c->tolerance) * best[f] ||
            same_backend(im[a]->describe, im[f]->describe))
            return;
        fprintf(stderr, " [auto %.2fx %s, measuring again]", (double)best[a] / best[f],
                im[f]->name);
        mb_impl *pair[2] = {im[a], im[f]};
        uint64_t b2[2];
        unsigned bad2[2];
        measure(c, rs, p, bits, op, pair, 2, b2, bad2);
        best[a] = b2[0] < best[a] ? b2[0] : best[a];
        best[f] = b2[1] < best[f] ? b2[1] : best[f];
        bad[a] += bad2[0];
        bad[f] += bad2[1];
    }
}

static int variable_time(const char *spec);

/* ---- one size ---------------------------------------------------------- */

typedef struct spec_state {
    double last_setup_s;
    unsigned last_bits;
    int dead; /* not built, or its setup outgrew --max-setup */
} spec_state;

static spec_state sstate[MAX_SPECS];

static int setup_foreseen_too_long(const cfg *c, size_t i, unsigned bits)
{
    const spec_state *s = &sstate[i];
    if (!s->last_bits)
        return 0;
    /* parameter generation (LLL) grows about as the cube of the size or
     * faster; below 0.1 s the figure is too noisy to extrapolate from */
    if (s->last_setup_s < 0.1)
        return 0;
    double f = s->last_setup_s * pow((double)bits / s->last_bits, 3.0);
    return f > c->max_setup_s;
}

static void run_size(const cfg *c, unsigned bits, int form)
{
    mpz_t p;
    mpz_init(p);
    double t0 = now_s();
    if (form == 0)
        mb_prime(p, bits, c->seed);
    else if (form == 1)
        pm_prime(p, bits);
    else
        odd_composite(p, bits, c->seed);
    fprintf(stderr, "%u bits (%s p, found in %.1f s):", bits, form_word[form], now_s() - t0);

    mb_impl impls[MAX_IMPLS];
    double setup[MAX_IMPLS];
    int is_mns[MAX_IMPLS], is_auto[MAX_IMPLS], auto_op[MAX_IMPLS];
    size_t n = 0;
    for (size_t i = 0; i < c->nspecs; i++) {
        if (sstate[i].dead || (c->ct_only && variable_time(c->specs[i])))
            continue;
        if (setup_foreseen_too_long(c, i, bits)) {
            fprintf(stderr, " [%s: setup foreseen > %.0f s, dropped]", c->specs[i], c->max_setup_s);
            sstate[i].dead = 1;
            continue;
        }
        char why[512];
        /* the setup limit as the generator's deadline: a parameter
         * generation that would run for minutes (pmns-mp:s=2 at 4096 bits,
         * 104 s on a quiet Zen 3) gives up at the limit instead of being
         * dropped only once it has finished */
        mns_deadline_set_ms(1000 * c->max_setup_s);
        int st = mb_mns_new(&impls[n], p, c->specs[i], &setup[n], why, sizeof why);
        mns_deadline_set_ms(0);
        if (st == MNS_EINVAL && strstr(why, "unknown backend")) {
            sstate[i].dead = 1;
            continue;
        }
        if (st == MNS_ERANGE && strstr(why, "deadline")) {
            fprintf(stderr, " [%s: setup > %.0f s, dropped]", c->specs[i], c->max_setup_s);
            sstate[i].dead = 1;
            continue;
        }
        if (st != MNS_OK) {
            if (c->verbose)
                fprintf(stderr, "\n  %s refuses: %s", c->specs[i], why);
            continue;
        }
        sstate[i].last_setup_s = setup[n];
        sstate[i].last_bits = bits;
        if (setup[n] > c->max_setup_s)
            sstate[i].dead = 1;
        is_mns[n] = 1;
        is_auto[n] = 0;
        n++;
    }
    if (c->check)
        for (int o = 0; o < NOPS; o++) {
            if (!c->ops[o])
                continue;
            char spec[32], why[512];
            snprintf(spec, sizeof spec, "auto:op=%s", op_word[o]);
            if (mb_mns_new(&impls[n], p, spec, &setup[n], why, sizeof why) != MNS_OK) {
                fprintf(stderr, "\nmns-tune: %s refused a %u-bit %s p: %s\n", spec, bits,
                        form_word[form], why);
                exit(1);
            }
            is_mns[n] = 1;
            is_auto[n] = 1;
            auto_op[n] = o;
            n++;
        }
    int (*refs[])(mb_impl *, const mpz_t) = {mb_gmp_mul_tdiv_new, mb_gmp_mont_new,
                                             mb_gmp_powm_sec_new, mb_openssl_mont_new,
                                             mb_openssl_mont_ct_new};
    for (size_t i = 0; i < sizeof refs / sizeof refs[0] && !c->no_refs; i++) {
        if (refs[i](&impls[n], p) != 0)
            exit(2);
        setup[n] = 0;
        is_mns[n] = is_auto[n] = 0;
        n++;
    }

    gmp_randstate_t rs;
    gmp_randinit_mt(rs);
    gmp_randseed_ui(rs, c->seed * 1000003UL + bits * 2 + (unsigned)form);
    for (int o = 0; o < NOPS; o++) {
        if (!c->ops[o])
            continue;
        mb_op op = op_of[o];
        mb_impl *im[MAX_IMPLS];
        size_t idx[MAX_IMPLS], m = 0;
        for (size_t i = 0; i < n; i++)
            if (impls[i].call[op] && (!is_auto[i] || auto_op[i] == o)) {
                im[m] = &impls[i];
                idx[m++] = i;
            }
        uint64_t best[MAX_IMPLS];
        unsigned bad[MAX_IMPLS];
        double t1 = now_s();
        measure(c, rs, p, bits, op, im, m, best, bad);
        if (c->check)
            recheck(c, rs, p, bits, op, im, idx, is_auto, m, best, bad);
        fprintf(stderr, " %s %.1f s", op_word[o], now_s() - t1);
        for (size_t k = 0; k < m; k++) {
            fig *f = new_fig();
            f->bits = bits;
            f->op = o;
            f->form = form;
            snprintf(f->impl, sizeof f->impl, "%s", im[k]->name);
            f->is_mns = is_mns[idx[k]];
            f->is_auto = is_auto[idx[k]];
            f->kind = im[k]->kind;
            f->ticks = best[k];
            f->setup_s = setup[idx[k]];
            f->mismatches = bad[k];
            snprintf(f->describe, sizeof f->describe, "%s", im[k]->describe);
            if (c->verbose)
                fprintf(stderr, "\n    %-4s %5u %-28s %12llu%s", op_word[o], bits, f->impl,
                        (unsigned long long)f->ticks, bad[k] ? " MISMATCH" : "");
        }
    }
    fprintf(stderr, "\n");
    gmp_randclear(rs);
    for (size_t i = 0; i < n; i++)
        mb_impl_destroy(&impls[i]);
    mpz_clear(p);
}

/* ---- analysis ------------------------------------------------------------- */

/* Backends that are not constant time (mns_mpart.h: GMP's Toom products
 * branch on data): measured and reported, but never put in a table, since
 * "auto" must keep the mns_field contract (and serves RSA). */
static int variable_time(const char *spec)
{
    static const char *const names[] = {"mpart", "bipartite", "mpart-mont", "mpart-barrett"};
    size_t len = strcspn(spec, ":");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == len && strncmp(spec, names[i], len) == 0)
            return 1;
    return 0;
}

/* The figures of (bits, op, form) that may win: constant-time mns backends,
 * not auto, with every result right. */
static size_t cell(unsigned bits, int op, int form, const fig **out, int mns_only)
{
    size_t n = 0;
    for (size_t i = 0; i < nfigs; i++) {
        const fig *f = &figs[i];
        if (f->bits == bits && f->op == op && f->form == form && !f->is_auto &&
            (!mns_only || (f->is_mns && !f->mismatches && !variable_time(f->impl))))
            out[n++] = f;
    }
    return n;
}

static const fig *fastest(const fig **v, size_t n, const char *const *skip, size_t nskip)
{
    const fig *b = NULL;
    for (size_t i = 0; i < n; i++) {
        int skipped = 0;
        for (size_t k = 0; k < nskip; k++)
            skipped |= strcmp(v[i]->impl, skip[k]) == 0;
        if (!skipped && (!b || v[i]->ticks < b->ticks))
            b = v[i];
    }
    return b;
}

static uint64_t best_kind(unsigned bits, int op, int form, mb_kind kind)
{
    uint64_t b = 0;
    for (size_t i = 0; i < nfigs; i++) {
        const fig *f = &figs[i];
        if (f->bits == bits && f->op == op && f->form == form && f->kind == kind &&
            !f->mismatches && (b == 0 || f->ticks < b))
            b = f->ticks;
    }
    return b;
}

/* The measured ranking of one size: every usable constant-time backend,
 * rank[0] the fastest. Returns the count. */
static size_t ranking(unsigned bits, int op, int form, const fig **rank)
{
    const fig *v[MAX_IMPLS];
    size_t n = cell(bits, op, form, v, 1), k = 0;
    const char *taken[MAX_IMPLS];
    while (k < n) {
        const fig *b = fastest(v, n, taken, k);
        if (!b)
            break;
        rank[k] = b;
        taken[k++] = b->impl;
    }
    return k;
}

static int same_order(const fig **x, size_t nx, const fig **y, size_t ny)
{
    if (nx != ny)
        return 0;
    for (size_t i = 0; i < nx; i++)
        if (strcmp(x[i]->impl, y[i]->impl) != 0)
            return 0;
    return 1;
}

/* One row per run of contiguous sizes ranked in the same order; a boundary
 * sits half-way between two measured sizes, the first range starts at 2 bits
 * and the last runs on (beyond the sizes measured the last ranking is the
 * best guess, and a refusal still hands over). Each candidate's figure is its
 * ticks over the first's, the worst over the sizes of the range (the order
 * being the same at each, the figures never decrease along the row). The
 * whole ranking is written, not the winner alone: the candidate after one
 * that refuses p (a composite for a PMNS, a missing CPU feature) is the
 * fastest measured among those that serve it. */
static void write_rows(FILE *out, const cfg *c, int op, int form)
{
    size_t i = 0;
    while (i < c->nsizes) {
        const fig *r0[MAX_IMPLS];
        size_t k0 = ranking(c->sizes[i], op, form, r0);
        if (k0 == 0) {
            i++;
            continue;
        }
        double worst[MAX_IMPLS];
        for (size_t k = 0; k < k0; k++)
            worst[k] = (double)r0[k]->ticks / r0[0]->ticks;
        size_t j = i + 1;
        for (; j < c->nsizes; j++) {
            const fig *rj[MAX_IMPLS];
            size_t kj = ranking(c->sizes[j], op, form, rj);
            if (!same_order(r0, k0, rj, kj))
                break;
            for (size_t k = 0; k < k0; k++) {
                double q = (double)rj[k]->ticks / rj[0]->ticks;
                worst[k] = q > worst[k] ? q : worst[k];
            }
        }
        unsigned lo = i == 0 ? 2 : (c->sizes[i - 1] + c->sizes[i]) / 2 + 1;
        unsigned hi = j == c->nsizes ? 100000 : (c->sizes[j - 1] + c->sizes[j]) / 2;
        fprintf(out, "row %s %s %u-%u", op_word[op], form_word[form], lo, hi);
        for (size_t k = 0; k < k0; k++)
            fprintf(out, " %s %.2f", r0[k]->impl, k ? worst[k] : 1.0);
        fprintf(out, "\n");
        i = j;
    }
}

static void write_header(FILE *out, const cfg *c)
{
    time_t t = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    double load[3] = {0, 0, 0};
    if (getloadavg(load, 3) < 0)
        load[0] = load[1] = load[2] = -1;
    if (c->from_csv)
        fprintf(out, "# regenerate: %s (converted: the figures of %s ranked in format 2, nothing "
                     "measured; to measure afresh, on a CPU of this class: make tune)\n",
                c->argv_line, c->from_csv);
    else
        fprintf(out, "# regenerate: %s\n", c->argv_line);
    fprintf(out, "mns-tune-table 2\n");
    const char *cpu = getenv("MNS_CPU");
    fprintf(out, "name %s\n", c->name ? c->name : mns_tune_cpu_class());
    if (c->cpu)
        fprintf(out, "cpu %s\n", c->cpu);
    if (c->from_csv)
        fprintf(out, "note rows from the figures in %s (an earlier run's --csv), written %s\n",
                c->from_csv, date);
    else
        fprintf(out, "note measured %s, load average %.2f %.2f %.2f, MNS_CPU=%s, TSC %.2f GHz%s\n",
                date, load[0], load[1], load[2], cpu ? cpu : "(native)", tsc_ghz,
                c->ct_only ? ", --quick (3 rounds, constant-time backends only)" : "");
    fprintf(out, "note method: min over interleaved rounds of rdtsc batch minima, every result "
                 "checked against GMP; each row ranks every constant-time backend measured, "
                 "fastest first, with its ticks over the first's (the worst in the range)\n");
    for (size_t i = 0; i < c->nnotes; i++)
        fprintf(out, "note %s\n", c->notes[i]);
    for (size_t i = 0; i < c->nspecs; i++)
        if (sstate[i].last_setup_s > 0.5)
            fprintf(out, "note setup: %s took %.1f s at %u bits\n", c->specs[i],
                    sstate[i].last_setup_s, sstate[i].last_bits);
}

/* mkdir -p of path's directory (the cache directory may not exist yet) */
static int make_parent(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *s = dir + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(dir, 0755) != 0 && errno != EEXIST)
                return -1;
            *s = '/';
        }
    return 0;
}

/* The table goes to a temporary file renamed over the target, so a process
 * reading the cache meanwhile sees the old table or the new, never half. The
 * composites (--check) have no rows: every backend that serves them runs as
 * fast on a composite as on a prime of its size, so the "any" ranking, minus
 * those that refuse, is theirs; --check measures that it holds. */
static int write_table(const cfg *c)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", c->out, (long)getpid());
    if (c->cache && make_parent(c->out) != 0) {
        fprintf(stderr, "mns-tune: cannot create the directory of %s: %s\n", c->out,
                strerror(errno));
        return -1;
    }
    FILE *out = fopen(tmp, "w");
    if (!out) {
        fprintf(stderr, "mns-tune: %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    write_header(out, c);
    for (int form = 0; form < FORM_ODD; form++)
        for (int op = 0; op < NOPS; op++)
            if (c->forms[form] && c->ops[op]) {
                fprintf(out, "# %s, %s p\n", op_word[op], form_word[form]);
                write_rows(out, c, op, form);
            }
    if (fclose(out) != 0 || rename(tmp, c->out) != 0) {
        fprintf(stderr, "mns-tune: %s: %s\n", c->out, strerror(errno));
        remove(tmp);
        return -1;
    }
    if (c->cache)
        fprintf(stderr, "mns-tune: calibrated table for %s written to %s\n", c->cpu, c->out);
    return 0;
}

/* Per size and op: the winner, its margin, GMP, OpenSSL and (--check) auto. */
static int summary(const cfg *c)
{
    int fail = 0;
    printf("%-4s %-4s %5s  %-26s %10s %-22s %6s %10s %10s %7s %7s", "op", "form", "bits", "fastest",
           "ticks", "runner-up", "margin", "gmp", "openssl", "xgmp", "xossl");
    if (c->check)
        printf(" %-24s %10s %6s", "auto chose", "auto", "ratio");
    printf("\n");
    for (int form = 0; form < NFORMS; form++)
        for (int op = 0; op < NOPS; op++)
            for (size_t s = 0; s < c->nsizes && c->forms[form] && c->ops[op]; s++) {
                unsigned bits = c->sizes[s];
                const fig *r[MAX_IMPLS];
                size_t k = ranking(bits, op, form, r);
                if (!k)
                    continue;
                uint64_t g = best_kind(bits, op, form, MB_KIND_GMP);
                uint64_t o = best_kind(bits, op, form, MB_KIND_OPENSSL);
                printf("%-4s %-4s %5u  %-26s %10llu %-22s %6.2f %10llu %10llu %7.2f %7.2f",
                       op_word[op], form_word[form], bits, r[0]->impl,
                       (unsigned long long)r[0]->ticks, k > 1 ? r[1]->impl : "-",
                       k > 1 ? (double)r[1]->ticks / r[0]->ticks : 0.0, (unsigned long long)g,
                       (unsigned long long)o, g ? (double)g / r[0]->ticks : 0.0,
                       o ? (double)o / r[0]->ticks : 0.0);
                if (c->check)
                    for (size_t i = 0; i < nfigs; i++) {
                        const fig *f = &figs[i];
                        if (!f->is_auto || f->bits != bits || f->op != op || f->form != form)
                            continue;
                        double ratio = (double)f->ticks / r[0]->ticks;
                        const char *d = f->describe;
                        /* the spec of the row auto took ("... line N: <form> <spec> ..."),
                         * else (mont closing the list) the backend's name */
                        char chose[32];
                        const char *a = strstr(d, "auto=\"");
                        const char *l = a ? strstr(a, " line ") : NULL;
                        const char *sp = l ? strchr(l + 6, ' ') : NULL;
                        sp = sp ? strchr(sp + 1, ' ') : NULL;
                        if (sp)
                            snprintf(chose, sizeof chose, "%.*s", (int)strcspn(sp + 1, " "), sp + 1);
                        else
                            snprintf(chose, sizeof chose, "%.*s", (int)strcspn(d, " "), d);
                        /* auto running the fastest's own backend and parameters is
                         * right by identity: the ratio is then the run's noise */
                        int same = same_backend(d, r[0]->describe);
                        int bad = (ratio > 1 + c->tolerance && !same) || f->mismatches;
                        printf(" %-24s %10llu %6.2f%s", chose, (unsigned long long)f->ticks,
                               ratio, bad ? "  FAIL" : same ? "  same" : "");
                        fail |= bad;
                    }
                printf("\n");
            }
    return fail;
}

static void write_csv(const cfg *c)
{
    FILE *out = fopen(c->csv, "w");
    if (!out) {
        fprintf(stderr, "mns-tune: %s: %s\n", c->csv, strerror(errno));
        return;
    }
    fprintf(out, "op,form,bits,impl,kind,ticks,setup_s,mismatches\n");
    for (size_t i = 0; i < nfigs; i++) {
        const fig *f = &figs[i];
        fprintf(out, "%s,%s,%u,\"%s\",%s,%llu,%.3f,%u\n", op_word[f->op], form_word[f->form],
                f->bits, f->impl,
                f->is_auto ? "auto" : f->kind == MB_KIND_GMP ? "gmp"
                                  : f->kind == MB_KIND_OPENSSL ? "openssl" : "mns",
                (unsigned long long)f->ticks, f->setup_s, f->mismatches);
    }
    fclose(out);
}

/* --from-csv: the figures of an earlier run (its --csv file), to write the
 * table again without measuring. Fills c->sizes and c->forms from it. */
static int read_csv(cfg *c, const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "mns-tune: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[512];
    if (!fgets(line, sizeof line, in) || strncmp(line, "op,form,bits,impl,", 18) != 0) {
        fprintf(stderr, "mns-tune: %s: not an mns-tune --csv file\n", path);
        fclose(in);
        return -1;
    }
    c->nsizes = 0;
    c->forms[0] = c->forms[1] = 0;
    unsigned ln = 1;
    while (fgets(line, sizeof line, in)) {
        ln++;
        char op[8], form[8], impl[96], kind[16];
        unsigned bits, bad;
        unsigned long long ticks;
        double setup;
        if (sscanf(line, "%7[^,],%7[^,],%u,\"%95[^\"]\",%15[^,],%llu,%lf,%u", op, form, &bits, impl,
                   kind, &ticks, &setup, &bad) != 8) {
            fprintf(stderr, "mns-tune: %s:%u: malformed line\n", path, ln);
            fclose(in);
            return -1;
        }
        fig *f = new_fig();
        f->bits = bits;
        f->op = strcmp(op, "exp") == 0;
        f->form = strcmp(form, "pm") == 0;
        snprintf(f->impl, sizeof f->impl, "%s", impl);
        f->is_auto = strcmp(kind, "auto") == 0;
        f->is_mns = f->is_auto || strcmp(kind, "mns") == 0;
        f->kind = strcmp(kind, "gmp") == 0 ? MB_KIND_GMP
                  : strcmp(kind, "openssl") == 0 ? MB_KIND_OPENSSL : MB_KIND_MNS;
        f->ticks = ticks;
        f->setup_s = setup;
        f->mismatches = bad;
        c->forms[f->form] = 1;
        size_t k = 0;
        while (k < c->nsizes && c->sizes[k] != bits)
            k++;
        if (k == c->nsizes && c->nsizes < MAX_SIZES) {
            /* insertion keeps the sizes ascending */
            size_t at = c->nsizes++;
            while (at > 0 && c->sizes[at - 1] > bits) {
                c->sizes[at] = c->sizes[at - 1];
                at--;
            }
            c->sizes[at] = bits;
        }
    }
    fclose(in);
    return 0;
}

/* ---- options -------------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mns-tune [--quick] [--sizes N,N,...] [--ops mul,exp] [--pm|--pm-only]\n"
            "                [--backends SPEC;SPEC...] [--rounds R] [--budget S] [--max-setup S]\n"
            "                [--out TABLE] [--csv FILE] [--check [--tolerance F]] [--prune F]\n"
            "                [--seed N] [--from-csv FILE [--cpu KEY] [--name CLASS]]\n"
            "                [--note TEXT] [--cache] [-v]\n"
            "       mns-tune --class | --has-table\n"
            "Measures every backend (and its main options) per size for modmul (mul) and\n"
            "modexp (exp), prints the winners beside GMP and OpenSSL, and with --out writes\n"
            "the tuning table of \"auto\" (include/mns_tune.h, docs/auto.md). --check adds\n"
            "auto:op=mul and auto:op=exp to the run and exits 1 if auto is more than\n"
            "--tolerance (default 0.10) slower than the fastest backend at any size, for\n"
            "primes and for random odd composites.\n"
            "Default sizes: the standard ones and the RNS/PMNS paper's (256..8192);\n"
            "--quick: fewer rounds, constant-time backends only. --prune F (default 2): an mns backend F times\n"
            "slower than the fastest at warm-up keeps its warm-up figure and skips the rounds.\n"
            "--from-csv FILE: write the table (--out) from an earlier run's --csv, no timing;\n"
            "--note TEXT: a note line for the table (up to 4).\n"
            "--class: print this CPU's class (tune/<class>.txt is its shipped table) and exit.\n"
            "--cache: write the table for this CPU key where the library finds it by itself\n"
            "         ($XDG_CACHE_HOME/mns/ or ~/.cache/mns/); with --quick: the calibration.\n"
            "--has-table: exit 0 if auto has a table measured for this CPU (or the user's), 1 if\n"
            "         not (then calibrate: mns-tune --quick --cache).\n"
            "--cpu KEY, --name CLASS: the \"cpu\" and \"name\" lines of a table written\n"
            "         --from-csv (the CPU and class it was measured on).\n");
}

static int parse_sizes(cfg *c, const char *s)
{
    c->nsizes = 0;
    while (*s) {
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || v < 8 || v > 100000 || c->nsizes == MAX_SIZES)
            return -1;
        c->sizes[c->nsizes++] = (unsigned)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return c->nsizes ? 0 : -1;
}

static void add_spec(cfg *c, const char *spec)
{
    if (c->nspecs < MAX_SPECS)
        c->specs[c->nspecs++] = strdup(spec);
}

/* Every backend of the library's table, then the option variants of those. */
static void default_specs(cfg *c)
{
    const char *name;
    for (size_t i = 0; (name = mns_backend_name(i)) != NULL; i++) {
        add_spec(c, name);
        for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
            if (strcmp(variants[v].backend, name) == 0) {
                char spec[96];
                snprintf(spec, sizeof spec, "%s:%s", name, variants[v].opts);
                add_spec(c, spec);
            }
    }
}

/* --has-table: exit 0 if "auto" has a table measured for this CPU key (or
 * the user's), 1 if it would use its class's table measured on another CPU
 * model, which `make bench`, `make install` and `make check-tune` then
 * calibrate (mns-tune --quick --cache). */
static int has_table(void)
{
    int own = mns_tune_own_table();
    const char *w = mns_tune_warning();
    printf("%s: %s%s%s\n", mns_tune_cpu_key(), mns_tune_current(), own ? "" : ", not measured here",
           w[0] ? "; " : "");
    if (w[0])
        printf("  %s\n", w);
    return own ? 0 : 1;
}

int main(int argc, char **argv)
{
    static cfg c;
    c.rounds = 9;
    c.cell_budget_s = 6.0;
    c.batch_s = 1e-3;
    c.max_setup_s = 10.0;
    c.tolerance = 0.10;
    c.prune = 2.0;
    c.seed = MB_DEFAULT_SEED;
    c.ops[0] = c.ops[1] = 1;
    c.forms[0] = 1;
    int quick = 0, sizes_given = 0;
    size_t pos = 0;
    for (int i = 0; i < argc && pos < sizeof c.argv_line; i++) {
        const char *q = strchr(argv[i], ' ') ? "'" : "";
        pos += (size_t)snprintf(c.argv_line + pos, sizeof c.argv_line - pos, "%s%s%s%s",
                                i ? " " : "", q, argv[i], q);
    }

    static const struct option longopts[] = {
        {"quick", no_argument, 0, 'q'},     {"sizes", required_argument, 0, 's'},
        {"ops", required_argument, 0, 'o'}, {"backends", required_argument, 0, 'b'},
        {"rounds", required_argument, 0, 'r'}, {"budget", required_argument, 0, 'B'},
        {"max-setup", required_argument, 0, 'M'}, {"out", required_argument, 0, 'O'},
        {"csv", required_argument, 0, 'C'}, {"check", no_argument, 0, 'c'},
        {"tolerance", required_argument, 0, 't'}, {"seed", required_argument, 0, 'S'},
        {"pm", no_argument, 0, 'p'},        {"pm-only", no_argument, 0, 'P'},
        {"prune", required_argument, 0, 'x'}, {"from-csv", required_argument, 0, 'F'},
        {"note", required_argument, 0, 'N'}, {"verbose", no_argument, 0, 'v'},   {"help", no_argument, 0, 'h'},
        {"class", no_argument, 0, 'K'},     {"cache", no_argument, 0, 'k'},
        {"has-table", no_argument, 0, 'H'}, {"cpu", required_argument, 0, 'U'},
        {"name", required_argument, 0, 'n'},
        {0, 0, 0, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
        switch (ch) {
        case 'q': quick = 1; break;
        case 's':
            if (parse_sizes(&c, optarg) != 0) {
                fprintf(stderr, "mns-tune: bad --sizes \"%s\"\n", optarg);
                return 2;
            }
            sizes_given = 1;
            break;
        case 'o':
            c.ops[0] = strstr(optarg, "mul") != NULL;
            c.ops[1] = strstr(optarg, "exp") != NULL;
            if (!c.ops[0] && !c.ops[1]) {
                fprintf(stderr, "mns-tune: --ops takes mul, exp or mul,exp\n");
                return 2;
            }
            break;
        case 'b':
            for (char *t = strtok(optarg, ";"); t; t = strtok(NULL, ";"))
                add_spec(&c, t);
            break;
        case 'r': c.rounds = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'B': c.cell_budget_s = strtod(optarg, NULL); break;
        case 'M': c.max_setup_s = strtod(optarg, NULL); break;
        case 'O': c.out = optarg; break;
        case 'C': c.csv = optarg; break;
        case 'c': c.check = 1; break;
        case 't': c.tolerance = strtod(optarg, NULL); break;
        case 'S': c.seed = strtoul(optarg, NULL, 10); break;
        case 'p': c.forms[1] = 1; break;
        case 'P': c.forms[0] = 0; c.forms[1] = 1; break;
        case 'F': c.from_csv = optarg; break;
        case 'N':
            if (c.nnotes == 4 || strchr(optarg, '\n')) {
                fprintf(stderr, "mns-tune: at most 4 one-line --note\n");
                return 2;
            }
            c.notes[c.nnotes++] = optarg;
            break;
        case 'x': c.prune = strtod(optarg, NULL); break;
        case 'v': c.verbose = 1; break;
        case 'h': usage(stdout); return 0;
        case 'K': puts(mns_tune_cpu_class()); return 0;
        case 'k': c.cache = 1; break;
        case 'U': c.cpu = optarg; break;
        case 'n': c.name = optarg; break;
        case 'H': return has_table();
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc || c.rounds < 3 || c.rounds > 1000 || !(c.cell_budget_s > 0) ||
        !(c.max_setup_s > 0) || !(c.tolerance >= 0) || !(c.prune >= 1)) {
        usage(stderr);
        return 2;
    }
    if (!sizes_given) {
        /* --quick too: the check requires auto right at every one of them */
        memcpy(c.sizes, standard_sizes, sizeof standard_sizes);
        c.nsizes = sizeof standard_sizes / sizeof standard_sizes[0];
    }
    if (quick) {
        /* fewer rounds (cut to 3 at the large sizes by the budget); a
         * setup limit above the check's, so that a parameter generation
         * slowed by other work does not drop from the ranking a backend the
         * check then measures (an auto that takes a backend the check
         * dropped is only compared with fewer); a warm-up slowed by other
         * work must not prune a backend from the rounds */
        if (c.rounds == 9)
            c.rounds = 5;
        if (c.cell_budget_s == 6.0)
            c.cell_budget_s = 1.0;
        if (c.max_setup_s == 10.0)
            c.max_setup_s = 20.0;
        if (c.prune == 2.0)
            c.prune = 4.0;
        c.ct_only = c.no_refs = !c.check;
    }
    if (c.check)
        c.forms[FORM_ODD] = 1;
    if (!c.from_csv)
        c.cpu = mns_tune_cpu_key();
    if (c.cache) {
        if (c.from_csv || c.out || !mns_tune_cache_path()) {
            fprintf(stderr, "mns-tune: --cache measures (no --from-csv), writes no --out, and "
                            "needs $XDG_CACHE_HOME or $HOME\n");
            return 2;
        }
        c.out = mns_tune_cache_path();
    }
    if (c.nspecs == 0)
        default_specs(&c);

    if (c.from_csv) {
        if (read_csv(&c, c.from_csv) != 0)
            return 2;
        c.check = 0; /* the table and the summary of that run, nothing measured */
        summary(&c);
        return c.out && write_table(&c) != 0 ? 2 : 0;
    }
    tsc_ghz = mb_tsc_ghz();
    overhead = mb_overhead();
    fprintf(stderr, "mns-tune: %zu sizes, %zu specs, tuning table in use: %s\n", c.nsizes,
            c.nspecs, mns_tune_current());
    double t0 = now_s();
    for (int form = 0; form < NFORMS; form++) {
        if (!c.forms[form])
            continue;
        memset(sstate, 0, sizeof sstate);
        for (size_t s = 0; s < c.nsizes; s++)
            run_size(&c, c.sizes[s], form);
    }
    fprintf(stderr, "mns-tune: measured in %.0f s\n", now_s() - t0);
    int fail = summary(&c);
    if (c.csv)
        write_csv(&c);
    if (c.out && write_table(&c) != 0)
        return 2;
    if (total_mismatches) {
        fprintf(stderr, "mns-tune: %u results differ from GMP\n", total_mismatches);
        return 1;
    }
    if (fail)
        fprintf(stderr, "mns-tune: auto is more than %.0f%% slower than the fastest backend\n",
                100 * c.tolerance);
    return fail;
}
