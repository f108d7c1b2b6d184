/* The call slot: everything one private operation writes, allocated once
 * with the key; a call that finds it taken makes its own. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "rsa/rsa_internal.h"

static size_t words_of_bytes(size_t bytes) { return (bytes + 7) / 8; }

mns_status mns_rsa_slot_init(const mns_rsa *key, mns_rsa_slot *sl)
{
    const int k = key->k;
    size_t words = key->nn + key->xn + mns_rsa_crt_scratch(key) + words_of_bytes(key->nbytes) +
                   key->ck_words;
    for (int i = 0; i < k; i++)
        words += key->ch[i].pn + mns_rsa_channel_scratch(&key->ch[i], key->nn) + key->pw_words[i];
    memset(sl, 0, sizeof *sl);
    sl->block = calloc(words, sizeof(mp_limb_t));
    if (!sl->block)
        return mns_error(MNS_ENOMEM, "rsa: out of memory");
    sl->words = words;
    mp_limb_t *w = sl->block;
    sl->in = w;
    w += key->nn;
    for (int i = 0; i < k; i++) {
        sl->s[i] = w;
        w += key->ch[i].pn;
        sl->chs[i] = (uint64_t *)w;
        w += mns_rsa_channel_scratch(&key->ch[i], key->nn);
        sl->pw[i] = (uint64_t *)w;
        w += key->pw_words[i];
        /* get_mpz's target: room for the products of a Horner step (2 pn
         * words and a carry) so that GMP never reallocates it */
        mpz_init2(sl->z[i], (mp_bitcnt_t)(64 * (2 * key->ch[i].pn + 2)));
    }
    sl->crt = w;
    w += mns_rsa_crt_scratch(key);
    sl->x = w;
    w += key->xn;
    sl->em = (unsigned char *)w;
    w += words_of_bytes(key->nbytes);
    sl->ck = key->ck_words ? (uint64_t *)w : NULL;
    mpz_init2(sl->chk, (mp_bitcnt_t)(64 * (2 * key->nn + 2)));
    return MNS_OK;
}

void mns_rsa_slot_clear(const mns_rsa *key, mns_rsa_slot *sl)
{
    if (!sl->block)
        return;
    explicit_bzero(sl->block, sl->words * sizeof(mp_limb_t));
    free(sl->block);
    for (int i = 0; i < key->k; i++)
        mpz_clear(sl->z[i]);
    mpz_clear(sl->chk);
    sl->block = NULL;
}

mns_rsa_slot *mns_rsa_slot_take(const mns_rsa *ckey, int *own)
{
    mns_rsa *key = (mns_rsa *)ckey; /* the slot is the key's synchronised scratch */
    if (pthread_mutex_trylock(&key->slot_lock) == 0) {
        *own = 0;
        return &key->slot;
    }
    /* another call holds it: this one allocates its own (the only
     * allocation of a private operation, and only under concurrency) */
    mns_rsa_slot *sl = malloc(sizeof *sl);
    if (!sl)
        return NULL;
    if (mns_rsa_slot_init(key, sl) != MNS_OK) {
        free(sl);
        return NULL;
    }
    *own = 1;
    return sl;
}

void mns_rsa_slot_give(const mns_rsa *ckey, mns_rsa_slot *sl, int own)
{
    mns_rsa *key = (mns_rsa *)ckey;
    if (own) {
        mns_rsa_slot_clear(key, sl);
        free(sl);
        return;
    }
    /* the table of powers, the channel results, the CRT: all secret */
    explicit_bzero(sl->block, sl->words * sizeof(mp_limb_t));
    pthread_mutex_unlock(&key->slot_lock);
}
