"""jax.core / jax.extend.core / jax.interpreters: a primitive defined the way libraries
define theirs works under eval, jit, grad and vmap; jaxprs read by JAX's names."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import core as jcore
from jax.extend import core as xcore
from jax.extend import linear_util as lu
from jax.extend.core import primitives
from jax.interpreters import ad, batching, mlir, partial_eval as pe


def _make_cube():
  p = xcore.Primitive("test_cube")
  p.def_impl(lambda x: np.asarray(x) ** 3)
  p.def_abstract_eval(lambda a: jcore.ShapedArray(a.shape, a.dtype))
  ad.defjvp(p, lambda g, x: 3 * x * x * g)

  def batch(args, dims):
    return p.bind(args[0]), dims[0]

  batching.primitive_batchers[p] = batch
  mlir.register_lowering(p, mlir.lower_fun(lambda x: x * x * x, multiple_results=False))
  return p, batch


CUBE, CUBE_BATCH = _make_cube()
X = np.array([0.5, 1.0, 2.0], np.float32)


def test_primitive_eval_jit_grad_vmap(backend):
  np.testing.assert_allclose(CUBE.bind(X), X ** 3)
  np.testing.assert_allclose(jax.jit(CUBE.bind)(X), X ** 3)
  np.testing.assert_allclose(jax.grad(lambda x: CUBE.bind(x).sum())(X), 3 * X ** 2)
  y = np.stack([X, 2 * X], 1)
  np.testing.assert_allclose(jax.vmap(CUBE.bind, 1)(y), (y ** 3).T)
  np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(CUBE.bind)))(X), 3 * X ** 2)


def test_rule_tables_are_ours():
  from jax._src.interpreters import ad as ad_src, batching as batching_src
  from jax._src.lowering import hlo
  assert ad.primitive_jvps is ad_src.jvp_rules
  assert ad.primitive_transposes is ad_src.transpose_rules
  assert CUBE in batching_src.batch_rules and batching.primitive_batchers[CUBE] is CUBE_BATCH
  assert CUBE in hlo.lowering_rules
  assert batching.not_mapped is None
  # Reading a built-in rule through JAX's signature works too.
  out, dim = batching.primitive_batchers[primitives.sin_p]([jnp.ones((2, 3))], [1])
  assert dim == 1 and out.shape == (2, 3)


def test_lowering_of_registered_rule(backend):
  text = jax.jit(CUBE.bind).lower(X).as_text()
  assert text.count("multiply(") == 2


def test_jaxpr_attributes_and_eval():
  closed = jax.make_jaxpr(lambda x, y: jnp.sin(x) * y)(1.0, 2.0)
  assert isinstance(closed, xcore.ClosedJaxpr)
  eqn = closed.jaxpr.eqns[0]
  assert eqn.primitive is primitives.sin_p
  assert eqn.invars == [closed.jaxpr.invars[0]] and len(eqn.outvars) == 1
  assert eqn.params == {} and eqn.effects == frozenset()
  assert closed.jaxpr.outvars == closed.jaxpr.eqns[-1].outvars
  assert all(isinstance(v, xcore.Var) for v in closed.jaxpr.invars)
  out, = jcore.eval_jaxpr(closed.jaxpr, closed.consts, 0.5, 3.0)
  np.testing.assert_allclose(out, np.sin(0.5) * 3.0, rtol=1e-6)
  out2, = xcore.jaxpr_as_fun(closed)(0.5, 3.0)
  np.testing.assert_allclose(out2, out)
  with pytest.raises(TypeError, match="2 arguments"):
    jcore.eval_jaxpr(closed.jaxpr, closed.consts, 1.0)


def test_new_jaxpr_eqn_builds_a_checkable_jaxpr():
  aval = jcore.ShapedArray((3,), np.float32)
  a, b, c = xcore.Var(aval), xcore.Var(aval), xcore.Var(aval)
  e1 = xcore.new_jaxpr_eqn([a, a], [b], primitives.mul_p, {}, xcore.no_effects)
  e2 = xcore.new_jaxpr_eqn([b], [c], primitives.neg_p, {}, xcore.no_effects)
  jaxpr = xcore.Jaxpr([], [a], [e1, e2], [c])
  xcore.check_jaxpr(jaxpr)
  out, = jcore.eval_jaxpr(jaxpr, [], X)
  np.testing.assert_allclose(out, -X * X)
  bad = xcore.Jaxpr([], [a], [e2], [c])  # b is never defined
  with pytest.raises(xcore.JaxprTypeError, match="unbound"):
    xcore.check_jaxpr(bad)


def test_shaped_array_names():
  aval = jcore.ShapedArray((2, 3), np.float32)
  assert isinstance(aval, jcore.AbstractValue)
  assert aval.sharding.spec == jax.sharding.PartitionSpec(None, None) and aval.sharding.mesh.empty
  assert xcore.mapped_aval(2, 0, aval).shape == (3,)
  assert xcore.unmapped_aval(4, 1, aval).shape == (2, 4, 3)
  with pytest.raises(ValueError, match="size"):
    xcore.mapped_aval(5, 0, aval)


def test_shaped_array_tangent_and_weak_type_methods():
  aval = jcore.ShapedArray((2, 3), np.float32, weak_type=True)
  assert aval.at_least_vspace() == aval.to_ct_aval() == aval.to_tangent_aval() == aval
  ints = jcore.ShapedArray((2,), np.int32)
  assert ints.at_least_vspace().dtype == ints.to_ct_aval().dtype == jax.dtypes.float0
  assert aval.update_weak_type(False) == aval.normalize() == aval.strip_weak_type()
  assert not aval.normalize().weak_type and aval.vspace_add(1, 2) == 3
  assert aval.has_qdd is False and aval.is_high is False


class _RecordingTracer(jcore.Tracer):
  """A tracer as libraries write them for JAX's current trace API (haiku's to_dot)."""

  def __init__(self, trace, val):
    super().__init__(trace, jax.typeof(val))
    self.val = val


class _RecordingTrace(jcore.Trace):
  """Runs every primitive on the trace it was made under and records its name."""

  def __init__(self, parent, tag, seen):
    super().__init__()
    self.parent, self.tag, self.seen = parent, tag, seen

  def to_val(self, x):
    return x.val if isinstance(x, _RecordingTracer) and x._trace.tag is self.tag else x

  def process_primitive(self, primitive, tracers, params):
    vals = [self.to_val(t) for t in tracers]
    out = primitive.bind_with_trace(self.parent, vals, [jax.typeof(v) for v in vals], params)
    self.seen.append(primitive.name)
    if primitive.multiple_results:
      return [_RecordingTracer(self, o) for o in out]
    return _RecordingTracer(self, out)


def _record(f, *args):
  seen = []
  with xcore.take_current_trace() as parent:
    trace = _RecordingTrace(parent, xcore.TraceTag(), seen)
    with xcore.set_current_trace(trace):
      out = f(*[_RecordingTracer(trace, a) for a in args])
      out = trace.to_val(out)
  return out, seen


def test_library_trace_with_current_trace_api(backend):
  x = jnp.arange(3.0)
  out, seen = _record(lambda a: jnp.sin(a) * 2.0 + a, x)
  np.testing.assert_allclose(out, np.sin(np.arange(3.0)) * 2 + np.arange(3.0), rtol=1e-6)
  assert seen == ["sin", "mul", "add"]
  assert type(out) is type(x)  # the values underneath are plain arrays again
  # Under jit the parent trace is jit's: the result is a traced value of it.
  out = jax.jit(lambda a: _record(lambda b: b * b, a)[0])(x)
  np.testing.assert_allclose(out, np.arange(3.0) ** 2)
  # Under eval_shape, as haiku's abstract_to_dot runs it.
  shape = jax.eval_shape(lambda a: _record(jnp.cos, a)[0], x)
  assert shape.shape == (3,) and shape.dtype == np.float32
  # Differentiating through it: grad's trace is the parent.
  g = jax.grad(lambda a: _record(lambda b: jnp.sum(b ** 3), a)[0])(x)
  np.testing.assert_allclose(g, 3 * np.arange(3.0) ** 2)


def test_tracer_is_jax_core_tracer():
  seen = []
  jax.jit(lambda x: seen.append(isinstance(x, jcore.Tracer)) or x)(1.0)
  jax.grad(lambda x: seen.append(isinstance(x, jcore.Tracer)) or x)(1.0)
  assert seen == [True, True]


def test_opaque_trace_state_tells_contexts_apart():
  outer = xcore.get_opaque_trace_state()
  assert outer == xcore.get_opaque_trace_state()
  inside = []
  jax.jit(lambda x: inside.append(xcore.get_opaque_trace_state()) or x)(1.0)
  jax.vmap(lambda x: inside.append(xcore.get_opaque_trace_state()) or x)(jnp.ones(2))
  assert all(s != outer for s in inside) and inside[0] != inside[1]


def test_under_a_jit_or_vmap_queries():
  flags = []
  jax.jit(lambda x: flags.append(xcore.unsafe_am_i_under_a_jit_DO_NOT_USE()) or x)(1.0)
  jax.vmap(lambda x: flags.append(xcore.unsafe_am_i_under_a_vmap_DO_NOT_USE()) or x)(jnp.ones(2))
  flags.append(xcore.unsafe_am_i_under_a_jit_DO_NOT_USE())
  assert flags == [True, True, False]


def test_ensure_compile_time_eval_gives_concrete_values(backend):
  kinds = []

  @jax.jit
  def f(x):
    with jax.ensure_compile_time_eval():
      y = jnp.arange(3.0).sum()
      kinds.append(isinstance(y, jcore.Tracer))
    return x + y

  assert float(f(1.0)) == 4.0 and kinds == [False]


def test_concrete_or_error():
  assert xcore.concrete_or_error(int, 3.0) == 3
  with pytest.raises(jax.errors.ConcretizationTypeError):
    jax.jit(lambda x: xcore.concrete_or_error(float, x))(1.0)


def test_primitives_module():
  from jax._src.lax import elementwise
  assert primitives.add_p is elementwise.add_p
  assert primitives.sin_p is elementwise.sin_p
  assert isinstance(primitives.dot_general_p, xcore.Primitive)


def test_call_primitive(backend):
  call_p = xcore.CallPrimitive("test_call")
  closed = jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0)
  f = lambda x: call_p.bind(x, call_jaxpr=closed)[0]
  np.testing.assert_allclose(f(0.5), 2 * np.sin(0.5), rtol=1e-6)
  np.testing.assert_allclose(jax.jit(f)(0.5), 2 * np.sin(0.5), rtol=1e-6)
  np.testing.assert_allclose(jax.grad(f)(0.5), 2 * np.cos(0.5), rtol=1e-6)
  np.testing.assert_allclose(jax.vmap(f)(X), 2 * np.sin(X), rtol=1e-6)


def test_primal_dtype_to_tangent_dtype():
  assert xcore.primal_dtype_to_tangent_dtype(np.float32) == np.float32
  assert xcore.primal_dtype_to_tangent_dtype(np.int32) == jax.dtypes.float0


def test_trace_to_jaxpr_dynamic():
  jaxpr, out_avals, consts = pe.trace_to_jaxpr_dynamic(
      lu.wrap_init(lambda x: [jnp.cos(x)]), [jcore.ShapedArray((2,), np.float32)])
  assert [e.primitive.name for e in jaxpr.eqns] == ["cos"]
  assert out_avals == [jcore.ShapedArray((2,), np.float32)] and consts == []


# ----------------------------------------------------------------------------- linear_util


def test_generator_transformation():
  @lu.transformation
  def scale_in_shift_out(k, x):
    out = yield (x * k,), {}
    yield out + 1

  f = scale_in_shift_out(lu.wrap_init(lambda x: x * 10), 2)
  assert f.call_wrapped(3) == 61


def test_transformation_with_aux_and_params():
  @lu.transformation_with_aux
  def record(x):
    out = yield (x,), {}
    yield out, {"seen": x}

  f, aux = record(lu.wrap_init(lambda x, y: x + y, {"y": 5}))
  with pytest.raises(lu.StoreException):
    aux()
  assert f.call_wrapped(1) == 6
  assert aux() == {"seen": 1}


def test_transformation2_and_cache():
  @lu.transformation2
  def twice(f, x):
    return f(f(x))

  calls = []

  @lu.cache
  def run(fun, arg):
    calls.append(arg)
    return fun.call_wrapped(arg)

  base = lambda x: x + 3
  assert run(twice(lu.wrap_init(base)), 1) == 7
  assert run(twice(lu.wrap_init(base)), 1) == 7
  assert calls == [1]


def test_merge_linear_aux():
  @lu.transformation_with_aux
  def t(x):
    out = yield (x,), {}
    yield out, "a"

  f1, aux1 = t(lu.wrap_init(lambda x: x))
  _, aux2 = t(lu.wrap_init(lambda x: x))
  f1.call_wrapped(0)
  assert lu.merge_linear_aux(aux1, aux2) == (True, "a")
  with pytest.raises(lu.StoreException):
    lu.merge_linear_aux(aux2, aux2)


def test_extend_backend(backend):
  from jax.extend import backend as xb
  assert xb.get_default_device() == jax.devices()[0]
  assert xb.get_backend().platform == jax.default_backend()
  assert jax.default_backend() in xb.backends()


def test_extend_random_threefry(backend):
  from jax.extend import random as xr
  # Known-answer test of Threefry-2x32 (20 rounds), key (0x13198a2e, 0x03707344).
  k1, k2 = np.uint32(0x13198A2E), np.uint32(0x03707344)
  x0, x1 = np.uint32(0x243F6A88), np.uint32(0x85A308D3)
  # JAX's threefry_2x32(keypair, count) hashes the two halves of `count` as pairs.
  y0, y1 = xr.threefry_2x32((k1, k2), np.array([x0, x1], np.uint32))
  assert (int(y0), int(y1)) == (0xC4923A9C, 0x483DF7A0)


def test_axis_primitive_batchers(backend):
  p = xcore.Primitive("test_axis_double")
  p.def_impl(lambda x: np.asarray(x) * 2)
  p.def_abstract_eval(lambda a: a)
  ad.deflinear(p, lambda ct, x: [p.bind(ct)])
  mlir.register_lowering(p, mlir.lower_fun(lambda x: x * 2, multiple_results=False))
  seen = []

  def rule(axis_size, axis_name, trace_type, args, dims):
    seen.append((axis_size, axis_name))
    return p.bind(args[0]), dims[0]

  batching.axis_primitive_batchers[p] = rule
  out = jax.vmap(p.bind, axis_name="i")(X)
  np.testing.assert_allclose(out, 2 * X)
  assert seen == [(3, "i")] and batching.axis_primitive_batchers[p] is rule


def test_lax_exports_primitives():
  from jax._src.custom_derivatives import stop_gradient_p
  assert jax.lax.sin_p is primitives.sin_p
  assert jax.lax.stop_gradient_p is stop_gradient_p
  assert isinstance(jax.lax.dot_general_p, xcore.Primitive)


def test_symbolic_zero_names():
  z = ad.Zero.from_primal_value(jnp.ones((2, 3)))
  assert z.aval == jcore.ShapedArray((2, 3), np.float32)
  np.testing.assert_array_equal(ad.instantiate_zeros(z), np.zeros((2, 3)))
  t = jnp.ones(2)
  assert ad.instantiate_zeros(t) is t
  assert ad.instantiate_zeros(None, jcore.ShapedArray((1,), np.int32)).dtype == np.int32
  assert isinstance(ad.UndefinedPrimal(z.aval), ad.UndefinedPrimal)
  assert ad.is_undefined_primal(ad.UndefinedPrimal(z.aval)) and not ad.is_undefined_primal(t)


def test_legacy_core_names():
  aval = jcore.ShapedArray((2,), np.float32)
  assert xcore.mapped_aval(2, 0, aval).shape == ()
  assert xcore.unmapped_aval(3, 0, aval).shape == (3, 2)
  assert not hasattr(jcore, "raise_to_shaped")  # JAX 0.10.2 removed it from jax.core
  with xcore.take_current_trace() as trace:
    assert isinstance(trace, jcore.Trace)
