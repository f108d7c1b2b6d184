/* Constant-time decoding of an RSAES-PKCS1-v1_5 encoded message
 * (00 02 PS 00 M, RFC 8017 7.2.2), the model being OpenSSL 3.2:
 *   - with implicit rejection (the default), a bad padding gives no error
 *     but a synthetic message, derived from the private key and the
 *     ciphertext (draft-irtf-cfrg-rsa-guidance: KDK = HMAC-SHA256 keyed by
 *     SHA-256(d), over the ciphertext; lengths and message from its PRF),
 *     so a padding oracle learns nothing from errors or lengths;
 *   - without it, a bad padding is an error, found without branches on the
 *     message;
 *   - the TLS pre-master secret form (RSA_PKCS1_WITH_TLS_PADDING): 48
 *     bytes and the client version, a random secret on any mismatch.
 * Every branch and memory index depends only on public lengths. */
#ifndef MNS_PROVIDER_RSA_PKCS1_H
#define MNS_PROVIDER_RSA_PKCS1_H

#include <stddef.h>
#include "provider/rsa_key.h"

/* em: the k-byte decryption; ct: the k-byte ciphertext; to has room for
 * tsize >= k - 11 bytes. Returns the message length (synthetic or real),
 * or -1 on an internal failure (error raised). */
int mns_pkcs1_decode_implicit(const mns_prov *prov, const mns_prov_rsa *key, unsigned char *to,
                              size_t tsize, unsigned char *em, const unsigned char *ct, size_t k);
/* Returns the message length, or -1 with a "bad padding" error. */
int mns_pkcs1_decode(const mns_prov *prov, unsigned char *to, size_t tsize, unsigned char *em,
                     size_t k);
/* The 48-byte pre-master secret in to; version = the client's (major << 8
 * | minor). Returns 48, or -1 on an internal failure. */
int mns_pkcs1_decode_tls(const mns_prov *prov, unsigned char *to, unsigned char *em, size_t k,
                         unsigned version);

#endif /* MNS_PROVIDER_RSA_PKCS1_H */
