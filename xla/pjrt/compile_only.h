// Pieces shared by the compile-only clients (the GPU plugins' mock=True
// clients): mock devices that can be compiled for but
// hold no memory, and the choice of devices a Compile call targets.
#ifndef XLA_PJRT_COMPILE_ONLY_H_
#define XLA_PJRT_COMPILE_ONLY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xla/pjrt/client.h"

namespace xla::compile_only {

// The most devices a mock topology may have.
constexpr int64_t kMaxDevices = 4096;

// One mock device with a single "device" memory.
class MockDevice final : public Device {
 public:
  // kind: e.g. "NVIDIA H100 (compile-only)"; debug_string: e.g. "cuda:0".
  MockDevice(int id, std::string kind, std::string debug_string);
  int id() const override { return id_; }
  int process_index() const override { return 0; }
  int local_hardware_id() const override { return id_; }
  const std::string& kind() const override { return kind_; }
  const std::string& debug_string() const override { return debug_string_; }
  std::vector<Memory*> memories() const override;
  Memory* default_memory() const override;

 private:
  class MockMemory final : public Memory {
   public:
    explicit MockMemory(int id) : id_(id) {}
    int id() const override { return id_; }
    const std::string& kind() const override { return kind_; }

   private:
    int id_;
    std::string kind_ = "device";
  };
  int id_;
  std::string kind_, debug_string_;
  mutable MockMemory memory_;
};

// `count` devices of one kind, named "<platform>:<id>"; owns them.
class MockDevices {
 public:
  MockDevices(int64_t count, const std::string& platform, const std::string& kind);
  const std::vector<Device*>& devices() const { return devices_; }

 private:
  std::vector<std::unique_ptr<MockDevice>> owned_;
  std::vector<Device*> devices_;
};

// The devices a Compile call targets: `requested` when given (each must be
// one of `all`), else the first num_replicas (compile option, default 1).
StatusOr<std::vector<Device*>> CompileTargets(const Options& options,
                                              const std::vector<Device*>& requested,
                                              const std::vector<Device*>& all,
                                              const std::string& platform);

// The folder of --xla_dump_to=<dir> in an XLA_FLAGS value ("" if absent).
std::string DumpDirFromXlaFlags(const std::string& xla_flags);

}  // namespace xla::compile_only

#endif  // XLA_PJRT_COMPILE_ONLY_H_
