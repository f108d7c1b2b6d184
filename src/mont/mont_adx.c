/* Montgomery reduction four rows at a time with mulx/adcx/adox (BMI2 + ADX).
 *
 * Why: the REDC of the mpn kernel is n rows of mpn_addmul_1, each of which
 * loads and stores the whole running sum; about 6 instructions per 64x64
 * product, 1.45 TSC ticks per product measured here, as fast as GMP's
 * basecase product. Adding four rows at once, t += (m0 + m1 B + m2 B^2 +
 * m3 B^3) p, keeps a four-word window of the sum in registers and touches
 * memory once per column instead of four times. Two carry chains run at
 * once: CF (adcx) adds the low halves of the products, OF (adox) the high
 * halves and the word of t, so each column is 4 mulx, 10 carry additions,
 * one load of t and one store.
 *
 * The column (adx_column.h, shared with the four-row products of
 * mont_adx_mul.c) keeps a four-word window of the pending sum in registers
 * and never carries out of it.
 *
 * From MNS_MONT_ADX8_MIN_WORDS words the blocks take eight rows
 * (mont_adx_redc8.c), after one block of four when n / 4 is odd.
 *
 * Constant time: no branch and no memory index depends on the data; the
 * loop counts and the loop's entry position depend on n only.
 *
 * Written as top-level assembly in a C file so that it builds with the C
 * toolchain alone; it is only called when the CPU reports BMI2 and ADX. */
#include "mont/adx_column.h"
#include "mont/mont.h"

/* r8..r11 <- x q mod B^4 for x = t[off/8 .. off/8 + 4) at rdi and q at rbx:
 * the four factors of a block at once (the same as four rows one after
 * the other, whose factors x_i pinv would wait on each other's rows). The
 * ten products do not depend on each other, so this is a short latency
 * chain. Clobbers rax, rdx, r12..r15 and the flags. */
#define MNS_ADX_FACTORS_MACRO                                                                    \
    "    .macro MNS_ADX_FACTORS off\n"                                                           \
    "    mov \\off(%rdi), %rdx\n" /* x0 q */ \
    "    mulx 0(%rbx), %r8, %r9\n" \
    "    mulx 8(%rbx), %r12, %r10\n" \
    "    mulx 16(%rbx), %r13, %r11\n" \
    "    mov %rdx, %r14\n" \
    "    imul 24(%rbx), %r14\n" \
    "    add %r12, %r9\n" \
    "    adc %r13, %r10\n" \
    "    adc %r14, %r11\n" \
    "    mov 8+\\off(%rdi), %rdx\n" /* x1 q, from word 1 */ \
    "    mulx 0(%rbx), %r12, %r13\n" \
    "    mulx 8(%rbx), %r14, %r15\n" \
    "    mov %rdx, %rax\n" \
    "    imul 16(%rbx), %rax\n" \
    "    add %r14, %r13\n" \
    "    adc %rax, %r15\n" \
    "    add %r12, %r9\n" \
    "    adc %r13, %r10\n" \
    "    adc %r15, %r11\n" \
    "    mov 16+\\off(%rdi), %rdx\n" /* x2 q, from word 2 */ \
    "    mulx 0(%rbx), %r12, %r13\n" \
    "    mov %rdx, %rax\n" \
    "    imul 8(%rbx), %rax\n" \
    "    add %rax, %r13\n" \
    "    add %r12, %r10\n" \
    "    adc %r13, %r11\n" \
    "    mov 24+\\off(%rdi), %rax\n" /* x3 q0, word 3 */ \
    "    imul 0(%rbx), %rax\n" \
    "    add %rax, %r11\n" \
    "    .endm\n"

/* uint64_t mns_mont_redc4_adx(uint64_t *t, const uint64_t *p, size_t cols,
 *                             const uint64_t q[4], size_t blocks);
 * For each of `blocks` blocks, block k at t + 4k: t[0 .. cols+4) +=
 * (m0 + m1 B + m2 B^2 + m3 B^3) * p[0 .. cols) with M = t[0..4) q mod B^4,
 * which makes t[0..4) zero; the carry out of word cols+3 (0 or 1) is added
 * at the next block's word cols (this block's word cols+4, just above its
 * window), the last block's returned. cols >= 8, blocks >= 1. As soon as
 * words 4..7 of a block are final (after column 7) the next block's factors
 * are computed, so that their latency overlaps the remaining columns
 * instead of stalling the next block; the last block skips them (about 30
 * TSC ticks, where a single block precedes the eight-row REDC).
 *
 * Registers: rdi t, rsi p, rcx loop count, rdx p_j (mulx source), r8..r11
 * m0..m3, rax/rbx product halves, r12..r15 the window, rbp zero. Stack: 0 q,
 * 8 the carry into the block's top words, 16..79 room to spill r8..r15 around the factor
 * computation, 80 the block's t, 88 p, 96 blocks left, 104 the loop count,
 * 112..143 the next factors, 144 eight times the loop's entry position. */
__asm__(MNS_ADX_COLUMN_MACRO MNS_ADX_FACTORS_MACRO
    "    .text\n"
    "    .p2align 5\n"
    "    .globl mns_mont_redc4_adx\n"
    "    .hidden mns_mont_redc4_adx\n"
    "    .type mns_mont_redc4_adx, @function\n"
    "mns_mont_redc4_adx:\n"
    "    .cfi_startproc\n"
    MNS_ADX_PUSH_SAVED
    "    sub $152, %rsp\n"
    "    .cfi_adjust_cfa_offset 152\n"
    "    mov %rcx, 0(%rsp)\n"
    "    movq $0, 8(%rsp)\n"
    "    mov %rdi, 80(%rsp)\n"
    "    mov %rsi, 88(%rsp)\n"
    "    mov %r8, 96(%rsp)\n" /* blocks */
    "    sub $8, %rdx\n" /* columns after the first eight */
    "    mov %rdx, %rax\n"
    "    neg %rax\n"
    "    and $3, %rax\n"
    "    shl $3, %rax\n"
    "    mov %rax, 144(%rsp)\n" /* 8 s, s = their count's -1 mod 4 */
    "    add $3, %rdx\n"
    "    shr $2, %rdx\n"
    "    mov %rdx, 104(%rsp)\n" /* iterations of the loop */
    "    mov %rcx, %rbx\n"
    "    MNS_ADX_FACTORS 0\n" /* the first block's factors */
    "3:\n" /* one block of four rows */
    "    mov 80(%rsp), %rdi\n"
    "    mov 88(%rsp), %rsi\n"
    "    mov 104(%rsp), %rcx\n"
    "    xor %r12d, %r12d\n"
    "    xor %r13d, %r13d\n"
    "    xor %r14d, %r14d\n"
    "    xor %r15d, %r15d\n"
    "    xor %ebp, %ebp\n" /* also clears CF and OF */
    "    MNS_ADX_COL %r12, %r13, %r14, %r15, 0\n"
    "    MNS_ADX_COL %r13, %r14, %r15, %r12, 8\n"
    "    MNS_ADX_COL %r14, %r15, %r12, %r13, 16\n"
    "    MNS_ADX_COL %r15, %r12, %r13, %r14, 24\n"
    "    MNS_ADX_COL %r12, %r13, %r14, %r15, 32\n"
    "    MNS_ADX_COL %r13, %r14, %r15, %r12, 40\n"
    "    MNS_ADX_COL %r14, %r15, %r12, %r13, 48\n"
    "    MNS_ADX_COL %r15, %r12, %r13, %r14, 56\n"
    /* the next factors from x = t[4..8): r8..r11 <- x q mod B^4; not on
     * the last block, which has no next (the count of blocks is public) */
    "    cmpq $1, 96(%rsp)\n"
    "    je 5f\n"
    "    mov %r8, 16(%rsp)\n"
    "    mov %r9, 24(%rsp)\n"
    "    mov %r10, 32(%rsp)\n"
    "    mov %r11, 40(%rsp)\n"
    "    mov %r12, 48(%rsp)\n"
    "    mov %r13, 56(%rsp)\n"
    "    mov %r14, 64(%rsp)\n"
    "    mov %r15, 72(%rsp)\n"
    "    mov 0(%rsp), %rbx\n"
    "    MNS_ADX_FACTORS 32\n"
    "    mov %r8, 112(%rsp)\n"
    "    mov %r9, 120(%rsp)\n"
    "    mov %r10, 128(%rsp)\n"
    "    mov %r11, 136(%rsp)\n"
    "    mov 16(%rsp), %r8\n"
    "    mov 24(%rsp), %r9\n"
    "    mov 32(%rsp), %r10\n"
    "    mov 40(%rsp), %r11\n"
    "    mov 48(%rsp), %r12\n"
    "    mov 56(%rsp), %r13\n"
    "    mov 64(%rsp), %r14\n"
    "    mov 72(%rsp), %r15\n"
    "5:\n"
    /* the remaining columns enter the loop at position s, t and p moved
     * back s words and the window renamed to the registers of that
     * position, so that the loop ends after a whole iteration */
    "    mov 144(%rsp), %rax\n"
    "    lea 64(%rdi), %rdi\n"
    "    lea 64(%rsi), %rsi\n"
    "    sub %rax, %rdi\n"
    "    sub %rax, %rsi\n"
    "    test %rcx, %rcx\n"
    "    jz 2f\n"
    "    cmp $8, %rax\n"
    "    je 4f\n"
    "    cmp $16, %rax\n"
    "    je 8f\n"
    "    cmp $24, %rax\n"
    "    je 9f\n"
    "    jmp 41f\n"
    /* the window, lowest word in r12, renamed for the entry position */
    "4:\n"
    "    mov %r15, %rax\n"
    "    mov %r14, %r15\n"
    "    mov %r13, %r14\n"
    "    mov %r12, %r13\n"
    "    mov %rax, %r12\n"
    "    jmp 45f\n"
    "8:\n"
    "    xchg %r12, %r14\n"
    "    xchg %r13, %r15\n"
    "    jmp 46f\n"
    "9:\n"
    "    mov %r12, %rax\n"
    "    mov %r13, %r12\n"
    "    mov %r14, %r13\n"
    "    mov %r15, %r14\n"
    "    mov %rax, %r15\n"
    "    jmp 47f\n"
    "    .p2align 4\n"
    "    MNS_ADX_COLS4\n"
    "2:\n"
    /* the window and the previous block's carry land on t[cols .. cols+4)
     * (where that carry belongs: one word above the previous window); the
     * two carries out cannot both be 1, their sum goes to the next block */
    "    mov 8(%rsp), %rax\n"
    "    xor %ebx, %ebx\n"
    "    add 0(%rdi), %r12\n"
    "    adc 8(%rdi), %r13\n"
    "    adc 16(%rdi), %r14\n"
    "    adc 24(%rdi), %r15\n"
    "    adc $0, %ebx\n"
    "    add %rax, %r12\n"
    "    adc $0, %r13\n"
    "    adc $0, %r14\n"
    "    adc $0, %r15\n"
    "    adc $0, %ebx\n"
    "    mov %r12, 0(%rdi)\n"
    "    mov %r13, 8(%rdi)\n"
    "    mov %r14, 16(%rdi)\n"
    "    mov %r15, 24(%rdi)\n"
    "    mov %rbx, 8(%rsp)\n"
    "    addq $32, 80(%rsp)\n"
    "    decq 96(%rsp)\n"
    "    jz 6f\n"
    "    mov 112(%rsp), %r8\n"
    "    mov 120(%rsp), %r9\n"
    "    mov 128(%rsp), %r10\n"
    "    mov 136(%rsp), %r11\n"
    "    jmp 3b\n"
    "6:\n"
    "    mov 8(%rsp), %rax\n" /* the last block's carry */
    "    add $152, %rsp\n"
    "    .cfi_adjust_cfa_offset -152\n"
    MNS_ADX_POP_SAVED
    "    .purgem MNS_ADX_COL\n"
    "    .purgem MNS_ADX_COLS4\n"
    "    .purgem MNS_ADX_FACTORS\n"
    "    ret\n"
    "    .cfi_endproc\n"
    "    .size mns_mont_redc4_adx, .-mns_mont_redc4_adx\n");

#include <string.h>

#include "core/ct.h"
#include "core/tmp.h"

uint64_t mns_mont_redc4_adx(uint64_t *t, const uint64_t *p, size_t cols, const uint64_t q[4],
                            size_t blocks);
uint64_t mns_mont_redc8_adx(uint64_t *t, const uint64_t *p, size_t cols, uint64_t pinv,
                            size_t blocks, uint64_t carry);

/* r <- t R^-1 mod p for t < p R in 2n words; t has 2n + 4 words (the top
 * four are overwritten) and d n words of scratch. The blocks run over cols =
 * max(8, n) columns of p (zero-padded to 8 words). The rows are split as
 * mns_mont_adx_row_blocks says: n mod 4 one at a time (mpn_addmul_1), then
 * blocks of four, then of eight; each block's carry goes into the next
 * block's top words (the four-row blocks' last carry lands on the first
 * eight-row block's word cols). As in GMP's mpn_redc_1 each head row's
 * carry is kept in the word of t that its row made zero, and t[0 .. n),
 * zero apart from them, is added to the upper half in one pass, so no carry
 * ripples a data-dependent distance. */
static void redc_adx(const mns_mont_ctx *c, uint64_t *r, uint64_t *t, uint64_t *d)
{
    const size_t n = c->n, cols = n < 8 ? 8 : n;
    const mns_mont_adx_blocks bl = mns_mont_adx_row_blocks(n);
    const uint64_t *p = c->p;
    memset(t + 2 * n, 0, 4 * sizeof(uint64_t));
    for (size_t i = 0; i < bl.head; i++)
        t[i] = mpn_addmul_1((mp_limb_t *)t + i, (const mp_limb_t *)p, (mp_size_t)n, t[i] * c->pinv);
    /* the last block's carry is the word at 2n (n >= 8), or zero above the
     * words that hold the result (n < 8, where t[2n] does) */
    uint64_t hi = 0;
    if (bl.fours)
        hi = mns_mont_redc4_adx(t + bl.head, c->p_pad, cols, c->pinv4, bl.fours);
    if (bl.eights)
        hi = mns_mont_redc8_adx(t + bl.head + 4 * bl.fours, c->p, n, c->pinv, bl.eights, hi);
    /* r + hi B^n = t[n .. 2n] + t[0 .. n) < 2p; then p is subtracted when
     * that is >= p, by mask */
    hi += t[2 * n] + mpn_add_n((mp_limb_t *)r, (const mp_limb_t *)t + n, (const mp_limb_t *)t,
                               (mp_size_t)n);
    mp_limb_t borrow = mpn_sub_n((mp_limb_t *)d, (const mp_limb_t *)r, (const mp_limb_t *)p,
                                 (mp_size_t)n);
    uint64_t take = mns_ct_mask_nonzero(hi) | ~mns_ct_mask_nonzero(borrow);
    mns_ct_cmov(r, d, n, take);
}

void mns_mont_mul_adx(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const size_t n = c->n;
    mns_tmp tmp;
    uint64_t *t = mns_tmp_get(&tmp, c->mpn_scratch);
    uint64_t *d = t + 2 * n + 4, *extra = d + n + 12;
    mns_mont_kara_mul((mp_limb_t *)t, (const mp_limb_t *)a, (const mp_limb_t *)b, (mp_size_t)n,
                      (mp_limb_t *)extra, MNS_MONT_BASE_ADX);
    redc_adx(c, r, t, d);
}

void mns_mont_sqr_adx(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a)
{
    const size_t n = c->n;
    mns_tmp tmp;
    uint64_t *t = mns_tmp_get(&tmp, c->mpn_scratch);
    uint64_t *d = t + 2 * n + 4, *extra = d + n + 12;
    mns_mont_kara_sqr((mp_limb_t *)t, (const mp_limb_t *)a, (mp_size_t)n, (mp_limb_t *)extra,
                      MNS_MONT_BASE_ADX);
    redc_adx(c, r, t, d);
}
