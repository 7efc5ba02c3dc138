// The C API's buffer entries over xla::Buffer, and host-to-device transfers.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "xla/pjrt/c/c_api_internal.h"

namespace xla::c_api {

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

PJRT_Buffer* WrapBuffer(std::unique_ptr<Buffer> buffer, PJRT_Client* client) {
  auto* b = new PJRT_Buffer{std::move(buffer), client, {}, {}};
  b->dims = b->buffer->dimensions();
  for (int64_t i = static_cast<int64_t>(b->dims.size()) - 1; i >= 0; --i) {
    b->minor_to_major.push_back(i);
  }
  return b;
}

namespace {

// The caller's host memory, for as long as the backend reads it: when the last
// copy of the lease goes (after a copy, an error, or a zero-copy buffer's end)
// the done_with_host_buffer event becomes ready.
std::shared_ptr<const void> HostBufferLease(const void* data, std::shared_ptr<EventState> done) {
  return std::shared_ptr<const void>(data, [done = std::move(done)](const void*) {
    done->Set(OkStatus());
  });
}

bool IsDenseRowMajor(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                     PrimitiveType type) {
  if (strides.empty()) return true;
  int64_t expected = ByteWidth(type);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
    if (dims[i] > 1 && strides[i] != expected) return false;
    expected *= dims[i];
  }
  return true;
}

PJRT_Error* ClientBufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Client_BufferFromHostBuffer_Args, args, buffer);
    auto done = std::make_shared<EventState>();
    args->done_with_host_buffer = nullptr;
    std::shared_ptr<const void> lease = HostBufferLease(args->data, done);
    PrimitiveType type = FromC(args->type);
    if (!IsArrayType(type)) {
      return InvalidArgument("BufferFromHostBuffer: unsupported element type " +
                             std::to_string(args->type));
    }
    if (args->device_layout != nullptr) {
      return Unimplemented("BufferFromHostBuffer: device_layout must be NULL (the default layout)");
    }
    std::vector<int64_t> dims(args->dims, args->dims + args->num_dims);
    std::vector<int64_t> strides;
    if (args->byte_strides != nullptr) {
      strides.assign(args->byte_strides, args->byte_strides + args->num_byte_strides);
    }
    Client* client = args->client->client.get();
    Device* device = args->device != nullptr ? D(args->device) : client->devices().front();
    if (args->memory != nullptr) {
      auto it = args->client->memory_devices.find(args->memory);
      if (it == args->client->memory_devices.end() || it->second.empty()) {
        return InvalidArgument("BufferFromHostBuffer: the memory is not one of this client's");
      }
      device = D(it->second.front());
      if (M(args->memory) != device->default_memory()) {
        return Unimplemented("BufferFromHostBuffer: memory kind '" + M(args->memory)->kind() +
                             "' is not supported yet; use the device's default memory");
      }
    }
    const bool zero_copy =
        (args->host_buffer_semantics == PJRT_HostBufferSemantics_kImmutableZeroCopy ||
         args->host_buffer_semantics == PJRT_HostBufferSemantics_kMutableZeroCopy) &&
        IsDenseRowMajor(dims, strides, type);
    std::unique_ptr<Buffer> buffer;
    if (zero_copy) {
      ASSIGN_OR_RETURN(buffer, client->BufferFromHostZeroCopy(std::move(lease), type, dims, device));
    } else {
      ASSIGN_OR_RETURN(buffer, client->BufferFromHost(args->data, type, dims, strides, device));
    }
    args->buffer = WrapBuffer(std::move(buffer), args->client);
    args->done_with_host_buffer = new PJRT_Event{std::move(done)};
    return OkStatus();
  });
}

PJRT_Error* BufferDestroy(PJRT_Buffer_Destroy_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_Destroy_Args, args, buffer);
    delete args->buffer;
    return OkStatus();
  });
}

PJRT_Error* BufferElementType(PJRT_Buffer_ElementType_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_ElementType_Args, args, type);
    args->type = ToC(args->buffer->buffer->element_type());
    return OkStatus();
  });
}

PJRT_Error* BufferDimensions(PJRT_Buffer_Dimensions_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_Dimensions_Args, args, num_dims);
    args->dims = args->buffer->dims.data();
    args->num_dims = args->buffer->dims.size();
    return OkStatus();
  });
}

// Our buffers are never padded and have no dynamic dimensions.
PJRT_Error* BufferUnpaddedDimensions(PJRT_Buffer_UnpaddedDimensions_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_UnpaddedDimensions_Args, args, num_dims);
    args->unpadded_dims = args->buffer->dims.data();
    args->num_dims = args->buffer->dims.size();
    return OkStatus();
  });
}

PJRT_Error* BufferDynamicDimensionIndices(PJRT_Buffer_DynamicDimensionIndices_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_DynamicDimensionIndices_Args, args, num_dynamic_dims);
    args->dynamic_dim_indices = nullptr;
    args->num_dynamic_dims = 0;
    return OkStatus();
  });
}

// Dense, major-to-minor, untiled: the only layout our backends use.
PJRT_Error* BufferGetMemoryLayout(PJRT_Buffer_GetMemoryLayout_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_GetMemoryLayout_Args, args, layout);
    std::memset(&args->layout, 0, sizeof(args->layout));
    args->layout.struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
    args->layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
    args->layout.tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
    args->layout.tiled.minor_to_major = args->buffer->minor_to_major.data();
    args->layout.tiled.minor_to_major_size = args->buffer->minor_to_major.size();
    args->layout.tiled.num_tiles = 0;
    return OkStatus();
  });
}

PJRT_Error* BufferOnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_OnDeviceSizeInBytes_Args, args, on_device_size_in_bytes);
    args->on_device_size_in_bytes = args->buffer->buffer->size_in_bytes();
    return OkStatus();
  });
}

PJRT_Error* BufferDevice(PJRT_Buffer_Device_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_Device_Args, args, device);
    args->device = C(args->buffer->buffer->device());
    return OkStatus();
  });
}

PJRT_Error* BufferMemory(PJRT_Buffer_Memory_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_Memory_Args, args, memory);
    args->memory = C(args->buffer->buffer->device()->default_memory());
    return OkStatus();
  });
}

PJRT_Error* BufferDelete(PJRT_Buffer_Delete_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_Delete_Args, args, buffer);
    args->buffer->buffer->Delete();
    return OkStatus();
  });
}

PJRT_Error* BufferIsDeleted(PJRT_Buffer_IsDeleted_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_IsDeleted_Args, args, is_deleted);
    args->is_deleted = args->buffer->buffer->is_deleted();
    return OkStatus();
  });
}

// A copy to another device of the same client goes through host memory.
StatusOr<std::unique_ptr<Buffer>> CopyThroughHost(PJRT_Buffer* src, Device* dst) {
  Buffer* b = src->buffer.get();
  if (b->is_deleted()) return FailedPrecondition("copying a buffer that has been deleted");
  RETURN_IF_ERROR(b->Await());
  std::vector<char> host(b->size_in_bytes());
  RETURN_IF_ERROR(b->ToHost(host.data()));
  return src->client->client->BufferFromHost(host.data(), b->element_type(), b->dimensions(), {},
                                             dst);
}

bool OwnsDevice(const PJRT_Client* client, PJRT_Device* device) {
  for (PJRT_Device* d : client->devices) {
    if (d == device) return true;
  }
  return false;
}

PJRT_Error* BufferCopyToDevice(PJRT_Buffer_CopyToDevice_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_CopyToDevice_Args, args, dst_buffer);
    if (!OwnsDevice(args->buffer->client, args->dst_device)) {
      return InvalidArgument("CopyToDevice: the destination is not a device of the buffer's client");
    }
    ASSIGN_OR_RETURN(std::unique_ptr<Buffer> copy,
                     CopyThroughHost(args->buffer, D(args->dst_device)));
    args->dst_buffer = WrapBuffer(std::move(copy), args->buffer->client);
    return OkStatus();
  });
}

PJRT_Error* BufferCopyToMemory(PJRT_Buffer_CopyToMemory_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_CopyToMemory_Args, args, dst_buffer);
    PJRT_Client* client = args->buffer->client;
    auto it = client->memory_devices.find(args->dst_memory);
    if (it == client->memory_devices.end() || it->second.empty()) {
      return InvalidArgument("CopyToMemory: the memory is not one of the buffer's client's");
    }
    Device* device = D(it->second.front());
    if (M(args->dst_memory) != device->default_memory()) {
      return Unimplemented("CopyToMemory: memory kind '" + M(args->dst_memory)->kind() +
                           "' is not supported yet");
    }
    ASSIGN_OR_RETURN(std::unique_ptr<Buffer> copy, CopyThroughHost(args->buffer, device));
    args->dst_buffer = WrapBuffer(std::move(copy), client);
    return OkStatus();
  });
}

PJRT_Error* BufferToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_ToHostBuffer_Args, args, event);
    Buffer* b = args->src->buffer.get();
    size_t needed = b->size_in_bytes();
    args->event = nullptr;
    if (args->host_layout != nullptr) {
      return Unimplemented("ToHostBuffer: host_layout must be NULL (dense, major-to-minor)");
    }
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
    Status copied = b->ToHost(args->dst);
    if (!copied.ok()) return copied;
    args->event = ReadyEvent();
    return OkStatus();
  });
}

PJRT_Error* BufferIsOnCpu(PJRT_Buffer_IsOnCpu_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_IsOnCpu_Args, args, is_on_cpu);
    args->is_on_cpu = args->buffer->client->client->platform_name() == "cpu";
    return OkStatus();
  });
}

PJRT_Error* BufferReadyEvent(PJRT_Buffer_ReadyEvent_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_ReadyEvent_Args, args, event);
    // A deleted buffer will never hold a value: waiting for it is an error.
    Buffer* b = args->buffer->buffer.get();
    args->event = ReadyEvent(b->is_deleted()
                                 ? FailedPrecondition("BlockUntilReady: the buffer has been deleted")
                                 : b->Await());
    return OkStatus();
  });
}

PJRT_Error* BufferUnsafePointer(PJRT_Buffer_UnsafePointer_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_UnsafePointer_Args, args, buffer_pointer);
    if (args->buffer->buffer->is_deleted()) {
      return FailedPrecondition("UnsafeBufferPointer: the buffer has been deleted");
    }
    args->buffer_pointer = args->buffer->buffer->UnsafePointer();
    return OkStatus();
  });
}

PJRT_Error* BufferOpaqueDeviceMemoryDataPointer(
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args, args, device_memory_ptr);
    if (args->buffer->buffer->is_deleted()) {
      return FailedPrecondition("OpaqueDeviceMemoryDataPointer: the buffer has been deleted");
    }
    args->device_memory_ptr = reinterpret_cast<void*>(args->buffer->buffer->UnsafePointer());
    return OkStatus();
  });
}

PJRT_Error* BufferIncreaseExternalReferenceCount(
    PJRT_Buffer_IncreaseExternalReferenceCount_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_IncreaseExternalReferenceCount_Args, args, buffer);
    return args->buffer->buffer->AcquireExternalReference();
  });
}

PJRT_Error* BufferDecreaseExternalReferenceCount(
    PJRT_Buffer_DecreaseExternalReferenceCount_Args* args) {
  return Guard(__func__, [&]() -> Status {
    PJRT_CHECK_ARGS(PJRT_Buffer_DecreaseExternalReferenceCount_Args, args, buffer);
    return args->buffer->buffer->ReleaseExternalReference();
  });
}

}  // namespace

void FillBufferEntries(PJRT_Api& a) {
  a.PJRT_Client_BufferFromHostBuffer = ClientBufferFromHostBuffer;
  a.PJRT_Buffer_Destroy = BufferDestroy;
  a.PJRT_Buffer_ElementType = BufferElementType;
  a.PJRT_Buffer_Dimensions = BufferDimensions;
  a.PJRT_Buffer_UnpaddedDimensions = BufferUnpaddedDimensions;
  a.PJRT_Buffer_DynamicDimensionIndices = BufferDynamicDimensionIndices;
  a.PJRT_Buffer_GetMemoryLayout = BufferGetMemoryLayout;
  a.PJRT_Buffer_OnDeviceSizeInBytes = BufferOnDeviceSizeInBytes;
  a.PJRT_Buffer_Device = BufferDevice;
  a.PJRT_Buffer_Memory = BufferMemory;
  a.PJRT_Buffer_Delete = BufferDelete;
  a.PJRT_Buffer_IsDeleted = BufferIsDeleted;
  a.PJRT_Buffer_CopyToDevice = BufferCopyToDevice;
  a.PJRT_Buffer_CopyToMemory = BufferCopyToMemory;
  a.PJRT_Buffer_ToHostBuffer = BufferToHostBuffer;
  a.PJRT_Buffer_IsOnCpu = BufferIsOnCpu;
  a.PJRT_Buffer_ReadyEvent = BufferReadyEvent;
  a.PJRT_Buffer_UnsafePointer = BufferUnsafePointer;
  a.PJRT_Buffer_OpaqueDeviceMemoryDataPointer = BufferOpaqueDeviceMemoryDataPointer;
  a.PJRT_Buffer_IncreaseExternalReferenceCount = BufferIncreaseExternalReferenceCount;
  a.PJRT_Buffer_DecreaseExternalReferenceCount = BufferDecreaseExternalReferenceCount;
}

}  // namespace xla::c_api
