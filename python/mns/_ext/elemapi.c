/* The constant-time element API of mns.h (bytes in and out, inverse, square
 * root, Legendre symbol, the public-exponent power) on mns._ext elements,
 * with the library's statuses as the exceptions of mns._errors:
 *   - no inverse (MNS_ERANGE of mns_field_inv): NotInvertibleError, both a
 *     ZeroDivisionError (what 1/x raises in Python) and a ValueError (what
 *     pow(x, -1, p) raises), so either convention catches it;
 *   - not a square, a byte length below p's (MNS_ERANGE): InvalidArgumentError
 *     (a ValueError);
 *   - a field the API cannot serve (MNS_ENOTSUP): NotSupportedError.
 * The library calls take loose elements as they are (they reduce inside). */
#include "ext.h"

#include <string.h>

/* r <- a^-1: constant time, or with var mns_field_inv_var (public a) */
int mnspy_inverse(FieldObject *F, uint64_t *r, const uint64_t *a, int var)
{
    mns_status st = (var ? mns_field_inv_var : mns_field_inv)(F->f, r, a);
    if (st == MNS_OK)
        return 0;
    mnspy_status_error_as(st, st == MNS_ERANGE ? MnsNotInvertible : st == MNS_ENOTSUP
                                                                     ? MnsNotSupported
                                                                     : MnsInvalidArgument);
    return -1;
}

/* The canonical value in len >= pbytes bytes, written straight into a new
 * bytes object from the canonical words (the backend's constant-time
 * get_words; get_mpz where the API does not serve the field): no integer.
 * Not mns_field_get_bytes: that call costs 3x get_words at 256 bits (its
 * stack block and byte loop; 125-145 ns against 41 ns, Zen 3), the words
 * reversed and byte-swapped here give the same bytes. */
static PyObject *elem_bytes_as(ElementObject *a, size_t len, mns_order order)
{
    FieldObject *F = a->field;
    if (len < F->pbytes)
        return mnspy_raise(MnsInvalidArgument, MNS_ERANGE, "to_bytes: %zu bytes, p needs %zu", len,
                           F->pbytes);
    uint64_t buf[MNSPY_STACK_WORDS], *c = mnspy_canon_words(a, buf);
    if (!c)
        return NULL;
    PyObject *r = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)len);
    if (r) {
        unsigned char *out = (unsigned char *)PyBytes_AS_STRING(r);
        const size_t n = F->pwords, pad = len - F->pbytes;
        if (order == MNS_LITTLE_ENDIAN) {
            memcpy(out, c, F->pbytes);
            memset(out + F->pbytes, 0, pad);
        } else {
            for (size_t i = 0; i < (n + 1) / 2; i++) { /* big-endian words, in place */
                const uint64_t lo = c[i], hi = c[n - 1 - i];
                c[i] = __builtin_bswap64(hi);
                c[n - 1 - i] = __builtin_bswap64(lo);
            }
            memset(out, 0, pad);
            memcpy(out + pad, (const unsigned char *)c + (n * 8 - F->pbytes), F->pbytes);
        }
    }
    if (c != buf)
        PyMem_Free(c);
    return r;
}

PyObject *mnspy_elem_bytes(ElementObject *a, PyObject *unused)
{
    (void)unused;
    return elem_bytes_as(a, a->field->pbytes, MNS_BIG_ENDIAN);
}

PyObject *mnspy_elem_to_bytes(ElementObject *a, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    static const char *const names[] = {"length", "byteorder"};
    PyObject *v[2] = {NULL, NULL};
    mns_order order;
    if (mnspy_fast_args("to_bytes", args, nargs, kwnames, names, v, 2) < 0 ||
        mnspy_byteorder(v[1], &order) < 0)
        return NULL;
    size_t len = a->field->pbytes;
    if (v[0] && v[0] != Py_None) {
        Py_ssize_t n = PyNumber_AsSsize_t(v[0], PyExc_OverflowError);
        if (n == -1 && PyErr_Occurred())
            return NULL;
        if (n < 0) {
            PyErr_SetString(PyExc_ValueError, "length argument must be non-negative");
            return NULL;
        }
        len = (size_t)n;
    }
    return elem_bytes_as(a, len, order);
}

PyObject *mnspy_elem_inv(ElementObject *a, PyObject *unused)
{
    (void)unused;
    ElementObject *r = mnspy_elem_new(a->field);
    if (r && mnspy_inverse(a->field, r->w, a->w, 0) < 0)
        Py_CLEAR(r);
    return (PyObject *)r;
}

PyObject *mnspy_elem_sqrt(ElementObject *a, PyObject *unused)
{
    (void)unused;
    ElementObject *r = mnspy_elem_new(a->field);
    if (!r)
        return NULL;
    mns_status st = mns_field_sqrt(a->field->f, r->w, a->w);
    if (st != MNS_OK) {
        Py_DECREF(r);
        return mnspy_status_error(st);
    }
    return (PyObject *)r;
}

PyObject *mnspy_elem_legendre(ElementObject *a, PyObject *unused)
{
    (void)unused;
    if (!a->field->api) /* the library answers 0 then: say why instead */
        return mnspy_raise(MnsNotSupported, MNS_ENOTSUP, "legendre: the constant-time API does not "
                           "serve this field (docs/field-api.md)");
    return PyLong_FromLong(mns_field_legendre(a->field->f, a->w));
}

PyObject *mnspy_elem_pow_method(ElementObject *a, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    static const char *const names[] = {"e", "public"};
    PyObject *v[2] = {NULL, NULL};
    if (mnspy_fast_args("pow", args, nargs, kwnames, names, v, 2) < 0)
        return NULL;
    if (!v[0]) {
        PyErr_SetString(PyExc_TypeError, "pow() missing required argument 'e'");
        return NULL;
    }
    int var = v[1] ? PyObject_IsTrue(v[1]) : 0;
    if (var < 0)
        return NULL;
    ElementObject *r = mnspy_elem_new(a->field);
    if (r && mnspy_elem_power(a, v[0], r, var) < 0)
        Py_CLEAR(r);
    return (PyObject *)r;
}

/* Field.from_bytes(b, byteorder="big"): any bytes-like object of any
 * length, reduced mod p in constant time (mns_field_set_bytes). */
PyObject *mnspy_field_from_bytes(FieldObject *F, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    static const char *const names[] = {"b", "byteorder"};
    PyObject *v[2] = {NULL, NULL};
    mns_order order;
    if (mnspy_fast_args("from_bytes", args, nargs, kwnames, names, v, 2) < 0 ||
        mnspy_byteorder(v[1], &order) < 0)
        return NULL;
    if (!v[0] || PyUnicode_Check(v[0]))
        return PyErr_Format(PyExc_TypeError, "from_bytes needs a bytes-like object, not %.100s",
                            v[0] ? Py_TYPE(v[0])->tp_name : "nothing");
    Py_buffer view;
    if (PyObject_GetBuffer(v[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    ElementObject *r = mnspy_elem_new(F);
    if (r && F->api) {
        mns_status st = mns_field_set_bytes(F->f, r->w, view.buf, (size_t)view.len, order);
        if (st != MNS_OK) {
            Py_CLEAR(r);
            mnspy_status_error(st);
        }
    } else if (r) { /* through an integer and GMP (not constant time) */
        PyObject *x = PyObject_CallMethod((PyObject *)&PyLong_Type, "from_bytes", "Os", v[0],
                                          order == MNS_LITTLE_ENDIAN ? "little" : "big");
        if (!x || mnspy_int_to_elem(F, x, r->w) < 0)
            Py_CLEAR(r);
        Py_XDECREF(x);
    }
    PyBuffer_Release(&view);
    return (PyObject *)r;
}
