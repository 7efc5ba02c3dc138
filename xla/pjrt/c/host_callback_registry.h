// The host functions registered through the C API host-callback extension.
//
// One registry per plugin library (each plugin links its own copy): the C API
// entry points add and remove entries, and a backend's custom-call thunk looks
// them up by the index the HLO carries.
#ifndef XLA_PJRT_C_HOST_CALLBACK_REGISTRY_H_
#define XLA_PJRT_C_HOST_CALLBACK_REGISTRY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xla/pjrt/c/pjrt_c_api_host_extensions.h"
#include "xla/status.h"

namespace xla {

struct HostCallback {
  PJRT_HostCallback_Function* function = nullptr;
  void* user_data = nullptr;

  // Calls the function; its failure message becomes the returned error.
  Status Call(const std::vector<const void*>& operands, const std::vector<void*>& results) const;
};

// Indices start at 0 and are never reused within a process.
uint64_t RegisterHostCallback(HostCallback callback);
// False if `index` is not registered.
bool UnregisterHostCallback(uint64_t index);
std::optional<HostCallback> FindHostCallback(uint64_t index);

// The extension to hang on PJRT_Api.extension_start (static storage).
PJRT_Extension_Base* HostCallbackExtension();

}  // namespace xla

#endif  // XLA_PJRT_C_HOST_CALLBACK_REGISTRY_H_
