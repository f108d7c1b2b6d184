/* The module mns._ext: registers the types and takes the library's
 * exception classes from mns._errors, so that a failure raised here is the
 * same exception as one raised through the cffi layer. */
#include "ext.h"

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "mns._ext",
    .m_doc = "Fields, elements and vectors of mns as CPython types.",
    .m_size = -1,
};

static int add_type(PyObject *m, PyTypeObject *t, const char *name)
{
    if (PyType_Ready(t) < 0)
        return -1;
    Py_INCREF(t);
    if (PyModule_AddObject(m, name, (PyObject *)t) < 0) {
        Py_DECREF(t);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__ext(void)
{
    PyObject *errors = PyImport_ImportModule("mns._errors");
    if (!errors)
        return NULL;
    MnsInvalidArgument = PyObject_GetAttrString(errors, "InvalidArgumentError");
    MnsNotSupported = PyObject_GetAttrString(errors, "NotSupportedError");
    MnsNotInvertible = PyObject_GetAttrString(errors, "NotInvertibleError");
    Py_DECREF(errors);
    if (!MnsInvalidArgument || !MnsNotSupported || !MnsNotInvertible)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    if (add_type(m, &MnsField_Type, "Field") < 0 || add_type(m, &MnsElement_Type, "Element") < 0 ||
        add_type(m, &MnsVector_Type, "Vector") < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
