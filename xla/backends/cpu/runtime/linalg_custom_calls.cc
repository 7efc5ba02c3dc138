#include "xla/backends/cpu/runtime/linalg_custom_calls.h"

#include <algorithm>
#include <complex>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "xla/backends/cpu/runtime/custom_call_registry.h"
#include "xla/backends/cpu/runtime/flush_denormals.h"
#include "xla/backends/cpu/runtime/linalg/decompositions.h"
#include "xla/backends/cpu/runtime/thread_pool.h"
#include "xla/hlo/ir/primitive_type.h"

namespace xla::cpu {
namespace {

enum class LinalgKind { kPotrf, kTrsm, kGetrf, kGeqrf, kOrgqr, kSyevd, kGesdd };

// One custom call, resolved to plain data: matrix sizes, flags and slots.
struct LinalgCall {
  LinalgKind kind = LinalgKind::kPotrf;
  PrimitiveType type = PrimitiveType::F32;
  int64_t batch = 1;
  int64_t m = 0, n = 0, k = 0;  // the main operand is [m, n]; k as each kind needs
  bool lower = true, left = true, unit_diagonal = false, vectors = true;
  char trans = 'N', mode = 'N';
  std::vector<int> in, out;
};

template <typename T>
T* Slot(const ThunkParams& params, int slot) {
  return static_cast<T*>(params.buffers[slot]);
}

template <typename T>
void CopyMatrix(const T* from, T* to, int64_t count) {
  if (from != to) std::memcpy(to, from, sizeof(T) * count);
}

template <typename T>
void RunOne(const LinalgCall& c, const ThunkParams& params, int64_t b) {
  ScopedKeepDenormals gradual_underflow;  // the solvers' convergence tests need it
  using R = Real<T>;
  const int64_t m = c.m, n = c.n, k = c.k, mn = m * n;
  const T* in0 = Slot<const T>(params, c.in[0]) + b * mn;
  T* out0 = Slot<T>(params, c.out[0]) + b * mn;
  switch (c.kind) {
    case LinalgKind::kPotrf:
      CopyMatrix(in0, out0, mn);
      Slot<int32_t>(params, c.out[1])[b] = Potrf(n, c.lower, out0);
      break;
    case LinalgKind::kTrsm: {
      // in0 is the triangular a [k, k]; b [m, n] is solved in place.
      const T* a = Slot<const T>(params, c.in[0]) + b * k * k;
      const T* rhs = Slot<const T>(params, c.in[1]) + b * mn;
      CopyMatrix(rhs, out0, mn);
      Trsm(m, n, c.left, c.lower, c.trans, c.unit_diagonal, a, out0);
      break;
    }
    case LinalgKind::kGetrf:
      CopyMatrix(in0, out0, mn);
      Slot<int32_t>(params, c.out[2])[b] = Getrf(m, n, out0, Slot<int32_t>(params, c.out[1]) + b * k);
      break;
    case LinalgKind::kGeqrf:
      CopyMatrix(in0, out0, mn);
      Geqrf(m, n, out0, Slot<T>(params, c.out[1]) + b * k);
      break;
    case LinalgKind::kOrgqr:
      CopyMatrix(in0, out0, mn);
      Orgqr(m, n, k, out0, Slot<const T>(params, c.in[1]) + b * k);
      break;
    case LinalgKind::kSyevd:
      CopyMatrix(in0, out0, mn);
      Slot<int32_t>(params, c.out[2])[b] =
          Syevd(n, c.lower, c.vectors, out0, Slot<R>(params, c.out[1]) + b * n);
      break;
    case LinalgKind::kGesdd: {
      const int64_t mk = std::min(m, n);
      const int64_t u_cols = c.mode == 'S' ? mk : m, vt_rows = c.mode == 'S' ? mk : n;
      T* u = Slot<T>(params, c.out[2]) + b * m * u_cols;
      T* vt = Slot<T>(params, c.out[3]) + b * vt_rows * n;
      CopyMatrix(in0, out0, mn);
      if (c.mode == 'N') {
        std::fill(u, u + m * u_cols, T(0));
        std::fill(vt, vt + vt_rows * n, T(0));
      }
      Slot<int32_t>(params, c.out[4])[b] =
          Gesdd(m, n, c.mode, in0, Slot<R>(params, c.out[1]) + b * mk, u, vt);
      break;
    }
  }
}

class LinalgCustomCallThunk final : public Thunk {
 public:
  explicit LinalgCustomCallThunk(LinalgCall call) : call_(std::move(call)) {}

  Status Run(const ThunkParams& params) const override {
    switch (call_.type) {
      case PrimitiveType::F32: return RunTyped<float>(params);
      case PrimitiveType::F64: return RunTyped<double>(params);
      case PrimitiveType::C64: return RunTyped<std::complex<float>>(params);
      case PrimitiveType::C128: return RunTyped<std::complex<double>>(params);
      default: return Internal("linear-algebra custom call on an unsupported type");
    }
  }

 private:
  template <typename T>
  Status RunTyped(const ThunkParams& params) const {
    auto one = [&](int64_t b) { RunOne<T>(call_, params, b); };
    if (params.pool != nullptr && call_.batch > 1) {
      params.pool->ParallelFor(call_.batch, one);
    } else {
      for (int64_t b = 0; b < call_.batch; ++b) one(b);
    }
    return OkStatus();
  }

  LinalgCall call_;
};

PrimitiveType RealType(PrimitiveType t) {
  if (t == PrimitiveType::C64) return PrimitiveType::F32;
  if (t == PrimitiveType::C128) return PrimitiveType::F64;
  return t;
}

std::string DimsString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// Checks that `shape` is `type`[batch..., trailing...].
Status ExpectShape(const CustomCallArgs& args, const Shape& shape, PrimitiveType type,
                   const std::vector<int64_t>& batch, std::vector<int64_t> trailing,
                   const std::string& what) {
  std::vector<int64_t> dims = batch;
  dims.insert(dims.end(), trailing.begin(), trailing.end());
  if (!shape.IsArray() || shape.element_type() != type || shape.dimensions() != dims) {
    return args.Error(what + " must be " + std::string(PrimitiveTypeName(type)) + DimsString(dims) +
                      ", got " + shape.ToString(false));
  }
  return OkStatus();
}

Status ExpectCounts(const CustomCallArgs& args, size_t operands, size_t results) {
  if (args.operands.size() != operands || args.results.size() != results) {
    return args.Error("expects " + std::to_string(operands) + " operand(s) and " +
                      std::to_string(results) + " result(s), got " +
                      std::to_string(args.operands.size()) + " and " +
                      std::to_string(args.results.size()));
  }
  return OkStatus();
}

// Reads a character attribute (an ASCII code) and checks it is one of `allowed`.
StatusOr<char> CharAttribute(const CustomCallArgs& args, const std::string& name, char fallback,
                             const std::string& allowed) {
  auto it = args.attributes.find(name);
  char c = it == args.attributes.end() ? fallback : static_cast<char>(it->second);
  if (allowed.find(c) == std::string::npos || c == '\0') {
    return args.Error("attribute " + name + " must be one of '" + allowed + "', got " +
                      std::to_string(it == args.attributes.end() ? 0 : it->second));
  }
  return c;
}

// Splits the first operand into batch dimensions and a [m, n] matrix.
StatusOr<LinalgCall> MatrixCall(const CustomCallArgs& args, LinalgKind kind, PrimitiveType type,
                                std::vector<int64_t>* batch) {
  if (args.operands.empty()) return args.Error("expects an operand");
  const Shape& a = args.operands[0];
  if (!a.IsArray() || a.rank() < 2 || a.element_type() != type) {
    return args.Error("operand must be a " + std::string(PrimitiveTypeName(type)) +
                      " matrix (with batch dimensions), got " + a.ToString(false));
  }
  LinalgCall c;
  c.kind = kind;
  c.type = type;
  batch->assign(a.dimensions().begin(), a.dimensions().end() - 2);
  c.batch = 1;
  for (int64_t d : *batch) c.batch *= d;
  c.m = a.dimensions(a.rank() - 2);
  c.n = a.dimensions(a.rank() - 1);
  c.in = args.operand_slots;
  c.out = args.result_slots;
  return c;
}

using Thunkptr = std::shared_ptr<const Thunk>;

StatusOr<Thunkptr> MakeThunk(LinalgCall c) {
  return Thunkptr(std::make_shared<LinalgCustomCallThunk>(std::move(c)));
}

StatusOr<Thunkptr> BuildPotrf(const CustomCallArgs& args, PrimitiveType type) {
  RETURN_IF_ERROR(ExpectCounts(args, 1, 2));
  std::vector<int64_t> batch;
  ASSIGN_OR_RETURN(LinalgCall c, MatrixCall(args, LinalgKind::kPotrf, type, &batch));
  RETURN_IF_ERROR(ExpectShape(args, args.results[0], type, batch, {c.n, c.n}, "the factor"));
  RETURN_IF_ERROR(ExpectShape(args, args.results[1], PrimitiveType::S32, batch, {}, "info"));
  ASSIGN_OR_RETURN(char uplo, CharAttribute(args, "uplo", 'L', "LU"));
  c.lower = uplo == 'L';
  return MakeThunk(std::move(c));
}

StatusOr<Thunkptr> BuildTrsm(const CustomCallArgs& args, PrimitiveType type) {
  RETURN_IF_ERROR(ExpectCounts(args, 2, 1));
  std::vector<int64_t> batch;
  ASSIGN_OR_RETURN(LinalgCall c, MatrixCall(args, LinalgKind::kTrsm, type, &batch));
  const Shape& b = args.operands[1];
  if (b.rank() < 2) return args.Error("b must be a matrix, got " + b.ToString(false));
  ASSIGN_OR_RETURN(char side, CharAttribute(args, "side", 'L', "LR"));
  ASSIGN_OR_RETURN(char uplo, CharAttribute(args, "uplo", 'L', "LU"));
  ASSIGN_OR_RETURN(char trans, CharAttribute(args, "trans_x", 'N', "NTC"));
  ASSIGN_OR_RETURN(char diag, CharAttribute(args, "diag", 'N', "NU"));
  const int64_t m = b.dimensions(b.rank() - 2), n = b.dimensions(b.rank() - 1);
  c.k = side == 'L' ? m : n;
  RETURN_IF_ERROR(ExpectShape(args, args.operands[0], type, batch, {c.k, c.k}, "a"));
  RETURN_IF_ERROR(ExpectShape(args, b, type, batch, {m, n}, "b"));
  RETURN_IF_ERROR(ExpectShape(args, args.results[0], type, batch, {m, n}, "the result"));
  c.m = m;
  c.n = n;
  c.left = side == 'L';
  c.lower = uplo == 'L';
  c.trans = trans;
  c.unit_diagonal = diag == 'U';
  return MakeThunk(std::move(c));
}

StatusOr<Thunkptr> BuildGetrf(const CustomCallArgs& args, PrimitiveType type) {
  RETURN_IF_ERROR(ExpectCounts(args, 1, 3));
  std::vector<int64_t> batch;
  ASSIGN_OR_RETURN(LinalgCall c, MatrixCall(args, LinalgKind::kGetrf, type, &batch));
  c.k = std::min(c.m, c.n);
  RETURN_IF_ERROR(ExpectShape(args, args.results[0], type, batch, {c.m, c.n}, "the LU factor"));
  RETURN_IF_ERROR(ExpectShape(args, args.results[1], PrimitiveType::S32, batch, {c.k}, "the pivots"));
  RETURN_IF_ERROR(ExpectShape(args, args.results[2], PrimitiveType::S32, batch, {}, "info"));
  return MakeThunk(std::move(c));
}

StatusOr<Thunkptr> BuildGeqrf(const CustomCallArgs& args, PrimitiveType type) {
  RETURN_IF_ERROR(ExpectCounts(args, 1, 2));
  std::vector<int64_t> batch;
  ASSIGN_OR_RETURN(LinalgCall c, MatrixCall(args, LinalgKind::kGeqrf, type, &batch));
  c.k = std::min(c.m, c.n);
  RETURN_IF_ERROR(ExpectShape(args, args.results[0], type, batch, {c.m, c.n}, "the packed QR"));
  RETURN_IF_ERROR(ExpectShape(args, args.results[1], type, batch, {c.k}, "tau"));
  return MakeThunk(std::move(c));
}

StatusOr<Thunkptr> BuildOrgqr(const CustomCallArgs& args, PrimitiveType type) {
  RETURN_IF_ERROR(ExpectCounts(args, 2, 1));
  std::vector<int64_t> batch;
  ASSIGN_OR_RETURN(LinalgCall c, MatrixCall(args, LinalgKind::kOrgqr, type, &batch));
  const Shape& tau = args.operands[1];
  if (tau.rank() != static_cast<int>(batch.size()) + 1) {
    return args.Error("tau must be a vector per matrix, got " + tau.ToString(false));
  }
  c.k = tau.dimensions(tau.rank() - 1);
  if (c.n > c.m || c.k > c.n) {
    return args.Error("needs k <= n <= m for a [m, n] operand and k reflectors, got m=" +
                      std::to_string(c.m) + " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k));
  }
  RETURN_IF_ERROR(ExpectShape(args, tau, type, batch, {c.k}, "tau"));
  RETURN_IF_ERROR(ExpectShape(args, args.results[0], type, batch, {c.m, c.n}, "q"));
  return MakeThunk(std::move(c));
}

StatusOr<Thunkptr> BuildSyevd(const CustomCallArgs& args, PrimitiveType type) {
  RETURN_IF_ERROR(ExpectCounts(args, 1, 3));
  std::vector<int64_t> batch;
  ASSIGN_OR_RETURN(LinalgCall c, MatrixCall(args, LinalgKind::kSyevd, type, &batch));
  if (c.m != c.n) return args.Error("needs a square matrix, got " + args.operands[0].ToString(false));
  RETURN_IF_ERROR(ExpectShape(args, args.results[0], type, batch, {c.n, c.n}, "the eigenvectors"));
  RETURN_IF_ERROR(ExpectShape(args, args.results[1], RealType(type), batch, {c.n}, "the eigenvalues"));
  RETURN_IF_ERROR(ExpectShape(args, args.results[2], PrimitiveType::S32, batch, {}, "info"));
  ASSIGN_OR_RETURN(char uplo, CharAttribute(args, "uplo", 'L', "LU"));
  ASSIGN_OR_RETURN(char mode, CharAttribute(args, "mode", 'V', "VN"));
  c.lower = uplo == 'L';
  c.vectors = mode == 'V';
  return MakeThunk(std::move(c));
}

StatusOr<Thunkptr> BuildGesdd(const CustomCallArgs& args, PrimitiveType type) {
  RETURN_IF_ERROR(ExpectCounts(args, 1, 5));
  std::vector<int64_t> batch;
  ASSIGN_OR_RETURN(LinalgCall c, MatrixCall(args, LinalgKind::kGesdd, type, &batch));
  ASSIGN_OR_RETURN(char mode, CharAttribute(args, "mode", 'S', "ASN"));
  c.mode = mode;
  const int64_t k = std::min(c.m, c.n);
  const int64_t u_cols = mode == 'S' ? k : c.m, vt_rows = mode == 'S' ? k : c.n;
  RETURN_IF_ERROR(ExpectShape(args, args.results[0], type, batch, {c.m, c.n}, "result 0"));
  RETURN_IF_ERROR(ExpectShape(args, args.results[1], RealType(type), batch, {k}, "the singular values"));
  RETURN_IF_ERROR(ExpectShape(args, args.results[2], type, batch, {c.m, u_cols}, "u"));
  RETURN_IF_ERROR(ExpectShape(args, args.results[3], type, batch, {vt_rows, c.n}, "vt"));
  RETURN_IF_ERROR(ExpectShape(args, args.results[4], PrimitiveType::S32, batch, {}, "info"));
  return MakeThunk(std::move(c));
}

using TypedBuilder = StatusOr<Thunkptr> (*)(const CustomCallArgs&, PrimitiveType);

void RegisterFor(CustomCallRegistry* registry, const std::string& real_name,
                 const std::string& complex_name, TypedBuilder build) {
  const std::pair<char, PrimitiveType> types[] = {{'s', PrimitiveType::F32},
                                                  {'d', PrimitiveType::F64},
                                                  {'c', PrimitiveType::C64},
                                                  {'z', PrimitiveType::C128}};
  for (const auto& [letter, type] : types) {
    const std::string& op = IsComplex(type) ? complex_name : real_name;
    const PrimitiveType t = type;
    Status s = registry->Register("lapack_" + std::string(1, letter) + op + "_ffi",
                                  [build, t](const CustomCallArgs& args) { return build(args, t); });
    (void)s;  // a second registration of the built-ins keeps the first
  }
}

}  // namespace

void RegisterLinalgCustomCalls(CustomCallRegistry* registry) {
  RegisterFor(registry, "potrf", "potrf", &BuildPotrf);
  RegisterFor(registry, "trsm", "trsm", &BuildTrsm);
  RegisterFor(registry, "getrf", "getrf", &BuildGetrf);
  RegisterFor(registry, "geqrf", "geqrf", &BuildGeqrf);
  RegisterFor(registry, "orgqr", "ungqr", &BuildOrgqr);
  RegisterFor(registry, "syevd", "heevd", &BuildSyevd);
  RegisterFor(registry, "gesdd", "gesdd", &BuildGesdd);
}

}  // namespace xla::cpu
