// Bindings: compilation and loaded executables.
#include "jaxlib/py_executable.h"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <deque>

#include "jaxlib/c_api_loader.h"
#include "jaxlib/pjrt_objects.h"

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
      .def("_optimized_hlo", &PyLoadedExecutable::optimized_hlo)
      .def("_memory_stats", [](const PyLoadedExecutable& e) {
        PJRT_LoadedExecutable_Info_Args info = e.Info();
        nb::dict d;
        d["generated_code_size_in_bytes"] = info.generated_code_size;
        d["temp_size_in_bytes"] = info.temp_size;
        d["argument_size_in_bytes"] = info.argument_size;
        d["output_size_in_bytes"] = info.output_size;
        d["alias_size_in_bytes"] = info.alias_size;
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

  m.def("compile",
        [](std::shared_ptr<PyClient> client, const std::string& format, const std::string& code,
           std::vector<std::shared_ptr<PyDevice>> devices, std::vector<std::string> option_names,
           std::vector<int64_t> option_values) {
          std::vector<PJRT_Device*> c_devices;
          for (const auto& d : devices) c_devices.push_back(d->c_device());
          std::vector<PJRT_NamedValue> options(option_names.size());
          for (size_t i = 0; i < options.size(); ++i) {
            std::memset(&options[i], 0, sizeof(PJRT_NamedValue));
            options[i].struct_size = PjrtStructSize<PJRT_NamedValue>::value;
            options[i].name = option_names[i].data();
            options[i].name_size = option_names[i].size();
            options[i].type = PJRT_NamedValue_kInt64;
            options[i].int64_value = option_values[i];
            options[i].value_size = 1;
          }
          nb::gil_scoped_release release;
          return client->Compile(format, code, c_devices, options);
        },
        nb::arg("client"), nb::arg("format"), nb::arg("code"), nb::arg("devices"),
        nb::arg("option_names") = std::vector<std::string>{},
        nb::arg("option_values") = std::vector<int64_t>{});

  m.def("deserialize_and_load",
        [](std::shared_ptr<PyClient> client, nb::bytes serialized,
           std::vector<std::shared_ptr<PyDevice>> devices) {
          std::vector<PJRT_Device*> c_devices;
          for (const auto& d : devices) c_devices.push_back(d->c_device());
          return client->DeserializeAndLoad(static_cast<const char*>(serialized.data()),
                                            serialized.size(), c_devices);
        });
}

}  // namespace jax
