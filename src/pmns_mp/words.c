/* The constant-time entry of the multi-precision PMNS backends (set_words
 * of backend.h).
 *
 * A constant polynomial c (coefficient 0 = c, the others 0) is a tight
 * element as soon as 0 <= c < 2^tight0_bits (u52: 2^(rho_bits-1) <= rho;
 * s64: at most B_0 + 1, the proven bound of pmns_mp/ctx.h, about N / 2), and its
 * digits are bit fields of c, so
 * the input enters without a mod-p reduction: cut a into chunks c_j of
 * wbits = tight0_bits bits and run Horner on polynomial values (the "raw"
 * value A(gamma), the element being A(gamma) phi^-1):
 *
 *   A <- C_top;  A <- A G phi^-1 + C_j (G = [2^wbits], raw 2^wbits phi),
 *   r <- A P2 phi^-1 (P2 = [phi], raw phi^2): raw a phi, the element a.
 *
 * ceil(bits(p) / wbits) products (about n: rho is about p^(1/n)), plus one
 * reduce per chunk when delta is 0 (a sum of two tight elements is then
 * reduced before the next product, as the element contract asks). Every
 * bit position, loop bound and digit length depends on public sizes only. */
#include <string.h>

#include "core/error.h"
#include "core/tmp.h"
#include "mns_pmns_mp.h"
#include "pmns_mp/ctx.h"

mns_status mns_pmns_mp_words_prepare(mns_pmns_mp_ctx *c)
{
    /* a chunk below 2^tight0_bits is tight as coefficient 0 (pmns_mp/ctx.h); its
     * top digit below 2^k (< 2^63) */
    int w = c->tight0_bits;
    if (w > c->k * c->s - 1)
        w = c->k * c->s - 1;
    if (w < 1)
        return mns_error(MNS_ENOTSUP, "pmns-mp: rho too small for set_words");
    c->wbits = w;
    c->words = calloc(2 * c->limbs, sizeof *c->words);
    if (!c->words)
        return mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
    mpz_t t;
    mpz_init(t);
    mpz_setbit(t, (mp_bitcnt_t)w);
    mns_status st = mns_pmns_mp_set_mpz_var(c, c->words, t);
    if (st == MNS_OK) {
        mpz_set_ui(t, 0);
        mpz_setbit(t, mns_pmns_params_phi_log2(c->P));
        st = mns_pmns_mp_set_mpz_var(c, c->words + c->limbs, t);
    }
    mpz_clear(t);
    return st;
}

/* len <= 64 bits of a (nw words) from bit off; zero beyond the words.
 * off, len and nw are public. */
static uint64_t bits_at(const uint64_t *a, size_t nw, size_t off, unsigned len)
{
    const size_t w = off / 64;
    const unsigned sh = (unsigned)(off % 64);
    uint64_t v = w < nw ? a[w] >> sh : 0;
    if (sh && w + 1 < nw)
        v |= a[w + 1] << (64 - sh);
    return len < 64 ? v & (((uint64_t)1 << len) - 1) : v;
}

/* C <- the constant polynomial of chunk j (digits of k bits, the top digit
 * takes the rest: at most k - 1 bits since wbits < k s). */
static void chunk_poly(const mns_pmns_mp_ctx *c, uint64_t *C, const uint64_t *a, size_t nw,
                       size_t j)
{
    memset(C, 0, c->limbs * sizeof *C);
    for (int t = 0; t < c->s; t++) {
        const int rest = c->wbits - c->k * t;
        if (rest <= 0)
            break;
        const unsigned len = (unsigned)(rest < c->k ? rest : c->k);
        C[(size_t)t * (size_t)c->n] = bits_at(a, nw, (size_t)c->wbits * j + (size_t)c->k * t, len);
    }
}

void mns_pmns_mp_set_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_pmns_mp_ctx *c = ctx;
    const size_t nw = mpz_size(c->p), bits = mpz_sizeinbase(c->p, 2);
    const size_t chunks = (bits + (size_t)c->wbits - 1) / (size_t)c->wbits;
    const uint64_t *G = c->words, *P2 = c->words + c->limbs;
    mns_tmp tmp;
    uint64_t *A = mns_tmp_get(&tmp, 2 * c->limbs);
    uint64_t *C = A + c->limbs;
    chunk_poly(c, A, a, nw, chunks - 1);
    for (size_t j = chunks - 1; j-- > 0;) {
        c->mul(c, A, A, G);
        chunk_poly(c, C, a, nw, j);
        mns_pmns_mp_add(c, A, A, C);
        if (c->delta < 1)
            mns_pmns_mp_reduce(c, A, A);
    }
    c->mul(c, r, A, P2);
    explicit_bzero(A, 2 * c->limbs * sizeof *A);
}
