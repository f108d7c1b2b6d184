/* The brainpool ECDH of examples/ecdh_generic.c for mns-bench --curve: the
 * example itself, compiled without its main (see curve_x25519.c). */
#pragma GCC diagnostic ignored "-Wunused-function"
#define MNS_EXAMPLE_NO_MAIN
#include "../examples/ecdh_generic.c"

#include "curve.h"

double mb_curve_brainpool(const char *spec, int bits)
{
    curve c;
    const int nid = bits == 384 ? NID_brainpoolP384r1 : NID_brainpoolP256r1;
    if (!curve_init(&c, bits == 384 ? "brainpoolP384r1" : "brainpoolP256r1", nid, spec))
        return -1;
    const double r = bench(&c);
    free(c.a);
    mns_field_free(c.f);
    return r;
}
