/* A per-thread deadline on parameter generation.
 *
 * Why: RSA's "auto" keys time an alternative backend for each channel
 * (src/rsa/choose.c); without IFMA that alternative is pmns-mp, whose
 * generator usually takes 65-220 ms for a 1100-3400-bit prime on the Zen 3
 * but searches for more than a second on about one prime in eight near 2048
 * bits (1.09-1.39 s seen), which made the key's creation 1.1-1.5 s instead
 * of 0.3 s. Such a prime's set is also rarely the faster one (the search
 * ends on a larger n or s). The generator checks the deadline wherever it
 * reports progress (each lambda, each lattice reduction), so a caller can
 * bound what an optional set costs without a callback of its own through
 * mns_field_new. Thread-local, so channels made side by side each keep
 * their own. The cancel flag serves a generation in the background (an RSA
 * key's tuning, src/rsa/ready.c) that must stop when its key is freed. */
#include "core/deadline.h"

#include "core/clock.h"

static _Thread_local double deadline_ms; /* 0: none */
static _Thread_local const int *cancel_flag;

void mns_deadline_set_ms(double ms) { deadline_ms = ms > 0 ? mns_now_ms() + ms : 0; }

void mns_deadline_set_cancel(const int *flag) { cancel_flag = flag; }

const int *mns_deadline_cancel(void) { return cancel_flag; }

int mns_deadline_passed(void)
{
    if (cancel_flag && __atomic_load_n(cancel_flag, __ATOMIC_RELAXED))
        return 1;
    return deadline_ms > 0 && mns_now_ms() > deadline_ms;
}
