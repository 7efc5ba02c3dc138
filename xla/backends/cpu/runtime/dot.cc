// Eigen GEMM for dots (linalg_thunk.cc is the other file that includes Eigen).
#include "xla/backends/cpu/runtime/dot.h"

#include <algorithm>

#include "Eigen/Core"

namespace xla::cpu {
namespace {

template <typename T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstView = Eigen::Map<const RowMajor<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using View = Eigen::Map<RowMajor<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

// Computes output rows [r0, r1) of batch b.
template <typename T>
void DotBlock(const DotParams& p, const T* lhs, const T* rhs, T* out, int64_t b, int64_t r0,
              int64_t r1) {
  const int64_t m = p.m, k = p.k, n = p.n, rows = r1 - r0;
  const T* lb = lhs + b * m * k;
  const T* rb = rhs + b * k * n;
  View<T> c(out + b * m * n + r0 * n, rows, n, Eigen::OuterStride<>(n));
  // The four operand orientations are distinct expressions for Eigen, which
  // picks the GEMM kernel's packing from the storage order of each side.
  if (!p.lhs_transposed && !p.rhs_transposed) {
    c.noalias() = ConstView<T>(lb + r0 * k, rows, k, Eigen::OuterStride<>(k)) *
                  ConstView<T>(rb, k, n, Eigen::OuterStride<>(n));
  } else if (p.lhs_transposed && !p.rhs_transposed) {
    c.noalias() = ConstView<T>(lb + r0, k, rows, Eigen::OuterStride<>(m)).transpose() *
                  ConstView<T>(rb, k, n, Eigen::OuterStride<>(n));
  } else if (!p.lhs_transposed && p.rhs_transposed) {
    c.noalias() = ConstView<T>(lb + r0 * k, rows, k, Eigen::OuterStride<>(k)) *
                  ConstView<T>(rb, n, k, Eigen::OuterStride<>(k)).transpose();
  } else {
    c.noalias() = ConstView<T>(lb + r0, k, rows, Eigen::OuterStride<>(m)).transpose() *
                  ConstView<T>(rb, n, k, Eigen::OuterStride<>(k)).transpose();
  }
}

template <typename T>
void RunDotTyped(const DotParams& p, void* const* buffers, ThreadPool& pool) {
  const T* lhs = static_cast<const T*>(buffers[p.lhs_slot]);
  const T* rhs = static_cast<const T*>(buffers[p.rhs_slot]);
  T* out = static_cast<T*>(buffers[p.out_slot]);
  if (p.m == 0 || p.n == 0 || p.batch == 0) return;
  if (p.k == 0) {
    std::fill(out, out + p.batch * p.m * p.n, T(0));
    return;
  }
  // Blocks of at least ~2M multiply-adds, at most 4 per thread.
  const double flops = static_cast<double>(p.batch) * p.m * p.n * p.k;
  int64_t max_tasks = std::max<int64_t>(1, static_cast<int64_t>(flops / 2.0e6));
  max_tasks = std::min<int64_t>(max_tasks, 4 * pool.num_threads());
  int64_t row_blocks = std::max<int64_t>(1, std::min<int64_t>(p.m, max_tasks / p.batch));
  int64_t rows_per_block = (p.m + row_blocks - 1) / row_blocks;
  row_blocks = (p.m + rows_per_block - 1) / rows_per_block;
  pool.ParallelFor(p.batch * row_blocks, [&](int64_t task) {
    int64_t b = task / row_blocks, blk = task % row_blocks;
    int64_t r0 = blk * rows_per_block, r1 = std::min(p.m, r0 + rows_per_block);
    DotBlock<T>(p, lhs, rhs, out, b, r0, r1);
  });
}

}  // namespace

void RunDot(const DotParams& params, void* const* buffers, ThreadPool& pool) {
  if (params.type == PrimitiveType::F64) {
    RunDotTyped<double>(params, buffers, pool);
  } else {
    RunDotTyped<float>(params, buffers, pool);
  }
}

}  // namespace xla::cpu
