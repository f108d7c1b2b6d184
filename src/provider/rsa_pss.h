/* RSASSA-PSS parameters in the two places OpenSSL asks for them: the key
 * manager's parameters of an RSA-PSS key (digest, MGF1 digest, minimum
 * salt length: what the key restricts) and the DER AlgorithmIdentifier of
 * a signature (id-RSASSA-PSS with RSASSA-PSS-params, RFC 4055), which
 * X.509, CMS and `openssl req` put beside the signature. */
#ifndef MNS_PROVIDER_RSA_PSS_H
#define MNS_PROVIDER_RSA_PSS_H

#include "provider/rsa_key.h"

/* Reads the key's PSS restrictions from params (none there: unrestricted);
 * 0 with the reason raised for an unknown mask generation function or a
 * negative salt length. */
int mns_pss_import(mns_prov_rsa *key, const OSSL_PARAM params[]);
/* Writes the restrictions into those of params that name them. */
int mns_pss_get_params(const mns_prov_rsa *key, OSSL_PARAM params[]);
/* The names of those parameters, for the key manager's type lists: n
 * entries from *out (OSSL_PARAM_END not included). */
extern const OSSL_PARAM mns_pss_param_types[];
#define MNS_PSS_NPARAMS 4
/* The salt length a signature with these values has (the special values
 * of OpenSSL resolved for this modulus and digest). */
int mns_pss_salt_bytes(const mns_prov_rsa *key, const EVP_MD *md, int saltlen);
/* The DER AlgorithmIdentifier of a PSS signature into p (an octet string
 * parameter); 0 if it cannot be encoded. */
int mns_pss_algorithm_id(OSSL_PARAM *p, const EVP_MD *md, const EVP_MD *mgf1, int salt);

#endif /* MNS_PROVIDER_RSA_PSS_H */
