#include "xla/backends/cpu/runtime/cpu_executable.h"

#include "xla/backends/cpu/runtime/cpu_buffer.h"
#include "xla/backends/cpu/runtime/program_runner.h"

namespace xla::cpu {
namespace {

std::string ShapeString(PrimitiveType type, const std::vector<int64_t>& dims) {
  std::string s(PrimitiveTypeName(type));
  s += "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

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

namespace {
int64_t ElementCount(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}
}  // namespace

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
    // Buffers are dense and row-major, so an argument whose element type and
    // element count match (f32[1] for f32[], say) has exactly the bytes the
    // kernel reads; like XLA, accept it.
    if (arg->element_type() != want.type || ElementCount(arg->dimensions()) != ElementCount(want.dims)) {
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
  std::vector<void*> params;
  for (const auto& m : arg_memory) params.push_back(m->data());
  RETURN_IF_ERROR(RunProgram(program_, params, output_data, *pool_).WithContext(name_));
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
