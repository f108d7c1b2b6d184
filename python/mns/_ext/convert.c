/* Python integers to and from words, and both to and from field elements.
 *
 * Integers cross as little-endian words (the byte order of x86-64 and
 * AArch64, checked below), so a value below p goes into an element through
 * the backend's constant-time set_words and comes out through get_words with
 * no mpz at all; other values (negative, >= p, or a backend without those
 * entries) go through a read-only mpz over the same words. */
#include "ext.h"

#include <stdarg.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "mns._ext moves integers as little-endian words"
#endif

PyObject *MnsInvalidArgument, *MnsNotSupported, *MnsNotInvertible;

/* Raises cls (an MNSError class: (status, message)) with the library's
 * message for status; MemoryError for MNS_ENOMEM. Returns NULL. */
PyObject *mnspy_status_error_as(int status, PyObject *cls)
{
    const char *reason = mns_last_error(), *text = mns_strerror((mns_status)status);
    PyObject *msg = reason[0] ? PyUnicode_FromFormat("%s: %s", text, reason)
                              : PyUnicode_FromString(text);
    if (!msg)
        return NULL;
    if (status == MNS_ENOMEM) {
        PyErr_SetObject(PyExc_MemoryError, msg);
        Py_DECREF(msg);
        return NULL;
    }
    PyObject *exc = PyObject_CallFunction(cls, "iO", status, msg);
    Py_DECREF(msg);
    if (exc) {
        PyErr_SetObject(cls, exc);
        Py_DECREF(exc);
    }
    return NULL;
}

/* Raises cls(status, the formatted message): an error of the library's
 * kinds found here before any library call. Returns NULL. */
PyObject *mnspy_raise(PyObject *cls, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    PyObject *exc = msg ? PyObject_CallFunction(cls, "iN", status, msg) : NULL;
    if (exc) {
        PyErr_SetObject(cls, exc);
        Py_DECREF(exc);
    }
    return NULL;
}

PyObject *mnspy_status_error(int status)
{
    return mnspy_status_error_as(status, status == MNS_ENOTSUP ? MnsNotSupported : MnsInvalidArgument);
}

/* METH_FASTCALL | METH_KEYWORDS arguments by position or name: out[i] is
 * the argument called names[i], or left as it was when not given. 0, or -1
 * with TypeError for too many, unknown or repeated arguments. */
int mnspy_fast_args(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                    const char *const *names, PyObject **out, Py_ssize_t nmax)
{
    if (nargs > nmax) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zd arguments (%zd given)", fname, nmax,
                     nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        out[i] = args[i];
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        Py_ssize_t i = 0;
        while (i < nmax && PyUnicode_CompareWithASCIIString(key, names[i]) != 0)
            i++;
        if (i == nmax || i < nargs) {
            PyErr_Format(PyExc_TypeError, i == nmax ? "%s() got an unexpected keyword argument '%U'"
                                                    : "%s() got multiple values for argument '%U'",
                         fname, key);
            return -1;
        }
        out[i] = args[nargs + k];
    }
    return 0;
}

/* "big" or "little", as int.to_bytes spells them (ValueError otherwise). */
int mnspy_byteorder(PyObject *o, mns_order *order)
{
    if (!o) {
        *order = MNS_BIG_ENDIAN;
        return 0;
    }
    if (PyUnicode_Check(o)) {
        if (PyUnicode_CompareWithASCIIString(o, "big") == 0) {
            *order = MNS_BIG_ENDIAN;
            return 0;
        }
        if (PyUnicode_CompareWithASCIIString(o, "little") == 0) {
            *order = MNS_LITTLE_ENDIAN;
            return 0;
        }
    } else {
        PyErr_Format(PyExc_TypeError, "byteorder must be str, not %.100s", Py_TYPE(o)->tp_name);
        return -1;
    }
    PyErr_SetString(PyExc_ValueError, "byteorder must be either 'little' or 'big'");
    return -1;
}

int mnspy_long_sign(PyObject *x)
{
#if PY_VERSION_HEX >= 0x030E0000
    int s = 0;
    PyLong_GetSign(x, &s);
    return s;
#else
    return _PyLong_Sign(x);
#endif
}

/* Words of |x| for x >= 0, a Python int. */
static Py_ssize_t long_words(PyObject *x)
{
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t bytes = PyLong_AsNativeBytes(x, NULL, 0, Py_ASNATIVEBYTES_UNSIGNED_BUFFER);
    return bytes < 0 ? -1 : (bytes + 7) / 8;
#else
    size_t bits = _PyLong_NumBits(x);
    if (bits == (size_t)-1 && PyErr_Occurred())
        return -1;
    return (Py_ssize_t)((bits + 63) / 64);
#endif
}

static int long_to_words(PyObject *x, uint64_t *w, size_t n)
{
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t r = PyLong_AsNativeBytes(x, w, (Py_ssize_t)(n * 8),
                                        Py_ASNATIVEBYTES_LITTLE_ENDIAN |
                                            Py_ASNATIVEBYTES_UNSIGNED_BUFFER |
                                            Py_ASNATIVEBYTES_REJECT_NEGATIVE);
    return r < 0 ? -1 : 0;
#else
    return _PyLong_AsByteArray((PyLongObject *)x, (unsigned char *)w, n * 8, 1, 0);
#endif
}

/* w (n words) <- x, a Python int in [0, 2^(64 n)); OverflowError otherwise. */
int mnspy_int_to_words(PyObject *x, uint64_t *w, size_t n)
{
    return long_to_words(x, w, n);
}

/* Words of x >= 0, a Python int; -1 on error. */
Py_ssize_t mnspy_int_nwords(PyObject *x)
{
    return long_words(x);
}

PyObject *mnspy_words_to_int(const uint64_t *w, size_t n)
{
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(w, n * 8, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray((const unsigned char *)w, n * 8, 1, 0);
#endif
}

/* The words of |x| (x a Python int): in stack when cap words suffice, else
 * on the heap (the caller frees what is not stack). *n: words written
 * (zero-padded to cap when in stack), *sign: -1, 0 or 1. NULL on error. */
uint64_t *mnspy_int_words(PyObject *x, size_t *n, int *sign, uint64_t *stack, size_t cap)
{
    *sign = mnspy_long_sign(x);
    PyObject *mag = x;
    if (*sign < 0 && !(mag = PyNumber_Negative(x)))
        return NULL;
    uint64_t *w = NULL;
    Py_ssize_t need = long_words(mag);
    if (need >= 0) {
        size_t words = (size_t)need <= cap ? cap : (size_t)need;
        w = words == cap ? stack : PyMem_Malloc(words * 8);
        if (!w)
            PyErr_NoMemory();
        else if (long_to_words(mag, w, words) < 0) {
            if (w != stack)
                PyMem_Free(w);
            w = NULL;
        } else
            *n = words;
    }
    if (mag != x)
        Py_DECREF(mag);
    return w;
}

/* out <- the element of the value (pwords words, below p) through set_words. */
static int set_canonical(FieldObject *F, uint64_t *out, const mp_limb_t *v, size_t n)
{
    uint64_t stack[MNSPY_STACK_WORDS], *w = stack;
    if (F->pwords > MNSPY_STACK_WORDS && !(w = PyMem_Malloc(F->pwords * 8))) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(w, v, n * 8);
    memset(w + n, 0, (F->pwords - n) * 8);
    mns_status st = mns_field_set_words(F->f, out, w, F->pwords);
    if (w != stack)
        PyMem_Free(w);
    return st == MNS_OK ? 0 : (mnspy_status_error(st), -1);
}

/* out <- the element of sign * w (n words). A value in [0, p) goes in by
 * the constant-time set_words; any other is reduced by GMP first (under the
 * GIL: F->scratch), since some backends' set_mpz costs hundreds of products
 * (pmns-mp's). */
int mnspy_set_words_or_mpz(FieldObject *F, uint64_t *out, const uint64_t *w, size_t n, int sign)
{
    size_t top = n;
    while (top && !w[top - 1])
        top--;
    const int below_p = sign >= 0 && top <= F->pwords &&
                        (top < F->pwords || mpn_cmp((const mp_limb_t *)w, mpz_limbs_read(F->p), top) < 0);
    if (F->api && below_p && n >= F->pwords) {
        mns_status st = mns_field_set_words(F->f, out, w, F->pwords);
        return st == MNS_OK ? 0 : (mnspy_status_error(st), -1);
    }
    mpz_t z;
    mpz_roinit_n(z, (const mp_limb_t *)w, sign < 0 ? -(mp_size_t)top : (mp_size_t)top);
    if (F->api) {
        mpz_mod(F->scratch, z, F->p);
        return set_canonical(F, out, mpz_limbs_read(F->scratch), mpz_size(F->scratch));
    }
    mns_status st = mns_field_set_mpz(F->f, out, z);
    if (st != MNS_OK) {
        mnspy_status_error(st);
        return -1;
    }
    return 0;
}

/* z <- x, a Python int. */
int mnspy_int_to_mpz(mpz_t z, PyObject *x)
{
    uint64_t stack[MNSPY_STACK_WORDS];
    size_t n = 0;
    int sign = 0;
    uint64_t *w = mnspy_int_words(x, &n, &sign, stack, 0);
    if (!w)
        return -1;
    mpz_import(z, n, -1, 8, 0, 0, w);
    if (sign < 0)
        mpz_neg(z, z);
    if (w != stack)
        PyMem_Free(w);
    return 0;
}

/* out <- x mod p (x an int or any object with __index__, gmpy2.mpz among
 * them); TypeError for anything else. */
int mnspy_int_to_elem(FieldObject *F, PyObject *x, uint64_t *out)
{
    PyObject *v = x;
    if (!PyLong_Check(x)) {
        if (!PyIndex_Check(x) || Element_Check(x)) {
            PyErr_Format(PyExc_TypeError, "an mns element needs an integer, not %.100s",
                         Py_TYPE(x)->tp_name);
            return -1;
        }
        if (!(v = PyNumber_Index(x)))
            return -1;
    }
    uint64_t stack[MNSPY_STACK_WORDS];
    size_t cap = F->pwords <= MNSPY_STACK_WORDS ? F->pwords : 0, n = 0;
    int sign = 0, rc = -1;
    uint64_t *w = mnspy_int_words(v, &n, &sign, stack, cap);
    if (w) {
        rc = mnspy_set_words_or_mpz(F, out, w, n, sign);
        if (w != stack)
            PyMem_Free(w);
    }
    if (v != x)
        Py_DECREF(v);
    return rc;
}

/* out (F->pwords words) <- the canonical value of the tight element a. */
int mnspy_canon(FieldObject *F, const uint64_t *a, uint64_t *out)
{
    if (F->api) {
        mns_field_get_words(F->f, out, a, F->pwords);
        return 0;
    }
    mns_field_get_mpz(F->f, F->scratch, a);
    size_t n = mpz_size(F->scratch);
    if (n > F->pwords) {
        PyErr_SetString(PyExc_SystemError, "mns: get_mpz returned a value above p");
        return -1;
    }
    memcpy(out, mpz_limbs_read(F->scratch), n * 8);
    memset(out + n, 0, (F->pwords - n) * 8);
    return 0;
}

ElementObject *mnspy_elem_new(FieldObject *F)
{
    /* not zeroed: every call that makes an element writes all its words */
    ElementObject *e = PyObject_NewVar(ElementObject, &MnsElement_Type, (Py_ssize_t)F->limbs);
    if (!e)
        return NULL;
    Py_INCREF(F);
    e->field = F;
    e->hash = -1;
    e->k = 1;
    return e;
}

ElementObject *mnspy_elem_from(FieldObject *F, PyObject *x)
{
    if (Element_Check(x)) {
        if (((ElementObject *)x)->field != F) {
            PyErr_SetString(PyExc_ValueError, "elements of different fields");
            return NULL;
        }
        Py_INCREF(x);
        return (ElementObject *)x;
    }
    ElementObject *e = mnspy_elem_new(F);
    if (e && mnspy_int_to_elem(F, x, e->w) < 0)
        Py_CLEAR(e);
    return e;
}

/* dst <- a, tight (vectors hold tight elements only) */
void mnspy_tight_copy(FieldObject *F, uint64_t *dst, const ElementObject *a)
{
    if (a->k > 1)
        mns_field_reduce(F->f, dst, a->w);
    else
        memcpy(dst, a->w, F->limbs * 8);
}
