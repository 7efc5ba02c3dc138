// Programs and compile options as PJRT clients send them, read into our IR and
// options; and our optimized programs written back in PJRT's format.
#ifndef XLA_PJRT_C_PROGRAM_IO_H_
#define XLA_PJRT_C_PROGRAM_IO_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "xla/hlo/ir/module.h"
#include "xla/pjrt/c/pjrt_c_api.h"
#include "xla/pjrt/client.h"
#include "xla/status.h"

namespace xla::c_api {

// Format "hlo" (a serialized HloModuleProto) or "hlo_with_config" (a
// serialized HloModuleProtoWithConfig); other formats are INVALID_ARGUMENT
// naming the ones this plugin reads.
StatusOr<std::unique_ptr<HloModule>> ReadProgram(const PJRT_Program& program);

// What a CompileOptionsProto asks of our backends: the options they read
// (num_replicas, num_partitions) and the devices, replica-major, of its device
// assignment (empty: the backend's default). Ids must name `client`'s devices.
struct CompileRequest {
  Options options;
  std::vector<Device*> devices;
};
StatusOr<CompileRequest> ReadCompileOptions(std::string_view serialized, const Client& client);

// The executable's optimized module: as a serialized HloModuleProto, and the
// shapes of its flattened outputs.
struct OptimizedProgram {
  std::string hlo_module_proto;
  std::vector<Shape> outputs;
};
StatusOr<OptimizedProgram> DescribeOptimizedProgram(const Executable& executable);

}  // namespace xla::c_api

#endif  // XLA_PJRT_C_PROGRAM_IO_H_
