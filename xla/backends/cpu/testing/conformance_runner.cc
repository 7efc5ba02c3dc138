// See conformance_runner.h.
#include "xla/backends/cpu/testing/conformance_runner.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "xla/backends/cpu/testing/npz.h"
#include "xla/hlo/ir/native_type.h"
#include "xla/hlo/parser/parser.h"

namespace xla::cpu::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

double JsonNumber(const std::string& json, const std::string& key, double fallback) {
  size_t at = json.find("\"" + key + "\"");
  if (at == std::string::npos) return fallback;
  at = json.find(':', at);
  return std::strtod(json.c_str() + at + 1, nullptr);
}

// Element i as a double. Complex arrays are compared as their real and
// imaginary parts.
double Element(PrimitiveType type, const uint8_t* data, int64_t i) {
  switch (type) {
#define XLA_CASE(P, T) \
  case PrimitiveType::P: { T v; std::memcpy(&v, data + i * sizeof(T), sizeof(T)); return static_cast<double>(v); }
    XLA_CASE(PRED, uint8_t) XLA_CASE(S8, int8_t) XLA_CASE(S16, int16_t) XLA_CASE(S32, int32_t)
    XLA_CASE(S64, int64_t) XLA_CASE(U8, uint8_t) XLA_CASE(U16, uint16_t) XLA_CASE(U32, uint32_t)
    XLA_CASE(U64, uint64_t) XLA_CASE(F32, float) XLA_CASE(F64, double)
#undef XLA_CASE
    case PrimitiveType::F16: { half h; std::memcpy(&h.bits, data + 2 * i, 2); return HalfToFloat(h); }
    case PrimitiveType::BF16: { bfloat16 h; std::memcpy(&h.bits, data + 2 * i, 2); return BF16ToFloat(h); }
    default: return NAN;
  }
}

enum class Outcome { kPass, kMismatch, kUnimplemented, kError };

Outcome RunCase(Client& client, const std::string& dir, std::string* why) {
  std::string hlo = ReadFile(dir + "/module.hlo");
  std::string meta = ReadFile(dir + "/case.json");
  auto inputs = ReadNpz(dir + "/inputs.npz");
  auto expected = ReadNpz(dir + "/expected.npz");
  if (!inputs.ok() || !expected.ok()) {
    *why = "reading npz: " + (inputs.ok() ? expected.status() : inputs.status()).ToString();
    return Outcome::kError;
  }
  auto module = ParseHloModule(hlo);
  if (!module.ok()) {
    *why = "parse: " + module.status().ToString();
    return Outcome::kError;
  }
  auto exe = client.CompileText(hlo, {}, {});
  if (!exe.ok()) {
    *why = exe.status().ToString();
    return exe.status().code() == StatusCode::kUnimplemented ? Outcome::kUnimplemented
                                                             : Outcome::kError;
  }
  const HloComputation* entry = (*module)->entry_computation();
  std::vector<std::unique_ptr<Buffer>> owned;
  std::vector<Buffer*> args;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    auto it = inputs->find("arg" + std::to_string(i));
    if (it == inputs->end()) {
      *why = "missing input arg" + std::to_string(i);
      return Outcome::kError;
    }
    const Shape& shape = entry->parameter_instruction(i)->shape();
    auto buf = client.BufferFromHost(it->second.data.data(), shape.element_type(),
                                     shape.dimensions(), {}, client.devices()[0]);
    if (!buf.ok()) {
      *why = buf.status().ToString();
      return Outcome::kError;
    }
    args.push_back(buf->get());
    owned.push_back(std::move(buf).value());
  }
  auto outs = (*exe)->Execute({args}, {});
  if (!outs.ok()) {
    *why = "execute: " + outs.status().ToString();
    return Outcome::kError;
  }
  const double rtol = JsonNumber(meta, "rtol", 0), atol = JsonNumber(meta, "atol", 0);
  const auto& results = (*outs)[0];
  if (results.size() != expected->size()) {
    *why = "got " + std::to_string(results.size()) + " outputs, want " +
           std::to_string(expected->size());
    return Outcome::kMismatch;
  }
  for (size_t o = 0; o < results.size(); ++o) {
    const NpyArray& want = expected->at("out" + std::to_string(o));
    Buffer& got = *results[o];
    if (got.dimensions() != want.shape) {
      *why = "out" + std::to_string(o) + ": wrong shape";
      return Outcome::kMismatch;
    }
    std::vector<uint8_t> bytes(got.size_in_bytes());
    if (!got.ToHost(bytes.data()).ok() || bytes.size() != want.data.size()) {
      *why = "out" + std::to_string(o) + ": wrong byte size (dtype " + want.descr + ")";
      return Outcome::kMismatch;
    }
    // c64 / c128 compare component-wise as f32 / f64 pairs.
    PrimitiveType t = got.element_type();
    if (t == PrimitiveType::C64) t = PrimitiveType::F32;
    if (t == PrimitiveType::C128) t = PrimitiveType::F64;
    const int64_t n = static_cast<int64_t>(bytes.size()) / std::max(1, ByteWidth(t));
    for (int64_t i = 0; i < n; ++i) {
      double g = Element(t, bytes.data(), i), w = Element(t, want.data.data(), i);
      bool ok;
      if (std::isnan(w)) ok = std::isnan(g);
      else if (std::isinf(w)) ok = g == w;
      else if (IsFloatingPoint(t)) ok = std::fabs(g - w) <= atol + rtol * std::fabs(w);
      else ok = g == w;
      if (!ok) {
        char buf[200];
        std::snprintf(buf, sizeof(buf), "out%zu[%lld]: got %.9g want %.9g", o,
                      static_cast<long long>(i), g, w);
        *why = buf;
        return Outcome::kMismatch;
      }
    }
  }
  return Outcome::kPass;
}

}  // namespace

std::string ConformanceRoot(const std::string& data_file) {
  if (const char* dir = std::getenv("CONFORMANCE_DIR")) return dir;
  // The data file's real path leads out of the sandbox to the repository.
  char real[PATH_MAX];
  if (realpath(data_file.c_str(), real) != nullptr) {
    std::string p(real);
    p = p.substr(0, p.size() - data_file.size() - 1);
    return p + "/../shared/conformance";
  }
  return "../shared/conformance";
}

int RunHloCorpus(Client& client, const std::string& root, const std::string& filter,
                 int minimum_passed) {
  std::string dir = root + "/hlo";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    // A missing corpus is a failure: a run that checked nothing must not pass.
    std::fprintf(stderr, "no corpus at %s: set CONFORMANCE_DIR to the folder holding hlo/\n",
                 dir.c_str());
    return 1;
  }
  std::vector<std::string> cases;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') cases.push_back(e->d_name);
  }
  closedir(d);
  std::sort(cases.begin(), cases.end());
  int counts[4] = {0, 0, 0, 0};
  for (const std::string& name : cases) {
    if (!filter.empty() && name.find(filter) == std::string::npos) continue;
    std::string why;
    Outcome r = RunCase(client, dir + "/" + name, &why);
    ++counts[static_cast<int>(r)];
    const char* tag[] = {"PASS", "MISMATCH", "UNIMPLEMENTED", "ERROR"};
    if (r == Outcome::kUnimplemented) {
      // Only the first line: the opcode and instruction.
      why = why.substr(0, why.find('\n'));
    }
    std::printf("%-13s %s%s%s\n", tag[static_cast<int>(r)], name.c_str(), why.empty() ? "" : ": ",
                why.c_str());
  }
  std::printf("%d passed, %d mismatched, %d unimplemented, %d errors\n", counts[0], counts[1],
              counts[2], counts[3]);
  if (filter.empty() && counts[0] < minimum_passed) {
    std::printf("fewer than the %d passing cases expected\n", minimum_passed);
    return 1;
  }
  return counts[1] + counts[3] == 0 ? 0 : 1;
}

}  // namespace xla::cpu::testing
