"""Taylor-mode differentiation (`jax.experimental.jet`).

`jet(f, primals, series)` pushes truncated Taylor series through `f`: an input
x0 with series (x1, ..., xK) stands for the curve x(t) = x0 + sum_k xk t^k / k!, and
the result is f(x0) with the derivatives (d/dt)^k f(x(t)) at t = 0 for k = 1..K.

A `JetTrace` carries (primal, series) through each primitive. Rules live in
`jet_rules`; primitives without one use the generic rule, which differentiates the
primitive along the input curves by nested forward-mode derivatives (exact, with a
cost that grows with the order). `deflinear`, `defzero`, `def_deriv` and `def_comp`
register the specialised rules.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import tree_util
from jax._src.interpreters import ad
from jax._src.lax import elementwise as ew
from jax._src.lax import reductions
from jax._src.lax import shape as lax_shape
from jax._src.tree_util import register_pytree_node, tree_flatten, tree_structure
from jax._src.tree_util import tree_unflatten, treedef_is_leaf
from jax._src.util import safe_map, safe_zip, unzip2, weakref_lru_cache

__all__ = ["Any", "register_pytree_node", "tree_flatten", "tree_structure", "tree_unflatten",
           "treedef_is_leaf", "safe_zip", "unzip2", "weakref_lru_cache"]


def fact(n: int) -> int:
  return math.factorial(n)


class ZeroTerm:
  """A series term known to be zero."""

  def __repr__(self):
    return "ZeroTerm"


zero_term = ZeroTerm()


class ZeroSeries:
  """A whole series known to be zero (the value does not vary along the curve)."""

  def __repr__(self):
    return "ZeroSeries"


zero_series = ZeroSeries()
register_pytree_node(ZeroTerm, lambda z: ((), None), lambda _, xs: zero_term)
register_pytree_node(ZeroSeries, lambda z: ((), None), lambda _, xs: zero_series)

# primitive -> rule(primals_in, series_in, **params) -> (primal_out, series_out)
jet_rules: dict[core.Primitive, Callable] = {}
# Call-like primitives whose params need adjusting when their body is run under jet.
call_param_updaters: dict[core.Primitive, Callable] = {}


class JetTracer(core.Tracer):
  __slots__ = ("primal", "terms")

  def __init__(self, trace, primal, terms):
    self._trace = trace
    self.primal = primal
    self.terms = terms

  @property
  def aval(self):
    return core.get_aval(self.primal)

  def full_lower(self):
    if self.terms is zero_series or all(t is zero_term for t in self.terms):
      return core.full_lower(self.primal)
    return self


class JetTrace(core.Trace):
  """The trace of one jet: `tag` is its main trace (which carries the order)."""

  def __init__(self, tag, parent_trace=None, order=None):
    super().__init__(tag)
    self.parent_trace = parent_trace

  @property
  def order(self) -> int:
    return self.main.global_data

  def pure(self, val):
    return JetTracer(self, val, zero_series)

  lift = pure

  def process_primitive(self, primitive, tracers, params):
    primals = [t.primal for t in tracers]
    series = [t.terms for t in tracers]
    if all(s is zero_series for s in series):
      return primitive.bind(*primals, **params)
    rule = jet_rules.get(primitive, _generic_rule(primitive))
    primal_out, terms_out = rule(primals, series, **params)
    if primitive.multiple_results:
      return [JetTracer(self, p, s) for p, s in zip(primal_out, terms_out)]
    return JetTracer(self, primal_out, terms_out)


def _materialize(series, primal, order: int) -> list:
  if series is zero_series:
    return [ad.zeros_like(primal)] * order
  return [ad.zeros_like(primal) if t is zero_term else t for t in series]


def _is_float(x) -> bool:
  return dtypes.is_inexact(core.get_aval(x).dtype)


def _derivatives_along_curve(fn: Callable, primals, series, order: int, multiple: bool):
  """fn at the primals and its first `order` derivatives along the curves the series
  define, by nested forward-mode differentiation in the curve parameter."""
  moving = [i for i, (p, s) in enumerate(zip(primals, series))
            if s is not zero_series and _is_float(p)]
  terms = {i: _materialize(series[i], primals[i], order) for i in moving}

  def on_curve(t):
    xs = list(primals)
    for i in moving:
      x = primals[i]
      dt = core.get_aval(x).dtype
      tt = ew.convert_element_type(t, dt)
      power = tt
      for k, term in enumerate(terms[i], start=1):
        x = ew.add(x, ew.mul(ew.mul(term, lax_shape.broadcast_in_dim(
            power, core.get_aval(term).shape, ())), np.array(1. / fact(k), dt)))
        power = ew.mul(power, tt)
      xs[i] = x
    out = fn(*xs)
    return list(out) if multiple else [out]

  def nested(k):
    if k == 0:
      return lambda t: [on_curve(t)]
    inner = nested(k - 1)

    def run(t):
      flat_inner = lambda s: [v for level in inner(s) for v in level]
      p, tan = ad.jvp_flat(flat_inner, [t], [np.float32(1.)])
      n = len(p) // k
      return [p[j * n:(j + 1) * n] for j in range(k)] + [tan[(k - 1) * n:]]
    return run

  levels = nested(order)(np.float32(0.))
  primal_out = levels[0]
  series_out = [list(col) for col in zip(*levels[1:])] if order else [[] for _ in primal_out]
  return primal_out, series_out


def _generic_rule(primitive: core.Primitive) -> Callable:
  def rule(primals, series, **params):
    order = _order_of(series)
    outs, terms = _derivatives_along_curve(
        lambda *xs: primitive.bind(*xs, **params), primals, series, order,
        primitive.multiple_results)
    if primitive.multiple_results:
      return outs, terms
    return outs[0], terms[0]
  return rule


def _order_of(series) -> int:
  for s in series:
    if s is not zero_series:
      return len(s)
  return 0


# ----------------------------------------------------------------------------- registrars


def linear_prop(prim, primals_in, series_in, **params):
  """A linear primitive: each series term goes through the primitive."""
  primal_out = prim.bind(*primals_in, **params)
  order = _order_of(series_in)
  terms = [[_materialize(s, p, order)[k] for s, p in zip(series_in, primals_in)]
           for k in range(order)]
  return primal_out, [prim.bind(*ts, **params) for ts in terms]


def deflinear(prim: core.Primitive) -> None:
  jet_rules[prim] = lambda primals, series, **params: linear_prop(prim, primals, series,
                                                                 **params)


def zero_prop(prim, primals_in, series_in, **params):
  """A piecewise-constant primitive: its series is zero."""
  return prim.bind(*primals_in, **params), zero_series


def defzero(prim: core.Primitive) -> None:
  jet_rules[prim] = lambda primals, series, **params: zero_prop(prim, primals, series,
                                                               **params)


def deriv_prop(prim, deriv, primals_in, series_in):
  """A unary primitive with derivative `deriv(x)`: from y' = deriv(x) x', the Taylor
  coefficients of y follow from those of x and of deriv(x) (one order lower)."""
  (x,), (x_series,) = primals_in, series_in
  order = len(x_series)
  y = prim.bind(x)
  xs = _materialize(x_series, x, order)
  a = [x] + [ew.div(t, np.array(fact(k), core.get_aval(t).dtype))
             for k, t in enumerate(xs, start=1)]  # Taylor coefficients of x
  if order == 1:
    u_coeffs = [deriv(x)]
  else:
    u0, u_terms = jet(deriv, (x,), (xs[:order - 1],))
    u_coeffs = [u0] + [ew.div(t, np.array(fact(k), core.get_aval(t).dtype))
                       for k, t in enumerate(u_terms, start=1)]
  b = [y]
  for k in range(order):
    total = None
    for j in range(k + 1):
      term = ew.mul(ew.mul(u_coeffs[j], a[k + 1 - j]),
                    np.array(k + 1 - j, core.get_aval(x).dtype))
      total = term if total is None else ew.add(total, term)
    b.append(ew.div(total, np.array(k + 1, core.get_aval(x).dtype)))
  return y, [ew.mul(b[k], np.array(fact(k), core.get_aval(x).dtype))
             for k in range(1, order + 1)]


def def_deriv(prim: core.Primitive, deriv: Callable) -> None:
  jet_rules[prim] = lambda primals, series, **params: deriv_prop(prim, deriv, primals, series)


def def_comp(prim: core.Primitive, comp: Callable) -> None:
  """The primitive's series are those of `comp` (a function with the same meaning)."""
  def rule(primals, series, **params):
    order = _order_of(series)
    mats = tuple(_materialize(s, p, order) for s, p in zip(series, primals))
    return jet(lambda *xs: comp(*xs, **params), tuple(primals), mats)
  jet_rules[prim] = rule


# The specialised rules of common primitives (cheaper than the generic rule, whose cost
# grows exponentially with the order).
for _p in (ew.neg_p, ew.add_p, ew.sub_p, ew.real_p, ew.imag_p, ew.conj_p, ew.complex_p,
           reductions.reduce_sum_p, lax_shape.broadcast_in_dim_p, lax_shape.reshape_p,
           lax_shape.transpose_p, lax_shape.slice_p, lax_shape.concatenate_p,
           lax_shape.squeeze_p, lax_shape.rev_p):
  deflinear(_p)
for _p in (ew.sign_p, ew.floor_p, ew.ceil_p, ew.round_p, ew.is_finite_p, ew.eq_p, ew.ne_p,
           ew.lt_p, ew.le_p, ew.gt_p, ew.ge_p, ew.and_p, ew.or_p, ew.xor_p, ew.not_p):
  defzero(_p)
def_deriv(ew.exp_p, ew.exp)
def_deriv(ew.log_p, lambda x: ew.div(np.array(1, core.get_aval(x).dtype), x))
def_deriv(ew.sin_p, ew.cos)
def_deriv(ew.cos_p, lambda x: ew.neg(ew.sin(x)))
def_deriv(ew.tanh_p, lambda x: ew.sub(np.array(1, core.get_aval(x).dtype),
                                      ew.square(ew.tanh(x))))
def_deriv(ew.logistic_p, lambda x: ew.mul(ew.logistic(x), ew.sub(
    np.array(1, core.get_aval(x).dtype), ew.logistic(x))))
del _p


# ----------------------------------------------------------------------------- jet


def _check_series(primals, series):
  if not isinstance(primals, (tuple, list)) or not isinstance(series, (tuple, list)):
    raise ValueError("jet expects primals and series to be tuples or lists, got "
                     f"{type(primals).__name__} and {type(series).__name__}")
  if len(primals) != len(series):
    raise ValueError(f"jet: {len(primals)} primals but {len(series)} series")


def jet(fun: Callable, primals, series, *, factorial_scaled: bool = True):
  """(f(primals), series_out): the primal output and its Taylor series. With
  factorial_scaled (the default) term k is the k-th derivative along the input curves at
  t = 0; otherwise terms are Taylor coefficients (the derivative divided by k!), in the
  input series and in the result."""
  if not factorial_scaled:
    _check_series(primals, series)
    scaled = [s if isinstance(s, ZeroSeries) else
              [t if t is zero_term else _scale(t, fact(k)) for k, t in enumerate(s, 1)]
              for s in series]
    out, out_series = jet(fun, primals, scaled)
    return out, tree_util.tree_map(
        lambda terms: [_scale(t, 1. / fact(k)) for k, t in enumerate(terms, 1)], out_series,
        is_leaf=lambda x: isinstance(x, list))
  _check_series(primals, series)
  flat_primals = list(primals)
  per_input = []
  order = None
  for i, (p, s) in enumerate(zip(primals, series)):
    if not treedef_is_leaf(tree_structure(p)):
      raise ValueError(f"primal value at position {i} is not an array")
    if isinstance(s, ZeroSeries):
      per_input.append(zero_series)
      continue
    terms = list(s)
    if order is None:
      order = len(terms)
    elif len(terms) != order:
      raise ValueError(f"jet: every series must have the same length, got {order} and "
                       f"{len(terms)}")
    for term in terms:
      if term is not zero_term and np.shape(term) != np.shape(p):
        raise ValueError(f"jet: a series term has shape {np.shape(term)} but its primal has "
                         f"shape {np.shape(p)}")
    per_input.append(terms)
  order = order or 0
  store = {}

  def flat_fun(*xs):
    out = fun(*xs)
    leaves, store["tree"] = tree_flatten(out)
    return leaves

  with core.new_main(JetTrace, order) as main:
    trace = JetTrace(main)
    flat_primals = [p if isinstance(p, core.Tracer) else _as_array(p) for p in flat_primals]
    tracers = [JetTracer(trace, p, s) for p, s in zip(flat_primals, per_input)]
    outs = [core.full_raise(trace, o) for o in flat_fun(*tracers)]
    primals_out = [core.full_lower(t.primal) for t in outs]
    series_out = [_materialize(t.terms, t.primal, order) for t in outs]
  out_tree = store["tree"]
  return tree_unflatten(out_tree, primals_out), tree_unflatten(out_tree, series_out)


def _as_array(x):
  from jax._src.numpy import creation  # jet is above jax.numpy; converts Python scalars
  return creation.asarray(x)


def _scale(x, c):
  x = _as_array(x)
  return ew.mul(x, np.array(c, core.get_aval(x).dtype))
