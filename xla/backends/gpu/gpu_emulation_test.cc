// The HLO conformance corpus through the GPU compiler, its kernels run on an
// emulated GPU (testing/emulated_gpu_client.h) and compared with the numbers
// real JAX computed. UNIMPLEMENTED cases are what the GPU backends lack.
// CONFORMANCE_DIR overrides the corpus root; an argument filters case names.
#include <cstdio>

// Cases passing when this floor was last raised; raise it as ops land.
constexpr int kMinimumPassing = 190;

#include "xla/backends/cpu/testing/conformance_runner.h"
#include "xla/backends/gpu/testing/emulated_gpu_client.h"

int main(int argc, char** argv) {
  auto client = xla::gpu::testing::CreateEmulatedGpuClient();
  if (!client.ok()) {
    std::fprintf(stderr, "cannot create the emulated GPU: %s\n", client.status().ToString().c_str());
    return 1;
  }
  return xla::cpu::testing::RunHloCorpus(
      **client, xla::cpu::testing::ConformanceRoot("xla/backends/gpu/gpu_emulation_test.cc"),
      argc > 1 ? argv[1] : "", kMinimumPassing);
}
