/* mns._ext.Vector: n elements of one field in one block, for whole-array
 * operations in one call (vecops.c). Immutable like the elements: every
 * operation returns a new vector.
 *
 * Built from a sequence of integers or elements, or from a buffer of 64-bit
 * words (array('Q'), memoryview, NumPy uint64): one value per pwords words
 * (the word count of p), least significant word first, either flat or as
 * rows of a two-dimensional C-contiguous array. */
#include "ext.h"

#include <unistd.h>

#include "vecops.h"

static VectorObject *vector_alloc(FieldObject *F, Py_ssize_t n)
{
    VectorObject *v = PyObject_New(VectorObject, &MnsVector_Type);
    if (!v)
        return NULL;
    v->field = (FieldObject *)Py_NewRef(F);
    v->n = n;
    /* not zeroed: every way of filling a vector writes all its words */
    v->w = PyMem_RawMalloc((n ? (size_t)n : 1) * F->limbs * 8);
    if (!v->w) {
        Py_DECREF(v);
        return (VectorObject *)PyErr_NoMemory();
    }
    return v;
}

static int word_format(const char *fmt)
{
    if (!fmt)
        return 1; /* unsigned bytes by default: not words */
    if (*fmt == '<' || *fmt == '=' || *fmt == '@')
        fmt++;
    return !((fmt[0] == 'Q' || fmt[0] == 'L') && fmt[1] == 0);
}

static int from_buffer(VectorObject **out, FieldObject *F, PyObject *obj)
{
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const size_t k = F->pwords;
    int rc = -1;
    if (view.itemsize != 8 || word_format(view.format))
        PyErr_Format(PyExc_TypeError, "a buffer of uint64 words is needed, not format '%s'",
                     view.format ? view.format : "B");
    else if (view.ndim > 2 || (view.ndim == 2 && (size_t)view.shape[1] != k) ||
             (size_t)(view.len / 8) % k)
        PyErr_Format(PyExc_ValueError, "a buffer of %zu-word values (p has %zu words): "
                     "length a multiple of %zu, or rows of %zu", k, k, k, k);
    else {
        const uint64_t *w = view.buf;
        Py_ssize_t n = (Py_ssize_t)((size_t)(view.len / 8) / k);
        VectorObject *v = vector_alloc(F, n);
        rc = v ? 0 : -1;
        for (Py_ssize_t i = 0; rc == 0 && i < n; i++)
            rc = mnspy_set_words_or_mpz(F, v->w + i * F->limbs, w + i * k, k, 1);
        if (rc == 0)
            *out = v;
        else
            Py_XDECREF(v);
    }
    PyBuffer_Release(&view);
    return rc;
}

static int from_sequence(VectorObject **out, FieldObject *F, PyObject *obj)
{
    PyObject *seq = PySequence_Fast(obj, "Vector(field, values): values must be a sequence "
                                         "of integers or elements, or a buffer of uint64 words");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    VectorObject *v = vector_alloc(F, n);
    int rc = v ? 0 : -1;
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
        uint64_t *dst = v->w + i * F->limbs;
        if (Element_Check(x)) {
            if (((ElementObject *)x)->field != F) {
                PyErr_SetString(PyExc_ValueError, "elements of different fields");
                rc = -1;
            } else
                mnspy_tight_copy(F, dst, (ElementObject *)x);
        } else
            rc = mnspy_int_to_elem(F, x, dst);
    }
    Py_DECREF(seq);
    if (rc == 0)
        *out = v;
    else
        Py_XDECREF(v);
    return rc;
}

static PyObject *vector_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *names[] = {"field", "values", NULL};
    PyObject *field, *values;
    (void)type;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:Vector", names, &field, &values))
        return NULL;
    if (!Field_Check(field))
        return PyErr_Format(PyExc_TypeError, "Vector(field, values): field must be an mns.Field");
    FieldObject *F = (FieldObject *)field;
    VectorObject *v = NULL;
    if (Py_TYPE(values) == &MnsVector_Type) {
        if (((VectorObject *)values)->field != F)
            return PyErr_Format(PyExc_ValueError, "a vector of another field");
        return Py_NewRef(values);
    }
    if (PyBytes_Check(values) || PyByteArray_Check(values) || PyUnicode_Check(values))
        return PyErr_Format(PyExc_TypeError, "Vector(field, values): %.100s is not words: "
                            "array('Q', ...) or memoryview(...).cast('Q')", Py_TYPE(values)->tp_name);
    if (PyObject_CheckBuffer(values) ? from_buffer(&v, F, values) : from_sequence(&v, F, values))
        return NULL;
    return (PyObject *)v;
}

static void vector_dealloc(VectorObject *v)
{
    PyMem_RawFree(v->w);
    Py_DECREF(v->field);
    PyObject_Free(v);
}

static Py_ssize_t vector_len(VectorObject *v) { return v->n; }

static PyObject *vector_item(VectorObject *v, Py_ssize_t i)
{
    if (i < 0 || i >= v->n) {
        PyErr_SetString(PyExc_IndexError, "vector index out of range");
        return NULL;
    }
    ElementObject *e = mnspy_elem_new(v->field);
    if (e)
        memcpy(e->w, v->w + i * v->field->limbs, v->field->limbs * 8);
    return (PyObject *)e;
}


static int parse_threads(PyObject *t)
{
    if (!t || t == Py_None)
        return 1;
    long k = PyLong_AsLong(t);
    if (k == -1 && PyErr_Occurred())
        return -1;
    if (k < 0 || k > 1024) {
        PyErr_SetString(PyExc_ValueError, "threads must be in [0, 1024] (0: one per CPU)");
        return -1;
    }
    if (k == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        k = cpus > 0 ? cpus : 1;
    }
    return (int)k;
}

/* The second operand: a vector of the same field and length, or one value
 * (an element or an integer) for every index. 1: not an operand type. */
static int second_operand(VectorObject *v, PyObject *x, mnspy_job *j, uint64_t **tmp)
{
    FieldObject *F = v->field;
    *tmp = NULL;
    if (Py_TYPE(x) == &MnsVector_Type) {
        VectorObject *o = (VectorObject *)x;
        if (o->field != F || o->n != v->n) {
            PyErr_Format(PyExc_ValueError, o->field != F ? "vectors of different fields"
                                                         : "vectors of different lengths");
            return -1;
        }
        j->b = o->w;
        j->bstep = 1;
        return 0;
    }
    if (!Element_Check(x) && !PyLong_Check(x) && !PyIndex_Check(x))
        return 1;
    if (Element_Check(x) && ((ElementObject *)x)->field != F) {
        PyErr_SetString(PyExc_ValueError, "elements of different fields");
        return -1;
    }
    if (!(*tmp = PyMem_Calloc(F->limbs, 8))) {
        PyErr_NoMemory();
        return -1;
    }
    if (Element_Check(x))
        mnspy_tight_copy(F, *tmp, (ElementObject *)x);
    else if (mnspy_int_to_elem(F, x, *tmp) < 0)
        return -1;
    j->b = *tmp;
    j->bstep = 0;
    return 0;
}

static PyObject *run_into_new(VectorObject *v, mnspy_job *j, int threads)
{
    VectorObject *r = vector_alloc(v->field, v->n);
    if (!r)
        return NULL;
    j->F = v->field;
    j->r = r->w;
    j->a = v->w;
    if (mnspy_run(j, v->n, threads) < 0)
        Py_CLEAR(r);
    return (PyObject *)r;
}

/* operator: NotImplemented for foreign types; method: TypeError */
static PyObject *binary(VectorObject *v, PyObject *x, int op, int threads, int is_operator)
{
    mnspy_job j = {0};
    j.op = op;
    uint64_t *tmp;
    int rc = second_operand(v, x, &j, &tmp);
    PyObject *r = NULL;
    if (rc == 0)
        r = run_into_new(v, &j, threads);
    else if (rc > 0 && is_operator)
        r = Py_NewRef(Py_NotImplemented);
    else if (rc > 0)
        PyErr_Format(PyExc_TypeError, "a vector, an element or an integer is needed, not %.100s",
                     Py_TYPE(x)->tp_name);
    PyMem_Free(tmp);
    return r;
}

static PyObject *method_binary(VectorObject *v, PyObject *args, PyObject *kw, int op)
{
    static char *names[] = {"other", "threads", NULL};
    PyObject *x, *t = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", names, &x, &t))
        return NULL;
    int threads = parse_threads(t);
    return threads < 0 ? NULL : binary(v, x, op, threads, 0);
}

static PyObject *vec_mul(VectorObject *v, PyObject *a, PyObject *k) { return method_binary(v, a, k, MNSPY_MUL); }
static PyObject *vec_add(VectorObject *v, PyObject *a, PyObject *k) { return method_binary(v, a, k, MNSPY_ADD); }
static PyObject *vec_sub(VectorObject *v, PyObject *a, PyObject *k) { return method_binary(v, a, k, MNSPY_SUB); }

/* an operation of the vector alone: sqr, inv */
static PyObject *method_unary(VectorObject *v, PyObject *args, PyObject *kw, int op)
{
    static char *names[] = {"threads", NULL};
    PyObject *t = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", names, &t))
        return NULL;
    int threads = parse_threads(t);
    if (threads < 0)
        return NULL;
    if (op == MNSPY_INV && !v->field->api) /* else every element would read as not invertible */
        return mnspy_raise(MnsNotSupported, MNS_ENOTSUP, "inv: the constant-time API does not "
                           "serve this field (docs/field-api.md)");
    mnspy_job j = {0};
    j.op = op;
    return run_into_new(v, &j, threads);
}

static PyObject *vec_sqr(VectorObject *v, PyObject *a, PyObject *k) { return method_unary(v, a, k, MNSPY_SQR); }
static PyObject *vec_inv(VectorObject *v, PyObject *a, PyObject *k) { return method_unary(v, a, k, MNSPY_INV); }

/* The exponents as one block of ewords words each; *count 0 for a single one. */
static uint64_t *exponents(PyObject *e, Py_ssize_t n, size_t *ewords, Py_ssize_t *count)
{
    PyObject *seq = NULL;
    int single = PyLong_Check(e) || (PyIndex_Check(e) && !Element_Check(e));
    if (!single && !(seq = PySequence_Fast(e, "exponents: an integer or a sequence of integers")))
        return NULL;
    Py_ssize_t m = single ? 1 : PySequence_Fast_GET_SIZE(seq);
    PyObject **items = single ? &e : PySequence_Fast_ITEMS(seq);
    uint64_t *w = NULL;
    size_t k = 1;
    if (!single && m != n) {
        PyErr_Format(PyExc_ValueError, "%zd exponents for %zd elements", m, n);
        goto done;
    }
    PyObject **ints = PyMem_Calloc(m ? (size_t)m : 1, sizeof *ints);
    if (!ints) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t i;
    for (i = 0; i < m; i++) {
        if (Element_Check(items[i]) || !(ints[i] = PyNumber_Index(items[i]))) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "exponents must be integers");
            break;
        }
        if (mnspy_long_sign(ints[i]) < 0) {
            PyErr_SetString(PyExc_ValueError, "negative exponent in a vector powm");
            break;
        }
        Py_ssize_t need = mnspy_int_nwords(ints[i]);
        if (need < 0)
            break;
        k = (size_t)need > k ? (size_t)need : k;
    }
    const size_t total = (size_t)m * k;
    if (i == m && (w = PyMem_RawCalloc(total ? total : 1, 8)))
        for (i = 0; i < m && w; i++)
            if (mnspy_int_to_words(ints[i], w + (size_t)i * k, k) < 0)
                PyMem_RawFree(w), w = NULL;
    if (i == m && !w && !PyErr_Occurred())
        PyErr_NoMemory();
    for (i = 0; i < m; i++)
        Py_XDECREF(ints[i]);
    PyMem_Free(ints);
    *ewords = k;
    *count = single ? 0 : m;
done:
    Py_XDECREF(seq);
    return w;
}

static PyObject *vec_powm(VectorObject *v, PyObject *args, PyObject *kw)
{
    static char *names[] = {"e", "threads", NULL};
    PyObject *e, *t = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", names, &e, &t))
        return NULL;
    int threads = parse_threads(t);
    if (threads < 0)
        return NULL;
    mnspy_job j = {0};
    Py_ssize_t count = 0;
    uint64_t *w = exponents(e, v->n, &j.ewords, &count);
    if (!w)
        return NULL;
    j.op = MNSPY_POWM;
    j.e = w;
    j.estep = count ? j.ewords : 0;
    mpz_t z;
    for (Py_ssize_t i = 0; i < (count ? count : 1); i++) {
        mpz_roinit_n(z, (const mp_limb_t *)(w + (size_t)i * j.ewords), (mp_size_t)j.ewords);
        size_t bits = mpz_sgn(z) ? mpz_sizeinbase(z, 2) : 0;
        j.ebits = bits > j.ebits ? bits : j.ebits;
    }
    PyObject *r = run_into_new(v, &j, threads);
    PyMem_RawFree(w);
    return r;
}

static PyObject *vec_to_list(VectorObject *v, PyObject *unused)
{
    (void)unused;
    FieldObject *F = v->field;
    PyObject *list = PyList_New(v->n);
    uint64_t *c = list ? PyMem_Malloc(F->pwords * 8) : NULL;
    if (list && !c)
        PyErr_NoMemory();
    for (Py_ssize_t i = 0; c && i < v->n; i++) {
        PyObject *x = mnspy_canon(F, v->w + i * F->limbs, c) < 0 ? NULL : mnspy_words_to_int(c, F->pwords);
        if (!x) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, x);
    }
    if (!c)
        Py_CLEAR(list);
    PyMem_Free(c);
    return list;
}

/* The canonical values as uint64 words, pwords per value (least significant
 * first): a read-only memoryview of format 'Q' for array, NumPy and the like. */
static PyObject *vec_words(VectorObject *v, PyObject *unused)
{
    (void)unused;
    FieldObject *F = v->field;
    PyObject *b = PyBytes_FromStringAndSize(NULL, v->n * (Py_ssize_t)F->pwords * 8);
    if (!b)
        return NULL;
    uint64_t *out = (uint64_t *)PyBytes_AS_STRING(b);
    for (Py_ssize_t i = 0; i < v->n; i++)
        if (mnspy_canon(F, v->w + i * F->limbs, out + i * F->pwords) < 0) {
            Py_DECREF(b);
            return NULL;
        }
    PyObject *mv = PyMemoryView_FromObject(b);
    Py_DECREF(b);
    if (!mv)
        return NULL;
    PyObject *r = PyObject_CallMethod(mv, "cast", "s", "Q");
    Py_DECREF(mv);
    return r;
}

static PyObject *vec_reduce(VectorObject *v, PyObject *unused)
{
    PyObject *list = vec_to_list(v, unused);
    return list ? Py_BuildValue("O(ON)", Py_TYPE(v), v->field, list) : NULL;
}

static PyObject *vec_repr(VectorObject *v)
{
    return PyUnicode_FromFormat("mns.Vector(n=%zd, p=%S)", v->n, v->field->phex);
}

static PyObject *vec_get_field(VectorObject *v, void *c)
{
    (void)c;
    return Py_NewRef(v->field);
}

static PyObject *op_first(PyObject *a, PyObject *b, int op)
{
    if (Py_TYPE(a) == &MnsVector_Type)
        return binary((VectorObject *)a, b, op, 1, 1);
    if (op != MNSPY_SUB) /* commutative: the vector is the right operand */
        return binary((VectorObject *)b, a, op, 1, 1);
    return Py_NewRef(Py_NotImplemented);
}

static PyObject *vop_mul(PyObject *a, PyObject *b) { return op_first(a, b, MNSPY_MUL); }
static PyObject *vop_add(PyObject *a, PyObject *b) { return op_first(a, b, MNSPY_ADD); }
static PyObject *vop_sub(PyObject *a, PyObject *b) { return op_first(a, b, MNSPY_SUB); }

static PyObject *vop_pow(PyObject *a, PyObject *e, PyObject *mod)
{
    if (Py_TYPE(a) != &MnsVector_Type)
        return Py_NewRef(Py_NotImplemented);
    if (mod != Py_None)
        return PyErr_Format(PyExc_TypeError, "pow() with a modulus: the field already has one");
    PyObject *args = PyTuple_Pack(1, e);
    PyObject *r = args ? vec_powm((VectorObject *)a, args, NULL) : NULL;
    Py_XDECREF(args);
    return r;
}

static PyNumberMethods vec_number = {
    .nb_add = vop_add,
    .nb_subtract = vop_sub,
    .nb_multiply = vop_mul,
    .nb_power = vop_pow,
};

static PySequenceMethods vec_sequence = {
    .sq_length = (lenfunc)vector_len,
    .sq_item = (ssizeargfunc)vector_item,
};

static PyMethodDef vec_methods[] = {
    {"mul", (PyCFunction)(void (*)(void))vec_mul, METH_VARARGS | METH_KEYWORDS,
     "mul(other, threads=1): elementwise products (other: vector, element or integer)"},
    {"add", (PyCFunction)(void (*)(void))vec_add, METH_VARARGS | METH_KEYWORDS,
     "add(other, threads=1): elementwise sums"},
    {"sub", (PyCFunction)(void (*)(void))vec_sub, METH_VARARGS | METH_KEYWORDS,
     "sub(other, threads=1): elementwise differences"},
    {"sqr", (PyCFunction)(void (*)(void))vec_sqr, METH_VARARGS | METH_KEYWORDS,
     "sqr(threads=1): elementwise squares"},
    {"powm", (PyCFunction)(void (*)(void))vec_powm, METH_VARARGS | METH_KEYWORDS,
     "powm(e, threads=1): elementwise powers, e one integer >= 0 or one per element"},
    {"inv", (PyCFunction)(void (*)(void))vec_inv, METH_VARARGS | METH_KEYWORDS,
     "inv(threads=1): elementwise inverses (constant time); NotInvertibleError names the first "
     "element without one"},
    {"to_list", (PyCFunction)vec_to_list, METH_NOARGS, "the values as Python integers"},
    {"words", (PyCFunction)vec_words, METH_NOARGS,
     "the canonical values as a memoryview of uint64 words, field.pwords per value"},
    {"__reduce__", (PyCFunction)vec_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef vec_getset[] = {
    {"field", (getter)vec_get_field, NULL, "the vector's Field", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject MnsVector_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mns.Vector",
    .tp_basicsize = sizeof(VectorObject),
    .tp_dealloc = (destructor)vector_dealloc,
    .tp_repr = (reprfunc)vec_repr,
    .tp_as_number = &vec_number,
    .tp_as_sequence = &vec_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Vector(field, values): elements of one field for whole-array operations.",
    .tp_methods = vec_methods,
    .tp_getset = vec_getset,
    .tp_new = vector_new,
};
