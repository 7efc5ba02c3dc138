// Python host callbacks through the C API host-callback extension.
//
// jaxlib registers one C function (Trampoline) per Python callable, with a
// heap-allocated context holding the callable and the byte sizes of its
// operands and results. At run time the plugin calls the trampoline from a
// runtime thread; it takes the GIL and calls `callable(operands, results)`
// with lists of memoryviews over the buffers (read-only operands, writable
// results), valid only during the call. A Python exception fails the run with
// its message.
#include "jaxlib/py_host_callback.h"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "jaxlib/c_api_loader.h"
#include "jaxlib/pjrt_objects.h"
#include "jaxlib/status_casters.h"
#include "xla/pjrt/c/pjrt_c_api_host_extensions.h"
#include "xla/pjrt/c/utf8.h"

namespace nb = nanobind;

namespace jax {
namespace {

struct CallbackContext {
  nb::object callable;  // null once released at interpreter exit
  std::vector<int64_t> operand_nbytes;
  std::vector<int64_t> result_nbytes;
};

// Every context ever registered. The contexts outlive the interpreter, but their
// Python objects are dropped when it exits (ReleaseCallables), so that the
// callables and what they hold are finalized with everything else.
std::vector<CallbackContext*>& AllContexts() {
  static auto* contexts = new std::vector<CallbackContext*>();
  return *contexts;
}

void ReleaseCallables() {
  for (CallbackContext* ctx : AllContexts()) ctx->callable.reset();
}

const PJRT_HostCallback_Extension* FindExtension(const PJRT_Api* api) {
  return jax::FindExtension<PJRT_HostCallback_Extension>(
      api, PJRT_EXTENSION_JAX_HOST_CALLBACK, PJRT_HostCallback_Extension_STRUCT_SIZE);
}

nb::list MemoryViews(const void* const* buffers, const std::vector<int64_t>& nbytes,
                     int flags) {
  nb::list views;
  for (size_t i = 0; i < nbytes.size(); ++i) {
    PyObject* view = PyMemoryView_FromMemory(
        static_cast<char*>(const_cast<void*>(buffers[i])), nbytes[i], flags);
    if (view == nullptr) throw nb::python_error();
    views.append(nb::steal(view));
  }
  return views;
}

// "ValueError: message": what Python would print last, without the traceback.
std::string ExceptionSummary(nb::python_error& e) {
  try {
    return nb::cast<std::string>(nb::str(e.type().attr("__name__"))) + ": " +
           nb::cast<std::string>(nb::str(e.value()));
  } catch (...) {
    return e.what();
  }
}

bool Trampoline(void* user_data, const void* const* operands, size_t num_operands,
                void* const* results, size_t num_results, char* error, size_t error_size) {
  auto* ctx = static_cast<CallbackContext*>(user_data);
  if (num_operands != ctx->operand_nbytes.size() || num_results != ctx->result_nbytes.size()) {
    xla::CopyErrorText("the call has " + std::to_string(num_operands) + " operands and " +
                   std::to_string(num_results) + " results, but the callback was registered for " +
                   std::to_string(ctx->operand_nbytes.size()) + " and " +
                   std::to_string(ctx->result_nbytes.size()),
               error, error_size);
    return false;
  }
  nb::gil_scoped_acquire gil;
  if (!ctx->callable.is_valid()) {
    xla::CopyErrorText("host callback called after the Python interpreter started exiting", error,
               error_size);
    return false;
  }
  try {
    nb::list ins = MemoryViews(operands, ctx->operand_nbytes, PyBUF_READ);
    nb::list outs = MemoryViews(const_cast<const void* const*>(results), ctx->result_nbytes,
                                PyBUF_WRITE);
    ctx->callable(ins, outs);
    return true;
  } catch (nb::python_error& e) {
    xla::CopyErrorText(ExceptionSummary(e), error, error_size);
    return false;
  } catch (std::exception& e) {
    xla::CopyErrorText(e.what(), error, error_size);
    return false;
  }
}

}  // namespace

void RegisterHostCallbacks(nb::module_& m) {
  nb::module_::import_("atexit").attr("register")(nb::cpp_function(&ReleaseCallables));
  m.def("_host_callbacks_supported",
        [](std::shared_ptr<PyClient> client) { return FindExtension(client->api()) != nullptr; },
        nb::arg("client"));
  m.def(
      "_register_host_callback",
      [](std::shared_ptr<PyClient> client, nb::object callable,
         std::vector<int64_t> operand_nbytes, std::vector<int64_t> result_nbytes) -> uint64_t {
        const PJRT_HostCallback_Extension* ext = FindExtension(client->api());
        if (ext == nullptr) {
          throw XlaRuntimeError("UNIMPLEMENTED: the plugin " + client->plugin()->path +
                                " has no host-callback extension");
        }
        // Never freed: a compiled program may call it for as long as the process runs.
        auto* ctx = new CallbackContext{std::move(callable), std::move(operand_nbytes),
                                        std::move(result_nbytes)};
        PJRT_HostCallback_Register_Args args;
        std::memset(&args, 0, sizeof(args));
        args.struct_size = PJRT_HostCallback_Register_Args_STRUCT_SIZE;
        args.callback = &Trampoline;
        args.user_data = ctx;
        ThrowIfError(client->api(), ext->register_callback(&args));
        AllContexts().push_back(ctx);
        return args.index;
      },
      nb::arg("client"), nb::arg("callable"), nb::arg("operand_nbytes"),
      nb::arg("result_nbytes"));
}

}  // namespace jax
