/* No allocation on the signing path (issue 8, item 3): the scratch of a
 * private operation (channel scratch, the exponentiation's tables, the
 * fields' powm scratch, the CRT, the PKCS#1 encoding, the get_mpz and
 * fault-check targets) is allocated with the key, and the pool's threads are
 * started with it. This program counts every allocation the process makes
 * while mns_rsa_sign_pkcs1v15 and mns_rsa_private run, on 1..k threads, for
 * every backend that serves the key, and requires zero.
 *
 * How allocations are counted, without __malloc_hook (gone from glibc):
 *   - normal builds: this executable defines malloc, calloc, realloc, free,
 *     posix_memalign, aligned_alloc and memalign, forwarding to glibc's
 *     __libc_* entry points. The executable's definitions take precedence
 *     over libc's for every caller in the process (the library, GMP, libc
 *     itself), so nothing escapes the count.
 *   - AddressSanitizer builds: ASan owns malloc, so its hook
 *     __sanitizer_install_malloc_and_free_hooks counts instead.
 * The counter is atomic (the pool's threads allocate into it too).
 *
 * A control makes sure the counter sees the library: a call on a key whose
 * slot is held by another "call" must allocate (the documented fallback),
 * and mpz_init2 of a fresh integer must be counted.
 *
 * The output integer of mns_rsa_private is the caller's; it is made large
 * enough beforehand (mpz_init2 with the bits of n), as the header says. */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mns.h"
#include "mns_rsa.h"
#include "rsa/rsa_internal.h"
#include "rsa_keygen.h"
#include "testutil.h"

static atomic_long allocs;
static atomic_int counting;

static void count(void)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
}

#if defined(__SANITIZE_ADDRESS__)
#define MT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MT_ASAN 1
#endif
#endif

#ifdef MT_ASAN
/* sanitizer/allocator_interface.h is not always installed; the hook is in
 * every ASan runtime since gcc 5 */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
static void asan_malloc_hook(const volatile void *p, size_t size)
{
    (void)p;
    (void)size;
    count();
}
static void asan_free_hook(const volatile void *p) { (void)p; }
static void install_counter(void)
{
    __sanitizer_install_malloc_and_free_hooks(asan_malloc_hook, asan_free_hook);
}
#else
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

void *malloc(size_t n)
{
    count();
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b)
{
    count();
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n)
{
    count();
    return __libc_realloc(p, n);
}
void free(void *p) { __libc_free(p); }
void *memalign(size_t al, size_t n)
{
    count();
    return __libc_memalign(al, n);
}
void *aligned_alloc(size_t al, size_t n) { return memalign(al, n); }
int posix_memalign(void **p, size_t al, size_t n)
{
    *p = memalign(al, n);
    return *p ? 0 : 12; /* ENOMEM */
}
static void install_counter(void) {}
#endif

static long counted(void) { return atomic_load(&allocs); }
static void start(void)
{
    atomic_store(&allocs, 0);
    atomic_store(&counting, 1);
}
static void stop(void) { atomic_store(&counting, 0); }

/* Signs and decrypts on every thread count with counting on; returns the
 * allocations seen (and checks the results against GMP). */
static int auto_mp, auto_sp, auto_m52; /* an auto key on pmns-mp-ifma / pmns-ifma / mont-ifma made no allocation */

static long run_key(const rsa_test_key *t, const char *spec)
{
    mns_rsa *key;
    mns_status st = mns_rsa_new(&key, t->n, t->e, t->d, (const mpz_t *)t->p, t->k, spec);
    if (st == MNS_ENOTSUP) {
        printf("  %zu x %d %s: not served here, skipped\n", t->bits, t->k, spec);
        return 0;
    }
    MT_CHECK(st == MNS_OK, "%s: mns_rsa_new: %s", spec, mns_last_error());
    if (st != MNS_OK)
        return 0;
    /* exit=get_words on every channel? (mns_rsa_describe) */
    const int words = strstr(mns_rsa_describe(key), "exit=mask") == NULL;
    const size_t len = mns_rsa_bytes(key);
    unsigned char *sig = calloc(len, 1), digest[32];
    mpz_t in, out, want;
    mpz_init2(out, (mp_bitcnt_t)t->bits);
    mpz_inits(in, want, NULL);
    mpz_urandomm(in, mt_rand, t->n);
    mpz_powm(want, in, t->d, t->n);
    for (size_t i = 0; i < sizeof digest; i++)
        digest[i] = (unsigned char)mt_below(256);

    /* the pool's threads are started by mns_rsa_new but run their start-up
     * when first scheduled, and ASan's runtime allocates there: one call on
     * every thread first, so that no thread start falls in the count */
    MT_CHECK(mns_rsa_private(key, out, in, t->k) == MNS_OK, "warm-up");
    /* an "auto" key's tuning allocates in its own thread: counted from the
     * moment the tuned plan serves (the starting plan has the same slot
     * discipline; test_rsa_ready checks it) */
    mns_rsa_wait(key);
    MT_CHECK(mns_rsa_private(key, out, in, t->k) == MNS_OK, "warm-up after the tuning");
    long total = 0;
    for (int threads = 1; threads <= t->k; threads++) {
        start();
        st = mns_rsa_sign_pkcs1v15(key, sig, "sha256", digest, sizeof digest, threads);
        mns_status st2 = mns_rsa_private(key, out, in, threads);
        stop();
        long a = counted();
        total += a;
        MT_CHECK(st == MNS_OK && st2 == MNS_OK, "%s %zu x %d, %d threads: %s", spec, t->bits, t->k,
                 threads, mns_last_error());
        MT_CHECK(mpz_cmp(out, want) == 0, "%s %zu x %d, %d threads: wrong result", spec, t->bits,
                 t->k, threads);
        /* the guarantee holds where every channel leaves its field by the
         * backend's get_words (every backend but mpart); one without it
         * leaves through get_mpz, whose mpz temporaries allocate: counted
         * and printed, not failed (docs/rsa.md) */
        if (words)
            MT_CHECK(a == 0, "%s %zu x %d, %d threads: %ld allocations on the signing path", spec,
                     t->bits, t->k, threads, a);
    }
    /* control: with the key's slot held, a call allocates its own */
    int own;
    mns_rsa_slot *held = mns_rsa_slot_take(mns_rsa_now(key), &own);
    start();
    st = mns_rsa_private(key, out, in, 1);
    stop();
    mns_rsa_slot_give(mns_rsa_now(key), held, own);
    MT_CHECK(st == MNS_OK && mpz_cmp(out, want) == 0, "%s: call beside a held slot", spec);
    MT_CHECK(counted() > 0, "%s: the counter did not see the fallback slot's allocation", spec);
    /* which backends an "auto" key ran allocation-free (printed by main) */
    if (!strcmp(spec, "auto") && words && total == 0) {
        if (strstr(mns_rsa_describe(key), " pmns-mp-ifma kernel="))
            auto_mp = 1;
        if (strstr(mns_rsa_describe(key), " pmns-ifma kernel="))
            auto_sp = 1;
        if (strstr(mns_rsa_describe(key), " mont-ifma kernel="))
            auto_m52 = 1;
    }
    const char *be = strstr(mns_rsa_describe(key), "entry=");
    printf("  %zu x %d %s: %ld allocations on 1..%d threads (%s, %.*s)\n", t->bits, t->k, spec,
           total, t->k, words ? "exit=get_words: must be 0" : "exit=mask: get_mpz allocates",
           be ? (int)strcspn(be, "\n") : 0, be ? be : "");
    free(sig);
    mpz_clears(in, out, want, NULL);
    mns_rsa_free(key);
    return total;
}

int main(void)
{
    mt_init("test_rsa_alloc");
    install_counter();
    /* control: the counter sees an allocation made by GMP */
    start();
    mpz_t z;
    mpz_init2(z, 4096);
    stop();
    mpz_clear(z);
    MT_CHECK(counted() > 0, "the counter missed GMP's allocation");

    static const struct {
        size_t bits;
        int k;
    } shapes[] = {{1024, 2}, {2048, 2}, {3072, 2}, {1536, 3}, {4096, 4}, {4096, 8}};
    static const char *const specs[] = {"auto", "mont",      "rns",          "rns-ifma",
                                        "pmns-ifma", "pmns", "pmns-mp-ifma", "mont-ifma"};
    const char *env = getenv("MNS_RSA_SPEC");
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        rsa_test_key t;
        rsa_test_key_make(&t, shapes[i].bits, shapes[i].k, mt_rand);
        for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
            /* single-precision PMNS parameters take seconds beyond 512-bit
             * primes: those two at 512 bits only */
            if ((!strcmp(specs[s], "pmns") || !strcmp(specs[s], "pmns-ifma")) &&
                shapes[i].bits / (size_t)shapes[i].k > 512)
                continue;
            run_key(&t, env ? env : specs[s]);
            if (env)
                break;
        }
        rsa_test_key_clear(&t);
    }
    /* Which backends the "auto" keys landed on, for the log. Not a check:
     * "auto" times the table's backend against mont-ifma for every channel
     * when the key is made (src/rsa/choose.c), so the family it picks
     * follows the machine's speed of the moment (session 21: 1024-bit
     * channels moved to mont-ifma when its kernel got faster). Every
     * backend is run above by its own spec, with the same zero-allocation
     * check, and every auto key is checked whatever it picked. */
    printf("  auto keys without allocation: pmns-mp-ifma %s, pmns-ifma %s, mont-ifma %s\n",
           auto_mp ? "yes" : "no", auto_sp ? "yes" : "no", auto_m52 ? "yes" : "no");
    return mt_finish();
}
