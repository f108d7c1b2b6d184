/* Backend specs: "name" or "name:key=value,key=value". */
#ifndef MNS_CORE_OPTS_H
#define MNS_CORE_OPTS_H

#include "mns.h"

#define MNS_OPTS_MAX 16
#define MNS_OPT_KEY_MAX 32
/* All keys and values of one spec share this buffer, so a value may be long
 * (params=/an/absolute/path/to/a/set.txt) without every slot paying for it. */
#define MNS_OPTS_BUF 4096
#define MNS_BACKEND_NAME_MAX 32

typedef struct mns_opts {
    int count;
    struct {
        unsigned key, val; /* offsets into buf of NUL-terminated strings */
    } kv[MNS_OPTS_MAX];
    unsigned used;
    char buf[MNS_OPTS_BUF];
} mns_opts;

/* Splits spec into a backend name and options. Rejects empty names, empty or
 * duplicate keys, missing '=', over-long fields and too many options. */
mns_status mns_opts_parse(const char *spec, char name[MNS_BACKEND_NAME_MAX], mns_opts *opts);

/* MNS_EINVAL (with a message naming the backend) if opts holds a key that is
 * not in the NULL-terminated list `allowed`. */
mns_status mns_opts_check(const mns_opts *opts, const char *backend, const char *const *allowed);

/* The value of key, or NULL. */
const char *mns_opts_get(const mns_opts *opts, const char *key);

/* *out <- the integer value of key if present and in [lo, hi] (MNS_OK);
 * *out untouched if absent (MNS_OK); MNS_EINVAL if malformed or out of range. */
mns_status mns_opts_get_long(const mns_opts *opts, const char *backend, const char *key,
                             long lo, long hi, long *out);

#endif
