/* mns-bench --curve: X25519 and brainpool ECDH on the field API against
 * OpenSSL in the same process (bench/curve.c). */
#ifndef MB_CURVE_H
#define MB_CURVE_H

int mb_curve_main(int argc, char **argv);

/* One measurement of the example's own bench (examples/x25519.c,
 * examples/ecdh_generic.c), which prints its line; the ratio mns / OpenSSL,
 * or a negative value when the field cannot be made. brainpool: 256 or 384. */
double mb_curve_x25519(const char *spec);
double mb_curve_brainpool(const char *spec, int bits);

#endif
