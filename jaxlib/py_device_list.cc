// Bindings: DeviceList.
#include "jaxlib/py_device_list.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/set.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "jaxlib/pjrt_objects.h"

namespace nb = nanobind;

namespace jax {
namespace {

class PyDeviceList {
 public:
  explicit PyDeviceList(nb::handle devices) {
    if (!PyTuple_Check(devices.ptr()) && !PyList_Check(devices.ptr())) {
      throw nb::type_error(("DeviceList expects a tuple of Devices, got " +
                            TypeName(devices)).c_str());
    }
    devices_ = nb::tuple(devices);
    std::set<const PyDevice*> seen;
    for (size_t i = 0; i < devices_.size(); ++i) {
      nb::handle item = devices_[i];
      if (!nb::isinstance<PyDevice>(item)) {
        throw nb::type_error(("DeviceList: element " + std::to_string(i) +
                              " is not a Device but " + TypeName(item)).c_str());
      }
      const PyDevice* d = nb::inst_ptr<PyDevice>(item);
      if (!pointers_.empty() && d->client() != pointers_[0]->client()) {
        throw nb::value_error(("DeviceList: device " + d->debug_string +
                               " belongs to another client than " +
                               pointers_[0]->debug_string).c_str());
      }
      if (!seen.insert(d).second) {
        throw nb::value_error(("DeviceList: device " + d->debug_string +
                               " appears more than once").c_str());
      }
      pointers_.push_back(d);
    }
  }

  const nb::tuple& devices() const { return devices_; }
  size_t size() const { return pointers_.size(); }

  Py_hash_t Hash() {
    if (!hash_) {
      // Hashing the Python tuple calls each Device's __hash__; done once per list.
      hash_ = PyObject_Hash(devices_.ptr());
      if (*hash_ == -1) throw nb::python_error();
    }
    return *hash_;
  }

  bool Equals(const PyDeviceList& other) const {
    return this == &other || pointers_ == other.pointers_;
  }

  bool IsFullyAddressable() const {
    for (const PyDevice* d : pointers_) {
      if (d->process_index != d->client()->process_index()) return false;
    }
    return true;
  }

  nb::object AddressableDeviceList(nb::handle self) const {
    if (IsFullyAddressable()) return nb::borrow(self);
    nb::list local;
    for (size_t i = 0; i < pointers_.size(); ++i) {
      if (pointers_[i]->process_index == pointers_[i]->client()->process_index()) {
        local.append(devices_[i]);
      }
    }
    return nb::cast(PyDeviceList(nb::tuple(local)));
  }

  std::set<int> ProcessIndices() const {
    std::set<int> out;
    for (const PyDevice* d : pointers_) out.insert(d->process_index);
    return out;
  }

  // The memories of the first device speak for the list: a list mixes no platforms.
  const PyDevice& First(const char* what) const {
    if (pointers_.empty()) {
      throw nb::value_error((std::string("an empty DeviceList has no ") + what).c_str());
    }
    return *pointers_[0];
  }

  std::optional<std::string> DefaultMemoryKind() const {
    const PyDevice& d = First("default memory kind");
    if (!d.default_memory) return std::nullopt;
    return d.default_memory->kind;
  }

  nb::tuple MemoryKinds() const {
    const PyDevice& d = First("memory kinds");
    nb::list kinds;
    for (const auto& m : d.memories) kinds.append(nb::str(m->kind.c_str()));
    return nb::tuple(kinds);
  }

  std::string DeviceKind() const { return First("device kind").kind; }

 private:
  static std::string TypeName(nb::handle o) {
    return nb::cast<std::string>(nb::str(nb::getattr(o.type(), "__name__")));
  }

  nb::tuple devices_;
  std::vector<const PyDevice*> pointers_;
  std::optional<Py_hash_t> hash_;
};

}  // namespace

void RegisterDeviceList(nb::module_& m) {
  nb::class_<PyDeviceList>(m, "DeviceList",
                           "An immutable, hashable sequence of distinct devices of one client.")
      .def(nb::init<nb::handle>(), nb::arg("device_assignment"))
      .def("__hash__", &PyDeviceList::Hash)
      .def("__eq__", [](const PyDeviceList& a, nb::handle b) {
        return nb::isinstance<PyDeviceList>(b) && a.Equals(nb::cast<const PyDeviceList&>(b));
      })
      .def("__ne__", [](const PyDeviceList& a, nb::handle b) {
        return !(nb::isinstance<PyDeviceList>(b) && a.Equals(nb::cast<const PyDeviceList&>(b)));
      })
      .def("__len__", &PyDeviceList::size)
      .def("__iter__", [](const PyDeviceList& l) { return nb::iter(l.devices()); })
      .def("__getitem__", [](const PyDeviceList& l, nb::handle index) {
        PyObject* item = PyObject_GetItem(l.devices().ptr(), index.ptr());
        if (item == nullptr) throw nb::python_error();
        return nb::steal(item);
      }, nb::arg("index"), nb::sig("def __getitem__(self, index: int | slice) -> Device | tuple[Device, ...]"))
      .def("__repr__", [](const PyDeviceList& l) {
        return "DeviceList(" + nb::cast<std::string>(nb::repr(l.devices())) + ")";
      })
      .def("__str__", [](const PyDeviceList& l) {
        return "DeviceList(" + nb::cast<std::string>(nb::repr(l.devices())) + ")";
      })
      .def_prop_ro("_device_assignment", &PyDeviceList::devices,
                   "The devices as a tuple, in order.")
      .def_prop_ro("is_fully_addressable", &PyDeviceList::IsFullyAddressable,
                   "Whether this process can address every device of the list.")
      .def_prop_ro("addressable_device_list",
                   [](nb::handle self) {
                     return nb::cast<const PyDeviceList&>(self).AddressableDeviceList(self);
                   },
                   "The devices of this process, as a DeviceList (itself when fully addressable).")
      .def_prop_ro("process_indices", &PyDeviceList::ProcessIndices)
      .def_prop_ro("default_memory_kind", &PyDeviceList::DefaultMemoryKind)
      .def_prop_ro("memory_kinds", &PyDeviceList::MemoryKinds)
      .def_prop_ro("device_kind", &PyDeviceList::DeviceKind);
}

}  // namespace jax
