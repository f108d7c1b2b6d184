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

mns_status mns_opts_parse(const char *spec, char name[MNS_BACKEND_NAME_MAX], mns_opts *opts)
{
    opts->count = 0;
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
        if (!copy_field(opts->kv[i].key, MNS_OPT_KEY_MAX, s, (size_t)(eq - s)) ||
            !copy_field(opts->kv[i].val, MNS_OPT_VAL_MAX, eq + 1, len - (size_t)(eq - s) - 1))
            return mns_error(MNS_EINVAL, "spec \"%s\": empty or over-long key or value in \"%.*s\"",
                             spec, (int)len, s);
        for (int j = 0; j < i; j++)
            if (strcmp(opts->kv[j].key, opts->kv[i].key) == 0)
                return mns_error(MNS_EINVAL, "spec \"%s\": option \"%s\" given twice", spec,
                                 opts->kv[i].key);
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
            if (strcmp(*a, opts->kv[i].key) == 0)
                ok = 1;
        if (!ok)
            return mns_error(MNS_EINVAL, "backend \"%s\" takes no option \"%s\"", backend,
                             opts->kv[i].key);
    }
    return MNS_OK;
}

const char *mns_opts_get(const mns_opts *opts, const char *key)
{
    for (int i = 0; i < opts->count; i++)
        if (strcmp(opts->kv[i].key, key) == 0)
            return opts->kv[i].val;
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
