"""Decompositions the CPU backend has no kernel for, written over lax: Householder
reflectors (hessenberg, tridiagonal, householder_product, ormqr), the complex Schur
form by the shifted QR algorithm (schur), and from it eig; tridiagonal_solve (Thomas),
cholesky_update, symmetric_product and qdwh.

Each is a primitive whose lowering inlines the algorithm for one matrix, mapped over
the batch dimensions, so it batches as the LAPACK-backed primitives do.
"""

from __future__ import annotations

import enum
import types

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import namespace as lax
from jax._src.lax import linalg as base
from jax._src.numpy import creation, padding, reductions, shape_ops, ufuncs, util
from jax._src.lax.precision import EnumMeta
from jax._src.lax.utils import derived_primitive, standard_primitive
from jax._src.lowering import hlo

# The algorithms below are written with these jax.numpy functions, gathered from their
# modules: the jax.numpy namespace imports this module (through jnp.linalg and roots).
jnp = types.SimpleNamespace(
    abs=ufuncs.abs, all=reductions.all, arange=creation.arange, array=creation.array,
    asarray=creation.asarray, broadcast_to=util.broadcast_to, cbrt=ufuncs.cbrt,
    concatenate=shape_ops.concatenate, conj=ufuncs.conj, diag=shape_ops.diag,
    diagonal=shape_ops.diagonal, eye=creation.eye, imag=ufuncs.imag, max=reductions.max,
    maximum=ufuncs.maximum, minimum=ufuncs.minimum, outer=shape_ops.outer, pad=padding.pad,
    real=ufuncs.real, reshape=shape_ops.reshape, sqrt=ufuncs.sqrt, sum=reductions.sum,
    swapaxes=shape_ops.swapaxes, tril=creation.tril, triu=creation.triu, where=ufuncs.where,
    zeros=creation.zeros, zeros_like=creation.zeros_like)


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
    batch = args[0].shape[:args[0].ndim - ncore]
    if not batch:
      return fun(*args, **params)
    size = int(np.prod(batch))
    flat = [jnp.reshape(a, (size,) + a.shape[len(batch):]) for a in args]
    outs = lax.map(lambda xs: fun(*xs, **params), tuple(flat))
    return tree_reshape(outs, batch)

  return lifted


def tree_reshape(outs, batch):
  if isinstance(outs, (list, tuple)):
    return type(outs)(jnp.reshape(o, batch + o.shape[1:]) for o in outs)
  return jnp.reshape(outs, batch + outs.shape[1:])


def _define(name, abstract_eval, impl, ncore=2, multiple_results=True):
  prim = standard_primitive(name, abstract_eval, multiple_results=multiple_results)
  hlo.lowering_rules[prim] = hlo.lower_fun(_per_matrix(impl, ncore),
                                           multiple_results=multiple_results)
  batching.batch_rules[prim] = base.batch_first_rule(prim)
  return prim


# ----------------------------------------------------------------------------- reflectors


def _reflector(x, k):
  """LAPACK larfg on x[k:] (entries above k ignored): (v, tau, beta) with v[k] = 1,
  v[:k] = 0 and (I - tau v v^H)^H x[k:] = beta e_k."""
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
  return a - jnp.conj(tau) * jnp.outer(v, jnp.conj(v) @ a)


def _apply_right(a, v, tau):
  """a (I - tau v v^H)."""
  return a - tau * jnp.outer(a @ v, jnp.conj(v))


def _hessenberg_one(a):
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
  base.check_matrix("hessenberg", a, square=True)
  n = a.shape[-1]
  return [ShapedArray(a.shape, a.dtype), ShapedArray(a.shape[:-2] + (max(n - 1, 0),), a.dtype)]


hessenberg_p = _define("hessenberg", _hessenberg_abstract_eval, _hessenberg_one)


def hessenberg(a):
  """Reduces square matrices to upper Hessenberg form: (a, taus) packed as LAPACK's gehrd
  (the Hessenberg matrix on and above the subdiagonal, reflectors below it)."""
  return tuple(hessenberg_p.bind(jnp.asarray(a)))


def _householder_product_one(a, taus):
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
  base.check_matrix("householder_product", a)
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
  a, taus = jnp.asarray(a), jnp.asarray(taus, dtype=jnp.asarray(a).dtype)
  return householder_product_p.bind(a, taus)


def ormqr(a, taus, c, left: bool = True, transpose: bool = False):
  """Q c (left) or c Q, with Q^H instead of Q when `transpose`: Q from reflectors."""
  return ormqr_p.bind(jnp.asarray(a), jnp.asarray(taus), jnp.asarray(c), left=bool(left),
                      transpose=bool(transpose))


def _ormqr_impl(a, taus, c, *, left, transpose):
  m = a.shape[-2]
  full = jnp.concatenate([a, jnp.zeros(a.shape[:-1] + (max(m - a.shape[-1], 0),), a.dtype)],
                         axis=-1)[..., :m] if a.shape[-1] < m else a[..., :m]
  q = householder_product(full, taus)
  if transpose:
    q = base.conj_transpose(q)
  return base.matmul(q, c) if left else base.matmul(c, q)


ormqr_p = derived_primitive("ormqr", _ormqr_impl)


def _tridiagonal_one(a, *, lower):
  if not lower:
    a = base.conj_transpose(a)
  packed, taus = _hessenberg_one(a)
  n = a.shape[0]
  d = jnp.real(jnp.diagonal(packed)).astype(base.real_dtype(a.dtype))
  e = jnp.real(jnp.diagonal(packed, -1)).astype(base.real_dtype(a.dtype))
  out = packed if lower else base.conj_transpose(packed)
  return [out, d, e, taus[:max(n - 1, 0)]]


def _tridiagonal_abstract_eval(a, *, lower):
  base.check_matrix("tridiagonal", a, square=True)
  n = a.shape[-1]
  batch = a.shape[:-2]
  real = base.real_dtype(a.dtype)
  return [ShapedArray(a.shape, a.dtype), ShapedArray(batch + (n,), real),
          ShapedArray(batch + (max(n - 1, 0),), real),
          ShapedArray(batch + (max(n - 1, 0),), a.dtype)]


tridiagonal_p = _define("tridiagonal", _tridiagonal_abstract_eval, _tridiagonal_one)


def tridiagonal(a, *, lower: bool = True):
  """Reduces Hermitian matrices to real symmetric tridiagonal form: (a, d, e, taus) with
  d the diagonal, e the off-diagonal and the reflectors packed in a (LAPACK's sytrd)."""
  return tuple(tridiagonal_p.bind(jnp.asarray(a), lower=bool(lower)))


# ----------------------------------------------------------------------------- schur / eig


def _complex_dtype(dtype):
  return np.dtype(np.complex128) if np.dtype(dtype) in (np.float64, np.complex128) \
      else np.dtype(np.complex64)


def _givens(a, b):
  """(c, s) with [[c, s], [-conj(s), c]] @ [a, b] = [r, 0], c real."""
  na, nb = jnp.abs(a), jnp.abs(b)
  norm = jnp.sqrt(na ** 2 + nb ** 2)
  safe = jnp.where(norm == 0, 1, norm)
  phase = jnp.where(na == 0, 1, a / jnp.where(na == 0, 1, na))
  c = jnp.where(norm == 0, 1, na / safe)
  s = jnp.where(norm == 0, 0, phase * jnp.conj(b) / safe)
  return c.astype(a.dtype), s.astype(a.dtype)


def _wilkinson_shift(h, hi):
  """The eigenvalue of the trailing 2x2 block of h[:hi+1, :hi+1] nearer its last entry."""
  a, b = h[hi - 1, hi - 1], h[hi - 1, hi]
  c, d = h[hi, hi - 1], h[hi, hi]
  tr, det = a + d, a * d - b * c
  disc = jnp.sqrt(tr * tr / 4 - det)
  l1, l2 = tr / 2 + disc, tr / 2 - disc
  return jnp.where(jnp.abs(l1 - d) < jnp.abs(l2 - d), l1, l2)


def _qr_sweep(h, z, hi, mu):
  """One explicitly shifted QR step on the leading (hi+1)x(hi+1) block: H = Q^H H Q."""
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
  norms = jnp.sqrt(jnp.sum(jnp.abs(v) ** 2, axis=0, keepdims=True))
  return v / jnp.where(norms == 0, 1, norms).astype(v.dtype)


def _eig_one(a, *, compute_left_eigenvectors, compute_right_eigenvectors):
  t, z = _schur_one(a)
  w = jnp.diagonal(t)
  outs = [w]
  if compute_left_eigenvectors or compute_right_eigenvectors:
    x = _triangular_eigenvectors(t)
    if compute_left_eigenvectors:
      # The rows of X^-1 are T's left eigenvectors.
      n = t.shape[0]
      xinv = base.triangular_solve(x, jnp.eye(n, dtype=x.dtype), left_side=True, lower=False)
      outs.append(_normalize_columns(z @ base.conj_transpose(xinv)))
    if compute_right_eigenvectors:
      outs.append(_normalize_columns(z @ x))
  return outs


def _eig_abstract_eval(a, *, compute_left_eigenvectors, compute_right_eigenvectors):
  base.check_matrix("eig", a, square=True)
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
  x = jnp.asarray(x)
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
  w, *_, vr = eig_p.bind(a, compute_left_eigenvectors=False, compute_right_eigenvectors=True)
  outs = eig_p.bind(a, compute_left_eigenvectors=compute_left_eigenvectors,
                    compute_right_eigenvectors=compute_right_eigenvectors)
  if compute_left_eigenvectors:
    raise NotImplementedError("The derivative of eig is not implemented for left "
                              "eigenvectors")
  c = w.dtype
  da = ad.instantiate_zeros(da, core.get_aval(a)).astype(c)
  vinv_da_v = util.late_op("solve")(vr, base.matmul(da, vr))
  dw = jnp.diagonal(vinv_da_v, axis1=-2, axis2=-1)
  touts = [dw]
  if compute_right_eigenvectors:
    n = a.shape[-1]
    eye = jnp.eye(n, dtype=c)
    f = 1 / (eye + w[..., None, :] - w[..., :, None]) - eye
    dv = base.matmul(vr, f * vinv_da_v)
    dv = dv - vr * jnp.real(jnp.sum(jnp.conj(vr) * dv, axis=-2, keepdims=True)).astype(c)
    touts.append(dv)
  return outs, touts


ad.jvp_rules[eig_p] = _eig_jvp


def _schur_abstract_eval(x, *, compute_schur_vectors):
  base.check_matrix("schur", x, square=True)
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
  outs = schur_p.bind(jnp.asarray(x), compute_schur_vectors=bool(compute_schur_vectors))
  return tuple(outs) if compute_schur_vectors else outs[0]


# ----------------------------------------------------------------------------- tridiagonal_solve


def _thomas_one(dl, d, du, b, *, perturb_singular):
  """Thomas elimination (no pivoting) for one system with several right-hand sides."""
  tiny = np.finfo(np.dtype(d.dtype)).eps * jnp.maximum(jnp.max(jnp.abs(d)), 1).astype(
      base.real_dtype(d.dtype))

  def pivot(p):
    if not perturb_singular:
      return p
    return jnp.where(p == 0, tiny.astype(p.dtype), p)

  def forward(carry, row):
    c_prev, y_prev = carry
    l, dd, u, bb = row
    p = pivot(dd - l * c_prev)
    c = u / p
    y = (bb - l * y_prev) / p
    return (c, y), (c, y)

  zero_c = jnp.zeros((), d.dtype)
  zero_y = jnp.zeros(b.shape[1:], b.dtype)
  _, (cs, ys) = lax.scan(forward, (zero_c, zero_y), (dl, d, du, b))

  def backward(x_next, row):
    c, y = row
    x = y - c * x_next
    return x, x

  _, xs = lax.scan(backward, zero_y, (cs, ys), reverse=True)
  return xs


def _tridiagonal_solve_abstract_eval(dl, d, du, b, *, perturb_singular):
  if not (dl.shape == d.shape == du.shape) or b.ndim < 2 or b.shape[:-1] != d.shape:
    raise ValueError("tridiagonal_solve requires dl, d and du of one shape (..., m) and b of "
                     f"shape (..., m, n); got {dl.shape}, {d.shape}, {du.shape} and {b.shape}")
  if len({dl.dtype, d.dtype, du.dtype, b.dtype}) != 1:
    raise TypeError("tridiagonal_solve requires one dtype for all arguments, got "
                    f"{dl.dtype}, {d.dtype}, {du.dtype} and {b.dtype}")
  if not dtypes.issubdtype(b.dtype, np.inexact):
    raise TypeError(f"tridiagonal_solve requires floating-point arguments, got {b.dtype}")
  return ShapedArray(b.shape, b.dtype)


tridiagonal_solve_p = standard_primitive("tridiagonal_solve", _tridiagonal_solve_abstract_eval)
hlo.lowering_rules[tridiagonal_solve_p] = hlo.lower_fun(_per_matrix(_thomas_one, ncore=1))
batching.batch_rules[tridiagonal_solve_p] = base.batch_first_rule(tridiagonal_solve_p)


def _tridiagonal_matvec(dl, d, du, x):
  """A x for the tridiagonal A (rows of x are the system's unknowns)."""
  pad = [(0, 0)] * (x.ndim - 2)
  up = jnp.pad(x[..., 1:, :], pad + [(0, 1), (0, 0)])
  down = jnp.pad(x[..., :-1, :], pad + [(1, 0), (0, 0)])
  return dl[..., None] * down + d[..., None] * x + du[..., None] * up


def _transposed_bands(dl, du):
  pad = [(0, 0)] * (dl.ndim - 1)
  return jnp.pad(du[..., :-1], pad + [(1, 0)]), jnp.pad(dl[..., 1:], pad + [(0, 1)])


def _tridiagonal_solve_jvp(primals, tangents, *, perturb_singular):
  # A x = b  =>  dx = A^-1 (db - dA x).
  dl, d, du, b = primals
  x = tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=perturb_singular)
  zs = [ad.instantiate_zeros(t, core.get_aval(p)) for t, p in zip(tangents, primals)]
  rhs = zs[3] - _tridiagonal_matvec(zs[0], zs[1], zs[2], x)
  return x, tridiagonal_solve_p.bind(dl, d, du, rhs, perturb_singular=perturb_singular)


def _tridiagonal_solve_transpose(ct, dl, d, du, b, *, perturb_singular):
  if any(ad.is_undefined_primal(v) for v in (dl, d, du)):
    raise NotImplementedError("tridiagonal_solve is linear only in b")
  ct = ad.instantiate_zeros(ct, b.aval)
  tdl, tdu = _transposed_bands(dl, du)
  return [None, None, None,
          tridiagonal_solve_p.bind(tdl, d, tdu, ct, perturb_singular=perturb_singular)]


ad.jvp_rules[tridiagonal_solve_p] = _tridiagonal_solve_jvp
ad.transpose_rules[tridiagonal_solve_p] = _tridiagonal_solve_transpose


def tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
  """Solves A x = b for tridiagonal A: sub-diagonal dl (dl[0] = 0), diagonal d and
  super-diagonal du (du[-1] = 0), each (..., m); b is (..., m, n).

  With `perturb_singular`, a zero pivot is replaced by a tiny one instead of giving
  infinities.
  """
  dl, d, du, b = (jnp.asarray(v) for v in (dl, d, du, b))
  return tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=bool(perturb_singular))


# ----------------------------------------------------------------------------- cholesky_update


def _cholesky_update_one(r, w):
  n = r.shape[0]
  idx = jnp.arange(n)

  def step(k, carry):
    r, w = carry
    rkk, wk = r[k, k], w[k]
    rad = jnp.sqrt(rkk * rkk + wk * wk)
    c, s = rad / rkk, wk / rkk
    after = idx > k
    row = jnp.where(after, (r[k] + s * w) / c, r[k])
    row = jnp.where(idx == k, rad, row)
    w = jnp.where(after, c * w - s * row, w)
    return r.at[k].set(row), w

  return lax.fori_loop(0, n, step, (r, w))[0]


def _cholesky_update_abstract_eval(r, w):
  base.check_matrix("cholesky_update", r, square=True)
  if w.shape != r.shape[:-1] or w.dtype != r.dtype:
    raise ValueError(f"cholesky_update: w_vector {w.str_short(short_dtypes=True)} does not match r_matrix "
                     f"{r.str_short(short_dtypes=True)}")
  if dtypes.issubdtype(r.dtype, np.complexfloating):
    raise TypeError("cholesky_update supports real matrices only")
  return ShapedArray(r.shape, r.dtype)


cholesky_update_p = standard_primitive("cholesky_update", _cholesky_update_abstract_eval)
hlo.lowering_rules[cholesky_update_p] = hlo.lower_fun(_per_matrix(_cholesky_update_one))
batching.batch_rules[cholesky_update_p] = base.batch_first_rule(cholesky_update_p)


def cholesky_update(r_matrix, w_vector):
  """The upper Cholesky factor of R^T R + w w^T, given the upper factor R."""
  r = jnp.asarray(r_matrix)
  return cholesky_update_p.bind(r, jnp.asarray(w_vector, r.dtype))


# ----------------------------------------------------------------------------- symmetric_product


def _symmetric_product_abstract_eval(a, c, *, alpha, beta, symmetrize_output):
  if a.ndim < 2 or c.ndim < 2 or c.shape[-1] != c.shape[-2] or c.shape[-1] != a.shape[-2] \
      or a.shape[:-2] != c.shape[:-2]:
    raise ValueError(f"symmetric_product: a_matrix {a.str_short(short_dtypes=True)} and c_matrix "
                     f"{c.str_short(short_dtypes=True)} need shapes (..., n, k) and (..., n, n)")
  return ShapedArray(c.shape, c.dtype)


def _symmetric_product_impl(a, c, *, alpha, beta, symmetrize_output):
  out = alpha * base.matmul(a, jnp.swapaxes(a, -1, -2)) + beta * c
  if symmetrize_output:
    lower = jnp.tril(out)
    out = lower + jnp.swapaxes(jnp.tril(out, -1), -1, -2)
  return out.astype(c.dtype)


symmetric_product_p = standard_primitive("symmetric_product", _symmetric_product_abstract_eval)
hlo.lowering_rules[symmetric_product_p] = hlo.lower_fun(_symmetric_product_impl)
batching.batch_rules[symmetric_product_p] = base.batch_first_rule(symmetric_product_p)


def _symmetric_product_jvp(primals, tangents, *, alpha, beta, symmetrize_output):
  a, c = primals
  da, dc = (ad.instantiate_zeros(t, core.get_aval(p)) for t, p in zip(tangents, primals))
  out = symmetric_product_p.bind(a, c, alpha=alpha, beta=beta,
                                 symmetrize_output=symmetrize_output)
  t = alpha * (base.matmul(da, jnp.swapaxes(a, -1, -2)) + base.matmul(a, jnp.swapaxes(da, -1, -2)))
  t = t + beta * dc
  if symmetrize_output:
    t = jnp.tril(t) + jnp.swapaxes(jnp.tril(t, -1), -1, -2)
  return out, t.astype(out.dtype)


ad.jvp_rules[symmetric_product_p] = _symmetric_product_jvp


def symmetric_product(a_matrix, c_matrix, *, alpha: float = 1., beta: float = 0.,
                      symmetrize_output: bool = False):
  """alpha A A^T + beta C (C symmetric); `symmetrize_output` mirrors the lower triangle."""
  return symmetric_product_p.bind(jnp.asarray(a_matrix), jnp.asarray(c_matrix),
                                  alpha=float(alpha), beta=float(beta),
                                  symmetrize_output=bool(symmetrize_output))


# ----------------------------------------------------------------------------- qdwh


def _qdwh_coefficients(l):
  l2 = l * l
  d = jnp.cbrt(4 * (1 - l2) / (l2 * l2))
  sqd = jnp.sqrt(1 + d)
  a = sqd + 0.5 * jnp.sqrt(8 - 4 * d + 8 * (2 - l2) / (l2 * sqd))
  b = (a - 1) ** 2 / 4
  return a, b, a + b - 1


def qdwh(x, *, is_hermitian: bool = False, max_iterations=None, eps=None, dynamic_shape=None):
  """Polar decomposition x = u h by the QR-based dynamically weighted Halley iteration
  (Nakatsukasa, Bai & Gygi 2010): (u, h, num_iters, is_converged)."""
  if dynamic_shape is not None:
    raise NotImplementedError("qdwh with dynamic_shape is not supported")
  x = jnp.asarray(x)
  base.check_matrix("qdwh", core.get_aval(x))
  m, n = x.shape[-2:]
  if m < n:
    raise ValueError(f"qdwh requires rows >= columns, got shape {x.shape}")
  del is_hermitian  # the general iteration serves Hermitian inputs too
  real = base.real_dtype(x.dtype)
  eps = float(np.finfo(real).eps if eps is None else eps)
  max_iterations = 10 if max_iterations is None else int(max_iterations)
  alpha = jnp.sqrt(jnp.sum(jnp.abs(x) ** 2, axis=(-2, -1), keepdims=True))
  u0 = x / jnp.where(alpha == 0, 1, alpha).astype(x.dtype)
  tol = eps ** (1 / 3)
  eye = jnp.eye(n, dtype=x.dtype)

  def cond(state):
    _, _, k, done = state
    return (k < max_iterations) & ~done

  def body(state):
    u, l, k, _ = state
    a, b, c = _qdwh_coefficients(l)
    cx = jnp.sqrt(c).astype(x.dtype)
    stacked = jnp.concatenate([cx[..., None, None] * u,
                               jnp.broadcast_to(eye, u.shape[:-2] + (n, n))], axis=-2)
    q, _ = base.qr(stacked, full_matrices=False)
    q1, q2 = q[..., :m, :], q[..., m:, :]
    ratio = (b / c).astype(x.dtype)[..., None, None]
    new = ratio * u + ((a - b / c) / jnp.sqrt(c)).astype(x.dtype)[..., None, None] * \
        base.matmul(q1, base.conj_transpose(q2))
    l = jnp.minimum(l * (a + b * l * l) / (1 + c * l * l), 1)
    change = jnp.sqrt(jnp.max(jnp.sum(jnp.abs(new - u) ** 2, axis=(-2, -1))))
    return new, l, k + 1, (change < tol) & jnp.all(jnp.abs(1 - l) < 10 * eps)

  l0 = jnp.asarray(eps, real)
  u, _, iters, converged = lax.while_loop(
      cond, body, (u0, l0, jnp.asarray(0, np.int32), jnp.asarray(False)))
  h = base.matmul(base.conj_transpose(u), x)
  h = (h + base.conj_transpose(h)) / 2
  return u, h, iters, converged


# ----------------------------------------------------------------------------- pivots


def _pivots_abstract_eval(pivots, *, permutation_size):
  if pivots.ndim < 1 or not dtypes.issubdtype(pivots.dtype, np.integer):
    raise ValueError(f"lu_pivots_to_permutation requires integer pivots of rank >= 1, got "
                     f"{pivots.str_short(short_dtypes=True)}")
  if permutation_size < pivots.shape[-1]:
    raise ValueError(f"Output permutation size {permutation_size} has to exceed the trailing "
                     f"dimension of the pivots. Got pivots shape {pivots.shape}")
  return ShapedArray(pivots.shape[:-1] + (permutation_size,), np.dtype(np.int32))


lu_pivots_to_permutation_p = standard_primitive("lu_pivots_to_permutation",
                                                _pivots_abstract_eval)
hlo.lowering_rules[lu_pivots_to_permutation_p] = hlo.lower_fun(base.lu_pivots_to_permutation)
batching.batch_rules[lu_pivots_to_permutation_p] = base.batch_first_rule(
    lu_pivots_to_permutation_p)
ad.defjvp_zero(lu_pivots_to_permutation_p)


def lu_pivots_to_permutation(pivots, permutation_size: int):
  """The permutation that applying the row interchanges `pivots` in order gives."""
  pivots = jnp.asarray(pivots, np.int32)
  return lu_pivots_to_permutation_p.bind(pivots, permutation_size=int(permutation_size))
