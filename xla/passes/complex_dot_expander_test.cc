// ComplexDotExpander tests: the rewritten module has only real dots and, run
// through the evaluator, gives the complex products.
#include <complex>

#include "xla/hlo/evaluator/evaluator.h"
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"
#include "xla/passes/complex_dot_expander.h"
#include "xla/passes/dce.h"

namespace xla {
namespace {

using c64 = std::complex<float>;

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::unique_ptr<HloModule> Expanded(const std::string& text, bool* changed) {
  auto m = ParseHloModule(text);
  CHECK_OK(m);
  ComplexDotExpander expander;
  auto c = expander.Run(m->get());
  CHECK_OK(c);
  *changed = *c;
  HloDCE dce;
  CHECK_OK(dce.Run(m->get()));
  CHECK_OK(ParseHloModule(ToString(**m)));  // still valid text
  return std::move(*m);
}

// [1+2i, 3-i] . [2-i, 1+i] = (1+2i)(2-i) + (3-i)(1+i) = (4+3i) + (4+2i) = 8+5i.
TEST(VectorDotGivesTheComplexProduct) {
  bool changed = false;
  auto m = Expanded(R"(HloModule m

ENTRY e {
  a = c64[2]{0} parameter(0)
  b = c64[2]{0} parameter(1)
  ROOT d = c64[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}

)", &changed);
  EXPECT_TRUE(changed);
  const std::string text = ToString(*m);
  EXPECT_TRUE(!Contains(text, "c64[] dot("));
  EXPECT_TRUE(Contains(text, "f32[] dot("));
  EXPECT_TRUE(Contains(text, "complex("));
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<c64>(PrimitiveType::C64, {{1, 2}, {3, -1}}));
  args.push_back(Literal::CreateR1<c64>(PrimitiveType::C64, {{2, -1}, {1, 1}}));
  auto out = Evaluate(*m, args);
  CHECK_OK(out);
  EXPECT_TRUE((*out)[0] == Literal::CreateR0<c64>(PrimitiveType::C64, c64(8, 5)));
}

// Batch dimensions, precision and layouts carry over to the real dots.
TEST(BatchedDotKeepsItsDimensionNumbers) {
  bool changed = false;
  auto m = Expanded(R"(HloModule m

ENTRY e {
  a = c128[2,3,4]{2,1,0} parameter(0)
  b = c128[2,4,5]{2,1,0} parameter(1)
  ROOT d = c128[2,3,5]{2,1,0} dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={highest,highest}
}

)", &changed);
  EXPECT_TRUE(changed);
  const std::string text = ToString(*m);
  EXPECT_TRUE(Contains(text, "f64[2,3,5]{2,1,0} dot("));
  EXPECT_TRUE(Contains(text, "lhs_batch_dims={0}"));
  EXPECT_TRUE(Contains(text, "operand_precision={highest,highest}"));
}

TEST(RealDotsAreLeftAlone) {
  bool changed = true;
  Expanded(R"(HloModule m

ENTRY e {
  a = f32[2]{0} parameter(0)
  ROOT d = f32[] dot(a, a), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}

)", &changed);
  EXPECT_TRUE(!changed);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
