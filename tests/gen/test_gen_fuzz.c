/* Fuzz target for the PMNS parameter reader (mns_pmns_params_from_string_var).
 *
 * Default build: a bounded-time mutational fuzzer that runs in the ordinary
 * test suite (MNS_FUZZ_SECONDS, default 3 s; seed from MNS_TEST_SEED):
 * valid texts from the generator are mutated (bit flips, byte changes,
 * deleted / duplicated / swapped ranges, numbers +-1, digits inserted,
 * truncation) and fed to the reader. The reader must never crash, must
 * answer MNS_OK or MNS_EPARSE with a "line N" message, and whatever it
 * accepts must pass every independent check (gen_check.h) and write back
 * to a text it accepts again. Every prefix of a valid text is rejected.
 *
 * With -DMNS_LIBFUZZER (clang -fsanitize=fuzzer) the same checks run under
 * libFuzzer instead: LLVMFuzzerTestOneInput below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "gen_check.h"

static void check_input(const char *buf, size_t len, int deep)
{
    mns_pmns_params *P = (mns_pmns_params *)1;
    mns_status st = mns_pmns_params_from_string_var(&P, buf, len);
    if (st != MNS_OK) {
        MT_CHECK(P == NULL, "rejected input leaves *out NULL");
        MT_CHECK(st == MNS_EPARSE || st == MNS_ENOMEM, "reader status %s (%s)", mns_strerror(st), mns_last_error());
        MT_CHECK(st != MNS_EPARSE || strstr(mns_last_error(), "line") != NULL ||
                     strstr(mns_last_error(), "NUL") != NULL,
                 "EPARSE names the line: %s", mns_last_error());
        return;
    }
    /* accepted: it must be a correct set */
    MT_CHECK(mns_pmns_verify_var(P) == MNS_OK, "accepted set verifies: %s", mns_last_error());
    if (deep)
        gen_check(P, "fuzz-accepted", 1);
    char *t = mns_pmns_params_to_string_var(P, NULL);
    mns_pmns_params *Q = NULL;
    MT_CHECK(t && mns_pmns_params_from_string_var(&Q, t, strlen(t)) == MNS_OK, "accepted set rewrites: %s",
             mns_last_error());
    mns_pmns_params_free(Q);
    free(t);
    mns_pmns_params_free(P);
}

#ifdef MNS_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_input((const char *)data, size, 0);
    return 0;
}
#else

static size_t mutate(char *out, size_t cap, const char *in, size_t len)
{
    if (len + 64 > cap)
        len = cap - 64;
    memcpy(out, in, len);
    int rounds = 1 + (int)mt_below(3);
    for (int r = 0; r < rounds && len > 0; r++) {
        size_t i = mt_below(len), j = mt_below(len);
        if (i > j) {
            size_t t = i;
            i = j;
            j = t;
        }
        switch (mt_below(9)) {
        case 0: /* bit flip */
            out[i] ^= (char)(1u << mt_below(8));
            break;
        case 1: /* a structural byte */
        {
            static const char cs[] = " \n-0123456789#ae\t\r";
            out[i] = cs[mt_below(sizeof cs - 1)];
            break;
        }
        case 2: /* delete a range */
            if (j - i < 200) {
                memmove(out + i, out + j, len - j);
                len -= j - i;
            }
            break;
        case 3: /* duplicate a short range */
            if (j - i < 40 && len + (j - i) < cap) {
                memmove(out + j + (j - i), out + j, len - j);
                memcpy(out + j, out + i, j - i);
                len += j - i;
            }
            break;
        case 4: /* truncate */
            len = i;
            break;
        case 5: /* increment or decrement a digit string's last digit */
            while (i < len && (out[i] < '0' || out[i] > '9'))
                i++;
            while (i + 1 < len && out[i + 1] >= '0' && out[i + 1] <= '9')
                i++;
            if (i < len) {
                if (mt_below(2))
                    out[i] = out[i] == '9' ? '0' : (char)(out[i] + 1);
                else
                    out[i] = out[i] == '0' ? '9' : (char)(out[i] - 1);
            }
            break;
        case 6: /* insert digits */
            if (len + 8 < cap) {
                size_t k = 1 + mt_below(6);
                memmove(out + i + k, out + i, len - i);
                for (size_t q = 0; q < k; q++)
                    out[i + q] = (char)('0' + mt_below(10));
                len += k;
            }
            break;
        case 7: /* swap two lines' worth of bytes */
        {
            size_t k = mt_below(30);
            if (j + k < len && i + k <= j)
                for (size_t q = 0; q < k; q++) {
                    char c = out[i + q];
                    out[i + q] = out[j + q];
                    out[j + q] = c;
                }
            break;
        }
        default: /* a NUL or a huge byte */
            out[i] = mt_below(2) ? '\0' : (char)0xff;
            break;
        }
    }
    return len;
}

int main(void)
{
    mt_init("test_gen_fuzz");
    double secs = 3.0;
    const char *e = getenv("MNS_FUZZ_SECONDS");
    if (e && atof(e) > 0)
        secs = atof(e);

    /* seeds: small sets of every kind, from the generator */
    struct {
        size_t bits;
        mns_pmns_word w;
        int s, delta;
        mns_pmns_eshape e;
    } kinds[] = {{96, MNS_PMNS_WORD_S64, 1, 0, MNS_PMNS_E_BINOMIAL},
                 {160, MNS_PMNS_WORD_U52, 1, 2, MNS_PMNS_E_BINOMIAL},
                 {256, MNS_PMNS_WORD_S64, 2, 1, MNS_PMNS_E_BINOMIAL},
                 {200, MNS_PMNS_WORD_U52, 3, 0, MNS_PMNS_E_BINOMIAL},
                 {128, MNS_PMNS_WORD_S64, 1, 0, MNS_PMNS_E_TRINOMIAL}};
    enum { K = sizeof kinds / sizeof kinds[0] };
    char *seed[K];
    size_t seedlen[K];
    int nseed = 0;
    mpz_t p;
    mpz_init(p);
    for (int i = 0; i < K; i++) {
        mns_pmns_gen_opts o;
        mns_pmns_gen_opts_init(&o);
        o.word = kinds[i].w;
        o.s = kinds[i].s;
        o.delta = kinds[i].delta;
        o.eshape = kinds[i].e;
        mns_pmns_params *P = NULL;
        for (int tries = 0; tries < 5 && !P; tries++) {
            mt_modulus(p, kinds[i].bits, MT_MOD_PRIME);
            if (mns_pmns_generate_var(&P, p, &o) != MNS_OK)
                P = NULL;
        }
        MT_CHECK(P != NULL, "seed set %d generated", i);
        if (!P)
            continue;
        seed[nseed] = mns_pmns_params_to_string_var(P, NULL);
        seedlen[nseed] = strlen(seed[nseed]);
        nseed++;
        mns_pmns_params_free(P);
    }
    mpz_clear(p);

    /* every strict prefix is rejected (the one without the final newline is
     * the complete set and accepted) */
    long prefixes = 0;
    for (int i = 0; i < nseed; i++)
        for (size_t l = 0; l + 1 < seedlen[i]; l++) {
            mns_pmns_params *P = NULL;
            mns_status st = mns_pmns_params_from_string_var(&P, seed[i], l);
            MT_CHECK(st == MNS_EPARSE && !P, "prefix %zu of seed %d rejected (%s)", l, i, mns_last_error());
            mns_pmns_params_free(P);
            prefixes++;
        }

    size_t cap = 1 << 16;
    char *buf = malloc(cap);
    long iters = 0, accepted = 0;
    double t0 = mns_gen_now();
    while (nseed && mns_gen_now() - t0 < secs && mt_failed() < 20) {
        int i = (int)mt_below((unsigned long)nseed);
        size_t len = mutate(buf, cap, seed[i], seedlen[i]);
        mns_pmns_params *P = NULL;
        mns_status st = mns_pmns_params_from_string_var(&P, buf, len);
        if (st == MNS_OK)
            accepted++;
        mns_pmns_params_free(P);
        check_input(buf, len, st == MNS_OK && accepted < 50);
        iters++;
    }
    printf("  %ld prefixes rejected, %ld mutated inputs in %.1f s, %ld accepted (all verified)\n", prefixes, iters,
           mns_gen_now() - t0, accepted);
    for (int i = 0; i < nseed; i++)
        free(seed[i]);
    free(buf);
    return mt_finish();
}
#endif
