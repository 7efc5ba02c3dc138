// Host callbacks: the C API extension registers a function and hands back an
// index; the custom-call thunk for that index calls it with the operand and
// result buffers of the run; a failing callback fails the run with its
// message; unregistered or missing indices are refused when the thunk is built.
#include <cstring>
#include <string>
#include <vector>

#include "xla/backends/cpu/runtime/host_callback_thunk.h"
#include "xla/hlo/testing/check.h"
#include "xla/pjrt/c/host_callback_registry.h"
#include "xla/pjrt/c/pjrt_c_api_host_extensions.h"

namespace xla::cpu {
namespace {

// Sums two float operands of `n` elements into the result; fails on a negative.
struct AddContext {
  int n = 0;
  int calls = 0;
};

bool AddFloats(void* user_data, const void* const* operands, size_t num_operands,
               void* const* results, size_t num_results, char* error, size_t error_size) {
  auto* ctx = static_cast<AddContext*>(user_data);
  ++ctx->calls;
  if (num_operands != 2 || num_results != 1) return false;
  const float* a = static_cast<const float*>(operands[0]);
  const float* b = static_cast<const float*>(operands[1]);
  float* out = static_cast<float*>(results[0]);
  for (int i = 0; i < ctx->n; ++i) {
    if (a[i] < 0) {
      std::strncpy(error, "negative input", error_size);
      return false;
    }
    out[i] = a[i] + b[i];
  }
  return true;
}

uint64_t RegisterThroughExtension(AddContext* ctx) {
  const auto* ext = reinterpret_cast<const PJRT_HostCallback_Extension*>(HostCallbackExtension());
  CHECK_TRUE(PJRT_ExtensionTypeOf(&ext->base) == PJRT_EXTENSION_JAX_HOST_CALLBACK);
  PJRT_HostCallback_Register_Args args;
  std::memset(&args, 0, sizeof(args));
  args.struct_size = PJRT_HostCallback_Register_Args_STRUCT_SIZE;
  args.callback = &AddFloats;
  args.user_data = ctx;
  CHECK_TRUE(ext->register_callback(&args) == nullptr);
  return args.index;
}

CustomCallArgs CallArgs(int64_t index) {
  CustomCallArgs args;
  args.target = PJRT_HOST_CALLBACK_TARGET;
  args.instruction = "pure_callback.1";
  args.operand_slots = {0, 1};
  args.result_slots = {2};
  args.attributes["index"] = index;
  return args;
}

TEST(ThunkCallsTheRegisteredFunctionWithItsBuffers) {
  AddContext ctx{3};
  uint64_t index = RegisterThroughExtension(&ctx);
  auto thunk = MakeHostCallbackThunk(CallArgs(static_cast<int64_t>(index)));
  CHECK_OK(thunk);
  std::vector<float> a = {1, 2, 3}, b = {10, 20, 30}, out(3, 0);
  void* slots[] = {a.data(), b.data(), out.data()};
  ThunkParams params;
  params.buffers = slots;
  CHECK_OK((*thunk)->Run(params));
  EXPECT_EQ(out[0], 11.0f);
  EXPECT_EQ(out[2], 33.0f);
  CHECK_OK((*thunk)->Run(params));
  EXPECT_EQ(ctx.calls, 2);

  a[1] = -1;
  Status failed = (*thunk)->Run(params);
  EXPECT_TRUE(!failed.ok());
  EXPECT_TRUE(failed.message().find("negative input") != std::string::npos);

  // Unregistered after the thunk was built: the run is refused, nothing is called.
  EXPECT_TRUE(UnregisterHostCallback(index));
  int calls = ctx.calls;
  EXPECT_TRUE(!(*thunk)->Run(params).ok());
  EXPECT_EQ(ctx.calls, calls);
}

TEST(BuildingRefusesUnknownOrMissingIndex) {
  EXPECT_TRUE(!MakeHostCallbackThunk(CallArgs(1 << 30)).ok());
  CustomCallArgs no_index = CallArgs(0);
  no_index.attributes.clear();
  auto built = MakeHostCallbackThunk(no_index);
  EXPECT_TRUE(!built.ok());
}

TEST(IndicesAreNotReused) {
  AddContext ctx{1};
  uint64_t first = RegisterThroughExtension(&ctx);
  UnregisterHostCallback(first);
  uint64_t second = RegisterThroughExtension(&ctx);
  EXPECT_TRUE(second != first);
  EXPECT_TRUE(FindHostCallback(second).has_value());
  EXPECT_TRUE(!FindHostCallback(first).has_value());
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
