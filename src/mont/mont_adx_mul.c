/* Schoolbook products and squares four rows at a time with mulx/adcx/adox
 * (BMI2 + ADX), for the `mont` adx kernel (mont_adx.c) and the base case of
 * its Karatsuba (mont_karatsuba.c).
 *
 * Why: below 32 words the adx kernel multiplied with GMP's mpn_sec_mul and
 * mpn_sec_sqr; Debian's GMP is a generic x86-64 build without mulx (about
 * 1.95 TSC ticks per 64x64 product in its basecase on the Zen 3). Adding four
 * rows of the product at once, t += (a_i + a_(i+1) B + a_(i+2) B^2 +
 * a_(i+3) B^3) b, is the REDC's four-row column (adx_column.h) with b in
 * place of p: four mulx and ten carry additions per column, one load and one
 * store of t, the four factors and a four-word window of the sum in
 * registers. A long pass takes 5.5 ticks a column (1.4 per product) on the
 * Zen 3, where a loop of independent mulx alone takes 0.98 ticks each.
 *
 * From MNS_MONT_ADX8_MIN_WORDS words the product adds eight rows at a time
 * (the eight-row column of adx_column.h, factors on the stack): 1.13 ticks a
 * product in a long pass.
 *
 * The square adds each cross product a_i a_j (i < j) once, four rows at a
 * time (eight from MNS_MONT_ADX8_MIN_WORDS when n is a multiple of 8, each
 * block's own triangle as seven partial columns: 4-6% off a Montgomery
 * squaring at 16-48 words), then doubles the sum and adds the squares a_i^2
 * in one pass.
 *
 * Constant time: no branch and no address depends on the data; the loop
 * counts and the entry point into the unrolled loop depend on n only. */
#include <string.h>

#include "mont/adx_column.h"
#include "mont/mont.h"

/* void mns_mont_addmul4_adx(uint64_t *t, const uint64_t *b, size_t cols,
 *                           const uint64_t *a, size_t blocks);
 * For k = 0 .. blocks-1: t[4k .. 4k+cols+4) <- t[4k .. 4k+cols) +
 * (a_4k + ... + a_(4k+3) B^3) b[0 .. cols), cols >= 1: the four words above
 * t[4k+cols) are written, not added to (in a schoolbook product they lie
 * above every earlier row), and the sum fits (B^(cols+4) > t + (B^4 - 1)
 * (B^cols - 1) when t < B^cols). The unrolled loop takes four columns; when
 * cols is not a multiple of four the pass enters it at column position s =
 * -cols mod 4, with t and b moved back s words (the window is zero then, so
 * any entry is a valid start), and every pass ends after a whole iteration
 * with the window's lowest word in r12.
 *
 * Registers: rdi t at the column, rsi b, rcx iterations left, r8..r11 the
 * four factors, r12..r15 the window. Stack: 0 the factors' address, 8 blocks
 * left, 16 s, 24 b moved back, 32 iterations, 40 the block's t. */
__asm__(MNS_ADX_COLUMN_MACRO
    "    .text\n"
    "    .p2align 5\n"
    "    .globl mns_mont_addmul4_adx\n"
    "    .hidden mns_mont_addmul4_adx\n"
    "    .type mns_mont_addmul4_adx, @function\n"
    "mns_mont_addmul4_adx:\n"
    "    .cfi_startproc\n"
    MNS_ADX_PUSH_SAVED
    "    sub $48, %rsp\n"
    "    .cfi_adjust_cfa_offset 48\n"
    "    mov %rcx, 0(%rsp)\n"
    "    mov %r8, 8(%rsp)\n"
    "    mov %rdx, %rax\n"
    "    neg %rax\n"
    "    and $3, %rax\n"
    "    mov %rax, 16(%rsp)\n"
    "    shl $3, %rax\n"
    "    sub %rax, %rdi\n"
    "    sub %rax, %rsi\n"
    "    mov %rsi, 24(%rsp)\n"
    "    add $3, %rdx\n"
    "    shr $2, %rdx\n"
    "    mov %rdx, 32(%rsp)\n"
    "1:\n"
    "    mov 0(%rsp), %rax\n"
    "    mov 0(%rax), %r8\n"
    "    mov 8(%rax), %r9\n"
    "    mov 16(%rax), %r10\n"
    "    mov 24(%rax), %r11\n"
    "    mov %rdi, 40(%rsp)\n"
    "    mov 24(%rsp), %rsi\n"
    "    mov 32(%rsp), %rcx\n"
    "    xor %r12d, %r12d\n"
    "    xor %r13d, %r13d\n"
    "    xor %r14d, %r14d\n"
    "    xor %r15d, %r15d\n"
    "    mov 16(%rsp), %rax\n"
    "    cmp $1, %rax\n"
    "    je 45f\n"
    "    cmp $2, %rax\n"
    "    je 46f\n"
    "    cmp $3, %rax\n"
    "    je 47f\n"
    "    .p2align 4\n"
    "    MNS_ADX_COLS4\n"
    "    mov %r12, 0(%rdi)\n"
    "    mov %r13, 8(%rdi)\n"
    "    mov %r14, 16(%rdi)\n"
    "    mov %r15, 24(%rdi)\n"
    "    mov 40(%rsp), %rdi\n"
    "    lea 32(%rdi), %rdi\n"
    "    addq $32, 0(%rsp)\n"
    "    decq 8(%rsp)\n"
    "    jnz 1b\n"
    "    add $48, %rsp\n"
    "    .cfi_adjust_cfa_offset -48\n"
    MNS_ADX_POP_SAVED
    "    ret\n"
    "    .cfi_endproc\n"
    "    .size mns_mont_addmul4_adx, .-mns_mont_addmul4_adx\n"
    "    .purgem MNS_ADX_COL\n"
    "    .purgem MNS_ADX_COLS4\n");

/* void mns_mont_addmul8_adx(uint64_t *t, const uint64_t *b, size_t cols,
 *                           const uint64_t *a, size_t blocks);
 * As mns_mont_addmul4_adx with eight rows a block: for k = 0 .. blocks-1,
 * t[8k .. 8k+cols+8) <- t[8k .. 8k+cols) + (a_8k + ... + a_(8k+7) B^7)
 * b[0 .. cols), cols >= 1, the eight words above t[8k+cols) written. The
 * block's eight factors are copied to 0..56(%rsp), where the eight-row
 * column (adx_column.h) reads them; the window starts at zero, so the pass
 * enters the unrolled loop at position s = -cols mod 8 (t and b moved back s
 * words) without renaming it.
 *
 * Registers: rdi t at the column, rsi b, rcx iterations left, r8..r15 the
 * window. Stack: 0..63 the factors, 64 the next factors' address, 72 blocks
 * left, 80 s, 88 b moved back, 96 iterations, 104 the block's t. */
__asm__(MNS_ADX_COLUMN8_MACRO
    "    .text\n"
    "    .p2align 5\n"
    "    .globl mns_mont_addmul8_adx\n"
    "    .hidden mns_mont_addmul8_adx\n"
    "    .type mns_mont_addmul8_adx, @function\n"
    "mns_mont_addmul8_adx:\n"
    "    .cfi_startproc\n"
    MNS_ADX_PUSH_SAVED
    "    sub $112, %rsp\n"
    "    .cfi_adjust_cfa_offset 112\n"
    "    mov %rcx, 64(%rsp)\n"
    "    mov %r8, 72(%rsp)\n"
    "    mov %rdx, %rax\n"
    "    neg %rax\n"
    "    and $7, %rax\n"
    "    mov %rax, 80(%rsp)\n"
    "    shl $3, %rax\n"
    "    sub %rax, %rdi\n"
    "    sub %rax, %rsi\n"
    "    mov %rsi, 88(%rsp)\n"
    "    add $7, %rdx\n"
    "    shr $3, %rdx\n"
    "    mov %rdx, 96(%rsp)\n"
    "1:\n"
    "    mov 64(%rsp), %rax\n"
    "    MNS_ADX_COPY8 %rax\n"
    "    mov %rdi, 104(%rsp)\n"
    "    mov 88(%rsp), %rsi\n"
    "    mov 96(%rsp), %rcx\n"
    MNS_ADX_ZERO_WINDOW8
    "    mov 80(%rsp), %rax\n"
    "    cmp $1, %rax\n"
    "    je 51f\n"
    "    cmp $2, %rax\n"
    "    je 52f\n"
    "    cmp $3, %rax\n"
    "    je 53f\n"
    "    cmp $4, %rax\n"
    "    je 54f\n"
    "    cmp $5, %rax\n"
    "    je 55f\n"
    "    cmp $6, %rax\n"
    "    je 56f\n"
    "    cmp $7, %rax\n"
    "    je 57f\n"
    "    .p2align 4\n"
    "    MNS_ADX_COLS8\n"
    MNS_ADX_STORE_WINDOW8
    "    mov 104(%rsp), %rdi\n"
    "    lea 64(%rdi), %rdi\n"
    "    addq $64, 64(%rsp)\n"
    "    decq 72(%rsp)\n"
    "    jnz 1b\n"
    "    add $112, %rsp\n"
    "    .cfi_adjust_cfa_offset -112\n"
    MNS_ADX_POP_SAVED
    "    ret\n"
    "    .cfi_endproc\n"
    "    .size mns_mont_addmul8_adx, .-mns_mont_addmul8_adx\n"
    "    .purgem MNS_ADX_COL8\n"
    "    .purgem MNS_ADX_COLS8\n"
    "    .purgem MNS_ADX_COPY8\n");

/* void mns_mont_addmul8_adx(uint64_t *t, const uint64_t *b, size_t cols, const uint64_t *a,
                          size_t blocks);
void mns_mont_sqr4_adx(uint64_t *t, const uint64_t *a, size_t n);
 * Adds the cross products a_i a_j B^(i+j), h <= i < j < n, h = n mod 4, to
 * t, n >= 4; t[1 .. h+n) holds the sum of the rows i < h (zero if h = 0)
 * and the words above are written before they are read. Block k takes the rows base .. base+3, base =
 * h + 4k: first its own triangle, the six products a_(base+i) a_(base+l), i
 * < l < 4, at positions 2 base + 1 .. 2 base + 6, added to the three words of
 * t at 2 base + 1 .. 2 base + 3 (written by the earlier rows); the sum is
 * below B^7, so its low three words go back to t and the upper four start
 * the window at 2 base + 4. Then the columns j = base+4 .. n-1, whose count
 * n - base - 4 is a multiple of four. The window lands on t[base+n ..
 * base+n+4), above every earlier row: stored, not added.
 *
 * Registers: as in mns_mont_addmul4_adx; during the triangle rcx, rsi, rbp
 * and r12..r15 hold positions 1..7. Stack: 0 t + 2 base, 8 a + base, 16 the
 * block's column count, 24 blocks left. */
__asm__(MNS_ADX_COLUMN_MACRO
    "    .text\n"
    "    .p2align 5\n"
    "    .globl mns_mont_sqr4_adx\n"
    "    .hidden mns_mont_sqr4_adx\n"
    "    .type mns_mont_sqr4_adx, @function\n"
    "mns_mont_sqr4_adx:\n"
    "    .cfi_startproc\n"
    MNS_ADX_PUSH_SAVED
    "    sub $32, %rsp\n"
    "    .cfi_adjust_cfa_offset 32\n"
    "    mov %rdx, %rax\n"
    "    and $3, %rax\n"
    "    lea (%rsi,%rax,8), %rsi\n"
    "    mov %rsi, 8(%rsp)\n"
    "    shl $4, %rax\n"
    "    add %rax, %rdi\n"
    "    mov %rdi, 0(%rsp)\n"
    "    mov %rdx, %rax\n"
    "    shr $2, %rax\n"
    "    mov %rax, 24(%rsp)\n"
    "    and $-4, %rdx\n"
    "    sub $4, %rdx\n"
    "    mov %rdx, 16(%rsp)\n"
    "1:\n"
    "    mov 8(%rsp), %rax\n"
    "    mov 0(%rax), %r8\n"
    "    mov 8(%rax), %r9\n"
    "    mov 16(%rax), %r10\n"
    "    mov 24(%rax), %r11\n"
    "    mov 0(%rsp), %rdi\n"
    "    mov %r8, %rdx\n"
    "    mulx %r9, %rcx, %rsi\n"
    "    mulx %r10, %rax, %rbp\n"
    "    mulx %r11, %rbx, %r12\n"
    "    add %rax, %rsi\n"
    "    adc %rbx, %rbp\n"
    "    adc $0, %r12\n"
    "    mov %r9, %rdx\n"
    "    mulx %r10, %rax, %rbx\n"
    "    mulx %r11, %r14, %r13\n"
    "    add %r14, %rbx\n"
    "    adc $0, %r13\n"
    "    add %rax, %rbp\n"
    "    adc %rbx, %r12\n"
    "    adc $0, %r13\n"
    "    mov %r10, %rdx\n"
    "    mulx %r11, %rax, %r14\n"
    "    add %rax, %r13\n"
    "    adc $0, %r14\n"
    "    xor %r15d, %r15d\n"
    "    add 8(%rdi), %rcx\n"
    "    adc 16(%rdi), %rsi\n"
    "    adc 24(%rdi), %rbp\n"
    "    adc $0, %r12\n"
    "    adc $0, %r13\n"
    "    adc $0, %r14\n"
    "    adc $0, %r15\n"
    "    mov %rcx, 8(%rdi)\n"
    "    mov %rsi, 16(%rdi)\n"
    "    mov %rbp, 24(%rdi)\n"
    "    mov 8(%rsp), %rsi\n"
    "    lea 32(%rsi), %rsi\n"
    "    lea 32(%rdi), %rdi\n"
    "    mov 16(%rsp), %rcx\n"
    "    shr $2, %rcx\n"
    "    jz 3f\n"
    "    .p2align 4\n"
    "    MNS_ADX_COLS4\n"
    "3:\n"
    "    mov %r12, 0(%rdi)\n"
    "    mov %r13, 8(%rdi)\n"
    "    mov %r14, 16(%rdi)\n"
    "    mov %r15, 24(%rdi)\n"
    "    addq $64, 0(%rsp)\n"
    "    addq $32, 8(%rsp)\n"
    "    subq $4, 16(%rsp)\n"
    "    decq 24(%rsp)\n"
    "    jnz 1b\n"
    "    add $32, %rsp\n"
    "    .cfi_adjust_cfa_offset -32\n"
    MNS_ADX_POP_SAVED
    "    ret\n"
    "    .cfi_endproc\n"
    "    .size mns_mont_sqr4_adx, .-mns_mont_sqr4_adx\n"
    "    .purgem MNS_ADX_COL\n"
    "    .purgem MNS_ADX_COLS4\n");

/* void mns_mont_sqr8_adx(uint64_t *t, const uint64_t *a, size_t n);
 * t[1 .. 2n) <- the cross products a_i a_j B^(i+j), i < j < n, added to t,
 * for n a multiple of 8, n >= 8; t[1 .. n) is read (zero for the plain sum)
 * and every word above is written before it is read. Block k takes the rows
 * base .. base+7, base = 8k, with their factors r_i = a_(base+i) copied to
 * 0..56(%rsp): first its seven partial columns j = base+1 .. base+7 (its
 * own triangle, MNS_ADX_COL8 with k < 8), the window starting at zero in r9
 * so that it ends with its lowest word in r8; then the n - base - 8 full columns j =
 * base+8 .. n-1, a multiple of eight, so the loop is entered at its start.
 * The window lands on t[base+n .. base+n+8), above every earlier row: stored,
 * not added.
 *
 * Registers: rdi t + 2 base (+ 8 words in the full columns), rsi a + base (+
 * 8), rcx iterations left, r8..r15 the window. Stack: 0..63 the factors, 64
 * t + 2 base, 72 a + base, 80 the block's loop iterations, 88 blocks left. */
__asm__(MNS_ADX_COLUMN8_MACRO
    "    .text\n"
    "    .p2align 5\n"
    "    .globl mns_mont_sqr8_adx\n"
    "    .hidden mns_mont_sqr8_adx\n"
    "    .type mns_mont_sqr8_adx, @function\n"
    "mns_mont_sqr8_adx:\n"
    "    .cfi_startproc\n"
    MNS_ADX_PUSH_SAVED
    "    sub $96, %rsp\n"
    "    .cfi_adjust_cfa_offset 96\n"
    "    mov %rdi, 64(%rsp)\n"
    "    mov %rsi, 72(%rsp)\n"
    "    shr $3, %rdx\n"
    "    mov %rdx, 88(%rsp)\n"
    "    dec %rdx\n"
    "    mov %rdx, 80(%rsp)\n"
    "1:\n"
    "    mov 72(%rsp), %rsi\n"
    "    MNS_ADX_COPY8 %rsi\n"
    "    mov 64(%rsp), %rdi\n"
    MNS_ADX_ZERO_WINDOW8
    "    MNS_ADX_COL8 %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r8, 8, 1\n"
    "    MNS_ADX_COL8 %r10, %r11, %r12, %r13, %r14, %r15, %r8, %r9, 16, 2\n"
    "    MNS_ADX_COL8 %r11, %r12, %r13, %r14, %r15, %r8, %r9, %r10, 24, 3\n"
    "    MNS_ADX_COL8 %r12, %r13, %r14, %r15, %r8, %r9, %r10, %r11, 32, 4\n"
    "    MNS_ADX_COL8 %r13, %r14, %r15, %r8, %r9, %r10, %r11, %r12, 40, 5\n"
    "    MNS_ADX_COL8 %r14, %r15, %r8, %r9, %r10, %r11, %r12, %r13, 48, 6\n"
    "    MNS_ADX_COL8 %r15, %r8, %r9, %r10, %r11, %r12, %r13, %r14, 56, 7\n"
    "    lea 64(%rdi), %rdi\n"
    "    lea 64(%rsi), %rsi\n"
    "    mov 80(%rsp), %rcx\n"
    "    test %rcx, %rcx\n"
    "    jz 2f\n"
    "    .p2align 4\n"
    "    MNS_ADX_COLS8\n"
    "2:\n"
    MNS_ADX_STORE_WINDOW8
    "    addq $128, 64(%rsp)\n"
    "    addq $64, 72(%rsp)\n"
    "    decq 80(%rsp)\n"
    "    decq 88(%rsp)\n"
    "    jnz 1b\n"
    "    add $96, %rsp\n"
    "    .cfi_adjust_cfa_offset -96\n"
    MNS_ADX_POP_SAVED
    "    ret\n"
    "    .cfi_endproc\n"
    "    .size mns_mont_sqr8_adx, .-mns_mont_sqr8_adx\n"
    "    .purgem MNS_ADX_COL8\n"
    "    .purgem MNS_ADX_COLS8\n"
    "    .purgem MNS_ADX_COPY8\n");

/* void mns_mont_sqrdiag_adx(uint64_t *t, const uint64_t *a, size_t n);
 * t[0 .. 2n) <- 2 t + sum a_i^2 B^(2i), n >= 1, when the result fits 2n
 * words (t is the sum of the cross products of a). One pass: CF carries the
 * bit shifted out of each word (t + t by adcx), OF the additions of the
 * squares (adox); lea and jrcxz leave both flags alone. Two words of a an
 * iteration; for odd n the loop is entered at its second word. */
__asm__("    .text\n"
    "    .p2align 5\n"
    "    .globl mns_mont_sqrdiag_adx\n"
    "    .hidden mns_mont_sqrdiag_adx\n"
    "    .type mns_mont_sqrdiag_adx, @function\n"
    "mns_mont_sqrdiag_adx:\n"
    "    .cfi_startproc\n"
    "    push %rbx\n"
    "    .cfi_adjust_cfa_offset 8\n"
    "    .cfi_rel_offset %rbx, 0\n"
    "    lea 1(%rdx), %rcx\n"
    "    and $-2, %rcx\n"
    "    neg %rcx\n" /* -(n rounded up to even) */
    "    test $1, %dl\n"
    "    jnz 3f\n"
    "    xor %eax, %eax\n" /* CF = OF = 0 */
    "    jmp 1f\n"
    "3:\n" /* n odd: enter at the second word, a and t moved back */
    "    xor %eax, %eax\n"
    "    lea -8(%rsi), %rsi\n"
    "    lea -16(%rdi), %rdi\n"
    "    jmp 4f\n"
    "    .p2align 4\n"
    "1:\n"
    "    mov 0(%rsi), %rdx\n"
    "    mulx %rdx, %rax, %rbx\n"
    "    mov 0(%rdi), %r8\n"
    "    mov 8(%rdi), %r9\n"
    "    adcx %r8, %r8\n"
    "    adcx %r9, %r9\n"
    "    adox %rax, %r8\n"
    "    adox %rbx, %r9\n"
    "    mov %r8, 0(%rdi)\n"
    "    mov %r9, 8(%rdi)\n"
    "4:\n"
    "    mov 8(%rsi), %rdx\n"
    "    mulx %rdx, %rax, %rbx\n"
    "    mov 16(%rdi), %r8\n"
    "    mov 24(%rdi), %r9\n"
    "    adcx %r8, %r8\n"
    "    adcx %r9, %r9\n"
    "    adox %rax, %r8\n"
    "    adox %rbx, %r9\n"
    "    mov %r8, 16(%rdi)\n"
    "    mov %r9, 24(%rdi)\n"
    "    lea 16(%rsi), %rsi\n"
    "    lea 32(%rdi), %rdi\n"
    "    lea 2(%rcx), %rcx\n"
    "    jrcxz 2f\n"
    "    jmp 1b\n"
    "2:\n"
    "    pop %rbx\n"
    "    .cfi_adjust_cfa_offset -8\n"
    "    ret\n"
    "    .cfi_endproc\n"
    "    .size mns_mont_sqrdiag_adx, .-mns_mont_sqrdiag_adx\n"
    );

void mns_mont_addmul4_adx(uint64_t *t, const uint64_t *b, size_t cols, const uint64_t *a,
                          size_t blocks);
void mns_mont_addmul8_adx(uint64_t *t, const uint64_t *b, size_t cols, const uint64_t *a,
                          size_t blocks);
void mns_mont_sqr4_adx(uint64_t *t, const uint64_t *a, size_t n);
void mns_mont_sqr8_adx(uint64_t *t, const uint64_t *a, size_t n);
void mns_mont_sqrdiag_adx(uint64_t *t, const uint64_t *a, size_t n);

/* The rows as mns_mont_adx_row_blocks splits them: the h = n mod 4 first
 * one at a time (GMP's mpn_mul_1 and mpn_addmul_1, whose loops run over n
 * only; the valgrind constant-time test runs them at 22 words), then blocks
 * of four, then of eight. */
void mns_mont_mul_rows_adx(uint64_t *t, const uint64_t *a, const uint64_t *b, size_t n)
{
    const mns_mont_adx_blocks bl = mns_mont_adx_row_blocks(n);
    const size_t h = bl.head;
    /* row 0 writes t[0 .. n], or the first block reads t[0 .. n) */
    if (h)
        t[n] = mpn_mul_1((mp_limb_t *)t, (const mp_limb_t *)b, (mp_size_t)n, a[0]);
    else
        memset(t, 0, n * sizeof(uint64_t));
    for (size_t i = 1; i < h; i++)
        t[i + n] = mpn_addmul_1((mp_limb_t *)t + i, (const mp_limb_t *)b, (mp_size_t)n, a[i]);
    if (bl.fours)
        mns_mont_addmul4_adx(t + h, b, n, a + h, bl.fours);
    if (bl.eights)
        mns_mont_addmul8_adx(t + h + 4 * bl.fours, b, n, a + h + 4 * bl.fours, bl.eights);
}

void mns_mont_sqr_rows_adx(uint64_t *t, const uint64_t *a, size_t n)
{
    const size_t h = n % 4;
    if (n < 4) {
        memset(t, 0, 2 * n * sizeof(uint64_t));
        for (size_t i = 0; i + 1 < n; i++)
            t[i + n] = mpn_addmul_1((mp_limb_t *)t + 2 * i + 1, (const mp_limb_t *)a + i + 1,
                                    (mp_size_t)(n - i - 1), a[i]);
        mns_mont_sqrdiag_adx(t, a, n);
        return;
    }
    if (n % 8 == 0 && n >= MNS_MONT_ADX8_MIN_WORDS) {
        /* blocks of eight rows; the first reads t[1 .. n) */
        memset(t, 0, n * sizeof(uint64_t));
        mns_mont_sqr8_adx(t, a, n);
        mns_mont_sqrdiag_adx(t, a, n);
        return;
    }
    /* t[0] = 0 and row 0 writes t[1 .. n], or the first block reads t[1 .. n);
     * every word above is written before it is read (the blocks' windows
     * land on t[h+n .. 2n)) */
    t[0] = 0;
    if (h)
        t[n] = mpn_mul_1((mp_limb_t *)t + 1, (const mp_limb_t *)a + 1, (mp_size_t)(n - 1), a[0]);
    else
        memset(t, 0, n * sizeof(uint64_t));
    for (size_t i = 1; i < h; i++)
        t[i + n] = mpn_addmul_1((mp_limb_t *)t + 2 * i + 1, (const mp_limb_t *)a + i + 1,
                                (mp_size_t)(n - i - 1), a[i]);
    mns_mont_sqr4_adx(t, a, n);
    mns_mont_sqrdiag_adx(t, a, n);
}
