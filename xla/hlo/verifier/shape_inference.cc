// One case per opcode group; helpers first. Shapes are compared without
// layouts throughout.
#include "xla/hlo/verifier/shape_inference.h"

#include <algorithm>
#include <string>

#include "xla/hlo/ir/computation.h"

namespace xla {
namespace {

Status Fail(const std::string& message) { return InvalidArgument(message); }
std::string S(const Shape& s) { return s.ToString(/*print_layout=*/false); }

Shape WithType(const Shape& s, PrimitiveType t) { return Shape(t, s.dimensions()); }

Status ExpectArray(const Shape& s, const std::string& what) {
  if (!s.IsArray()) return Fail(what + " must be an array, got " + S(s));
  return OkStatus();
}

Status CheckDimensionIndex(int64_t d, int rank, const std::string& what) {
  if (d < 0 || d >= rank) {
    return Fail(what + " " + std::to_string(d) + " is out of range for rank " + std::to_string(rank));
  }
  return OkStatus();
}

bool IsIndexType(PrimitiveType t) { return IsInteger(t); }

// `dims` must be distinct and each in [0, rank); `sorted` also requires ascending order.
Status CheckDimensionList(const std::vector<int64_t>& dims, int64_t rank, const std::string& what,
                          bool sorted) {
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < dims.size(); ++i) {
    RETURN_IF_ERROR(CheckDimensionIndex(dims[i], rank, what + " entry"));
    if (seen[dims[i]]) return Fail(what + " {" + JoinInts(dims) + "} repeats " + std::to_string(dims[i]));
    if (sorted && i > 0 && dims[i] < dims[i - 1]) {
      return Fail(what + " {" + JoinInts(dims) + "} must be sorted");
    }
    seen[dims[i]] = true;
  }
  return OkStatus();
}

PrimitiveType ComplexComponentType(PrimitiveType t) {
  if (t == PrimitiveType::C64) return PrimitiveType::F32;
  if (t == PrimitiveType::C128) return PrimitiveType::F64;
  return t;
}

// Output size of one windowed dimension (reduce-window / convolution).
StatusOr<int64_t> WindowedSize(int64_t in, const WindowDimension& w) {
  if (w.size <= 0 || w.stride <= 0 || w.base_dilation <= 0 || w.window_dilation <= 0) {
    return Fail("window size, stride and dilations must be positive");
  }
  // Sizes, paddings and dilations are user input: every step is checked for overflow.
  int64_t dilated_in = 0, padded = 0, dilated_window = 0;
  bool overflow = false;
  if (in != 0) {
    overflow |= __builtin_mul_overflow(in - 1, w.base_dilation, &dilated_in);
    overflow |= __builtin_add_overflow(dilated_in, int64_t{1}, &dilated_in);
  }
  overflow |= __builtin_add_overflow(dilated_in, w.padding_low, &padded);
  overflow |= __builtin_add_overflow(padded, w.padding_high, &padded);
  overflow |= __builtin_mul_overflow(w.size - 1, w.window_dilation, &dilated_window);
  overflow |= __builtin_add_overflow(dilated_window, int64_t{1}, &dilated_window);
  if (overflow) return Fail("window size, padding or dilation overflows int64");
  if (padded < dilated_window) return int64_t{0};
  return (padded - dilated_window) / w.stride + 1;
}

StatusOr<Shape> InferElementwise(const HloInstruction& instr) {
  const HloOpcode op = instr.opcode();
  const Shape& a = instr.operand(0)->shape();
  RETURN_IF_ERROR(ExpectArray(a, "operand 0"));
  for (int64_t i = 1; i < instr.operand_count(); ++i) {
    const Shape& b = instr.operand(i)->shape();
    RETURN_IF_ERROR(ExpectArray(b, "operand " + std::to_string(i)));
    if (b.dimensions() != a.dimensions()) {
      return Fail("operands have different dimensions: " + S(a) + " vs " + S(b));
    }
    if (b.element_type() != a.element_type()) {
      return Fail("operands have different element types: " + S(a) + " vs " + S(b));
    }
  }
  PrimitiveType t = a.element_type();
  switch (op) {
    case HloOpcode::kCompare: case HloOpcode::kIsFinite:
      return WithType(a, PrimitiveType::PRED);
    case HloOpcode::kAbs: case HloOpcode::kReal: case HloOpcode::kImag:
      return WithType(a, ComplexComponentType(t));
    case HloOpcode::kComplex:
      if (t == PrimitiveType::F32) return WithType(a, PrimitiveType::C64);
      if (t == PrimitiveType::F64) return WithType(a, PrimitiveType::C128);
      return Fail("complex needs f32 or f64 operands, got " + S(a));
    case HloOpcode::kConvert:
      return WithType(a, instr.shape().element_type());
    case HloOpcode::kNot: case HloOpcode::kAnd: case HloOpcode::kOr: case HloOpcode::kXor:
    case HloOpcode::kPopulationCount: case HloOpcode::kClz: case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic: case HloOpcode::kShiftRightLogical:
      if (!IsInteger(t) && t != PrimitiveType::PRED) {
        return Fail(std::string(HloOpcodeString(op)) + " needs integer or pred operands, got " + S(a));
      }
      return WithType(a, t);
    default:
      return WithType(a, t);
  }
}

StatusOr<Shape> InferBitcastConvert(const HloInstruction& instr) {
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  RETURN_IF_ERROR(ExpectArray(in, "operand"));
  int in_w = ByteWidth(in.element_type());
  int out_w = ByteWidth(out.element_type());
  std::vector<int64_t> dims = in.dimensions();
  if (in_w > out_w) {
    dims.push_back(in_w / out_w);  // wider -> narrower adds a minor dimension
  } else if (in_w < out_w) {
    if (dims.empty() || dims.back() != out_w / in_w) {
      return Fail("bitcast-convert from " + S(in) + " to a wider type needs a last dimension of " +
                  std::to_string(out_w / in_w));
    }
    dims.pop_back();
  }
  return Shape(out.element_type(), dims);
}

// to_apply of reduce / reduce-window / scatter / select-and-scatter(scatter):
// (T0..Tn-1, T0..Tn-1) -> T or (T0..Tn-1), all scalars.
Status CheckReducer(const HloComputation* c, const std::vector<PrimitiveType>& types) {
  if (c == nullptr) return Fail("missing reducer computation");
  size_t n = types.size();
  if (c->num_parameters() != static_cast<int64_t>(2 * n)) {
    return Fail("reducer " + c->name() + " must take " + std::to_string(2 * n) +
                " parameters, takes " + std::to_string(c->num_parameters()));
  }
  for (size_t i = 0; i < 2 * n; ++i) {
    const HloInstruction* p = c->parameter_instruction(i);
    if (p == nullptr) continue;  // reported by the structural checks
    if (!p->shape().Compatible(Shape::Scalar(types[i % n]))) {
      return Fail("reducer " + c->name() + " parameter " + std::to_string(i) + " is " +
                  S(p->shape()) + ", expected " + S(Shape::Scalar(types[i % n])));
    }
  }
  std::vector<Shape> outs;
  for (PrimitiveType t : types) outs.push_back(Shape::Scalar(t));
  Shape want = n == 1 ? outs[0] : Shape::MakeTuple(outs);
  const Shape& got = c->root_instruction()->shape();
  if (!got.Compatible(want) && !(n == 1 && got.Compatible(Shape::MakeTuple(outs)))) {
    return Fail("reducer " + c->name() + " returns " + S(got) + ", expected " + S(want));
  }
  return OkStatus();
}

StatusOr<Shape> InferReduce(const HloInstruction& instr) {
  int64_t n = instr.operand_count() / 2;
  if (instr.operand_count() % 2 != 0 || n == 0) {
    return Fail("reduce takes inputs and as many init values");
  }
  const Shape& in0 = instr.operand(0)->shape();
  std::vector<PrimitiveType> types;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& in = instr.operand(i)->shape();
    const Shape& init = instr.operand(n + i)->shape();
    RETURN_IF_ERROR(ExpectArray(in, "reduce input"));
    if (in.dimensions() != in0.dimensions()) return Fail("reduce inputs have different dimensions");
    if (!init.IsArray() || init.rank() != 0 || init.element_type() != in.element_type()) {
      return Fail("reduce init value " + std::to_string(i) + " must be a scalar of type " +
                  std::string(PrimitiveTypeName(in.element_type())) + ", got " + S(init));
    }
    types.push_back(in.element_type());
  }
  std::vector<bool> reduced(in0.rank(), false);
  for (int64_t d : instr.dimensions()) {
    RETURN_IF_ERROR(CheckDimensionIndex(d, in0.rank(), "reduce dimension"));
    if (reduced[d]) return Fail("reduce dimension " + std::to_string(d) + " repeated");
    reduced[d] = true;
  }
  RETURN_IF_ERROR(CheckReducer(instr.to_apply(), types));
  std::vector<int64_t> dims;
  for (int i = 0; i < in0.rank(); ++i) {
    if (!reduced[i]) dims.push_back(in0.dimensions(i));
  }
  if (n == 1) return Shape(types[0], dims);
  std::vector<Shape> outs;
  for (PrimitiveType t : types) outs.push_back(Shape(t, dims));
  return Shape::MakeTuple(outs);
}

StatusOr<Shape> InferReduceWindow(const HloInstruction& instr) {
  int64_t n = instr.operand_count() / 2;
  if (instr.operand_count() % 2 != 0 || n == 0) return Fail("reduce-window takes inputs and inits");
  const Shape& in0 = instr.operand(0)->shape();
  RETURN_IF_ERROR(ExpectArray(in0, "reduce-window input"));
  if (static_cast<int>(instr.window().dimensions.size()) != in0.rank()) {
    return Fail("window has " + std::to_string(instr.window().dimensions.size()) +
                " dimensions, input has rank " + std::to_string(in0.rank()));
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < in0.rank(); ++i) {
    ASSIGN_OR_RETURN(int64_t d, WindowedSize(in0.dimensions(i), instr.window().dimensions[i]));
    dims.push_back(d);
  }
  std::vector<PrimitiveType> types;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& in = instr.operand(i)->shape();
    const Shape& init = instr.operand(n + i)->shape();
    RETURN_IF_ERROR(ExpectArray(in, "reduce-window input"));
    if (in.dimensions() != in0.dimensions()) {
      return Fail("reduce-window inputs have different dimensions: " + S(in0) + " vs " + S(in));
    }
    // The emitter starts each window from the init value in the input's type.
    if (!init.IsArray() || init.rank() != 0 || init.element_type() != in.element_type()) {
      return Fail("reduce-window init value " + std::to_string(i) + " must be a scalar of type " +
                  std::string(PrimitiveTypeName(in.element_type())) + ", got " + S(init));
    }
    types.push_back(in.element_type());
  }
  RETURN_IF_ERROR(CheckReducer(instr.to_apply(), types));
  if (n == 1) return Shape(types[0], dims);
  std::vector<Shape> outs;
  for (PrimitiveType t : types) outs.push_back(Shape(t, dims));
  return Shape::MakeTuple(outs);
}

StatusOr<Shape> InferDot(const HloInstruction& instr) {
  const Shape& lhs = instr.operand(0)->shape();
  const Shape& rhs = instr.operand(1)->shape();
  RETURN_IF_ERROR(ExpectArray(lhs, "dot lhs"));
  RETURN_IF_ERROR(ExpectArray(rhs, "dot rhs"));
  const DotDimensionNumbers& d = instr.dot_dimension_numbers();
  if (d.lhs_batch_dimensions.size() != d.rhs_batch_dimensions.size() ||
      d.lhs_contracting_dimensions.size() != d.rhs_contracting_dimensions.size()) {
    return Fail("dot lhs and rhs have different numbers of batch or contracting dimensions");
  }
  std::vector<bool> lhs_used(lhs.rank(), false), rhs_used(rhs.rank(), false);
  auto pair_up = [&](const std::vector<int64_t>& l, const std::vector<int64_t>& r,
                     const char* what) -> Status {
    for (size_t i = 0; i < l.size(); ++i) {
      RETURN_IF_ERROR(CheckDimensionIndex(l[i], lhs.rank(), std::string("lhs ") + what));
      RETURN_IF_ERROR(CheckDimensionIndex(r[i], rhs.rank(), std::string("rhs ") + what));
      if (lhs_used[l[i]] || rhs_used[r[i]]) return Fail(std::string("dot ") + what + " repeated");
      lhs_used[l[i]] = rhs_used[r[i]] = true;
      if (lhs.dimensions(l[i]) != rhs.dimensions(r[i])) {
        return Fail(std::string("dot ") + what + " sizes differ: " + S(lhs) + " vs " + S(rhs));
      }
    }
    return OkStatus();
  };
  RETURN_IF_ERROR(pair_up(d.lhs_batch_dimensions, d.rhs_batch_dimensions, "batch dimension"));
  RETURN_IF_ERROR(pair_up(d.lhs_contracting_dimensions, d.rhs_contracting_dimensions,
                          "contracting dimension"));
  std::vector<int64_t> dims;
  for (int64_t b : d.lhs_batch_dimensions) dims.push_back(lhs.dimensions(b));
  for (int i = 0; i < lhs.rank(); ++i) if (!lhs_used[i]) dims.push_back(lhs.dimensions(i));
  for (int i = 0; i < rhs.rank(); ++i) if (!rhs_used[i]) dims.push_back(rhs.dimensions(i));
  // The result type is the instruction's (a preferred type such as s8 x s8 -> s32).
  return Shape(instr.shape().element_type(), dims);
}

StatusOr<Shape> InferConvolution(const HloInstruction& instr) {
  const Shape& in = instr.operand(0)->shape();
  const Shape& k = instr.operand(1)->shape();
  RETURN_IF_ERROR(ExpectArray(in, "convolution input"));
  RETURN_IF_ERROR(ExpectArray(k, "convolution kernel"));
  const ConvolutionDimensionNumbers& d = instr.convolution_dimension_numbers();
  size_t ns = d.input_spatial_dimensions.size();
  if (in.rank() != static_cast<int>(ns + 2) || k.rank() != static_cast<int>(ns + 2) ||
      instr.shape().rank() != static_cast<int>(ns + 2)) {
    return Fail("convolution operands and result must have rank " + std::to_string(ns + 2) +
                " for dim_labels " + d.ToString());
  }
  if (instr.window().dimensions.size() != ns) {
    return Fail("convolution window has " + std::to_string(instr.window().dimensions.size()) +
                " dimensions, expected " + std::to_string(ns));
  }
  int64_t fgc = instr.feature_group_count(), bgc = instr.batch_group_count();
  if (fgc <= 0 || bgc <= 0) return Fail("group counts must be positive");
  int64_t in_features = in.dimensions(d.input_feature_dimension);
  int64_t k_in = k.dimensions(d.kernel_input_feature_dimension);
  int64_t k_out = k.dimensions(d.kernel_output_feature_dimension);
  if (in_features % fgc != 0 || in_features / fgc != k_in) {
    return Fail("convolution input features " + std::to_string(in_features) +
                " / feature_group_count " + std::to_string(fgc) + " != kernel input features " +
                std::to_string(k_in));
  }
  if (k_out % fgc != 0 || k_out % bgc != 0) {
    return Fail("kernel output features must be divisible by the group counts");
  }
  int64_t batch = in.dimensions(d.input_batch_dimension);
  if (batch % bgc != 0) return Fail("input batch must be divisible by batch_group_count");
  std::vector<int64_t> dims(ns + 2);
  dims[d.output_batch_dimension] = batch / bgc;
  dims[d.output_feature_dimension] = k_out;
  for (size_t i = 0; i < ns; ++i) {
    WindowDimension w = instr.window().dimensions[i];
    if (w.size != k.dimensions(d.kernel_spatial_dimensions[i])) {
      return Fail("window size " + std::to_string(w.size) + " != kernel spatial size " +
                  std::to_string(k.dimensions(d.kernel_spatial_dimensions[i])));
    }
    ASSIGN_OR_RETURN(int64_t o, WindowedSize(in.dimensions(d.input_spatial_dimensions[i]), w));
    dims[d.output_spatial_dimensions[i]] = o;
  }
  return Shape(instr.shape().element_type(), dims);
}

StatusOr<Shape> InferGather(const HloInstruction& instr) {
  const Shape& operand = instr.operand(0)->shape();
  const Shape& indices = instr.operand(1)->shape();
  const GatherDimensionNumbers& g = instr.gather_dimension_numbers();
  const std::vector<int64_t>& sizes = instr.gather_slice_sizes();
  if (static_cast<int>(sizes.size()) != operand.rank()) {
    return Fail("gather slice_sizes has " + std::to_string(sizes.size()) +
                " entries, operand has rank " + std::to_string(operand.rank()));
  }
  if (!IsIndexType(indices.element_type())) return Fail("gather indices must be integers");
  if (g.index_vector_dim < 0 || g.index_vector_dim > indices.rank()) {
    return Fail("gather index_vector_dim out of range");
  }
  int64_t index_len = g.index_vector_dim == indices.rank() ? 1 : indices.dimensions(g.index_vector_dim);
  if (static_cast<int64_t>(g.start_index_map.size()) != index_len) {
    return Fail("gather start_index_map has " + std::to_string(g.start_index_map.size()) +
                " entries, index vectors have " + std::to_string(index_len));
  }
  std::vector<bool> dropped(operand.rank(), false);
  for (int64_t d : g.collapsed_slice_dims) {
    RETURN_IF_ERROR(CheckDimensionIndex(d, operand.rank(), "collapsed_slice_dims entry"));
    if (sizes[d] > 1) return Fail("gather collapses dimension " + std::to_string(d) + " of size > 1");
    dropped[d] = true;
  }
  for (int64_t d : g.operand_batching_dims) {
    RETURN_IF_ERROR(CheckDimensionIndex(d, operand.rank(), "operand_batching_dims entry"));
    dropped[d] = true;
  }
  for (int64_t d : g.start_index_map) {
    RETURN_IF_ERROR(CheckDimensionIndex(d, operand.rank(), "start_index_map entry"));
  }
  for (int i = 0; i < operand.rank(); ++i) {
    if (sizes[i] < 0 || sizes[i] > operand.dimensions(i)) {
      return Fail("gather slice size " + std::to_string(sizes[i]) + " exceeds operand dimension " +
                  std::to_string(i));
    }
  }
  std::vector<int64_t> offsets;
  for (int i = 0; i < operand.rank(); ++i) if (!dropped[i]) offsets.push_back(sizes[i]);
  std::vector<int64_t> batch;
  for (int i = 0; i < indices.rank(); ++i) if (i != g.index_vector_dim) batch.push_back(indices.dimensions(i));
  size_t rank = offsets.size() + batch.size();
  if (g.offset_dims.size() != offsets.size()) {
    return Fail("gather offset_dims has " + std::to_string(g.offset_dims.size()) +
                " entries, expected " + std::to_string(offsets.size()));
  }
  std::vector<int64_t> dims(rank, -1);
  for (size_t i = 0; i < g.offset_dims.size(); ++i) {
    RETURN_IF_ERROR(CheckDimensionIndex(g.offset_dims[i], rank, "offset_dims entry"));
    if (dims[g.offset_dims[i]] >= 0) return Fail("gather offset_dims has a repeated entry");
    dims[g.offset_dims[i]] = offsets[i];
  }
  size_t b = 0;
  for (size_t i = 0; i < rank; ++i) if (dims[i] < 0) dims[i] = batch[b++];
  return Shape(operand.element_type(), dims);
}

// XLA's scatter rules: every operand and update, the index vectors and the
// dimension numbers must agree, or the emitter indexes out of its buffers.
StatusOr<Shape> InferScatter(const HloInstruction& instr) {
  if (instr.operand_count() < 3 || instr.operand_count() % 2 == 0) {
    return Fail("scatter takes operands, indices and as many updates");
  }
  const int64_t n = (instr.operand_count() - 1) / 2;
  const Shape& operand = instr.operand(0)->shape();
  const Shape& indices = instr.operand(n)->shape();
  const Shape& updates = instr.operand(n + 1)->shape();
  const ScatterDimensionNumbers& d = instr.scatter_dimension_numbers();
  RETURN_IF_ERROR(ExpectArray(operand, "scatter operand"));
  RETURN_IF_ERROR(ExpectArray(indices, "scatter indices"));
  if (!IsIndexType(indices.element_type())) {
    return Fail("scatter indices must be integers, got " + S(indices));
  }
  std::vector<PrimitiveType> types;
  std::vector<Shape> outs;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& op = instr.operand(i)->shape();
    const Shape& up = instr.operand(n + 1 + i)->shape();
    RETURN_IF_ERROR(ExpectArray(op, "scatter operand"));
    RETURN_IF_ERROR(ExpectArray(up, "scatter update"));
    if (op.dimensions() != operand.dimensions()) {
      return Fail("scatter operands differ in dimensions: " + S(operand) + " vs " + S(op));
    }
    if (up.dimensions() != updates.dimensions()) {
      return Fail("scatter updates differ in dimensions: " + S(updates) + " vs " + S(up));
    }
    if (up.element_type() != op.element_type()) {
      return Fail("scatter update " + S(up) + " does not have the type of its operand " + S(op));
    }
    types.push_back(op.element_type());
    outs.push_back(op);
  }
  const int64_t index_rank = indices.rank();
  if (d.index_vector_dim < 0 || d.index_vector_dim > index_rank) {
    return Fail("scatter index_vector_dim " + std::to_string(d.index_vector_dim) +
                " is out of range for indices " + S(indices));
  }
  RETURN_IF_ERROR(CheckDimensionList(d.update_window_dims, updates.rank(), "update_window_dims",
                                     /*sorted=*/true));
  RETURN_IF_ERROR(CheckDimensionList(d.inserted_window_dims, operand.rank(),
                                     "inserted_window_dims", /*sorted=*/true));
  RETURN_IF_ERROR(CheckDimensionList(d.input_batching_dims, operand.rank(), "input_batching_dims",
                                     /*sorted=*/true));
  RETURN_IF_ERROR(CheckDimensionList(d.scatter_dims_to_operand_dims, operand.rank(),
                                     "scatter_dims_to_operand_dims", /*sorted=*/false));
  RETURN_IF_ERROR(CheckDimensionList(d.scatter_indices_batching_dims, index_rank,
                                     "scatter_indices_batching_dims", /*sorted=*/false));
  if (d.input_batching_dims.size() != d.scatter_indices_batching_dims.size()) {
    return Fail("scatter input_batching_dims and scatter_indices_batching_dims differ in length");
  }
  for (int64_t b : d.scatter_indices_batching_dims) {
    if (b == d.index_vector_dim) return Fail("scatter_indices_batching_dims holds index_vector_dim");
  }
  std::vector<bool> windowless(operand.rank(), false);  // inserted or batching
  for (int64_t x : d.inserted_window_dims) windowless[x] = true;
  for (int64_t x : d.input_batching_dims) {
    if (windowless[x]) {
      return Fail("scatter dimension " + std::to_string(x) +
                  " is both an inserted window and an input batching dimension");
    }
    windowless[x] = true;
  }
  const int64_t window_rank = static_cast<int64_t>(d.update_window_dims.size());
  if (window_rank + static_cast<int64_t>(d.inserted_window_dims.size() + d.input_batching_dims.size()) !=
      operand.rank()) {
    return Fail("scatter operand " + S(operand) + " has rank " + std::to_string(operand.rank()) +
                ", but update_window_dims, inserted_window_dims and input_batching_dims have " +
                std::to_string(window_rank) + " + " + std::to_string(d.inserted_window_dims.size()) +
                " + " + std::to_string(d.input_batching_dims.size()) + " entries");
  }
  const int64_t index_len = d.index_vector_dim == index_rank ? 1 : indices.dimensions(d.index_vector_dim);
  if (static_cast<int64_t>(d.scatter_dims_to_operand_dims.size()) != index_len) {
    return Fail("scatter_dims_to_operand_dims has " +
                std::to_string(d.scatter_dims_to_operand_dims.size()) +
                " entries, index vectors have " + std::to_string(index_len));
  }
  for (int64_t x : d.scatter_dims_to_operand_dims) {
    for (int64_t b : d.input_batching_dims) {
      if (x == b) return Fail("scatter_dims_to_operand_dims holds input batching dimension " + std::to_string(x));
    }
  }
  // The update's scatter dimensions are the indices' batch dimensions, in order.
  std::vector<int64_t> scatter_dims;
  for (int64_t i = 0; i < index_rank; ++i) {
    if (i != d.index_vector_dim) scatter_dims.push_back(indices.dimensions(i));
  }
  if (updates.rank() != window_rank + static_cast<int64_t>(scatter_dims.size())) {
    return Fail("scatter updates " + S(updates) + " must have rank " +
                std::to_string(window_rank + scatter_dims.size()) + " (" +
                std::to_string(window_rank) + " window dimensions and " +
                std::to_string(scatter_dims.size()) + " scatter dimensions of indices " +
                S(indices) + ")");
  }
  std::vector<bool> is_window(updates.rank(), false);
  for (int64_t x : d.update_window_dims) is_window[x] = true;
  size_t next_scatter = 0;
  int64_t next_operand = 0;
  for (int64_t i = 0; i < updates.rank(); ++i) {
    if (is_window[i]) {
      while (windowless[next_operand]) ++next_operand;
      if (updates.dimensions(i) > operand.dimensions(next_operand)) {
        return Fail("scatter update window dimension " + std::to_string(i) + " (size " +
                    std::to_string(updates.dimensions(i)) + ") is larger than operand dimension " +
                    std::to_string(next_operand) + " (size " +
                    std::to_string(operand.dimensions(next_operand)) + ")");
      }
      ++next_operand;
    } else {
      if (updates.dimensions(i) != scatter_dims[next_scatter]) {
        return Fail("scatter update dimension " + std::to_string(i) + " has size " +
                    std::to_string(updates.dimensions(i)) + ", but the indices " + S(indices) +
                    " give " + std::to_string(scatter_dims[next_scatter]) + " index vectors there");
      }
      ++next_scatter;
    }
  }
  RETURN_IF_ERROR(CheckReducer(instr.to_apply(), types));
  return n == 1 ? outs[0] : Shape::MakeTuple(outs);
}

// Collectives: the result is declared (group sizes come from the runtime), but
// it must be the operands' shapes as each collective transforms them, or the
// runtime copies between buffers of different sizes.
StatusOr<Shape> InferCollective(const HloInstruction& instr) {
  const HloOpcode op = instr.opcode();
  const Shape& declared = instr.shape();
  const std::string name(HloOpcodeString(op));
  if (op == HloOpcode::kCollectivePermute && instr.operand_count() != 1) return declared;
  std::vector<Shape> outs = FlattenShape(declared);
  if (instr.operand_count() == 0 || outs.size() != static_cast<size_t>(instr.operand_count())) {
    return Fail(name + " has " + std::to_string(instr.operand_count()) + " operands but " +
                std::to_string(outs.size()) + " results in " + S(declared));
  }
  const int64_t group = instr.replica_groups().empty() || instr.replica_groups()[0].empty()
                            ? 0  // every device: the count is known only at run time
                            : static_cast<int64_t>(instr.replica_groups()[0].size());
  std::vector<PrimitiveType> types;
  for (int64_t k = 0; k < instr.operand_count(); ++k) {
    const Shape& in = instr.operand(k)->shape();
    const Shape& out = outs[k];
    RETURN_IF_ERROR(ExpectArray(in, name + " operand"));
    types.push_back(in.element_type());
    if (out.element_type() != in.element_type() || out.rank() != in.rank()) {
      return Fail(name + " result " + S(out) + " does not match operand " + S(in));
    }
    if (op == HloOpcode::kAllReduce || op == HloOpcode::kCollectivePermute) {
      if (out.dimensions() != in.dimensions()) {
        return Fail(name + " result " + S(out) + " does not match operand " + S(in));
      }
      continue;
    }
    if (op == HloOpcode::kAllToAll) {
      if (out.element_count() != in.element_count()) {
        return Fail("all-to-all result " + S(out) + " does not hold the elements of " + S(in));
      }
      continue;
    }
    // all-gather concatenates along its dimension, reduce-scatter splits along it.
    if (instr.dimensions().size() != 1) return Fail(name + " needs one dimension");
    const int64_t d = instr.dimensions(0);
    RETURN_IF_ERROR(CheckDimensionIndex(d, in.rank(), name + " dimension"));
    for (int i = 0; i < in.rank(); ++i) {
      const bool gather = op == HloOpcode::kAllGather;
      const int64_t small = gather ? in.dimensions(i) : out.dimensions(i);
      const int64_t large = gather ? out.dimensions(i) : in.dimensions(i);
      const bool fits = i != d ? small == large
                       : group > 0 ? small * group == large
                                   : (small == 0 ? large == 0 : large % small == 0);
      if (!fits) {
        return Fail(name + " result " + S(out) + " does not match operand " + S(in) +
                    " along dimension " + std::to_string(d) +
                    (group > 0 ? " for groups of " + std::to_string(group) : ""));
      }
    }
  }
  if (op == HloOpcode::kAllReduce || op == HloOpcode::kReduceScatter) {
    RETURN_IF_ERROR(CheckReducer(instr.to_apply(), types));
  }
  return declared;
}

// The computation's parameters must match `args` and its root `result` (if given).
Status CheckSignature(const HloComputation* c, const std::vector<Shape>& args, const char* role) {
  if (c == nullptr) return Fail(std::string("missing ") + role + " computation");
  if (c->num_parameters() != static_cast<int64_t>(args.size())) {
    return Fail(std::string(role) + " computation " + c->name() + " takes " +
                std::to_string(c->num_parameters()) + " parameters, given " + std::to_string(args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const HloInstruction* p = c->parameter_instruction(i);
    if (p != nullptr && !p->shape().Compatible(args[i])) {
      return Fail(std::string(role) + " computation " + c->name() + " parameter " +
                  std::to_string(i) + " is " + S(p->shape()) + ", given " + S(args[i]));
    }
  }
  return OkStatus();
}

std::vector<Shape> OperandShapes(const HloInstruction& instr, int64_t from = 0) {
  std::vector<Shape> out;
  for (int64_t i = from; i < instr.operand_count(); ++i) out.push_back(instr.operand(i)->shape());
  return out;
}

// rng(a, b): scalar bounds (uniform) or mean and deviation (normal) of the result's type.
StatusOr<Shape> InferRng(const HloInstruction& instr) {
  const Shape& declared = instr.shape();
  RETURN_IF_ERROR(ExpectArray(declared, "rng result"));
  PrimitiveType t = declared.element_type();
  bool normal = instr.rng_distribution() == RngDistribution::kNormal;
  if (normal ? !IsFloatingPoint(t) : !(IsFloatingPoint(t) || IsInteger(t))) {
    return Fail(std::string("rng ") + (normal ? "normal" : "uniform") + " cannot produce " + S(declared));
  }
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const Shape& p = instr.operand(i)->shape();
    if (!p.IsArray() || p.rank() != 0 || p.element_type() != t) {
      return Fail("rng parameter " + std::to_string(i) + " must be a " +
                  std::string(PrimitiveTypeName(t)) + " scalar, got " + S(p));
    }
  }
  return declared;
}

// map(operands...), to_apply: elementwise over operands of one shape.
StatusOr<Shape> InferMap(const HloInstruction& instr) {
  if (instr.operand_count() < 1) return Fail("map needs at least one operand");
  const Shape& first = instr.operand(0)->shape();
  std::vector<Shape> scalars;
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const Shape& p = instr.operand(i)->shape();
    RETURN_IF_ERROR(ExpectArray(p, "map operand"));
    if (p.dimensions() != first.dimensions()) {
      return Fail("map operands differ in dimensions: " + S(first) + " vs " + S(p));
    }
    scalars.push_back(Shape::Scalar(p.element_type()));
  }
  RETURN_IF_ERROR(CheckSignature(instr.to_apply(), scalars, "mapped"));
  const Shape& root = instr.to_apply()->root_instruction()->shape();
  if (!root.IsArray() || root.rank() != 0) return Fail("mapped computation must return a scalar");
  return Shape(root.element_type(), first.dimensions());
}

}  // namespace

StatusOr<Shape> InferShape(const HloInstruction& instr) {
  const HloOpcode op = instr.opcode();
  const Shape& declared = instr.shape();
  int arity = HloOpcodeArity(op);
  if (arity >= 0 && instr.operand_count() != arity) {
    return Fail(std::string(HloOpcodeString(op)) + " takes " + std::to_string(arity) +
                " operands, has " + std::to_string(instr.operand_count()));
  }
  // Variadic ops still need their leading operands before any rule reads them.
  int64_t min_operands = 0;
  switch (op) {
    case HloOpcode::kDynamicSlice: case HloOpcode::kConditional: case HloOpcode::kSort:
    case HloOpcode::kConcatenate:
      min_operands = 1;
      break;
    case HloOpcode::kDynamicUpdateSlice: case HloOpcode::kReduce: case HloOpcode::kReduceWindow:
      min_operands = 2;
      break;
    case HloOpcode::kScatter:
      min_operands = 3;
      break;
    default:
      break;
  }
  if (instr.operand_count() < min_operands) {
    return Fail(std::string(HloOpcodeString(op)) + " needs at least " + std::to_string(min_operands) +
                " operands, has " + std::to_string(instr.operand_count()));
  }
  auto operand = [&](int64_t i) -> const Shape& { return instr.operand(i)->shape(); };
  if (op == HloOpcode::kBitcastConvert) return InferBitcastConvert(instr);
  if (op == HloOpcode::kReducePrecision) {
    if (instr.exponent_bits() < 1 || instr.mantissa_bits() < 0) return Fail("invalid reduce-precision bits");
  }
  if (IsElementwiseUnary(op) || IsElementwiseBinary(op)) return InferElementwise(instr);

  switch (op) {
    case HloOpcode::kAllGather: case HloOpcode::kAllReduce: case HloOpcode::kAllToAll:
    case HloOpcode::kCollectivePermute: case HloOpcode::kReduceScatter:
      return InferCollective(instr);
    // Custom calls declare their shape; each target checks its operands when it is built.
    case HloOpcode::kParameter: case HloOpcode::kCustomCall: case HloOpcode::kAfterAll:
    case HloOpcode::kPartitionId: case HloOpcode::kReplicaId:
      return declared;
    case HloOpcode::kRng:
      return InferRng(instr);
    case HloOpcode::kMap:
      return InferMap(instr);
    case HloOpcode::kFusion: {
      if (instr.called_computations().size() != 1) return Fail("fusion needs one fused computation");
      RETURN_IF_ERROR(CheckSignature(instr.called_computations()[0], OperandShapes(instr), "fused"));
      return instr.called_computations()[0]->root_instruction()->shape();
    }
    case HloOpcode::kBitcast: {
      // A bitcast reinterprets the operand's bytes: same size, arrays only.
      RETURN_IF_ERROR(ExpectArray(operand(0), "bitcast operand"));
      RETURN_IF_ERROR(ExpectArray(declared, "bitcast result"));
      if (declared.byte_size() != operand(0).byte_size()) {
        return Fail("bitcast from " + S(operand(0)) + " to " + S(declared) + " changes the byte size");
      }
      return declared;
    }
    case HloOpcode::kConstant:
      return instr.literal().shape();
    case HloOpcode::kIota:
      RETURN_IF_ERROR(ExpectArray(declared, "iota result"));
      RETURN_IF_ERROR(CheckDimensionIndex(instr.iota_dimension(), declared.rank(), "iota_dimension"));
      return declared;
    case HloOpcode::kTuple:
      return Shape::MakeTuple(OperandShapes(instr));
    case HloOpcode::kGetTupleElement: {
      const Shape& t = operand(0);
      if (!t.IsTuple()) return Fail("get-tuple-element operand is not a tuple: " + S(t));
      if (instr.tuple_index() < 0 || instr.tuple_index() >= t.tuple_shapes_size()) {
        return Fail("tuple index " + std::to_string(instr.tuple_index()) + " out of range for " + S(t));
      }
      return t.tuple_shapes(instr.tuple_index());
    }
    case HloOpcode::kSelect: {
      const Shape& p = operand(0);
      if (p.element_type() != PrimitiveType::PRED) return Fail("select predicate must be pred");
      if (!operand(1).Compatible(operand(2))) {
        return Fail("select branches differ: " + S(operand(1)) + " vs " + S(operand(2)));
      }
      if (p.rank() != 0 && p.dimensions() != operand(1).dimensions()) {
        return Fail("select predicate " + S(p) + " does not match " + S(operand(1)));
      }
      return operand(1);
    }
    case HloOpcode::kClamp: {
      const Shape& x = operand(1);
      for (int i : {0, 2}) {
        const Shape& b = operand(i);
        if (b.element_type() != x.element_type() || (b.rank() != 0 && b.dimensions() != x.dimensions())) {
          return Fail("clamp bound " + S(b) + " does not match " + S(x));
        }
      }
      return x;
    }
    case HloOpcode::kBroadcast: {
      const Shape& in = operand(0);
      RETURN_IF_ERROR(ExpectArray(in, "broadcast operand"));
      if (static_cast<int>(instr.dimensions().size()) != in.rank()) {
        return Fail("broadcast dimensions has " + std::to_string(instr.dimensions().size()) +
                    " entries, operand has rank " + std::to_string(in.rank()));
      }
      for (int i = 0; i < in.rank(); ++i) {
        int64_t d = instr.dimensions(i);
        RETURN_IF_ERROR(CheckDimensionIndex(d, declared.rank(), "broadcast dimension"));
        if (declared.dimensions(d) != in.dimensions(i)) {
          return Fail("broadcast maps operand dimension " + std::to_string(i) + " (size " +
                      std::to_string(in.dimensions(i)) + ") to result dimension " +
                      std::to_string(d) + " (size " + std::to_string(declared.dimensions(d)) + ")");
        }
      }
      return WithType(declared, in.element_type());
    }
    case HloOpcode::kReshape:
      RETURN_IF_ERROR(ExpectArray(operand(0), "reshape operand"));
      if (operand(0).element_count() != declared.element_count()) {
        return Fail("reshape from " + S(operand(0)) + " to " + S(declared) + " changes the element count");
      }
      return WithType(declared, operand(0).element_type());
    case HloOpcode::kTranspose: {
      const Shape& in = operand(0);
      std::vector<int64_t> perm = instr.dimensions();
      std::vector<int64_t> sorted = perm;
      std::sort(sorted.begin(), sorted.end());
      for (int i = 0; i < static_cast<int>(sorted.size()); ++i) {
        if (sorted[i] != i || static_cast<int>(perm.size()) != in.rank()) {
          return Fail("transpose dimensions {" + JoinInts(perm) + "} are not a permutation of rank " +
                      std::to_string(in.rank()));
        }
      }
      if (static_cast<int>(perm.size()) != in.rank()) return Fail("transpose dimensions size mismatch");
      std::vector<int64_t> dims;
      for (int64_t p : perm) dims.push_back(in.dimensions(p));
      return Shape(in.element_type(), dims);
    }
    case HloOpcode::kReverse:
      for (int64_t d : instr.dimensions()) {
        RETURN_IF_ERROR(CheckDimensionIndex(d, operand(0).rank(), "reverse dimension"));
      }
      return operand(0);
    case HloOpcode::kCopy: case HloOpcode::kOptimizationBarrier:
      return operand(0);
    // An asynchronous copy, as backends schedule them (libtpu's optimized
    // programs): copy-start gives (destination, source, u32[] context) and
    // copy-done the destination. Layouts (memory spaces) are the backend's.
    case HloOpcode::kCopyStart: {
      if (!declared.IsTuple() || declared.tuple_shapes_size() < 3 ||
          !declared.tuple_shapes(0).Compatible(operand(0)) ||
          !declared.tuple_shapes(1).Compatible(operand(0)) ||
          declared.tuple_shapes(2).element_type() != PrimitiveType::U32 ||
          declared.tuple_shapes(2).rank() != 0) {
        return Fail("copy-start of " + S(operand(0)) + " must give (destination, source, u32[] "
                    "context) shaped like it, not " + S(declared));
      }
      return declared;
    }
    case HloOpcode::kCopyDone: {
      const Shape& t = operand(0);
      if (!t.IsTuple() || t.tuple_shapes_size() < 2) {
        return Fail("copy-done takes a copy-start's tuple, not " + S(t));
      }
      return t.tuple_shapes(0);
    }
    case HloOpcode::kSlice: {
      const Shape& in = operand(0);
      if (static_cast<int>(instr.slice_starts().size()) != in.rank()) {
        return Fail("slice has " + std::to_string(instr.slice_starts().size()) +
                    " ranges, operand has rank " + std::to_string(in.rank()));
      }
      std::vector<int64_t> dims;
      for (int i = 0; i < in.rank(); ++i) {
        int64_t s = instr.slice_starts()[i], l = instr.slice_limits()[i], st = instr.slice_strides()[i];
        if (s < 0 || l < s || l > in.dimensions(i) || st <= 0) {
          return Fail("slice range [" + std::to_string(s) + ":" + std::to_string(l) + ":" +
                      std::to_string(st) + "] is invalid for dimension " + std::to_string(i) +
                      " of size " + std::to_string(in.dimensions(i)));
        }
        // ceil((l - s) / st) without forming l - s + st, which overflows for huge strides.
        dims.push_back(l == s ? 0 : (l - s - 1) / st + 1);
      }
      return Shape(in.element_type(), dims);
    }
    case HloOpcode::kDynamicSlice: case HloOpcode::kDynamicUpdateSlice: {
      bool update = op == HloOpcode::kDynamicUpdateSlice;
      const Shape& in = operand(0);
      int64_t first_index = update ? 2 : 1;
      if (instr.operand_count() != first_index + in.rank()) {
        return Fail(std::string(HloOpcodeString(op)) + " needs " + std::to_string(in.rank()) +
                    " scalar start indices");
      }
      for (int64_t i = first_index; i < instr.operand_count(); ++i) {
        if (operand(i).rank() != 0 || !IsIndexType(operand(i).element_type())) {
          return Fail("start index " + std::to_string(i - first_index) + " must be an integer scalar");
        }
      }
      std::vector<int64_t> sizes = update ? operand(1).dimensions() : instr.dynamic_slice_sizes();
      if (static_cast<int>(sizes.size()) != in.rank()) return Fail("slice sizes do not match operand rank");
      for (int i = 0; i < in.rank(); ++i) {
        if (sizes[i] < 0 || sizes[i] > in.dimensions(i)) {
          return Fail("slice size " + std::to_string(sizes[i]) + " exceeds dimension " + std::to_string(i));
        }
      }
      if (update) {
        if (operand(1).element_type() != in.element_type()) return Fail("update type differs from operand");
        return in;
      }
      return Shape(in.element_type(), sizes);
    }
    case HloOpcode::kConcatenate: {
      if (instr.operand_count() == 0) return Fail("concatenate needs operands");
      if (instr.dimensions().size() != 1) return Fail("concatenate needs exactly one dimension");
      const Shape& first = operand(0);
      int64_t cd = instr.dimensions(0);
      RETURN_IF_ERROR(CheckDimensionIndex(cd, first.rank(), "concatenate dimension"));
      std::vector<int64_t> dims = first.dimensions();
      for (int64_t i = 1; i < instr.operand_count(); ++i) {
        const Shape& s = operand(i);
        if (s.rank() != first.rank() || s.element_type() != first.element_type()) {
          return Fail("concatenate operands differ in rank or type: " + S(first) + " vs " + S(s));
        }
        for (int d = 0; d < s.rank(); ++d) {
          if (d != cd && s.dimensions(d) != first.dimensions(d)) {
            return Fail("concatenate operands differ outside dimension " + std::to_string(cd));
          }
        }
        dims[cd] += s.dimensions(cd);
      }
      return Shape(first.element_type(), dims);
    }
    case HloOpcode::kPad: {
      const Shape& in = operand(0);
      if (operand(1).rank() != 0 || operand(1).element_type() != in.element_type()) {
        return Fail("pad value must be a scalar of the operand type");
      }
      const auto& pd = instr.padding_config().dimensions;
      if (static_cast<int>(pd.size()) != in.rank()) return Fail("padding rank differs from operand rank");
      std::vector<int64_t> dims;
      for (int i = 0; i < in.rank(); ++i) {
        if (pd[i].interior_padding < 0) return Fail("negative interior padding");
        int64_t d = in.dimensions(i);
        int64_t out = pd[i].edge_padding_low + pd[i].edge_padding_high + d +
                      std::max<int64_t>(d - 1, 0) * pd[i].interior_padding;
        if (out < 0) return Fail("padding makes dimension " + std::to_string(i) + " negative");
        dims.push_back(out);
      }
      return Shape(in.element_type(), dims);
    }
    case HloOpcode::kReduce:
      return InferReduce(instr);
    case HloOpcode::kReduceWindow:
      return InferReduceWindow(instr);
    case HloOpcode::kSelectAndScatter: {
      const Shape& in = operand(0);
      const Shape& source = operand(1);
      const Shape& init = operand(2);
      RETURN_IF_ERROR(ExpectArray(in, "select-and-scatter operand"));
      RETURN_IF_ERROR(ExpectArray(source, "select-and-scatter source"));
      if (instr.window().dimensions.size() != static_cast<size_t>(in.rank())) {
        return Fail("window rank differs from operand rank");
      }
      // One source element per window position: the source is the windowed shape.
      std::vector<int64_t> windows;
      for (int i = 0; i < in.rank(); ++i) {
        ASSIGN_OR_RETURN(int64_t w, WindowedSize(in.dimensions(i), instr.window().dimensions[i]));
        windows.push_back(w);
      }
      if (source.dimensions() != windows || source.element_type() != in.element_type()) {
        return Fail("select-and-scatter source " + S(source) + " must be " +
                    S(Shape(in.element_type(), windows)) + ", one element per window of " + S(in));
      }
      if (!init.IsArray() || init.rank() != 0 || init.element_type() != in.element_type()) {
        return Fail("select-and-scatter init value must be a scalar of type " +
                    std::string(PrimitiveTypeName(in.element_type())) + ", got " + S(init));
      }
      RETURN_IF_ERROR(CheckSignature(instr.select(), {Shape::Scalar(in.element_type()),
                                                      Shape::Scalar(in.element_type())}, "select"));
      if (!instr.select()->root_instruction()->shape().Compatible(Shape::Scalar(PrimitiveType::PRED))) {
        return Fail("select-and-scatter select computation must return pred[]");
      }
      RETURN_IF_ERROR(CheckReducer(instr.scatter(), {operand(1).element_type()}));
      return in;
    }
    case HloOpcode::kDot:
      return InferDot(instr);
    case HloOpcode::kConvolution:
      return InferConvolution(instr);
    case HloOpcode::kGather:
      return InferGather(instr);
    case HloOpcode::kScatter:
      return InferScatter(instr);
    case HloOpcode::kSort: {
      const Shape& first = operand(0);
      if (instr.dimensions().size() != 1) return Fail("sort needs one dimension");
      RETURN_IF_ERROR(CheckDimensionIndex(instr.dimensions(0), first.rank(), "sort dimension"));
      std::vector<Shape> args;
      for (int64_t i = 0; i < instr.operand_count(); ++i) {
        if (operand(i).dimensions() != first.dimensions()) return Fail("sort operands differ in dimensions");
        args.push_back(Shape::Scalar(operand(i).element_type()));
        args.push_back(Shape::Scalar(operand(i).element_type()));
      }
      RETURN_IF_ERROR(CheckSignature(instr.to_apply(), args, "comparator"));
      if (!instr.to_apply()->root_instruction()->shape().Compatible(Shape::Scalar(PrimitiveType::PRED))) {
        return Fail("sort comparator must return pred[]");
      }
      return instr.operand_count() == 1 ? first : Shape::MakeTuple(OperandShapes(instr));
    }
    case HloOpcode::kCall: {
      RETURN_IF_ERROR(CheckSignature(instr.to_apply(), OperandShapes(instr), "called"));
      return instr.to_apply()->root_instruction()->shape();
    }
    case HloOpcode::kWhile: {
      const Shape& state = operand(0);
      RETURN_IF_ERROR(CheckSignature(instr.while_condition(), {state}, "condition"));
      RETURN_IF_ERROR(CheckSignature(instr.while_body(), {state}, "body"));
      if (!instr.while_condition()->root_instruction()->shape().Compatible(Shape::Scalar(PrimitiveType::PRED))) {
        return Fail("while condition must return pred[]");
      }
      if (!instr.while_body()->root_instruction()->shape().Compatible(state)) {
        return Fail("while body returns " + S(instr.while_body()->root_instruction()->shape()) +
                    ", loop state is " + S(state));
      }
      return state;
    }
    case HloOpcode::kConditional: {
      const Shape& index = operand(0);
      const auto& branches = instr.branch_computations();
      if (index.rank() != 0 || (index.element_type() != PrimitiveType::PRED &&
                                index.element_type() != PrimitiveType::S32)) {
        return Fail("conditional selector must be pred[] or s32[], got " + S(index));
      }
      if (branches.empty() || instr.operand_count() != static_cast<int64_t>(branches.size()) + 1) {
        return Fail("conditional needs one operand per branch");
      }
      if (index.element_type() == PrimitiveType::PRED && branches.size() != 2) {
        return Fail("a pred conditional needs two branches");
      }
      for (size_t i = 0; i < branches.size(); ++i) {
        RETURN_IF_ERROR(CheckSignature(branches[i], {operand(i + 1)}, "branch"));
        if (!branches[i]->root_instruction()->shape().Compatible(declared)) {
          return Fail("branch " + branches[i]->name() + " returns " +
                      S(branches[i]->root_instruction()->shape()));
        }
      }
      return declared;
    }
    case HloOpcode::kFft: {
      const Shape& in = operand(0);
      const auto& len = instr.fft_length();
      if (len.empty() || len.size() > 3 || static_cast<int>(len.size()) > in.rank()) {
        return Fail("fft_length must have 1 to 3 entries, at most the operand rank");
      }
      std::vector<int64_t> dims = in.dimensions();
      PrimitiveType t = in.element_type();
      // The transformed (trailing) dimensions must be fft_length, except that an
      // irfft's input holds only len/2+1 entries along its last dimension.
      const size_t first = dims.size() - len.size();
      for (size_t i = 0; i < len.size(); ++i) {
        int64_t want = len[i];
        if (instr.fft_type() == FftType::kIrfft && i + 1 == len.size()) want = len[i] / 2 + 1;
        if (len[i] < 0 || dims[first + i] != want) {
          return Fail("fft operand " + S(in) + " does not match fft_length: dimension " +
                      std::to_string(first + i) + " must be " + std::to_string(want));
        }
      }
      switch (instr.fft_type()) {
        case FftType::kFft: case FftType::kIfft:
          if (!IsComplex(t)) return Fail("fft needs a complex operand");
          return in;
        case FftType::kRfft:
          if (t != PrimitiveType::F32 && t != PrimitiveType::F64) return Fail("rfft needs f32/f64");
          dims.back() = len.back() / 2 + 1;
          return Shape(t == PrimitiveType::F32 ? PrimitiveType::C64 : PrimitiveType::C128, dims);
        case FftType::kIrfft:
          if (!IsComplex(t)) return Fail("irfft needs a complex operand");
          dims.back() = len.back();
          return Shape(ComplexComponentType(t), dims);
      }
      return declared;
    }
    case HloOpcode::kRngBitGenerator: {
      if (!declared.IsTuple() || declared.tuple_shapes_size() != 2 ||
          !declared.tuple_shapes(0).Compatible(operand(0))) {
        return Fail("rng-bit-generator must return (state, bits) with state shaped like its operand");
      }
      return declared;
    }
    case HloOpcode::kTopK: {
      const Shape& in = operand(0);
      if (in.rank() < 1 || instr.k() < 0 || instr.k() > in.dimensions(in.rank() - 1)) {
        return Fail("topk k=" + std::to_string(instr.k()) + " is invalid for " + S(in));
      }
      std::vector<int64_t> dims = in.dimensions();
      dims.back() = instr.k();
      return Shape::MakeTuple({Shape(in.element_type(), dims), Shape(PrimitiveType::S32, dims)});
    }
    case HloOpcode::kCholesky: {
      const Shape& a = operand(0);
      if (a.rank() < 2 || a.dimensions(a.rank() - 1) != a.dimensions(a.rank() - 2)) {
        return Fail("cholesky needs square matrices, got " + S(a));
      }
      return a;
    }
    case HloOpcode::kTriangularSolve: {
      const Shape& a = operand(0);
      const Shape& b = operand(1);
      if (a.rank() < 2 || a.dimensions(a.rank() - 1) != a.dimensions(a.rank() - 2)) {
        return Fail("triangular-solve needs a square a, got " + S(a));
      }
      int64_t n = a.dimensions(a.rank() - 1);
      if (b.rank() != a.rank()) return Fail("triangular-solve a and b differ in rank");
      int64_t bdim = instr.triangular_solve_options().left_side ? b.dimensions(b.rank() - 2)
                                                                 : b.dimensions(b.rank() - 1);
      if (b.rank() != a.rank() || bdim != n) return Fail("triangular-solve a and b do not match");
      return b;
    }
    default:
      return declared;
  }
}

}  // namespace xla
