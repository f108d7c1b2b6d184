/* Tuning tables and "auto" (include/mns_tune.h, src/field/tune.c): the strict
 * parser, the lookup by operation mix, modulus form and size, the hand-over
 * when a row's backend refuses p, what mns_field_describe says, the shipped
 * tables and the user table (API call and MNS_TUNE_FILE). Deterministic: no
 * timing here (the timing check is `make check-tune`, tests/field/tune.cmake).
 *
 * Run with argument "env" (MNS_TUNE_FILE = tests/field/tune_env.txt),
 * "envbad" (MNS_TUNE_FILE naming a missing file) or "noifma" (MNS_CPU=avx2)
 * by tests/field/tune.cmake. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mns.h"
#include "mns_tune.h"
#include "core/cpu.h"
#include "field/tune.h"
#include "testutil.h"

#define HEAD "# regenerate: test_tune\nmns-tune-table 1\nname t\n"

static void expect_parse(const char *text, mns_status want, const char *line_tag)
{
    mns_status st = mns_tune_check_text(text);
    MT_CHECK(st == want, "table <<%s>>: status %d, want %d (%s)", text, st, want, mns_last_error());
    if (want == MNS_EPARSE && line_tag)
        MT_CHECK(strstr(mns_last_error(), line_tag) != NULL, "message \"%s\" lacks \"%s\"",
                 mns_last_error(), line_tag);
}

static void test_parser(void)
{
    expect_parse(HEAD, MNS_OK, NULL);
    expect_parse(HEAD "note anything at all: 1-2 x\n\n# comment\n  # indented comment\n"
                      "row mul any 2-100 mont 1.00\nrow exp pm 100-200 pmns-mp:s=2,delta=1 1.5\n",
                 MNS_OK, NULL);
    expect_parse(HEAD "row mul any 2-100 mont 1", MNS_OK, NULL); /* no final newline */
    expect_parse("", MNS_EPARSE, "line 1");
    expect_parse("mns-tune-table 1\nname t\n", MNS_EPARSE, "line 1");
    expect_parse("# regenerate:\nmns-tune-table 1\nname t\n", MNS_EPARSE, "line 1");
    expect_parse("# regenerate: x\nmns-tune-table 3\nname t\n", MNS_EPARSE, "line 2");
    expect_parse("# regenerate: x\nname t\n", MNS_EPARSE, "line 2");
    expect_parse("# regenerate: x\nmns-tune-table 1\n", MNS_EPARSE, "no \"name\"");
    expect_parse(HEAD "name u\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "rows mul any 2-100 mont 1.0\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 2-100 mont\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 2-100 mont 1.0 extra\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row sqr any 2-100 mont 1.0\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul odd 2-100 mont 1.0\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 100-2 mont 1.0\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 1-100 mont 1.0\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 2- mont 1.0\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 2-1e3 mont 1.0\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 256 mont 1.0\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 2-100 auto 1.0\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 2-100 pmns: 1.0\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 2-100 pmns:s 1.0\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 2-100 mont -1\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 2-100 mont 0\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 2-100 mont 1.2x\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 2-100 mont nan\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "\nrow mul any 2-100 mont 1.0\r\n", MNS_EPARSE, "line 5");
    char big[1100];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    char *t = malloc(strlen(HEAD) + sizeof big + 8);
    sprintf(t, HEAD "note %s\n", big);
    expect_parse(t, MNS_EPARSE, "line 4");
    free(t);
    MT_CHECK(mns_tune_check_text(NULL) == MNS_EINVAL, "NULL text");

    /* a failed set keeps the table in use */
    MT_CHECK(mns_tune_set_text(HEAD "row mul any 2-100 mont 1.0\n", "first") == MNS_OK, "set");
    MT_CHECK(mns_tune_set_text(HEAD "bogus\n", "second") == MNS_EPARSE, "bad set");
    MT_CHECK(strstr(mns_tune_current(), "first") != NULL, "current: %s", mns_tune_current());
}

#define HEAD2 "# regenerate: test_tune\nmns-tune-table 2\nname t\n"

/* version 2: rows rank several candidates, "cpu" names where it was measured */
static void test_parser_v2(void)
{
    expect_parse(HEAD2 "cpu GenuineIntel-f6-m143-x1ff\n"
                       "row mul any 2-100 mont 1.00 pmns-mp:s=2 1.25 rns 1.25 pmns 3.5\n"
                       "row exp pm 2-100 mont 1\n",
                 MNS_OK, NULL);
    expect_parse(HEAD "cpu x\n", MNS_EPARSE, "line 4"); /* version 1 has no cpu line */
    expect_parse(HEAD2 "cpu a\ncpu a\n", MNS_EPARSE, "line 5");
    expect_parse(HEAD2 "cpu a b\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD2 "row mul any 2-100 mont 1.00 rns\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD2 "row mul any 2-100\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD2 "row mul any 2-100 mont 1.10 rns 1.20\n", MNS_EPARSE, "first is 1");
    expect_parse(HEAD2 "row mul any 2-100 mont 1.00 rns 1.20 pmns 1.10\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD2 "row mul any 2-100 mont 1.00 rns 1.20 mont 1.30\n", MNS_EPARSE,
                 "ranked twice");
    expect_parse(HEAD2 "row mul any 2-100 mont 1.00 auto 1.20\n", MNS_EPARSE, "line 4");
    expect_parse(HEAD "row mul any 2-100 mont 1.00 rns 1.20\n", MNS_EPARSE, "line 4");
}

static void test_form(void)
{
    mpz_t p;
    mpz_init(p);
    mpz_ui_pow_ui(p, 2, 255);
    mpz_sub_ui(p, p, 19);
    MT_CHECK(mns_tune_is_pseudo_mersenne(p), "2^255-19");
    mpz_ui_pow_ui(p, 2, 127);
    mpz_sub_ui(p, p, 1);
    MT_CHECK(mns_tune_is_pseudo_mersenne(p), "2^127-1");
    /* P-256: 2^256 - 2^224 + ..., eps has 224 bits: not the "pm" form */
    mpz_set_str(p, "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", 16);
    MT_CHECK(!mns_tune_is_pseudo_mersenne(p), "P-256");
    mpz_ui_pow_ui(p, 2, 255);
    mpz_add_ui(p, p, 95); /* 2^256 - p has 256 bits */
    MT_CHECK(!mns_tune_is_pseudo_mersenne(p), "2^255+95");
    mpz_clear(p);
}

/* auto on p with the current table: status, and the description's start and
 * pieces. */
static void expect_auto(const char *spec, const mpz_t p, const char *starts, const char *has1,
                        const char *has2)
{
    mns_field *f = NULL;
    mns_status st = mns_field_new(&f, p, spec);
    MT_CHECK(st == MNS_OK, "%s: status %d (%s)", spec, st, mns_last_error());
    if (st != MNS_OK)
        return;
    const char *d = mns_field_describe(f);
    MT_CHECK(strncmp(d, starts, strlen(starts)) == 0, "%s: describe \"%s\" does not start \"%s\"",
             spec, d, starts);
    MT_CHECK(!has1 || strstr(d, has1), "%s: describe \"%s\" lacks \"%s\"", spec, d, has1);
    MT_CHECK(!has2 || strstr(d, has2), "%s: describe \"%s\" lacks \"%s\"", spec, d, has2);
    MT_CHECK(mns_last_error()[0] == '\0', "%s: success leaves \"%s\"", spec, mns_last_error());
    /* and the chosen field computes right */
    mpz_t a, b, r, ref;
    mpz_inits(a, b, r, ref, NULL);
    size_t n = mns_field_limbs(f);
    uint64_t *x = calloc(3 * n, sizeof *x);
    for (int i = 0; i < 20; i++) {
        mpz_urandomm(a, mt_rand, p);
        mpz_urandomm(b, mt_rand, p);
        mns_field_set_mpz(f, x, a);
        mns_field_set_mpz(f, x + n, b);
        mns_field_mul(f, x + 2 * n, x, x + n);
        mns_field_get_mpz(f, r, x + 2 * n);
        mpz_mul(ref, a, b);
        mpz_mod(ref, ref, p);
        MT_CHECK(mpz_cmp(r, ref) == 0, "%s: a*b mod p wrong", spec);
    }
    free(x);
    mpz_clears(a, b, r, ref, NULL);
    mns_field_free(f);
}

static void test_lookup(void)
{
    static const char table[] =
        HEAD
        "row mul any 100-300 nosuch-backend 1.50\n"          /* line 4: not built */
        "row mul any 100-300 mont:kernel=bogus 1.40\n"       /* line 5: refuses */
        "row mul any 100-300 mont:kernel=generic 1.30\n"     /* line 6: chosen */
        "row mul any 100-300 mpart-mont 1.10\n"              /* line 7: not reached */
        "row exp any 100-300 mpart-mont 1.25\n"              /* line 8 */
        "row mul pm 100-300 sor 1.90\n"                      /* line 9 */
        "row mul pm 100-300 mpart-barrett 1.70\n"            /* line 10 */
        "row exp pm 2-50 mpart-barrett 1.70\n";              /* line 11: other sizes */
    MT_CHECK(mns_tune_set_text(table, "unit-table") == MNS_OK, "set: %s", mns_last_error());
    MT_CHECK(strstr(mns_tune_current(), "unit-table"), "current: %s", mns_tune_current());

    mpz_t p;
    mpz_init(p);
    mt_modulus(p, 256, MT_MOD_PRIME);
    MT_CHECK(!mns_tune_is_pseudo_mersenne(p) || mpz_sizeinbase(p, 2) != 256, "random prime is pm");

    mns_tune_choice ch;
    MT_CHECK(mns_tune_lookup(MNS_TUNE_MUL, p, &ch) == MNS_OK && ch.n == 4 && ch.row[0].line == 4 &&
                 ch.row[3].line == 7,
             "lookup mul any: %zu rows", ch.n);
    MT_CHECK(mns_tune_lookup(MNS_TUNE_EXP, p, &ch) == MNS_OK && ch.n == 1 && ch.row[0].line == 8,
             "lookup exp any");

    /* the hand-over and what describe says */
    expect_auto("auto", p, "mont kernel=generic", "line 6", "refused: nosuch-backend (");
    expect_auto("auto", p, "mont kernel=generic", "), mont:kernel=bogus (", NULL);
    expect_auto("auto:op=mul", p, "mont kernel=generic", "margin 1.30", "table=unit-table");
    expect_auto("auto:op=exp", p, "mpart-mont", "op=exp", "line 8");

    /* pseudo-Mersenne p: its rows first (sor when built and willing, else the
     * next pm row), then the any rows */
    mpz_ui_pow_ui(p, 2, 255);
    mpz_sub_ui(p, p, 19);
    MT_CHECK(mns_tune_lookup(MNS_TUNE_MUL, p, &ch) == MNS_OK && ch.n == 6 && ch.row[0].line == 9 &&
                 ch.row[1].line == 10 && ch.row[2].line == 4,
             "lookup mul pm: %zu rows", ch.n);
    mns_field *f = NULL;
    MT_CHECK(mns_field_new(&f, p, "auto") == MNS_OK, "auto pm: %s", mns_last_error());
    if (f) {
        const char *d = mns_field_describe(f);
        /* without IFMA the special form goes before the rows (pmers) */
        MT_CHECK((strncmp(d, "pmers", 5) == 0 && !mns_cpu_has_ifma() &&
                  strstr(d, "before the table rows")) ||
                     (strncmp(d, "sor", 3) == 0 && strstr(d, "line 9")) ||
                     (strncmp(d, "mpart-barrett", 13) == 0 && strstr(d, "refused: sor") &&
                      strstr(d, "pseudo-Mersenne")),
                 "auto pm: %s", d);
        mns_field_free(f);
    }
    /* exp for a pm p of this size: no pm row matches, the any row does
     * (where the special form does not go first) */
    if (mns_cpu_has_ifma())
        expect_auto("auto:op=exp", p, "mpart-mont", "line 8", NULL);
    else
        expect_auto("auto:op=exp", p, "pmers", "op=exp: p = 2^255 - 19", NULL);

    /* no row for the size: mont closes the list */
    mt_modulus(p, 512, MT_MOD_PRIME);
    MT_CHECK(mns_tune_lookup(MNS_TUNE_MUL, p, &ch) == MNS_OK && ch.n == 0, "lookup 512");
    expect_auto("auto", p, "mont ", "no row for this size", NULL);
    /* every row refuses: mont closes the list */
    MT_CHECK(mns_tune_set_text(HEAD "row mul any 2-1000 nosuch 1.0\n", "refusing") == MNS_OK, "set");
    expect_auto("auto", p, "mont ", "every row refused p", "refused: nosuch (");

    /* options of auto */
    MT_CHECK(mns_field_new(&f, p, "auto:op=sqr") == MNS_EINVAL, "op=sqr");
    MT_CHECK(mns_field_new(&f, p, "auto:op=mul,x=1") == MNS_EINVAL, "x=1");
    MT_CHECK(mns_field_new(&f, p, "auto:") == MNS_EINVAL, "auto:");
    mpz_clear(p);
}

/* A ranking whose first candidates refuse p hands over to the next measured
 * one, and describe says which refused and why. */
static void test_ranking(void)
{
    static const char table[] =
        HEAD2 "row mul any 2-100000 pmns-mp 1.00 pmns 1.10 rns 1.30 mont 2.00\n" /* line 4 */
              "row exp any 2-100000 mont-ifma 1.00 rns-ifma 1.05 pmns-mp 1.30 mont 1.50\n";
    MT_CHECK(mns_tune_set_text(table, "ranked") == MNS_OK, "set: %s", mns_last_error());
    mpz_t p;
    mpz_init(p);
    mt_modulus(p, 512, MT_MOD_PRIME);
    expect_auto("auto", p, "pmns-mp ", "line 4: any pmns-mp 2-100000 bits, choice 1 of 4", NULL);
    /* random odd composites of several sizes: both PMNS refuse, rns serves */
    static const unsigned sizes[] = {130, 512, 1030};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        do /* a random odd modulus is rarely prime: draw again then */
            mt_modulus(p, sizes[i], MT_MOD_RANDOM);
        while (mpz_probab_prime_p(p, 30));
        expect_auto("auto", p, "rns ", "choice 3 of 4, measured 1.30x", "refused: pmns-mp (");
        /* the second PMNS is not asked again: the first said p is composite */
        expect_auto("auto", p, "rns ", "), pmns (p is composite)", NULL);
    }
    /* op=exp: the IFMA backends first; without IFMA (MNS_CPU=generic or
     * avx2, or such a CPU) pmns-mp serves, on a composite mont */
    mt_modulus(p, 512, MT_MOD_PRIME);
    if (mns_cpu_has_ifma()) {
        expect_auto("auto:op=exp", p, "mont-ifma ", "choice 1 of 4", NULL);
    } else {
        expect_auto("auto:op=exp", p, "pmns-mp ", "choice 3 of 4", "refused: mont-ifma (");
        expect_auto("auto:op=exp", p, "pmns-mp ", "), rns-ifma (", NULL);
    }
    do
        mt_modulus(p, 512, MT_MOD_RANDOM);
    while (mpz_probab_prime_p(p, 30));
    if (!mns_cpu_has_ifma())
        expect_auto("auto:op=exp", p, "mont ", "choice 4 of 4", "), pmns-mp (");
    mpz_clear(p);
}

/* auto:delta=D: the option reaches a backend that takes one (pmns-mp: the
 * delta reported is the one asked), a backend without it must report at
 * least D itself (mont), and the field holds D additions before a product. */
static void test_delta(void)
{
    mpz_t p, a, b, ref, r;
    mpz_inits(p, a, b, ref, r, NULL);
    mt_modulus(p, 512, MT_MOD_PRIME);
    static const char *const tables[] = {HEAD "row mul any 2-1000 pmns-mp 1.00\n",
                                         HEAD "row mul any 2-1000 mont:kernel=generic 1.00\n"};
    for (int t = 0; t < 2; t++) {
        MT_CHECK(mns_tune_set_text(tables[t], "delta-table") == MNS_OK, "set: %s", mns_last_error());
        for (int delta = 0; delta <= 3; delta += 3) {
            char spec[32], want[32];
            snprintf(spec, sizeof spec, "auto:delta=%d", delta);
            snprintf(want, sizeof want, "op=mul delta=%d ", delta);
            expect_auto(spec, p, t ? "mont " : "pmns-mp ", want, "line 4");
            mns_field *f = NULL;
            if (mns_field_new(&f, p, spec) != MNS_OK)
                continue;
            MT_CHECK(t ? mns_field_delta(f) >= delta : mns_field_delta(f) == delta,
                     "%s: delta %d", spec, mns_field_delta(f));
            /* delta additions, then a product: right mod p */
            size_t n = mns_field_limbs(f);
            uint64_t *x = calloc(3 * n, sizeof *x);
            mpz_set_ui(ref, 0);
            for (int i = 0; i <= delta; i++) {
                mpz_urandomm(a, mt_rand, p);
                mpz_add(ref, ref, a);
                mns_field_set_mpz(f, x + n, a);
                if (i == 0)
                    memcpy(x, x + n, n * sizeof *x);
                else
                    mns_field_add(f, x, x, x + n);
            }
            mpz_urandomm(b, mt_rand, p);
            mns_field_set_mpz(f, x + n, b);
            mns_field_mul(f, x + 2 * n, x, x + n);
            mns_field_get_mpz(f, r, x + 2 * n);
            mpz_mul(ref, ref, b);
            mpz_mod(ref, ref, p);
            MT_CHECK(mpz_cmp(r, ref) == 0, "%s: %d additions then a product wrong", spec, delta);
            free(x);
            mns_field_free(f);
        }
    }
    mns_field *f = NULL;
    MT_CHECK(mns_field_new(&f, p, "auto:delta=256") == MNS_EINVAL, "delta=256 taken");
    MT_CHECK(mns_field_new(&f, p, "auto:delta=-1") == MNS_EINVAL, "delta=-1 taken");
    MT_CHECK(mns_field_new(&f, p, "auto:delta=x") == MNS_EINVAL, "delta=x taken");
    mpz_clears(p, a, b, ref, r, NULL);
}

static void test_file(void)
{
    char path[] = "/tmp/mns-tune-test-XXXXXX";
    int fd = mkstemp(path);
    MT_CHECK(fd >= 0, "mkstemp");
    if (fd < 0)
        return;
    FILE *fp = fdopen(fd, "w");
    fputs(HEAD "row mul any 2-100000 mont:kernel=generic 1.00\nbroken line\n", fp);
    fclose(fp);
    MT_CHECK(mns_tune_set_file(path) == MNS_EPARSE && strstr(mns_last_error(), "line 5") &&
                 strstr(mns_last_error(), path),
             "bad file: %s", mns_last_error());
    fp = fopen(path, "w");
    fputs(HEAD "row mul any 2-100000 mont:kernel=generic 1.00\n", fp);
    fclose(fp);
    MT_CHECK(mns_tune_set_file(path) == MNS_OK, "file: %s", mns_last_error());
    MT_CHECK(strstr(mns_tune_current(), path) != NULL, "current: %s", mns_tune_current());
    mpz_t p;
    mpz_init(p);
    mt_modulus(p, 300, MT_MOD_RANDOM); /* any odd modulus */
    expect_auto("auto", p, "mont kernel=generic", "file ", "line 4");
    mpz_clear(p);
    remove(path);
    MT_CHECK(mns_tune_set_file(path) == MNS_EPARSE, "missing file");
    MT_CHECK(mns_tune_set_file(NULL) == MNS_EINVAL, "NULL path");
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    MT_CHECK(fp != NULL, "cannot write %s", path);
    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
}

/* The calibrated cache ($XDG_CACHE_HOME/mns/tune-<key>.txt, set to a fresh
 * directory by main): used when it is a well-formed table measured for this
 * CPU key, ignored with a warning when corrupt or foreign, never trusted. */
static void test_cache(void)
{
    const char *path = mns_tune_cache_path(), *key = mns_tune_cpu_key();
    MT_CHECK(path != NULL, "no cache path with XDG_CACHE_HOME set");
    if (!path)
        return;
    MT_CHECK(strstr(path, "/mns/tune-") && strstr(path, key), "cache path %s", path);
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(path, '/') - path), path);
    MT_CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);

    mns_tune_set_default(); /* no file: the shipped table, no warning */
    MT_CHECK(strncmp(mns_tune_current(), "shipped ", 8) == 0 && !mns_tune_warning()[0],
             "no cache: %s / %s", mns_tune_current(), mns_tune_warning());

    char text[512];
    snprintf(text, sizeof text, HEAD2 "cpu %s\nrow mul any 2-100000 mont:kernel=generic 1.00\n", key);
    write_text(path, text);
    mns_tune_set_default();
    MT_CHECK(strncmp(mns_tune_current(), "cache ", 6) == 0 && mns_tune_own_table() &&
                 !mns_tune_warning()[0],
             "own cache: %s / %s", mns_tune_current(), mns_tune_warning());
    mpz_t p;
    mpz_init(p);
    mt_modulus(p, 300, MT_MOD_PRIME);
    expect_auto("auto", p, "mont kernel=generic", "table=cache ", "choice 1 of 1");

    /* corrupt, foreign, truncated, or without a cpu line: the shipped table
     * serves, and the warning says why */
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"\x7f" "ELF\x01\x01 binary junk\n", "line 1"},
        {HEAD2 "cpu GenuineIntel-f6-m143-x1ff\nrow mul any 2-100000 mont:kernel=generic 1.00\n",
         "measured on GenuineIntel-f6-m143-x1ff"},
        {HEAD2 "row mul any 2-100000 mont:kernel=generic 1.00\n", "names no CPU"},
        {HEAD "row mul any 2-100000 mont:kernel=generic 1.00\n", "names no CPU"},
        {"", "empty"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_text(path, bad[i].text);
        mns_tune_set_default();
        const char *w = mns_tune_warning();
        MT_CHECK(strncmp(mns_tune_current(), "shipped ", 8) == 0, "bad cache %zu: %s", i,
                 mns_tune_current());
        MT_CHECK(strstr(w, "ignored") && strstr(w, path) && strstr(w, bad[i].why),
                 "bad cache %zu: warning \"%s\" lacks \"%s\"", i, w, bad[i].why);
        expect_auto("auto", p, "", "table=shipped", NULL);
    }
    /* an own table half-written (no rows after the cpu line) is well formed
     * and used: auto still serves through mont */
    snprintf(text, sizeof text, HEAD2 "cpu %s\n", key);
    write_text(path, text);
    mns_tune_set_default();
    expect_auto("auto", p, "mont ", "no row for this size", NULL);
    remove(path);
    rmdir(dir);
    mns_tune_set_default();
    mpz_clear(p);
}

static void test_shipped(void)
{
    const char *ifma = mns_tune_shipped("ifma"), *gen = mns_tune_shipped("generic"),
               *adx = mns_tune_shipped("adx"), *zen5 = mns_tune_shipped("ifma-zen5");
    MT_CHECK(ifma && mns_tune_check_text(ifma) == MNS_OK, "shipped ifma: %s", mns_last_error());
    MT_CHECK(zen5 && mns_tune_check_text(zen5) == MNS_OK, "shipped ifma-zen5: %s", mns_last_error());
    MT_CHECK(zen5 && strstr(zen5, "\nname ifma-zen5\n") != NULL, "ifma-zen5 is named so");
    MT_CHECK(gen && mns_tune_check_text(gen) == MNS_OK, "shipped generic: %s", mns_last_error());
    MT_CHECK(adx && mns_tune_check_text(adx) == MNS_OK, "shipped adx: %s", mns_last_error());
    MT_CHECK(mns_tune_shipped("arm") == NULL, "unknown class");
    mns_tune_set_default();
    const char *cpu = getenv("MNS_CPU");
    int generic = cpu && strcmp(cpu, "generic") == 0;
    const char *cur = mns_tune_current();
    MT_CHECK(strstr(cur, "shipped ") != NULL, "current: %s", cur);
    if (generic)
        MT_CHECK(strstr(cur, "shipped generic") != NULL, "MNS_CPU=generic: %s", cur);
    /* the class names the table in use and picks its text */
    const char *cls = mns_tune_cpu_class();
    char want[64];
    snprintf(want, sizeof want, "shipped %s (", cls);
    MT_CHECK(strncmp(cur, want, strlen(want)) == 0, "class %s, current %s", cls, cur);
    MT_CHECK(mns_tune_shipped(cls) != NULL, "class %s has a table", cls);
    MT_CHECK(!generic || strcmp(cls, "generic") == 0, "MNS_CPU=generic: class %s", cls);
    /* auto with the shipped table serves the sizes of the tables, right */
    static const size_t sizes[] = {3, 64, 255, 256, 521, 1024, 1100};
    mpz_t p;
    mpz_init(p);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (sizes[i] == 3)
            mpz_set_ui(p, 3);
        else
            mt_modulus(p, sizes[i], MT_MOD_PRIME);
        expect_auto("auto", p, "", "table=shipped", NULL);
        expect_auto("auto:op=exp", p, "", "op=exp", NULL);
    }
    mpz_clear(p);
}

/* MNS_TUNE_FILE = tests/field/tune_env.txt: every size goes to mpart-mont */
static int env_file(void)
{
    mpz_t p;
    mpz_init(p);
    mt_modulus(p, 256, MT_MOD_PRIME);
    expect_auto("auto", p, "mpart-mont", "tune_env.txt", "line 4");
    MT_CHECK(strstr(mns_tune_current(), "tune_env.txt") != NULL, "current: %s",
             mns_tune_current());
    MT_CHECK(mns_tune_own_table(), "a user's table counts as its own");
    mpz_clear(p);
    return mt_finish();
}

/* MNS_TUNE_FILE names no file: auto says so, named backends work */
static int env_bad(void)
{
    mpz_t p;
    mpz_init(p);
    mt_modulus(p, 256, MT_MOD_PRIME);
    mns_field *f = NULL;
    MT_CHECK(mns_field_new(&f, p, "auto") == MNS_EPARSE && !f &&
                 strstr(mns_last_error(), "MNS_TUNE_FILE"),
             "auto with a missing MNS_TUNE_FILE: %s", mns_last_error());
    MT_CHECK(mns_field_new(&f, p, "mont") == MNS_OK, "mont");
    mns_field_free(f);
    mns_tune_set_default();
    MT_CHECK(mns_field_new(&f, p, "auto") == MNS_OK, "auto after set_default");
    mns_field_free(f);
    mpz_clear(p);
    return mt_finish();
}

/* MNS_CPU=avx2 (tests/field/tune.cmake): a CPU without IFMA, even where the
 * hardware has it; a table ranking the IFMA backends first hands over. */
static int noifma(void)
{
    MT_CHECK(!mns_cpu_has_ifma(), "MNS_CPU=avx2 leaves IFMA usable");
    test_ranking();
    return mt_finish();
}

static int all(void)
{
    test_parser();
    test_parser_v2();
    test_form();
    test_lookup();
    test_ranking();
    test_delta();
    test_file();
    test_cache();
    test_shipped();
    return mt_finish();
}

int main(int argc, char **argv)
{
    /* a cache directory of the test's own: the user's calibration must not
     * change what the test sees, and test_cache writes there */
    char cache[] = "/tmp/mns-tune-cache-XXXXXX";
    if (!mkdtemp(cache)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("XDG_CACHE_HOME", cache, 1);
    mt_init("tune");
    int rc;
    if (argc > 1 && strcmp(argv[1], "noifma") == 0)
        rc = noifma();
    else if (argc > 1 && strcmp(argv[1], "env") == 0)
        rc = env_file();
    else if (argc > 1 && strcmp(argv[1], "envbad") == 0)
        rc = env_bad();
    else
        rc = all();
    rmdir(cache);
    return rc;
}
