"""`sparsify`: run a function written for dense arrays on sparse (BCOO) arguments.

The function is traced with dense stand-ins of the sparse arguments, then its jaxpr is
evaluated equation by equation: an equation with a sparse input uses that primitive's
sparse rule when it has one (keeping the result sparse), and otherwise computes on the
dense values. Results are sparse where the rules kept them so.
"""

from __future__ import annotations

import functools
from typing import Callable

from jax._src.numpy import namespace as jnp
from jax._src import core
from jax._src import tree_util
from jax._src.interpreters import partial_eval as pe
from jax._src.lax import elementwise as ew
from jax._src.lax import linalg as lax_linalg
from jax._src.lax import reductions
from jax._src.lax import shape as lax_shape
from jax._src.sparse import bcoo as bcoo_mod
from jax._src.sparse.bcoo import BCOO
from jax._src.sparse.util import JAXSparse


class SparseTracer:
  """A value of a sparsified computation: a sparse array (or a dense one) standing for
  one variable of the traced function."""

  def __init__(self, trace=None, *, spvalue):
    self._trace, self.spvalue = trace, spvalue

  shape = property(lambda self: tuple(self.spvalue.shape))
  dtype = property(lambda self: self.spvalue.dtype)
  ndim = property(lambda self: len(self.spvalue.shape))

  def __repr__(self):
    return f"SparseTracer({self.spvalue!r})"


def _dense(x):
  return x.todense() if isinstance(x, JAXSparse) else x


def _unary_on_data(fn):
  return lambda x, **params: BCOO((fn(x.data, **params), x.indices), shape=x.shape,
                                  indices_sorted=x.indices_sorted,
                                  unique_indices=x.unique_indices)


def _mul(x, y):
  if isinstance(x, BCOO) and isinstance(y, BCOO):
    return bcoo_mod.bcoo_multiply_sparse(x, y)
  if isinstance(x, BCOO):
    return bcoo_mod.bcoo_multiply_dense(x, y)
  return bcoo_mod.bcoo_multiply_dense(y, x)


def _add(x, y, negate=False):
  if isinstance(x, BCOO) and isinstance(y, BCOO):
    return x + (-y if negate else y)
  return _dense(x) - _dense(y) if negate else _dense(x) + _dense(y)


def _div(x, y):
  if isinstance(x, BCOO) and not isinstance(y, JAXSparse):
    return bcoo_mod.bcoo_multiply_dense(x, 1 / jnp.asarray(y))
  return _dense(x) / _dense(y)


def _all_sparse(fn):
  def rule(*xs, **params):
    if all(isinstance(x, BCOO) for x in xs):
      return fn(*xs, **params)
    return None  # fall back to dense
  return rule


# primitive -> rule(*inputs, **params) -> output (sparse or dense), or None for dense
sparse_rules: dict[core.Primitive, Callable] = {
    ew.mul_p: _mul,
    ew.add_p: _add,
    ew.sub_p: lambda x, y: _add(x, y, negate=True),
    ew.div_p: _div,
    lax_linalg.dot_general_p: lambda x, y, *, dimension_numbers, precision,
    preferred_element_type: bcoo_mod.bcoo_dot_general(
        x, y, dimension_numbers=dimension_numbers, precision=precision,
        preferred_element_type=preferred_element_type),
    reductions.reduce_sum_p: _all_sparse(lambda x, *, axes: bcoo_mod.bcoo_reduce_sum(
        x, axes=axes)),
    lax_shape.transpose_p: _all_sparse(lambda x, *, permutation: bcoo_mod.bcoo_transpose(
        x, permutation=permutation)),
    lax_shape.reshape_p: _all_sparse(lambda x, *, new_sizes, dimensions, **_:
                                     bcoo_mod.bcoo_reshape(x, new_sizes=new_sizes,
                                                           dimensions=dimensions)),
    lax_shape.squeeze_p: _all_sparse(lambda x, *, dimensions: bcoo_mod.bcoo_squeeze(
        x, dimensions=dimensions)),
    lax_shape.rev_p: _all_sparse(lambda x, *, dimensions: bcoo_mod.bcoo_rev(x, dimensions)),
    lax_shape.broadcast_in_dim_p: _all_sparse(
        lambda x, *, shape, broadcast_dimensions, **_: bcoo_mod.bcoo_broadcast_in_dim(
            x, shape=shape, broadcast_dimensions=broadcast_dimensions)),
    lax_shape.concatenate_p: _all_sparse(lambda *xs, dimension: bcoo_mod.bcoo_concatenate(
        xs, dimension=dimension)),
    lax_shape.slice_p: _all_sparse(lambda x, *, start_indices, limit_indices, strides:
                                   bcoo_mod.bcoo_slice(x, start_indices=start_indices,
                                                       limit_indices=limit_indices,
                                                       strides=strides)),
    ew.convert_element_type_p: _all_sparse(
        lambda x, *, new_dtype, weak_type, **_: x.astype(new_dtype)),
}
# Elementwise functions with f(0) = 0 act on the stored values only.
for _p in (ew.neg_p, ew.sign_p, ew.abs_p, ew.sin_p, ew.tan_p, ew.tanh_p, ew.sqrt_p, ew.expm1_p,
           ew.real_p, ew.imag_p, ew.conj_p,
           ew.asin_p, ew.atan_p, ew.sinh_p, ew.asinh_p, ew.atanh_p, ew.erf_p, ew.floor_p,
           ew.ceil_p, ew.round_p):
  sparse_rules[_p] = _all_sparse(_unary_on_data(lambda d, _p=_p, **params: _p.bind(d, **params)))
sparse_rules[ew.integer_pow_p] = lambda x, *, y: (
    _unary_on_data(lambda d: ew.integer_pow(d, y))(x) if isinstance(x, BCOO) and y > 0
    else None)
del _p


def _eval_sparse(jaxpr: core.Jaxpr, consts, args):
  env = {}

  def read(v):
    return core.literal_value(v) if isinstance(v, core.Literal) else env[v]

  for v, x in zip(jaxpr.constvars, consts):
    env[v] = x
  for v, x in zip(jaxpr.invars, args):
    env[v] = x
  for eqn in jaxpr.eqns:
    ins = [read(v) for v in eqn.inputs]
    out = None
    if any(isinstance(x, JAXSparse) for x in ins):
      rule = sparse_rules.get(eqn.primitive)
      if rule is not None:
        out = rule(*ins, **eqn.params)
      if out is None:
        out = eqn.primitive.bind(*[_dense(x) for x in ins], **eqn.params)
    else:
      out = eqn.primitive.bind(*ins, **eqn.params)
    outs = out if eqn.primitive.multiple_results else [out]
    for v, x in zip(eqn.out_binders, outs):
      env[v] = x
  return [read(v) for v in jaxpr.outs]


def sparsify(f: Callable, use_tracer: bool = False) -> Callable:
  """f over arguments that may be sparse arrays (pytree leaves that are BCOO)."""
  del use_tracer  # one implementation serves both modes

  @functools.wraps(f)
  def wrapped(*args, **kwargs):
    is_leaf = lambda x: isinstance(x, JAXSparse)
    leaves, in_tree = tree_util.tree_flatten((args, kwargs), is_leaf=is_leaf)
    avals = [core.ShapedArray(tuple(x.shape), x.dtype) if isinstance(x, JAXSparse)
             else core.get_aval(jnp.asarray(x)) for x in leaves]
    store = {}

    def flat(*xs):
      a, k = tree_util.tree_unflatten(in_tree, xs)
      out = f(*a, **k)
      out_leaves, store["tree"] = tree_util.tree_flatten(out)
      return out_leaves

    jaxpr, consts = pe.trace_to_jaxpr_dynamic(flat, avals)
    outs = _eval_sparse(jaxpr, consts, [x if isinstance(x, JAXSparse) else jnp.asarray(x)
                                        for x in leaves])
    return tree_util.tree_unflatten(store["tree"], outs)

  return wrapped

