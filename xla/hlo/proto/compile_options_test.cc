// CompileOptions <-> CompileOptionsProto: our round trip, the wire fields
// real XLA reads, bytes real JAX 0.10.2 sends, and refusals.
#include "xla/hlo/proto/compile_options.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "xla/hlo/proto/compile_options.pb.h"
#include "xla/hlo/testing/check.h"

namespace xla {
namespace {

std::string Hex(const char* hex) {
  std::string out;
  for (size_t i = 0; hex[i] && hex[i + 1]; i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex + i, 2), nullptr, 16)));
  }
  return out;
}

TEST(OptionsRoundTrip) {
  CompileOptions o;
  o.num_replicas = 2;
  o.num_partitions = 3;
  o.use_spmd_partitioning = true;
  o.use_auto_spmd_partitioning = true;
  o.device_assignment = {{0, 1, 2}, {5, 4, 3}};
  o.argument_layouts = std::vector<Shape>{Shape(PrimitiveType::F32, {2, 3}, {0, 1}), Shape::Scalar(PrimitiveType::S32)};
  o.compile_portable_executable = true;
  o.env_option_overrides = {{"xla_flag_s", std::string("v")}, {"xla_flag_i", int64_t{-7}},
                            {"xla_flag_b", true}, {"xla_flag_d", 0.25}};
  auto back = ParseCompileOptions(SerializeCompileOptions(o));
  CHECK_OK(back);
  EXPECT_TRUE(*back == o);
}

TEST(WireFieldsAreXlas) {
  CompileOptions o;
  o.num_replicas = 2;
  o.device_assignment = {{4}, {6}};
  wire::CompileOptionsProto p;
  CHECK_TRUE(p.ParseFromString(SerializeCompileOptions(o)));
  EXPECT_EQ(p.executable_build_options().num_replicas(), int64_t{2});
  EXPECT_EQ(p.executable_build_options().device_ordinal(), int64_t{-1});
  const auto& da = p.executable_build_options().device_assignment();
  EXPECT_EQ(da.replica_count(), 2);
  EXPECT_EQ(da.computation_count(), 1);
  EXPECT_EQ(da.computation_devices(0).replica_device_ids(1), int64_t{6});
  EXPECT_EQ(p.argument_layouts_size(), 0);
}

// jax._src.compiler.get_compile_options(num_replicas=2, num_partitions=1,
// device_assignment=[[0],[1]]) of real JAX 0.10.2, with
// env_option_overrides {"xla_cpu_enable_fast_math": False}, recorded by
// oracle/check_real_xla.py: it also carries debug options, which we skip.
TEST(ReadsWhatRealJaxSends) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  std::ifstream in(std::string(srcdir ? srcdir : ".") +
                   "/jax_monorepo/xla/hlo/proto/testdata/real_xla/compile_options.hex");
  std::stringstream hex;
  hex << in.rdbuf();
  CHECK_TRUE(hex.str().size() > 100);
  auto o = ParseCompileOptions(Hex(hex.str().c_str()));
  CHECK_OK(o);
  EXPECT_EQ(o->num_replicas, int64_t{2});
  EXPECT_EQ(o->num_partitions, int64_t{1});
  EXPECT_TRUE(o->device_assignment == (std::vector<std::vector<int64_t>>{{0}, {1}}));
  EXPECT_TRUE(!o->argument_layouts.has_value());
  auto it = o->env_option_overrides.find("xla_cpu_enable_fast_math");
  CHECK_TRUE(it != o->env_option_overrides.end());
  EXPECT_TRUE(std::get<bool>(it->second) == false);
}

TEST(BadOptionsAreRefused) {
  EXPECT_TRUE(!ParseCompileOptions("\xff\xff").ok());
  wire::CompileOptionsProto p;
  p.mutable_executable_build_options()->set_num_replicas(-2);
  auto bad = ParseCompileOptions(p.SerializeAsString());
  CHECK_TRUE(!bad.ok());
  EXPECT_TRUE(bad.status().message().find("num_replicas -2") != std::string::npos);
  p.mutable_executable_build_options()->set_num_replicas(2);
  auto* da = p.mutable_executable_build_options()->mutable_device_assignment();
  da->set_replica_count(3);
  da->set_computation_count(1);
  da->add_computation_devices()->add_replica_device_ids(0);
  bad = ParseCompileOptions(p.SerializeAsString());
  CHECK_TRUE(!bad.ok());
  EXPECT_TRUE(bad.status().message().find("lists 1 replicas, expected 3") != std::string::npos);
  wire::CompileOptionsProto q;
  q.add_argument_layouts()->set_element_type(wire::S2);
  bad = ParseCompileOptions(q.SerializeAsString());
  CHECK_TRUE(!bad.ok());
  EXPECT_TRUE(bad.status().message().find("argument_layouts[0]") != std::string::npos);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
