// What the wrapper's translation units share: the C API's opaque objects as
// holders of the C++ backend's objects, and the guards every entry point uses.
// Internal to c_api_wrapper; nothing outside xla/pjrt/c includes it.
#ifndef XLA_PJRT_C_C_API_INTERNAL_H_
#define XLA_PJRT_C_C_API_INTERNAL_H_

#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "xla/pjrt/c/pjrt_c_api.h"
#include "xla/pjrt/c/utf8.h"
#include "xla/pjrt/client.h"

struct PJRT_Error {
  xla::Status status;
};

// An event's state, shared by every handle to it and by whoever completes it.
struct EventState {
  std::mutex mu;
  std::condition_variable cv;
  bool ready = false;
  xla::Status status;
  std::vector<std::function<void(xla::Status)>> on_ready;

  void Set(xla::Status s);
  xla::Status Await();
  // Runs `fn` with the status once ready (at once, in this thread, if it is).
  void OnReady(std::function<void(xla::Status)> fn);
};

struct PJRT_Event {
  std::shared_ptr<EventState> state;
};

struct PJRT_Client {
  std::unique_ptr<xla::Client> client;
  std::vector<PJRT_Device*> devices;  // C handles are the C++ pointers
  std::vector<PJRT_Device*> addressable_devices;
  std::vector<PJRT_Memory*> addressable_memories;
  // Each memory's devices, and each device's memories, as the C API lists them.
  std::map<PJRT_Memory*, std::vector<PJRT_Device*>> memory_devices;
  std::map<PJRT_Device*, std::vector<PJRT_Memory*>> device_memories;
};

struct PJRT_Buffer {
  std::unique_ptr<xla::Buffer> buffer;
  PJRT_Client* client;  // the client outlives its buffers
  std::vector<int64_t> dims;
  std::vector<int64_t> minor_to_major;  // kept for GetMemoryLayout
};

// What the C API says about a compiled program, computed once.
struct ExecutableFacts {
  std::string name;
  std::string optimized_hlo_proto;  // format "hlo"
  std::vector<PJRT_Buffer_Type> output_types;
  std::vector<int64_t> output_dims;  // concatenated
  std::vector<size_t> output_ranks;
  std::vector<const char*> output_memory_kinds;
  std::vector<size_t> output_memory_kind_sizes;
};

struct PJRT_Executable {
  std::shared_ptr<xla::Executable> executable;
  std::shared_ptr<const ExecutableFacts> facts;  // null until first asked for
  std::once_flag facts_once;
  xla::Status facts_status;
};

struct PJRT_LoadedExecutable {
  std::shared_ptr<xla::Executable> executable;
  PJRT_Client* client;
  std::vector<PJRT_Device*> addressable_devices;
  bool deleted = false;
};

namespace xla::c_api {

inline Device* D(PJRT_Device* d) { return reinterpret_cast<Device*>(d); }
inline Device* D(PJRT_DeviceDescription* d) { return reinterpret_cast<Device*>(d); }
inline PJRT_Device* C(Device* d) { return reinterpret_cast<PJRT_Device*>(d); }
inline Memory* M(PJRT_Memory* m) { return reinterpret_cast<Memory*>(m); }
inline PJRT_Memory* C(Memory* m) { return reinterpret_cast<PJRT_Memory*>(m); }

inline PJRT_Error* ToError(Status status) {
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

// The caller's struct must hold at least the fields the call needs (an older
// caller's shorter struct is fine as long as it has those).
#define PJRT_CHECK_ARGS(type, args, last_needed)                                    \
  do {                                                                              \
    if (args == nullptr) return InvalidArgument(#type ": args is NULL");            \
    if (args->struct_size < PJRT_STRUCT_SIZE(type, last_needed))                    \
      return InvalidArgument(std::string(#type) + ": struct_size " +                \
                             std::to_string(args->struct_size) + " is smaller than " \
                             "the " + std::to_string(PJRT_STRUCT_SIZE(type, last_needed)) + \
                             " bytes this call needs");                             \
  } while (0)

// Whether the caller's struct reaches `field` (fields newer than the caller's
// header read as absent).
#define PJRT_HAS_FIELD(type, args, field) \
  ((args)->struct_size >= PJRT_STRUCT_SIZE(type, field))

PrimitiveType FromC(PJRT_Buffer_Type t);
PJRT_Buffer_Type ToC(PrimitiveType t);

// A new, already completed event.
PJRT_Event* ReadyEvent(Status status = OkStatus());

PJRT_Buffer* WrapBuffer(std::unique_ptr<Buffer> buffer, PJRT_Client* client);

// The table's entries, by translation unit.
void FillClientEntries(PJRT_Api& api);      // c_api_wrapper.cc
void FillBufferEntries(PJRT_Api& api);      // c_api_buffers.cc
void FillExecutableEntries(PJRT_Api& api);  // c_api_executables.cc
void FillUnimplementedEntries(PJRT_Api& api);  // c_api_unimplemented.cc: every slot still NULL

}  // namespace xla::c_api

#endif  // XLA_PJRT_C_C_API_INTERNAL_H_
