#include "xla/pjrt/c/program_io.h"

#include "xla/hlo/parser/parser.h"
#include "xla/hlo/proto/compile_options.h"
#include "xla/hlo/proto/hlo_proto.h"

namespace xla::c_api {

StatusOr<std::unique_ptr<HloModule>> ReadProgram(const PJRT_Program& program) {
  std::string_view format(program.format, program.format_size);
  std::string_view code(program.code, program.code_size);
  if (format == "hlo") return ParseHloModuleProto(code);
  return InvalidArgument("this plugin compiles programs in format \"hlo\" (a serialized "
                         "HloModuleProto); got format \"" + std::string(format) + "\"");
}

StatusOr<CompileRequest> ReadCompileOptions(std::string_view serialized, const Client& client) {
  ASSIGN_OR_RETURN(CompileOptions options, ParseCompileOptions(serialized));
  CompileRequest request;
  request.options["num_replicas"] = options.num_replicas;
  request.options["num_partitions"] = options.num_partitions;
  if (options.num_partitions != 1) {
    return Unimplemented("num_partitions=" + std::to_string(options.num_partitions) +
                         ": this plugin runs replicated programs only (jax partitions them)");
  }
  for (const std::vector<int64_t>& replica : options.device_assignment) {
    for (int64_t id : replica) {
      Device* found = nullptr;
      for (Device* d : client.devices()) {
        if (d->id() == id) found = d;
      }
      if (found == nullptr) {
        return InvalidArgument("the device assignment names device " + std::to_string(id) +
                               ", which this client does not have");
      }
      request.devices.push_back(found);
    }
  }
  return request;
}

StatusOr<OptimizedProgram> DescribeOptimizedProgram(const Executable& executable) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                   ParseHloModuleUnverified(executable.optimized_hlo()));
  OptimizedProgram program;
  ASSIGN_OR_RETURN(program.hlo_module_proto, SerializeHloModuleProto(*module));
  const Shape& result = module->entry_computation()->root_instruction()->shape();
  if (result.IsTuple()) {
    program.outputs = result.tuple_shapes();
  } else {
    program.outputs.push_back(result);
  }
  return program;
}

}  // namespace xla::c_api
