// The Gloo engine behind cross_process.h: Gloo's TCP transport, with its
// rendezvous Store implemented over the coordinator's key-value store, so the
// processes find each other through jax.distributed's coordinator.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <gloo/allgather.h>
#include <gloo/alltoallv.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>

#include "xla/backends/cpu/collectives/cross_process.h"
#include "xla/pjrt/c/utf8.h"

namespace {

// Gloo's Store over the coordinator: keys are namespaced by the group's prefix.
class KvStore final : public gloo::rendezvous::Store {
 public:
  KvStore(const JaxKvStore* kv, std::string prefix, std::chrono::milliseconds timeout)
      : kv_(kv), prefix_(std::move(prefix)), timeout_(timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override {
    char error[1024] = "";
    const std::string k = prefix_ + key;
    if (!kv_->put(kv_->user_arg, k.data(), k.size(), data.data(), data.size(), error,
                  sizeof(error))) {
      throw std::runtime_error("key-value set of '" + k + "' failed: " + error);
    }
  }

  std::vector<char> get(const std::string& key) override { return Get(key, timeout_); }

  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }

  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override {
    for (const std::string& key : keys) Get(key, timeout);
  }

 private:
  std::vector<char> Get(const std::string& key, std::chrono::milliseconds timeout) {
    char error[1024] = "";
    const std::string k = prefix_ + key;
    std::vector<char> value;
    auto sink = [](void* arg, const char* data, size_t size) {
      static_cast<std::vector<char>*>(arg)->assign(data, data + size);
    };
    if (!kv_->get(kv_->user_arg, k.data(), k.size(), timeout.count(), sink, &value, error,
                  sizeof(error))) {
      throw std::runtime_error("key-value get of '" + k + "' failed: " + error);
    }
    return value;
  }

  const JaxKvStore* kv_;
  std::string prefix_;
  std::chrono::milliseconds timeout_;
};

struct Group {
  std::shared_ptr<gloo::rendezvous::Context> context;
  std::chrono::milliseconds timeout;
};

void* Connect(int rank, int size, const char* hostname, const char* prefix,
              const JaxKvStore* kv, int64_t timeout_ms, char* error, size_t error_size) {
  try {
    const std::chrono::milliseconds timeout(timeout_ms);
    gloo::transport::tcp::attr attr;
    attr.hostname = hostname != nullptr && *hostname ? hostname : "127.0.0.1";
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->setTimeout(timeout);
    KvStore store(kv, prefix, timeout);
    context->connectFullMesh(store, device);
    return new Group{std::move(context), timeout};
  } catch (const std::exception& e) {
    xla::CopyErrorText(std::string("Gloo could not connect process ") + std::to_string(rank) +
                   " to its " + std::to_string(size - 1) + " peers: " + e.what(),
               error, error_size);
    return nullptr;
  }
}

bool AllGather(void* group, const void* in, size_t bytes, void* out, char* error,
               size_t error_size) {
  auto* g = static_cast<Group*>(group);
  try {
    gloo::AllgatherOptions opts(g->context);
    // Gloo's API takes a non-const input pointer; it only reads it.
    opts.setInput(static_cast<char*>(const_cast<void*>(in)), bytes);
    opts.setOutput(static_cast<char*>(out), bytes * g->context->size);
    opts.setTimeout(g->timeout);
    gloo::allgather(opts);
    return true;
  } catch (const std::exception& e) {
    xla::CopyErrorText(std::string("Gloo all-gather failed: ") + e.what(), error, error_size);
    return false;
  }
}

bool AllToAll(void* group, const void* in, const size_t* send_bytes, void* out,
              const size_t* recv_bytes, char* error, size_t error_size) {
  auto* g = static_cast<Group*>(group);
  try {
    const int size = g->context->size;
    std::vector<int64_t> send(send_bytes, send_bytes + size), recv(recv_bytes, recv_bytes + size);
    // A rank may send or receive nothing (its buffer may then be null): Gloo is given
    // a valid pointer anyway.
    char nothing_in = 0, nothing_out = 0;
    const bool sends = std::any_of(send.begin(), send.end(), [](int64_t b) { return b > 0; });
    const bool receives = std::any_of(recv.begin(), recv.end(), [](int64_t b) { return b > 0; });
    gloo::AlltoallvOptions opts(g->context);
    // Gloo's API takes a non-const input pointer; it only reads it.
    opts.setInput(sends ? static_cast<char*>(const_cast<void*>(in)) : &nothing_in,
                  std::move(send));
    opts.setOutput(receives ? static_cast<char*>(out) : &nothing_out, std::move(recv));
    opts.setTimeout(g->timeout);
    gloo::alltoallv(opts);
    return true;
  } catch (const std::exception& e) {
    xla::CopyErrorText(std::string("Gloo all-to-all failed: ") + e.what(), error, error_size);
    return false;
  }
}

void Destroy(void* group) { delete static_cast<Group*>(group); }

const JaxCrossProcessEngine kEngine = {sizeof(JaxCrossProcessEngine), "gloo", Connect,
                                       AllGather, Destroy, AllToAll};

}  // namespace

extern "C" __attribute__((visibility("default"))) const JaxCrossProcessEngine*
JaxCpuCrossProcessEngine(void) {
  return &kEngine;
}
