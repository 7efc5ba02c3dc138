// Bindings: compile-only topologies (PJRT_TopologyDescription) and the
// compile-only clients over them.
#include "jaxlib/py_topology.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <deque>

#include "jaxlib/c_api_loader.h"
#include "jaxlib/pjrt_objects.h"
#include "jaxlib/pjrt_topology.h"
#include "jaxlib/py_client.h"

namespace nb = nanobind;

namespace jax {

void RegisterTopology(nb::module_& m) {
  nb::class_<PjrtTopology>(m, "TopologyDescription",
                           "A plugin's description of devices that need not be present "
                           "(compile-only).")
      .def_prop_ro("name", &PjrtTopology::name)
      .def_prop_ro("platform", &PjrtTopology::platform)
      .def_prop_ro("platform_version", &PjrtTopology::platform_version)
      .def_prop_ro("plugin", &PjrtTopology::plugin)
      .def("serialize", [](const PjrtTopology& t) {
        std::string s = t.Serialize();
        return nb::bytes(s.data(), s.size());
      })
      .def("_device_attributes", [](const PjrtTopology& t) {
        std::vector<std::map<std::string, AttributeValue>> out;
        for (const auto& d : t.devices()) out.push_back(d.attributes);
        return out;
      })
      .def("__repr__", [](const PjrtTopology& t) {
        return "TopologyDescription(platform=" + t.platform() + ", name='" + t.name() +
               "', devices=" + std::to_string(t.devices().size()) + ")";
      });

  m.def("make_topology",
        [](std::shared_ptr<Plugin> plugin, const std::string& name, nb::dict options) {
          std::deque<std::string> strings;
          std::deque<std::vector<int64_t>> lists;
          auto values = ToNamedValues(options, strings, lists);
          return PjrtTopology::Create(std::move(plugin), name, values);
        },
        nb::arg("plugin"), nb::arg("topology_name") = "", nb::arg("options") = nb::dict(),
        "PJRT_TopologyDescription_Create on the plugin's table (no client needed).");

  m.def("make_compile_only_client", &PyClient::CreateCompileOnly, nb::arg("topology"),
        "A client whose devices are the topology's: it compiles (PJRT_Compile without a "
        "client) and refuses transfers and execution.");
}

}  // namespace jax
