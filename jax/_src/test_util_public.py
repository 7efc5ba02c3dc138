"""`jax.test_util`: check derivatives against finite differences.

`check_jvp` compares a JVP with central differences along random tangents;
`check_vjp` checks that a VJP is the adjoint of the (numerical) JVP:
<vjp(ct), t> == <ct, jvp(t)> for random t and ct. `check_grads` applies both up
to the given order, in forward ("fwd") and/or reverse ("rev") mode.
"""

from __future__ import annotations

import functools

import numpy as np

from jax._src import api
from jax._src import dtypes
from jax._src import tree_util

EPS = 1e-4

_GRAD_TOL = {np.dtype(np.float16): 1e-2, dtypes.bfloat16: 1e-1, np.dtype(np.float32): 2e-3,
             np.dtype(np.float64): 1e-5, np.dtype(np.complex64): 2e-3,
             np.dtype(np.complex128): 1e-5}


def _tol(tol, values) -> float:
  if tol is not None:
    return tol
  dts = [np.dtype(getattr(x, "dtype", np.float64)) for x in tree_util.tree_leaves(values)]
  return max([_GRAD_TOL.get(dt, 1e-5) for dt in dts] or [1e-5])


def _rand_like(rng, x):
  x = np.asarray(x)
  out = np.asarray(rng.randn(*x.shape))
  if np.iscomplexobj(x):
    out = out + 1j * rng.randn(*x.shape)
  return out.astype(x.dtype)


def _add(xs, ys, scale):
  return tree_util.tree_map(lambda x, y: np.asarray(x) + scale * np.asarray(y).astype(
      np.asarray(x).dtype), xs, ys)


def _inner(xs, ys) -> complex:
  return sum(np.vdot(np.asarray(y, np.complex128), np.asarray(x, np.complex128))
             for x, y in zip(tree_util.tree_leaves(xs), tree_util.tree_leaves(ys)))


def _numerical_jvp(f, primals, tangents, eps):
  up = f(*_add(primals, tangents, eps))
  down = f(*_add(primals, tangents, -eps))
  return tree_util.tree_map(
      lambda a, b: (np.asarray(a, np.float64 if not np.iscomplexobj(a) else np.complex128)
                    - np.asarray(b)) / (2 * eps), up, down)


def _check_close(a, b, atol, rtol, what: str):
  for x, y in zip(tree_util.tree_leaves(a), tree_util.tree_leaves(b)):
    np.testing.assert_allclose(np.asarray(x), np.asarray(y), atol=atol, rtol=rtol,
                               err_msg=f"{what} mismatch")


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg: str = "") -> None:
  """Assert `f_jvp(args, tangents)` matches central differences of `f`."""
  rng = np.random.RandomState(0)
  tangents = tree_util.tree_map(functools.partial(_rand_like, rng), args)
  v_out, t_out = f_jvp(args, tangents)
  _check_close(v_out, f(*args), _tol(atol, args), _tol(rtol, args), f"{err_msg} primal")
  numerical = _numerical_jvp(f, args, tangents, eps)
  _check_close(t_out, numerical, _tol(atol, args), _tol(rtol, args), f"{err_msg} tangent")


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg: str = "") -> None:
  """Assert `f_vjp` is the adjoint of the numerical JVP of `f` along random directions."""
  rng = np.random.RandomState(1)
  v_out, vjpfun = f_vjp(*args)
  _check_close(v_out, f(*args), _tol(atol, args), _tol(rtol, args), f"{err_msg} primal")
  tangents = tree_util.tree_map(functools.partial(_rand_like, rng), args)
  cotangent = tree_util.tree_map(functools.partial(_rand_like, rng), v_out)
  ct_in = vjpfun(cotangent)
  lhs = _inner(tangents, ct_in)
  rhs = _inner(_numerical_jvp(f, args, tangents, eps), cotangent)
  np.testing.assert_allclose(lhs, rhs, atol=_tol(atol, args), rtol=_tol(rtol, args),
                             err_msg=f"{err_msg} vjp is not the adjoint of the jvp")


def check_grads(f, args, order: int, modes=("fwd", "rev"), atol=None, rtol=None, eps=None
                ) -> None:
  """Check derivatives of `f` at `args` up to `order`, in the given modes."""
  args = tuple(args)
  eps = eps or EPS
  for mode in modes:
    if mode not in ("fwd", "rev"):
      raise ValueError(f"Unrecognized mode: {mode}")

  def _check(fun, order_left):
    if "fwd" in modes:
      check_jvp(fun, functools.partial(api.jvp, fun), args, atol, rtol, eps)
      if order_left > 1:
        _check(_directional(functools.partial(api.jvp, fun), args, "jvp"), order_left - 1)
    if "rev" in modes:
      check_vjp(fun, functools.partial(api.vjp, fun), args, atol, rtol, eps)
      if order_left > 1:
        _check(_directional_vjp(fun, args), order_left - 1)

  _check(f, order)


def _directional(f_jvp, args, _):
  rng = np.random.RandomState(2)
  tangents = tree_util.tree_map(functools.partial(_rand_like, rng), args)
  return lambda *xs: f_jvp(xs, tangents)[1]


def _directional_vjp(f, args):
  rng = np.random.RandomState(3)
  out = f(*args)
  ct = tree_util.tree_map(functools.partial(_rand_like, rng), out)

  def f_vjp_dir(*xs):
    _, vjpfun = api.vjp(f, *xs)
    return vjpfun(ct)

  return f_vjp_dir


