// The per-instruction-set entry points of gemm_kernels.cc (internal to gemm.cc).
#ifndef XLA_BACKENDS_CPU_RUNTIME_GEMM_VARIANTS_H_
#define XLA_BACKENDS_CPU_RUNTIME_GEMM_VARIANTS_H_

#include "xla/backends/cpu/runtime/gemm.h"

namespace xla::cpu {
namespace gemm_avx2 {
void GemmF32(const GemmArgs<float>& args);
void GemmF64(const GemmArgs<double>& args);
}  // namespace gemm_avx2
namespace gemm_avx512 {
void GemmF32(const GemmArgs<float>& args);
void GemmF64(const GemmArgs<double>& args);
}  // namespace gemm_avx512
}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_GEMM_VARIANTS_H_
