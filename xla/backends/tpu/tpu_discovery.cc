#include "xla/backends/tpu/tpu_discovery.h"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <utility>

namespace xla::tpu {
namespace {

constexpr int kGooglePciVendor = 0x1ae0;

std::string Join(const std::string& root, const std::string& path) {
  if (root.empty() || root == "/") return path;
  return (root.back() == '/' ? root.substr(0, root.size() - 1) : root) + path;
}

std::vector<std::string> Entries(const std::string& folder) {
  std::vector<std::string> names;
  DIR* dir = opendir(folder.c_str());
  if (dir == nullptr) return names;
  while (dirent* entry = readdir(dir)) names.push_back(entry->d_name);
  closedir(dir);
  return names;
}

// "accel12" with prefix "accel" -> 12; -1 unless the rest is all digits.
long ChipNumber(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.size() - prefix.size() > 6) {
    return -1;
  }
  const std::string digits = name.substr(prefix.size());
  if (digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stol(digits);
}

// Device files named <prefix><N> in `folder`, ordered by N.
std::vector<std::string> NumberedFiles(const std::string& folder, const std::string& prefix) {
  std::vector<std::pair<long, std::string>> found;
  for (const std::string& name : Entries(folder)) {
    long n = ChipNumber(name, prefix);
    if (n >= 0) found.emplace_back(n, folder + "/" + name);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> files;
  for (auto& f : found) files.push_back(std::move(f.second));
  return files;
}

// A sysfs id file holds "0x1ae0\n"; -1 if unreadable.
int ReadHexId(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text)) return -1;
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 16);
  return end != text.c_str() && *end == '\0' ? static_cast<int>(v) : -1;
}

const TpuGeneration* GenerationFromSysfs(const std::string& root) {
  const std::string pci = Join(root, "/sys/bus/pci/devices");
  std::set<const TpuGeneration*> seen;
  for (const std::string& name : Entries(pci)) {
    if (name == "." || name == "..") continue;
    const std::string dev = pci + "/" + name;
    if (ReadHexId(dev + "/vendor") != kGooglePciVendor) continue;
    seen.insert(TpuGenerationFromPci(ReadHexId(dev + "/device"),
                                     ReadHexId(dev + "/subsystem_device")));
  }
  return seen.size() == 1 ? *seen.begin() : nullptr;
}

}  // namespace

TpuChips DiscoverTpuChips(const std::string& root) {
  TpuChips chips;
  const std::string dev = Join(root, "/dev");
  chips.searched = dev + "/accel* and " + dev + "/vfio/<n>";
  // A machine exposes its chips one way or the other; /dev/vfio/vfio is the
  // VFIO control node, not a chip, and is skipped by the numbering rule.
  chips.device_files = NumberedFiles(dev, "accel");
  if (chips.device_files.empty()) chips.device_files = NumberedFiles(dev + "/vfio", "");
  if (!chips.device_files.empty()) chips.generation = GenerationFromSysfs(root);
  return chips;
}

std::string DescribeChips(const TpuChips& chips) {
  const size_t n = chips.device_files.size();
  std::string out = std::to_string(n) + " TPU chip" + (n == 1 ? "" : "s") + " (";
  if (n > 0) out += chips.device_files.front();
  if (n > 1) out += " .. " + chips.device_files.back();
  out += ", ";
  out += chips.generation ? chips.generation->device_kind : "generation unknown";
  return out + ")";
}

}  // namespace xla::tpu
