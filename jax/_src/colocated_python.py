"""Colocated Python (`jax.experimental.colocated_python`): Python functions and objects
that run on the host CPU devices colocated with the accelerator devices of their inputs.

In one process every device's host is this process, so a colocated function runs here,
on its inputs as they are, and its outputs become arrays on the colocated CPU devices
(those of its inputs, of `specialize(devices=...)`, or the shardings of `out_specs`).
The CPU device colocated with a CPU device is the device itself; with another
platform's device, the CPU device of the same process.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from jax._src import api
from jax._src import core
from jax._src import sharding as sharding_lib
from jax._src import tree_util
from jax._src import xla_bridge as xb
from jax._src.array import ArrayImpl


def colocated_cpu_devices(devices_or_mesh):
  """The CPU devices colocated with `devices_or_mesh`: a sequence of devices (one each,
  in order) or a Mesh (a Mesh of the same shape and axis names)."""
  if isinstance(devices_or_mesh, sharding_lib.Mesh):
    mesh = devices_or_mesh
    cpu = [_colocated_cpu_device(d) for d in np.asarray(mesh.devices).flat]
    grid = np.empty(len(cpu), dtype=object)
    grid[:] = cpu
    return sharding_lib.Mesh(grid.reshape(np.shape(mesh.devices)), mesh.axis_names)
  if not isinstance(devices_or_mesh, Sequence) or isinstance(devices_or_mesh, str):
    raise TypeError("colocated_cpu_devices expects a sequence of devices or a Mesh, got "
                    f"{devices_or_mesh!r}")
  return [_colocated_cpu_device(d) for d in devices_or_mesh]


def _colocated_cpu_device(device):
  if not hasattr(device, "platform"):
    raise TypeError(f"colocated_cpu_devices expects devices, got {device!r}")
  if device.platform == "cpu":
    return device
  cpus = [d for d in xb.local_devices(backend="cpu")
          if d.process_index == getattr(device, "process_index", 0)]
  if not cpus:
    raise ValueError(f"no CPU device is colocated with {device}")
  return cpus[0]


class _Specs:
  def __init__(self, in_specs=None, out_specs_fn=None, out_specs=None, devices=None):
    self.in_specs, self.out_specs_fn, self.out_specs = in_specs, out_specs_fn, out_specs
    self.devices = None if devices is None else list(devices)


class ColocatedFunction:
  """A Python function run on the CPU devices colocated with its inputs' devices."""

  def __init__(self, fun: Callable, specs: _Specs):
    if not callable(fun):
      raise TypeError(f"colocated_python expects a callable, got {fun!r}")
    self._fun, self._specs = fun, specs
    functools.update_wrapper(self, fun)

  def specialize(self, in_specs=None, out_specs_fn=None, out_specs=None, devices=None):
    """The same function with its input/output specs or its devices fixed."""
    old = self._specs
    if devices is not None:
      for d in devices:
        if getattr(d, "platform", None) != "cpu":
          raise ValueError(f"colocated_python runs on CPU devices; got {d}")
    return ColocatedFunction(self._fun, _Specs(
        in_specs if in_specs is not None else old.in_specs,
        out_specs_fn if out_specs_fn is not None else old.out_specs_fn,
        out_specs if out_specs is not None else old.out_specs,
        devices if devices is not None else old.devices))

  def __call__(self, *args, **kwargs):
    leaves = tree_util.tree_leaves((args, kwargs))
    if any(isinstance(x, core.Tracer) for x in leaves):
      raise TypeError("colocated_python functions run Python on concrete arrays; they "
                      "cannot be called under jit, grad or vmap")
    devices = self._devices(leaves)
    if self._specs.in_specs is not None:
      _check_specs(self._specs.in_specs, (args, kwargs))
    out = self._fun(*args, **kwargs)
    out_specs = self._specs.out_specs
    if out_specs is None and self._specs.out_specs_fn is not None:
      out_specs = self._specs.out_specs_fn(*tree_util.tree_map(_spec_of, (args, kwargs))[0])
    if out_specs is not None:
      _check_specs(out_specs, out)
      return tree_util.tree_map(_put_as_spec, out_specs, out)
    return tree_util.tree_map(functools.partial(_put_on, devices[0]), out)

  def _devices(self, leaves) -> list:
    devices = []
    for x in leaves:
      if isinstance(x, ArrayImpl):
        for d in x.sharding.device_set:
          if d.platform != "cpu":
            raise ValueError("colocated_python inputs must be on CPU devices (see "
                             f"colocated_cpu_devices); got an array on {d}")
          if d not in devices:
            devices.append(d)
    if not devices:
      devices = self._specs.devices
    if not devices:
      raise ValueError("colocated_python: a function without array inputs needs its "
                       "devices: call .specialize(devices=...) first")
    return devices


def _spec_of(x):
  if isinstance(x, ArrayImpl):
    return api.ShapeDtypeStruct(x.shape, x.dtype, sharding=x.sharding)
  return x


def _check_specs(specs, values) -> None:
  spec_leaves, spec_tree = tree_util.tree_flatten(specs)
  value_leaves, value_tree = tree_util.tree_flatten(values)
  if spec_tree != value_tree:
    raise ValueError(f"colocated_python: specs {spec_tree} do not match values {value_tree}")
  for spec, value in zip(spec_leaves, value_leaves):
    if tuple(spec.shape) != tuple(np.shape(value)) or np.dtype(spec.dtype) != np.result_type(value):
      raise ValueError(f"colocated_python: a value of shape {np.shape(value)} and dtype "
                       f"{np.result_type(value)} does not match its spec {spec}")


def _put_as_spec(spec, x):
  sharding = getattr(spec, "sharding", None)
  return api.device_put(x, sharding) if sharding is not None else x


def _put_on(device, x):
  if isinstance(x, (ArrayImpl, np.ndarray, np.generic)):
    return api.device_put(x, device)
  return x


def colocated_python(fun: Callable) -> ColocatedFunction:
  """`fun` run on the host CPU devices colocated with its inputs' devices."""
  return ColocatedFunction(fun, _Specs())


class _ColocatedObject:
  """An instance of a colocated class: its methods are colocated functions."""

  def __init__(self, obj):
    object.__setattr__(self, "_obj", obj)

  def __getattr__(self, name):
    value = getattr(self._obj, name)
    return colocated_python(value) if callable(value) else value


def colocated_python_class(cls: type) -> Callable[..., Any]:
  """`cls`, whose instances live on the colocated host and whose methods run there."""
  if not isinstance(cls, type):
    raise TypeError(f"colocated_python_class expects a class, got {cls!r}")

  @functools.wraps(cls, updated=())
  def make(*args, **kwargs):
    return _ColocatedObject(cls(*args, **kwargs))

  return make
