/* Constant-time entry and exit of elements as byte strings, and set_ui.
 *
 * set_bytes reads any number of bytes, the most significant n-word chunk
 * first (n = words of p), and folds each into an accumulator below p with
 * GMP's mpn_sec_div_r: acc <- (acc 2^(64 n) + chunk) mod p. That function's
 * time and memory trace depend on the sizes only, every byte is read at an
 * index fixed by len, and the result enters the backend by its constant-time
 * set_words. get_bytes is get_words (after a reduce, so loose elements are
 * fine) written out byte by byte, zero-padded. */
#include <string.h>

#include "core/error.h"
#include "field/field_impl.h"

/* bytes [lo, lo + 8 n) of the integer, little-endian positions (byte 0 the
 * least significant), as n words; positions at or above len read 0 */
static void chunk_words(uint64_t *w, size_t n, const unsigned char *buf, size_t len, size_t lo,
                        mns_order order)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t x = 0;
        for (size_t k = 0; k < 8; k++) {
            const size_t pos = lo + 8 * i + k;
            if (pos >= len) /* public: depends on len and the position only */
                break;
            const unsigned char b = order == MNS_LITTLE_ENDIAN ? buf[pos] : buf[len - 1 - pos];
            x |= (uint64_t)b << (8 * k);
        }
        w[i] = x;
    }
}

mns_status mns_field_set_bytes(const mns_field *f, uint64_t *r, const unsigned char *buf,
                               size_t len, mns_order order)
{
    mns_status st = mns_field_api_check(f, "mns_field_set_bytes");
    if (st != MNS_OK)
        return st;
    if (!r || (!buf && len))
        return mns_error(MNS_EINVAL, "mns_field_set_bytes: NULL argument");
    if (order != MNS_BIG_ENDIAN && order != MNS_LITTLE_ENDIAN)
        return mns_error(MNS_EINVAL, "mns_field_set_bytes: unknown byte order %d", (int)order);
    const size_t n = f->api.pn, cb = 8 * n;
    _Alignas(64) uint64_t blk[MNS_FIELD_API_WORDS];
    uint64_t *num = blk, *tp = blk + 2 * n; /* num = chunk (low n), acc (high n) */
    memset(num, 0, 2 * n * sizeof(uint64_t));
    for (size_t c = (len + cb - 1) / cb; c-- > 0;) {
        chunk_words(num, n, buf, len, c * cb, order);
        mpn_sec_div_r((mp_ptr)num, (mp_size_t)(2 * n), (mp_srcptr)f->api.pw, (mp_size_t)n,
                      (mp_ptr)tp);
        memmove(num + n, num, n * sizeof(uint64_t)); /* the remainder is the next acc */
    }
    f->inst.ops->set_words(f->ctx, r, num + n);
    explicit_bzero(blk, (2 * n + (size_t)mpn_sec_div_r_itch((mp_size_t)(2 * n), (mp_size_t)n)) *
                            sizeof(uint64_t));
    return MNS_OK;
}

mns_status mns_field_get_bytes(const mns_field *f, unsigned char *buf, size_t len,
                               const uint64_t *a, mns_order order)
{
    mns_status st = mns_field_api_check(f, "mns_field_get_bytes");
    if (st != MNS_OK)
        return st;
    if (!a || (!buf && len))
        return mns_error(MNS_EINVAL, "mns_field_get_bytes: NULL argument");
    if (order != MNS_BIG_ENDIAN && order != MNS_LITTLE_ENDIAN)
        return mns_error(MNS_EINVAL, "mns_field_get_bytes: unknown byte order %d", (int)order);
    if (len < f->api.pbytes)
        return mns_error(MNS_ERANGE, "mns_field_get_bytes: %zu bytes, p needs %zu", len,
                         f->api.pbytes);
    const size_t n = f->api.pn;
    _Alignas(64) uint64_t blk[MNS_FIELD_API_WORDS];
    uint64_t *w = blk, *t = blk + n;
    mns_field_canon(f, w, a, t);
    for (size_t pos = 0; pos < len; pos++) {
        const unsigned char b = pos < 8 * n ? (unsigned char)(w[pos / 8] >> (8 * (pos % 8))) : 0;
        buf[order == MNS_LITTLE_ENDIAN ? pos : len - 1 - pos] = b;
    }
    explicit_bzero(blk, (n + f->inst.limbs) * sizeof(uint64_t));
    return MNS_OK;
}

void mns_field_set_ui(const mns_field *f, uint64_t *r, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    if (mns_field_set_bytes(f, r, b, sizeof b, MNS_LITTLE_ENDIAN) != MNS_OK && f && r)
        memset(r, 0, f->inst.limbs * sizeof(uint64_t));
}
