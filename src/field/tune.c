/* Tuning tables: the strict parser, the process-wide current table and the
 * lookup for "auto" (format and public calls: include/mns_tune.h).
 *
 * The current table is shared by every thread: it is replaced under a mutex
 * and a lookup copies the rows it needs under the same mutex, so a table is
 * never read while another thread frees it. */
#include "field/tune.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cpu.h"
#include "core/error.h"
#include "core/opts.h"

#define TUNE_VERSION_MAX 2
#define TUNE_LINE_MAX 1024
#define TUNE_ROWS_MAX 2048
#define TUNE_NAME_MAX 32
#define TUNE_TOKENS (4 + 2 * MNS_TUNE_CAND_MAX)
#define TUNE_FILE_MAX (1u << 20)

typedef struct tune_table {
    char name[TUNE_NAME_MAX];
    char origin[MNS_TUNE_ORIGIN_MAX];
    char cpu[MNS_TUNE_CPU_KEY_MAX]; /* "cpu <key>": measured there; "" if not said */
    int version;
    size_t nrows;
    mns_tune_row row[];
} tune_table;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tune_table *current;
static int initialised;
/* why the cache file was not used, "" if it was or there is none */
static char warning[512];
static int warned;
/* MNS_TUNE_FILE was set but unusable: every lookup reports it. */
static mns_status env_status;
static char env_error[512];

/* ---- parser ---------------------------------------------------------- */

static mns_status perr(const char *origin, unsigned line, const char *fmt, const char *arg)
{
    char what[320];
    snprintf(what, sizeof what, fmt, arg);
    return mns_error(MNS_EPARSE, "tuning table %s, line %u: %s", origin, line, what);
}

/* Splits line (modified in place) at blanks; at most max tokens, returns the
 * count or max + 1 if there are more. */
static int split(char *line, char **tok, int max)
{
    int n = 0;
    char *s = line;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            return n;
        if (n == max)
            return max + 1;
        tok[n++] = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        if (*s)
            *s++ = '\0';
    }
}

static int parse_size(const char *s, const char *end, size_t *out)
{
    if (s == end || end - s > 9)
        return 0;
    size_t v = 0;
    for (const char *c = s; c < end; c++) {
        if (!isdigit((unsigned char)*c))
            return 0;
        v = 10 * v + (size_t)(*c - '0');
    }
    *out = v;
    return 1;
}

static mns_status parse_figure(const char *tok, unsigned line, const char *origin, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(tok, &end);
    if (end == tok || *end || errno || !(*out > 0 && *out < 1e6) || !isdigit((unsigned char)tok[0]))
        return perr(origin, line, "figure \"%s\" is not a positive decimal", tok);
    return MNS_OK;
}

static mns_status parse_spec(const char *tok, unsigned line, const char *origin, char *spec)
{
    if (strlen(tok) >= MNS_TUNE_SPEC_MAX)
        return perr(origin, line, "spec \"%.40s...\" is too long", tok);
    char name[MNS_BACKEND_NAME_MAX];
    mns_opts opts;
    if (mns_opts_parse(tok, name, &opts) != MNS_OK)
        return perr(origin, line, "spec \"%s\" is malformed", tok);
    if (strcmp(name, "auto") == 0)
        return perr(origin, line, "%s", "a row names a backend, not \"auto\"");
    snprintf(spec, MNS_TUNE_SPEC_MAX, "%s", tok);
    return MNS_OK;
}

/* One row into out[0..*n): version 1, "row <op> <form> <lo>-<hi> <spec>
 * <margin>"; version 2, "row <op> <form> <lo>-<hi>" and the measured ranking
 * as pairs "<spec> <ticks over the first's>", the first 1, never decreasing,
 * each spec once. */
static mns_status parse_row(char **tok, int ntok, unsigned line, const char *origin, int version,
                            mns_tune_row *out, size_t room, size_t *n)
{
    const int pairs = (ntok - 4) / 2;
    if (version == 1 ? ntok != 6 : ntok < 6 || (ntok - 4) % 2 || pairs > MNS_TUNE_CAND_MAX)
        return perr(origin, line, "%s",
                    version == 1 ? "a row is: row <mul|exp> <any|pm> <lo>-<hi> <spec> <margin>"
                                 : "a row is: row <mul|exp> <any|pm> <lo>-<hi> and 1 to 40 pairs "
                                   "<spec> <ticks over the first's>");
    if ((size_t)pairs > room)
        return perr(origin, line, "more than %s candidates in the table", "2048");
    mns_tune_row r = {.line = line, .nrank = (unsigned)pairs};
    if (mns_tune_op_parse(tok[1], &r.op) != MNS_OK)
        return perr(origin, line, "operation \"%s\" is neither mul nor exp", tok[1]);
    if (strcmp(tok[2], "any") == 0)
        r.form = MNS_TUNE_ANY;
    else if (strcmp(tok[2], "pm") == 0)
        r.form = MNS_TUNE_PM;
    else
        return perr(origin, line, "modulus form \"%s\" is neither any nor pm", tok[2]);
    const char *dash = strchr(tok[3], '-');
    if (!dash || !parse_size(tok[3], dash, &r.lo) ||
        !parse_size(dash + 1, dash + strlen(dash), &r.hi) || r.lo < 2 || r.lo > r.hi)
        return perr(origin, line, "bit range \"%s\" is not <lo>-<hi> with 2 <= lo <= hi", tok[3]);
    for (int k = 0; k < pairs; k++) {
        mns_status st;
        mns_tune_row *c = &out[k];
        *c = r;
        c->rank = (unsigned)k + 1;
        if ((st = parse_spec(tok[4 + 2 * k], line, origin, c->spec)) != MNS_OK ||
            (st = parse_figure(tok[5 + 2 * k], line, origin, &c->figure)) != MNS_OK)
            return st;
        for (int j = 0; j < k; j++)
            if (strcmp(out[j].spec, c->spec) == 0)
                return perr(origin, line, "spec \"%s\" ranked twice", c->spec);
        if (version >= 2 && (k == 0 ? c->figure != 1.0 : c->figure < out[k - 1].figure))
            return perr(origin, line, "figure \"%s\" breaks the ranking (the first is 1, then "
                                      "never smaller)", tok[5 + 2 * k]);
    }
    *n += (size_t)pairs;
    return MNS_OK;
}

static mns_status parse(const char *text, const char *origin, tune_table **out)
{
    *out = NULL;
    if (!text)
        return mns_error(MNS_EINVAL, "tuning table: NULL text");
    size_t nlines = 1;
    for (const char *c = text; *c; c++)
        nlines += *c == '\n';
    size_t cap = nlines < TUNE_ROWS_MAX / MNS_TUNE_CAND_MAX ? nlines * MNS_TUNE_CAND_MAX : TUNE_ROWS_MAX;
    tune_table *t = calloc(1, sizeof *t + cap * sizeof t->row[0]);
    if (!t)
        return mns_error(MNS_ENOMEM, "tuning table: out of memory");
    snprintf(t->origin, sizeof t->origin, "%s", origin ? origin : "(text)");

    mns_status st = MNS_OK;
    int have_version = 0;
    unsigned line = 0;
    const char *s = text;
    while (*s && st == MNS_OK) {
        line++;
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        char buf[TUNE_LINE_MAX];
        if (len >= sizeof buf) {
            st = perr(t->origin, line, "%s", "line longer than 1023 characters");
            break;
        }
        memcpy(buf, s, len);
        buf[len] = '\0';
        s = nl ? nl + 1 : s + len;
        if (memchr(buf, '\r', len) || strlen(buf) != len) {
            st = perr(t->origin, line, "%s", "carriage return or NUL in the line");
            break;
        }
        if (line == 1) {
            if (strncmp(buf, "# regenerate:", 13) != 0 || !buf[13])
                st = perr(t->origin, line, "%s",
                          "a table starts with \"# regenerate: <command>\"");
            continue;
        }
        char *tok[TUNE_TOKENS + 1];
        int ntok = split(buf, tok, TUNE_TOKENS);
        if (ntok == 0 || tok[0][0] == '#')
            continue;
        if (!have_version) {
            if (strcmp(tok[0], "mns-tune-table") != 0 || ntok != 2)
                st = perr(t->origin, line, "%s",
                          "expected \"mns-tune-table <version>\" before anything else");
            else if (strcmp(tok[1], "1") != 0 && strcmp(tok[1], "2") != 0)
                st = perr(t->origin, line,
                          "format version %s is not supported (this library reads 1 and 2)", tok[1]);
            else
                t->version = tok[1][0] - '0';
            have_version = 1;
        } else if (strcmp(tok[0], "name") == 0) {
            if (ntok != 2 || strlen(tok[1]) >= TUNE_NAME_MAX || t->name[0])
                st = perr(t->origin, line, "%s", "\"name <word>\", once, under 32 characters");
            else
                snprintf(t->name, sizeof t->name, "%s", tok[1]);
        } else if (strcmp(tok[0], "cpu") == 0) {
            if (ntok != 2 || strlen(tok[1]) >= MNS_TUNE_CPU_KEY_MAX || t->cpu[0] || t->version < 2)
                st = perr(t->origin, line, "%s",
                          "\"cpu <key>\", once, under 64 characters, from version 2");
            else
                snprintf(t->cpu, sizeof t->cpu, "%s", tok[1]);
        } else if (strcmp(tok[0], "note") == 0) {
            /* free text for people */
        } else if (strcmp(tok[0], "row") == 0) {
            st = parse_row(tok, ntok, line, t->origin, t->version, &t->row[t->nrows],
                           cap - t->nrows, &t->nrows);
        } else {
            st = perr(t->origin, line, "unknown keyword \"%s\"", tok[0]);
        }
    }
    if (st == MNS_OK && line == 0)
        st = perr(t->origin, 1, "%s", "empty table");
    else if (st == MNS_OK && !have_version)
        st = perr(t->origin, line, "%s", "no \"mns-tune-table <version>\" line");
    else if (st == MNS_OK && !t->name[0])
        st = perr(t->origin, line, "%s", "no \"name\" line");
    if (st != MNS_OK) {
        free(t);
        return st;
    }
    *out = t;
    return MNS_OK;
}

mns_status mns_tune_op_parse(const char *s, mns_tune_op *op)
{
    if (strcmp(s, "mul") == 0)
        *op = MNS_TUNE_MUL;
    else if (strcmp(s, "exp") == 0)
        *op = MNS_TUNE_EXP;
    else
        return MNS_EINVAL;
    return MNS_OK;
}

/* ---- the current table ----------------------------------------------- */

static void install(tune_table *t)
{
    free(current);
    current = t;
    initialised = 1;
    env_status = MNS_OK;
    env_error[0] = '\0';
}

/* The shipped tables, one per kernel class, since the rankings differ by
 * class: without IFMA the native mont runs mulx/adx kernels, under
 * MNS_CPU=generic it is portable C and 2-3x slower, and with IFMA the order
 * of mont-ifma, rns-ifma and the PMNS families differs between the Xeons and
 * AMD's Zen 5 (family 26: mont-ifma 1.3x faster than rns-ifma at 4096 bits,
 * the reverse on the Xeons). A CPU model a shipped table was not measured on
 * gets its class's table until it is calibrated (mns-tune --quick --cache). */
enum { CLASS_IFMA_ZEN5, CLASS_IFMA, CLASS_ADX, CLASS_GENERIC, CLASSES };
static const struct {
    const char *name, *what;
    const char *table;
} classes[CLASSES] = {
    [CLASS_IFMA_ZEN5] = {"ifma-zen5", "AMD Zen 5 with AVX-512 IFMA", mns_tune_table_ifma_zen5},
    [CLASS_IFMA] = {"ifma", "x86-64 with AVX-512 IFMA", mns_tune_table_ifma},
    [CLASS_ADX] = {"adx", "x86-64 with mulx/adx, no IFMA", mns_tune_table_adx},
    [CLASS_GENERIC] = {"generic", "portable kernels", mns_tune_table_generic},
};

/* This process's class (MNS_CPU narrows the features it is read from) */
static int cpu_class(void)
{
    const unsigned adx_bits = MNS_CPU_BMI2 | MNS_CPU_ADX;
    if (mns_cpu_has_ifma())
        return mns_cpu_amd_family() >= 26 ? CLASS_IFMA_ZEN5 : CLASS_IFMA;
    return (mns_cpu_features() & adx_bits) == adx_bits ? CLASS_ADX : CLASS_GENERIC;
}

static mns_status shipped(tune_table **out)
{
    const int c = cpu_class();
    char origin[MNS_TUNE_ORIGIN_MAX];
    snprintf(origin, sizeof origin, "shipped %s (%s)", classes[c].name, classes[c].what);
    return parse(classes[c].table, origin, out);
}

static mns_status read_file(const char *path, char **text)
{
    *text = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return mns_error(MNS_EPARSE, "tuning table %s: cannot open (%s)", path, strerror(errno));
    char *buf = malloc(TUNE_FILE_MAX + 1);
    if (!buf) {
        fclose(fp);
        return mns_error(MNS_ENOMEM, "tuning table: out of memory");
    }
    size_t n = fread(buf, 1, TUNE_FILE_MAX + 1, fp);
    int bad = ferror(fp);
    fclose(fp);
    if (bad || n > TUNE_FILE_MAX) {
        free(buf);
        return mns_error(MNS_EPARSE, "tuning table %s: %s", path,
                         bad ? "read error" : "larger than 1 MiB");
    }
    buf[n] = '\0';
    *text = buf;
    return MNS_OK;
}

static mns_status load_file(const char *path, tune_table **out)
{
    char *text;
    mns_status st = read_file(path, &text);
    if (st != MNS_OK)
        return st;
    char origin[MNS_TUNE_ORIGIN_MAX];
    snprintf(origin, sizeof origin, "file %s", path);
    st = parse(text, origin, out);
    free(text);
    return st;
}

/* The cache file of this CPU key, if it holds a table measured for this
 * key; anything else there is ignored with a warning (stderr, once per
 * process, and mns_tune_warning()), never trusted. 0 if no usable cache. */
static int load_cache(tune_table **out)
{
    const char *path = mns_tune_cache_path();
    struct stat sb;
    if (!path || (stat(path, &sb) != 0 && errno == ENOENT))
        return 0;
    tune_table *t = NULL;
    char why[400] = "";
    if (load_file(path, &t) != MNS_OK)
        snprintf(why, sizeof why, "%s", mns_last_error());
    else if (t->version < 2 || !t->cpu[0])
        snprintf(why, sizeof why, "it names no CPU (\"cpu <key>\", format version 2)");
    else if (strcmp(t->cpu, mns_tune_cpu_key()) != 0)
        snprintf(why, sizeof why, "it was measured on %s, this process runs on %s", t->cpu,
                 mns_tune_cpu_key());
    mns_error_clear();
    if (!why[0]) {
        snprintf(t->origin, sizeof t->origin, "cache %s", path);
        *out = t;
        return 1;
    }
    free(t);
    snprintf(warning, sizeof warning, "tuning cache %.200s ignored: %.280s", path, why);
    if (!warned++)
        fprintf(stderr, "mns: warning: %s; auto uses the shipped table of its class\n", warning);
    return 0;
}

/* The default table: this CPU's calibrated cache, else the shipped one of
 * its class. */
static mns_status default_table(tune_table **out)
{
    warning[0] = '\0';
    return load_cache(out) ? MNS_OK : shipped(out);
}

/* Called with the lock held. */
static void init_locked(void)
{
    if (initialised)
        return;
    tune_table *t = NULL;
    const char *path = getenv("MNS_TUNE_FILE");
    mns_status st = path && *path ? load_file(path, &t) : default_table(&t);
    if (st == MNS_OK) {
        install(t);
        return;
    }
    initialised = 1;
    env_status = st;
    snprintf(env_error, sizeof env_error, "%s%s", path && *path ? "MNS_TUNE_FILE: " : "",
             mns_last_error());
}

/* Makes t current if it parsed (st == MNS_OK); passes st on. */
static mns_status set_parsed(mns_status st, tune_table *t)
{
    if (st != MNS_OK)
        return st;
    pthread_mutex_lock(&lock);
    install(t);
    pthread_mutex_unlock(&lock);
    return MNS_OK;
}

mns_status mns_tune_set_text(const char *text, const char *origin)
{
    tune_table *t = NULL;
    mns_status st = parse(text, origin ? origin : "(text)", &t);
    return set_parsed(st, t);
}

mns_status mns_tune_set_file(const char *path)
{
    if (!path)
        return mns_error(MNS_EINVAL, "mns_tune_set_file: NULL path");
    tune_table *t = NULL;
    mns_status st = load_file(path, &t);
    return set_parsed(st, t);
}

void mns_tune_set_default(void)
{
    tune_table *t = NULL;
    pthread_mutex_lock(&lock);
    mns_status st = default_table(&t);
    if (st == MNS_OK) {
        install(t);
    } else {
        /* cannot happen for the tables test_tune parses; reported, not hidden */
        initialised = 1;
        env_status = st;
        snprintf(env_error, sizeof env_error, "%s", mns_last_error());
    }
    pthread_mutex_unlock(&lock);
}

mns_status mns_tune_check_text(const char *text)
{
    tune_table *t;
    mns_status st = parse(text, "(checked text)", &t);
    free(t);
    return st;
}

const char *mns_tune_current(void)
{
    static _Thread_local char name[MNS_TUNE_ORIGIN_MAX + 48];
    pthread_mutex_lock(&lock);
    init_locked();
    if (current)
        snprintf(name, sizeof name, "%s (name %s)", current->origin, current->name);
    else
        snprintf(name, sizeof name, "none: %.*s", MNS_TUNE_ORIGIN_MAX, env_error);
    pthread_mutex_unlock(&lock);
    return name;
}

const char *mns_tune_shipped(const char *cpu_class)
{
    for (int i = 0; cpu_class && i < CLASSES; i++)
        if (strcmp(cpu_class, classes[i].name) == 0)
            return classes[i].table;
    return NULL;
}

const char *mns_tune_cpu_class(void) { return classes[cpu_class()].name; }

int mns_tune_own_table(void)
{
    pthread_mutex_lock(&lock);
    init_locked();
    int own = current && (strncmp(current->origin, "shipped ", 8) != 0 ||
                          strcmp(current->cpu, mns_tune_cpu_key()) == 0);
    pthread_mutex_unlock(&lock);
    return own;
}

const char *mns_tune_warning(void)
{
    static _Thread_local char copy[sizeof warning];
    pthread_mutex_lock(&lock);
    init_locked();
    snprintf(copy, sizeof copy, "%s", warning);
    pthread_mutex_unlock(&lock);
    return copy;
}

/* ---- lookup ------------------------------------------------------------ */

int mns_tune_is_pseudo_mersenne(const mpz_t p)
{
    size_t bits = mpz_sizeinbase(p, 2);
    mpz_t eps;
    mpz_init_set_ui(eps, 0);
    mpz_setbit(eps, bits);
    mpz_sub(eps, eps, p);
    int pm = mpz_sgn(eps) > 0 && mpz_sizeinbase(eps, 2) <= bits / 2 && bits >= 4;
    mpz_clear(eps);
    return pm;
}

/* a spec is tried once: a pseudo-Mersenne row's candidate ranked again by
 * the "any" row after it would only refuse or lose again */
static int listed(const mns_tune_choice *ch, const char *spec)
{
    for (size_t i = 0; i < ch->n; i++)
        if (strcmp(ch->row[i].spec, spec) == 0)
            return 1;
    return 0;
}

mns_status mns_tune_lookup(mns_tune_op op, const mpz_t p, mns_tune_choice *out)
{
    size_t bits = mpz_sizeinbase(p, 2);
    int pm = mns_tune_is_pseudo_mersenne(p);
    out->n = 0;
    pthread_mutex_lock(&lock);
    init_locked();
    if (!current) {
        mns_status st = env_status;
        char why[sizeof env_error];
        snprintf(why, sizeof why, "%s", env_error);
        pthread_mutex_unlock(&lock);
        return mns_error(st, "%s", why);
    }
    snprintf(out->table, sizeof out->table, "%s", current->origin);
    out->version = current->version;
    for (int pass = pm ? 0 : 1; pass < 2; pass++)
        for (size_t i = 0; i < current->nrows && out->n < MNS_TUNE_CAND_MAX; i++) {
            const mns_tune_row *r = &current->row[i];
            if (r->op == op && r->form == (pass == 0 ? MNS_TUNE_PM : MNS_TUNE_ANY) &&
                bits >= r->lo && bits <= r->hi && !listed(out, r->spec))
                out->row[out->n++] = *r;
        }
    pthread_mutex_unlock(&lock);
    return MNS_OK;
}
