// Parser tests that need no corpus: inline modules round-trip, parsed
// structure is right, and malformed inputs fail with their exact messages.
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"

namespace xla {
namespace {

constexpr char kAdd[] = R"(HloModule jit_add, entry_computation_layout={(f32[3,1]{1,0}, f32[1,4]{1,0})->f32[3,4]{1,0}}

ENTRY main.1 {
  args_0_.1 = f32[3,1]{1,0} parameter(0)
  add.7 = f32[3,1]{1,0} broadcast(args_0_.1), dimensions={0,1}
  add.8 = f32[3]{0} reshape(add.7)
  add.9 = f32[3,4]{1,0} broadcast(add.8), dimensions={0}
  args_1_.1 = f32[1,4]{1,0} parameter(1)
  add.10 = f32[1,4]{1,0} broadcast(args_1_.1), dimensions={0,1}
  add.11 = f32[4]{0} reshape(add.10)
  add.12 = f32[3,4]{1,0} broadcast(add.11), dimensions={1}
  ROOT add.13 = f32[3,4]{1,0} add(add.9, add.12)
}

)";

constexpr char kReduce[] = R"(HloModule jit_f, entry_computation_layout={(f32[4,6]{1,0})->(f32[4]{0}, f32[6,4]{0,1})}

region_0.1 {
  a.1 = f32[] parameter(0)
  b.1 = f32[] parameter(1)
  ROOT max.1 = f32[] maximum(a.1, b.1)
}

ENTRY main.2 {
  x.1 = f32[4,6]{1,0} parameter(0)
  constant.1 = f32[] constant(-inf)
  r.1 = f32[4]{0} reduce(x.1, constant.1), dimensions={1}, to_apply=region_0.1
  t.1 = f32[6,4]{0,1} transpose(x.1), dimensions={1,0}
  c.1 = u32[4]{0} constant({13, 15, 26, 6})
  c.2 = f32[1,1]{1,0} constant({ {60} })
  c.3 = c64[] constant((2, 0))
  s.1 = f32[2,3]{1,0} slice(x.1), slice={[1:4:2], [0:6:2]}
  ROOT tuple.1 = (f32[4]{0}, f32[6,4]{0,1}) tuple(r.1, t.1)
}

)";

// Donation as JAX 0.10.2 declares it: an exact-shape alias and a donor.
constexpr char kDonated[] = R"(HloModule jit_f, input_output_alias={ {0}: (1, {}, may-alias) }, buffer_donor={ (0, {}) }, entry_computation_layout={(f32[2,3]{1,0}, f32[3,2]{1,0})->(f32[3,2]{0,1}, f32[3,2]{1,0})}

ENTRY main.1 {
  x.1 = f32[2,3]{1,0} parameter(0)
  t.1 = f32[3,2]{0,1} transpose(x.1), dimensions={1,0}
  y.1 = f32[3,2]{1,0} parameter(1)
  ROOT tuple.1 = (f32[3,2]{0,1}, f32[3,2]{1,0}) tuple(t.1, y.1)
}

)";

// 8-bit float shapes and constants, as JAX prints them for float8 arrays.
constexpr char kFloat8[] = R"(HloModule jit_f, entry_computation_layout={(f8e4m3fn[3]{0}, f8e5m2[2]{0})->(f32[3]{0}, f8e4m3b11fnuz[], f8e3m4[2]{0}, f8e4m3fnuz[], f8e5m2fnuz[], /*index=5*/f8e4m3[2]{0})}

ENTRY main.1 {
  x.1 = f8e4m3fn[3]{0} parameter(0)
  c.1 = f8e4m3fn[3]{0} constant({1.5, 448, -nan})
  m.1 = f8e4m3fn[3]{0} multiply(x.1, c.1)
  f.1 = f32[3]{0} convert(m.1)
  c.2 = f8e4m3b11fnuz[] constant(2.5)
  c.3 = f8e3m4[2]{0} constant({-inf, 0.02})
  c.4 = f8e4m3fnuz[] constant(-nan)
  c.5 = f8e5m2fnuz[] constant(-2)
  c.6 = f8e4m3[2]{0} constant({0.3, inf})
  c.7 = s4[3]{0} constant({-8, 7, -1})
  c.8 = u4[2]{0} constant({15, 0})
  y.1 = f8e5m2[2]{0} parameter(1)
  ROOT tuple.1 = (f32[3]{0}, f8e4m3b11fnuz[], f8e3m4[2]{0}, f8e4m3fnuz[], f8e5m2fnuz[], /*index=5*/f8e4m3[2]{0}) tuple(f.1, c.2, c.3, c.4, c.5, c.6)
}

)";

// JAX's own output prints back byte for byte.
TEST(InlineModulesRoundTrip) {
  for (const char* text : {kAdd, kReduce, kDonated, kFloat8}) {
    auto m = ParseHloModule(text);
    CHECK_OK(m);
    EXPECT_EQ(ToString(**m), std::string(text));
  }
}

TEST(DonationAttributes) {
  auto m = ParseHloModule(kDonated);
  CHECK_OK(m);
  const HloModule& module = **m;
  EXPECT_EQ(module.input_output_alias().size(), 1u);
  EXPECT_EQ(module.input_output_alias()[0].parameter_number, 1);
  EXPECT_TRUE(module.input_output_alias()[0].output_index == std::vector<int64_t>{0});
  EXPECT_EQ(module.buffer_donors().size(), 1u);
  EXPECT_EQ(module.buffer_donors()[0].parameter_number, 0);
}

// The parsed structure is what the text says.
TEST(ParsedStructure) {
  auto m = ParseHloModule(kReduce);
  CHECK_OK(m);
  const HloModule& module = **m;
  EXPECT_EQ(module.computations().size(), size_t{2});
  const HloComputation* entry = module.entry_computation();
  EXPECT_EQ(entry->name(), "main.2");
  EXPECT_EQ(entry->num_parameters(), 1);
  const HloInstruction* root = entry->root_instruction();
  EXPECT_TRUE(root->opcode() == HloOpcode::kTuple);
  const HloInstruction* reduce = root->operand(0);
  EXPECT_TRUE(reduce->opcode() == HloOpcode::kReduce);
  EXPECT_EQ(reduce->to_apply()->name(), "region_0.1");
  EXPECT_EQ(reduce->dimensions(0), 1);
  const HloInstruction* c1 = entry->GetInstructionWithName("c.1");
  EXPECT_EQ(c1->literal().Get<uint32_t>(2), 26u);
  const HloInstruction* s1 = entry->GetInstructionWithName("s.1");
  EXPECT_EQ(s1->slice_strides()[0], 2);
  EXPECT_EQ(root->operand(1)->shape().minor_to_major()[0], 0);
  EXPECT_EQ(entry->parameter_instruction(0)->user_count(), 3);
  EXPECT_EQ(module.entry_computation_layout()->result_shape.ToString(), "(f32[4]{0}, f32[6,4]{0,1})");
}

// Older printers' syntax (% names, typed operands, signatures) is accepted.
TEST(OldSyntax) {
  auto m = ParseHloModule(R"(HloModule m
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %a = f32[] add(f32[] %x, f32[] %y), metadata={op_name="jit(f)/add" source_line=3}
}
ENTRY %e {
  %p = f32[8]{0} parameter(0), sharding={replicated}
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(f32[8]{0} %p, f32[] %z), dimensions={0}, to_apply=%add
}
)");
  CHECK_OK(m);
  EXPECT_EQ((*m)->entry_computation()->root_instruction()->to_apply()->name(), "add");
}

// Collectives: explicit and iota-form replica groups, channel ids.
TEST(Collectives) {
  auto m = ParseHloModule(R"(HloModule m, replica_count=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[8]{0} parameter(0)
  r1 = f32[8]{0} all-reduce(x), channel_id=1, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=add
  ROOT r2 = f32[8]{0} all-reduce(r1), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=add
}
)");
  CHECK_OK(m);
  const HloInstruction* r2 = (*m)->entry_computation()->root_instruction();
  EXPECT_EQ(r2->replica_groups().size(), size_t{2});
  EXPECT_EQ(JoinInts(r2->replica_groups()[0]), "0,2");
  EXPECT_EQ(JoinInts(r2->replica_groups()[1]), "1,3");
  EXPECT_EQ((*m)->config().replica_count, 4);
  EXPECT_EQ(*r2->operand(0)->channel_id(), 1);
  auto again = ParseHloModule(ToString(**m));
  CHECK_OK(again);
  EXPECT_EQ(ToString(**again), ToString(**m));
}

// TPU tiled layouts parse into tiles and print back byte for byte.
TEST(TiledLayoutsRoundTrip) {
  constexpr char kTiled[] = R"(HloModule m, entry_computation_layout={(f32[3,5]{1,0:T(8,128)}, bf16[5]{0:T(256)})->bf16[3,5]{0,1:T(8,128)(2,1)}}

ENTRY e {
  a = f32[3,5]{1,0:T(8,128)} parameter(0)
  b = bf16[5]{0:T(256)} parameter(1)
  c = bf16[3,5]{1,0:T(8,128)(2,1)} convert(a)
  d = bf16[3,5]{1,0:T(8,128)(2,1)} broadcast(b), dimensions={1}
  ROOT r = bf16[3,5]{0,1:T(8,128)(2,1)} add(c, d)
}

)";
  auto m = ParseHloModule(kTiled);
  CHECK_OK(m);
  const HloInstruction* c = (*m)->entry_computation()->GetInstructionWithName("c");
  EXPECT_EQ(c->shape().tiles().size(), size_t{2});
  EXPECT_EQ(JoinInts(c->shape().tiles()[0]), "8,128");
  EXPECT_EQ(JoinInts(c->shape().tiles()[1]), "2,1");
  EXPECT_EQ(ToString(**m), std::string(kTiled));
  // Tiles are part of exact equality, not of type compatibility.
  Shape untiled(PrimitiveType::BF16, {3, 5});
  EXPECT_TRUE(!(untiled == c->shape()));
  EXPECT_TRUE(untiled.Compatible(c->shape()));
}

// A TPU program's scalar tiles and memory spaces, as libtpu's optimized
// programs carry them, parse and print back byte for byte.
TEST(ScalarTilesAndMemorySpacesRoundTrip) {
  constexpr char kSpaces[] = R"(HloModule m, entry_computation_layout={(f32[8,128]{1,0:T(8,128)S(1)}, f32[]{:T(128)}, bf16[128]{0:T(256)(128)(2,1)})->u32[]{:S(2)}}

ENTRY e {
  a = f32[8,128]{1,0:T(8,128)S(1)} parameter(0)
  b = f32[]{:T(128)} parameter(1)
  t = bf16[128]{0:T(256)(128)(2,1)} parameter(2)
  c = f32[1,8]{1,0:S(1)} slice(a), slice={[0:1], [0:8]}
  ROOT r = u32[]{:S(2)} constant(1)
}

)";
  auto m = ParseHloModule(kSpaces);
  CHECK_OK(m);
  const HloComputation* e = (*m)->entry_computation();
  EXPECT_EQ(e->GetInstructionWithName("a")->shape().memory_space(), int64_t{1});
  EXPECT_EQ(e->GetInstructionWithName("b")->shape().tiles().size(), size_t{1});
  EXPECT_EQ(e->GetInstructionWithName("r")->shape().memory_space(), int64_t{2});
  EXPECT_EQ(ToString(**m), std::string(kSpaces));
}

struct BadCase {
  const char* text;
  const char* message;  // the full expected Status message
};

// Each malformed input fails with exactly this message (line:col, line, caret).
TEST(MalformedInputs) {
  const BadCase cases[] = {
      {"", "1:1: expected 'HloModule', got end of input\n\n^"},
      {"HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT a = f32[2]{0} add(p, q)\n}\n",
       "4:29: unknown operand 'q'\n  ROOT a = f32[2]{0} add(p, q)\n                            ^"},
      {"HloModule m\nENTRY e {\n  ROOT p = f32[2]{0} parameter(0\n}\n",
       "4:1: expected ',' or ')', got '}'\n}\n^"},
      {"HloModule m\nENTRY e {\n  ROOT p = f33[2]{0} parameter(0)\n}\n",
       "3:12: unknown element type 'f33'\n  ROOT p = f33[2]{0} parameter(0)\n           ^"},
      {"HloModule m\nENTRY e {\n  ROOT p = f32[2]{0} frobnicate(0)\n}\n",
       "3:22: unknown opcode 'frobnicate'\n  ROOT p = f32[2]{0} frobnicate(0)\n                     ^"},
      {"HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(p, p)\n}\n",
       "4:22: negate takes 1 operand, got 2\n  ROOT n = f32[2]{0} negate(p, p)\n                     ^"},
      {"HloModule m\nENTRY e {\n  ROOT c = s8[] constant(300)\n}\n",
       "3:26: value 300 is out of range for s8\n  ROOT c = s8[] constant(300)\n                         ^"},
      {"HloModule m\nENTRY e {\n  ROOT c = f32[3]{0} constant({1, 2})\n}\n",
       "3:31: dimension 0 of literal has 2 elements, shape f32[3]{0} needs 3\n"
       "  ROOT c = f32[3]{0} constant({1, 2})\n                              ^"},
      {"HloModule m\nENTRY e {\n  ROOT p = f32[2,3]{0,0} parameter(0)\n}\n",
       "3:20: layout {0,0} is not a permutation of the 2 dimensions\n"
       "  ROOT p = f32[2,3]{0,0} parameter(0)\n                   ^"},
      {"HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT b = f32[2]{0} broadcast(p), dimensionz={0}\n}\n",
       "4:36: unknown attribute 'dimensionz'\n"
       "  ROOT b = f32[2]{0} broadcast(p), dimensionz={0}\n                                   ^"},
      {"HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT b = f32[2]{0} broadcast(p)\n}\n",
       "4:22: broadcast needs attribute 'dimensions'\n  ROOT b = f32[2]{0} broadcast(p)\n                     ^"},
      {"HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT r = f32[2]{0} reduce-window(p, p), window={size=2 pad=1}, to_apply=x\n}\n",
       "4:62: window pad must look like 'low_high' per dimension, got '1'\n"
       "  ROOT r = f32[2]{0} reduce-window(p, p), window={size=2 pad=1}, to_apply=x\n"
       "                                                             ^"},
      {"HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT c = f32[2]{0} call(p), to_apply=nowhere\n}\n",
       "4:40: unknown computation 'nowhere' (computations must be defined before use)\n"
       "  ROOT c = f32[2]{0} call(p), to_apply=nowhere\n                                       ^"},
      {"HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  p = f32[2]{0} parameter(1)\n}\n",
       "4:3: duplicate instruction name 'p'\n  p = f32[2]{0} parameter(1)\n  ^"},
      {"HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n",
       "4:1: expected '}' to close computation 'e'\n\n^"},
      {"HloModule m\nc {\n  ROOT p = f32[] parameter(0)\n}\n",
       "1:1: module 'm' has no ENTRY computation\nHloModule m\n^"},
      {"HloModule m\nENTRY e {\n  ROOT p = f32[2]{0} parameter(0), metadata={op_name=\"x\"\n",
       "3:45: unterminated '{'\n  ROOT p = f32[2]{0} parameter(0), metadata={op_name=\"x\"\n"
       "                                            ^"},
      {"HloModule m\nENTRY e {\n  ROOT p = f32[2]{0} parameter(0) @\n}\n",
       "3:35: expected an instruction name, got '@'\n  ROOT p = f32[2]{0} parameter(0) @\n"
       "                                  ^"},
      // A '%' must be followed by a name start: printed without the '%',
      // "%4x" would read back as the number 4.
      {"HloModule m\nENTRY e {\n  ROOT %4x = f32[2]{0} parameter(0)\n}\n",
       "3:8: expected an instruction name, got '%'\n  ROOT %4x = f32[2]{0} parameter(0)\n"
       "       ^"},
      {"HloModule m\nENTRY e {\n  ROOT %%x = f32[2]{0} parameter(0)\n}\n",
       "3:8: expected an instruction name, got '%'\n  ROOT %%x = f32[2]{0} parameter(0)\n"
       "       ^"},
      {"HloModule m\nENTRY e {\n  ROOT p = f32[2,3]{1,0:E(4)} parameter(0)\n}\n",
       "3:25: only tiles (\"T(8,128)\") and memory spaces (\"S(1)\") are supported after ':' "
       "in a layout, got 'E'\n"
       "  ROOT p = f32[2,3]{1,0:E(4)} parameter(0)\n                        ^"},
      {"HloModule m\nENTRY e {\n  ROOT p = f32[2,3]{1,0:T(8,0)} parameter(0)\n}\n",
       "3:29: tile size 0 must be positive\n"
       "  ROOT p = f32[2,3]{1,0:T(8,0)} parameter(0)\n                            ^"},
      {"HloModule m\nENTRY e {\n  ROOT p = f32[3]{0:T()} parameter(0)\n}\n",
       "3:23: expected an integer, got ')'\n"
       "  ROOT p = f32[3]{0:T()} parameter(0)\n                      ^"},
      {"HloModule m\nENTRY e {\n  ROOT p = f32[2,3]{1,0:T} parameter(0)\n}\n",
       "3:26: expected '(' to open a tile after T\n"
       "  ROOT p = f32[2,3]{1,0:T} parameter(0)\n                         ^"},
      {"HloModule m\nENTRY e {\n  ROOT p = f32[2,3]{1,0:T(8,128} parameter(0)\n}\n",
       "3:32: expected ',' or ')' in a tile, got '}'\n"
       "  ROOT p = f32[2,3]{1,0:T(8,128} parameter(0)\n                               ^"},
      // Shape errors come from the verifier, naming the instruction.
      {"HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT a = f32[3]{0} add(p, p)\n}\n",
       "instruction 'a' in computation 'e': shape f32[3] does not match the inferred shape f32[2]"},
      {"HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT g = f32[2]{0} get-tuple-element(p), index=0\n}\n",
       "instruction 'g' in computation 'e': get-tuple-element operand is not a tuple: f32[2]"},
  };
  for (const BadCase& c : cases) {
    auto m = ParseHloModule(c.text);
    if (m.ok()) {
      ::xla::testing::ReportFailure(__FILE__, __LINE__, std::string("parsed but should fail:\n") + c.text);
      continue;
    }
    EXPECT_EQ(m.status().message(), std::string(c.message));
  }
}

// Deep nesting is refused, not a stack overflow.
TEST(DepthCap) {
  std::string shape(100000, '(');
  std::string text = "HloModule m\nENTRY e {\n  ROOT p = " + shape + " parameter(0)\n}\n";
  auto m = ParseHloModule(text);
  EXPECT_TRUE(!m.ok());
  EXPECT_TRUE(m.status().message().find("shape nested too deeply") != std::string::npos);
}

// No prefix of a valid module crashes the parser.
TEST(TruncatedInputsNeverCrash) {
  std::string text = kReduce;
  for (size_t n = 0; n < text.size(); ++n) {
    auto m = ParseHloModule(std::string_view(text).substr(0, n));
    (void)m;
  }
}

}  // namespace
}  // namespace xla

TEST_MAIN()
