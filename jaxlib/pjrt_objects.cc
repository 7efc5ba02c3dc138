#include "jaxlib/pjrt_objects.h"

#include <stdexcept>

#include "jaxlib/status_casters.h"

namespace jax {

// ------------------------------------------------------------------ device

PyDevice::PyDevice(PyClient* client, PJRT_Device* device) : client_(client), device_(device) {
  const PJRT_Api* api = client->api();
  auto info = PjrtArgs<PJRT_Device_Info_Args>();
  info.device = device;
  ThrowIfError(api, api->PJRT_Device_Info(&info));
  id = info.id;
  process_index = info.process_index;
  local_hardware_id = info.local_hardware_id;
  is_addressable = info.is_addressable;
  kind.assign(info.kind, info.kind_size);
  debug_string.assign(info.debug_string, info.debug_string_size);
  platform = client->platform();
  auto mem = PjrtArgs<PJRT_Device_Memories_Args>();
  mem.device = device;
  ThrowIfError(api, api->PJRT_Device_Memories(&mem));
  for (size_t i = 0; i < mem.num_memories; ++i) {
    auto minfo = PjrtArgs<PJRT_Memory_Info_Args>();
    minfo.memory = mem.memories[i];
    ThrowIfError(api, api->PJRT_Memory_Info(&minfo));
    auto m = std::make_shared<PyMemory>(
        PyMemory{mem.memories[i], minfo.id, std::string(minfo.kind, minfo.kind_size)});
    if (mem.memories[i] == mem.default_memory) default_memory = m;
    memories.push_back(std::move(m));
  }
}

PyDevice::MemoryStats PyDevice::GetMemoryStats() const {
  const PJRT_Api* api = client_->api();
  auto args = PjrtArgs<PJRT_Device_MemoryStats_Args>();
  args.device = device_;
  ThrowIfError(api, api->PJRT_Device_MemoryStats(&args));
  return MemoryStats{args.bytes_in_use, args.peak_bytes_in_use, args.num_allocs};
}

std::shared_ptr<PyClient> PyDevice::client() const { return client_->shared_from_this(); }

// ------------------------------------------------------------------ client

std::shared_ptr<PyClient> PyClient::Create(std::shared_ptr<Plugin> plugin,
                                           const std::vector<PJRT_NamedValue>& options,
                                           const KvCallbacks* kv) {
  const PJRT_Api* api = plugin->api;
  auto args = PjrtArgs<PJRT_Client_Create_Args>();
  args.create_options = options.data();
  args.num_options = options.size();
  if (kv != nullptr) {
    if (plugin->api_minor < 4) {
      throw XlaRuntimeError("INVALID_ARGUMENT: this plugin (C API 1." +
                            std::to_string(plugin->api_minor) +
                            ") has no multi-process clients; it needs C API 1.4 or newer");
    }
    args.kv_get_callback = kv->get;
    args.kv_get_user_arg = kv->user_arg;
    args.kv_put_callback = kv->put;
    args.kv_put_user_arg = kv->user_arg;
  }
  ThrowIfError(api, api->PJRT_Client_Create(&args));
  std::shared_ptr<PyClient> c(new PyClient());
  if (kv != nullptr) c->kv_store_ = kv->keep_alive;
  c->plugin_ = std::move(plugin);
  c->client_ = args.client;

  auto name = PjrtArgs<PJRT_Client_PlatformName_Args>();
  name.client = c->client_;
  ThrowIfError(api, api->PJRT_Client_PlatformName(&name));
  c->platform_.assign(name.platform_name, name.platform_name_size);
  auto version = PjrtArgs<PJRT_Client_PlatformVersion_Args>();
  version.client = c->client_;
  ThrowIfError(api, api->PJRT_Client_PlatformVersion(&version));
  c->platform_version_.assign(version.platform_version, version.platform_version_size);
  auto process = PjrtArgs<PJRT_Client_ProcessIndex_Args>();
  process.client = c->client_;
  ThrowIfError(api, api->PJRT_Client_ProcessIndex(&process));
  c->process_index_ = process.process_index;
  auto devices = PjrtArgs<PJRT_Client_Devices_Args>();
  devices.client = c->client_;
  ThrowIfError(api, api->PJRT_Client_Devices(&devices));
  for (size_t i = 0; i < devices.num_devices; ++i) {
    c->devices_.push_back(std::make_shared<PyDevice>(c.get(), devices.devices[i]));
  }
  return c;
}

PyClient::~PyClient() {
  if (client_ == nullptr) return;
  auto args = PjrtArgs<PJRT_Client_Destroy_Args>();
  args.client = client_;
  PJRT_Error* error = api()->PJRT_Client_Destroy(&args);
  if (error != nullptr) {
    auto d = PjrtArgs<PJRT_Error_Destroy_Args>();
    d.error = error;
    api()->PJRT_Error_Destroy(&d);
  }
}

std::vector<std::shared_ptr<PyDevice>> PyClient::devices() const {
  std::shared_ptr<const PyClient> self = shared_from_this();
  std::vector<std::shared_ptr<PyDevice>> out;
  out.reserve(devices_.size());
  for (const auto& d : devices_) out.emplace_back(self, d.get());
  return out;
}

std::vector<std::shared_ptr<PyDevice>> PyClient::addressable_devices() const {
  std::vector<std::shared_ptr<PyDevice>> out;
  for (auto& d : devices()) {
    if (d->is_addressable) out.push_back(std::move(d));
  }
  return out;
}

std::shared_ptr<PyDevice> PyClient::LookupDevice(PJRT_Device* device) const {
  for (const auto& d : devices_) {
    if (d->c_device() == device) return std::shared_ptr<PyDevice>(shared_from_this(), d.get());
  }
  throw XlaRuntimeError("INTERNAL: the plugin returned a device this client does not know");
}

std::shared_ptr<PyBuffer> PyClient::BufferFromHostBuffer(const void* data, PJRT_Buffer_Type type,
                                                         const int64_t* dims, size_t num_dims,
                                                         PJRT_Device* device,
                                                         void (*done_with_host_buffer)(void*),
                                                         void* done_user_data) {
  auto args = PjrtArgs<PJRT_Client_BufferFromHostBuffer_Args>();
  args.client = client_;
  args.data = data;
  args.type = type;
  args.dims = dims;
  args.num_dims = num_dims;
  args.device = device;
  args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  if (done_with_host_buffer != nullptr) {
    args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableZeroCopy;
    args.done_with_host_buffer = done_with_host_buffer;
    args.done_user_data = done_user_data;
  }
  ThrowIfError(api(), api()->PJRT_Client_BufferFromHostBuffer(&args));
  return std::make_shared<PyBuffer>(shared_from_this(), args.buffer);
}

std::shared_ptr<PyLoadedExecutable> PyClient::Compile(const std::string& format,
                                                      const std::string& code,
                                                      const std::vector<PJRT_Device*>& devices,
                                                      const std::vector<PJRT_NamedValue>& options) {
  auto args = PjrtArgs<PJRT_Client_Compile_Args>();
  args.client = client_;
  args.format = format.data();
  args.format_size = format.size();
  args.code = code.data();
  args.code_size = code.size();
  args.compile_options = options.data();
  args.num_options = options.size();
  args.devices = devices.data();
  args.num_devices = devices.size();
  ThrowIfError(api(), api()->PJRT_Client_Compile(&args));
  return std::make_shared<PyLoadedExecutable>(shared_from_this(), args.executable);
}

std::shared_ptr<PyLoadedExecutable> PyClient::DeserializeAndLoad(
    const char* serialized, size_t size, const std::vector<PJRT_Device*>& devices) {
  auto args = PjrtArgs<PJRT_Client_DeserializeAndLoad_Args>();
  args.client = client_;
  args.serialized = serialized;
  args.serialized_size = size;
  args.devices = devices.data();
  args.num_devices = devices.size();
  ThrowIfError(api(), api()->PJRT_Client_DeserializeAndLoad(&args));
  return std::make_shared<PyLoadedExecutable>(shared_from_this(), args.executable);
}

// ------------------------------------------------------------------ buffer

void PyClient::AddLiveBuffer(PyBuffer* buffer) {
  std::lock_guard<std::mutex> lock(live_mu_);
  live_buffers_.insert(buffer);
}

void PyClient::RemoveLiveBuffer(PyBuffer* buffer) {
  std::lock_guard<std::mutex> lock(live_mu_);
  live_buffers_.erase(buffer);
}

PyBuffer::PyBuffer(std::shared_ptr<PyClient> client, PJRT_Buffer* buffer)
    : client_(std::move(client)), buffer_(buffer) {
  auto info = PjrtArgs<PJRT_Buffer_Info_Args>();
  info.buffer = buffer;
  ThrowIfError(client_->api(), client_->api()->PJRT_Buffer_Info(&info));
  type_ = info.type;
  dims_.assign(info.dims, info.dims + info.num_dims);
  size_ = info.on_device_size;
  device_ = client_->LookupDevice(info.device);
  client_->AddLiveBuffer(this);
}

PyBuffer::~PyBuffer() {
  client_->RemoveLiveBuffer(this);
  auto args = PjrtArgs<PJRT_Buffer_Destroy_Args>();
  args.buffer = buffer_;
  PJRT_Error* error = client_->api()->PJRT_Buffer_Destroy(&args);
  if (error != nullptr) {
    auto d = PjrtArgs<PJRT_Error_Destroy_Args>();
    d.error = error;
    client_->api()->PJRT_Error_Destroy(&d);
  }
}

bool PyBuffer::is_deleted() const {
  auto info = PjrtArgs<PJRT_Buffer_Info_Args>();
  info.buffer = buffer_;
  ThrowIfError(client_->api(), client_->api()->PJRT_Buffer_Info(&info));
  return info.is_deleted;
}

void PyBuffer::Delete() {
  auto args = PjrtArgs<PJRT_Buffer_Delete_Args>();
  args.buffer = buffer_;
  ThrowIfError(client_->api(), client_->api()->PJRT_Buffer_Delete(&args));
}

void PyBuffer::BlockUntilReady() const {
  const PJRT_Api* api = client_->api();
  auto args = PjrtArgs<PJRT_Buffer_ReadyEvent_Args>();
  args.buffer = buffer_;
  ThrowIfError(api, api->PJRT_Buffer_ReadyEvent(&args));
  auto wait = PjrtArgs<PJRT_Event_Await_Args>();
  wait.event = args.event;
  PJRT_Error* error = api->PJRT_Event_Await(&wait);
  auto destroy = PjrtArgs<PJRT_Event_Destroy_Args>();
  destroy.event = args.event;
  api->PJRT_Event_Destroy(&destroy);
  ThrowIfError(api, error);
}

void PyBuffer::CopyToHost(void* dst) const {
  const PJRT_Api* api = client_->api();
  auto args = PjrtArgs<PJRT_Buffer_ToHostBuffer_Args>();
  args.src = buffer_;
  args.dst = dst;
  args.dst_size = size_;
  ThrowIfError(api, api->PJRT_Buffer_ToHostBuffer(&args));
  if (args.event != nullptr) {
    auto wait = PjrtArgs<PJRT_Event_Await_Args>();
    wait.event = args.event;
    PJRT_Error* error = api->PJRT_Event_Await(&wait);
    auto destroy = PjrtArgs<PJRT_Event_Destroy_Args>();
    destroy.event = args.event;
    api->PJRT_Event_Destroy(&destroy);
    ThrowIfError(api, error);
  }
}

uintptr_t PyBuffer::UnsafePointer() const {
  auto args = PjrtArgs<PJRT_Buffer_UnsafePointer_Args>();
  args.buffer = buffer_;
  ThrowIfError(client_->api(), client_->api()->PJRT_Buffer_UnsafePointer(&args));
  return args.buffer_pointer;
}

bool PyBuffer::TryAcquireExternalReference() {
  const PJRT_Api* api = client_->api();
  if (client_->plugin()->api_minor < 2) return false;
  auto args = PjrtArgs<PJRT_Buffer_IncreaseExternalReferenceCount_Args>();
  args.buffer = buffer_;
  PJRT_Error* error = api->PJRT_Buffer_IncreaseExternalReferenceCount(&args);
  if (error != nullptr) {
    auto code = PjrtArgs<PJRT_Error_GetCode_Args>();
    code.error = error;
    PJRT_Error* code_error = api->PJRT_Error_GetCode(&code);
    if (code_error == nullptr && code.code == PJRT_Error_Code_UNIMPLEMENTED) {
      auto destroy = PjrtArgs<PJRT_Error_Destroy_Args>();
      destroy.error = error;
      api->PJRT_Error_Destroy(&destroy);
      return false;
    }
    if (code_error != nullptr) {
      auto destroy = PjrtArgs<PJRT_Error_Destroy_Args>();
      destroy.error = code_error;
      api->PJRT_Error_Destroy(&destroy);
    }
    ThrowIfError(api, error);
  }
  return true;
}

void PyBuffer::ReleaseExternalReference() {
  auto args = PjrtArgs<PJRT_Buffer_DecreaseExternalReferenceCount_Args>();
  args.buffer = buffer_;
  ThrowIfError(client_->api(), client_->api()->PJRT_Buffer_DecreaseExternalReferenceCount(&args));
}

// ------------------------------------------------------------------ executable

PyLoadedExecutable::PyLoadedExecutable(std::shared_ptr<PyClient> client,
                                       PJRT_LoadedExecutable* executable)
    : client_(std::move(client)), executable_(executable) {
  PJRT_LoadedExecutable_Info_Args info = Info();
  num_outputs_ = info.num_outputs;
  num_replicas_ = info.num_replicas;
  optimized_hlo_.assign(info.optimized_hlo, info.optimized_hlo_size);
  for (size_t i = 0; i < info.num_devices; ++i) {
    devices_.push_back(client_->LookupDevice(info.devices[i]));
  }
}

PJRT_LoadedExecutable_Info_Args PyLoadedExecutable::Info() const {
  auto info = PjrtArgs<PJRT_LoadedExecutable_Info_Args>();
  info.executable = executable_;
  ThrowIfError(client_->api(), client_->api()->PJRT_LoadedExecutable_Info(&info));
  return info;
}

PyLoadedExecutable::~PyLoadedExecutable() {
  auto args = PjrtArgs<PJRT_LoadedExecutable_Destroy_Args>();
  args.executable = executable_;
  PJRT_Error* error = client_->api()->PJRT_LoadedExecutable_Destroy(&args);
  if (error != nullptr) {
    auto d = PjrtArgs<PJRT_Error_Destroy_Args>();
    d.error = error;
    client_->api()->PJRT_Error_Destroy(&d);
  }
}

std::vector<std::vector<std::shared_ptr<PyBuffer>>> PyLoadedExecutable::Execute(
    const std::vector<std::vector<PyBuffer*>>& args, const std::vector<int64_t>& donated) {
  const size_t num_devices = args.size();
  const size_t num_args = num_devices ? args[0].size() : 0;
  std::vector<std::vector<PJRT_Buffer*>> c_args(num_devices);
  std::vector<PJRT_Buffer* const*> c_arg_lists(num_devices);
  for (size_t d = 0; d < num_devices; ++d) {
    if (args[d].size() != num_args) {
      throw std::invalid_argument("execute: every device needs the same number of arguments");
    }
    for (PyBuffer* b : args[d]) c_args[d].push_back(b->c_buffer());
    c_arg_lists[d] = c_args[d].data();
  }
  std::vector<std::vector<PJRT_Buffer*>> outs(num_devices, std::vector<PJRT_Buffer*>(num_outputs_));
  std::vector<PJRT_Buffer**> out_lists(num_devices);
  for (size_t d = 0; d < num_devices; ++d) out_lists[d] = outs[d].data();

  auto exec = PjrtArgs<PJRT_LoadedExecutable_Execute_Args>();
  exec.executable = executable_;
  exec.argument_lists = c_arg_lists.data();
  exec.num_devices = num_devices;
  exec.num_args = num_args;
  exec.donated_args = donated.data();
  exec.num_donated_args = donated.size();
  exec.output_lists = out_lists.data();
  ThrowIfError(client_->api(), client_->api()->PJRT_LoadedExecutable_Execute(&exec));
  std::vector<std::vector<std::shared_ptr<PyBuffer>>> result(num_devices);
  for (size_t d = 0; d < num_devices; ++d) {
    for (PJRT_Buffer* b : outs[d]) result[d].push_back(std::make_shared<PyBuffer>(client_, b));
  }
  return result;
}

std::string PyLoadedExecutable::Serialize() const {
  RequireMinorVersion(*client_->plugin(), 1, "serializing an executable");
  auto args = PjrtArgs<PJRT_LoadedExecutable_Serialize_Args>();
  args.executable = executable_;
  ThrowIfError(client_->api(), client_->api()->PJRT_LoadedExecutable_Serialize(&args));
  std::string out(args.serialized, args.serialized_size);
  args.serialized_deleter(args.serialized_opaque);
  return out;
}

}  // namespace jax
