#include "xla/backends/cpu/runtime/host_callback_thunk.h"

#include <string>
#include <utility>
#include <vector>

#include "xla/pjrt/c/host_callback_registry.h"

namespace xla::cpu {
namespace {

class HostCallbackThunk final : public Thunk {
 public:
  HostCallbackThunk(uint64_t index, std::vector<int> operand_slots, std::vector<int> result_slots)
      : index_(index),
        operand_slots_(std::move(operand_slots)),
        result_slots_(std::move(result_slots)) {}

  Status Run(const ThunkParams& params) const override {
    // Looked up per run: the callback may be unregistered after compilation.
    std::optional<HostCallback> callback = FindHostCallback(index_);
    if (!callback.has_value()) {
      return FailedPrecondition("host callback " + std::to_string(index_) +
                                " is not registered (it was removed, or registered in another "
                                "process)");
    }
    std::vector<const void*> operands;
    for (int slot : operand_slots_) operands.push_back(params.buffers[slot]);
    std::vector<void*> results;
    for (int slot : result_slots_) results.push_back(params.buffers[slot]);
    return callback->Call(operands, results);
  }

 private:
  uint64_t index_;
  std::vector<int> operand_slots_;
  std::vector<int> result_slots_;
};

}  // namespace

StatusOr<std::shared_ptr<const Thunk>> MakeHostCallbackThunk(const CustomCallArgs& args) {
  auto it = args.attributes.find("index");
  if (it == args.attributes.end()) {
    return args.Error("needs api_version=API_VERSION_TYPED_FFI and backend_config="
                      "{index = N : ui64} naming a registered host callback");
  }
  if (it->second < 0 || !FindHostCallback(static_cast<uint64_t>(it->second)).has_value()) {
    return args.Error("host callback " + std::to_string(it->second) + " is not registered");
  }
  return std::shared_ptr<const Thunk>(std::make_shared<HostCallbackThunk>(
      static_cast<uint64_t>(it->second), args.operand_slots, args.result_slots));
}

const CustomCallFactory& HostCallbackFactory() {
  static const CustomCallFactory* factory = new CustomCallFactory(&MakeHostCallbackThunk);
  return *factory;
}

}  // namespace xla::cpu
