"""`jax.test_util`: derivatives checked against finite differences, as JAX checks them.

`check_jvp` compares a JVP with central differences along one random tangent;
`check_vjp` checks a VJP through <t, vjp(ct)> == <jvp(t), ct> for a random tangent t
and cotangent ct. `check_grads` runs them up to `order`: the next order of "fwd" checks
`jvp(f)` itself, of "rev" the function x -> vjp(f)(f(x)), of "lin" the JVP built from
`linearize`. Tolerances follow the dtype of the values compared (float32 2e-3, float64
1e-5, bfloat16 1e-1, ...), times their number of elements; an `atol`/`rtol` given as a
number, or as a {dtype: tolerance} dict over those defaults, replaces them. Finite
differences are taken in the arguments' own types (a Python float stays one).
"""

from __future__ import annotations

import functools
import operator

import ml_dtypes
import numpy as np

from jax._src import api
from jax._src import dtypes
from jax._src import tree_util
from jax._src.config import enable_x64

EPS = 1e-4

_FLOAT8 = [np.dtype(getattr(ml_dtypes, n)) for n in (
    "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz")]
_COARSE = [np.dtype(ml_dtypes.float4_e2m1fn), np.dtype(ml_dtypes.float8_e8m0fnu)]
_NARROW_INTS = [np.dtype(getattr(ml_dtypes, n)) for n in ("int2", "int4", "uint2", "uint4")]

# What two values of a dtype may differ by in a gradient check...
_GRADIENT_TOL = {
    **{dt: 1e-1 for dt in _FLOAT8}, **{dt: 1e0 for dt in _COARSE},
    np.dtype(dtypes.bfloat16): 1e-1, np.dtype(np.float16): 1e-2, np.dtype(np.float32): 2e-3,
    np.dtype(np.float64): 1e-5, np.dtype(np.complex64): 1e-3, np.dtype(np.complex128): 1e-5,
}
# ... and, for a dtype a tolerance dict leaves out, in any comparison.
_DEFAULT_TOL = {
    **{np.dtype(t): 0 for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                np.uint16, np.uint32, np.uint64)},
    **{dt: 0 for dt in _NARROW_INTS}, dtypes.float0: 0,
    **{dt: 1e-1 for dt in _FLOAT8}, **{dt: 1e0 for dt in _COARSE},
    np.dtype(dtypes.bfloat16): 1e-2, np.dtype(np.float16): 1e-3, np.dtype(np.float32): 1e-6,
    np.dtype(np.float64): 1e-15, np.dtype(np.complex64): 1e-6, np.dtype(np.complex128): 1e-15,
}

_PYTHON_SCALAR_DTYPES = {bool: np.dtype(np.bool_), int: np.dtype(np.int64),
                         float: np.dtype(np.float64), complex: np.dtype(np.complex128)}


def _dtype(x) -> np.dtype:
  if hasattr(x, "dtype"):
    return x.dtype
  dt = _PYTHON_SCALAR_DTYPES.get(type(x))
  return dt if dt is not None else np.asarray(x).dtype


def _is_python_scalar(x) -> bool:
  return not isinstance(x, np.generic) and isinstance(x, (bool, int, float, complex))


def _tolerance(dtype, tol) -> float:
  """The tolerance for values of `dtype`: `tol` itself when it is a number."""
  if tol is not None and not isinstance(tol, dict):
    return tol
  given = {np.dtype(k): v for k, v in (tol or {}).items()}
  dtype = dtypes.canonicalize_dtype(np.dtype(dtype))
  return given.get(dtype, _DEFAULT_TOL.get(dtype, 0))


def _with_gradient_defaults(tol):
  if tol is None:
    return dict(_GRADIENT_TOL)
  if not isinstance(tol, dict):
    return tol
  return {**_GRADIENT_TOL, **{np.dtype(k): v for k, v in tol.items()}}


def _comparable(x: np.ndarray) -> np.ndarray:
  """Narrow floats as float32 and 2/4-bit integers as 8-bit ones, which NumPy compares."""
  if x.dtype in _FLOAT8 or x.dtype in _COARSE or x.dtype == dtypes.bfloat16:
    return x.astype(np.float32)
  if x.dtype in _NARROW_INTS:
    return x.astype(np.int8 if ml_dtypes.iinfo(x.dtype).min < 0 else np.uint8)
  return x


def _assert_close(a, b, atol, rtol, err_msg: str) -> None:
  a, b = np.asarray(a), np.asarray(b)
  assert a.shape == b.shape, f"{err_msg}: shapes {a.shape} and {b.shape} differ"
  if a.dtype == b.dtype == dtypes.float0:
    np.testing.assert_array_equal(a, b, err_msg=err_msg)
    return
  atol = max(_tolerance(a.dtype, atol), _tolerance(b.dtype, atol)) * a.size
  rtol = max(_tolerance(a.dtype, rtol), _tolerance(b.dtype, rtol)) * b.size
  # A zero tolerance leaves NumPy's own default in place.
  kw = {k: v for k, v in (("atol", atol), ("rtol", rtol)) if v}
  with np.errstate(invalid="ignore"):
    np.testing.assert_allclose(_comparable(a), _comparable(b), **kw, err_msg=err_msg)


def _check_close(xs, ys, atol, rtol, err_msg: str) -> None:
  tree_util.tree_map(functools.partial(_assert_close, atol=atol, rtol=rtol, err_msg=err_msg),
                     xs, ys)


def _check_dtypes_match(xs, ys) -> None:
  def same(x, y):
    dx, dy = _dtype(x), _dtype(y)
    if not enable_x64():
      dx, dy = dtypes.canonicalize_dtype(dx), dtypes.canonicalize_dtype(dy)
    assert dx == dy, f"dtypes differ: {dx} and {dy}"
  tree_util.tree_map(same, xs, ys)


def _in_own_type(op):
  """`op` elementwise, with the result in its first operand's type (a Python scalar for
  Python scalars)."""
  def apply(*xs):
    out = np.array(op(*xs), dtype=_dtype(xs[0]))
    return out.item() if all(_is_python_scalar(x) for x in xs) else out
  return functools.partial(tree_util.tree_map, apply)


_add = _in_own_type(operator.add)
_sub = _in_own_type(operator.sub)
_conj = _in_own_type(np.conj)


def _safe_sub(xs, ys):
  """x - y with inf - inf == 0, in the type of x."""
  def sub(x, y):
    dtype = _dtype(x)
    with np.errstate(invalid="ignore"):
      return np.where(np.equal(x, y), np.array(0, dtype), np.subtract(x, y, dtype=dtype))
  return tree_util.tree_map(sub, xs, ys)


def _scale(xs, a):
  def mul(x):
    dtype = _dtype(x)
    out = np.multiply(x, np.array(a, dtype=dtype), dtype=dtype)
    return out.item() if _is_python_scalar(x) else out
  return tree_util.tree_map(mul, xs)


def _rand_like(rng, x):
  dtype, shape = _dtype(x), np.shape(x)
  out = np.asarray(rng.randn(*shape), dtype=dtype)
  if dtypes.issubdtype(dtype, np.complexfloating):
    out = out + dtype.type(1j) * np.asarray(rng.randn(*shape), dtype=dtype)
  return out.item() if _is_python_scalar(x) else out


def _inner(xs, ys):
  def contract(x, y):
    return np.real(np.dot(np.conj(x).reshape(-1), np.asarray(y).reshape(-1)))
  return tree_util.tree_reduce(np.add, tree_util.tree_map(contract, xs, ys))


def numerical_jvp(f, primals, tangents, eps=EPS):
  """Central differences of `f` at `primals` along `tangents`."""
  step = _scale(tangents, eps)
  up, down = f(*_add(primals, step)), f(*_sub(primals, step))
  return _scale(_safe_sub(up, down), 0.5 / eps)


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg: str = "") -> None:
  """Assert `f_jvp(args, tangents)` matches central differences of `f` at `args`."""
  atol, rtol = _with_gradient_defaults(atol), _with_gradient_defaults(rtol)
  tangents = tree_util.tree_map(functools.partial(_rand_like, np.random.RandomState(0)), args)
  v_out, t_out = f_jvp(args, tangents)
  _check_dtypes_match(v_out, t_out)
  v_expected = f(*args)
  _check_dtypes_match(v_out, v_expected)
  t_expected = numerical_jvp(f, args, tangents, eps=eps)
  _check_close(v_out, v_expected, atol, rtol, f"{err_msg} primal" if err_msg else "primal")
  _check_close(t_out, t_expected, atol, rtol, f"{err_msg} tangent" if err_msg else "tangent")


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg: str = "") -> None:
  """Assert `f_vjp` is the adjoint of the numerical JVP of `f` along random directions."""
  atol, rtol = _with_gradient_defaults(atol), _with_gradient_defaults(rtol)
  rand = functools.partial(_rand_like, np.random.RandomState(0))
  v_out, vjp_fun = f_vjp(*args)
  _check_close(v_out, f(*args), atol, rtol, f"{err_msg} primal" if err_msg else "primal")
  tangents = tree_util.tree_map(rand, args)
  t_out = numerical_jvp(f, args, tangents, eps=eps)
  cotangents = tree_util.tree_map(rand, v_out)
  ct_in = _conj(vjp_fun(_conj(cotangents)))
  _check_close(_inner(tangents, ct_in), _inner(t_out, cotangents), atol, rtol,
               f"{err_msg} cotangent projection" if err_msg else "cotangent projection")


_MODES = ("fwd", "rev", "lin")


def check_grads(f, args, order: int, modes=("fwd", "rev"), atol=None, rtol=None,
                eps=None) -> None:
  """Check the derivatives of `f` at `args` up to `order` in `modes` ("fwd", "rev",
  "lin") against finite differences."""
  args = tuple(args)
  eps = eps or EPS
  unknown = [m for m in modes if m not in _MODES]
  if unknown:
    raise ValueError(f"Unrecognized mode: {unknown[0]} (modes are {', '.join(_MODES)})")
  jvp_check = functools.partial(check_jvp, atol=atol, rtol=rtol, eps=eps)
  vjp_check = functools.partial(check_vjp, atol=atol, rtol=rtol, eps=eps)

  def check(fun, fun_args, order_left, what):
    if "fwd" in modes:
      msg = f"JVP of {what}" if what else "JVP"
      jvp_check(fun, functools.partial(api.jvp, fun), fun_args, err_msg=msg)
      if order_left > 1:
        check(functools.partial(api.jvp, fun), (fun_args, fun_args), order_left - 1, msg)
    if "rev" in modes:
      msg = f"VJP of {what}" if what else "VJP"
      vjp_check(fun, functools.partial(api.vjp, fun), fun_args, err_msg=msg)
      if order_left > 1:
        def vjp_at_output(*xs, fun=fun):
          out, pullback = api.vjp(fun, *xs)
          return pullback(out)
        check(vjp_at_output, fun_args, order_left - 1, msg)
    if "lin" in modes:
      msg = f"LIN of {what}" if what else "LIN"
      jvp_check(fun, functools.partial(_jvp_from_linearize, fun), fun_args, err_msg=msg)
      if order_left > 1:
        check(functools.partial(_jvp_from_linearize, fun), (fun_args, fun_args),
              order_left - 1, msg)

  check(f, args, order, "")


def _jvp_from_linearize(f, primals, tangents):
  out, f_lin = api.linearize(f, *primals)
  return out, f_lin(*tangents)
