#include "xla/backends/cpu/cpu_client.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "xla/backends/cpu/codegen/compiler.h"
#include "xla/backends/cpu/collectives/cross_process_group.h"
#include "xla/backends/cpu/runtime/cpu_buffer.h"
#include "xla/backends/cpu/runtime/cpu_device.h"
#include "xla/backends/cpu/runtime/cpu_executable.h"
#include "xla/backends/cpu/runtime/gemm.h"
#include "xla/backends/cpu/runtime/host_memory_pool.h"
#include "xla/backends/cpu/runtime/thread_pool.h"
#include "xla/backends/cpu/serialized_executable.h"
#include "xla/hlo/parser/parser.h"
#include "xla/passes/optimization_pipeline.h"

#ifndef JAX_PLUGIN_VERSION
#define JAX_PLUGIN_VERSION "dev"
#endif

namespace xla {
namespace cpu {
namespace {

constexpr int64_t kMaxDevices = 4096;

std::string DimsString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// Copies an array with arbitrary byte strides into dense row-major `dst`.
void StridedCopy(const char* src, char* dst, const std::vector<int64_t>& dims,
                 const std::vector<int64_t>& strides, int64_t elem, size_t dim) {
  if (dim == dims.size()) {
    std::memcpy(dst, src, elem);
    return;
  }
  int64_t inner = elem;
  for (size_t d = dim + 1; d < dims.size(); ++d) inner *= dims[d];
  if (dim + 1 == dims.size() && strides[dim] == elem) {
    std::memcpy(dst, src, dims[dim] * elem);
    return;
  }
  for (int64_t i = 0; i < dims[dim]; ++i) {
    StridedCopy(src + i * strides[dim], dst + i * inner, dims, strides, elem, dim + 1);
  }
}

}  // namespace

CpuClient::CpuClient(std::vector<std::unique_ptr<CpuDevice>> devices, std::string dump_dir)
    : platform_version_(std::string("cpu (jax plugin ") + JAX_PLUGIN_VERSION + ")"),
      owned_devices_(std::move(devices)), dump_llvm_ir_dir_(std::move(dump_dir)),
      pool_(&ThreadPool::Default()) {
  for (auto& d : owned_devices_) {
    devices_.push_back(d.get());
    if (d->is_addressable()) addressable_devices_.push_back(d.get());
  }
}

CpuClient::~CpuClient() = default;

namespace {

// The library kernels (Eigen dot, convolution, linear algebra) are compiled
// for x86-64-v3 (build/copts.bzl, HOST_KERNEL_COPTS): refuse a CPU without
// it with the reason, rather than fault on the first dot.
// The CPU's kernels compute a fused row reduce once per row, before the
// row's output loop (compiler.cc), so reductions may fuse into the consumers
// that broadcast them back along the row.
// Reductions add in blocks of 32 as XLA:CPU's do (TreeReductionRewriter), so
// float sums round as they do under JAX.
OptimizationOptions CpuOptimizationOptions() {
  OptimizationOptions options;
  options.fusion.fuse_row_reductions = true;
  options.tree_reduction_window = 32;
  options.tree_reduction_max_elements = 4096;
  return options;
}

Status CheckHostCpu() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    return FailedPrecondition(
        "the CPU plugin needs a processor with AVX2 and FMA (x86-64-v3, Intel Haswell or AMD "
        "Excavator and newer); this one lacks them");
  }
#endif
  return OkStatus();
}

// The integer option `name`, or `fallback` when absent; must lie in [lo, hi].
StatusOr<int64_t> IntOption(const Options& options, const std::string& name, int64_t fallback,
                            int64_t lo, int64_t hi) {
  auto it = options.find(name);
  if (it == options.end()) return fallback;
  const int64_t* n = std::get_if<int64_t>(&it->second);
  if (n == nullptr) return InvalidArgument("option " + name + " must be an integer");
  if (*n < lo || *n > hi) {
    return InvalidArgument("option " + name + " must be between " + std::to_string(lo) +
                           " and " + std::to_string(hi) + ", got " + std::to_string(*n));
  }
  return *n;
}

// Array leaves of `shape`, in the order the program flattens its outputs.
int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += LeafCount(s);
  return n;
}

// The flat output leaf at `index` of `shape`, or -1 if it is not an array leaf.
int64_t FlatLeaf(const Shape& shape, const std::vector<int64_t>& index) {
  const Shape* at = &shape;
  int64_t flat = 0;
  for (int64_t i : index) {
    if (!at->IsTuple() || i < 0 || i >= at->tuple_shapes_size()) return -1;
    for (int64_t j = 0; j < i; ++j) flat += LeafCount(at->tuple_shapes(j));
    at = &at->tuple_shapes(i);
  }
  return at->IsTuple() ? -1 : flat;
}

// The module's declared donors as (parameter, flat output) pairs, output -1
// for a buffer_donor; entries about parts of tuple parameters are left out
// (parameters are arrays here).
std::vector<std::pair<int64_t, int64_t>> DeclaredAliases(const HloModule& module) {
  std::vector<std::pair<int64_t, int64_t>> out;
  const Shape& result = module.entry_computation()->root_instruction()->shape();
  for (const InputOutputAlias& a : module.input_output_alias()) {
    const int64_t leaf = FlatLeaf(result, a.output_index);
    if (leaf >= 0 && a.parameter_index.empty()) out.push_back({a.parameter_number, leaf});
  }
  for (const BufferDonor& d : module.buffer_donors()) {
    if (d.parameter_index.empty()) out.push_back({d.parameter_number, -1});
  }
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<CpuClient>> CpuClient::Create(const Options& options) {
  RETURN_IF_ERROR(CheckHostCpu());
  HostGemm();  // picks the GEMM kernels for this CPU once, before any execution
  ASSIGN_OR_RETURN(int64_t num_devices, IntOption(options, "num_devices", 1, 1, kMaxDevices));
  ASSIGN_OR_RETURN(int64_t cache_bytes,
                   IntOption(options, "host_buffer_cache_bytes", kDefaultHostBufferCacheBytes, 0,
                             std::numeric_limits<int64_t>::max()));
  auto pool = std::make_shared<HostMemoryPool>(static_cast<size_t>(cache_bytes));
  std::vector<std::unique_ptr<CpuDevice>> devices;
  for (int64_t i = 0; i < num_devices; ++i) {
    devices.push_back(std::make_unique<CpuDevice>(static_cast<int>(i), pool));
  }
  // The one place the backend reads its environment: JAX_DUMP_LLVM_IR=<dir>
  // writes each module's IR before and after optimisation.
  const char* dump = std::getenv("JAX_DUMP_LLVM_IR");
  return std::unique_ptr<CpuClient>(new CpuClient(std::move(devices), dump ? dump : ""));
}

StatusOr<std::unique_ptr<CpuClient>> CpuClient::CreateDistributed(const Options& options,
                                                                  KeyValueStore kv) {
  ASSIGN_OR_RETURN(int64_t num_nodes, IntOption(options, "num_nodes", 1, 1, kMaxDevices));
  ASSIGN_OR_RETURN(int64_t node_id, IntOption(options, "node_id", 0, 0, num_nodes - 1));
  ASSIGN_OR_RETURN(int64_t timeout_ms, IntOption(options, "collectives_timeout_ms", 300000, 1,
                                                 std::numeric_limits<int64_t>::max()));
  std::string hostname = "127.0.0.1";
  if (auto it = options.find("collectives_hostname"); it != options.end()) {
    const std::string* h = std::get_if<std::string>(&it->second);
    if (h == nullptr || h->empty()) {
      return InvalidArgument("option collectives_hostname must be a non-empty string");
    }
    hostname = *h;
  }
  // This process's devices as one process would have them; then the group's list.
  ASSIGN_OR_RETURN(std::unique_ptr<CpuClient> client, Create(options));
  if (num_nodes == 1) return client;
  const int64_t per_node = static_cast<int64_t>(client->owned_devices_.size());
  if (per_node * num_nodes > kMaxDevices) {
    return InvalidArgument("num_nodes * num_devices exceeds " + std::to_string(kMaxDevices));
  }
  // Every process lists the devices of all; the others' are not addressable.
  auto pool = client->owned_devices_[0]->memory_pool();
  std::vector<std::unique_ptr<CpuDevice>> all;
  for (int64_t n = 0; n < num_nodes; ++n) {
    for (int64_t i = 0; i < per_node; ++i) {
      all.push_back(std::make_unique<CpuDevice>(static_cast<int>(n * per_node + i), pool,
                                                static_cast<int>(n), static_cast<int>(i),
                                                n == node_id));
    }
  }
  std::unique_ptr<CpuClient> group(new CpuClient(std::move(all), client->dump_llvm_ir_dir_));
  group->process_index_ = static_cast<int>(node_id);
  ASSIGN_OR_RETURN(group->cross_process_,
                   CrossProcessGroup::Connect(static_cast<int>(node_id),
                                              static_cast<int>(num_nodes), hostname,
                                              std::move(kv), timeout_ms));
  return group;
}

CpuDevice* CpuClient::FindDevice(const Device* device) const {
  for (const auto& d : owned_devices_) {
    if (d.get() == device) return d.get();
  }
  return nullptr;
}

StatusOr<std::vector<Device*>> CpuClient::ExecutionDevices(int64_t num_replicas,
                                                            const std::vector<Device*>& devices) const {
  std::vector<Device*> targets = devices;
  if (targets.empty()) {
    if (num_replicas > static_cast<int64_t>(addressable_devices_.size())) {
      return InvalidArgument("num_replicas=" + std::to_string(num_replicas) + " but the client has " +
                             std::to_string(addressable_devices_.size()) +
                             " devices (set num_devices)");
    }
    targets.assign(addressable_devices_.begin(), addressable_devices_.begin() + num_replicas);
  }
  if (num_replicas > 1 && static_cast<int64_t>(targets.size()) != num_replicas) {
    return InvalidArgument("num_replicas=" + std::to_string(num_replicas) + " but " +
                           std::to_string(targets.size()) + " devices were given");
  }
  bool any_local = false;
  for (Device* d : targets) {
    if (FindDevice(d) == nullptr) return InvalidArgument("Compile: device is not a CPU device of this client");
    any_local = any_local || d->is_addressable();
  }
  if (!any_local) {
    return InvalidArgument("Compile: none of the devices belongs to this process (process " +
                           std::to_string(process_index_) + "); a process runs only its own");
  }
  const bool spans_processes = std::any_of(targets.begin(), targets.end(),
                                           [](Device* d) { return !d->is_addressable(); });
  if (spans_processes && num_replicas != static_cast<int64_t>(targets.size())) {
    return InvalidArgument("Compile: a program over the devices of several processes must "
                           "have one replica per device");
  }
  return targets;
}

StatusOr<std::unique_ptr<Executable>> CpuClient::Compile(std::unique_ptr<HloModule> module,
                                                         const Options& options,
                                                         const std::vector<Device*>& devices) {
  int64_t num_replicas = 1;
  if (auto it = options.find("num_replicas"); it != options.end()) {
    const int64_t* n = std::get_if<int64_t>(&it->second);
    if (n == nullptr || *n < 1) return InvalidArgument("option num_replicas must be a positive integer");
    num_replicas = *n;
  }
  ASSIGN_OR_RETURN(std::vector<Device*> targets, ExecutionDevices(num_replicas, devices));
  if (Status passes = RunOptimizationPipeline(module.get(), CpuOptimizationOptions());
      !passes.ok()) {
    return passes.WithContext("optimizing module " + module->name());
  }
  CompileOptions compile_options;
  compile_options.dump_llvm_ir_dir = dump_llvm_ir_dir_;
  return Load(*module, compile_options, std::move(targets), num_replicas);
}

StatusOr<std::unique_ptr<Executable>> CpuClient::Load(const HloModule& module,
                                                      const CompileOptions& options,
                                                      std::vector<Device*> targets,
                                                      int64_t num_replicas) {
  auto compiled = CompileHloModule(module, options);
  if (!compiled.ok()) return compiled.status().WithContext("compiling module " + module.name());
  CompiledProgram program = std::move(compiled).value();
  auto executable = std::make_unique<CpuExecutable>(
      module.name(), std::move(program.program), std::move(program.code), program.code_size,
      std::move(targets), module.ToString(), pool_, num_replicas);
  executable->set_cross_process(cross_process_.get());
  executable->set_declared_aliases(DeclaredAliases(module));
  // The executable owns its serializer, so the serializer may point back at it.
  const CpuExecutable* self = executable.get();
  executable->set_serializer([machine = std::move(program.machine_code),
                              self]() -> StatusOr<std::string> {
    SerializedExecutable e;
    e.plugin_version = JAX_PLUGIN_VERSION;
    e.num_replicas = static_cast<int64_t>(self->num_replicas());
    e.hlo_text = self->optimized_hlo();
    e.triple = machine.triple;
    e.cpu_name = machine.cpu_name;
    e.cpu_features = machine.cpu_features;
    e.kernel_symbols = machine.symbols;
    if (machine.objects) e.objects = machine.objects();
    return EncodeExecutable(e);
  });
  return std::unique_ptr<Executable>(std::move(executable));
}

StatusOr<std::unique_ptr<Executable>> CpuClient::DeserializeAndLoad(
    const std::string& serialized, const std::vector<Device*>& devices) {
  ASSIGN_OR_RETURN(SerializedExecutable e, DecodeExecutable(serialized));
  ASSIGN_OR_RETURN(MachineCode host, HostMachine());
  RETURN_IF_ERROR(CheckLoadable(e, JAX_PLUGIN_VERSION, host.triple, host.cpu_features));
  ASSIGN_OR_RETURN(std::vector<Device*> targets, ExecutionDevices(e.num_replicas, devices));
  auto module = ParseHloModule(e.hlo_text);
  if (!module.ok()) {
    return module.status().WithContext("loading a serialized CPU executable (its HLO module)");
  }
  CompileOptions options;
  options.prebuilt_objects = &e.objects;
  options.prebuilt_symbols = &e.kernel_symbols;
  return Load(**module, options, std::move(targets), e.num_replicas);
}

StatusOr<std::unique_ptr<Buffer>> CpuClient::BufferFromHost(
    const void* data, PrimitiveType type, const std::vector<int64_t>& dims,
    const std::vector<int64_t>& byte_strides, Device* device) {
  CpuDevice* cpu_device =
      device ? FindDevice(device) : static_cast<CpuDevice*>(addressable_devices_[0]);
  if (cpu_device == nullptr) return InvalidArgument("BufferFromHost: device is not a CPU device of this client");
  if (!cpu_device->is_addressable()) {
    return InvalidArgument("BufferFromHost: " + cpu_device->debug_string() + " belongs to process " +
                           std::to_string(cpu_device->process_index()) + ", not this one");
  }
  if (!byte_strides.empty() && byte_strides.size() != dims.size()) {
    return InvalidArgument("BufferFromHost: " + std::to_string(byte_strides.size()) +
                           " byte strides for a shape of rank " + std::to_string(dims.size()));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<CpuBuffer> buffer, CpuBuffer::Create(type, dims, cpu_device));
  const size_t size = buffer->size_in_bytes();
  if (size == 0) return std::unique_ptr<Buffer>(std::move(buffer));
  if (data == nullptr) return InvalidArgument("BufferFromHost: null data for shape " + DimsString(dims));
  if (byte_strides.empty()) {
    std::memcpy(buffer->data(), data, size);
  } else {
    StridedCopy(static_cast<const char*>(data), static_cast<char*>(buffer->data()), dims,
                byte_strides, ByteWidth(type), 0);
  }
  return std::unique_ptr<Buffer>(std::move(buffer));
}

StatusOr<std::unique_ptr<Buffer>> CpuClient::BufferFromHostZeroCopy(
    std::shared_ptr<const void> data, PrimitiveType type, const std::vector<int64_t>& dims,
    Device* device) {
  CpuDevice* cpu_device =
      device ? FindDevice(device) : static_cast<CpuDevice*>(addressable_devices_[0]);
  if (cpu_device == nullptr) return InvalidArgument("BufferFromHost: device is not a CPU device of this client");
  if (!cpu_device->is_addressable()) {
    return InvalidArgument("BufferFromHost: " + cpu_device->debug_string() + " belongs to process " +
                           std::to_string(cpu_device->process_index()) + ", not this one");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<CpuBuffer> buffer,
                   CpuBuffer::CreateFromHost(type, dims, cpu_device, std::move(data)));
  return std::unique_ptr<Buffer>(std::move(buffer));
}

}  // namespace cpu

namespace {
StatusOr<std::unique_ptr<Client>> CreateCpuClient(const Options& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<cpu::CpuClient> client, cpu::CpuClient::Create(options));
  return std::unique_ptr<Client>(std::move(client));
}

StatusOr<std::unique_ptr<Client>> CreateDistributedCpuClient(const Options& options,
                                                             KeyValueStore kv) {
  ASSIGN_OR_RETURN(std::unique_ptr<cpu::CpuClient> client,
                   cpu::CpuClient::CreateDistributed(options, std::move(kv)));
  return std::unique_ptr<Client>(std::move(client));
}
}  // namespace

const PluginInfo& CpuPluginInfo() {
  static const PluginInfo* info = new PluginInfo{"cpu", JAX_PLUGIN_VERSION, &CreateCpuClient,
                                                 &CreateDistributedCpuClient};
  return *info;
}

}  // namespace xla
