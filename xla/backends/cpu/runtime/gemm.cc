#include "xla/backends/cpu/runtime/gemm.h"

#include "xla/backends/cpu/runtime/gemm_variants.h"

namespace xla::cpu {
namespace {

constexpr GemmKernels kAvx2{GemmIsa::kAvx2, "avx2", &gemm_avx2::GemmF32, &gemm_avx2::GemmF64};
constexpr GemmKernels kAvx512{GemmIsa::kAvx512, "avx512", &gemm_avx512::GemmF32,
                              &gemm_avx512::GemmF64};

// The features each variant's copts enable (build/copts.bzl). GCC's
// __builtin_cpu_supports also checks that the OS saves the vector state.
bool HostSupports(GemmIsa isa) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("f16c");
  if (isa == GemmIsa::kAvx2) return avx2;
  return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw");
#else
  return false;
#endif
}

const GemmKernels& SelectHostGemm() {
  if (HostSupports(GemmIsa::kAvx512)) return kAvx512;
  // CpuClient::Create refuses hosts without AVX2 and FMA, so nothing runs a
  // kernel on such a host.
  return kAvx2;
}

}  // namespace

const GemmKernels* GemmKernelsFor(GemmIsa isa) {
  if (!HostSupports(isa)) return nullptr;
  return isa == GemmIsa::kAvx512 ? &kAvx512 : &kAvx2;
}

const GemmKernels& HostGemm() {
  static const GemmKernels& kernels = SelectHostGemm();
  return kernels;
}

}  // namespace xla::cpu
