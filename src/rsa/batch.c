/* The batch calls of mns_rsa (mns_rsa_private_n, mns_rsa_sign_pkcs1v15_n):
 * operations in groups of eight, one slot each (rsa_internal.h). Where
 * every channel's field runs mns_field_powm_n in lanes, a group enters its
 * eight inputs into each channel, exponentiates them there in one
 * mns_field_powm_n (the same padded exponent d_i in every lane), leaves
 * each channel, and finishes each operation with the CRT and its own fault
 * check; otherwise each operation is the single call's work on its slot.
 * Groups (or, without lanes, single operations) share out over the
 * threads. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "field/field_internal.h"
#include "rsa/rsa_internal.h"

#define GROUP 8
_Static_assert(GROUP <= MNS_RSA_CHECK_GROUP, "a group's checks fit mns_rsa_check_lanes");

typedef struct batch_call {
    const mns_rsa *key;
    size_t count;
    int lanes;
    size_t size; /* operations per job: a group in lanes, else one */
    const mpz_t *in; /* private_n */
    mpz_t *out;
    const mns_rsa_digest_info *di; /* sign_pkcs1v15_n */
    const unsigned char *digest;
    size_t digest_len;
    unsigned char *sig;
    mns_status *st; /* per operation */
    /* the test hook's injected fault (mns_rsa_private_n_ex_): operation,
     * channel (< 0: none) and bit of its result */
    size_t fault_op;
    int fault_channel;
    unsigned fault_bit;
} batch_call;

/* the injected fault, if operation i of the batch is the faulty one: bit
 * fault_bit of channel fault_channel's result, after the exponentiation */
static void inject(const batch_call *b, size_t i, mns_rsa_slot *sl)
{
    if (b->fault_channel < 0 || b->fault_channel >= b->key->k || i != b->fault_op)
        return;
    const size_t bit = b->fault_bit % (64 * b->key->ch[b->fault_channel].pn);
    sl->s[b->fault_channel][bit / 64] ^= (mp_limb_t)1 << (bit % 64);
}

static void load(const batch_call *b, size_t i, mns_rsa_slot *sl)
{
    if (b->in) {
        if (mpz_size(b->in[i]))
            memcpy(sl->in, mpz_limbs_read(b->in[i]), mpz_size(b->in[i]) * sizeof(mp_limb_t));
        return;
    }
    mns_rsa_pkcs1_in(b->key, b->di, b->digest + i * b->digest_len, sl->em, sl->in);
}

static void store(const batch_call *b, size_t i, const mns_rsa_slot *sl)
{
    if (b->out) {
        mpz_t xz;
        mpz_roinit_n(xz, sl->x, (mp_size_t)b->key->xn);
        mpz_set(b->out[i], xz);
        return;
    }
    mns_rsa_pkcs1_out(b->key, b->sig + i * b->key->nbytes, sl->x);
}

/* 1 if every channel's field runs powm_n in lanes */
static int key_lanes(const mns_rsa *key)
{
    for (int i = 0; i < key->k; i++)
        if (!mns_field_powm_n_lanes(key->ch[i].f))
            return 0;
    return 1;
}

/* words of a group's channel stage: X and Y for eight (field elements, or
 * canonical values of pn words), the powm_n scratch */
static size_t stage_words(const mns_rsa *key)
{
    size_t words = 0;
    for (int i = 0; i < key->k; i++) {
        const mns_rsa_channel *c = &key->ch[i];
        const size_t L = c->limbs > c->pn ? c->limbs : c->pn;
        const size_t w = 2 * GROUP * L + mns_field_powm_n_itch(c->f, mpz_sizeinbase(c->dexp, 2));
        words = w > words ? w : words;
    }
    const size_t ck = mns_rsa_check_lanes_words(key, GROUP);
    return ck > words ? ck : words;
}

/* channel ci for the n operations of a group. A channel with a
 * constant-time exit (getw) hands the lanes its reduced input and takes
 * their canonical result as s_i, skipping the field's representation both
 * ways (which cost a set_words and a get_words per operation each way:
 * 11-12k of 271k ticks per RSA-2048 signature on pmns-mp-ifma channels,
 * Zen 5); the others, and a group of one (which powm_n runs as the single
 * call, not in eight lanes), enter and leave the field as the single call
 * does. */
static void channel_stage(const mns_rsa *key, int ci, mns_rsa_slot *const *sl, size_t n,
                          uint64_t *work)
{
    const mns_rsa_channel *c = &key->ch[ci];
    const size_t nn = key->nn, L = c->limbs > c->pn ? c->limbs : c->pn, pn = c->pn;
    uint64_t *X = work, *Y = X + GROUP * L, *scratch = Y + GROUP * L;
    mpz_t e[GROUP];
    for (size_t j = 0; j < n; j++)
        e[j][0] = c->dexp[0]; /* read only: the same limbs */
    if (c->getw && n > 1) { /* a group of one: the single call's path below */
        for (size_t j = 0; j < n; j++)
            memcpy(X + j * pn, mns_rsa_channel_reduce(c, sl[j]->in, nn, sl[j]->chs[ci]),
                   pn * sizeof(uint64_t));
        mns_field_powm_n_words(c->f, Y, X, pn, (const mpz_t *)e, n, scratch);
        for (size_t j = 0; j < n; j++)
            memcpy(sl[j]->s[ci], Y + j * pn, pn * sizeof(uint64_t));
        return;
    }
    for (size_t j = 0; j < n; j++) {
        mns_rsa_channel_in(c, sl[j]->in, nn, sl[j]->chs[ci]);
        memcpy(X + j * c->limbs, mns_rsa_channel_x(c, nn, sl[j]->chs[ci]), c->limbs * sizeof(uint64_t));
    }
    mns_field_powm_n_scratch(c->f, Y, X, (const mpz_t *)e, n, scratch);
    for (size_t j = 0; j < n; j++) {
        memcpy(mns_rsa_channel_y(c, nn, sl[j]->chs[ci]), Y + j * c->limbs, c->limbs * sizeof(uint64_t));
        mns_rsa_channel_out(c, sl[j]->s[ci], sl[j]->z[ci], nn, sl[j]->chs[ci]);
    }
}

static void lanes_group(const batch_call *b, mns_rsa_slot *const *sl, size_t first, size_t n)
{
    const mns_rsa *key = b->key;
    const size_t words = stage_words(key);
    uint64_t *work = malloc(words * sizeof(uint64_t));
    if (!work) {
        for (size_t j = 0; j < n; j++)
            b->st[first + j] = MNS_ENOMEM;
        return;
    }
    for (int ci = 0; ci < key->k; ci++)
        channel_stage(key, ci, sl, n, work);
    explicit_bzero(work, words * sizeof(uint64_t));
    for (size_t j = 0; j < n; j++) {
        inject(b, first + j, sl[j]);
        mns_rsa_crt_slot(key, sl[j]);
    }
    int ok[GROUP];
    if (n > 1 && mns_rsa_check_lanes_ok(key)) /* one: eight lanes would cost more */
        mns_rsa_check_lanes(key, sl, n, work, ok);
    else
        for (size_t j = 0; j < n; j++)
            ok[j] = mns_rsa_check_ok(key, sl[j], 1);
    free(work);
    for (size_t j = 0; j < n; j++)
        b->st[first + j] = ok[j] ? MNS_OK : MNS_ERANGE;
}

static void group_job(void *arg, int g)
{
    const batch_call *b = arg;
    const mns_rsa *key = b->key;
    const size_t first = (size_t)g * b->size;
    const size_t n = b->count - first < b->size ? b->count - first : b->size;
    mns_rsa_slot slot[GROUP], *sl[GROUP];
    size_t made = 0;
    for (; made < n; made++) {
        sl[made] = &slot[made];
        if (mns_rsa_slot_init(key, sl[made]) != MNS_OK)
            break;
        load(b, first + made, sl[made]);
    }
    if (made < n) {
        for (size_t j = 0; j < n; j++)
            b->st[first + j] = MNS_ENOMEM;
    } else if (b->lanes) {
        lanes_group(b, sl, first, n);
    } else {
        for (size_t j = 0; j < n; j++)
            b->st[first + j] = mns_rsa_private_slot(
                key, sl[j], 1, MNS_RSA_THREADS_POOL,
                first + j == b->fault_op ? b->fault_channel : -1, b->fault_bit);
    }
    for (size_t j = 0; j < made; j++) {
        if (b->st[first + j] == MNS_OK)
            store(b, first + j, sl[j]);
        mns_rsa_slot_clear(key, sl[j]);
    }
}

static mns_status run(batch_call *b, int threads, const char *who)
{
    if (b->count == 0)
        return MNS_OK;
    b->lanes = b->count > 1 && key_lanes(b->key);
    b->size = b->lanes ? GROUP : 1;
    b->st = malloc(b->count * sizeof(mns_status));
    if (!b->st)
        return mns_error(MNS_ENOMEM, "%s: out of memory", who);
    const size_t groups = (b->count + b->size - 1) / b->size;
    const int jobs = groups > (size_t)INT32_MAX ? INT32_MAX : (int)groups;
    mns_status ran = MNS_EINVAL;
    if (threads > 1 && jobs > 1) {
        if (b->key->pool)
            ran = mns_rsa_pool_run(b->key->pool, threads, group_job, b, jobs);
        if (ran != MNS_OK)
            ran = mns_rsa_spawn_run(threads, group_job, b, jobs);
    }
    if (ran != MNS_OK)
        for (int g = 0; g < jobs; g++)
            group_job(b, g);
    mns_status st = MNS_OK;
    size_t bad = 0;
    for (size_t i = 0; i < b->count && st == MNS_OK; i++)
        if ((st = b->st[i]) != MNS_OK)
            bad = i;
    free(b->st);
    if (st == MNS_ERANGE)
        return mns_error(st, "%s: fault check failed for operation %zu (result^e != input); "
                             "no output for it",
                         who, bad);
    if (st != MNS_OK)
        return mns_error(st, "%s: operation %zu: out of memory", who, bad);
    return MNS_OK;
}

mns_status mns_rsa_private_n(const mns_rsa *key, mpz_t *out, const mpz_t *in, size_t count,
                             int threads)
{
    return mns_rsa_private_n_ex_(key, out, in, count, threads, 0, -1, 0);
}

mns_status mns_rsa_private_n_ex_(const mns_rsa *key, mpz_t *out, const mpz_t *in, size_t count,
                                 int threads, size_t fault_op, int fault_channel,
                                 unsigned fault_bit)
{
    mns_error_clear();
    if (!key || (count && (!out || !in)))
        return mns_error(MNS_EINVAL, "mns_rsa_private_n: NULL argument");
    if (threads < 1)
        return mns_error(MNS_EINVAL, "mns_rsa_private_n: threads must be >= 1 (got %d)", threads);
    for (size_t i = 0; i < count; i++)
        if (mpz_sgn(in[i]) < 0 || mpz_cmp(in[i], key->n) >= 0)
            return mns_error(MNS_EINVAL, "mns_rsa_private_n: input %zu not in [0, n)", i);
    batch_call b = {.key = mns_rsa_now(key), .count = count, .in = in, .out = out,
                    .fault_op = fault_op, .fault_channel = fault_channel, .fault_bit = fault_bit};
    mns_status st = run(&b, threads, "mns_rsa_private_n");
    mns_rsa_tune_kick_(key); /* after the results, as mns_rsa_private does */
    return st;
}

mns_status mns_rsa_sign_pkcs1v15_n(const mns_rsa *key, unsigned char *sig, const char *hash,
                                   const unsigned char *digest, size_t digest_len, size_t count,
                                   int threads)
{
    static const char who[] = "mns_rsa_sign_pkcs1v15_n";
    mns_error_clear();
    if (!key || !hash || (count && (!sig || !digest)))
        return mns_error(MNS_EINVAL, "%s: NULL argument", who);
    const mns_rsa_digest_info *di;
    mns_status st = mns_rsa_pkcs1_info(key, who, hash, digest_len, &di);
    if (st != MNS_OK)
        return st;
    if (threads < 1)
        return mns_error(MNS_EINVAL, "%s: threads must be >= 1 (got %d)", who, threads);
    batch_call b = {.key = mns_rsa_now(key), .count = count, .di = di, .digest = digest,
                    .digest_len = digest_len, .sig = sig, .fault_channel = -1};
    st = run(&b, threads, who);
    mns_rsa_tune_kick_(key); /* after the results, as mns_rsa_private does */
    return st;
}
