#include "exp/exp.h"

#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/ct.h"
#include "core/error.h"
#include "core/tmp.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "core/simd512.h"
#define EXP_X86 1
#ifndef MNS_IFMA_EMULATE /* <immintrin.h> (through simd512.h): AVX2 too */
#define EXP_AVX2 1
#endif
#endif

#define MNS_EXP_MAX_WINDOW 7

/* Cost in multiplications of a window w for a `bits`-bit exponent: the table
 * (2^w - 2 products), one product per window, and the Select that reads the
 * whole table per window. A Select of 2^w entries of `limbs` words costs about
 * 2^w / (4 limbs) products if a product costs ~limbs^2 (short elements: wide
 * windows stop paying sooner). The IFMA kernels of long elements are far
 * cheaper than limbs^2: per element word, a product took 7-9 cycles on
 * rns-ifma (48-80 words, 1024-2048 bits) and 10-17 on pmns-mp-ifma, while
 * Select reads 8 words per vector operation; so the Select of a window costs
 * at least 2^w / 72 products. Without that floor rns-ifma got w = 6 at
 * 2048-bit exponents (2^w / 320), where its Select then took 20% of the
 * exponentiation: w = 6 / 5 / 4 took 1.80 / 1.64 / 1.59 M ticks in one run
 * (load 2); pmns-mp-ifma 1.74 / 1.77 / 1.79. The floor gives w = 5 to both;
 * elements below 18 words keep the old model. Squarings (bits of them) do
 * not depend on w. Everything here is public.
 *
 * The cost is kept in units of 1/d product, d = min(4 limbs, 72), so it is
 * an integer: d (windows + table) + windows 2^w. The loop over w is unrolled
 * so that each division by w is one by a constant: the window is chosen on
 * every exponentiation, and with double arithmetic and a division per
 * evaluation the choice took 139 TSC ticks (Zen 3), 2% of a 128-bit
 * exponentiation. */
static size_t lane_words(size_t limbs, unsigned w);

/* The widest window whose lane fits the per-call scratch bound (core/tmp.h):
 * 7 up to 248 words, 6 up to 496, 5 up to 960; the cost model picks no
 * wider window there at exponents below 10^5 bits, so the bound changes no
 * choice at the sizes the library serves. */
static unsigned max_window(size_t limbs)
{
    unsigned w = MNS_EXP_MAX_WINDOW;
    while (w > 1 && lane_words(limbs, w) > MNS_SCRATCH_WORDS)
        w--;
    return w;
}

static unsigned choose_window(size_t bits, size_t limbs)
{
    const uint64_t d = limbs == 0 ? 4 : limbs >= 18 ? 72 : 4 * (uint64_t)limbs;
    const unsigned wmax = limbs <= 248 ? MNS_EXP_MAX_WINDOW : max_window(limbs);
    unsigned best = 1;
    uint64_t best_cost = UINT64_MAX;
#pragma GCC unroll 8
    for (unsigned w = 1; w <= MNS_EXP_MAX_WINDOW; w++) {
        if (w > wmax)
            break;
        const uint64_t windows = ((uint64_t)bits + w - 1) / w;
        const uint64_t cost = d * (windows + ((uint64_t)1 << w) - 2) + (windows << w);
        if (cost < best_cost) {
            best_cost = cost;
            best = w;
        }
    }
    return best;
}

unsigned mns_exp_window(size_t bits, size_t limbs) { return choose_window(bits, limbs); }

/* Table entries, sel and acc each take `stride` words: limbs rounded up to
 * whole 64-byte lines, so that every entry starts on a line and Select's
 * vector loads never split one (unaligned entries of 31 words cost about
 * a third more per Select). Elements of at most 4 words (mont at 64-256
 * bits) take half a line, one AVX2 register: Select then reads half the
 * words (at 128 bits a line per entry made Select 15% of the
 * exponentiation). The scratch starts anywhere: 8 words of slack for the
 * alignment. */
#define MNS_EXP_QUAD 4
static size_t entry_stride(size_t limbs)
{
    return limbs <= MNS_EXP_QUAD ? MNS_EXP_QUAD : (limbs + 7) & ~(size_t)7;
}

/* Words of scratch of one lane of window w (table, sel, acc, alignment) */
static size_t lane_words(size_t limbs, unsigned w)
{
    return (((size_t)1 << w) + 2) * entry_stride(limbs) + 8;
}

size_t mns_exp_scratch_words(size_t limbs, size_t bits)
{
    return lane_words(limbs, choose_window(bits, limbs));
}

/* Bits [pos, pos + w) of the exponent words (zero beyond the top). The
 * position is public; the value is extracted with shifts only. */
static uint64_t window_at(const uint64_t *ew, size_t nw, size_t pos, unsigned w)
{
    size_t i = pos / 64;
    unsigned sh = (unsigned)(pos % 64);
    uint64_t lo = i < nw ? ew[i] : 0;
    uint64_t hi = (i + 1 < nw) ? ew[i + 1] : 0;
    uint64_t v = lo >> sh;
    if (sh)
        v |= hi << (64 - sh);
    return v & ((((uint64_t)1) << w) - 1);
}

/* Select(table, idx): every entry is read and masked, so neither the time
 * nor the addresses depend on idx. This runs once per window over the whole
 * table (2^w entries of n words: ~1000 words at 1024 bits), so it is written
 * for speed: one mask per entry (made in the register that applies it, or
 * computed once into an array where the entries take several passes),
 * entries read in word blocks kept in registers (8 words per AVX-512
 * register, 4 per AVX2 and 2 per SSE2 register; the table is not aliased by
 * r). mns_ct_select (mask recomputed per entry, r re-read per word since it
 * may alias the table) cost more per window than the window's
 * multiplication at 1024 bits. */
typedef void (*select_fn)(uint64_t *restrict r, const uint64_t *restrict table, size_t count,
                          size_t stride, uint64_t idx);

static void entry_masks(uint64_t *mask, size_t count, uint64_t idx)
{
    for (size_t k = 0; k < count; k++)
        mask[k] = mns_ct_mask_eq((uint64_t)k, idx);
}

#ifdef EXP_X86
/* R registers (8 R words at offset i of every entry) in one pass over the
 * entries: each entry's words are loaded once and merged with one
 * vpternlogq (acc | (mask & e), truth table 0xF8) instead of an and and an
 * or: the Select shares ports 0 and 5 with the multiplications' vpmadd52,
 * so its vector operations are what it costs. */
#define SELECT_PASS(R)                                                                         \
    MNS_TARGET_AVX512F static inline void select_pass_##R(                                     \
        uint64_t *restrict r, const uint64_t *restrict table, size_t count, size_t stride,     \
        const uint64_t *mask, size_t i)                                                        \
    {                                                                                          \
        __m512i acc[R];                                                                        \
        _Pragma("GCC unroll 4") for (int j = 0; j < R; j++) acc[j] = _mm512_setzero_si512();   \
        for (size_t k = 0; k < count; k++) {                                                   \
            const __m512i m = _mm512_set1_epi64((long long)mask[k]);                           \
            const uint64_t *e = table + k * stride + i;                                        \
            _Pragma("GCC unroll 4") for (int j = 0; j < R; j++) acc[j] =                       \
                _mm512_ternarylogic_epi64(acc[j], m, _mm512_load_si512((const void *)(e + 8 * j)), \
                                          0xF8);                                               \
        }                                                                                      \
        _Pragma("GCC unroll 4") for (int j = 0; j < R; j++)                                    \
            _mm512_storeu_si512((void *)(r + i + 8 * j), acc[j]);                              \
    }
SELECT_PASS(1)
SELECT_PASS(2)
SELECT_PASS(3)
SELECT_PASS(4)

static void select_sse2(uint64_t *restrict r, const uint64_t *restrict table, size_t count,
                        size_t stride, uint64_t idx);
#ifdef EXP_AVX2
static void select_avx2(uint64_t *restrict r, const uint64_t *restrict table, size_t count,
                        size_t stride, uint64_t idx);
#endif

/* Passes of 32 words, then one of 8-24 (the stride is a multiple of 8 but
 * for entries of MNS_EXP_QUAD words, half a register: the AVX2 / SSE2 code) */
static void select_avx512(uint64_t *restrict r, const uint64_t *restrict table, size_t count,
                          size_t stride, uint64_t idx)
{
    if (stride == MNS_EXP_QUAD) {
#ifdef EXP_AVX2
        select_avx2(r, table, count, stride, idx);
#else
        select_sse2(r, table, count, stride, idx);
#endif
        return;
    }
    uint64_t mask[(size_t)1 << MNS_EXP_MAX_WINDOW];
    entry_masks(mask, count, idx);
    size_t i = 0;
    for (; i + 32 <= stride; i += 32)
        select_pass_4(r, table, count, stride, mask, i);
    switch (stride - i) {
    case 8: select_pass_1(r, table, count, stride, mask, i); break;
    case 16: select_pass_2(r, table, count, stride, mask, i); break;
    case 24: select_pass_3(r, table, count, stride, mask, i); break;
    default: break; /* 0 */
    }
}

#ifdef EXP_AVX2
/* AVX2 (CPUs without AVX-512: 4 words per register, no ternary logic, so
 * an and and an or per 4 words). One pass over the entries per block of up
 * to 32 words (8 registers). The SSE2 version made 2140 instructions of a
 * 1024-bit pmns-mp Select (32 entries of 24 words), 10% of the
 * exponentiation's, though most of its time hides under the squarings'
 * latency (it does not depend on them). Against it, on Zen 3 (one process,
 * whole exponentiations, two interleaved rounds each): pmns-mp 0.95-0.98x
 * the time at 1024 bits, 0.97x at 2048, 0.99x at 3072-4096; mont 0.98-1.0x.
 *
 * Where one pass covers the entries (up to 32 words: mont to 2048 bits,
 * pmns-mp's 24-word elements at 1024 bits), each entry's mask is made in
 * the register that applies it: a counter vector compared with the broadcast index
 * (vpcmpeqq, whose time does not depend on its operands) and incremented,
 * two operations per entry instead of entry_masks' ten scalar ones (80 of
 * the 162 instructions of a Select of 8 entries of 4 words, mont at 128
 * bits). On Zen 3, one process, against entry_masks: mont 0.86-0.93x the
 * exponentiation's time at 128 bits, 0.94x at 256, 0.96x at 512; pmns-mp
 * 0.97-0.98x at 1024. Computing the masks four at a time by vpcmpeqq into
 * the array instead and broadcasting them back gained about half of that
 * (the broadcast waits on the store). With several passes the compares
 * would be made once per pass, on the vector ports that the FMA kernels
 * keep busy (pmns-mp at 3072 bits, 72-word entries: 0-2% slower in four
 * runs, about the runs' spread), so there the masks are computed once, by
 * entry_masks. */
#define SELECT_PASS_AVX2(R)                                                                    \
    __attribute__((target("avx2"))) static inline void select_pass_avx2_##R(                   \
        uint64_t *restrict r, const uint64_t *restrict table, size_t count, size_t stride,     \
        const uint64_t *mask, uint64_t idx, size_t i)                                          \
    {                                                                                          \
        const __m256i want = _mm256_set1_epi64x((long long)idx);                               \
        const __m256i one = _mm256_set1_epi64x(1);                                             \
        __m256i number = _mm256_setzero_si256(), acc[R];                                       \
        _Pragma("GCC unroll 8") for (int j = 0; j < R; j++) acc[j] = _mm256_setzero_si256();   \
        for (size_t k = 0; k < count; k++) {                                                   \
            __m256i m;                                                                         \
            if (mask) /* public: which of the two ways */                                      \
                m = _mm256_set1_epi64x((long long)mask[k]);                                    \
            else {                                                                             \
                m = _mm256_cmpeq_epi64(number, want);                                          \
                number = _mm256_add_epi64(number, one);                                        \
            }                                                                                  \
            const uint64_t *e = table + k * stride + i;                                        \
            _Pragma("GCC unroll 8") for (int j = 0; j < R; j++) acc[j] = _mm256_or_si256(      \
                acc[j], _mm256_and_si256(m, _mm256_load_si256((const __m256i *)(e + 4 * j)))); \
        }                                                                                      \
        _Pragma("GCC unroll 8") for (int j = 0; j < R; j++)                                    \
            _mm256_storeu_si256((__m256i *)(r + i + 4 * j), acc[j]);                           \
    }
SELECT_PASS_AVX2(1)
SELECT_PASS_AVX2(2)
SELECT_PASS_AVX2(4)
SELECT_PASS_AVX2(6)
SELECT_PASS_AVX2(8)

/* Passes of 32 words, then one of 8-24; entries of MNS_EXP_QUAD words in
 * one register. mask: NULL (one pass) or entry_masks' array. */
__attribute__((target("avx2"))) static void select_avx2(uint64_t *restrict r,
                                                        const uint64_t *restrict table,
                                                        size_t count, size_t stride, uint64_t idx)
{
    uint64_t masks[(size_t)1 << MNS_EXP_MAX_WINDOW];
    const uint64_t *mask = NULL;
    if (stride > 32) {
        entry_masks(masks, count, idx);
        mask = masks;
    }
    size_t i = 0;
    for (; i + 32 <= stride; i += 32)
        select_pass_avx2_8(r, table, count, stride, mask, idx, i);
    switch (stride - i) {
    case MNS_EXP_QUAD: select_pass_avx2_1(r, table, count, stride, mask, idx, i); break;
    case 8: select_pass_avx2_2(r, table, count, stride, mask, idx, i); break;
    case 16: select_pass_avx2_4(r, table, count, stride, mask, idx, i); break;
    case 24: select_pass_avx2_6(r, table, count, stride, mask, idx, i); break;
    default: break; /* 0 */
    }
}
#endif

/* SSE2 (the baseline; MNS_CPU=generic; AVX-512 builds that emulate the
 * vector units): blocks of 8 words in 4 registers, or of MNS_EXP_QUAD words
 * in 2. Each mask is made in the register that applies it (as AVX2 does
 * for one pass: the baseline is not tuned for several); SSE2 has no
 * 64-bit compare, but entry numbers and index are below 2^32, so comparing
 * 32-bit lanes of broadcast 32-bit values gives all-ones exactly when they
 * are equal. */
static void select_sse2(uint64_t *restrict r, const uint64_t *restrict table, size_t count,
                        size_t stride, uint64_t idx)
{
    const __m128i want = _mm_set1_epi32((int)idx), one = _mm_set1_epi32(1);
    for (size_t i = 0; i < stride; i += 8) {
        const int quad = stride - i < 8; /* MNS_EXP_QUAD words left */
        __m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0, k = a0;
        for (size_t n = 0; n < count; n++) {
            const __m128i m = _mm_cmpeq_epi32(k, want);
            k = _mm_add_epi32(k, one);
            const __m128i *e = (const __m128i *)(table + n * stride + i);
            a0 = _mm_or_si128(a0, _mm_and_si128(m, _mm_load_si128(e)));
            a1 = _mm_or_si128(a1, _mm_and_si128(m, _mm_load_si128(e + 1)));
            if (!quad) { /* public: the stride */
                a2 = _mm_or_si128(a2, _mm_and_si128(m, _mm_load_si128(e + 2)));
                a3 = _mm_or_si128(a3, _mm_and_si128(m, _mm_load_si128(e + 3)));
            }
        }
        _mm_storeu_si128((__m128i *)(r + i), a0);
        _mm_storeu_si128((__m128i *)(r + i + 2), a1);
        if (!quad) {
            _mm_storeu_si128((__m128i *)(r + i + 4), a2);
            _mm_storeu_si128((__m128i *)(r + i + 6), a3);
        }
    }
}
#endif

#ifndef EXP_X86
static void select_scalar(uint64_t *restrict r, const uint64_t *restrict table, size_t count,
                          size_t stride, uint64_t idx)
{
    uint64_t mask[(size_t)1 << MNS_EXP_MAX_WINDOW];
    entry_masks(mask, count, idx);
    for (size_t i = 0; i < stride; i++) {
        uint64_t a = 0;
        for (size_t k = 0; k < count; k++)
            a |= table[k * stride + i] & mask[k];
        r[i] = a;
    }
}
#endif

static select_fn pick_select(void)
{
#ifdef EXP_X86
    /* MNS_CPU=generic gives 0 here: the baseline (SSE2) version then */
    const unsigned f = mns_cpu_features();
    if (f & MNS_CPU_AVX512F)
        return select_avx512;
#ifdef EXP_AVX2
    if (f & MNS_CPU_AVX2)
        return select_avx2;
#endif
    return select_sse2;
#else
    return select_scalar;
#endif
}

/* One exponentiation of the driver below: its operations, table, selected
 * entry, accumulator and exponent words. */
typedef struct lane {
    const mns_exp_ops *ops;
    uint64_t *table, *sel, *acc;
    const uint64_t *ew;
    size_t nw;
} lane;

/* The lane's table, sel and acc in its scratch (aligned to a line), zeroed:
 * Select reads whole strides, so the padding words are zero, not stale. */
static void lane_init(lane *l, const mns_exp_ops *ops, const mpz_t e, unsigned w,
                      uint64_t *scratch)
{
    const size_t entries = (size_t)1 << w, st = entry_stride(ops->limbs);
    l->ops = ops;
    l->table = scratch + ((8 - ((uintptr_t)scratch / 8) % 8) % 8);
    l->sel = l->table + entries * st;
    l->acc = l->sel + st;
    memset(l->table, 0, (entries + 2) * st * sizeof(uint64_t));
    /* the exponent's words, read once; mpz limbs are 64-bit on x86-64 */
    l->nw = mpz_size(e);
    l->ew = (const uint64_t *)mpz_limbs_read(e);
}

/* The products of the driver, on one lane or on two at once (the backend's
 * x2 kernel, or two ordinary calls where it has none). */
static void lanes_sqr(const mns_exp_x2 *x2, const lane *l, int m, uint64_t *r0,
                      const uint64_t *a0, uint64_t *r1, const uint64_t *a1)
{
    if (m == 1)
        l[0].ops->sqr(l[0].ops->ctx, r0, a0);
    else if (x2 && x2->sqr_x2)
        x2->sqr_x2(l[0].ops->ctx, l[1].ops->ctx, r0, a0, r1, a1);
    else {
        l[0].ops->sqr(l[0].ops->ctx, r0, a0);
        l[1].ops->sqr(l[1].ops->ctx, r1, a1);
    }
}

static void lanes_mul(const mns_exp_x2 *x2, const lane *l, int m, uint64_t *r0,
                      const uint64_t *a0, const uint64_t *b0, uint64_t *r1, const uint64_t *a1,
                      const uint64_t *b1)
{
    if (m == 1)
        l[0].ops->mul(l[0].ops->ctx, r0, a0, b0);
    else if (x2 && x2->mul_x2)
        x2->mul_x2(l[0].ops->ctx, l[1].ops->ctx, r0, a0, b0, r1, a1, b1);
    else {
        l[0].ops->mul(l[0].ops->ctx, r0, a0, b0);
        l[1].ops->mul(l[1].ops->ctx, r1, a1, b1);
    }
}

/* The fixed-window loop on m = 1 or 2 lanes in step: every product of one
 * lane is paired with the same product of the other, so two independent
 * chains share each kernel call. The window count comes from the longer
 * exponent; the shorter one is read as zero-extended (its top windows select
 * table[0] = 1, and 1 squared is 1), so the time depends on the larger bit
 * length and the element sizes only. */
static void powm_lanes(const mns_exp_x2 *x2, lane *l, int m, size_t bits, unsigned w)
{
    const size_t entries = (size_t)1 << w;
    const size_t st0 = entry_stride(l[0].ops->limbs);
    const size_t st1 = m == 2 ? entry_stride(l[1].ops->limbs) : 0;
    uint64_t *t0 = l[0].table, *t1 = m == 2 ? l[1].table : NULL;

    /* table[i] = a^i; even entries by squaring (cheaper), odd by product;
     * table[1] holds a (lane_init's caller copied it) */
    for (int j = 0; j < m; j++)
        l[j].ops->one(l[j].ops->ctx, l[j].table);
    for (size_t i = 2; i < entries; i++) {
        if (i % 2 == 0)
            lanes_sqr(x2, l, m, t0 + i * st0, t0 + (i / 2) * st0, t1 + i * st1,
                      t1 + (i / 2) * st1);
        else
            lanes_mul(x2, l, m, t0 + i * st0, t0 + (i - 1) * st0, t0 + st0, t1 + i * st1,
                      t1 + (i - 1) * st1, t1 + st1);
    }

    const size_t windows = (bits + w - 1) / w;
    size_t pos = (windows - 1) * w;
    const select_fn select = pick_select();
    for (int j = 0; j < m; j++)
        select(l[j].acc, l[j].table, entries, entry_stride(l[j].ops->limbs),
               window_at(l[j].ew, l[j].nw, pos, w));
    uint64_t *a1 = m == 2 ? l[1].acc : NULL, *s1 = m == 2 ? l[1].sel : NULL;
    while (pos > 0) {
        pos -= w;
        /* The window's entry is selected before its squarings, which it
         * does not depend on: small elements' squarings are latency-bound
         * (mont at 2-4 words), and the Select's loads and masks then run in
         * their shadow instead of between the last squaring and the
         * product. Zen 3, one process against Select after the squarings:
         * mont modexp 0.97x / 0.93x / 0.97x / 0.98x / 0.97x the time at
         * 128 / 192 / 256 / 384 / 512 bits, 1.00x at 768-1024 and pmns-mp
         * at 1024-2048. */
        for (int j = 0; j < m; j++)
            select(l[j].sel, l[j].table, entries, entry_stride(l[j].ops->limbs),
                   window_at(l[j].ew, l[j].nw, pos, w));
        /* one call for the window's squarings where the backend has one
         * (mont's mulx kernels at 2-4 words keep the element in registers
         * between them: modexp 0.85-0.93x the time at 128-256 bits, Zen 3,
         * one process); pairs square in step through the x2 kernels */
        if (m == 1 && l[0].ops->sqr_k)
            l[0].ops->sqr_k(l[0].ops->ctx, l[0].acc, l[0].acc, w);
        else
            for (unsigned k = 0; k < w; k++)
                lanes_sqr(x2, l, m, l[0].acc, l[0].acc, a1, a1);
        lanes_mul(x2, l, m, l[0].acc, l[0].acc, l[0].sel, a1, a1, s1);
    }
}

void mns_exp_powm(const mns_exp_ops *ops, uint64_t *r, const uint64_t *a, const mpz_t e,
                  uint64_t *scratch)
{
    if (mpz_sgn(e) == 0) {
        ops->one(ops->ctx, r);
        return;
    }
    const size_t bits = mpz_sizeinbase(e, 2);
    const unsigned w = choose_window(bits, ops->limbs);
    lane l;
    lane_init(&l, ops, e, w, scratch);
    memcpy(l.table + entry_stride(ops->limbs), a, ops->limbs * sizeof(uint64_t));
    powm_lanes(NULL, &l, 1, bits, w);
    memcpy(r, l.acc, ops->limbs * sizeof(uint64_t));
}

unsigned mns_exp_window_x2(size_t bits, size_t limbs0, size_t limbs1)
{
    return choose_window(bits, limbs0 > limbs1 ? limbs0 : limbs1);
}

size_t mns_exp_x2_lane_words(size_t limbs, size_t bits, size_t limbs_other)
{
    return lane_words(limbs, mns_exp_window_x2(bits, limbs, limbs_other));
}

void mns_exp_powm_x2(const mns_exp_x2 *x2, uint64_t *r0, const uint64_t *a0, const mpz_t e0,
                     uint64_t *r1, const uint64_t *a1, const mpz_t e1, uint64_t *scratch0,
                     uint64_t *scratch1)
{
    const mns_exp_ops *o0 = &x2->op[0], *o1 = &x2->op[1];
    size_t b0 = mpz_sizeinbase(e0, 2), b1 = mpz_sizeinbase(e1, 2);
    if (mpz_sgn(e0) == 0)
        b0 = 0;
    if (mpz_sgn(e1) == 0)
        b1 = 0;
    const size_t bits = b0 > b1 ? b0 : b1;
    if (bits == 0) {
        o0->one(o0->ctx, r0);
        o1->one(o1->ctx, r1);
        return;
    }
    const unsigned w = mns_exp_window_x2(bits, o0->limbs, o1->limbs);
    lane l[2];
    lane_init(&l[0], o0, e0, w, scratch0);
    lane_init(&l[1], o1, e1, w, scratch1);
    /* a0, a1 copied before anything is written: r_j may alias a_j */
    memcpy(l[0].table + entry_stride(o0->limbs), a0, o0->limbs * sizeof(uint64_t));
    memcpy(l[1].table + entry_stride(o1->limbs), a1, o1->limbs * sizeof(uint64_t));
    powm_lanes(x2, l, 2, bits, w);
    memcpy(r0, l[0].acc, o0->limbs * sizeof(uint64_t));
    memcpy(r1, l[1].acc, o1->limbs * sizeof(uint64_t));
}

mns_status mns_exp_check(size_t limbs)
{
    return mns_scratch_check("powm", lane_words(limbs, max_window(limbs)));
}

mns_status mns_exp_powm_stack(const mns_exp_ops *ops, uint64_t *r, const uint64_t *a,
                              const mpz_t e)
{
    /* the window is chosen again inside mns_exp_powm: a few integer
     * operations since the cost model has no division */
    const size_t words = mns_exp_scratch_words(ops->limbs, mpz_sizeinbase(e, 2));
    mns_status st = mns_scratch_check("powm", words);
    if (st != MNS_OK)
        return st;
    mns_tmp tmp;
    uint64_t *scratch = mns_tmp_get(&tmp, words);
    mns_exp_powm(ops, r, a, e, scratch);
    /* the table holds powers of a secret base; explicit_bzero is not
     * removed as a dead store before the return the way memset may be */
    explicit_bzero(scratch, words * sizeof(uint64_t));
    return MNS_OK;
}
