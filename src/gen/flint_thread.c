/* FLINT's per-thread caches, released when a thread that used them exits.
 *
 * Why: FLINT keeps caches in thread-local storage (fmpz's free list of
 * mpz structs, allocated 16 pages at a time, and others) and frees them
 * only in flint_cleanup(), which it leaves to the program. A thread that
 * created a PMNS field (the generator's LLL and polynomial arithmetic) and
 * then exited leaked them: about 170 KB per thread, "definitely lost" under
 * valgrind for two threads that each made a 1024-bit pmns-mp field. A
 * caller's worker threads, the Python layer's threads, or a server that
 * creates keys from short-lived threads would grow without bound.
 *
 * Here a thread-specific key whose destructor calls flint_cleanup() is set
 * in every thread that enters FLINT code of the library; the destructor
 * runs when that thread exits (before its thread-local storage goes), so
 * the cleanup happens once per thread, at its end, as FLINT's
 * documentation asks. The main thread's caches stay reachable until the
 * process exits (key destructors do not run for it). FLINT use of the
 * caller's own in the same thread is not disturbed before the thread ends.
 */
#include "gen/flint_thread.h"

#ifdef MNS_HAVE_FLINT
#include <pthread.h>

#include <flint/flint.h>

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int key_ok;

static void at_thread_exit(void *v)
{
    (void)v;
    flint_cleanup();
}

static void make_key(void) { key_ok = pthread_key_create(&key, at_thread_exit) == 0; }

void mns_gen_flint_thread_enter(void)
{
    pthread_once(&once, make_key);
    /* without a key (creation failed: PTHREAD_KEYS_MAX reached) the caches
     * leak as before; nothing else depends on it */
    if (key_ok && !pthread_getspecific(key))
        (void)pthread_setspecific(key, &key);
}
#endif /* MNS_HAVE_FLINT */
