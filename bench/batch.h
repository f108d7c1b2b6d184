/* The batch section of mns-bench (bench/batch.c, bench/batch_rsa.c):
 * per-operation throughput of the batch calls (mns_field_mul_n, _powm_n,
 * mns_rsa_sign_pkcs1v15_n) in groups of eight against the single calls in
 * a loop, OpenSSL, and, where installed and where the CPU runs them, Intel
 * crypto_mb (mbx_exp_mb8, mbx_rsa_private_crt_mb8) and IPP's single-buffer
 * ippsRSA_Decrypt; all in one process, TSC ticks per operation. */
#ifndef MNS_BENCH_BATCH_H
#define MNS_BENCH_BATCH_H

#include <stdio.h>

#include "run.h"
#include "timing.h"

/* Operations per timed call of every implementation: one group of lanes. */
#define MB_LANES 8

/* Records one figure (ticks per operation: median, min, max of rounds). */
void mb_batch_add(mb_run *run, const char *op, unsigned bits, const char *impl, double per_op,
                  double lo, double hi, const char *note);
/* Times fn(arg), which runs MB_LANES operations, and records it. */
void mb_batch_time(mb_run *run, const char *op, unsigned bits, const char *impl, mb_call_fn fn,
                   void *arg, const char *note);
/* A line saying why a comparator is absent (printed and kept in the JSON). */
void mb_batch_note(mb_run *run, const char *op, unsigned bits, const char *impl, const char *why);

/* The section: field products and exponentiations (batch.c), then RSA
 * (batch_rsa.c); prints its table to out. */
void mb_batch_section(mb_run *run, FILE *out);
void mb_batch_rsa(mb_run *run, FILE *out);

/* "crypto_mb: ..." status for the report: built in or not, CPU able or not */
const char *mb_crypto_mb_status(void);
int mb_crypto_mb_runs(void);

#endif
