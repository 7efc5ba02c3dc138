"""Pytrees: nested containers whose leaves are arrays.

The interface is small on purpose so a native implementation can replace the
internals: ``tree_flatten(tree) -> (leaves, treedef)``, ``treedef.unflatten(leaves)``,
treedefs are hashable and compare by structure. Built-in nodes: tuple, list, dict
(keys sorted), None (no leaves), namedtuples; more with ``register_pytree_node``.
"""

from __future__ import annotations

import collections
import functools
from typing import Any, Callable, Hashable, Iterable, NamedTuple


class _NodeType(NamedTuple):
  to_iterable: Callable[[Any], tuple[Iterable, Hashable]]
  from_iterable: Callable[[Hashable, Iterable], Any]


_registry: dict[type, _NodeType] = {}


def register_pytree_node(nodetype: type, flatten_func, unflatten_func) -> None:
  """Register `nodetype`: flatten_func(x) -> (children, aux); unflatten_func(aux, children) -> x."""
  if nodetype in _registry:
    raise ValueError(f"duplicate pytree node registration for {nodetype}")
  _registry[nodetype] = _NodeType(flatten_func, unflatten_func)


def register_pytree_node_class(cls):
  """Class decorator: uses `cls.tree_flatten()` and `cls.tree_unflatten(aux, children)`."""
  register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
  return cls


def _dict_flatten(d):
  keys = sorted(d)
  return [d[k] for k in keys], tuple(keys)


register_pytree_node(tuple, lambda t: (t, None), lambda _, xs: tuple(xs))
register_pytree_node(list, lambda l: (l, None), lambda _, xs: list(xs))
register_pytree_node(dict, _dict_flatten, lambda keys, xs: dict(zip(keys, xs)))
register_pytree_node(type(None), lambda _: ((), None), lambda _, xs: None)
register_pytree_node(
    collections.OrderedDict,
    lambda d: (list(d.values()), tuple(d.keys())),
    lambda keys, xs: collections.OrderedDict(zip(keys, xs)))


def _is_namedtuple(x) -> bool:
  return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _node_type(x):
  t = type(x)
  node = _registry.get(t)
  if node is None and _is_namedtuple(x):
    return t, _NodeType(lambda nt: (tuple(nt), None), lambda _, xs, t=t: t(*xs))
  return (t, node) if node is not None else (None, None)


class PyTreeDef:
  """The structure of a pytree: node type, aux data and children treedefs."""

  __slots__ = ("node_type", "node_data", "children", "num_leaves", "_hash")

  def __init__(self, node_type, node_data, children: tuple[PyTreeDef, ...]):
    self.node_type = node_type  # None means a leaf
    self.node_data = node_data
    self.children = children
    self.num_leaves = 1 if node_type is None else sum(c.num_leaves for c in children)
    self._hash = None

  @property
  def num_nodes(self) -> int:
    return 1 + sum(c.num_nodes for c in self.children)

  def unflatten(self, leaves: Iterable) -> Any:
    leaves = list(leaves)
    if len(leaves) != self.num_leaves:
      raise ValueError(f"tree structure {self} expects {self.num_leaves} leaves, got {len(leaves)}")
    it = iter(leaves)
    return self._build(it)

  def _build(self, it):
    if self.node_type is None:
      return next(it)
    children = [c._build(it) for c in self.children]
    if self.node_type in _registry:
      return _registry[self.node_type].from_iterable(self.node_data, children)
    return self.node_type(*children)  # namedtuple

  def flatten_up_to(self, tree) -> list:
    """Leaves of `tree` at this treedef's leaf positions (they may be subtrees)."""
    if self.node_type is None:
      return [tree]
    t, node = _node_type(tree)
    if t is not self.node_type:
      raise ValueError(f"expected {self.node_type.__name__}, got {type(tree).__name__}")
    children, data = node.to_iterable(tree)
    children = list(children)
    if data != self.node_data or len(children) != len(self.children):
      raise ValueError(f"tree structure mismatch: {self} vs {tree_structure(tree)}")
    out = []
    for c, sub in zip(self.children, children):
      out.extend(c.flatten_up_to(sub))
    return out

  def __eq__(self, other):
    return (isinstance(other, PyTreeDef) and self.node_type is other.node_type
            and self.node_data == other.node_data and self.children == other.children)

  def __hash__(self):
    if self._hash is None:
      self._hash = hash((self.node_type, _hashable(self.node_data), self.children))
    return self._hash

  def __repr__(self):
    return f"PyTreeDef({self._str()})"

  def _str(self):
    if self.node_type is None:
      return "*"
    inner = ", ".join(c._str() for c in self.children)
    if self.node_type is tuple:
      return f"({inner}{',' if len(self.children) == 1 else ''})"
    if self.node_type is list:
      return f"[{inner}]"
    if self.node_type is dict:
      return "{" + ", ".join(f"{k!r}: {c._str()}" for k, c in zip(self.node_data, self.children)) + "}"
    if self.node_type is type(None):
      return "None"
    return f"CustomNode({self.node_type.__name__}[{self.node_data!r}], [{inner}])"


def _hashable(data):
  try:
    hash(data)
    return data
  except TypeError:
    return repr(data)


_LEAF = PyTreeDef(None, None, ())


def tree_flatten(tree, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list, PyTreeDef]:
  leaves: list = []
  treedef = _flatten(tree, is_leaf, leaves)
  return leaves, treedef


def _flatten(tree, is_leaf, leaves) -> PyTreeDef:
  if is_leaf is not None and is_leaf(tree):
    leaves.append(tree)
    return _LEAF
  t, node = _node_type(tree)
  if node is None:
    leaves.append(tree)
    return _LEAF
  children, data = node.to_iterable(tree)
  return PyTreeDef(t, data, tuple(_flatten(c, is_leaf, leaves) for c in children))


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable) -> Any:
  return treedef.unflatten(leaves)


def tree_leaves(tree, is_leaf=None) -> list:
  return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None) -> PyTreeDef:
  return tree_flatten(tree, is_leaf)[1]


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
  return treedef.node_type is None


def tree_map(f: Callable, tree, *rest, is_leaf=None):
  leaves, treedef = tree_flatten(tree, is_leaf)
  others = [treedef.flatten_up_to(r) for r in rest]
  return treedef.unflatten(f(*xs) for xs in zip(leaves, *others))


def tree_all(tree) -> bool:
  return all(tree_leaves(tree))


def tree_reduce(function: Callable, tree, *initializer, is_leaf=None):
  return functools.reduce(function, tree_leaves(tree, is_leaf), *initializer)


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef, pytree_to_transpose):
  flat = outer_treedef.flatten_up_to(pytree_to_transpose)
  inner = [inner_treedef.flatten_up_to(x) for x in flat]
  columns = [outer_treedef.unflatten(col) for col in zip(*inner)] if inner else []
  return inner_treedef.unflatten(columns)


class Partial(functools.partial):
  """A functools.partial that is a pytree: the bound arguments are its children."""


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, xs: Partial(func, *xs[0], **xs[1]))
