#include "xla/pjrt/client.h"

#include "xla/hlo/parser/parser.h"

namespace xla {

StatusOr<std::unique_ptr<Executable>> Client::CompileText(const std::string& hlo_text,
                                                          const Options& options,
                                                          const std::vector<Device*>& devices) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(hlo_text));
  return Compile(std::move(module), options, devices);
}

}  // namespace xla
