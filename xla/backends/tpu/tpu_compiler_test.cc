// The TPU pipeline end to end: simplification, bf16 dots, tiled layouts and
// the memory sizes they imply.
#include "xla/backends/tpu/tpu_compiler.h"

#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"

namespace xla::tpu {
namespace {

constexpr char kMatmul[] = R"(HloModule jit_matmul, entry_computation_layout={(f32[8,32]{1,0}, f32[32,12]{1,0})->f32[8,12]{1,0}}

ENTRY main.1 {
  a.1 = f32[8,32]{1,0} parameter(0)
  b.1 = f32[32,12]{1,0} parameter(1)
  unused = f32[32,12]{1,0} negate(b.1)
  ROOT dot_general.1 = f32[8,12]{1,0} dot(a.1, b.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

// Dead code is simplified away, the dot reads bf16, every value is tiled.
TEST(MatmulPipeline) {
  auto m = ParseHloModule(kMatmul);
  CHECK_OK(m);
  auto compiled = CompileForTpu(m->get());
  CHECK_OK(compiled);
  EXPECT_EQ(compiled->optimized_hlo, std::string(R"(HloModule jit_matmul, entry_computation_layout={(f32[8,32]{1,0:T(8,128)}, f32[32,12]{1,0:T(8,128)})->f32[8,12]{1,0:T(8,128)}}

ENTRY main.1 {
  a.1 = f32[8,32]{1,0:T(8,128)} parameter(0)
  b.1 = f32[32,12]{1,0:T(8,128)} parameter(1)
  a.1.bf16 = bf16[8,32]{1,0:T(8,128)(2,1)} convert(a.1)
  b.1.bf16 = bf16[32,12]{1,0:T(8,128)(2,1)} convert(b.1)
  ROOT dot_general.1 = f32[8,12]{1,0:T(8,128)} dot(a.1.bf16, b.1.bf16), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

)"));
  EXPECT_EQ(compiled->num_outputs, 1);
  // Tiled sizes: f32[8,32] and f32[8,12] pad to 8x128, f32[32,12] to 32x128;
  // the bf16 copies are temporaries.
  EXPECT_EQ(compiled->memory_stats.argument_size, 8 * 128 * 4 + 32 * 128 * 4);
  EXPECT_EQ(compiled->memory_stats.output_size, 8 * 128 * 4);
  EXPECT_EQ(compiled->memory_stats.temp_size, 8 * 128 * 2 + 32 * 128 * 2);
  EXPECT_EQ(compiled->memory_stats.generated_code_size, 0);
}

// Tuple outputs count once, as outputs; the tuple itself takes no memory.
TEST(TupleOutputs) {
  auto m = ParseHloModule(R"(HloModule m

ENTRY e {
  a = f32[3,5]{1,0} parameter(0)
  n = f32[3,5]{1,0} negate(a)
  e = f32[3,5]{1,0} exponential(n)
  ROOT t = (f32[3,5]{1,0}, f32[3,5]{1,0}) tuple(e, a)
}
)");
  CHECK_OK(m);
  auto compiled = CompileForTpu(m->get());
  CHECK_OK(compiled);
  EXPECT_EQ(compiled->num_outputs, 2);
  EXPECT_EQ(compiled->memory_stats.argument_size, 4096);
  EXPECT_EQ(compiled->memory_stats.output_size, 2 * 4096);
  EXPECT_EQ(compiled->memory_stats.temp_size, 4096);  // n
}

}  // namespace
}  // namespace xla::tpu

TEST_MAIN()
