/* mns._ext: the field, its elements and vectors of elements as CPython types.
 *
 * An element keeps its limbs inside the object, so an operation costs one
 * object allocation (Python's small-object allocator) and one library call;
 * the Python layer (mns/_field.py) adds methods that are not on the hot path.
 * Every call into the library is made on this extension's own copy of the
 * static libmns.a: a field made here is only ever used here. */
#ifndef MNSPY_EXT_H
#define MNSPY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <gmp.h>

#include <mns.h>

#if PY_VERSION_HEX < 0x030A0000 /* pyproject.toml: Python >= 3.9 */
static inline PyObject *Py_NewRef(PyObject *o)
{
    Py_INCREF(o);
    return o;
}
#define Py_NewRef(o) Py_NewRef((PyObject *)(o))
#endif

/* Canonical words kept on the C stack; larger moduli use the heap. */
#define MNSPY_STACK_WORDS 128

typedef struct {
    PyObject_HEAD
    mns_field *f;
    size_t limbs;       /* words of an element (the backend's representation) */
    size_t pwords;      /* words of p, of a canonical value */
    size_t pbits;
    int full_reduce;    /* add/sub return tight elements: no reduce after them */
    int kmax;           /* tight summands a product accepts: delta + 1 */
    int unique_tight;   /* one tight form per value: equal values, equal words */
    size_t pbytes;      /* bytes of p, of a canonical value */
    int api;            /* the constant-time element API serves this field */
    mpz_t p;
    mpz_t scratch;      /* for get_mpz under the GIL (never used without it) */
    uint64_t *zero;     /* the tight element 0 */
    PyObject *pyp;      /* p as a Python int */
    PyObject *phex;     /* hex(p), for repr */
    PyObject *spec;     /* the backend spec given at creation */
    PyObject *weakrefs;
} FieldObject;

typedef struct {
    PyObject_VAR_HEAD
    FieldObject *field;
    Py_hash_t hash;     /* -1 until computed */
    int k;              /* a sum or difference of k tight elements (1: tight) */
    uint64_t w[];
} ElementObject;

typedef struct {
    PyObject_HEAD
    FieldObject *field;
    Py_ssize_t n;
    uint64_t *w;        /* n elements of field->limbs words, back to back */
} VectorObject;

extern PyTypeObject MnsField_Type, MnsElement_Type, MnsVector_Type;
extern PyObject *MnsInvalidArgument, *MnsNotSupported, *MnsNotInvertible;

#define Element_Check(o) (Py_TYPE(o) == &MnsElement_Type)
#define Field_Check(o) PyObject_TypeCheck(o, &MnsField_Type)

/* convert.c */
PyObject *mnspy_status_error(int status);
PyObject *mnspy_status_error_as(int status, PyObject *cls);
PyObject *mnspy_raise(PyObject *cls, int status, const char *fmt, ...);
int mnspy_fast_args(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                    const char *const *names, PyObject **out, Py_ssize_t nmax);
int mnspy_byteorder(PyObject *o, mns_order *order);
int mnspy_long_sign(PyObject *x);
int mnspy_int_to_mpz(mpz_t z, PyObject *x);
int mnspy_int_to_elem(FieldObject *F, PyObject *x, uint64_t *out);
ElementObject *mnspy_elem_new(FieldObject *F);
ElementObject *mnspy_elem_from(FieldObject *F, PyObject *x);
int mnspy_canon(FieldObject *F, const uint64_t *a, uint64_t *out);
int mnspy_int_to_words(PyObject *x, uint64_t *w, size_t n);
Py_ssize_t mnspy_int_nwords(PyObject *x);
int mnspy_set_words_or_mpz(FieldObject *F, uint64_t *out, const uint64_t *w, size_t n, int sign);
PyObject *mnspy_words_to_int(const uint64_t *w, size_t n);
uint64_t *mnspy_int_words(PyObject *x, size_t *n, int *sign, uint64_t *stack, size_t cap);
void mnspy_tight_copy(FieldObject *F, uint64_t *dst, const ElementObject *a);

/* element.c */
int mnspy_powm_words(FieldObject *F, uint64_t *r, const uint64_t *a, const uint64_t *e, size_t en,
                     int var);
uint64_t *mnspy_canon_words(ElementObject *a, uint64_t *buf);
int mnspy_elem_power(ElementObject *a, PyObject *e, ElementObject *r, int var);

/* elemapi.c: the constant-time element API of mns.h on elements */
int mnspy_inverse(FieldObject *F, uint64_t *r, const uint64_t *a, int var);
PyObject *mnspy_elem_bytes(ElementObject *a, PyObject *unused);
PyObject *mnspy_elem_to_bytes(ElementObject *a, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames);
PyObject *mnspy_elem_inv(ElementObject *a, PyObject *unused);
PyObject *mnspy_elem_sqrt(ElementObject *a, PyObject *unused);
PyObject *mnspy_elem_legendre(ElementObject *a, PyObject *unused);
PyObject *mnspy_elem_pow_method(ElementObject *a, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames);
PyObject *mnspy_field_from_bytes(FieldObject *F, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames);

#endif
