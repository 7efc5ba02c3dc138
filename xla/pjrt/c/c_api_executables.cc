// The C API's compile, executable and loaded-executable entries over
// xla::Client::Compile and xla::Executable.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "xla/pjrt/c/c_api_internal.h"
#include "xla/pjrt/c/program_io.h"

namespace xla::c_api {
namespace {

PJRT_LoadedExecutable* WrapLoaded(std::unique_ptr<Executable> exe, PJRT_Client* client) {
  auto* e = new PJRT_LoadedExecutable{std::shared_ptr<Executable>(std::move(exe)), client, {}};
  for (Device* d : e->executable->devices()) {
    if (d->is_addressable()) e->addressable_devices.push_back(C(d));
  }
  return e;
}

PJRT_Error* ClientCompile(PJRT_Client_Compile_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Client_Compile_Args, args, executable);
    if (args->program == nullptr) return InvalidArgument("PJRT_Client_Compile: program is NULL");
    ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ReadProgram(*args->program));
    Client* client = args->client->client.get();
    ASSIGN_OR_RETURN(CompileRequest request,
                     ReadCompileOptions(std::string_view(args->compile_options,
                                                         args->compile_options_size),
                                        *client));
    ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe,
                     client->Compile(std::move(module), request.options, request.devices));
    args->executable = WrapLoaded(std::move(exe), args->client);
    return OkStatus();
  });
}

PJRT_Error* ExecutableDeserializeAndLoad(PJRT_Executable_DeserializeAndLoad_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Executable_DeserializeAndLoad_Args, args, loaded_executable);
    Client* client = args->client->client.get();
    std::vector<Device*> devices;
    if (PJRT_HAS_FIELD(PJRT_Executable_DeserializeAndLoad_Args, args,
                       overridden_serialized_compile_options_size) &&
        args->overridden_serialized_compile_options != nullptr) {
      ASSIGN_OR_RETURN(CompileRequest request,
                       ReadCompileOptions(
                           std::string_view(args->overridden_serialized_compile_options,
                                            args->overridden_serialized_compile_options_size),
                           *client));
      devices = std::move(request.devices);
    }
    ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe,
                     client->DeserializeAndLoad(std::string(args->serialized_executable,
                                                            args->serialized_executable_size),
                                                devices));
    args->loaded_executable = WrapLoaded(std::move(exe), args->client);
    return OkStatus();
  });
}

// ---------------------------------------------------------------- executables

// Output shapes and the optimized program, computed on first use.
StatusOr<const ExecutableFacts*> Facts(PJRT_Executable* e) {
  std::call_once(e->facts_once, [e] {
    auto described = DescribeOptimizedProgram(*e->executable);
    if (!described.ok()) {
      e->facts_status = described.status();
      return;
    }
    auto facts = std::make_shared<ExecutableFacts>();
    facts->name = e->executable->name();
    facts->optimized_hlo_proto = std::move(described->hlo_module_proto);
    static const char kDevice[] = "device";
    for (const Shape& s : described->outputs) {
      facts->output_types.push_back(ToC(s.element_type()));
      facts->output_dims.insert(facts->output_dims.end(), s.dimensions().begin(),
                                s.dimensions().end());
      facts->output_ranks.push_back(s.dimensions().size());
      facts->output_memory_kinds.push_back(kDevice);
      facts->output_memory_kind_sizes.push_back(sizeof(kDevice) - 1);
    }
    e->facts = std::move(facts);
  });
  if (!e->facts_status.ok()) return e->facts_status;
  return e->facts.get();
}

PJRT_Error* ExecutableDestroy(PJRT_Executable_Destroy_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Executable_Destroy_Args, args, executable);
    delete args->executable;
    return OkStatus();
  });
}

PJRT_Error* ExecutableName(PJRT_Executable_Name_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Executable_Name_Args, args, executable_name_size);
    ASSIGN_OR_RETURN(const ExecutableFacts* facts, Facts(args->executable));
    args->executable_name = facts->name.data();
    args->executable_name_size = facts->name.size();
    return OkStatus();
  });
}

PJRT_Error* ExecutableNumReplicas(PJRT_Executable_NumReplicas_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Executable_NumReplicas_Args, args, num_replicas);
    args->num_replicas = args->executable->executable->num_replicas();
    return OkStatus();
  });
}

// Our backends partition nothing: programs are replicated (SPMD lowering
// happens in jax).
PJRT_Error* ExecutableNumPartitions(PJRT_Executable_NumPartitions_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Executable_NumPartitions_Args, args, num_partitions);
    args->num_partitions = 1;
    return OkStatus();
  });
}

PJRT_Error* ExecutableNumOutputs(PJRT_Executable_NumOutputs_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Executable_NumOutputs_Args, args, num_outputs);
    args->num_outputs = args->executable->executable->num_outputs();
    return OkStatus();
  });
}

PJRT_Error* ExecutableSizeOfGeneratedCodeInBytes(
    PJRT_Executable_SizeOfGeneratedCodeInBytes_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args, args, size_in_bytes);
    args->size_in_bytes = args->executable->executable->memory_stats().generated_code_size;
    return OkStatus();
  });
}

PJRT_Error* ExecutableGetCompiledMemoryStats(PJRT_Executable_GetCompiledMemoryStats_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Executable_GetCompiledMemoryStats_Args, args, temp_size_in_bytes);
    Executable::MemoryStats s = args->executable->executable->memory_stats();
    args->generated_code_size_in_bytes = s.generated_code_size;
    args->argument_size_in_bytes = s.argument_size;
    args->output_size_in_bytes = s.output_size;
    args->alias_size_in_bytes = s.alias_size;
    args->temp_size_in_bytes = s.temp_size;
    // Host-side figures and peak: the fields a caller's struct has, all 0
    // except the peak (everything lives at once in our plans).
    const size_t have = args->struct_size;
    auto set = [&](int64_t* field, int64_t value) {
      if (reinterpret_cast<char*>(field) + sizeof(int64_t) <=
          reinterpret_cast<char*>(args) + have) {
        *field = value;
      }
    };
    set(&args->host_generated_code_size_in_bytes, 0);
    set(&args->host_argument_size_in_bytes, 0);
    set(&args->host_output_size_in_bytes, 0);
    set(&args->host_alias_size_in_bytes, 0);
    set(&args->host_temp_size_in_bytes, 0);
    set(&args->peak_memory_in_bytes,
        s.argument_size + s.output_size - s.alias_size + s.temp_size);
    set(&args->total_size_in_bytes, 0);
    set(&args->total_allocation_bytes, 0);
    set(&args->indefinite_allocations, 0);
    set(&args->peak_unpadded_heap_bytes, 0);
    return OkStatus();
  });
}

PJRT_Error* ExecutableOutputMemoryKinds(PJRT_Executable_OutputMemoryKinds_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Executable_OutputMemoryKinds_Args, args, memory_kind_sizes);
    ASSIGN_OR_RETURN(const ExecutableFacts* facts, Facts(args->executable));
    args->num_outputs = facts->output_memory_kinds.size();
    args->memory_kinds = facts->output_memory_kinds.data();
    args->memory_kind_sizes = facts->output_memory_kind_sizes.data();
    return OkStatus();
  });
}

PJRT_Error* ExecutableOutputElementTypes(PJRT_Executable_OutputElementTypes_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Executable_OutputElementTypes_Args, args, num_output_types);
    ASSIGN_OR_RETURN(const ExecutableFacts* facts, Facts(args->executable));
    // The C API hands out a non-const pointer; nobody writes through it.
    args->output_types = const_cast<PJRT_Buffer_Type*>(facts->output_types.data());
    args->num_output_types = facts->output_types.size();
    return OkStatus();
  });
}

PJRT_Error* ExecutableOutputDimensions(PJRT_Executable_OutputDimensions_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Executable_OutputDimensions_Args, args, dim_sizes);
    ASSIGN_OR_RETURN(const ExecutableFacts* facts, Facts(args->executable));
    args->num_outputs = facts->output_ranks.size();
    args->dims = facts->output_dims.data();
    args->dim_sizes = facts->output_ranks.data();
    return OkStatus();
  });
}

PJRT_Error* ExecutableOptimizedProgram(PJRT_Executable_OptimizedProgram_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Executable_OptimizedProgram_Args, args, program);
    PJRT_Program* program = args->program;
    if (program == nullptr) return InvalidArgument("OptimizedProgram: program is NULL");
    ASSIGN_OR_RETURN(const ExecutableFacts* facts, Facts(args->executable));
    static const char kFormat[] = "hlo";
    program->format = kFormat;
    program->format_size = sizeof(kFormat) - 1;
    const std::string& bytes = facts->optimized_hlo_proto;
    if (program->code == nullptr) {
      program->code_size = bytes.size();
      return OkStatus();
    }
    if (program->code_size < bytes.size()) {
      return InvalidArgument("OptimizedProgram: the buffer holds " +
                             std::to_string(program->code_size) + " bytes, the program needs " +
                             std::to_string(bytes.size()));
    }
    std::memcpy(program->code, bytes.data(), bytes.size());
    program->code_size = bytes.size();
    return OkStatus();
  });
}

PJRT_Error* ExecutableSerialize(PJRT_Executable_Serialize_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Executable_Serialize_Args, args, serialized_executable_deleter);
    ASSIGN_OR_RETURN(std::string bytes, args->executable->executable->Serialize());
    auto* holder = new std::string(std::move(bytes));
    args->serialized_bytes = holder->data();
    args->serialized_bytes_size = holder->size();
    args->serialized_executable = reinterpret_cast<PJRT_SerializedExecutable*>(holder);
    args->serialized_executable_deleter = [](PJRT_SerializedExecutable* p) {
      delete reinterpret_cast<std::string*>(p);
    };
    return OkStatus();
  });
}

// ---------------------------------------------------------------- loaded executables

PJRT_Error* LoadedExecutableDestroy(PJRT_LoadedExecutable_Destroy_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_LoadedExecutable_Destroy_Args, args, executable);
    delete args->executable;
    return OkStatus();
  });
}

PJRT_Error* LoadedExecutableGetExecutable(PJRT_LoadedExecutable_GetExecutable_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_LoadedExecutable_GetExecutable_Args, args, executable);
    auto* e = new PJRT_Executable();
    e->executable = args->loaded_executable->executable;
    args->executable = e;
    return OkStatus();
  });
}

PJRT_Error* LoadedExecutableAddressableDevices(
    PJRT_LoadedExecutable_AddressableDevices_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_LoadedExecutable_AddressableDevices_Args, args, num_addressable_devices);
    args->addressable_devices = args->executable->addressable_devices.data();
    args->num_addressable_devices = args->executable->addressable_devices.size();
    return OkStatus();
  });
}

PJRT_Error* LoadedExecutableDelete(PJRT_LoadedExecutable_Delete_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_LoadedExecutable_Delete_Args, args, executable);
    args->executable->deleted = true;
    return OkStatus();
  });
}

PJRT_Error* LoadedExecutableIsDeleted(PJRT_LoadedExecutable_IsDeleted_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_LoadedExecutable_IsDeleted_Args, args, is_deleted);
    args->is_deleted = args->executable->deleted;
    return OkStatus();
  });
}

// The arguments this run donates: those the module lets a caller donate,
// less those the caller keeps (non_donatable_input_indices).
std::vector<int64_t> DonatedArguments(const Executable& exe, const PJRT_ExecuteOptions* options) {
  std::vector<int64_t> donated = exe.donor_parameters();
  if (options == nullptr || options->non_donatable_input_indices == nullptr) return donated;
  const int64_t* keep = options->non_donatable_input_indices;
  const int64_t* keep_end = keep + options->num_non_donatable_input_indices;
  donated.erase(std::remove_if(donated.begin(), donated.end(),
                               [&](int64_t p) { return std::find(keep, keep_end, p) != keep_end; }),
                donated.end());
  return donated;
}

PJRT_Error* LoadedExecutableExecute(PJRT_LoadedExecutable_Execute_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_LoadedExecutable_Execute_Args, args, device_complete_events);
    PJRT_LoadedExecutable* loaded = args->executable;
    if (loaded->deleted) return FailedPrecondition("Execute: the executable has been deleted");
    Executable* e = loaded->executable.get();
    if (PJRT_HAS_FIELD(PJRT_LoadedExecutable_Execute_Args, args, execute_device) &&
        args->execute_device != nullptr) {
      if (loaded->addressable_devices.size() != 1 ||
          loaded->addressable_devices[0] != args->execute_device || args->num_devices != 1) {
        return InvalidArgument("Execute: execute_device must be the executable's one device "
                               "(portable executables are not supported)");
      }
    }
    if (args->num_devices != loaded->addressable_devices.size()) {
      return InvalidArgument("Execute: " + std::to_string(args->num_devices) +
                             " argument lists for an executable of " +
                             std::to_string(loaded->addressable_devices.size()) +
                             " addressable devices");
    }
    std::vector<std::vector<Buffer*>> lists(args->num_devices);
    for (size_t d = 0; d < args->num_devices; ++d) {
      for (size_t i = 0; i < args->num_args; ++i) {
        PJRT_Buffer* b = args->argument_lists[d][i];
        if (b == nullptr) return InvalidArgument("Execute: argument " + std::to_string(i) + " is NULL");
        if (b->buffer->is_deleted()) {
          return InvalidArgument("Execute: argument " + std::to_string(i) + " on device " +
                                 std::to_string(d) + " has been deleted (was it donated?)");
        }
        lists[d].push_back(b->buffer.get());
      }
    }
    ASSIGN_OR_RETURN(auto outputs, e->Execute(lists, DonatedArguments(*e, args->options)));
    for (size_t d = 0; d < outputs.size() && d < args->num_devices; ++d) {
      for (size_t o = 0; o < outputs[d].size(); ++o) {
        args->output_lists[d][o] = WrapBuffer(std::move(outputs[d][o]), loaded->client);
      }
      if (args->device_complete_events != nullptr) args->device_complete_events[d] = ReadyEvent();
    }
    return OkStatus();
  });
}

}  // namespace

void FillExecutableEntries(PJRT_Api& a) {
  a.PJRT_Client_Compile = ClientCompile;
  a.PJRT_Executable_DeserializeAndLoad = ExecutableDeserializeAndLoad;
  a.PJRT_Executable_Destroy = ExecutableDestroy;
  a.PJRT_Executable_Name = ExecutableName;
  a.PJRT_Executable_NumReplicas = ExecutableNumReplicas;
  a.PJRT_Executable_NumPartitions = ExecutableNumPartitions;
  a.PJRT_Executable_NumOutputs = ExecutableNumOutputs;
  a.PJRT_Executable_SizeOfGeneratedCodeInBytes = ExecutableSizeOfGeneratedCodeInBytes;
  a.PJRT_Executable_GetCompiledMemoryStats = ExecutableGetCompiledMemoryStats;
  a.PJRT_Executable_OutputMemoryKinds = ExecutableOutputMemoryKinds;
  a.PJRT_Executable_OutputElementTypes = ExecutableOutputElementTypes;
  a.PJRT_Executable_OutputDimensions = ExecutableOutputDimensions;
  a.PJRT_Executable_OptimizedProgram = ExecutableOptimizedProgram;
  a.PJRT_Executable_Serialize = ExecutableSerialize;
  a.PJRT_LoadedExecutable_Destroy = LoadedExecutableDestroy;
  a.PJRT_LoadedExecutable_GetExecutable = LoadedExecutableGetExecutable;
  a.PJRT_LoadedExecutable_AddressableDevices = LoadedExecutableAddressableDevices;
  a.PJRT_LoadedExecutable_Delete = LoadedExecutableDelete;
  a.PJRT_LoadedExecutable_IsDeleted = LoadedExecutableIsDeleted;
  a.PJRT_LoadedExecutable_Execute = LoadedExecutableExecute;
}

}  // namespace xla::c_api
