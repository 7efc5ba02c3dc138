// Bindings: plugin loading, Client, Device, Memory.
#include "jaxlib/py_client.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <deque>

#include "jaxlib/c_api_loader.h"
#include "jaxlib/pjrt_objects.h"
#include "jaxlib/status_casters.h"
#include "xla/pjrt/c/utf8.h"

namespace nb = nanobind;

namespace jax {

namespace {

// The plugin calls these from its own threads: they take the GIL, call the Python
// key-value store (jax.distributed's client), and turn a Python exception into an
// error made by the plugin's own callback_error.
PJRT_Error* KvError(PJRT_CallbackError* make_error, const char* what) {
  std::string message = xla::ToValidUtf8(what);
  if (make_error == nullptr || *make_error == nullptr) return nullptr;
  return (*make_error)(PJRT_Error_Code_UNAVAILABLE, message.data(), message.size());
}

PJRT_Error* KvGetCallback(PJRT_KeyValueGetCallback_Args* args) {
  nb::gil_scoped_acquire gil;
  try {
    auto* store = static_cast<nb::object*>(args->user_arg);
    nb::bytes value = nb::cast<nb::bytes>(store->attr("blocking_key_value_get_bytes")(
        nb::str(args->key, args->key_size), args->timeout_in_ms));
    char* copy = new char[value.size() + 1];
    std::memcpy(copy, value.c_str(), value.size());
    args->value = copy;
    args->value_size = value.size();
    args->value_deleter_callback = [](char* v) { delete[] v; };
    return nullptr;
  } catch (const std::exception& e) {
    return KvError(args->callback_error, e.what());
  }
}

PJRT_Error* KvPutCallback(PJRT_KeyValuePutCallback_Args* args) {
  nb::gil_scoped_acquire gil;
  try {
    auto* store = static_cast<nb::object*>(args->user_arg);
    store->attr("key_value_set_bytes")(nb::str(args->key, args->key_size),
                                       nb::bytes(args->value, args->value_size));
    return nullptr;
  } catch (const std::exception& e) {
    return KvError(args->callback_error, e.what());
  }
}

PyClient::KvCallbacks KvCallbacksOf(nb::object store) {
  PyClient::KvCallbacks kv;
  auto* held = new nb::object(std::move(store));
  kv.keep_alive = std::shared_ptr<void>(held, [](void* p) {
    if (!Py_IsInitialized()) return;  // at interpreter exit: nothing left to release
    nb::gil_scoped_acquire gil;       // the client may be destroyed without the GIL
    delete static_cast<nb::object*>(p);
  });
  kv.get = KvGetCallback;
  kv.put = KvPutCallback;
  kv.user_arg = held;
  return kv;
}

}  // namespace

std::vector<PJRT_NamedValue> ToNamedValues(const nb::dict& options, std::deque<std::string>& strings,
                                           std::deque<std::vector<int64_t>>& lists) {
  std::vector<PJRT_NamedValue> out;
  for (auto [key, value] : options) {
    PJRT_NamedValue v;
    std::memset(&v, 0, sizeof(v));
    v.struct_size = PjrtStructSize<PJRT_NamedValue>::value;
    const std::string& name = strings.emplace_back(nb::cast<std::string>(key));
    v.name = name.data();
    v.name_size = name.size();
    if (nb::isinstance<nb::bool_>(value)) {
      v.type = PJRT_NamedValue_kBool;
      v.bool_value = nb::cast<bool>(value);
      v.value_size = 1;
    } else if (nb::isinstance<nb::int_>(value)) {
      v.type = PJRT_NamedValue_kInt64;
      v.int64_value = nb::cast<int64_t>(value);
      v.value_size = 1;
    } else if (nb::isinstance<nb::float_>(value)) {
      v.type = PJRT_NamedValue_kFloat;
      v.float_value = nb::cast<float>(value);
      v.value_size = 1;
    } else if (nb::isinstance<nb::str>(value)) {
      const std::string& s = strings.emplace_back(nb::cast<std::string>(value));
      v.type = PJRT_NamedValue_kString;
      v.string_value = s.data();
      v.value_size = s.size();
    } else if (nb::isinstance<nb::list>(value) || nb::isinstance<nb::tuple>(value)) {
      const auto& l = lists.emplace_back(nb::cast<std::vector<int64_t>>(value));
      v.type = PJRT_NamedValue_kInt64List;
      v.int64_array_value = l.data();
      v.value_size = l.size();
    } else {
      throw nb::type_error(("option '" + name + "' must be a bool, int, float, str or list of int").c_str());
    }
    out.push_back(v);
  }
  return out;
}

void RegisterClient(nb::module_& m) {
  nb::class_<Plugin>(m, "Plugin", "A loaded plugin library (never unloaded).")
      .def_ro("path", &Plugin::path)
      .def_prop_ro("attributes", [](const Plugin& p) { return p.attributes; })
      .def_prop_ro("c_api_version", [](const Plugin& p) {
        return nb::make_tuple(p.api->pjrt_api_version.major_version,
                              p.api->pjrt_api_version.minor_version);
      });

  m.def("load_pjrt_plugin", &LoadPlugin, nb::arg("library_path"),
        "Loads a plugin shared object and checks its C API version.");
  m.attr("pjrt_c_api_major") = PJRT_API_MAJOR;
  m.attr("pjrt_c_api_minor") = PJRT_API_MINOR;

  nb::class_<PyMemory>(m, "Memory")
      .def_ro("id", &PyMemory::id)
      .def_ro("kind", &PyMemory::kind)
      .def("__repr__", [](const PyMemory& mem) { return "Memory(id=" + std::to_string(mem.id) + ", kind=" + mem.kind + ")"; });

  nb::class_<PyDevice>(m, "Device")
      .def_ro("id", &PyDevice::id)
      .def_ro("process_index", &PyDevice::process_index)
      .def_prop_ro("host_id", [](const PyDevice& d) { return d.process_index; })
      .def_prop_ro("task_id", [](const PyDevice& d) { return d.process_index; })
      .def_ro("local_hardware_id", &PyDevice::local_hardware_id)
      .def_ro("_is_addressable", &PyDevice::is_addressable)
      .def_ro("platform", &PyDevice::platform)
      .def_ro("device_kind", &PyDevice::kind)
      .def_prop_ro("_attributes", [](const PyDevice& d) { return d.attributes; },
                   "Plugin-defined facts about the device (e.g. TPU coords, core_on_chip).")
      .def_prop_ro("client", &PyDevice::client)
      .def("default_memory", [](const PyDevice& d) { return d.default_memory; })
      .def("addressable_memories", [](const PyDevice& d) { return d.memories; })
      .def("memory", [](const PyDevice& d, const std::string& kind) {
        for (const auto& mem : d.memories) {
          if (mem->kind == kind) return mem;
        }
        std::string known;
        for (const auto& mem : d.memories) known += (known.empty() ? "" : ", ") + mem->kind;
        throw nb::value_error(("device " + d.debug_string + " has no memory of kind '" + kind +
                               "'; it has: " + known).c_str());
      }, nb::arg("kind"))
      .def("memory_stats", [](const PyDevice& d) {
        PyDevice::MemoryStats m = d.GetMemoryStats();
        nb::dict stats;
        stats["bytes_in_use"] = m.bytes_in_use;
        stats["peak_bytes_in_use"] = m.peak_bytes_in_use;
        stats["num_allocs"] = m.num_allocs;
        return stats;
      })
      .def("__str__", [](const PyDevice& d) { return d.debug_string; })
      .def("__repr__", [](const PyDevice& d) {
        // A plugin's own repr (libtpu: "TpuDevice(id=0, process_index=0, coords=...)"),
        // when it gives one apart from the debug string.
        if (!d.to_string.empty() && d.to_string != d.debug_string) return d.to_string;
        return d.kind == "cpu" ? "CpuDevice(id=" + std::to_string(d.id) + ")"
                               : d.platform + "Device(id=" + std::to_string(d.id) + ")";
      })
      .def("__hash__", [](const PyDevice& d) { return std::hash<std::string>()(d.platform) ^ d.id; })
      .def("__eq__", [](const PyDevice& a, nb::handle b) {
        if (!nb::isinstance<PyDevice>(b)) return false;
        const PyDevice& o = nb::cast<const PyDevice&>(b);
        return a.c_device() == o.c_device();
      });

  nb::class_<PyClient>(m, "Client")
      .def_static("create",
                  [](std::shared_ptr<Plugin> plugin, nb::dict options, nb::object kv_store) {
                    std::deque<std::string> strings;
                    std::deque<std::vector<int64_t>> lists;
                    auto values = ToNamedValues(options, strings, lists);
                    if (kv_store.is_none()) return PyClient::Create(std::move(plugin), values);
                    PyClient::KvCallbacks kv = KvCallbacksOf(kv_store);
                    // A multi-process client waits for its peers while it connects: let
                    // other Python threads (the coordinator's heartbeats) run meanwhile.
                    nb::gil_scoped_release release;
                    return PyClient::Create(std::move(plugin), values, &kv);
                  },
                  nb::arg("plugin"), nb::arg("options") = nb::dict(),
                  nb::arg("kv_store") = nb::none())
      .def_prop_ro("platform", &PyClient::platform)
      .def_prop_ro("platform_version", &PyClient::platform_version)
      .def_prop_ro("runtime_type", [](const PyClient&) { return "pjrt_c_api"; })
      .def_prop_ro("is_compile_only",
                   [](const PyClient& c) { return c.topology() != nullptr; },
                   "True for a topology's compile-only client: it compiles, but loads and "
                   "runs nothing.")
      .def_prop_ro("plugin", &PyClient::plugin)
      .def("process_index", &PyClient::process_index)
      .def("devices", [](const PyClient& c) { return c.devices(); })
      .def("live_arrays",
           [](const PyClient& c) {
             nb::list out;
             c.ForEachLiveBuffer([&](PyBuffer* b) {
               if (b->is_deleted()) return;
               nb::handle h = nb::find(b);  // null when no Python object holds it
               if (h.is_valid()) out.append(nb::borrow(h));
             });
             return out;
           },
           "The client's live, undeleted buffers (jaxlib has no array type of its own: "
           "an array here is its buffer).")
      .def("local_devices", [](const PyClient& c) { return c.addressable_devices(); })
      .def("_addressable_devices", [](const PyClient& c) { return c.addressable_devices(); })
      .def("device_count", [](const PyClient& c) { return c.devices().size(); })
      .def("local_device_count",
           [](const PyClient& c) { return c.addressable_devices().size(); });
}

}  // namespace jax
