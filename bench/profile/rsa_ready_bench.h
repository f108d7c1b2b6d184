/* mns-rsa-bench -R (rsa_ready_bench.c): creation to first signature and
 * steady signatures per second against OpenSSL. */
#ifndef MNS_BENCH_RSA_READY_BENCH_H
#define MNS_BENCH_RSA_READY_BENCH_H

#include <stddef.h>

/* rounds per size; only_bits: one size (0: all); seed: the keys' */
void mns_rsa_ready_bench(int rounds, size_t only_bits, unsigned long seed);

#endif
