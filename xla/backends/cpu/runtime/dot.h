// Dense matrix multiply for f32/f64 dots, through Eigen's GEMM, split over
// the thread pool by batch and by blocks of output rows.
#ifndef XLA_BACKENDS_CPU_RUNTIME_DOT_H_
#define XLA_BACKENDS_CPU_RUNTIME_DOT_H_

#include "xla/backends/cpu/runtime/program.h"
#include "xla/backends/cpu/runtime/thread_pool.h"

namespace xla::cpu {

// out[b] = op(lhs[b]) * op(rhs[b]) with the slots of `params` looked up in `buffers`.
void RunDot(const DotParams& params, void* const* buffers, ThreadPool& pool);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_DOT_H_
