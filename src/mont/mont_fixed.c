/* Montgomery kernels for a fixed number of words, 1 to MNS_MONT_FIXED_MAX
 * (`mont` kernel=fixed, the default there except under MNS_CPU=generic).
 *
 * Why: below about 800 bits the loop kernels pay per call more than the
 * products cost. The mpn kernel is a call of mpn_sec_sqr (or _mul), then one
 * mpn_addmul_1 call per word of the REDC, then a masked subtraction: at 512
 * bits about 1450 instructions a squaring, a third of them loop and call
 * overhead (callgrind), and 1.1-2.2x the time of GMP's and OpenSSL's own
 * Montgomery products at 256-512 bits on a Zen 3 (mns-bench). Here the
 * steps of mont_body.h, which the portable kernel runs with n known at run
 * time, get a constant word count per instance: the compiler unrolls every
 * loop and keeps the running sum in registers (an array on the stack, not
 * scratch). The product is the fused CIOS; the squaring computes each cross
 * product once and reduces with the separated REDC: n(n+1)/2 + n^2 products
 * against 2n^2.
 *
 * Constant time: as mont_body.h (the word count is public). */
#include "mont/mont.h"
#include "mont/mont_body.h"

#define FX_INST(N)                                                                              \
    static void fx_mul_##N(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a,               \
                           const uint64_t *b)                                                   \
    {                                                                                           \
        uint64_t t[N + 1] = {0};                                                                \
        mont_mul_body(r, a, b, c->p, c->pinv, t, N);                                            \
    }                                                                                           \
    static void fx_sqr_##N(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a)               \
    {                                                                                           \
        uint64_t t[2 * N] = {0};                                                                \
        mont_sqr_words(t, a, N);                                                                \
        mont_redc_body(r, t, c->p, c->pinv, N);                                                 \
    }
FX_INST(1)
FX_INST(2)
FX_INST(3)
FX_INST(4)
FX_INST(5)
FX_INST(6)
FX_INST(7)
FX_INST(8)
FX_INST(9)

_Static_assert(MNS_MONT_FIXED_MAX == 9, "one instance per word count up to the maximum");

static const mns_mont_mul_fn fx_muls[] = {fx_mul_1, fx_mul_2, fx_mul_3, fx_mul_4, fx_mul_5,
                                          fx_mul_6, fx_mul_7, fx_mul_8, fx_mul_9};
static const mns_mont_sqr_fn fx_sqrs[] = {fx_sqr_1, fx_sqr_2, fx_sqr_3, fx_sqr_4, fx_sqr_5,
                                          fx_sqr_6, fx_sqr_7, fx_sqr_8, fx_sqr_9};

int mns_mont_fixed_kernels(size_t n, mns_mont_mul_fn *mul, mns_mont_sqr_fn *sqr)
{
    if (n < 1 || n > MNS_MONT_FIXED_MAX)
        return 0;
    *mul = fx_muls[n - 1];
    *sqr = fx_sqrs[n - 1];
    return 1;
}
