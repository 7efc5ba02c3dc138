// Coverage-guided fuzz target (libFuzzer) for the HLO parser and verifier:
// any input may be rejected with an error, but none may crash, trip a
// sanitizer or hang, and every module that parses and verifies must print to
// text that parses again and prints the same. Built only with clang
// (--config=fuzz); .ci/fuzz.sh runs it for a bounded time.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "xla/hlo/parser/parser.h"

namespace {

[[noreturn]] void Fail(const char* what, std::string_view input, const std::string& detail) {
  std::fprintf(stderr, "%s\n--- input ---\n%.*s\n--- detail ---\n%s\n", what,
               static_cast<int>(input.size()), input.data(), detail.c_str());
  std::abort();  // libFuzzer saves the input as a crash artifact
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = xla::ParseHloModule(text);
  if (!module.ok()) {
    if (module.status().message().empty()) Fail("rejected without a message", text, "");
    return 0;
  }
  const std::string printed = xla::ToString(**module);
  auto again = xla::ParseHloModule(printed);
  if (!again.ok()) {
    Fail("parsed, but its printout did not", text,
         printed + "\n--- error ---\n" + std::string(again.status().message()));
  }
  const std::string reprinted = xla::ToString(**again);
  if (reprinted != printed) {
    Fail("printout changed on a second round trip", text, printed + "\n--- then ---\n" + reprinted);
  }
  return 0;
}
