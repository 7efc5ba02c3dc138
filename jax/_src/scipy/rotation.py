"""jax.scipy.spatial.transform: Rotation (unit quaternions, scalar last) and Slerp.

A Rotation holds one quaternion (shape (4,)) or a stack of them (shape (N, 4));
composition is the Hamilton product and every conversion is vectorised over the
stack, so rotations pass through jit, vmap and grad as pytrees.
"""

from __future__ import annotations

import numpy as np

from jax._src.numpy import linalg as jnp_linalg
from jax._src.numpy import namespace as jnp
from jax._src.tree_util import register_pytree_node

_AXES = {"x": 0, "y": 1, "z": 2}


def _normalize(q):
  return q / jnp_linalg.norm(q, axis=-1, keepdims=True)


def _hamilton(p, q):
  pv, pw = p[..., :3], p[..., 3:]
  qv, qw = q[..., :3], q[..., 3:]
  w = pw * qw - jnp.sum(pv * qv, axis=-1, keepdims=True)
  v = pw * qv + qw * pv + jnp.cross(pv, qv)
  return jnp.concatenate([v, w], axis=-1)


def _from_matrix(m):
  # Shepperd: build the quaternion from the largest of the diagonal and the trace
  # (the best-conditioned of four candidate formulas), then normalise.
  trace = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
  candidates = []
  for i in range(3):
    j, k = (i + 1) % 3, (i + 2) % 3
    q = [None] * 4
    q[i] = 1 - trace + 2 * m[..., i, i]
    q[j] = m[..., j, i] + m[..., i, j]
    q[k] = m[..., k, i] + m[..., i, k]
    q[3] = m[..., k, j] - m[..., j, k]
    candidates.append(jnp.stack(q, -1))
  candidates.append(jnp.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                               m[..., 1, 0] - m[..., 0, 1], 1 + trace], -1))
  decision = jnp.stack([m[..., 0, 0], m[..., 1, 1], m[..., 2, 2], trace], -1)
  choice = jnp.argmax(decision, axis=-1)
  q = jnp.take_along_axis(jnp.stack(candidates, -2), choice[..., None, None], axis=-2)[..., 0, :]
  return _normalize(q)


def _from_rotvec(v):
  sq = jnp.sum(v * v, axis=-1, keepdims=True)
  small = sq <= 1e-6
  # Series of sin(a/2)/a and cos(a/2) in a^2 near zero keep the gradient finite there
  # (the norm itself has none at the identity).
  angle = jnp.sqrt(jnp.where(small, 1.0, sq))
  scale = jnp.where(small, 0.5 - sq / 48 + sq * sq / 3840, jnp.sin(angle / 2) / angle)
  w = jnp.where(small, 1 - sq / 8 + sq * sq / 384, jnp.cos(angle / 2))
  return jnp.concatenate([scale * v, w], axis=-1)


def _as_rotvec(q):
  q = jnp.where(q[..., 3:] < 0, -q, q)
  norm = jnp_linalg.norm(q[..., :3], axis=-1, keepdims=True)
  angle = 2 * jnp.arctan2(norm, q[..., 3:])
  small = angle <= 1e-3
  safe = jnp.where(small, 1.0, angle)
  scale = jnp.where(small, 2 + angle ** 2 / 12 + 7 * angle ** 4 / 2880, safe / jnp.sin(safe / 2))
  return scale * q[..., :3]


def _elementary(axis, angle):
  half = angle / 2
  cols = [jnp.zeros_like(half)] * 3
  cols[axis] = jnp.sin(half)
  return jnp.stack(cols + [jnp.cos(half)], -1)


class Rotation:
  """A rotation or a stack of rotations in 3 dimensions."""

  def __init__(self, quat):
    self.quat = jnp.asarray(quat)

  # ------------------------------------------------------------------ constructors

  @classmethod
  def from_quat(cls, quat, *, scalar_first: bool = False):
    quat = jnp.asarray(quat)
    if quat.shape[-1] != 4 or quat.ndim > 2:
      raise ValueError(f"Expected `quat` to have shape (4,) or (N, 4), got {quat.shape}.")
    if not np.issubdtype(quat.dtype, np.floating):
      quat = quat.astype(jnp.result_type(quat, 1.0))
    if scalar_first:
      quat = jnp.roll(quat, -1, axis=-1)
    return cls(_normalize(quat))

  @classmethod
  def from_matrix(cls, matrix):
    matrix = jnp.asarray(matrix)
    if matrix.shape[-2:] != (3, 3) or matrix.ndim > 3:
      raise ValueError(f"Expected `matrix` to have shape (3, 3) or (N, 3, 3), got "
                       f"{matrix.shape}")
    return cls(_from_matrix(matrix.astype(jnp.result_type(matrix, 1.0))))

  @classmethod
  def from_rotvec(cls, rotvec, degrees: bool = False):
    rotvec = jnp.asarray(rotvec)
    if rotvec.shape[-1] != 3 or rotvec.ndim > 2:
      raise ValueError(f"Expected `rot_vec` to have shape (3,) or (N, 3), got {rotvec.shape}")
    rotvec = rotvec.astype(jnp.result_type(rotvec, 1.0))
    return cls(_from_rotvec(jnp.deg2rad(rotvec) if degrees else rotvec))

  @classmethod
  def from_mrp(cls, mrp):
    mrp = jnp.asarray(mrp)
    mrp = mrp.astype(jnp.result_type(mrp, 1.0))
    sq = jnp.sum(mrp * mrp, axis=-1, keepdims=True)
    return cls(jnp.concatenate([2 * mrp, 1 - sq], -1) / (1 + sq))

  @classmethod
  def from_euler(cls, seq: str, angles, degrees: bool = False):
    if len(seq) not in (1, 2, 3) or not (seq.islower() or seq.isupper()) or any(
        c not in _AXES for c in seq.lower()):
      raise ValueError(f"Expected axis specification to be a string of up to 3 characters "
                       f"from 'xyz' (extrinsic) or 'XYZ' (intrinsic), got {seq!r}")
    angles = jnp.asarray(angles)
    angles = angles.astype(jnp.result_type(angles, 1.0))
    if degrees:
      angles = jnp.deg2rad(angles)
    single = angles.ndim == 0 or (angles.ndim == 1 and len(seq) > 1)
    angles = angles.reshape((-1, len(seq)))
    intrinsic = seq.isupper()
    q = None
    for i, c in enumerate(seq.lower()):
      e = _elementary(_AXES[c], angles[:, i])
      # Extrinsic: each new rotation applies after (left of) the previous ones;
      # intrinsic: about the already rotated axes, i.e. on the right.
      q = e if q is None else (_hamilton(q, e) if intrinsic else _hamilton(e, q))
    return cls(q[0] if single else q)

  @classmethod
  def identity(cls, num=None, dtype=float):
    q = jnp.zeros((4,) if num is None else (num, 4), dtype)
    return cls(q.at[..., 3].set(1))

  @classmethod
  def concatenate(cls, rotations):
    return cls(jnp.concatenate([jnp.atleast_2d(r.quat) for r in rotations]))

  # ------------------------------------------------------------------ conversions

  def as_quat(self, canonical: bool = False, *, scalar_first: bool = False):
    q = self.quat
    if canonical:
      q = jnp.where(q[..., 3:] < 0, -q, q)
    return jnp.roll(q, 1, axis=-1) if scalar_first else q

  def as_matrix(self):
    x, y, z, w = (self.quat[..., i] for i in range(4))
    rows = [[w * w + x * x - y * y - z * z, 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), w * w - x * x + y * y - z * z, 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), w * w - x * x - y * y + z * z]]
    return jnp.stack([jnp.stack(r, -1) for r in rows], -2)

  def as_rotvec(self, degrees: bool = False):
    v = _as_rotvec(self.quat)
    return jnp.rad2deg(v) if degrees else v

  def as_mrp(self):
    q = jnp.where(self.quat[..., 3:] < 0, -self.quat, self.quat)
    return q[..., :3] / (1 + q[..., 3:])

  # ------------------------------------------------------------------ operations

  def apply(self, vectors, inverse: bool = False):
    m = self.as_matrix()
    if inverse:
      m = jnp.swapaxes(m, -1, -2)
    return jnp.einsum("...ij,...j->...i", m, jnp.asarray(vectors))

  def inv(self):
    return Rotation(self.quat * jnp.asarray([-1, -1, -1, 1], self.quat.dtype))

  def magnitude(self):
    norm = jnp_linalg.norm(self.quat[..., :3], axis=-1)
    return 2 * jnp.arctan2(norm, jnp.abs(self.quat[..., 3]))

  def mean(self, weights=None):
    # The mean quaternion is the top eigenvector of sum_i w_i q_i q_i^T (Markley et al.).
    q = jnp.atleast_2d(self.quat)
    w = jnp.ones(q.shape[0], q.dtype) if weights is None else jnp.asarray(weights, q.dtype)
    k = jnp.einsum("i,ij,ik->jk", w, q, q)
    return Rotation(jnp_linalg.eigh(k)[1][:, -1])

  def __mul__(self, other):
    return Rotation(_hamilton(self.quat, other.quat))

  def __getitem__(self, index):
    if self.single:
      raise TypeError("Single rotation is not subscriptable.")
    return Rotation(self.quat[index])

  def __len__(self):
    if self.single:
      raise TypeError("Single rotation has no len().")
    return self.quat.shape[0]

  @property
  def single(self) -> bool:
    return self.quat.ndim == 1

  def __repr__(self):
    return f"Rotation(quat={self.quat!r})"


class Slerp:
  """Spherical linear interpolation between key rotations at increasing times.

  Build it with Slerp.init(times, rotations); the fields are the key times, their
  gaps, the key rotations and the rotation vectors between consecutive keys.
  """

  def __init__(self, times, timedelta, rotations, rotvecs):
    self.times = times
    self.timedelta = timedelta
    self.rotations = rotations
    self.rotvecs = rotvecs

  @classmethod
  def init(cls, times, rotations):
    if rotations.single or len(rotations) < 2:
      raise ValueError("`rotations` must contain at least 2 rotations.")
    times = jnp.asarray(times)
    if times.ndim != 1 or times.shape[0] != len(rotations):
      raise ValueError("Expected number of rotations to be equal to number of timestamps "
                       f"given, got {len(rotations)} rotations and {times.shape} times.")
    rotvecs = (rotations[:-1].inv() * rotations[1:]).as_rotvec()
    return cls(times, jnp.diff(times), rotations, rotvecs)

  def __call__(self, times):
    t = jnp.asarray(times)
    flat = jnp.atleast_1d(t)
    idx = jnp.clip(jnp.searchsorted(self.times, flat, side="right") - 1, 0,
                   self.times.shape[0] - 2)
    alpha = (flat - self.times[idx]) / self.timedelta[idx]
    out = self.rotations[idx] * Rotation.from_rotvec(self.rotvecs[idx] * alpha[:, None])
    return out[0] if t.ndim == 0 else out


register_pytree_node(Rotation, lambda r: ((r.quat,), None), lambda _, c: Rotation(c[0]))
register_pytree_node(Slerp, lambda s: ((s.times, s.timedelta, s.rotations, s.rotvecs), None),
                     lambda _, c: Slerp(*c))
