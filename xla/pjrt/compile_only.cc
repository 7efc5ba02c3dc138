#include "xla/pjrt/compile_only.h"

#include <algorithm>
#include <sstream>
#include <utility>

namespace xla::compile_only {

MockDevice::MockDevice(int id, std::string kind, std::string debug_string)
    : id_(id), kind_(std::move(kind)), debug_string_(std::move(debug_string)), memory_(id) {}

std::vector<Memory*> MockDevice::memories() const { return {&memory_}; }

Memory* MockDevice::default_memory() const { return &memory_; }

MockDevices::MockDevices(int64_t count, const std::string& platform, const std::string& kind) {
  for (int64_t i = 0; i < count; ++i) {
    const int id = static_cast<int>(i);
    owned_.push_back(std::make_unique<MockDevice>(id, kind, platform + ":" + std::to_string(id)));
    devices_.push_back(owned_.back().get());
  }
}

StatusOr<std::vector<Device*>> CompileTargets(const Options& options,
                                              const std::vector<Device*>& requested,
                                              const std::vector<Device*>& all,
                                              const std::string& platform) {
  int64_t num_replicas = 1;
  if (auto it = options.find("num_replicas"); it != options.end()) {
    const int64_t* n = std::get_if<int64_t>(&it->second);
    if (n == nullptr || *n < 1) return InvalidArgument("option num_replicas must be a positive integer");
    num_replicas = *n;
  }
  std::vector<Device*> targets = requested;
  if (targets.empty()) {
    if (num_replicas > static_cast<int64_t>(all.size())) {
      return InvalidArgument("num_replicas=" + std::to_string(num_replicas) +
                             " but the topology has " + std::to_string(all.size()) + " devices");
    }
    targets.assign(all.begin(), all.begin() + num_replicas);
  }
  for (Device* d : targets) {
    if (std::find(all.begin(), all.end(), d) == all.end()) {
      return InvalidArgument("Compile: device is not a device of this " + platform + " client");
    }
  }
  return targets;
}

std::string DumpDirFromXlaFlags(const std::string& xla_flags) {
  const std::string flag = "--xla_dump_to=";
  std::string dir;
  std::stringstream in(xla_flags);
  std::string word;
  while (in >> word) {
    if (word.rfind(flag, 0) == 0) dir = word.substr(flag.size());  // the last one wins
  }
  return dir;
}

}  // namespace xla::compile_only
