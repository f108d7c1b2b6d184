/* Heap blocks aligned to a cache line (and to a 512-bit vector). C11's
 * aligned_alloc wants the size to be a multiple of the alignment (glibc does
 * not check, AddressSanitizer does): every caller goes through here, which
 * rounds the size up, so no caller has to remember. Free with free(). */
#ifndef MNS_CORE_ALLOC_H
#define MNS_CORE_ALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* At least `bytes` bytes (at least 64), 64-byte aligned; NULL if exhausted. */
static inline void *mns_alloc64(size_t bytes)
{
    size_t rounded = bytes ? (bytes + 63) / 64 * 64 : 64;
    if (rounded < bytes)
        return NULL; /* size_t overflow */
    return aligned_alloc(64, rounded);
}

/* `words` zeroed 64-bit words (at least 8), 64-byte aligned; NULL if exhausted. */
static inline uint64_t *mns_alloc64_words_zero(size_t words)
{
    if (words > SIZE_MAX / sizeof(uint64_t) - 64)
        return NULL;
    size_t bytes = words ? (words * sizeof(uint64_t) + 63) / 64 * 64 : 64;
    uint64_t *p = (uint64_t *)aligned_alloc(64, bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

#endif
