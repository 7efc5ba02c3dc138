// Bytes written by real XLA (jaxlib 0.10.2, recorded by
// oracle/check_real_xla.py --record) read back as the same module XLA
// printed for them: for each testdata/real_xla/NAME.pb, our reader's text
// equals NAME.hlo (XLA's own text) as our parser prints it.
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

fs::path DataDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  fs::path base = srcdir ? fs::path(srcdir) / "jax_monorepo" : fs::path(".");
  return base / "xla/hlo/proto/testdata/real_xla";
}

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(RealXlaBytesReadAsXlaPrintsThem) {
  std::vector<fs::path> protos;
  for (const auto& entry : fs::directory_iterator(DataDir())) {
    if (entry.path().extension() == ".pb") protos.push_back(entry.path());
  }
  std::sort(protos.begin(), protos.end());
  for (const fs::path& pb : protos) {
    fs::path hlo = pb;
    hlo.replace_extension(".hlo");
    auto ours = ParseHloModuleProto(ReadFile(pb));
    if (!ours.ok()) {
      ::xla::testing::ReportFailure(__FILE__, __LINE__, pb.string() + ": " + ours.status().ToString());
      continue;
    }
    auto theirs = ParseHloModule(ReadFile(hlo));
    CHECK_OK(theirs);
    EXPECT_EQ((*ours)->ToString(), (*theirs)->ToString());
  }
  std::fprintf(stderr, "%zu recorded real-XLA modules\n", protos.size());
  EXPECT_TRUE(protos.size() >= 16);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
