// The HLO conformance corpus through the CPU client (conformance_runner.h).
// CONFORMANCE_DIR overrides the corpus root (default: <repo>/../shared/conformance).
// An optional argument filters case names by substring.
#include <cstdio>

#include "xla/backends/cpu/cpu_client.h"
#include "xla/backends/cpu/testing/conformance_runner.h"

int main(int argc, char** argv) {
  auto client = xla::CpuPluginInfo().create_client({});
  if (!client.ok()) {
    std::fprintf(stderr, "cannot create client: %s\n", client.status().ToString().c_str());
    return 1;
  }
  return xla::cpu::testing::RunHloCorpus(
      **client, xla::cpu::testing::ConformanceRoot("xla/backends/cpu/conformance_test.cc"),
      argc > 1 ? argv[1] : "");
}
