"""Forward- and reverse-mode autodiff.

JVP is a trace (`JVPTrace`) driven by `jvp_rules`. Reverse mode follows the
autodidax recipe: linearize = JVP + partial evaluation (the primal part runs now,
the tangent part is staged into a linear jaxpr), and vjp = linearize + transpose,
where `backward_pass` walks the linear jaxpr backwards with `transpose_rules`.
Because jit is a primitive with its own JVP, partial-eval and transpose rules,
grad-of-jit and jit-of-grad both compose.

Registrars: `defjvp` (one tangent function per argument), `defjvp2`,
`deflinear` (linear primitives: JVP is the primitive, transpose given),
`deflinear2`, `defjvp_zero` (piecewise-constant results).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from jax._src import core
from jax._src import dtypes
from jax._src.core import ShapedArray, Tracer
from jax._src.interpreters import partial_eval as pe
from jax._src.name_stack import Transform, transform_name_stack, using_name_stack

# rule(primals, tangents, **params) -> (primal_out, tangent_out) (lists if multiple_results)
jvp_rules: dict[core.Primitive, Callable] = {}
# rule(cts_out, *invals, **params) -> list of cts for invals (None for non-linear ones)
transpose_rules: dict[core.Primitive, Callable] = {}


# Zeros are built with lax's `full`, defined a layer above; jax._src.lax.shape registers it.
_full: Callable | None = None


def register_full(full: Callable) -> None:
  global _full
  _full = full


def zeros_like_aval(aval: ShapedArray):
  if _full is None:
    raise RuntimeError("autodiff needs jax._src.lax.shape imported (it registers `full`)")
  if core.has_physical_form(aval.dtype):
    return dtypes.extended_zeros(aval)  # e.g. keys whose data is all zeros
  if isinstance(aval.dtype, dtypes.ExtendedDType):
    # An extended dtype's rules say what its zero is (flax's max-accumulated fp8 meta: -inf).
    return _full(aval.shape, dtypes.extended_zero(aval.dtype), aval.dtype)
  return _full(aval.shape, 0, aval.dtype, weak_type=aval.weak_type)


def zeros_like(x):
  return zeros_like_aval(core.get_aval(x))


class Zero:
  """A tangent or cotangent known to be zero, kept symbolic (never computed).

  Values that do not depend on a differentiated input carry one, so that no zeros are
  built and rules that can use the knowledge (jit, custom_vjp with `symbolic_zeros`)
  see which inputs are perturbed.
  """

  __slots__ = ("aval",)

  def __init__(self, aval: ShapedArray):
    self.aval = aval

  shape = property(lambda self: self.aval.shape)
  dtype = property(lambda self: self.aval.dtype)

  @classmethod
  def from_primal_value(cls, val) -> Zero:
    return cls(core.get_aval(val))

  def instantiate(self):
    """This zero as an array."""
    return zeros_like_aval(self.aval)

  def __repr__(self):
    return f"Zero({self.aval.str_short(short_dtypes=True)})"


def instantiate(t, aval: ShapedArray | None = None):
  """`t` as an array: a `Zero` (or None, given `aval`) becomes zeros."""
  if type(t) is Zero:
    return zeros_like_aval(t.aval)
  if t is None:
    return zeros_like_aval(aval)
  return t


# Primitives whose JVP rule takes `Zero` tangents as they are; every other rule gets
# them as arrays (and a primitive whose tangents are all zero is not differentiated).
symbolic_zero_rules: set[core.Primitive] = set()


def add_tangents(a, b):
  if a is None:
    return b
  if b is None:
    return a
  dt = core.get_aval(a).dtype
  if isinstance(dt, dtypes.ExtendedDType):
    return dtypes.extended_add(dt, a, b)  # the dtype's own accumulation (e.g. a maximum)
  return add_any_p.bind(a, b)


# `add_any` adds two tangents/cotangents of one type (used by the AD machinery).
add_any_p = core.Primitive("add_any")


# ----------------------------------------------------------------------------- JVP


class JVPTracer(Tracer):
  __slots__ = ("primal", "tangent")

  def __init__(self, trace, primal, tangent):
    self._trace = trace
    self.primal = primal
    self.tangent = tangent

  @property
  def aval(self):
    return core.get_aval(self.primal)

  def to_concrete_value(self):
    return core.concrete_value(self.primal)


class JVPTrace(core.Trace):
  def pure(self, val):
    return JVPTracer(self, val, Zero(core.get_aval(val)))

  lift = pure

  def process_primitive(self, primitive, tracers, params):
    primals = [t.primal for t in tracers]
    tangents = [t.tangent for t in tracers]
    if all(type(t) is Zero for t in tangents):
      # Nothing differentiated flows in: the result is a primal with a zero tangent.
      out = primitive.bind(*primals, **params)
      if primitive.multiple_results:
        return [JVPTracer(self, o, Zero(core.get_aval(o))) for o in out]
      return JVPTracer(self, out, Zero(core.get_aval(out)))
    rule = jvp_rules.get(primitive)
    if rule is None:
      raise NotImplementedError(f"differentiation rule for '{primitive.name}' not implemented")
    if primitive not in symbolic_zero_rules:
      tangents = [instantiate(t) for t in tangents]
    primal_out, tangent_out = rule(primals, tangents, **params)
    if primitive.multiple_results:
      return [self._tracer(p, t) for p, t in zip(primal_out, tangent_out)]
    return self._tracer(primal_out, tangent_out)

  def _tracer(self, primal, tangent) -> JVPTracer:
    if tangent is None or type(tangent) is Zero:
      # Rules written for JAX give integer values float0 zeros; here a zero tangent has
      # its primal's type, as instantiated tangents do.
      tangent = Zero(core.get_aval(primal))
    elif not _differentiable(primal):
      # Integer and boolean values have zero tangents (JAX's float0): kept symbolic, so
      # that what depends only on them is not differentiated.
      tangent = Zero(core.get_aval(primal))
    return JVPTracer(self, primal, tangent)


def _differentiable(x) -> bool:
  return dtypes.is_differentiable(core.get_aval(x).dtype)  # numpy files bf16/f8 nowhere


def jvp_flat(fun: Callable, primals: Sequence, tangents: Sequence,
             instantiate_out: bool = True) -> tuple[list, list]:
  """(primals_out, tangents_out) of `fun(*primals)`; tangents may be `Zero`s, and so may
  tangents_out unless `instantiate_out`."""
  with core.new_main(JVPTrace) as main, transform_name_stack("jvp"):
    trace = JVPTrace(main)
    tracers_in = [JVPTracer(trace, p, t) for p, t in zip(primals, tangents)]
    outs = fun(*tracers_in)
    tracers_out = [core.full_raise(trace, o) for o in outs]
    primals_out = [core.full_lower(t.primal) for t in tracers_out]
    tangents_out = [t.tangent for t in tracers_out]
    if instantiate_out:
      tangents_out = [instantiate(t) for t in tangents_out]
    tangents_out = [t if type(t) is Zero else core.full_lower(t) for t in tangents_out]
  return primals_out, tangents_out


def jvp_jaxpr(closed: core.ClosedJaxpr) -> core.ClosedJaxpr:
  """A jaxpr computing (primals..., tangents...) -> (primals_out..., tangents_out...)."""
  new, _ = jvp_jaxpr_nonzeros(closed, [True] * len(closed.in_avals), instantiate=True)
  return new


def jvp_jaxpr_nonzeros(closed: core.ClosedJaxpr, nonzeros: Sequence[bool],
                       instantiate: bool = False) -> tuple[core.ClosedJaxpr, list[bool]]:
  """The JVP of `closed` taking only the tangents marked in `nonzeros` (the others are
  zero): (primals..., nonzero tangents...) -> (primals_out..., nonzero tangents_out...).

  Returns the jaxpr and which output tangents it computes (all when `instantiate`).
  """
  in_avals = closed.in_avals
  nz_avals = [a for a, nz in zip(in_avals, nonzeros) if nz]
  n = len(in_avals)
  out_nonzeros: list[bool] = []

  def fun(*args):
    it = iter(args[n:])
    tangents = [next(it) if nz else Zero(a) for a, nz in zip(in_avals, nonzeros)]
    primals_out, tangents_out = jvp_flat(core.jaxpr_as_fun(closed), args[:n], tangents,
                                         instantiate_out=instantiate)
    out_nonzeros[:] = [type(t) is not Zero for t in tangents_out]
    return [*primals_out, *(t for t in tangents_out if type(t) is not Zero)]

  jaxpr, consts = pe.trace_to_jaxpr_dynamic(fun, [*in_avals, *nz_avals])
  new, hoisted = pe.close_jaxpr(jaxpr, consts)
  assert not hoisted
  return new, out_nonzeros


# ----------------------------------------------------------------------------- registrars


def defjvp(prim: core.Primitive, *jvp_fns) -> None:
  """jvp_fns[i](tangent_i, *primals, **params) gives argument i's contribution; None = no dependence."""

  def rule(primals, tangents, **params):
    primal_out = prim.bind(*primals, **params)
    total = None
    for fn, t in zip(jvp_fns, tangents):
      if fn is not None and t is not None and type(t) is not Zero:
        total = add_tangents(total, fn(t, *primals, **params))
    if total is None:
      total = zeros_like(primal_out)
    return primal_out, total

  jvp_rules[prim] = rule
  symbolic_zero_rules.add(prim)  # a Zero tangent contributes nothing: no zeros to build


def defjvp2(prim: core.Primitive, *jvp_fns) -> None:
  """Like defjvp but each fn also receives the primal output: fn(t, ans, *primals, **params)."""

  def rule(primals, tangents, **params):
    ans = prim.bind(*primals, **params)
    total = None
    for fn, t in zip(jvp_fns, tangents):
      if fn is not None and t is not None and type(t) is not Zero:
        total = add_tangents(total, fn(t, ans, *primals, **params))
    return ans, zeros_like(ans) if total is None else total

  jvp_rules[prim] = rule
  symbolic_zero_rules.add(prim)


def defjvp_zero(prim: core.Primitive) -> None:
  """The output does not vary with the inputs (comparisons, floor, sign...)."""

  def rule(primals, tangents, **params):
    out = prim.bind(*primals, **params)
    if prim.multiple_results:
      return out, [Zero(core.get_aval(o)) for o in out]
    return out, Zero(core.get_aval(out))

  jvp_rules[prim] = rule


def deflinear(prim: core.Primitive, transpose_rule: Callable) -> None:
  """Linear in all its (positional) arguments: tangent = prim(tangents)."""

  def rule(primals, tangents, **params):
    return prim.bind(*primals, **params), prim.bind(*tangents, **params)

  jvp_rules[prim] = rule
  transpose_rules[prim] = transpose_rule


def deflinear2(prim: core.Primitive, transpose_rule: Callable) -> None:
  """Linear in its first argument only (the others are static-like data, e.g. shapes)."""

  def rule(primals, tangents, **params):
    return (prim.bind(*primals, **params),
            prim.bind(tangents[0], *primals[1:], **params))

  jvp_rules[prim] = rule
  transpose_rules[prim] = transpose_rule


# ----------------------------------------------------------------------------- linearize / vjp


def linearize_flat(fun: Callable, primals: Sequence):
  """-> (primals_out, linear jaxpr tangents_in -> tangents_out, its consts)."""
  pvals_in = ([pe.PartialVal.known(p) for p in primals] +
              [pe.PartialVal.unknown(core.get_aval(p)) for p in primals])
  n = len(primals)

  def fun_jvp(*args):
    primals_out, tangents_out = jvp_flat(fun, args[:n], args[n:])
    return [*primals_out, *tangents_out]

  # Every tangent output (the second half) goes into the linear jaxpr, even a known zero.
  jaxpr, pvals_out, consts = pe.trace_partial(
      fun_jvp, pvals_in, lambda n_out: [i >= n_out // 2 for i in range(n_out)])
  primals_pvals = pvals_out[:len(pvals_out) // 2]
  if not all(p.is_known() for p in primals_pvals):
    raise NotImplementedError("linearize: a primal output depends on a tangent input")
  return [p.get_known() for p in primals_pvals], jaxpr, consts


class UndefinedPrimal:
  """Marks a linear input of a transpose rule: only its type is known."""

  __slots__ = ("aval",)

  def __init__(self, aval: ShapedArray):
    self.aval = aval

  def __repr__(self):
    return f"UndefinedPrimal({self.aval})"


def is_undefined_primal(x) -> bool:
  return type(x) is UndefinedPrimal


def vjp_flat(fun: Callable, primals: Sequence):
  primals_out, jaxpr, consts = linearize_flat(fun, primals)

  def f_vjp(*cts):
    undefined = [UndefinedPrimal(v.aval) for v in jaxpr.invars]
    cts_in = backward_pass(jaxpr, consts, undefined, cts)
    return [zeros_like_aval(u.aval) if c is None else c for c, u in zip(cts_in, undefined)]

  return primals_out, f_vjp


def backward_pass(jaxpr: core.Jaxpr, consts: Sequence, args: Sequence, cts: Sequence) -> list:
  """Transpose `jaxpr` w.r.t. its UndefinedPrimal args; returns their cotangents (None = 0)."""
  primal_env: dict[core.Var, Any] = {}
  for v, c in zip(jaxpr.constvars, consts):
    primal_env[v] = c
  for v, a in zip(jaxpr.invars, args):
    primal_env[v] = a

  def read_primal(x):
    if isinstance(x, core.Literal):
      return pe.literal_value(x)
    return primal_env.get(x, UndefinedPrimal(x.aval))

  # Forward: evaluate equations that do not touch a linear input (residual work).
  linear_eqns = []
  for eqn in jaxpr.eqns:
    ins = [read_primal(x) for x in eqn.inputs]
    if any(is_undefined_primal(x) for x in ins):
      linear_eqns.append(eqn)
      continue
    outs = eqn.primitive.bind(*ins, **eqn.params)
    outs = outs if eqn.primitive.multiple_results else [outs]
    for v, o in zip(eqn.out_binders, outs):
      primal_env[v] = o

  ct_env: dict[core.Var, Any] = {}

  def write_ct(x, ct):
    if isinstance(x, core.Var) and ct is not None:
      ct_env[x] = add_tangents(ct_env.get(x), _like_primal(ct, x.aval))

  for x, ct in zip(jaxpr.outs, cts):
    write_ct(x, ct)
  for eqn in reversed(linear_eqns):
    ins = [read_primal(x) for x in eqn.inputs]
    cts_out = [ct_env.pop(v, None) for v in eqn.out_binders]
    if all(c is None for c in cts_out):
      continue
    rule = transpose_rules.get(eqn.primitive)
    if rule is None:
      raise NotImplementedError(f"transpose rule for '{eqn.primitive.name}' not implemented")
    with using_name_stack(_transposed_names(eqn)):
      if eqn.primitive.multiple_results:
        cts_in = rule(cts_out, *ins, **eqn.params)
      else:
        ct = cts_out[0]
        cts_in = rule(ct, *ins, **eqn.params)
    for x, ct in zip(eqn.inputs, cts_in):
      if ct is not None and is_undefined_primal(read_primal(x)):
        write_ct(x, ct)
  return [ct_env.get(v) if is_undefined_primal(a) else None
          for v, a in zip(jaxpr.invars, args)]


def _transposed_names(eqn) -> tuple:
  """The name stack of what transposing `eqn` computes: its own, under `transpose`."""
  own = eqn.source_info.name_stack.names if eqn.source_info is not None else ()
  return (Transform("transpose"), *own)


def _like_primal(ct, aval):
  """A cotangent split over Explicit mesh axes as its primal is (transposes of products
  and reshapes may leave it split otherwise)."""
  want = core.explicit_sharding(aval)
  if want is None:
    return ct
  have = core.explicit_sharding(core.get_aval(ct))
  if have == want or getattr(core.get_aval(ct), "shape", None) != aval.shape:
    return ct
  return core.sharding_hooks["reshard"](ct, want)


def instantiate_zeros(ct, aval: ShapedArray):
  return instantiate(ct, aval)


def transpose_jaxpr(closed: core.ClosedJaxpr, linear: Sequence[bool]) -> core.ClosedJaxpr:
  """(non-linear inputs..., cts of outputs...) -> cts of the linear inputs."""
  jaxpr = closed.jaxpr
  in_avals = closed.in_avals
  res_avals = [a for a, lin in zip(in_avals, linear) if not lin]

  def fun(*args):
    res, cts = args[:len(res_avals)], args[len(res_avals):]
    res_it = iter(res)
    full = [UndefinedPrimal(a) if lin else next(res_it) for a, lin in zip(in_avals, linear)]
    cts_in = backward_pass(jaxpr, closed.consts, full, cts)
    return [instantiate_zeros(c, a) for c, a, lin in zip(cts_in, in_avals, linear) if lin]

  new, consts = pe.trace_to_jaxpr_dynamic(fun, [*res_avals, *closed.out_avals])
  closed_new, hoisted = pe.close_jaxpr(new, consts)
  assert not hoisted
  return closed_new


# ----------------------------------------------------------------------------- add_any


def _add_any_abstract_eval(x, y):
  return core.ShapedArray(x.shape, x.dtype, x.weak_type and y.weak_type)


add_any_p.def_abstract_eval(_add_any_abstract_eval)
jvp_rules[add_any_p] = lambda primals, tangents: (add_any_p.bind(*primals), add_any_p.bind(*tangents))
transpose_rules[add_any_p] = lambda ct, x, y: [ct, ct]
