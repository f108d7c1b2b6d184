/* Inversion: the canonical words of a (constant-time get_words), safegcd on
 * them (safegcd.h), and back through set_words. The modulus need not be
 * prime: a value sharing a factor with it gets MNS_ERANGE and r = 0, in the
 * same time as an invertible one. */
#include <string.h>

#include "core/ct.h"
#include "core/ct_words.h"
#include "core/error.h"
#include "field/field_impl.h"
#include "field/safegcd.h"

static mns_status inv(const mns_field *f, uint64_t *r, const uint64_t *a, int var,
                      const char *who)
{
    mns_status st = mns_field_api_check(f, who);
    if (st != MNS_OK)
        return st;
    if (!r || !a)
        return mns_error(MNS_EINVAL, "%s: NULL argument", who);
    if (f->api.pbits > MNS_SAFEGCD_MAX_BITS)
        return mns_error(MNS_ENOTSUP, "%s: p of %zu bits, inversion serves up to %d", who,
                         f->api.pbits, MNS_SAFEGCD_MAX_BITS);
    const size_t n = f->api.pn;
    _Alignas(64) uint64_t blk[MNS_FIELD_API_WORDS];
    uint64_t *w = blk, *t = blk + n;
    mns_field_canon(f, w, a, t);
    uint64_t ok = mns_safegcd_inv(w, w, f->api.pw, n, f->api.pbits, var);
    mns_ct_declassify(&ok, sizeof ok);
    f->inst.ops->set_words(f->ctx, r, w);
    explicit_bzero(blk, (n + f->inst.limbs) * sizeof(uint64_t));
    /* the status is the one public bit of the result: invertible or not */
    return ok ? MNS_OK : mns_error(MNS_ERANGE, "%s: not invertible modulo p", who);
}

mns_status mns_field_inv(const mns_field *f, uint64_t *r, const uint64_t *a)
{
    return inv(f, r, a, 0, "mns_field_inv");
}

mns_status mns_field_inv_var(const mns_field *f, uint64_t *r, const uint64_t *a)
{
    return inv(f, r, a, 1, "mns_field_inv_var");
}
