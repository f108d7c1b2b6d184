/* The elementwise job of a vector operation (vecops.c). */
#ifndef MNSPY_VECOPS_H
#define MNSPY_VECOPS_H

#include "ext.h"

enum { MNSPY_MUL, MNSPY_SQR, MNSPY_ADD, MNSPY_SUB, MNSPY_POWM };

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
    int status;
} mnspy_job;

int mnspy_run(const mnspy_job *proto, Py_ssize_t n, int threads);

#endif
