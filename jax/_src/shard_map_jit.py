"""jit of a function holding shard_map: ONE SPMD program, run eagerly or ahead of time.

The whole jaxpr is partitioned over the mesh of its shard_maps (see `_Partitioner`
in shard_map.py): each shard_map body is inlined with its in_specs/out_specs as
the layouts around it, and the work before and after it joins the same program
when it partitions (elementwise ops, reductions, nested jits, anything on
replicated values). The result is the per-device program that the runtime
compiles with `num_replicas = mesh.size`: replica r is the r-th device of the
mesh (row-major) and the collectives are cross-replica ops.

Argument layouts are chosen from the jaxpr alone, so `jit(f)(x)` and
`jit(f).lower(x).compile()(x)` run the same program and return the same
shardings: an argument passed straight to a shard_map takes that shard_map's
in_spec (the first one that uses it), every other argument is replicated, and a
replicated value that a shard_map wants split is sliced on each device.

An operation that cannot be split (a reshape or dot of a split value) runs on
the whole value on every device, and a split value reaching a shard_map in
another layout is re-split: the partitioner all-gathers it first. What does not
partition (shard_maps over different meshes, host callbacks) raises
`NotPartitionable`: eager jit then runs the jaxpr equation by equation (each
shard_map its own program), and `lower` reports the reason.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from jax._src import core
from jax._src.cost_analysis import estimate_cost
from jax._src import execution
from jax._src import jit_primitive
from jax._src.jit_primitive import jit_p
from jax._src import op_by_op
from jax._src.sharding import Mesh, NamedSharding, spec_axes
from jax._src import shard_map as sm
from jax._src import callback
from jax._src.lowering import hlo


class NotPartitionable(NotImplementedError):
  """A jit holding shard_map that cannot be one SPMD program."""


def _meshes(jaxpr: core.Jaxpr, found: list) -> list:
  for eqn in jaxpr.eqns:
    if eqn.primitive is sm.shard_map_p:
      if eqn.params["mesh"] not in found:
        found.append(eqn.params["mesh"])
    for sub in core.subjaxprs(eqn):
      _meshes(sub, found)
  return found


def _chosen_in_axes(jaxpr: core.Jaxpr) -> tuple:
  """Per argument: the in_spec of the first shard_map it feeds directly, else replicated."""
  axes = {}
  for eqn in jaxpr.eqns:
    if eqn.primitive is not sm.shard_map_p:
      continue
    for x, spec in zip(eqn.inputs, eqn.params["in_specs"]):
      if isinstance(x, core.Var) and x not in axes:
        axes[x] = spec_axes(spec, x.aval.ndim)
  return tuple(axes.get(v, ((),) * v.aval.ndim) for v in jaxpr.invars)


class Plan(NamedTuple):
  mesh: Mesh
  local: core.ClosedJaxpr  # the per-device program
  in_specs: tuple
  out_specs: tuple


def plan(closed: core.ClosedJaxpr, name: str) -> Plan:
  """The SPMD program of `closed` (cached with it), or NotPartitionable saying why not."""
  def build():
    try:
      return _build(closed, name)
    except NotPartitionable as e:
      return e
  hit = execution.memo(closed, ("shard_map_jit_plan", name, execution.config_key()), build)
  if isinstance(hit, NotPartitionable):
    raise hit
  return hit


_HINT = (". Calling the jit still works (each shard_map runs as its own program); to lower "
         "it, move the work on split values into the shard_map body or lower each shard_map'd "
         "function by itself.")


def _build(closed: core.ClosedJaxpr, name: str) -> Plan:
  what = f"jit of '{name}' cannot be lowered as one SPMD program: "
  meshes = _meshes(closed.jaxpr, [])
  if len(meshes) != 1:
    raise NotPartitionable(what + f"its shard_maps run over {len(meshes)} different meshes "
                           f"({', '.join(str(m.axis_sizes) for m in meshes)})" + _HINT)
  if callback.contains_callback(closed.jaxpr):
    raise NotPartitionable(what + "it holds a host callback, which would run on every device")
  if _in_control_flow(closed.jaxpr):
    raise NotPartitionable(what + "a shard_map is inside control flow (cond, while, scan...)")
  try:
    p = sm.build_plan(closed, meshes[0], _chosen_in_axes(closed.jaxpr), name)
  except sm.NotPartitionable as e:
    raise NotPartitionable(what + str(e) + _HINT) from None
  return Plan(meshes[0], p.jaxpr, p.in_specs, p.out_specs)


def _in_control_flow(jaxpr: core.Jaxpr) -> bool:
  """Whether a shard_map sits in a sub-jaxpr other than a nested jit's."""
  for eqn in jaxpr.eqns:
    for sub in core.subjaxprs(eqn):
      if eqn.primitive is jit_p:
        if _in_control_flow(sub):
          return True
      elif sm.contains_shard_map(sub):
        return True
  return False


def hlo_text(p: Plan, name: str) -> str:
  return hlo.lower_jaxpr_to_module(p.local, name, kind="jit", axis_env=dict(p.mesh.shape),
                                   num_replicas=p.mesh.size)


class CompiledMemoryStats(NamedTuple):
  """Per-device sizes of a compiled program, as the backend reports them."""
  generated_code_size_in_bytes: int
  argument_size_in_bytes: int
  output_size_in_bytes: int
  alias_size_in_bytes: int
  temp_size_in_bytes: int
  host_generated_code_size_in_bytes: int = 0
  host_argument_size_in_bytes: int = 0
  host_output_size_in_bytes: int = 0
  host_alias_size_in_bytes: int = 0
  host_temp_size_in_bytes: int = 0


def memory_stats(loaded) -> CompiledMemoryStats | None:
  """The memory stats of a loaded executable, or None if its backend has no such query."""
  query = getattr(loaded, "get_compiled_memory_stats", None)
  if query is None:
    return None
  d = query()
  return CompiledMemoryStats(d["generated_code_size_in_bytes"], d["argument_size_in_bytes"],
                             d["output_size_in_bytes"], d["alias_size_in_bytes"],
                             d["temp_size_in_bytes"])


class Executable:
  """A compiled SPMD program: called with global arrays, returns global arrays."""

  def __init__(self, p: Plan, name: str):
    self.plan = p
    self._exe = execution.compile_jaxpr(p.local, name, devices=list(p.mesh.devices.flat),
                                        axis_env=dict(p.mesh.shape), num_replicas=p.mesh.size)
    self.hlo_text = self._exe.hlo_text
    self.loaded = self._exe.loaded

  def __call__(self, *args) -> list:
    p = self.plan
    if len(args) != len(p.in_specs):
      raise TypeError(f"executable takes {len(p.in_specs)} arguments, got {len(args)}")
    return sm.run_blocks(self._exe, args, p.mesh, p.in_specs, p.out_specs)

  @property
  def input_shardings(self) -> list[NamedSharding]:
    return [NamedSharding(self.plan.mesh, s) for s in self.plan.in_specs]

  @property
  def output_shardings(self) -> list[NamedSharding]:
    return [NamedSharding(self.plan.mesh, s) for s in self.plan.out_specs]

  def cost_analysis(self) -> dict[str, float]:
    return estimate_cost(self.plan.local.jaxpr)

  def memory_analysis(self) -> CompiledMemoryStats | None:
    return memory_stats(self.loaded)


def compile_program(closed: core.ClosedJaxpr, name: str) -> Executable:
  """The compiled SPMD program of `closed` (cached with it); NotPartitionable if none."""
  p = plan(closed, name)
  return execution.memo(closed, ("shard_map_jit_program", name, execution.config_key()),
                        lambda: Executable(p, name))


def run_op_by_op(closed: core.ClosedJaxpr, args,
                 on_host: Callable[[core.Jaxpr], bool] = sm.contains_shard_map) -> list:
  """`op_by_op.run_op_by_op`, with shard_maps as the bodies that must run on the host."""
  return op_by_op.run_op_by_op(closed, args, on_host)


def run(closed: core.ClosedJaxpr, args, name: str) -> list | None:
  """Eager jit: run `closed` as its SPMD program, or None when it has none."""
  try:
    exe = compile_program(closed, name)
  except NotPartitionable:
    return None
  return exe(*args)


# The jit primitive, a layer below, runs jaxprs holding shard_maps through these.
jit_primitive.register_spmd_runners(contains_shard_map=sm.contains_shard_map, run=run,
                                    run_op_by_op=run_op_by_op,
                                    partitioned_jit=sm.partitioned_jit)
