"""Contractions and decompositions, one block per primitive (define, jvp/transpose,
batching, lowering): dot_general, then cholesky, triangular_solve, lu, qr, eigh, svd.

The decompositions lower to the LAPACK-style custom calls real JAX emits on
CPU (`lapack_<t><routine>_ffi`, typed FFI, column-major operand layouts), with
the same post-processing: LAPACK's `info` turns failed factorizations into
NaNs, getrf's 1-based pivots become 0-based ones and a permutation.
"""

from __future__ import annotations

import numpy as np

from jax._src.lax.precision import Precision, canonicalize_dot_precision
from jax._src import core
from jax._src import dtypes
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import control_flow
from jax._src.lax import elementwise as ew
from jax._src.lax import reductions
from jax._src.lax import shape as lax_shape
from jax._src.lax import slicing
from jax._src.lax.utils import place, standard_primitive
from jax._src.lowering import hlo


def _free_dims(ndim, contracting, batch):
  return [d for d in range(ndim) if d not in contracting and d not in batch]


def _dot_general_abstract_eval(lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
  (lc, rc), (lb, rb) = dimension_numbers
  if len(lc) != len(rc) or len(lb) != len(rb):
    raise TypeError(f"dot_general: mismatched dimension_numbers {dimension_numbers}")
  for a, b in list(zip(lc, rc)) + list(zip(lb, rb)):
    if lhs.shape[a] != rhs.shape[b]:
      raise TypeError(f"dot_general: {lhs.str_short(short_dtypes=True)} and {rhs.str_short(short_dtypes=True)} disagree on "
                      f"dimensions {a} and {b} (dimension_numbers={dimension_numbers})")
  shape = (tuple(lhs.shape[d] for d in lb)
           + tuple(lhs.shape[d] for d in _free_dims(lhs.ndim, lc, lb))
           + tuple(rhs.shape[d] for d in _free_dims(rhs.ndim, rc, rb)))
  dtype = (preferred_element_type if preferred_element_type is not None else
           _higher_precision_dtype(lhs.dtype, rhs.dtype))
  return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


def _precision_rank(dt) -> tuple:
  """Orders dtypes as XLA picks the result of a dot of two element types: complex above
  real, then by exponent range, mantissa bits, width, and signed above unsigned."""
  dt = np.dtype(dt)
  real = dt
  if dtypes.is_complex(dt):
    real = np.dtype(np.float32 if dt == np.complex64 else np.float64)
  info = dtypes.finfo(real) if dtypes.is_float(real) else None
  return (dtypes.is_complex(dt), info.maxexp if info else -1, info.nmant if info else -1,
          real.itemsize, real.kind != "u")


def _higher_precision_dtype(a, b):
  """The result dtype of a dot of operands of dtypes `a` and `b` (they may differ, as in
  JAX: an f8_e4m3fn by f8_e5m2 product of a backward pass)."""
  return a if a == b or _precision_rank(a) > _precision_rank(b) else b


dot_general_p = standard_primitive("dot_general", _dot_general_abstract_eval)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None, *,
                out_sharding=None):
  return place(dot_general_placed(lhs, rhs, dimension_numbers, precision,
                                  preferred_element_type, placed=out_sharding is not None),
               out_sharding)


def dot_general_placed(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                       *, placed: bool):
  """dot_general for callers that place the result themselves (`placed`: an out_sharding
  was given, so operands split along contracting dimensions are fine)."""
  if not placed:
    _check_contracting_split(lhs, rhs, dimension_numbers)
  return _dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type)


def _contracting_axes(x, dims) -> tuple:
  s = core.explicit_sharding(core.get_aval(x))
  if s is None:
    return ()
  per_dim = s.spec.axes_by_dim(core.get_aval(x).ndim)
  return tuple(n for d in dims for n in per_dim[int(d)])


def _check_contracting_split(lhs, rhs, dimension_numbers) -> None:
  """Both operands split along contracting dimensions leave partial sums: where the sum
  should live is the caller's choice (JAX asks for it rather than guessing)."""
  (lc, rc), _ = dimension_numbers
  ls, rs = _contracting_axes(lhs, lc), _contracting_axes(rhs, rc)
  if ls and rs:
    raise core.ShardingTypeError(
        "Contracting dimensions are sharded and it is ambiguous how the output should be "
        "sharded. Please specify the output sharding via the `out_sharding` parameter. Got "
        f"lhs_contracting_spec={ls} and rhs_contracting_spec={rs}")


def _dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type):
  (lc, rc), (lb, rb) = dimension_numbers
  dn = ((tuple(map(int, lc)), tuple(map(int, rc))), (tuple(map(int, lb)), tuple(map(int, rb))))
  pet = None if preferred_element_type is None else dtypes.canonicalize_dtype(preferred_element_type)
  return dot_general_p.bind(lhs, rhs, dimension_numbers=dn,
                            precision=canonicalize_dot_precision(precision),
                            preferred_element_type=pet)


def dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None,
        out_sharding=None):
  """Vector/matrix products of rank-1/2 operands; with dimension_numbers, dot_general."""
  if dimension_numbers is not None:
    return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type,
                       out_sharding=out_sharding)
  lnd, rnd = core.get_aval(lhs).ndim, core.get_aval(rhs).ndim
  if not (1 <= lnd <= 2 and 1 <= rnd <= 2):
    raise TypeError(f"dot accepts rank 1 or 2 operands, got ranks {lnd} and {rnd}")
  return dot_general(lhs, rhs, (((lnd - 1,), (0,)), ((), ())), precision, preferred_element_type,
                     out_sharding=out_sharding)


def _ranges_like(*xs):
  start = 0
  for x in xs:
    yield tuple(range(start, start + len(x)))
    start += len(x)


def _dot_transpose_operand(ct, other, other_ndim, own_ndim, dimension_numbers, own_is_lhs,
                           precision, preferred_element_type, own_dtype):
  (lc, rc), (lb, rb) = dimension_numbers
  own_c, other_c = (lc, rc) if own_is_lhs else (rc, lc)
  own_b, other_b = (lb, rb) if own_is_lhs else (rb, lb)
  own_free = _free_dims(own_ndim, own_c, own_b)
  other_free = _free_dims(other_ndim, other_c, other_b)
  nb = len(own_b)
  ct_batch, ct_lhs_free, ct_rhs_free = _ranges_like(own_b, *(
      (own_free, other_free) if own_is_lhs else (other_free, own_free)))
  ct_other_free = ct_rhs_free if own_is_lhs else ct_lhs_free
  dn = ((tuple(ct_other_free), tuple(other_free)), (tuple(ct_batch), tuple(other_b)))
  # Split contracted dimensions are fine here: the cotangent is laid out as its primal
  # afterwards (ad.backward_pass).
  out = _dot_general(ct, other, dn, precision, None)
  # result dims: batch, own free (in order), then other's contracting dims in increasing order
  result_to_own = [*own_b, *own_free, *[own_c[list(other_c).index(d)] for d in sorted(other_c)]]
  perm = tuple(result_to_own.index(k) for k in range(own_ndim))
  del nb
  return ew.convert_element_type(lax_shape.transpose(out, perm), own_dtype)


def _dot_general_transpose(ct, lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
  outs = [None, None]
  if ad.is_undefined_primal(lhs):
    rhs_ndim = core.get_aval(rhs).ndim
    outs[0] = _dot_transpose_operand(ct, rhs, rhs_ndim, lhs.aval.ndim, dimension_numbers, True,
                                     precision, preferred_element_type, lhs.aval.dtype)
  if ad.is_undefined_primal(rhs):
    lhs_ndim = core.get_aval(lhs).ndim
    outs[1] = _dot_transpose_operand(ct, lhs, lhs_ndim, rhs.aval.ndim, dimension_numbers, False,
                                     precision, preferred_element_type, rhs.aval.dtype)
  return outs


def _dot_general_jvp(primals, tangents, **params):
  lhs, rhs = primals
  tl, tr = tangents
  out = dot_general_p.bind(lhs, rhs, **params)
  return out, ad.add_tangents(dot_general_p.bind(tl, rhs, **params),
                              dot_general_p.bind(lhs, tr, **params))


def _dot_general_batch(axis, vals, dims, *, dimension_numbers, precision, preferred_element_type):
  lhs, rhs = vals
  ld, rd = dims
  (lc, rc), (lb, rb) = dimension_numbers
  shift = lambda ds: tuple(d + 1 for d in ds)
  if ld is not None and rd is not None:
    lhs, rhs = batching.moveaxis(lhs, ld, 0), batching.moveaxis(rhs, rd, 0)
    dn = ((shift(lc), shift(rc)), ((0, *shift(lb)), (0, *shift(rb))))
    out_dim = 0
  elif ld is not None:
    lhs = batching.moveaxis(lhs, ld, 0)
    dn = ((shift(lc), rc), (shift(lb), rb))
    out_dim = len(lb)  # the batch axis is lhs's first free dimension
  else:
    rhs = batching.moveaxis(rhs, rd, 0)
    dn = ((lc, shift(rc)), (lb, shift(rb)))
    lhs_ndim = core.get_aval(lhs).ndim
    out_dim = len(lb) + len(_free_dims(lhs_ndim, lc, lb))
  out = dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=precision,
                           preferred_element_type=preferred_element_type)
  return out, out_dim


def _dot_general_lowering(ctx, lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
  (lc, rc), (lb, rb) = dimension_numbers
  fmt = lambda ds: "{" + ",".join(map(str, ds)) + "}"
  attrs = []
  if lb:
    attrs.append(f"lhs_batch_dims={fmt(lb)}")
  attrs.append(f"lhs_contracting_dims={fmt(lc)}")
  if rb:
    attrs.append(f"rhs_batch_dims={fmt(rb)}")
  attrs.append(f"rhs_contracting_dims={fmt(rc)}")
  names = operand_precision_names(precision)
  if names is not None:
    attrs.append("operand_precision={" + ",".join(names) + "}")
  out = ctx.avals_out[0]
  compute = _dot_compute_dtype(lhs.aval.dtype, rhs.aval.dtype, out.dtype)
  if compute is None:
    return ctx.op("dot", out, lhs, rhs, attrs=", ".join(attrs))
  # 8-bit floats and mixed operands: their products are exact in the compute type, so
  # converting first gives the same sums as XLA's mixed dot, on the fast same-type path.
  lhs, rhs = (x if x.aval.dtype == compute else
              ctx.op("convert", x.aval.update(dtype=compute, weak_type=False), x)
              for x in (lhs, rhs))
  res = ctx.op("dot", out.update(dtype=compute), lhs, rhs, attrs=", ".join(attrs))
  return res if compute == out.dtype else ctx.op("convert", out, res)


def _dot_compute_dtype(lhs_dtype, rhs_dtype, out_dtype):
  """The dtype a dot of these operands runs in when it is not the operands' own (None)."""
  narrow = any(np.dtype(d) in dtypes.narrow_float_dtypes for d in (lhs_dtype, rhs_dtype))
  if not narrow and lhs_dtype == rhs_dtype:
    return None
  if narrow and np.dtype(out_dtype) != dtypes.float64:
    return dtypes.float32  # f8 accumulates in f32 and rounds once at the end
  return np.dtype(out_dtype)


def operand_precision_names(precision) -> tuple[str, str] | None:
  """XLA's per-operand precision names for a (lhs, rhs) pair of Precision values, or
  None when both are the default (XLA leaves the attribute out then)."""
  if isinstance(precision, (Precision, str)):  # one value for both operands
    precision = (Precision(precision),) * 2
  if not isinstance(precision, tuple) or not all(
      p is None or isinstance(p, Precision) for p in precision):
    return None  # no precision, or an explicit dot algorithm
  pair = tuple(Precision.DEFAULT if p is None else p for p in precision)
  if all(p is Precision.DEFAULT for p in pair):
    return None
  return tuple(p.name.lower() for p in pair)


ad.jvp_rules[dot_general_p] = _dot_general_jvp
ad.transpose_rules[dot_general_p] = _dot_general_transpose
batching.batch_rules[dot_general_p] = _dot_general_batch
hlo.lowering_rules[dot_general_p] = _dot_general_lowering


# ============================================================================= decompositions


class _ArrayOps:
  """The few jax.numpy-style helpers the decompositions below use, written over lax
  (jax.numpy sits above lax): matrices in the last two axes, jax.numpy's semantics."""

  @staticmethod
  def asarray(x, dtype=None):
    if not isinstance(x, core.Tracer) and not hasattr(x, "aval"):
      x = np.asarray(x)
      x = ew.convert_element_type(x, dtypes.canonicalize_dtype(x.dtype))
    return x if dtype is None else ew.convert_element_type(x, dtype)

  @staticmethod
  def result_type(x) -> np.dtype:
    return np.dtype(core.get_aval(x).dtype)

  @staticmethod
  def array(value, dtype):
    return lax_shape.full((), value, dtype)

  @staticmethod
  def reshape(x, shape):
    return lax_shape.reshape(x, tuple(shape))

  @staticmethod
  def broadcast_to(x, shape):
    shape, ndim = tuple(shape), core.get_aval(x).ndim
    return lax_shape.broadcast_in_dim(x, shape, tuple(range(len(shape) - ndim, len(shape))))

  @staticmethod
  def where(pred, x, y):
    like = x if hasattr(x, "aval") or isinstance(x, core.Tracer) else y
    dtype = core.get_aval(like).dtype
    x, y = (v if v is like else _ArrayOps.asarray(v, dtype) for v in (x, y))
    shape = lax_shape.broadcast_shapes(*(core.get_aval(v).shape for v in (pred, x, y)))
    pred, x, y = (_ArrayOps.broadcast_to(v, shape) for v in (pred, x, y))
    return ew.select(pred, x, y)

  @staticmethod
  def conj(x):
    return ew.conj(x) if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating) else x

  @staticmethod
  def real(x):
    return ew.real(x) if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating) else x

  @staticmethod
  def swapaxes(x, axis1: int, axis2: int):
    ndim = core.get_aval(x).ndim
    perm = list(range(ndim))
    perm[axis1 % ndim], perm[axis2 % ndim] = perm[axis2 % ndim], perm[axis1 % ndim]
    return lax_shape.transpose(x, tuple(perm))

  @staticmethod
  def matmul(a, b):
    nd = core.get_aval(a).ndim
    batch = tuple(range(nd - 2))
    return dot_general(a, b, (((nd - 1,), (nd - 2,)), (batch, batch)))

  @staticmethod
  def _band(x, keep):
    shape = core.get_aval(x).shape
    rows = lax_shape.broadcasted_iota(np.int32, shape, len(shape) - 2)
    cols = lax_shape.broadcasted_iota(np.int32, shape, len(shape) - 1)
    return ew.select(keep(rows, cols), x, lax_shape.full(shape, 0, core.get_aval(x).dtype))

  @staticmethod
  def tril(x, k: int = 0):
    return _ArrayOps._band(x, lambda r, c: ew.ge(ew.add(r, np.int32(k)), c))

  @staticmethod
  def triu(x, k: int = 0):
    return _ArrayOps._band(x, lambda r, c: ew.le(ew.add(r, np.int32(k)), c))

  @staticmethod
  def eye(n: int, dtype):
    shape = (n, n)
    on = ew.eq(lax_shape.broadcasted_iota(np.int32, shape, 0),
               lax_shape.broadcasted_iota(np.int32, shape, 1))
    return ew.convert_element_type(on, dtype)

  @staticmethod
  def arange(n: int, dtype):
    return lax_shape.iota(dtype, n)

  @staticmethod
  def sum(x, axis: int, keepdims: bool, dtype):
    x = ew.convert_element_type(x, dtype)
    ndim = core.get_aval(x).ndim
    out = reductions.reduce_sum(x, (axis % ndim,))
    return lax_shape.expand_dims(out, (axis % ndim,)) if keepdims else out

  @staticmethod
  def pad(x, widths):
    zero = lax_shape.full((), 0, core.get_aval(x).dtype)
    return lax_shape.pad(x, zero, [(lo, hi, 0) for lo, hi in widths])

  @staticmethod
  def diagonal(x, axis1: int = -2, axis2: int = -1):
    """The diagonal of square matrices in the last two axes: every (n+1)-th element."""
    assert (axis1, axis2) == (-2, -1)
    shape = core.get_aval(x).shape
    batch, n = shape[:-2], shape[-1]
    flat = lax_shape.reshape(x, (*batch, n * n))
    return lax_shape.slice(flat, (0,) * (len(batch) + 1), (*batch, n * n),
                           (1,) * len(batch) + (n + 1,))


def _jnp():
  return _ArrayOps


class _LaxOps:
  broadcasted_iota = staticmethod(lax_shape.broadcasted_iota)
  convert_element_type = staticmethod(ew.convert_element_type)
  dynamic_index_in_dim = staticmethod(slicing.dynamic_index_in_dim)
  fori_loop = staticmethod(control_flow.fori_loop)


def _lax():
  return _LaxOps


_LAPACK_PREFIX = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
                  np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}


def _lapack_prefix(name: str, dtype) -> str:
  try:
    return _LAPACK_PREFIX[np.dtype(dtype)]
  except KeyError:
    raise NotImplementedError(
        f"Unsupported dtype {np.dtype(dtype).name} for {name}: the CPU backend supports "
        "float32, float64, complex64 and complex128") from None


def _real_dtype(dtype) -> np.dtype:
  return np.finfo(np.dtype(dtype)).dtype


def _check_matrix(name: str, x: ShapedArray, square: bool = False) -> None:
  if x.ndim < 2:
    raise ValueError(f"{name} requires an array of rank >= 2, got shape {x.shape}")
  if square and x.shape[-1] != x.shape[-2]:
    raise ValueError(f"{name} requires a square matrix (or a batch of them), got shape {x.shape}")
  if not dtypes.issubdtype(x.dtype, np.inexact):
    raise TypeError(f"{name} requires a floating-point or complex array, got {x.dtype}")


def _batch_first_rule(prim):
  """Batching for ops that already map over leading dimensions: move the batch axis to 0."""

  def rule(axis, vals, dims, **params):
    moved = [batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals, dims)]
    out = prim.bind(*moved, **params)
    return out, ([0] * len(out) if prim.multiple_results else 0)

  return rule


# ----------------------------------------------------------------------------- lapack_call
# One custom call of the CPU backend's LAPACK-style kernels. Used only inside
# the lowering of the primitives below, which carry the derivative rules; a
# raw kernel call (pivots, Householder vectors, info) has no JVP of its own.


def _lapack_call_abstract_eval(*operands, target, result_types, attributes, aliases):
  return [ShapedArray(shape, dtype) for shape, dtype in result_types]


lapack_call_p = standard_primitive("lapack_call", _lapack_call_abstract_eval,
                                   multiple_results=True)


def _lapack_call(routine: str, operands, results, attributes=(), aliases=((0, 0),)):
  """`results` are (shape, dtype) pairs; `aliases` (result, operand) pairs as LAPACK overwrites."""
  jnp = _jnp()
  target = f"lapack_{_lapack_prefix(routine, jnp.result_type(operands[0]))}{routine}_ffi"
  result_types = tuple((tuple(shape), np.dtype(dtype)) for shape, dtype in results)
  return lapack_call_p.bind(*operands, target=target, result_types=result_types,
                            attributes=tuple(sorted(attributes)), aliases=tuple(aliases))


def _column_major_str(aval: ShapedArray) -> str:
  """LAPACK wants matrices column-major: the last two dimensions are the most minor."""
  if aval.ndim < 2:
    return hlo.shape_str(aval)
  r = aval.ndim
  layout = ",".join(map(str, [r - 2, r - 1, *reversed(range(r - 2))]))
  dims = ",".join(map(str, aval.shape))
  return f"{hlo.hlo_type(aval.dtype)}[{dims}]{{{layout}}}"


def _lapack_call_lowering(ctx, *operands, target, result_types, attributes, aliases):
  outs = ctx.avals_out
  single = len(outs) == 1
  alias_text = ", ".join(("{}" if single else f"{{{r}}}") + f": ({o}, {{}})" for r, o in aliases)
  num_batch_dims = ctx.avals_in[0].ndim - 2
  attrs = ", ".join([
      f'custom_call_target="{target}"',
      "operand_layout_constraints={" + ", ".join(map(_column_major_str, ctx.avals_in)) + "}",
      "output_to_operand_aliasing={" + alias_text + "}",
      "api_version=API_VERSION_TYPED_FFI",
      f'frontend_attributes={{num_batch_dims="{num_batch_dims}"}}',
      "backend_config={" + ", ".join(f"{k} = {v} : ui8" for k, v in attributes) + "}",
  ])
  shape = _column_major_str(outs[0]) if single else hlo.tuple_str(map(_column_major_str, outs))
  name = ctx.comp.emit(ctx.prefix, shape, "custom-call", [o.name for o in operands], attrs)
  if single:
    return [hlo.HloValue(name, outs[0])]
  return [hlo.HloValue(ctx.comp.emit(ctx.prefix, _column_major_str(a), "get-tuple-element",
                                     [name], f"index={i}"), a)
          for i, a in enumerate(outs)]


def _lapack_call_batch(axis, vals, dims, *, target, result_types, attributes, aliases):
  # Every kernel maps over leading dimensions: a new leading batch axis is free.
  moved = [batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals, dims)]
  batched = tuple(((axis.size, *shape), dtype) for shape, dtype in result_types)
  out = lapack_call_p.bind(*moved, target=target, result_types=batched, attributes=attributes,
                           aliases=aliases)
  return out, [0] * len(out)


batching.batch_rules[lapack_call_p] = _lapack_call_batch
hlo.lowering_rules[lapack_call_p] = _lapack_call_lowering


def _nan_unless(ok, x):
  """x where the factorization succeeded (`ok` per matrix), else NaN, as JAX does."""
  jnp = _jnp()
  ok = jnp.reshape(ok, ok.shape + (1,) * (x.ndim - ok.ndim))
  return jnp.where(ok, x, jnp.array(np.nan, x.dtype))


def _h(x):
  """Conjugate transpose of the last two dimensions."""
  jnp = _jnp()
  return jnp.conj(jnp.swapaxes(x, -1, -2))


def _mm(a, b):
  return _jnp().matmul(a, b)


# The helpers lax's eig module (in the numpy layer) builds on.
batch_first_rule, check_matrix, conj_transpose = _batch_first_rule, _check_matrix, _h
matmul, real_dtype = _mm, _real_dtype


def _symmetrize(x):
  return (x + _h(x)) / 2


# ----------------------------------------------------------------------------- cholesky


def _cholesky_abstract_eval(x):
  _check_matrix("cholesky", x, square=True)
  return ShapedArray(x.shape, x.dtype)


cholesky_p = standard_primitive("cholesky", _cholesky_abstract_eval)


def cholesky(x, *, symmetrize_input: bool = True):
  """The lower Cholesky factor L (x = L L^H) of each matrix; NaN where x is not positive definite."""
  x = _jnp().asarray(x)
  if symmetrize_input:
    x = _symmetrize(x)
  return cholesky_p.bind(x)


def _cholesky_impl(x):
  factor, info = _lapack_call("potrf", [x], [(x.shape, x.dtype), (x.shape[:-2], np.int32)],
                              attributes=[("uplo", ord("L"))])
  return _nan_unless(info == 0, _jnp().tril(factor))


def _cholesky_jvp(primals, tangents):
  # Murray, "Differentiation of the Cholesky decomposition" (2016):
  # dL = L Phi(L^-1 dA L^-H), Phi = lower triangle with the diagonal halved.
  (x,), (x_dot,) = primals, tangents
  jnp = _jnp()
  l = cholesky_p.bind(x)  # lower triangular, zeros above
  tmp = triangular_solve(l, x_dot, left_side=False, lower=True, transpose_a=True,
                         conjugate_a=True)
  inner = triangular_solve(l, tmp, left_side=True, lower=True)
  n = x.shape[-1]
  phi = jnp.tril(inner) * (1 - 0.5 * jnp.eye(n, dtype=x.dtype))
  return l, _mm(l, phi)


ad.jvp_rules[cholesky_p] = _cholesky_jvp
batching.batch_rules[cholesky_p] = _batch_first_rule(cholesky_p)
hlo.lowering_rules[cholesky_p] = hlo.lower_fun(_cholesky_impl)


# ----------------------------------------------------------------------------- triangular_solve


def _triangular_solve_abstract_eval(a, b, *, left_side, lower, transpose_a, conjugate_a,
                                    unit_diagonal):
  _check_matrix("triangular_solve", a, square=True)
  if b.ndim < 2:
    raise ValueError(f"triangular_solve requires b of rank >= 2, got shape {b.shape}")
  if a.ndim != b.ndim or a.shape[:-2] != b.shape[:-2]:
    raise TypeError("triangular_solve requires both arguments to have the same number of "
                    f"dimensions and equal batch dimensions, got {a.shape} and {b.shape}")
  common = b.shape[-2] if left_side else b.shape[-1]
  if a.shape[-1] != common:
    raise TypeError(f"Incompatible shapes for arguments to triangular_solve: {a.shape} and "
                    f"{b.shape}")
  if a.dtype != b.dtype:
    raise TypeError(f"triangular_solve requires equal dtypes, got {a.dtype} and {b.dtype}")
  return ShapedArray(b.shape, b.dtype)


triangular_solve_p = standard_primitive("triangular_solve", _triangular_solve_abstract_eval)


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
  """Solves op(a) x = b (left_side) or x op(a) = b with the named triangle of a.

  op(a) is a, a^T, conj(a) or a^H as transpose_a and conjugate_a say.
  """
  jnp = _jnp()
  a, b = jnp.asarray(a), jnp.asarray(b)
  if conjugate_a and not transpose_a:
    a, conjugate_a = jnp.conj(a), False
  return triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                 transpose_a=bool(transpose_a), conjugate_a=bool(conjugate_a),
                                 unit_diagonal=bool(unit_diagonal))


def _triangular_solve_impl(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
  if conjugate_a and not transpose_a:
    a = _jnp().conj(a)
  trans = "N" if not transpose_a else ("C" if conjugate_a else "T")
  attributes = [("side", ord("L" if left_side else "R")), ("uplo", ord("L" if lower else "U")),
                ("trans_x", ord(trans)), ("diag", ord("U" if unit_diagonal else "N"))]
  (x,) = _lapack_call("trsm", [a, b], [(b.shape, b.dtype)], attributes, aliases=((0, 1),))
  return x


def _triangular_solve_jvp_a(a_dot, ans, a, b, *, left_side, lower, transpose_a, conjugate_a,
                            unit_diagonal):
  # op(A) X = B  =>  dX = -op(A)^-1 op(dA) X  (and X op(dA) op(A)^-1 on the right).
  jnp = _jnp()
  k = 1 if unit_diagonal else 0
  a_dot = -(jnp.tril(a_dot, -k) if lower else jnp.triu(a_dot, k))
  if transpose_a:
    a_dot = jnp.swapaxes(a_dot, -1, -2)
  if conjugate_a:
    a_dot = jnp.conj(a_dot)
  rhs = _mm(a_dot, ans) if left_side else _mm(ans, a_dot)
  return triangular_solve_p.bind(a, rhs, left_side=left_side, lower=lower,
                                 transpose_a=transpose_a, conjugate_a=conjugate_a,
                                 unit_diagonal=unit_diagonal)


def _triangular_solve_jvp_b(b_dot, ans, a, b, **params):
  return triangular_solve_p.bind(a, b_dot, **params)


def _triangular_solve_transpose(ct, a, b, *, left_side, lower, transpose_a, conjugate_a,
                                unit_diagonal):
  if ad.is_undefined_primal(a):
    raise NotImplementedError("triangular_solve is not linear in its first argument")
  ct = ad.instantiate_zeros(ct, b.aval)
  # x = op(A)^-1 b is linear in b; its transpose applies op(A)^-T.
  ct_b = triangular_solve_p.bind(a, ct, left_side=left_side, lower=lower,
                                 transpose_a=not transpose_a, conjugate_a=conjugate_a,
                                 unit_diagonal=unit_diagonal)
  return [None, ct_b]


ad.defjvp2(triangular_solve_p, _triangular_solve_jvp_a, _triangular_solve_jvp_b)
ad.transpose_rules[triangular_solve_p] = _triangular_solve_transpose
batching.batch_rules[triangular_solve_p] = _batch_first_rule(triangular_solve_p)
hlo.lowering_rules[triangular_solve_p] = hlo.lower_fun(_triangular_solve_impl)


# ----------------------------------------------------------------------------- lu


def _lu_abstract_eval(x):
  _check_matrix("lu", x)
  m, n = x.shape[-2:]
  batch = x.shape[:-2]
  return [ShapedArray(x.shape, x.dtype), ShapedArray(batch + (min(m, n),), np.int32),
          ShapedArray(batch + (m,), np.int32)]


lu_p = standard_primitive("lu", _lu_abstract_eval, multiple_results=True)


def lu(x):
  """LU with partial pivoting: (lu, pivots, permutation) with x[..., permutation, :] = L U.

  L (unit diagonal, below) and U (on and above the diagonal) are packed in lu;
  pivots are LAPACK's row interchanges, 0-based.
  """
  return tuple(lu_p.bind(_jnp().asarray(x)))


def lu_pivots_to_permutation(pivots, permutation_size: int):
  """The permutation that applying the row interchanges `pivots` in order gives."""
  jnp, lax = _jnp(), _lax()
  pivots = jnp.asarray(pivots, np.int32)
  k = pivots.shape[-1]
  if permutation_size < k:
    raise ValueError(f"Output permutation size {permutation_size} has to exceed the trailing "
                     f"dimension of the pivots. Got pivots shape {pivots.shape}")
  batch = pivots.shape[:-1]
  perm0 = jnp.broadcast_to(jnp.arange(permutation_size, dtype=np.int32),
                           batch + (permutation_size,))
  if k == 0:
    return perm0  # (the loop body could not even be traced on empty pivots)
  positions = lax.broadcasted_iota(np.int32, perm0.shape, perm0.ndim - 1)

  def swap(i, perm):
    i = lax.convert_element_type(i, np.int32)
    j = lax.dynamic_index_in_dim(pivots, i, axis=pivots.ndim - 1, keepdims=True)
    at_i, at_j = positions == i, positions == j
    p_i = jnp.sum(jnp.where(at_i, perm, 0), axis=-1, keepdims=True, dtype=np.int32)
    p_j = jnp.sum(jnp.where(at_j, perm, 0), axis=-1, keepdims=True, dtype=np.int32)
    return jnp.where(at_j, p_i, jnp.where(at_i, p_j, perm)).astype(np.int32)

  return lax.fori_loop(0, k, swap, perm0)


def _lu_impl(x):
  m, n = x.shape[-2:]
  packed, ipiv, info = _lapack_call(
      "getrf", [x], [(x.shape, x.dtype), (x.shape[:-2] + (min(m, n),), np.int32),
                     (x.shape[:-2], np.int32)])
  pivots = ipiv - np.int32(1)
  perm = lu_pivots_to_permutation(pivots, m)
  # info > 0 only flags an exactly zero pivot: the factors are still valid.
  return [_nan_unless(info >= 0, packed), pivots, perm]


def _permutation_matrix(perm, dtype):
  jnp = _jnp()
  return (perm[..., :, None] == jnp.arange(perm.shape[-1], dtype=perm.dtype)).astype(dtype)


def _lu_jvp(primals, tangents):
  # P A = L U  =>  L^-1 P dA U^-1 = L^-1 dL + dU U^-1 (strictly lower + upper parts).
  (x,), (x_dot,) = primals, tangents
  jnp = _jnp()
  packed, pivots, perm = lu_p.bind(x)
  m, n = x.shape[-2:]
  if m != n:
    raise NotImplementedError("The derivative of lu is implemented for square matrices only, "
                              f"got shape {x.shape}")
  l = jnp.tril(packed, -1) + jnp.eye(n, dtype=x.dtype)
  u = jnp.triu(packed)
  x_dot_perm = _mm(_permutation_matrix(perm, x.dtype), x_dot)
  la = triangular_solve(l, x_dot_perm, left_side=True, lower=True, unit_diagonal=True)
  lau = triangular_solve(u, la, left_side=False, lower=False)
  lu_dot = _mm(l, jnp.tril(lau, -1)) + _mm(jnp.triu(lau), u)
  return [packed, pivots, perm], [lu_dot, ad.zeros_like(pivots), ad.zeros_like(perm)]


ad.jvp_rules[lu_p] = _lu_jvp
batching.batch_rules[lu_p] = _batch_first_rule(lu_p)
hlo.lowering_rules[lu_p] = hlo.lower_fun(_lu_impl, multiple_results=True)


# ----------------------------------------------------------------------------- qr


def _qr_shapes(shape, full_matrices):
  *batch, m, n = shape
  k = min(m, n)
  q_cols, r_rows = (m, m) if full_matrices else (k, k)
  return tuple(batch) + (m, q_cols), tuple(batch) + (r_rows, n)


def _qr_abstract_eval(x, *, full_matrices):
  _check_matrix("qr", x)
  q_shape, r_shape = _qr_shapes(x.shape, full_matrices)
  return [ShapedArray(q_shape, x.dtype), ShapedArray(r_shape, x.dtype)]


qr_p = standard_primitive("qr", _qr_abstract_eval, multiple_results=True)


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
  """Householder QR: (q, r) with x = q r; full_matrices gives a square q."""
  if pivoting:
    raise NotImplementedError("qr with pivoting=True is not supported by the CPU backend")
  return tuple(qr_p.bind(_jnp().asarray(x), full_matrices=bool(full_matrices)))


def _qr_impl(x, *, full_matrices):
  jnp = _jnp()
  m, n = x.shape[-2:]
  k = min(m, n)
  packed, tau = _lapack_call("geqrf", [x], [(x.shape, x.dtype), (x.shape[:-2] + (k,), x.dtype)])
  if m > n and full_matrices:
    reflectors = jnp.pad(packed, [(0, 0)] * (x.ndim - 1) + [(0, m - n)])
  elif m < n:
    reflectors = packed[..., :, :m]
  else:
    reflectors = packed
  routine = "ungqr" if dtypes.issubdtype(x.dtype, np.complexfloating) else "orgqr"
  (q,) = _lapack_call(routine, [reflectors, tau], [(reflectors.shape, x.dtype)])
  r_rows = m if full_matrices else k
  return [q, jnp.triu(packed[..., :r_rows, :])]


def _qr_jvp(primals, tangents, *, full_matrices):
  # Walter & Lehmann (2018) / Seeger et al. (2017): with C = Q^H dA R^-1,
  # dQ = Q Omega + (dA R^-1 - Q C) and dR = (C - Omega) R, Omega = skew part of C.
  (x,), (dx,) = primals, tangents
  jnp = _jnp()
  q, r = qr_p.bind(x, full_matrices=full_matrices)
  m, n = x.shape[-2:]
  if m < n or (full_matrices and m != n):
    raise NotImplementedError("Unimplemented case of QR decomposition derivative: needs "
                              f"m >= n and reduced matrices, got shape {x.shape} with "
                              f"full_matrices={full_matrices}")
  dx_rinv = triangular_solve(r, dx)  # right side: dx R^-1
  qt_dx_rinv = _mm(_h(q), dx_rinv)
  lower = jnp.tril(qt_dx_rinv, -1)
  omega = lower - _h(lower)
  eye = jnp.eye(n, dtype=x.dtype)
  # The diagonal of Omega is imaginary for complex inputs.
  omega = omega + eye * (qt_dx_rinv - jnp.real(qt_dx_rinv).astype(x.dtype))
  dq = _mm(q, omega - qt_dx_rinv) + dx_rinv
  dr = _mm(qt_dx_rinv - omega, r)
  return [q, r], [dq, dr]


ad.jvp_rules[qr_p] = _qr_jvp
batching.batch_rules[qr_p] = _batch_first_rule(qr_p)
hlo.lowering_rules[qr_p] = hlo.lower_fun(_qr_impl, multiple_results=True)


# ----------------------------------------------------------------------------- eigh


def _eigh_abstract_eval(x, *, lower, sort_eigenvalues):
  _check_matrix("eigh", x, square=True)
  n = x.shape[-1]
  return [ShapedArray(x.shape, x.dtype), ShapedArray(x.shape[:-2] + (n,), _real_dtype(x.dtype))]


eigh_p = standard_primitive("eigh", _eigh_abstract_eval, multiple_results=True)


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index=None, implementation=None):
  """Eigenvectors (as columns) and ascending eigenvalues of Hermitian matrices: (v, w).

  `implementation` (an EighImplementation) may be None or QR: the CPU kernel is syevd.
  """
  if implementation is not None and getattr(implementation, "value", implementation) != "qr":
    raise NotImplementedError(f"eigh implementation {implementation} is not supported by the "
                              "CPU backend")
  if subset_by_index is not None:
    raise NotImplementedError("eigh with subset_by_index is not supported by the CPU backend")
  x = _jnp().asarray(x)
  if symmetrize_input:
    x = _symmetrize(x)
  v, w = eigh_p.bind(x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues))
  return v, w


def _eigh_impl(x, *, lower, sort_eigenvalues):
  del sort_eigenvalues  # syevd returns the eigenvalues in ascending order anyway
  n = x.shape[-1]
  v, w, info = _lapack_call(
      "heevd" if dtypes.issubdtype(x.dtype, np.complexfloating) else "syevd", [x],
      [(x.shape, x.dtype), (x.shape[:-2] + (n,), _real_dtype(x.dtype)), (x.shape[:-2], np.int32)],
      attributes=[("mode", ord("V")), ("uplo", ord("L" if lower else "U"))])
  ok = info == 0
  return [_nan_unless(ok, v), _nan_unless(ok, w)]


def _eigh_jvp(primals, tangents, *, lower, sort_eigenvalues):
  # dw = real(diag(V^H dA V)); dV = V (F o V^H dA V), F_ij = 1 / (w_j - w_i) off the diagonal.
  (x,), (x_dot,) = primals, tangents
  jnp = _jnp()
  v, w = eigh_p.bind(x, lower=lower, sort_eigenvalues=sort_eigenvalues)
  n = x.shape[-1]
  eye = jnp.eye(n, dtype=x.dtype)
  wc = w.astype(x.dtype)
  f = 1 / (eye + wc[..., None, :] - wc[..., :, None]) - eye
  vdag_adot_v = _mm(_mm(_h(v), x_dot), v)
  dv = _mm(v, f * vdag_adot_v)
  dw = jnp.real(jnp.diagonal(vdag_adot_v, axis1=-2, axis2=-1)).astype(w.dtype)
  return [v, w], [dv, dw]


ad.jvp_rules[eigh_p] = _eigh_jvp
batching.batch_rules[eigh_p] = _batch_first_rule(eigh_p)
hlo.lowering_rules[eigh_p] = hlo.lower_fun(_eigh_impl, multiple_results=True)


# ----------------------------------------------------------------------------- svd


def _svd_shapes(shape, full_matrices):
  *batch, m, n = shape
  k = min(m, n)
  u_cols, vt_rows = (m, n) if full_matrices else (k, k)
  return tuple(batch) + (k,), tuple(batch) + (m, u_cols), tuple(batch) + (vt_rows, n)


def _svd_abstract_eval(x, *, full_matrices, compute_uv):
  _check_matrix("svd", x)
  s_shape, u_shape, vt_shape = _svd_shapes(x.shape, full_matrices)
  s = ShapedArray(s_shape, _real_dtype(x.dtype))
  if not compute_uv:
    return [s]
  return [s, ShapedArray(u_shape, x.dtype), ShapedArray(vt_shape, x.dtype)]


svd_p = standard_primitive("svd", _svd_abstract_eval, multiple_results=True)


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm=None):
  """Singular values (descending) and, with compute_uv, (u, s, vh) with x = u diag(s) vh."""
  if subset_by_index is not None:
    raise NotImplementedError("svd with subset_by_index is not supported by the CPU backend")
  out = svd_p.bind(_jnp().asarray(x), full_matrices=bool(full_matrices),
                   compute_uv=bool(compute_uv))
  if compute_uv:
    s, u, vt = out
    return u, s, vt
  return out[0]


def _svd_impl(x, *, full_matrices, compute_uv):
  m, n = x.shape[-2:]
  mode = ("A" if full_matrices else "S") if compute_uv else "N"
  s_shape, u_shape, vt_shape = _svd_shapes(x.shape, full_matrices or not compute_uv)
  real = _real_dtype(x.dtype)
  _, s, u, vt, info = _lapack_call(
      "gesdd", [x], [(x.shape, x.dtype), (s_shape, real), (u_shape, x.dtype),
                     (vt_shape, x.dtype), (x.shape[:-2], np.int32)],
      attributes=[("mode", ord(mode))])
  ok = info == 0
  if not compute_uv:
    return [_nan_unless(ok, s)]
  return [_nan_unless(ok, s), _nan_unless(ok, u), _nan_unless(ok, vt)]


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv):
  # Townsend, "Differentiating the singular value decomposition" (2016), with the
  # (I - U U^H) and (I - V V^H) terms for rectangular matrices.
  (a,), (da,) = primals, tangents
  jnp = _jnp()
  if compute_uv and full_matrices:
    raise NotImplementedError(
        "Singular value decomposition JVP not implemented for full matrices")
  s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True)
  v, ut = _h(vt), _h(u)
  s_dim = s[..., None, :].astype(a.dtype)
  ds_mat = _mm(_mm(ut, da), v)
  ds = jnp.real(jnp.diagonal(ds_mat, axis1=-2, axis2=-1)).astype(s.dtype)
  if not compute_uv:
    return [s], [ds]
  k = s.shape[-1]
  eye = jnp.eye(k, dtype=a.dtype)
  s_diffs = (s_dim + jnp.swapaxes(s_dim, -1, -2)) * (s_dim - jnp.swapaxes(s_dim, -1, -2))
  f = 1 / (s_diffs + eye) - eye
  dss = ds_mat * s_dim
  sds = jnp.swapaxes(s_dim, -1, -2) * ds_mat
  s_zero = (s == 0).astype(a.dtype)
  s_inv = 1 / (s.astype(a.dtype) + s_zero) - s_zero
  # The imaginary diagonal of U^H dU for complex inputs.
  du_dv_diag = 0.5 * (ds_mat - _h(ds_mat)) * (eye * s_inv[..., None, :])
  du = _mm(u, f * (dss + _h(dss)) + du_dv_diag)
  dv = _mm(v, f * (sds + _h(sds)))
  m, n = a.shape[-2:]
  if m > k:
    dav = _mm(da, v)
    du = du + (dav - _mm(u, _mm(ut, dav))) / s_dim
  if n > k:
    dahu = _mm(_h(da), u)
    dv = dv + (dahu - _mm(v, _mm(vt, dahu))) / s_dim
  return [s, u, vt], [ds, du, _h(dv)]


ad.jvp_rules[svd_p] = _svd_jvp
batching.batch_rules[svd_p] = _batch_first_rule(svd_p)
hlo.lowering_rules[svd_p] = hlo.lower_fun(_svd_impl, multiple_results=True)
