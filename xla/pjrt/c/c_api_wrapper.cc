// Turns a C++ backend (xla/pjrt/client.h) into PJRT's C API table: errors,
// events, plugin attributes, clients, devices and memories here; buffers in
// c_api_buffers.cc, compiling and executables in c_api_executables.cc.
#include "xla/pjrt/c/c_api_wrapper.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "xla/pjrt/c/c_api_internal.h"
#include "xla/pjrt/c/custom_call_registry.h"
#include "xla/pjrt/c/host_callback_registry.h"
#include "xla/pjrt/c/pjrt_c_api_host_extensions.h"

void EventState::Set(xla::Status s) {
  std::vector<std::function<void(xla::Status)>> callbacks;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (ready) return;
    ready = true;
    status = std::move(s);
    callbacks.swap(on_ready);
  }
  cv.notify_all();
  for (auto& fn : callbacks) fn(status);
}

xla::Status EventState::Await() {
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [this] { return ready; });
  return status;
}

void EventState::OnReady(std::function<void(xla::Status)> fn) {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!ready) {
      on_ready.push_back(std::move(fn));
      return;
    }
  }
  fn(status);
}

namespace xla::c_api {

PJRT_Event* ReadyEvent(Status status) {
  auto state = std::make_shared<EventState>();
  state->Set(std::move(status));
  return new PJRT_Event{std::move(state)};
}

namespace {

const PluginInfo* g_info = nullptr;

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
    PJRT_CHECK_ARGS(PJRT_Error_GetCode_Args, args, code);
    args->code = static_cast<PJRT_Error_Code>(args->error->status.code());
    return OkStatus();
  });
}

// What a callback the caller runs for us (the key-value store) reports.
PJRT_Error* MakeCallbackError(PJRT_Error_Code code, const char* message, size_t size) {
  return new PJRT_Error{Status(static_cast<StatusCode>(code), std::string(message, size))};
}
PJRT_CallbackError g_callback_error = MakeCallbackError;

// ---------------------------------------------------------------- plugin

PJRT_Error* PluginInitialize(PJRT_Plugin_Initialize_Args* args) { return nullptr; }

PJRT_NamedValue StringAttribute(const char* name, const std::string& value) {
  PJRT_NamedValue v;
  std::memset(&v, 0, sizeof(v));
  v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  v.name = name;
  v.name_size = std::strlen(name);
  v.type = PJRT_NamedValue_kString;
  v.string_value = value.c_str();
  v.value_size = value.size();
  return v;
}

PJRT_NamedValue BoolAttribute(const char* name, bool value) {
  PJRT_NamedValue v;
  std::memset(&v, 0, sizeof(v));
  v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  v.name = name;
  v.name_size = std::strlen(name);
  v.type = PJRT_NamedValue_kBool;
  v.bool_value = value;
  v.value_size = 1;
  return v;
}

// "plugin_version" and "platform_names" tell jax which of our releases and
// backends this is; other plugins do not have them.
PJRT_Error* PluginAttributes(PJRT_Plugin_Attributes_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Plugin_Attributes_Args, args, num_attributes);
    static const std::vector<PJRT_NamedValue>* attributes = [] {
      auto* a = new std::vector<PJRT_NamedValue>;
      a->push_back(StringAttribute("plugin_version", g_info->plugin_version));
      a->push_back(StringAttribute("platform_names", g_info->platform_names));
      a->push_back(BoolAttribute("supports_executable_serialization", true));
      return a;
    }();
    args->attributes = attributes->data();
    args->num_attributes = attributes->size();
    return OkStatus();
  });
}

// ---------------------------------------------------------------- events

PJRT_Error* EventDestroy(PJRT_Event_Destroy_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Event_Destroy_Args, args, event);
    delete args->event;
    return OkStatus();
  });
}

PJRT_Error* EventIsReady(PJRT_Event_IsReady_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Event_IsReady_Args, args, is_ready);
    std::lock_guard<std::mutex> lock(args->event->state->mu);
    args->is_ready = args->event->state->ready;
    return OkStatus();
  });
}

PJRT_Error* EventError(PJRT_Event_Error_Args* args) {
  if (args == nullptr || args->event == nullptr) {
    return ToError(InvalidArgument("PJRT_Event_Error: no event"));
  }
  EventState& state = *args->event->state;
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.ready) return ToError(FailedPrecondition("PJRT_Event_Error: the event is not ready"));
  return ToError(state.status);
}

PJRT_Error* EventAwait(PJRT_Event_Await_Args* args) {
  if (args == nullptr || args->event == nullptr) {
    return ToError(InvalidArgument("PJRT_Event_Await: no event"));
  }
  return ToError(args->event->state->Await());
}

PJRT_Error* EventOnReady(PJRT_Event_OnReady_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Event_OnReady_Args, args, user_arg);
    if (args->callback == nullptr) return InvalidArgument("PJRT_Event_OnReady: callback is NULL");
    args->event->state->OnReady([callback = args->callback, user_arg = args->user_arg](Status s) {
      callback(ToError(std::move(s)), user_arg);
    });
    return OkStatus();
  });
}

// ---------------------------------------------------------------- client

// The caller's key-value callbacks as the C++ store a plugin's client takes.
KeyValueStore KvStoreOf(const PJRT_Client_Create_Args& args) {
  KeyValueStore kv;
  kv.get = [get = args.kv_get_callback, arg = args.kv_get_user_arg](
               const std::string& key, int64_t timeout_ms) -> StatusOr<std::string> {
    PJRT_KeyValueGetCallback_Args a;
    std::memset(&a, 0, sizeof(a));
    a.struct_size = PJRT_KeyValueGetCallback_Args_STRUCT_SIZE;
    a.key = key.data();
    a.key_size = key.size();
    a.timeout_in_ms = static_cast<int>(timeout_ms);
    a.callback_error = &g_callback_error;
    a.user_arg = arg;
    if (PJRT_Error* error = get(&a)) {
      Status s(error->status.code(), "key-value get '" + key + "': " + error->status.message());
      delete error;
      return s;
    }
    std::string value(a.value, a.value_size);
    if (a.value_deleter_callback != nullptr) a.value_deleter_callback(a.value);
    return value;
  };
  kv.put = [put = args.kv_put_callback, arg = args.kv_put_user_arg](
               const std::string& key, const std::string& value) -> Status {
    PJRT_KeyValuePutCallback_Args a;
    std::memset(&a, 0, sizeof(a));
    a.struct_size = PJRT_KeyValuePutCallback_Args_STRUCT_SIZE;
    a.key = key.data();
    a.key_size = key.size();
    a.value = value.data();
    a.value_size = value.size();
    a.callback_error = &g_callback_error;
    a.user_arg = arg;
    if (PJRT_Error* error = put(&a)) {
      Status s(error->status.code(), "key-value put '" + key + "': " + error->status.message());
      delete error;
      return s;
    }
    return OkStatus();
  };
  return kv;
}

// Devices and memories keep their lists in their client; a device finds its
// client through this registry (handles are the backend's own pointers).
std::mutex g_clients_mu;
std::vector<PJRT_Client*>& Clients() {
  static auto* clients = new std::vector<PJRT_Client*>();
  return *clients;
}

PJRT_Client* WrapClient(std::unique_ptr<Client> client) {
  auto* c = new PJRT_Client();
  c->client = std::move(client);
  for (Device* d : c->client->devices()) {
    c->devices.push_back(C(d));
    std::vector<PJRT_Memory*>& memories = c->device_memories[C(d)];
    for (Memory* m : d->memories()) {
      memories.push_back(C(m));
      c->memory_devices[C(m)].push_back(C(d));
    }
  }
  for (Device* d : c->client->addressable_devices()) {
    c->addressable_devices.push_back(C(d));
    for (Memory* m : d->memories()) {
      if (std::find(c->addressable_memories.begin(), c->addressable_memories.end(), C(m)) ==
          c->addressable_memories.end()) {
        c->addressable_memories.push_back(C(m));
      }
    }
  }
  std::lock_guard<std::mutex> lock(g_clients_mu);
  Clients().push_back(c);
  return c;
}

PJRT_Error* ClientCreate(PJRT_Client_Create_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Client_Create_Args, args, client);
    ASSIGN_OR_RETURN(Options options, ToOptions(args->create_options, args->num_options));
    std::unique_ptr<Client> client;
    if (args->kv_get_callback != nullptr && args->kv_put_callback != nullptr &&
        g_info->create_distributed_client != nullptr) {
      ASSIGN_OR_RETURN(client, g_info->create_distributed_client(options, KvStoreOf(*args)));
    } else {
      ASSIGN_OR_RETURN(client, g_info->create_client(options));
    }
    args->client = WrapClient(std::move(client));
    return OkStatus();
  });
}

PJRT_Error* ClientDestroy(PJRT_Client_Destroy_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Client_Destroy_Args, args, client);
    {
      std::lock_guard<std::mutex> lock(g_clients_mu);
      auto& clients = Clients();
      clients.erase(std::remove(clients.begin(), clients.end(), args->client), clients.end());
    }
    delete args->client;
    return OkStatus();
  });
}

PJRT_Error* ClientPlatformName(PJRT_Client_PlatformName_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Client_PlatformName_Args, args, platform_name_size);
    const std::string& s = args->client->client->platform_name();
    args->platform_name = s.data();
    args->platform_name_size = s.size();
    return OkStatus();
  });
}

PJRT_Error* ClientPlatformVersion(PJRT_Client_PlatformVersion_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Client_PlatformVersion_Args, args, platform_version_size);
    const std::string& s = args->client->client->platform_version();
    args->platform_version = s.data();
    args->platform_version_size = s.size();
    return OkStatus();
  });
}

PJRT_Error* ClientProcessIndex(PJRT_Client_ProcessIndex_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Client_ProcessIndex_Args, args, process_index);
    args->process_index = args->client->client->process_index();
    return OkStatus();
  });
}

PJRT_Error* ClientDevices(PJRT_Client_Devices_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Client_Devices_Args, args, num_devices);
    args->devices = args->client->devices.data();
    args->num_devices = args->client->devices.size();
    return OkStatus();
  });
}

PJRT_Error* ClientAddressableDevices(PJRT_Client_AddressableDevices_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Client_AddressableDevices_Args, args, num_addressable_devices);
    args->addressable_devices = args->client->addressable_devices.data();
    args->num_addressable_devices = args->client->addressable_devices.size();
    return OkStatus();
  });
}

PJRT_Error* ClientLookupDevice(PJRT_Client_LookupDevice_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Client_LookupDevice_Args, args, device);
    for (PJRT_Device* d : args->client->devices) {
      if (D(d)->id() == args->id) {
        args->device = d;
        return OkStatus();
      }
    }
    return InvalidArgument("no device with id " + std::to_string(args->id));
  });
}

PJRT_Error* ClientLookupAddressableDevice(PJRT_Client_LookupAddressableDevice_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Client_LookupAddressableDevice_Args, args, addressable_device);
    for (PJRT_Device* d : args->client->addressable_devices) {
      if (D(d)->local_hardware_id() == args->local_hardware_id) {
        args->addressable_device = d;
        return OkStatus();
      }
    }
    return InvalidArgument("no addressable device with local hardware id " +
                           std::to_string(args->local_hardware_id));
  });
}

PJRT_Error* ClientAddressableMemories(PJRT_Client_AddressableMemories_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Client_AddressableMemories_Args, args, num_addressable_memories);
    args->addressable_memories = args->client->addressable_memories.data();
    args->num_addressable_memories = args->client->addressable_memories.size();
    return OkStatus();
  });
}

PJRT_Error* ClientDefaultDeviceAssignment(PJRT_Client_DefaultDeviceAssignment_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Client_DefaultDeviceAssignment_Args, args, default_assignment);
    const auto& devices = args->client->addressable_devices;
    const int64_t needed = int64_t{args->num_replicas} * args->num_partitions;
    if (args->num_replicas < 1 || args->num_partitions < 1) {
      return InvalidArgument("DefaultDeviceAssignment: replicas and partitions must be positive");
    }
    if (needed > static_cast<int64_t>(devices.size())) {
      return InvalidArgument("DefaultDeviceAssignment: " + std::to_string(needed) +
                             " devices needed, the client has " + std::to_string(devices.size()));
    }
    if (static_cast<int64_t>(args->default_assignment_size) < needed) {
      return InvalidArgument("DefaultDeviceAssignment: the output holds " +
                             std::to_string(args->default_assignment_size) + " ids, " +
                             std::to_string(needed) + " are needed");
    }
    for (int64_t i = 0; i < needed; ++i) args->default_assignment[i] = D(devices[i])->id();
    return OkStatus();
  });
}

// ---------------------------------------------------------------- devices

// A device is its own description: PJRT_DeviceDescription handles are the
// same pointers as the devices.
PJRT_Error* DeviceGetDescription(PJRT_Device_GetDescription_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Device_GetDescription_Args, args, device_description);
    args->device_description = reinterpret_cast<PJRT_DeviceDescription*>(args->device);
    return OkStatus();
  });
}

PJRT_Error* DescriptionId(PJRT_DeviceDescription_Id_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_DeviceDescription_Id_Args, args, id);
    args->id = D(args->device_description)->id();
    return OkStatus();
  });
}

PJRT_Error* DescriptionProcessIndex(PJRT_DeviceDescription_ProcessIndex_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_DeviceDescription_ProcessIndex_Args, args, process_index);
    args->process_index = D(args->device_description)->process_index();
    return OkStatus();
  });
}

PJRT_Error* DescriptionAttributes(PJRT_DeviceDescription_Attributes_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_DeviceDescription_Attributes_Args, args, attributes);
    args->num_attributes = 0;
    args->attributes = nullptr;
    return OkStatus();
  });
}

PJRT_Error* DescriptionKind(PJRT_DeviceDescription_Kind_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_DeviceDescription_Kind_Args, args, device_kind_size);
    const std::string& s = D(args->device_description)->kind();
    args->device_kind = s.data();
    args->device_kind_size = s.size();
    return OkStatus();
  });
}

PJRT_Error* DescriptionDebugString(PJRT_DeviceDescription_DebugString_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_DeviceDescription_DebugString_Args, args, debug_string_size);
    const std::string& s = D(args->device_description)->debug_string();
    args->debug_string = s.data();
    args->debug_string_size = s.size();
    return OkStatus();
  });
}

PJRT_Error* DescriptionToString(PJRT_DeviceDescription_ToString_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_DeviceDescription_ToString_Args, args, to_string_size);
    const std::string& s = D(args->device_description)->debug_string();
    args->to_string = s.data();
    args->to_string_size = s.size();
    return OkStatus();
  });
}

PJRT_Error* DeviceIsAddressable(PJRT_Device_IsAddressable_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Device_IsAddressable_Args, args, is_addressable);
    args->is_addressable = D(args->device)->is_addressable();
    return OkStatus();
  });
}

PJRT_Error* DeviceLocalHardwareId(PJRT_Device_LocalHardwareId_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Device_LocalHardwareId_Args, args, local_hardware_id);
    Device* d = D(args->device);
    args->local_hardware_id = d->is_addressable() ? d->local_hardware_id() : -1;
    return OkStatus();
  });
}

template <typename Key, typename Value>
const Value* FindInClients(const std::map<Key, Value> PJRT_Client::*table, Key key) {
  std::lock_guard<std::mutex> lock(g_clients_mu);
  for (PJRT_Client* c : Clients()) {
    auto it = (c->*table).find(key);
    if (it != (c->*table).end()) return &it->second;
  }
  return nullptr;
}

PJRT_Error* DeviceAddressableMemories(PJRT_Device_AddressableMemories_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Device_AddressableMemories_Args, args, num_memories);
    const auto* list = FindInClients(&PJRT_Client::device_memories, args->device);
    if (list == nullptr) return InvalidArgument("AddressableMemories: unknown device");
    args->memories = list->data();
    args->num_memories = list->size();
    return OkStatus();
  });
}

PJRT_Error* DeviceDefaultMemory(PJRT_Device_DefaultMemory_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Device_DefaultMemory_Args, args, memory);
    args->memory = C(D(args->device)->default_memory());
    return OkStatus();
  });
}

PJRT_Error* DeviceMemoryStats(PJRT_Device_MemoryStats_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Device_MemoryStats_Args, args, num_allocs_is_set);
    Device::MemoryStats s = D(args->device)->memory_stats();
    args->bytes_in_use = s.bytes_in_use;
    args->peak_bytes_in_use = s.peak_bytes_in_use;
    args->peak_bytes_in_use_is_set = true;
    args->num_allocs = s.num_allocs;
    args->num_allocs_is_set = true;
    return OkStatus();
  });
}

// ---------------------------------------------------------------- memories

PJRT_Error* MemoryId(PJRT_Memory_Id_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Memory_Id_Args, args, id);
    args->id = M(args->memory)->id();
    return OkStatus();
  });
}

PJRT_Error* MemoryKind(PJRT_Memory_Kind_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Memory_Kind_Args, args, kind_size);
    const std::string& s = M(args->memory)->kind();
    args->kind = s.data();
    args->kind_size = s.size();
    return OkStatus();
  });
}

// Kind ids number the kinds a plugin knows, in a fixed order.
PJRT_Error* MemoryKindId(PJRT_Memory_Kind_Id_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Memory_Kind_Id_Args, args, kind_id);
    static const char* const kKinds[] = {"device", "pinned_host", "unpinned_host"};
    const std::string& kind = M(args->memory)->kind();
    for (int i = 0; i < 3; ++i) {
      if (kind == kKinds[i]) {
        args->kind_id = i;
        return OkStatus();
      }
    }
    return Internal("memory kind '" + kind + "' has no id");
  });
}

PJRT_Error* MemoryDebugString(PJRT_Memory_DebugString_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Memory_DebugString_Args, args, debug_string_size);
    const std::string& s = M(args->memory)->kind();
    args->debug_string = s.data();
    args->debug_string_size = s.size();
    return OkStatus();
  });
}

PJRT_Error* MemoryToString(PJRT_Memory_ToString_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Memory_ToString_Args, args, to_string_size);
    const std::string& s = M(args->memory)->kind();
    args->to_string = s.data();
    args->to_string_size = s.size();
    return OkStatus();
  });
}

PJRT_Error* MemoryAddressableByDevices(PJRT_Memory_AddressableByDevices_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Memory_AddressableByDevices_Args, args, num_devices);
    const auto* list = FindInClients(&PJRT_Client::memory_devices, args->memory);
    if (list == nullptr) return InvalidArgument("AddressableByDevices: unknown memory");
    args->devices = list->data();
    args->num_devices = list->size();
    return OkStatus();
  });
}

// ---------------------------------------------------------------- extensions

PJRT_Error* CustomCallRegister(PJRT_CustomCall_Register_Args* args) {
  return Guard("PJRT_CustomCall_Register", [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_CustomCall_Register_Args, args, function);
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
    PJRT_SetExtensionType(&e.base, PJRT_EXTENSION_JAX_CUSTOM_CALL);
    e.base.next = HostCallbackExtension();
    e.register_custom_call = CustomCallRegister;
    return e;
  }();
  return &extension.base;
}

}  // namespace

void FillClientEntries(PJRT_Api& a) {
  a.PJRT_Error_Destroy = ErrorDestroy;
  a.PJRT_Error_Message = ErrorMessage;
  a.PJRT_Error_GetCode = ErrorGetCode;
  a.PJRT_Plugin_Initialize = PluginInitialize;
  a.PJRT_Plugin_Attributes = PluginAttributes;
  a.PJRT_Event_Destroy = EventDestroy;
  a.PJRT_Event_IsReady = EventIsReady;
  a.PJRT_Event_Error = EventError;
  a.PJRT_Event_Await = EventAwait;
  a.PJRT_Event_OnReady = EventOnReady;
  a.PJRT_Client_Create = ClientCreate;
  a.PJRT_Client_Destroy = ClientDestroy;
  a.PJRT_Client_PlatformName = ClientPlatformName;
  a.PJRT_Client_ProcessIndex = ClientProcessIndex;
  a.PJRT_Client_PlatformVersion = ClientPlatformVersion;
  a.PJRT_Client_Devices = ClientDevices;
  a.PJRT_Client_AddressableDevices = ClientAddressableDevices;
  a.PJRT_Client_LookupDevice = ClientLookupDevice;
  a.PJRT_Client_LookupAddressableDevice = ClientLookupAddressableDevice;
  a.PJRT_Client_AddressableMemories = ClientAddressableMemories;
  a.PJRT_Client_DefaultDeviceAssignment = ClientDefaultDeviceAssignment;
  a.PJRT_DeviceDescription_Id = DescriptionId;
  a.PJRT_DeviceDescription_ProcessIndex = DescriptionProcessIndex;
  a.PJRT_DeviceDescription_Attributes = DescriptionAttributes;
  a.PJRT_DeviceDescription_Kind = DescriptionKind;
  a.PJRT_DeviceDescription_DebugString = DescriptionDebugString;
  a.PJRT_DeviceDescription_ToString = DescriptionToString;
  a.PJRT_Device_GetDescription = DeviceGetDescription;
  a.PJRT_Device_IsAddressable = DeviceIsAddressable;
  a.PJRT_Device_LocalHardwareId = DeviceLocalHardwareId;
  a.PJRT_Device_AddressableMemories = DeviceAddressableMemories;
  a.PJRT_Device_DefaultMemory = DeviceDefaultMemory;
  a.PJRT_Device_MemoryStats = DeviceMemoryStats;
  a.PJRT_Memory_Id = MemoryId;
  a.PJRT_Memory_Kind = MemoryKind;
  a.PJRT_Memory_Kind_Id = MemoryKindId;
  a.PJRT_Memory_DebugString = MemoryDebugString;
  a.PJRT_Memory_ToString = MemoryToString;
  a.PJRT_Memory_AddressableByDevices = MemoryAddressableByDevices;
}

}  // namespace xla::c_api

namespace xla {

const PJRT_Api* CreatePjrtApi(const PluginInfo* info) {
  c_api::g_info = info;
  static const PJRT_Api api = [] {
    PJRT_Api a;
    std::memset(&a, 0, sizeof(a));
    a.struct_size = PJRT_Api_STRUCT_SIZE;
    a.extension_start = c_api::Extensions();
    a.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
    a.pjrt_api_version.major_version = PJRT_API_MAJOR;
    a.pjrt_api_version.minor_version = PJRT_API_MINOR;
    c_api::FillClientEntries(a);
    c_api::FillBufferEntries(a);
    c_api::FillExecutableEntries(a);
    c_api::FillUnimplementedEntries(a);
    return a;
  }();
  return &api;
}

}  // namespace xla
