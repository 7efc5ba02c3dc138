/* A plugin's small Python extension, written against the stable ABI
 * (Py_LIMITED_API 3.10) so one wheel serves every Python from 3.10 on.
 *
 * It reports what the plugin was built with: its release version and the C API
 * version of the header it was compiled against. jax compares these with the
 * wheel's manifest and with jaxlib before it loads the plugin library.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "xla/pjrt/c/pjrt_c_api.h"

#ifndef JAX_PLUGIN_VERSION
#error "JAX_PLUGIN_VERSION must be defined by the build"
#endif
#ifndef JAX_PLUGIN_MODULE
#error "JAX_PLUGIN_MODULE must be defined by the build"
#endif

#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)
#define STR_(a) #a
#define STR(a) STR_(a)

static PyObject* plugin_version(PyObject* self, PyObject* unused) {
  return PyUnicode_FromString(JAX_PLUGIN_VERSION);
}

static PyObject* c_api_version(PyObject* self, PyObject* unused) {
  return Py_BuildValue("(ii)", PJRT_API_MAJOR, PJRT_API_MINOR);
}

static PyMethodDef methods[] = {
    {"plugin_version", plugin_version, METH_NOARGS, "The release this plugin was built for."},
    {"c_api_version", c_api_version, METH_NOARGS, "(major, minor) of the plugin C API it implements."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, STR(JAX_PLUGIN_MODULE),
    "Build facts of this plugin (stable-ABI extension).", -1, methods,
};

PyMODINIT_FUNC CONCAT(PyInit_, JAX_PLUGIN_MODULE)(void) { return PyModule_Create(&module); }
