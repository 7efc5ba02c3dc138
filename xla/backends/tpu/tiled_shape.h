// The tiled layouts TPU memory uses, and the bytes a tiled array occupies.
//
// TPU vector memory works on 8 x 128 tiles of 32-bit words, so arrays of
// rank >= 2 are stored as 8 x 128 tiles of their two minor-most dimensions
// (in layout order): T(8,128). Narrower types pack several rows into one
// word with a second tile: 16-bit types add (2,1), 8-bit types (4,1). Rank-1
// arrays use one-dimensional T(256) tiles (our choice; the hardware's
// preference differs by generation). Scalars are not tiled.
#ifndef XLA_BACKENDS_TPU_TILED_SHAPE_H_
#define XLA_BACKENDS_TPU_TILED_SHAPE_H_

#include <cstdint>
#include <vector>

#include "xla/hlo/ir/shape.h"

namespace xla::tpu {

// The tiles for an array of this element type and rank ({} for scalars).
std::vector<std::vector<int64_t>> TpuTiles(PrimitiveType type, int rank);

// Bytes of an array stored in its layout's tiles: every tile is padded out
// to full size, e.g. f32[3,5]{1,0:T(8,128)} takes 8*128*4 = 4096 bytes.
// Untiled arrays are dense; tuples sum their elements.
int64_t TiledByteSize(const Shape& shape);

}  // namespace xla::tpu

#endif  // XLA_BACKENDS_TPU_TILED_SHAPE_H_
