/* Signature encodings for rsa_sig.c: EMSA-PKCS1-v1_5 (RFC 8017 9.2) with
 * the DigestInfo of any digest that has an OID, and an OpenSSL RSA object
 * holding only n and e, which RSA_padding_add_PKCS1_PSS_mgf1 and
 * RSA_verify_PKCS1_PSS_mgf1 take for the modulus length. */
#ifndef MNS_PROVIDER_RSA_PAD_H
#define MNS_PROVIDER_RSA_PAD_H

#include <stddef.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include "provider/rsa_key.h"

/* em (emlen bytes) <- 00 01 FF..FF 00 T, T = DigestInfo(md, digest), or
 * T = digest itself if md is NULL (raw) or MD5-SHA1 (TLS 1.0/1.1).
 * 0 with an error if T does not fit with 8 bytes of padding. */
int mns_pad_pkcs1_sign(const mns_prov *prov, unsigned char *em, size_t emlen, const EVP_MD *md,
                       const unsigned char *digest, size_t dlen);
/* RSA object with n and e of the key (NULL on failure). */
RSA *mns_pad_rsa_public(const mns_prov_rsa *key);

#endif /* MNS_PROVIDER_RSA_PAD_H */
