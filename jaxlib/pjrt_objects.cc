#include "jaxlib/pjrt_objects.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include "jaxlib/program_format.h"
#include "jaxlib/status_casters.h"

namespace jax {

// ------------------------------------------------------------------ device

namespace {

std::string Str(const char* data, size_t size) { return std::string(data, size); }

}  // namespace

static void CopyDescription(PyDevice* d, const DeviceDescriptionInfo& info) {
  d->id = info.id;
  d->process_index = info.process_index;
  d->kind = info.kind;
  d->debug_string = info.debug_string;
  d->to_string = info.to_string;
  d->attributes = info.attributes;
}

PyDevice::PyDevice(PyClient* client, const DeviceDescriptionInfo& description)
    : client_(client), device_(nullptr) {
  CopyDescription(this, description);
  local_hardware_id = -1;
  platform = client->platform();
}

PyDevice::PyDevice(PyClient* client, PJRT_Device* device) : client_(client), device_(device) {
  const PJRT_Api* api = client->api();
  auto desc = PjrtArgs<PJRT_Device_GetDescription_Args>();
  desc.device = device;
  ThrowIfError(api, api->PJRT_Device_GetDescription(&desc));
  CopyDescription(this, ReadDeviceDescription(api, desc.device_description));
  auto addressable = PjrtArgs<PJRT_Device_IsAddressable_Args>();
  addressable.device = device;
  ThrowIfError(api, api->PJRT_Device_IsAddressable(&addressable));
  is_addressable = addressable.is_addressable;
  auto hardware = PjrtArgs<PJRT_Device_LocalHardwareId_Args>();
  hardware.device = device;
  ThrowIfError(api, api->PJRT_Device_LocalHardwareId(&hardware));
  local_hardware_id = hardware.local_hardware_id;
  platform = client->platform();
  // Memories are optional in PJRT: a plugin without them has none to list.
  if (!is_addressable || !PJRT_API_HAS(api, PJRT_Device_AddressableMemories) ||
      !PJRT_API_HAS(api, PJRT_Memory_Kind)) {
    return;
  }
  auto mem = PjrtArgs<PJRT_Device_AddressableMemories_Args>();
  mem.device = device;
  ThrowIfError(api, api->PJRT_Device_AddressableMemories(&mem));
  PJRT_Memory* default_c_memory = nullptr;
  if (PJRT_API_HAS(api, PJRT_Device_DefaultMemory)) {
    auto def = PjrtArgs<PJRT_Device_DefaultMemory_Args>();
    def.device = device;
    PJRT_Error* error = api->PJRT_Device_DefaultMemory(&def);
    if (error == nullptr) default_c_memory = def.memory;
    else ConsumeErrorCode(api, error);
  }
  for (size_t i = 0; i < mem.num_memories; ++i) {
    auto kind_of = PjrtArgs<PJRT_Memory_Kind_Args>();
    kind_of.memory = mem.memories[i];
    ThrowIfError(api, api->PJRT_Memory_Kind(&kind_of));
    int memory_id = static_cast<int>(i);
    if (PJRT_API_HAS(api, PJRT_Memory_Id)) {
      auto id_of = PjrtArgs<PJRT_Memory_Id_Args>();
      id_of.memory = mem.memories[i];
      ThrowIfError(api, api->PJRT_Memory_Id(&id_of));
      memory_id = id_of.id;
    }
    auto m = std::make_shared<PyMemory>(
        PyMemory{mem.memories[i], memory_id, Str(kind_of.kind, kind_of.kind_size)});
    if (mem.memories[i] == default_c_memory) default_memory = m;
    memories.push_back(std::move(m));
  }
}

PyDevice::MemoryStats PyDevice::GetMemoryStats() const {
  const PJRT_Api* api = client_->api();
  if (device_ == nullptr) {
    throw XlaRuntimeError("FAILED_PRECONDITION: " + debug_string +
                          " is a compile-only device (a topology's description): it has no "
                          "memory to report");
  }
  RequireFunction(*client_->plugin(), offsetof(PJRT_Api, PJRT_Device_MemoryStats),
                  "memory_stats()");
  auto args = PjrtArgs<PJRT_Device_MemoryStats_Args>();
  args.device = device_;
  ThrowIfError(api, api->PJRT_Device_MemoryStats(&args));
  return MemoryStats{args.bytes_in_use, args.peak_bytes_in_use_is_set ? args.peak_bytes_in_use : 0,
                     args.num_allocs_is_set ? args.num_allocs : 0};
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

std::shared_ptr<PyClient> PyClient::CreateCompileOnly(std::shared_ptr<PjrtTopology> topology) {
  std::shared_ptr<PyClient> c(new PyClient());
  c->plugin_ = topology->plugin();
  c->platform_ = topology->platform();
  c->platform_version_ = topology->platform_version();
  for (const DeviceDescriptionInfo& info : topology->devices()) {
    c->devices_.push_back(std::make_shared<PyDevice>(c.get(), info));
  }
  c->topology_ = std::move(topology);
  return c;
}

namespace {

[[noreturn]] void ThrowCompileOnly(const PyClient& client, const std::string& what) {
  throw XlaRuntimeError("FAILED_PRECONDITION: " + what + ": the " + client.platform() +
                        " devices of topology '" + client.topology()->name() +
                        "' are compile-only (described, not attached), so nothing can be " +
                        "transferred to them or run on them; compile for them ahead of time " +
                        "and run the serialized executable where the devices are");
}

}  // namespace

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

bool PyClient::Owns(PJRT_Device* device) const {
  for (const auto& d : devices_) {
    if (d->c_device() == device) return true;
  }
  return false;
}

void PyClient::CheckOwns(PJRT_Device* device, const char* what) const {
  if (device == nullptr || Owns(device)) return;
  // A plugin trusts the handles it gets: another plugin's device must never
  // reach it (it would read that plugin's memory as its own).
  throw XlaRuntimeError(std::string("INVALID_ARGUMENT: ") + what + ": the device belongs to "
                        "another client than this " + platform_ + " client (" + plugin_->path +
                        "); use that device's own client");
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
  if (topology_ != nullptr) {
    if (done_with_host_buffer != nullptr) done_with_host_buffer(done_user_data);
    ThrowCompileOnly(*this, "cannot place an array on a compile-only device");
  }
  if (device != nullptr && !Owns(device)) {
    if (done_with_host_buffer != nullptr) done_with_host_buffer(done_user_data);
    CheckOwns(device, "buffer_from_pyval");
  }
  auto args = PjrtArgs<PJRT_Client_BufferFromHostBuffer_Args>();
  args.client = client_;
  args.data = data;
  args.type = type;
  args.dims = dims;
  args.num_dims = num_dims;
  args.device = device;
  args.host_buffer_semantics = done_with_host_buffer != nullptr
                                   ? PJRT_HostBufferSemantics_kImmutableZeroCopy
                                   : PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  PJRT_Error* error = api()->PJRT_Client_BufferFromHostBuffer(&args);
  if (error != nullptr) {
    if (done_with_host_buffer != nullptr) done_with_host_buffer(done_user_data);
    ThrowIfError(api(), error);
  }
  PJRT_Event* done = args.done_with_host_buffer;
  if (done_with_host_buffer != nullptr) {
    if (done == nullptr) {
      done_with_host_buffer(done_user_data);  // the plugin copied before returning
    } else {
      auto on_ready = PjrtArgs<PJRT_Event_OnReady_Args>();
      on_ready.event = done;
      struct Release {
        void (*fn)(void*);
        void* arg;
        const PJRT_Api* api;
      };
      on_ready.callback = [](PJRT_Error* error, void* user_arg) {
        auto* release = static_cast<Release*>(user_arg);
        release->fn(release->arg);
        // A failed transfer shows in the buffer itself; the callback only frees.
        if (error != nullptr) ConsumeErrorCode(release->api, error);
        delete release;
      };
      on_ready.user_arg = new Release{done_with_host_buffer, done_user_data, api()};
      PJRT_Error* hook = api()->PJRT_Event_OnReady(&on_ready);
      if (hook != nullptr) {
        // Without a callback, wait here: the data must outlive the plugin's use.
        delete static_cast<Release*>(on_ready.user_arg);
        ConsumeErrorCode(api(), hook);
        auto wait = PjrtArgs<PJRT_Event_Await_Args>();
        wait.event = done;
        PJRT_Error* waited = api()->PJRT_Event_Await(&wait);
        if (waited != nullptr) ConsumeErrorCode(api(), waited);
        done_with_host_buffer(done_user_data);
      }
    }
  }
  DestroyEvent(api(), done);
  return std::make_shared<PyBuffer>(shared_from_this(), args.buffer);
}

std::shared_ptr<PyLoadedExecutable> PyClient::Compile(
    const std::string& hlo_module_proto, const std::string& options,
    std::vector<std::shared_ptr<PyDevice>> devices) {
  for (const auto& d : devices) CheckOwns(d->c_device(), "compile");
  if (topology_ != nullptr) {
    PJRT_Executable* compiled = topology_->Compile(hlo_module_proto, options);
    return std::make_shared<PyLoadedExecutable>(shared_from_this(), compiled, std::move(devices));
  }
  static const char kFormat[] = "hlo";
  auto program = PjrtArgs<PJRT_Program>();
  program.code = const_cast<char*>(hlo_module_proto.data());  // read only
  program.code_size = hlo_module_proto.size();
  program.format = kFormat;
  program.format_size = sizeof(kFormat) - 1;
  auto args = PjrtArgs<PJRT_Client_Compile_Args>();
  args.client = client_;
  args.program = &program;
  args.compile_options = options.data();
  args.compile_options_size = options.size();
  ThrowIfError(api(), api()->PJRT_Client_Compile(&args));
  return std::make_shared<PyLoadedExecutable>(shared_from_this(), args.executable,
                                              std::move(devices));
}

std::shared_ptr<PyLoadedExecutable> PyClient::DeserializeAndLoad(
    const char* serialized, size_t size, const std::string& options,
    std::vector<std::shared_ptr<PyDevice>> devices) {
  if (topology_ != nullptr) ThrowCompileOnly(*this, "cannot load a serialized executable");
  RequireFunction(*plugin_, offsetof(PJRT_Api, PJRT_Executable_DeserializeAndLoad),
                  "loading a serialized executable");
  for (const auto& d : devices) CheckOwns(d->c_device(), "deserialize_and_load");
  auto args = PjrtArgs<PJRT_Executable_DeserializeAndLoad_Args>();
  args.client = client_;
  args.serialized_executable = serialized;
  args.serialized_executable_size = size;
  args.overridden_serialized_compile_options = options.data();
  args.overridden_serialized_compile_options_size = options.size();
  ThrowIfError(api(), api()->PJRT_Executable_DeserializeAndLoad(&args));
  return std::make_shared<PyLoadedExecutable>(shared_from_this(), args.loaded_executable,
                                              std::move(devices));
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
  const PJRT_Api* api = client_->api();
  auto type = PjrtArgs<PJRT_Buffer_ElementType_Args>();
  type.buffer = buffer;
  ThrowIfError(api, api->PJRT_Buffer_ElementType(&type));
  type_ = type.type;
  auto dims = PjrtArgs<PJRT_Buffer_Dimensions_Args>();
  dims.buffer = buffer;
  ThrowIfError(api, api->PJRT_Buffer_Dimensions(&dims));
  dims_.assign(dims.dims, dims.dims + dims.num_dims);
  auto size = PjrtArgs<PJRT_Buffer_OnDeviceSizeInBytes_Args>();
  size.buffer = buffer;
  ThrowIfError(api, api->PJRT_Buffer_OnDeviceSizeInBytes(&size));
  size_ = size.on_device_size_in_bytes;
  auto device = PjrtArgs<PJRT_Buffer_Device_Args>();
  device.buffer = buffer;
  ThrowIfError(api, api->PJRT_Buffer_Device(&device));
  device_ = client_->LookupDevice(device.device);
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
  auto args = PjrtArgs<PJRT_Buffer_IsDeleted_Args>();
  args.buffer = buffer_;
  ThrowIfError(client_->api(), client_->api()->PJRT_Buffer_IsDeleted(&args));
  return args.is_deleted;
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
  AwaitAndDestroy(api, args.event);
}

void PyBuffer::CopyToHost(void* dst) const {
  const PJRT_Api* api = client_->api();
  auto args = PjrtArgs<PJRT_Buffer_ToHostBuffer_Args>();
  args.src = buffer_;
  args.dst = dst;
  args.dst_size = size_;
  ThrowIfError(api, api->PJRT_Buffer_ToHostBuffer(&args));
  AwaitAndDestroy(api, args.event);
}

uintptr_t PyBuffer::UnsafePointer() const {
  RequireFunction(*client_->plugin(), offsetof(PJRT_Api, PJRT_Buffer_UnsafePointer),
                  "unsafe_buffer_pointer()");
  auto args = PjrtArgs<PJRT_Buffer_UnsafePointer_Args>();
  args.buffer = buffer_;
  ThrowIfError(client_->api(), client_->api()->PJRT_Buffer_UnsafePointer(&args));
  return args.buffer_pointer;
}

bool PyBuffer::TryAcquireExternalReference() {
  const PJRT_Api* api = client_->api();
  // Only host memory can be viewed in place: a GPU or TPU pointer cannot.
  if (!PJRT_API_HAS(api, PJRT_Buffer_IncreaseExternalReferenceCount) ||
      !PJRT_API_HAS(api, PJRT_Buffer_IsOnCpu) || !PJRT_API_HAS(api, PJRT_Buffer_UnsafePointer)) {
    return false;
  }
  auto on_cpu = PjrtArgs<PJRT_Buffer_IsOnCpu_Args>();
  on_cpu.buffer = buffer_;
  if (PJRT_Error* error = api->PJRT_Buffer_IsOnCpu(&on_cpu)) {
    ConsumeErrorCode(api, error);
    return false;
  }
  if (!on_cpu.is_on_cpu) return false;
  auto args = PjrtArgs<PJRT_Buffer_IncreaseExternalReferenceCount_Args>();
  args.buffer = buffer_;
  PJRT_Error* error = api->PJRT_Buffer_IncreaseExternalReferenceCount(&args);
  if (error != nullptr) {
    // Deleted buffers must say so; any other refusal means "no in-place view".
    if (is_deleted()) ThrowIfError(api, error);
    ConsumeErrorCode(api, error);
    return false;
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
                                       PJRT_LoadedExecutable* executable,
                                       std::vector<std::shared_ptr<PyDevice>> devices)
    : client_(std::move(client)), executable_(executable), compiled_(nullptr),
      devices_(std::move(devices)) {
  const PJRT_Api* api = client_->api();
  auto get = PjrtArgs<PJRT_LoadedExecutable_GetExecutable_Args>();
  get.loaded_executable = executable;
  ThrowIfError(api, api->PJRT_LoadedExecutable_GetExecutable(&get));
  compiled_ = get.executable;
  auto outputs = PjrtArgs<PJRT_Executable_NumOutputs_Args>();
  outputs.executable = compiled_;
  ThrowIfError(api, api->PJRT_Executable_NumOutputs(&outputs));
  num_outputs_ = outputs.num_outputs;
  if (PJRT_API_HAS(api, PJRT_Executable_NumReplicas)) {
    auto replicas = PjrtArgs<PJRT_Executable_NumReplicas_Args>();
    replicas.executable = compiled_;
    ThrowIfError(api, api->PJRT_Executable_NumReplicas(&replicas));
    num_replicas_ = replicas.num_replicas;
  }
  auto addressable = PjrtArgs<PJRT_LoadedExecutable_AddressableDevices_Args>();
  addressable.executable = executable;
  ThrowIfError(api, api->PJRT_LoadedExecutable_AddressableDevices(&addressable));
  addressable_devices_.assign(addressable.addressable_devices,
                              addressable.addressable_devices + addressable.num_addressable_devices);
  if (devices_.empty()) {
    for (PJRT_Device* d : addressable_devices_) devices_.push_back(client_->LookupDevice(d));
  }
}

PyLoadedExecutable::PyLoadedExecutable(std::shared_ptr<PyClient> client, PJRT_Executable* compiled,
                                       std::vector<std::shared_ptr<PyDevice>> devices)
    : client_(std::move(client)), executable_(nullptr), compiled_(compiled),
      devices_(std::move(devices)) {
  const PJRT_Api* api = client_->api();
  auto outputs = PjrtArgs<PJRT_Executable_NumOutputs_Args>();
  outputs.executable = compiled_;
  ThrowIfError(api, api->PJRT_Executable_NumOutputs(&outputs));
  num_outputs_ = outputs.num_outputs;
  if (PJRT_API_HAS(api, PJRT_Executable_NumReplicas)) {
    auto replicas = PjrtArgs<PJRT_Executable_NumReplicas_Args>();
    replicas.executable = compiled_;
    ThrowIfError(api, api->PJRT_Executable_NumReplicas(&replicas));
    num_replicas_ = replicas.num_replicas;
  }
}

PyLoadedExecutable::~PyLoadedExecutable() {
  const PJRT_Api* api = client_->api();
  if (compiled_ != nullptr) {
    auto args = PjrtArgs<PJRT_Executable_Destroy_Args>();
    args.executable = compiled_;
    if (PJRT_Error* error = api->PJRT_Executable_Destroy(&args)) ConsumeErrorCode(api, error);
  }
  if (executable_ == nullptr) return;  // compile only: nothing was loaded
  auto args = PjrtArgs<PJRT_LoadedExecutable_Destroy_Args>();
  args.executable = executable_;
  if (PJRT_Error* error = api->PJRT_LoadedExecutable_Destroy(&args)) ConsumeErrorCode(api, error);
}

const std::string& PyLoadedExecutable::optimized_program() const {
  std::lock_guard<std::mutex> lock(optimized_mu_);
  if (optimized_done_) return optimized_program_;
  {
    const PJRT_Api* api = client_->api();
    RequireFunction(*client_->plugin(), offsetof(PJRT_Api, PJRT_Executable_OptimizedProgram),
                    "the optimized program (as_text)");
    auto program = PjrtArgs<PJRT_Program>();
    auto args = PjrtArgs<PJRT_Executable_OptimizedProgram_Args>();
    args.executable = compiled_;
    args.program = &program;
    ThrowIfError(api, api->PJRT_Executable_OptimizedProgram(&args));
    std::string bytes(program.code_size, '\0');
    program.code = bytes.data();
    ThrowIfError(api, api->PJRT_Executable_OptimizedProgram(&args));
    bytes.resize(program.code_size);
    std::string format(program.format, program.format_size);
    optimized_program_ = DecodeProgramFormat(format, std::move(bytes));
    optimized_done_ = true;
  }
  return optimized_program_;
}

PyLoadedExecutable::MemoryStats PyLoadedExecutable::GetMemoryStats() const {
  const PJRT_Api* api = client_->api();
  MemoryStats stats{0, 0, 0, 0, 0};
  if (PJRT_API_HAS(api, PJRT_Executable_GetCompiledMemoryStats)) {
    auto args = PjrtArgs<PJRT_Executable_GetCompiledMemoryStats_Args>();
    args.executable = compiled_;
    ThrowIfError(api, api->PJRT_Executable_GetCompiledMemoryStats(&args));
    return MemoryStats{args.generated_code_size_in_bytes, args.temp_size_in_bytes,
                       args.argument_size_in_bytes, args.output_size_in_bytes,
                       args.alias_size_in_bytes};
  }
  RequireFunction(*client_->plugin(), offsetof(PJRT_Api, PJRT_Executable_SizeOfGeneratedCodeInBytes),
                  "get_compiled_memory_stats()");
  auto args = PjrtArgs<PJRT_Executable_SizeOfGeneratedCodeInBytes_Args>();
  args.executable = compiled_;
  ThrowIfError(api, api->PJRT_Executable_SizeOfGeneratedCodeInBytes(&args));
  stats.generated_code_size = args.size_in_bytes;
  return stats;
}

int64_t PyLoadedExecutable::SizeOfGeneratedCodeInBytes() const {
  const PJRT_Api* api = client_->api();
  RequireFunction(*client_->plugin(), offsetof(PJRT_Api, PJRT_Executable_SizeOfGeneratedCodeInBytes),
                  "the size of the generated code");
  auto args = PjrtArgs<PJRT_Executable_SizeOfGeneratedCodeInBytes_Args>();
  args.executable = compiled_;
  ThrowIfError(api, api->PJRT_Executable_SizeOfGeneratedCodeInBytes(&args));
  return args.size_in_bytes;
}

std::vector<std::vector<std::shared_ptr<PyBuffer>>> PyLoadedExecutable::Execute(
    const std::vector<std::vector<PyBuffer*>>& args, const std::vector<int64_t>& donated) {
  if (executable_ == nullptr) ThrowCompileOnly(*client_, "cannot execute");
  const size_t num_devices = args.size();
  const size_t num_args = num_devices ? args[0].size() : 0;
  std::vector<std::vector<PJRT_Buffer*>> c_args(num_devices);
  std::vector<PJRT_Buffer* const*> c_arg_lists(num_devices);
  for (size_t d = 0; d < num_devices; ++d) {
    if (args[d].size() != num_args) {
      throw std::invalid_argument("execute: every device needs the same number of arguments");
    }
    for (PyBuffer* b : args[d]) {
      if (b->client().get() != client_.get()) {
        throw XlaRuntimeError("INVALID_ARGUMENT: execute: an argument lives on " +
                              b->client()->platform() + " client of " +
                              b->client()->plugin()->path + ", not on this executable's " +
                              client_->platform() + " client of " + client_->plugin()->path +
                              "; move it with jax.device_put first");
      }
      c_args[d].push_back(b->c_buffer());
    }
    c_arg_lists[d] = c_args[d].data();
  }
  std::vector<std::vector<PJRT_Buffer*>> outs(num_devices, std::vector<PJRT_Buffer*>(num_outputs_));
  std::vector<PJRT_Buffer**> out_lists(num_devices);
  for (size_t d = 0; d < num_devices; ++d) out_lists[d] = outs[d].data();
  // Donation is declared by the program (input_output_alias, buffer_donor);
  // at run time the caller can only hold arguments back.
  std::vector<int64_t> keep;
  for (size_t i = 0; i < num_args; ++i) {
    if (std::find(donated.begin(), donated.end(), static_cast<int64_t>(i)) == donated.end()) {
      keep.push_back(static_cast<int64_t>(i));
    }
  }
  auto options = PjrtArgs<PJRT_ExecuteOptions>();
  options.non_donatable_input_indices = keep.data();
  options.num_non_donatable_input_indices = keep.size();
  std::vector<PJRT_Event*> done(num_devices, nullptr);

  auto exec = PjrtArgs<PJRT_LoadedExecutable_Execute_Args>();
  exec.executable = executable_;
  exec.options = &options;
  exec.argument_lists = c_arg_lists.data();
  exec.num_devices = num_devices;
  exec.num_args = num_args;
  exec.output_lists = out_lists.data();
  exec.device_complete_events = done.data();
  const PJRT_Api* api = client_->api();
  ThrowIfError(api, api->PJRT_LoadedExecutable_Execute(&exec));
  std::vector<std::vector<std::shared_ptr<PyBuffer>>> result(num_devices);
  for (size_t d = 0; d < num_devices; ++d) {
    for (PJRT_Buffer* b : outs[d]) result[d].push_back(std::make_shared<PyBuffer>(client_, b));
  }
  // Errors of the run itself reach the outputs; the events only tell when it ends.
  for (PJRT_Event* e : done) DestroyEvent(api, e);
  return result;
}

std::string PyLoadedExecutable::Serialize() const {
  const PJRT_Api* api = client_->api();
  RequireFunction(*client_->plugin(), offsetof(PJRT_Api, PJRT_Executable_Serialize),
                  "serializing an executable");
  auto args = PjrtArgs<PJRT_Executable_Serialize_Args>();
  args.executable = compiled_;
  ThrowIfError(api, api->PJRT_Executable_Serialize(&args));
  std::string out(args.serialized_bytes, args.serialized_bytes_size);
  if (args.serialized_executable_deleter != nullptr) {
    args.serialized_executable_deleter(args.serialized_executable);
  }
  return out;
}

}  // namespace jax
