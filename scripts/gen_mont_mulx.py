#!/usr/bin/env python3
"""Writes src/generated/mont_mulx_asm.inc: the fixed-size mulx/adcx/adox
Montgomery products and squarings of `mont`
kernel=fixed-adx, one per word count 2..MAX_WORDS (see src/mont/mont_mulx.c
for why and for the contract).

    python3 scripts/gen_mont_mulx.py            rewrite the file
    python3 scripts/gen_mont_mulx.py --check    exit 1 if it is stale (a ctest)

Each instance is CIOS with the running sum in registers (up to 9 words all
of it; from WIDE_WORDS its top word and carry word on the stack; from
DEEP_WORDS its words from the tenth up too, renamed like the registers): for every
word a_i of a, a multiplication row t += a_i b, then a reduction row
t += m p with m = t_0 (-p^-1) mod 2^64, then the division by 2^64, which is
only a renaming of the registers (the row's low word is zero). Registers are
renamed in Python, so the text is straight-line code with no loop, branch
or data-dependent address. The squaring (mns_mont_sqrx_N) has the same
reduction rows; its multiplication rows compute each cross product once
(see instance_sqr). Below DEEP_WORDS it squares k >= 1 times in one call (a
fifth argument, the exponentiation's public window width): a loop around
the rows, its branch on k only, so that a window's squarings cost no call
each.

Why generated: the register rotation differs per row and per word count;
writing 27 instances of up to 16 rows by hand would be error-prone, and GNU
as macros cannot rename registers per row without a table this script is
simpler than."""
import os
import sys

MIN_WORDS, MAX_WORDS = 2, 16
# from this many words the window's top word and carry word go to the stack
WIDE_WORDS = 10
# from this many words the window's words from the tenth up go to the stack
# too (instance_mul_deep, instance_sqr_deep)
DEEP_WORDS = 13
# Below 5 words the squaring's doubled copy of a costs what its fewer
# products save: on the Zen 3, ticks per call in a dependent chain, sqrx /
# mulx(a, a) 30.6 / 28.9 at 2 words, 42.1 / 42.1 at 3, 56.2 / 54.4 at 4,
# 74.5 / 79.0 at 5, 152.9 / 168.7 at 8. The squarings there run the
# product's rows on a held in registers (instance_sqr_regs).
SQR_MIN_WORDS = 5
# The window t_0..t_n and the carry word c rotate through these (n + 2 of
# them). rax / rbx take the products' low / high halves, rdx is mulx's
# implicit factor, rcx points at p; r and -p^-1 live on the stack, and a
# and b too where no register is left for their pointers.
WINDOW_REGS = ["%rdi", "%rbp", "%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15",
               "%rsi"]
SAVED = ["%rbx", "%rbp", "%r12", "%r13", "%r14", "%r15"]


def reg32(r):
    """The 32-bit name (xor of it zeroes the whole register)."""
    return {"%rdi": "%edi", "%rbp": "%ebp", "%rsi": "%esi", "%rcx": "%ecx",
            "%rax": "%eax"}.get(r, r + "d")


def is_mem(x):
    """A memory operand (a stack word), not a register."""
    return x.endswith(")")


def prologue(e, name, frame):
    e(".p2align 5")
    e(".globl %s" % name)
    e(".hidden %s" % name)
    e(".type %s, @function" % name)
    e("%s:" % name)
    e(".cfi_startproc")
    for r in SAVED:
        e("push %s" % r)
        e(".cfi_adjust_cfa_offset 8")
        e(".cfi_rel_offset %s, 0" % r)
    e("sub $%d, %%rsp" % frame)
    e(".cfi_adjust_cfa_offset %d" % frame)


def epilogue(e, name, frame):
    e("add $%d, %%rsp" % frame)
    e(".cfi_adjust_cfa_offset -%d" % frame)
    for r in reversed(SAVED):
        e("pop %s" % r)
        e(".cfi_adjust_cfa_offset -8")
        e(".cfi_restore %s" % r)
    e("ret")
    e(".cfi_endproc")
    e(".size %s, .-%s" % (name, name))


def mul_add(e, sources, dst):
    """rdx times each word of `sources` (memory operands) added to the
    registers dst: the low half of product k to dst[k] on the CF chain,
    the high half to dst[k + 1] on the OF chain (len(dst) = len(sources) +
    1). The chains must start clear; the carries owed to the words past
    dst[-2] (CF) and dst[-1] (OF) are left in the flags."""
    for k, src in enumerate(sources):
        e("mulx %s, %%rax, %%rbx" % src)
        e("adcx %%rax, %s" % dst[k])
        e("adox %%rbx, %s" % dst[k + 1])


def zero_keeping_flags(e, reg):
    """reg <- 0 without touching the flags (a xor would clear the carries
    the chains still owe)."""
    e("mov $0, %s" % reg32(reg))


def carry_to_top(e, W, c, zero):
    """Ends a row whose chains owe CF to the window's top word W[n] and OF
    to the carry word c (word n + 1): both carries are added, the one out
    of W[n] into c as well; zero: an operand holding 0, not c itself."""
    e("adcx %s, %s" % (zero, W[-1]))
    e("adcx %s, %s" % (zero, c))
    e("adox %s, %s" % (zero, c))


def reduction_row(e, i, W, c, pinv, pinv_reg=None):
    """t += m p, m = t_0 (-p^-1) mod 2^64, on the window W (n + 1
    registers) and the carry word c (word n + 1); p at rcx, -p^-1 in the
    stack word at pinv or in pinv_reg."""
    n = len(W) - 1
    e("# row %d: t += m p, m = t_0 (-p^-1) mod 2^64" % i)
    e("mov %s, %%rdx" % W[0])
    e("imul %s, %%rdx" % (pinv_reg or "%d(%%rsp)" % pinv))
    e("xor %eax, %eax")  # CF = OF = 0
    mul_add(e, ["%d(%%rcx)" % (8 * j) for j in range(n)], W)
    # W[0] is now zero (m was chosen for it): it serves as the zero source,
    # then becomes the next row's c
    carry_to_top(e, W, c, W[0])


def final_subtraction(e, W, tmp, r, p=lambda j: "%d(%%rcx)" % (8 * j), free=()):
    """r <- t - p if that does not borrow, else t (t = W < 2p), by cmov;
    tmp: n words of stack, or `free`: registers no longer needed, used for
    t - p instead where there are n of them; r: the stack slot of the
    result pointer; any word of W may be a memory operand (the deep
    layout's; then each word passes through rax to r); p(j): the operand
    of p's word j."""
    n = len(W) - 1
    e("# t < 2p: r = t - p if that does not borrow, else t (masked, by cmov)")
    if len(free) >= n:
        S = list(free[:n])
        for j in range(n):
            e("mov %s, %s" % (W[j], S[j]))
            e("%s %s, %s" % ("sub" if j == 0 else "sbb", p(j), S[j]))
        e("sbbq $0, %s" % W[n])  # CF = 1 exactly when t < p
        for j in range(n):
            e("cmovae %s, %s" % (S[j], W[j]))
        e("mov %d(%%rsp), %%rdx" % r)
        for j in range(n):
            e("mov %s, %d(%%rdx)" % (W[j], 8 * j))
        return
    e("mov %s, %%rax" % W[0])
    e("sub %s, %%rax" % p(0))
    e("mov %%rax, %d(%%rsp)" % tmp)
    for j in range(1, n):
        e("mov %s, %%rax" % W[j])
        e("sbb %s, %%rax" % p(j))
        e("mov %%rax, %d(%%rsp)" % (tmp + 8 * j))
    e("sbbq $0, %s" % W[n])  # CF = 1 exactly when t < p
    if any(is_mem(x) for x in W[:n]):
        e("mov %d(%%rsp), %%rdx" % r)
        for j in range(n):
            e("mov %s, %%rax" % W[j])
            e("cmovae %d(%%rsp), %%rax" % (tmp + 8 * j))
            e("mov %%rax, %d(%%rdx)" % (8 * j))
        return
    for j in range(n):
        e("cmovae %d(%%rsp), %s" % (tmp + 8 * j, W[j]))
    e("mov %d(%%rsp), %%rdx" % r)
    for j in range(n):
        e("mov %s, %d(%%rdx)" % (W[j], 8 * j))


def after_rows(n, regs):
    """Registers free after the last row of a narrow instance: the window's
    spare register (zero now), the window registers the instance did not
    take (a or b pointers, no longer read), rax and rbx."""
    return [regs[n + 1]] + WINDOW_REGS[n + 2:] + ["%rax", "%rbx"]


def enter_product(e, n, copies, r, pinv, zero, regs):
    """The product's entry (arguments r, a, b, p, pinv in rdi, rsi, rdx,
    rcx, r8): the n words at each (pointer, stack offset) of `copies`
    copied to the stack first (operands whose pointers need the register),
    r and pinv saved, the zero word stored, the registers cleared."""
    for j in range(n):
        for src, off in copies:
            e("mov %d(%s), %%rax" % (8 * j, src))
            e("mov %%rax, %d(%%rsp)" % (off + 8 * j))
    e("mov %%rdi, %d(%%rsp)" % r)
    e("mov %%r8, %d(%%rsp)" % pinv)
    e("movq $0, %d(%%rsp)" % zero)
    for x in regs:
        e("xor %s, %s" % (reg32(x), reg32(x)))


def instance_mul(n):
    """mns_mont_mulx_N(r, a, b, p, pinv): rdi, rsi, rdx, rcx, r8.

    a and b are read where they are while registers are left for their
    pointers: a through rsi up to 8 words, b through a spare window
    register up to 7 (rdx, which brings it, is mulx's factor). r may alias
    them: it is written after the last row has read them. Reading them
    there instead of from copies on the stack: 0.86-0.95x the time at 2-7
    words, 0.98-1.0x at 8 (Zen 3, one process against the copies)."""
    name = "mns_mont_mulx_%d" % n
    # stack: b at 0 (or the final subtraction's words), a at 8n, r at 16n,
    # -p^-1 at 16n + 8, a zero word at 16n + 16
    B, A, R, PINV, ZERO = 0, 8 * n, 16 * n, 16 * n + 8, 16 * n + 16
    frame = 16 * n + 24
    out = []
    e = out.append
    prologue(e, name, frame)
    regs = WINDOW_REGS[: n + 2]
    spare = [x for x in WINDOW_REGS[n + 2:] if x != "%rsi"]
    copies = []
    if "%rsi" in regs:
        copies.append(("%rsi", A))
        a_word = lambda i: "%d(%%rsp)" % (A + 8 * i)
    else:
        a_word = lambda i: "%d(%%rsi)" % (8 * i)
    if spare:
        e("mov %%rdx, %s" % spare[0])
        b_word = lambda j: "%d(%s)" % (8 * j, spare[0])
    else:
        copies.append(("%rdx", B))
        b_word = lambda j: "%d(%%rsp)" % (B + 8 * j)
    enter_product(e, n, copies, R, PINV, ZERO, regs)
    for i in range(n):
        # state: t = W[0..n] < 2p (W[n] is 0 or 1), c = 0
        W, c = regs[: n + 1], regs[n + 1]
        e("# row %d: t += a_%d b" % (i, i))
        e("mov %s, %%rdx" % a_word(i))
        e("xor %eax, %eax")
        mul_add(e, [b_word(j) for j in range(n)], W)
        # c (zero) takes word n + 1: t + a_i b < (2^64 + 1) p can pass
        # 2^(64(n+1)) when p is near 2^(64n)
        carry_to_top(e, W, c, "%d(%%rsp)" % ZERO)
        reduction_row(e, i, W, c, PINV)
        # (t + a_i b + m p) / 2^64 < 2p: the window shifts by one register
        regs = regs[1: n + 1] + [c, regs[0]]
    final_subtraction(e, regs[: n + 1], B, R, free=after_rows(n, regs))
    epilogue(e, name, frame)
    return out


def wide_row_top(e, W, last, tn, c, zero):
    """The end of a row of instance_mul_wide, after mul_add over all but
    the last word: the last product (rdx times `last`), its high half and
    both chains' carries added to t_n (the stack word tn) in rdx, and what
    passes t_n added to c ("$0" or a stack word) in rax; zero: an operand
    that holds 0. rdx and rax are free here (the factor's last use is the
    last mulx)."""
    e("mulx %s, %%rax, %%rbx" % last)
    e("adcx %%rax, %s" % W[-1])
    e("mov %s, %%rdx" % tn)
    e("adox %rbx, %rdx")
    e("adcx %s, %%rdx" % zero)
    e("mov %s, %%rax" % c)
    e("adox %s, %%rax" % zero)
    e("adcx %s, %%rax" % zero)


def instance_mul_wide(n):
    """mns_mont_mulx_N(r, a, b, p, pinv) for n = 10..MAX_WORDS: as
    instance_mul, but the window's top word t_n (0 or 1 between rows) and
    the carry word live on the stack, and p is copied there too, so that
    t_0..t_(n-1) take 12 registers (rcx joins the window). Each row ends
    by adding its last high half and carries to t_n and c through rdx and
    rax, which are free by then."""
    name = "mns_mont_mulx_%d" % n
    # stack: b, a, p (n words each), r, -p^-1, zero, t_n, c
    B, A, P = 0, 8 * n, 16 * n
    R, PINV, ZERO, TN, C = 24 * n, 24 * n + 8, 24 * n + 16, 24 * n + 24, 24 * n + 32
    frame = 24 * n + 40
    out = []
    e = out.append
    prologue(e, name, frame)
    regs = (WINDOW_REGS + ["%rcx"])[:n]
    enter_product(e, n, [("%rdx", B), ("%rsi", A), ("%rcx", P)], R, PINV, ZERO, regs)
    e("movq $0, %d(%%rsp)" % TN)
    tn, c = "%d(%%rsp)" % TN, "%d(%%rsp)" % C
    zero = "%d(%%rsp)" % ZERO
    for i in range(n):
        W = regs
        e("# row %d: t += a_%d b" % (i, i))
        e("mov %d(%%rsp), %%rdx" % (A + 8 * i))
        e("xor %eax, %eax")
        mul_add(e, ["%d(%%rsp)" % (B + 8 * j) for j in range(n - 1)], W)
        # c = what passes t_n (t + a_i b < (2^64 + 1) p)
        wide_row_top(e, W, "%d(%%rsp)" % (B + 8 * (n - 1)), tn, "$0", zero)
        e("mov %%rdx, %s" % tn)
        e("mov %%rax, %s" % c)
        wide_reduction_row(e, i, W, P, PINV, tn, c)
        regs = regs[1:] + [regs[0]]
    final_subtraction(e, regs + [tn], B, R, lambda j: "%d(%%rsp)" % (P + 8 * j))
    epilogue(e, name, frame)
    return out


def wide_reduction_row(e, i, W, P, pinv, tn, c):
    """reduction_row for the wide layout (t_n and c on the stack, p at
    stack offset P); the caller then rotates W by one register."""
    n = len(W)
    e("# row %d: t += m p, m = t_0 (-p^-1) mod 2^64" % i)
    e("mov %s, %%rdx" % W[0])
    e("imul %d(%%rsp), %%rdx" % pinv)
    e("xor %eax, %eax")
    mul_add(e, ["%d(%%rsp)" % (P + 8 * j) for j in range(n - 1)], W)
    # W[0] is zero now: the zero source, then the register of the new
    # t_(n-1) (the old t_n); the new t_n is c plus what passes t_n
    wide_row_top(e, W, "%d(%%rsp)" % (P + 8 * (n - 1)), tn, c, W[0])
    e("mov %%rdx, %s" % W[0])
    e("mov %%rax, %s" % tn)


def instance_sqr_wide(n):
    """mns_mont_sqrx_N(r, a, p, pinv, k) for n = WIDE_WORDS..DEEP_WORDS - 1: the
    rows of instance_sqr on the layout of instance_mul_wide. One change:
    the top bit of 2 a_(n-1) (d_n) times a_i, which row i would add at
    window word n (on the stack), is added once after the last row instead,
    as d_n (a_0 + a_1 B + ... + a_(n-2) B^(n-2)) at words 0..n-2. That is
    the same sum: those terms sit at absolute word i + n >= n, which no
    reduction factor m_j (read at absolute word j < n) sees."""
    name = "mns_mont_sqrx_%d" % n
    # stack: a, 2 a_j (j >= 1), d_j (j >= 2), a_j d_n (j <= n-2), p (n words
    # each), r, -p^-1, zero, t_n, c
    A, E, D, F, P = 0, 8 * n, 16 * n, 24 * n, 32 * n
    R, PINV, ZERO, TN, C = 40 * n, 40 * n + 8, 40 * n + 16, 40 * n + 24, 40 * n + 32
    K = 40 * n + 40
    frame = 40 * n + 48
    out = []
    e = out.append
    prologue(e, name, frame)
    e("mov %%rdi, %d(%%rsp)" % R)
    e("mov %%rcx, %d(%%rsp)" % PINV)
    e("movq $0, %d(%%rsp)" % ZERO)
    for j in range(n):
        e("mov %d(%%rdx), %%rax" % (8 * j))
        e("mov %%rax, %d(%%rsp)" % (P + 8 * j))
    loop_top(e, name, K)
    e("movq $0, %d(%%rsp)" % TN)
    double_copy(e, n, A, E, D)
    # a_j d_n = a_j masked by the sign of a_(n-1) (rdx holds a_(n-1))
    e("sar $63, %rdx")
    for j in range(n - 1):
        e("mov %d(%%rsp), %%rax" % (A + 8 * j))
        e("and %rdx, %rax")
        e("mov %%rax, %d(%%rsp)" % (F + 8 * j))
    regs = (WINDOW_REGS + ["%rcx"])[:n]
    for x in regs:
        e("xor %s, %s" % (reg32(x), reg32(x)))
    tn, c = "%d(%%rsp)" % TN, "%d(%%rsp)" % C
    zero = "%d(%%rsp)" % ZERO
    for i in range(n):
        W = regs
        e("# row %d: t += a_%d^2 B^%d + 2 a_%d sum_(j>%d) a_j B^j, less d_n" % (i, i, i, i, i))
        e("mov %d(%%rsp), %%rdx" % (A + 8 * i))
        e("xor %eax, %eax")
        # a_i^2, 2 a_(i+1) mod B, d_(i+2) .. d_(n-1): low halves at words
        # i .. n-1, the last high half at word n
        srcs = ["%rdx"]
        if i + 1 < n:
            srcs += ["%d(%%rsp)" % (E + 8 * (i + 1))] + \
                    ["%d(%%rsp)" % (D + 8 * j) for j in range(i + 2, n)]
        mul_add(e, srcs[:-1], W[i:])
        wide_row_top(e, W, srcs[-1], tn, "$0", zero)
        e("mov %%rdx, %s" % tn)
        e("mov %%rax, %s" % c)
        wide_reduction_row(e, i, W, P, PINV, tn, c)
        regs = regs[1:] + [regs[0]]
    e("# the deferred d_n (a_0 + ... + a_(n-2) B^(n-2))")
    e("add %d(%%rsp), %s" % (F, regs[0]))
    for j in range(1, n - 1):
        e("adc %d(%%rsp), %s" % (F + 8 * j, regs[j]))
    e("adc $0, %s" % regs[n - 1])
    e("adcq $0, %s" % tn)
    final_subtraction(e, regs + [tn], A, R, lambda j: "%d(%%rsp)" % (P + 8 * j))
    loop_bottom(e, name, K, R)
    epilogue(e, name, frame)
    return out


def loop_top(e, name, k_slot):
    """The start of a squaring's loop: k (r8) saved to its stack word, the
    label each further squaring returns to, reading a through rsi."""
    e("mov %%r8, %d(%%rsp)" % k_slot)
    e(".L%s_again:" % name)


def loop_bottom(e, name, k_slot, r_slot):
    """The end of a squaring's loop: while k squarings are not done, again
    with a = r (the count is public: the branch depends on k only)."""
    e("# k is public")
    e("decq %d(%%rsp)" % k_slot)
    e("mov %d(%%rsp), %%rsi" % r_slot)
    e("jnz .L%s_again" % name)


def double_copy(e, n, A, E, D):
    """The squaring's copies of a (at rsi) on the stack: a_j at A, 2 a_j
    mod B at E and d_j = (a_j << 1) | (a_(j-1) >> 63) at D (j >= 1 for both),
    first of all since r may alias a. Leaves a_(n-1) in rdx."""
    for j in range(n):
        e("mov %d(%%rsi), %%rax" % (8 * j))
        e("mov %%rax, %d(%%rsp)" % (A + 8 * j))
        if j >= 1:
            e("lea (%rax,%rax), %rbx")
            e("mov %%rbx, %d(%%rsp)" % (E + 8 * j))
            e("mov %rax, %rbx")
            e("shld $1, %rdx, %rbx")
            e("mov %%rbx, %d(%%rsp)" % (D + 8 * j))
        e("mov %rax, %rdx")


def instance_sqr(n):
    """mns_mont_sqrx_N(r, a, p, pinv, k): rdi, rsi, rdx, rcx, r8; k
    squarings (loop_top, loop_bottom).

    Row i adds a_i^2 B^i + 2 a_i sum_(j>i) a_j B^j (B = 2^64, window words
    counted from the window's start), so every cross product is computed
    once: n(n+1)/2 + n products instead of n^2. The doubled tail is read
    from d = 2a (n + 1 words, d_j = (a_j << 1) | (a_(j-1) >> 63)) except
    its lowest word, which must not take a_i's top bit: 2 a_(i+1) mod B.
    The window then holds more than in the product (each row adds up to
    2^(64(n+1)) times its word), but stays below 4 B^n: its top word and c
    stay below 4, and after the last row t = (a^2 + M p) / B^n < 2p."""
    name = "mns_mont_sqrx_%d" % n
    # stack: a at 0 (then the final subtraction's words), 2 a_j at 8n + 8j,
    # d_j at 16n + 8j (j = 1..n), r at 24n + 8, -p^-1 at 24n + 16
    A, E, D = 0, 8 * n, 16 * n
    R, PINV, K = 24 * n + 8, 24 * n + 16, 24 * n + 24
    frame = 24 * n + 32
    out = []
    e = out.append
    prologue(e, name, frame)
    e("mov %%rdi, %d(%%rsp)" % R)
    e("mov %%rcx, %d(%%rsp)" % PINV)
    e("mov %rdx, %rcx")
    loop_top(e, name, K)
    double_copy(e, n, A, E, D)
    e("shr $63, %rdx")
    e("mov %%rdx, %d(%%rsp)" % (D + 8 * n))
    regs = WINDOW_REGS[: n + 2]
    for r in regs:
        e("xor %s, %s" % (reg32(r), reg32(r)))
    for i in range(n):
        W, c = regs[: n + 1], regs[n + 1]
        e("# row %d: t += a_%d^2 B^%d + 2 a_%d sum_(j>%d) a_j B^j" % (i, i, i, i, i))
        e("mov %d(%%rsp), %%rdx" % (A + 8 * i))
        e("xor %eax, %eax")
        # a_i^2, then the doubled tail: 2 a_(i+1) mod B, d_(i+2) .. d_n
        # (the last row has none)
        tail = [E + 8 * (i + 1)] + [D + 8 * j for j in range(i + 2, n + 1)] if i + 1 < n else []
        mul_add(e, ["%rdx"] + ["%d(%%rsp)" % off for off in tail], (W + [c])[i: i + len(tail) + 2])
        # The carries go in from a register or an immediate, not from a
        # zero word of the stack as in the product: with `adcx 0(mem)` the
        # squaring took 1.03-1.06x the time at 5-9 words (Zen 3; the
        # product measured the same either way, 1.07x at 7 words).
        if tail:
            # CF is owed to word n + 1 (c), OF to word n + 2, which the bound
            # on t keeps zero
            e("adc $0, %s" % c)
        else:
            zero_keeping_flags(e, "%rax")
            carry_to_top(e, W, c, "%rax")
        reduction_row(e, i, W, c, PINV)
        regs = regs[1: n + 1] + [c, regs[0]]
    final_subtraction(e, regs[: n + 1], A, R, free=after_rows(n, regs))
    loop_bottom(e, name, K, R)
    epilogue(e, name, frame)
    return out


# The deep layout: t_0..t_9 in these registers, the rest of the window
# and c in stack words; two temporaries carry a stack word through the
# column that adds to it (rcx too: p is read from a copy on the stack).
DEEP_REGS = WINDOW_REGS[:10]
DEEP_TEMPS = ["%rsi", "%rcx"]


def mul_add_mixed(e, sources, dst, first=0):
    """mul_add where destinations may be stack words: such a word is loaded
    into a temporary before the column that adds the high half below it
    (OF), and stored after the column that adds its own low half (CF); mov
    leaves the flags alone. Two temporaries suffice, since a column touches
    two consecutive words; window word j takes DEEP_TEMPS[j % 2], dst[0]
    being window word `first`. Returns {window index: temporary} of the
    word still held (the last one, owed the chains' carries)."""
    held = {}

    def reg_of(k):
        if not is_mem(dst[k]):
            return dst[k]
        j = first + k
        if j not in held:
            held[j] = DEEP_TEMPS[j % 2]
            e("mov %s, %s" % (dst[k], held[j]))
        return held[j]

    for k, src in enumerate(sources):
        lo, hi = reg_of(k), reg_of(k + 1)
        e("mulx %s, %%rax, %%rbx" % src)
        e("adcx %%rax, %s" % lo)
        e("adox %%rbx, %s" % hi)
        if first + k in held:
            e("mov %s, %s" % (held.pop(first + k), dst[k]))
    return held


def carry_to_top_mixed(e, held, W, c, zero):
    """carry_to_top after mul_add_mixed: W[n] is held in a temporary and c
    is a stack word, carried through the other temporary."""
    n = len(W) - 1
    top = held.pop(n)
    e("adcx %s, %s" % (zero, top))
    e("mov %s, %s" % (top, W[n]))
    creg = DEEP_TEMPS[(n + 1) % 2]
    e("mov %s, %s" % (c, creg))
    e("adcx %s, %s" % (zero, creg))
    e("adox %s, %s" % (zero, creg))
    e("mov %s, %s" % (creg, c))


def deep_reduction_row(e, i, regs, slots, p_word, pinv):
    """reduction_row on the deep layout (window registers regs, then stack
    words slots, the last of them c), then the shift: the freed register
    (t_0, zero) takes the old t_K from its stack word, which becomes the
    new c (zeroed). Returns the renamed (regs, slots)."""
    n = len(regs) + len(slots) - 2
    W, c = (regs + slots)[: n + 1], slots[-1]
    e("# row %d: t += m p, m = t_0 (-p^-1) mod 2^64" % i)
    e("mov %s, %%rdx" % W[0])
    e("imul %d(%%rsp), %%rdx" % pinv)
    e("xor %eax, %eax")
    held = mul_add_mixed(e, [p_word(j) for j in range(n)], W)
    carry_to_top_mixed(e, held, W, c, W[0])
    e("# the window shifts: t_%d moves to the freed register" % len(regs))
    e("mov %s, %s" % (slots[0], regs[0]))
    e("movq $0, %s" % slots[0])
    return regs[1:] + [regs[0]], slots[1:] + [slots[0]]


def instance_mul_deep(n):
    """mns_mont_mulx_N(r, a, b, p, pinv) for n = DEEP_WORDS..MAX_WORDS:
    instance_mul's rows, with t_0..t_9 in registers and t_10..t_n and c in
    stack words, renamed like the registers as the window shifts: after a
    row pair the freed register (t_0, zero) takes the old t_10 from its
    stack word, which becomes the new c (zeroed). A column that adds to
    a stack word costs a load and a store more (mul_add_mixed).

    b and p are copied within a one-byte displacement of rsp (b above it,
    p in the red zone below it: this is a leaf function), since each is a
    mulx operand n^2 times: against four-byte displacements, the 16-word
    instance is 0.9x the code. Measured (Zen 3, one process): 406-489 /
    474-564 / 702-764 / 748-817 ticks per product at 13 / 14 / 15 / 16
    words, against 622-702 / 720-806 / 898-915 / 936-957 for GMP's
    mpn_mul_n and mpn_redc_1 (1.2-1.5x); from 15 words the code (12-14 KB)
    no longer fits the op cache as well. At 10-12 words this layout
    measured 1.01-1.04x the wide one's time, which those sizes keep."""
    name = "mns_mont_mulx_%d" % n
    K = len(DEEP_REGS)
    # stack: p below rsp, b at 0, a at 8n, r, -p^-1, zero, then the window's
    # n + 2 - K stack words
    P, B, A = -8 * n, 0, 8 * n
    R, PINV, ZERO = 16 * n, 16 * n + 8, 16 * n + 16
    nslots = n + 2 - K
    WM = 16 * n + 24
    frame = WM + 8 * nslots
    assert 8 * n <= 128  # the displacements of b and p fit a byte
    out = []
    e = out.append
    prologue(e, name, frame)
    enter_product(e, n, [("%rdx", B), ("%rsi", A), ("%rcx", P)], R, PINV, ZERO, DEEP_REGS)
    slots = ["%d(%%rsp)" % (WM + 8 * k) for k in range(nslots)]
    for x in slots:
        e("movq $0, %s" % x)
    regs = list(DEEP_REGS)
    zero = "%d(%%rsp)" % ZERO
    p_word = lambda j: "%d(%%rsp)" % (P + 8 * j)
    for i in range(n):
        # state as in instance_mul: t = W[0..n] < 2p, c = 0
        W, c = (regs + slots)[: n + 1], slots[-1]
        e("# row %d: t += a_%d b" % (i, i))
        e("mov %d(%%rsp), %%rdx" % (A + 8 * i))
        e("xor %eax, %eax")
        held = mul_add_mixed(e, ["%d(%%rsp)" % (B + 8 * j) for j in range(n)], W)
        carry_to_top_mixed(e, held, W, c, zero)
        regs, slots = deep_reduction_row(e, i, regs, slots, p_word, PINV)
    final_subtraction(e, (regs + slots)[: n + 1], B, R, p_word)
    epilogue(e, name, frame)
    return out


def instance_sqr_deep(n):
    """mns_mont_sqrx_N(r, a, p, pinv) for n = DEEP_WORDS..MAX_WORDS (one
    squaring: with the loop of the smaller sizes, which adds five
    instructions, the 13- and 15-word instances took 1.03-1.14x the time,
    the 16-word one 0.86-0.91x, all of it code placement against the op
    cache, so the caller loops here): the
    rows of instance_sqr on the layout of instance_mul_deep (window words
    from the tenth up and c in stack words, each carried through a
    temporary for the columns that add to it). The doubled tail d_j
    (j = 2..n), a mulx operand about n^2 / 2 times, sits within a one-byte
    displacement of rsp, as p does (in the red zone); 2 a_(i+1) mod B and
    a_i, read once per row, sit above them. Measured (Zen 3, one process,
    two runs): 0.87-0.93 / 0.71-0.78 / 0.73-0.77 / 0.73-0.78 the product's
    time at 13 / 14 / 15 / 16 words (353-410 / 408-469 / 463-519 / 538-627
    ticks); mont's modexp at 832-1024 bits went from 1.05-1.25x to
    1.17-1.37x mpz_powm_sec."""
    name = "mns_mont_sqrx_%d" % n
    K = len(DEEP_REGS)
    # stack: p below rsp, d_j at 8(j - 1) (j = 1..n), 2 a_j at 8(n - 1 + j)
    # (j = 1..n-1), a at 16n (then the final subtraction's words), r, -p^-1,
    # then the window's n + 2 - K stack words
    P, D, E, A = -8 * n, -8, 8 * (n - 1), 16 * n
    R, PINV = 24 * n, 24 * n + 8
    nslots = n + 2 - K
    WM = 24 * n + 16
    frame = WM + 8 * nslots
    assert 8 * n <= 128  # the displacements of d and p fit a byte
    out = []
    e = out.append
    prologue(e, name, frame)
    e("mov %%rdi, %d(%%rsp)" % R)
    e("mov %%rcx, %d(%%rsp)" % PINV)
    for j in range(n):
        e("mov %d(%%rdx), %%rax" % (8 * j))
        e("mov %%rax, %d(%%rsp)" % (P + 8 * j))
    double_copy(e, n, A, E, D)
    e("shr $63, %rdx")
    e("mov %%rdx, %d(%%rsp)" % (D + 8 * n))
    slots = ["%d(%%rsp)" % (WM + 8 * k) for k in range(nslots)]
    for x in slots:
        e("movq $0, %s" % x)
    regs = list(DEEP_REGS)
    for x in regs:
        e("xor %s, %s" % (reg32(x), reg32(x)))
    p_word = lambda j: "%d(%%rsp)" % (P + 8 * j)
    for i in range(n):
        # state as in instance_sqr: t = W[0..n] < 4 B^n, c = 0
        W, c = (regs + slots)[: n + 1], slots[-1]
        e("# row %d: t += a_%d^2 B^%d + 2 a_%d sum_(j>%d) a_j B^j" % (i, i, i, i, i))
        e("mov %d(%%rsp), %%rdx" % (A + 8 * i))
        e("xor %eax, %eax")
        tail = [E + 8 * (i + 1)] + [D + 8 * j for j in range(i + 2, n + 1)] if i + 1 < n else []
        held = mul_add_mixed(e, ["%rdx"] + ["%d(%%rsp)" % off for off in tail],
                             (W + [c])[i: i + len(tail) + 2], i)
        if tail:
            # CF is owed to c (held), OF to word n + 2, which the bound on t
            # keeps zero
            top = held.pop(n + 1)
            e("adc $0, %s" % top)
            e("mov %s, %s" % (top, c))
        else:
            zero_keeping_flags(e, "%rax")
            carry_to_top_mixed(e, held, W, c, "%rax")
        regs, slots = deep_reduction_row(e, i, regs, slots, p_word, PINV)
    final_subtraction(e, (regs + slots)[: n + 1], A, R, p_word)
    epilogue(e, name, frame)
    return out


# Below SQR_MIN_WORDS a (n words) and the window (n + 2) fit the registers
# together: a's registers there
SMALL_A_REGS = ["%r12", "%r13", "%r14", "%r15"]


def instance_sqr_regs(n):
    """mns_mont_sqrx_N(r, a, p, pinv, k) for n = 3..SQR_MIN_WORDS - 1 (2
    words: instance_sqr_2): k
    squarings as instance_mul's rows with b = a, a kept in registers from
    one to the next. At these sizes an exponentiation's squarings are bound
    by their latency chain, and a call per squaring added to that chain the
    store of r, its reload as the next a, the call and return and the
    saved registers. Measured (Zen 3, one process): per squaring 0.80-0.84
    / 0.84-0.86 / 0.86-0.88x the time of mns_mont_mulx_N(a, a) at 2 / 3 / 4
    words for k = 4 and 5, 0.96-1.02x for k = 1."""
    name = "mns_mont_sqrx_%d" % n
    A = SMALL_A_REGS[:n]
    regs0 = WINDOW_REGS[: n + 2]
    # registers neither the window nor a take: a zero source, then -p^-1
    # and the count, else stack words
    spare = [x for x in WINDOW_REGS[n + 2:] if x not in A]  # rsi last: a is read first
    R, PINV, ZERO, K = 0, 8, 16, 24
    frame = 32
    out = []
    e = out.append
    prologue(e, name, frame)
    e("mov %%rdi, %d(%%rsp)" % R)
    for j in range(n):
        e("mov %d(%%rsi), %s" % (8 * j, A[j]))
    zero = spare.pop(0) if spare else "%d(%%rsp)" % ZERO
    pinv_at = spare.pop(0) if spare else None
    k_at = spare.pop(0) if spare else "%d(%%rsp)" % K
    if is_mem(zero):
        e("movq $0, %s" % zero)
    else:
        e("xor %s, %s" % (reg32(zero), reg32(zero)))
    e("mov %%rcx, %s" % (pinv_at if pinv_at else "%d(%%rsp)" % PINV))
    e("mov %%r8, %s" % k_at)
    e("mov %rdx, %rcx")
    e(".L%s_again:" % name)
    regs = list(regs0)
    for x in regs:
        e("xor %s, %s" % (reg32(x), reg32(x)))
    for i in range(n):
        W, c = regs[: n + 1], regs[n + 1]
        e("# row %d: t += a_%d a" % (i, i))
        e("mov %s, %%rdx" % A[i])
        e("xor %eax, %eax")
        mul_add(e, A, W)
        carry_to_top(e, W, c, zero)
        reduction_row(e, i, W, c, PINV, pinv_at)
        regs = regs[1: n + 1] + [c, regs[0]]
    W = regs[: n + 1]
    e("# t < 2p: a = t - p if that does not borrow, else t (by cmov)")
    for j in range(n):
        e("mov %s, %s" % (W[j], A[j]))
        e("%s %d(%%rcx), %s" % ("sub" if j == 0 else "sbb", 8 * j, A[j]))
    e("sbbq $0, %s" % W[n])  # CF = 1 exactly when t < p
    for j in range(n):
        e("cmovb %s, %s" % (W[j], A[j]))
    e("# k is public")
    e("dec %s" % k_at if not is_mem(k_at) else "decq %s" % k_at)
    e("jnz .L%s_again" % name)
    e("mov %d(%%rsp), %%rdx" % R)
    for j in range(n):
        e("mov %s, %d(%%rdx)" % (A[j], 8 * j))
    epilogue(e, name, frame)
    return out


def instance_sqr_2(name="mns_mont_sqrx_2"):
    """mns_mont_sqrx_2(r, a, p, q, k): rdi, rsi, rdx, rcx, r8; q points at
    -p^-1 mod 2^128 (two words). k squarings of a 2-word a, kept in
    registers, each the square t = a^2 (three products) and one REDC step
    by B^2 = 2^128: m = t mod B^2 times q mod B^2, then (t + m p) / B^2 <
    (p^2 + B^2 p) / B^2 < 2p. Unlike the rows of instance_sqr_regs, whose
    second reduction factor waits for the first row's sum, m's two words
    come from three independent products as soon as t's low words are
    there, which shortens the latency chain the exponentiation's squarings
    are bound by. Measured (Zen 3, one process, k = 5): 19.9-20.1 ticks per
    squaring against 25.0-25.5 for instance_sqr_regs (0.79x)."""
    Q0, Q1, R = 8, 16, 0
    frame = 24
    out = []
    e = out.append
    prologue(e, name, frame)
    e("mov %%rdi, %d(%%rsp)" % R)
    e("mov 0(%rsi), %r12")
    e("mov 8(%rsi), %r13")
    e("mov 0(%rcx), %rax")
    e("mov %%rax, %d(%%rsp)" % Q0)
    e("mov 8(%rcx), %rax")
    e("mov %%rax, %d(%%rsp)" % Q1)
    e("mov %rdx, %rcx")
    e("mov %r8, %rsi")
    e("xor %r15d, %r15d")  # a zero source
    e(".L%s_again:" % name)
    e("# t = a^2 in r8, r9, r10, r11")
    e("mov %r12, %rdx")
    e("mulx %r12, %r8, %r9")
    e("mulx %r13, %rax, %rbx")
    e("mov %r13, %rdx")
    e("mulx %r13, %r10, %r11")
    e("xor %ebp, %ebp")
    e("add %rax, %rax")  # 2 a_0 a_1: rax, rbx, rbp
    e("adc %rbx, %rbx")
    e("adc $0, %rbp")
    e("add %rax, %r9")
    e("adc %rbx, %r10")
    e("adc %rbp, %r11")
    e("# m = (t mod B^2) q mod B^2 in rdi, rbp")
    e("mov %r8, %rdx")
    e("mulx %d(%%rsp), %%rdi, %%rbp" % Q0)
    e("mov %r8, %rax")
    e("imul %d(%%rsp), %%rax" % Q1)
    e("mov %r9, %rbx")
    e("imul %d(%%rsp), %%rbx" % Q0)
    e("add %rax, %rbp")
    e("add %rbx, %rbp")
    e("# t += m_0 p, t's fifth word in r14")
    e("xor %r14d, %r14d")  # CF = OF = 0
    e("mov %rdi, %rdx")
    mul_add(e, ["0(%rcx)", "8(%rcx)"], ["%r8", "%r9", "%r10"])
    e("adcx %r15, %r10")
    e("adcx %r15, %r11")
    e("adox %r15, %r11")
    e("adcx %r15, %r14")
    e("adox %r15, %r14")
    e("# t += m_1 p B; t / B^2 = (r10, r11, r14) < 2p")
    e("mov %rbp, %rdx")
    e("xor %eax, %eax")
    mul_add(e, ["0(%rcx)", "8(%rcx)"], ["%r9", "%r10", "%r11"])
    e("adcx %r15, %r11")
    e("adcx %r15, %r14")
    e("adox %r15, %r14")
    e("# a = t - p if that does not borrow, else t (by cmov)")
    e("mov %r10, %r12")
    e("mov %r11, %r13")
    e("sub 0(%rcx), %r12")
    e("sbb 8(%rcx), %r13")
    e("sbb $0, %r14")  # CF = 1 exactly when t < p
    e("cmovb %r10, %r12")
    e("cmovb %r11, %r13")
    e("# k is public")
    e("dec %rsi")
    e("jnz .L%s_again" % name)
    e("mov %d(%%rsp), %%rdx" % R)
    e("mov %r12, 0(%rdx)")
    e("mov %r13, 8(%rdx)")
    epilogue(e, name, frame)
    return out


def text():
    lines = ["/* Generated by scripts/gen_mont_mulx.py: do not edit. Included by",
             " * src/mont/mont_mulx.c (x86-64 with BMI2 and ADX only). */",
             "__asm__(\".text\\n\""]
    for n in range(MIN_WORDS, MAX_WORDS + 1):
        mul = (instance_mul_deep(n) if n >= DEEP_WORDS
               else instance_mul_wide(n) if n >= WIDE_WORDS else instance_mul(n))
        sqr = (instance_sqr_deep(n) if n >= DEEP_WORDS
               else instance_sqr_wide(n) if n >= WIDE_WORDS
               else instance_sqr(n) if n >= SQR_MIN_WORDS
               else instance_sqr_2() if n == 2 else instance_sqr_regs(n))
        for ins in mul + sqr:
            if ins.startswith("#"):
                lines.append("        /* %s */" % ins[2:])
            else:
                lines.append("        \"%s%s\\n\"" % ("" if ins.endswith(":") or ins.startswith(".") else "    ", ins))
    lines.append(");")
    return "\n".join(lines) + "\n"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(root, "src", "generated", "mont_mulx_asm.inc")
    new = text()
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        with open(path) as f:
            if f.read() != new:
                print("%s is stale: run python3 scripts/gen_mont_mulx.py" % path)
                return 1
        print("%s is up to date" % path)
        return 0
    with open(path, "w") as f:
        f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
