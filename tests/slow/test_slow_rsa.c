/* mns_rsa on the large keys (4096-8192 bits, 2..8 primes) against GMP and
 * OpenSSL: the same checks as test_rsa.c, which this file includes. */
#define MNS_RSA_SLOW 1
#include "rsa/test_rsa.c"
