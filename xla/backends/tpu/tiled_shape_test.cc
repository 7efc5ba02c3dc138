// Tiles per element type and rank, and the padded size of tiled arrays.
#include "xla/backends/tpu/tiled_shape.h"

#include "xla/hlo/testing/check.h"

namespace xla::tpu {
namespace {

Shape Tiled(PrimitiveType type, std::vector<int64_t> dims, std::vector<int64_t> m2m) {
  Shape s(type, std::move(dims), std::move(m2m));
  s.set_tiles(TpuTiles(type, s.rank()));
  return s;
}

// f32[3,5] pads to one 8x128 tile: 4096 bytes, not 60.
TEST(SmallMatrixTakesOneTile) {
  Shape s = Tiled(PrimitiveType::F32, {3, 5}, {1, 0});
  EXPECT_EQ(s.ToString(), std::string("f32[3,5]{1,0:T(8,128)}"));
  EXPECT_EQ(TiledByteSize(s), 4096);
}

// Padding applies per minor dimension, leading dimensions stay as they are.
TEST(PadsTheTwoMinorDimensions) {
  EXPECT_EQ(TiledByteSize(Tiled(PrimitiveType::F32, {2, 9, 130}, {2, 1, 0})), 2 * 16 * 256 * 4);
  EXPECT_EQ(TiledByteSize(Tiled(PrimitiveType::F32, {8, 128}, {1, 0})), 8 * 128 * 4);
  // Layout {0,1}: dimension 0 is minor, so it is the one padded to 128.
  EXPECT_EQ(TiledByteSize(Tiled(PrimitiveType::F32, {200, 3}, {0, 1})), 8 * 256 * 4);
}

// Narrow types: the second tile packs rows and adds no padding of its own.
TEST(NarrowTypesPackRows) {
  Shape bf16 = Tiled(PrimitiveType::BF16, {3, 5}, {1, 0});
  EXPECT_EQ(bf16.ToString(), std::string("bf16[3,5]{1,0:T(8,128)(2,1)}"));
  EXPECT_EQ(TiledByteSize(bf16), 8 * 128 * 2);
  Shape s8 = Tiled(PrimitiveType::S8, {9, 1}, {1, 0});
  EXPECT_EQ(s8.ToString(), std::string("s8[9,1]{1,0:T(8,128)(4,1)}"));
  EXPECT_EQ(TiledByteSize(s8), 16 * 128);
}

// Vectors use T(256), scalars and untiled arrays are dense, tuples sum.
TEST(VectorsScalarsUntiledAndTuples) {
  Shape v = Tiled(PrimitiveType::F32, {300}, {0});
  EXPECT_EQ(v.ToString(), std::string("f32[300]{0:T(256)}"));
  EXPECT_EQ(TiledByteSize(v), 512 * 4);
  EXPECT_EQ(TiledByteSize(Shape::Scalar(PrimitiveType::F64)), 8);
  EXPECT_EQ(TiledByteSize(Shape(PrimitiveType::F32, {3, 5})), 60);
  EXPECT_EQ(TiledByteSize(Shape::MakeTuple({v, Tiled(PrimitiveType::F32, {3, 5}, {1, 0})})),
            2048 + 4096);
}

}  // namespace
}  // namespace xla::tpu

TEST_MAIN()
