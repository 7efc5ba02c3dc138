// The CPU backend's Client: N virtual CPU devices sharing the host, HLO text
// compiled with LLVM, buffers in host memory. The plugin gets it through
// CpuPluginInfo(), whose create_client reads the option "num_devices".
#ifndef XLA_BACKENDS_CPU_CPU_CLIENT_H_
#define XLA_BACKENDS_CPU_CPU_CLIENT_H_

#include <memory>
#include <string>
#include <vector>

#include "xla/hlo/ir/module.h"
#include "xla/pjrt/client.h"

namespace xla {

// platform_names "cpu"; plugin_version from the build's JAX_PLUGIN_VERSION.
const PluginInfo& CpuPluginInfo();

namespace cpu {

class CpuDevice;
class CrossProcessGroup;
class ThreadPool;
struct CompileOptions;

class CpuClient final : public Client {
 public:
  // Options: "num_devices" (int64, default 1); "host_buffer_cache_bytes"
  // (int64, default kDefaultHostBufferCacheBytes): how much freed buffer
  // memory the client keeps for reuse (runtime/host_memory_pool.h), 0 for none.
  static constexpr int64_t kDefaultHostBufferCacheBytes = int64_t{256} << 20;
  static StatusOr<std::unique_ptr<CpuClient>> Create(const Options& options);
  // A client of a multi-process group: options "node_id" and "num_nodes" (this
  // process and the group's size), "collectives_hostname" (an address of this host
  // its peers reach, default 127.0.0.1), "collectives_timeout_ms" (default 300000).
  // Devices are those of every process (global id node_id * num_devices + i); only
  // this process's are addressable. Collectives cross processes through Gloo, whose
  // peers meet through `kv`.
  static StatusOr<std::unique_ptr<CpuClient>> CreateDistributed(const Options& options,
                                                                KeyValueStore kv);
  ~CpuClient() override;

  const std::string& platform_name() const override { return platform_name_; }
  const std::string& platform_version() const override { return platform_version_; }
  const std::vector<Device*>& devices() const override { return devices_; }
  const std::vector<Device*>& addressable_devices() const override {
    return addressable_devices_;
  }
  int process_index() const override { return process_index_; }
  StatusOr<std::unique_ptr<Executable>> Compile(std::unique_ptr<HloModule> module,
                                                const Options& options,
                                                const std::vector<Device*>& devices) override;
  // Loads what CpuExecutable::Serialize wrote (serialized_executable.h).
  StatusOr<std::unique_ptr<Executable>> DeserializeAndLoad(
      const std::string& serialized, const std::vector<Device*>& devices) override;
  StatusOr<std::unique_ptr<Buffer>> BufferFromHost(const void* data, PrimitiveType type,
                                                   const std::vector<int64_t>& dims,
                                                   const std::vector<int64_t>& byte_strides,
                                                   Device* device) override;
  StatusOr<std::unique_ptr<Buffer>> BufferFromHostZeroCopy(std::shared_ptr<const void> data,
                                                           PrimitiveType type,
                                                           const std::vector<int64_t>& dims,
                                                           Device* device) override;

 private:
  CpuClient(std::vector<std::unique_ptr<CpuDevice>> devices, std::string dump_llvm_ir_dir);
  CpuDevice* FindDevice(const Device* device) const;
  // `devices`, or the first num_replicas devices when it is empty, checked.
  StatusOr<std::vector<Device*>> ExecutionDevices(int64_t num_replicas,
                                                  const std::vector<Device*>& devices) const;
  // Compiles (or links prebuilt objects for) an optimised module.
  StatusOr<std::unique_ptr<Executable>> Load(const HloModule& module, const CompileOptions& options,
                                             std::vector<Device*> targets, int64_t num_replicas);

  std::string platform_name_ = "cpu";
  std::string platform_version_;
  std::vector<std::unique_ptr<CpuDevice>> owned_devices_;
  std::vector<Device*> devices_;
  std::vector<Device*> addressable_devices_;
  int process_index_ = 0;
  std::unique_ptr<CrossProcessGroup> cross_process_;  // null in a single-process client
  std::string dump_llvm_ir_dir_;
  ThreadPool* pool_;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_CPU_CLIENT_H_
