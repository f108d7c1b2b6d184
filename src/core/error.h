/* Status codes with a per-thread message. */
#ifndef MNS_CORE_ERROR_H
#define MNS_CORE_ERROR_H

#include "mns.h"

/* Records a printf-style reason for the calling thread and returns s, so that
 * failures read `return mns_error(MNS_EINVAL, "...", ...);`. */
mns_status mns_error(mns_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Clears the calling thread's message. */
void mns_error_clear(void);

#endif
