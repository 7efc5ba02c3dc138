// The TPU compile pipeline, for the compile-only client: the shared
// simplification passes, then the TPU passes (bf16 default precision for f32
// dots and convolutions, tiled layouts), then memory sizes from the tiled
// layouts. It produces optimised HLO, not TPU machine code: generating and
// running TPU programs is what Google's libtpu does (tpu_runtime_bridge.h).
#ifndef XLA_BACKENDS_TPU_TPU_COMPILER_H_
#define XLA_BACKENDS_TPU_TPU_COMPILER_H_

#include <cstdint>
#include <string>

#include "xla/hlo/ir/module.h"
#include "xla/pjrt/client.h"
#include "xla/status.h"

namespace xla::tpu {

struct TpuCompiledModule {
  std::string optimized_hlo;
  int64_t num_outputs = 0;  // array leaves of the result
  // Sizes of the tiled buffers: arguments and outputs as laid out, and as
  // temporaries every other array value of the entry computation (an upper
  // bound: there is no buffer assignment to reuse memory between values).
  // generated_code_size is 0: no machine code is generated.
  Executable::MemoryStats memory_stats;
};

// Runs the passes on `module` (it is changed); the error names the failing pass.
StatusOr<TpuCompiledModule> CompileForTpu(HloModule* module);

}  // namespace xla::tpu

#endif  // XLA_BACKENDS_TPU_TPU_COMPILER_H_
