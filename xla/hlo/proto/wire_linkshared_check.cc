// The one exported function of libwire_linkshared_check.so: text -> bytes ->
// module -> text, plus compile options, all inside a hidden-visibility object.
#include <cstring>
#include <string>

#include "xla/hlo/parser/parser.h"
#include "xla/hlo/proto/compile_options.h"
#include "xla/hlo/proto/hlo_proto.h"

// Returns 1 when `text` survives the wire and 2 replicas survive the options.
extern "C" __attribute__((visibility("default"))) int WireRoundTrip(const char* text) {
  auto module = xla::ParseHloModule(text);
  if (!module.ok()) return 0;
  auto bytes = xla::SerializeHloModuleProto(**module);
  if (!bytes.ok()) return 0;
  auto back = xla::ParseHloModuleProto(*bytes);
  if (!back.ok() || (*back)->ToString() != (*module)->ToString()) return 0;
  xla::CompileOptions options;
  options.num_replicas = 2;
  auto parsed = xla::ParseCompileOptions(xla::SerializeCompileOptions(options));
  return parsed.ok() && parsed->num_replicas == 2 ? 1 : 0;
}
