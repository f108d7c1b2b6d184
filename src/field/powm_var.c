/* r <- a^e for a public exponent: left-to-right sliding window over the odd
 * powers a, a^3, ..., a^(2^w - 1). The time depends on the bits of e (the
 * _var of the name); the base is handled by the constant-time mul and sqr.
 * The table lives in the API's stack block: w shrinks when the elements are
 * large, so no call allocates. */
#include <string.h>

#include "core/error.h"
#include "field/field_impl.h"

static unsigned window(size_t bits, size_t limbs)
{
    unsigned w = bits <= 8 ? 1 : bits <= 64 ? 3 : bits <= 640 ? 4 : 5;
    while (w > 1 && ((size_t)1 << (w - 1)) * limbs + 2 * limbs > MNS_FIELD_API_WORDS)
        w--;
    return w;
}

void mns_field_powm_var(const mns_field *f, uint64_t *r, const uint64_t *a, const mpz_t e)
{
    const size_t L = f->inst.limbs;
    if (mpz_sgn(e) < 0) {
        memset(r, 0, L * sizeof(uint64_t));
        mns_error(MNS_ERANGE, "mns_field_powm_var: negative exponent");
        return;
    }
    if (mns_field_api_check(f, "mns_field_powm_var") != MNS_OK) {
        memset(r, 0, L * sizeof(uint64_t));
        return;
    }
    const size_t bits = mpz_sizeinbase(e, 2);
    const unsigned w = window(bits, L);
    _Alignas(64) uint64_t blk[MNS_FIELD_API_WORDS];
    uint64_t *acc = blk, *sq = blk + L, *tab = blk + 2 * L; /* tab[k] = a^(2k + 1) */
    f->inst.ops->reduce(f->ctx, tab, a);
    f->sqr(f->ctx, sq, tab);
    for (size_t k = 1; k < ((size_t)1 << (w - 1)); k++)
        f->mul(f->ctx, tab + k * L, tab + (k - 1) * L, sq);
    memcpy(acc, f->api.one, L * sizeof(uint64_t));
    int started = 0;
    for (long i = (long)bits - 1; i >= 0;) {
        if (!mpz_tstbit(e, (mp_bitcnt_t)i)) {
            if (started)
                f->sqr(f->ctx, acc, acc);
            i--;
            continue;
        }
        long j = i - (long)w + 1 > 0 ? i - (long)w + 1 : 0;
        while (!mpz_tstbit(e, (mp_bitcnt_t)j))
            j++;
        size_t val = 0;
        for (long k = i; k >= j; k--)
            val = 2 * val + (size_t)mpz_tstbit(e, (mp_bitcnt_t)k);
        if (started) {
            for (long k = i; k >= j; k--)
                f->sqr(f->ctx, acc, acc);
            f->mul(f->ctx, acc, acc, tab + (val >> 1) * L);
        } else {
            memcpy(acc, tab + (val >> 1) * L, L * sizeof(uint64_t));
            started = 1;
        }
        i = j - 1;
    }
    memcpy(r, acc, L * sizeof(uint64_t));
    explicit_bzero(blk, (2 + ((size_t)1 << (w - 1))) * L * sizeof(uint64_t));
}
