// See compile_run.h.
#include "xla/backends/cpu/fuzz/compile_run.h"

#include <complex>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "xla/hlo/ir/native_type.h"
#include "xla/hlo/parser/parser.h"

namespace xla::cpu::fuzz {
namespace {

// Element i of an input: small values of both signs, valid for every type
// (pred stays 0/1), so indices, shifts and divisors cover the edge cases.
void FillElement(PrimitiveType type, int64_t i, char* dst) {
  int64_t v = (i % 7) - 3;
  switch (type) {
    case PrimitiveType::PRED: { uint8_t b = i % 2; std::memcpy(dst, &b, 1); return; }
    case PrimitiveType::S8: case PrimitiveType::U8: { int8_t x = v; std::memcpy(dst, &x, 1); return; }
    case PrimitiveType::S16: case PrimitiveType::U16: { int16_t x = v; std::memcpy(dst, &x, 2); return; }
    case PrimitiveType::S32: case PrimitiveType::U32: { int32_t x = v; std::memcpy(dst, &x, 4); return; }
    case PrimitiveType::S64: case PrimitiveType::U64: { std::memcpy(dst, &v, 8); return; }
    case PrimitiveType::F16: { half h = FloatToHalf(0.5f * v); std::memcpy(dst, &h.bits, 2); return; }
    case PrimitiveType::BF16: { bfloat16 h = FloatToBF16(0.5f * v); std::memcpy(dst, &h.bits, 2); return; }
    case PrimitiveType::F32: { float x = 0.5f * v; std::memcpy(dst, &x, 4); return; }
    case PrimitiveType::F64: { double x = 0.5 * v; std::memcpy(dst, &x, 8); return; }
    case PrimitiveType::C64: { std::complex<float> x(0.5f * v, 0.25f); std::memcpy(dst, &x, 8); return; }
    case PrimitiveType::C128: { std::complex<double> x(0.5 * v, 0.25); std::memcpy(dst, &x, 16); return; }
    default: std::memset(dst, 0, ByteWidth(type)); return;
  }
}

}  // namespace

Outcome CompileAndRun(Client& client, std::string_view text, size_t max_input_bytes) {
  Device* device = client.devices()[0];
  auto exe = client.CompileText(std::string(text), {}, {device});
  if (!exe.ok()) return Outcome::kRefused;
  if (text.find("while(") != std::string_view::npos) return Outcome::kCompiled;
  auto module = ParseHloModule(text);
  if (!module.ok()) return Outcome::kCompiled;  // compiled text always parses; stay safe
  const HloComputation* entry = (*module)->entry_computation();
  size_t total = 0;
  for (const HloInstruction* p : entry->parameter_instructions()) {
    if (!p->shape().IsArray()) return Outcome::kCompiled;
    total += static_cast<size_t>(p->shape().byte_size());
    if (total > max_input_bytes) return Outcome::kCompiled;
  }
  std::vector<std::unique_ptr<Buffer>> owned;
  std::vector<Buffer*> args;
  for (const HloInstruction* p : entry->parameter_instructions()) {
    const Shape& s = p->shape();
    int width = ByteWidth(s.element_type());
    std::vector<char> host(static_cast<size_t>(s.byte_size()) + 1);
    for (int64_t i = 0; i < s.element_count(); ++i) {
      FillElement(s.element_type(), i, host.data() + i * width);
    }
    auto buffer = client.BufferFromHost(host.data(), s.element_type(), s.dimensions(), {}, device);
    if (!buffer.ok()) return Outcome::kCompiled;
    args.push_back(buffer->get());
    owned.push_back(std::move(*buffer));
  }
  auto outs = (*exe)->Execute({args}, {});
  if (!outs.ok()) return Outcome::kCompiled;
  for (auto& out : (*outs)[0]) {
    std::vector<char> host(out->size_in_bytes() + 1);
    (void)out->ToHost(host.data());
  }
  return Outcome::kRan;
}

}  // namespace xla::cpu::fuzz
