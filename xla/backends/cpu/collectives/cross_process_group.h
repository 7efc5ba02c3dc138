// The CPU client's link to the other processes of its group: the engine's
// shared object (cross_process.h), opened with dlopen from beside the plugin
// only when a client spans several processes, and one connected group of it.
#ifndef XLA_BACKENDS_CPU_COLLECTIVES_CROSS_PROCESS_GROUP_H_
#define XLA_BACKENDS_CPU_COLLECTIVES_CROSS_PROCESS_GROUP_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "xla/backends/cpu/collectives/cross_process.h"
#include "xla/pjrt/client.h"
#include "xla/status.h"

namespace xla::cpu {

class CrossProcessGroup {
 public:
  // The engine library's file name, looked up in the plugin's own directory.
  static constexpr const char* kGlooLibrary = "libjax_cpu_collectives_gloo.so";
  // Gloo itself, from the system (see the BUILD file for why it is not vendored).
  static constexpr const char* kSystemGloo = "libgloo.so.0";

  // Connects process `node_id` of `num_nodes`, listening on `hostname` (an
  // address of this host its peers can reach); every process calls this with
  // the same `kv` store. Operations fail rather than wait over `timeout_ms`.
  static StatusOr<std::unique_ptr<CrossProcessGroup>> Connect(int node_id, int num_nodes,
                                                              const std::string& hostname,
                                                              KeyValueStore kv,
                                                              int64_t timeout_ms);
  ~CrossProcessGroup();

  int node_id() const { return node_id_; }
  int num_nodes() const { return num_nodes_; }
  // out (num_nodes * bytes) = every process's `in`, in process order. Calls
  // are serialised: every process must make the same calls in the same order.
  Status AllGather(const void* in, size_t bytes, void* out);
  // `in` holds one block per process (block q, of send_bytes[q], for process q); `out`
  // receives recv_bytes[q] from each process q, in process order. Serialised likewise.
  Status AllToAll(const void* in, const std::vector<size_t>& send_bytes, void* out,
                  const std::vector<size_t>& recv_bytes);

 private:
  // Runs one engine call (`call` fills an error message and returns false on failure);
  // after a failure the group stays broken: the peers are out of step for good.
  Status Exchange(const std::function<bool(char* error, size_t error_size)>& call);
  CrossProcessGroup() = default;
  int node_id_ = 0, num_nodes_ = 1;
  KeyValueStore kv_;
  JaxKvStore c_kv_{};
  void* library_ = nullptr;
  const JaxCrossProcessEngine* engine_ = nullptr;
  void* group_ = nullptr;
  std::mutex mu_;
  std::string broken_;  // set after a failure: the peers are out of step for good
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_COLLECTIVES_CROSS_PROCESS_GROUP_H_
