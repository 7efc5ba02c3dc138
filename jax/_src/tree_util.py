"""Pytrees: nested containers whose leaves are arrays.

The registry, flattening and treedefs are native (``jaxlib._jax.pytree``); this
module adds the key classes and the functions built on them:
``tree_flatten(tree) -> (leaves, treedef)``, ``treedef.unflatten(leaves)``,
treedefs are hashable and compare by structure. Built-in nodes: tuple, list, dict
(keys sorted), None (no leaves), namedtuples, OrderedDict, defaultdict; more with
``register_pytree_node`` / ``register_pytree_with_keys`` / ``register_dataclass``
/ ``register_static``.

Every node can also say how its children are addressed (a *key path* entry per
child: ``SequenceKey``, ``DictKey``, ``GetAttrKey`` or, for nodes registered
without keys, ``FlattenedIndexKey``); the ``*_with_path`` functions use them.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
from typing import Any, Callable, Hashable, Iterable, Sequence

from jax._src.lib import _jax

_pytree = _jax.pytree


# ----------------------------------------------------------------------------- key path entries


@dataclasses.dataclass(frozen=True)
class SequenceKey:
  idx: int

  def __str__(self):
    return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True)
class DictKey:
  key: Hashable

  def __str__(self):
    return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
  name: str

  def __str__(self):
    return f".{self.name}"


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
  key: int

  def __str__(self):
    return f"[<flat index {self.key}>]"


KeyEntry = Any
KeyPath = tuple


def _simple_key(k) -> str:
  for attr in ("idx", "key", "name"):
    if hasattr(k, attr):
      return str(getattr(k, attr))
  return str(k)


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
  """`['a'][0].x` for a key path; `simple=True` gives the bare keys joined by `separator`."""
  return separator.join(_simple_key(k) if simple else str(k) for k in keys)


# ----------------------------------------------------------------------------- registry

# The registry and treedefs are native (jaxlib._jax.pytree); the key classes above
# are handed to it so that key paths hold these Python objects.
class _Registry(_pytree.PyTreeRegistry):
  """The native registry, answering `type in registry` as JAX's does (flax asks
  whether a type is a registered node this way)."""

  def __contains__(self, typ) -> bool:
    return typ in _registered_types or typ in _BUILTIN_NODES


_registry = _Registry(SequenceKey, DictKey, GetAttrKey, FlattenedIndexKey)
_pytree.set_default_registry(_registry)  # unpickled treedefs look their node types up here
default_registry = _registry  # the registry jit's native fast path flattens with

PyTreeDef = _pytree.PyTreeDef

# Types registered through this module (the built-in node types are known below).
_registered_types: set = set()
# nodetype -> its unflatten function, for rebuilding nodes from their data (serialization).
unflatten_funcs: dict = {}


def register_pytree_node(nodetype: type, flatten_func, unflatten_func,
                         flatten_with_keys_func=None) -> None:
  """Register `nodetype`: flatten_func(x) -> (children, aux); unflatten_func(aux, children) -> x."""
  _registered_types.add(nodetype)
  unflatten_funcs[nodetype] = unflatten_func
  _registry.register_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func)


def register_pytree_with_keys(nodetype: type, flatten_with_keys, unflatten_func,
                              flatten_func=None) -> None:
  """Register `nodetype` whose flatten_with_keys(x) -> (((key, child), ...), aux)."""
  if flatten_func is None:
    def flatten_func(x):
      pairs, aux = flatten_with_keys(x)
      return [c for _, c in pairs], aux
  _registered_types.add(nodetype)
  unflatten_funcs[nodetype] = unflatten_func
  _registry.register_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_node_class(cls):
  """Class decorator: uses `cls.tree_flatten()` and `cls.tree_unflatten(aux, children)`."""
  register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
  return cls


def register_pytree_with_keys_class(cls):
  """Class decorator: `cls.tree_flatten_with_keys()`, `cls.tree_unflatten(aux, children)`."""
  flatten = (lambda x: x.tree_flatten()) if hasattr(cls, "tree_flatten") else None
  register_pytree_with_keys(cls, lambda x: x.tree_flatten_with_keys(), cls.tree_unflatten,
                            flatten)
  return cls


def register_dataclass(nodetype=None, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None, drop_fields: Sequence[str] = ()):
  """Register a dataclass: `data_fields` are children, `meta_fields` are static aux data.

  Without field lists the dataclass fields are used, those declared with
  `field(metadata=dict(static=True))` being meta fields. Usable as a decorator.
  """
  if nodetype is None:
    return lambda cls: register_dataclass(cls, data_fields, meta_fields, drop_fields)
  if data_fields is None and meta_fields is None:
    if not dataclasses.is_dataclass(nodetype):
      raise TypeError("register_dataclass: data_fields and meta_fields are required when "
                      f"{nodetype.__name__} is not a dataclass.")
    fields = [f for f in dataclasses.fields(nodetype) if f.init and f.name not in drop_fields]
    meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
  elif data_fields is None or meta_fields is None:
    raise TypeError("register_dataclass: give both data_fields and meta_fields, or neither.")
  data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
  if dataclasses.is_dataclass(nodetype):
    init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
    given = set(data_fields) | set(meta_fields)
    if init != given:
      raise ValueError(
          f"data_fields and meta_fields must include all dataclass fields with init=True and "
          f"only them. Missing: {sorted(init - given)}; unexpected: {sorted(given - init)}.")
  _registered_types.add(nodetype)
  _registry.register_dataclass_node(nodetype, list(data_fields), list(meta_fields))
  return nodetype


def register_static(cls):
  """Register `cls` as a node with no children: its instances are kept as static aux data."""
  _registered_types.add(cls)
  _registry.register_static_node(cls)
  return cls


# ----------------------------------------------------------------------------- flatten / map

# (leaves, treedef); `is_leaf(x)` true stops the walk at x.
tree_flatten: Callable[..., tuple[list, PyTreeDef]] = _registry.flatten
# ([(key_path, leaf), ...], treedef).
def tree_flatten_with_path(tree, is_leaf=None,
                           is_leaf_takes_path: bool = False) -> tuple[list, PyTreeDef]:
  """((key path, leaf) pairs, treedef); with is_leaf_takes_path, `is_leaf(key_path, x)`."""
  if is_leaf_takes_path:
    return _flatten_with_path_predicate(tree, is_leaf)
  return _registry.flatten_with_path(tree, is_leaf)
_LEAF = tree_flatten(None, lambda _: True)[1]


def tree_leaves_with_path(tree, is_leaf=None, is_leaf_takes_path: bool = False) -> list:
  return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable) -> Any:
  return treedef.unflatten(leaves)


def tree_leaves(tree, is_leaf=None) -> list:
  return _registry.flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None) -> PyTreeDef:
  return _registry.flatten(tree, is_leaf)[1]


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
  return treedef.is_leaf()


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
  return treedef.children()


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
  return _registry.treedef_tuple(list(treedefs))


def all_leaves(iterable: Iterable, is_leaf=None) -> bool:
  """True if every element of `iterable` is a leaf (flattens to itself)."""
  if is_leaf is None:
    return all(_registry.is_leaf(x) for x in iterable)
  return all(tree_structure(x, is_leaf) == _LEAF for x in iterable)


def tree_map(f: Callable, tree, *rest, is_leaf=None):
  leaves, treedef = tree_flatten(tree, is_leaf)
  others = [treedef.flatten_up_to(r, "tree_map tree") for r in rest]
  return treedef.unflatten(f(*xs) for xs in zip(leaves, *others))


def tree_map_with_path(f: Callable, tree, *rest, is_leaf=None, is_leaf_takes_path: bool = False):
  """`f(key_path, leaf, *other_leaves)` over the leaves of `tree`; with is_leaf_takes_path,
  `is_leaf(key_path, x)` decides where the walk stops."""
  pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
  others = [treedef.flatten_up_to(r, "tree_map_with_path tree") for r in rest]
  return treedef.unflatten(f(p, x, *xs) for (p, x), *xs in zip(pairs, *others))


class _PathLeaf:
  """A subtree that a path predicate declared a leaf (unwrapped after flattening)."""
  __slots__ = ("value",)

  def __init__(self, value):
    self.value = value


def _flatten_with_path_predicate(tree, is_leaf):
  """flatten_with_path where `is_leaf(key_path, x)` sees each subtree's path."""
  def mark(path, x):
    if is_leaf is not None and is_leaf(path, x):
      return _PathLeaf(x)
    children, one_level = _registry.flatten_with_path(x, lambda c: c is not x)
    if one_level.is_leaf():
      return _PathLeaf(x)
    return one_level.unflatten(mark(path + p, c) for p, c in children)

  marked = mark((), tree)
  pairs, treedef = _registry.flatten_with_path(marked, lambda v: isinstance(v, _PathLeaf))
  return [(p, v.value) for p, v in pairs], treedef


def flatten_one_level(tree) -> tuple[list, Any]:
  """(children, node data) of the pytree node `tree` (ValueError for a leaf)."""
  children, one_level = _registry.flatten(tree, lambda c: c is not tree)
  if one_level.is_leaf():
    raise ValueError(f"can't tree-flatten type: {type(tree)}")
  return children, one_level.node_data()[1]


def flatten_one_level_with_keys(tree) -> tuple[list, Any]:
  """([(key, child), ...], node data) of the pytree node `tree`."""
  pairs, one_level = _registry.flatten_with_path(tree, lambda c: c is not tree)
  if one_level.is_leaf():
    raise ValueError(f"can't tree-flatten type: {type(tree)}")
  return [(p[0], c) for p, c in pairs], one_level.node_data()[1]


# Types registered through this module (the built-in node types are known below).
_registered_types: set = set()
_BUILTIN_NODES = (tuple, list, dict, type(None), collections.OrderedDict,
                  collections.defaultdict)


def is_tree_node(typ) -> bool:
  """Whether instances of `typ` are pytree nodes (built in or registered), not leaves."""
  if not isinstance(typ, type):
    typ = type(typ)
  return typ in _registered_types or typ in _BUILTIN_NODES or (
      issubclass(typ, tuple) and hasattr(typ, "_fields"))


default_registry = _registry


def tree_all(tree, *, is_leaf=None) -> bool:
  return all(tree_leaves(tree, is_leaf))


_NO_INITIAL = object()


def tree_reduce(function: Callable, tree, initializer=_NO_INITIAL, is_leaf=None):
  leaves = tree_leaves(tree, is_leaf)
  if initializer is _NO_INITIAL:
    return functools.reduce(function, leaves)
  return functools.reduce(function, leaves, initializer)


def tree_reduce_associative(operation: Callable, tree, *, identity=_NO_INITIAL, is_leaf=None):
  """Reduce the leaves pairwise in a balanced tree (`operation` must be associative)."""
  leaves = tree_leaves(tree, is_leaf)
  if not leaves:
    if identity is _NO_INITIAL:
      raise TypeError("Must specify identity for tree_reduce_associative if tree is empty.")
    return identity
  while len(leaves) > 1:
    paired = [operation(a, b) for a, b in zip(leaves[::2], leaves[1::2])]
    leaves = paired + ([leaves[-1]] if len(leaves) % 2 else [])
  return leaves[0]


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose):
  """An outer structure of inner structures, turned into an inner of outers.

  As in JAX, only the number of leaves is checked against `outer x inner`: a custom
  node may flatten nested containers into its own leaves (haiku's FlatMap does).
  """
  if inner_treedef is None:
    subtrees = outer_treedef.flatten_up_to(pytree_to_transpose, "tree_transpose tree")
    inner_treedef = tree_structure(subtrees[0]) if subtrees else _LEAF
  flat, treedef = tree_flatten(pytree_to_transpose)
  inner_size, outer_size = inner_treedef.num_leaves, outer_treedef.num_leaves
  if treedef.num_leaves != inner_size * outer_size:
    expected = tree_structure(outer_treedef.unflatten(
        [inner_treedef.unflatten([0] * inner_size)] * outer_size))
    raise TypeError(f"Mismatch\n{treedef}\n != \n{expected}")
  if inner_size == 0:
    return inner_treedef.unflatten([])
  rows = [flat[i * inner_size:(i + 1) * inner_size] for i in range(outer_size)]
  return inner_treedef.unflatten([outer_treedef.unflatten(col) for col in zip(*rows)])


def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
  """`prefix_tree` with each of its leaves repeated over the matching subtree of `full_tree`."""
  prefix_leaves, prefix_def = tree_flatten(prefix_tree, is_leaf)
  subtrees = prefix_def.flatten_up_to(full_tree, "tree_broadcast full tree")
  return prefix_def.unflatten(tree_map(lambda _: p, s, is_leaf=is_leaf)
                              for p, s in zip(prefix_leaves, subtrees))


def build_tree(treedef: PyTreeDef, xs):
  """Build a tree from nested tuples `xs` following `treedef`'s nodes (leaves stay as given)."""
  return treedef.from_iterable_tree(xs)


class _WholePartial:
  """A functools.partial given to `Partial` as its function, kept whole: Python would
  otherwise merge its bound arguments into the Partial's, making them leaves (they
  belong to the static function, as in JAX)."""

  __slots__ = ("partial",)

  def __init__(self, partial: functools.partial):
    self.partial = partial

  func = property(lambda self: self.partial.func)
  args = property(lambda self: self.partial.args)
  keywords = property(lambda self: self.partial.keywords)

  def __call__(self, *args, **kwargs):
    return self.partial(*args, **kwargs)

  def __eq__(self, other):
    return type(other) is _WholePartial and self.partial == other.partial

  def __hash__(self):
    return hash(self.partial)

  def __repr__(self):
    return repr(self.partial)


class Partial(functools.partial):
  """A functools.partial that is a pytree: the bound arguments are its children."""

  def __new__(cls, func, *args, **kwargs):
    if isinstance(func, functools.partial):
      func = _WholePartial(func)
    return super().__new__(cls, func, *args, **kwargs)


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, xs: Partial(func, *xs[0], **xs[1]))


def static(**kwargs):
  """A dataclass field (dataclasses.field arguments) marked static: register_dataclass
  keeps it in the tree structure instead of making it a leaf."""
  metadata = dict(kwargs.pop("metadata", None) or {})
  metadata["static"] = True
  return dataclasses.field(metadata=metadata, **kwargs)

class OutTreeStore:
  """Receives the output treedef of a function while it is being traced."""
  value: Any = None


def flatten_fun(fun: Callable, in_tree, store: OutTreeStore) -> Callable:
  """`fun` over flat leaves (arguments `in_tree`); its output treedef goes to `store`."""
  def flat(*leaves):
    args, kwargs = in_tree.unflatten(leaves)
    out = fun(*args, **kwargs)
    out_leaves, store.value = tree_flatten(out)
    return out_leaves
  return flat


def prefix_per_leaf(prefix, tree, is_leaf=lambda x: x is None or isinstance(x, int)) -> list:
  """One entry of `prefix` per leaf of `tree` (prefix is a tree prefix of tree)."""
  if is_leaf(prefix):
    return [prefix] * len(tree_leaves(tree))
  # Fast paths for plain containers only: a registered subclass (a flax State, a named
  # tuple) flattens in its own order, which the general path below follows.
  if type(prefix) in (tuple, list) and type(tree) in (tuple, list):
    if len(prefix) != len(tree):
      raise ValueError(f"vmap axes specification {prefix} does not match arguments of length "
                       f"{len(tree)}")
    return [x for p, t in zip(prefix, tree) for x in prefix_per_leaf(p, t, is_leaf)]
  if type(prefix) is dict and type(tree) is dict:
    return [x for k in sorted(tree) for x in prefix_per_leaf(prefix[k], tree[k], is_leaf)]
  # One level at a time: a leaf of the prefix deeper down stands for a whole subtree
  # (a NamedSharding for a flax Param node), which flattening to the full depth refuses.
  prefix_kids, prefix_node = tree_flatten(prefix, is_leaf=lambda c: c is not prefix)
  tree_kids, tree_node = tree_flatten(tree, is_leaf=lambda c: c is not tree)
  if prefix_node != tree_node:
    errors = prefix_errors(prefix, tree, is_leaf)
    if errors:
      raise errors[0]("tree prefix")
    raise ValueError(f"{prefix_node} is not a tree prefix of {tree_node}")
  return [x for p, t in zip(prefix_kids, tree_kids) for x in prefix_per_leaf(p, t, is_leaf)]


# ----------------------------------------------------------------------------- prefix errors


def prefix_errors(prefix_tree, full_tree, is_leaf=None) -> list[Callable[[str], ValueError]]:
  """Where `prefix_tree` fails to be a tree prefix of `full_tree`: one function per
  mismatch, which takes the name of the prefix argument (e.g. "in_axes") and returns
  the ValueError describing the mismatch at its key path."""
  return list(_prefix_errors((), prefix_tree, full_tree, is_leaf))


def _prefix_errors(path, prefix, full, is_leaf):
  if is_leaf is not None and is_leaf(prefix):
    return
  prefix_kids, prefix_node = _registry.flatten_with_path(prefix, lambda c: c is not prefix)
  if prefix_node.is_leaf():
    return  # a leaf of the prefix stands for the whole subtree
  where = lambda name: f"{name}{keystr(path)}" if path else name
  if type(prefix) is not type(full):
    yield lambda name: ValueError(
        "pytree structure error: different types at key path\n"
        f"    {where(name)}\n"
        f"At that key path, the prefix pytree {name} has a subtree of type\n"
        f"    {type(prefix)}\n"
        "but at the same key path the full pytree has a subtree of different type\n"
        f"    {type(full)}.")
    return
  full_kids, full_node = _registry.flatten_with_path(full, lambda c: c is not full)
  if len(prefix_kids) != len(full_kids):
    yield lambda name: ValueError(
        "pytree structure error: different numbers of pytree children at key path\n"
        f"    {where(name)}\n"
        f"At that key path, the prefix pytree {name} has a subtree of type\n"
        f"    {type(prefix)}\n"
        f"with {len(prefix_kids)} child keys\n"
        f"    {' '.join(str(p[0]) for p, _ in prefix_kids)}\n"
        "but at the same key path the full pytree has a subtree of the same type but with "
        f"{len(full_kids)} child keys\n"
        f"    {' '.join(str(p[0]) for p, _ in full_kids)}")
    return
  prefix_keys = [p[0] for p, _ in prefix_kids]
  full_keys = [p[0] for p, _ in full_kids]
  if prefix_keys != full_keys or prefix_node.node_data() != full_node.node_data():
    yield lambda name: ValueError(
        "pytree structure error: different pytree metadata at key path\n"
        f"    {where(name)}\n"
        f"At that key path, the prefix pytree {name} has a subtree of type\n"
        f"    {type(prefix)}\n"
        f"with metadata\n    {prefix_node.node_data()[1]!r}\n"
        "but at the same key path the full pytree has a subtree of the same type but with "
        f"metadata\n    {full_node.node_data()[1]!r}")
    return
  for (p, kid), (_, full_kid) in zip(prefix_kids, full_kids):
    yield from _prefix_errors(path + p, kid, full_kid, is_leaf)
