// Converts between HLO text and serialized HloModuleProto, for checking our
// wire format against other implementations:
//   hlo_proto_convert to-proto IN.hlo OUT.pb    text -> bytes
//   hlo_proto_convert from-proto IN.pb          bytes -> text on stdout
//   hlo_proto_convert normalize IN.hlo          text -> our printed text
//   hlo_proto_convert reachable IN.hlo          the same, without computations
//                                               the entry never calls (XLA drops them)
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "xla/hlo/parser/parser.h"
#include "xla/hlo/proto/hlo_proto.h"

namespace {

bool ReadFile(const char* path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return Fail("usage: hlo_proto_convert to-proto|from-proto|normalize IN [OUT]");
  std::string mode = argv[1], input;
  if (!ReadFile(argv[2], &input)) return Fail(std::string("cannot read ") + argv[2]);
  if (mode == "from-proto") {
    auto module = xla::ParseHloModuleProto(input);
    if (!module.ok()) return Fail(module.status().ToString());
    std::fputs((*module)->ToString().c_str(), stdout);
    return 0;
  }
  auto module = xla::ParseHloModule(input);
  if (!module.ok()) return Fail(module.status().ToString());
  if (mode == "reachable") (*module)->RemoveUnreachableComputations();
  if (mode == "normalize" || mode == "reachable") {
    std::fputs((*module)->ToString().c_str(), stdout);
    return 0;
  }
  if (mode != "to-proto" || argc < 4) return Fail("unknown mode or missing OUT");
  auto bytes = xla::SerializeHloModuleProto(**module);
  if (!bytes.ok()) return Fail(bytes.status().ToString());
  std::ofstream out(argv[3], std::ios::binary);
  out << *bytes;
  return out ? 0 : Fail(std::string("cannot write ") + argv[3]);
}
