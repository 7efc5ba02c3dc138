"""Stand-ins for vendor driver libraries, compiled by the tests with `cc`.

No machine here has a GPU, so the plugins' run-time paths are reached through
small C libraries with the vendors' library names and C entry points, put on
LD_LIBRARY_PATH of a subprocess. They show how the plugins react to what the
real libraries can do: lack a symbol, report no devices, describe a device,
fail to link. They never pretend to run kernels.
"""

import os
import shutil
import subprocess

import pytest

# The HIP runtime (ROCm 6 names and signatures). Define OMIT_<name> to leave
# an entry point out. Environment: FAKE_HIP_DEVICES (count, default 0),
# FAKE_HIP_ARCH (gcnArchName). Device memory is host memory, so copies work.
HIP_SOURCE = r"""
#include <stdlib.h>
#include <string.h>

typedef int hipError_t;
enum { kNoDevice = 100, kInvalidDevice = 101, kInvalidImage = 200 };

static int device_count(void) {
  const char* n = getenv("FAKE_HIP_DEVICES");
  return n ? atoi(n) : 0;
}

hipError_t hipInit(unsigned flags) { return device_count() > 0 ? 0 : kNoDevice; }
#ifndef OMIT_hipGetErrorName
const char* hipGetErrorName(hipError_t e) {
  switch (e) {
    case kNoDevice: return "hipErrorNoDevice";
    case kInvalidDevice: return "hipErrorInvalidDevice";
    case kInvalidImage: return "hipErrorInvalidImage";
  }
  return "hipErrorUnknown";
}
#endif
const char* hipGetErrorString(hipError_t e) {
  switch (e) {
    case kNoDevice: return "no ROCm-capable device is detected";
    case kInvalidDevice: return "invalid device ordinal";
    case kInvalidImage: return "device kernel image is invalid";
  }
  return "unknown error";
}
hipError_t hipGetDeviceCount(int* count) {
  *count = device_count();
  return *count > 0 ? 0 : kNoDevice;
}
hipError_t hipGetDevicePropertiesR0600(void* props, int device) {
  if (device >= device_count()) return kInvalidDevice;
  memset(props, 0, 1472);
  strcpy((char*)props, "Fake Instinct");
  const char* arch = getenv("FAKE_HIP_ARCH");
  strcpy((char*)props + 1160, arch ? arch : "gfx90a:sramecc+:xnack-");
  return 0;
}
hipError_t hipSetDevice(int device) { return device < device_count() ? 0 : kInvalidDevice; }
hipError_t hipStreamCreate(void** stream) { *stream = malloc(1); return 0; }
hipError_t hipStreamDestroy(void* stream) { free(stream); return 0; }
hipError_t hipStreamSynchronize(void* stream) { return 0; }
hipError_t hipMalloc(void** ptr, size_t bytes) { *ptr = malloc(bytes); return 0; }
hipError_t hipFree(void* ptr) { free(ptr); return 0; }
hipError_t hipMemcpyHtoDAsync(void* dst, const void* src, size_t n, void* s) { memcpy(dst, src, n); return 0; }
hipError_t hipMemcpyDtoHAsync(void* dst, void* src, size_t n, void* s) { memcpy(dst, src, n); return 0; }
hipError_t hipMemcpyDtoDAsync(void* dst, void* src, size_t n, void* s) { memcpy(dst, src, n); return 0; }
/* Kernels cannot run here: every code object is refused. */
hipError_t hipModuleLoadData(void** module, const void* image) { return kInvalidImage; }
hipError_t hipModuleUnload(void* module) { return 0; }
hipError_t hipModuleGetFunction(void** fn, void* module, const char* name) { return kInvalidImage; }
#ifndef OMIT_hipModuleLaunchKernel
hipError_t hipModuleLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                 unsigned by, unsigned bz, unsigned shared, void* stream,
                                 void** params, void** extra) { return kInvalidImage; }
#endif
"""

# comgr with interface version 2.6 whose link fails with a log, as a link of
# an object for another processor would.
COMGR_SOURCE = r"""
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct { uint64_t handle; } handle_t;
static const char kLog[] = "ld.lld: error: fake link failure";

int amd_comgr_status_string(int status, const char** text) { *text = "ERROR"; return 0; }
void amd_comgr_get_version(size_t* major, size_t* minor) { *major = 2; *minor = 6; }
int amd_comgr_create_data(int kind, handle_t* data) { data->handle = (uint64_t)kind; return 0; }
int amd_comgr_release_data(handle_t data) { return 0; }
int amd_comgr_set_data(handle_t data, size_t size, const char* bytes) { return 0; }
int amd_comgr_set_data_name(handle_t data, const char* name) { return 0; }
int amd_comgr_get_data(handle_t data, size_t* size, char* bytes) {
  if (bytes) memcpy(bytes, kLog, *size < sizeof(kLog) - 1 ? *size : sizeof(kLog) - 1);
  else *size = sizeof(kLog) - 1;
  return 0;
}
int amd_comgr_create_data_set(handle_t* set) { set->handle = 1; return 0; }
int amd_comgr_destroy_data_set(handle_t set) { return 0; }
int amd_comgr_data_set_add(handle_t set, handle_t data) { return 0; }
int amd_comgr_action_data_count(handle_t set, int kind, size_t* count) { *count = kind == 5; return 0; }
int amd_comgr_action_data_get_data(handle_t set, int kind, size_t i, handle_t* data) {
  data->handle = (uint64_t)kind; return 0;
}
int amd_comgr_create_action_info(handle_t* info) { info->handle = 1; return 0; }
int amd_comgr_destroy_action_info(handle_t info) { return 0; }
int amd_comgr_action_info_set_isa_name(handle_t info, const char* isa) { return 0; }
int amd_comgr_action_info_set_logging(handle_t info, bool on) { return 0; }
int amd_comgr_do_action(int kind, handle_t info, handle_t in, handle_t out) { return kind == 9 ? 1 : 2; }
"""

# The CUDA driver API with only cuInit: a driver too old or broken.
CUDA_INIT_ONLY_SOURCE = "int cuInit(unsigned flags) { return 0; }\n"


def build_fake_library(folder, soname, source, omit=()):
  """Compiles `source` into folder/soname; OMIT_<name> is defined for each of `omit`."""
  compiler = shutil.which("cc") or shutil.which("gcc")
  if compiler is None:
    pytest.skip("no C compiler to build a stand-in driver library")
  os.makedirs(folder, exist_ok=True)
  src = os.path.join(folder, soname + ".c")
  with open(src, "w") as f:
    f.write(source)
  out = os.path.join(folder, soname)
  subprocess.run([compiler, "-shared", "-fPIC", "-o", out, src] + [f"-DOMIT_{n}" for n in omit],
                 check=True)
  return out
