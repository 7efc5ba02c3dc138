// Plugin descriptions of the GPU backends (CUDA, ROCm). (TPUs run Google's
// libtpu, registered by the jaxlib-tpu wheel: plugins/tpu.)
//
// Client creation opens the vendor driver with dlopen, so the plugins build
// and load without vendor SDKs; without a driver or a device it fails with a
// message that says what is missing.
#ifndef XLA_BACKENDS_GPU_DEVICE_CLIENTS_H_
#define XLA_BACKENDS_GPU_DEVICE_CLIENTS_H_

#include "xla/pjrt/client.h"

namespace xla {

const PluginInfo& CudaPluginInfo();
const PluginInfo& RocmPluginInfo();

}  // namespace xla

#endif  // XLA_BACKENDS_GPU_DEVICE_CLIENTS_H_
