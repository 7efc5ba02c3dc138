// Bindings: device buffers, and host <-> device copies.
#include "jaxlib/py_array.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "jaxlib/c_api_loader.h"
#include "jaxlib/pjrt_objects.h"

namespace nb = nanobind;

namespace jax {

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
           int type, std::vector<int64_t> dims, std::shared_ptr<PyDevice> device) {
          PJRT_Client_BufferFromHostBuffer_Args args{};
          args.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
          args.client = client->c_client();
          args.data = data.data();
          args.type = static_cast<PJRT_Buffer_Type>(type);
          args.dims = dims.data();
          args.num_dims = dims.size();
          args.device = device ? device->c_device() : nullptr;
          {
            nb::gil_scoped_release release;
            ThrowIfError(client->api(), client->api()->PJRT_Client_BufferFromHostBuffer(&args));
          }
          return std::make_shared<PyBuffer>(client, args.buffer);
        },
        nb::arg("client"), nb::arg("data"), nb::arg("type"), nb::arg("dims"), nb::arg("device").none(),
        "Copies dense row-major bytes of the given element type to a device.");
}

}  // namespace jax
