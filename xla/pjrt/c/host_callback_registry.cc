#include "xla/pjrt/c/host_callback_registry.h"

#include <cstring>
#include <map>
#include <mutex>

namespace xla {
namespace {

struct Registry {
  std::mutex mu;
  uint64_t next = 0;
  std::map<uint64_t, HostCallback> callbacks;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: callbacks may run at exit
  return *registry;
}

// Neither entry point can fail: both return NULL (success). Unregistering an
// unknown index is a no-op.
PJRT_Error* Register(PJRT_HostCallback_Register_Args* args) {
  args->index = RegisterHostCallback(HostCallback{args->callback, args->user_data});
  return nullptr;
}

PJRT_Error* Unregister(PJRT_HostCallback_Unregister_Args* args) {
  UnregisterHostCallback(args->index);
  return nullptr;
}

}  // namespace

Status HostCallback::Call(const std::vector<const void*>& operands,
                          const std::vector<void*>& results) const {
  char error[1024];
  error[0] = '\0';
  bool ok = function(user_data, operands.data(), operands.size(), results.data(), results.size(),
                     error, sizeof(error));
  if (ok) return OkStatus();
  error[sizeof(error) - 1] = '\0';
  return Internal(std::string("host callback failed: ") +
                  (error[0] ? error : "(no message)"));
}

uint64_t RegisterHostCallback(HostCallback callback) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  uint64_t index = r.next++;
  r.callbacks[index] = callback;
  return index;
}

bool UnregisterHostCallback(uint64_t index) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.callbacks.erase(index) > 0;
}

std::optional<HostCallback> FindHostCallback(uint64_t index) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.callbacks.find(index);
  if (it == r.callbacks.end()) return std::nullopt;
  return it->second;
}

PJRT_Extension_Base* HostCallbackExtension() {
  static PJRT_HostCallback_Extension extension = [] {
    PJRT_HostCallback_Extension e;
    std::memset(&e, 0, sizeof(e));
    e.base.struct_size = PJRT_HostCallback_Extension_STRUCT_SIZE;
    PJRT_SetExtensionType(&e.base, PJRT_EXTENSION_JAX_HOST_CALLBACK);
    e.base.next = nullptr;
    e.register_callback = Register;
    e.unregister_callback = Unregister;
    return e;
  }();
  return &extension.base;
}

}  // namespace xla
