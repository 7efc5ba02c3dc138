"""Eigenvalues and eigenvectors of general (non-symmetric) square matrices.

Eigenvalues: the shifted QR algorithm in complex arithmetic. Each step factors
H - mu * D = QR and continues with RQ + mu * D, a similarity transform; D is the identity
on the still active leading block, whose last subdiagonal entry is driven to zero by a
Wilkinson shift and then deflated. Eigenvectors: inverse iteration with each
eigenvalue, perturbed slightly so that the shifted matrix stays invertible.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from jax._src.lax import control_flow
from jax._src.lax import linalg as lax_linalg
from jax._src.numpy import reductions
from jax._src.numpy import ufuncs
from jax._src.numpy.creation import asarray, eye
from jax._src.numpy.util import check_arraylike_strict

_STEPS_PER_EIGENVALUE = 60


class EigResult(NamedTuple):
  eigenvalues: object
  eigenvectors: object


def _complex_dtype(dtype):
  return np.result_type(dtype, np.complex64)


def _eps(cdtype) -> float:
  return float(np.finfo(np.float32 if cdtype == np.complex64 else np.float64).eps)


def _wilkinson_shift(h, m):
  """The eigenvalue of the trailing 2x2 of the active block closer to its last entry."""
  i = ufuncs.maximum(m - 2, 0)
  a = h[i, i]
  b = h[i, i + 1]
  c = h[i + 1, i]
  d = h[i + 1, i + 1]
  tr_half = (a + d) / 2
  disc = ufuncs.sqrt(((a - d) / 2) ** 2 + b * c)
  l1, l2 = tr_half + disc, tr_half - disc
  return ufuncs.where(ufuncs.abs(l1 - d) < ufuncs.abs(l2 - d), l1, l2)


def _eigvals_one(a):
  n = a.shape[-1]
  cdtype = _complex_dtype(a.dtype)
  h0 = a.astype(cdtype)
  if n == 1:
    return h0[:, 0]
  idx = np.arange(n)
  rows, cols = np.indices((n, n))
  eps = _eps(cdtype)
  scale = reductions.max(ufuncs.abs(h0)) + 1

  def cond(state):
    _, m, it = state
    return (m > 1) & (it < _STEPS_PER_EIGENVALUE * n)

  def body(state):
    h, m, it = state
    mu = _wilkinson_shift(h, m)
    active = (idx < m).astype(cdtype)
    shift = mu * eye(n, dtype=cdtype) * active[None, :]
    q, r = lax_linalg.qr(h - shift, full_matrices=True)
    h = r @ q + shift
    sub = ufuncs.abs(h[m - 1, m - 2])
    near = ufuncs.abs(h[m - 1, m - 1]) + ufuncs.abs(h[m - 2, m - 2])
    done = sub <= eps * ufuncs.maximum(near, eps * scale)
    m = ufuncs.where(done, m - 1, m)
    # Exact zeros below the deflated block keep the next Q block diagonal; a tiny
    # leftover there would be amplified by the nearly singular shifted active block.
    h = ufuncs.where((rows >= m) & (cols < m), 0, h)
    return h, m, it + 1

  h, _, _ = control_flow.while_loop(cond, body, (h0, asarray(n), asarray(0)))
  return h[idx, idx]


def _batched(fn, a):
  from jax._src import api  # vmap is an api-layer transform; numpy sits above it
  lead = a.shape[:-2]
  flat = a.reshape((-1,) + a.shape[-2:])
  out = api.vmap(fn)(flat)
  return out.reshape(lead + out.shape[1:])


def _check(name, a):
  check_arraylike_strict(name, a)
  a = asarray(a)
  if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
    raise ValueError(f"{name}: argument must be a square matrix or stack of them, got "
                     f"shape {a.shape}")
  if not np.issubdtype(a.dtype, np.inexact):
    a = a.astype(np.result_type(a.dtype, np.float32) if a.dtype != np.bool_ else np.float32)
  return a


def _compiled(fn):
  """fn compiled once per input shape: the iteration would otherwise dispatch op by op."""
  from jax._src import api  # jit is an api-layer transform; numpy sits above it
  return api.jit(fn)


def eigvals(a):
  a = _check("eigvals", a)
  return _compiled(_eigvals_batched)(a)


def _eigvals_batched(a):
  return _batched(_eigvals_one, a)


def _eigvecs_one(a, w):
  """Unit eigenvectors (columns) for the eigenvalues w, by inverse iteration."""
  n = a.shape[-1]
  cdtype = w.dtype
  a = a.astype(cdtype)
  # The perturbation keeps (a - lam) invertible; inverse iteration still converges to
  # the eigenvector because the perturbation is tiny next to the eigenvalue gaps.
  tiny = (reductions.max(ufuncs.abs(a)) + 1) * _eps(cdtype) * 16
  ident = eye(n, dtype=cdtype)
  start = (1 + np.arange(n) / (2 * n)).astype(cdtype)

  from jax._src.numpy import linalg  # linalg imports the numpy package that loads us

  def one(lam):
    m = a - (lam + tiny) * ident
    v = start
    for _ in range(3):
      v = linalg.solve(m, v)
      v = v / ufuncs.sqrt(reductions.sum(ufuncs.abs(v) ** 2))
    return v

  from jax._src import api  # vmap over the eigenvalues
  return api.vmap(one, out_axes=1)(w)


def eig(a):
  a = _check("eig", a)
  return EigResult(*_compiled(_eig)(a))


def _eig(a):
  w = _batched(_eigvals_one, a)
  if a.ndim == 2:
    return w, _eigvecs_one(a, w)
  from jax._src import api  # vmap over the stacked matrices
  lead = a.shape[:-2]
  fa = a.reshape((-1,) + a.shape[-2:])
  fw = w.reshape((-1, a.shape[-1]))
  v = api.vmap(_eigvecs_one)(fa, fw)
  return w, v.reshape(lead + v.shape[1:])

