/* Tuning tables: what "auto" picks (docs/auto.md).
 *
 * mns_field_new(&f, p, "auto") (or "auto:op=mul", "auto:op=exp") looks p up
 * in the current tuning table: rows keyed by operation mix (op=mul: modmul-
 * heavy work, the default; op=exp: exponentiation), modulus form (any odd p,
 * or pseudo-Mersenne p = 2^bits - eps with eps below 2^(bits/2)) and bit
 * range, each naming a full backend spec and the margin it won by when the
 * table was measured. The rows that match are tried in table order (pseudo-
 * Mersenne rows first for such p); a backend that refuses p hands over to the
 * next, and "mont" closes every list. mns_field_describe() says which table,
 * which line and which margin.
 *
 * The current table is, by default, the one shipped for this CPU class
 * (tune/ifma-zen5.txt on AMD Zen 5 and later AMD families with AVX-512 IFMA,
 * tune/ifma.txt on other x86-64 CPUs with it, tune/adx.txt on one with
 * mulx/adx only, tune/generic.txt otherwise or under MNS_CPU=generic),
 * compiled into the library. MNS_TUNE_FILE=path in the
 * environment replaces it at first use; the calls below replace it at any
 * time. The table is process-wide; the calls are thread-safe, and fields
 * already created keep the backend they were given.
 *
 * Format (text, versioned; `mns-tune` writes it):
 *
 *   # regenerate: <command that wrote this table>      (first line, required)
 *   mns-tune-table 1                                   (version, required)
 *   name <word>                                        (required, once)
 *   note <free text>                                   (any number)
 *   row <mul|exp> <any|pm> <lo>-<hi> <spec> <margin>   (any number)
 *
 * '#' lines and blank lines are comments. <spec> is a backend spec as
 * mns_field_new takes it (not "auto"); <margin> is a positive decimal: the
 * ticks of the runner-up divided by the ticks of this spec, the worst over
 * the sizes measured in the range. Anything else is refused with MNS_EPARSE
 * and the line number in mns_last_error(). */
#ifndef MNS_TUNE_H
#define MNS_TUNE_H

#include <stddef.h>
#include "mns.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses text (a whole table) and makes it current; `origin` names it in
 * descriptions (e.g. a file name). On failure the current table is kept. */
MNS_API mns_status mns_tune_set_text(const char *text, const char *origin);
/* Reads and sets the table in file `path`. */
MNS_API mns_status mns_tune_set_file(const char *path);
/* Back to the shipped table of this CPU class (ignores MNS_TUNE_FILE). */
MNS_API void mns_tune_set_default(void);
/* MNS_OK if text is a well-formed table (nothing changes). */
MNS_API mns_status mns_tune_check_text(const char *text);
/* Which table "auto" uses now, e.g. "shipped ifma (x86-64 with AVX-512
 * IFMA)" or "file /path/t.txt"; MNS_TUNE_FILE is read here if not yet. */
MNS_API const char *mns_tune_current(void);
/* The shipped table text for a CPU class ("ifma-zen5", "ifma", "adx" or
 * "generic"), NULL for other names. */
MNS_API const char *mns_tune_shipped(const char *cpu_class);
/* This process's CPU class, whose table is shipped (MNS_CPU counts: "generic"
 * under MNS_CPU=generic); what `mns-tune` names the table it measures. */
MNS_API const char *mns_tune_cpu_class(void);
/* This CPU's key, e.g. "AuthenticAMD-f25-m1-x183": vendor, family, model and
 * the kernel features in use in hex (MNS_CPU counts). */
MNS_API const char *mns_tune_cpu_key(void);
/* Where this CPU key's calibrated table is read from (and mns-tune --cache
 * writes it): $XDG_CACHE_HOME/mns/tune-<key>.txt, else
 * $HOME/.cache/mns/tune-<key>.txt; NULL if neither variable is an absolute
 * path. Computed once per process. */
MNS_API const char *mns_tune_cache_path(void);
/* 1 if the table in use was measured for this CPU key (a cache file, a
 * shipped table whose "cpu" line names this key) or is the user's own
 * (MNS_TUNE_FILE, mns_tune_set_*); 0 if it is the shipped table of the class,
 * measured on another CPU model: `mns-tune --quick --cache` calibrates. */
MNS_API int mns_tune_own_table(void);
/* Why the cache file was ignored at the last default resolution (corrupt,
 * foreign CPU, unreadable), "" if it was used or absent. The same text goes
 * to stderr once per process. */
MNS_API const char *mns_tune_warning(void);
/* The name of backend i of the library's table (i = 0, 1, ...; NULL past
 * the end): what mns-tune enumerates, so a new backend is measured as soon
 * as it is listed in src/field/field.c. */
MNS_API const char *mns_backend_name(size_t i);

#ifdef __cplusplus
}
#endif

#endif
