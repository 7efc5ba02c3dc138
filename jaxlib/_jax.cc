// The jaxlib extension module: an index of the binding units.
#include <nanobind/nanobind.h>

#include "jaxlib/jit_fast_path.h"
#include "jaxlib/py_array.h"
#include "jaxlib/py_client.h"
#include "jaxlib/py_custom_call.h"
#include "jaxlib/py_device_list.h"
#include "jaxlib/py_executable.h"
#include "jaxlib/py_host_callback.h"
#include "jaxlib/py_topology.h"
#include "jaxlib/pytree.h"
#include "jaxlib/status_casters.h"

namespace nb = nanobind;

// Bumped whenever the extension gains a feature that jax may test for.
#define JAXLIB_EXTENSION_VERSION 6

NB_MODULE(_jax, m) {
  m.doc() = "jaxlib's native core: loads plugins and drives them through the C API.";
  m.attr("_version") = JAXLIB_EXTENSION_VERSION;
  // jax keeps jitted functions (and through them executables, clients and
  // treedefs) in module globals, e.g. the compiled jnp ufuncs. CPython's
  // finalization may free this module before it clears those globals, and
  // nanobind would then report every such object as leaked at exit.
  nb::set_leak_warnings(false);
  static nb::exception<jax::XlaRuntimeError> xla_runtime_error(m, "XlaRuntimeError", PyExc_RuntimeError);
  static nb::exception<jax::PluginLoadError> plugin_load_error(m, "PluginLoadError", PyExc_RuntimeError);
  jax::RegisterClient(m);
  jax::RegisterTopology(m);
  jax::RegisterDeviceList(m);
  jax::RegisterArray(m);
  jax::RegisterExecutable(m);
  jax::RegisterHostCallbacks(m);
  jax::RegisterCustomCalls(m);
  jax::RegisterPyTree(m);
  jax::RegisterJitFastPath(m);
}
