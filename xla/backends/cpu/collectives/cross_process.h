/* The interface between the CPU plugin and its cross-process collectives engine.
 *
 * The engine lives in its own shared object (libjax_cpu_collectives_gloo.so, beside
 * the plugin in the jaxlib-cpu wheel), which the plugin opens with dlopen only when
 * a client spans several processes: single-process users never load the engine or
 * its libraries. Only this C header crosses that boundary: plain structs of function
 * pointers, no C++ types, no exceptions.
 */
#ifndef XLA_BACKENDS_CPU_COLLECTIVES_CROSS_PROCESS_H_
#define XLA_BACKENDS_CPU_COLLECTIVES_CROSS_PROCESS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Receives a value: the callee copies `size` bytes from `data` during the call. */
typedef void JaxKvSink(void* sink_arg, const char* data, size_t size);

/* The coordinator's key-value store, as the process that created the client gives it
 * (PJRT_Client_Create_Args' kv callbacks). Each returns true on success; on failure it
 * writes a NUL-terminated message into `error` (at most `error_size` bytes). get blocks
 * until the key is set or `timeout_ms` passes. */
typedef struct JaxKvStore {
  void* user_arg;
  bool (*get)(void* user_arg, const char* key, size_t key_size, int64_t timeout_ms,
              JaxKvSink* sink, void* sink_arg, char* error, size_t error_size);
  bool (*put)(void* user_arg, const char* key, size_t key_size, const char* value,
              size_t value_size, char* error, size_t error_size);
} JaxKvStore;

typedef struct JaxCrossProcessEngine {
  size_t struct_size;
  const char* name; /* "gloo" */
  /* Connects process `rank` of `size` to the others (every process calls it with the
   * same `prefix`, a fresh one per group); NULL on failure. `kv` must outlive the
   * returned group. Operations fail instead of waiting longer than `timeout_ms`. */
  void* (*connect)(int rank, int size, const char* hostname, const char* prefix,
                   const JaxKvStore* kv, int64_t timeout_ms, char* error, size_t error_size);
  /* out (size * bytes) = every rank's `bytes` of `in`, in rank order. */
  bool (*all_gather)(void* group, const void* in, size_t bytes, void* out, char* error,
                     size_t error_size);
  void (*destroy)(void* group);
  /* Personalised exchange: `in` holds one block per rank, in rank order, block q of
   * send_bytes[q] bytes going to rank q; `out` receives one block per rank, in rank
   * order, recv_bytes[q] bytes from rank q (every rank's send_bytes[r] equals rank r's
   * recv_bytes of it). */
  bool (*all_to_all)(void* group, const void* in, const size_t* send_bytes, void* out,
                     const size_t* recv_bytes, char* error, size_t error_size);
} JaxCrossProcessEngine;

/* The one symbol the engine's shared object exports. */
#define JAX_CROSS_PROCESS_ENGINE_SYMBOL "JaxCpuCrossProcessEngine"
typedef const JaxCrossProcessEngine* JaxCpuCrossProcessEngineFn(void);

#ifdef __cplusplus
}
#endif

#endif /* XLA_BACKENDS_CPU_COLLECTIVES_CROSS_PROCESS_H_ */
