/* The IFMA kernels contain no data-dependent branch (issue 8, item 4).
 * valgrind cannot run AVX-512 and this machine exposes no branch counters,
 * so the check is a control-flow trace: a forked child runs each operation
 * on inputs of the same public size but different values, and the parent
 * single-steps it (ptrace) between two marker signals, hashing the sequence
 * of instruction addresses. A branch whose direction depends on the data
 * would make two traces differ; every trace of one operation must be equal.
 *
 * Operations traced per IFMA backend (pmns-ifma, pmns-mp-ifma, rns-ifma,
 * mont-ifma;
 * and pmns-mp's FMA kernel with 8 lanes, AVX-512F, unsplit and split) at
 * the RSA channel sizes: mul, sqr, add, sub, reduce, set_words, get_words
 * (where the backend has it; else the refusal is traced), powm with
 * exponents of one bit length (short ones: single-stepping costs some
 * microseconds per instruction), and the pair of RSA channels sharing a
 * thread: mul_x2, sqr_x2 (the backend's x2 kernels, or two calls) and
 * powm_x2 (src/exp's driver), on a second field of another prime of the
 * same size whose inputs vary too; the batch calls mul_n, sqr_n (a batch
 * of 8 and one of 11) and powm_n (11, every lane its own base and
 * exponent), which run in the IFMA lanes (src/mont52_mb/) on mont-ifma
 * and, for powm_n, on every backend with set_words and get_words. Inputs: 0, 1, p - 1, all-ones words below
 * p, random values. Memory indices are not traced (addresses of loads and
 * stores); the kernels read their tables whole (mns_ct_select).
 *
 * Usage: mns-rsa-ifma-trace [BITS...]; exit 0 = all traces equal, 77 = skip
 * (no IFMA on this CPU, MNS_CPU=generic, or ptrace not permitted). */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/cpu.h"
#include "field/field_internal.h"
#include "mns.h"

/* OP_CONTROL branches on the data on purpose: its traces must differ, or
 * the tracer is blind and the test fails. */
enum {
    OP_MUL,
    OP_SQR,
    OP_ADD,
    OP_SUB,
    OP_REDUCE,
    OP_SET_WORDS,
    OP_GET_WORDS,
    OP_POWM,
    OP_MUL_X2,
    OP_SQR_X2,
    OP_POWM_X2,
    OP_MUL_N,
    OP_SQR_N,
    OP_POWM_N,
    OP_CONTROL,
    OP_COUNT
};
static const char *const op_name[OP_COUNT] = {
    "mul",       "sqr",  "add",    "sub",    "reduce",  "set_words",
    "get_words", "powm", "mul_x2", "sqr_x2", "powm_x2", "mul_n", "sqr_n", "powm_n", "control"};
#define INPUTS 6
/* calls traced per operation: INPUTS, but 2 for the batch calls, each of
 * which already runs 8 and 11 lanes of different inputs (0, 1, p - 1, ...)
 * at once; their single-stepped traces were most of the test's time (over
 * 10 minutes on an IFMA CPU with 6 calls each) */
#define BATCH_INPUTS 2
static int inputs_of(int op)
{
    return op == OP_MUL_N || op == OP_SQR_N || op == OP_POWM_N ? BATCH_INPUTS : INPUTS;
}
#define EXP_BITS 24
#define BATCH 11

/* ---- child: runs the operations between SIGUSR1 and SIGUSR2 ---- */

static void value(mpz_t a, const mpz_t p, int i, gmp_randstate_t r)
{
    switch (i) {
    case 0: mpz_set_ui(a, 0); break;
    case 1: mpz_set_ui(a, 1); break;
    case 2: mpz_sub_ui(a, p, 1); break;
    case 3:
        mpz_set_ui(a, 0);
        mpz_setbit(a, mpz_sizeinbase(p, 2) - 1);
        mpz_sub_ui(a, a, 1);
        break;
    default: mpz_urandomm(a, r, p); break;
    }
}

static void child(const char *const *specs, int nspecs, const size_t *bits, int nbits)
{
    gmp_randstate_t r;
    gmp_randinit_default(r);
    gmp_randseed_ui(r, 11);
    raise(SIGSTOP); /* the parent attaches its options here */
    for (int s = 0; s < nspecs; s++)
        for (int b = 0; b < nbits; b++) {
            mpz_t p, p2, a, e, e2;
            mpz_inits(p, p2, a, e, e2, NULL);
            mpz_urandomb(p, r, bits[b]);
            mpz_setbit(p, bits[b] - 1);
            mpz_nextprime(p, p);
            mpz_urandomb(p2, r, bits[b]);
            mpz_setbit(p2, bits[b] - 1);
            mpz_nextprime(p2, p2);
            mns_field *f = NULL, *f2 = NULL;
            if (mns_field_new(&f, p, specs[s]) != MNS_OK ||
                mns_field_new(&f2, p2, specs[s]) != MNS_OK) {
                printf("skip %s %zu bits: %s\n", specs[s], bits[b], mns_last_error());
                fflush(stdout);
                /* the markers the parent waits for, with nothing between */
                for (int op = 0; op < OP_COUNT; op++)
                    for (int i = 0; i < inputs_of(op); i++) {
                        raise(SIGUSR1);
                        raise(SIGUSR2);
                    }
                mns_field_free(f);
                mpz_clears(p, p2, a, e, e2, NULL);
                continue;
            }
            const size_t L = mns_field_limbs(f), pn = mpz_size(p);
            const size_t L2 = mns_field_limbs(f2);
            uint64_t *X = calloc(3 * L + pn, 8), *Y = X + L, *R = Y + L, *W = R + L;
            uint64_t *X2 = calloc(3 * L2, 8), *Y2 = X2 + L2, *R2 = Y2 + L2;
            const size_t sw = mns_field_powm_x2_lane_words(f, f2, EXP_BITS);
            const size_t sw2 = mns_field_powm_x2_lane_words(f2, f, EXP_BITS);
            uint64_t *S = calloc(sw, 8), *S2 = calloc(sw2, 8);
            /* the batch calls: BATCH operations in the lanes (a group of
             * eight and one padded with dummy lanes) */
            const size_t swn = mns_field_powm_n_itch(f, EXP_BITS);
            uint64_t *XN = calloc(3 * BATCH * L, 8), *YN = XN + BATCH * L, *RN = YN + BATCH * L;
            uint64_t *SN = calloc(swn, 8);
            mpz_t en[BATCH];
            for (int l = 0; l < BATCH; l++)
                mpz_init(en[l]);
            for (int op = 0; op < OP_COUNT; op++)
                for (int i = 0; i < inputs_of(op); i++) {
                    value(a, p, i, r);
                    mns_field_set_mpz(f, X, a);
                    value(a, p, INPUTS - 1 - i, r);
                    mns_field_set_mpz(f, Y, a);
                    value(a, p2, (i + 2) % INPUTS, r);
                    mns_field_set_mpz(f2, X2, a);
                    value(a, p2, (i + 3) % INPUTS, r);
                    mns_field_set_mpz(f2, Y2, a);
                    value(a, p, INPUTS - 1 - i, r);
                    memset(W, 0, pn * 8);
                    mpz_export(W, NULL, -1, 8, 0, 0, a);
                    mpz_urandomb(e, r, EXP_BITS);
                    mpz_setbit(e, EXP_BITS - 1);
                    mpz_urandomb(e2, r, EXP_BITS);
                    mpz_setbit(e2, EXP_BITS - 1);
                    for (int l = 0; l < BATCH; l++) { /* every lane its own value and exponent */
                        value(a, p, (i + l) % INPUTS, r);
                        mns_field_set_mpz(f, XN + l * L, a);
                        value(a, p, (i + 2 * l + 1) % INPUTS, r);
                        mns_field_set_mpz(f, YN + l * L, a);
                        mpz_urandomb(en[l], r, EXP_BITS);
                        mpz_setbit(en[l], EXP_BITS - 1);
                    }
                    /* each operation runs once unmarked first: the first
                     * call of a library function goes through the dynamic
                     * linker's lazy binding, which is not the kernel's path;
                     * powm also warms the allocator's path */
                    for (int pass = 0; pass < 2; pass++) {
                        if (pass)
                            raise(SIGUSR1);
                        switch (op) {
                        case OP_MUL: mns_field_mul(f, R, X, Y); break;
                        case OP_SQR: mns_field_sqr(f, R, X); break;
                        case OP_ADD: mns_field_add(f, R, X, Y); break;
                        case OP_SUB: mns_field_sub(f, R, X, Y); break;
                        case OP_REDUCE: mns_field_reduce(f, R, X); break;
                        case OP_SET_WORDS: mns_field_set_words(f, R, W, pn); break;
                        case OP_GET_WORDS:
                            if (mns_field_has_get_words(f)) /* else nothing to trace */
                                (void)mns_field_get_words(f, W, X, pn);
                            break;
                        case OP_POWM: mns_field_powm(f, R, X, e); break;
                        case OP_MUL_X2: mns_field_mul_x2(f, R, X, Y, f2, R2, X2, Y2); break;
                        case OP_SQR_X2: mns_field_sqr_x2(f, R, X, f2, R2, X2); break;
                        case OP_POWM_X2:
                            mns_field_powm_x2(f, R, X, e, f2, R2, X2, e2, S, S2);
                            break;
                        case OP_MUL_N:
                            mns_field_mul_n(f, RN, XN, YN, 8);
                            mns_field_mul_n(f, RN, XN, YN, BATCH);
                            break;
                        case OP_SQR_N:
                            mns_field_sqr_n(f, RN, XN, 8);
                            mns_field_sqr_n(f, RN, XN, BATCH);
                            break;
                        case OP_POWM_N:
                            mns_field_powm_n_scratch(f, RN, XN, (const mpz_t *)en, BATCH, SN);
                            break;
                        default:
                            for (uint64_t k = W[0] & 7; k; k--)
                                __asm__ volatile("" ::: "memory");
                            break;
                        }
                    }
                    raise(SIGUSR2);
                }
            free(X);
            free(X2);
            free(S);
            free(S2);
            free(XN);
            free(SN);
            for (int l = 0; l < BATCH; l++)
                mpz_clear(en[l]);
            mns_field_free(f);
            mns_field_free(f2);
            mpz_clears(p, p2, a, e, e2, NULL);
        }
    gmp_randclear(r);
    _exit(0);
}

/* ---- parent: single-steps each marked region ---- */

/* Waits for the child to stop with `sig` (other stops are passed on).
 * Returns 0 if the child exited. */
static int wait_sig(pid_t pid, int sig)
{
    for (;;) {
        int st;
        if (waitpid(pid, &st, 0) < 0 || WIFEXITED(st) || WIFSIGNALED(st))
            return 0;
        if (WIFSTOPPED(st) && WSTOPSIG(st) == sig)
            return 1;
        ptrace(PTRACE_CONT, pid, 0, WIFSTOPPED(st) ? WSTOPSIG(st) : 0);
    }
}

/* Steps from the SIGUSR1 stop to the SIGUSR2 stop: FNV-1a of the rip's. */
static uint64_t trace(pid_t pid, unsigned long *steps)
{
    uint64_t h = 1469598103934665603ull;
    *steps = 0;
    for (;;) {
        if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) < 0)
            return 0;
        int st;
        if (waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st))
            return 0;
        if (WSTOPSIG(st) == SIGUSR2)
            return h;
        if (WSTOPSIG(st) != SIGTRAP)
            continue; /* a signal stop inside raise(): not an instruction */
        struct user_regs_struct regs;
        ptrace(PTRACE_GETREGS, pid, 0, &regs);
        h = (h ^ regs.rip) * 1099511628211ull;
        ++*steps;
    }
}

int main(int argc, char **argv)
{
    if (!mns_cpu_has_ifma() || mns_cpu_features() == 0) {
        printf("mns-rsa-ifma-trace: skip: no IFMA kernels on this run\n");
        return 77;
    }
    /* and pmns-mp's FMA kernel in its 8-lane (AVX-512F) instances, which
     * valgrind (ctime-valgrind-pmns-mp) cannot run: unsplit and split */
    static const char *const specs[] = {"pmns-ifma", "pmns-mp-ifma", "rns-ifma", "mont-ifma",
                                        "pmns-mp:kernel=fma,lanes=8",
                                        "pmns-mp:kernel=fma,lanes=8,base=1"};
    const int nspecs = 6;
    size_t bits[8] = {1024, 1536};
    int nbits = 2;
    if (argc > 1) {
        nbits = 0;
        for (int i = 1; i < argc && nbits < 8; i++)
            bits[nbits++] = strtoul(argv[i], NULL, 10);
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
            _exit(77);
        child(specs, nspecs, bits, nbits);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st)) {
        printf("mns-rsa-ifma-trace: skip: ptrace not permitted\n");
        return 77;
    }
    ptrace(PTRACE_CONT, pid, 0, 0);
    int bad = 0;
    for (int s = 0; s < nspecs; s++)
        for (int b = 0; b < nbits; b++)
            for (int op = 0; op < OP_COUNT; op++) {
                uint64_t first = 0;
                unsigned long first_steps = 0, steps = 0;
                int differ = 0;
                for (int i = 0; i < inputs_of(op); i++) {
                    if (!wait_sig(pid, SIGUSR1)) {
                        printf("mns-rsa-ifma-trace: child ended early\n");
                        return 1;
                    }
                    uint64_t h = trace(pid, &steps);
                    if (i == 0) {
                        first = h;
                        first_steps = steps;
                    } else if (h != first || steps != first_steps) {
                        differ = 1;
                    }
                    ptrace(PTRACE_CONT, pid, 0, 0);
                }
                const int control = op == OP_CONTROL;
                printf("%-13s %5zu bits %-9s %8lu instructions, %d inputs: %s\n", specs[s], bits[b],
                       op_name[op], first_steps, inputs_of(op),
                       differ ? (control ? "differ (as they must)" : "TRACES DIFFER")
                              : (control ? "EQUAL: the tracer misses a data branch" : "equal"));
                fflush(stdout);
                bad |= control ? !differ : differ;
            }
    waitpid(pid, &st, 0);
    return bad;
}
