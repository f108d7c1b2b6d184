/* Long PMNS sweeps (label "slow"): generated primes from 160 to 3072 bits
 * for both word kinds and both E, the shipped sets at 3072 (u52) and 4096
 * bits, and long chains through mt_field_check. Generation grows fast with n
 * (LLL in dimension n): measured 2026-11-24 (CPU time, shared machine), the
 * default u52 sets take 0.3 s at 1621 bits, 0.75 s at 2048, 5 s at 3072
 * (n = 97) and 150 s at 4096 (n = 138); s64 1.8 s at 3072. So both word
 * kinds are generated up to 3072 bits, the E=x1 and delta variants up to
 * 1214, and 4096 comes from params/ (test_pmns checks every shipped s = 1
 * set too). The only refusal accepted is pmns-ifma's MNS_ENOTSUP
 * where the IFMA kernels are not available (MNS_CPU=generic): a generation
 * that fails is a failure, not a skip. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mns.h"
#include "mns_pmns.h"
#include "core/cpu.h"
#include "testutil.h"

static int ifma_refused(const char *spec)
{
    return strncmp(spec, "pmns-ifma", 9) == 0 && !(mns_cpu_has_ifma() && mns_cpu_features() != 0);
}

static void check(const char *spec, const mpz_t p)
{
    mt_field_opts o = {.iters = 50, .chain = 10000, .powms = 10, .allow_notsup = ifma_refused(spec)};
    long bad = mt_field_check(spec, p, &o);
    MT_CHECK(bad == 0, "%s on %zu bits: %ld failures", spec, mpz_sizeinbase(p, 2), bad);
}

int main(void)
{
    mt_init("test_slow_pmns");
    /* progress survives a timeout */
    setvbuf(stdout, NULL, _IOLBF, 0);
    static const size_t sizes[] = {160, 255, 448, 512, 607, 807, 1214, 1536, 1621, 2048, 3072};
    static const char *const specs[] = {"pmns", "pmns-ifma", "pmns:E=x1", "pmns-ifma:E=x1",
                                        "pmns:delta=3", "pmns-ifma:delta=2", NULL};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        mpz_t p;
        mpz_init(p);
        mt_modulus(p, sizes[i], MT_MOD_PRIME);
        for (int s = 0; specs[s]; s++) {
            if (s >= 2 && sizes[i] > 1214)
                continue;
            printf("  %zu bits: %s\n", sizes[i], specs[s]);
            check(specs[s], p);
        }
        mpz_clear(p);
    }

    /* the shipped sets of the standard primes, with the set's own delta and
     * with delta=1 asked for */
    MT_CHECK(chdir(MNS_SOURCE_DIR "/params") == 0, "chdir %s/params", MNS_SOURCE_DIR);
    static const char *const files[] = {"pmns-3072-u52-s1-d3.txt", "pmns-4096-s64-s1-d1.txt",
                                        "pmns-4096-u52-s1-d3.txt", NULL};
    for (int f = 0; files[f]; f++) {
        mns_pmns_params *P = NULL;
        mns_status st = mns_pmns_params_load_var(&P, files[f]);
        MT_CHECK(st == MNS_OK, "load %s: %s", files[f], mns_last_error());
        if (!P)
            continue;
        const char *name = mns_pmns_params_word(P) == MNS_PMNS_WORD_U52 ? "pmns-ifma" : "pmns";
        /* option values are short (MNS_OPT_VAL_MAX): the file by its name,
         * from its directory */
        char spec[256];
        printf("  %s\n", files[f]);
        snprintf(spec, sizeof spec, "%s:params=%s", name, files[f]);
        check(spec, mns_pmns_params_p(P));
        snprintf(spec, sizeof spec, "%s:delta=1,params=%s", name, files[f]);
        check(spec, mns_pmns_params_p(P));
        mns_pmns_params_free(P);
    }
    return mt_finish();
}
