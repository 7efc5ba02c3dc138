// Collectives across the CPU client's virtual devices, run the way pmap
// runs them: one executable compiled with num_replicas = 4 and executed
// with one argument list per device. The HLO text is shaped like JAX's pmap
// output (channel ids, use_global_device_ids, region_* reducers).
#include <cstring>
#include <string>
#include <vector>

#include "xla/backends/cpu/cpu_client.h"
#include "xla/hlo/testing/check.h"

namespace xla::cpu {
namespace {

constexpr int64_t kReplicas = 4;

Client& TestClient() {
  static std::unique_ptr<Client> client = [] {
    Options options;
    options["num_devices"] = kReplicas;
    auto c = CpuPluginInfo().create_client(options);
    if (!c.ok()) std::abort();
    return std::move(c).value();
  }();
  return *client;
}

// Runs `hlo` on every replica; replica d gets f32[4] {10d, 10d+1, 10d+2, 10d+3}.
StatusOr<std::vector<std::vector<std::vector<uint8_t>>>> RunReplicated(const std::string& hlo) {
  Client& client = TestClient();
  Options options;
  options["num_replicas"] = kReplicas;
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe, client.CompileText(hlo, options, {}));
  std::vector<std::unique_ptr<Buffer>> owned;
  std::vector<std::vector<Buffer*>> args(kReplicas);
  for (int64_t d = 0; d < kReplicas; ++d) {
    std::vector<float> x(4);
    for (int i = 0; i < 4; ++i) x[i] = 10.0f * d + i;
    ASSIGN_OR_RETURN(std::unique_ptr<Buffer> buf,
                     client.BufferFromHost(x.data(), PrimitiveType::F32, {4}, {},
                                           client.devices()[d]));
    args[d].push_back(buf.get());
    owned.push_back(std::move(buf));
  }
  ASSIGN_OR_RETURN(auto outs, exe->Execute(args, {}));
  std::vector<std::vector<std::vector<uint8_t>>> result(kReplicas);
  for (int64_t d = 0; d < kReplicas; ++d) {
    for (auto& out : outs[d]) {
      std::vector<uint8_t> bytes(out->size_in_bytes());
      RETURN_IF_ERROR(out->ToHost(bytes.data()));
      EXPECT_TRUE(out->device() == client.devices()[d]);
      result[d].push_back(std::move(bytes));
    }
  }
  return result;
}

template <typename T>
std::vector<T> As(const std::vector<uint8_t>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

const char* kCollectives = R"(HloModule pmap_f, entry_computation_layout={(f32[4]{0})->(f32[4]{0}, f32[4]{0}, f32[16]{0}, f32[1]{0}, f32[4]{0}, f32[4]{0}, u32[], u32[])}

region_0.1 {
  Arg_0.2 = f32[] parameter(0)
  Arg_1.3 = f32[] parameter(1)
  ROOT add.4 = f32[] add(Arg_0.2, Arg_1.3)
}

region_1.5 {
  Arg_0.6 = f32[] parameter(0)
  Arg_1.7 = f32[] parameter(1)
  ROOT maximum.8 = f32[] maximum(Arg_0.6, Arg_1.7)
}

ENTRY main.20 {
  x.1 = f32[4]{0} parameter(0)
  all-reduce.9 = f32[4]{0} all-reduce(x.1), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=region_0.1
  all-reduce.10 = f32[4]{0} all-reduce(x.1), channel_id=2, replica_groups={{0,2},{1,3}}, use_global_device_ids=true, to_apply=region_1.5
  all-gather.11 = f32[16]{0} all-gather(x.1), channel_id=3, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true
  reduce-scatter.12 = f32[1]{0} reduce-scatter(x.1), channel_id=4, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={0}, to_apply=region_0.1
  all-to-all.13 = f32[4]{0} all-to-all(x.1), channel_id=5, replica_groups={{0,1,2,3}}, dimensions={0}
  collective-permute.14 = f32[4]{0} collective-permute(x.1), channel_id=6, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  replica-id.15 = u32[] replica-id()
  partition-id.16 = u32[] partition-id()
  ROOT tuple.17 = (f32[4]{0}, f32[4]{0}, f32[16]{0}, f32[1]{0}, f32[4]{0}, f32[4]{0}, u32[], u32[]) tuple(all-reduce.9, all-reduce.10, all-gather.11, reduce-scatter.12, all-to-all.13, collective-permute.14, replica-id.15, partition-id.16)
}
)";

// Every collective kind, checked on every replica.
TEST(PmapCollectives) {
  auto r = RunReplicated(kCollectives);
  CHECK_OK(r);
  for (int64_t d = 0; d < kReplicas; ++d) {
    const auto& o = (*r)[d];
    CHECK_TRUE(o.size() == 8);
    auto x = [](int64_t rep, int i) { return 10.0f * rep + i; };
    std::vector<float> sum(4), mx(4), gathered, a2a(4), perm(4);
    for (int i = 0; i < 4; ++i) {
      sum[i] = x(0, i) + x(1, i) + x(2, i) + x(3, i);
      mx[i] = x(d % 2 == 0 ? 2 : 3, i);
      a2a[i] = x(i, static_cast<int>(d));
      perm[i] = x((d + kReplicas - 1) % kReplicas, i);
    }
    for (int64_t rep = 0; rep < kReplicas; ++rep) {
      for (int i = 0; i < 4; ++i) gathered.push_back(x(rep, i));
    }
    EXPECT_TRUE(As<float>(o[0]) == sum);
    EXPECT_TRUE(As<float>(o[1]) == mx);
    EXPECT_TRUE(As<float>(o[2]) == gathered);
    EXPECT_TRUE(As<float>(o[3]) == std::vector<float>{sum[d]});
    EXPECT_TRUE(As<float>(o[4]) == a2a);
    EXPECT_TRUE(As<float>(o[5]) == perm);
    const uint32_t replica_id = As<uint32_t>(o[6])[0], partition_id = As<uint32_t>(o[7])[0];
    EXPECT_EQ(replica_id, static_cast<uint32_t>(d));
    EXPECT_EQ(partition_id, uint32_t{0});
  }
}

// A psum inside a loop: each iteration's all-reduce meets its own
// iteration on the other replicas (x <- psum(x), three times: 4^3 * x-sum).
TEST(AllReduceInWhileLoop) {
  auto r = RunReplicated(R"(HloModule pmap_loop

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  p = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[4]{0} get-tuple-element(p), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  v2 = f32[4]{0} all-reduce(v), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  ROOT t = (s32[], f32[4]{0}) tuple(i2, v2)
}

ENTRY main {
  x = f32[4]{0} parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]{0}) tuple(zero, x)
  w = (s32[], f32[4]{0}) while(init), condition=cond, body=body
  ROOT out = f32[4]{0} get-tuple-element(w), index=1
})");
  CHECK_OK(r);
  for (int64_t d = 0; d < kReplicas; ++d) {
    std::vector<float> want(4);
    for (int i = 0; i < 4; ++i) want[i] = 16.0f * (60.0f + 4.0f * i);
    EXPECT_TRUE(As<float>((*r)[d][0]) == want);
  }
}

// A collective whose group spans more replicas than the run has is an
// error, not a hang.
TEST(CollectiveWithoutReplicasFails) {
  Client& client = TestClient();
  auto exe = client.CompileText(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4]{0} parameter(0)
  ROOT r = f32[4]{0} all-reduce(x), replica_groups={{0,1,2,3}}, to_apply=add
})", {}, {});
  CHECK_OK(exe);
  std::vector<float> x(4, 1.0f);
  auto buf = client.BufferFromHost(x.data(), PrimitiveType::F32, {4}, {}, client.devices()[0]);
  CHECK_OK(buf);
  auto outs = (*exe)->Execute({{buf->get()}}, {});
  EXPECT_TRUE(!outs.ok());
  EXPECT_TRUE(outs.status().code() == StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
