/* The generator's entry: options, defaults, and the answer of a build
 * without FLINT (generation needs LLL; reading and checking sets do not). */
#include "gen/gen.h"

#include <string.h>

#include "core/clock.h"
#include "core/error.h"

double mns_gen_now(void) { return mns_now_ns() * 1e-9; }

void mns_pmns_gen_opts_init(mns_pmns_gen_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->word = MNS_PMNS_WORD_S64;
    o->s = 1;
    o->s_max = 6;
    o->delta = 0;
    o->n = 0;
    o->n_max = 0;
    o->eshape = MNS_PMNS_E_BINOMIAL;
    o->lambda_max = 16;
    o->toeplitz_adds = 0;
    o->gamma_tries = 1;
}

mns_status mns_pmns_generate_var(mns_pmns_params **out, const mpz_t p, const mns_pmns_gen_opts *opts)
{
    if (!out)
        return mns_error(MNS_EINVAL, "pmns_generate: NULL output");
    *out = NULL;
    if (!p)
        return mns_error(MNS_EINVAL, "pmns_generate: NULL p");
#ifdef MNS_HAVE_FLINT
    mns_pmns_gen_opts def;
    if (!opts) {
        mns_pmns_gen_opts_init(&def);
        opts = &def;
    }
    return mns_pmns_generate_flint(out, p, opts);
#else
    (void)opts;
    return mns_error(MNS_ENOTSUP, "pmns_generate: mns was built without FLINT (needed for LLL)");
#endif
}
