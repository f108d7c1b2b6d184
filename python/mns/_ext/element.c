/* mns._ext.Element: an immutable field element, its limbs inside the object.
 * Operands may be elements of the same field or integers (anything with
 * __index__); elements of another field raise ValueError, other types give
 * NotImplemented (so Python raises TypeError). Products and powers are
 * tight; sums and differences stay loose while a product accepts them (see
 * addsub), and whatever needs the value (int, ==, hash, bytes) reduces a
 * copy first. The calls of the constant-time element API (inverse, square
 * root, bytes) are in elemapi.c. */
#include "ext.h"

/* An operand's words: the element's own, or an integer converted into buf
 * (heap when buf is too small; free with operand_done); k as in
 * ElementObject. */
typedef struct {
    const uint64_t *w;
    uint64_t *heap;
    int k;
    uint64_t buf[MNSPY_STACK_WORDS];
} operand;

static uint64_t *operand_space(FieldObject *F, operand *op)
{
    if (F->limbs <= MNSPY_STACK_WORDS)
        return op->buf;
    if (!op->heap && !(op->heap = PyMem_Calloc(F->limbs, 8)))
        PyErr_NoMemory();
    return op->heap;
}

static void operand_elem(operand *op, const ElementObject *a)
{
    op->heap = NULL;
    op->w = a->w;
    op->k = a->k;
}

/* 0: op->w set; 1: not an operand type (NotImplemented); -1: error raised. */
static int operand_get(FieldObject *F, PyObject *x, operand *op)
{
    op->heap = NULL;
    op->k = 1;
    if (Element_Check(x)) {
        if (((ElementObject *)x)->field != F) {
            PyErr_SetString(PyExc_ValueError, "elements of different fields");
            return -1;
        }
        operand_elem(op, (ElementObject *)x);
        return 0;
    }
    if (!PyLong_Check(x) && !PyIndex_Check(x))
        return 1;
    uint64_t *w = operand_space(F, op);
    if (!w)
        return -1;
    op->w = w;
    return mnspy_int_to_elem(F, x, w);
}

/* Makes the operand tight (into its own space when it is an element's). */
static int operand_tighten(FieldObject *F, operand *op)
{
    if (op->k == 1)
        return 0;
    uint64_t *w = operand_space(F, op);
    if (!w)
        return -1;
    mns_field_reduce(F->f, w, op->w);
    op->w = w;
    op->k = 1;
    return 0;
}

static void operand_done(operand *op) { PyMem_Free(op->heap); }

/* r <- x + y or x - y. The sum stays loose while a product accepts it (k
 * tight summands up to delta + 1): backends whose reduction costs about a
 * product (pmns-mp, rns) then pay it only when a chain of additions needs
 * it. */
static int addsub(FieldObject *F, ElementObject *r, operand *x, operand *y, int sub)
{
    /* the library subtracts tight elements only (mns.h): a subtrahend that
     * is itself a sum is made tight first (u52 PMNS computes a + Z - b with
     * Z just above a tight b's coefficients, and a loose b made them wrap:
     * -S of a sum S was wrong on pmns-ifma at 521 bits) */
    if (sub && y->k > 1 && operand_tighten(F, y) < 0)
        return -1;
    if (!F->full_reduce && x->k + y->k > F->kmax &&
        (operand_tighten(F, x) < 0 || operand_tighten(F, y) < 0))
        return -1;
    (sub ? mns_field_sub : mns_field_add)(F->f, r->w, x->w, y->w);
    r->k = F->full_reduce ? 1 : x->k + y->k;
    if (r->k > F->kmax) { /* delta 0: the sum of two tight elements, reduced at once */
        mns_field_reduce(F->f, r->w, r->w);
        r->k = 1;
    }
    return 0;
}

enum { OP_MUL, OP_ADD, OP_SUB, OP_DIV };

/* a / b = a * b^-1 (the constant-time inverse); NotInvertibleError (a
 * ZeroDivisionError and a ValueError) when b has none. */
static int divide(FieldObject *F, ElementObject *r, const operand *x, const operand *y)
{
    if (mnspy_inverse(F, r->w, y->w, 0) < 0)
        return -1;
    mns_field_mul(F->f, r->w, x->w, r->w);
    return 0;
}

static PyObject *binary(PyObject *a, PyObject *b, int op)
{
    FieldObject *F = Element_Check(a) ? ((ElementObject *)a)->field : ((ElementObject *)b)->field;
    operand x, y;
    int rc = operand_get(F, a, &x);
    if (rc)
        return rc > 0 ? Py_NewRef(Py_NotImplemented) : NULL;
    rc = operand_get(F, b, &y);
    if (rc) {
        operand_done(&x);
        return rc > 0 ? Py_NewRef(Py_NotImplemented) : NULL;
    }
    ElementObject *r = mnspy_elem_new(F);
    if (r) {
        if (op == OP_DIV) {
            if (divide(F, r, &x, &y) < 0)
                Py_CLEAR(r);
        } else if (op != OP_MUL) {
            if (addsub(F, r, &x, &y, op == OP_SUB) < 0)
                Py_CLEAR(r);
        } else if (a == b)
            mns_field_sqr(F->f, r->w, x.w);
        else
            mns_field_mul(F->f, r->w, x.w, y.w);
    }
    operand_done(&x);
    operand_done(&y);
    return (PyObject *)r;
}

static PyObject *elem_mul(PyObject *a, PyObject *b) { return binary(a, b, OP_MUL); }
static PyObject *elem_add(PyObject *a, PyObject *b) { return binary(a, b, OP_ADD); }
static PyObject *elem_sub(PyObject *a, PyObject *b) { return binary(a, b, OP_SUB); }
static PyObject *elem_div(PyObject *a, PyObject *b) { return binary(a, b, OP_DIV); }

static PyObject *elem_neg(ElementObject *a)
{
    FieldObject *F = a->field;
    ElementObject *r = mnspy_elem_new(F);
    operand zero = {.w = F->zero, .heap = NULL, .k = 1}, x;
    operand_elem(&x, a);
    if (r && addsub(F, r, &zero, &x, 1) < 0)
        Py_CLEAR(r);
    operand_done(&x);
    return (PyObject *)r;
}

static PyObject *elem_pos(ElementObject *a) { return Py_NewRef(a); }

/* r <- a^e, e >= 0 given as en words, without the GIL: the library's
 * constant-time exponentiation (its window table on the C stack), or with
 * var the sliding window of mns_field_powm_var for a public e. */
int mnspy_powm_words(FieldObject *F, uint64_t *r, const uint64_t *a, const uint64_t *e, size_t en,
                     int var)
{
    while (en && !e[en - 1])
        en--;
    mpz_t z;
    mpz_roinit_n(z, (const mp_limb_t *)e, (mp_size_t)en);
    Py_BEGIN_ALLOW_THREADS
    (var ? mns_field_powm_var : mns_field_powm)(F->f, r, a, z);
    Py_END_ALLOW_THREADS
    return 0;
}

/* r <- a^e for an element a and an integer e of any sign: a negative e is
 * the inverse (constant time, mns_field_inv; with var, for public values,
 * mns_field_inv_var) raised to -e. */
int mnspy_elem_power(ElementObject *a, PyObject *e, ElementObject *r, int var)
{
    FieldObject *F = a->field;
    if (Element_Check(e) || !(PyLong_Check(e) || PyIndex_Check(e))) {
        PyErr_Format(PyExc_TypeError, "exponent must be an integer, not %.100s", Py_TYPE(e)->tp_name);
        return -1;
    }
    PyObject *ei = PyNumber_Index(e);
    if (!ei)
        return -1;
    uint64_t stack[MNSPY_STACK_WORDS];
    size_t n = 0;
    int sign = 0;
    uint64_t *w = mnspy_int_words(ei, &n, &sign, stack, 0);
    Py_DECREF(ei);
    if (!w)
        return -1;
    operand x;
    operand_elem(&x, a);
    int rc = operand_tighten(F, &x);
    if (rc == 0 && sign < 0) {
        rc = mnspy_inverse(F, r->w, x.w, var);
        /* e = -1: the inverse is the answer */
        if (rc == 0 && !(n == 1 && w[0] == 1))
            rc = mnspy_powm_words(F, r->w, r->w, w, n, var);
    } else if (rc == 0)
        rc = mnspy_powm_words(F, r->w, x.w, w, n, var);
    operand_done(&x);
    if (w != stack)
        PyMem_Free(w);
    return rc;
}

static PyObject *elem_pow(PyObject *a, PyObject *e, PyObject *mod)
{
    if (!Element_Check(a))
        return Py_NewRef(Py_NotImplemented);
    if (mod != Py_None)
        return PyErr_Format(PyExc_TypeError, "pow() with a modulus: the field already has one");
    ElementObject *r = mnspy_elem_new(((ElementObject *)a)->field);
    if (r && mnspy_elem_power((ElementObject *)a, e, r, 0) < 0)
        Py_CLEAR(r);
    return (PyObject *)r;
}

/* The canonical words of a, in buf when they fit (else heap, freed by the
 * caller when it is not buf); NULL on error. */
uint64_t *mnspy_canon_words(ElementObject *a, uint64_t *buf)
{
    FieldObject *F = a->field;
    uint64_t *c = F->pwords <= MNSPY_STACK_WORDS ? buf : PyMem_Malloc(F->pwords * 8);
    if (!c)
        return (uint64_t *)PyErr_NoMemory();
    operand x;
    operand_elem(&x, a);
    int rc = operand_tighten(F, &x);
    if (rc == 0)
        rc = mnspy_canon(F, x.w, c);
    operand_done(&x);
    if (rc < 0) {
        if (c != buf)
            PyMem_Free(c);
        return NULL;
    }
    return c;
}

static PyObject *elem_int(ElementObject *a)
{
    uint64_t buf[MNSPY_STACK_WORDS], *c = mnspy_canon_words(a, buf);
    if (!c)
        return NULL;
    PyObject *r = mnspy_words_to_int(c, a->field->pwords);
    if (c != buf)
        PyMem_Free(c);
    return r;
}

static int elem_bool(ElementObject *a)
{
    uint64_t buf[MNSPY_STACK_WORDS], *c = mnspy_canon_words(a, buf);
    if (!c)
        return -1;
    uint64_t any = 0;
    for (size_t i = 0; i < a->field->pwords; i++)
        any |= c[i];
    if (c != buf)
        PyMem_Free(c);
    return any != 0;
}

static PyNumberMethods elem_number = {
    .nb_add = elem_add,
    .nb_subtract = elem_sub,
    .nb_multiply = elem_mul,
    .nb_power = elem_pow,
    .nb_true_divide = elem_div,
    .nb_negative = (unaryfunc)elem_neg,
    .nb_positive = (unaryfunc)elem_pos,
    .nb_bool = (inquiry)elem_bool,
    .nb_int = (unaryfunc)elem_int,
};

/* 1 if x and y (operands of F) are the same value, 0 if not, -1 on error.
 * Equal words are one value; where the tight form is unique (mont) unequal
 * tight words are two; otherwise the difference is converted once. */
static int equals(FieldObject *F, operand *x, operand *y)
{
    if (x->k == y->k && !memcmp(x->w, y->w, F->limbs * 8))
        return 1;
    if (F->unique_tight && x->k == 1 && y->k == 1)
        return 0;
    ElementObject *d = mnspy_elem_new(F);
    if (!d || addsub(F, d, x, y, 1) < 0) {
        Py_XDECREF(d);
        return -1;
    }
    uint64_t buf[MNSPY_STACK_WORDS], *c = mnspy_canon_words(d, buf);
    int eq = -1;
    if (c) {
        uint64_t any = 0;
        for (size_t i = 0; i < F->pwords; i++)
            any |= c[i];
        eq = any == 0;
        if (c != buf)
            PyMem_Free(c);
    }
    Py_DECREF(d);
    return eq;
}

static int equals_obj(ElementObject *a, PyObject *b)
{
    FieldObject *F = a->field;
    if (Element_Check(b) && ((ElementObject *)b)->field != F)
        return 0; /* elements of two fields are never equal */
    operand x, y;
    operand_elem(&x, a);
    int rc = operand_get(F, b, &y);
    if (rc == 0)
        rc = equals(F, &x, &y);
    operand_done(&x);
    operand_done(&y);
    return rc;
}

static PyObject *elem_richcompare(PyObject *a, PyObject *b, int op)
{
    if ((op != Py_EQ && op != Py_NE) || !Element_Check(a))
        return Py_NewRef(Py_NotImplemented);
    if (!Element_Check(b) && !PyLong_Check(b) && !PyIndex_Check(b))
        return Py_NewRef(Py_NotImplemented);
    int eq = equals_obj((ElementObject *)a, b);
    if (eq < 0)
        return NULL;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

/* Equal elements (same field, same value) hash alike; the field takes part
 * so that the same value in two fields does not collide. */
static Py_hash_t elem_hash(ElementObject *a)
{
    if (a->hash != -1)
        return a->hash;
    uint64_t buf[MNSPY_STACK_WORDS], *c = mnspy_canon_words(a, buf);
    if (!c)
        return -1;
    uint64_t h = 0xcbf29ce484222325u ^ (uint64_t)(uintptr_t)a->field;
    for (size_t i = 0; i < a->field->pwords; i++)
        h = (h ^ c[i]) * 0x100000001b3u;
    if (c != buf)
        PyMem_Free(c);
    Py_hash_t r = (Py_hash_t)(h ^ (h >> 29));
    a->hash = r == -1 ? -2 : r;
    return a->hash;
}

static PyObject *elem_repr(ElementObject *a)
{
    PyObject *v = elem_int(a);
    if (!v)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("mns.Element(%S, p=%S)", v, a->field->phex);
    Py_DECREF(v);
    return r;
}

static PyObject *elem_str(ElementObject *a)
{
    PyObject *v = elem_int(a);
    if (!v)
        return NULL;
    PyObject *r = PyObject_Str(v);
    Py_DECREF(v);
    return r;
}

/* pickle: the field (pickled once per pickle) and the value */
static PyObject *elem_reduce(ElementObject *a, PyObject *unused)
{
    (void)unused;
    PyObject *v = elem_int(a);
    return v ? Py_BuildValue("O(N)", a->field, v) : NULL;
}

/* immutable: copies are the element itself (a deep copy would otherwise
 * rebuild the field and make the copy foreign to the original) */
static PyObject *elem_copy(PyObject *a, PyObject *unused)
{
    (void)unused;
    return Py_NewRef(a);
}

static PyObject *elem_get_field(ElementObject *a, void *c)
{
    (void)c;
    return Py_NewRef(a->field);
}

static PyMethodDef elem_methods[] = {
    {"__bytes__", (PyCFunction)mnspy_elem_bytes, METH_NOARGS,
     "the canonical value, big-endian, in the byte length of p"},
    {"to_bytes", (PyCFunction)(void (*)(void))mnspy_elem_to_bytes, METH_FASTCALL | METH_KEYWORDS,
     "to_bytes(length=None, byteorder='big'): the canonical value in length bytes "
     "(None: the byte length of p); constant time"},
    {"inv", (PyCFunction)mnspy_elem_inv, METH_NOARGS,
     "the inverse (constant time); NotInvertibleError (ZeroDivisionError, ValueError) if none"},
    {"sqrt", (PyCFunction)mnspy_elem_sqrt, METH_NOARGS,
     "a square root (constant time, p prime); ValueError if not a square"},
    {"legendre", (PyCFunction)mnspy_elem_legendre, METH_NOARGS,
     "the Legendre symbol (x / p) for a prime p: 0, 1 or -1 (constant time)"},
    {"pow", (PyCFunction)(void (*)(void))mnspy_elem_pow_method, METH_FASTCALL | METH_KEYWORDS,
     "pow(e, public=False): x ** e; public=True: variable time in e (sliding window)"},
    {"__reduce__", (PyCFunction)elem_reduce, METH_NOARGS, NULL},
    {"__copy__", (PyCFunction)elem_copy, METH_NOARGS, NULL},
    {"__deepcopy__", (PyCFunction)elem_copy, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef elem_getset[] = {
    {"field", (getter)elem_get_field, NULL, "the element's Field", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static void elem_dealloc(ElementObject *a)
{
    Py_DECREF(a->field);
    PyObject_Free(a);
}

PyTypeObject MnsElement_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mns.Element",
    .tp_basicsize = offsetof(ElementObject, w),
    .tp_itemsize = sizeof(uint64_t),
    .tp_dealloc = (destructor)elem_dealloc,
    .tp_repr = (reprfunc)elem_repr,
    .tp_str = (reprfunc)elem_str,
    .tp_as_number = &elem_number,
    .tp_hash = (hashfunc)elem_hash,
    .tp_richcompare = elem_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An element of an mns.Field, made by calling the field: F(x). Immutable.",
    .tp_methods = elem_methods,
    .tp_getset = elem_getset,
};
