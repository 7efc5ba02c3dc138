// Zero-copy host buffers (C API 1.3) on the CPU backend: host memory that is
// aligned enough is used in place, read by kernels, never written (not even
// when donated), and handed back exactly once when nothing reads it.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "xla/backends/cpu/cpu_client.h"
#include "xla/hlo/testing/check.h"

namespace xla::cpu {
namespace {

Client& TestClient() {
  static std::unique_ptr<Client> client = [] {
    auto c = CpuPluginInfo().create_client({});
    if (!c.ok()) {
      std::fprintf(stderr, "cannot create client: %s\n", c.status().ToString().c_str());
      std::abort();
    }
    return std::move(c).value();
  }();
  return *client;
}

// `n` floats 0, 1, 2, ... at `offset` bytes past a 64-byte boundary, lent to
// the backend through a pointer that counts how often it is handed back.
class HostFloats {
 public:
  HostFloats(size_t n, size_t offset) : storage_((n * sizeof(float) + offset + 63) / 64 + 1) {
    data_ = reinterpret_cast<float*>(reinterpret_cast<char*>(storage_.data()) + offset);
    for (size_t i = 0; i < n; ++i) data_[i] = static_cast<float>(i);
    n_ = n;
  }
  std::shared_ptr<const void> Lend() {
    return std::shared_ptr<const void>(data_, [this](const void*) { ++released_; });
  }
  const float* data() const { return data_; }
  std::vector<float> values() const { return std::vector<float>(data_, data_ + n_); }
  int released() const { return released_; }

 private:
  struct alignas(64) Line { char bytes[64]; };
  std::vector<Line> storage_;
  float* data_;
  size_t n_;
  int released_ = 0;
};

std::vector<float> Iota(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i);
  return v;
}

std::vector<float> Read(Buffer& b) {
  std::vector<float> v(b.size_in_bytes() / sizeof(float));
  CHECK_OK(b.ToHost(v.data()));
  return v;
}

std::unique_ptr<Buffer> Lend(HostFloats& host, std::vector<int64_t> dims) {
  Client& client = TestClient();
  auto buf = client.BufferFromHostZeroCopy(host.Lend(), PrimitiveType::F32, dims, client.devices()[0]);
  CHECK_OK(buf);
  return std::move(buf).value();
}

TEST(AlignedHostMemoryIsUsedInPlaceUntilDeleted) {
  HostFloats host(8, 0);
  std::unique_ptr<Buffer> buf = Lend(host, {2, 4});
  EXPECT_EQ(buf->UnsafePointer(), reinterpret_cast<uintptr_t>(host.data()));
  EXPECT_TRUE(Read(*buf) == Iota(8, 1));
  EXPECT_EQ(host.released(), 0);
  buf->Delete();
  EXPECT_EQ(host.released(), 1);
  buf.reset();
  EXPECT_EQ(host.released(), 1);
}

TEST(MisalignedHostMemoryIsCopiedAndHandedBackAtOnce) {
  HostFloats host(8, 4);
  std::unique_ptr<Buffer> buf = Lend(host, {8});
  EXPECT_TRUE(buf->UnsafePointer() != reinterpret_cast<uintptr_t>(host.data()));
  EXPECT_EQ(buf->UnsafePointer() % 64, 0u);
  EXPECT_EQ(host.released(), 1);
  EXPECT_TRUE(Read(*buf) == Iota(8, 1));
}

TEST(EmptyArrayAndBadTypeHandHostMemoryBack) {
  Client& client = TestClient();
  HostFloats host(1, 0);
  auto empty = client.BufferFromHostZeroCopy(host.Lend(), PrimitiveType::F32, {0, 3}, client.devices()[0]);
  CHECK_OK(empty);
  EXPECT_EQ(host.released(), 1);
  auto bad = client.BufferFromHostZeroCopy(host.Lend(), PrimitiveType::TUPLE, {1}, client.devices()[0]);
  EXPECT_TRUE(!bad.ok() && bad.status().code() == StatusCode::kInvalidArgument);
  EXPECT_EQ(host.released(), 2);
}

// 16 bytes past a 64-byte boundary: in place, and the kernels (wide vector
// loads) must not assume more alignment than that.
TEST(KernelsReadSixteenByteAlignedHostMemory) {
  Client& client = TestClient();
  HostFloats host(1000, 16);
  std::unique_ptr<Buffer> buf = Lend(host, {1000});
  EXPECT_EQ(buf->UnsafePointer(), reinterpret_cast<uintptr_t>(host.data()));
  auto exe = client.CompileText(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[1000]{0} parameter(0)
  y = f32[1000]{0} multiply(x, x)
  z = f32[] constant(0)
  r = f32[] reduce(x, z), dimensions={0}, to_apply=add
  ROOT t = (f32[1000]{0}, f32[]) tuple(y, r)
})", {}, {});
  CHECK_OK(exe);
  auto outs = (*exe)->Execute({{buf.get()}}, {});
  CHECK_OK(outs);
  std::vector<float> squares = Read(*(*outs)[0][0]);
  bool ok = true;
  for (size_t i = 0; i < squares.size(); ++i) ok &= squares[i] == static_cast<float>(i * i);
  EXPECT_TRUE(ok);
  EXPECT_TRUE(Read(*(*outs)[0][1]) == std::vector<float>{499500.0f});
}

// A declared donor that is the caller's memory is consumed, but its output gets
// fresh memory: the host array is never written.
TEST(DonatedZeroCopyBufferIsNeverWrittenOver) {
  Client& client = TestClient();
  HostFloats host(4, 0);
  std::unique_ptr<Buffer> buf = Lend(host, {2, 2});
  auto exe = client.CompileText(R"(HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY main {
  x = f32[2,2]{1,0} parameter(0)
  ROOT y = f32[2,2]{1,0} add(x, x)
})", {}, {});
  CHECK_OK(exe);
  auto outs = (*exe)->Execute({{buf.get()}}, {0});
  CHECK_OK(outs);
  Buffer& out = *(*outs)[0][0];
  EXPECT_TRUE(out.UnsafePointer() != reinterpret_cast<uintptr_t>(host.data()));
  EXPECT_TRUE(Read(out) == Iota(4, 2));
  EXPECT_TRUE(host.values() == Iota(4, 1));
  EXPECT_TRUE(buf->is_deleted());
  EXPECT_EQ(host.released(), 1);
}

TEST(ExternalReferenceHoldsHostMemoryPastDelete) {
  HostFloats host(4, 0);
  std::unique_ptr<Buffer> buf = Lend(host, {4});
  CHECK_OK(buf->AcquireExternalReference());
  buf->Delete();
  EXPECT_EQ(host.released(), 0);
  CHECK_OK(buf->ReleaseExternalReference());
  EXPECT_EQ(host.released(), 1);
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
