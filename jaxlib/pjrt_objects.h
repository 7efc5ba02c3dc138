// C++ handles over the C API objects, shared by the binding units.
// Each owns its C object and destroys it through the plugin's table.
#ifndef JAXLIB_PJRT_OBJECTS_H_
#define JAXLIB_PJRT_OBJECTS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "jaxlib/c_api_loader.h"
#include "jaxlib/pjrt_topology.h"
#include "xla/pjrt/c/pjrt_c_api.h"

namespace jax {

class PyBuffer;
class PyClient;
class PyLoadedExecutable;

struct PyMemory {
  PJRT_Memory* memory;
  int id;
  std::string kind;
};

class PyDevice {
 public:
  PyDevice(PyClient* client, PJRT_Device* device);
  // A device of a compile-only client: described by a topology, not present
  // (c_device() is null; it has no memories and runs nothing).
  PyDevice(PyClient* client, const DeviceDescriptionInfo& description);
  bool is_addressable = true;  // false: a device of another process
  PJRT_Device* c_device() const { return device_; }
  std::shared_ptr<PyClient> client() const;
  int id;
  int process_index;
  int local_hardware_id;
  std::string kind;
  std::string debug_string;  // what str(device) prints
  std::string to_string;     // what repr(device) prints
  std::string platform;
  // Plugin-defined facts (PJRT_DeviceDescription_Attributes), e.g. TPU coords.
  std::map<std::string, AttributeValue> attributes;
  std::vector<std::shared_ptr<PyMemory>> memories;
  std::shared_ptr<PyMemory> default_memory;

  struct MemoryStats {
    int64_t bytes_in_use;
    int64_t peak_bytes_in_use;
    int64_t num_allocs;
  };
  MemoryStats GetMemoryStats() const;

 private:
  PyClient* client_;  // the client owns its devices and outlives them
  PJRT_Device* device_;
};

class PyClient : public std::enable_shared_from_this<PyClient> {
 public:
  // Creates a client of `plugin` with the given create options.
  // The key-value store of a multi-process group, as C API kv callbacks; `keep_alive`
  // holds what user_arg points to for the client's life.
  struct KvCallbacks {
    PJRT_KeyValueGetCallback get = nullptr;
    PJRT_KeyValuePutCallback put = nullptr;
    void* user_arg = nullptr;
    std::shared_ptr<void> keep_alive;
  };
  // `kv` (may be null) is passed to the plugin: a client of a multi-process group.
  static std::shared_ptr<PyClient> Create(std::shared_ptr<Plugin> plugin,
                                          const std::vector<PJRT_NamedValue>& options,
                                          const KvCallbacks* kv = nullptr);
  // A compile-only client over `topology`: its devices are the topology's, it
  // compiles with PJRT_Compile (no PJRT_Client), and it refuses transfers,
  // loading serialized executables and running.
  static std::shared_ptr<PyClient> CreateCompileOnly(std::shared_ptr<PjrtTopology> topology);
  ~PyClient();
  const PJRT_Api* api() const { return plugin_->api; }
  PJRT_Client* c_client() const { return client_; }
  // Non-null for a compile-only client.
  const std::shared_ptr<PjrtTopology>& topology() const { return topology_; }
  const std::shared_ptr<Plugin>& plugin() const { return plugin_; }
  const std::string& platform() const { return platform_; }
  const std::string& platform_version() const { return platform_version_; }
  int process_index() const { return process_index_; }
  // Devices handed out share ownership of the client, which owns them: a Python
  // Device keeps its client alive.
  std::vector<std::shared_ptr<PyDevice>> devices() const;
  // This process's devices (all of devices() unless the client spans processes).
  std::vector<std::shared_ptr<PyDevice>> addressable_devices() const;
  std::shared_ptr<PyDevice> LookupDevice(PJRT_Device* device) const;
  bool Owns(PJRT_Device* device) const;
  // Throws INVALID_ARGUMENT naming `what` unless `device` (null: none) is this
  // client's.
  void CheckOwns(PJRT_Device* device, const char* what) const;

  // A buffer on `device` (null: the default device) holding `data`: dense
  // row-major elements of `type` with shape `dims`. Copied during the call,
  // unless `done_with_host_buffer` is given: then the plugin may read `data` in
  // place, and `done_with_host_buffer(done_user_data)` runs exactly once when
  // it no longer does (also when the call fails).
  std::shared_ptr<PyBuffer> BufferFromHostBuffer(const void* data, PJRT_Buffer_Type type,
                                                 const int64_t* dims, size_t num_dims,
                                                 PJRT_Device* device,
                                                 void (*done_with_host_buffer)(void*) = nullptr,
                                                 void* done_user_data = nullptr);
  // Compiles a program in PJRT's format (a serialized HloModuleProto) with
  // serialized CompileOptionsProto `options`, for `devices` (replica order).
  std::shared_ptr<PyLoadedExecutable> Compile(const std::string& hlo_module_proto,
                                              const std::string& options,
                                              std::vector<std::shared_ptr<PyDevice>> devices);
  std::shared_ptr<PyLoadedExecutable> DeserializeAndLoad(
      const char* serialized, size_t size, const std::string& options,
      std::vector<std::shared_ptr<PyDevice>> devices);

  // Every PyBuffer of this client registers itself while it exists, so that
  // live_arrays() can list them.
  void AddLiveBuffer(PyBuffer* buffer);
  void RemoveLiveBuffer(PyBuffer* buffer);
  // Calls `fn` on each registered buffer with the registry locked, so none of
  // them can finish being destroyed meanwhile.
  template <typename F>
  void ForEachLiveBuffer(F&& fn) const {
    std::lock_guard<std::mutex> lock(live_mu_);
    for (PyBuffer* b : live_buffers_) fn(b);
  }

 private:
  PyClient() = default;
  mutable std::mutex live_mu_;
  std::unordered_set<PyBuffer*> live_buffers_;
  std::shared_ptr<Plugin> plugin_;
  PJRT_Client* client_ = nullptr;
  std::shared_ptr<PjrtTopology> topology_;
  std::string platform_;
  std::string platform_version_;
  int process_index_ = 0;
  std::vector<std::shared_ptr<PyDevice>> devices_;
  // Held for the client's life: the plugin may call into it (PJRT kv callbacks).
  std::shared_ptr<void> kv_store_;
};

class PyBuffer {
 public:
  PyBuffer(std::shared_ptr<PyClient> client, PJRT_Buffer* buffer);
  ~PyBuffer();
  PJRT_Buffer* c_buffer() const { return buffer_; }
  const std::shared_ptr<PyClient>& client() const { return client_; }
  PJRT_Buffer_Type type() const { return type_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  size_t size_in_bytes() const { return size_; }
  std::shared_ptr<PyDevice> device() const { return device_; }
  bool is_deleted() const;
  void Delete();
  void BlockUntilReady() const;
  // Copies the contents into `dst` (size_in_bytes() bytes, dense row-major).
  void CopyToHost(void* dst) const;
  uintptr_t UnsafePointer() const;
  // Pins the memory for an in-place view (C API 1.2 external references).
  // False when the plugin cannot (older C API, or memory that is not host
  // memory); throws if the buffer has been deleted.
  bool TryAcquireExternalReference();
  void ReleaseExternalReference();


 private:
  std::shared_ptr<PyClient> client_;
  PJRT_Buffer* buffer_;
  PJRT_Buffer_Type type_;
  std::vector<int64_t> dims_;
  size_t size_;
  std::shared_ptr<PyDevice> device_;
};

class PyLoadedExecutable {
 public:
  // `devices`: every device the program runs on, in replica order (those of
  // other processes included).
  PyLoadedExecutable(std::shared_ptr<PyClient> client, PJRT_LoadedExecutable* executable,
                     std::vector<std::shared_ptr<PyDevice>> devices);
  // A program compiled for a compile-only client's topology (owned): it has
  // everything but the ability to run.
  PyLoadedExecutable(std::shared_ptr<PyClient> client, PJRT_Executable* compiled,
                     std::vector<std::shared_ptr<PyDevice>> devices);
  ~PyLoadedExecutable();
  const std::shared_ptr<PyClient>& client() const { return client_; }
  const std::vector<std::shared_ptr<PyDevice>>& devices() const { return devices_; }
  size_t num_outputs() const { return num_outputs_; }
  size_t num_replicas() const { return num_replicas_; }
  bool is_compile_only() const { return executable_ == nullptr; }
  int64_t SizeOfGeneratedCodeInBytes() const;
  // The optimized program as a serialized HloModuleProto (fetched once).
  const std::string& optimized_program() const;
  struct MemoryStats {
    int64_t generated_code_size, temp_size, argument_size, output_size, alias_size;
  };
  MemoryStats GetMemoryStats() const;
  // args[d][i] -> outputs[d][o]
  std::vector<std::vector<std::shared_ptr<PyBuffer>>> Execute(
      const std::vector<std::vector<PyBuffer*>>& args, const std::vector<int64_t>& donated);
  std::string Serialize() const;

 private:
  std::shared_ptr<PyClient> client_;
  PJRT_LoadedExecutable* executable_;
  PJRT_Executable* compiled_;  // the program behind executable_, owned
  std::vector<std::shared_ptr<PyDevice>> devices_;
  std::vector<PJRT_Device*> addressable_devices_;  // execution order
  size_t num_outputs_ = 0;
  size_t num_replicas_ = 1;
  // Not a std::once_flag: an exception thrown inside std::call_once aborts the
  // process with libstdc++ on glibc, and decoding a plugin's program may throw.
  mutable std::mutex optimized_mu_;
  mutable bool optimized_done_ = false;
  mutable std::string optimized_program_;
};

}  // namespace jax

#endif  // JAXLIB_PJRT_OBJECTS_H_
