#include "jaxlib/program_format.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include "jaxlib/status_casters.h"
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/proto/compile_options.h"
#include "xla/hlo/proto/hlo_proto.h"
#include "xla/pjrt/c/utf8.h"

namespace jax {
namespace {

template <typename T>
T ValueOrThrow(xla::StatusOr<T> value, const std::string& context) {
  if (!value.ok()) {
    // Python decodes messages strictly; the text may quote any bytes it was given.
    throw XlaRuntimeError(std::string(xla::StatusCodeName(value.status().code())) + ": " +
                          context + xla::ToValidUtf8(value.status().message()));
  }
  return std::move(value).value();
}

// HloModuleProtoWithConfig keeps the module in field 1; the config beside it
// is the plugin's business.
std::string ModuleOfModuleWithConfig(const std::string& bytes) {
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  std::string module;
  while (uint32_t tag = in.ReadTag()) {
    if (WireFormatLite::GetTagFieldNumber(tag) == 1 &&
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      if (!WireFormatLite::ReadBytes(&in, &module)) break;
      return module;
    }
    if (!WireFormatLite::SkipField(&in, tag)) break;
  }
  throw XlaRuntimeError("INVALID_ARGUMENT: the plugin's optimized program (format "
                        "\"hlo_with_config\") holds no HLO module");
}

}  // namespace

std::string HloTextToModuleProto(const std::string& hlo_text) {
  std::unique_ptr<xla::HloModule> module =
      ValueOrThrow(xla::ParseHloModule(hlo_text), "");  // says line and column itself
  return ValueOrThrow(xla::SerializeHloModuleProto(*module), "serializing the HLO program: ");
}

std::string ReplicatedCompileOptions(int64_t num_replicas, const std::vector<int64_t>& device_ids) {
  xla::CompileOptions options;
  options.num_replicas = num_replicas;
  options.num_partitions = 1;
  for (int64_t id : device_ids) options.device_assignment.push_back({id});
  // jax's semantics, which XLA's CPU compiler relaxes by default: min, max and
  // clamp propagate NaN. (Our own plugins always do; they ignore the entry.)
  options.env_option_overrides.emplace(
      "xla_cpu_enable_fast_min_max",
      xla::CompileOptions::OptionValue(std::in_place_type<bool>, false));
  return xla::SerializeCompileOptions(options);
}

std::string DecodeProgramFormat(const std::string& format, std::string bytes) {
  if (format == "hlo_with_config") {
    bytes = ModuleOfModuleWithConfig(bytes);
  } else if (format != "hlo") {
    throw XlaRuntimeError("UNIMPLEMENTED: the plugin's optimized program is in format \"" +
                          format + "\", which jaxlib cannot print");
  }
  std::unique_ptr<xla::HloModule> module =
      ValueOrThrow(xla::ParseHloModuleProto(bytes), "reading the plugin's optimized program: ");
  return module->ToString();
}

}  // namespace jax
