#include "xla/backends/cpu/collectives/cross_process_group.h"
#include "xla/pjrt/c/utf8.h"

#include <dlfcn.h>

#include <cstring>
#include <string>

namespace xla::cpu {
namespace {

// The C face of the client's KeyValueStore, for the engine.
bool KvGet(void* user_arg, const char* key, size_t key_size, int64_t timeout_ms,
           JaxKvSink* sink, void* sink_arg, char* error, size_t error_size) {
  auto* kv = static_cast<KeyValueStore*>(user_arg);
  StatusOr<std::string> value = kv->get(std::string(key, key_size), timeout_ms);
  if (!value.ok()) {
    xla::CopyErrorText(value.status().message(), error, error_size);
    return false;
  }
  sink(sink_arg, value->data(), value->size());
  return true;
}

bool KvPut(void* user_arg, const char* key, size_t key_size, const char* value,
           size_t value_size, char* error, size_t error_size) {
  auto* kv = static_cast<KeyValueStore*>(user_arg);
  Status s = kv->put(std::string(key, key_size), std::string(value, value_size));
  if (!s.ok()) xla::CopyErrorText(s.message(), error, error_size);
  return s.ok();
}

// The directory of the shared object that holds this code (the plugin).
std::string OwnDirectory() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&OwnDirectory), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

}  // namespace

StatusOr<std::unique_ptr<CrossProcessGroup>> CrossProcessGroup::Connect(int node_id,
                                                                        int num_nodes,
                                                                        const std::string& hostname,
                                                                        KeyValueStore kv,
                                                                        int64_t timeout_ms) {
  std::unique_ptr<CrossProcessGroup> g(new CrossProcessGroup());
  g->node_id_ = node_id;
  g->num_nodes_ = num_nodes;
  g->kv_ = std::move(kv);
  g->c_kv_ = JaxKvStore{&g->kv_, KvGet, KvPut};
  // The engine binds its Gloo references to the system's Gloo, made global first.
  if (dlopen(kSystemGloo, RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    const char* why = dlerror();
    return FailedPrecondition(std::string("cross-process CPU collectives need Gloo's shared "
                                          "library ") + kSystemGloo + ", which could not be "
                              "loaded (" + (why ? why : "unknown error") + "); install it "
                              "(Debian/Ubuntu: apt install libgloo0)");
  }
  const std::string path = OwnDirectory() + kGlooLibrary;
  g->library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (g->library_ == nullptr) {
    const char* why = dlerror();
    return FailedPrecondition("cross-process collectives need " + path + ", which could not be "
                              "loaded: " + (why ? why : "unknown error") +
                              " (reinstall jaxlib-cpu)");
  }
  auto* entry = reinterpret_cast<JaxCpuCrossProcessEngineFn*>(
      dlsym(g->library_, JAX_CROSS_PROCESS_ENGINE_SYMBOL));
  g->engine_ = entry == nullptr ? nullptr : entry();
  if (g->engine_ == nullptr || g->engine_->struct_size < sizeof(JaxCrossProcessEngine)) {
    return FailedPrecondition(path + " is not a collectives engine of this plugin version "
                              "(reinstall jaxlib-cpu)");
  }
  char error[2048] = "";
  g->group_ = g->engine_->connect(node_id, num_nodes, hostname.c_str(), "jax_cpu_collectives/",
                                  &g->c_kv_, timeout_ms, error, sizeof(error));
  if (g->group_ == nullptr) return Unavailable(error);
  return g;
}

CrossProcessGroup::~CrossProcessGroup() {
  if (group_ != nullptr) engine_->destroy(group_);
  // The engine's library stays loaded: its threads and static objects may
  // outlive the group, and unloading it buys nothing.
}

Status CrossProcessGroup::Exchange(
    const std::function<bool(char* error, size_t error_size)>& call) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!broken_.empty()) return Unavailable(broken_);
  char error[2048] = "";
  if (!call(error, sizeof(error))) {
    broken_ = std::string("cross-process collective failed (a peer process may have died): ") +
              error;
    return Unavailable(broken_);
  }
  return OkStatus();
}

Status CrossProcessGroup::AllGather(const void* in, size_t bytes, void* out) {
  return Exchange([&](char* error, size_t error_size) {
    return engine_->all_gather(group_, in, bytes, out, error, error_size);
  });
}

Status CrossProcessGroup::AllToAll(const void* in, const std::vector<size_t>& send_bytes,
                                   void* out, const std::vector<size_t>& recv_bytes) {
  if (send_bytes.size() != static_cast<size_t>(num_nodes_) ||
      recv_bytes.size() != static_cast<size_t>(num_nodes_)) {
    return InvalidArgument("all-to-all needs one block size per process");
  }
  return Exchange([&](char* error, size_t error_size) {
    return engine_->all_to_all(group_, in, send_bytes.data(), out, recv_bytes.data(), error,
                               error_size);
  });
}

}  // namespace xla::cpu
