// HloModuleProto reader and writer on inline modules: every attribute and
// element type survives text -> IR -> bytes -> IR -> text, the wire fields
// are the ones real XLA reads, and malformed bytes fail with InvalidArgument
// naming where, never a crash.
#include "xla/hlo/proto/hlo_proto.h"

#include <random>

#include "xla/hlo/parser/parser.h"
#include "xla/hlo/proto/hlo.pb.h"
#include "xla/hlo/testing/check.h"

namespace xla {
namespace {

// Collectives, custom calls, fusion and the linear-algebra ops.
constexpr char kCollectives[] = R"(HloModule collectives, entry_computation_layout={(f32[8]{0}, f32[4,4]{1,0})->(f32[8]{0}, f32[16]{0}, f32[8]{0}, f32[4]{0}, f32[8]{0}, /*index=5*/u32[], u32[], f32[4]{0}, (f32[4]{0}, s32[4]{0}), f32[4,4]{1,0}, /*index=10*/f32[4,4]{1,0}, f32[8]{0})}, replica_count=2, num_partitions=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

fused {
  p = f32[8]{0} parameter(0)
  ROOT n = f32[8]{0} negate(p)
}

ENTRY main {
  x = f32[8]{0} parameter(0)
  m = f32[4,4]{1,0} parameter(1)
  ar = f32[8]{0} all-reduce(x), channel_id=3, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=add
  ag = f32[16]{0} all-gather(x), channel_id=4, replica_groups={{0,1}}, dimensions={0}
  a2a = f32[8]{0} all-to-all(x), replica_groups={{0,1}}, dimensions={0}
  rs = f32[4]{0} reduce-scatter(x), replica_groups={{0,1}}, dimensions={0}, to_apply=add
  cp = f32[8]{0} collective-permute(x), channel_id=5, source_target_pairs={{0,1},{1,0}}
  rid = u32[] replica-id()
  pid = u32[] partition-id()
  cc = f32[4]{0} custom-call(x), custom_call_target="my_target", custom_call_has_side_effect=true, api_version=API_VERSION_STATUS_RETURNING, backend_config="opaque \"bytes\""
  tk = (f32[4]{0}, s32[4]{0}) topk(x), k=4, largest=false
  ch = f32[4,4]{1,0} cholesky(m), lower=true
  ts = f32[4,4]{1,0} triangular-solve(m, m), left_side=true, lower=true, unit_diagonal=true, transpose_a=TRANSPOSE
  fu = f32[8]{0} fusion(x), kind=kLoop, calls=fused
  ROOT t = (f32[8]{0}, f32[16]{0}, f32[8]{0}, f32[4]{0}, f32[8]{0}, /*index=5*/u32[], u32[], f32[4]{0}, (f32[4]{0}, s32[4]{0}), f32[4,4]{1,0}, /*index=10*/f32[4,4]{1,0}, f32[8]{0}) tuple(ar, ag, a2a, rs, cp, rid, pid, cc, tk, ch, ts, fu)
}

)";

// Control flow, windows, dimension numbers and precision.
constexpr char kStructured[] = R"(HloModule structured, input_output_alias={ {0}: (0, {}, must-alias), {1}: (1, {}, may-alias) }, buffer_donor={ (2, {}) }, entry_computation_layout={(f32[2,3]{1,0}, f32[3,2]{0,1}, s32[])->(f32[2,3]{1,0}, f32[3,2]{0,1}, f32[2,2]{1,0}, f32[1,4,6,6]{3,2,1,0}, f32[4]{0}, /*index=5*/s32[], f32[2,3]{1,0}, f32[4]{0}, f32[2,5]{1,0}, f32[2]{0}, /*index=10*/c64[4]{0})}

cond {
  c = (s32[], f32[2,3]{1,0}) parameter(0)
  i = s32[] get-tuple-element(c), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  b = (s32[], f32[2,3]{1,0}) parameter(0)
  i = s32[] get-tuple-element(b), index=0
  v = f32[2,3]{1,0} get-tuple-element(b), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[2,3]{1,0}) tuple(j, v)
}

branch_a {
  a = f32[2,3]{1,0} parameter(0)
  ROOT e = f32[2,3]{1,0} exponential(a)
}

branch_b {
  a = f32[2,3]{1,0} parameter(0)
  ROOT e = f32[2,3]{1,0} negate(a)
}

max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT g = pred[] compare(a, b), direction=GE
}

less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT l = pred[] compare(a, b), direction=LT, type=TOTALORDER
}

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  y = f32[3,2]{0,1} parameter(1)
  k = s32[] parameter(2)
  zero = s32[] constant(0)
  init = (s32[], f32[2,3]{1,0}) tuple(zero, x)
  w = (s32[], f32[2,3]{1,0}) while(init), condition=cond, body=body
  wv = f32[2,3]{1,0} get-tuple-element(w), index=1
  cond_b = f32[2,3]{1,0} conditional(k, x, x), branch_computations={branch_a, branch_b}
  d = f32[2,2]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={highest,default}
  fzero = f32[] constant(0)
  img = f32[1,4,8,8]{3,2,1,0} broadcast(fzero), dimensions={}
  ker = f32[3,3,4,4]{3,2,1,0} broadcast(fzero), dimensions={}
  conv = f32[1,4,6,6]{3,2,1,0} convolution(img, ker), window={size=3x3}, dim_labels=bf01_01io->bf01
  flat = f32[6]{0} reshape(x)
  rw = f32[4]{0} reduce-window(flat, fzero), window={size=3}, to_apply=max
  rw2 = f32[6]{0} reduce-window(flat, fzero), window={size=2 stride=2 pad=1_0 lhs_dilate=2}, to_apply=max
  src = f32[4]{0} broadcast(fzero), dimensions={}
  sas = f32[6]{0} select-and-scatter(flat, src, fzero), window={size=3}, select=ge, scatter=max
  srt = f32[6]{0} sort(sas), dimensions={0}, is_stable=true, to_apply=less
  pad = f32[2,5]{1,0} pad(x, fzero), padding=0_0_0x1_-1_1
  ds = f32[2]{0} dynamic-slice(flat, k), dynamic_slice_sizes={2}
  dus = f32[6]{0} dynamic-update-slice(srt, ds, k)
  sl = f32[4]{0} slice(dus), slice={[1:5]}
  io = s32[4]{0} iota(), iota_dimension=0
  ioc = f32[4]{0} convert(io)
  mp = f32[4]{0} map(sl, ioc), dimensions={0}, to_apply=max
  bc = s32[4]{0} bitcast-convert(mp)
  bcf = f32[4]{0} bitcast-convert(bc)
  ob = f32[4]{0} opt-barrier(bcf)
  rev = f32[4]{0} reverse(ob), dimensions={0}
  cx = c64[4]{0} convert(rev)
  ft = c64[4]{0} fft(cx), fft_type=IFFT, fft_length={4}
  rp = f32[2,3]{1,0} reduce-precision(wv), exponent_bits=5, mantissa_bits=10
  red = f32[2]{0} reduce(cond_b, fzero), dimensions={1}, to_apply=max
  ROOT t = (f32[2,3]{1,0}, f32[3,2]{0,1}, f32[2,2]{1,0}, f32[1,4,6,6]{3,2,1,0}, f32[4]{0}, /*index=5*/s32[], f32[2,3]{1,0}, f32[4]{0}, f32[2,5]{1,0}, f32[2]{0}, /*index=10*/c64[4]{0}) tuple(rp, y, d, conv, rw, k, cond_b, mp, pad, red, ft)
}

)";

// Gather/scatter with batching dims, rng, the pred form of conditional, tiles.
constexpr char kIndexing[] = R"(HloModule indexing, entry_computation_layout={(f32[3,4,5]{2,1,0}, s32[3,2,1]{2,1,0}, pred[], u64[2]{0})->(f32[3,2,1,5]{3,2,1,0}, f32[3,4,5]{2,1,0}, f32[2]{0}, (u64[2]{0}, u32[4]{0}), f32[2]{0}, /*index=5*/bf16[3,5]{0,1:T(8,128)(2,1)})}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

t {
  p = f32[2]{0} parameter(0)
  ROOT n = f32[2]{0} negate(p)
}

f {
  p = f32[2]{0} parameter(0)
  ROOT n = f32[2]{0} abs(p)
}

ENTRY main {
  op = f32[3,4,5]{2,1,0} parameter(0)
  idx = s32[3,2,1]{2,1,0} parameter(1)
  g = f32[3,2,1,5]{3,2,1,0} gather(op, idx), offset_dims={2,3}, collapsed_slice_dims={}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,5}, indices_are_sorted=true
  upd = f32[3,2,1,5]{3,2,1,0} negate(g)
  s = f32[3,4,5]{2,1,0} scatter(op, idx, upd), update_window_dims={2,3}, inserted_window_dims={}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2, indices_are_sorted=true, unique_indices=true, to_apply=add
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[2]{0} rng(lo, hi), distribution=rng_normal
  st = u64[2]{0} parameter(3)
  bits = (u64[2]{0}, u32[4]{0}) rng-bit-generator(st), algorithm=rng_philox
  pr = pred[] parameter(2)
  c = f32[2]{0} conditional(pr, r, r), true_computation=t, false_computation=f
  w3 = f32[3,1,5]{2,1,0} slice(op), slice={[0:3], [0:1], [0:5]}
  w = f32[3,5]{1,0} reshape(w3)
  tiled = bf16[3,5]{0,1:T(8,128)(2,1)} convert(w)
  ROOT out = (f32[3,2,1,5]{3,2,1,0}, f32[3,4,5]{2,1,0}, f32[2]{0}, (u64[2]{0}, u32[4]{0}), f32[2]{0}, /*index=5*/bf16[3,5]{0,1:T(8,128)(2,1)}) tuple(g, s, r, bits, c, tiled)
}

)";

// A constant of every element type, a tuple constant and a token.
constexpr char kLiterals[] = R"(HloModule literals, entry_computation_layout={()->(pred[3]{0}, s4[3]{0}, s8[2]{0}, s16[2]{0}, s32[2]{0}, /*index=5*/s64[2]{0}, u4[2]{0}, u8[2]{0}, u16[2]{0}, u32[2]{0}, /*index=10*/u64[2]{0}, f16[3]{0}, bf16[3]{0}, f32[3]{0}, f64[3]{0}, /*index=15*/c64[2]{0}, c128[1]{0}, f8e4m3fn[2]{0}, f8e5m2[2]{0}, f8e4m3fnuz[2]{0}, /*index=20*/f8e5m2fnuz[2]{0}, f8e4m3b11fnuz[2]{0}, f8e4m3[2]{0}, f8e3m4[2]{0}, (f32[], s32[2]{0}), /*index=25*/f32[2,0]{1,0}, token[])}

ENTRY main {
  a = pred[3]{0} constant({true, false, true})
  b = s4[3]{0} constant({-8, 7, -1})
  c = s8[2]{0} constant({-128, 127})
  d = s16[2]{0} constant({-32768, 1234})
  e = s32[2]{0} constant({-2147483648, 7})
  f = s64[2]{0} constant({-9223372036854775808, 9223372036854775807})
  g = u4[2]{0} constant({0, 15})
  h = u8[2]{0} constant({0, 255})
  i = u16[2]{0} constant({65535, 1})
  j = u32[2]{0} constant({4294967295, 0})
  k = u64[2]{0} constant({18446744073709551615, 3})
  l = f16[3]{0} constant({1.5, -inf, 6.55e+04})
  m = bf16[3]{0} constant({-nan, 3.141, 1e+38})
  n = f32[3]{0} constant({0.1, -0, inf})
  o = f64[3]{0} constant({1e-300, 0.30000000000000004, -nan})
  p = c64[2]{0} constant({(1, -2), (0.5, 3)})
  q = c128[1]{0} constant({(1e+100, -1e-100)})
  r = f8e4m3fn[2]{0} constant({448, -nan})
  s = f8e5m2[2]{0} constant({-inf, 0.5})
  t = f8e4m3fnuz[2]{0} constant({-nan, 240})
  u = f8e5m2fnuz[2]{0} constant({-2, 6e+04})
  v = f8e4m3b11fnuz[2]{0} constant({2.5, -0.125})
  w = f8e4m3[2]{0} constant({0.3, inf})
  x = f8e3m4[2]{0} constant({-inf, 0.02})
  y = (f32[], s32[2]{0}) constant((1.5, {3, 4}))
  z = f32[2,0]{1,0} constant({ {}, {} })
  tok = token[] after-all()
  ROOT out = (pred[3]{0}, s4[3]{0}, s8[2]{0}, s16[2]{0}, s32[2]{0}, /*index=5*/s64[2]{0}, u4[2]{0}, u8[2]{0}, u16[2]{0}, u32[2]{0}, /*index=10*/u64[2]{0}, f16[3]{0}, bf16[3]{0}, f32[3]{0}, f64[3]{0}, /*index=15*/c64[2]{0}, c128[1]{0}, f8e4m3fn[2]{0}, f8e5m2[2]{0}, f8e4m3fnuz[2]{0}, /*index=20*/f8e5m2fnuz[2]{0}, f8e4m3b11fnuz[2]{0}, f8e4m3[2]{0}, f8e3m4[2]{0}, (f32[], s32[2]{0}), /*index=25*/f32[2,0]{1,0}, token[]) tuple(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, tok)
}

)";

const char* const kModules[] = {kCollectives, kStructured, kIndexing, kLiterals};

std::unique_ptr<HloModule> Parse(const char* text) {
  auto module = ParseHloModule(text);
  CHECK_OK(module);
  return std::move(*module);
}

std::string Serialize(const HloModule& module) {
  auto bytes = SerializeHloModuleProto(module);
  CHECK_OK(bytes);
  return *bytes;
}

wire::HloModuleProto Decode(const std::string& bytes) {
  wire::HloModuleProto proto;
  CHECK_TRUE(proto.ParseFromString(bytes));
  return proto;
}

// The message of reading `proto` (which must fail with InvalidArgument).
std::string ReadError(const wire::HloModuleProto& proto) {
  auto module = ParseHloModuleProto(proto.SerializeAsString());
  if (module.ok()) return "(accepted)";
  EXPECT_TRUE(module.status().code() == StatusCode::kInvalidArgument);
  return module.status().message();
}

bool Contains(const std::string& haystack, const std::string& needle) {
  bool found = haystack.find(needle) != std::string::npos;
  if (!found) std::fprintf(stderr, "'%s' not in: %s\n", needle.c_str(), haystack.c_str());
  return found;
}

wire::HloInstructionProto* FindInstruction(wire::HloModuleProto* proto, const std::string& name) {
  for (auto& c : *proto->mutable_computations()) {
    for (auto& i : *c.mutable_instructions()) {
      if (i.name() == name) return &i;
    }
  }
  CHECK_TRUE(false);
  return nullptr;
}

std::vector<std::string> InstructionNames(const HloModule& module) {
  std::vector<std::string> names;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* i : c->instructions()) names.push_back(i->name());
  }
  return names;
}

bool HasModuleUniqueNames(const HloModule& module) {
  std::vector<std::string> names = InstructionNames(module);
  std::sort(names.begin(), names.end());
  return std::adjacent_find(names.begin(), names.end()) == names.end();
}

// Instructions of `after` whose name is neither the original one nor the
// original with a ".N" suffix (positions match: same computations, same order).
size_t RenamedAway(const HloModule& after, const HloModule& before) {
  std::vector<std::string> a = InstructionNames(after), b = InstructionNames(before);
  if (a.size() != b.size()) return a.size() + b.size();
  size_t bad = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && a[i].rfind(b[i] + ".", 0) != 0) ++bad;
  }
  return bad;
}

TEST(EveryInlineModuleRoundTripsThroughBytes) {
  for (const char* text : kModules) {
    std::unique_ptr<HloModule> module = Parse(text);
    if (module->ToString() != text) {
      std::fprintf(stderr, "printed:\n%s\n", module->ToString().c_str());
      EXPECT_EQ(module->ToString(), std::string(text));
    }
    auto back = ParseHloModuleProto(Serialize(*module));
    CHECK_OK(back);
    // Names repeated across computations are renamed for XLA; the rest is equal.
    if (HasModuleUniqueNames(*module)) EXPECT_EQ((*back)->ToString(), module->ToString());
    EXPECT_TRUE(HasModuleUniqueNames(**back));
    EXPECT_EQ(RenamedAway(**back, *module), size_t{0});
    // A second trip writes the same bytes: ids, names and order are deterministic.
    EXPECT_TRUE(Serialize(**back) == Serialize(*module));
  }
}

TEST(WireFieldsFollowXlaConventions) {
  wire::HloModuleProto proto = Decode(Serialize(*Parse(kStructured)));
  // Callees first, entry last and named by id.
  const wire::HloComputationProto& entry = proto.computations(proto.computations_size() - 1);
  EXPECT_EQ(entry.name(), std::string("main"));
  EXPECT_EQ(proto.entry_computation_id(), entry.id());
  EXPECT_EQ(proto.entry_computation_name(), std::string("main"));
  EXPECT_EQ(proto.host_program_shape().parameters_size(), 3);
  EXPECT_EQ(proto.host_program_shape().parameter_names(1), std::string("y"));
  EXPECT_EQ(proto.host_program_shape().parameters(1).layout().minor_to_major(0), int64_t{0});
  // Ids are distinct across the whole module.
  std::vector<int64_t> ids;
  for (const auto& c : proto.computations()) {
    ids.push_back(c.id());
    for (const auto& i : c.instructions()) ids.push_back(i.id());
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_TRUE(std::adjacent_find(ids.begin(), ids.end()) == ids.end());
  // The while's callees are body, then condition.
  wire::HloInstructionProto* w = FindInstruction(&proto, "w");
  EXPECT_EQ(w->opcode(), std::string("while"));
  EXPECT_EQ(w->called_computation_ids(0), proto.computations(1).id());
  EXPECT_EQ(w->called_computation_ids(1), proto.computations(0).id());
  EXPECT_EQ(FindInstruction(&proto, "io")->dimensions(0), int64_t{0});
  EXPECT_EQ(FindInstruction(&proto, "d")->precision_config().operand_precision(0),
            wire::PrecisionConfig::HIGHEST);
  EXPECT_EQ(FindInstruction(&proto, "lt")->comparison_type(), std::string("SIGNED"));
  EXPECT_EQ(proto.input_output_alias().entries(0).kind(), wire::MUST_ALIAS);
  EXPECT_EQ(proto.buffer_donor().entries(0).parameter_number(), int64_t{2});

  wire::HloModuleProto c = Decode(Serialize(*Parse(kCollectives)));
  EXPECT_EQ(c.device_assignment().replica_count(), 2);
  EXPECT_EQ(c.device_assignment().computation_count(), 2);
  EXPECT_EQ(c.device_assignment().computation_devices(1).replica_device_ids(1), int64_t{3});
  wire::HloInstructionProto* cc = FindInstruction(&c, "cc");
  EXPECT_EQ(cc->custom_call_api_version(), wire::API_VERSION_STATUS_RETURNING);
  EXPECT_EQ(cc->backend_config(), std::string("opaque \"bytes\""));
  EXPECT_EQ(FindInstruction(&c, "ar")->replica_groups(1).replica_ids(0), int64_t{2});
  EXPECT_EQ(FindInstruction(&c, "fu")->fusion_kind(), std::string("kLoop"));
  EXPECT_TRUE(c.computations(1).is_fusion_computation());
}

TEST(RepeatedNamesAreMadeUniqueForXla) {
  wire::HloModuleProto proto = Decode(Serialize(*Parse(kStructured)));
  std::vector<std::string> names;
  for (const auto& c : proto.computations()) {
    for (const auto& i : c.instructions()) names.push_back(i.name());
  }
  // cond's "i" keeps its name; body's becomes "i.1".
  EXPECT_EQ(proto.computations(0).instructions(1).name(), std::string("i"));
  EXPECT_EQ(proto.computations(1).instructions(1).name(), std::string("i.1"));
  std::sort(names.begin(), names.end());
  EXPECT_TRUE(std::adjacent_find(names.begin(), names.end()) == names.end());
}

TEST(LiteralPayloadsUseXlaFields) {
  wire::HloModuleProto proto = Decode(Serialize(*Parse(kLiterals)));
  EXPECT_EQ(FindInstruction(&proto, "a")->literal().preds_size(), 3);
  // s4: one element per byte, as XLA's literals hold them.
  EXPECT_EQ(FindInstruction(&proto, "b")->literal().s4s(), std::string("\x08\x07\x0f", 3));
  EXPECT_EQ(FindInstruction(&proto, "d")->literal().s16s(), std::string("\x00\x80\xd2\x04", 4));
  EXPECT_EQ(FindInstruction(&proto, "l")->literal().f16s().size(), size_t{6});
  EXPECT_EQ(FindInstruction(&proto, "m")->literal().bf16s().substr(2, 2), std::string("\x49\x40"));
  const wire::LiteralProto& p = FindInstruction(&proto, "p")->literal();
  EXPECT_EQ(p.c64s_size(), 4);
  EXPECT_EQ(p.c64s(1), -2.0f);
  EXPECT_EQ(FindInstruction(&proto, "k")->literal().u64s(0), UINT64_MAX);
  EXPECT_EQ(FindInstruction(&proto, "r")->literal().f8e4m3fns().size(), size_t{2});
  EXPECT_EQ(FindInstruction(&proto, "y")->literal().tuple_literals_size(), 2);
}

TEST(MalformedBytesAreRefused) {
  for (const char* bytes : {"\xff\xff\xff", "\x0a\x05" "ab", "\x1a\x80\x80\x80\x80\x10"}) {
    auto module = ParseHloModuleProto(bytes);
    CHECK_TRUE(!module.ok());
    EXPECT_TRUE(Contains(module.status().message(), "malformed HloModuleProto"));
  }
  EXPECT_TRUE(Contains(ReadError(wire::HloModuleProto()), "module has no name"));
}

TEST(BadInstructionsNameWhere) {
  const std::string good = Serialize(*Parse(kStructured));
  wire::HloModuleProto proto_for_ids = Decode(good);
  auto mutate = [&](const std::string& name, auto edit) {
    wire::HloModuleProto proto = Decode(good);
    edit(FindInstruction(&proto, name));
    return ReadError(proto);
  };
  std::string e = mutate("d", [](auto* i) { i->set_opcode("matmul"); });
  EXPECT_TRUE(Contains(e, "instruction 'd'") && Contains(e, "unknown opcode 'matmul'") &&
              Contains(e, "computation 'main'"));
  e = mutate("d", [](auto* i) { i->set_operand_ids(1, 987654); });
  EXPECT_TRUE(Contains(e, "instruction 'd'") && Contains(e, "operand id 987654"));
  e = mutate("w", [](auto* i) { i->set_called_computation_ids(0, 424242); });
  EXPECT_TRUE(Contains(e, "instruction 'w'") && Contains(e, "called computation id 424242"));
  e = mutate("x", [](auto* i) { i->mutable_shape()->set_dimensions(0, -3); });
  EXPECT_TRUE(Contains(e, "instruction 'x'") && Contains(e, "negative dimension size -3"));
  e = mutate("x", [](auto* i) { i->mutable_shape()->set_element_type(wire::F4E2M1FN); });
  EXPECT_TRUE(Contains(e, "element type F4E2M1FN is not supported"));
  e = mutate("y", [](auto* i) { i->mutable_shape()->mutable_layout()->set_minor_to_major(0, 1); });
  EXPECT_TRUE(Contains(e, "instruction 'y'") && Contains(e, "not a permutation"));
  e = mutate("zero", [](auto* i) { i->mutable_literal()->add_s32s(5); });
  EXPECT_TRUE(Contains(e, "instruction 'zero'") && Contains(e, "needs 1 values in s32s, has 2"));
  e = mutate("zero", [](auto* i) { i->mutable_literal()->add_f32s(5); });
  EXPECT_TRUE(Contains(e, "has values in f32s"));
  e = mutate("conv", [](auto* i) { i->mutable_convolution_dimension_numbers()->set_input_batch_dimension(7); });
  EXPECT_TRUE(Contains(e, "instruction 'conv'") && Contains(e, "not a permutation"));
  e = mutate("d", [](auto* i) { i->mutable_dot_dimension_numbers()->set_lhs_contracting_dimensions(0, 5); });
  EXPECT_TRUE(Contains(e, "instruction 'd'"));
  e = mutate("ft", [](auto* i) { i->set_fft_type(static_cast<wire::FftType>(9)); });
  EXPECT_TRUE(Contains(e, "fft_type 9 is not defined"));
  e = mutate("k", [](auto* i) { i->set_parameter_number(0); });
  EXPECT_TRUE(Contains(e, "duplicate parameter number 0"));
  e = mutate("lt", [](auto* i) { i->set_comparison_direction("ABOUT"); });
  EXPECT_TRUE(Contains(e, "instruction 'lt'") && Contains(e, "comparison_direction 'ABOUT'"));
  const int64_t x_id = FindInstruction(&proto_for_ids, "x")->id();
  e = mutate("wv", [&](auto* i) { i->set_id(x_id); });
  EXPECT_TRUE(Contains(e, "used by another instruction"));
  e = mutate("wv", [](auto* i) { i->set_name("has space"); });
  EXPECT_TRUE(Contains(e, "cannot spell"));
  // Shape errors the verifier finds name the instruction too.
  e = mutate("d", [](auto* i) { i->mutable_shape()->set_dimensions(0, 5); });
  EXPECT_TRUE(Contains(e, "instruction 'd'") && Contains(e, "inferred shape"));
  wire::HloModuleProto proto = Decode(good);
  proto.set_entry_computation_id(-5);
  EXPECT_TRUE(Contains(ReadError(proto), "entry_computation_id -5 names no computation"));
  proto = Decode(good);
  proto.mutable_computations(0)->set_root_id(-1);
  EXPECT_TRUE(Contains(ReadError(proto), "computation 'cond'") && Contains(ReadError(proto), "root_id -1"));
}

// Every truncation and many random byte edits of real modules either read
// back or fail cleanly; whatever reads back prints text that parses again.
TEST(MutatedBytesNeverCrash) {
  std::mt19937 rng(1234);
  int accepted = 0, refused = 0;
  for (const char* text : kModules) {
    const std::string good = Serialize(*Parse(text));
    std::vector<std::string> inputs;
    for (size_t n = 0; n < good.size(); n += 7) inputs.push_back(good.substr(0, n));
    for (int trial = 0; trial < 400; ++trial) {
      std::string bytes = good;
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits; ++e) bytes[rng() % bytes.size()] = static_cast<char>(rng());
      inputs.push_back(std::move(bytes));
    }
    for (const std::string& bytes : inputs) {
      auto module = ParseHloModuleProto(bytes);
      if (!module.ok()) {
        ++refused;
        EXPECT_TRUE(module.status().code() == StatusCode::kInvalidArgument);
        continue;
      }
      ++accepted;
      std::string printed = (*module)->ToString();
      auto reparsed = ParseHloModule(printed);
      if (!reparsed.ok()) {
        ::xla::testing::ReportFailure(__FILE__, __LINE__, "accepted bytes print unparseable text: " +
                                                              reparsed.status().message() + "\n" + printed);
        continue;
      }
      EXPECT_EQ((*reparsed)->ToString(), printed);
    }
  }
  std::fprintf(stderr, "mutations: %d accepted, %d refused\n", accepted, refused);
  EXPECT_TRUE(refused > 0);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
