// The bytes of a serialized CPU executable (Executable::Serialize, loaded back
// by Client::DeserializeAndLoad): the optimised HLO module, the machine code of
// its kernels as object files, and what they need to run.
//
// Loading re-plans the optimised module (planning is deterministic) and links
// the stored object files instead of generating code, so it skips the passes
// and LLVM. The kernel symbols the plan expects are stored too, so bytes from
// another build of the compiler are refused instead of run.
#ifndef XLA_BACKENDS_CPU_SERIALIZED_EXECUTABLE_H_
#define XLA_BACKENDS_CPU_SERIALIZED_EXECUTABLE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xla/status.h"

namespace xla::cpu {

struct SerializedExecutable {
  std::string plugin_version;  // of the plugin that compiled it
  int64_t num_replicas = 1;
  std::string hlo_text;        // the optimised module
  // The target of the object files (empty when there are none).
  std::string triple, cpu_name, cpu_features;
  std::vector<std::string> kernel_symbols;
  std::vector<std::string> objects;
};

std::string EncodeExecutable(const SerializedExecutable& executable);

// INVALID_ARGUMENT for bytes that are not a serialized CPU executable, are
// truncated or corrupted, or have another format version.
StatusOr<SerializedExecutable> DecodeExecutable(std::string_view bytes);

// FAILED_PRECONDITION naming what differs when the executable's machine code
// cannot run here: another plugin version, target triple, or CPU features
// ("+name" entries of `host_features`) the host lacks.
Status CheckLoadable(const SerializedExecutable& executable, const std::string& plugin_version,
                     const std::string& host_triple, const std::string& host_features);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_SERIALIZED_EXECUTABLE_H_
