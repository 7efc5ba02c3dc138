// TpuLayoutAssignment tests, written in HLO text.
#include "xla/backends/tpu/tpu_layout_assignment.h"

#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"

namespace xla::tpu {
namespace {

// Every array value and the entry layout get tiles; scalars stay untiled;
// dimension orders are kept; a second run changes nothing.
TEST(TilesEveryArray) {
  auto m = ParseHloModule(R"(HloModule m, entry_computation_layout={(f32[3,5]{1,0}, bf16[5,3]{0,1})->(f32[3,5]{1,0}, s8[7]{0})}

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  a = f32[3,5]{1,0} parameter(0)
  b = bf16[5,3]{0,1} parameter(1)
  t = bf16[3,5]{1,0} transpose(b), dimensions={1,0}
  c = f32[3,5]{1,0} convert(t)
  z = f32[] constant(0)
  r = f32[3]{0} reduce(a, z), dimensions={1}, to_apply=add
  i = s8[7]{0} iota(), iota_dimension=0
  sum = f32[3,5]{1,0} add(a, c)
  ROOT out = (f32[3,5]{1,0}, s8[7]{0}) tuple(sum, i)
}

)");
  CHECK_OK(m);
  TpuLayoutAssignment pass;
  auto changed = pass.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(ToString(**m), std::string(R"(HloModule m, entry_computation_layout={(f32[3,5]{1,0:T(8,128)}, bf16[5,3]{0,1:T(8,128)(2,1)})->(f32[3,5]{1,0:T(8,128)}, s8[7]{0:T(256)})}

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  a = f32[3,5]{1,0:T(8,128)} parameter(0)
  b = bf16[5,3]{0,1:T(8,128)(2,1)} parameter(1)
  t = bf16[3,5]{1,0:T(8,128)(2,1)} transpose(b), dimensions={1,0}
  c = f32[3,5]{1,0:T(8,128)} convert(t)
  z = f32[] constant(0)
  r = f32[3]{0:T(256)} reduce(a, z), dimensions={1}, to_apply=add
  i = s8[7]{0:T(256)} iota(), iota_dimension=0
  sum = f32[3,5]{1,0:T(8,128)} add(a, c)
  ROOT out = (f32[3,5]{1,0:T(8,128)}, s8[7]{0:T(256)}) tuple(sum, i)
}

)"));
  auto again = pass.Run(m->get());
  CHECK_OK(again);
  EXPECT_TRUE(!*again);
  // The printed module parses back to the same text.
  auto reparsed = ParseHloModule(ToString(**m));
  CHECK_OK(reparsed);
  EXPECT_EQ(ToString(**reparsed), ToString(**m));
}

// Shapes written without a layout get the default order, then tiles.
TEST(MissingLayoutsGetTheDefaultOrder) {
  auto m = ParseHloModule(R"(HloModule m

ENTRY e {
  ROOT a = f32[2,3,4] parameter(0)
}
)");
  CHECK_OK(m);
  TpuLayoutAssignment pass;
  CHECK_OK(pass.Run(m->get()));
  EXPECT_EQ((*m)->entry_computation()->root_instruction()->shape().ToString(),
            std::string("f32[2,3,4]{2,1,0:T(8,128)}"));
}

}  // namespace
}  // namespace xla::tpu

TEST_MAIN()
