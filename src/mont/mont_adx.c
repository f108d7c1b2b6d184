/* Montgomery reduction four rows at a time with mulx/adcx/adox (BMI2 + ADX).
 *
 * Why: the REDC of the mpn kernel is n rows of mpn_addmul_1, each of which
 * loads and stores the whole running sum; about 6 instructions per 64x64
 * product, 1.45 TSC ticks per product measured here, as fast as GMP's
 * basecase product. Adding four rows at once, t += (m0 + m1 B + m2 B^2 +
 * m3 B^3) p, keeps a four-word window of the sum in registers and touches
 * memory once per column instead of four times. Two carry chains run at
 * once: CF (adcx) adds the low halves of the products, OF (adox) the high
 * halves and the word of t, so each column is 4 mulx, 8 carry additions, one
 * load of t and one store.
 *
 * The column window: before column j the registers A0..A3 hold the pending
 * sum V at positions j..j+3 (V < B^4). The column adds t_j + M p_j with
 * M < B^4, and V + t_j + M p_j <= B^5 - 1, so the five-word result never
 * carries out: both chains end with CF = OF = 0, the low word is stored and
 * the high half of m3 p_j becomes the new top register (the window rotates
 * by renaming, four columns per loop iteration).
 *
 * Constant time: no branch and no memory index depends on the data; the
 * loop count is the (public) padded length.
 *
 * Written as top-level assembly in a C file so that it builds with the C
 * toolchain alone; it is only called when the CPU reports BMI2 and ADX. */
#include "mont/mont.h"

/* void mns_mont_redc4_adx(uint64_t *t, const uint64_t *p, size_t cols,
 *                         const uint64_t m[4], const uint64_t q[4],
 *                         uint64_t *cw, size_t blocks);
 * For each of `blocks` blocks, block k at t + 4k: t[0 .. cols+4) +=
 * (m0 + m1 B + m2 B^2 + m3 B^3) * p[0 .. cols), the carry out of word
 * cols+3 (0 or 1) stored to cw[4k]. cols is a multiple of 4, >= 8. m are
 * the first block's factors; as soon as words 4..7 of a block are final
 * (after column 7) the next block's factors t[4..8) q mod B^4 are computed,
 * so that their latency overlaps the remaining columns instead of stalling
 * the next block.
 *
 * Registers: rdi t, rsi p, rcx loop count, rdx p_j (mulx source), r8..r11
 * m0..m3, rax/rbx product halves, r12..r15 the window, rbp zero. Stack: 0 q,
 * 8 the carry slot, 16..79 room to spill r8..r15 around the factor
 * computation, 80 the block's t, 88 p, 96 blocks left, 104 the loop count,
 * 112..143 the next factors. */
__asm__(
    "    .text\n"
    "    .p2align 5\n"
    "    .globl mns_mont_redc4_adx\n"
    "    .hidden mns_mont_redc4_adx\n"
    "    .type mns_mont_redc4_adx, @function\n"
    "mns_mont_redc4_adx:\n"
    "    .cfi_startproc\n"
    "    push %rbx\n"
    "    .cfi_adjust_cfa_offset 8\n"
    "    .cfi_rel_offset %rbx, 0\n"
    "    push %rbp\n"
    "    .cfi_adjust_cfa_offset 8\n"
    "    .cfi_rel_offset %rbp, 0\n"
    "    push %r12\n"
    "    .cfi_adjust_cfa_offset 8\n"
    "    .cfi_rel_offset %r12, 0\n"
    "    push %r13\n"
    "    .cfi_adjust_cfa_offset 8\n"
    "    .cfi_rel_offset %r13, 0\n"
    "    push %r14\n"
    "    .cfi_adjust_cfa_offset 8\n"
    "    .cfi_rel_offset %r14, 0\n"
    "    push %r15\n"
    "    .cfi_adjust_cfa_offset 8\n"
    "    .cfi_rel_offset %r15, 0\n"
    "    sub $144, %rsp\n"
    "    .cfi_adjust_cfa_offset 144\n"
    "    mov %r8, 0(%rsp)\n"
    "    mov %r9, 8(%rsp)\n"
    "    mov %rdi, 80(%rsp)\n"
    "    mov %rsi, 88(%rsp)\n"
    "    mov 200(%rsp), %rax\n" /* blocks, the seventh argument */
    "    mov %rax, 96(%rsp)\n"
    "    shr $2, %rdx\n"
    "    sub $2, %rdx\n" /* iterations after the first eight columns */
    "    mov %rdx, 104(%rsp)\n"
    "    mov 0(%rcx), %r8\n"
    "    mov 8(%rcx), %r9\n"
    "    mov 16(%rcx), %r10\n"
    "    mov 24(%rcx), %r11\n"
    "3:\n" /* one block of four rows */
    "    mov 80(%rsp), %rdi\n"
    "    mov 88(%rsp), %rsi\n"
    "    mov 104(%rsp), %rcx\n"
    "    xor %r12d, %r12d\n"
    "    xor %r13d, %r13d\n"
    "    xor %r14d, %r14d\n"
    "    xor %r15d, %r15d\n"
    "    xor %ebp, %ebp\n" /* also clears CF and OF */
    /* One column: A0..A3 the window, off its byte offset. CF adds the low
     * halves, OF the word of t and the high halves; each register takes its
     * CF addition first, so the CF chain alone sets the pace (five steps a
     * column) and both chains end at zero. */
    "    .macro MNS_ADX_COL A0, A1, A2, A3, off\n"
    "    mov \\off(%rsi), %rdx\n"
    "    mulx %r8, %rax, %rbx\n"
    "    adcx %rax, \\A0\n"
    "    adox \\off(%rdi), \\A0\n"
    "    mov \\A0, \\off(%rdi)\n"
    "    mulx %r9, %rax, \\A0\n"
    "    adcx %rax, \\A1\n"
    "    adox %rbx, \\A1\n"
    "    mulx %r10, %rax, %rbx\n"
    "    adcx %rax, \\A2\n"
    "    adox \\A0, \\A2\n"
    "    mulx %r11, %rax, \\A0\n"
    "    adcx %rax, \\A3\n"
    "    adox %rbx, \\A3\n"
    "    adcx %rbp, \\A0\n"
    "    adox %rbp, \\A0\n"
    "    .endm\n"
    "    MNS_ADX_COL %r12, %r13, %r14, %r15, 0\n"
    "    MNS_ADX_COL %r13, %r14, %r15, %r12, 8\n"
    "    MNS_ADX_COL %r14, %r15, %r12, %r13, 16\n"
    "    MNS_ADX_COL %r15, %r12, %r13, %r14, 24\n"
    "    MNS_ADX_COL %r12, %r13, %r14, %r15, 32\n"
    "    MNS_ADX_COL %r13, %r14, %r15, %r12, 40\n"
    "    MNS_ADX_COL %r14, %r15, %r12, %r13, 48\n"
    "    MNS_ADX_COL %r15, %r12, %r13, %r14, 56\n"
    /* the next factors from x = t[4..8): r8..r11 <- x q mod B^4 */
    "    mov %r8, 16(%rsp)\n"
    "    mov %r9, 24(%rsp)\n"
    "    mov %r10, 32(%rsp)\n"
    "    mov %r11, 40(%rsp)\n"
    "    mov %r12, 48(%rsp)\n"
    "    mov %r13, 56(%rsp)\n"
    "    mov %r14, 64(%rsp)\n"
    "    mov %r15, 72(%rsp)\n"
    "    mov 0(%rsp), %rbx\n"
    "    mov 32(%rdi), %rdx\n" /* x0 q */
    "    mulx 0(%rbx), %r8, %r9\n"
    "    mulx 8(%rbx), %r12, %r10\n"
    "    mulx 16(%rbx), %r13, %r11\n"
    "    mov %rdx, %r14\n"
    "    imul 24(%rbx), %r14\n"
    "    add %r12, %r9\n"
    "    adc %r13, %r10\n"
    "    adc %r14, %r11\n"
    "    mov 40(%rdi), %rdx\n" /* x1 q, from word 1 */
    "    mulx 0(%rbx), %r12, %r13\n"
    "    mulx 8(%rbx), %r14, %r15\n"
    "    mov %rdx, %rax\n"
    "    imul 16(%rbx), %rax\n"
    "    add %r14, %r13\n"
    "    adc %rax, %r15\n"
    "    add %r12, %r9\n"
    "    adc %r13, %r10\n"
    "    adc %r15, %r11\n"
    "    mov 48(%rdi), %rdx\n" /* x2 q, from word 2 */
    "    mulx 0(%rbx), %r12, %r13\n"
    "    mov %rdx, %rax\n"
    "    imul 8(%rbx), %rax\n"
    "    add %rax, %r13\n"
    "    add %r12, %r10\n"
    "    adc %r13, %r11\n"
    "    mov 56(%rdi), %rax\n" /* x3 q0, word 3 */
    "    imul 0(%rbx), %rax\n"
    "    add %rax, %r11\n"
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
    "    lea 64(%rdi), %rdi\n"
    "    lea 64(%rsi), %rsi\n"
    "    xor %ebp, %ebp\n" /* zero again, CF = OF = 0 */
    "    test %rcx, %rcx\n"
    "    jz 2f\n"
    "1:\n"
    "    MNS_ADX_COL %r12, %r13, %r14, %r15, 0\n"
    "    MNS_ADX_COL %r13, %r14, %r15, %r12, 8\n"
    "    MNS_ADX_COL %r14, %r15, %r12, %r13, 16\n"
    "    MNS_ADX_COL %r15, %r12, %r13, %r14, 24\n"
    "    lea 32(%rdi), %rdi\n"
    "    lea 32(%rsi), %rsi\n"
    "    dec %rcx\n" /* leaves CF alone; OF = 0 for a small count */
    "    jnz 1b\n"
    "2:\n"
    /* the window lands on t[cols .. cols+4) */
    "    add 0(%rdi), %r12\n"
    "    adc 8(%rdi), %r13\n"
    "    adc 16(%rdi), %r14\n"
    "    adc 24(%rdi), %r15\n"
    "    mov %r12, 0(%rdi)\n"
    "    mov %r13, 8(%rdi)\n"
    "    mov %r14, 16(%rdi)\n"
    "    mov %r15, 24(%rdi)\n"
    "    mov $0, %eax\n"
    "    adc $0, %eax\n"
    "    mov 8(%rsp), %rbx\n" /* the block's carry, deferred */
    "    mov %rax, 0(%rbx)\n"
    "    addq $32, 8(%rsp)\n"
    "    addq $32, 80(%rsp)\n"
    "    mov 112(%rsp), %r8\n"
    "    mov 120(%rsp), %r9\n"
    "    mov 128(%rsp), %r10\n"
    "    mov 136(%rsp), %r11\n"
    "    decq 96(%rsp)\n"
    "    jnz 3b\n"
    "    add $144, %rsp\n"
    "    .cfi_adjust_cfa_offset -144\n"
    "    pop %r15\n"
    "    .cfi_adjust_cfa_offset -8\n"
    "    .cfi_restore %r15\n"
    "    pop %r14\n"
    "    .cfi_adjust_cfa_offset -8\n"
    "    .cfi_restore %r14\n"
    "    pop %r13\n"
    "    .cfi_adjust_cfa_offset -8\n"
    "    .cfi_restore %r13\n"
    "    pop %r12\n"
    "    .cfi_adjust_cfa_offset -8\n"
    "    .cfi_restore %r12\n"
    "    pop %rbp\n"
    "    .cfi_adjust_cfa_offset -8\n"
    "    .cfi_restore %rbp\n"
    "    pop %rbx\n"
    "    .cfi_adjust_cfa_offset -8\n"
    "    .cfi_restore %rbx\n"
    "    .purgem MNS_ADX_COL\n"
    "    ret\n"
    "    .cfi_endproc\n"
    "    .size mns_mont_redc4_adx, .-mns_mont_redc4_adx\n");

#include <string.h>

#include "core/ct.h"
#include "core/tmp.h"

void mns_mont_redc4_adx(uint64_t *t, const uint64_t *p, size_t cols, const uint64_t m[4],
                        const uint64_t q[4], uint64_t *cw, size_t blocks);

typedef unsigned __int128 u128;

/* The four Montgomery factors of a block at once: M = m0 + m1 B + m2 B^2 +
 * m3 B^3 = x q mod B^4 for the block's low words x and q = -p^-1 mod B^4,
 * which makes t + M p divisible by B^4 (the same factors as four rows one
 * after the other). The ten products do not depend on each other, so this
 * is a short latency chain, not four multiply-then-add steps in a row. */
static void block_factors(uint64_t m[4], const uint64_t *x, const uint64_t *q)
{
    uint64_t r[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        uint64_t carry = 0;
        for (int j = 0; i + j < 4; j++) {
            u128 s = (u128)x[i] * q[j] + r[i + j] + carry;
            r[i + j] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
    }
    m[0] = r[0];
    m[1] = r[1];
    m[2] = r[2];
    m[3] = r[3];
}

/* r <- t R^-1 mod p for t < p R in 2n words; t has 2n + 4 words (the top
 * four are overwritten) and cw has n + 12 words of scratch. The blocks run
 * over cols = max(8, n rounded up to 4) columns of the zero-padded p. Rows are added n
 * mod 4 one at a time (mpn_addmul_1), then four at a time; the carry out of
 * each row or block is kept in c at its position minus n and added once at
 * the end, so no carry ripples a data-dependent distance. */
static void redc_adx(const mns_mont_ctx *c, uint64_t *r, uint64_t *t, uint64_t *cw)
{
    const size_t n = c->n, cols = c->n_pad, head = n % 4;
    const uint64_t *p = c->p;
    memset(t + 2 * n, 0, 4 * sizeof(uint64_t));
    memset(cw, 0, (n + 12) * sizeof(uint64_t));
    for (size_t i = 0; i < head; i++)
        cw[i] = mpn_addmul_1((mp_limb_t *)t + i, (const mp_limb_t *)p, (mp_size_t)n, t[i] * c->pinv);
    const size_t blocks = (n - head) / 4;
    if (blocks) {
        uint64_t m[4];
        block_factors(m, t + head, c->pinv4);
        mns_mont_redc4_adx(t + head, c->p_pad, cols, m, c->pinv4, cw + head + cols + 4 - n, blocks);
    }
    /* t[n .. 2n+4) + cw < 2p: the sum is n words in r plus the word hi
     * (the words above it are zero), then p is subtracted when the value is
     * >= p, by mask (cw is free again) */
    mp_limb_t c1 = mpn_add_n((mp_limb_t *)r, (const mp_limb_t *)t + n, (const mp_limb_t *)cw,
                             (mp_size_t)n);
    const uint64_t hi = t[2 * n] + cw[n] + c1;
    mp_limb_t borrow = mpn_sub_n((mp_limb_t *)cw, (const mp_limb_t *)r, (const mp_limb_t *)p,
                                 (mp_size_t)n);
    uint64_t take = mns_ct_mask_nonzero(hi) | ~mns_ct_mask_nonzero(borrow);
    mns_ct_cmov(r, cw, n, take);
}

void mns_mont_mul_adx(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const size_t n = c->n;
    mns_tmp tmp;
    uint64_t *t = mns_tmp_get(&tmp, c->mpn_scratch);
    uint64_t *cw = t + 2 * n + 4, *extra = cw + n + 12;
    mns_mont_kara_mul((mp_limb_t *)t, (const mp_limb_t *)a, (const mp_limb_t *)b, (mp_size_t)n,
                      (mp_limb_t *)extra);
    redc_adx(c, r, t, cw);
    mns_tmp_release(&tmp);
}

void mns_mont_sqr_adx(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a)
{
    const size_t n = c->n;
    mns_tmp tmp;
    uint64_t *t = mns_tmp_get(&tmp, c->mpn_scratch);
    uint64_t *cw = t + 2 * n + 4, *extra = cw + n + 12;
    mns_mont_kara_sqr((mp_limb_t *)t, (const mp_limb_t *)a, (mp_size_t)n, (mp_limb_t *)extra);
    redc_adx(c, r, t, cw);
    mns_tmp_release(&tmp);
}
