// The compile-and-run fuzzer as a libFuzzer target: coverage-guided (the whole
// CPU backend is built with clang's instrumentation, --config=fuzz-compile-run), with
// hlo_mutator's structure-aware edits as the custom mutator and libFuzzer's
// byte-level ones as a fallback, so inputs stay close to parseable and reach
// the verifier, the code generator and the runtime. Each input goes through
// CompileAndRun; a crash, a sanitizer report or a timeout is the finding.
// `.ci/fuzz_compile_run.sh` builds and runs it with FUZZ_ENGINE=libfuzzer.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>

#include "xla/backends/cpu/cpu_client.h"
#include "xla/backends/cpu/fuzz/compile_run.h"
#include "xla/backends/cpu/fuzz/hlo_mutator.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

xla::Client& FuzzClient() {
  // One client for the whole run, as a user process keeps one: compiling and
  // running is what is fuzzed, not client creation. Never destroyed, so no
  // exit-time ordering with the runtime's threads.
  static xla::Client* client = [] {
    auto created = xla::CpuPluginInfo().create_client({});
    if (!created.ok()) __builtin_trap();
    return created->release();
  }();
  return *client;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xla::cpu::fuzz::CompileAndRun(FuzzClient(),
                                std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::mt19937_64 rng(seed);
  if (!xla::cpu::fuzz::MutateHloText(text, rng) || text.size() > max_size) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  std::memcpy(data, text.data(), text.size());
  return text.size();
}
