// Verifier and shape-inference tests: each invalid module is rejected with
// exactly this message; valid tricky ones (layouts, variadic reduce, gather)
// pass.
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"
#include "xla/hlo/verifier/verifier.h"

namespace xla {
namespace {

// Wraps an entry body in a module; `extra` holds computations defined first.
std::string Module(const std::string& body, const std::string& extra = "") {
  return "HloModule m\n\n" + extra + "ENTRY e {\n" + body + "}\n";
}

constexpr char kAdd[] = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n";

std::string VerifyError(const std::string& text) {
  auto m = ParseHloModuleUnverified(text);
  if (!m.ok()) return "PARSE ERROR: " + m.status().message();
  Status s = VerifyHloModule(**m);
  return s.ok() ? "OK" : s.message();
}

// Each case: the module body and the exact verifier message.
TEST(RejectsInvalidModules) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {Module("  x = f32[2]{0} parameter(0)\n  y = s32[2]{0} parameter(1)\n  ROOT a = f32[2]{0} add(x, y)\n"),
       "instruction 'a' in computation 'e': operands have different element types: f32[2] vs s32[2]"},
      {Module("  x = f32[2,3]{1,0} parameter(0)\n  ROOT b = f32[3,2]{1,0} broadcast(x), dimensions={0,1}\n"),
       "instruction 'b' in computation 'e': broadcast maps operand dimension 0 (size 2) to result "
       "dimension 0 (size 3)"},
      {Module("  x = f32[2,3]{1,0} parameter(0)\n  ROOT r = f32[5]{0} reshape(x)\n"),
       "instruction 'r' in computation 'e': reshape from f32[2,3] to f32[5] changes the element count"},
      {Module("  x = f32[4]{0} parameter(0)\n  ROOT s = f32[2]{0} slice(x), slice={[2:6]}\n"),
       "instruction 's' in computation 'e': slice range [2:6:1] is invalid for dimension 0 of size 4"},
      {Module("  x = f32[4]{0} parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add\n",
              "add {\n  a = f32[] parameter(0)\n  ROOT s = f32[] negate(a)\n}\n\n"),
       "instruction 'r' in computation 'e': reducer add must take 2 parameters, takes 1"},
      {Module("  x = f32[2,3]{1,0} parameter(0)\n  ROOT t = f32[2,3]{1,0} transpose(x), dimensions={1,0}\n"),
       "instruction 't' in computation 'e': shape f32[2,3] does not match the inferred shape f32[3,2]"},
      {Module("  x = f32[2,3]{1,0} parameter(0)\n  y = f32[2,3]{1,0} parameter(1)\n  ROOT d = f32[2,2]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n"),
       "OK"},
      {Module("  x = f32[2,3]{1,0} parameter(0)\n  y = f32[2,4]{1,0} parameter(1)\n  ROOT d = f32[2,2]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n"),
       "instruction 'd' in computation 'e': dot contracting dimension sizes differ: f32[2,3] vs f32[2,4]"},
      {Module("  x = (f32[], s32[]) parameter(0)\n  ROOT g = f32[] get-tuple-element(x), index=2\n"),
       "instruction 'g' in computation 'e': tuple index 2 out of range for (f32[], s32[])"},
      {Module("  x = f32[8]{0} parameter(0)\n  ROOT c = f32[8]{0} call(x), to_apply=add\n", kAdd),
       "instruction 'c' in computation 'e': called computation add takes 2 parameters, given 1"},
      {Module("  p = s32[] parameter(0)\n  x = f32[] parameter(1)\n  ROOT c = f32[] conditional(p, x), branch_computations={add}\n", kAdd),
       "instruction 'c' in computation 'e': branch computation add takes 2 parameters, given 1"},
      {Module("  x = f32[4]{0} parameter(0)\n  i = f32[] parameter(1)\n  ROOT d = f32[2]{0} dynamic-slice(x, i), dynamic_slice_sizes={2}\n"),
       "instruction 'd' in computation 'e': start index 0 must be an integer scalar"},
      {Module("  x = f32[4,4]{1,0} parameter(0)\n  z = f32[] constant(0)\n  ROOT w = f32[2,2]{1,0} reduce-window(x, z), window={size=2x2 stride=2x2}, to_apply=add\n", kAdd),
       "OK"},
      {Module("  x = f32[4,4]{1,0} parameter(0)\n  z = f32[] constant(0)\n  ROOT w = f32[3,3]{1,0} reduce-window(x, z), window={size=2x2 stride=2x2}, to_apply=add\n", kAdd),
       "instruction 'w' in computation 'e': shape f32[3,3] does not match the inferred shape f32[2,2]"},
      {"HloModule m, entry_computation_layout={(f32[3]{0})->f32[3]{0}}\n\nENTRY e {\n  ROOT x = f32[2]{0} parameter(0)\n}\n",
       "entry_computation_layout parameter 0 is f32[3], parameter is f32[2]"},
      {Module("  x = f32[2]{0} parameter(0)\n  ROOT y = f32[2]{0} parameter(2)\n"),
       "computation 'e' has no parameter 1 but has parameter 2"},
      {Module("  x = f32[5]{0} parameter(0)\n  ROOT t = (f32[5]{0}, s32[5]{0}) topk(x), k=6, largest=true\n"),
       "instruction 't' in computation 'e': topk k=6 is invalid for f32[5]"},
  };
  for (const Case& c : cases) EXPECT_EQ(VerifyError(c.text), c.message);
}

// The verifier ignores layouts: {0,1} on a transpose result is fine.
TEST(LayoutsAreIgnored) {
  EXPECT_EQ(VerifyError(Module("  x = f32[2,3]{1,0} parameter(0)\n  ROOT t = f32[3,2]{0,1} transpose(x), dimensions={1,0}\n")),
            "OK");
}

}  // namespace
}  // namespace xla

TEST_MAIN()
