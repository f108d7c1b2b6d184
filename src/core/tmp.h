/* Per-call scratch of element operations: on the stack, never the heap, so
 * that an operation can neither fail nor return a wrong value for lack of
 * memory, nor reveal anything through the allocator's timing.
 *
 * Every backend states the scratch its operations need (GMP's _itch habit)
 * and checks it against MNS_SCRATCH_WORDS when its context is created; a
 * modulus whose scratch would exceed the bound is refused there with
 * MNS_ENOTSUP. The bound is 256 KiB: mont serves moduli up to about 180000
 * bits under it, every other backend its whole range, and one operation
 * uses at most a few such frames (powm's window table and the kernel below
 * it), within the 8 MiB of a default thread stack. */
#ifndef MNS_CORE_TMP_H
#define MNS_CORE_TMP_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define MNS_SCRATCH_WORDS 32768 /* 256 KiB */

typedef struct mns_tmp {
    _Alignas(64) uint64_t stack[MNS_SCRATCH_WORDS];
} mns_tmp;

/* Scratch of `words` words; words <= MNS_SCRATCH_WORDS was checked when the
 * context was created. */
static inline uint64_t *mns_tmp_get(mns_tmp *t, size_t words)
{
    (void)words;
    return t->stack;
}

/* MNS_OK if `words` words of per-call scratch fit the bound, else
 * MNS_ENOTSUP with a message naming `who`. */
static inline mns_status mns_scratch_check(const char *who, size_t words)
{
    if (words <= MNS_SCRATCH_WORDS)
        return MNS_OK;
    return mns_error(MNS_ENOTSUP, "%s: an operation would need %zu words of scratch, above the %d-word bound",
                     who, words, MNS_SCRATCH_WORDS);
}

#endif
