/* Tuning tables for "auto": parser, the current (process-wide) table and the
 * lookup that turns (operation mix, p) into the ordered candidate specs.
 * Public side and format: include/mns_tune.h. */
#ifndef MNS_CORE_TUNE_H
#define MNS_CORE_TUNE_H

#include <stddef.h>
#include <gmp.h>
#include "mns.h"
#include "mns_tune.h"

typedef enum { MNS_TUNE_MUL, MNS_TUNE_EXP } mns_tune_op;
typedef enum { MNS_TUNE_ANY, MNS_TUNE_PM } mns_tune_form;

#define MNS_TUNE_SPEC_MAX 96
#define MNS_TUNE_ORIGIN_MAX 320
#define MNS_TUNE_CAND_MAX 40
#define MNS_TUNE_CPU_KEY_MAX 64

/* One candidate of a row: a version-2 row ranks several, each its own entry
 * here with its place (rank 1..nrank) in the line; a version-1 row is a
 * ranking of one. */
typedef struct mns_tune_row {
    mns_tune_op op;
    mns_tune_form form;
    size_t lo, hi;              /* bit range, inclusive */
    char spec[MNS_TUNE_SPEC_MAX];
    double figure;              /* v2: ticks over the row's first; v1: margin */
    unsigned line;              /* in the table's text, from 1 */
    unsigned rank, nrank;
} mns_tune_row;

/* Candidates for one modulus, in the order to try them (each spec once); the
 * caller closes the list with "mont". */
typedef struct mns_tune_choice {
    char table[MNS_TUNE_ORIGIN_MAX]; /* mns_tune_current() at lookup time */
    int version;                     /* of the table's format */
    size_t n;
    mns_tune_row row[MNS_TUNE_CAND_MAX];
} mns_tune_choice;

/* 1 if p = 2^bits - eps with 0 < eps < 2^(bits/2): the "pm" form of rows. */
int mns_tune_is_pseudo_mersenne(const mpz_t p);

/* out <- the rows of the current table that match (op, p): "pm" rows first
 * when p has that form, then "any" rows, each in table order. MNS_EPARSE if
 * MNS_TUNE_FILE names a table that cannot be read or parsed. */
mns_status mns_tune_lookup(mns_tune_op op, const mpz_t p, mns_tune_choice *out);

/* "mul" / "exp" -> op; MNS_EINVAL otherwise. */
mns_status mns_tune_op_parse(const char *s, mns_tune_op *op);

/* The shipped tables (generated at build time from tune/<class>.txt). */
extern const char mns_tune_table_ifma[];
extern const char mns_tune_table_generic[];
extern const char mns_tune_table_adx[];
extern const char mns_tune_table_ifma_zen5[];

#endif
