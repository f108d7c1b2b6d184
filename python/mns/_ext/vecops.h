/* The elementwise job of a vector operation (vecops.c). */
#ifndef MNSPY_VECOPS_H
#define MNSPY_VECOPS_H

#include "ext.h"

enum { MNSPY_MUL, MNSPY_SQR, MNSPY_ADD, MNSPY_SUB, MNSPY_POWM, MNSPY_INV };

typedef struct {
    FieldObject *F;
    int op;
    uint64_t *r;
    const uint64_t *a;
    const uint64_t *b;  /* the second operand: bstep 1 one per element, 0 one for all */
    int bstep;
    const uint64_t *e;  /* exponents of ewords words each, estep words apart (0: one for all) */
    size_t ewords, estep, ebits;
    Py_ssize_t lo, hi;
    int status;         /* 0; -1: out of memory; 1: element `failed` has no inverse */
    Py_ssize_t failed;
} mnspy_job;

int mnspy_run(const mnspy_job *proto, Py_ssize_t n, int threads);

#endif
