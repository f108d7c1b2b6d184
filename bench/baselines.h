/* The references every mns figure is a ratio to, run in the same process on
 * the same moduli and data:
 *
 *   gmp-mul-tdiv      mpn_mul_n (mpn_sqr) + mpn_tdiv_qr          modmul, modsqr
 *   gmp-mont          mpn_mul_n (mpn_sqr) + REDC built on public mpn
 *                     (mpn_addmul_1 per word, mpn_add_n, one conditional
 *                     mpn_sub_n): the papers' "GMP Montgomery"   modmul, modsqr
 *   gmp-powm-sec      mpz_powm_sec                               modexp
 *   openssl-mont      BN_mod_mul_montgomery (a == b for modsqr)  modmul, modsqr
 *   openssl-mont-ct   BN_mod_exp_mont_consttime                  modexp
 *   ipp-rsa           IPP ippsRSA_Decrypt, type-1 key n = p      modexp
 *                     (where IPP was found: baseline_ipp.c)
 */
#ifndef MNS_BENCH_BASELINES_H
#define MNS_BENCH_BASELINES_H

#include <gmp.h>

#include "impl.h"

/* Each returns 0 on success (*out filled), -1 on failure (message on stderr). */
int mb_gmp_mul_tdiv_new(mb_impl *out, const mpz_t p);
int mb_gmp_mont_new(mb_impl *out, const mpz_t p);
int mb_gmp_powm_sec_new(mb_impl *out, const mpz_t p);
int mb_openssl_mont_new(mb_impl *out, const mpz_t p);
int mb_openssl_mont_ct_new(mb_impl *out, const mpz_t p);
/* 1: not built with IPP, or p outside its RSA sizes (no column) */
int mb_ipp_exp_new(mb_impl *out, const mpz_t p);

/* "OpenSSL 3.0.x ..." */
const char *mb_openssl_version(void);

#endif
