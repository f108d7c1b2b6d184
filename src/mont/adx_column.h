/* One column of a four-row pass, t += M v with M = m0 + m1 B + m2 B^2 +
 * m3 B^3 in r8..r11 and v read a word at a time, shared by the adx REDC
 * (mont_adx.c, v = p) and the adx products (mont_adx_mul.c, v = b or a).
 *
 * Before column j the registers A0..A3 hold the pending sum V at positions
 * j..j+3 (V < B^4). The column adds t_j (at off(%rdi)) and M v_j (v_j at
 * off(%rsi)) to V; V + t_j + M v_j <= (B^4 - 1) + (B - 1) + (B^4 - 1)(B - 1)
 * < B^5, so the five-word sum never carries out: t_j takes its low word and
 * A1, A2, A3, A0 hold the next window (the window rotates by renaming, so
 * four columns make one loop iteration). CF adds the low halves of the four
 * products, OF the word of t and the high halves; both chains end at zero,
 * with %rbp = 0. The column starts by clearing CF and OF with the zero idiom
 * on %ebp, so that its chains do not wait on the previous column's last
 * additions, whose flags are known to be zero: its own chains then start as
 * soon as its window words are ready (5.5 against 5.9 TSC ticks a column in
 * a long pass on the Zen 3).
 *
 * Clobbers rax, rbx, rdx and the flags.
 *
 * MNS_ADX_COLS4 runs rcx >= 1 iterations of four columns, t and v moving
 * 32 bytes an iteration; the window's lowest word is in r12 before and after
 * each. Labels 45, 46 and 47 enter it at its second, third and fourth
 * column (the window then renamed accordingly), so that a column count that
 * is not a multiple of four still ends after a whole iteration; dec leaves
 * CF alone and clears OF for a count below 2^63. */
#ifndef MNS_MONT_ADX_COLUMN_H
#define MNS_MONT_ADX_COLUMN_H

#define MNS_ADX_COLUMN_MACRO                                                                     \
    "    .macro MNS_ADX_COL A0, A1, A2, A3, off\n"                                               \
    "    xor %ebp, %ebp\n"                                                                       \
    "    mov \\off(%rsi), %rdx\n"                                                                \
    "    mulx %r8, %rax, %rbx\n"                                                                 \
    "    adcx %rax, \\A0\n"                                                                      \
    "    adox \\off(%rdi), \\A0\n"                                                               \
    "    mov \\A0, \\off(%rdi)\n"                                                                \
    "    mulx %r9, %rax, \\A0\n"                                                                 \
    "    adcx %rax, \\A1\n"                                                                      \
    "    adox %rbx, \\A1\n"                                                                      \
    "    mulx %r10, %rax, %rbx\n"                                                                \
    "    adcx %rax, \\A2\n"                                                                      \
    "    adox \\A0, \\A2\n"                                                                      \
    "    mulx %r11, %rax, \\A0\n"                                                                \
    "    adcx %rax, \\A3\n"                                                                      \
    "    adox %rbx, \\A3\n"                                                                      \
    "    adcx %rbp, \\A0\n"                                                                      \
    "    adox %rbp, \\A0\n"                                                                      \
    "    .endm\n"                                                                              \
    "    .macro MNS_ADX_COLS4\n"                                                                \
    "41:\n"                                                                                     \
    "    MNS_ADX_COL %r12, %r13, %r14, %r15, 0\n"                                               \
    "45:\n"                                                                                     \
    "    MNS_ADX_COL %r13, %r14, %r15, %r12, 8\n"                                               \
    "46:\n"                                                                                     \
    "    MNS_ADX_COL %r14, %r15, %r12, %r13, 16\n"                                              \
    "47:\n"                                                                                     \
    "    MNS_ADX_COL %r15, %r12, %r13, %r14, 24\n"                                              \
    "    lea 32(%rdi), %rdi\n"                                                                  \
    "    lea 32(%rsi), %rsi\n"                                                                  \
    "    dec %rcx\n"                                                                            \
    "    jnz 41b\n"                                                                             \
    "    .endm\n"

/* One column of an eight-row pass, t += F v with the eight factors F = f0 +
 * f1 B + ... + f7 B^7 at 0..56(%rsp) and v read a word at a time (the
 * eight-row REDC of mont_adx_redc8.c, v = p; the eight-row products of
 * mont_adx_mul.c, v = b or a). As MNS_ADX_COL with eight
 * window words A0..A7 (V < B^8; V + t_j + F v_j < B^9, so the nine-word sum
 * never carries out): eight mulx, nineteen carry additions, one load and one
 * store of t. The factors come from memory as mulx's second operand, since
 * the window takes the eight registers that held them: per product that
 * costs nothing, and the load and store of t, the flag break and the two
 * closing additions are shared by twice the products. A long pass takes 1.13
 * TSC ticks a product on the Zen 3, against 1.40 for two four-row passes.
 *
 * With k < 8 the column is partial: only the products f_0 v_j .. f_(k-1)
 * v_j (a square block's own triangle, whose column k has k rows). The
 * window words from A_k up must be zero before it; the high half of the last
 * product and both chains' carries then go into A_k, which cannot overflow
 * (V + t_j + sum < B^(k+1) when V < B^k), and the new top word A0 is zero.
 *
 * Clobbers rax, rbx, rdx, rbp (left zero) and the flags.
 *
 * MNS_ADX_COPY8 src copies the eight factors from 0..56(src) to
 * 0..56(%rsp) through r8..r15.
 *
 * MNS_ADX_COLS8 runs rcx >= 1 iterations of eight columns with the window
 * in r8..r15, its lowest word in r8 before and after each iteration;
 * labels 51..57 enter it at its second .. eighth column, for a column count
 * that is not a multiple of eight (the window then renamed accordingly,
 * lowest word in the register of that column's A0). */
#define MNS_ADX_COLUMN8_MACRO \
    "    .macro MNS_ADX_COL8 A0, A1, A2, A3, A4, A5, A6, A7, off, k=8\n" \
    "    xor %ebp, %ebp\n" \
    "    mov \\off(%rsi), %rdx\n" \
    "    mulx 0(%rsp), %rax, %rbx\n" \
    "    adcx %rax, \\A0\n" \
    "    adox \\off(%rdi), \\A0\n" \
    "    mov \\A0, \\off(%rdi)\n" \
    "    .if \\k == 1\n" \
    "    adcx %rbx, \\A1\n" \
    "    adox %rbp, \\A1\n" \
    "    mov %rbp, \\A0\n" \
    "    .else\n" \
    "    mulx 8(%rsp), %rax, \\A0\n" \
    "    adcx %rax, \\A1\n" \
    "    adox %rbx, \\A1\n" \
    "    .if \\k == 2\n" \
    "    adcx \\A0, \\A2\n" \
    "    adox %rbp, \\A2\n" \
    "    mov %rbp, \\A0\n" \
    "    .else\n" \
    "    mulx 16(%rsp), %rax, %rbx\n" \
    "    adcx %rax, \\A2\n" \
    "    adox \\A0, \\A2\n" \
    "    .if \\k == 3\n" \
    "    adcx %rbx, \\A3\n" \
    "    adox %rbp, \\A3\n" \
    "    mov %rbp, \\A0\n" \
    "    .else\n" \
    "    mulx 24(%rsp), %rax, \\A0\n" \
    "    adcx %rax, \\A3\n" \
    "    adox %rbx, \\A3\n" \
    "    .if \\k == 4\n" \
    "    adcx \\A0, \\A4\n" \
    "    adox %rbp, \\A4\n" \
    "    mov %rbp, \\A0\n" \
    "    .else\n" \
    "    mulx 32(%rsp), %rax, %rbx\n" \
    "    adcx %rax, \\A4\n" \
    "    adox \\A0, \\A4\n" \
    "    .if \\k == 5\n" \
    "    adcx %rbx, \\A5\n" \
    "    adox %rbp, \\A5\n" \
    "    mov %rbp, \\A0\n" \
    "    .else\n" \
    "    mulx 40(%rsp), %rax, \\A0\n" \
    "    adcx %rax, \\A5\n" \
    "    adox %rbx, \\A5\n" \
    "    .if \\k == 6\n" \
    "    adcx \\A0, \\A6\n" \
    "    adox %rbp, \\A6\n" \
    "    mov %rbp, \\A0\n" \
    "    .else\n" \
    "    mulx 48(%rsp), %rax, %rbx\n" \
    "    adcx %rax, \\A6\n" \
    "    adox \\A0, \\A6\n" \
    "    .if \\k == 7\n" \
    "    adcx %rbx, \\A7\n" \
    "    adox %rbp, \\A7\n" \
    "    mov %rbp, \\A0\n" \
    "    .else\n" \
    "    mulx 56(%rsp), %rax, \\A0\n" \
    "    adcx %rax, \\A7\n" \
    "    adox %rbx, \\A7\n" \
    "    adcx %rbp, \\A0\n" \
    "    adox %rbp, \\A0\n" \
    "    .endif\n" \
    "    .endif\n" \
    "    .endif\n" \
    "    .endif\n" \
    "    .endif\n" \
    "    .endif\n" \
    "    .endif\n" \
    "    .endm\n" \
    "    .macro MNS_ADX_COPY8 src\n" \
    "    mov 0(\\src), %r8\n" \
    "    mov 8(\\src), %r9\n" \
    "    mov 16(\\src), %r10\n" \
    "    mov 24(\\src), %r11\n" \
    "    mov 32(\\src), %r12\n" \
    "    mov 40(\\src), %r13\n" \
    "    mov 48(\\src), %r14\n" \
    "    mov 56(\\src), %r15\n" \
    "    mov %r8, 0(%rsp)\n" \
    "    mov %r9, 8(%rsp)\n" \
    "    mov %r10, 16(%rsp)\n" \
    "    mov %r11, 24(%rsp)\n" \
    "    mov %r12, 32(%rsp)\n" \
    "    mov %r13, 40(%rsp)\n" \
    "    mov %r14, 48(%rsp)\n" \
    "    mov %r15, 56(%rsp)\n" \
    "    .endm\n" \
    "    .macro MNS_ADX_COLS8\n"                                                                \
    "50:\n"                                                                                     \
    "    MNS_ADX_COL8 %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, 0\n"                        \
    "51:\n"                                                                                     \
    "    MNS_ADX_COL8 %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r8, 8\n"                        \
    "52:\n"                                                                                     \
    "    MNS_ADX_COL8 %r10, %r11, %r12, %r13, %r14, %r15, %r8, %r9, 16\n"                       \
    "53:\n"                                                                                     \
    "    MNS_ADX_COL8 %r11, %r12, %r13, %r14, %r15, %r8, %r9, %r10, 24\n"                       \
    "54:\n"                                                                                     \
    "    MNS_ADX_COL8 %r12, %r13, %r14, %r15, %r8, %r9, %r10, %r11, 32\n"                       \
    "55:\n"                                                                                     \
    "    MNS_ADX_COL8 %r13, %r14, %r15, %r8, %r9, %r10, %r11, %r12, 40\n"                       \
    "56:\n"                                                                                     \
    "    MNS_ADX_COL8 %r14, %r15, %r8, %r9, %r10, %r11, %r12, %r13, 48\n"                       \
    "57:\n"                                                                                     \
    "    MNS_ADX_COL8 %r15, %r8, %r9, %r10, %r11, %r12, %r13, %r14, 56\n"                       \
    "    lea 64(%rdi), %rdi\n"                                                                  \
    "    lea 64(%rsi), %rsi\n"                                                                  \
    "    dec %rcx\n"                                                                            \
    "    jnz 50b\n"                                                                             \
    "    .endm\n"

/* The eight-row window r8..r15 stored to 0..56(%rdi), lowest word first. */
#define MNS_ADX_STORE_WINDOW8 \
    "    mov %r8, 0(%rdi)\n" \
    "    mov %r9, 8(%rdi)\n" \
    "    mov %r10, 16(%rdi)\n" \
    "    mov %r11, 24(%rdi)\n" \
    "    mov %r12, 32(%rdi)\n" \
    "    mov %r13, 40(%rdi)\n" \
    "    mov %r14, 48(%rdi)\n" \
    "    mov %r15, 56(%rdi)\n"

/* The eight-row window r8..r15 set to zero. */
#define MNS_ADX_ZERO_WINDOW8 \
    "    xor %r8d, %r8d\n" \
    "    xor %r9d, %r9d\n" \
    "    xor %r10d, %r10d\n" \
    "    xor %r11d, %r11d\n" \
    "    xor %r12d, %r12d\n" \
    "    xor %r13d, %r13d\n" \
    "    xor %r14d, %r14d\n" \
    "    xor %r15d, %r15d\n"

/* The six callee-saved registers the four-row routines use, pushed and
 * popped with their unwind notes. */
#define MNS_ADX_PUSH_SAVED \
    "    push %rbx\n"                                                                           \
    "    .cfi_adjust_cfa_offset 8\n"                                                            \
    "    .cfi_rel_offset %rbx, 0\n"                                                             \
    "    push %rbp\n"                                                                           \
    "    .cfi_adjust_cfa_offset 8\n"                                                            \
    "    .cfi_rel_offset %rbp, 0\n"                                                             \
    "    push %r12\n"                                                                           \
    "    .cfi_adjust_cfa_offset 8\n"                                                            \
    "    .cfi_rel_offset %r12, 0\n"                                                             \
    "    push %r13\n"                                                                           \
    "    .cfi_adjust_cfa_offset 8\n"                                                            \
    "    .cfi_rel_offset %r13, 0\n"                                                             \
    "    push %r14\n"                                                                           \
    "    .cfi_adjust_cfa_offset 8\n"                                                            \
    "    .cfi_rel_offset %r14, 0\n"                                                             \
    "    push %r15\n"                                                                           \
    "    .cfi_adjust_cfa_offset 8\n"                                                            \
    "    .cfi_rel_offset %r15, 0\n"

#define MNS_ADX_POP_SAVED \
    "    pop %r15\n"                                                                            \
    "    .cfi_adjust_cfa_offset -8\n"                                                           \
    "    .cfi_restore %r15\n"                                                                   \
    "    pop %r14\n"                                                                            \
    "    .cfi_adjust_cfa_offset -8\n"                                                           \
    "    .cfi_restore %r14\n"                                                                   \
    "    pop %r13\n"                                                                            \
    "    .cfi_adjust_cfa_offset -8\n"                                                           \
    "    .cfi_restore %r13\n"                                                                   \
    "    pop %r12\n"                                                                            \
    "    .cfi_adjust_cfa_offset -8\n"                                                           \
    "    .cfi_restore %r12\n"                                                                   \
    "    pop %rbp\n"                                                                            \
    "    .cfi_adjust_cfa_offset -8\n"                                                           \
    "    .cfi_restore %rbp\n"                                                                   \
    "    pop %rbx\n"                                                                            \
    "    .cfi_adjust_cfa_offset -8\n"                                                           \
    "    .cfi_restore %rbx\n"

#endif
