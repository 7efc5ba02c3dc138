// The single seam where errors from the C API become Python exceptions.
#ifndef JAXLIB_STATUS_CASTERS_H_
#define JAXLIB_STATUS_CASTERS_H_

#include <stdexcept>
#include <string>

namespace jax {

// Raised as jaxlib.xla_client.XlaRuntimeError; the message starts with the
// canonical code name ("INVALID_ARGUMENT: ...") as in XLA.
class XlaRuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Raised as GpuLibNotLinkedError-style ValueError when a requested plugin
// library cannot be loaded (missing file, no GetPjrtApi, version mismatch).
class PluginLoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace jax

#endif  // JAXLIB_STATUS_CASTERS_H_
