/* mns._ext.Field: one mns_field, the factory of its elements. The Python
 * class mns.Field derives from it for the methods off the hot path. */
#include "ext.h"

#include <limits.h>
#include <string.h>
#include <structmember.h>

static int field_init_words(FieldObject *F)
{
    F->limbs = mns_field_limbs(F->f);
    F->pwords = mpz_size(F->p);
    F->pbits = mpz_sizeinbase(F->p, 2);
    F->pbytes = (F->pbits + 7) / 8;
    const int delta = mns_field_delta(F->f);
    F->full_reduce = delta == INT_MAX;
    /* capped so that the sum of two counts cannot overflow */
    F->kmax = F->full_reduce ? 1 : delta < 0 ? 1 : delta >= (1 << 20) ? (1 << 20) : delta + 1;
    /* mont keeps every element fully reduced, a R mod p in [0, p)
     * (src/mont/mont_words.c): its words are the value's only form */
    F->unique_tight = strncmp(mns_field_describe(F->f), "mont ", 5) == 0;
    mpz_realloc2(F->scratch, (mp_bitcnt_t)(F->pwords + 2) * 64);
    if (!(F->zero = PyMem_Calloc(F->limbs ? F->limbs : 1, 8))) {
        PyErr_NoMemory();
        return -1;
    }
    mpz_t z;
    mpz_init(z);
    mns_status st = mns_field_set_mpz(F->f, F->zero, z);
    mpz_clear(z);
    if (st != MNS_OK) {
        mnspy_status_error(st);
        return -1;
    }
    /* the constant-time element API (bytes, words, inv, sqrt) serves every
     * backend up to a size bound (docs/field-api.md): one call tells */
    uint64_t *w = PyMem_Malloc(F->pwords * 8);
    if (!w) {
        PyErr_NoMemory();
        return -1;
    }
    F->api = mns_field_get_words(F->f, w, F->zero, F->pwords) == MNS_OK;
    PyMem_Free(w);
    return 0;
}

static PyObject *field_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *names[] = {"p", "backend", NULL};
    PyObject *p, *backend = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:Field", names, &p, &backend))
        return NULL;
    if (!PyLong_Check(p) && (!PyIndex_Check(p) || Element_Check(p)))
        return PyErr_Format(PyExc_TypeError, "p must be an integer, not %.100s",
                            Py_TYPE(p)->tp_name);
    if (backend && !PyUnicode_Check(backend))
        return PyErr_Format(PyExc_TypeError, "backend must be a string");
    const char *spec = backend ? PyUnicode_AsUTF8(backend) : "auto";
    if (!spec)
        return NULL;
    PyObject *pi = PyNumber_Index(p);
    if (!pi)
        return NULL;
    FieldObject *F = (FieldObject *)type->tp_alloc(type, 0);
    if (!F) {
        Py_DECREF(pi);
        return NULL;
    }
    F->pyp = pi;
    mpz_init(F->p);
    mpz_init(F->scratch);
    F->spec = backend ? Py_NewRef(backend) : PyUnicode_FromString("auto");
    F->phex = PyNumber_ToBase(pi, 16);
    if (!F->spec || !F->phex || mnspy_int_to_mpz(F->p, pi) < 0)
        goto fail;
    if (mpz_cmp_ui(F->p, 3) < 0) {
        PyErr_SetString(PyExc_ValueError, "modulus must be >= 3");
        goto fail;
    }
    mns_status st;
    Py_BEGIN_ALLOW_THREADS
    st = mns_field_new(&F->f, F->p, spec); /* may generate PMNS parameters */
    Py_END_ALLOW_THREADS
    if (st != MNS_OK) {
        F->f = NULL;
        mnspy_status_error(st);
        goto fail;
    }
    if (field_init_words(F) < 0)
        goto fail;
    return (PyObject *)F;
fail:
    Py_DECREF(F);
    return NULL;
}

static void field_dealloc(FieldObject *F)
{
    if (F->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)F);
    if (F->f)
        mns_field_free(F->f);
    if (F->pyp) { /* the mpz were initialised with it */
        mpz_clear(F->p);
        mpz_clear(F->scratch);
    }
    PyMem_Free(F->zero);
    Py_XDECREF(F->pyp);
    Py_XDECREF(F->phex);
    Py_XDECREF(F->spec);
    Py_TYPE(F)->tp_free((PyObject *)F);
}

static PyObject *field_call(FieldObject *F, PyObject *args, PyObject *kw)
{
    PyObject *x;
    if (kw && PyDict_GET_SIZE(kw)) {
        PyErr_SetString(PyExc_TypeError, "Field(x) takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_UnpackTuple(args, "Field", 1, 1, &x))
        return NULL;
    if (Element_Check(x)) /* F(x) of an element: the value as an integer */
        return PyErr_Format(PyExc_TypeError, "an mns element needs an integer, not an element");
    return (PyObject *)mnspy_elem_from(F, x);
}

static PyObject *field_get_p(FieldObject *F, void *c)
{
    (void)c;
    return Py_NewRef(F->pyp);
}

static PyObject *field_get_limbs(FieldObject *F, void *c)
{
    (void)c;
    return PyLong_FromSize_t(F->limbs);
}

static PyObject *field_get_pbytes(FieldObject *F, void *c)
{
    (void)c;
    return PyLong_FromSize_t(F->pbytes);
}

static PyObject *field_get_delta(FieldObject *F, void *c)
{
    (void)c;
    return PyLong_FromLong(mns_field_delta(F->f));
}

static PyObject *field_get_describe(FieldObject *F, void *c)
{
    (void)c;
    return PyUnicode_FromString(mns_field_describe(F->f));
}

static PyObject *field_get_backend(FieldObject *F, void *c)
{
    (void)c;
    return Py_NewRef(F->spec);
}

static PyGetSetDef field_getset[] = {
    {"p", (getter)field_get_p, NULL, "the modulus", NULL},
    {"limbs", (getter)field_get_limbs, NULL, "uint64 words of an element", NULL},
    {"pbytes", (getter)field_get_pbytes, NULL, "bytes of p: the length of bytes(x)", NULL},
    {"delta", (getter)field_get_delta, NULL, "free additions before a product", NULL},
    {"describe", (getter)field_get_describe, NULL, "backend, kernel and parameters used", NULL},
    {"backend", (getter)field_get_backend, NULL, "the backend spec given at creation", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef field_methods[] = {
    {"from_bytes", (PyCFunction)(void (*)(void))mnspy_field_from_bytes, METH_FASTCALL | METH_KEYWORDS,
     "from_bytes(b, byteorder='big'): the element of the integer in b (any length) mod p; "
     "constant time"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject MnsField_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mns._ext.Field",
    .tp_basicsize = sizeof(FieldObject),
    .tp_dealloc = (destructor)field_dealloc,
    .tp_call = (ternaryfunc)field_call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Integers modulo an odd modulus p >= 3 in one backend's representation.",
    .tp_weaklistoffset = offsetof(FieldObject, weakrefs),
    .tp_getset = field_getset,
    .tp_methods = field_methods,
    .tp_new = field_new,
};
