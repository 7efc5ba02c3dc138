"""`shard_map`, and jit over sharded arrays, as real SPMD programs.

shard_map: the body is traced ONCE on per-shard (local) shapes, with every mesh
axis name bound to its size (so `psum`, `pmean`, `all_gather`, `ppermute`,
`axis_index` are staged as collectives). The local jaxpr is lowered to one HLO
module whose collectives are cross-replica ops (replica i = the i-th device of
the mesh, row-major), compiled with `num_replicas = mesh.size` and run through
`execute_sharded`, the multi-device path `pmap` uses. Argument i's block for
device d comes from `NamedSharding(mesh, in_specs[i])`; results are Arrays
holding one buffer per device with sharding `NamedSharding(mesh, out_specs[o])`.
With `check_vma=True`, an output whose spec leaves out a mesh axis must be
provably the same along that axis (it went through a reduction collective over
it, or never depended on a value split over it).

jit over sharded arrays (`partitioned_jit`): when some argument is an Array with
a NamedSharding that splits it over a mesh, jit tries to run the function as a
shard_map over that mesh. What is partitioned:
  * elementwise primitives whose array operands all have the same layout (scalar
    broadcasts are materialized locally with the shard's shape);
  * reductions over dimensions that are not split, and `reduce_sum`/`reduce_max`/
    `reduce_min` over split dimensions (a local reduction followed by
    `psum`/`pmax`/`pmin` over the mesh axes of those dimensions);
  * nested jit calls, recursively;
  * dots whose operands are split only on free dimensions (each device multiplies its
    blocks; the result stays split);
  * any other equation (reshapes, transposes, dots, gathers, control flow...) runs
    on whole values on every device: its split operands are first all-gathered over
    the mesh axes that split them, as GSPMD does with operations it cannot split.
So a jit over arrays split on one mesh is always one program over that mesh, also
across processes (where no device holds every piece). Arguments split over
different meshes are not partitioned: with one process they are gathered onto one
device and the function runs there (its results then have a SingleDeviceSharding);
across processes that is refused with an error saying what to change. Every result
carries the sharding it really has.
"""

from __future__ import annotations

import contextlib
import functools
import math
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from jax._src import core
from jax._src import execution
from jax._src import tree_util
from jax._src.array import ArrayImpl
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.interpreters import partial_eval as pe
from jax._src.interpreters import physical
from jax._src.jit_primitive import jit_p
from jax._src.lax import elementwise
from jax._src.lax import linalg
from jax._src.lax import parallel
from jax._src.lax import reductions
from jax._src.lax import shape as lax_shape
from jax._src.lax.shape import broadcast_in_dim_p
from jax._src.lowering import hlo
from jax._src.sharding import (Mesh, NamedSharding, PartitionSpec, explicit_spec, get_mesh,
                               spec_axes, spec_from_axes)
from jax._src.lax import slicing


# ----------------------------------------------------------------------------- layouts


def _local_aval(aval: ShapedArray, spec: PartitionSpec, mesh: Mesh) -> ShapedArray:
  """A block's type: inside the body every mesh axis is manual, so no split is typed."""
  shape = tuple(d // math.prod(mesh.shape[n] for n in names)
                for d, names in zip(aval.shape, spec_axes(spec, aval.ndim)))
  return ShapedArray(shape, aval.dtype, aval.weak_type)


def _global_aval(aval: ShapedArray, spec: PartitionSpec, mesh: Mesh) -> ShapedArray:
  """The whole value's type: over Explicit mesh axes, split as `spec` says."""
  shape = tuple(d * math.prod(mesh.shape[n] for n in names)
                for d, names in zip(aval.shape, spec_axes(spec, aval.ndim)))
  return ShapedArray(shape, aval.dtype, aval.weak_type,
                     sharding=NamedSharding(mesh, spec) if len(spec) <= aval.ndim else None)


def _mesh_desc(mesh: Mesh) -> str:
  return (f"The mesh given has shape {mesh.axis_sizes} with corresponding axis names "
          f"{mesh.axis_names}.")


def _check_divisible(fun_name: str, mesh: Mesh, avals, specs) -> None:
  for i, (aval, spec) in enumerate(zip(avals, specs)):
    if len(spec) > aval.ndim:
      raise ValueError(f"shard_map applied to the function '{fun_name}' was given in_specs "
                       f"{spec} of length {len(spec)} for args[{i}] of rank {aval.ndim}")
    for axis, (d, names) in enumerate(zip(aval.shape, spec_axes(spec, aval.ndim))):
      k = math.prod(mesh.shape[n] for n in names)
      if d % k:
        raise ValueError(
            f"shard_map applied to the function '{fun_name}' was given argument arrays with "
            f"axis sizes that are not evenly divisible by the corresponding mesh axis sizes:"
            f"\n\n{_mesh_desc(mesh)}\n\nthe passed args[{i}] of shape {aval.str_short(short_dtypes=True)} "
            f"corresponds to in_specs of value {spec}, which maps array axis {axis} (of size "
            f"{d}) to mesh axes {names} (of size {k}), but {k} does not evenly divide {d}")


def _device_blocks(x, sharding: NamedSharding, aval: ShapedArray) -> list:
  """One buffer per mesh device of this process holding its block of `x` (reused if
  already laid out so). A value that is not a global array is the same in every
  process: each takes its own devices' blocks of it."""
  if isinstance(x, ArrayImpl) and x.explicit_sharding == sharding and x.resident_buffers:
    return list(x.resident_buffers)
  value = np.asarray(x, dtype=aval.dtype)
  return [execution.buffer_from_numpy(np.ascontiguousarray(value[idx]), d)
          for d, idx in sharding.addressable_devices_indices_map(aval.shape).items()]


@contextlib.contextmanager
def _mesh_axes_bound(mesh: Mesh):
  with contextlib.ExitStack() as stack:
    for name, size in mesh.shape.items():
      stack.enter_context(parallel.pmap_axis_env(name, size))
    yield


# ----------------------------------------------------------------------------- the primitive

shard_map_p = core.Primitive("shard_map", multiple_results=True)


def run_blocks(exe, args, mesh: Mesh, in_specs, out_specs) -> list[ArrayImpl]:
  """Run the SPMD executable `exe` on global arguments laid out per `in_specs`; global
  results laid out per `out_specs` (its in/out avals are the per-device ones)."""
  arg_blocks = [_device_blocks(x, NamedSharding(mesh, s), _global_aval(a, s, mesh))
                for x, s, a in zip(args, in_specs, exe.in_avals)]
  outs = exe.execute_sharded(arg_blocks)
  return [ArrayImpl(_global_aval(a, s, mesh), list(bufs), sharding=NamedSharding(mesh, s))
          for a, s, bufs in zip(exe.out_avals, out_specs, outs)]


def _shard_map_impl(*args, jaxpr: core.ClosedJaxpr, mesh: Mesh, in_specs, out_specs,
                    check_vma: bool, name: str):
  if execution.memo(jaxpr, "needs_physical", lambda: physical.needed(jaxpr)):
    # Typed keys run as their data (the specs name leading dimensions only).
    return physical.run(jaxpr, args, lambda pj, pargs: _shard_map_impl(
        *pargs, jaxpr=pj, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
        check_vma=check_vma, name=name), execution.memo)
  exe = execution.compile_jaxpr(jaxpr, name, devices=list(mesh.devices.flat), kind="shmap",
                                axis_env=dict(mesh.shape))
  return run_blocks(exe, args, mesh, in_specs, out_specs)


def _shard_map_abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, check_vma, name):
  return [_global_aval(a, s, mesh) for a, s in zip(jaxpr.out_avals, out_specs)]


def _shard_map_lowering(ctx, *args, jaxpr, mesh, **_):
  raise NotImplementedError(
      "shard_map cannot be inlined into a single-device HLO module; a jit holding it is "
      "lowered as one SPMD program instead (see jax/_src/shard_map_jit.py).")


def _shard_map_jvp(primals, tangents, *, jaxpr, mesh, in_specs, out_specs, check_vma, name):
  new = ad.jvp_jaxpr(jaxpr)
  outs = shard_map_p.bind(*primals, *tangents, jaxpr=new, mesh=mesh,
                          in_specs=tuple(in_specs) * 2, out_specs=tuple(out_specs) * 2,
                          check_vma=check_vma, name=f"jvp_{name}")
  n = len(outs) // 2
  return outs[:n], outs[n:]


def _shard_map_batch(axis, vals, dims, *, jaxpr, mesh, in_specs, out_specs, check_vma, name):
  # The batch dimension becomes a new leading dimension that no mesh axis splits.
  vals = [v if d is batching.not_mapped else batching.moveaxis(v, d, 0)
          for v, d in zip(vals, dims)]
  dims0 = [None if d is batching.not_mapped else 0 for d in dims]
  new = batching.vmap_jaxpr(jaxpr, axis, dims0)
  new_in = tuple(s if d is None else PartitionSpec(None, *s) for s, d in zip(in_specs, dims0))
  new_out = tuple(PartitionSpec(None, *s) for s in out_specs)
  outs = shard_map_p.bind(*vals, jaxpr=new, mesh=mesh, in_specs=new_in, out_specs=new_out,
                          check_vma=check_vma, name=name)
  return outs, [0] * len(outs)


def _trace_local(fun: Callable, avals, mesh: Mesh) -> core.ClosedJaxpr:
  """A per-device body: `fun` traced on local avals with the mesh's axis names bound."""
  with _mesh_axes_bound(mesh):
    jaxpr, consts = pe.trace_to_jaxpr_dynamic(fun, list(avals))
  closed, hoisted = pe.close_jaxpr(jaxpr, consts)
  assert not hoisted
  return closed


def _residual_spec(mesh: Mesh) -> PartitionSpec:
  # A residual can differ on every device: each device's copy is one row of a global
  # value stacked over all mesh axes.
  return PartitionSpec(tuple(mesh.axis_names))


def _shard_map_partial_eval(trace: pe.JaxprTrace, tracers, *, jaxpr, mesh, in_specs,
                            out_specs, check_vma, name):
  """Known inputs run in a shard_map now; the rest is staged as a shard_map taking the
  known part's per-device residuals (so grad and linearize work through shard_map)."""
  open_jaxpr = pe.convert_constvars_jaxpr(jaxpr.jaxpr)
  consts = list(jaxpr.consts)
  unknowns = [False] * len(consts) + [not t.pval.is_known() for t in tracers]
  known, unknown, out_uks, num_res = pe.partial_eval_jaxpr(open_jaxpr, unknowns)
  all_specs = [PartitionSpec()] * len(consts) + list(in_specs)
  n_known_out = len(known.outs) - num_res

  def known_body(*args):
    outs = core.eval_jaxpr(known, [], args)
    return outs[:n_known_out] + [lax_shape.expand_dims(r, (0,)) for r in outs[n_known_out:]]

  known_closed = _trace_local(known_body, [v.aval for v in known.invars], mesh)
  res_spec = _residual_spec(mesh)
  known_outs = shard_map_p.bind(
      *consts, *[t.pval.get_known() for t in tracers if t.pval.is_known()], jaxpr=known_closed,
      mesh=mesh, in_specs=tuple(s for s, uk in zip(all_specs, unknowns) if not uk),
      out_specs=tuple([s for s, uk in zip(out_specs, out_uks) if not uk]
                      + [res_spec] * num_res),
      check_vma=False, name=name)
  residuals = known_outs[n_known_out:]
  res_avals = [v.aval for v in unknown.invars[:num_res]]

  def unknown_body(*args):
    res = [lax_shape.squeeze(r, (0,)) for r in args[:num_res]]
    return core.eval_jaxpr(unknown, [], [*res, *args[num_res:]])

  uk_in_avals = [a.update(shape=(1, *a.shape)) for a in res_avals] + [
      v.aval for v in unknown.invars[num_res:]]
  unknown_closed = _trace_local(unknown_body, uk_in_avals, mesh)
  res_tracers = [trace.instantiate_const(trace.pure(r)) for r in residuals]
  uk_tracers = [t for t in tracers if not t.pval.is_known()]
  uk_specs = tuple([res_spec] * num_res
                   + [s for s, t in zip(in_specs, tracers) if not t.pval.is_known()])
  uk_out_specs = tuple(s for s, uk in zip(out_specs, out_uks) if uk)
  out_avals = [_global_aval(a, sp, mesh) for a, sp in
               zip([a for a, uk in zip(jaxpr.out_avals, out_uks) if uk], uk_out_specs)]
  uk_outs = [pe.JaxprTracer(trace, pe.PartialVal.unknown(a), None) for a in out_avals]
  params = dict(jaxpr=unknown_closed, mesh=mesh, in_specs=uk_specs, out_specs=uk_out_specs,
                check_vma=False, name=name)
  recipe = pe.JaxprEqnRecipe(shard_map_p, res_tracers + uk_tracers, params, out_avals, uk_outs)
  for t in uk_outs:
    t.recipe = recipe
  known_it, uk_it = iter(known_outs[:n_known_out]), iter(uk_outs)
  return [next(uk_it) if uk else trace.pure(next(known_it)) for uk in out_uks]


def _unsplit_axes(mesh: Mesh, spec: PartitionSpec, ndim: int) -> tuple:
  used = {n for names in spec_axes(spec, ndim) for n in names}
  return tuple(n for n in mesh.axis_names if n not in used)


def _shard_map_transpose(cts, *args, jaxpr, mesh, in_specs, out_specs, check_vma, name):
  """The transposed body per device. A result that is the same on the devices along the
  mesh axes its out_spec leaves out was taken once: each of those devices gets an equal
  share of its cotangent. An argument copied to the devices along the axes its in_spec
  leaves out gets the sum of their cotangents (as JAX transposes shard_map)."""
  linear = [ad.is_undefined_primal(x) for x in args]
  residuals = [x for x in args if not ad.is_undefined_primal(x)]
  res_specs = [s for s, lin in zip(in_specs, linear) if not lin]
  local_in = [_local_aval(x.aval if ad.is_undefined_primal(x) else core.get_aval(x), s, mesh)
              for x, s in zip(args, in_specs)]
  local_out = list(jaxpr.out_avals)
  with _mesh_axes_bound(mesh):
    body_t = ad.transpose_jaxpr(core.ClosedJaxpr(jaxpr.jaxpr, jaxpr.consts), linear)
  cts = [ad.instantiate_zeros(c, _global_aval(a, s, mesh))
         for c, a, s in zip(cts, local_out, out_specs)]

  def body(*args_local):
    res, cts_local = args_local[:len(residuals)], args_local[len(residuals):]
    shared = []
    for ct, a, spec in zip(cts_local, local_out, out_specs):
      k = math.prod(mesh.shape[n] for n in _unsplit_axes(mesh, spec, a.ndim))
      shared.append(ct if k == 1 else elementwise.div(
          ct, elementwise.convert_element_type(np.array(k), a.dtype, True)))
    outs = core.eval_jaxpr(body_t.jaxpr, body_t.consts, [*res, *shared])
    lin_specs = [s for s, lin in zip(in_specs, linear) if lin]
    lin_avals = [a for a, lin in zip(local_in, linear) if lin]
    summed = []
    for ct, a, spec in zip(outs, lin_avals, lin_specs):
      axes = _unsplit_axes(mesh, spec, a.ndim)
      summed.append(parallel.psum_p.bind(ct, axis_name=axes) if axes else ct)
    return summed

  body_closed = _trace_local(
      body, [a for a, lin in zip(local_in, linear) if not lin] + local_out, mesh)
  outs = iter(shard_map_p.bind(
      *residuals, *cts, jaxpr=body_closed, mesh=mesh,
      in_specs=tuple(res_specs) + tuple(out_specs),
      out_specs=tuple(s for s, lin in zip(in_specs, linear) if lin),
      check_vma=False, name=f"transpose_{name}"))
  return [next(outs) if lin else None for lin in linear]


shard_map_p.def_impl(_shard_map_impl)
shard_map_p.def_abstract_eval(_shard_map_abstract_eval)
ad.jvp_rules[shard_map_p] = _shard_map_jvp
pe.partial_eval_rules[shard_map_p] = _shard_map_partial_eval
ad.transpose_rules[shard_map_p] = _shard_map_transpose
batching.batch_rules[shard_map_p] = _shard_map_batch
hlo.lowering_rules[shard_map_p] = _shard_map_lowering


def contains_shard_map(jaxpr: core.Jaxpr) -> bool:
  """Whether `jaxpr` (or a jaxpr nested in it) has a shard_map, which no single module can hold."""
  return core.any_eqn(jaxpr, lambda eqn: eqn.primitive is shard_map_p)


# ----------------------------------------------------------------------------- replication check


_REDUCING_COLLECTIVES = frozenset({parallel.psum_p, parallel.pmax_p, parallel.pmin_p,
                                   parallel.all_gather_p})


def _introduced(jaxpr: core.Jaxpr) -> frozenset:
  """The mesh axes along which a value computed in `jaxpr` can vary whatever its inputs."""
  return frozenset(n for eqn in core.all_eqns(jaxpr)
                   if eqn.primitive in (parallel.axis_index_p, parallel.ppermute_p,
                                       parallel.all_to_all_p)
                   for n in _names_of(eqn.params["axis_name"]))


def _names_of(axis_name) -> set:
  return set(axis_name) if isinstance(axis_name, (tuple, list)) else {axis_name}


def _varying(jaxpr: core.Jaxpr, in_vary: Sequence[frozenset]) -> list[frozenset]:
  """Per output, the mesh axes along which its value may differ between devices."""
  env: dict = {v: frozenset(s) for v, s in zip(jaxpr.invars, in_vary)}
  read = lambda x: frozenset() if isinstance(x, core.Literal) else env.get(x, frozenset())
  for eqn in jaxpr.eqns:
    ins = [read(x) for x in eqn.inputs]
    union = frozenset().union(*ins)
    prim = eqn.primitive
    if prim in _REDUCING_COLLECTIVES:
      outs = [union - _names_of(eqn.params["axis_name"])] * len(eqn.out_binders)
    elif prim is parallel.axis_index_p:
      outs = [frozenset(_names_of(eqn.params["axis_name"]))]
    elif prim in (parallel.ppermute_p, parallel.all_to_all_p):  # values move between members
      outs = [union | _names_of(eqn.params["axis_name"])]
    elif prim is jit_p:
      outs = _varying(eqn.params["jaxpr"].jaxpr, ins)
    else:  # control flow: its bodies may make a value vary (axis_index in a branch)
      inner = frozenset().union(*(_introduced(sub) for sub in core.subjaxprs(eqn)))
      outs = [union | inner] * len(eqn.out_binders)
    for v, s in zip(eqn.out_binders, outs):
      env[v] = s
  return [read(x) for x in jaxpr.outs]


def _check_replication(fun_name, mesh, jaxpr: core.Jaxpr, in_specs, out_specs) -> None:
  in_vary = [frozenset(n for names in spec_axes(s, v.aval.ndim) for n in names)
             for s, v in zip(in_specs, jaxpr.invars)]
  for vary, spec in zip(_varying(jaxpr, in_vary), out_specs):
    mentioned = {n for names in spec_axes(spec, len(spec)) for n in names}
    missing = [n for n in mesh.axis_names if n in vary and n not in mentioned]
    if missing:
      raise ValueError(
          f"shard_map applied to the function '{fun_name}' was given out_specs which require "
          f"replication which can't be statically inferred given the mesh:\n\n"
          f"{_mesh_desc(mesh)}\n\nout_specs is {spec} which implies that the corresponding "
          f"output value is replicated across mesh axis {missing[0]!r}, but it varies over "
          f"that axis\n\nCheck if these output values are meant to be replicated over those "
          f"mesh axes. If not, consider revising the corresponding out_specs entries. If so, "
          f"consider disabling the check by passing the check_vma=False argument to "
          f"`jax.shard_map`.")


# ----------------------------------------------------------------------------- user API


def _is_spec(x) -> bool:
  return x is None or isinstance(x, PartitionSpec)


def _flat_specs(specs, tree, what: str, fun_name: str) -> list[PartitionSpec]:
  try:
    flat = tree_util.prefix_per_leaf(specs, tree, is_leaf=_is_spec)
  except (ValueError, KeyError, TypeError) as e:
    raise ValueError(f"shard_map applied to the function '{fun_name}' was given {what} "
                     f"{specs!r} that is not a pytree prefix of the {('arguments' if what == 'in_specs' else 'outputs')}: {e}") from None
  for s in flat:
    if not _is_spec(s):
      raise TypeError(f"shard_map {what} entries must be PartitionSpecs, got {s!r}")
  return [PartitionSpec() if s is None else s for s in flat]


def _check_spec_names(mesh: Mesh, specs, what: str) -> None:
  for s in specs:
    for names in spec_axes(s, len(s)):
      for n in names:
        if n not in mesh.shape:
          raise ValueError(f"shard_map {what} {s} refers to mesh axis {n!r}, which is not in "
                           f"the mesh {mesh.axis_names}")


def _typed_spec(x, mesh: Mesh) -> PartitionSpec | None:
  """How `x`'s type splits it over `mesh`'s Explicit axes (None if its type says nothing)."""
  s = core.explicit_sharding(core.get_aval(x))
  return s.spec if s is not None and s.mesh == mesh.abstract_mesh else None


def _infer_in_specs(leaves, mesh: Mesh) -> list[PartitionSpec]:
  specs = []
  for x in leaves:
    typed = _typed_spec(x, mesh)
    if typed is not None:
      specs.append(typed)
    elif (isinstance(x, ArrayImpl) and isinstance(x.explicit_sharding, NamedSharding)
          and x.explicit_sharding.mesh == mesh):
      specs.append(x.explicit_sharding.spec)
    else:
      specs.append(PartitionSpec())
  return specs


def _check_typed_inputs(leaves, mesh: Mesh, in_specs) -> None:
  """Over Explicit axes an argument's layout is its type: in_specs must say the same."""
  for x, spec in zip(leaves, in_specs):
    typed = _typed_spec(x, mesh)
    aval = core.get_aval(x)
    if typed is not None and typed.axes_by_dim(aval.ndim) != explicit_spec(
        mesh, spec, aval.ndim).axes_by_dim(aval.ndim):
      raise ValueError(
          f"in_specs passed to shard_map: {spec} does not match the specs of the input: "
          f"{typed} for arg: {aval.str_short(short_dtypes=True)}. `in_specs` is an optional argument so you can "
          "omit specifying it and shard_map will infer the in_specs from the arguments. If you "
          "want to reshard your inputs, you can use `jax.reshard` on the arguments and then "
          "pass those args to shard_map.")


class ShardMapped:
  """What `shard_map(f, ...)` returns."""

  def __init__(self, fun: Callable, mesh, in_specs, out_specs, check_vma: bool):
    self._fun, self._mesh = fun, mesh
    self._in_specs, self._out_specs, self._check_vma = in_specs, out_specs, check_vma
    self._name = getattr(fun, "__name__", type(fun).__name__)
    functools.update_wrapper(self, fun, updated=())  # never merge the wrapped object's state

  def __call__(self, *args, **kwargs):
    if kwargs:
      raise TypeError(f"shard_map'd function '{self._name}' takes positional arguments only, "
                      f"got keyword arguments {sorted(kwargs)}")
    mesh = self._mesh if self._mesh is not None else get_mesh()
    if mesh is None:
      raise ValueError("shard_map requires a mesh: pass mesh=, or call it inside `with mesh:`")
    leaves, in_tree = tree_util.tree_flatten((args, {}))
    if self._in_specs is None:
      in_specs = _infer_in_specs(leaves, mesh)
    else:
      in_specs = _flat_specs(self._in_specs, args, "in_specs", self._name)
    _check_spec_names(mesh, in_specs, "in_specs")
    _check_typed_inputs(leaves, mesh, in_specs)
    avals = [core.get_aval(x) for x in leaves]
    _check_divisible(self._name, mesh, avals, in_specs)
    local = [_local_aval(a, s, mesh) for a, s in zip(avals, in_specs)]
    store = tree_util.OutTreeStore()
    with _mesh_axes_bound(mesh):
      jaxpr, consts = pe.trace_to_jaxpr_dynamic(tree_util.flatten_fun(self._fun, in_tree, store),
                                                local)
    closed, hoisted = pe.close_jaxpr(jaxpr, consts)
    out_tree = store.value
    out_specs = _flat_specs(self._out_specs, out_tree.unflatten([0] * out_tree.num_leaves),
                            "out_specs", self._name)
    _check_spec_names(mesh, out_specs, "out_specs")
    for spec, aval in zip(out_specs, closed.out_avals):
      if len(spec) > aval.ndim:
        raise ValueError(
            f"shard_map applied to the function '{self._name}' was given an out_specs entry "
            "which is too long to be compatible with the corresponding output value from the "
            f"function:\n\nout_specs is {spec} which has length {len(spec)}, but "
            f"{self._name}(*args) has shape {aval.str_short(short_dtypes=True)}")
    # Values closed over from an enclosing trace enter as replicated arguments.
    in_specs = [PartitionSpec()] * len(hoisted) + list(in_specs)
    if self._check_vma:
      _check_replication(self._name, mesh, closed.jaxpr, in_specs, out_specs)
    outs = shard_map_p.bind(*hoisted, *leaves, jaxpr=closed, mesh=mesh,
                            in_specs=tuple(in_specs), out_specs=tuple(out_specs),
                            check_vma=self._check_vma, name=self._name)
    return out_tree.unflatten(outs)


def shard_map(f: Callable | None = None, /, *, out_specs, in_specs=None, mesh: Mesh | None = None,
              axis_names=frozenset(), check_vma: bool = True, check_rep: bool | None = None,
              auto=frozenset()):
  """Map `f` over the blocks of its arguments, one block per device of `mesh`.

  `in_specs`/`out_specs` are pytree prefixes of the arguments/outputs with one
  PartitionSpec per leaf; `in_specs=None` takes each argument's own spec.
  """
  del axis_names, auto  # every mesh axis is manual inside the body
  if check_rep is not None:
    check_vma = check_rep
  if mesh is not None and not isinstance(mesh, Mesh):
    raise TypeError(f"shard_map requires mesh to be a jax.sharding.Mesh, got {type(mesh)}")
  make = lambda fun: ShardMapped(fun, mesh, in_specs, out_specs, check_vma)
  return make if f is None else make(f)


# ----------------------------------------------------------------------------- partitioned jit


class NotPartitionable(Exception):
  """The jaxpr cannot run as one SPMD program; the message says which equation and why."""


# Primitive -> rule(partitioner, eqn, ins) -> the equation's local outputs, or None to
# fall back to the default: compute it on replicated values. Filled at the end of
# this module (the partitioner sits above lax, so lax cannot register here itself).
partition_rules: dict[core.Primitive, Callable] = {}


class _Uniform(NamedTuple):
  """A scalar broadcast to a shape: it can take any layout, so it is built where used."""
  scalar: Any
  eqn: core.JaxprEqn


class _Val(NamedTuple):
  value: Any
  axes: tuple  # per dimension, the mesh axis names splitting it


def _replicated(v: _Val) -> bool:
  return not any(v.axes)


class _Partitioner:
  """Runs a global jaxpr on local (per-device) values, tracking each value's layout."""

  def __init__(self, mesh: Mesh):
    self.mesh = mesh

  def local_shape(self, shape, axes) -> tuple:
    return tuple(d // math.prod(self.mesh.shape[n] for n in names)
                 for d, names in zip(shape, axes))

  def materialize(self, x, axes) -> _Val:
    if isinstance(x, _Uniform):
      shape = self.local_shape(x.eqn.out_binders[0].aval.shape, axes)
      params = dict(x.eqn.params, shape=shape)
      return _Val(x.eqn.primitive.bind(x.scalar, **params), axes)
    return x

  def replicated(self, x) -> _Val:
    """`x` whole on every device. A split value is all-gathered over the mesh axes of
    each split dimension: an operation this partitioner cannot split runs on the whole
    value on every device, as GSPMD runs such operations (it inserts the same
    all-gathers), so any function partitions, across processes too."""
    if isinstance(x, _Uniform):
      return self.materialize(x, ((),) * len(x.eqn.out_binders[0].aval.shape))
    value = x.value
    for dim, names in enumerate(x.axes):
      if names:
        value = parallel.all_gather(value, names if len(names) > 1 else names[0], axis=dim,
                                    tiled=True)
    return _Val(value, ((),) * len(x.axes))

  def in_layout(self, x, axes: tuple):
    """The local block of `x` in the layout `axes`; a replicated value is sliced locally."""
    if isinstance(x, _Uniform):
      return self.materialize(x, axes).value
    if x.axes == axes:
      return x.value
    # Split otherwise: gathered whole, then this device's block is sliced out.
    return self.local_block(self.replicated(x).value, axes)

  def local_block(self, value, axes: tuple):
    """This device's block of a replicated `value` (device order is row-major over the mesh)."""
    starts = []
    for names, local in zip(axes, self.local_shape(value.shape, axes)):
      index = 0
      for n in names:
        index = index * self.mesh.shape[n] + parallel.axis_index(n)
      starts.append(index * local)
    return slicing.dynamic_slice(value, starts, self.local_shape(value.shape, axes))

  def shard_map_eqn(self, eqn, ins) -> list:
    """The shard_map body inlined: its in_specs/out_specs are the layouts around it."""
    p = eqn.params
    if p["mesh"] != self.mesh:
      raise NotPartitionable(f"shard_map '{p['name']}' runs over the mesh {p['mesh']}, and "
                              f"another shard_map in the same function over {self.mesh}")
    body = p["jaxpr"]
    local = [self.in_layout(x, spec_axes(s, v.aval.ndim))
             for x, s, v in zip(ins, p["in_specs"], eqn.inputs)]
    outs = core.eval_jaxpr(body.jaxpr, body.consts, local)
    return [_Val(o, spec_axes(s, v.aval.ndim))
            for o, s, v in zip(outs, p["out_specs"], eqn.out_binders)]

  def run(self, jaxpr: core.Jaxpr, consts, args: Sequence) -> list:
    env: dict = {}

    def read(x):
      if isinstance(x, core.Literal):
        return _Val(pe.literal_value(x), ((),) * x.aval.ndim)
      return env[x]

    for v, c in zip(jaxpr.constvars, consts):
      env[v] = _Val(c, ((),) * v.aval.ndim)
    for v, a in zip(jaxpr.invars, args):
      env[v] = a
    for eqn in jaxpr.eqns:
      outs = self.equation(eqn, [read(x) for x in eqn.inputs])
      for v, o in zip(eqn.out_binders, outs):
        env[v] = o
    return [read(x) for x in jaxpr.outs]

  def equation(self, eqn: core.JaxprEqn, ins: list) -> list:
    prim = eqn.primitive
    rule = partition_rules.get(prim)
    outs = None if rule is None else rule(self, eqn, ins)
    if outs is not None:
      return outs
    vals = [self.replicated(x).value for x in ins]
    outs = prim.bind(*vals, **eqn.params)
    outs = outs if prim.multiple_results else [outs]
    return [_Val(o, ((),) * v.aval.ndim) for o, v in zip(outs, eqn.out_binders)]

  def uniform(self, eqn, ins) -> list | None:
    """A replicated scalar broadcast stays a scalar until a layout is known for it."""
    x = ins[0]
    if not isinstance(x, _Uniform) and x.axes == () and _replicated(x):
      return [_Uniform(x.value, eqn)]
    return None

  def jit_eqn(self, eqn, ins) -> list:
    inner = eqn.params["jaxpr"]
    return self.run(inner.jaxpr, inner.consts, ins)

  def elementwise_eqn(self, eqn, ins) -> list:
    ndim = eqn.out_binders[0].aval.ndim
    layouts = {x.axes for x in ins if not isinstance(x, _Uniform) and len(x.axes) == ndim
               and ndim > 0}
    # Operands split differently are all made whole (see `replicated`).
    axes = layouts.pop() if len(layouts) == 1 else ((),) * ndim
    vals = []
    for x in ins:
      x = self.materialize(x, axes)
      if x.axes != axes and x.axes != ():
        x = self.replicated(x)
      vals.append(x.value)
    out = eqn.primitive.bind(*vals, **eqn.params)
    outs = out if eqn.primitive.multiple_results else [out]
    return [_Val(o, axes) for o in outs]

  def dot_eqn(self, eqn, ins) -> list | None:
    """A dot whose operands are split only on free (non-contracting, non-batch)
    dimensions: each device multiplies its blocks, and the result is split as those
    free dimensions were (x @ w with the rows of x split stays split). Otherwise None:
    the operands are made whole."""
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lhs, rhs = (self.materialize(x, ((),) * v.aval.ndim) for x, v in zip(ins, eqn.inputs))
    if any(lhs.axes[d] for d in (*lc, *lb)) or any(rhs.axes[d] for d in (*rc, *rb)):
      return None
    free = ([lhs.axes[d] for d in range(len(lhs.axes)) if d not in (*lc, *lb)]
            + [rhs.axes[d] for d in range(len(rhs.axes)) if d not in (*rc, *rb)])
    names = [n for axes in free for n in axes]
    if len(names) != len(set(names)):
      return None  # one mesh axis would split two dimensions of the result
    out = eqn.primitive.bind(lhs.value, rhs.value, **eqn.params)
    return [_Val(out, (((),) * len(lb)) + tuple(free))]

  def reduction(self, eqn, ins, collective: core.Primitive | None) -> list:
    """A reduction; over split dimensions only with `collective` to combine the shards."""
    x = self.materialize(ins[0], ((),) * eqn.inputs[0].aval.ndim)
    reduced = tuple(eqn.params["axes"])
    split = [n for d in reduced for n in x.axes[d]]
    if split and collective is None:  # no collective combines the pieces: made whole
      x, split = self.replicated(x), []
    out = eqn.primitive.bind(x.value, **eqn.params)
    if split:
      out = collective.bind(out, axis_name=tuple(split) if len(split) > 1 else split[0])
    axes = tuple(a for d, a in enumerate(x.axes) if d not in reduced)
    return [_Val(out, axes)]


def _spans_processes(x) -> bool:
  return isinstance(x, ArrayImpl) and not x.is_fully_addressable


def _mesh_of_args(args) -> Mesh | None:
  """The mesh that splits some argument (or holds one across processes, where no device
  has it all), or None (no such argument, or several meshes)."""
  mesh = None
  for x in args:
    s = x.explicit_sharding if isinstance(x, ArrayImpl) else None
    if isinstance(s, NamedSharding) and s.mesh.size > 1 and (not s.is_fully_replicated
                                                             or _spans_processes(x)):
      if mesh is not None and s.mesh != mesh:
        return None
      mesh = s.mesh
  return mesh


def _refuse_across_processes(args, name: str, reason: str) -> None:
  """Across processes no device can hold every piece: running on one device is no way
  out, so say what to change instead."""
  if any(_spans_processes(x) for x in args):
    raise ValueError(f"jit of '{name}' cannot run over the devices of several processes: "
                     f"{reason}. Put the arguments on one mesh (jax.device_put(x, "
                     "NamedSharding(mesh, spec)) with the same mesh for all), or pass "
                     "process-local values")


def _arg_axes(x, mesh: Mesh, aval: ShapedArray) -> tuple:
  s = x.explicit_sharding if isinstance(x, ArrayImpl) else None
  if isinstance(s, NamedSharding) and s.mesh == mesh:
    return spec_axes(s.spec, aval.ndim)
  return ((),) * aval.ndim


class _Plan(NamedTuple):
  jaxpr: core.ClosedJaxpr
  in_specs: tuple
  out_specs: tuple


def build_plan(closed: core.ClosedJaxpr, mesh: Mesh, in_axes, name: str) -> _Plan:
  in_specs = tuple(spec_from_axes(a) for a in in_axes)
  local = [_local_aval(a, s, mesh) for a, s in zip(closed.in_avals, in_specs)]
  part = _Partitioner(mesh)
  out_axes: list = []

  def body(*xs):
    outs = part.run(closed.jaxpr, closed.consts, [_Val(x, a) for x, a in zip(xs, in_axes)])
    outs = [part.materialize(o, ((),) * v.aval.ndim) if isinstance(o, _Uniform) else o
            for o, v in zip(outs, closed.jaxpr.outs)]
    out_axes[:] = [o.axes for o in outs]
    return [o.value for o in outs]

  with _mesh_axes_bound(mesh):
    jaxpr, consts = pe.trace_to_jaxpr_dynamic(body, local)
  local_closed, hoisted = pe.close_jaxpr(jaxpr, consts)
  if hoisted:
    raise NotPartitionable("the function closes over values traced outside it")
  return _Plan(local_closed, in_specs, tuple(spec_from_axes(a) for a in out_axes))


def partitioned_jit(closed: core.ClosedJaxpr, args: Sequence, name: str) -> list | None:
  """Run the jit of `closed` as an SPMD program over the mesh its arguments are split on.

  Returns None when no argument is split, or the jaxpr is not partitionable (see
  the module docstring); the caller then runs it on one device. Across processes the
  latter is refused (ValueError).
  """
  mesh = _mesh_of_args(args)
  if mesh is None:
    _refuse_across_processes(args, name, "its arguments are split over different meshes")
    return None
  in_axes = tuple(_arg_axes(x, mesh, a) for x, a in zip(args, closed.in_avals))
  def build():
    try:
      return build_plan(closed, mesh, in_axes, name)
    except NotPartitionable as e:
      return e
  plan = execution.memo(closed, ("spmd_plan", mesh, in_axes, execution.config_key()), build)
  if isinstance(plan, NotPartitionable):
    _refuse_across_processes(args, name, str(plan))
    return None
  return _shard_map_impl(*args, jaxpr=plan.jaxpr, mesh=mesh, in_specs=plan.in_specs,
                         out_specs=plan.out_specs, check_vma=False, name=name)


def _register_partition_rules() -> None:
  for prim in vars(elementwise).values():
    if isinstance(prim, core.Primitive) and prim is not elementwise.bitcast_convert_type_p:
      partition_rules[prim] = _Partitioner.elementwise_eqn
  combined = {reductions.reduce_sum_p: parallel.psum_p, reductions.reduce_max_p: parallel.pmax_p,
              reductions.reduce_min_p: parallel.pmin_p}
  for prim in (reductions.reduce_sum_p, reductions.reduce_max_p, reductions.reduce_min_p,
               reductions.reduce_prod_p, reductions.reduce_and_p, reductions.reduce_or_p,
               reductions.argmax_p, reductions.argmin_p):
    partition_rules[prim] = functools.partial(_reduction_rule, collective=combined.get(prim))
  partition_rules[broadcast_in_dim_p] = _Partitioner.uniform
  partition_rules[jit_p] = _Partitioner.jit_eqn
  partition_rules[linalg.dot_general_p] = _Partitioner.dot_eqn
  partition_rules[shard_map_p] = _Partitioner.shard_map_eqn


def _reduction_rule(part: _Partitioner, eqn, ins, *, collective):
  return part.reduction(eqn, ins, collective)


_register_partition_rules()


def _axis_spec(axis, axis_name) -> PartitionSpec:
  if axis is None:
    return PartitionSpec()
  if not isinstance(axis, int) or axis < 0:
    raise ValueError(f"smap in_axes/out_axes entries must be None or a non-negative int, "
                     f"got {axis!r}")
  return PartitionSpec(*([None] * axis), axis_name)


def smap(f: Callable | None = None, /, *, in_axes=0, out_axes, axis_name):
  """shard_map over one axis of the mesh in context: arguments are split along their
  `in_axes` dimension (None: replicated) over mesh axis `axis_name`, results joined
  along `out_axes`."""
  def specs(axes):
    return tree_util.tree_map(lambda a: _axis_spec(a, axis_name), axes,
                              is_leaf=lambda a: a is None)

  def make(fun):
    @functools.wraps(fun)
    def wrapped(*args):
      mesh = get_mesh()
      if mesh is None or axis_name not in mesh.axis_names:
        raise ValueError(f"smap over axis {axis_name!r} needs a mesh with that axis in "
                         "context (`with jax.set_mesh(mesh):`)")
      ins = specs(in_axes)
      if not isinstance(ins, tuple) or isinstance(ins, PartitionSpec):
        ins = (ins,) * len(args)
      return shard_map(fun, mesh=mesh, in_specs=ins, out_specs=specs(out_axes))(*args)
    return wrapped
  return make if f is None else make(f)
