/* Internals of mns_rsa: the key, its channels, the constant-time entry into
 * and exit from a channel's field, the CRT, the thread pool.
 *
 * Representation invariants:
 *   - every multi-word integer outside the fields is an mpn (mp_limb_t, 64-bit
 *     on x86-64, least significant first) of a FIXED length that depends only
 *     on public sizes (the word counts of n and of each p_i), never on values:
 *     that is what lets the mpn_sec_* / mpn_cnd_* calls be constant time;
 *   - channel i: pn words of p_i (top word non-zero, as mpn_sec_div_r needs),
 *     its field f, digit[k][v] = the tight field element of v * 2^(b k) for
 *     k < 64 / b, v < 2^b (one 64-bit word's b-bit digits, b = dbits = 2 or
 *     4), r64 = tight 2^64 mod p_i -- only for a backend without set_words
 *     (src/core/backend.h); with it (words = 1) the value enters in one call;
 *     dexp = d mod (p_i - 1) + t (p_i - 1), t chosen so that the exponent has
 *     exactly bits(p_i) + 2 bits: its length, the only thing the
 *     exponentiation's time depends on, is then a function of public sizes;
 *   - umask = the element of u, uniform in [1, p_i) from getrandom at key
 *     creation, uinv = u^-1 mod p_i (pn words), for the exit from the field;
 *   - channel i >= 1: mprev = p_0 ... p_{i-1} (mn words, fixed), inv =
 *     mprev^-1 mod p_i (pn words), for Garner's step i.
 */
#ifndef MNS_RSA_INTERNAL_H
#define MNS_RSA_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "mns.h"
#include "mns_rsa.h"

/* Declassification for the valgrind memcheck test (tests/ct/rsa_ct.c): that
 * test marks the key's secrets undefined, and memcheck then reports every
 * branch or address that depends on them. A value derived from secrets
 * that is public by design (the signature; the masked channel result that
 * get_mpz may see, docs/rsa.md) is declared defined here, right where it
 * becomes public. Outside valgrind the client request is a few no-op
 * instructions; without valgrind's header it is nothing. */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define MNS_RSA_DECLASSIFY(p, len) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (len)))
#endif
#endif
#ifndef MNS_RSA_DECLASSIFY
#define MNS_RSA_DECLASSIFY(p, len) ((void)(p), (void)(len))
#endif

/* Digits of the constant-time entry: 4-bit (16 per word, rows of 16) for
 * backends that must reduce often (small delta: fewer additions, so fewer
 * reductions), 2-bit (32 per word, rows of 4) for those that need no reduce
 * within a word (the masked row reads, 2^b words per bit... are then the
 * cost, and they halve). */
#define MNS_RSA_DIGIT_BITS_SMALL 2
#define MNS_RSA_DIGIT_BITS_LARGE 4

typedef struct mns_rsa_channel {
    int inited;         /* dexp initialised (for mns_rsa_free) */
    mns_field *f;
    size_t bits;        /* bits of p_i */
    size_t limbs;       /* field words per element */
    long delta;         /* the field's free additions */
    size_t pn;          /* words of p_i */
    mp_limb_t *p;       /* p_i, pn words */
    mpz_t dexp;         /* padded d_i (see above) */
    int words;          /* the field has a constant-time set_words: no digit tables */
    int getw;           /* ... and get_words: the exit needs no mask (umask, uinv NULL) */
    unsigned dbits;     /* b: 2 or 4 (0 with set_words) */
    unsigned ndigits;   /* 64 / b */
    unsigned radix;     /* 2^b */
    uint64_t *digit;    /* ndigits x radix elements */
    uint64_t *r64;      /* 2^64 mod p_i, one element */
    uint64_t *umask;    /* the exit mask: element of a secret random u */
    mp_limb_t *uinv;    /* u^-1 mod p_i, pn words */
    size_t mn;          /* words of mprev (0 for channel 0) */
    mp_limb_t *mprev;   /* product of the earlier primes */
    mp_limb_t *inv;     /* mprev^-1 mod p_i, pn words */
    double create_ms;   /* mns_field_new for this prime, parameters included */
    int pi;             /* index of this channel's prime in mns_rsa_new's array */
} mns_rsa_channel;

/* The guard of a tuned plan's channel (choose.c): ns per job, median of
 * block minima, of the table's channel and of the starting backend on the
 * same prime (-1: not timed, the channel is on a starting backend), and
 * whether the starting backend replaced it. */
typedef struct mns_rsa_guard {
    double table_ns, start_ns;
    int replaced;
} mns_rsa_guard;

typedef struct mns_rsa_pool mns_rsa_pool;

/* Everything one private operation writes, allocated once (with the key, or
 * per call when another call holds the key's slot): no allocation on the
 * signing path. Lengths depend on public sizes only (layout in slot.c).
 *   in: the input, nn words;  s[i]: channel i's result, pn_i words;
 *   chs[i]: channel i's entry/exit scratch with its elements X and Y
 *   (channel.c); pw[i]: channel i's exponentiation scratch (its table),
 *   also its lane of a pair; crt: Garner's scratch; x: the result, xn words;
 *   em: the PKCS#1 encoding, nbytes; z[i]: the channel's get_mpz target and
 *   chk: the fault check's x^e mod n, both allocated large enough that GMP
 *   does not reallocate them; ck: the check's words in the field of n
 *   (key->fn: elements X, Y, the result, the exponentiation's scratch). */
typedef struct mns_rsa_slot {
    mp_limb_t *block;
    size_t words;
    mp_limb_t *in, *s[MNS_RSA_MAX_PRIMES], *crt, *x;
    uint64_t *chs[MNS_RSA_MAX_PRIMES], *pw[MNS_RSA_MAX_PRIMES];
    unsigned char *em;
    mpz_t z[MNS_RSA_MAX_PRIMES];
    mpz_t chk;
    uint64_t *ck;
} mns_rsa_slot;

/* What a plan of a key is for (a plan: channels, pairs, the fault check,
 * the call slot; ready.c):
 *   - EXPLICIT: an explicit spec, made in mns_rsa_new as asked;
 *   - START: "auto"'s starting plan, on backends that need no parameter
 *     generation, so that the key signs at once;
 *   - TUNED: "auto"'s plan made in the background (choose.c), which calls
 *     use from the moment it is published. */
typedef enum { MNS_RSA_PLAN_EXPLICIT, MNS_RSA_PLAN_START, MNS_RSA_PLAN_TUNED } mns_rsa_plan_kind;

/* A key's background tuning: none (explicit spec, nothing to win, no
 * thread to be had), armed (the tuner sleeps until the first call), started
 * (woken: working, or done). */
typedef enum { MNS_RSA_TUNE_NONE, MNS_RSA_TUNE_ARMED, MNS_RSA_TUNE_STARTED } mns_rsa_tune_state;

struct mns_rsa {
    int k;
    mns_rsa_plan_kind kind;
    /* the plan calls run on: this key's own until the tuned plan is
     * published (release store; calls load it with acquire, mns_rsa_now).
     * The starting plan stays allocated until mns_rsa_free, so a call that
     * began on it finishes on it */
    struct mns_rsa *cur;
    struct mns_rsa *tuned; /* owned; NULL until published */
    /* the background tuning (ready.c): cancel is set by mns_rsa_free (the
     * generator and the timing give up); td, tp: copies of d and the primes
     * for the tuner, wiped when it ends */
    int cancel;
    int tune_state;     /* mns_rsa_tune_state (atomic; changed under tune_lock) */
    int tuning;         /* a tuner thread to join */
    int called;         /* a call has returned (atomic): the armed tuner's cue */
    pthread_t tuner;
    pthread_mutex_t tune_lock, join_lock;
    pthread_cond_t tune_cv; /* the armed tuner sleeps on it */
    mpz_t td, tp[MNS_RSA_MAX_PRIMES];
    /* restrictions set by mns_rsa_restrict (MNS_RSA_PSS_ONLY) */
    unsigned flags;
    size_t nn;          /* words of n */
    size_t nbytes;      /* bytes of n */
    mpz_t n, e;
    mns_rsa_channel ch[MNS_RSA_MAX_PRIMES];
    size_t xn;          /* words of the CRT accumulator: sum of the pn, + 1 */
    /* pairs for interleaving: channels 2j and 2j + 1 when their fields can
     * share mns_field_powm_x2 (src/field/field_internal.h): x2[j] is
     * mns_field_x2 of the pair (0: cannot pair), pair_on[j] whether calls
     * on fewer threads than channels pair them (mns_rsa_pair_rule) */
    int x2[MNS_RSA_MAX_PRIMES / 2];
    int pair_on[MNS_RSA_MAX_PRIMES / 2];
    int npairs;         /* pairs with pair_on */
    int chosen;         /* "auto": the tuned plan's channels guarded by choose.c */
    mns_rsa_guard guard[MNS_RSA_MAX_PRIMES];
    size_t pw_words[MNS_RSA_MAX_PRIMES]; /* exponentiation scratch per channel */
    /* the fault check's field of n (rns-ifma: set_words, 17 products and
     * get_words cost about half of GMP's mpz_powm for e = 65537); NULL where
     * it cannot be had (no IFMA): GMP's mpz_powm then */
    mns_field *fn;
    size_t ck_words;
    /* the check in the channels' own fields instead (x^e = in mod each
     * p_i: 1024-bit products instead of 4096-bit ones), where every
     * channel has set_words and get_words and k >= 3 (check.c) */
    int ck_channels;
    /* every channel can check itself (set_words and get_words): the
     * channels' check is then also taken on calls with threads > 1, where
     * it shares the pool instead of running serially in the field of n */
    int ck_channels_ok;
    /* the key's call slot, taken with trylock; a concurrent call makes its own */
    pthread_mutex_t slot_lock;
    mns_rsa_slot slot;
    int slot_ready;
    /* the pool: k - 1 workers started with the key (NULL if that failed:
     * threaded calls then spawn threads of their own) */
    mns_rsa_pool *pool;
    char *describe;
};

/* How a call runs its channels (the benchmark compares them): flags. */
typedef enum {
    MNS_RSA_THREADS_POOL = 0,   /* the key's pool (default) */
    MNS_RSA_THREADS_SPAWN = 1,  /* fresh pthreads for this call */
    MNS_RSA_NO_PAIRS = 2        /* every channel alone, even on fewer threads */
} mns_rsa_thread_mode;

/* Test and benchmark entry: mns_rsa_private with a thread mode and an
 * injected fault. fault_channel < 0: no fault (what mns_rsa_private runs);
 * otherwise bit fault_bit of that channel's result is flipped after the
 * exponentiation, before the CRT, as a glitch would. Not exported from the
 * shared library (hidden visibility) and declared in no public header, so
 * nothing outside the library's own tests can reach it. */
mns_status mns_rsa_private_ex_(const mns_rsa *key, mpz_t out, const mpz_t in, int threads,
                               mns_rsa_thread_mode mode, int fault_channel, unsigned fault_bit);
/* The same for mns_rsa_private_n: the fault in operation fault_op's
 * result of channel fault_channel (< 0: none). */
mns_status mns_rsa_private_n_ex_(const mns_rsa *key, mpz_t *out, const mpz_t *in, size_t count,
                                 int threads, size_t fault_op, int fault_channel,
                                 unsigned fault_bit);

/* The plan calls run on now (see cur above). */
static inline const mns_rsa *mns_rsa_now(const mns_rsa *key)
{
    return __atomic_load_n(&key->cur, __ATOMIC_ACQUIRE);
}

/* --- key.c: plans --- */

/* Makes *key (zeroed) a plan of kind `kind` for a validated key (spec is
 * the explicit spec, unused otherwise). On failure *key may hold parts:
 * mns_rsa_plan_free it. */
mns_status mns_rsa_plan_make(mns_rsa *key, const mpz_t n, const mpz_t e, const mpz_t d,
                             const mpz_t *primes, int k, const char *spec, mns_rsa_plan_kind kind);
/* Frees one plan (not its tuned successor). */
void mns_rsa_plan_free(mns_rsa *key);
/* Test entry: mns_rsa_new without starting the background tuning, so a
 * test sees the starting plan for as long as it wants; then
 * mns_rsa_tune_start_ starts it (nothing for a plan that is not START). */
mns_status mns_rsa_new_held_(mns_rsa **key, const mpz_t n, const mpz_t e, const mpz_t d,
                             const mpz_t *primes, int k, const char *spec);

/* --- prime.c: the validation's probable-prime test --- */

/* 1 if p passes mns_probable_prime's test (core/prime.h: trial division,
 * the strong test to base 2), computed in a mont-ifma field (rns-ifma
 * above 4158 bits) where the CPU has IFMA; 0 otherwise. */
int mns_rsa_probable_prime(const mpz_t p);

/* --- ready.c: the starting plan and the background tuning --- */

/* The starting backend: one that needs no parameter generation
 * (mont-ifma with IFMA, else mont). */
const char *mns_rsa_start_backend(void);
/* *c <- a channel for primes[pi] on the starting backend; with IFMA, where
 * mont-ifma refuses the prime (above 4158 bits), rns-ifma, then mont. */
mns_status mns_rsa_start_channel(mns_rsa_channel *c, const mpz_t d, const mpz_t *primes, int pi);
/* The starting plan's channels: every prime on the starting backend. */
mns_status mns_rsa_start_channels(mns_rsa *key, const mpz_t d, const mpz_t *primes);
/* Arms the tuning of a START plan that can gain from it: d and primes
 * copied, the tuner thread created asleep; it starts once the key's first
 * call has returned (mns_rsa_tune_kick_), or at mns_rsa_wait. */
void mns_rsa_tune_arm_(mns_rsa *key, const mpz_t d, const mpz_t *primes);
/* Test entry: arms and wakes at once. */
void mns_rsa_tune_start_(mns_rsa *key, const mpz_t d, const mpz_t *primes);
/* At the end of every call on the key: marks that a call has returned (an
 * atomic store, no lock and no system call: the call never waits for the
 * tuner; the armed tuner looks at the mark on its own timer). */
void mns_rsa_tune_kick_(const mns_rsa *key);
/* Cancels the tuning and joins its thread (mns_rsa_free). */
void mns_rsa_tune_stop_(mns_rsa *key);

/* --- channel_make.c: channels --- */

/* A fresh array of `words` words holding a (calloc; NULL if out of memory). */
mp_limb_t *mns_rsa_limbs_of(const mpz_t a, size_t words);

/* *c <- a channel for primes[pi] on `spec` (field, padded exponent, entry
 * tables, exit mask); Garner's constants come later, once the channels'
 * order is final. On failure *c may hold parts: mns_rsa_channel_clear it. */
mns_status mns_rsa_channel_make(mns_rsa_channel *c, const mpz_t d, const mpz_t *primes, int pi,
                                const char *spec);
/* Makes ch[i] for prime number pi[i] with spec[i], i < m, on up to
 * min(m, mns_cpu_count()) threads at once (the PMNS generator takes 65-220 ms
 * per 1100-3400-bit prime on the Zen 3, and the primes do not depend on each
 * other); each ch[i].create_ms is its own time; the caller's cancel flag
 * (core/deadline.h) reaches every worker. st[i] is each status; a failed ch[i] may hold parts
 * (mns_rsa_channel_clear it). Returns the first failure's status, with its
 * message raised again in the calling thread (mns_last_error is per
 * thread), else MNS_OK. */
mns_status mns_rsa_channels_make(mns_rsa_channel *ch, mns_status *st, int m, const int *pi,
                                 const char *const *spec, const mpz_t d, const mpz_t *primes);
/* Frees and wipes what mns_rsa_channel_make made; zeroes *c. */
void mns_rsa_channel_clear(mns_rsa_channel *c);

/* --- choose.c: the tuned plan's guard, and pairs --- */

/* Channels i - 1 and i made to share one shape where their backend chose
 * different ones (PMNS families), so that they can pair. */
void mns_rsa_same_shape(mns_rsa *key, int i, const mpz_t d, const mpz_t *primes);
/* The tuned plan: each channel (on the table's backend) guarded against
 * the starting backend, then channels reordered so that pairable ones are
 * neighbours and made to one shape (sets guard and chosen; x2 and
 * pw_words are plan_pairs'). */
void mns_rsa_choose(mns_rsa *key, const mpz_t d, const mpz_t *primes);
/* 1 if calls on fewer threads than channels run pair j through the x2
 * kernels (a rule on the backend and the size, the same in every process). */
int mns_rsa_pair_rule(const mns_rsa *key, int j);

/* --- channel.c: entry and exit --- */

/* Scratch words (uint64_t) of channel c's entry and exit (its elements X
 * and Y included) for a key whose n has nn words. */
size_t mns_rsa_channel_scratch(const mns_rsa_channel *c, size_t nn);
/* Where X (the entered input) and Y (the exponentiation's result, which
 * mns_rsa_channel_out reads) are in that scratch. */
uint64_t *mns_rsa_channel_x(const mns_rsa_channel *c, size_t nn, uint64_t *scratch);
uint64_t *mns_rsa_channel_y(const mns_rsa_channel *c, size_t nn, uint64_t *scratch);

/* in mod p_i, pn words, in the scratch (where mns_rsa_channel_check finds
 * it); in: nn words (public). Constant time in p_i and the value. */
const mp_limb_t *mns_rsa_channel_reduce(const mns_rsa_channel *c, const mp_limb_t *in, size_t nn,
                                        uint64_t *scratch);
/* X <- the element of in mod p_i (mns_rsa_channel_reduce, then enter). */
void mns_rsa_channel_in(const mns_rsa_channel *c, const mp_limb_t *in, size_t nn,
                        uint64_t *scratch);
/* s <- the canonical value of Y, pn words, through the exit mask (get_mpz
 * sees only s_i u; z receives it). Constant time in p_i and s_i. If the
 * field failed inside, s is garbage of the right length and the fault
 * check catches it. */
void mns_rsa_channel_out(const mns_rsa_channel *c, mp_limb_t *s, mpz_t z, size_t nn,
                         uint64_t *scratch);

/* Y <- X^e in f, e public (both fault checks; channel.c) */
void mns_rsa_pow_public(const mns_field *f, uint64_t *Y, const uint64_t *X, const mpz_t e);
/* 0 if x^e = in (mod p_i): x, nn words, < n (public); in mod p_i is what
 * this call's mns_rsa_channel_in left in the scratch. Constant time in p_i
 * and x mod p_i. Needs set_words and get_words (words, getw). */
mp_limb_t mns_rsa_channel_check(const mns_rsa_channel *c, const mp_limb_t *x, const mpz_t e,
                                size_t nn, uint64_t *scratch);
/* The two halves of mns_rsa_channel_check around its power, for a batch
 * whose powers run in the lanes: x mod p_i (pn words, in the scratch), and
 * the difference (0 when equal, constant time) of the pn-word got from
 * this call's in mod p_i. */
const mp_limb_t *mns_rsa_channel_check_in(const mns_rsa_channel *c, const mp_limb_t *x, size_t nn,
                                          uint64_t *scratch);
mp_limb_t mns_rsa_channel_check_diff(const mns_rsa_channel *c, const mp_limb_t *got, size_t nn,
                                     const uint64_t *scratch);

/* X <- the tight element of the pn-word value r < p_i; w, e: scratch
 * elements. Constant time. */
void mns_rsa_channel_enter(const mns_rsa_channel *c, uint64_t *X, const mp_limb_t *r, uint64_t *w,
                           uint64_t *e);

/* With set_words: sets words = 1 and nothing else. Otherwise fills digit
 * and r64 (variable time: runs once, at key creation, on
 * constants derived from p alone). */
mns_status mns_rsa_channel_tables(mns_rsa_channel *c);

/* --- crt.c: Garner --- */

/* Scratch words for mns_rsa_crt. */
size_t mns_rsa_crt_scratch(const mns_rsa *key);
/* x <- the unique value < n with x = s[i] mod p_i, key->xn words. s[i] has
 * key->ch[i].pn words, each < p_i (or garbage of that length after a fault:
 * still no out-of-bounds access). Constant time. */
void mns_rsa_crt(const mns_rsa *key, mp_limb_t *x, mp_limb_t *const *s, mp_limb_t *scratch);

/* --- pool.c: threads --- */

typedef void (*mns_rsa_job)(void *arg, int index);

/* Runs job(arg, i) for i in [0, jobs) on `threads` threads (the caller is
 * one of them). MNS_ENOMEM/MNS_ENOTSUP if threads could not be had (nothing
 * was run then). */
mns_status mns_rsa_pool_new(mns_rsa_pool **pool, int workers);
void mns_rsa_pool_free(mns_rsa_pool *pool);
/* Returns MNS_EINVAL (nothing run) if the pool is busy with another call. */
mns_status mns_rsa_pool_run(mns_rsa_pool *pool, int threads, mns_rsa_job job, void *arg,
                            int jobs);
mns_status mns_rsa_spawn_run(int threads, mns_rsa_job job, void *arg, int jobs);

/* --- crt.c: Garner's constants --- */

/* mprev and inv of every channel i >= 1, in the channels' final order. */
mns_status mns_rsa_garner_constants(mns_rsa *key, const mpz_t *primes);

/* --- plan.c: pairs --- */

/* x2 of each pair and every channel's exponentiation scratch (pw_words). */
void mns_rsa_plan_pairs(mns_rsa *key);

/* --- check.c: the fault check --- */

/* Where the check runs: the channels' fields where they can and it pays,
 * else a field of n (rns-ifma; only with field_of_n, since making it costs
 * an RNS set-up), else GMP. */
void mns_rsa_check_field(mns_rsa *key, int field_of_n);
/* 1 if sl->x is below n and sl->x^e = sl->in (mod n). */
int mns_rsa_check_ok(const mns_rsa *key, mns_rsa_slot *sl, int threads);

/* --- slot.c: the call slot --- */

mns_status mns_rsa_slot_init(const mns_rsa *key, mns_rsa_slot *sl);
void mns_rsa_slot_clear(const mns_rsa *key, mns_rsa_slot *sl);

/* --- private.c: the private operation on words, for pkcs1.c --- */

/* Takes the key's call slot (or, if another call holds it, allocates one:
 * *own = 1); NULL if that allocation failed. */
mns_rsa_slot *mns_rsa_slot_take(const mns_rsa *key, int *own);
/* Wipes the slot's secrets and gives it back (or frees it). */
void mns_rsa_slot_give(const mns_rsa *key, mns_rsa_slot *sl, int own);
/* sl->x <- sl->in ^ d mod n (sl->in: nn words, value < n), checked with e
 * before anything is returned: MNS_ERANGE if the check failed. */
mns_status mns_rsa_private_slot(const mns_rsa *key, mns_rsa_slot *sl, int threads,
                                mns_rsa_thread_mode mode, int fault_channel, unsigned fault_bit);
/* The stage of mns_rsa_private_slot after the channels have left their
 * results in sl->s: the CRT into sl->x and the fault check. */
mns_status mns_rsa_finish_slot(const mns_rsa *key, mns_rsa_slot *sl, int threads);
/* Its first half: x <- the CRT of the channels' results, declassified (it
 * is the signature; the fault check decides whether it leaves). */
void mns_rsa_crt_slot(const mns_rsa *key, mns_rsa_slot *sl);
/* 1 if x (xn words) is below n: the fault check's range half (public). */
int mns_rsa_check_range(const mns_rsa *key, const mns_rsa_slot *sl);
/* The fault checks of a group of at most MNS_RSA_CHECK_GROUP operations of
 * a batch with their powers in lanes (check.c), where
 * mns_rsa_check_lanes_ok(key) (every channel has a constant-time entry and
 * exit and runs powm_n in lanes): ok[j] <- 1 if x_j < n and x_j^e = in_j
 * mod every p_i. work: mns_rsa_check_lanes_words(key, n) words. */
#define MNS_RSA_CHECK_GROUP 8
int mns_rsa_check_lanes_ok(const mns_rsa *key);
size_t mns_rsa_check_lanes_words(const mns_rsa *key, size_t group);
void mns_rsa_check_lanes(const mns_rsa *key, mns_rsa_slot *const *sl, size_t n, uint64_t *work,
                         int *ok);

/* --- pkcs1.c: the encoding, for batch.c --- */

typedef struct mns_rsa_digest_info mns_rsa_digest_info;
/* The hash's DigestInfo for key, after the checks of mns_rsa_sign_pkcs1v15
 * (MNS_EINVAL with a message naming `who`). */
mns_status mns_rsa_pkcs1_info(const mns_rsa *key, const char *who, const char *hash,
                              size_t digest_len, const mns_rsa_digest_info **di);
/* in (nn words, zero on entry) <- OS2IP(EM) of digest; em: nbytes of room */
void mns_rsa_pkcs1_in(const mns_rsa *key, const mns_rsa_digest_info *di,
                      const unsigned char *digest, unsigned char *em, mp_limb_t *in);
/* sig <- I2OSP(x), the length of n */
void mns_rsa_pkcs1_out(const mns_rsa *key, unsigned char *sig, const mp_limb_t *x);

#endif
