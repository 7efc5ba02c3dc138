// Single-threaded dense matrix multiply (GEMM) on row-major operands, with
// the kernels chosen once per process from the host's instruction set.
//
// Eigen picks its vector kernels at compile time, so gemm_kernels.cc is
// compiled once per instruction set (BUILD.bazel: gemm_avx2, gemm_avx512),
// each copy with its own Eigen namespace so that the linker never merges a
// template built for one set into the other. This file's users (dots and
// convolutions) see only a table of plain functions.
#ifndef XLA_BACKENDS_CPU_RUNTIME_GEMM_H_
#define XLA_BACKENDS_CPU_RUNTIME_GEMM_H_

#include <cstdint>

namespace xla::cpu {

// c = op(a) * op(b), or c += op(a) * op(b) when `accumulate`, with op(a)
// [m, k] and op(b) [k, n]. Row-major storage with leading dimensions:
// a is [m, k] (lda >= k), or [k, m] (lda >= m) when `a_transposed`; b is
// [k, n] (ldb >= n), or [n, k] (ldb >= k) when `b_transposed`; c is [m, n]
// (ldc >= n) and must not overlap a or b.
template <typename T>
struct GemmArgs {
  int64_t m = 0, n = 0, k = 0;
  const T* a = nullptr;
  int64_t lda = 0;
  bool a_transposed = false;
  const T* b = nullptr;
  int64_t ldb = 0;
  bool b_transposed = false;
  T* c = nullptr;
  int64_t ldc = 0;
  bool accumulate = false;
};

enum class GemmIsa { kAvx2, kAvx512 };

// One instruction set's kernels.
struct GemmKernels {
  GemmIsa isa;
  const char* name;  // "avx2" or "avx512", for logs and tests
  void (*f32)(const GemmArgs<float>&);
  void (*f64)(const GemmArgs<double>&);
};

// The kernels for `isa`, or nullptr when this CPU cannot run them.
const GemmKernels* GemmKernelsFor(GemmIsa isa);

// The fastest kernels this CPU runs, chosen on first use from CPUID
// (CpuClient::Create calls it so the choice is made before any execution).
const GemmKernels& HostGemm();

template <typename T>
void Gemm(const GemmArgs<T>& args);
template <>
inline void Gemm<float>(const GemmArgs<float>& args) { HostGemm().f32(args); }
template <>
inline void Gemm<double>(const GemmArgs<double>& args) { HostGemm().f64(args); }

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_GEMM_H_
