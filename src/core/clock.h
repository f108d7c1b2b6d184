#ifndef MNS_CORE_CLOCK_H
#define MNS_CORE_CLOCK_H

#include <time.h>

/* Monotonic wall time in nanoseconds: key-creation costs, the timed choices
 * of the RSA channels, the pool's spin budget and the generator's progress
 * (all public, none on a secret path). */
static inline double mns_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline double mns_now_ms(void) { return mns_now_ns() * 1e-6; }

#endif
