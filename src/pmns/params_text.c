/* The text format of include/mns_pmns.h: writer and strict reader.
 *
 * The reader trusts nothing: every line is matched exactly, integers must be
 * canonical decimals of bounded length, and the set is re-verified from
 * scratch (mns_pmns_finish) before it is returned. Any failure is MNS_EPARSE
 * naming the line. It never reads past len and never needs a NUL. */
#include "pmns/params.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

#define MAX_DIGITS 10000  /* > the digits of a MNS_PMNS_P_BITS_MAX-bit p */
#define MAX_FILE (64u << 20)

/* ---- writer ---------------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t len, cap;
    int fail;
} sbuf;

static void sb_put(sbuf *b, const char *t, size_t n)
{
    if (b->fail)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->len + n + 1)
            c *= 2;
        char *ns = realloc(b->s, c);
        if (!ns) {
            b->fail = 1;
            return;
        }
        b->s = ns;
        b->cap = c;
    }
    memcpy(b->s + b->len, t, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_str(sbuf *b, const char *t) { sb_put(b, t, strlen(t)); }

static void sb_fmt(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_fmt(sbuf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= sizeof tmp) {
        b->fail = 1;
        return;
    }
    sb_put(b, tmp, (size_t)k);
}

static void sb_mpz(sbuf *b, const mpz_t x)
{
    char *t = mpz_get_str(NULL, 10, x);
    if (!t) {
        b->fail = 1;
        return;
    }
    sb_str(b, t);
    void (*freefunc)(void *, size_t);
    mp_get_memory_functions(NULL, NULL, &freefunc);
    freefunc(t, strlen(t) + 1);
}

static const char *word_name(mns_pmns_word w) { return w == MNS_PMNS_WORD_U52 ? "u52" : "s64"; }

char *mns_pmns_params_to_string_var(const mns_pmns_params *P, const char *regenerate)
{
    if (!P)
        return NULL;
    sbuf b = {0};
    sb_str(&b, "# regenerate: ");
    if (regenerate && regenerate[0] && !strchr(regenerate, '\n')) {
        sb_str(&b, regenerate);
    } else {
        const mns_pmns_gen_opts *o = &P->gen;
        sb_str(&b, "mns-pmns-gen --p ");
        sb_mpz(&b, P->p);
        sb_fmt(&b, " --word %s", word_name(P->word));
        if (P->has_gen) {
            if (o->s)
                sb_fmt(&b, " --s %d", o->s);
            else
                sb_fmt(&b, " --s auto --s-max %d", o->s_max);
            sb_fmt(&b, " --delta %d", o->delta);
            if (o->n)
                sb_fmt(&b, " --n %d", o->n);
            else if (o->n_max)
                sb_fmt(&b, " --n-max %d", o->n_max);
            sb_fmt(&b, " --e %s --lambda-max %ld",
                   o->eshape == MNS_PMNS_E_TRINOMIAL ? "trinomial"
                   : o->eshape == MNS_PMNS_E_AUTO    ? "auto"
                                                     : "binomial",
                   o->lambda_max);
            if (o->toeplitz_adds)
                sb_fmt(&b, " --toeplitz-adds %d", o->toeplitz_adds);
            if (o->gamma_tries > 1)
                sb_fmt(&b, " --gamma-tries %d", o->gamma_tries);
            if (o->flags & MNS_PMNS_GEN_SMOOTH_N)
                sb_str(&b, " --smooth-n");
            if (o->flags & MNS_PMNS_GEN_NO_IMPROVE)
                sb_str(&b, " --no-improve");
            if (o->flags & MNS_PMNS_GEN_LAMBDA_WALK)
                sb_str(&b, " --lambda-walk");
            if (o->flags & MNS_PMNS_GEN_LAMBDA_CARRIED)
                sb_str(&b, " --lambda-carried");
        } else {
            sb_fmt(&b, " --s %d --delta %d --n %d --e %s", P->s, P->delta, P->n,
                   P->eshape == MNS_PMNS_E_TRINOMIAL ? "trinomial" : "binomial");
            if (P->s > 1 && P->toeplitz_adds != P->n)
                sb_fmt(&b, " --toeplitz-adds %d", P->toeplitz_adds);
            if (P->lambda_carried)
                sb_str(&b, " --lambda-carried");
        }
    }
    sb_str(&b, "\n# ");
    sb_str(&b, P->describe);
    sb_str(&b, "\nmns-pmns 1\np ");
    sb_mpz(&b, P->p);
    sb_fmt(&b, "\nword %s\ns %d\nn %d\ndelta %d\n", word_name(P->word), P->s, P->n, P->delta);
    if (P->eshape == MNS_PMNS_E_BINOMIAL)
        sb_fmt(&b, "E X^n-lambda %ld\n", P->lambda);
    else
        sb_str(&b, "E X^n-X-1\n");
    sb_str(&b, "gamma ");
    sb_mpz(&b, P->gamma);
    sb_fmt(&b, "\nphi_log2 %u\ntoeplitz_adds %d\n", P->phi_log2, P->toeplitz_adds);
    if (P->lambda_carried)
        sb_str(&b, "lambda_carried 1\n");
    sb_str(&b, "rho ");
    sb_mpz(&b, P->rho);
    sb_fmt(&b, "\nw %llu\nnorm1 ", (unsigned long long)P->w);
    sb_mpz(&b, P->norm1);
    sb_str(&b, "\nM");
    for (int i = 0; i < P->n; i++) {
        sb_str(&b, " ");
        sb_mpz(&b, P->m[i]);
    }
    sb_str(&b, "\nMprime");
    for (int i = 0; i < P->n; i++) {
        sb_str(&b, " ");
        sb_mpz(&b, P->mprime[i]);
    }
    sb_str(&b, "\nend\n");
    if (b.fail) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

mns_status mns_pmns_params_save_var(const mns_pmns_params *P, const char *path, const char *regenerate)
{
    if (!P || !path)
        return mns_error(MNS_EINVAL, "pmns_save: NULL argument");
    char *t = mns_pmns_params_to_string_var(P, regenerate);
    if (!t)
        return mns_error(MNS_ENOMEM, "pmns_save: out of memory");
    FILE *f = fopen(path, "w");
    if (!f) {
        free(t);
        return mns_error(MNS_EINVAL, "pmns_save: cannot open %s: %s", path, strerror(errno));
    }
    size_t len = strlen(t);
    int ok = fwrite(t, 1, len, f) == len;
    ok &= fclose(f) == 0;
    free(t);
    if (!ok)
        return mns_error(MNS_EINVAL, "pmns_save: write to %s failed", path);
    return MNS_OK;
}

/* ---- reader ---------------------------------------------------------- */

typedef struct rd {
    const char *s;
    size_t len, pos;
    int line;            /* number of the current line, 1-based */
    const char *l;       /* current line, not NUL-terminated */
    size_t ll;
    int last_had_nl;
} rd;

/* Next line into r->l / r->ll; 0 at the end of the data. */
static int next_line(rd *r)
{
    if (r->pos >= r->len)
        return 0;
    const char *start = r->s + r->pos;
    const char *nl = memchr(start, '\n', r->len - r->pos);
    size_t ll = nl ? (size_t)(nl - start) : r->len - r->pos;
    r->l = start;
    r->ll = ll;
    r->pos += ll + (nl ? 1 : 0);
    r->last_had_nl = nl != NULL;
    r->line++;
    return 1;
}

static mns_status perr(const rd *r, const char *what)
{
    return mns_error(MNS_EPARSE, "pmns params: line %d: %s", r->line, what);
}

/* "key " prefix of the line; *rest / *rl get what follows the space. */
static int key_is(const rd *r, const char *key, const char **rest, size_t *rl)
{
    size_t k = strlen(key);
    if (r->ll < k + 2 || memcmp(r->l, key, k) != 0 || r->l[k] != ' ')
        return 0;
    *rest = r->l + k + 1;
    *rl = r->ll - k - 1;
    return 1;
}

/* One canonical decimal token of s[0..len) into x; 0 if malformed. */
static int parse_int(mpz_t x, const char *s, size_t len, int allow_neg)
{
    size_t i = 0;
    if (len == 0 || len > MAX_DIGITS + 1)
        return 0;
    if (s[0] == '-') {
        if (!allow_neg)
            return 0;
        i = 1;
    }
    if (i == len)
        return 0;
    if (s[i] == '0' && (len - i > 1 || i == 1))
        return 0; /* leading zero, or "-0" */
    for (size_t j = i; j < len; j++)
        if (s[j] < '0' || s[j] > '9')
            return 0;
    char *tmp = malloc(len + 1);
    if (!tmp)
        return 0;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    int ok = mpz_set_str(x, tmp, 10) == 0;
    free(tmp);
    return ok;
}

static int parse_small(long *v, const char *s, size_t len, long lo, long hi)
{
    mpz_t x;
    mpz_init(x);
    int ok = len <= 24 && parse_int(x, s, len, lo < 0) && mpz_fits_slong_p(x);
    if (ok) {
        *v = mpz_get_si(x);
        ok = *v >= lo && *v <= hi;
    }
    mpz_clear(x);
    return ok;
}

/* A line "key <int>" with the int in [lo, hi]. */
static mns_status line_small(rd *r, const char *key, long *v, long lo, long hi)
{
    const char *rest;
    size_t rl;
    if (!next_line(r))
        return perr(r, "truncated");
    if (!key_is(r, key, &rest, &rl)) {
        char msg[80];
        snprintf(msg, sizeof msg, "expected \"%s <integer>\"", key);
        return perr(r, msg);
    }
    if (!parse_small(v, rest, rl, lo, hi)) {
        char msg[96];
        snprintf(msg, sizeof msg, "%s: not a canonical integer in [%ld, %ld]", key, lo, hi);
        return perr(r, msg);
    }
    return MNS_OK;
}

static mns_status line_big(rd *r, const char *key, mpz_t x, int allow_neg)
{
    const char *rest;
    size_t rl;
    if (!next_line(r))
        return perr(r, "truncated");
    if (!key_is(r, key, &rest, &rl)) {
        char msg[80];
        snprintf(msg, sizeof msg, "expected \"%s <integer>\"", key);
        return perr(r, msg);
    }
    if (!parse_int(x, rest, rl, allow_neg)) {
        char msg[80];
        snprintf(msg, sizeof msg, "%s: not a canonical decimal integer", key);
        return perr(r, msg);
    }
    return MNS_OK;
}

/* "key v_0 ... v_{n-1}" */
static mns_status line_vec(rd *r, const char *key, mpz_t *v, int n, int allow_neg)
{
    const char *rest;
    size_t rl;
    if (!next_line(r))
        return perr(r, "truncated");
    if (!key_is(r, key, &rest, &rl)) {
        char msg[80];
        snprintf(msg, sizeof msg, "expected \"%s\" and %d integers", key, n);
        return perr(r, msg);
    }
    size_t i = 0;
    for (int k = 0; k < n; k++) {
        size_t j = i;
        while (j < rl && rest[j] != ' ')
            j++;
        if (!parse_int(v[k], rest + i, j - i, allow_neg)) {
            char msg[96];
            snprintf(msg, sizeof msg, "%s: coefficient %d missing or not a canonical decimal integer", key, k);
            return perr(r, msg);
        }
        if (k + 1 < n) {
            if (j >= rl) {
                char msg[80];
                snprintf(msg, sizeof msg, "%s: %d coefficients, expected %d", key, k + 1, n);
                return perr(r, msg);
            }
            i = j + 1;
        } else if (j != rl) {
            char msg[80];
            snprintf(msg, sizeof msg, "%s: more than %d coefficients", key, n);
            return perr(r, msg);
        }
    }
    return MNS_OK;
}

static int line_is(const rd *r, const char *s) { return r->ll == strlen(s) && memcmp(r->l, s, r->ll) == 0; }

/* The lines before the set: "# regenerate: <how>", comments, "mns-pmns 1". */
static mns_status read_preamble(rd *r)
{
    if (!next_line(r))
        return mns_error(MNS_EPARSE, "pmns params: line 1: empty");
    if (r->ll <= 14 || memcmp(r->l, "# regenerate: ", 14) != 0)
        return perr(r, "the first line must be \"# regenerate: <how>\"");
    for (;;) {
        if (!next_line(r))
            return perr(r, "truncated before \"mns-pmns 1\"");
        if (r->ll >= 1 && r->l[0] == '#')
            continue;
        if (line_is(r, "mns-pmns 1"))
            return MNS_OK;
        if (r->ll >= 9 && memcmp(r->l, "mns-pmns ", 9) == 0)
            return perr(r, "unsupported format version (this reader knows 1)");
        return perr(r, "expected \"mns-pmns 1\"");
    }
}

/* The scalar lines of a set, as read; the checks of mns_pmns_finish come
 * after, on the whole set. */
typedef struct scalars {
    mpz_t p, gamma, rho, norm1;
    long word, s, n, delta, lambda, phi_log2, tadds, carried, w;
    mns_pmns_eshape eshape;
    int line_phi, line_w, line_norm;
} scalars;

static mns_status read_word(rd *r, long *word)
{
    if (!next_line(r))
        return perr(r, "truncated");
    if (line_is(r, "word s64"))
        *word = MNS_PMNS_WORD_S64;
    else if (line_is(r, "word u52"))
        *word = MNS_PMNS_WORD_U52;
    else
        return perr(r, "expected \"word s64\" or \"word u52\"");
    return MNS_OK;
}

static mns_status read_eshape(rd *r, scalars *v)
{
    const char *rest;
    size_t rl;
    if (!next_line(r))
        return perr(r, "truncated");
    if (line_is(r, "E X^n-X-1")) {
        v->eshape = MNS_PMNS_E_TRINOMIAL;
        return MNS_OK;
    }
    if (!key_is(r, "E X^n-lambda", &rest, &rl))
        return perr(r, "expected \"E X^n-lambda <lambda>\" or \"E X^n-X-1\"");
    if (!parse_small(&v->lambda, rest, rl, -(1L << 20), 1L << 20) || v->lambda == 0)
        return perr(r, "lambda: not a canonical nonzero integer in [-2^20, 2^20]");
    v->eshape = MNS_PMNS_E_BINOMIAL;
    return MNS_OK;
}

/* The optional "lambda_carried 1" line. */
static mns_status read_carried(rd *r, long *carried)
{
    const rd before = *r;
    int present = next_line(r) && r->ll >= 15 && memcmp(r->l, "lambda_carried ", 15) == 0;
    *r = before;
    return present ? line_small(r, "lambda_carried", carried, 1, 1) : MNS_OK;
}

static mns_status read_scalars(rd *r, scalars *v)
{
    mns_status st;
    if ((st = line_big(r, "p", v->p, 0)) != MNS_OK)
        return st;
    if (mpz_sizeinbase(v->p, 2) > MNS_PMNS_P_BITS_MAX || mpz_cmp_ui(v->p, 3) < 0)
        return perr(r, "p outside [3, 2^MNS_PMNS_P_BITS_MAX)");
    if ((st = read_word(r, &v->word)) != MNS_OK || (st = line_small(r, "s", &v->s, 1, MNS_PMNS_S_MAX)) != MNS_OK ||
        (st = line_small(r, "n", &v->n, 2, MNS_PMNS_N_MAX)) != MNS_OK ||
        (st = line_small(r, "delta", &v->delta, 0, MNS_PMNS_DELTA_MAX)) != MNS_OK ||
        (st = read_eshape(r, v)) != MNS_OK || (st = line_big(r, "gamma", v->gamma, 0)) != MNS_OK ||
        (st = line_small(r, "phi_log2", &v->phi_log2, 1, 64L * MNS_PMNS_S_MAX)) != MNS_OK)
        return st;
    v->line_phi = r->line;
    if ((st = line_small(r, "toeplitz_adds", &v->tadds, 1, v->n)) != MNS_OK ||
        (st = read_carried(r, &v->carried)) != MNS_OK || (st = line_big(r, "rho", v->rho, 0)) != MNS_OK ||
        (st = line_small(r, "w", &v->w, 1, 1L << 40)) != MNS_OK)
        return st;
    v->line_w = r->line;
    if ((st = line_big(r, "norm1", v->norm1, 0)) != MNS_OK)
        return st;
    v->line_norm = r->line;
    if (v->phi_log2 % v->s != 0)
        return mns_error(MNS_EPARSE, "pmns params: line %d: phi_log2 %ld is not a multiple of s = %ld", v->line_phi,
                         v->phi_log2, v->s);
    return MNS_OK;
}

/* M, M', "end" and nothing after it, into P. */
static mns_status read_polys(rd *r, mns_pmns_params *P, int n)
{
    mns_status st;
    if ((st = line_vec(r, "M", P->m, n, 1)) != MNS_OK || (st = line_vec(r, "Mprime", P->mprime, n, 0)) != MNS_OK)
        return st;
    if (!next_line(r) || !line_is(r, "end"))
        return perr(r, "expected \"end\" (truncated?)");
    if (r->pos != r->len)
        return perr(r, "data after \"end\"");
    return MNS_OK;
}

/* The primary fields into P, the derived ones recomputed, and the file's
 * w and norm1 compared with them. */
static mns_status assemble(const rd *r, mns_pmns_params *P, const scalars *v)
{
    mpz_set(P->p, v->p);
    P->word = (mns_pmns_word)v->word;
    P->s = (int)v->s;
    P->delta = (int)v->delta;
    P->eshape = v->eshape;
    P->lambda = v->lambda;
    mpz_set(P->gamma, v->gamma);
    P->phi_log2 = (unsigned)v->phi_log2;
    P->toeplitz_adds = (int)v->tadds;
    P->lambda_carried = (int)v->carried;
    mpz_set(P->rho, v->rho);
    if (mns_pmns_finish(P) != MNS_OK) {
        char why[400];
        snprintf(why, sizeof why, "%s", mns_last_error());
        return mns_error(MNS_EPARSE, "pmns params: line %d (end of set): inconsistent set: %s", r->line, why);
    }
    if ((uint64_t)v->w != P->w)
        return mns_error(MNS_EPARSE, "pmns params: line %d: w = %ld, but E gives %llu", v->line_w, v->w,
                         (unsigned long long)P->w);
    if (mpz_cmp(v->norm1, P->norm1) != 0)
        return mns_error(MNS_EPARSE, "pmns params: line %d: norm1 differs from ||M||_1 computed from M",
                         v->line_norm);
    return MNS_OK;
}

mns_status mns_pmns_params_from_string_var(mns_pmns_params **out, const char *text, size_t len)
{
    if (!out)
        return mns_error(MNS_EINVAL, "pmns params: NULL output");
    *out = NULL;
    if (!text)
        return mns_error(MNS_EINVAL, "pmns params: NULL text");
    rd r = {.s = text, .len = len};
    if (len > MAX_FILE)
        return mns_error(MNS_EPARSE, "pmns params: line 1: more than %u bytes", MAX_FILE);
    if (memchr(text, '\0', len))
        return mns_error(MNS_EPARSE, "pmns params: NUL byte in the text");
    mns_status st = read_preamble(&r);
    if (st != MNS_OK)
        return st;
    scalars v = {.eshape = MNS_PMNS_E_BINOMIAL};
    mpz_inits(v.p, v.gamma, v.rho, v.norm1, NULL);
    mns_pmns_params *P = NULL;
    st = read_scalars(&r, &v);
    if (st == MNS_OK && !(P = mns_pmns_params_alloc((int)v.n)))
        st = mns_error(MNS_ENOMEM, "pmns params: out of memory");
    if (st == MNS_OK)
        st = read_polys(&r, P, (int)v.n);
    if (st == MNS_OK)
        st = assemble(&r, P, &v);
    mpz_clears(v.p, v.gamma, v.rho, v.norm1, NULL);
    if (st != MNS_OK) {
        mns_pmns_params_free(P);
        return st;
    }
    *out = P;
    return MNS_OK;
}

mns_status mns_pmns_params_load_var(mns_pmns_params **out, const char *path)
{
    if (!out || !path)
        return mns_error(MNS_EINVAL, "pmns_load: NULL argument");
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return mns_error(MNS_EINVAL, "pmns_load: cannot open %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t k = fread(buf + len, 1, cap - len, f);
        len += k;
        if (len < cap)
            break;
        if (cap > MAX_FILE) {
            free(buf);
            fclose(f);
            return mns_error(MNS_EPARSE, "pmns_load: %s is larger than %u bytes", path, MAX_FILE);
        }
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int err = ferror(f);
    fclose(f);
    if (!buf)
        return mns_error(MNS_ENOMEM, "pmns_load: out of memory");
    if (err) {
        free(buf);
        return mns_error(MNS_EINVAL, "pmns_load: read error on %s", path);
    }
    mns_status st = mns_pmns_params_from_string_var(out, buf, len);
    free(buf);
    return st;
}
