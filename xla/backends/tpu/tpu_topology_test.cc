// Topology strings and the generation table.
#include "xla/backends/tpu/tpu_topology.h"
#include "xla/hlo/testing/check.h"

namespace xla::tpu {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Two-axis and three-axis generations give chips and devices.
TEST(ParsesGenerationAndGrid) {
  auto v5e = ParseTpuTopology("v5e:2x4");
  CHECK_OK(v5e);
  EXPECT_EQ(std::string(v5e->generation->device_kind), std::string("TPU v5 lite"));
  EXPECT_EQ(v5e->num_chips, 8);
  EXPECT_EQ(v5e->num_devices, 8);
  auto v4 = ParseTpuTopology("v4:2x2x1");
  CHECK_OK(v4);
  EXPECT_EQ(v4->chip_grid.size(), size_t{3});
  EXPECT_EQ(v4->num_devices, 4);
  // A v3 chip holds two TensorCores, each a device.
  auto v3 = ParseTpuTopology("v3:2x2");
  CHECK_OK(v3);
  EXPECT_EQ(v3->num_chips, 4);
  EXPECT_EQ(v3->num_devices, 8);
  CHECK_OK(ParseTpuTopology(kDefaultTpuTopology));
}

// Malformed strings are refused with the reason and the accepted form.
TEST(RefusesMalformedTopologies) {
  struct Case {
    const char* text;
    const char* reason;
  };
  const Case cases[] = {
      {"2x2", "no generation"},
      {"v9:2x2", "unknown generation \"v9\""},
      {"v5e:2x2x1", "v5e takes 2 chip counts"},
      {"v4:2x2", "v4 takes 3 chip counts"},
      {"v5e:2x", "v5e takes 2 chip counts"},
      {"v5e:", "v5e takes 2 chip counts"},
      {"v5e:0x2", "chip counts must be positive integers"},
      {"v5e:ax2", "chip counts must be positive integers"},
      {"v5e:2x-2", "chip counts must be positive integers"},
      {"v5p:100x100x100", "more than 4096 devices"},
  };
  for (const Case& c : cases) {
    auto t = ParseTpuTopology(c.text);
    CHECK_TRUE(!t.ok());
    EXPECT_TRUE(t.status().code() == StatusCode::kInvalidArgument);
    EXPECT_TRUE(Contains(t.status().message(), c.reason));
    EXPECT_TRUE(Contains(t.status().message(), "e.g. \"v5e:2x2\""));
  }
}

// PCI ids name the generation; v2 and v3 are told apart by subsystem id.
TEST(GenerationsFromPciIds) {
  EXPECT_EQ(std::string(TpuGenerationFromPci(0x0063, 0)->name), std::string("v5e"));
  EXPECT_EQ(std::string(TpuGenerationFromPci(0x005e, 0x1234)->name), std::string("v4"));
  EXPECT_EQ(std::string(TpuGenerationFromPci(0x0027, 0x004e)->name), std::string("v2"));
  EXPECT_EQ(std::string(TpuGenerationFromPci(0x0027, 0x004f)->name), std::string("v3"));
  EXPECT_TRUE(TpuGenerationFromPci(0x0027, 0x0001) == nullptr);
  EXPECT_TRUE(TpuGenerationFromPci(0x1234, 0) == nullptr);
}

}  // namespace
}  // namespace xla::tpu

TEST_MAIN()
