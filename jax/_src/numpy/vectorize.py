"""jnp.vectorize (with generalized-ufunc signatures), apply_along_axis, apply_over_axes,
all built on vmap: one vmap per broadcast (loop) dimension."""

from __future__ import annotations

import functools
import re

from jax._src import core
from jax._src.lax import shape as lax_shape
from jax._src.numpy.util import asarray_like, broadcast_shapes, canonical_axis
from jax._src.api import vmap
from jax._src.numpy.creation import asarray

_DIM = r"\w+"
_CORE = rf"(?:{_DIM}(?:,{_DIM})*)?"
_ARG = rf"\({_CORE}\)"
_ARGS = rf"{_ARG}(?:,{_ARG})*"
_SIGNATURE = rf"^{_ARGS}->{_ARGS}$"


def _vmap(fun, in_axes, out_axes=0):
  return vmap(fun, in_axes=in_axes, out_axes=out_axes)


def _as_array(x):
  return asarray(asarray_like(x))


def _parse_signature(signature: str):
  sig = re.sub(r"\s+", "", signature)
  if not re.match(_SIGNATURE, sig):
    raise ValueError(f"not a valid gufunc signature: {signature}")
  ins, outs = sig.split("->")
  parse = lambda part: [tuple(re.findall(_DIM, arg)) for arg in re.findall(_ARG, part)]
  return parse(ins), parse(outs)


def _bind_core_sizes(args, in_core):
  sizes: dict[str, int] = {}
  for arg, dims in zip(args, in_core):
    shape = core.get_aval(arg).shape
    if len(dims) > len(shape):
      raise ValueError(f"input with shape {shape} does not have enough dimensions for its "
                       f"core dimensions {dims}")
    for name, size in zip(dims, shape[len(shape) - len(dims):]):
      if sizes.setdefault(name, size) != size:
        raise ValueError(f"inconsistent size for core dimension {name!r}: {size} vs "
                         f"{sizes[name]}")
  return sizes


class vectorize:  # noqa: N801 (numpy name)
  """Map a function of scalars (or of core dims, with `signature`) over broadcast arrays."""

  def __init__(self, pyfunc, *, excluded=frozenset(), signature: str | None = None):
    self.pyfunc = pyfunc
    self.excluded = frozenset(excluded)
    self.signature = signature
    functools.update_wrapper(self, pyfunc)

  def __call__(self, *args, **kwargs):
    excluded = {i for i in self.excluded if isinstance(i, int)}
    excluded_kw = {k for k in self.excluded if isinstance(k, str)}
    static_kwargs = {k: v for k, v in kwargs.items() if k in excluded_kw}
    kwargs = {k: v for k, v in kwargs.items() if k not in excluded_kw}
    if kwargs:
      raise NotImplementedError("jnp.vectorize: only excluded keyword arguments are supported")
    mapped_pos = [i for i in range(len(args)) if i not in excluded]
    mapped = [_as_array(args[i]) for i in mapped_pos]

    def call(*vals):
      full = list(args)
      for i, v in zip(mapped_pos, vals):
        full[i] = v
      return self.pyfunc(*full, **static_kwargs)

    if self.signature is None:
      in_core = [()] * len(mapped)
      out_core = None
    else:
      in_core, out_core = _parse_signature(self.signature)
      if len(in_core) != len(mapped):
        raise TypeError(f"wrong number of positional arguments: expected {len(in_core)}, "
                        f"got {len(mapped)}")
      _bind_core_sizes(mapped, in_core)
    loop_shapes = [core.get_aval(a).shape[:core.get_aval(a).ndim - len(c)]
                   for a, c in zip(mapped, in_core)]
    loop_shape = broadcast_shapes(*loop_shapes)
    nloop = len(loop_shape)
    # Give every argument all the loop dims (size 1 where it broadcasts), then vmap
    # once per loop dim; size-1 dims of an argument are not mapped.
    padded = []
    for a, c, ls in zip(mapped, in_core, loop_shapes):
      shape = core.get_aval(a).shape
      new = (1,) * (nloop - len(ls)) + shape
      padded.append(lax_shape.reshape(a, new) if new != shape else a)
    fun = call
    for d in reversed(range(nloop)):
      axes = [None if core.get_aval(p).shape[d] == 1 and loop_shape[d] != 1 else 0
              for p in padded]
      fun = _vmap(fun, tuple(axes))
    # Remove the unmapped size-1 loop dims: vmap with in_axes=None wants them gone.
    squeezed = []
    for p in padded:
      shape = core.get_aval(p).shape
      keep = [i for i in range(len(shape))
              if not (i < nloop and shape[i] == 1 and loop_shape[i] != 1)]
      squeezed.append(lax_shape.reshape(p, tuple(shape[i] for i in keep)))
    out = fun(*squeezed)
    if out_core is not None and len(out_core) > 1 and not isinstance(out, tuple):
      raise ValueError("output must be a tuple when multiple outputs are expected")
    return out


def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
  arr = _as_array(arr)
  nd = core.get_aval(arr).ndim
  axis = canonical_axis(axis, nd)
  fun = lambda x: func1d(x, *args, **kwargs)
  # vmap over the dims after `axis`, then over the dims before it (outermost first).
  for _ in range(nd - 1 - axis):
    fun = _vmap(fun, -1, -1)
  for _ in range(axis):
    fun = _vmap(fun, (0,))
  return fun(arr)


def apply_over_axes(func, a, axes):
  a = _as_array(a)
  for axis in ([axes] if isinstance(axes, int) else axes):
    nd = core.get_aval(a).ndim
    b = func(a, axis)
    b = _as_array(b)
    if core.get_aval(b).ndim == nd - 1:
      b = lax_shape.expand_dims(b, (canonical_axis(axis, nd),))
    elif core.get_aval(b).ndim != nd:
      raise ValueError("function is not returning an array of the correct shape")
    a = b
  return a
