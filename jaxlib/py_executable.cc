// Bindings: compilation and loaded executables.
#include "jaxlib/py_executable.h"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <deque>

#include "jaxlib/c_api_loader.h"
#include "jaxlib/pjrt_objects.h"
#include "jaxlib/program_format.h"

namespace nb = nanobind;

namespace jax {

void RegisterExecutable(nb::module_& m) {
  nb::class_<PyLoadedExecutable>(m, "LoadedExecutable")
      .def_prop_ro("client", &PyLoadedExecutable::client)
      .def("local_devices",
           [](const PyLoadedExecutable& e) {
             std::vector<std::shared_ptr<PyDevice>> out;
             for (const auto& d : e.devices()) {
               if (d->is_addressable) out.push_back(d);
             }
             return out;
           })
      .def("_all_devices", &PyLoadedExecutable::devices)
      .def("_num_outputs", &PyLoadedExecutable::num_outputs)
      .def("_num_replicas", &PyLoadedExecutable::num_replicas)
      .def("_optimized_hlo", &PyLoadedExecutable::optimized_program)
      .def_prop_ro("is_compile_only", &PyLoadedExecutable::is_compile_only)
      .def("size_of_generated_code_in_bytes",
           &PyLoadedExecutable::SizeOfGeneratedCodeInBytes)
      .def("_memory_stats", [](const PyLoadedExecutable& e) {
        PyLoadedExecutable::MemoryStats stats = e.GetMemoryStats();
        nb::dict d;
        d["generated_code_size_in_bytes"] = stats.generated_code_size;
        d["temp_size_in_bytes"] = stats.temp_size;
        d["argument_size_in_bytes"] = stats.argument_size;
        d["output_size_in_bytes"] = stats.output_size;
        d["alias_size_in_bytes"] = stats.alias_size;
        return d;
      })
      .def("_execute",
           [](PyLoadedExecutable& e, std::vector<std::vector<PyBuffer*>> args,
              std::vector<int64_t> donated) {
             nb::gil_scoped_release release;
             return e.Execute(args, donated);
           },
           nb::arg("arguments"), nb::arg("donated") = std::vector<int64_t>{})
      .def("serialize", [](const PyLoadedExecutable& e) {
        std::string s = e.Serialize();
        return nb::bytes(s.data(), s.size());
      });

  // `hlo_text` as jax lowers it; jaxlib turns it into PJRT's formats (an
  // HloModuleProto and a CompileOptionsProto placing replica r on devices[r]).
  m.def("compile",
        [](std::shared_ptr<PyClient> client, const std::string& hlo_text,
           std::vector<std::shared_ptr<PyDevice>> devices, int64_t num_replicas) {
          std::vector<int64_t> ids;
          for (const auto& d : devices) ids.push_back(d->id);
          nb::gil_scoped_release release;
          std::string program = HloTextToModuleProto(hlo_text);
          std::string options = ReplicatedCompileOptions(num_replicas, ids);
          return client->Compile(program, options, std::move(devices));
        },
        nb::arg("client"), nb::arg("hlo_text"), nb::arg("devices"), nb::arg("num_replicas") = 1);

  m.def("deserialize_and_load",
        [](std::shared_ptr<PyClient> client, nb::bytes serialized,
           std::vector<std::shared_ptr<PyDevice>> devices, int64_t num_replicas) {
          std::vector<int64_t> ids;
          for (const auto& d : devices) ids.push_back(d->id);
          std::string options = ReplicatedCompileOptions(num_replicas, ids);
          return client->DeserializeAndLoad(static_cast<const char*>(serialized.data()),
                                            serialized.size(), options, std::move(devices));
        },
        nb::arg("client"), nb::arg("serialized"), nb::arg("devices"), nb::arg("num_replicas") = 1);

  // HLO text as the serialized HloModuleProto jaxlib sends plugins (for tools
  // and tests that drive a plugin through the C API themselves).
  m.def("_hlo_text_to_module_proto", [](const std::string& hlo_text) {
    std::string bytes = HloTextToModuleProto(hlo_text);
    return nb::bytes(bytes.data(), bytes.size());
  });
  m.def("_replicated_compile_options",
        [](int64_t num_replicas, std::vector<int64_t> device_ids) {
          std::string bytes = ReplicatedCompileOptions(num_replicas, device_ids);
          return nb::bytes(bytes.data(), bytes.size());
        },
        nb::arg("num_replicas") = 1, nb::arg("device_ids") = std::vector<int64_t>{});

  // An optimized program as HLO text (tests and tools reading PJRT formats).
  m.def("_decode_program", [](const std::string& format, nb::bytes bytes) {
    return DecodeProgramFormat(format, std::string(static_cast<const char*>(bytes.data()),
                                                   bytes.size()));
  });
}

}  // namespace jax
