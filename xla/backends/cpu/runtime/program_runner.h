// Runs a Program given the addresses of its parameters and outputs: fills
// the slot table, allocates the temporary arena and executes the steps,
// recursing into subprograms for while loops and conditionals.
#ifndef XLA_BACKENDS_CPU_RUNTIME_PROGRAM_RUNNER_H_
#define XLA_BACKENDS_CPU_RUNTIME_PROGRAM_RUNNER_H_

#include <vector>

#include "xla/backends/cpu/runtime/program.h"
#include "xla/backends/cpu/runtime/thread_pool.h"
#include "xla/status.h"

namespace xla::cpu {

// params[i] / outputs[o]: data of parameter leaf i and output o, each at
// least as large as the program says and 64-byte aligned.
// `context` says which replica this run is (collectives rendezvous through it).
Status RunProgram(const Program& program, const std::vector<void*>& params,
                  const std::vector<void*>& outputs, ThreadPool& pool,
                  const ExecutionContext& context = ExecutionContext());

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_PROGRAM_RUNNER_H_
