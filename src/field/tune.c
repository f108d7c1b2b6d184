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

#include "core/cpu.h"
#include "core/error.h"
#include "core/opts.h"

#define TUNE_VERSION 1
#define TUNE_LINE_MAX 512
#define TUNE_ROWS_MAX 512
#define TUNE_NAME_MAX 32
#define TUNE_FILE_MAX (1u << 20)

typedef struct tune_table {
    char name[TUNE_NAME_MAX];
    char origin[MNS_TUNE_ORIGIN_MAX];
    size_t nrows;
    mns_tune_row row[];
} tune_table;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tune_table *current;
static int initialised;
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

static mns_status parse_row(char **tok, int ntok, unsigned line, const char *origin,
                            mns_tune_row *r)
{
    if (ntok != 6)
        return perr(origin, line, "%s", "a row is: row <mul|exp> <any|pm> <lo>-<hi> <spec> <margin>");
    r->line = line;
    if (mns_tune_op_parse(tok[1], &r->op) != MNS_OK)
        return perr(origin, line, "operation \"%s\" is neither mul nor exp", tok[1]);
    if (strcmp(tok[2], "any") == 0)
        r->form = MNS_TUNE_ANY;
    else if (strcmp(tok[2], "pm") == 0)
        r->form = MNS_TUNE_PM;
    else
        return perr(origin, line, "modulus form \"%s\" is neither any nor pm", tok[2]);
    const char *dash = strchr(tok[3], '-');
    if (!dash || !parse_size(tok[3], dash, &r->lo) ||
        !parse_size(dash + 1, dash + strlen(dash), &r->hi) || r->lo < 2 || r->lo > r->hi)
        return perr(origin, line, "bit range \"%s\" is not <lo>-<hi> with 2 <= lo <= hi", tok[3]);
    if (strlen(tok[4]) >= MNS_TUNE_SPEC_MAX)
        return perr(origin, line, "spec \"%.40s...\" is too long", tok[4]);
    char name[MNS_BACKEND_NAME_MAX];
    mns_opts opts;
    if (mns_opts_parse(tok[4], name, &opts) != MNS_OK)
        return perr(origin, line, "spec \"%s\" is malformed", tok[4]);
    if (strcmp(name, "auto") == 0)
        return perr(origin, line, "%s", "a row names a backend, not \"auto\"");
    snprintf(r->spec, sizeof r->spec, "%s", tok[4]);
    char *end;
    errno = 0;
    r->margin = strtod(tok[5], &end);
    if (end == tok[5] || *end || errno || !(r->margin > 0 && r->margin < 1e6) ||
        !isdigit((unsigned char)tok[5][0]))
        return perr(origin, line, "margin \"%s\" is not a positive decimal", tok[5]);
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
    size_t cap = nlines < TUNE_ROWS_MAX ? nlines : TUNE_ROWS_MAX;
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
            st = perr(t->origin, line, "%s", "line longer than 511 characters");
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
        char *tok[8];
        int ntok = split(buf, tok, 7);
        if (ntok == 0 || tok[0][0] == '#')
            continue;
        if (!have_version) {
            if (strcmp(tok[0], "mns-tune-table") != 0 || ntok != 2)
                st = perr(t->origin, line, "%s", "expected \"mns-tune-table 1\" before anything else");
            else if (strcmp(tok[1], "1") != 0)
                st = perr(t->origin, line, "format version %s is not supported (this library reads 1)",
                          tok[1]);
            have_version = 1;
        } else if (strcmp(tok[0], "name") == 0) {
            if (ntok != 2 || strlen(tok[1]) >= TUNE_NAME_MAX || t->name[0])
                st = perr(t->origin, line, "%s", "\"name <word>\", once, under 32 characters");
            else
                snprintf(t->name, sizeof t->name, "%s", tok[1]);
        } else if (strcmp(tok[0], "note") == 0) {
            /* free text for people */
        } else if (strcmp(tok[0], "row") == 0) {
            if (t->nrows == cap)
                st = perr(t->origin, line, "more than %s rows", "512");
            else if ((st = parse_row(tok, ntok, line, t->origin, &t->row[t->nrows])) == MNS_OK)
                t->nrows++;
        } else {
            st = perr(t->origin, line, "unknown keyword \"%s\"", tok[0]);
        }
    }
    if (st == MNS_OK && line == 0)
        st = perr(t->origin, 1, "%s", "empty table");
    else if (st == MNS_OK && !have_version)
        st = perr(t->origin, line, "%s", "no \"mns-tune-table 1\" line");
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

/* The shipped tables, one per kernel class. Four classes, four rankings:
 *   - without IFMA the native mont runs mulx/adx kernels and beats pmns-mp
 *     up to about 2048 bits on a Zen 3 (tune/adx.txt);
 *   - under MNS_CPU=generic mont is portable C, 2-3x slower there, and
 *     pmns-mp wins from 329 bits (tune/generic.txt);
 *   - with IFMA the winners depend on the core: on the Xeons of sessions
 *     4-20 rns-ifma took modexp at 3072-4096 bits (tune/ifma.txt), while on
 *     AMD's Zen 5 (family 26) mont-ifma took 6.70 M ticks at 4096 bits
 *     against rns-ifma's 8.90 M (session 30, make bench), and auto from the
 *     Xeon's table was 1.36x slower than mont-ifma there
 *     (tune/ifma-zen5.txt, measured on Zen 5; later AMD families take it
 *     too, Zen 4 the Xeon's). */
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

/* Called with the lock held. */
static void init_locked(void)
{
    if (initialised)
        return;
    tune_table *t = NULL;
    const char *path = getenv("MNS_TUNE_FILE");
    mns_status st = path && *path ? load_file(path, &t) : shipped(&t);
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
    tune_table *t;
    mns_status st = shipped(&t);
    pthread_mutex_lock(&lock);
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
    for (int pass = pm ? 0 : 1; pass < 2; pass++)
        for (size_t i = 0; i < current->nrows && out->n < MNS_TUNE_CAND_MAX; i++) {
            const mns_tune_row *r = &current->row[i];
            if (r->op == op && r->form == (pass == 0 ? MNS_TUNE_PM : MNS_TUNE_ANY) &&
                bits >= r->lo && bits <= r->hi)
                out->row[out->n++] = *r;
        }
    pthread_mutex_unlock(&lock);
    return MNS_OK;
}
