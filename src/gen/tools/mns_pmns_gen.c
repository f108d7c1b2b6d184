/* mns-pmns-gen: generate, check and time PMNS parameter sets.
 *
 *   mns-pmns-gen (--p P | --pi-bits B | --random-bits B [--seed S]) [options] [-o FILE]
 *   mns-pmns-gen --check FILE
 *   mns-pmns-gen --bench [--sizes 256,512,...] [--kinds s64:1,u52:1,s64:auto,...]
 *
 * --pi-bits B takes p = the smallest prime >= floor(pi * 2^(B-2)): a fixed,
 * documented B-bit prime with no special shape (params/ uses it). Options map
 * one to one on mns_pmns_gen_opts (include/mns_pmns.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mns_pmns.h"
#include "gen/tools/pi_prime.h"

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One line per stage change, with the seconds since the start: where the
 * time goes is visible without a profiler. */
static int show_progress(void *arg, const char *stage, int n, double f)
{
    static double t0;
    static char last[16];
    static int last_n = -1;
    (void)arg;
    if (t0 == 0)
        t0 = wall();
    if (strcmp(stage, last) != 0 || n != last_n) {
        if (last[0])
            fprintf(stderr, "\n");
        snprintf(last, sizeof last, "%s", stage);
        last_n = n;
    }
    fprintf(stderr, "\r%-8s n=%-4d %3.0f%%  %8.3f s ", stage, n, 100 * f, wall() - t0);
    if (!strcmp(stage, "done"))
        fprintf(stderr, "\n");
    return 0;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: mns-pmns-gen (--p P | --pi-bits B | --random-bits B [--seed S]) [--word s64|u52]\n"
            "         [--s S|auto] [--s-max S] [--delta D] [--n N|auto] [--n-max N] [--e binomial|trinomial|auto]\n"
            "         [--lambda-max L] [--toeplitz-adds T] [--gamma-tries G] [--smooth-n] [--no-improve]\n"
            "         [--lambda-walk] [--lambda-carried]\n"
            "         [--progress] [-o FILE]\n"
            "       mns-pmns-gen --check FILE\n"
            "       mns-pmns-gen --bench [--sizes B,B,...] [--kinds s64:1,u52:3,s64:auto,...] [--delta D]\n");
    return 2;
}

static int parse_kind(const char *k, mns_pmns_gen_opts *o)
{
    char w[8];
    char sb[8];
    if (sscanf(k, "%3[a-z0-9]:%7s", w, sb) != 2)
        return 0;
    if (!strcmp(w, "s64"))
        o->word = MNS_PMNS_WORD_S64;
    else if (!strcmp(w, "u52"))
        o->word = MNS_PMNS_WORD_U52;
    else
        return 0;
    o->s = strcmp(sb, "auto") ? atoi(sb) : 0;
    return 1;
}

static int bench(const char *sizes, const char *kinds, const mns_pmns_gen_opts *base)
{
    char sz[512], kd[512];
    snprintf(sz, sizeof sz, "%s", sizes);
    /* cpu: this process' CPU seconds. On a shared machine the wall-clock
     * seconds grow with the others' load, the CPU seconds much less. */
    printf("%-6s %-9s %4s %4s %5s %6s %9s %8s %8s  %s\n", "bits", "kind", "s", "n", "s*n", "lambda", "rho_bits", "seconds",
           "cpu", "n_opt(sigma^s)");
    for (char *a = strtok(sz, ","); a; a = strtok(NULL, ",")) {
        unsigned long bits = strtoul(a, NULL, 10);
        mpz_t p;
        mpz_init(p);
        mns_pi_prime(p, bits);
        snprintf(kd, sizeof kd, "%s", kinds);
        char *save = NULL;
        for (char *k = strtok_r(kd, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
            mns_pmns_gen_opts o = *base;
            if (!parse_kind(k, &o)) {
                fprintf(stderr, "bad kind %s\n", k);
                return 2;
            }
            mns_pmns_params *P = NULL;
            struct timespec t0, t1, c0, c1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
            mns_status st = mns_pmns_generate_var(&P, p, &o);
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
            double cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
            if (st != MNS_OK) {
                printf("%-6lu %-9s  failed: %s (%.2f s)\n", bits, k, mns_last_error(), sec);
            } else {
                int s = mns_pmns_params_s(P), n = mns_pmns_params_n(P);
                printf("%-6lu %-9s %4d %4d %5d %6ld %9u %8.2f %8.2f  %d\n", bits, k, s, n, s * n,
                       mns_pmns_params_lambda(P), mns_pmns_params_rho_bits(P), sec, cpu,
                       mns_pmns_nopt(bits, mns_pmns_params_chunk_bits(P) * (unsigned)s));
                mns_pmns_params_free(P);
            }
            fflush(stdout);
        }
        mpz_clear(p);
    }
    return 0;
}

/* What the command line asks for (parse_args). */
typedef struct cli {
    mns_pmns_gen_opts o;
    mpz_t p;
    int have_p; /* 1: --p or --random-bits, 2: --pi-bits (regen names it) */
    int do_bench;
    const char *out, *check, *sizes, *kinds;
    char regen[512]; /* the command that regenerates the set, for its file */
    unsigned long seed;
    long random_bits;
} cli;

/* c <- the options of argv (c->p initialised); 0, or usage()'s status. */
static int parse_args(int argc, char **argv, cli *c)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDV \
    do { \
        if (!v) \
            return usage(); \
        i++; \
    } while (0)
        if (!strcmp(a, "--p")) {
            NEEDV;
            if (mpz_set_str(c->p, v, 0) != 0)
                return usage();
            c->have_p = 1;
        } else if (!strcmp(a, "--pi-bits")) {
            NEEDV;
            mns_pi_prime(c->p, strtoul(v, NULL, 10));
            c->have_p = 2;
            snprintf(c->regen, sizeof c->regen, "mns-pmns-gen --pi-bits %s", v);
        } else if (!strcmp(a, "--random-bits")) {
            NEEDV;
            c->random_bits = atol(v);
        } else if (!strcmp(a, "--seed")) {
            NEEDV;
            c->seed = strtoul(v, NULL, 10);
        } else if (!strcmp(a, "--word")) {
            NEEDV;
            if (!strcmp(v, "s64"))
                c->o.word = MNS_PMNS_WORD_S64;
            else if (!strcmp(v, "u52"))
                c->o.word = MNS_PMNS_WORD_U52;
            else
                return usage();
        } else if (!strcmp(a, "--s")) {
            NEEDV;
            c->o.s = strcmp(v, "auto") ? atoi(v) : 0;
        } else if (!strcmp(a, "--s-max")) {
            NEEDV;
            c->o.s_max = atoi(v);
        } else if (!strcmp(a, "--delta")) {
            NEEDV;
            c->o.delta = atoi(v);
        } else if (!strcmp(a, "--n")) {
            NEEDV;
            c->o.n = strcmp(v, "auto") ? atoi(v) : 0;
        } else if (!strcmp(a, "--n-max")) {
            NEEDV;
            c->o.n_max = atoi(v);
        } else if (!strcmp(a, "--e")) {
            NEEDV;
            if (!strcmp(v, "binomial"))
                c->o.eshape = MNS_PMNS_E_BINOMIAL;
            else if (!strcmp(v, "trinomial"))
                c->o.eshape = MNS_PMNS_E_TRINOMIAL;
            else if (!strcmp(v, "auto"))
                c->o.eshape = MNS_PMNS_E_AUTO;
            else
                return usage();
        } else if (!strcmp(a, "--lambda-max")) {
            NEEDV;
            c->o.lambda_max = atol(v);
        } else if (!strcmp(a, "--toeplitz-adds")) {
            NEEDV;
            c->o.toeplitz_adds = atoi(v);
        } else if (!strcmp(a, "--gamma-tries")) {
            NEEDV;
            c->o.gamma_tries = atoi(v);
        } else if (!strcmp(a, "--smooth-n")) {
            c->o.flags |= MNS_PMNS_GEN_SMOOTH_N;
        } else if (!strcmp(a, "--no-improve")) {
            c->o.flags |= MNS_PMNS_GEN_NO_IMPROVE;
        } else if (!strcmp(a, "--lambda-walk")) {
            c->o.flags |= MNS_PMNS_GEN_LAMBDA_WALK;
        } else if (!strcmp(a, "--lambda-carried")) {
            c->o.flags |= MNS_PMNS_GEN_LAMBDA_CARRIED;
        } else if (!strcmp(a, "--progress")) {
            c->o.progress = show_progress;
        } else if (!strcmp(a, "-o")) {
            NEEDV;
            c->out = v;
        } else if (!strcmp(a, "--check")) {
            NEEDV;
            c->check = v;
        } else if (!strcmp(a, "--bench")) {
            c->do_bench = 1;
        } else if (!strcmp(a, "--sizes")) {
            NEEDV;
            c->sizes = v;
        } else if (!strcmp(a, "--kinds")) {
            NEEDV;
            c->kinds = v;
        } else {
            return usage();
        }
    }
    return 0;
}

/* The set P on stdout or in out, with the command that regenerates it
 * (the options that differ from the defaults, after --pi-bits). */
static mns_status emit(const mns_pmns_params *P, cli *c)
{
    if (c->have_p == 2) {
        char *t = mns_pmns_params_to_string_var(P, NULL);
        const char *opt = t ? strstr(t, " --word") : NULL;
        const char *eol = opt ? strchr(opt, '\n') : NULL;
        if (opt && eol)
            snprintf(c->regen + strlen(c->regen), sizeof c->regen - strlen(c->regen), "%.*s",
                     (int)(eol - opt), opt);
        free(t);
    }
    fprintf(stderr, "%s (%.2f s)\n", mns_pmns_params_describe(P), mns_pmns_params_gen_seconds(P));
    const char *regen = c->regen[0] ? c->regen : NULL;
    if (c->out) {
        mns_status st = mns_pmns_params_save_var(P, c->out, regen);
        if (st != MNS_OK)
            fprintf(stderr, "mns-pmns-gen: %s\n", mns_last_error());
        return st;
    }
    char *t = mns_pmns_params_to_string_var(P, regen);
    if (t)
        fputs(t, stdout);
    free(t);
    return MNS_OK;
}

int main(int argc, char **argv)
{
    cli c = {.sizes = "256,512,1024,2048", .kinds = "s64:1,u52:1", .seed = 1};
    mns_pmns_gen_opts_init(&c.o);
    mpz_init(c.p);
    const int bad = parse_args(argc, argv, &c);
    if (bad)
        return bad;
    if (c.check) {
        mns_pmns_params *P;
        mns_status st = mns_pmns_params_load_var(&P, c.check);
        if (st != MNS_OK) {
            fprintf(stderr, "%s: %s\n", c.check, mns_last_error());
            return 1;
        }
        printf("%s: ok: %s\n", c.check, mns_pmns_params_describe(P));
        mns_pmns_params_free(P);
        return 0;
    }
    if (c.do_bench)
        return bench(c.sizes, c.kinds, &c.o);
    if (c.random_bits) {
        gmp_randstate_t rs;
        gmp_randinit_default(rs);
        gmp_randseed_ui(rs, c.seed);
        mpz_urandomb(c.p, rs, (mp_bitcnt_t)c.random_bits);
        mpz_setbit(c.p, (mp_bitcnt_t)c.random_bits - 1);
        mpz_nextprime(c.p, c.p);
        gmp_randclear(rs);
        c.have_p = 1;
    }
    if (!c.have_p)
        return usage();
    mns_pmns_params *P = NULL;
    mns_status st = mns_pmns_generate_var(&P, c.p, &c.o);
    if (st != MNS_OK) {
        fprintf(stderr, "mns-pmns-gen: %s: %s\n", mns_strerror(st), mns_last_error());
        return 1;
    }
    st = emit(P, &c);
    mns_pmns_params_free(P);
    mpz_clear(c.p);
    return st == MNS_OK ? 0 : 1;
}
