#include "xla/backends/tpu/tiled_shape.h"

#include <algorithm>

namespace xla::tpu {

std::vector<std::vector<int64_t>> TpuTiles(PrimitiveType type, int rank) {
  if (rank == 0) return {};
  if (rank == 1) return {{256}};
  switch (ByteWidth(type)) {
    case 1:
      return {{8, 128}, {4, 1}};
    case 2:
      return {{8, 128}, {2, 1}};
    default:
      return {{8, 128}};
  }
}

// Sizes in major-to-minor storage order; each tile splits the minor-most
// dimensions it covers into (tile count, tile size) pairs, padding the count
// up, so the next tile applies inside it.
int64_t TiledByteSize(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t total = 0;
    for (const Shape& s : shape.tuple_shapes()) total += TiledByteSize(s);
    return total;
  }
  if (!shape.IsArray()) return 0;
  if (shape.tiles().empty() || shape.rank() == 0) return shape.byte_size();
  std::vector<int64_t> dims;
  const std::vector<int64_t>& m2m = shape.minor_to_major();
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) dims.push_back(shape.dimensions(*it));
  for (const std::vector<int64_t>& tile : shape.tiles()) {
    const size_t k = std::min(tile.size(), dims.size());
    std::vector<int64_t> outer(dims.begin(), dims.end() - k);
    std::vector<int64_t> inner;
    for (size_t i = 0; i < k; ++i) {
      const int64_t size = dims[dims.size() - k + i];
      const int64_t t = tile[tile.size() - k + i];
      outer.push_back((size + t - 1) / t);
      inner.push_back(t);
    }
    dims = outer;
    dims.insert(dims.end(), inner.begin(), inner.end());
  }
  int64_t elements = 1;
  for (int64_t d : dims) elements *= d;
  return elements * ByteWidth(shape.element_type());
}

}  // namespace xla::tpu
