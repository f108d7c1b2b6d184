/* Montgomery products for a fixed word count with mulx/adcx/adox (`mont`
 * kernel=fixed-adx, from 2 to MNS_MONT_MULX_MAX words; the default on CPUs
 * with BMI2 and ADX below MNS_MONT_ADX_MIN_WORDS, see mont.h for why not at
 * 16 words).
 *
 * Why: the portable fixed-size kernels (mont_fixed.c) spend about 1550
 * instructions on an 8-word product, most of them GCC's carry handling of
 * unsigned __int128 sums and spills; OpenSSL's mulx code was 1.2-1.5x
 * faster at 512 bits. Here each instance is straight-line assembly
 * (mont_mulx_asm.inc, written by scripts/gen_mont_mulx.py): CIOS, one
 * multiplication row t += a_i b and one reduction row t += m p per word of
 * a, the running sum t_0..t_n and its carry word in registers throughout
 * up to 9 words (from 10, t_n and the carry word are on the stack and
 * t_0..t_(n-1) take 12 registers; from 13, t_10 and up are on the stack,
 * carried through two temporaries), two carry chains per row (CF adds the
 * low halves of the products, OF the high halves), so a product costs one
 * mulx and two additions.
 *
 * Representation and bounds: inputs a, b < p (tight, as every `mont`
 * kernel), any odd p of n words. After each pair of rows t < 2p, so t has
 * n words and one bit; within a row t + a_i b < (2^64 + 1) p, which can pass
 * 2^(64(n+1)) when p is near 2^(64n), hence the carry word. The result is
 * t - p when that does not borrow, else t, chosen by cmov: r < p.
 *
 * The squaring computes each cross product once: row i adds a_i^2 and
 * a_i times the doubled tail 2 (a_(i+1) + a_(i+2) 2^64 + ...), read from a
 * doubled copy of a made once, so n(n+1)/2 + n^2 products against the
 * product's 2n^2, and the reduction rows are the product's. From 5 words
 * on: below, the copy costs what the products save, and the squaring runs
 * the product's rows on a held in registers.
 *
 * Up to 12 words a squaring squares k >= 1 times in one call (the
 * exponentiation's window width, through the backend's sqr_k): the chain of
 * latency-bound squarings at 2-4 words then keeps a in registers, and the
 * other sizes save a call, the saved registers and the reload of a per
 * squaring.
 *
 * Constant time: no branch but the squaring's loop on the public k, and every
 * address depends on n only; the final choice is a cmov over every word. */
#include "mont/mont.h"

#if defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__)
#include "generated/mont_mulx_asm.inc"

/* r <- a b 2^(-64n) mod p (mulx) and r <- a^2 2^(-64n) mod p (sqrx) for the
 * N-word odd p, a, b < p, pinv = -p^-1 mod 2^64; r may alias a or b (r is
 * written after the last read of a and b). */
#define MX_MUL(N)                                                                               \
    void mns_mont_mulx_##N(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, \
                           uint64_t pinv);                                                      \
    static void mx_mul_##N(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a,               \
                           const uint64_t *b)                                                   \
    {                                                                                           \
        mns_mont_mulx_##N(r, a, b, c->p, c->pinv);                                              \
    }
/* k >= 1 squarings: up to 12 words the generator's sqrx instances loop k
 * times (the exponentiation's window width, public), so sqr is the case
 * k = 1 */
#define MX_SQR(N)                                                                               \
    void mns_mont_sqrx_##N(uint64_t *r, const uint64_t *a, const uint64_t *p, uint64_t pinv,     \
                           uint64_t k);                                                         \
    static void mx_sqr_##N(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a)               \
    {                                                                                           \
        mns_mont_sqrx_##N(r, a, c->p, c->pinv, 1);                                              \
    }                                                                                           \
    static void mx_sqrk_##N(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a, unsigned k)   \
    {                                                                                           \
        mns_mont_sqrx_##N(r, a, c->p, c->pinv, k);                                              \
    }
#define MX_SQR1(N)                                                                              \
    void mns_mont_sqrx_##N(uint64_t *r, const uint64_t *a, const uint64_t *p, uint64_t pinv);   \
    static void mx_sqr_##N(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a)               \
    {                                                                                           \
        mns_mont_sqrx_##N(r, a, c->p, c->pinv);                                                 \
    }
/* 2 words: the squaring takes -p^-1 mod 2^128 (the low words of pinv4),
 * its REDC being one step by 2^128 (scripts/gen_mont_mulx.py,
 * instance_sqr_2) */
void mns_mont_sqrx_2(uint64_t *r, const uint64_t *a, const uint64_t *p, const uint64_t *q,
                     uint64_t k);
static void mx_sqr_2(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a)
{
    mns_mont_sqrx_2(r, a, c->p, c->pinv4, 1);
}
static void mx_sqrk_2(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a, unsigned k)
{
    mns_mont_sqrx_2(r, a, c->p, c->pinv4, k);
}
MX_MUL(2)
MX_MUL(3)
MX_MUL(4)
MX_MUL(5)
MX_MUL(6)
MX_MUL(7)
MX_MUL(8)
MX_MUL(9)
MX_MUL(10)
MX_MUL(11)
MX_MUL(12)
MX_MUL(13)
MX_MUL(14)
MX_MUL(15)
MX_MUL(16)
MX_SQR(3)
MX_SQR(4)
MX_SQR(5)
MX_SQR(6)
MX_SQR(7)
MX_SQR(8)
MX_SQR(9)
MX_SQR(10)
MX_SQR(11)
MX_SQR(12)
/* From 13 words one squaring per call (see instance_sqr_deep) */
MX_SQR1(13)
MX_SQR1(14)
MX_SQR1(15)
MX_SQR1(16)

_Static_assert(MNS_MONT_MULX_MIN == 2 && MNS_MONT_MULX_MAX == 16 && MNS_MONT_SQRK_MAX == 12,
               "one instance per word count the generator writes");

static const mns_mont_mul_fn mx_muls[] = {
    mx_mul_2,  mx_mul_3,  mx_mul_4,  mx_mul_5,  mx_mul_6,  mx_mul_7,  mx_mul_8, mx_mul_9,
    mx_mul_10, mx_mul_11, mx_mul_12, mx_mul_13, mx_mul_14, mx_mul_15, mx_mul_16};
static const mns_mont_sqr_fn mx_sqrs[] = {
    mx_sqr_2,  mx_sqr_3,  mx_sqr_4,  mx_sqr_5,  mx_sqr_6,  mx_sqr_7,  mx_sqr_8, mx_sqr_9,
    mx_sqr_10, mx_sqr_11, mx_sqr_12, mx_sqr_13, mx_sqr_14, mx_sqr_15, mx_sqr_16};

int mns_mont_mulx_kernels(size_t n, mns_mont_mul_fn *mul, mns_mont_sqr_fn *sqr)
{
    if (n < MNS_MONT_MULX_MIN || n > MNS_MONT_MULX_MAX)
        return 0;
    *mul = mx_muls[n - MNS_MONT_MULX_MIN];
    *sqr = mx_sqrs[n - MNS_MONT_MULX_MIN];
    return 1;
}

mns_mont_sqrk_fn mns_mont_mulx_sqrk(size_t n)
{
    static const mns_mont_sqrk_fn fns[] = {mx_sqrk_2, mx_sqrk_3,  mx_sqrk_4,  mx_sqrk_5,
                                           mx_sqrk_6, mx_sqrk_7,  mx_sqrk_8,  mx_sqrk_9,
                                           mx_sqrk_10, mx_sqrk_11, mx_sqrk_12};
    return n >= MNS_MONT_MULX_MIN && n <= MNS_MONT_SQRK_MAX ? fns[n - MNS_MONT_MULX_MIN] : NULL;
}
#else
int mns_mont_mulx_kernels(size_t n, mns_mont_mul_fn *mul, mns_mont_sqr_fn *sqr)
{
    (void)n;
    (void)mul;
    (void)sqr;
    return 0;
}

mns_mont_sqrk_fn mns_mont_mulx_sqrk(size_t n)
{
    (void)n;
    return NULL;
}
#endif
