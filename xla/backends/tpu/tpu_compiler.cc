#include "xla/backends/tpu/tpu_compiler.h"

#include <set>

#include "xla/backends/tpu/bf16_dot_rewriter.h"
#include "xla/backends/tpu/tiled_shape.h"
#include "xla/backends/tpu/tpu_layout_assignment.h"
#include "xla/hlo/ir/computation.h"
#include "xla/passes/dce.h"
#include "xla/passes/pipeline.h"
#include "xla/passes/optimization_pipeline.h"

namespace xla::tpu {
namespace {

// Ops whose result is another value's buffer, not a buffer of its own.
bool AliasesOperand(const HloInstruction& instr) {
  switch (instr.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kBitcast:
      return true;
    default:
      return false;
  }
}

Executable::MemoryStats TiledMemoryStats(const HloComputation& entry) {
  Executable::MemoryStats stats;
  for (const HloInstruction* p : entry.parameter_instructions()) {
    stats.argument_size += TiledByteSize(p->shape());
  }
  const HloInstruction* root = entry.root_instruction();
  stats.output_size = TiledByteSize(root->shape());
  std::set<const HloInstruction*> outputs = {root};
  if (root->opcode() == HloOpcode::kTuple) outputs.insert(root->operands().begin(), root->operands().end());
  for (const HloInstruction* instr : entry.instructions()) {
    if (outputs.count(instr) == 0 && !AliasesOperand(*instr)) {
      stats.temp_size += TiledByteSize(instr->shape());
    }
  }
  return stats;
}

}  // namespace

StatusOr<TpuCompiledModule> CompileForTpu(HloModule* module) {
  // No fusion: the module is reported, not run, and stays readable op by op.
  OptimizationOptions options;
  options.run_fusion = false;
  options.assign_default_layouts = false;  // TpuLayoutAssignment below tiles them
  RETURN_IF_ERROR(RunOptimizationPipeline(module, options));
  // bf16 first, so the converts it adds get tiled layouts too; DCE drops
  // f32 converts whose only users now read the bf16 value directly.
  HloPassPipeline pipeline("tpu");
  pipeline.AddPass<Bf16DotRewriter>();
  pipeline.AddPass<HloDCE>();
  pipeline.AddPass<TpuLayoutAssignment>();
  RETURN_IF_ERROR(pipeline.Run(module).status());
  TpuCompiledModule compiled;
  compiled.optimized_hlo = module->ToString();
  const Shape& result = module->entry_computation()->root_instruction()->shape();
  compiled.num_outputs = static_cast<int64_t>(FlattenShape(result).size());
  compiled.memory_stats = TiledMemoryStats(*module->entry_computation());
  return compiled;
}

}  // namespace xla::tpu
