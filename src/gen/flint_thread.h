/* FLINT's per-thread caches released at thread exit (flint_thread.c). */
#ifndef MNS_GEN_FLINT_THREAD_H
#define MNS_GEN_FLINT_THREAD_H

/* Call on entry to any library function that uses FLINT: the calling
 * thread's FLINT caches are then freed (flint_cleanup) when it exits.
 * Cheap after the first call in a thread (one thread-specific read). */
void mns_gen_flint_thread_enter(void);

#endif
