"""`jax.export`: a jitted function turned into a serializable artifact (its XLA HLO module,
argument and result types and pytree structures) that can be loaded and called later,
in another process, without the Python source.

The module is this stack's interchange format, HLO text. Calling an Exported compiles
it for the current backend; inside jit/vmap the call runs as a host callback. Custom
pytree nodes in the argument or result structures must be registered for serialization
(register_pytree_node_serialization / register_namedtuple_serialization), as in JAX.
"""

from __future__ import annotations

import collections
import dataclasses
import pickle
from typing import Any, Callable, Sequence

import numpy as np

from jax._src import api
from jax._src import callback
from jax._src import core
from jax._src import dtypes
from jax._src import execution
from jax._src import tree_util
from jax._src import xla_bridge
from jax._src.interpreters import partial_eval as pe
from jax._src.lowering import hlo

_FORMAT = "jax-exported-hlo/1"


def minimum_supported_calling_convention_version() -> int:
  return 9


def maximum_supported_calling_convention_version() -> int:
  return 10


def default_export_platform() -> str:
  """The platform an export targets by default: the default backend's."""
  return xla_bridge.default_backend()


class DisabledSafetyCheck:
  """A safety check that calling an Exported should skip."""

  def __init__(self, _impl: str):
    self._impl = _impl

  @classmethod
  def platform(cls) -> DisabledSafetyCheck:
    """Allow calling on a platform the module was not exported for."""
    return cls("platform")

  @classmethod
  def custom_call(cls, target_name: str) -> DisabledSafetyCheck:
    """Allow a custom call to `target_name` that is not known to be stable."""
    return cls(f"custom_call:{target_name}")

  @classmethod
  def shape_assertions(cls) -> DisabledSafetyCheck:
    return cls("shape_assertions")

  def is_custom_call(self) -> str | None:
    return self._impl[len("custom_call:"):] if self._impl.startswith("custom_call:") else None

  def __eq__(self, other):
    return isinstance(other, DisabledSafetyCheck) and self._impl == other._impl

  def __hash__(self):
    return hash(self._impl)

  def __repr__(self):
    return f"DisabledSafetyCheck({self._impl})"


# ----------------------------------------------------------------------------- pytrees


_node_serialization: dict[type, tuple[str, Callable, Callable, Callable | None]] = {}
_node_by_name: dict[str, type] = {}


def register_pytree_node_serialization(nodetype: type, *, serialized_name: str,
                                       serialize_auxdata: Callable,
                                       deserialize_auxdata: Callable,
                                       from_children: Callable | None = None) -> type:
  """Make pytree nodes of `nodetype` serializable in Exported trees, under a stable name."""
  if serialized_name in _node_by_name and _node_by_name[serialized_name] is not nodetype:
    raise ValueError(f"a pytree node is already registered under the name {serialized_name!r}")
  if nodetype in _node_serialization:
    raise ValueError(f"pytree node {nodetype} is already registered for serialization")
  _node_serialization[nodetype] = (serialized_name, serialize_auxdata, deserialize_auxdata,
                                   from_children)
  _node_by_name[serialized_name] = nodetype
  return nodetype


def register_namedtuple_serialization(nodetype: type, *, serialized_name: str) -> type:
  """Make a namedtuple class serializable in Exported trees."""
  if not (issubclass(nodetype, tuple) and hasattr(nodetype, "_fields")):
    raise ValueError(f"register_namedtuple_serialization expects a namedtuple class, got "
                     f"{nodetype}")
  return register_pytree_node_serialization(
      nodetype, serialized_name=serialized_name, serialize_auxdata=lambda aux: b"",
      deserialize_auxdata=lambda b: None,
      from_children=lambda aux, children: nodetype(*children))


_BUILTIN = {tuple: "tuple", list: "list", dict: "dict", type(None): "none",
            collections.OrderedDict: "ordered_dict"}


def _encode_tree(treedef) -> Any:
  if treedef.is_leaf():
    return ("leaf",)
  nodetype, aux = treedef.node_data()
  children = [_encode_tree(c) for c in treedef.children()]
  if nodetype in _BUILTIN:
    return (_BUILTIN[nodetype], aux, children)
  if nodetype in _node_serialization:
    name, ser, _, _ = _node_serialization[nodetype]
    return ("custom", name, ser(aux), children)
  raise ValueError(f"Cannot serialize PyTreeDef containing an unregistered type {nodetype}. "
                   "Use `export.register_pytree_node_serialization` or "
                   "`export.register_namedtuple_serialization`.")


class _Leaf:
  pass


def _decode(enc):
  kind = enc[0]
  if kind == "leaf":
    return _Leaf()
  if kind == "custom":
    _, name, aux_bytes, children = enc
    nodetype = _node_by_name.get(name)
    if nodetype is None:
      raise ValueError(f"the serialized tree uses pytree node {name!r}, which is not "
                       "registered for deserialization in this process")
    _, _, deser, from_children = _node_serialization[nodetype]
    kids = [_decode(c) for c in children]
    aux = deser(aux_bytes)
    if from_children is not None:
      return from_children(aux, kids)
    return tree_util.unflatten_funcs[nodetype](aux, kids)
  _, aux, children = enc
  kids = [_decode(c) for c in children]
  if kind == "tuple":
    return tuple(kids)
  if kind == "list":
    return list(kids)
  if kind == "none":
    return None
  if kind in ("dict", "ordered_dict"):
    d = dict(zip(aux, kids))
    return collections.OrderedDict(d) if kind == "ordered_dict" else d
  raise ValueError(f"unknown pytree node kind {kind!r} in a serialized tree")


def _decode_tree(enc):
  return tree_util.tree_structure(_decode(enc), is_leaf=lambda x: isinstance(x, _Leaf))


# ----------------------------------------------------------------------------- Exported


@dataclasses.dataclass(frozen=True)
class Exported:
  """A function exported for later calls: its module and the types and structures of its
  arguments and results."""
  fun_name: str
  in_tree: Any
  in_avals: tuple
  out_tree: Any
  out_avals: tuple
  in_shardings_hlo: tuple
  out_shardings_hlo: tuple
  nr_devices: int
  platforms: tuple
  ordered_effects: tuple
  unordered_effects: tuple
  disabled_safety_checks: tuple
  mlir_module_serialized: bytes
  calling_convention_version: int
  module_kept_var_idx: tuple
  uses_global_constants: bool
  _has_named_shardings: bool = False
  _in_named_shardings: tuple = ()
  _out_named_shardings: tuple = ()
  _get_vjp: Callable | None = None

  def mlir_module(self) -> str:
    """The module as text (XLA HLO text in this stack)."""
    return self.mlir_module_serialized.decode()

  def has_vjp(self) -> bool:
    return False

  def vjp(self):
    raise ValueError(f"the Exported of {self.fun_name} was not serialized with its VJP "
                     "(derivatives of exported functions are not supported yet)")

  def in_shardings_jax(self, mesh) -> tuple:
    return tuple(None for _ in self.in_avals)

  def out_shardings_jax(self, mesh) -> tuple:
    return tuple(None for _ in self.out_avals)

  def serialize(self, vjp_order: int = 0) -> bytearray:
    """The Exported as bytes (see deserialize)."""
    if vjp_order:
      raise ValueError("serializing the VJP of an Exported is not supported yet")
    payload = {
        "format": _FORMAT, "fun_name": self.fun_name,
        "in_tree": _encode_tree(self.in_tree), "out_tree": _encode_tree(self.out_tree),
        "in_avals": [(a.shape, a.dtype.str, a.weak_type) for a in self.in_avals],
        "out_avals": [(a.shape, a.dtype.str, a.weak_type) for a in self.out_avals],
        "nr_devices": self.nr_devices, "platforms": list(self.platforms),
        "disabled_safety_checks": [c._impl for c in self.disabled_safety_checks],
        "module": self.mlir_module_serialized,
        "calling_convention_version": self.calling_convention_version,
    }
    return bytearray(pickle.dumps(payload))

  def call(self, *args, **kwargs):
    """Call the exported function (its arguments must have the exported types)."""
    return _call_exported(self, args, kwargs)

  def __call__(self, *args, **kwargs):
    return self.call(*args, **kwargs)


def deserialize(blob: bytearray) -> Exported:
  """The Exported that Exported.serialize() wrote."""
  if not isinstance(blob, (bytes, bytearray)):
    raise TypeError(f"deserialize expects bytes, got {type(blob).__name__}")
  try:
    payload = pickle.loads(bytes(blob))
  except Exception as e:
    raise ValueError(f"not a serialized Exported ({type(e).__name__}: {e})") from None
  if not isinstance(payload, dict) or payload.get("format") != _FORMAT:
    raise ValueError(f"not a serialized Exported of format {_FORMAT!r}")
  mk = lambda t: core.ShapedArray(tuple(t[0]), np.dtype(t[1]), t[2])
  in_avals = tuple(mk(t) for t in payload["in_avals"])
  out_avals = tuple(mk(t) for t in payload["out_avals"])
  return Exported(
      payload["fun_name"], _decode_tree(payload["in_tree"]), in_avals,
      _decode_tree(payload["out_tree"]), out_avals, (None,) * len(in_avals),
      (None,) * len(out_avals), payload["nr_devices"], tuple(payload["platforms"]), (), (),
      tuple(DisabledSafetyCheck(c) for c in payload["disabled_safety_checks"]),
      payload["module"], payload["calling_convention_version"], tuple(range(len(in_avals))),
      False)


def _as_aval(x) -> core.ShapedArray:
  if isinstance(x, api.ShapeDtypeStruct) or (hasattr(x, "shape") and hasattr(x, "dtype")
                                              and not hasattr(x, "aval")
                                              and not isinstance(x, np.ndarray)):
    return core.ShapedArray(tuple(x.shape), dtypes.canonicalize_dtype(x.dtype))
  aval = core.get_aval(x)
  return aval.update(dtype=dtypes.canonicalize_dtype(aval.dtype))


def export(fun_jit, *, platforms: Sequence[str] | None = None,
           disabled_checks: Sequence[DisabledSafetyCheck] = (),
           _override_lowering_rules=None) -> Callable[..., Exported]:
  """export(jax.jit(f))(*args) -> the Exported of f for arguments of the types of args
  (arrays or ShapeDtypeStructs)."""
  if not isinstance(fun_jit, api.PjitFunction):
    raise ValueError(f"Function to be exported must be the result of `jit` but is: {fun_jit}")
  platforms = tuple(platforms) if platforms is not None else (default_export_platform(),)
  known = {p for b in xla_bridge.backends().values() for p in (b.platform,)}
  for p in platforms:
    if p not in known and p not in ("cpu", "cuda", "rocm", "tpu"):
      raise ValueError(f"Unknown platform {p!r} to export for")

  def do_export(*args, **kwargs) -> Exported:
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    in_avals = tuple(_as_aval(x) for x in leaves)
    store = {}

    def flat(*xs):
      a, k = tree_util.tree_unflatten(in_tree, xs)
      out = fun_jit(*a, **k)
      out_leaves, store["tree"] = tree_util.tree_flatten(out)
      return out_leaves

    jaxpr, consts = pe.trace_to_jaxpr_dynamic(flat, list(in_avals))
    closed, hoisted = pe.close_jaxpr(jaxpr, consts)
    if hoisted:
      raise ValueError("export: the function closes over traced values; pass them as "
                       "arguments")
    name = getattr(fun_jit, "__name__", "fun")
    text = hlo.lower_jaxpr_to_module(closed, name)
    out_avals = tuple(closed.out_avals)
    return Exported(name, in_tree, in_avals, store["tree"], out_avals,
                    (None,) * len(in_avals), (None,) * len(out_avals), 1, platforms, (), (),
                    tuple(disabled_checks), text.encode(),
                    maximum_supported_calling_convention_version(),
                    tuple(range(len(in_avals))), False)

  return do_export


_executables: dict = {}


def _executable(exp: Exported):
  key = (exp.mlir_module_serialized, exp.in_avals, exp.out_avals)
  exe = _executables.get(key)
  if exe is None:
    exe = execution.compile_hlo(exp.mlir_module(), exp.fun_name, list(exp.in_avals),
                                list(exp.out_avals))
    _executables[key] = exe
  return exe


def _check_call(exp: Exported, leaves, in_tree) -> None:
  if in_tree != exp.in_tree:
    raise ValueError(f"The invocation args and kwargs must have the same pytree structure as "
                     f"when the function '{exp.fun_name}' was exported, but they have "
                     f"{in_tree} and {exp.in_tree}")
  platform = xla_bridge.default_backend()
  if platform not in exp.platforms and DisabledSafetyCheck.platform() not in \
      exp.disabled_safety_checks:
    raise ValueError(f"Function '{exp.fun_name}' was exported for platforms {exp.platforms} "
                     f"but it is used on '{platform}'.")
  for i, (x, want) in enumerate(zip(leaves, exp.in_avals)):
    got = core.get_aval(x)
    if got.shape != want.shape or dtypes.canonicalize_dtype(got.dtype) != want.dtype:
      raise ValueError(f"Function '{exp.fun_name}' was exported for argument {i} of type "
                       f"{want.str_short(short_dtypes=True)} but is called with {got.str_short(short_dtypes=True)}")


def _call_exported(exp: Exported, args, kwargs):
  leaves, in_tree = tree_util.tree_flatten((args, kwargs))
  _check_call(exp, leaves, in_tree)
  if any(isinstance(x, core.Tracer) for x in leaves):
    shapes = [api.ShapeDtypeStruct(a.shape, a.dtype) for a in exp.out_avals]
    outs = callback.pure_callback(lambda *xs: [np.asarray(o) for o in _executable(exp)(*xs)],
                                  shapes, *leaves, vmap_method="sequential")
  else:
    outs = _executable(exp)(*[api.device_put(x) if not hasattr(x, "aval") else x
                              for x in leaves])
  return tree_util.tree_unflatten(exp.out_tree, list(outs))
