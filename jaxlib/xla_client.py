"""The Python face of jaxlib: clients, devices, buffers and executables.

Everything here drives a plugin through the C API bindings in `_jax`.
"""

from __future__ import annotations

import enum
import os
from typing import Any, Sequence

import numpy as np

from jaxlib import _jax
from jaxlib import plugin_support
from jaxlib.batched_transfers import ArrayCopySemantics as ArrayCopySemantics
from jaxlib.batched_transfers import HostBufferSemantics as HostBufferSemantics
from jaxlib.batched_transfers import batched_block_until_ready as batched_block_until_ready
from jaxlib.batched_transfers import batched_copy_array_to_devices_with_sharding as batched_copy_array_to_devices_with_sharding  # noqa: E501
from jaxlib.batched_transfers import batched_device_put as batched_device_put
from jaxlib.batched_transfers import reorder_shards as reorder_shards
from jaxlib.custom_calls import custom_call_targets as custom_call_targets
from jaxlib.custom_calls import register_custom_call_handler as register_custom_call_handler
from jaxlib.custom_calls import register_custom_call_target as register_custom_call_target
from jaxlib.custom_calls import custom_call_partitioners as custom_call_partitioners
from jaxlib.custom_calls import register_custom_call_partitioner as register_custom_call_partitioner
from jaxlib.hlo_sharding import HloSharding as HloSharding
from jaxlib.sharding import GSPMDSharding as GSPMDSharding
from jaxlib.sharding import NamedSharding as NamedSharding
from jaxlib.sharding import Sharding as Sharding
from jaxlib.sharding import SingleDeviceSharding as SingleDeviceSharding

_version = _jax._version

XlaRuntimeError = _jax.XlaRuntimeError
Client = _jax.Client
Device = _jax.Device
Memory = _jax.Memory
Buffer = _jax.Buffer
LoadedExecutable = _jax.LoadedExecutable
TopologyDescription = _jax.TopologyDescription
DeviceList = _jax.DeviceList


class GpuLibNotLinkedError(Exception):
  """Raised when a GPU client is asked for but no GPU plugin is installed."""

  def __init__(self):
    super().__init__("No GPU plugin is installed: pip install jax[cuda12] or jax[rocm6].")


class PrimitiveType(enum.IntEnum):
  """Element types; values follow the C API's PJRT_Buffer_Type."""
  PRIMITIVE_TYPE_INVALID = 0
  PRED = 1
  S8 = 2
  S16 = 3
  S32 = 4
  S64 = 5
  U8 = 6
  U16 = 7
  U32 = 8
  U64 = 9
  F16 = 10
  F32 = 11
  F64 = 12
  BF16 = 13
  C64 = 14
  C128 = 15
  F8E5M2 = 16
  F8E4M3FN = 17
  F8E4M3B11FNUZ = 18
  F8E5M2FNUZ = 19
  F8E4M3FNUZ = 20
  S4 = 21
  U4 = 22
  TOKEN = 23
  F8E4M3 = 26
  F8E3M4 = 27


def _dtype_table() -> dict[PrimitiveType, np.dtype]:
  import ml_dtypes
  return {
      PrimitiveType.PRED: np.dtype(np.bool_), PrimitiveType.S8: np.dtype(np.int8),
      PrimitiveType.S16: np.dtype(np.int16), PrimitiveType.S32: np.dtype(np.int32),
      PrimitiveType.S64: np.dtype(np.int64), PrimitiveType.U8: np.dtype(np.uint8),
      PrimitiveType.U16: np.dtype(np.uint16), PrimitiveType.U32: np.dtype(np.uint32),
      PrimitiveType.U64: np.dtype(np.uint64), PrimitiveType.F16: np.dtype(np.float16),
      PrimitiveType.F32: np.dtype(np.float32), PrimitiveType.F64: np.dtype(np.float64),
      PrimitiveType.BF16: np.dtype(ml_dtypes.bfloat16), PrimitiveType.C64: np.dtype(np.complex64),
      PrimitiveType.C128: np.dtype(np.complex128),
      PrimitiveType.F8E5M2: np.dtype(ml_dtypes.float8_e5m2),
      PrimitiveType.F8E4M3FN: np.dtype(ml_dtypes.float8_e4m3fn),
      PrimitiveType.F8E4M3B11FNUZ: np.dtype(ml_dtypes.float8_e4m3b11fnuz),
      PrimitiveType.F8E5M2FNUZ: np.dtype(ml_dtypes.float8_e5m2fnuz),
      PrimitiveType.F8E4M3FNUZ: np.dtype(ml_dtypes.float8_e4m3fnuz),
      PrimitiveType.F8E4M3: np.dtype(ml_dtypes.float8_e4m3),
      PrimitiveType.F8E3M4: np.dtype(ml_dtypes.float8_e3m4),
      PrimitiveType.S4: np.dtype(ml_dtypes.int4), PrimitiveType.U4: np.dtype(ml_dtypes.uint4),
  }


_TYPE_TO_DTYPE = _dtype_table()
_DTYPE_TO_TYPE = {v: k for k, v in _TYPE_TO_DTYPE.items()}


def dtype_to_etype(dtype) -> PrimitiveType:
  dtype = np.dtype(dtype)
  try:
    return _DTYPE_TO_TYPE[dtype]
  except KeyError:
    raise TypeError(f"dtype {dtype} is not supported by jaxlib; supported: "
                    f"{sorted(str(d) for d in _DTYPE_TO_TYPE)}") from None


def etype_to_dtype(etype) -> np.dtype:
  return _TYPE_TO_DTYPE[PrimitiveType(etype)]


def _as_dtype(element_type) -> np.dtype:
  """A numpy dtype from a dtype-like or a PrimitiveType (as XLA's Shape takes either)."""
  if isinstance(element_type, PrimitiveType):
    if element_type not in _TYPE_TO_DTYPE:
      raise TypeError(f"element type {element_type.name} has no array dtype")
    return _TYPE_TO_DTYPE[element_type]
  return np.dtype(element_type)


class Shape:
  """An array shape (element type and dimensions, optionally a layout given as the
  dimensions in minor-to-major order) or a tuple of shapes."""

  def __init__(self, dtype=None, dims: Sequence[int] = (), tuple_shapes=None, layout=None):
    self._dtype = None if dtype is None else _as_dtype(dtype)
    self._dims = tuple(int(d) for d in dims)
    self._tuple = None if tuple_shapes is None else list(tuple_shapes)
    if layout is not None:
      layout = tuple(int(d) for d in layout)
      if sorted(layout) != list(range(len(self._dims))):
        raise ValueError(f"layout {layout} is not a minor-to-major permutation of the "
                         f"{len(self._dims)} dimensions")
    self._layout = layout

  @staticmethod
  def array_shape(dtype, dims, layout=None) -> "Shape":
    """The shape of an array of `dtype` (a numpy dtype or a PrimitiveType) and `dims`."""
    return Shape(dtype, dims, layout=layout)

  def minor_to_major(self) -> tuple[int, ...]:
    """The layout: dimensions from the fastest-varying; row-major unless one was given."""
    if self._layout is not None:
      return self._layout
    return tuple(range(len(self._dims) - 1, -1, -1))

  @staticmethod
  def tuple_shape(shapes) -> "Shape":
    return Shape(tuple_shapes=shapes)

  def is_array(self) -> bool:
    return self._tuple is None

  def is_tuple(self) -> bool:
    return self._tuple is not None

  def dimensions(self) -> tuple[int, ...]:
    return self._dims

  def rank(self) -> int:
    return len(self._dims)

  def numpy_dtype(self) -> np.dtype:
    return self._dtype

  def element_type(self) -> PrimitiveType:
    return dtype_to_etype(self._dtype)

  def tuple_shapes(self):
    return list(self._tuple or [])

  def __eq__(self, other):
    return (isinstance(other, Shape) and self._dtype == other._dtype and
            self._dims == other._dims and self._tuple == other._tuple)

  def __hash__(self):
    return hash((self._dtype, self._dims, tuple(self._tuple or ())))

  def __repr__(self):
    if self._tuple is not None:
      return "(" + ", ".join(repr(s) for s in self._tuple) + ")"
    return f"{self._dtype}[{','.join(map(str, self._dims))}]"


class CustomCallTargetTraits(enum.IntFlag):
  """Properties of a custom-call target that the compiler may rely on."""
  DEFAULT = 0
  COMMAND_BUFFER_COMPATIBLE = 1


class CompileOptions:
  """Options of a compilation: replicas and partitions for now."""

  def __init__(self):
    self.num_replicas = 1
    self.num_partitions = 1


# ---------------------------------------------------------------- clients

def make_c_api_client(plugin_name: str, options: dict[str, Any] | None = None,
                      distributed_client=None, distribution_options=None) -> Client:
  """Creates a client of a plugin already loaded with load_pjrt_plugin_dynamically.

  `distributed_client` (what `jax.distributed.initialize` connects: an object with
  `key_value_set_bytes(key, value)` and `blocking_key_value_get_bytes(key, timeout_in_ms)`)
  becomes the key-value store the plugin's cross-process collectives rendezvous through;
  it reaches the plugin as the key-value callbacks of the C API's client creation."""
  del distribution_options
  if distributed_client is not None:
    for method in ("key_value_set_bytes", "blocking_key_value_get_bytes"):
      if not callable(getattr(distributed_client, method, None)):
        raise TypeError(f"distributed_client must have a {method} method (a "
                        f"jax.distributed client), got {type(distributed_client).__name__}")
  plugin = plugin_support.loaded_plugin(plugin_name)
  if plugin is None:
    raise RuntimeError(f"plugin '{plugin_name}' is not loaded; call "
                       "plugin_support.load_pjrt_plugin_dynamically first")
  return Client.create(plugin, dict(options or {}), distributed_client)


def make_c_api_device_topology(plugin_name: str, topology_name: str = "",
                               **options) -> TopologyDescription:
  """The topology `topology_name` (e.g. "v5e:2x2" for libtpu) as the plugin describes
  it, made without a client or any device present (PJRT_TopologyDescription_Create);
  `options` are the plugin's topology options. The plugin must be loaded already."""
  plugin = plugin_support.loaded_plugin(plugin_name)
  if plugin is None:
    raise RuntimeError(f"plugin '{plugin_name}' is not loaded; call "
                       "plugin_support.load_pjrt_plugin_dynamically first")
  return _jax.make_topology(plugin, topology_name, dict(options))


def make_compile_only_client(topology: TopologyDescription) -> Client:
  """A client whose devices are `topology`'s: programs compile for them (ahead of
  time, through the plugin), but nothing is transferred to them or run on them."""
  return _jax.make_compile_only_client(topology)


def make_cpu_client(asynchronous=True, distributed_client=None, node_id=0, num_nodes=1,
                    collectives=None, num_devices=None, get_local_topology_timeout_minutes=None,
                    get_global_topology_timeout_minutes=None, transfer_server_factory=None) -> Client:
  """A client of the CPU plugin (jaxlib-cpu), with `num_devices` virtual devices.

  With `num_nodes` > 1 it is process `node_id` of a group: its devices are those of
  every process (global ids node_id * num_devices + i), of which it runs its own, and
  collectives cross processes through `collectives` (only "gloo" here), which meets its
  peers through `distributed_client`'s key-value store."""
  del asynchronous, get_local_topology_timeout_minutes, transfer_server_factory
  del get_global_topology_timeout_minutes
  if not plugin_support.pjrt_plugin_loaded("cpu"):
    plugin_support.load_pjrt_plugin_dynamically("cpu", plugin_support.cpu_plugin_library_path())
  options = {}
  if num_devices is not None:
    options["num_devices"] = int(num_devices)
  if num_nodes != 1:
    if distributed_client is None:
      raise ValueError(f"make_cpu_client(num_nodes={num_nodes}) needs the distributed_client "
                       "of jax.distributed.initialize()")
    if not 0 <= node_id < num_nodes:
      raise ValueError(f"node_id must be in [0, num_nodes); got node_id={node_id}, "
                       f"num_nodes={num_nodes}")
    if collectives not in (None, "gloo") and not isinstance(collectives, GlooCollectives):
      raise ValueError(f"collectives={collectives!r}: the CPU plugin carries cross-process "
                       "collectives with Gloo only (collectives=None or 'gloo')")
    options["node_id"] = int(node_id)
    options["num_nodes"] = int(num_nodes)
  return make_c_api_client("cpu", options, distributed_client=distributed_client)


class GlooCollectives:
  """What `make_gloo_tcp_collectives` returns: the CPU plugin's Gloo engine over TCP."""

  def __init__(self, distributed_client=None, hostname=None, interface=None):
    self.distributed_client, self.hostname, self.interface = (distributed_client, hostname,
                                                              interface)


def make_gloo_tcp_collectives(distributed_client, hostname=None, interface=None):
  return GlooCollectives(distributed_client, hostname, interface)


def generate_pjrt_gpu_plugin_options() -> dict[str, Any]:
  """Create options of a PJRT GPU plugin from the environment, as JAX reads them:
  XLA_PYTHON_CLIENT_ALLOCATOR ("default", "platform", "bfc", "cuda_async"),
  XLA_CLIENT_MEM_FRACTION (or XLA_PYTHON_CLIENT_MEM_FRACTION),
  XLA_PYTHON_CLIENT_PREALLOCATE and XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB."""
  options: dict[str, Any] = {"platform_name": "cuda"}
  allocator = os.getenv("XLA_PYTHON_CLIENT_ALLOCATOR", "default").lower()
  if allocator not in ("default", "platform", "bfc", "cuda_async"):
    raise ValueError(f"XLA_PYTHON_CLIENT_ALLOCATOR={allocator!r}: expected one of default, "
                     "platform, bfc, cuda_async")
  options["allocator"] = allocator
  fraction = os.getenv("XLA_CLIENT_MEM_FRACTION") or os.getenv("XLA_PYTHON_CLIENT_MEM_FRACTION")
  if fraction:
    options["memory_fraction"] = float(fraction)
  preallocate = os.getenv("XLA_PYTHON_CLIENT_PREALLOCATE")
  if preallocate:
    options["preallocate"] = preallocate not in ("0", "false", "False")
  collective = os.getenv("XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB")
  if collective:
    options["collective_memory_size"] = int(collective) * (1 << 20)
  return options


def make_gpu_client(distributed_client=None, node_id=0, num_nodes=1, platform_name=None,
                    allowed_devices=None, mock=None, mock_gpu_topology=None) -> Client:
  """A client of an installed GPU plugin (cuda first, then rocm)."""
  names = [platform_name] if platform_name else ["cuda", "rocm"]
  for name in names:
    package = plugin_support.import_from_plugin(name, "")
    if package is None:
      continue
    plugin_support.load_pjrt_plugin_dynamically(name, package.library_path())
    options = {}
    if mock:
      options["mock"] = True
    if mock_gpu_topology:
      options["mock_gpu_topology"] = str(mock_gpu_topology)
    if allowed_devices:
      options["allowed_devices"] = sorted(int(d) for d in allowed_devices)
    if num_nodes != 1:
      # The plugin answers for itself: a GPU plugin without multi-process clients
      # refuses them with that reason (C API: create_distributed_client).
      options["node_id"], options["num_nodes"] = int(node_id), int(num_nodes)
      return make_c_api_client(name, options, distributed_client=distributed_client)
    return make_c_api_client(name, options)
  raise GpuLibNotLinkedError()


# ---------------------------------------------------------------- Client methods

def _buffer_from_pyval(self: Client, pyval, device: Device | None = None, force_copy: bool = False,
                       host_buffer_semantics=HostBufferSemantics.ZERO_COPY) -> Buffer:
  """A buffer holding `pyval` on `device`.

  With ZERO_COPY (and not force_copy) a C-contiguous numpy array may become the
  buffer's memory, without a copy, when the plugin can read it in place (the CPU
  plugin does for arrays 16-byte aligned); the buffer then keeps the array alive,
  and the caller must not change it while the buffer lives. Otherwise the
  values are copied before this returns."""
  array = np.asarray(pyval)
  zero_copy = (host_buffer_semantics == HostBufferSemantics.ZERO_COPY and not force_copy
               and array.flags.c_contiguous and array.size > 0)
  if not array.flags.c_contiguous:
    # (0-d arrays are always contiguous; ascontiguousarray would make them 1-d.)
    array = np.ascontiguousarray(array)
  etype = dtype_to_etype(array.dtype)
  raw = array.reshape(-1).view(np.uint8) if array.size else np.empty(0, np.uint8)
  # `raw` is a view of `array`: holding it holds the array's memory.
  return _jax.buffer_from_bytes(self, raw, int(etype), list(array.shape), device,
                                raw if zero_copy else None)


def _device_getattr(self: Device, name: str):
  """A plugin-defined fact about the device (e.g. a TPU's `coords`, `core_on_chip`)."""
  attributes = self._attributes
  if name in attributes:
    return attributes[name]
  raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


Device.__getattr__ = _device_getattr


def _compile_and_load(self: Client, computation, executable_devices=None, compile_options=None,
                      host_callbacks=()) -> LoadedExecutable:
  if isinstance(computation, bytes):
    computation = computation.decode("utf-8")
  if not isinstance(computation, str):
    raise TypeError("compile_and_load expects XLA HLO text (str), got "
                    f"{type(computation).__name__}")
  devices = list(executable_devices) if executable_devices is not None else self.devices()[:1]
  options = compile_options or CompileOptions()
  if getattr(options, "num_partitions", 1) != 1:
    raise ValueError(f"num_partitions={options.num_partitions}: jax compiles replicated "
                     "programs (it partitions them itself); use num_replicas")
  return _jax.compile(self, computation, devices, int(getattr(options, "num_replicas", 1)))


def _deserialize_executable(self: Client, serialized: bytes, executable_devices=None,
                            compile_options=None) -> LoadedExecutable:
  devices = list(executable_devices) if executable_devices is not None else self.devices()[:1]
  num_replicas = int(getattr(compile_options, "num_replicas", len(devices) or 1))
  return _jax.deserialize_and_load(self, serialized, devices, num_replicas)


Client.buffer_from_pyval = _buffer_from_pyval
Client.compile_and_load = _compile_and_load
Client.compile = _compile_and_load
Client.deserialize_executable = _deserialize_executable


# ---------------------------------------------------------------- Buffer methods

def _buffer_shape(self: Buffer) -> tuple[int, ...]:
  return tuple(self._dims)


def _buffer_dtype(self: Buffer) -> np.dtype:
  return _TYPE_TO_DTYPE[PrimitiveType(self._type)]


def _buffer_to_numpy(self: Buffer) -> np.ndarray:
  out = np.empty(self.shape, self.dtype)
  self._copy_to_host(out.reshape(-1).view(np.uint8) if out.size else np.empty(0, np.uint8))
  return out


def _buffer_array(self: Buffer, dtype=None, copy=None) -> np.ndarray:
  """numpy's view of the buffer: in place (read-only) when its memory is host
  memory and no conversion or copy is asked for; else a copy."""
  if not copy and (dtype is None or np.dtype(dtype) == _buffer_dtype(self)):
    view = self._host_view()
    if view is not None:
      return view
  if copy is False:
    raise ValueError("this buffer cannot be viewed in place as a numpy array "
                     f"(dtype {_buffer_dtype(self)}, requested {dtype}); use copy=None")
  out = _buffer_to_numpy(self)
  return out if dtype is None else out.astype(dtype)


def _buffer_dlpack(self: Buffer, *, stream=None, max_version=None, dl_device=None, copy=None):
  if stream is not None and stream != -1:
    raise BufferError(f"__dlpack__: stream={stream!r}; host buffers take no stream")
  view = None if copy else self._dlpack_view()
  if view is None:
    if copy is False:
      raise BufferError("this buffer's memory cannot be exported in place through DLPack")
    return np.array(_buffer_to_numpy(self)).__dlpack__(max_version=max_version)
  kwargs = {} if max_version is None else {"max_version": max_version}
  if dl_device is not None:
    kwargs["dl_device"] = dl_device
  return view.__dlpack__(**kwargs)


def _buffer_dlpack_device(self: Buffer) -> tuple[int, int]:
  if self.device().platform != "cpu":
    raise BufferError(f"DLPack export of {self.device().platform} buffers is not supported")
  return (1, 0)  # kDLCPU


def _buffer_block_until_ready(self: Buffer) -> Buffer:
  self._block_until_ready()
  return self


Buffer.shape = property(_buffer_shape)
Buffer.dtype = property(_buffer_dtype)
Buffer.ndim = property(lambda self: len(self._dims))
Buffer.size = property(lambda self: int(np.prod(self._dims, dtype=np.int64)))
Buffer.__array__ = _buffer_array
Buffer.__dlpack__ = _buffer_dlpack
Buffer.__dlpack_device__ = _buffer_dlpack_device
Buffer.to_py = _buffer_to_numpy
Buffer.block_until_ready = _buffer_block_until_ready
Buffer.__repr__ = lambda self: f"Buffer({_buffer_to_numpy(self)!r})"


# ---------------------------------------------------------------- LoadedExecutable methods

def _execute(self: LoadedExecutable, arguments: Sequence[Buffer], donated=()) -> list[Buffer]:
  return self._execute([list(arguments)], list(donated))[0]


def _execute_sharded(self: LoadedExecutable, arguments: Sequence[Sequence[Buffer]],
                     donated=()) -> list[list[Buffer]]:
  """arguments[i][d]: argument i on device d; returns outputs[o][d]."""
  per_device = [list(x) for x in zip(*arguments)] if arguments else [
      [] for _ in self.local_devices()]
  outs = self._execute(per_device, list(donated))
  return [list(x) for x in zip(*outs)]


def _hlo_modules(self: LoadedExecutable) -> list[str]:
  return [self._optimized_hlo()]


LoadedExecutable.execute = _execute
LoadedExecutable.execute_sharded = _execute_sharded
LoadedExecutable.hlo_modules = _hlo_modules
LoadedExecutable.as_text = lambda self: self._optimized_hlo()
LoadedExecutable.get_compiled_memory_stats = lambda self: self._memory_stats()
LoadedExecutable.get_output_memory_kinds = lambda self: [["device"] * self._num_outputs()]


def _register_host_callback(self: Client, callback, operand_nbytes: Sequence[int],
                            result_nbytes: Sequence[int]) -> int:
  """Register `callback(operands, results)` (lists of memoryviews over the buffers) for
  custom-calls `xla_ffi_python_cpu_callback` with backend_config={index = N : ui64}; returns N."""
  return _jax._register_host_callback(self, callback, [int(n) for n in operand_nbytes],
                                      [int(n) for n in result_nbytes])


if hasattr(_jax, "_register_host_callback"):
  Client.register_host_callback = _register_host_callback
  Client.host_callbacks_supported = lambda self: _jax._host_callbacks_supported(self)
