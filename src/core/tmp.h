/* Per-call scratch without VLAs and without hidden global state: a fixed
 * stack buffer for the common sizes, the heap beyond it (GMP's TMP_ALLOC
 * idea). Whether the heap is used depends only on the public size. */
#ifndef MNS_CORE_TMP_H
#define MNS_CORE_TMP_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define MNS_TMP_STACK_WORDS 1024 /* 8 KiB: every element up to 16384 bits x 4 */

typedef struct mns_tmp {
    uint64_t *heap;
    uint64_t stack[MNS_TMP_STACK_WORDS];
} mns_tmp;

/* Words of scratch for this call; NULL only if the heap is exhausted. */
static inline uint64_t *mns_tmp_get(mns_tmp *t, size_t words)
{
    t->heap = NULL;
    if (words <= MNS_TMP_STACK_WORDS)
        return t->stack;
    t->heap = (uint64_t *)malloc(words * sizeof(uint64_t));
    return t->heap;
}

static inline void mns_tmp_release(mns_tmp *t) { free(t->heap); }

#endif
