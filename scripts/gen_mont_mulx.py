#!/usr/bin/env python3
"""Writes src/mont/mont_mulx_asm.inc: the fixed-size mulx/adcx/adox
Montgomery products of `mont` kernel=fixed-adx, one per word count
2..MAX_WORDS (see src/mont/mont_mulx.c for why and for the contract).

    python3 scripts/gen_mont_mulx.py            rewrite the file
    python3 scripts/gen_mont_mulx.py --check    exit 1 if it is stale (a ctest)

Each instance is CIOS with the whole running sum in registers: for every
word a_i of a, a multiplication row t += a_i b, then a reduction row
t += m p with m = t_0 (-p^-1) mod 2^64, then the division by 2^64, which is
only a renaming of the registers (the row's low word is zero). Registers are
renamed in Python, so the text is straight-line code with no loop, branch
or data-dependent address.

Why generated: the register rotation differs per row and per word count;
writing 8 instances of up to 9 rows by hand would be error-prone, and GNU as
macros cannot rename registers per row without a table this script is
simpler than."""
import os
import sys

MIN_WORDS, MAX_WORDS = 2, 9
# The window t_0..t_n and the carry word c rotate through these (n + 2 of
# them). rax / rbx take the products' low / high halves, rdx is mulx's
# implicit factor, rcx points at p; a, b, r and -p^-1 live on the stack.
WINDOW_REGS = ["%rdi", "%rbp", "%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15",
               "%rsi"]
SAVED = ["%rbx", "%rbp", "%r12", "%r13", "%r14", "%r15"]


def reg32(r):
    """The 32-bit name (xor of it zeroes the whole register)."""
    return {"%rdi": "%edi", "%rbp": "%ebp", "%rsi": "%esi"}.get(r, r + "d")


def instance(n):
    name = "mns_mont_mulx_%d" % n
    # stack: b at 0, a at 8n, r at 16n, -p^-1 at 16n + 8, a zero word at 16n + 16
    B, A, R, PINV, ZERO = 0, 8 * n, 16 * n, 16 * n + 8, 16 * n + 16
    frame = 16 * n + 24
    out = []
    e = out.append
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
    # copies of a and b first: r may alias either, and it is written last
    for j in range(n):
        e("mov %d(%%rdx), %%rax" % (8 * j))
        e("mov %%rax, %d(%%rsp)" % (B + 8 * j))
        e("mov %d(%%rsi), %%rax" % (8 * j))
        e("mov %%rax, %d(%%rsp)" % (A + 8 * j))
    e("mov %%rdi, %d(%%rsp)" % R)
    e("mov %%r8, %d(%%rsp)" % PINV)
    e("movq $0, %d(%%rsp)" % ZERO)
    regs = WINDOW_REGS[: n + 2]
    for r in regs:
        e("xor %s, %s" % (reg32(r), reg32(r)))
    for i in range(n):
        # state: t = W[0..n] < 2p (W[n] is 0 or 1), c = 0
        W, c = regs[: n + 1], regs[n + 1]
        e("# row %d: t += a_%d b" % (i, i))
        e("mov %d(%%rsp), %%rdx" % (A + 8 * i))
        e("xor %eax, %eax")  # CF = OF = 0
        for j in range(n):
            # CF adds the low halves at j, OF the high halves at j + 1
            e("mulx %d(%%rsp), %%rax, %%rbx" % (B + 8 * j))
            e("adcx %%rax, %s" % W[j])
            e("adox %%rbx, %s" % W[j + 1])
        # CF is owed to word n, OF to word n + 1; c (zero) takes word n + 1:
        # t + a_i b < (2^64 + 1) p can pass 2^(64(n+1)) when p is near 2^(64n)
        e("adcx %s, %s" % (c, W[n]))
        e("adox %d(%%rsp), %s" % (ZERO, c))
        e("adcx %d(%%rsp), %s" % (ZERO, c))
        e("# row %d: t += m p, m = t_0 (-p^-1) mod 2^64" % i)
        e("mov %s, %%rdx" % W[0])
        e("imul %d(%%rsp), %%rdx" % PINV)
        e("xor %eax, %eax")
        for j in range(n):
            e("mulx %d(%%rcx), %%rax, %%rbx" % (8 * j))
            e("adcx %%rax, %s" % W[j])
            e("adox %%rbx, %s" % W[j + 1])
        # W[0] is now zero (m was chosen for it): it serves as the zero
        # source, then becomes the next row's c
        e("adcx %s, %s" % (W[0], W[n]))
        e("adcx %s, %s" % (W[0], c))
        e("adox %s, %s" % (W[0], c))
        # (t + a_i b + m p) / 2^64 < 2p: the window shifts by one register
        regs = regs[1: n + 1] + [c, regs[0]]
    W = regs[: n + 1]
    e("# t < 2p: r = t - p if that does not borrow, else t (masked, by cmov)")
    e("mov %s, %%rax" % W[0])
    e("sub 0(%rcx), %rax")
    e("mov %%rax, %d(%%rsp)" % B)
    for j in range(1, n):
        e("mov %s, %%rax" % W[j])
        e("sbb %d(%%rcx), %%rax" % (8 * j))
        e("mov %%rax, %d(%%rsp)" % (B + 8 * j))
    e("sbb $0, %s" % W[n])  # CF = 1 exactly when t < p
    for j in range(n):
        e("cmovae %d(%%rsp), %s" % (B + 8 * j, W[j]))
    e("mov %d(%%rsp), %%rdx" % R)
    for j in range(n):
        e("mov %s, %d(%%rdx)" % (W[j], 8 * j))
    e("add $%d, %%rsp" % frame)
    e(".cfi_adjust_cfa_offset -%d" % frame)
    for r in reversed(SAVED):
        e("pop %s" % r)
        e(".cfi_adjust_cfa_offset -8")
        e(".cfi_restore %s" % r)
    e("ret")
    e(".cfi_endproc")
    e(".size %s, .-%s" % (name, name))
    return out


def text():
    lines = ["/* Generated by scripts/gen_mont_mulx.py: do not edit. Included by",
             " * src/mont/mont_mulx.c (x86-64 with BMI2 and ADX only). */",
             "__asm__(\".text\\n\""]
    for n in range(MIN_WORDS, MAX_WORDS + 1):
        for ins in instance(n):
            if ins.startswith("#"):
                lines.append("        /* %s */" % ins[2:])
            else:
                lines.append("        \"%s%s\\n\"" % ("" if ins.endswith(":") or ins.startswith(".") else "    ", ins))
    lines.append(");")
    return "\n".join(lines) + "\n"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(root, "src", "mont", "mont_mulx_asm.inc")
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
