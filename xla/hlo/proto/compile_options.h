// PJRT compile options as serialized CompileOptionsProto bytes (what
// PJRT_Client_Compile receives). One struct holds what our compilers use;
// SerializeCompileOptions writes it so real XLA reads the same settings, and
// ParseCompileOptions reads what real JAX sends, ignoring the debug options,
// compilation environments and GPU target configs it carries.
#ifndef XLA_HLO_PROTO_COMPILE_OPTIONS_H_
#define XLA_HLO_PROTO_COMPILE_OPTIONS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "xla/hlo/ir/shape.h"
#include "xla/status.h"

namespace xla {

struct CompileOptions {
  int64_t num_replicas = 1;
  int64_t num_partitions = 1;
  bool use_spmd_partitioning = false;
  bool use_auto_spmd_partitioning = false;
  // device_assignment[replica][partition] = global device id; empty when the
  // client leaves placement to the compiler.
  std::vector<std::vector<int64_t>> device_assignment;
  // Layouts the caller fixes for the arguments; nullopt lets the compiler choose.
  std::optional<std::vector<Shape>> argument_layouts;
  bool parameter_is_tupled_arguments = false;
  bool compile_portable_executable = false;
  // Per-compile overrides of compiler options, by option name.
  using OptionValue = std::variant<std::string, int64_t, bool, double>;
  std::map<std::string, OptionValue> env_option_overrides;

  bool operator==(const CompileOptions& other) const;
};

std::string SerializeCompileOptions(const CompileOptions& options);

// InvalidArgument for bytes that are not a CompileOptionsProto, non-positive
// counts, a device assignment of another size than num_replicas x
// num_partitions, or argument layouts our IR cannot represent.
StatusOr<CompileOptions> ParseCompileOptions(std::string_view bytes);

}  // namespace xla

#endif  // XLA_HLO_PROTO_COMPILE_OPTIONS_H_
