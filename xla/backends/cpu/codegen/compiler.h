// The CPU compiler: HloModule -> Program with JIT-compiled kernels.
//
// One LLVM module per HLO module. Each kernel the planner asks for becomes
// one function `void name(void** buffers, int64 begin, int64 end)` holding a
// loop nest over its output with all inlined producers computed in the loop
// body; f32/f64 dots go to Eigen. Unsupported ops fail with UNIMPLEMENTED
// naming the opcode and the instruction.
#ifndef XLA_BACKENDS_CPU_CODEGEN_COMPILER_H_
#define XLA_BACKENDS_CPU_CODEGEN_COMPILER_H_

#include <memory>
#include <string>

#include "xla/backends/cpu/runtime/program.h"
#include "xla/hlo/ir/module.h"
#include "xla/status.h"

namespace xla::cpu {

struct CompileOptions {
  // If set, <dir>/<module>.<n>.ll and .opt.ll are written (JAX_DUMP_LLVM_IR).
  std::string dump_llvm_ir_dir;
};

struct CompiledProgram {
  Program program;
  std::shared_ptr<void> code;  // the JIT owning the kernels; keep alive with program
  int64_t code_size = 0;
};

StatusOr<CompiledProgram> CompileHloModule(const HloModule& module, const CompileOptions& options);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CODEGEN_COMPILER_H_
