/* Exports GetPjrtApi like libtpu, with only the version filled in. */
#include <stddef.h>

#include "xla/pjrt/c/pjrt_c_api.h"

__attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi(void) {
  static PJRT_Api api;
  api.struct_size = sizeof(PJRT_Api);
  api.pjrt_api_version.struct_size = sizeof(PJRT_Api_Version);
  api.pjrt_api_version.major_version = 0;
  api.pjrt_api_version.minor_version = 77;
  return &api;
}
