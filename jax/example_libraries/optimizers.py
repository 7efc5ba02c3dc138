"""First-order optimizers as (init, update, get_params) triples over pytrees.

An optimizer is defined on single arrays: `init(x0) -> state`, `update(i, g,
state) -> state`, `get_params(state) -> x`. The `optimizer` decorator lifts it
to pytrees of parameters; the lifted state is an `OptimizerState` (a pytree), so
the update step can be jitted. Step sizes are constants or schedules `i -> size`.
"""

from __future__ import annotations

import builtins
import functools
from typing import Any, Callable, NamedTuple

import jax.numpy as jnp
from jax._src.tree_util import register_pytree_node, tree_flatten, tree_map, tree_unflatten

Schedule = Callable[[int], float]
Array = Any
Params = Any
State = Any
Updates = Params

map = builtins.map
zip = builtins.zip


def safe_map(f, *args):
  """map that insists on arguments of equal length."""
  n = len(args[0])
  if any(len(a) != n for a in args[1:]):
    raise ValueError(f"length mismatch: {[len(a) for a in args]}")
  return list(builtins.map(f, *args))


def safe_zip(*args):
  """zip that insists on arguments of equal length."""
  n = len(args[0])
  if any(len(a) != n for a in args[1:]):
    raise ValueError(f"length mismatch: {[len(a) for a in args]}")
  return list(builtins.zip(*args))


def unzip2(xys):
  """[(x, y), ...] -> ((x, ...), (y, ...))."""
  xs, ys = [], []
  for x, y in xys:
    xs.append(x)
    ys.append(y)
  return tuple(xs), tuple(ys)


class Optimizer(NamedTuple):
  init_fn: Callable
  update_fn: Callable
  params_fn: Callable


class OptimizerState(NamedTuple):
  """The lifted state: flat per-leaf states, their subtrees, and the parameter tree."""
  packed_state: list
  tree_def: Any
  subtree_defs: list


register_pytree_node(
    OptimizerState,
    lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
    lambda data, xs: OptimizerState(xs[0], data[0], data[1]))


def optimizer(opt_maker: Callable) -> Callable:
  """Lift an optimizer on arrays to one on pytrees of arrays."""

  @functools.wraps(opt_maker)
  def tree_opt_maker(*args, **kwargs):
    init, update, get_params = opt_maker(*args, **kwargs)

    @functools.wraps(init)
    def tree_init(x0_tree):
      x0_flat, tree = tree_flatten(x0_tree)
      initial_states = [init(x0) for x0 in x0_flat]
      states_flat, subtrees = zip(*map(tree_flatten, initial_states)) if x0_flat else ((), ())
      return OptimizerState(list(states_flat), tree, list(subtrees))

    @functools.wraps(update)
    def tree_update(i, grad_tree, opt_state):
      states_flat, tree, subtrees = opt_state
      grad_flat, tree2 = tree_flatten(grad_tree)
      if tree2 != tree:
        raise TypeError(f"optimizer update function was passed a gradient tree that did not "
                        f"match the parameter tree structure with which it was initialized: "
                        f"parameter tree {tree} and grad tree {tree2}.")
      states = map(tree_unflatten, subtrees, states_flat)
      new_states = map(functools.partial(update, i), grad_flat, states)
      new_states_flat, subtrees2 = zip(*map(tree_flatten, new_states)) if grad_flat else ((), ())
      for s1, s2 in zip(subtrees, subtrees2):
        if s2 != s1:
          raise TypeError(f"optimizer update function produced an output structure that did "
                          f"not match its input structure: input {s1} and output {s2}.")
      return OptimizerState(list(new_states_flat), tree, list(subtrees))

    @functools.wraps(get_params)
    def tree_get_params(opt_state):
      states_flat, tree, subtrees = opt_state
      states = map(tree_unflatten, subtrees, states_flat)
      return tree_unflatten(tree, [get_params(s) for s in states])

    return Optimizer(tree_init, tree_update, tree_get_params)

  return tree_opt_maker


# ----------------------------------------------------------------------------- optimizers


@optimizer
def sgd(step_size):
  """x <- x - step_size(i) * g."""
  step_size = make_schedule(step_size)
  return (lambda x0: x0, lambda i, g, x: x - step_size(i) * g, lambda x: x)


@optimizer
def momentum(step_size, mass: float):
  """v <- mass * v + g; x <- x - step_size(i) * v."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, velocity = state
    velocity = mass * velocity + g
    return x - step_size(i) * velocity, velocity

  return lambda x0: (x0, jnp.zeros_like(x0)), update, lambda state: state[0]


@optimizer
def nesterov(step_size, mass: float):
  """Nesterov momentum: v <- mass * v + g; x <- x - step_size(i) * (mass * v + g)."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, velocity = state
    velocity = mass * velocity + g
    return x - step_size(i) * (mass * velocity + g), velocity

  return lambda x0: (x0, jnp.zeros_like(x0)), update, lambda state: state[0]


@optimizer
def adagrad(step_size, momentum=0.9):
  """Adagrad with momentum: the step is g / sqrt(sum of squared gradients)."""
  step_size = make_schedule(step_size)

  def init(x0):
    return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

  def update(i, g, state):
    x, g_sq, m = state
    g_sq = g_sq + jnp.square(g)
    g_sq_inv_sqrt = jnp.where(g_sq > 0, 1. / jnp.sqrt(g_sq), 0.0)
    m = (1. - momentum) * (g * g_sq_inv_sqrt) + momentum * m
    return x - step_size(i) * m, g_sq, m

  return init, update, lambda state: state[0]


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
  """avg <- gamma * avg + (1 - gamma) * g^2; x <- x - step * g / sqrt(avg + eps)."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, avg_sq_grad = state
    avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
    return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad

  return lambda x0: (x0, jnp.zeros_like(x0)), update, lambda state: state[0]


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
  """RMSProp whose scaled step is accumulated with momentum."""
  step_size = make_schedule(step_size)

  def init(x0):
    return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

  def update(i, g, state):
    x, avg_sq_grad, mom = state
    avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
    mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
    return x - mom, avg_sq_grad, mom

  return init, update, lambda state: state[0]


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
  """Adam (Kingma & Ba): bias-corrected first and second moment estimates."""
  step_size = make_schedule(step_size)

  def init(x0):
    return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

  def update(i, g, state):
    x, m, v = state
    m = (1 - b1) * g + b1 * m
    v = (1 - b2) * jnp.square(g) + b2 * v
    t = jnp.asarray(i, m.dtype) + 1
    mhat = m / (1 - jnp.asarray(b1, m.dtype) ** t)
    vhat = v / (1 - jnp.asarray(b2, m.dtype) ** t)
    return x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps), m, v

  return init, update, lambda state: state[0]


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
  """Adamax: Adam with the infinity norm of past gradients."""
  step_size = make_schedule(step_size)

  def init(x0):
    return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

  def update(i, g, state):
    x, m, u = state
    m = (1 - b1) * g + b1 * m
    u = jnp.maximum(b2 * u, jnp.abs(g))
    t = jnp.asarray(i, m.dtype) + 1
    return x - (step_size(i) / (1 - jnp.asarray(b1, m.dtype) ** t)) * m / (u + eps), m, u

  return init, update, lambda state: state[0]


@optimizer
def sm3(step_size, momentum=0.9):
  """SM3 (Anil et al.): per-axis accumulators of squared gradients, with momentum."""
  step_size = make_schedule(step_size)

  def splice(seq, i, x):
    lst = list(seq)
    lst[i:i + 1] = x
    return lst

  def broadcast_into(ndim, x, axis):
    idx = splice([None] * ndim, axis, [slice(None)])
    return x[tuple(idx)]

  def init(x0):
    x_shape = x0.shape
    x0 = jnp.atleast_1d(x0)
    vs = [jnp.zeros(sz, dtype=x0.dtype) for sz in x0.shape]
    return x0, jnp.zeros_like(x0), vs, x_shape

  def update(i, g, state):
    x, m, vs, x_shape = state
    vs = [broadcast_into(g.ndim, v, k) for k, v in enumerate(vs)]
    accum = functools.reduce(jnp.minimum, vs) + jnp.square(g)
    accum_inv_sqrt = jnp.where(accum > 0, 1. / jnp.sqrt(accum), 0)
    m = (1. - momentum) * (g * accum_inv_sqrt) + momentum * m
    x = x - step_size(i) * m
    vs = [accum.max(splice(range(x.ndim), k, [])) for k in range(x.ndim)]
    return x, m, vs, x_shape

  def get_params(state):
    x, _, _, x_shape = state
    return x.reshape(x_shape)

  return init, update, get_params


# ----------------------------------------------------------------------------- schedules


def constant(step_size) -> Schedule:
  return lambda i: step_size


def exponential_decay(step_size, decay_steps, decay_rate) -> Schedule:
  return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase: bool = False) -> Schedule:
  if staircase:
    return lambda i: step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
  return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0) -> Schedule:
  def schedule(step_num):
    step_num = jnp.minimum(step_num, decay_steps)
    step_mult = (1 - step_num / decay_steps) ** power
    return step_mult * (step_size - final_step_size) + final_step_size

  return schedule


def piecewise_constant(boundaries: Any, values: Any) -> Schedule:
  """values[k] for boundaries[k-1] <= i < boundaries[k] (len(values) = len(boundaries) + 1)."""
  boundaries = jnp.array(boundaries)
  values = jnp.array(values)
  if not boundaries.ndim == values.ndim == 1:
    raise ValueError("boundaries and values must be sequences")
  if not boundaries.shape[0] == values.shape[0] - 1:
    raise ValueError("boundaries length must be one shorter than values length")
  return lambda i: values[jnp.sum(i > boundaries)]


def make_schedule(scalar_or_schedule) -> Schedule:
  if callable(scalar_or_schedule):
    return scalar_or_schedule
  if jnp.ndim(scalar_or_schedule) == 0:
    return constant(scalar_or_schedule)
  raise TypeError(type(scalar_or_schedule))


# ----------------------------------------------------------------------------- utilities


def l2_norm(tree):
  """The l2 norm of all the leaves of `tree` together."""
  leaves, _ = tree_flatten(tree)
  return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree, max_norm):
  """Scale `grad_tree` so its l2 norm is at most `max_norm`."""
  norm = l2_norm(grad_tree)
  normalize = lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm))
  return tree_map(normalize, grad_tree)


def unpack_optimizer_state(opt_state: OptimizerState):
  """The state as a pytree shaped like the parameters (each leaf: its per-leaf state)."""
  states_flat, tree_def, subtree_defs = opt_state
  subtrees = map(tree_unflatten, subtree_defs, states_flat)
  return tree_unflatten(tree_def, [JoinPoint(s) for s in subtrees])


def pack_optimizer_state(marked_pytree) -> OptimizerState:
  """The inverse of `unpack_optimizer_state`."""
  sentinels, tree_def = tree_flatten(marked_pytree, is_leaf=lambda x: isinstance(x, JoinPoint))
  if not all(isinstance(s, JoinPoint) for s in sentinels):
    raise TypeError("pack_optimizer_state expects the output of unpack_optimizer_state")
  states_flat, subtree_defs = zip(*(tree_flatten(s.subtree) for s in sentinels)) \
      if sentinels else ((), ())
  return OptimizerState(list(states_flat), tree_def, list(subtree_defs))


class JoinPoint:
  """One parameter's optimizer state inside an unpacked state tree (a pytree leaf)."""

  def __init__(self, subtree):
    self.subtree = subtree

  def __repr__(self):
    return f"JoinPoint({self.subtree!r})"
