// The C++ interface every backend implements. c/c_api_wrapper.cc turns an
// implementation of it into the C API table, so a backend is plain C++.
//
// A backend supplies three things: a compiler (HLO module -> Executable), buffers
// (allocate, copy in, copy out) and an executable (launch). Objects are owned
// by the C API wrapper through unique_ptr; devices and memories are owned by
// their client and live as long as it.
#ifndef XLA_PJRT_CLIENT_H_
#define XLA_PJRT_CLIENT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <functional>
#include <variant>
#include <vector>

#include "xla/hlo/ir/module.h"
#include "xla/hlo/ir/primitive_type.h"
#include "xla/status.h"

namespace xla {

// A named option value (from PJRT_NamedValue lists).
using OptionValue = std::variant<std::string, int64_t, std::vector<int64_t>, float, bool>;
using Options = std::map<std::string, OptionValue>;

class Client;

class Memory {
 public:
  virtual ~Memory() = default;
  virtual int id() const = 0;
  virtual const std::string& kind() const = 0;  // "device", "pinned_host", ...
};

class Device {
 public:
  virtual ~Device() = default;
  virtual int id() const = 0;                 // global id
  virtual int process_index() const = 0;
  virtual int local_hardware_id() const = 0;
  virtual const std::string& kind() const = 0;          // "cpu"
  virtual const std::string& debug_string() const = 0;  // "cpu:0", as str(device) prints it
  virtual bool is_addressable() const { return true; }
  virtual std::vector<Memory*> memories() const = 0;
  virtual Memory* default_memory() const = 0;
  struct MemoryStats {
    int64_t bytes_in_use = 0;
    int64_t peak_bytes_in_use = 0;
    int64_t num_allocs = 0;
  };
  virtual MemoryStats memory_stats() const { return {}; }
};

// A dense, row-major array on one device.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual PrimitiveType element_type() const = 0;
  virtual const std::vector<int64_t>& dimensions() const = 0;
  virtual Device* device() const = 0;
  virtual size_t size_in_bytes() const = 0;
  // Copies the contents to `dst` (dense row-major, `size_in_bytes()` bytes).
  virtual Status ToHost(void* dst) = 0;
  // Frees the device memory. Later reads fail with FAILED_PRECONDITION.
  virtual void Delete() = 0;
  virtual bool is_deleted() const = 0;
  // Blocks until the producer of this buffer has finished; returns its error.
  virtual Status Await() { return OkStatus(); }
  virtual bool IsReady() const { return true; }
  // Host address of the data when it lives in host memory, else 0.
  virtual uintptr_t UnsafePointer() const { return 0; }
  // External references (C API 1.2): while one is held, the memory stays valid
  // at UnsafePointer() even after Delete(), and no execution aliases it.
  virtual Status AcquireExternalReference() {
    return Unimplemented("this backend's buffers cannot be viewed in place");
  }
  virtual Status ReleaseExternalReference() {
    return Unimplemented("this backend's buffers cannot be viewed in place");
  }
};

class Executable {
 public:
  virtual ~Executable() = default;
  virtual const std::vector<Device*>& devices() const = 0;
  virtual size_t num_outputs() const = 0;
  virtual size_t num_replicas() const { return 1; }
  virtual std::string name() const { return "module"; }
  virtual std::string optimized_hlo() const = 0;
  // The parameters the module lets a caller donate (its input_output_alias
  // and buffer_donor entries), ascending.
  virtual std::vector<int64_t> donor_parameters() const { return {}; }
  struct MemoryStats {
    int64_t generated_code_size = 0;
    int64_t temp_size = 0;
    int64_t argument_size = 0;
    int64_t output_size = 0;
    int64_t alias_size = 0;
  };
  virtual MemoryStats memory_stats() const { return {}; }
  // args[d][i]: argument i on device d; returns outputs[d][o].
  // Buffers listed in `donated` (argument indices) may be consumed.
  virtual StatusOr<std::vector<std::vector<std::unique_ptr<Buffer>>>> Execute(
      const std::vector<std::vector<Buffer*>>& args,
      const std::vector<int64_t>& donated) = 0;
  virtual StatusOr<std::string> Serialize() const {
    return Unimplemented("this backend cannot serialize executables");
  }
};

class Client {
 public:
  virtual ~Client() = default;
  virtual const std::string& platform_name() const = 0;     // "cpu"
  virtual const std::string& platform_version() const = 0;
  virtual int process_index() const { return 0; }
  virtual const std::vector<Device*>& devices() const = 0;
  virtual const std::vector<Device*>& addressable_devices() const { return devices(); }
  // `devices` in replica order (may be empty: the first device, or the first
  // num_replicas devices).
  virtual StatusOr<std::unique_ptr<Executable>> Compile(
      std::unique_ptr<HloModule> module, const Options& options,
      const std::vector<Device*>& devices) = 0;
  // Parses and verifies HLO text, then compiles it (for C++ callers and tests;
  // programs reach a plugin through the C API as HloModuleProtos).
  StatusOr<std::unique_ptr<Executable>> CompileText(const std::string& hlo_text,
                                                    const Options& options,
                                                    const std::vector<Device*>& devices);
  virtual StatusOr<std::unique_ptr<Executable>> DeserializeAndLoad(
      const std::string& serialized, const std::vector<Device*>& devices) {
    return Unimplemented("this backend cannot load serialized executables");
  }
  // Copies `data` (dense row-major unless byte_strides is non-empty).
  virtual StatusOr<std::unique_ptr<Buffer>> BufferFromHost(
      const void* data, PrimitiveType type, const std::vector<int64_t>& dims,
      const std::vector<int64_t>& byte_strides, Device* device) = 0;
  // Zero-copy (C API 1.3): `data` (dense row-major) may become the buffer's
  // memory, read but never written; dropping the last copy of `data` tells
  // the caller the backend is done with it. Backends that cannot use host
  // memory in place copy it, which is what this default does.
  virtual StatusOr<std::unique_ptr<Buffer>> BufferFromHostZeroCopy(
      std::shared_ptr<const void> data, PrimitiveType type, const std::vector<int64_t>& dims,
      Device* device) {
    return BufferFromHost(data.get(), type, dims, {}, device);
  }
};

// The key-value store of a multi-process group, as the C API's client creation lends
// it (PJRT_Client_Create_Args' kv callbacks); valid while the client lives.
struct KeyValueStore {
  // Blocks until `key` is set or `timeout_ms` passes.
  std::function<StatusOr<std::string>(const std::string& key, int64_t timeout_ms)> get;
  std::function<Status(const std::string& key, const std::string& value)> put;
};

// What a plugin provides to the C API wrapper (c/c_api_wrapper.h).
struct PluginInfo {
  std::string platform_names;  // comma separated, e.g. "cpu" or "cuda,gpu"
  std::string plugin_version;  // the release version, e.g. "1!0.1.0"
  // Creates a client; errors say plainly what is missing (driver, device).
  StatusOr<std::unique_ptr<Client>> (*create_client)(const Options& options);
  // Creates a client of a multi-process group (null: the plugin has none).
  StatusOr<std::unique_ptr<Client>> (*create_distributed_client)(const Options& options,
                                                                  KeyValueStore kv) = nullptr;
};

}  // namespace xla

#endif  // XLA_PJRT_CLIENT_H_
