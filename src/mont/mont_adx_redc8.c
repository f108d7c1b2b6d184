/* Montgomery reduction eight rows at a time with mulx/adcx/adox (BMI2 + ADX),
 * for the `mont` adx kernel (mont_adx.c) from MNS_MONT_ADX8_MIN_WORDS.
 *
 * Why: the four-row REDC (mont_adx.c) pays per column a load and a store of
 * t, a flag break and two closing additions for four products, and per block
 * of four rows a factor computation, a flush of the window and the loop's
 * set-up; it took 1.9-2.2 TSC ticks a product on the Zen 3 at 16-24 words
 * where its long columns alone take 1.4. Eight rows share all of that
 * between twice the products: a long pass of the eight-row column
 * (adx_column.h) takes 1.13 ticks a product.
 *
 * A block of eight rows has two parts.
 *  - Its head, columns 0..7 of p, row by row, as in a textbook REDC: the
 *    window holds t[i .. i+8) of the block, m_i = t_i (-p^-1) mod B is taken
 *    from the word the previous rows have made final, and the row adds m_i
 *    p[0 .. 8) to the window, which zeroes word i and brings in word i+8 as
 *    the high half of m_i p_7 and the two chains' carries. The factors are
 *    exact, so no factor is computed twice and no block factor -p^-1 mod
 *    B^8 is needed; each row waits on its previous one (imul, mulx, two
 *    additions: about 10 cycles), which at eight products a row costs about
 *    what the columns do.
 *  - Its columns 8 .. cols-1, each adding t_j and (m_0 + ... + m_7 B^7) p_j to
 *    the window, the factors read from the stack.
 * After the head the window is the pending sum at words 8..15 of the block
 * (below B^8: t[0..8) + M (p mod B^8) < B^16). The column count cols - 8 need
 * not be a multiple of eight: the pass enters the unrolled loop at position
 * s = -(cols - 8) mod 8, t and p moved back s words and the window rotated
 * to the registers of that position (through the stack), so that the pass
 * ends after a whole iteration with the window's lowest word in r8.
 *
 * Constant time: no branch and no address depends on the data; the loop
 * counts and the entry position depend on cols only.
 *
 * Written as top-level assembly in a C file so that it builds with the C
 * toolchain alone; it is only called when the CPU reports BMI2 and ADX. */
#include "mont/adx_column.h"
#include "mont/mont.h"

/* One row of a block's head: with the window W0..W7 = t[i .. i+8) of the
 * block (W0 lowest), m = W0 pinv mod B (pinv in rcx) is stored at slot(%rsp)
 * for the columns, t_i at slot(%rdi) is set to zero (its final value), and
 * the window becomes t[i+1 .. i+9) = (W + m p[0..8)) / B, the new top word
 * in W0: the high half of m p_7 plus both chains' carries. W + m p[0..8) <
 * B^8 + (B - 1)(B^8 - 1) < B^9, so the top word does not overflow.
 * Clobbers rax, rbx, rdx, rbp (left zero) and the flags. */
#define MNS_ADX_HEADROW_MACRO                                                                    \
    "    .macro MNS_ADX_HEADROW W0, W1, W2, W3, W4, W5, W6, W7, slot\n"                           \
    "    mov \\W0, %rdx\n"                                                                       \
    "    imul %rcx, %rdx\n"                                                                      \
    "    mov %rdx, \\slot(%rsp)\n"                                                               \
    "    xor %ebp, %ebp\n"                                                                       \
    "    mov %rbp, \\slot(%rdi)\n"                                                               \
    "    mulx 0(%rsi), %rax, %rbx\n"                                                             \
    "    adcx %rax, \\W0\n"                                                                      \
    "    adox %rbx, \\W1\n"                                                                      \
    "    mulx 8(%rsi), %rax, %rbx\n"                                                             \
    "    adcx %rax, \\W1\n"                                                                      \
    "    adox %rbx, \\W2\n"                                                                      \
    "    mulx 16(%rsi), %rax, %rbx\n"                                                            \
    "    adcx %rax, \\W2\n"                                                                      \
    "    adox %rbx, \\W3\n"                                                                      \
    "    mulx 24(%rsi), %rax, %rbx\n"                                                            \
    "    adcx %rax, \\W3\n"                                                                      \
    "    adox %rbx, \\W4\n"                                                                      \
    "    mulx 32(%rsi), %rax, %rbx\n"                                                            \
    "    adcx %rax, \\W4\n"                                                                      \
    "    adox %rbx, \\W5\n"                                                                      \
    "    mulx 40(%rsi), %rax, %rbx\n"                                                            \
    "    adcx %rax, \\W5\n"                                                                      \
    "    adox %rbx, \\W6\n"                                                                      \
    "    mulx 48(%rsi), %rax, %rbx\n"                                                            \
    "    adcx %rax, \\W6\n"                                                                      \
    "    adox %rbx, \\W7\n"                                                                      \
    "    mulx 56(%rsi), %rax, \\W0\n"                                                            \
    "    adcx %rax, \\W7\n"                                                                      \
    "    adcx %rbp, \\W0\n"                                                                      \
    "    adox %rbp, \\W0\n"                                                                      \
    "    .endm\n"

/* The window r8..r15 (lowest first) reloaded from 64..120(%rsp) into R0..R7,
 * R0 taking the lowest word: the rotation to a loop entry position. */
#define MNS_ADX_ROTATE_MACRO                                                                     \
    "    .macro MNS_ADX_ROTATE R0, R1, R2, R3, R4, R5, R6, R7\n"                                 \
    "    mov 64(%rsp), \\R0\n"                                                                   \
    "    mov 72(%rsp), \\R1\n"                                                                   \
    "    mov 80(%rsp), \\R2\n"                                                                   \
    "    mov 88(%rsp), \\R3\n"                                                                   \
    "    mov 96(%rsp), \\R4\n"                                                                   \
    "    mov 104(%rsp), \\R5\n"                                                                  \
    "    mov 112(%rsp), \\R6\n"                                                                  \
    "    mov 120(%rsp), \\R7\n"                                                                  \
    "    .endm\n"

/* uint64_t mns_mont_redc8_adx(uint64_t *t, const uint64_t *p, size_t cols,
 *                             uint64_t pinv, size_t blocks, uint64_t carry);
 * For each of `blocks` >= 1 blocks, block k at t + 8k: t[0 .. cols+8) +=
 * (m_0 + ... + m_7 B^7) p[0 .. cols), m_i chosen row by row with pinv = -p^-1
 * mod B so that t[0 .. 8) becomes zero, cols >= 9. `carry` is added at the
 * first block's word cols; the carry out of each block's word cols+7 is
 * added at the next block's word cols (just above this block's window), the
 * last block's returned.
 *
 * Registers: rdi t, rsi p, rcx pinv in the head and the loop count in the
 * columns, rdx m_i or p_j (mulx source), rax/rbx product halves, rbp zero,
 * r8..r15 the window. Stack: 0..63 the block's factors m_0..m_7 (read by
 * MNS_ADX_COL8), 64..127 the window during a rotation, 128 pinv, 136 the
 * carry into the block's word cols, 144 the block's t, 152 p, 160 blocks
 * left, 168 the loop count, 176 eight times the entry position s. */
__asm__(MNS_ADX_COLUMN8_MACRO MNS_ADX_HEADROW_MACRO MNS_ADX_ROTATE_MACRO
    "    .text\n"
    "    .p2align 5\n"
    "    .globl mns_mont_redc8_adx\n"
    "    .hidden mns_mont_redc8_adx\n"
    "    .type mns_mont_redc8_adx, @function\n"
    "mns_mont_redc8_adx:\n"
    "    .cfi_startproc\n"
    MNS_ADX_PUSH_SAVED
    "    sub $184, %rsp\n"
    "    .cfi_adjust_cfa_offset 184\n"
    "    mov %rcx, 128(%rsp)\n"
    "    mov %r9, 136(%rsp)\n"
    "    mov %rdi, 144(%rsp)\n"
    "    mov %rsi, 152(%rsp)\n"
    "    mov %r8, 160(%rsp)\n"
    "    sub $8, %rdx\n" /* the columns after the head */
    "    mov %rdx, %rax\n"
    "    neg %rax\n"
    "    and $7, %rax\n"
    "    shl $3, %rax\n"
    "    mov %rax, 176(%rsp)\n" /* 8 s */
    "    add $7, %rdx\n"
    "    shr $3, %rdx\n"
    "    mov %rdx, 168(%rsp)\n" /* iterations of the loop */
    "3:\n" /* one block of eight rows */
    "    mov 144(%rsp), %rdi\n"
    "    mov 152(%rsp), %rsi\n"
    "    mov 128(%rsp), %rcx\n"
    "    mov 0(%rdi), %r8\n"
    "    mov 8(%rdi), %r9\n"
    "    mov 16(%rdi), %r10\n"
    "    mov 24(%rdi), %r11\n"
    "    mov 32(%rdi), %r12\n"
    "    mov 40(%rdi), %r13\n"
    "    mov 48(%rdi), %r14\n"
    "    mov 56(%rdi), %r15\n"
    "    MNS_ADX_HEADROW %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, 0\n"
    "    MNS_ADX_HEADROW %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r8, 8\n"
    "    MNS_ADX_HEADROW %r10, %r11, %r12, %r13, %r14, %r15, %r8, %r9, 16\n"
    "    MNS_ADX_HEADROW %r11, %r12, %r13, %r14, %r15, %r8, %r9, %r10, 24\n"
    "    MNS_ADX_HEADROW %r12, %r13, %r14, %r15, %r8, %r9, %r10, %r11, 32\n"
    "    MNS_ADX_HEADROW %r13, %r14, %r15, %r8, %r9, %r10, %r11, %r12, 40\n"
    "    MNS_ADX_HEADROW %r14, %r15, %r8, %r9, %r10, %r11, %r12, %r13, 48\n"
    "    MNS_ADX_HEADROW %r15, %r8, %r9, %r10, %r11, %r12, %r13, %r14, 56\n"
    /* the window is words 8..15 of the block, lowest in r8; the columns
     * enter the loop at position s, t and p moved back s words */
    "    mov 168(%rsp), %rcx\n"
    "    mov 176(%rsp), %rax\n"
    "    lea 64(%rdi), %rdi\n"
    "    lea 64(%rsi), %rsi\n"
    "    sub %rax, %rdi\n"
    "    sub %rax, %rsi\n"
    "    test %rax, %rax\n"
    "    jz 50f\n"
    "    mov %r8, 64(%rsp)\n"
    "    mov %r9, 72(%rsp)\n"
    "    mov %r10, 80(%rsp)\n"
    "    mov %r11, 88(%rsp)\n"
    "    mov %r12, 96(%rsp)\n"
    "    mov %r13, 104(%rsp)\n"
    "    mov %r14, 112(%rsp)\n"
    "    mov %r15, 120(%rsp)\n"
    "    cmp $8, %rax\n"
    "    je 61f\n"
    "    cmp $16, %rax\n"
    "    je 62f\n"
    "    cmp $24, %rax\n"
    "    je 63f\n"
    "    cmp $32, %rax\n"
    "    je 64f\n"
    "    cmp $40, %rax\n"
    "    je 65f\n"
    "    cmp $48, %rax\n"
    "    je 66f\n"
    "    MNS_ADX_ROTATE %r15, %r8, %r9, %r10, %r11, %r12, %r13, %r14\n"
    "    jmp 57f\n"
    "61:\n"
    "    MNS_ADX_ROTATE %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r8\n"
    "    jmp 51f\n"
    "62:\n"
    "    MNS_ADX_ROTATE %r10, %r11, %r12, %r13, %r14, %r15, %r8, %r9\n"
    "    jmp 52f\n"
    "63:\n"
    "    MNS_ADX_ROTATE %r11, %r12, %r13, %r14, %r15, %r8, %r9, %r10\n"
    "    jmp 53f\n"
    "64:\n"
    "    MNS_ADX_ROTATE %r12, %r13, %r14, %r15, %r8, %r9, %r10, %r11\n"
    "    jmp 54f\n"
    "65:\n"
    "    MNS_ADX_ROTATE %r13, %r14, %r15, %r8, %r9, %r10, %r11, %r12\n"
    "    jmp 55f\n"
    "66:\n"
    "    MNS_ADX_ROTATE %r14, %r15, %r8, %r9, %r10, %r11, %r12, %r13\n"
    "    jmp 56f\n"
    "    .p2align 4\n"
    "    MNS_ADX_COLS8\n"
    /* the window lands on t[cols .. cols+8) with the carry into word cols;
     * the carry out goes to the next block */
    "    mov 136(%rsp), %rax\n"
    "    xor %ebx, %ebx\n"
    "    add 0(%rdi), %r8\n"
    "    adc 8(%rdi), %r9\n"
    "    adc 16(%rdi), %r10\n"
    "    adc 24(%rdi), %r11\n"
    "    adc 32(%rdi), %r12\n"
    "    adc 40(%rdi), %r13\n"
    "    adc 48(%rdi), %r14\n"
    "    adc 56(%rdi), %r15\n"
    "    adc $0, %ebx\n"
    "    add %rax, %r8\n"
    "    adc $0, %r9\n"
    "    adc $0, %r10\n"
    "    adc $0, %r11\n"
    "    adc $0, %r12\n"
    "    adc $0, %r13\n"
    "    adc $0, %r14\n"
    "    adc $0, %r15\n"
    "    adc $0, %ebx\n"
    MNS_ADX_STORE_WINDOW8
    "    mov %rbx, 136(%rsp)\n"
    "    addq $64, 144(%rsp)\n"
    "    decq 160(%rsp)\n"
    "    jnz 3b\n"
    "    mov 136(%rsp), %rax\n" /* the last block's carry */
    "    add $184, %rsp\n"
    "    .cfi_adjust_cfa_offset -184\n"
    MNS_ADX_POP_SAVED
    "    ret\n"
    "    .cfi_endproc\n"
    "    .size mns_mont_redc8_adx, .-mns_mont_redc8_adx\n"
    "    .purgem MNS_ADX_COL8\n"
    "    .purgem MNS_ADX_COLS8\n"
    "    .purgem MNS_ADX_COPY8\n"
    "    .purgem MNS_ADX_HEADROW\n"
    "    .purgem MNS_ADX_ROTATE\n");
