// The compile-and-run fuzzer: starts from real modules (the conformance corpus
// and fuzz/seeds), applies structure-aware mutations (hlo_mutator.h) and sends
// every mutant through parse -> verify -> compile -> run (compile_run.h). The
// seeds themselves run first, unmutated, so past findings kept in fuzz/seeds
// are regression inputs.
// Built with AddressSanitizer and UndefinedBehaviorSanitizer (--config=asan) a
// memory error aborts the run; a crash in any build kills it. Before each input
// runs it is written to <artifacts>/current.hlo, so a finding leaves its input.
//
//   compile_run_fuzz [--seconds=N] [--seed=N] [--artifacts=DIR]
//
// As a test (bazel test) it runs FUZZ_SECONDS (default 30) seconds with a fixed
// seed; .ci/fuzz_compile_run.sh runs it for as long as asked.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "xla/backends/cpu/cpu_client.h"
#include "xla/backends/cpu/fuzz/compile_run.h"
#include "xla/backends/cpu/fuzz/hlo_mutator.h"
#include "xla/backends/cpu/testing/conformance_runner.h"

namespace xla::cpu::fuzz {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Seed modules: <conformance>/hlo/*/module.hlo and this folder's seeds/*.hlo.
std::vector<std::string> LoadSeeds() {
  std::vector<std::string> seeds;
  std::vector<fs::path> dirs = {
      fs::path(testing::ConformanceRoot("xla/backends/cpu/fuzz/compile_run_fuzz.cc")) / "hlo",
      fs::path("xla/backends/cpu/fuzz/seeds")};
  for (const fs::path& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
      if (e.path().extension() == ".hlo") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());  // a fixed seed gives a fixed run
    for (const fs::path& f : files) seeds.push_back(ReadFile(f));
  }
  return seeds;
}

struct Flags {
  double seconds = 30;
  uint64_t seed = 1;
  std::string artifacts;
};

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  if (const char* s = std::getenv("FUZZ_SECONDS")) flags.seconds = std::atof(s);
  if (const char* a = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR")) flags.artifacts = a;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--seconds=", 0) == 0) flags.seconds = std::atof(arg.c_str() + 10);
    if (arg.rfind("--seed=", 0) == 0) flags.seed = std::strtoull(arg.c_str() + 7, nullptr, 10);
    if (arg.rfind("--artifacts=", 0) == 0) flags.artifacts = arg.substr(12);
  }
  if (flags.artifacts.empty()) flags.artifacts = fs::temp_directory_path().string();
  return flags;
}

int Run(int argc, char** argv) {
  Flags flags = ParseFlags(argc, argv);
  std::vector<std::string> seeds = LoadSeeds();
  if (seeds.empty()) {
    std::fprintf(stderr, "compile_run_fuzz: no seed modules found\n");
    return 1;
  }
  auto client = CpuPluginInfo().create_client({});
  if (!client.ok()) {
    std::fprintf(stderr, "cannot create client: %s\n", client.status().ToString().c_str());
    return 1;
  }
  fs::path current = fs::path(flags.artifacts) / "current.hlo";
  std::mt19937_64 rng(flags.seed);
  // Mutants that compiled join the pool, so mutations stack up over time.
  std::vector<std::string> pool = seeds;
  int64_t executions = 0, counts[3] = {0, 0, 0};
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // Every seed runs unmutated first: past findings live in seeds/ as regression inputs.
  for (const std::string& seed : seeds) {
    WriteFile(current, seed);
    ++executions;
    ++counts[static_cast<int>(CompileAndRun(**client, seed))];
  }
  while (elapsed() < flags.seconds) {
    std::string text = pool[rng() % pool.size()];
    int mutations = 1 + static_cast<int>(rng() % 3);
    for (int m = 0; m < mutations; ++m) MutateHloText(text, rng);
    WriteFile(current, text);
    Outcome outcome = CompileAndRun(**client, text);
    ++executions;
    ++counts[static_cast<int>(outcome)];
    if (outcome != Outcome::kRefused && pool.size() < 4 * seeds.size()) pool.push_back(text);
    else if (outcome != Outcome::kRefused) pool[seeds.size() + rng() % (pool.size() - seeds.size())] = text;
  }
  std::printf("compile_run_fuzz: %lld executions in %.0f s (seed %llu, %zu seeds): %lld refused, "
              "%lld compiled only, %lld ran; no crash\n",
              static_cast<long long>(executions), elapsed(),
              static_cast<unsigned long long>(flags.seed), seeds.size(),
              static_cast<long long>(counts[0]), static_cast<long long>(counts[1]),
              static_cast<long long>(counts[2]));
  std::error_code ec;
  fs::remove(current, ec);
  return 0;
}

}  // namespace
}  // namespace xla::cpu::fuzz

int main(int argc, char** argv) { return xla::cpu::fuzz::Run(argc, argv); }
