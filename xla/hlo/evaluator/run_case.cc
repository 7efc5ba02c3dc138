// run_case MODULE.hlo OUT_DIR [ARG0.bin ARG1.bin ...]
//
// Parses MODULE.hlo, reads each argument as raw little-endian row-major bytes
// shaped like the matching entry parameter, evaluates, and writes the
// flattened outputs to OUT_DIR/out0.bin, out1.bin, ... plus OUT_DIR/shapes.txt
// (one output shape per line). Exit status 1 with a message on any error.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "xla/hlo/evaluator/evaluator.h"
#include "xla/hlo/parser/parser.h"

namespace {

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "run_case: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return Fail("usage: run_case MODULE.hlo OUT_DIR [ARG.bin ...]");
  std::string text;
  if (!ReadFile(argv[1], &text)) return Fail(std::string("cannot read ") + argv[1]);
  auto module = xla::ParseHloModule(text);
  if (!module.ok()) return Fail(module.status().ToString());
  const xla::HloComputation* entry = (*module)->entry_computation();
  if (argc - 3 != entry->num_parameters()) {
    return Fail("module takes " + std::to_string(entry->num_parameters()) + " arguments, given " +
                std::to_string(argc - 3));
  }
  std::vector<xla::Literal> args;
  for (int i = 3; i < argc; ++i) {
    std::string bytes;
    if (!ReadFile(argv[i], &bytes)) return Fail(std::string("cannot read ") + argv[i]);
    const xla::Shape& shape = entry->parameter_instruction(i - 3)->shape();
    if (static_cast<int64_t>(bytes.size()) != shape.byte_size()) {
      return Fail(std::string(argv[i]) + " has " + std::to_string(bytes.size()) + " bytes, " +
                  shape.ToString() + " needs " + std::to_string(shape.byte_size()));
    }
    args.push_back(xla::Literal::FromBytes(shape, bytes.data(), bytes.size()));
  }
  auto outs = xla::Evaluate(**module, args);
  if (!outs.ok()) return Fail(outs.status().ToString());
  std::string dir = argv[2];
  std::ofstream shapes(dir + "/shapes.txt");
  for (size_t i = 0; i < outs->size(); ++i) {
    const xla::Literal& l = (*outs)[i];
    std::ofstream out(dir + "/out" + std::to_string(i) + ".bin", std::ios::binary);
    out.write(static_cast<const char*>(l.untyped_data()), static_cast<std::streamsize>(l.size_bytes()));
    shapes << l.shape().ToString(false) << "\n";
  }
  return 0;
}
