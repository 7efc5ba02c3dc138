#include "xla/backends/cpu/runtime/cpu_executable.h"

#include <algorithm>
#include <cstring>

#include "xla/backends/cpu/runtime/cpu_buffer.h"
#include "xla/backends/cpu/runtime/dot.h"

namespace xla::cpu {
namespace {

std::string ShapeString(PrimitiveType type, const std::vector<int64_t>& dims) {
  std::string s(PrimitiveTypeName(type));
  s += "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// Below this many element operations a kernel runs on the calling thread:
// waking workers costs a few microseconds.
constexpr int64_t kMinParallelCost = 1 << 15;

}  // namespace

CpuExecutable::CpuExecutable(std::string name, Program program, std::shared_ptr<void> code,
                             int64_t code_size, std::vector<Device*> devices,
                             std::string hlo_text, ThreadPool* pool)
    : name_(std::move(name)), program_(std::move(program)), code_(std::move(code)),
      code_size_(code_size), devices_(std::move(devices)), hlo_text_(std::move(hlo_text)),
      pool_(pool) {}

Executable::MemoryStats CpuExecutable::memory_stats() const {
  MemoryStats stats;
  stats.generated_code_size = code_size_;
  stats.temp_size = program_.temp_bytes;
  for (const ArrayShape& p : program_.parameters) stats.argument_size += p.byte_size();
  for (const ArrayShape& o : program_.outputs) stats.output_size += o.byte_size();
  return stats;
}

void CpuExecutable::RunKernel(const Step& step, void* const* buffers) {
  const int64_t items = step.work_items;
  const int64_t total_cost = items * std::max<int64_t>(1, step.cost_per_item);
  if (items <= 1 || total_cost < kMinParallelCost || pool_->num_threads() == 1) {
    step.kernel(buffers, 0, items);
    return;
  }
  int64_t tasks = std::min<int64_t>({items, total_cost / kMinParallelCost,
                                     4 * static_cast<int64_t>(pool_->num_threads())});
  tasks = std::max<int64_t>(tasks, 1);
  const int64_t per_task = (items + tasks - 1) / tasks;
  pool_->ParallelFor(tasks, [&](int64_t t) {
    int64_t begin = t * per_task, end = std::min(items, begin + per_task);
    if (begin < end) step.kernel(buffers, begin, end);
  });
}

StatusOr<std::vector<std::unique_ptr<Buffer>>> CpuExecutable::ExecuteOnDevice(
    const std::vector<Buffer*>& args, Device* device) {
  if (args.size() != program_.parameters.size()) {
    return InvalidArgument(name_ + ": expected " + std::to_string(program_.parameters.size()) +
                           " arguments, got " + std::to_string(args.size()));
  }
  // Hold the argument memory for the duration of the run.
  std::vector<std::shared_ptr<AlignedMemory>> arg_memory(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const ArrayShape& want = program_.parameters[i];
    Buffer* arg = args[i];
    if (arg == nullptr) return InvalidArgument(name_ + ": argument " + std::to_string(i) + " is null");
    if (arg->element_type() != want.type || arg->dimensions() != want.dims) {
      return InvalidArgument(name_ + ": argument " + std::to_string(i) + " has shape " +
                             ShapeString(arg->element_type(), arg->dimensions()) +
                             " but the computation expects " + ShapeString(want.type, want.dims));
    }
    // Every buffer handed to a CPU executable was made by this backend; the
    // C API wrapper guarantees the client matches.
    arg_memory[i] = static_cast<CpuBuffer*>(arg)->memory();
    if (!arg_memory[i]) {
      return FailedPrecondition(name_ + ": argument " + std::to_string(i) +
                                " has been deleted or donated");
    }
  }
  CpuDevice* cpu_device = static_cast<CpuDevice*>(device);

  std::vector<std::unique_ptr<Buffer>> outputs;
  std::vector<void*> output_data;
  for (const ArrayShape& shape : program_.outputs) {
    ASSIGN_OR_RETURN(std::unique_ptr<CpuBuffer> out,
                     CpuBuffer::Create(shape.type, shape.dims, cpu_device));
    output_data.push_back(out->data());
    outputs.push_back(std::move(out));
  }
  std::shared_ptr<AlignedMemory> arena;
  if (program_.temp_bytes > 0) {
    ASSIGN_OR_RETURN(arena, AlignedMemory::Allocate(program_.temp_bytes, nullptr));
  }

  std::vector<void*> table(program_.slots.size(), nullptr);
  for (size_t s = 0; s < program_.slots.size(); ++s) {
    const Slot& slot = program_.slots[s];
    switch (slot.kind) {
      case Slot::Kind::kParameter:
        table[s] = arg_memory[slot.index]->data();
        break;
      case Slot::Kind::kConstant:
        table[s] = const_cast<void*>(slot.data);
        break;
      case Slot::Kind::kTemp:
        table[s] = static_cast<char*>(arena->data()) + slot.offset;
        break;
      case Slot::Kind::kOutput:
        table[s] = output_data[slot.index];
        break;
    }
  }

  for (const Step& step : program_.steps) {
    switch (step.kind) {
      case Step::Kind::kKernel:
        RunKernel(step, table.data());
        break;
      case Step::Kind::kDot:
        RunDot(step.dot, table.data(), *pool_);
        break;
      case Step::Kind::kCopy:
        if (step.bytes > 0) std::memcpy(table[step.dst_slot], table[step.src_slot], step.bytes);
        break;
    }
  }
  return outputs;
}

StatusOr<std::vector<std::vector<std::unique_ptr<Buffer>>>> CpuExecutable::Execute(
    const std::vector<std::vector<Buffer*>>& args, const std::vector<int64_t>& donated) {
  // Donation is allowed, not required: outputs always get fresh buffers.
  (void)donated;
  if (args.size() > devices_.size()) {
    return InvalidArgument(name_ + ": arguments given for " + std::to_string(args.size()) +
                           " devices but the executable was compiled for " +
                           std::to_string(devices_.size()));
  }
  std::vector<std::vector<std::unique_ptr<Buffer>>> results;
  for (size_t d = 0; d < args.size(); ++d) {
    Device* device = devices_[d];
    if (!args[d].empty() && args[d][0] != nullptr) device = args[d][0]->device();
    auto outs = ExecuteOnDevice(args[d], device);
    if (!outs.ok()) return outs.status();
    results.push_back(std::move(outs).value());
  }
  return results;
}

}  // namespace xla::cpu
