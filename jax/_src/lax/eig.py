"""Decompositions the CPU backend has no kernel for, written over lax: Householder
reflectors (hessenberg, tridiagonal, householder_product, ormqr), the complex Schur
form by the shifted QR algorithm (schur), and from it eig; tridiagonal_solve (Thomas),
cholesky_update, symmetric_product and qdwh.

Each is a primitive whose lowering inlines the algorithm for one matrix, mapped over
the batch dimensions, so it batches as the LAPACK-backed primitives do.
"""

from __future__ import annotations

import enum

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import linalg as base
from jax._src.lax.precision import EnumMeta
from jax._src.lax.utils import standard_primitive
from jax._src.lowering import hlo

_jnp, _lax = base._jnp, base._lax


class EigImplementation(enum.Enum, metaclass=EnumMeta):
  """Which eig kernel: the CPU backend's (LAPACK-style), MAGMA or cuSOLVER (GPU)."""
  LAPACK = "lapack"
  MAGMA = "magma"
  CUSOLVER = "cusolver"


class EighImplementation(enum.Enum, metaclass=EnumMeta):
  """Which eigh algorithm: QR iteration, Jacobi or QDWH-based spectral divide and conquer."""
  QR = "qr"
  JACOBI = "jacobi"
  QDWH = "qdwh"


class SvdAlgorithm(enum.Enum, metaclass=EnumMeta):
  """Which SVD algorithm: the backend's default, QR iteration, Jacobi or polar (QDWH)."""
  DEFAULT = "default"
  QR = "QR"
  JACOBI = "Jacobi"
  POLAR = "polar"


def _per_matrix(fun, ncore: int = 2):
  """Lifts `fun` on single matrices to operands with leading batch dimensions."""

  def lifted(*args, **params):
    jnp, lax = _jnp(), _lax()
    batch = args[0].shape[:args[0].ndim - ncore]
    if not batch:
      return fun(*args, **params)
    size = int(np.prod(batch))
    flat = [jnp.reshape(a, (size,) + a.shape[len(batch):]) for a in args]
    outs = lax.map(lambda xs: fun(*xs, **params), tuple(flat))
    return tree_reshape(outs, batch)

  return lifted


def tree_reshape(outs, batch):
  jnp = _jnp()
  if isinstance(outs, (list, tuple)):
    return type(outs)(jnp.reshape(o, batch + o.shape[1:]) for o in outs)
  return jnp.reshape(outs, batch + outs.shape[1:])


def _define(name, abstract_eval, impl, ncore=2, multiple_results=True):
  prim = standard_primitive(name, abstract_eval, multiple_results=multiple_results)
  hlo.lowering_rules[prim] = hlo.lower_fun(_per_matrix(impl, ncore),
                                           multiple_results=multiple_results)
  batching.batch_rules[prim] = base._batch_first_rule(prim)
  return prim


# ----------------------------------------------------------------------------- reflectors


def _reflector(x, k):
  """LAPACK larfg on x[k:] (entries above k ignored): (v, tau, beta) with v[k] = 1,
  v[:k] = 0 and (I - tau v v^H)^H x[k:] = beta e_k."""
  jnp = _jnp()
  n = x.shape[0]
  idx = jnp.arange(n)
  alpha = x[k]
  tail = jnp.where(idx > k, x, 0)
  xnorm = jnp.sqrt(jnp.sum(jnp.abs(tail) ** 2))
  real_alpha = jnp.real(alpha)
  norm = jnp.sqrt(jnp.abs(alpha) ** 2 + xnorm ** 2)
  beta = -jnp.where(real_alpha >= 0, 1.0, -1.0).astype(norm.dtype) * norm
  trivial = (xnorm == 0) & (jnp.imag(alpha) == 0)
  safe_beta = jnp.where(trivial, 1, beta)
  tau = jnp.where(trivial, 0, (safe_beta - alpha) / safe_beta).astype(x.dtype)
  denom = jnp.where(trivial, 1, alpha - safe_beta).astype(x.dtype)
  v = jnp.where(idx == k, 1, tail / denom).astype(x.dtype)
  beta = jnp.where(trivial, real_alpha, beta)
  return v, tau, beta.astype(x.dtype)


def _apply_left(v, tau, a):
  """(I - tau v v^H)^H a."""
  jnp = _jnp()
  return a - jnp.conj(tau) * jnp.outer(v, jnp.conj(v) @ a)


def _apply_right(a, v, tau):
  """a (I - tau v v^H)."""
  jnp = _jnp()
  return a - tau * jnp.outer(a @ v, jnp.conj(v))


def _hessenberg_one(a):
  jnp, lax = _jnp(), _lax()
  n = a.shape[0]
  idx = jnp.arange(n)

  def step(k, carry):
    a, vs, taus = carry
    v, tau, _ = _reflector(a[:, k], k + 1)
    a = _apply_right(_apply_left(v, tau, a), v, tau)
    return a, vs.at[:, k].set(v), taus.at[k].set(tau)

  taus = jnp.zeros((max(n - 1, 0),), a.dtype)
  if n < 3:
    return [a, taus]
  a, vs, taus = lax.fori_loop(0, n - 2, step, (a, jnp.zeros_like(a), taus))
  # The reflectors go below the subdiagonal, as gehrd packs them.
  below = idx[:, None] > idx[None, :] + 1
  return [jnp.where(below, vs, a), taus]


def _hessenberg_abstract_eval(a):
  base._check_matrix("hessenberg", a, square=True)
  n = a.shape[-1]
  return [ShapedArray(a.shape, a.dtype), ShapedArray(a.shape[:-2] + (max(n - 1, 0),), a.dtype)]


hessenberg_p = _define("hessenberg", _hessenberg_abstract_eval, _hessenberg_one)


def hessenberg(a):
  """Reduces square matrices to upper Hessenberg form: (a, taus) packed as LAPACK's gehrd
  (the Hessenberg matrix on and above the subdiagonal, reflectors below it)."""
  return tuple(hessenberg_p.bind(_jnp().asarray(a)))


def _householder_product_one(a, taus):
  jnp, lax = _jnp(), _lax()
  m, n = a.shape
  k = taus.shape[0]
  idx = jnp.arange(m)
  q = jnp.eye(m, n, dtype=a.dtype)

  def step(j, q):
    i = k - 1 - j
    col = lax.dynamic_index_in_dim(a, i, axis=1, keepdims=False)
    v = jnp.where(idx > i, col, jnp.where(idx == i, 1, 0)).astype(a.dtype)
    tau = taus[i]
    return q - tau * jnp.outer(v, jnp.conj(v) @ q)

  return lax.fori_loop(0, k, step, q) if k else q


def _householder_product_abstract_eval(a, taus):
  base._check_matrix("householder_product", a)
  m, n = a.shape[-2:]
  if m < n:
    raise ValueError(f"householder_product requires rows >= columns, got shape {a.shape}")
  if taus.shape[:-1] != a.shape[:-2] or taus.shape[-1] > n:
    raise ValueError(f"householder_product: taus of shape {taus.shape} do not match a of "
                     f"shape {a.shape}")
  return ShapedArray(a.shape, a.dtype)


householder_product_p = _define("householder_product", _householder_product_abstract_eval,
                                _householder_product_one, multiple_results=False)


def householder_product(a, taus):
  """The first columns of Q = H_0 ... H_{k-1} from packed reflectors (LAPACK's orgqr)."""
  jnp = _jnp()
  a, taus = jnp.asarray(a), jnp.asarray(taus, dtype=jnp.asarray(a).dtype)
  return householder_product_p.bind(a, taus)


def ormqr(a, taus, c, left: bool = True, transpose: bool = False):
  """Q c (left) or c Q, with Q^H instead of Q when `transpose`: Q from reflectors."""
  jnp = _jnp()
  a = jnp.asarray(a)
  m = a.shape[-2]
  full = jnp.concatenate([a, jnp.zeros(a.shape[:-1] + (max(m - a.shape[-1], 0),), a.dtype)],
                         axis=-1)[..., :m] if a.shape[-1] < m else a[..., :m]
  q = householder_product(full, taus)
  if transpose:
    q = base._h(q)
  return base._mm(q, c) if left else base._mm(c, q)


def _tridiagonal_one(a, *, lower):
  jnp = _jnp()
  if not lower:
    a = base._h(a)
  packed, taus = _hessenberg_one(a)
  n = a.shape[0]
  d = jnp.real(jnp.diagonal(packed)).astype(base._real_dtype(a.dtype))
  e = jnp.real(jnp.diagonal(packed, -1)).astype(base._real_dtype(a.dtype))
  out = packed if lower else base._h(packed)
  return [out, d, e, taus[:max(n - 1, 0)]]


def _tridiagonal_abstract_eval(a, *, lower):
  base._check_matrix("tridiagonal", a, square=True)
  n = a.shape[-1]
  batch = a.shape[:-2]
  real = base._real_dtype(a.dtype)
  return [ShapedArray(a.shape, a.dtype), ShapedArray(batch + (n,), real),
          ShapedArray(batch + (max(n - 1, 0),), real),
          ShapedArray(batch + (max(n - 1, 0),), a.dtype)]


tridiagonal_p = _define("tridiagonal", _tridiagonal_abstract_eval, _tridiagonal_one)


def tridiagonal(a, *, lower: bool = True):
  """Reduces Hermitian matrices to real symmetric tridiagonal form: (a, d, e, taus) with
  d the diagonal, e the off-diagonal and the reflectors packed in a (LAPACK's sytrd)."""
  return tuple(tridiagonal_p.bind(_jnp().asarray(a), lower=bool(lower)))


# ----------------------------------------------------------------------------- schur / eig


def _complex_dtype(dtype):
  return np.dtype(np.complex128) if np.dtype(dtype) in (np.float64, np.complex128) \
      else np.dtype(np.complex64)


def _givens(a, b):
  """(c, s) with [[c, s], [-conj(s), c]] @ [a, b] = [r, 0], c real."""
  jnp = _jnp()
  na, nb = jnp.abs(a), jnp.abs(b)
  norm = jnp.sqrt(na ** 2 + nb ** 2)
  safe = jnp.where(norm == 0, 1, norm)
  phase = jnp.where(na == 0, 1, a / jnp.where(na == 0, 1, na))
  c = jnp.where(norm == 0, 1, na / safe)
  s = jnp.where(norm == 0, 0, phase * jnp.conj(b) / safe)
  return c.astype(a.dtype), s.astype(a.dtype)


def _wilkinson_shift(h, hi):
  """The eigenvalue of the trailing 2x2 block of h[:hi+1, :hi+1] nearer its last entry."""
  jnp = _jnp()
  a, b = h[hi - 1, hi - 1], h[hi - 1, hi]
  c, d = h[hi, hi - 1], h[hi, hi]
  tr, det = a + d, a * d - b * c
  disc = jnp.sqrt(tr * tr / 4 - det)
  l1, l2 = tr / 2 + disc, tr / 2 - disc
  return jnp.where(jnp.abs(l1 - d) < jnp.abs(l2 - d), l1, l2)


def _qr_sweep(h, z, hi, mu):
  """One explicitly shifted QR step on the leading (hi+1)x(hi+1) block: H = Q^H H Q."""
  jnp, lax = _jnp(), _lax()
  n = h.shape[0]
  idx = jnp.arange(n)
  active = idx <= hi
  shift = jnp.where(active, mu, 0).astype(h.dtype)
  r = h - jnp.diag(shift)

  def rows(k, carry):
    r, cs, ss = carry
    c, s = _givens(r[k, k], r[k + 1, k])
    use = k < hi
    c, s = jnp.where(use, c, 1), jnp.where(use, s, 0)
    rk, rk1 = r[k], r[k + 1]
    r = r.at[k].set(c * rk + s * rk1).at[k + 1].set(-jnp.conj(s) * rk + c * rk1)
    return r, cs.at[k].set(c), ss.at[k].set(s)

  zeros = jnp.zeros((max(n - 1, 1),), h.dtype)
  r, cs, ss = lax.fori_loop(0, n - 1, rows, (r, zeros, zeros))

  def cols(k, carry):
    r, z = carry
    c, s = cs[k], ss[k]
    rk, rk1 = r[:, k], r[:, k + 1]
    r = r.at[:, k].set(c * rk + jnp.conj(s) * rk1).at[:, k + 1].set(-s * rk + c * rk1)
    zk, zk1 = z[:, k], z[:, k + 1]
    z = z.at[:, k].set(c * zk + jnp.conj(s) * zk1).at[:, k + 1].set(-s * zk + c * zk1)
    return r, z

  r, z = lax.fori_loop(0, n - 1, cols, (r, z))
  return r + jnp.diag(shift), z


def _schur_one(a, *, compute_schur_vectors=True):
  """Complex Schur form a = Z T Z^H by Hessenberg reduction and shifted QR with deflation."""
  jnp, lax = _jnp(), _lax()
  n = a.shape[0]
  a = a.astype(_complex_dtype(a.dtype))
  if n == 1:
    return [a, jnp.eye(1, dtype=a.dtype)]
  packed, taus = _hessenberg_one(a)
  q = _householder_product_one(
      jnp.pad(packed[1:, :-1], ((1, 0), (1, 0))), jnp.concatenate([jnp.zeros((1,), a.dtype),
                                                                    taus]))
  h = jnp.triu(packed, -1)
  eps = np.finfo(np.dtype(a.dtype)).eps
  max_iter = 60 * n

  def cond(state):
    _, _, hi, it, _ = state
    return (hi > 0) & (it < max_iter)

  def body(state):
    h, z, hi, it, since = state
    sub = jnp.abs(h[hi, hi - 1])
    scale = jnp.abs(h[hi, hi]) + jnp.abs(h[hi - 1, hi - 1])
    small = sub <= eps * jnp.where(scale == 0, 1, scale)

    def deflate(_):
      return h.at[hi, hi - 1].set(0), z, hi - 1, it + 1, jnp.zeros_like(since)

    def iterate(_):
      mu = _wilkinson_shift(h, hi)
      # An exceptional shift every 10 stalled iterations breaks cycles.
      mu = jnp.where((since + 1) % 11 == 0, mu + sub.astype(mu.dtype), mu)
      h2, z2 = _qr_sweep(h, z, hi, mu)
      return h2, z2, hi, it + 1, since + 1

    return lax.cond(small, deflate, iterate, None)

  init = (h, q, jnp.asarray(n - 1, np.int32), jnp.asarray(0, np.int32),
          jnp.asarray(0, np.int32))
  t, z, hi, _, _ = lax.while_loop(cond, body, init)
  nan = jnp.array(np.nan, t.dtype)
  ok = hi == 0
  t = jnp.where(ok, jnp.triu(t), nan)
  z = jnp.where(ok, z, nan)
  return [t, z]


def _triangular_eigenvectors(t):
  """Unit upper triangular X whose columns are eigenvectors of upper triangular T."""
  jnp = _jnp()
  n = t.shape[0]
  idx = jnp.arange(n)
  w = jnp.diagonal(t)
  small = np.finfo(np.dtype(t.dtype)).eps * jnp.maximum(jnp.max(jnp.abs(t)), 1e-30)
  lead = (idx[None, :, None] < idx[:, None, None]) & (idx[None, None, :] < idx[:, None, None])
  shifted = t[None] - w[:, None, None] * jnp.eye(n, dtype=t.dtype)[None]
  # Equal eigenvalues would make the leading block singular: perturb its diagonal, as
  # LAPACK's trevc does.
  diag = jnp.diagonal(shifted, axis1=1, axis2=2)
  diag = jnp.where(jnp.abs(diag) < small, small, diag)
  shifted = shifted.at[:, idx, idx].set(diag)
  m = jnp.where(lead, shifted, jnp.eye(n, dtype=t.dtype)[None])
  rhs = jnp.where(idx[None, :] < idx[:, None], -t.T, 0)[..., None]  # row k: -T[:k, k]
  x = base.triangular_solve(m, rhs, left_side=True, lower=False)[..., 0]
  x = jnp.where(idx[None, :] == idx[:, None], 1, x)
  return x.T


def _normalize_columns(v):
  jnp = _jnp()
  norms = jnp.sqrt(jnp.sum(jnp.abs(v) ** 2, axis=0, keepdims=True))
  return v / jnp.where(norms == 0, 1, norms).astype(v.dtype)


def _eig_one(a, *, compute_left_eigenvectors, compute_right_eigenvectors):
  jnp = _jnp()
  t, z = _schur_one(a)
  w = jnp.diagonal(t)
  outs = [w]
  if compute_left_eigenvectors or compute_right_eigenvectors:
    x = _triangular_eigenvectors(t)
    if compute_left_eigenvectors:
      # The rows of X^-1 are T's left eigenvectors.
      n = t.shape[0]
      xinv = base.triangular_solve(x, jnp.eye(n, dtype=x.dtype), left_side=True, lower=False)
      outs.append(_normalize_columns(z @ base._h(xinv)))
    if compute_right_eigenvectors:
      outs.append(_normalize_columns(z @ x))
  return outs


def _eig_abstract_eval(a, *, compute_left_eigenvectors, compute_right_eigenvectors):
  base._check_matrix("eig", a, square=True)
  n = a.shape[-1]
  c = _complex_dtype(a.dtype)
  outs = [ShapedArray(a.shape[:-2] + (n,), c)]
  outs += [ShapedArray(a.shape, c)] * (int(compute_left_eigenvectors)
                                       + int(compute_right_eigenvectors))
  return outs


eig_p = _define("eig", _eig_abstract_eval, _eig_one)


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation=None, use_magma=None):
  """Eigenvalues and (left, right) eigenvectors of general square matrices.

  Returns w, then vl if `compute_left_eigenvectors`, then vr if
  `compute_right_eigenvectors`; eigenvectors are columns of unit 2-norm.
  """
  del use_magma
  if implementation is not None and EigImplementation(implementation) != \
      EigImplementation.LAPACK:
    raise NotImplementedError(f"eig implementation {implementation} needs a GPU backend")
  x = _jnp().asarray(x)
  if not dtypes.issubdtype(x.dtype, np.inexact):
    x = x.astype(dtypes.canonicalize_dtype(np.float64))
  outs = eig_p.bind(x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                    compute_right_eigenvectors=bool(compute_right_eigenvectors))
  del enable_eigvec_derivs  # the right eigenvectors' derivative is always available
  return list(outs)


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors):
  # dw = diag(V^-1 dA V); dV = V (F o V^-1 dA V), F_ij = 1/(w_j - w_i) off the diagonal,
  # then the part along each v that changes its norm is removed.
  (a,), (da,) = primals, tangents
  jnp = _jnp()
  w, *_, vr = eig_p.bind(a, compute_left_eigenvectors=False, compute_right_eigenvectors=True)
  outs = eig_p.bind(a, compute_left_eigenvectors=compute_left_eigenvectors,
                    compute_right_eigenvectors=compute_right_eigenvectors)
  if compute_left_eigenvectors:
    raise NotImplementedError("The derivative of eig is not implemented for left "
                              "eigenvectors")
  c = w.dtype
  da = ad.instantiate_zeros(da, core.get_aval(a)).astype(c)
  vinv_da_v = _jnp().linalg.solve(vr, base._mm(da, vr))
  dw = jnp.diagonal(vinv_da_v, axis1=-2, axis2=-1)
  touts = [dw]
  if compute_right_eigenvectors:
    n = a.shape[-1]
    eye = jnp.eye(n, dtype=c)
    f = 1 / (eye + w[..., None, :] - w[..., :, None]) - eye
    dv = base._mm(vr, f * vinv_da_v)
    dv = dv - vr * jnp.real(jnp.sum(jnp.conj(vr) * dv, axis=-2, keepdims=True)).astype(c)
    touts.append(dv)
  return outs, touts


ad.jvp_rules[eig_p] = _eig_jvp


def _schur_abstract_eval(x, *, compute_schur_vectors):
  base._check_matrix("schur", x, square=True)
  c = _complex_dtype(x.dtype)
  outs = [ShapedArray(x.shape, c)]
  return outs + [ShapedArray(x.shape, c)] if compute_schur_vectors else outs


def _schur_impl(x, *, compute_schur_vectors):
  t, z = _schur_one(x)
  return [t, z] if compute_schur_vectors else [t]


schur_p = _define("schur", _schur_abstract_eval, _schur_impl)


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable=None):
  """The complex Schur form: (t, z) with x = z t z^H, t upper triangular, z unitary."""
  if sort_eig_vals or select_callable is not None:
    raise NotImplementedError("schur with sorted eigenvalues is not supported")
  outs = schur_p.bind(_jnp().asarray(x), compute_schur_vectors=bool(compute_schur_vectors))
  return tuple(outs) if compute_schur_vectors else outs[0]
