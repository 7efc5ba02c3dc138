// CpuExecutable: runs a compiled Program. Per run it allocates one arena for
// temporaries and a fresh buffer per output, fills the slot table, then runs
// the steps in order; large kernels are split over the thread pool.
#ifndef XLA_BACKENDS_CPU_RUNTIME_CPU_EXECUTABLE_H_
#define XLA_BACKENDS_CPU_RUNTIME_CPU_EXECUTABLE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "xla/backends/cpu/runtime/program.h"
#include "xla/backends/cpu/runtime/thread_pool.h"
#include "xla/pjrt/client.h"

namespace xla::cpu {

class CrossProcessGroup;
struct CrossProcessPlan;

class CpuExecutable final : public Executable {
 public:
  // `code` keeps the kernels of `program` alive (the JIT that compiled them).
  // With num_replicas > 1, Execute runs one replica per device concurrently
  // (one thread each) and their collectives meet in a shared context.
  CpuExecutable(std::string name, Program program, std::shared_ptr<void> code,
                int64_t code_size, std::vector<Device*> devices, std::string hlo_text,
                ThreadPool* pool, int64_t num_replicas = 1);

  const std::vector<Device*>& devices() const override { return devices_; }
  size_t num_outputs() const override { return program_.outputs.size(); }
  size_t num_replicas() const override { return static_cast<size_t>(num_replicas_); }
  std::string name() const override { return name_; }
  std::string optimized_hlo() const override { return hlo_text_; }
  std::vector<int64_t> donor_parameters() const override;
  MemoryStats memory_stats() const override;
  StatusOr<std::vector<std::vector<std::unique_ptr<Buffer>>>> Execute(
      const std::vector<std::vector<Buffer*>>& args,
      const std::vector<int64_t>& donated) override;

  const Program& program() const { return program_; }

  // Set by a multi-process client: runs over devices of several processes go
  // through it (only the addressable devices run here).
  void set_cross_process(CrossProcessGroup* group) { cross_process_ = group; }

  // Serialize() returns what `serializer` returns; without one it is UNIMPLEMENTED.
  void set_serializer(std::function<StatusOr<std::string>()> serializer) {
    serializer_ = std::move(serializer);
  }
  StatusOr<std::string> Serialize() const override;

  // The donors the module declares, as (parameter, output) pairs: an
  // input_output_alias entry names its output, a buffer_donor has output -1
  // (any output of the same size). A donated argument named here is consumed
  // by the run (its buffer deleted) whether or not an output could take over
  // its memory, as in XLA; other donated arguments are consumed only when an
  // output reuses their memory.
  void set_declared_aliases(std::vector<std::pair<int64_t, int64_t>> aliases) {
    declared_aliases_ = std::move(aliases);
  }

 private:
  // The output that takes over donated parameter `param`'s memory, or -1;
  // `declared_output` >= 0 restricts the choice to that output.
  int64_t DonationTarget(int64_t param, int64_t declared_output,
                         const std::vector<bool>& taken) const;

  // How this run's replicas spread over processes (devices_ spans several).
  StatusOr<std::unique_ptr<CrossProcessPlan>> MakeCrossProcessPlan() const;

  StatusOr<std::vector<std::unique_ptr<Buffer>>> ExecuteOnDevice(
      const std::vector<Buffer*>& args, const std::vector<int64_t>& donated, Device* device,
      const ExecutionContext& context);

  std::string name_;
  Program program_;
  std::shared_ptr<void> code_;
  int64_t code_size_;
  std::vector<Device*> devices_;
  std::string hlo_text_;
  ThreadPool* pool_;
  int64_t num_replicas_;
  CrossProcessGroup* cross_process_ = nullptr;
  std::function<StatusOr<std::string>()> serializer_;
  std::vector<std::pair<int64_t, int64_t>> declared_aliases_;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_CPU_EXECUTABLE_H_
