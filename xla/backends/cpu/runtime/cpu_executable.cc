#include "xla/backends/cpu/runtime/cpu_executable.h"

#include <algorithm>
#include <thread>

#include "xla/backends/cpu/collectives/cross_process_group.h"
#include "xla/backends/cpu/runtime/collectives.h"
#include "xla/backends/cpu/runtime/cpu_buffer.h"
#include "xla/backends/cpu/runtime/flush_denormals.h"
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
                             std::string hlo_text, ThreadPool* pool, int64_t num_replicas)
    : name_(std::move(name)), program_(std::move(program)), code_(std::move(code)),
      code_size_(code_size), devices_(std::move(devices)), hlo_text_(std::move(hlo_text)),
      pool_(pool), num_replicas_(num_replicas) {}

StatusOr<std::string> CpuExecutable::Serialize() const {
  if (!serializer_) return Unimplemented(name_ + ": this executable cannot be serialized");
  return serializer_();
}

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
    const std::vector<Buffer*>& args, const std::vector<int64_t>& donated, Device* device,
    const ExecutionContext& context) {
  ScopedFlushDenormals flush;
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

  // Donation: an output the program may alias with a donated parameter
  // (Program::may_alias) takes over that argument's memory. Arguments passed
  // twice are not donated; memory also held elsewhere (a running call, a
  // numpy view) or borrowed from the caller (zero-copy) is never written over,
  // though a declared donor is still consumed.
  std::vector<std::shared_ptr<AlignedMemory>> reused(program_.outputs.size());
  std::vector<bool> taken(program_.outputs.size(), false);
  for (int64_t d : donated) {
    if (d < 0 || d >= static_cast<int64_t>(args.size())) continue;
    const auto& memory = arg_memory[d];
    bool shared = false;
    for (size_t j = 0; j < args.size(); ++j) {
      if (static_cast<int64_t>(j) != d && arg_memory[j] == memory) shared = true;
    }
    if (shared) continue;
    bool declared = false;
    int64_t declared_output = -1;
    for (const auto& [param, out] : declared_aliases_) {
      if (param == d) declared = true, declared_output = out;
    }
    const int64_t target = DonationTarget(d, declared_output, taken);
    const bool held_elsewhere = memory.use_count() > 2 || memory->borrowed();
    if (target >= 0 && !held_elsewhere) {
      reused[target] = memory;
      taken[target] = true;
    }
    if ((target >= 0 && !held_elsewhere) || declared) args[d]->Delete();
  }
  std::vector<std::unique_ptr<Buffer>> outputs;
  std::vector<void*> output_data;
  for (size_t o = 0; o < program_.outputs.size(); ++o) {
    const ArrayShape& shape = program_.outputs[o];
    std::unique_ptr<CpuBuffer> out;
    if (reused[o]) {
      out = CpuBuffer::CreateFromMemory(shape.type, shape.dims, cpu_device, reused[o]);
    } else {
      ASSIGN_OR_RETURN(out, CpuBuffer::Create(shape.type, shape.dims, cpu_device));
    }
    output_data.push_back(out->data());
    outputs.push_back(std::move(out));
  }
  std::vector<void*> params;
  for (const auto& m : arg_memory) params.push_back(m->data());
  RETURN_IF_ERROR(RunProgram(program_, params, output_data, *pool_, context).WithContext(name_));
  return outputs;
}

int64_t CpuExecutable::DonationTarget(int64_t param, int64_t declared_output,
                                      const std::vector<bool>& taken) const {
  for (const auto& [p, out] : program_.may_alias) {
    if (p != param || taken[out]) continue;
    if (declared_output >= 0 && out != declared_output) continue;
    if (program_.outputs[out].byte_size() != program_.parameters[param].byte_size()) continue;
    return out;
  }
  return -1;
}

StatusOr<std::vector<std::vector<std::unique_ptr<Buffer>>>> CpuExecutable::Execute(
    const std::vector<std::vector<Buffer*>>& args, const std::vector<int64_t>& donated) {
  if (args.size() > devices_.size()) {
    return InvalidArgument(name_ + ": arguments given for " + std::to_string(args.size()) +
                           " devices but the executable was compiled for " +
                           std::to_string(devices_.size()));
  }
  std::vector<std::vector<std::unique_ptr<Buffer>>> results;
  // The replica ids this process runs, in argument order: all of them, unless the
  // devices span processes.
  std::vector<int64_t> replica_of;
  for (size_t r = 0; r < devices_.size(); ++r) {
    if (devices_[r]->is_addressable()) replica_of.push_back(static_cast<int64_t>(r));
  }
  const bool spans_processes = replica_of.size() != devices_.size();
  if (!spans_processes) {
    replica_of.resize(args.size());
    for (size_t d = 0; d < args.size(); ++d) replica_of[d] = static_cast<int64_t>(d);
  }
  auto device_of = [&](size_t d) {
    Device* device = devices_[replica_of[d]];
    if (!args[d].empty() && args[d][0] != nullptr) device = args[d][0]->device();
    return device;
  };
  std::unique_ptr<CrossProcessPlan> plan;
  if (spans_processes) {
    if (args.size() != replica_of.size()) {
      return InvalidArgument(name_ + ": this process runs " + std::to_string(replica_of.size()) +
                             " of its devices but was given arguments for " +
                             std::to_string(args.size()));
    }
    ASSIGN_OR_RETURN(plan, MakeCrossProcessPlan());
  }
  if (num_replicas_ > 1) {
    const size_t expected = spans_processes ? replica_of.size() : num_replicas_;
    if (args.size() != expected) {
      return InvalidArgument(name_ + ": compiled for " + std::to_string(num_replicas_) +
                             " replicas but given arguments for " + std::to_string(args.size()));
    }
    // One thread per replica: collectives block until the whole group
    // arrives, so replicas cannot run one after another.
    CollectiveContext collectives(num_replicas_, plan.get());
    std::vector<StatusOr<std::vector<std::unique_ptr<Buffer>>>> outs;
    for (size_t d = 0; d < args.size(); ++d) outs.emplace_back(Internal("replica did not run"));
    std::vector<std::thread> threads;
    for (size_t d = 0; d < args.size(); ++d) {
      threads.emplace_back([&, d] {
        ExecutionContext context;
        context.replica_id = replica_of[d];
        context.num_replicas = num_replicas_;
        context.collectives = &collectives;
        outs[d] = ExecuteOnDevice(args[d], donated, device_of(d), context);
        if (!outs[d].ok()) collectives.Abort(outs[d].status().message());
      });
    }
    for (std::thread& t : threads) t.join();
    // Report the replica that failed first, not one woken by its abort.
    for (auto& o : outs) {
      if (!o.ok() && o.status().message().find("collective aborted") == std::string::npos) {
        return o.status();
      }
    }
    for (auto& o : outs) {
      if (!o.ok()) return o.status();
      results.push_back(std::move(o).value());
    }
    return results;
  }
  for (size_t d = 0; d < args.size(); ++d) {
    ExecutionContext context;
    context.replica_id = static_cast<int64_t>(d);
    auto outs = ExecuteOnDevice(args[d], donated, device_of(d), context);
    if (!outs.ok()) return outs.status();
    results.push_back(std::move(outs).value());
  }
  return results;
}

StatusOr<std::unique_ptr<CrossProcessPlan>> CpuExecutable::MakeCrossProcessPlan() const {
  if (cross_process_ == nullptr) {
    return FailedPrecondition(name_ + ": its devices span processes, but the client has no "
                              "cross-process collectives");
  }
  auto plan = std::make_unique<CrossProcessPlan>();
  plan->num_processes = cross_process_->num_nodes();
  plan->self = cross_process_->node_id();
  std::vector<int64_t> count(plan->num_processes, 0);
  for (Device* d : devices_) {
    const int64_t p = d->process_index();
    if (p < 0 || p >= plan->num_processes) {
      return Internal(name_ + ": device of unknown process " + std::to_string(p));
    }
    plan->process_of.push_back(p);
    plan->slot_of.push_back(count[p]++);
  }
  for (int64_t c : count) {
    if (c != count[0]) {
      return InvalidArgument(name_ + ": a program over several processes must use as many "
                             "devices of each process; it uses " + std::to_string(count[0]) +
                             " of process 0 and " + std::to_string(c) + " of another");
    }
  }
  plan->replicas_per_process = count[0];
  CrossProcessGroup* group = cross_process_;
  plan->all_gather = [group](const void* in, size_t bytes, void* out) {
    return group->AllGather(in, bytes, out);
  };
  plan->all_to_all = [group](const void* in, const std::vector<size_t>& send, void* out,
                             const std::vector<size_t>& recv) {
    return group->AllToAll(in, send, out, recv);
  };
  return plan;
}

std::vector<int64_t> CpuExecutable::donor_parameters() const {
  std::vector<int64_t> params;
  for (const auto& [param, output] : declared_aliases_) params.push_back(param);
  std::sort(params.begin(), params.end());
  params.erase(std::unique(params.begin(), params.end()), params.end());
  return params;
}

}  // namespace xla::cpu
