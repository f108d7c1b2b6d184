#include "core/opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

static int copy_field(char *dst, size_t cap, const char *src, size_t len)
{
    if (len == 0 || len >= cap)
        return 0;
    memcpy(dst, src, len);
    dst[len] = '\0';
    return 1;
}

/* Appends src[0..len) to opts->buf; *off <- its offset. 0 if empty or full
 * (keys are further limited to MNS_OPT_KEY_MAX - 1 characters). */
static int store_field(mns_opts *opts, unsigned *off, const char *src, size_t len, size_t max)
{
    if (len >= max || len >= MNS_OPTS_BUF - opts->used)
        return 0;
    if (!copy_field(opts->buf + opts->used, MNS_OPTS_BUF - opts->used, src, len))
        return 0;
    *off = opts->used;
    opts->used += (unsigned)len + 1;
    return 1;
}

static const char *key_of(const mns_opts *opts, int i) { return opts->buf + opts->kv[i].key; }

mns_status mns_opts_parse(const char *spec, char name[MNS_BACKEND_NAME_MAX], mns_opts *opts)
{
    opts->count = 0;
    opts->used = 0;
    if (spec == NULL)
        spec = "auto";
    const char *colon = strchr(spec, ':');
    size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
    if (!copy_field(name, MNS_BACKEND_NAME_MAX, spec, nlen))
        return mns_error(MNS_EINVAL, "spec \"%s\": empty or over-long backend name", spec);
    if (!colon)
        return MNS_OK;

    const char *s = colon + 1;
    if (*s == '\0')
        return mns_error(MNS_EINVAL, "spec \"%s\": ':' with no options", spec);
    while (*s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        const char *eq = memchr(s, '=', len);
        if (!eq)
            return mns_error(MNS_EINVAL, "spec \"%s\": option \"%.*s\" has no '='", spec,
                             (int)len, s);
        if (opts->count == MNS_OPTS_MAX)
            return mns_error(MNS_EINVAL, "spec \"%s\": more than %d options", spec, MNS_OPTS_MAX);
        int i = opts->count;
        if (!store_field(opts, &opts->kv[i].key, s, (size_t)(eq - s), MNS_OPT_KEY_MAX) ||
            !store_field(opts, &opts->kv[i].val, eq + 1, len - (size_t)(eq - s) - 1, MNS_OPTS_BUF))
            return mns_error(MNS_EINVAL, "spec \"%s\": empty or over-long key or value in \"%.*s\"",
                             spec, (int)len, s);
        for (int j = 0; j < i; j++)
            if (strcmp(key_of(opts, j), key_of(opts, i)) == 0)
                return mns_error(MNS_EINVAL, "spec \"%s\": option \"%s\" given twice", spec,
                                 key_of(opts, i));
        opts->count++;
        if (!end)
            break;
        s = end + 1;
        if (*s == '\0')
            return mns_error(MNS_EINVAL, "spec \"%s\": trailing ','", spec);
    }
    return MNS_OK;
}

mns_status mns_opts_check(const mns_opts *opts, const char *backend, const char *const *allowed)
{
    for (int i = 0; i < opts->count; i++) {
        int ok = 0;
        for (const char *const *a = allowed; a && *a; a++)
            if (strcmp(*a, key_of(opts, i)) == 0)
                ok = 1;
        if (!ok)
            return mns_error(MNS_EINVAL, "backend \"%s\" takes no option \"%s\"", backend,
                             key_of(opts, i));
    }
    return MNS_OK;
}

const char *mns_opts_get(const mns_opts *opts, const char *key)
{
    for (int i = 0; i < opts->count; i++)
        if (strcmp(key_of(opts, i), key) == 0)
            return opts->buf + opts->kv[i].val;
    return NULL;
}

mns_status mns_opts_get_long(const mns_opts *opts, const char *backend, const char *key,
                             long lo, long hi, long *out)
{
    const char *v = mns_opts_get(opts, key);
    if (!v)
        return MNS_OK;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end != '\0' || end == v)
        return mns_error(MNS_EINVAL, "backend \"%s\": option %s=%s is not an integer", backend,
                         key, v);
    if (x < lo || x > hi)
        return mns_error(MNS_EINVAL, "backend \"%s\": option %s=%ld outside [%ld, %ld]", backend,
                         key, x, lo, hi);
    *out = x;
    return MNS_OK;
}
