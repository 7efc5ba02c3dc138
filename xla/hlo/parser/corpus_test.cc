// Every module of the conformance corpus (HLO text printed by real JAX
// 0.10.2) parses, verifies, and round-trips: print(parse(text)) == text,
// and parse(print(m)) prints identically.
//
// The corpus lives outside the repo. Its folder comes from $CONFORMANCE_DIR,
// else <repo>/../shared/conformance, where <repo> is found by resolving this
// test's source file in the runfiles. Without a corpus the test passes after
// saying it skipped; parser_test.cc always covers inline modules.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"

namespace fs = std::filesystem;

namespace xla {
namespace {

fs::path CorpusDir() {
  if (const char* env = std::getenv("CONFORMANCE_DIR")) return fs::path(env);
  std::error_code ec;
  const char* bases[] = {std::getenv("TEST_SRCDIR"), "."};
  for (const char* base : bases) {
    if (base == nullptr) continue;
    for (const char* ws : {"jax_monorepo/", ""}) {
      fs::path src = fs::path(base) / (std::string(ws) + "xla/hlo/parser/corpus_test.cc");
      if (!fs::exists(src, ec)) continue;
      fs::path real = fs::canonical(src, ec);
      if (ec) continue;
      // real = <repo>/xla/hlo/parser/corpus_test.cc
      return real.parent_path().parent_path().parent_path().parent_path().parent_path() /
             "shared" / "conformance";
    }
  }
  return fs::path("../shared/conformance");
}

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(EveryCorpusModuleParsesAndRoundTrips) {
  fs::path dir = CorpusDir() / "hlo";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::fprintf(stderr, "SKIPPED: no corpus at %s (set CONFORMANCE_DIR)\n", dir.c_str());
    return;
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    fs::path m = entry.path() / "module.hlo";
    if (fs::exists(m)) files.push_back(m);
  }
  std::sort(files.begin(), files.end());
  int parsed = 0, identical = 0;
  for (const fs::path& file : files) {
    std::string text = ReadFile(file);
    auto module = ParseHloModule(text);
    if (!module.ok()) {
      ::xla::testing::ReportFailure(__FILE__, __LINE__,
                                    file.string() + ":\n" + module.status().message());
      continue;
    }
    ++parsed;
    std::string printed = ToString(**module);
    if (printed == text) {
      ++identical;
    } else {
      ::xla::testing::ReportFailure(__FILE__, __LINE__,
                                    file.string() + ": printed text differs from the input");
    }
    auto again = ParseHloModule(printed);
    if (!again.ok()) {
      ::xla::testing::ReportFailure(__FILE__, __LINE__,
                                    file.string() + " (reprinted):\n" + again.status().message());
      continue;
    }
    EXPECT_EQ(ToString(**again), printed);
  }
  std::fprintf(stderr, "corpus %s: %zu modules, %d parsed+verified, %d print byte-identically\n",
               dir.c_str(), files.size(), parsed, identical);
  EXPECT_TRUE(files.size() >= 1);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
