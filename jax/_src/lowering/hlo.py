"""Lowering jaxprs to XLA HLO text.

The text follows what JAX prints with `jit(f).lower(...).as_text(dialect="hlo")`:
every instruction carries its shape with an explicit default layout, names are
unique in the module (`<prefix>.<n>`), sub-computations (reduction bodies) come
before the ENTRY computation, and several results are returned as a tuple ROOT.

`lowering_rules[prim](ctx, *operands, **params)` emits instructions for one
equation through `ctx` (a `LoweringContext`) and returns one `HloValue` or a list
(for primitives with multiple results).
"""

from __future__ import annotations

import hashlib
import math
from typing import Callable, NamedTuple, Sequence

import numpy as np

from jax._src import core
from jax._src import donation
from jax._src import dtypes
from jax._src.core import ShapedArray
from jax._src.interpreters import partial_eval as pe
from jax._src.interpreters import physical

lowering_rules: dict[core.Primitive, Callable] = {}

_HLO_TYPES = {
    "bool": "pred", "int8": "s8", "int16": "s16", "int32": "s32", "int64": "s64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "complex64": "c64", "complex128": "c128",
    "float8_e4m3fn": "f8e4m3fn", "float8_e5m2": "f8e5m2", "float8_e4m3fnuz": "f8e4m3fnuz",
    "float8_e5m2fnuz": "f8e5m2fnuz", "float8_e4m3b11fnuz": "f8e4m3b11fnuz",
    "float8_e4m3": "f8e4m3", "float8_e3m4": "f8e3m4", "int4": "s4", "uint4": "u4",
}

# (digits that usually round-trip, digits that always do), as XLA prints floats.
_FLOAT_DIGITS = {"float16": (3, 5), "bfloat16": (2, 4), "float32": (6, 9), "float64": (15, 17),
                 **{name: (1, 3) for name in _HLO_TYPES if name.startswith("float8")}}


def hlo_type(dtype) -> str:
  name = dtypes.physical_dtype(dtype).name
  try:
    return _HLO_TYPES[name]
  except KeyError:
    raise TypeError(f"dtype {name} has no HLO element type") from None


_MAX_BYTES = 2**63 - 1  # XLA counts elements and bytes in int64


def check_shape_size(shape, dtype) -> None:
  """Raises ValueError when an array of `shape` could not be addressed in int64 bytes."""
  nbytes = math.prod(shape) * dtypes.physical_dtype(dtype).itemsize
  if nbytes > _MAX_BYTES:
    dims = ",".join(map(str, shape))
    raise ValueError(f"shape {hlo_type(dtype)}[{dims}] is too large: its {math.prod(shape)} "
                     f"elements take {nbytes} bytes, more than the 2**63 - 1 an array can hold")


def shape_str(aval: ShapedArray) -> str:
  """`f32[3,4]{1,0}`; scalars have no layout: `f32[]`."""
  check_shape_size(aval.shape, aval.dtype)
  dims = ",".join(map(str, aval.shape))
  if not aval.shape:
    return f"{hlo_type(aval.dtype)}[]"
  layout = ",".join(str(i) for i in reversed(range(len(aval.shape))))
  return f"{hlo_type(aval.dtype)}[{dims}]{{{layout}}}"


def tuple_str(parts: Sequence[str]) -> str:
  """`(a, b, ...)` with XLA's `/*index=5*/` marker before every fifth element."""
  items = [(f"/*index={i}*/" if i and i % 5 == 0 else "") + p for i, p in enumerate(parts)]
  return "(" + ", ".join(items) + ")"


def format_scalar(value, dtype) -> str:
  return format_values(np.asarray(value, dtype).reshape(1), dtype)[0]


def format_values(flat: np.ndarray, dtype) -> list[str]:
  """HLO text for each element of the rank-1 array `flat`, whole-array at a time: a
  constant closed over by a jitted function can hold millions of them. Floats take
  the shortest digit count that reads back as the same value, as XLA prints them."""
  dtype = np.dtype(dtype)
  flat = np.asarray(flat, dtype)
  if dtype == dtypes.bool_:
    return ["true" if b else "false" for b in flat.tolist()]
  if dtype.kind in "iu":
    return [str(v) for v in flat.tolist()]
  if dtype in dtypes.narrow_int_dtypes:
    return [str(v) for v in flat.astype(np.int64).tolist()]
  if dtype.kind == "c":  # XLA writes complex literals as (real, imag)
    part = np.dtype(np.float32 if dtype.itemsize == 8 else np.float64)
    return [f"({r}, {i})" for r, i in zip(format_values(flat.real.astype(part), part),
                                          format_values(flat.imag.astype(part), part))]
  values = flat.astype(np.float64).tolist()
  short, full = _FLOAT_DIGITS[dtype.name]
  texts = [f"{v:.{short}g}" for v in values]
  # NaN never compares equal; it prints as "nan" at any digit count.
  lost = np.nonzero(np.array(texts, np.float64).astype(dtype) != flat)[0]
  for i in lost.tolist():
    texts[i] = f"{values[i]:.{full}g}"
  # Python prints every NaN as "nan"; XLA text keeps the sign ("-nan").
  as_f64 = np.asarray(values, np.float64)
  for i in np.nonzero(np.isnan(as_f64) & np.signbit(as_f64))[0].tolist():
    texts[i] = "-nan"
  return texts


class HloValue(NamedTuple):
  name: str
  aval: ShapedArray


class ModuleBuilder:
  """Owns unique names and the list of finished computations (in print order)."""

  def __init__(self, name: str, axis_env: dict | None = None):
    self.name = name
    self.axis_env = dict(axis_env or {})  # pmap axis name -> number of replicas
    self._counters: dict[str, int] = {}
    self._computation_count = 0
    self._region_count = 0
    self.computations: list[str] = []

  def unique(self, prefix: str) -> str:
    n = self._counters.get(prefix, 0) + 1
    self._counters[prefix] = n
    return f"{prefix}.{n}"

  def computation_name(self, base: str) -> str:
    self._computation_count += 1
    return f"{base}.{self._computation_count}"

  def region_name(self) -> str:
    name = self.computation_name(f"region_{self._region_count}")
    self._region_count += 1
    return name


class ComputationBuilder:
  """Collects the instructions of one computation."""

  def __init__(self, module: ModuleBuilder, name: str):
    self.module = module
    self.name = name
    self.lines: list[tuple[str, str]] = []  # (name, text after "name = ")
    self.params: list[HloValue] = []

  def emit(self, prefix: str, shape: str, opcode: str, operands: Sequence[str],
           attrs: str = "") -> str:
    name = self.module.unique(_sanitize(prefix))
    text = f"{shape} {opcode}({', '.join(operands)})"
    if attrs:
      text += f", {attrs}"
    self.lines.append((name, text))
    return name

  def op(self, prefix: str, opcode: str, aval: ShapedArray, operands: Sequence[HloValue],
         attrs: str = "") -> HloValue:
    return HloValue(self.emit(prefix, shape_str(aval), opcode, [o.name for o in operands], attrs),
                    aval)

  def parameter(self, index: int, aval: ShapedArray, prefix: str = "Arg") -> HloValue:
    v = HloValue(self.emit(prefix, shape_str(aval), "parameter", [str(index)]), aval)
    self.lines[-1] = (v.name, f"{shape_str(aval)} parameter({index})")
    self.params.append(v)
    return v

  def constant(self, value, dtype, prefix: str = "constant") -> HloValue:
    """A constant of any shape; rank >= 2 is built as a rank-1 constant and a reshape."""
    arr = np.asarray(value, dtype=dtype)
    aval = ShapedArray(arr.shape, arr.dtype)
    if arr.ndim == 0:
      text = format_scalar(arr[()], arr.dtype)
      name = self.module.unique(prefix)
      self.lines.append((name, f"{shape_str(aval)} constant({text})"))
      return HloValue(name, aval)
    flat = arr.reshape(-1)
    flat_aval = ShapedArray(flat.shape, flat.dtype)
    body = ", ".join(format_values(flat, arr.dtype))
    name = self.module.unique(prefix)
    self.lines.append((name, f"{shape_str(flat_aval)} constant({{{body}}})"))
    v = HloValue(name, flat_aval)
    if arr.ndim == 1:
      return v
    return self.op("reshape", "reshape", aval, [v])

  def finish(self, root: HloValue | Sequence[HloValue], entry: bool = False) -> str:
    if isinstance(root, HloValue):
      root_name = root.name
      if not self.lines or self.lines[-1][0] != root.name:
        root_name = self.op("copy_p", "reshape", root.aval, [root]).name
      root_shape = shape_str(root.aval)
    else:
      root_shape = tuple_str([shape_str(v.aval) for v in root])
      root_name = self.emit("tuple", root_shape, "tuple", [v.name for v in root])
    body = []
    for name, text in self.lines:
      prefix = "ROOT " if name == root_name else ""
      body.append(f"  {prefix}{name} = {text}")
    header = f"ENTRY {self.name}" if entry else self.name
    self.result_shape = root_shape
    return header + " {\n" + "\n".join(body) + "\n}\n"


def _sanitize(prefix: str) -> str:
  return "".join(c if c.isalnum() or c in "_-" else "_" for c in prefix) or "x"


class LoweringContext:
  """What a lowering rule sees: the computation being built and the equation's types."""

  def __init__(self, comp: ComputationBuilder, prefix: str, avals_in, avals_out):
    self.comp = comp
    self.module = comp.module
    self.prefix = prefix
    self.avals_in = avals_in
    self.avals_out = avals_out

  def op(self, opcode: str, aval: ShapedArray, *operands: HloValue, attrs: str = "") -> HloValue:
    return self.comp.op(self.prefix, opcode, aval, operands, attrs)

  def constant(self, value, dtype) -> HloValue:
    return self.comp.constant(value, dtype)

  def full(self, value, aval: ShapedArray) -> HloValue:
    """A scalar constant broadcast to `aval` (JAX's way of writing filled arrays)."""
    c = self.constant(value, aval.dtype)
    if not aval.shape:
      return c
    return self.comp.op("broadcast", "broadcast", aval.update(weak_type=False), [c],
                        "dimensions={}")

  def broadcast_in_dim(self, x: HloValue, aval: ShapedArray, broadcast_dimensions) -> HloValue:
    """`x` broadcast to `aval` with its dimension i at broadcast_dimensions[i]; its size-1
    dimensions may expand. HLO's broadcast maps dimensions of equal size only, so those
    are reshaped away first."""
    keep = [i for i, d in enumerate(broadcast_dimensions) if x.aval.shape[i] == aval.shape[d]]
    if len(keep) != x.aval.ndim:
      x = self.op("reshape", x.aval.update(shape=tuple(x.aval.shape[i] for i in keep)), x)
    dims = ",".join(str(broadcast_dimensions[i]) for i in keep)
    return self.op("broadcast", aval, x, attrs=f"dimensions={{{dims}}}")

  def convert(self, x: HloValue, dtype) -> HloValue:
    if np.dtype(dtype) == x.aval.dtype:
      return x
    return self.op("convert", x.aval.update(dtype=dtype), x)

  def scalar_region(self, opcode: str, dtype, prefix: str | None = None) -> str:
    """A `(T[], T[]) -> T[]` computation applying `opcode`, printed before ENTRY."""
    name = self.module.region_name()
    sub = ComputationBuilder(self.module, name)
    aval = ShapedArray((), dtype)
    p = prefix or self.prefix
    a = sub.parameter(0, aval, p)
    b = sub.parameter(1, aval, p)
    root = sub.op(p, opcode, aval, [a, b])
    self.module.computations.append(sub.finish(root))
    return name


def constant_key(value: np.ndarray) -> tuple:
  """Equal for constants of equal dtype, shape and contents."""
  # Hashed as bytes in place (a view for contiguous values; bfloat16 has no buffer format).
  digest = hashlib.blake2b(value.reshape(-1).view(np.uint8).data, digest_size=16).digest()
  return (value.dtype.str, value.shape, digest)


def lower_jaxpr_into(comp: ComputationBuilder, jaxpr: core.Jaxpr, consts: Sequence,
                     args: Sequence[HloValue]) -> list[HloValue]:
  """Emit `jaxpr`'s equations into `comp`; returns the HLO values of its outputs."""
  env: dict[core.Var, HloValue] = {}
  # Equal constants are emitted once: an array closed over at two places (weights used
  # twice) arrives as two consts, each converted on its own.
  emitted: dict[tuple, HloValue] = {}
  for v, c in zip(jaxpr.constvars, consts):
    value = np.asarray(c, v.aval.dtype)
    key = constant_key(value)
    if key not in emitted:
      emitted[key] = comp.constant(value, v.aval.dtype)
    env[v] = HloValue(emitted[key].name, v.aval)
  for v, a in zip(jaxpr.invars, args):
    env[v] = a

  def read(x) -> HloValue:
    if isinstance(x, core.Literal):
      c = comp.constant(x.val, x.aval.dtype)
      return HloValue(c.name, x.aval)
    return env[x]

  for eqn in jaxpr.eqns:
    rule = lowering_rules.get(eqn.primitive)
    if rule is None:
      raise NotImplementedError(f"no HLO lowering rule for primitive '{eqn.primitive.name}'")
    ctx = LoweringContext(comp, eqn.primitive.name, [x.aval for x in eqn.inputs],
                          [v.aval for v in eqn.out_binders])
    outs = rule(ctx, *map(read, eqn.inputs), **eqn.params)
    outs = outs if eqn.primitive.multiple_results else [outs]
    for v, o in zip(eqn.out_binders, outs):
      env[v] = HloValue(o.name, v.aval)
  return [read(x) for x in jaxpr.outs]


def lower_jaxpr_to_module(closed: core.ClosedJaxpr, module_name: str,
                          arg_names: Sequence[str] | None = None, *, kind: str = "jit",
                          axis_env: dict | None = None,
                          donation_plan=None, num_replicas: int = 1) -> str:
  """The HLO text of a whole module whose ENTRY computes `closed`.

  `kind` prefixes the module name (`jit_f`, `pmap_f`); `axis_env` maps the pmap
  axis names the collectives may use to their number of replicas;
  `donation_plan` (a donation.Plan) declares the donated parameters;
  `num_replicas` > 1 is written into the header as the module's `replica_count`.
  """

  closed = physical.physicalize(closed)  # typed keys are lowered as their data
  jaxpr = pe.dce_jaxpr(closed.jaxpr)
  module = ModuleBuilder(f"{kind}_{_sanitize(module_name.replace('>', ''))}", axis_env)
  entry = ComputationBuilder(module, "")
  args = []
  for i, v in enumerate(jaxpr.invars):
    name = arg_names[i] if arg_names and i < len(arg_names) and arg_names[i] else f"Arg_{i}"
    args.append(entry.parameter(i, v.aval, _sanitize(name)))
  outs = lower_jaxpr_into(entry, jaxpr, closed.consts, args)
  entry.name = module.computation_name("main")
  root = outs[0] if len(outs) == 1 else outs
  entry_text = entry.finish(root, entry=True)
  params = tuple_str([shape_str(v.aval) for v in jaxpr.invars])
  layout = f"{params}->{entry.result_shape}"
  alias = donation.module_attrs(donation_plan or donation.NO_DONATION, len(outs))
  alias = f"{alias}, " if alias else ""
  replicas = f"replica_count={num_replicas}, " if num_replicas > 1 else ""
  header = (f"HloModule {module.name}, {replicas}{alias}"
            f"entry_computation_layout={{{layout}}}\n")
  return "\n".join([header, *module.computations, entry_text])


# ----------------------------------------------------------------------------- registrars


def def_elementwise_lowering(prim: core.Primitive, opcode: str) -> None:
  """`prim(x, ...)` is the HLO op `opcode` applied to same-shaped operands."""
  lowering_rules[prim] = lambda ctx, *args, **_: ctx.op(opcode, ctx.avals_out[0], *args)


def lower_fun(fun: Callable, multiple_results: bool = False) -> Callable:
  """A lowering rule that inlines `fun(*operands, **params)` (written with lax ops)."""

  def rule(ctx: LoweringContext, *args, **params):

    def flat(*xs):
      out = fun(*xs, **params)
      return list(out) if multiple_results else [out]

    # The HLO does not depend on how mesh axes split values: trace on untyped avals, so
    # an expansion's inner steps need not each have a sharding rule.
    avals = [core.ShapedArray(a.shape, a.dtype, a.weak_type)
             if core.explicit_sharding(a) is not None else a for a in ctx.avals_in]
    jaxpr, consts = pe.trace_to_jaxpr_dynamic(flat, avals)
    # An expansion may compute on typed keys inside (random_gamma does): lowered as data.
    closed = physical.physicalize(core.ClosedJaxpr(jaxpr, consts))
    outs = lower_jaxpr_into(ctx.comp, closed.jaxpr, closed.consts, args)
    return outs if multiple_results else outs[0]

  return rule
