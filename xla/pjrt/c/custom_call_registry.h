// Native functions registered as custom-call targets through the C API
// custom-call extension.
//
// One registry per plugin library (each plugin links its own copy): the C API
// entry point adds entries, and a backend's compiler looks targets up by name.
#ifndef XLA_PJRT_C_CUSTOM_CALL_REGISTRY_H_
#define XLA_PJRT_C_CUSTOM_CALL_REGISTRY_H_

#include <optional>
#include <string>

#include "xla/status.h"

namespace xla {

struct CustomCallTarget {
  void* function = nullptr;
  int api_version = 0;  // 0: void function(void* out, const void** in)
};

// INVALID_ARGUMENT for an empty name, a null function or an api_version other
// than 0; ALREADY_EXISTS when `name` holds another function. Registering the
// same function again is a no-op.
Status RegisterCustomCallTarget(const std::string& name, CustomCallTarget target);
std::optional<CustomCallTarget> FindCustomCallTarget(const std::string& name);

}  // namespace xla

#endif  // XLA_PJRT_C_CUSTOM_CALL_REGISTRY_H_
