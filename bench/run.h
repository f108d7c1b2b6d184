/* What one mns-bench run configured, saw and measured; filled by main.c,
 * printed by report.c (text tables and JSON). */
#ifndef MNS_BENCH_RUN_H
#define MNS_BENCH_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "impl.h"

#define MB_MAX_SIZES 64
#define MB_MAX_SPECS 32
#define MB_MAX_COLUMNS (MB_MAX_SPECS + 8)

typedef struct mb_mode {
    const char *name;   /* quick, default, full */
    unsigned datasets;  /* data sets per cell, at most */
    unsigned min_datasets;
    unsigned batch;     /* calls per batch, at most */
    unsigned pref_batch;/* batch kept before data sets are cut */
    unsigned warmup;    /* warm-up calls, at most */
    double batch_s;     /* a batch lasts about this long, at most */
    double budget_s;    /* target for the whole run */
} mb_mode;

typedef struct mb_result {
    mb_op op;
    unsigned bits;
    char impl[96];
    mb_kind kind;
    char describe[MB_DESCRIBE_MAX];
    uint64_t ticks;      /* median over data sets of per-batch minima, net */
    uint64_t ticks_min;  /* smallest and largest per-batch minimum */
    uint64_t ticks_max;
    unsigned datasets, batch;
    unsigned mismatches;
    double setup_s;      /* mns_field_new time (mns) */
} mb_result;

typedef struct mb_skip {
    char spec[96];
    unsigned bits;       /* 0: every size (backend not built) */
    char status[16];
    char why[256];
} mb_skip;

/* One figure of the batch section (bench/batch.h): ticks per operation. */
typedef struct mb_batch_row {
    char op[16];         /* modmul, modsqr, modexp, rsa-sign */
    unsigned bits;
    char impl[64];
    double per_op, per_op_min, per_op_max; /* 0: absent (note says why) */
    char note[160];
} mb_batch_row;

typedef struct mb_prime_info {
    unsigned bits;
    char *hex;
    int from_table;
    double gen_s;
} mb_prime_info;

typedef struct mb_run {
    /* configuration */
    mb_mode mode;
    unsigned sizes[MB_MAX_SIZES];
    size_t nsizes;
    int ops[MB_NOPS];
    char *specs[MB_MAX_SPECS];
    size_t nspecs;
    int specs_given;
    int baselines;       /* bit 0: GMP, bit 1: OpenSSL, bit 2: IPP */
    unsigned long seed;
    int pseudo_mersenne; /* --moduli pseudo-mersenne: primes 2^W - small (mb_prime_pm) */
    int threads;
    int verbose;
    const char *json_path;
    char argv_line[1024];

    /* machine */
    char cpu_model[256];
    char cpu_sig[128];
    int logical_cpus;
    const char *cpu_features;
    const char *mns_cpu;
    double tsc_ghz;
    int tsc_invariant;
    uint64_t overhead;
    char date[32];

    /* outcome */
    mb_prime_info primes[MB_MAX_SIZES];
    char columns[MB_MAX_COLUMNS][96]; /* implementations in first-seen order */
    mb_kind column_kind[MB_MAX_COLUMNS];
    size_t ncolumns;
    mb_result *res;
    size_t nres, capres;
    mb_skip *skips;
    size_t nskips, capskips;
    int batch_section;   /* --batch-section: 0 off, 1 on (default), 2 only */
    mb_batch_row *batch_rows;
    size_t nbatch, capbatch;
    unsigned mismatches;
    double elapsed_s;

    /* cost seen at the last size, per op, to foresee the floors of the
     * larger sizes still to come (see main.c) */
    unsigned seen_bits[MB_NOPS];
    double seen_sum[MB_NOPS]; /* ticks of one call, summed over implementations */
    double seen_min[MB_NOPS]; /* ticks of one call, fastest implementation */
    struct {
        char impl[96];
        unsigned bits;
        double cost;              /* ticks of one call */
    } seen_impl[MB_NOPS][MB_MAX_COLUMNS];
    size_t nseen_impl[MB_NOPS];
} mb_run;

const mb_result *mb_find(const mb_run *run, mb_op op, unsigned bits, const char *impl);
/* Best figure of a reference family at (op, bits); 0 if none. */
uint64_t mb_best_of_kind(const mb_run *run, mb_op op, unsigned bits, mb_kind kind);

void mb_report_machine(mb_run *run);       /* fills the machine fields */
void mb_report_header(const mb_run *run, FILE *out);
void mb_report_tables(const mb_run *run, FILE *out);
int mb_report_json(const mb_run *run, const char *path);

#endif
