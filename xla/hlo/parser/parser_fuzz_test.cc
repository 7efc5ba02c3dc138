// Robustness: thousands of randomly mutated modules must never crash the
// parser or verifier, and every mutant that does parse must round-trip through
// the printer. The seeds are the fuzzer's checked-in corpus (fuzz/corpus: a
// hand-written module and every input the coverage-guided fuzzer once crashed
// on, each also checked unmutated) plus the conformance corpus when
// CONFORMANCE_DIR is set. Deterministic (fixed seed), so a failure reproduces;
// fast enough to run everywhere, unlike parser_fuzzer, which needs clang.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"

namespace fs = std::filesystem;

namespace xla {
namespace {

// Bazel runs tests in the runfiles tree, where data files sit at their
// workspace paths.
constexpr char kCorpusDir[] = "xla/hlo/parser/fuzz/corpus";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The files of `dir` in name order (directory order differs between machines,
// and the mutants depend on the order).
std::vector<fs::path> SortedFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> CheckedInCorpus() {
  std::vector<std::string> inputs;
  for (const fs::path& file : SortedFiles(kCorpusDir)) inputs.push_back(ReadFile(file));
  return inputs;
}

std::vector<std::string> ConformanceModules() {
  std::vector<std::string> modules;
  fs::path dir;
  if (const char* env = std::getenv("CONFORMANCE_DIR")) dir = fs::path(env) / "hlo";
  std::error_code ec;
  if (!dir.empty() && fs::is_directory(dir, ec)) {
    for (const fs::path& module_dir : SortedFiles(dir)) {
      std::string text = ReadFile(module_dir / "module.hlo");
      if (!text.empty()) modules.push_back(std::move(text));
    }
  }
  return modules;
}

std::string Mutate(const std::string& text, std::mt19937* rng) {
  static const char kChars[] = "{}()[],=:->_.0123456789xf32su8 \n%\"ROOT";
  std::string s = text;
  int edits = 1 + (*rng)() % 3;
  for (int e = 0; e < edits && !s.empty(); ++e) {
    size_t pos = (*rng)() % s.size();
    size_t len = 1 + (*rng)() % 8;
    switch ((*rng)() % 4) {
      case 0: s.erase(pos, len); break;                                   // delete
      case 1: s.insert(pos, s.substr((*rng)() % s.size(), len)); break;   // duplicate
      case 2: s[pos] = kChars[(*rng)() % (sizeof(kChars) - 1)]; break;    // replace
      case 3: s.insert(pos, 1, kChars[(*rng)() % (sizeof(kChars) - 1)]); break;  // insert
    }
  }
  return s;
}

// Parses `text`; if it parses, checks that its printout parses and prints the
// same. Returns whether `text` parsed.
bool ParsesAndRoundTrips(const std::string& text) {
  auto m = ParseHloModule(text);
  if (!m.ok()) return false;
  std::string printed = ToString(**m);
  auto again = ParseHloModule(printed);
  if (!again.ok()) {
    ::xla::testing::ReportFailure(__FILE__, __LINE__,
                                  "input parsed but its printout did not:\n" + text +
                                      "\n--- printed ---\n" + printed + "\n--- error ---\n" +
                                      again.status().message());
    return true;
  }
  EXPECT_EQ(ToString(**again), printed);
  return true;
}

// The checked-in corpus holds one valid module and the fuzzer's past crashes.
TEST(CheckedInCorpusNeverCrashes) {
  std::vector<std::string> corpus = CheckedInCorpus();
  CHECK_TRUE(!corpus.empty());
  int parsed = 0;
  for (const std::string& input : corpus) parsed += ParsesAndRoundTrips(input);
  EXPECT_TRUE(parsed >= 1);
}

TEST(MutantsNeverCrashAndParsedOnesRoundTrip) {
  std::mt19937 rng(12345);
  std::vector<std::string> seeds = CheckedInCorpus();
  for (std::string& module : ConformanceModules()) seeds.push_back(std::move(module));
  const int per_seed = std::max<int>(40, 4000 / seeds.size());
  int parsed = 0, total = 0;
  for (const std::string& seed : seeds) {
    for (int i = 0; i < per_seed; ++i) {
      ++total;
      parsed += ParsesAndRoundTrips(Mutate(seed, &rng));
    }
  }
  std::fprintf(stderr, "%d mutants, %d parsed\n", total, parsed);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
