// Eigen's GEMM for one instruction set. This file is compiled once per set
// (BUILD.bazel), with XLA_GEMM_VARIANT naming the set and the copts enabling
// it. Everything it instantiates must carry the variant in its symbol name:
// Eigen's namespace is renamed below, and the entry points live in
// gemm_<variant>. A template shared with other translation units (say a
// std:: algorithm over plain floats) could be merged by the linker with a
// copy built for the other set, so this file instantiates nothing else
// (gemm_variants_test checks the symbols).
#ifndef XLA_GEMM_VARIANT
#error "XLA_GEMM_VARIANT must name the instruction set (avx2 or avx512)"
#endif

#define XLA_GEMM_CAT_(a, b) a##b
#define XLA_GEMM_CAT(a, b) XLA_GEMM_CAT_(a, b)
#define Eigen XLA_GEMM_CAT(EigenGemm_, XLA_GEMM_VARIANT)

#include "Eigen/Core"
#include "xla/backends/cpu/runtime/gemm_variants.h"

namespace xla::cpu {
namespace XLA_GEMM_CAT(gemm_, XLA_GEMM_VARIANT) {
namespace {

template <typename T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstView = Eigen::Map<const RowMajor<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using View = Eigen::Map<RowMajor<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

template <typename T, typename Lhs, typename Rhs>
void Store(const GemmArgs<T>& g, const Lhs& lhs, const Rhs& rhs) {
  View<T> c(g.c, g.m, g.n, Eigen::OuterStride<>(g.ldc));
  if (g.accumulate) {
    c.noalias() += lhs * rhs;
  } else {
    c.noalias() = lhs * rhs;
  }
}

// The four operand orientations are distinct expressions for Eigen, which
// picks the packing of each side from its storage order.
template <typename T, typename Lhs>
void WithRhs(const GemmArgs<T>& g, const Lhs& lhs) {
  if (g.b_transposed) {
    Store(g, lhs, ConstView<T>(g.b, g.n, g.k, Eigen::OuterStride<>(g.ldb)).transpose());
  } else {
    Store(g, lhs, ConstView<T>(g.b, g.k, g.n, Eigen::OuterStride<>(g.ldb)));
  }
}

template <typename T>
void GemmTyped(const GemmArgs<T>& g) {
  if (g.a_transposed) {
    WithRhs(g, ConstView<T>(g.a, g.k, g.m, Eigen::OuterStride<>(g.lda)).transpose());
  } else {
    WithRhs(g, ConstView<T>(g.a, g.m, g.k, Eigen::OuterStride<>(g.lda)));
  }
}

}  // namespace

void GemmF32(const GemmArgs<float>& args) { GemmTyped(args); }
void GemmF64(const GemmArgs<double>& args) { GemmTyped(args); }

}  // namespace XLA_GEMM_CAT(gemm_, XLA_GEMM_VARIANT)
}  // namespace xla::cpu
