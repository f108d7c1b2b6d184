/* The one point where a value derived from secrets becomes public on
 * purpose: the status of inv (invertible or not) and of sqrt (a square or
 * not), which the caller branches on anyway. Under valgrind memcheck (the
 * constant-time check of tests/ct/, where secrets are marked undefined) the
 * bytes are marked defined, so the check reports every other secret
 * dependence but not this declared one (libsecp256k1's declassify). Outside
 * valgrind the client request is a few no-op instructions. */
#include "core/ct_words.h"

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define MNS_HAVE_MEMCHECK 1
#endif
#endif

void mns_ct_declassify(const void *p, size_t len)
{
#ifdef MNS_HAVE_MEMCHECK
    (void)VALGRIND_MAKE_MEM_DEFINED(p, len);
#else
    (void)p;
    (void)len;
#endif
}
