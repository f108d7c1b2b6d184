/* Finite-field Diffie-Hellman groups: the named ones (RFC 7919 ffdhe2048..
 * ffdhe8192, RFC 3526 modp_1536..modp_8192, their primes taken from
 * libcrypto) and explicit safe-prime groups (or groups with a prime q
 * dividing p - 1), each made once per process and cached with its field:
 *   - first an mns_field "mont" (made in microseconds), so one derive in a
 *     short-lived program pays no parameter generation;
 *   - after MNS_PROV_DH_UPGRADE_AFTER uses, a thread makes the "auto" field
 *     (op=exp: the tuning table's exponentiation rows), times a derive in
 *     both, and later uses take it if it is faster;
 *     MNS_PROVIDER_DH_UPGRADE sets the count (0: "auto" at once, untimed;
 *     -1: never).
 * The cache lives until the last provider instance is unloaded. */
#ifndef MNS_PROVIDER_DH_GROUP_H
#define MNS_PROVIDER_DH_GROUP_H

#include <pthread.h>
#include <stdatomic.h>
#include <gmp.h>
#include "mns.h"
#include "provider/provider.h"

#define MNS_PROV_DH_UPGRADE_AFTER 8

typedef struct mns_dh_group {
    const char *name; /* NULL for an explicit group */
    long keylen;      /* private key bits of a named group (0: from q) */
    int safe;         /* q = (p - 1) / 2 */
    mpz_t p, g, q;
    pthread_mutex_t lock;
    _Atomic(mns_field *) quick, fast;
    atomic_ulong uses;
    atomic_int upgrading, settled; /* thread started; the field choice is final */
    pthread_t upgrader;
    int up_done, orphan; /* under lock: the thread ended; the group was freed before */
    char quick_desc[160]; /* "quick " and the quick field's describe() */
    struct mns_dh_group *next;
} mns_dh_group;

void mns_dh_groups_ref(void);
void mns_dh_groups_unref(void);
/* A named group, NULL (error raised) if the name is not one of them. */
mns_dh_group *mns_dh_group_by_name(const mns_prov *prov, const char *name);
/* The group of (p, g, q) (q may be 0 = unknown): a named one if p and g
 * are, else the cached explicit group, made and checked (p prime, g in
 * [2, p - 2], q prime dividing p - 1, or p a safe prime) on first use.
 * NULL with the reason raised. */
mns_dh_group *mns_dh_group_find(const mns_prov *prov, const mpz_t p, const mpz_t g,
                                const mpz_t q);
/* The field to compute in now; counts the use. NULL (error raised) if
 * none could be made. */
const mns_field *mns_dh_group_field(const mns_prov *prov, mns_dh_group *grp);
/* 1 if 2 <= y <= p - 2 and y lies in the subgroup of order q (for a safe
 * prime: the quadratic residues, Jacobi symbol 1); else 0, error raised. */
int mns_dh_group_check_peer(const mns_prov *prov, const mns_dh_group *grp, const mpz_t y);
/* out <- base^e mod p in the group's field (base and the result through
 * set_mpz / get_mpz); 0 on failure, error raised. */
int mns_dh_group_power(const mns_prov *prov, mns_dh_group *grp, mpz_t out, const mpz_t base,
                       const mpz_t e);
/* The field's describe() text; "quick ..." while the choice is pending. */
const char *mns_dh_group_backend(const mns_dh_group *grp);

#endif /* MNS_PROVIDER_DH_GROUP_H */
