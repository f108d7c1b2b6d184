/* What a run prints: the machine and method header, one table of ticks and
 * one of ratios per operation, the kernels used, and the JSON file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mns.h>

#include "baselines.h"
#include "core/cpu.h" /* internal, for the feature string the kernels see */
#include "primes.h"
#include "run.h"

static const char *const kind_names[] = {"mns", "gmp", "openssl", "ipp"};

const mb_result *mb_find(const mb_run *run, mb_op op, unsigned bits, const char *impl)
{
    for (size_t i = 0; i < run->nres; i++)
        if (run->res[i].op == op && run->res[i].bits == bits &&
            strcmp(run->res[i].impl, impl) == 0)
            return &run->res[i];
    return NULL;
}

uint64_t mb_best_of_kind(const mb_run *run, mb_op op, unsigned bits, mb_kind kind)
{
    uint64_t best = 0;
    for (size_t i = 0; i < run->nres; i++) {
        const mb_result *r = &run->res[i];
        if (r->op == op && r->bits == bits && r->kind == kind && (!best || r->ticks < best))
            best = r->ticks;
    }
    return best;
}

/* ---- machine ------------------------------------------------------------- */

static void cpuinfo_field(const char *line, const char *key, char *dst, size_t len)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) != 0 || (line[k] != ' ' && line[k] != '\t'))
        return;
    const char *colon = strchr(line, ':');
    if (!colon || dst[0])
        return;
    colon++;
    while (*colon == ' ')
        colon++;
    snprintf(dst, len, "%s", colon);
    dst[strcspn(dst, "\n")] = '\0';
}

void mb_report_machine(mb_run *run)
{
    char family[32] = "", model[32] = "", stepping[32] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[4096];
        while (fgets(line, sizeof line, f)) {
            cpuinfo_field(line, "model name", run->cpu_model, sizeof run->cpu_model);
            cpuinfo_field(line, "cpu family", family, sizeof family);
            cpuinfo_field(line, "model", model, sizeof model);
            cpuinfo_field(line, "stepping", stepping, sizeof stepping);
        }
        fclose(f);
    }
    if (!run->cpu_model[0])
        snprintf(run->cpu_model, sizeof run->cpu_model, "unknown");
    snprintf(run->cpu_sig, sizeof run->cpu_sig, "family %s model %s stepping %s",
             family[0] ? family : "?", model[0] ? model : "?", stepping[0] ? stepping : "?");
    run->logical_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    run->cpu_features = mns_cpu_features_string();
    run->mns_cpu = getenv("MNS_CPU");
    run->tsc_ghz = mb_tsc_ghz();
    run->tsc_invariant = mb_tsc_invariant();
    run->overhead = mb_overhead();
    time_t now = time(NULL);
    strftime(run->date, sizeof run->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

void mb_report_header(const mb_run *run, FILE *out)
{
    const mb_mode *m = &run->mode;
    fprintf(out, "mns-bench (mns %s)  %s\n", mns_version(), run->date);
    fprintf(out, "CPU:       %s (%s), %d logical CPUs\n", run->cpu_model, run->cpu_sig,
            run->logical_cpus);
    fprintf(out, "features:  %s\n", run->cpu_features);
    fprintf(out, "MNS_CPU:   %s\n", run->mns_cpu ? run->mns_cpu : "(unset: native kernels)");
    fprintf(out, "GMP:       %s\n", gmp_version);
    fprintf(out, "OpenSSL:   %s\n", mb_openssl_version());
    fprintf(out,
            "TSC:       %.3f GHz (measured), %s; figures are TSC ticks per call, not core\n"
            "           cycles (the core may run faster); %llu ticks of timing overhead "
            "subtracted\n",
            run->tsc_ghz, run->tsc_invariant ? "invariant" : "NOT invariant",
            (unsigned long long)run->overhead);
    if (mb_tsc_step() > 1)
        fprintf(out,
                "           the TSC advances %llu ticks at a time: calls shorter than %llu ticks\n"
                "           are timed in groups of calls (lfence between them), per call\n",
                (unsigned long long)mb_tsc_step(), (unsigned long long)(100 * mb_tsc_step()));
    fprintf(out,
            "method:    %s: %u-%u data sets x 1-%u calls (batches of at most %.1f ms) per\n"
            "           implementation, median of per-batch minima; up to %u warm-up calls;\n"
            "           %.0f s budget\n",
            m->name, m->min_datasets, m->datasets, m->batch, m->batch_s * 1e3, m->warmup,
            m->budget_s);
    fprintf(out, "seed:      %lu%s; threads %d (accepted, unused)\n", run->seed,
            run->pseudo_mersenne ? " (moduli: pseudo-Mersenne primes, --moduli)"
            : run->seed == mb_prime_table_seed ? " (primes from bench/primes_table.c)" : "",
            run->threads);
}

/* ---- tables -------------------------------------------------------------- */

static int col_width(const char *name) { return strlen(name) > 10 ? (int)strlen(name) : 10; }

static void print_ticks_table(const mb_run *run, mb_op op, FILE *out)
{
    fprintf(out, "\n== %s: TSC ticks per call (lower is better)\n", mb_op_names[op]);
    fprintf(out, "%6s", "bits");
    for (size_t c = 0; c < run->ncolumns; c++) {
        int used = 0;
        for (size_t i = 0; i < run->nres && !used; i++)
            used = run->res[i].op == op && strcmp(run->res[i].impl, run->columns[c]) == 0;
        if (used)
            fprintf(out, "  %*s", col_width(run->columns[c]), run->columns[c]);
    }
    fprintf(out, "\n");
    for (size_t s = 0; s < run->nsizes; s++) {
        fprintf(out, "%6u", run->sizes[s]);
        for (size_t c = 0; c < run->ncolumns; c++) {
            int used = 0;
            for (size_t i = 0; i < run->nres && !used; i++)
                used = run->res[i].op == op && strcmp(run->res[i].impl, run->columns[c]) == 0;
            if (!used)
                continue;
            const mb_result *r = mb_find(run, op, run->sizes[s], run->columns[c]);
            char cell[40];
            if (r)
                snprintf(cell, sizeof cell, "%llu%s%s", (unsigned long long)r->ticks,
                         r->datasets < run->mode.min_datasets ? "~" : "",
                         r->mismatches ? "!" : "");
            else
                snprintf(cell, sizeof cell, "-");
            fprintf(out, "  %*s", col_width(run->columns[c]), cell);
        }
        fprintf(out, "\n");
    }
    int capped = 0;
    for (size_t i = 0; i < run->nres; i++)
        capped |= run->res[i].op == op && run->res[i].datasets < run->mode.min_datasets;
    if (capped)
        fprintf(out, "  ~: fewer than %u data sets, the implementation's time cap was reached\n",
                run->mode.min_datasets);
}

/* "xGMP  xOpenSSL" under the backend name: 15 characters or the name's length */
static int ratio_width(const char *name) { return strlen(name) > 15 ? (int)strlen(name) : 15; }

static void print_ratio_table(const mb_run *run, mb_op op, FILE *out)
{
    size_t nmns = 0;
    for (size_t c = 0; c < run->ncolumns; c++)
        nmns += run->column_kind[c] == MB_KIND_MNS;
    if (!nmns)
        return;
    fprintf(out,
            "\n== %s: speed-up of mns; xGMP = best GMP / mns, xOpenSSL = OpenSSL / mns "
            "(> 1: mns faster)\n",
            mb_op_names[op]);
    /* two header lines: the backend over its pair of ratio columns */
    fprintf(out, "%6s", "");
    for (size_t c = 0; c < run->ncolumns; c++)
        if (run->column_kind[c] == MB_KIND_MNS)
            fprintf(out, "  %*s", ratio_width(run->columns[c]), run->columns[c]);
    fprintf(out, "\n%6s", "bits");
    for (size_t c = 0; c < run->ncolumns; c++)
        if (run->column_kind[c] == MB_KIND_MNS)
            fprintf(out, "  %*s", ratio_width(run->columns[c]), "xGMP  xOpenSSL");
    fprintf(out, "\n");
    for (size_t s = 0; s < run->nsizes; s++) {
        unsigned bits = run->sizes[s];
        uint64_t g = mb_best_of_kind(run, op, bits, MB_KIND_GMP);
        uint64_t o = mb_best_of_kind(run, op, bits, MB_KIND_OPENSSL);
        fprintf(out, "%6u", bits);
        for (size_t c = 0; c < run->ncolumns; c++) {
            if (run->column_kind[c] != MB_KIND_MNS)
                continue;
            const mb_result *r = mb_find(run, op, bits, run->columns[c]);
            char x[32] = "-", y[32] = "-";
            if (r && g)
                snprintf(x, sizeof x, "%.2f", (double)g / (double)r->ticks);
            if (r && o)
                snprintf(y, sizeof y, "%.2f", (double)o / (double)r->ticks);
            fprintf(out, "  %*s%5s  %8s", ratio_width(run->columns[c]) - 15, "", x, y);
        }
        fprintf(out, "\n");
    }
}

/* auto and the fastest mns column against Intel's single-buffer exponentiation
 * (ipp-rsa, where IPP was found): the comparison "auto" must not lose */
static void print_ipp_table(const mb_run *run, FILE *out)
{
    int any = 0;
    for (size_t s = 0; s < run->nsizes; s++)
        any |= mb_best_of_kind(run, MB_MODEXP, run->sizes[s], MB_KIND_IPP) != 0;
    if (!any)
        return;
    fprintf(out, "\n== modexp: against Intel IPP's single-buffer exponentiation (ippsRSA_Decrypt, "
                 "type-1 key n = p); xIPP = IPP / mns (> 1: mns faster)\n");
    fprintf(out, "%6s %12s %12s %7s  %-16s %7s\n", "bits", "ipp-rsa", "auto", "xIPP", "fastest mns",
            "xIPP");
    for (size_t s = 0; s < run->nsizes; s++) {
        const unsigned bits = run->sizes[s];
        const uint64_t i = mb_best_of_kind(run, MB_MODEXP, bits, MB_KIND_IPP);
        if (!i)
            continue;
        const mb_result *a = mb_find(run, MB_MODEXP, bits, "auto");
        const mb_result *best = NULL;
        for (size_t k = 0; k < run->nres; k++) {
            const mb_result *r = &run->res[k];
            if (r->op == MB_MODEXP && r->bits == bits && r->kind == MB_KIND_MNS &&
                (!best || r->ticks < best->ticks))
                best = r;
        }
        char at[24] = "-", ax[16] = "-", bx[16] = "-";
        if (a) {
            snprintf(at, sizeof at, "%llu", (unsigned long long)a->ticks);
            snprintf(ax, sizeof ax, "%.2f", (double)i / (double)a->ticks);
        }
        if (best)
            snprintf(bx, sizeof bx, "%.2f", (double)i / (double)best->ticks);
        fprintf(out, "%6u %12llu %12s %7s  %-16s %7s\n", bits, (unsigned long long)i, at, ax,
                best ? best->impl : "-", bx);
    }
}

void mb_report_tables(const mb_run *run, FILE *out)
{
    for (int op = 0; op < MB_NOPS; op++) {
        if (!run->ops[op])
            continue;
        print_ticks_table(run, (mb_op)op, out);
        print_ratio_table(run, (mb_op)op, out);
    }
    if (run->ops[MB_MODEXP])
        print_ipp_table(run, out);

    fprintf(out, "\n== implementations (mns: mns_field_describe at each size)\n");
    for (size_t c = 0; c < run->ncolumns; c++) {
        const char *last = NULL;
        for (size_t s = 0; s < run->nsizes; s++) {
            const mb_result *r = NULL;
            for (int op = 0; op < MB_NOPS && !r; op++)
                r = mb_find(run, (mb_op)op, run->sizes[s], run->columns[c]);
            if (!r)
                continue;
            if (r->kind != MB_KIND_MNS) {
                fprintf(out, "  %-16s %s\n", r->impl, r->describe);
                break;
            }
            if (!last || strcmp(last, r->describe) != 0)
                fprintf(out, "  %-16s %5u: %s  (setup %.3f s)\n", r->impl, r->bits,
                        r->describe, r->setup_s);
            last = r->describe;
        }
    }
    for (size_t i = 0; i < run->nskips; i++) {
        const mb_skip *s = &run->skips[i];
        if (s->bits)
            fprintf(out, "  %-16s %5u: skipped, %s\n", s->spec, s->bits, s->why);
        else
            fprintf(out, "  %-16s skipped at every size, %s\n", s->spec, s->why);
    }
    fprintf(out, "\nrun time %.1f s; %s\n", run->elapsed_s,
            run->mismatches ? "RESULTS DIFFER FROM GMP" : "every result checked against GMP: ok");
}

/* ---- JSON ---------------------------------------------------------------- */

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static int mkdir_parents(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *q = buf + 1; *q; q++)
        if (*q == '/') {
            *q = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *q = '/';
        }
    return 0;
}

int mb_report_json(const mb_run *run, const char *path)
{
    mkdir_parents(path);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "mns-bench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    const mb_mode *m = &run->mode;
    fprintf(f, "{\n  \"tool\": \"mns-bench\",\n  \"mns_version\": ");
    jstr(f, mns_version());
    fprintf(f, ",\n  \"date\": ");
    jstr(f, run->date);
    fprintf(f, ",\n  \"command\": ");
    jstr(f, run->argv_line);
    fprintf(f, ",\n  \"cpu\": {\"model\": ");
    jstr(f, run->cpu_model);
    fprintf(f, ", \"signature\": ");
    jstr(f, run->cpu_sig);
    fprintf(f, ", \"logical_cpus\": %d, \"features\": ", run->logical_cpus);
    jstr(f, run->cpu_features);
    fprintf(f, "},\n  \"mns_cpu\": ");
    if (run->mns_cpu)
        jstr(f, run->mns_cpu);
    else
        fprintf(f, "null");
    fprintf(f, ",\n  \"gmp_version\": ");
    jstr(f, gmp_version);
    fprintf(f, ",\n  \"openssl_version\": ");
    jstr(f, mb_openssl_version());
    fprintf(f, ",\n  \"compiler\": ");
    jstr(f, __VERSION__);
    fprintf(f,
            ",\n  \"tsc\": {\"ghz\": %.4f, \"invariant\": %s, \"overhead_ticks_subtracted\": %llu, "
            "\"step\": %llu, \"grouped_below_ticks\": %llu, \"unit\": \"TSC ticks per call\"},\n",
            run->tsc_ghz, run->tsc_invariant ? "true" : "false",
            (unsigned long long)run->overhead, (unsigned long long)mb_tsc_step(),
            (unsigned long long)(mb_tsc_step() > 1 ? 100 * mb_tsc_step() : 0));
    fprintf(f,
            "  \"method\": {\"mode\": \"%s\", \"max_datasets\": %u, \"min_datasets\": %u, "
            "\"max_batch\": %u, \"max_batch_ms\": %.2f, \"warmup_calls\": %u, \"budget_s\": %.1f, "
            "\"statistic\": "
            "\"median over data sets of the per-batch minimum\", \"fences\": \"lfence;rdtsc;lfence "
            ".. rdtscp;lfence\"},\n",
            m->name, m->datasets, m->min_datasets, m->batch, m->batch_s * 1e3, m->warmup,
            m->budget_s);
    fprintf(f, "  \"seed\": %lu,\n  \"threads\": %d,\n  \"ratios\": ", run->seed, run->threads);
    jstr(f, "x_gmp = best GMP ticks / mns ticks, x_openssl = best OpenSSL ticks / mns ticks; > 1 "
            "means mns is faster");
    fprintf(f, ",\n  \"primes\": [");
    for (size_t i = 0; i < run->nsizes; i++) {
        const mb_prime_info *p = &run->primes[i];
        fprintf(f, "%s\n    {\"bits\": %u, \"source\": \"%s\", \"hex\": ", i ? "," : "", p->bits,
                p->from_table ? "table" : "generated");
        jstr(f, p->hex);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n  \"skipped\": [");
    for (size_t i = 0; i < run->nskips; i++) {
        const mb_skip *s = &run->skips[i];
        fprintf(f, "%s\n    {\"spec\": ", i ? "," : "");
        jstr(f, s->spec);
        fprintf(f, ", \"bits\": %u, \"status\": \"%s\", \"reason\": ", s->bits, s->status);
        jstr(f, s->why);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n  \"results\": [");
    for (size_t i = 0; i < run->nres; i++) {
        const mb_result *r = &run->res[i];
        fprintf(f, "%s\n    {\"op\": \"%s\", \"bits\": %u, \"impl\": ", i ? "," : "",
                mb_op_names[r->op], r->bits);
        jstr(f, r->impl);
        fprintf(f, ", \"kind\": \"%s\", \"ticks\": %llu, \"ticks_min\": %llu, \"ticks_max\": %llu",
                kind_names[r->kind], (unsigned long long)r->ticks,
                (unsigned long long)r->ticks_min, (unsigned long long)r->ticks_max);
        fprintf(f, ", \"datasets\": %u, \"batch\": %u, \"mismatches\": %u", r->datasets, r->batch,
                r->mismatches);
        if (r->kind == MB_KIND_MNS) {
            uint64_t g = mb_best_of_kind(run, r->op, r->bits, MB_KIND_GMP);
            uint64_t o = mb_best_of_kind(run, r->op, r->bits, MB_KIND_OPENSSL);
            if (g)
                fprintf(f, ", \"x_gmp\": %.4f", (double)g / (double)r->ticks);
            if (o)
                fprintf(f, ", \"x_openssl\": %.4f", (double)o / (double)r->ticks);
            const uint64_t i = mb_best_of_kind(run, r->op, r->bits, MB_KIND_IPP);
            if (i)
                fprintf(f, ", \"x_ipp\": %.4f", (double)i / (double)r->ticks);
            fprintf(f, ", \"setup_s\": %.4f", r->setup_s);
        }
        fprintf(f, ", \"describe\": ");
        jstr(f, r->describe);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n  \"batch\": [");
    for (size_t i = 0; i < run->nbatch; i++) {
        const mb_batch_row *b = &run->batch_rows[i];
        fprintf(f, "%s\n    {\"op\": \"%s\", \"bits\": %u, \"impl\": ", i ? "," : "", b->op,
                b->bits);
        jstr(f, b->impl);
        fprintf(f, ", \"ticks_per_op\": %.1f, \"ticks_min\": %.1f, \"ticks_max\": %.1f, \"note\": ",
                b->per_op, b->per_op_min, b->per_op_max);
        jstr(f, b->note);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n  \"mismatches\": %u,\n  \"elapsed_s\": %.2f\n}\n", run->mismatches,
            run->elapsed_s);
    if (fclose(f) != 0) {
        fprintf(stderr, "mns-bench: writing %s failed\n", path);
        return -1;
    }
    return 0;
}
