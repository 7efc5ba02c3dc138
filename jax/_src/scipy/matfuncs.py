"""Matrix functions of jax.scipy.linalg: expm, expm_frechet, polar, solve_sylvester,
qr_multiply and eigh_tridiagonal.

expm is Higham's scaling-and-squaring with Pade approximants (degree 3..13 chosen
from the 1-norm at run time), written with lax control flow so it traces, batches
and differentiates.
"""

from __future__ import annotations

from jax._src.numpy import linalg as jnp_linalg
from jax._src.numpy import namespace as jnp
from jax._src.lax import namespace as lax
from jax._src.api import vmap
from jax._src.lax import linalg as lax_linalg
from jax._src.numpy.util import promote_dtypes_inexact

# Pade coefficients b_0..b_m of exp for m = 3, 5, 7, 9, 13 (Higham 2005, table 2.3).
_PADE = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880.,
        3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.),
}
# Largest 1-norm for which the degree-m approximant is accurate to unit roundoff.
_THETA_DOUBLE = {3: 1.495585217958292e-002, 5: 2.539398330063230e-001,
                 7: 9.504178996162932e-001, 9: 2.097847961257068e+000,
                 13: 5.371920351148152e+000}
_THETA_SINGLE = {3: 4.258730016922831e-001, 5: 1.880152677804762e+000,
                 7: 3.925724783138660e+000}


def _square(name, a):
  (a,) = promote_dtypes_inexact(jnp.asarray(a))
  if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
    raise ValueError(f"{name}: expected a square matrix (..., n, n), got shape {a.shape}")
  return a


def _pade(a, m):
  """U, V of the degree-m approximant exp(A) ~ (V - U)^-1 (V + U)."""
  b = _PADE[m]
  eye = jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
  a2 = a @ a
  if m < 13:
    powers = [eye, a2]
    while len(powers) < (m + 1) // 2:
      powers.append(powers[-1] @ a2)
    u = a @ sum(b[2 * k + 1] * p for k, p in enumerate(powers))
    v = sum(b[2 * k] * p for k, p in enumerate(powers))
    return u, v
  a4 = a2 @ a2
  a6 = a4 @ a2
  u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
           + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
  v = (a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2)
       + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye)
  return u, v


def _expm_unbatched(a, max_squarings):
  single = jnp.finfo(a.dtype).bits <= 32
  thetas = _THETA_SINGLE if single else _THETA_DOUBLE
  top = max(thetas)
  norm = jnp.max(jnp.sum(jnp.abs(a), axis=-2))
  s = jnp.maximum(0, jnp.ceil(jnp.log2(norm / thetas[top]))).astype(jnp.int32)
  s = jnp.where(jnp.isfinite(norm), s, 0)
  degrees = sorted(thetas)
  # Pick the cheapest degree whose theta covers the norm; otherwise scale for the top one.
  index = jnp.searchsorted(jnp.asarray([thetas[m] for m in degrees], norm.dtype), norm)
  index = jnp.minimum(index, len(degrees) - 1)
  scaled = a / jnp.asarray(2.0, a.real.dtype) ** s.astype(a.real.dtype)
  branches = [lambda x, m=m: _pade(x, m) for m in degrees]
  u, v = lax.switch(index, branches, scaled)
  r = jnp_linalg.solve(v - u, v + u)
  # A fixed trip count (squarings past s are skipped) keeps the loop reverse-differentiable.
  r = lax.fori_loop(0, max_squarings, lambda i, x: jnp.where(i < s, x @ x, x), r)
  return jnp.where(s > max_squarings, jnp.full_like(r, jnp.nan), r)


def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
  """Matrix exponential by Pade approximation with scaling and squaring."""
  del upper_triangular  # a hint only; the general path is exact for triangles too
  a = _square("expm", A)
  fn = lambda x: _expm_unbatched(x, max_squarings)
  for _ in range(a.ndim - 2):
    fn = vmap(fn)
  return fn(a)


def expm_frechet(A, E, *, method: str | None = None, compute_expm: bool = True):
  """exp(A) and its Frechet derivative in direction E: the upper-right block of
  exp([[A, E], [0, A]])."""
  if method not in (None, "SPS", "blockEnlarge"):
    raise ValueError(f"Unknown implementation {method!r}")
  a = _square("expm_frechet", A)
  e = _square("expm_frechet", E)
  if a.shape != e.shape:
    raise ValueError(f"expm_frechet: A and E must have the same shape, got {a.shape} and {e.shape}")
  a, e = promote_dtypes_inexact(a, e)
  n = a.shape[-1]
  big = jnp.concatenate([jnp.concatenate([a, e], -1),
                         jnp.concatenate([jnp.zeros_like(a), a], -1)], -2)
  out = expm(big)
  expm_a, frechet = out[..., :n, :n], out[..., :n, n:]
  return (expm_a, frechet) if compute_expm else frechet


def polar(a, side: str = "right", *, method: str = "svd", eps=None, max_iterations=None):
  """a = u p (side='right') or p u (side='left') with u unitary and p Hermitian PSD."""
  del eps, max_iterations
  if side not in ("right", "left"):
    raise ValueError(f"side={side!r} was invalid.")
  if method not in ("svd", "qdwh"):
    raise ValueError(f"method={method!r} is unsupported.")
  (a,) = promote_dtypes_inexact(jnp.asarray(a))
  if a.ndim != 2:
    raise ValueError(f"The input `a` must be a 2-D array, got shape {a.shape}.")
  u_svd, s, vh = jnp_linalg.svd(a, full_matrices=False)
  unitary = u_svd @ vh
  if side == "right":
    posdef = (jnp.conj(vh.T) * s) @ vh
  else:
    posdef = (u_svd * s) @ jnp.conj(u_svd.T)
  return unitary, posdef


def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-6):
  """X with A X + X B = Q, solved as the Kronecker system (I kron A + B^T kron I) vec X."""
  del method, tol
  a, b, q = promote_dtypes_inexact(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C))
  m, n = a.shape[-1], b.shape[-1]
  if a.shape != (m, m) or b.shape != (n, n) or q.shape != (m, n):
    raise ValueError(f"solve_sylvester: incompatible shapes a {a.shape}, b {b.shape}, "
                     f"q {q.shape}")
  # vec is column-major: vec(A X) = (I kron A) vec X and vec(X B) = (B^T kron I) vec X.
  k = jnp.kron(jnp.eye(n, dtype=a.dtype), a) + jnp.kron(b.T, jnp.eye(m, dtype=a.dtype))
  x = jnp_linalg.solve(k, q.T.reshape(-1))
  return x.reshape(n, m).T


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
  """Q @ c (mode='left') or c @ Q (mode='right') with Q from the economic QR of a, and R."""
  del overwrite_a, overwrite_c
  if pivoting:
    raise NotImplementedError("qr_multiply with pivoting=True is not implemented")
  if mode not in ("left", "right"):
    raise ValueError(f"mode must be 'left' or 'right', got {mode!r}")
  a, c = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(c))
  if a.ndim != 2:
    raise ValueError(f"qr_multiply: a must be 2-D, got shape {a.shape}")
  q, r = lax_linalg.qr(a, full_matrices=False)
  if conjugate:
    q = jnp.conj(q)
  c_vec = c.ndim == 1
  if mode == "left":
    cm = c[:, None] if c_vec else c
    if cm.shape[0] != q.shape[1]:
      raise ValueError(f"qr_multiply: c has {cm.shape[0]} rows, expected {q.shape[1]}")
    out = q @ cm
    return (out[:, 0] if c_vec else out), r
  cm = c[None, :] if c_vec else c
  if cm.shape[-1] != q.shape[0]:
    raise ValueError(f"qr_multiply: c has {cm.shape[-1]} columns, expected {q.shape[0]}")
  out = cm @ q
  return (out[0] if c_vec else out), r


def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range=None, tol=None, key=None):
  """Eigenvalues (ascending) of the symmetric tridiagonal matrix with diagonal d and
  off-diagonal e."""
  del tol, key  # the dense symmetric solver needs neither
  if not eigvals_only:
    raise NotImplementedError("Calculation of eigenvectors is not implemented")
  d, e = promote_dtypes_inexact(jnp.asarray(d), jnp.asarray(e))
  if d.ndim != 1 or e.ndim != 1 or e.shape[0] != max(d.shape[0] - 1, 0):
    raise ValueError(f"eigh_tridiagonal: d must be 1-D of length n and e of length n-1, got "
                     f"{d.shape} and {e.shape}")
  n = d.shape[0]
  t = jnp.diag(d) + jnp.diag(e, 1) + jnp.diag(jnp.conj(e), -1)
  w = lax_linalg.eigh(t, lower=True)[1]
  if select == "a":
    return w
  if select == "i":
    lo, hi = (int(v) for v in select_range)
    if not 0 <= lo <= hi < n:
      raise ValueError(f"eigh_tridiagonal: select_range {select_range} out of [0, {n})")
    return w[lo:hi + 1]
  if select == "v":
    raise NotImplementedError("eigh_tridiagonal: select='v' returns a data-dependent shape")
  raise ValueError(f"'select' must be 'a', 'v' or 'i', got {select!r}")

