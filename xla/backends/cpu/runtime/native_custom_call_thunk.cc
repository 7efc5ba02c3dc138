#include "xla/backends/cpu/runtime/native_custom_call_thunk.h"

#include <optional>
#include <utility>
#include <vector>

#include "xla/pjrt/c/custom_call_registry.h"

namespace xla::cpu {
namespace {

using UntypedFunction = void (*)(void* out, const void** in);

class NativeCustomCallThunk final : public Thunk {
 public:
  NativeCustomCallThunk(UntypedFunction function, std::vector<int> operand_slots,
                        std::vector<int> result_slots, bool tuple_result)
      : function_(function),
        operand_slots_(std::move(operand_slots)),
        result_slots_(std::move(result_slots)),
        tuple_result_(tuple_result) {}

  Status Run(const ThunkParams& params) const override {
    std::vector<const void*> in;
    in.reserve(operand_slots_.size());
    for (int slot : operand_slots_) in.push_back(params.buffers[slot]);
    // A single array result is passed as its buffer; a tuple as the array of
    // its buffers.
    std::vector<void*> outs;
    for (int slot : result_slots_) outs.push_back(params.buffers[slot]);
    void* out = tuple_result_ ? static_cast<void*>(outs.data()) : outs.at(0);
    function_(out, in.data());
    return OkStatus();
  }

 private:
  UntypedFunction function_;
  std::vector<int> operand_slots_;
  std::vector<int> result_slots_;
  bool tuple_result_;
};

}  // namespace

CustomCallFactory NativeCustomCallFactory(const std::string& target,
                                          const std::string& api_version, bool tuple_result) {
  std::optional<CustomCallTarget> found = FindCustomCallTarget(target);
  if (!found.has_value()) return nullptr;
  return [function = found->function, api_version, tuple_result](
             const CustomCallArgs& args) -> StatusOr<std::shared_ptr<const Thunk>> {
    if (!api_version.empty() && api_version != "API_VERSION_ORIGINAL") {
      return args.Error("has api_version=" + api_version +
                        ", but registered native targets use the original untyped convention "
                        "(API_VERSION_ORIGINAL: void f(void* out, const void** in))");
    }
    return std::shared_ptr<const Thunk>(std::make_shared<NativeCustomCallThunk>(
        reinterpret_cast<UntypedFunction>(function), args.operand_slots, args.result_slots,
        tuple_result));
  };
}

}  // namespace xla::cpu
