/* A deadline and a cancel flag for the calling thread's parameter
 * generation (deadline.c). */
#ifndef MNS_CORE_DEADLINE_H
#define MNS_CORE_DEADLINE_H

/* From now on, the PMNS generator running in this thread gives up (status
 * MNS_ERANGE, "deadline passed") once ms milliseconds have passed; ms <= 0
 * removes the deadline. Per thread: other threads are not affected. */
void mns_deadline_set_ms(double ms);
/* From now on, the generator in this thread also gives up as soon as *flag
 * (read atomically) is non-zero; NULL removes the flag. Per thread. */
void mns_deadline_set_cancel(const int *flag);
/* This thread's cancel flag (NULL if none), to hand to helper threads. */
const int *mns_deadline_cancel(void);
/* 1 if this thread has a deadline and it has passed, or its cancel flag is
 * set, else 0. */
int mns_deadline_passed(void);

#endif
