"""jax.scipy.optimize.minimize: BFGS with a strong-Wolfe line search, in lax.while_loop.

The whole minimisation is one traced loop, so it runs under jit and vmap; the
result is an OptimizeResults named tuple as in JAX.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from jax._src.numpy import linalg as jnp_linalg
from jax._src.numpy import namespace as jnp
from jax._src.lax import namespace as lax
from jax._src.api import value_and_grad

# Status codes of OptimizeResults.status.
_CONVERGED, _MAXITER, _LINE_SEARCH_FAILED, _NOT_FINITE = 0, 1, 3, 5


class OptimizeResults(NamedTuple):
  """Outcome of minimize: the point, its value and gradient, and the BFGS state."""
  x: Any
  success: Any
  status: Any
  fun: Any
  jac: Any
  hess_inv: Any
  nfev: Any
  njev: Any
  nit: Any


class _LineSearch(NamedTuple):
  alpha: Any
  f: Any
  g: Any
  ok: Any
  nfev: Any


def _line_search(fg, x, f0, g0, p, c1=1e-4, c2=0.9, maxiter=20):
  """Strong-Wolfe step along p: bracket by doubling, then bisect the bracket (zoom)."""
  d0 = jnp.vdot(g0, p)

  def probe(alpha):
    f, g = fg(x + alpha * p)
    return f, g, jnp.vdot(g, p)

  def cond(s):
    return (~s[0]) & (s[1] < maxiter)

  def body(s):
    done, it, lo, hi, best = s
    alpha = jnp.where(jnp.isfinite(hi), 0.5 * (lo + hi), jnp.where(it == 0, 1.0, 2.0 * lo))
    f, g, d = probe(alpha)
    armijo = (f <= f0 + c1 * alpha * d0) & jnp.isfinite(f)
    curvature = jnp.abs(d) <= c2 * jnp.abs(d0)
    accept = armijo & curvature
    # Too long (Armijo fails) or past a minimum along p (slope turned up): shrink from above.
    shrink = (~armijo) | (d >= 0)
    new_lo = jnp.where(accept | shrink, lo, alpha)
    new_hi = jnp.where(shrink & ~accept, alpha, hi)
    best = lax.cond(accept | (armijo & (f < best.f)),
                    lambda: _LineSearch(alpha, f, g, armijo | best.ok, best.nfev + 1),
                    lambda: best._replace(nfev=best.nfev + 1))
    return accept, it + 1, new_lo, new_hi, best

  zero = jnp.zeros((), d0.dtype)
  start = _LineSearch(zero, f0, g0, jnp.array(False), jnp.array(0))
  init = (jnp.array(False), jnp.array(0), zero, jnp.full((), jnp.inf, d0.dtype), start)
  done, _, _, _, best = lax.while_loop(cond, body, init)
  return best._replace(ok=done | best.ok)


class _State(NamedTuple):
  k: Any
  nfev: Any
  converged: Any
  failed: Any
  x: Any
  f: Any
  g: Any
  h: Any


def _bfgs(fun, x0, maxiter, gtol, norm, line_search_maxiter):
  fg = value_and_grad(fun)
  f0, g0 = fg(x0)
  n = x0.shape[0]
  eye = jnp.eye(n, dtype=x0.dtype)

  def gnorm(g):
    return jnp_linalg.norm(g, ord=norm)

  def cond(s):
    return (~s.converged) & (~s.failed) & (s.k < maxiter)

  def body(s):
    p = -(s.h @ s.g)
    ls = _line_search(fg, s.x, s.f, s.g, p, maxiter=line_search_maxiter)
    step = ls.alpha * p
    x_new = s.x + step
    y = ls.g - s.g
    sy = jnp.vdot(y, step)
    rho = jnp.where(sy > 0, 1.0 / jnp.where(sy > 0, sy, 1.0), 0.0)
    a = eye - rho * jnp.outer(step, y)
    # Inverse-Hessian update, skipped (rho = 0 keeps h) when the curvature condition fails.
    h_new = jnp.where(sy > 0, a @ s.h @ a.T + rho * jnp.outer(step, step), s.h)
    return _State(k=s.k + 1, nfev=s.nfev + ls.nfev, converged=gnorm(ls.g) < gtol,
                  failed=~ls.ok, x=jnp.where(ls.ok, x_new, s.x),
                  f=jnp.where(ls.ok, ls.f, s.f), g=jnp.where(ls.ok, ls.g, s.g),
                  h=jnp.where(ls.ok, h_new, s.h))

  init = _State(k=jnp.array(0), nfev=jnp.array(1), converged=gnorm(g0) < gtol,
                failed=jnp.array(False), x=x0, f=f0, g=g0, h=eye)
  s = lax.while_loop(cond, body, init)
  status = jnp.where(s.converged, _CONVERGED,
                     jnp.where(s.failed, _LINE_SEARCH_FAILED, _MAXITER))
  status = jnp.where(jnp.isfinite(s.f), status, _NOT_FINITE)
  return OptimizeResults(x=s.x, success=s.converged, status=status, fun=s.f, jac=s.g,
                         hess_inv=s.h, nfev=s.nfev, njev=s.nfev, nit=s.k)


def minimize(fun: Callable, x0, args: tuple = (), *, method: str, tol: float | None = None,
             options: dict | None = None) -> OptimizeResults:
  """Minimise fun(x, *args) over a 1-D x starting at x0; method must be 'BFGS'."""
  if not isinstance(args, tuple):
    raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")
  if method.lower() != "bfgs":
    raise ValueError(f"Method {method} not recognized")
  options = dict(options or {})
  x0 = jnp.asarray(x0)
  if x0.ndim != 1:
    raise ValueError(f"x0 must be one-dimensional, got shape {x0.shape}")
  if not jnp.issubdtype(x0.dtype, jnp.floating):
    x0 = x0.astype(jnp.result_type(x0, 1.0))
  maxiter = options.pop("maxiter", None)
  maxiter = x0.shape[0] * 200 if maxiter is None else maxiter
  gtol = options.pop("gtol", 1e-5 if tol is None else tol)
  norm = options.pop("norm", jnp.inf)
  line_search_maxiter = options.pop("line_search_maxiter", 20)
  if options:
    raise TypeError(f"Unexpected options for BFGS: {sorted(options)}")
  return _bfgs(lambda x: fun(x, *args), x0, maxiter, gtol, norm, line_search_maxiter)
