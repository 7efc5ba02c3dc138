// One fuzz input through the whole CPU stack: HLO text -> parse -> verify ->
// compile -> run on small deterministic inputs. Every failure must come back
// as a Status; a crash, a sanitizer report or a hang is the finding.
#ifndef XLA_BACKENDS_CPU_FUZZ_COMPILE_RUN_H_
#define XLA_BACKENDS_CPU_FUZZ_COMPILE_RUN_H_

#include <string_view>

#include "xla/pjrt/client.h"

namespace xla::cpu::fuzz {

// What happened to one input, for the fuzzer's statistics.
enum class Outcome { kRefused, kCompiled, kRan };

// Compiles `text` on the client's first device and, when its parameters are
// arrays of at most `max_input_bytes` in total and it has no loops (whose trip
// counts a mutation can make endless), runs it once.
Outcome CompileAndRun(Client& client, std::string_view text, size_t max_input_bytes = 1 << 24);

}  // namespace xla::cpu::fuzz

#endif  // XLA_BACKENDS_CPU_FUZZ_COMPILE_RUN_H_
