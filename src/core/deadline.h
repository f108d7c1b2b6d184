/* A deadline for the calling thread's parameter generation (deadline.c). */
#ifndef MNS_CORE_DEADLINE_H
#define MNS_CORE_DEADLINE_H

/* From now on, the PMNS generator running in this thread gives up (status
 * MNS_ERANGE, "deadline passed") once ms milliseconds have passed; ms <= 0
 * removes the deadline. Per thread: other threads are not affected. */
void mns_deadline_set_ms(double ms);
/* 1 if this thread has a deadline and it has passed, else 0. */
int mns_deadline_passed(void);

#endif
