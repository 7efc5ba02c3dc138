// Custom-call targets the CPU backend runs, looked up by target name.
//
// A target registers a factory that checks the call's operand and result
// shapes and returns the Thunk that computes it. The backend keeps every
// array in the default row-major layout, so a kernel reads and writes its
// buffers row-major whatever operand_layout_constraints the text carries; the
// layouts only tell a library which physical order it gets, and results are
// the same logical arrays either way.
#ifndef XLA_BACKENDS_CPU_RUNTIME_CUSTOM_CALL_REGISTRY_H_
#define XLA_BACKENDS_CPU_RUNTIME_CUSTOM_CALL_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "xla/backends/cpu/runtime/thunk.h"
#include "xla/hlo/ir/shape.h"
#include "xla/status.h"

namespace xla::cpu {

// Typed-FFI attributes from backend_config, "{mode = 86 : ui8, uplo = 76 : ui8}":
// name -> integer value. Only integer (and boolean) attributes are supported.
using FfiAttributes = std::map<std::string, int64_t>;

StatusOr<FfiAttributes> ParseFfiAttributes(std::string_view text);

// One custom-call instruction as the backend sees it: array operands and
// results (a tuple result is flattened) with their buffer slots.
struct CustomCallArgs {
  std::string target;
  std::string instruction;  // for error messages
  std::vector<Shape> operands;
  std::vector<int> operand_slots;
  std::vector<Shape> results;
  std::vector<int> result_slots;
  FfiAttributes attributes;

  // An error naming the target and instruction.
  Status Error(const std::string& why) const;
};

using CustomCallFactory =
    std::function<StatusOr<std::shared_ptr<const Thunk>>(const CustomCallArgs&)>;

class CustomCallRegistry {
 public:
  // Fails if `target` is already registered.
  Status Register(const std::string& target, CustomCallFactory factory);
  // nullptr when `target` is unknown.
  const CustomCallFactory* Find(const std::string& target) const;
  std::vector<std::string> Targets() const;

  // The targets built into the CPU backend (the linear-algebra kernels).
  static const CustomCallRegistry& Builtin();

 private:
  std::map<std::string, CustomCallFactory> factories_;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_CUSTOM_CALL_REGISTRY_H_
