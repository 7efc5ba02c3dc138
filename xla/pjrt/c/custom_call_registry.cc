#include "xla/pjrt/c/custom_call_registry.h"

#include <map>
#include <mutex>

namespace xla {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, CustomCallTarget> targets;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: targets may run at exit
  return *registry;
}

}  // namespace

Status RegisterCustomCallTarget(const std::string& name, CustomCallTarget target) {
  if (name.empty()) return InvalidArgument("a custom-call target needs a name");
  if (target.function == nullptr) {
    return InvalidArgument("custom-call target \"" + name + "\": the function pointer is null");
  }
  if (target.api_version != 0) {
    return InvalidArgument("custom-call target \"" + name + "\": api_version " +
                           std::to_string(target.api_version) +
                           " is not supported; this plugin runs untyped functions "
                           "(api_version 0: void f(void* out, const void** in))");
  }
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto [it, inserted] = r.targets.emplace(name, target);
  if (!inserted && it->second.function != target.function) {
    return AlreadyExists("custom-call target \"" + name +
                         "\" is already registered with another function");
  }
  return OkStatus();
}

std::optional<CustomCallTarget> FindCustomCallTarget(const std::string& name) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.targets.find(name);
  if (it == r.targets.end()) return std::nullopt;
  return it->second;
}

}  // namespace xla
