// Runs the HLO conformance corpus (module.hlo, inputs.npz, expected.npz per
// case) through a Client and compares with what real JAX computed. Wrong
// numbers, crashes and errors other than UNIMPLEMENTED fail; UNIMPLEMENTED
// cases are listed and counted, so the gap is always visible.
#ifndef XLA_BACKENDS_CPU_TESTING_CONFORMANCE_RUNNER_H_
#define XLA_BACKENDS_CPU_TESTING_CONFORMANCE_RUNNER_H_

#include <string>

#include "xla/pjrt/client.h"

namespace xla::cpu::testing {

// CONFORMANCE_DIR, or <repo>/../shared/conformance found through the real
// path of `data_file`, a repository-relative data dependency of the test.
std::string ConformanceRoot(const std::string& data_file);

// Runs every case of <root>/hlo whose name contains `filter` (all if empty)
// on the client's first device, printing a line per case and a summary.
// Returns the exit status: 0 when nothing mismatched or failed and, for a
// full run (no filter), at least `minimum_passed` cases passed.
int RunHloCorpus(Client& client, const std::string& root, const std::string& filter,
                 int minimum_passed = 0);

}  // namespace xla::cpu::testing

#endif  // XLA_BACKENDS_CPU_TESTING_CONFORMANCE_RUNNER_H_
