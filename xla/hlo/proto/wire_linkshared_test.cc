// Loads libwire_linkshared_check.so (protobuf's lite runtime linked in
// privately) and checks that it works and exports nothing of protobuf's.
#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "xla/hlo/testing/check.h"

namespace {

TEST(SharedObjectWorksAndHidesProtobuf) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  std::string path = std::string(srcdir ? srcdir : ".") +
                     "/jax_monorepo/xla/hlo/proto/libwire_linkshared_check.so";
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) std::fprintf(stderr, "%s\n", dlerror());
  CHECK_TRUE(handle != nullptr);
  auto round_trip = reinterpret_cast<int (*)(const char*)>(dlsym(handle, "WireRoundTrip"));
  CHECK_TRUE(round_trip != nullptr);
  EXPECT_EQ(round_trip("HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}\n\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(x)\n}\n\n"), 1);
  // Hidden: neither protobuf's runtime nor our generated classes are visible.
  EXPECT_TRUE(dlsym(handle, "_ZNK6google8protobuf11MessageLite17SerializeAsStringB5cxx11Ev") == nullptr);
  EXPECT_TRUE(dlsym(handle, "_ZN6google8protobuf8internal14ArenaStringPtr3SetERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEPNS0_5ArenaE") == nullptr);
  EXPECT_TRUE(dlsym(handle, "_ZN6google8protobuf8internal15ThreadSafeArena13thread_cache_E") == nullptr);
  EXPECT_TRUE(dlsym(handle, "_ZN3xla18ParseHloModuleProtoESt17basic_string_viewIcSt11char_traitsIcEE") == nullptr);
  // Not unloaded, as plugins never are: protobuf's default instances, made when
  // the object loads, stay reachable through it.
}

}  // namespace

TEST_MAIN()
