#include "jaxlib/py_custom_call.h"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <memory>
#include <string>

#include "jaxlib/c_api_loader.h"
#include "jaxlib/status_casters.h"
#include "xla/pjrt/c/pjrt_c_api_host_extensions.h"

namespace nb = nanobind;

namespace jax {
namespace {

const PJRT_CustomCall_Extension* FindExtension(const PJRT_Api* api) {
  return jax::FindExtension<PJRT_CustomCall_Extension>(
      api, PJRT_EXTENSION_JAX_CUSTOM_CALL, PJRT_CustomCall_Extension_STRUCT_SIZE);
}

// The function pointer a PyCapsule holds, whatever its name.
void* CapsulePointer(nb::handle capsule) {
  if (!PyCapsule_CheckExact(capsule.ptr())) {
    throw nb::type_error(("a custom-call target must be a PyCapsule holding a function "
                          "pointer, got " +
                          std::string(nb::type_name(capsule.type()).c_str()))
                             .c_str());
  }
  void* pointer = PyCapsule_GetPointer(capsule.ptr(), PyCapsule_GetName(capsule.ptr()));
  if (pointer == nullptr) throw nb::python_error();
  return pointer;
}

}  // namespace

void RegisterCustomCalls(nb::module_& m) {
  m.def("_custom_calls_supported",
        [](std::shared_ptr<Plugin> plugin) { return FindExtension(plugin->api) != nullptr; },
        nb::arg("plugin"));
  m.def(
      "_register_custom_call_target",
      [](std::shared_ptr<Plugin> plugin, const std::string& name, nb::handle capsule,
         int api_version) {
        const PJRT_CustomCall_Extension* ext = FindExtension(plugin->api);
        if (ext == nullptr) {
          throw XlaRuntimeError("UNIMPLEMENTED: the plugin " + plugin->path +
                                " has no custom-call extension");
        }
        PJRT_CustomCall_Register_Args args;
        std::memset(&args, 0, sizeof(args));
        args.struct_size = PJRT_CustomCall_Register_Args_STRUCT_SIZE;
        args.name = name.data();
        args.name_size = name.size();
        args.api_version = api_version;
        args.function = CapsulePointer(capsule);
        ThrowIfError(plugin->api, ext->register_custom_call(&args));
      },
      nb::arg("plugin"), nb::arg("name"), nb::arg("capsule"), nb::arg("api_version"));
}

}  // namespace jax
