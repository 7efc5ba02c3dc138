// A minimal reader for NumPy .npy/.npz files, for tests that run the
// conformance corpus (np.savez / np.savez_compressed: a zip of .npy members,
// stored or deflated). Little-endian, C-order arrays only.
#ifndef XLA_BACKENDS_CPU_TESTING_NPZ_H_
#define XLA_BACKENDS_CPU_TESTING_NPZ_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "xla/status.h"

namespace xla::cpu::testing {

struct NpyArray {
  std::string descr;  // "<f4", "|b1", "<u2", ...
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

// Parses one .npy file image.
StatusOr<NpyArray> ParseNpy(const std::string& bytes);
// Reads every member of an .npz, keyed by name without ".npy".
StatusOr<std::map<std::string, NpyArray>> ReadNpz(const std::string& path);

}  // namespace xla::cpu::testing

#endif  // XLA_BACKENDS_CPU_TESTING_NPZ_H_
