// Programs and compile options in PJRT's formats: what jaxlib sends every
// plugin (a serialized HloModuleProto, a serialized CompileOptionsProto) and
// how it reads an optimized program back as HLO text.
#ifndef JAXLIB_PROGRAM_FORMAT_H_
#define JAXLIB_PROGRAM_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace jax {

// HLO text (as jax lowers it) as a serialized HloModuleProto. Throws
// XlaRuntimeError (INVALID_ARGUMENT, with line and column) for bad text.
std::string HloTextToModuleProto(const std::string& hlo_text);

// A CompileOptionsProto for `num_replicas` replicas of one partition each,
// replica r placed on device device_ids[r] (empty: the plugin chooses).
std::string ReplicatedCompileOptions(int64_t num_replicas, const std::vector<int64_t>& device_ids);

// A plugin's optimized program (format "hlo" or "hlo_with_config") as HLO
// text. Throws XlaRuntimeError for other formats or unreadable bytes.
std::string DecodeProgramFormat(const std::string& format, std::string bytes);

}  // namespace jax

#endif  // JAXLIB_PROGRAM_FORMAT_H_
