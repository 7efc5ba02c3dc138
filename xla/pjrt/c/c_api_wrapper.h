// Turns a C++ backend (xla/pjrt/client.h) into the C API table.
#ifndef XLA_PJRT_C_C_API_WRAPPER_H_
#define XLA_PJRT_C_C_API_WRAPPER_H_

#include "xla/pjrt/c/pjrt_c_api.h"
#include "xla/pjrt/client.h"

namespace xla {

// Returns a table whose functions drive the clients that `info` creates.
// `info` must outlive every use of the table (plugins pass a static).
const PJRT_Api* CreatePjrtApi(const PluginInfo* info);

}  // namespace xla

#endif  // XLA_PJRT_C_C_API_WRAPPER_H_
