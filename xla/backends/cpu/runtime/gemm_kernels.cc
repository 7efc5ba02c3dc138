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

#include <cstdlib>
#include <cstring>

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

// Eigen's own expression path: GEMV for matrix-vector products and a plain
// loop for tiny ones, both without packing.
template <typename T>
void GemmByExpression(const GemmArgs<T>& g) {
  if (g.a_transposed) {
    WithRhs(g, ConstView<T>(g.a, g.k, g.m, Eigen::OuterStride<>(g.lda)).transpose());
  } else {
    WithRhs(g, ConstView<T>(g.a, g.m, g.k, Eigen::OuterStride<>(g.lda)));
  }
}

// Packing buffers, kept per thread between calls: allocated per call (as
// Eigen does), multi-megabyte buffers come back from the C library as fresh
// pages, and faulting them in cost a tenth of a small GEMM's time.
template <typename T>
class PackingBuffers {
 public:
  // Buffers larger than this are allocated per call rather than kept.
  static constexpr size_t kMaxKeptBytes = size_t{32} << 20;

  ~PackingBuffers() { std::free(data_); }

  // At least `elements` elements, 64-byte aligned; null if more than kept.
  T* Reserve(size_t elements) {
    const size_t bytes = (elements * sizeof(T) + 63) / 64 * 64;
    if (bytes > kMaxKeptBytes) return nullptr;
    if (bytes > bytes_) {
      std::free(data_);
      data_ = static_cast<T*>(std::aligned_alloc(64, bytes));
      bytes_ = data_ ? bytes : 0;
    }
    return data_;
  }

 private:
  T* data_ = nullptr;
  size_t bytes_ = 0;
};

template <typename T>
PackingBuffers<T>& ThreadPackingBuffers() {
  static thread_local PackingBuffers<T> buffers;
  return buffers;
}

// Eigen's cache blocking for one thread, over this thread's kept buffers
// (null ones make Eigen allocate its own).
template <typename T>
class KeptBlocking : public Eigen::internal::level3_blocking<T, T> {
 public:
  KeptBlocking(Eigen::Index rows, Eigen::Index cols, Eigen::Index depth) {
    this->m_mc = rows;
    this->m_nc = cols;
    this->m_kc = depth;
    Eigen::internal::computeProductBlockingSizes<T, T, 1>(this->m_kc, this->m_mc, this->m_nc,
                                                         Eigen::Index{1});
    const Eigen::Index align = 64 / sizeof(T);
    const Eigen::Index size_a = (this->m_mc * this->m_kc + align - 1) / align * align;
    T* data = ThreadPackingBuffers<T>().Reserve(size_a + this->m_kc * this->m_nc);
    if (data != nullptr) {
      this->m_blockA = data;
      this->m_blockB = data + size_a;
    }
  }
};

// c (+)= op(a) op(b) as Eigen's column-major GEMM of the transposes,
// c^T = op(b)^T op(a)^T: a row-major operand is its transpose in column-major
// order, so only the storage orders change.
template <typename T, int LhsOrder, int RhsOrder>
void GemmByKernel(const GemmArgs<T>& g) {
  if (!g.accumulate) {
    for (int64_t i = 0; i < g.m; ++i) std::memset(g.c + i * g.ldc, 0, g.n * sizeof(T));
  }
  KeptBlocking<T> blocking(g.n, g.m, g.k);
  Eigen::internal::general_matrix_matrix_product<Eigen::Index, T, LhsOrder, false, T, RhsOrder,
                                                 false, Eigen::ColMajor, 1>::run(
      g.n, g.m, g.k, g.b, g.ldb, g.a, g.lda, g.c, 1, g.ldc, T(1), blocking);
}

template <typename T>
void GemmTyped(const GemmArgs<T>& g) {
  if (g.m == 0 || g.n == 0) return;
  if (g.m == 1 || g.n == 1 || g.k == 0 || g.m + g.n + g.k < 20) {
    GemmByExpression(g);
    return;
  }
  constexpr int kRow = Eigen::RowMajor, kCol = Eigen::ColMajor;
  if (g.b_transposed) {
    g.a_transposed ? GemmByKernel<T, kRow, kRow>(g) : GemmByKernel<T, kRow, kCol>(g);
  } else {
    g.a_transposed ? GemmByKernel<T, kCol, kRow>(g) : GemmByKernel<T, kCol, kCol>(g);
  }
}

}  // namespace

void GemmF32(const GemmArgs<float>& args) { GemmTyped(args); }
void GemmF64(const GemmArgs<double>& args) { GemmTyped(args); }

}  // namespace XLA_GEMM_CAT(gemm_, XLA_GEMM_VARIANT)
}  // namespace xla::cpu
