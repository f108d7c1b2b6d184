#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[512];

mns_status mns_error(mns_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return s;
}

void mns_error_clear(void) { last_error[0] = '\0'; }

const char *mns_last_error(void) { return last_error; }

const char *mns_strerror(mns_status s)
{
    switch (s) {
    case MNS_OK: return "success";
    case MNS_EINVAL: return "invalid argument";
    case MNS_ENOMEM: return "out of memory";
    case MNS_ENOTSUP: return "not supported for this modulus or CPU";
    case MNS_EPARSE: return "malformed parameter data";
    case MNS_ERANGE: return "value out of range";
    }
    return "unknown status";
}

const char *mns_version(void) { return MNS_VERSION_STRING; }
