// The CPU compiler: HloModule -> Program with JIT-compiled kernels.
//
// One LLVM module per HLO module. Each kernel the planner asks for becomes
// one function `void name(void** buffers, int64 begin, int64 end)` holding a
// loop nest over its output with all inlined producers computed in the loop
// body; f32/f64 dots go to Eigen. Unsupported ops fail with UNIMPLEMENTED
// naming the opcode and the instruction.
#ifndef XLA_BACKENDS_CPU_CODEGEN_COMPILER_H_
#define XLA_BACKENDS_CPU_CODEGEN_COMPILER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "xla/backends/cpu/runtime/program.h"
#include "xla/hlo/ir/module.h"
#include "xla/status.h"

namespace xla::cpu {

struct CompileOptions {
  // If set, <dir>/<module>.<n>.ll and .opt.ll are written (JAX_DUMP_LLVM_IR).
  std::string dump_llvm_ir_dir;
  // If set, the kernels are not generated but loaded from these object files,
  // which an earlier compilation of the same (optimised) module produced on a
  // host of the same kind (CompiledProgram::machine_code). The plan's kernel
  // symbols must equal `prebuilt_symbols`.
  const std::vector<std::string>* prebuilt_objects = nullptr;
  const std::vector<std::string>* prebuilt_symbols = nullptr;
};

// What a compiled program's kernels were compiled for, and their object files
// (all empty for a program without kernels).
struct MachineCode {
  std::string triple, cpu_name, cpu_features;
  std::vector<std::string> symbols;  // of kernels and helpers, in plan order
  std::function<std::vector<std::string>()> objects;  // empty without kernels
};

// The host's target, as kernels compiled here would record it (no symbols or objects).
StatusOr<MachineCode> HostMachine();

struct CompiledProgram {
  Program program;
  std::shared_ptr<void> code;  // the JIT owning the kernels; keep alive with program
  int64_t code_size = 0;
  MachineCode machine_code;
};


StatusOr<CompiledProgram> CompileHloModule(const HloModule& module, const CompileOptions& options);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CODEGEN_COMPILER_H_
