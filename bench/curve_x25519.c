/* The X25519 of examples/x25519.c for mns-bench --curve: the example
 * itself, compiled without its main, so the section times exactly the code
 * users copy (its self-checks are left unused here). */
#pragma GCC diagnostic ignored "-Wunused-function"
#define MNS_EXAMPLE_NO_MAIN
#include "../examples/x25519.c"

#include "curve.h"

double mb_curve_x25519(const char *spec)
{
    x25519 c;
    if (!x25519_init(&c, spec))
        return -1;
    const double r = bench(&c);
    x25519_free(&c);
    return r;
}
