"""jax.scipy.sparse.linalg: Krylov solvers (cg, bicgstab, restarted gmres) for a
matrix or a linear function, each one lax.while_loop so they run under jit/vmap.

All stop once ||b - A x|| <= max(tol * ||b||, atol). Like JAX they return
(x, None): convergence is not reported.
"""

from __future__ import annotations

from jax._src.numpy import linalg as jnp_linalg
from jax._src.numpy import namespace as jnp
from jax._src.lax import namespace as lax


def _operator(a, name):
  if callable(a):
    return a
  a = jnp.asarray(a)
  if a.ndim != 2 or a.shape[0] != a.shape[1]:
    raise ValueError(f"{name}: A must be a square matrix or a function, got shape {a.shape}")
  return lambda x: jnp.tensordot(a, x, axes=1, precision=lax.Precision.HIGHEST)


def _setup(name, A, b, x0, M, maxiter):
  b = jnp.asarray(b)
  if not jnp.issubdtype(b.dtype, jnp.inexact):
    b = b.astype(jnp.result_type(b, 1.0))
  x0 = jnp.zeros_like(b) if x0 is None else jnp.asarray(x0, b.dtype)
  if x0.shape != b.shape:
    raise ValueError(f"{name}: x0 shape {x0.shape} does not match b shape {b.shape}")
  m = (lambda x: x) if M is None else _operator(M, name)
  maxiter = 10 * b.size if maxiter is None else maxiter
  return _operator(A, name), b, x0, m, maxiter


def _dot(x, y):
  return jnp.vdot(x, y)


def _norm(x):
  return jnp.sqrt(jnp.real(_dot(x, x)))


def _threshold(b, tol, atol):
  return jnp.maximum(tol * _norm(b), atol)


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
  """Conjugate gradients for Hermitian positive-definite A (M: preconditioner ~ A^-1)."""
  a, b, x0, m, maxiter = _setup("cg", A, b, x0, M, maxiter)
  stop = _threshold(b, tol, atol)
  r0 = b - a(x0)
  z0 = m(r0)

  def cond(s):
    _, r, _, _, _, k = s
    return (_norm(r) > stop) & (k < maxiter)

  def body(s):
    x, r, z, p, rz, k = s
    ap = a(p)
    alpha = rz / _dot(p, ap)
    x, r = x + alpha * p, r - alpha * ap
    z = m(r)
    rz_new = _dot(r, z)
    return x, r, z, z + (rz_new / rz) * p, rz_new, k + 1

  x = lax.while_loop(cond, body, (x0, r0, z0, z0, _dot(r0, z0), 0))[0]
  return x, None


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
  """Stabilised biconjugate gradients for general A."""
  a, b, x0, m, maxiter = _setup("bicgstab", A, b, x0, M, maxiter)
  stop = _threshold(b, tol, atol)
  r0 = b - a(x0)
  one = jnp.ones((), b.dtype)

  def cond(s):
    _, r, *_, k = s
    return (_norm(r) > stop) & (k < maxiter)

  def body(s):
    x, r, p, v, rho, alpha, omega, k = s
    rho_new = _dot(r0, r)
    beta = (rho_new / rho) * (alpha / omega)
    p = r + beta * (p - omega * v)
    phat = m(p)
    v = a(phat)
    alpha = rho_new / _dot(r0, v)
    s_vec = r - alpha * v
    shat = m(s_vec)
    t = a(shat)
    omega = _dot(t, s_vec) / _dot(t, t)
    # Converged on the half step: take it and stop (omega would divide by |t| = 0).
    half_done = _norm(s_vec) <= stop
    x = jnp.where(half_done, x + alpha * phat, x + alpha * phat + omega * shat)
    r = jnp.where(half_done, s_vec, s_vec - omega * t)
    return x, r, p, v, rho_new, alpha, omega, k + 1

  zeros = jnp.zeros_like(b)
  x = lax.while_loop(cond, body, (x0, r0, zeros, zeros, one, one, one, 0))[0]
  return x, None


def _arnoldi(a, m, v0, restart):
  """Orthonormal Krylov basis (restart + 1 vectors) and the Hessenberg matrix."""
  n = v0.shape[0]
  basis = jnp.zeros((restart + 1, n), v0.dtype).at[0].set(v0)
  h = jnp.zeros((restart + 1, restart), v0.dtype)

  def step(j, carry):
    basis, h = carry
    w = a(m(basis[j]))
    # Modified Gram-Schmidt against the vectors built so far (later rows are zero).
    def project(i, wh):
      w, col = wh
      c = jnp.where(i <= j, _dot(basis[i], w), 0)
      return w - c * basis[i], col.at[i].set(c)
    w, col = lax.fori_loop(0, restart + 1, project, (w, jnp.zeros((restart + 1,), v0.dtype)))
    norm = _norm(w)
    col = col.at[j + 1].set(norm)
    basis = basis.at[j + 1].set(jnp.where(norm > 0, w / jnp.where(norm > 0, norm, 1), 0))
    return basis, h.at[:, j].set(col)

  return lax.fori_loop(0, restart, step, (basis, h))


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method="batched"):
  """Restarted GMRES(restart) for general A; maxiter counts restarts."""
  if solve_method not in ("incremental", "batched"):
    raise ValueError(f"invalid solve_method {solve_method!r}, must be 'incremental' or "
                     "'batched'")
  a, b, x0, m, _ = _setup("gmres", A, b, x0, M, maxiter)
  if b.ndim != 1:
    raise ValueError(f"gmres: b must be a vector, got shape {b.shape}")
  restart = min(restart, b.shape[0])
  maxiter = 10 * b.shape[0] // max(restart, 1) if maxiter is None else maxiter
  stop = _threshold(b, tol, atol)

  def cond(s):
    x, k = s
    return (_norm(b - a(x)) > stop) & (k < maxiter)

  def body(s):
    x, k = s
    r = b - a(x)
    beta = _norm(r)
    basis, h = _arnoldi(a, m, r / jnp.where(beta > 0, beta, 1), restart)
    rhs = jnp.zeros((restart + 1,), b.dtype).at[0].set(beta)
    y = jnp_linalg.lstsq(h, rhs)[0]
    return x + m(basis[:restart].T @ y), k + 1

  return lax.while_loop(cond, body, (x0, 0))[0], None
