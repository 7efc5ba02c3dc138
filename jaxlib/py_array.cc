// Bindings: device buffers, and host <-> device copies.
#include "jaxlib/py_array.h"

#include <optional>
#include <vector>

#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "jaxlib/c_api_loader.h"
#include "jaxlib/pjrt_objects.h"

namespace nb = nanobind;

namespace jax {
namespace {

// The DLPack element type of a buffer type; Bool/Int/UInt/Float/Complex ones
// are also numpy's own types.
std::optional<nb::dlpack::dtype> DlpackType(PJRT_Buffer_Type type, bool* numpy_native) {
  using Code = nb::dlpack::dtype_code;
  auto make = [](Code code, int bits) {
    return nb::dlpack::dtype{static_cast<uint8_t>(code), static_cast<uint8_t>(bits), 1};
  };
  *numpy_native = true;
  switch (type) {
    case PJRT_Buffer_Type_PRED: return make(Code::Bool, 8);
    case PJRT_Buffer_Type_S8: return make(Code::Int, 8);
    case PJRT_Buffer_Type_S16: return make(Code::Int, 16);
    case PJRT_Buffer_Type_S32: return make(Code::Int, 32);
    case PJRT_Buffer_Type_S64: return make(Code::Int, 64);
    case PJRT_Buffer_Type_U8: return make(Code::UInt, 8);
    case PJRT_Buffer_Type_U16: return make(Code::UInt, 16);
    case PJRT_Buffer_Type_U32: return make(Code::UInt, 32);
    case PJRT_Buffer_Type_U64: return make(Code::UInt, 64);
    case PJRT_Buffer_Type_F16: return make(Code::Float, 16);
    case PJRT_Buffer_Type_F32: return make(Code::Float, 32);
    case PJRT_Buffer_Type_F64: return make(Code::Float, 64);
    case PJRT_Buffer_Type_C64: return make(Code::Complex, 64);
    case PJRT_Buffer_Type_C128: return make(Code::Complex, 128);
    case PJRT_Buffer_Type_BF16:
      *numpy_native = false;
      return make(Code::Bfloat, 16);
    default:
      return std::nullopt;
  }
}

// Owner of an in-place view: keeps the buffer handle alive and its external
// reference held until the consumer (numpy, a DLPack importer) lets go.
nb::capsule ViewOwner(std::shared_ptr<PyBuffer> buffer) {
  auto* holder = new std::shared_ptr<PyBuffer>(std::move(buffer));
  return nb::capsule(holder, [](void* p) noexcept {
    auto* h = static_cast<std::shared_ptr<PyBuffer>*>(p);
    try {
      (*h)->ReleaseExternalReference();
    } catch (...) {
      // The buffer's handle is still alive, so releasing cannot fail; nothing to report to.
    }
    delete h;
  });
}

// A read-only in-place view of `buffer` in `Framework`'s array type, or None
// when the buffer's memory cannot be viewed (not host memory, an older
// plugin, an element type the framework lacks, or no elements).
template <typename Framework>
nb::object InPlaceView(std::shared_ptr<PyBuffer> buffer, bool numpy_only) {
  bool numpy_native = false;
  std::optional<nb::dlpack::dtype> dtype = DlpackType(buffer->type(), &numpy_native);
  if (!dtype || (numpy_only && !numpy_native) || buffer->size_in_bytes() == 0) return nb::none();
  {
    nb::gil_scoped_release release;
    buffer->BlockUntilReady();
  }
  if (!buffer->TryAcquireExternalReference()) return nb::none();
  nb::capsule owner = ViewOwner(buffer);  // releases the reference if anything below throws
  const void* data = reinterpret_cast<const void*>(buffer->UnsafePointer());
  if (data == nullptr) return nb::none();
  std::vector<size_t> shape(buffer->dims().begin(), buffer->dims().end());
  nb::ndarray<Framework, nb::ro> view(data, shape.size(), shape.data(), owner, nullptr, *dtype,
                                      nb::device::cpu::value, 0);
  return nb::cast(view, nb::rv_policy::reference);
}

bool InterpreterShuttingDown() {
#if PY_VERSION_HEX >= 0x030D0000
  return !Py_IsInitialized() || Py_IsFinalizing();
#else
  return !Py_IsInitialized() || _Py_IsFinalizing();
#endif
}

// done_with_host_buffer of a zero-copy transfer: drops the reference to the
// host array that kept it alive. The plugin may call it from its own threads
// and while the interpreter shuts down; then the array is left alone (the
// process is ending, and taking the GIL there could block forever).
void ReleaseHostArray(void* host_array) {
  if (InterpreterShuttingDown()) return;
  PyGILState_STATE state = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(host_array));
  PyGILState_Release(state);
}

// Whether the plugin can take host memory without copying (C API 1.3).
bool PluginHasZeroCopy(const PyClient& client) {
  return client.api()->pjrt_api_version.minor_version >= 3;
}

}  // namespace

void RegisterArray(nb::module_& m) {
  nb::class_<PyBuffer>(m, "Buffer", "One dense array on one device.")
      .def_prop_ro("_type", [](const PyBuffer& b) { return static_cast<int>(b.type()); })
      .def_prop_ro("_dims", [](const PyBuffer& b) { return b.dims(); })
      .def_prop_ro("nbytes", &PyBuffer::size_in_bytes)
      .def_prop_ro("client", [](const PyBuffer& b) { return b.client(); })
      .def("device", &PyBuffer::device)
      .def("is_deleted", &PyBuffer::is_deleted)
      .def("delete", &PyBuffer::Delete)
      .def("_block_until_ready", [](const PyBuffer& b) {
        nb::gil_scoped_release release;
        b.BlockUntilReady();
      })
      .def("unsafe_buffer_pointer", &PyBuffer::UnsafePointer)
      .def("_host_view", [](std::shared_ptr<PyBuffer> b) { return InPlaceView<nb::numpy>(b, true); },
           "A read-only numpy array over the buffer's memory, or None if it is not host memory.")
      .def("_dlpack_view", [](std::shared_ptr<PyBuffer> b) {
             return InPlaceView<nb::array_api>(b, false);
           },
           "A read-only DLPack exporter (__dlpack__, __dlpack_device__) over the buffer's "
           "memory, or None if it is not host memory.")
      .def("_copy_to_host", [](const PyBuffer& b, nb::ndarray<uint8_t, nb::c_contig, nb::device::cpu> out) {
        if (out.size() != b.size_in_bytes()) {
          throw nb::value_error(("_copy_to_host: destination has " + std::to_string(out.size()) +
                                 " bytes, the buffer holds " + std::to_string(b.size_in_bytes())).c_str());
        }
        nb::gil_scoped_release release;
        b.CopyToHost(out.data());
      }, nb::arg("out"));

  m.def("buffer_from_bytes",
        [](std::shared_ptr<PyClient> client, nb::ndarray<const uint8_t, nb::c_contig, nb::device::cpu> data,
           int type, std::vector<int64_t> dims, std::shared_ptr<PyDevice> device,
           nb::object zero_copy_owner) {
          if (device && device->c_device() == nullptr) {
            // A topology's device: only its compile-only client knows it, and that
            // client refuses with the reason (a plugin would see no device at all).
            return device->client()->BufferFromHostBuffer(
                data.data(), static_cast<PJRT_Buffer_Type>(type), dims.data(), dims.size(),
                nullptr, nullptr, nullptr);
          }
          void (*done)(void*) = nullptr;
          void* done_data = nullptr;
          if (!zero_copy_owner.is_none() && PluginHasZeroCopy(*client)) {
            // The plugin hands the reference back exactly once, even if the call fails.
            done = ReleaseHostArray;
            done_data = zero_copy_owner.release().ptr();
          }
          nb::gil_scoped_release release;
          return client->BufferFromHostBuffer(data.data(), static_cast<PJRT_Buffer_Type>(type),
                                              dims.data(), dims.size(),
                                              device ? device->c_device() : nullptr, done,
                                              done_data);
        },
        nb::arg("client"), nb::arg("data"), nb::arg("type"), nb::arg("dims"), nb::arg("device").none(),
        nb::arg("zero_copy_owner").none() = nb::none(),
        "Makes a buffer of dense row-major bytes of the given element type on a device. "
        "With zero_copy_owner (an object keeping `data` alive and unchanged) the plugin may "
        "use the bytes in place; it holds zero_copy_owner until it no longer reads them. "
        "Otherwise, or with a plugin older than C API 1.3, the bytes are copied.");
}

}  // namespace jax
