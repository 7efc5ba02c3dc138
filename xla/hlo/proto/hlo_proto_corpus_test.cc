// Every module of the conformance corpus survives the wire:
// text -> IR -> HloModuleProto bytes -> IR -> text equals text -> IR -> text.
// The corpus is found as //xla/hlo/parser:corpus_test finds it ($CONFORMANCE_DIR,
// else <repo>/../shared/conformance); without one the test says it skipped.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "xla/hlo/parser/parser.h"
#include "xla/hlo/proto/hlo_proto.h"
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
      fs::path src = fs::path(base) / (std::string(ws) + "xla/hlo/proto/hlo_proto_corpus_test.cc");
      if (!fs::exists(src, ec)) continue;
      fs::path real = fs::canonical(src, ec);
      if (ec) continue;
      // real = <repo>/xla/hlo/proto/hlo_proto_corpus_test.cc
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

TEST(EveryCorpusModuleRoundTripsThroughBytes) {
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
  int identical = 0;
  for (const fs::path& file : files) {
    auto module = ParseHloModule(ReadFile(file));
    CHECK_OK(module);
    std::string expected = (*module)->ToString();
    auto bytes = SerializeHloModuleProto(**module);
    if (!bytes.ok()) {
      ::xla::testing::ReportFailure(__FILE__, __LINE__, file.string() + ": " + bytes.status().ToString());
      continue;
    }
    auto back = ParseHloModuleProto(*bytes);
    if (!back.ok()) {
      ::xla::testing::ReportFailure(__FILE__, __LINE__, file.string() + ": " + back.status().ToString());
      continue;
    }
    if ((*back)->ToString() == expected) {
      ++identical;
    } else {
      ::xla::testing::ReportFailure(__FILE__, __LINE__, file.string() + ": text differs after the wire:\n" +
                                                            (*back)->ToString());
    }
  }
  std::fprintf(stderr, "corpus %s: %zu modules, %d identical after the wire\n", dir.c_str(),
               files.size(), identical);
  EXPECT_TRUE(files.size() >= 1);
  EXPECT_EQ(identical, static_cast<int>(files.size()));
}

}  // namespace
}  // namespace xla

TEST_MAIN()
