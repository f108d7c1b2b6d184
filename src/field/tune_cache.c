/* Where a calibrated tuning table lives: one file per CPU key (vendor,
 * family, model and the kernel features in use) under the user's cache
 * directory, $XDG_CACHE_HOME/mns/ or else $HOME/.cache/mns/, as the XDG base
 * directory rules place per-user caches. `mns-tune --quick --cache` writes it
 * and the library reads it by itself (src/field/tune.c), so a CPU model no
 * shipped table was measured on gets its own measured ranking. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/cpu.h"
#include "field/tune.h"
#include "mns_tune.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char key[MNS_TUNE_CPU_KEY_MAX];
static char path[4096];

/* Computed once per process: the CPU does not change under it, MNS_CPU is
 * read once (core/cpu.c), and so are the directories. */
static void compute(void)
{
    mns_cpu_key(key, sizeof key);
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    /* the XDG rules: a relative $XDG_CACHE_HOME is invalid and ignored */
    int n = -1;
    if (xdg && xdg[0] == '/')
        n = snprintf(path, sizeof path, "%s/mns/tune-%s.txt", xdg, key);
    else if (home && home[0] == '/')
        n = snprintf(path, sizeof path, "%s/.cache/mns/tune-%s.txt", home, key);
    if (n < 0 || (size_t)n >= sizeof path)
        path[0] = '\0';
}

const char *mns_tune_cpu_key(void)
{
    pthread_once(&once, compute);
    return key;
}

const char *mns_tune_cache_path(void)
{
    pthread_once(&once, compute);
    return path[0] ? path : NULL;
}
