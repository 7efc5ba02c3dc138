"""Differentiation with respect to sparse arguments: the derivative of a BCOO argument is
taken with respect to its stored values and returned as a BCOO with its indices."""

from __future__ import annotations

import functools
from typing import Callable

from jax._src import api
from jax._src.util import ensure_index_tuple
from jax._src.sparse.util import JAXSparse


def _over_data(transform, fun: Callable, argnums=0, has_aux: bool = False, **kwargs):
  nums = ensure_index_tuple(argnums)

  @functools.wraps(fun)
  def wrapped(*args):
    sparse = {i: args[i] for i in nums if isinstance(args[i], JAXSparse)}

    def on_data(*vals):
      full = list(args)
      for i, v in zip(nums, vals):
        if i in sparse:
          children, aux = sparse[i].tree_flatten()
          full[i] = type(sparse[i]).tree_unflatten(aux, (v,) + tuple(children[1:]))
        else:
          full[i] = v
      return fun(*full)

    primals = [args[i].data if i in sparse else args[i] for i in nums]
    out = transform(on_data, argnums=tuple(range(len(nums))), has_aux=has_aux,
                    **kwargs)(*primals)

    def rewrap(results):
      results = list(results)
      for k, i in enumerate(nums):
        if i in sparse:
          children, aux = sparse[i].tree_flatten()
          results[k] = type(sparse[i]).tree_unflatten(aux, (results[k],) + tuple(children[1:]))
      return tuple(results) if isinstance(argnums, (tuple, list)) else results[0]

    return out, rewrap

  return wrapped


def grad(fun: Callable, argnums=0, has_aux: bool = False, **kwargs):
  """jax.grad where BCOO arguments are differentiated through their stored values."""
  inner = _over_data(api.grad, fun, argnums, has_aux, **kwargs)

  def g(*args):
    out, rewrap = inner(*args)
    if has_aux:
      return rewrap(out[0]), out[1]
    return rewrap(out)
  return g


def value_and_grad(fun: Callable, argnums=0, has_aux: bool = False, **kwargs):
  """jax.value_and_grad where BCOO arguments are differentiated through their values."""
  inner = _over_data(api.value_and_grad, fun, argnums, has_aux, **kwargs)

  def g(*args):
    (value, grads), rewrap = inner(*args)
    return value, rewrap(grads)
  return g


def _jac(transform):
  def jac(fun: Callable, argnums=0, has_aux: bool = False, **kwargs):
    inner = _over_data(transform, fun, argnums, has_aux, **kwargs)

    def g(*args):
      out, rewrap = inner(*args)
      if has_aux:
        return rewrap(out[0]), out[1]
      return rewrap(out)
    return g
  jac.__doc__ = (f"jax.{transform.__name__} where BCOO arguments are differentiated "
                 "through their stored values.")
  return jac


jacfwd = _jac(api.jacfwd)
jacrev = _jac(api.jacrev)
jacobian = jacrev
