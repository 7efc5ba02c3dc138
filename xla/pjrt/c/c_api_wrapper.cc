#include "xla/pjrt/c/c_api_wrapper.h"
#include "xla/pjrt/c/custom_call_registry.h"
#include "xla/pjrt/c/host_callback_registry.h"
#include "xla/pjrt/c/utf8.h"

#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <vector>

// The opaque C types are defined here, once, as thin holders of the C++ objects.
struct PJRT_Error {
  xla::Status status;
};

struct PJRT_Event {
  xla::Status status;  // events complete synchronously in this wrapper
};

struct PJRT_Device;
struct PJRT_Memory;

struct PJRT_Client {
  std::unique_ptr<xla::Client> client;
  std::vector<PJRT_Device*> devices;  // C handles are the C++ pointers
  std::vector<PJRT_Device*> addressable_devices;
};

struct PJRT_Buffer {
  std::unique_ptr<xla::Buffer> buffer;
  std::vector<int64_t> dims;  // keeps Info's dims pointer valid
};

struct PJRT_LoadedExecutable {
  std::unique_ptr<xla::Executable> executable;
  std::vector<PJRT_Device*> devices;
  std::string optimized_hlo;
};

namespace xla {
namespace {

const PluginInfo* g_info = nullptr;

// PJRT_Device_Memories results, per device; dropped with the device's client.
std::mutex g_memory_lists_mu;
std::map<Device*, std::vector<PJRT_Memory*>>& MemoryLists() {
  static auto* lists = new std::map<Device*, std::vector<PJRT_Memory*>>();
  return *lists;
}

PJRT_Error* ToError(Status status) {
  if (status.ok()) return nullptr;
  return new PJRT_Error{Status(status.code(), ToValidUtf8(status.message()))};
}

// C++ exceptions must never cross the C boundary: each entry point runs its
// body through this guard.
template <typename F>
PJRT_Error* Guard(const char* fn, F&& body) {
  try {
    return ToError(body());
  } catch (const std::exception& e) {
    return ToError(Internal(std::string(fn) + ": " + e.what()));
  } catch (...) {
    return ToError(Internal(std::string(fn) + ": unknown C++ exception"));
  }
}

// Checks that the caller's struct is at least as large as the oldest layout
// this plugin understands (the fields the call needs).
#define CHECK_ARGS(type, args, last_needed)                                         \
  do {                                                                              \
    if (args == nullptr) return InvalidArgument(#type ": args is NULL");            \
    if (args->struct_size < PJRT_STRUCT_SIZE(type, last_needed))                    \
      return InvalidArgument(std::string(#type) + ": struct_size " +                \
                             std::to_string(args->struct_size) + " is smaller than " \
                             "the " + std::to_string(PJRT_STRUCT_SIZE(type, last_needed)) + \
                             " bytes this call needs");                             \
  } while (0)

Device* D(PJRT_Device* d) { return reinterpret_cast<Device*>(d); }
PJRT_Device* C(Device* d) { return reinterpret_cast<PJRT_Device*>(d); }
Memory* M(PJRT_Memory* m) { return reinterpret_cast<Memory*>(m); }
PJRT_Memory* C(Memory* m) { return reinterpret_cast<PJRT_Memory*>(m); }

StatusOr<Options> ToOptions(const PJRT_NamedValue* values, size_t n) {
  Options options;
  for (size_t i = 0; i < n; ++i) {
    const PJRT_NamedValue& v = values[i];
    std::string name(v.name, v.name_size);
    switch (v.type) {
      case PJRT_NamedValue_kString:
        options[name] = std::string(v.string_value, v.value_size);
        break;
      case PJRT_NamedValue_kInt64:
        options[name] = v.int64_value;
        break;
      case PJRT_NamedValue_kInt64List:
        options[name] = std::vector<int64_t>(v.int64_array_value, v.int64_array_value + v.value_size);
        break;
      case PJRT_NamedValue_kFloat:
        options[name] = v.float_value;
        break;
      case PJRT_NamedValue_kBool:
        options[name] = v.bool_value;
        break;
      default:
        return InvalidArgument("option '" + name + "' has unknown type " + std::to_string(v.type));
    }
  }
  return options;
}

PrimitiveType FromC(PJRT_Buffer_Type t) {
  switch (t) {
    case PJRT_Buffer_Type_PRED: return PrimitiveType::PRED;
    case PJRT_Buffer_Type_S8: return PrimitiveType::S8;
    case PJRT_Buffer_Type_S16: return PrimitiveType::S16;
    case PJRT_Buffer_Type_S32: return PrimitiveType::S32;
    case PJRT_Buffer_Type_S64: return PrimitiveType::S64;
    case PJRT_Buffer_Type_U8: return PrimitiveType::U8;
    case PJRT_Buffer_Type_U16: return PrimitiveType::U16;
    case PJRT_Buffer_Type_U32: return PrimitiveType::U32;
    case PJRT_Buffer_Type_U64: return PrimitiveType::U64;
    case PJRT_Buffer_Type_F16: return PrimitiveType::F16;
    case PJRT_Buffer_Type_F32: return PrimitiveType::F32;
    case PJRT_Buffer_Type_F64: return PrimitiveType::F64;
    case PJRT_Buffer_Type_BF16: return PrimitiveType::BF16;
    case PJRT_Buffer_Type_C64: return PrimitiveType::C64;
    case PJRT_Buffer_Type_C128: return PrimitiveType::C128;
    case PJRT_Buffer_Type_F8E4M3FN: return PrimitiveType::F8E4M3FN;
    case PJRT_Buffer_Type_F8E5M2: return PrimitiveType::F8E5M2;
    case PJRT_Buffer_Type_F8E4M3FNUZ: return PrimitiveType::F8E4M3FNUZ;
    case PJRT_Buffer_Type_F8E5M2FNUZ: return PrimitiveType::F8E5M2FNUZ;
    case PJRT_Buffer_Type_F8E4M3B11FNUZ: return PrimitiveType::F8E4M3B11FNUZ;
    case PJRT_Buffer_Type_F8E4M3: return PrimitiveType::F8E4M3;
    case PJRT_Buffer_Type_F8E3M4: return PrimitiveType::F8E3M4;
    case PJRT_Buffer_Type_S4: return PrimitiveType::S4;
    case PJRT_Buffer_Type_U4: return PrimitiveType::U4;
    case PJRT_Buffer_Type_TOKEN: return PrimitiveType::TOKEN;
    default: return PrimitiveType::INVALID;
  }
}

PJRT_Buffer_Type ToC(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::PRED: return PJRT_Buffer_Type_PRED;
    case PrimitiveType::S8: return PJRT_Buffer_Type_S8;
    case PrimitiveType::S16: return PJRT_Buffer_Type_S16;
    case PrimitiveType::S32: return PJRT_Buffer_Type_S32;
    case PrimitiveType::S64: return PJRT_Buffer_Type_S64;
    case PrimitiveType::U8: return PJRT_Buffer_Type_U8;
    case PrimitiveType::U16: return PJRT_Buffer_Type_U16;
    case PrimitiveType::U32: return PJRT_Buffer_Type_U32;
    case PrimitiveType::U64: return PJRT_Buffer_Type_U64;
    case PrimitiveType::F16: return PJRT_Buffer_Type_F16;
    case PrimitiveType::F32: return PJRT_Buffer_Type_F32;
    case PrimitiveType::F64: return PJRT_Buffer_Type_F64;
    case PrimitiveType::BF16: return PJRT_Buffer_Type_BF16;
    case PrimitiveType::C64: return PJRT_Buffer_Type_C64;
    case PrimitiveType::C128: return PJRT_Buffer_Type_C128;
    case PrimitiveType::F8E4M3FN: return PJRT_Buffer_Type_F8E4M3FN;
    case PrimitiveType::F8E5M2: return PJRT_Buffer_Type_F8E5M2;
    case PrimitiveType::F8E4M3FNUZ: return PJRT_Buffer_Type_F8E4M3FNUZ;
    case PrimitiveType::F8E5M2FNUZ: return PJRT_Buffer_Type_F8E5M2FNUZ;
    case PrimitiveType::F8E4M3B11FNUZ: return PJRT_Buffer_Type_F8E4M3B11FNUZ;
    case PrimitiveType::F8E4M3: return PJRT_Buffer_Type_F8E4M3;
    case PrimitiveType::F8E3M4: return PJRT_Buffer_Type_F8E3M4;
    case PrimitiveType::S4: return PJRT_Buffer_Type_S4;
    case PrimitiveType::U4: return PJRT_Buffer_Type_U4;
    case PrimitiveType::TOKEN: return PJRT_Buffer_Type_TOKEN;
    default: return PJRT_Buffer_Type_INVALID;
  }
}

// ---------------------------------------------------------------- errors

void ErrorDestroy(PJRT_Error_Destroy_Args* args) {
  if (args != nullptr) delete args->error;
}

void ErrorMessage(PJRT_Error_Message_Args* args) {
  if (args == nullptr || args->error == nullptr) return;
  args->message = args->error->status.message().data();
  args->message_size = args->error->status.message().size();
}

PJRT_Error* ErrorGetCode(PJRT_Error_GetCode_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Error_GetCode_Args, args, code);
    args->code = static_cast<PJRT_Error_Code>(args->error->status.code());
    return OkStatus();
  });
}

// ---------------------------------------------------------------- plugin

PJRT_Error* PluginInitialize(PJRT_Plugin_Initialize_Args* args) {
  return nullptr;
}

PJRT_Error* PluginAttributes(PJRT_Plugin_Attributes_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Plugin_Attributes_Args, args, num_attributes);
    static const PJRT_NamedValue* attributes = [] {
      auto* a = new PJRT_NamedValue[4];
      std::memset(a, 0, sizeof(PJRT_NamedValue) * 4);
      auto set_string = [](PJRT_NamedValue& v, const char* name, const std::string& s) {
        v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
        v.name = name;
        v.name_size = std::strlen(name);
        v.type = PJRT_NamedValue_kString;
        v.string_value = s.c_str();
        v.value_size = s.size();
      };
      auto set_int = [](PJRT_NamedValue& v, const char* name, int64_t x) {
        v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
        v.name = name;
        v.name_size = std::strlen(name);
        v.type = PJRT_NamedValue_kInt64;
        v.int64_value = x;
        v.value_size = 1;
      };
      set_string(a[0], "plugin_version", g_info->plugin_version);
      set_string(a[1], "platform_names", g_info->platform_names);
      set_int(a[2], "c_api_major", PJRT_API_MAJOR);
      set_int(a[3], "c_api_minor", PJRT_API_MINOR);
      return a;
    }();
    args->attributes = attributes;
    args->num_attributes = 4;
    return OkStatus();
  });
}

// ---------------------------------------------------------------- events

PJRT_Error* EventDestroy(PJRT_Event_Destroy_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Event_Destroy_Args, args, event);
    delete args->event;
    return OkStatus();
  });
}

PJRT_Error* EventIsReady(PJRT_Event_IsReady_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Event_IsReady_Args, args, is_ready);
    args->is_ready = true;
    return OkStatus();
  });
}

PJRT_Error* EventAwait(PJRT_Event_Await_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Event_Await_Args, args, event);
    return args->event->status;
  });
}

// ---------------------------------------------------------------- client

// The caller's C key-value callbacks as the C++ store a plugin's client takes.
KeyValueStore KvStoreOf(const PJRT_Client_Create_Args& args) {
  KeyValueStore kv;
  kv.get = [get = args.kv_get_callback, arg = args.kv_get_user_arg](
               const std::string& key, int64_t timeout_ms) -> StatusOr<std::string> {
    char error[2048] = "";
    std::string value;
    auto sink = [](void* out, const char* data, size_t size) {
      static_cast<std::string*>(out)->assign(data, size);
    };
    if (!get(arg, key.data(), key.size(), timeout_ms, sink, &value, error, sizeof(error))) {
      return Unavailable(std::string("key-value get '") + key + "': " + error);
    }
    return value;
  };
  kv.put = [put = args.kv_put_callback, arg = args.kv_put_user_arg](
               const std::string& key, const std::string& value) -> Status {
    char error[2048] = "";
    if (!put(arg, key.data(), key.size(), value.data(), value.size(), error, sizeof(error))) {
      return Unavailable(std::string("key-value put '") + key + "': " + error);
    }
    return OkStatus();
  };
  return kv;
}

PJRT_Error* ClientCreate(PJRT_Client_Create_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Client_Create_Args, args, client);
    ASSIGN_OR_RETURN(Options options, ToOptions(args->create_options, args->num_options));
    std::unique_ptr<Client> client;
    if (args->struct_size >= PJRT_STRUCT_SIZE(PJRT_Client_Create_Args, kv_put_user_arg) &&
        args->kv_get_callback != nullptr && args->kv_put_callback != nullptr) {
      if (g_info->create_distributed_client == nullptr) {
        return Unimplemented("this plugin does not support multi-process clients");
      }
      ASSIGN_OR_RETURN(client, g_info->create_distributed_client(options, KvStoreOf(*args)));
    } else {
      ASSIGN_OR_RETURN(client, g_info->create_client(options));
    }
    auto* c = new PJRT_Client{std::move(client), {}, {}};
    for (Device* d : c->client->devices()) c->devices.push_back(C(d));
    for (Device* d : c->client->addressable_devices()) c->addressable_devices.push_back(C(d));
    args->client = c;
    return OkStatus();
  });
}

PJRT_Error* ClientDestroy(PJRT_Client_Destroy_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Client_Destroy_Args, args, client);
    {
      std::lock_guard<std::mutex> lock(g_memory_lists_mu);
      for (PJRT_Device* d : args->client->devices) MemoryLists().erase(D(d));
    }
    delete args->client;
    return OkStatus();
  });
}

PJRT_Error* ClientPlatformName(PJRT_Client_PlatformName_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Client_PlatformName_Args, args, platform_name_size);
    const std::string& s = args->client->client->platform_name();
    args->platform_name = s.data();
    args->platform_name_size = s.size();
    return OkStatus();
  });
}

PJRT_Error* ClientPlatformVersion(PJRT_Client_PlatformVersion_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Client_PlatformVersion_Args, args, platform_version_size);
    const std::string& s = args->client->client->platform_version();
    args->platform_version = s.data();
    args->platform_version_size = s.size();
    return OkStatus();
  });
}

PJRT_Error* ClientProcessIndex(PJRT_Client_ProcessIndex_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Client_ProcessIndex_Args, args, process_index);
    args->process_index = args->client->client->process_index();
    return OkStatus();
  });
}

PJRT_Error* ClientDevices(PJRT_Client_Devices_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Client_Devices_Args, args, num_devices);
    args->devices = args->client->devices.data();
    args->num_devices = args->client->devices.size();
    return OkStatus();
  });
}

PJRT_Error* ClientAddressableDevices(PJRT_Client_Devices_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Client_Devices_Args, args, num_devices);
    args->devices = args->client->addressable_devices.data();
    args->num_devices = args->client->addressable_devices.size();
    return OkStatus();
  });
}

std::vector<Device*> ToDevices(PJRT_Device* const* devices, size_t n) {
  std::vector<Device*> out;
  for (size_t i = 0; i < n; ++i) out.push_back(D(devices[i]));
  return out;
}

PJRT_LoadedExecutable* WrapExecutable(std::unique_ptr<Executable> exe) {
  auto* e = new PJRT_LoadedExecutable{std::move(exe), {}, {}};
  for (Device* d : e->executable->devices()) e->devices.push_back(C(d));
  e->optimized_hlo = e->executable->optimized_hlo();
  return e;
}

PJRT_Error* ClientCompile(PJRT_Client_Compile_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Client_Compile_Args, args, executable);
    ASSIGN_OR_RETURN(Options options, ToOptions(args->compile_options, args->num_options));
    std::string format(args->format, args->format_size);
    std::string code(args->code, args->code_size);
    ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe,
                     args->client->client->Compile(format, code, options,
                                                   ToDevices(args->devices, args->num_devices)));
    args->executable = WrapExecutable(std::move(exe));
    return OkStatus();
  });
}

PJRT_Error* ClientDeserializeAndLoad(PJRT_Client_DeserializeAndLoad_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Client_DeserializeAndLoad_Args, args, executable);
    ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe,
                     args->client->client->DeserializeAndLoad(
                         std::string(args->serialized, args->serialized_size),
                         ToDevices(args->devices, args->num_devices)));
    args->executable = WrapExecutable(std::move(exe));
    return OkStatus();
  });
}

PJRT_Buffer* WrapBuffer(std::unique_ptr<Buffer> buffer) {
  auto* b = new PJRT_Buffer{std::move(buffer), {}};
  b->dims = b->buffer->dimensions();
  return b;
}

// The caller's host memory, for as long as the backend reads it. The last
// copy to go calls the caller's done_with_host_buffer (1.3), so it runs
// exactly once whatever happens: a copy, an error, or a zero-copy buffer's end.
std::shared_ptr<const void> HostBufferLease(const PJRT_Client_BufferFromHostBuffer_Args& args) {
  const bool has_callback =
      args.struct_size >= PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE &&
      args.done_with_host_buffer != nullptr;
  if (!has_callback) return std::shared_ptr<const void>(args.data, [](const void*) {});
  return std::shared_ptr<const void>(
      args.data, [done = args.done_with_host_buffer, user_data = args.done_user_data](
                     const void*) { done(user_data); });
}

PJRT_Error* ClientBufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Client_BufferFromHostBuffer_Args, args, buffer);
    std::shared_ptr<const void> host = HostBufferLease(*args);
    PrimitiveType type = FromC(args->type);
    if (!IsArrayType(type)) {
      return InvalidArgument("BufferFromHostBuffer: unsupported element type " +
                             std::to_string(args->type));
    }
    std::vector<int64_t> dims(args->dims, args->dims + args->num_dims);
    std::vector<int64_t> strides;
    if (args->byte_strides != nullptr) {
      strides.assign(args->byte_strides, args->byte_strides + args->num_byte_strides);
    }
    Device* device = args->device != nullptr ? D(args->device)
                                             : args->client->client->devices().front();
    const bool zero_copy =
        args->struct_size >= PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE &&
        args->host_buffer_semantics == PJRT_HostBufferSemantics_kImmutableZeroCopy &&
        strides.empty();
    Client* client = args->client->client.get();
    ASSIGN_OR_RETURN(std::unique_ptr<Buffer> buffer,
                     zero_copy ? client->BufferFromHostZeroCopy(std::move(host), type, dims, device)
                               : client->BufferFromHost(args->data, type, dims, strides, device));
    args->buffer = WrapBuffer(std::move(buffer));
    return OkStatus();
  });
}

// ---------------------------------------------------------------- devices

PJRT_Error* DeviceInfo(PJRT_Device_Info_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Device_Info_Args, args, is_addressable);
    Device* d = D(args->device);
    args->id = d->id();
    args->process_index = d->process_index();
    args->local_hardware_id = d->local_hardware_id();
    args->kind = d->kind().data();
    args->kind_size = d->kind().size();
    args->debug_string = d->debug_string().data();
    args->debug_string_size = d->debug_string().size();
    args->is_addressable = d->is_addressable();
    return OkStatus();
  });
}

PJRT_Error* DeviceMemories(PJRT_Device_Memories_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Device_Memories_Args, args, default_memory);
    // The header promises the list lives as long as the client: keep one per
    // device (a device's memories never change).
    std::lock_guard<std::mutex> lock(g_memory_lists_mu);
    std::vector<PJRT_Memory*>& list = MemoryLists()[D(args->device)];
    if (list.empty()) {
      for (Memory* m : D(args->device)->memories()) list.push_back(C(m));
    }
    args->memories = list.data();
    args->num_memories = list.size();
    args->default_memory = C(D(args->device)->default_memory());
    return OkStatus();
  });
}

PJRT_Error* DeviceMemoryStats(PJRT_Device_MemoryStats_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Device_MemoryStats_Args, args, num_allocs);
    Device::MemoryStats s = D(args->device)->memory_stats();
    args->bytes_in_use = s.bytes_in_use;
    args->peak_bytes_in_use = s.peak_bytes_in_use;
    args->num_allocs = s.num_allocs;
    return OkStatus();
  });
}

PJRT_Error* MemoryInfo(PJRT_Memory_Info_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Memory_Info_Args, args, kind_size);
    Memory* m = M(args->memory);
    args->id = m->id();
    args->kind = m->kind().data();
    args->kind_size = m->kind().size();
    return OkStatus();
  });
}

// ---------------------------------------------------------------- buffers

PJRT_Error* BufferDestroy(PJRT_Buffer_Destroy_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Buffer_Destroy_Args, args, buffer);
    delete args->buffer;
    return OkStatus();
  });
}

PJRT_Error* BufferInfo(PJRT_Buffer_Info_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Buffer_Info_Args, args, is_deleted);
    Buffer* b = args->buffer->buffer.get();
    args->type = ToC(b->element_type());
    args->dims = args->buffer->dims.data();
    args->num_dims = args->buffer->dims.size();
    args->on_device_size = b->size_in_bytes();
    args->device = C(b->device());
    args->is_deleted = b->is_deleted();
    return OkStatus();
  });
}

PJRT_Error* BufferToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Buffer_ToHostBuffer_Args, args, event);
    Buffer* b = args->src->buffer.get();
    size_t needed = b->size_in_bytes();
    args->event = nullptr;
    if (args->dst == nullptr) {
      args->dst_size = needed;
      return OkStatus();
    }
    if (args->dst_size < needed) {
      return InvalidArgument("ToHostBuffer: destination holds " + std::to_string(args->dst_size) +
                             " bytes, the buffer needs " + std::to_string(needed));
    }
    if (b->is_deleted()) return FailedPrecondition("ToHostBuffer: the buffer has been deleted");
    RETURN_IF_ERROR(b->Await());
    return b->ToHost(args->dst);
  });
}

PJRT_Error* BufferDelete(PJRT_Buffer_Delete_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Buffer_Delete_Args, args, buffer);
    args->buffer->buffer->Delete();
    return OkStatus();
  });
}

PJRT_Error* BufferReadyEvent(PJRT_Buffer_ReadyEvent_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Buffer_ReadyEvent_Args, args, event);
    // A deleted buffer will never hold a value: waiting for it is an error.
    Buffer* b = args->buffer->buffer.get();
    args->event = new PJRT_Event{
        b->is_deleted() ? FailedPrecondition("BlockUntilReady: the buffer has been deleted")
                        : b->Await()};
    return OkStatus();
  });
}

PJRT_Error* BufferUnsafePointer(PJRT_Buffer_UnsafePointer_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Buffer_UnsafePointer_Args, args, buffer_pointer);
    if (args->buffer->buffer->is_deleted()) {
      return FailedPrecondition("UnsafeBufferPointer: the buffer has been deleted");
    }
    args->buffer_pointer = args->buffer->buffer->UnsafePointer();
    return OkStatus();
  });
}

PJRT_Error* BufferIncreaseExternalReferenceCount(
    PJRT_Buffer_IncreaseExternalReferenceCount_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Buffer_IncreaseExternalReferenceCount_Args, args, buffer);
    return args->buffer->buffer->AcquireExternalReference();
  });
}

PJRT_Error* BufferDecreaseExternalReferenceCount(
    PJRT_Buffer_DecreaseExternalReferenceCount_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_Buffer_DecreaseExternalReferenceCount_Args, args, buffer);
    return args->buffer->buffer->ReleaseExternalReference();
  });
}

// ---------------------------------------------------------------- executables

PJRT_Error* ExecutableDestroy(PJRT_LoadedExecutable_Destroy_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_LoadedExecutable_Destroy_Args, args, executable);
    delete args->executable;
    return OkStatus();
  });
}

PJRT_Error* ExecutableInfo(PJRT_LoadedExecutable_Info_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_LoadedExecutable_Info_Args, args, alias_size);
    Executable* e = args->executable->executable.get();
    args->num_outputs = e->num_outputs();
    args->num_replicas = e->num_replicas();
    args->devices = args->executable->devices.data();
    args->num_devices = args->executable->devices.size();
    args->optimized_hlo = args->executable->optimized_hlo.data();
    args->optimized_hlo_size = args->executable->optimized_hlo.size();
    Executable::MemoryStats s = e->memory_stats();
    args->generated_code_size = s.generated_code_size;
    args->temp_size = s.temp_size;
    args->argument_size = s.argument_size;
    args->output_size = s.output_size;
    args->alias_size = s.alias_size;
    return OkStatus();
  });
}

PJRT_Error* ExecutableExecute(PJRT_LoadedExecutable_Execute_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_LoadedExecutable_Execute_Args, args, device_complete_events);
    Executable* e = args->executable->executable.get();
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
    std::vector<int64_t> donated(args->donated_args, args->donated_args + args->num_donated_args);
    ASSIGN_OR_RETURN(auto outputs, e->Execute(lists, donated));
    for (size_t d = 0; d < outputs.size() && d < args->num_devices; ++d) {
      for (size_t o = 0; o < outputs[d].size(); ++o) {
        args->output_lists[d][o] = WrapBuffer(std::move(outputs[d][o]));
      }
      if (args->device_complete_events != nullptr) {
        args->device_complete_events[d] = new PJRT_Event{OkStatus()};
      }
    }
    return OkStatus();
  });
}

PJRT_Error* ExecutableSerialize(PJRT_LoadedExecutable_Serialize_Args* args) {
  return Guard(__func__, [&]() -> Status {
    CHECK_ARGS(PJRT_LoadedExecutable_Serialize_Args, args, serialized_deleter);
    ASSIGN_OR_RETURN(std::string bytes, args->executable->executable->Serialize());
    auto* holder = new std::string(std::move(bytes));
    args->serialized = holder->data();
    args->serialized_size = holder->size();
    args->serialized_opaque = holder;
    args->serialized_deleter = [](void* p) { delete static_cast<std::string*>(p); };
    return OkStatus();
  });
}

PJRT_Error* CustomCallRegister(PJRT_CustomCall_Register_Args* args) {
  return Guard("PJRT_CustomCall_Register", [&]() -> Status {
    CHECK_ARGS(PJRT_CustomCall_Register_Args, args, function);
    if (args->name == nullptr) return InvalidArgument("PJRT_CustomCall_Register: name is null");
    return RegisterCustomCallTarget(std::string(args->name, args->name_size),
                                    CustomCallTarget{args->function, args->api_version});
  });
}

// The extension chain: custom calls, then host callbacks.
PJRT_Extension_Base* Extensions() {
  static PJRT_CustomCall_Extension extension = [] {
    PJRT_CustomCall_Extension e;
    std::memset(&e, 0, sizeof(e));
    e.base.struct_size = PJRT_CustomCall_Extension_STRUCT_SIZE;
    e.base.type = PJRT_Extension_Type_CustomCall;
    e.base.next = HostCallbackExtension();
    e.register_custom_call = CustomCallRegister;
    return e;
  }();
  return &extension.base;
}

}  // namespace

const PJRT_Api* CreatePjrtApi(const PluginInfo* info) {
  g_info = info;
  static const PJRT_Api api = [] {
    PJRT_Api a;
    std::memset(&a, 0, sizeof(a));
    a.struct_size = PJRT_Api_STRUCT_SIZE;
    a.extension_start = Extensions();
    a.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
    a.pjrt_api_version.major_version = PJRT_API_MAJOR;
    a.pjrt_api_version.minor_version = PJRT_API_MINOR;
    a.PJRT_Error_Destroy = ErrorDestroy;
    a.PJRT_Error_Message = ErrorMessage;
    a.PJRT_Error_GetCode = ErrorGetCode;
    a.PJRT_Plugin_Initialize = PluginInitialize;
    a.PJRT_Plugin_Attributes = PluginAttributes;
    a.PJRT_Event_Destroy = EventDestroy;
    a.PJRT_Event_IsReady = EventIsReady;
    a.PJRT_Event_Await = EventAwait;
    a.PJRT_Client_Create = ClientCreate;
    a.PJRT_Client_Destroy = ClientDestroy;
    a.PJRT_Client_PlatformName = ClientPlatformName;
    a.PJRT_Client_PlatformVersion = ClientPlatformVersion;
    a.PJRT_Client_ProcessIndex = ClientProcessIndex;
    a.PJRT_Client_Devices = ClientDevices;
    a.PJRT_Client_AddressableDevices = ClientAddressableDevices;
    a.PJRT_Client_Compile = ClientCompile;
    a.PJRT_Client_BufferFromHostBuffer = ClientBufferFromHostBuffer;
    a.PJRT_Client_DeserializeAndLoad = ClientDeserializeAndLoad;
    a.PJRT_Device_Info = DeviceInfo;
    a.PJRT_Device_Memories = DeviceMemories;
    a.PJRT_Device_MemoryStats = DeviceMemoryStats;
    a.PJRT_Memory_Info = MemoryInfo;
    a.PJRT_Buffer_Destroy = BufferDestroy;
    a.PJRT_Buffer_Info = BufferInfo;
    a.PJRT_Buffer_ToHostBuffer = BufferToHostBuffer;
    a.PJRT_Buffer_Delete = BufferDelete;
    a.PJRT_Buffer_ReadyEvent = BufferReadyEvent;
    a.PJRT_Buffer_UnsafePointer = BufferUnsafePointer;
    a.PJRT_LoadedExecutable_Destroy = ExecutableDestroy;
    a.PJRT_LoadedExecutable_Info = ExecutableInfo;
    a.PJRT_LoadedExecutable_Execute = ExecutableExecute;
    a.PJRT_LoadedExecutable_Serialize = ExecutableSerialize;
    a.PJRT_Buffer_IncreaseExternalReferenceCount = BufferIncreaseExternalReferenceCount;
    a.PJRT_Buffer_DecreaseExternalReferenceCount = BufferDecreaseExternalReferenceCount;
    return a;
  }();
  return &api;
}

}  // namespace xla
