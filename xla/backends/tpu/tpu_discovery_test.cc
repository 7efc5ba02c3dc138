// Chip discovery over fake /dev and /sys trees in a temporary folder.
#include "xla/backends/tpu/tpu_discovery.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>

#include "xla/hlo/testing/check.h"

namespace xla::tpu {
namespace {

std::string MakeRoot() {
  const char* tmp = std::getenv("TEST_TMPDIR");  // set by bazel test
  CHECK_TRUE(tmp != nullptr);
  std::string pattern = std::string(tmp) + "/tpu_root_XXXXXX";
  CHECK_TRUE(mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

void MakeDirs(const std::string& root, const std::string& path) {
  std::string current = root;
  size_t start = 1;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    current = root + path.substr(0, slash);
    mkdir(current.c_str(), 0755);
    start = slash + 1;
  }
}

void Touch(const std::string& path, const std::string& text = "") {
  std::ofstream out(path);
  out << text;
}

void FakePciDevice(const std::string& root, const std::string& slot, const char* vendor,
                   const char* device, const char* subsystem = "0x0000") {
  const std::string dir = "/sys/bus/pci/devices/" + slot;
  MakeDirs(root, dir);
  Touch(root + dir + "/vendor", std::string(vendor) + "\n");
  Touch(root + dir + "/device", std::string(device) + "\n");
  Touch(root + dir + "/subsystem_device", std::string(subsystem) + "\n");
}

// No device files: no chips, and the message names where it looked.
TEST(EmptyRootHasNoChips) {
  const std::string root = MakeRoot();
  TpuChips chips = DiscoverTpuChips(root);
  EXPECT_EQ(chips.device_files.size(), size_t{0});
  EXPECT_EQ(chips.searched, root + "/dev/accel* and " + root + "/dev/vfio/<n>");
}

// accel<N> files are chips, in numeric order; other names are not.
TEST(CountsAccelFilesInOrder) {
  const std::string root = MakeRoot();
  MakeDirs(root, "/dev");
  for (const char* name : {"accel10", "accel2", "accel0", "accel1", "accelerator", "null"}) {
    Touch(root + "/dev/" + name);
  }
  TpuChips chips = DiscoverTpuChips(root);
  CHECK_TRUE(chips.device_files.size() == 4);
  EXPECT_EQ(chips.device_files[0], root + "/dev/accel0");
  EXPECT_EQ(chips.device_files[2], root + "/dev/accel2");
  EXPECT_EQ(chips.device_files[3], root + "/dev/accel10");
  EXPECT_TRUE(chips.generation == nullptr);  // no sysfs: unknown, not guessed
  EXPECT_EQ(DescribeChips(chips), "4 TPU chips (" + root + "/dev/accel0 .. " + root +
                                      "/dev/accel10, generation unknown)");
}

// VFIO chips are /dev/vfio/<n>; the control node /dev/vfio/vfio is not one.
TEST(CountsVfioGroups) {
  const std::string root = MakeRoot();
  MakeDirs(root, "/dev/vfio");
  for (const char* name : {"vfio", "0", "1", "2", "3"}) Touch(root + "/dev/vfio/" + name);
  FakePciDevice(root, "0000:00:04.0", "0x1ae0", "0x0063");
  FakePciDevice(root, "0000:00:05.0", "0x1ae0", "0x0063");
  FakePciDevice(root, "0000:00:01.0", "0x8086", "0x7110");  // not Google's
  TpuChips chips = DiscoverTpuChips(root);
  EXPECT_EQ(chips.device_files.size(), size_t{4});
  CHECK_TRUE(chips.generation != nullptr);
  EXPECT_EQ(std::string(chips.generation->name), std::string("v5e"));
  EXPECT_EQ(DescribeChips(chips), "4 TPU chips (" + root + "/dev/vfio/0 .. " + root +
                                      "/dev/vfio/3, TPU v5 lite)");
}

// Unknown or disagreeing PCI ids leave the generation unknown.
TEST(UnknownPciIdsLeaveGenerationUnknown) {
  const std::string root = MakeRoot();
  MakeDirs(root, "/dev");
  Touch(root + "/dev/accel0");
  FakePciDevice(root, "0000:00:04.0", "0x1ae0", "0x0099");
  EXPECT_TRUE(DiscoverTpuChips(root).generation == nullptr);
  FakePciDevice(root, "0000:00:04.0", "0x1ae0", "0x005e");
  FakePciDevice(root, "0000:00:05.0", "0x1ae0", "0x0027", "0x004f");
  EXPECT_TRUE(DiscoverTpuChips(root).generation == nullptr);
  FakePciDevice(root, "0000:00:05.0", "0x1ae0", "0x005e");
  CHECK_TRUE(DiscoverTpuChips(root).generation != nullptr);
  EXPECT_EQ(std::string(DiscoverTpuChips(root).generation->name), std::string("v4"));
}

}  // namespace
}  // namespace xla::tpu

TEST_MAIN()
