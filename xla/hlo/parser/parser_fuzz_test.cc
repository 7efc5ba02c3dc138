// Robustness: thousands of randomly mutated modules (from the corpus when
// present, else inline ones) must never crash the parser or verifier, and
// every mutant that does parse must round-trip through the printer.
// Deterministic (fixed seed), so a failure reproduces.
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

constexpr char kSeed[] = R"(HloModule m, entry_computation_layout={(f32[4,6]{1,0}, s32[])->(f32[4]{0}, f32[2,3]{1,0})}

region_0.1 {
  a.1 = f32[] parameter(0)
  b.1 = f32[] parameter(1)
  ROOT max.1 = f32[] maximum(a.1, b.1)
}

ENTRY main.2 {
  x.1 = f32[4,6]{1,0} parameter(0)
  i.1 = s32[] parameter(1)
  constant.1 = f32[] constant(-inf)
  r.1 = f32[4]{0} reduce(x.1, constant.1), dimensions={1}, to_apply=region_0.1
  w.1 = f32[4,3]{1,0} reduce-window(x.1, constant.1), window={size=1x2 stride=1x2}, to_apply=region_0.1
  p.1 = f32[5,4]{1,0} pad(w.1, constant.1), padding=0_1x0_1
  d.1 = f32[2,3]{1,0} dynamic-slice(x.1, i.1, i.1), dynamic_slice_sizes={2,3}
  c.1 = u32[4]{0} constant({13, 15, 26, 6})
  ROOT tuple.1 = (f32[4]{0}, f32[2,3]{1,0}) tuple(r.1, d.1)
}

)";

std::vector<std::string> Seeds() {
  std::vector<std::string> seeds = {kSeed};
  fs::path dir;
  if (const char* env = std::getenv("CONFORMANCE_DIR")) dir = fs::path(env) / "hlo";
  std::error_code ec;
  if (!dir.empty() && fs::is_directory(dir, ec)) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      std::ifstream in(entry.path() / "module.hlo");
      std::stringstream ss;
      ss << in.rdbuf();
      if (!ss.str().empty()) seeds.push_back(ss.str());
    }
  }
  return seeds;
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

TEST(MutantsNeverCrashAndParsedOnesRoundTrip) {
  std::mt19937 rng(12345);
  std::vector<std::string> seeds = Seeds();
  const int per_seed = seeds.size() > 1 ? 40 : 4000;
  int parsed = 0, total = 0;
  for (const std::string& seed : seeds) {
    for (int i = 0; i < per_seed; ++i) {
      std::string mutant = Mutate(seed, &rng);
      ++total;
      auto m = ParseHloModule(mutant);
      if (!m.ok()) continue;
      ++parsed;
      std::string printed = ToString(**m);
      auto again = ParseHloModule(printed);
      if (!again.ok()) {
        ::xla::testing::ReportFailure(__FILE__, __LINE__,
                                      "mutant parsed but its printout did not:\n" + mutant +
                                          "\n--- printed ---\n" + printed + "\n--- error ---\n" +
                                          again.status().message());
        continue;
      }
      EXPECT_EQ(ToString(**again), printed);
    }
  }
  std::fprintf(stderr, "%d mutants, %d parsed\n", total, parsed);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
