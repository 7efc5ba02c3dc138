"""`odeint`: adaptive Dormand-Prince (RK45) integration of dy/dt = func(y, t, *args).

Steps are chosen from the embedded 4th/5th-order error estimate; values at the
requested times come from the 4th-order dense-output polynomial of the step that
covers them. Reverse-mode derivatives solve the adjoint system backwards in time
(memory independent of the number of steps), with respect to y0, t and args.
"""

from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from jax._src import api
from jax._src import core
from jax._src import custom_derivatives
from jax._src.flatten_util import ravel_pytree
from jax._src.lax import control_flow
from jax._src.numpy.util import promote_dtypes_inexact
from jax._src.tree_util import tree_leaves, tree_map
from jax._src.util import safe_map, safe_zip
from jax._src.numpy import namespace as jnp

map = safe_map  # noqa: A001 (JAX's module exposes its strict map and zip under these names)
zip = safe_zip  # noqa: A001


def ravel_first_arg(f: Callable, unravel: Callable, debug_info=None) -> Callable:
  """`f(y, *args)` over a pytree `y` as a function of its flat vector, returning a flat vector."""
  del debug_info

  def flat_f(y_flat, *args):
    out, _ = ravel_pytree(f(unravel(y_flat), *args))
    return out
  return flat_f


def abs2(x):
  """|x|^2, also for complex x."""
  if jnp.iscomplexobj(x):
    return x.real ** 2 + x.imag ** 2
  return x ** 2


# The Dormand-Prince 5(4) tableau: nodes, stage weights, 5th-order solution weights,
# (5th - 4th)-order error weights and Shampine's weights for the value at mid-step.
_NODES = np.array([0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1., 1.])
_STAGES = [
    np.array([1 / 5]),
    np.array([3 / 40, 9 / 40]),
    np.array([44 / 45, -56 / 15, 32 / 9]),
    np.array([19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729]),
    np.array([9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656]),
    np.array([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]),
]
_SOLUTION = np.array([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0])
_ERROR = _SOLUTION - np.array([5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200,
                               187 / 2100, 1 / 40])
_MID = 0.5 * np.array([6025192743 / 30085553152, 0, 51252292925 / 65400821598,
                       -2691868925 / 45128329728, 187940372067 / 1594534317056,
                       -1776094331 / 19743644256, 11237099 / 235043384])


def fit_4th_order_polynomial(y0, y1, y_mid, dy0, dy1, dt):
  """Coefficients (highest power first) of the quartic p on [0, 1] with p(0)=y0, p(1)=y1,
  p(1/2)=y_mid, p'(0)=dt*dy0, p'(1)=dt*dy1."""
  d = dt * dy0
  a_sum = y1 - y0 - d          # a + b + c
  slope = dt * dy1 - d         # 4a + 3b + 2c
  mid = y_mid - y0 - d / 2     # a/16 + b/8 + c/4
  a = 16 * mid - 8 * a_sum + 2 * slope
  b = slope - 2 * a_sum - 2 * a
  c = a_sum - a - b
  return jnp.stack([a, b, c, d, y0])


def interp_fit_dopri(y0, y1, k, dt):
  """The dense-output quartic of one Dormand-Prince step (`k`: its 7 stage derivatives)."""
  dt = dt.astype(y0.dtype)
  y_mid = y0 + dt * jnp.dot(jnp.asarray(_MID, k.dtype), k)
  return fit_4th_order_polynomial(y0, y1, y_mid, k[0], k[-1], dt)


def _rms(x):
  return jnp.sqrt(jnp.mean(abs2(x)))


def initial_step_size(fun, t0, y0, order, rtol, atol, f0):
  """A first step from the size of y0 and of its first two derivatives (Hairer, Norsett and
  Wanner, Solving ODEs I, section II.4)."""
  scale = atol + jnp.abs(y0) * rtol
  d0, d1 = _rms(y0 / scale), _rms(f0 / scale)
  h0 = jnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
  f1 = fun(y0 + h0 * f0, t0 + h0)
  d2 = _rms((f1 - f0) / scale) / h0
  h1 = jnp.where((d1 <= 1e-15) & (d2 <= 1e-15), jnp.maximum(1e-6, h0 * 1e-3),
                 (0.01 / jnp.maximum(d1, d2)) ** (1. / (order + 1.)))
  return jnp.minimum(100. * h0, h1)


def runge_kutta_step(func, y0, f0, t0, dt):
  """One Dormand-Prince step: (y1, f1 = func(y1, t0+dt), the error estimate, the stages)."""
  dtype = y0.dtype
  k = [f0]
  for i, weights in enumerate(_STAGES, start=1):
    y_i = y0 + dt.astype(dtype) * jnp.dot(jnp.asarray(weights, dtype), jnp.stack(k))
    k.append(func(y_i, t0 + dt * _NODES[i]))
  k = jnp.stack(k)
  y1 = dt.astype(dtype) * jnp.dot(jnp.asarray(_SOLUTION, dtype), k) + y0
  error = dt.astype(dtype) * jnp.dot(jnp.asarray(_ERROR, dtype), k)
  return y1, k[-1], error, k


def mean_error_ratio(error_estimate, rtol, atol, y0, y1):
  """The mean squared ratio of the error estimate to the tolerance (a step passes at <= 1)."""
  tol = atol + rtol * jnp.maximum(jnp.abs(y0), jnp.abs(y1))
  return jnp.mean(abs2(error_estimate / tol))


def optimal_step_size(last_step, mean_error_ratio, safety=0.9, ifactor=10.0, dfactor=0.2,
                      order=5.0):
  """The next step size: grown or shrunk by how far the error was from the tolerance."""
  # mean_error_ratio is a squared RMS, so the error scales as its square root ~ h**order.
  shrink_limit = jnp.where(mean_error_ratio < 1, 1.0, dfactor)
  ratio = jnp.where(mean_error_ratio == 0, 1., mean_error_ratio)
  factor = safety * ratio ** (-1. / (2. * order))
  factor = jnp.minimum(ifactor, jnp.maximum(factor, shrink_limit))
  return jnp.where(mean_error_ratio == 0, last_step * ifactor, last_step * factor)


def _check_args(args) -> None:
  for arg in tree_leaves(args):
    if not (isinstance(arg, core.Tracer) or hasattr(arg, "dtype")
            or isinstance(arg, (bool, int, float, complex))):
      raise TypeError("The contents of odeint *args must be arrays or scalars, but got "
                      f"{arg!r}.")


def odeint(func, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=jnp.inf, hmax=jnp.inf):
  """Solve dy/dt = func(y, t, *args) from y(t[0]) = y0; returns y at every time of `t`.

  `y0` may be a pytree of arrays; the result has the same structure with a leading axis
  of len(t). `t` must be increasing. Differentiable (reverse mode, by the adjoint
  method) with respect to y0, t and args; works under jit and vmap.
  """
  _check_args(args)
  t = jnp.asarray(t)
  if t.ndim != 1:
    raise ValueError(f"odeint expects t to be a 1-D array of times, got shape {t.shape}")
  converted, consts = api.closure_convert(func, y0, t[0], *args)
  return _odeint_wrapper(converted, rtol, atol, mxstep, hmax, y0, t, *args, *consts)


@functools.partial(api.jit, static_argnums=(0, 1, 2, 3, 4))
def _odeint_wrapper(func, rtol, atol, mxstep, hmax, y0, ts, *args):
  y0, unravel = ravel_pytree(y0)
  func = ravel_first_arg(func, unravel)
  out = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
  return api.vmap(unravel)(out)


def _interpolate(coeffs, s):
  out = coeffs[0]
  for c in coeffs[1:]:
    out = out * s + c
  return out


@functools.partial(custom_derivatives.custom_vjp, nondiff_argnums=(0, 1, 2, 3, 4))
def _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args):
  y0, ts = y0, ts
  (y0,) = promote_dtypes_inexact(y0)
  time_dtype = jnp.result_type(ts.dtype, float)
  ts = ts.astype(time_dtype)
  func_ = lambda y, t: func(y, t, *args)
  f0 = func_(y0, ts[0])
  dt = jnp.clip(initial_step_size(func_, ts[0], y0, 4, rtol, atol, f0), 0., hmax)
  dt = dt.astype(time_dtype)
  coeffs = jnp.array([y0] * 5)

  def step(state):
    i, y, f, t, dt, last_t, coeffs = state
    next_y, next_f, error, k = runge_kutta_step(func_, y, f, t, dt)
    ratio = mean_error_ratio(error, rtol, atol, y, next_y)
    new_coeffs = interp_fit_dopri(y, next_y, k, dt)
    next_dt = jnp.clip(optimal_step_size(dt, ratio), 0., hmax).astype(time_dtype)
    accept = ratio <= 1.
    taken = [i + 1, next_y, next_f, t + dt, next_dt, t, new_coeffs]
    kept = [i + 1, y, f, t, next_dt, last_t, coeffs]
    return [jnp.where(accept, a, b) for a, b in zip(taken, kept)]

  def to_time(carry, target_t):
    def more(state):
      i, _, _, t, dt, _, _ = state
      return (t < target_t) & (i < mxstep) & (dt > 0)
    state = control_flow.while_loop(more, step, [0] + list(carry))
    _, y, f, t, dt, last_t, coeffs = state
    s = ((target_t - last_t) / (t - last_t)).astype(y.dtype)
    return [y, f, t, dt, last_t, coeffs], _interpolate(coeffs, s)

  _, ys = control_flow.scan(to_time, [y0, f0, ts[0], dt, ts[0], coeffs], ts[1:])
  return jnp.concatenate([y0[None], ys])


def _odeint_fwd(func, rtol, atol, mxstep, hmax, y0, ts, *args):
  ys = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
  return ys, (ys, ts, args)


def _odeint_rev(func, rtol, atol, mxstep, hmax, res, g):
  ys, ts, args = res

  # The adjoint system in reversed time s = -t: y runs backwards, the cotangent of y
  # follows a' = a^T df/dy, and the cotangents of args accumulate a^T df/dargs.
  def aug_dynamics(state, s, *args):
    y, y_bar, *_ = state
    y_dot, pullback = api.vjp(lambda y_, *a: func(y_, -s, *a), y, *args)
    return (-y_dot, *pullback(y_bar))

  args_bar = tree_map(jnp.zeros_like, args)

  def back_one(carry, i):
    y_bar, args_bar = carry
    t_bar = jnp.dot(func(ys[i], ts[i], *args), g[i])
    state = (ys[i], y_bar, *args_bar)
    flat, unravel = ravel_pytree(state)
    flat_dyn = ravel_first_arg(aug_dynamics, unravel)
    out = _odeint(flat_dyn, rtol, atol, mxstep, hmax, flat,
                  jnp.stack([-ts[i], -ts[i - 1]]), *args)
    _, y_bar, *args_bar = unravel(out[-1])
    return (y_bar + g[i - 1], tuple(args_bar)), t_bar

  (y_bar, args_bar), rev_ts_bar = control_flow.scan(
      back_one, (g[-1], tuple(args_bar)), jnp.arange(len(ts) - 1, 0, -1))
  # Moving t0 moves where y0 is imposed: dL/dt0 = -a(t0) . f(y0, t0), with a(t0) the
  # adjoint before the direct cotangent of ys[0] is added.
  t0_bar = -jnp.dot(func(ys[0], ts[0], *args), y_bar - g[0])
  ts_bar = jnp.concatenate([t0_bar[None], rev_ts_bar[::-1]]).astype(ts.dtype)
  return (y_bar, ts_bar, *args_bar)


_odeint.defvjp(_odeint_fwd, _odeint_rev)
