"""Pytrees: nested containers whose leaves are arrays.

The interface is small on purpose so a native implementation can replace the
internals: ``tree_flatten(tree) -> (leaves, treedef)``, ``treedef.unflatten(leaves)``,
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
import difflib
import functools
from typing import Any, Callable, Hashable, Iterable, NamedTuple, Sequence


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


class _NodeType(NamedTuple):
  to_iterable: Callable[[Any], tuple[Iterable, Hashable]]
  from_iterable: Callable[[Hashable, Iterable], Any]
  # x -> (((key, child), ...), aux); None means children are keyed by flat index.
  to_keyed: Callable[[Any], tuple[Iterable, Hashable]] | None = None


_registry: dict[type, _NodeType] = {}


def _register(nodetype: type, node: _NodeType) -> None:
  if nodetype in _registry:
    raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")
  _registry[nodetype] = node


def register_pytree_node(nodetype: type, flatten_func, unflatten_func,
                         flatten_with_keys_func=None) -> None:
  """Register `nodetype`: flatten_func(x) -> (children, aux); unflatten_func(aux, children) -> x."""
  _register(nodetype, _NodeType(flatten_func, unflatten_func, flatten_with_keys_func))


def register_pytree_with_keys(nodetype: type, flatten_with_keys, unflatten_func,
                              flatten_func=None) -> None:
  """Register `nodetype` whose flatten_with_keys(x) -> (((key, child), ...), aux)."""
  if flatten_func is None:
    def flatten_func(x):
      pairs, aux = flatten_with_keys(x)
      return [c for _, c in pairs], aux
  _register(nodetype, _NodeType(flatten_func, unflatten_func, flatten_with_keys))


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

  def flatten_with_keys(x):
    return ([(GetAttrKey(n), getattr(x, n)) for n in data_fields],
            tuple(getattr(x, n) for n in meta_fields))

  def flatten(x):
    return [getattr(x, n) for n in data_fields], tuple(getattr(x, n) for n in meta_fields)

  def unflatten(meta, children):
    return nodetype(**dict(zip(meta_fields, meta)), **dict(zip(data_fields, children)))

  register_pytree_with_keys(nodetype, flatten_with_keys, unflatten, flatten)
  return nodetype


def register_static(cls):
  """Register `cls` as a node with no children: its instances are kept as static aux data."""
  register_pytree_with_keys(cls, lambda x: ((), x), lambda aux, _: aux, lambda x: ((), x))
  return cls


def _dict_flatten(d):
  keys = sorted(d)
  return [d[k] for k in keys], tuple(keys)


def _dict_keyed(d):
  keys = sorted(d)
  return [(DictKey(k), d[k]) for k in keys], tuple(keys)


def _seq_keyed(xs):
  return [(SequenceKey(i), x) for i, x in enumerate(xs)], None


register_pytree_node(tuple, lambda t: (t, None), lambda _, xs: tuple(xs), _seq_keyed)
register_pytree_node(list, lambda l: (l, None), lambda _, xs: list(xs), _seq_keyed)
register_pytree_node(dict, _dict_flatten, lambda keys, xs: dict(zip(keys, xs)), _dict_keyed)
register_pytree_node(type(None), lambda _: ((), None), lambda _, xs: None,
                     lambda _: ((), None))
register_pytree_node(
    collections.OrderedDict,
    lambda d: (list(d.values()), tuple(d.keys())),
    lambda keys, xs: collections.OrderedDict(zip(keys, xs)),
    lambda d: ([(DictKey(k), v) for k, v in d.items()], tuple(d.keys())))
register_pytree_node(
    collections.defaultdict,
    lambda d: (_dict_flatten(d)[0], (d.default_factory, tuple(sorted(d)))),
    lambda aux, xs: collections.defaultdict(aux[0], zip(aux[1], xs)),
    lambda d: (_dict_keyed(d)[0], (d.default_factory, tuple(sorted(d)))))


def _is_namedtuple(x) -> bool:
  return isinstance(x, tuple) and hasattr(type(x), "_fields")


class _NamedTupleNode:
  """Marks namedtuple treedefs: the aux data is the namedtuple class."""


_NAMEDTUPLE = _NodeType(lambda nt: (tuple(nt), type(nt)), lambda t, xs: t(*xs),
                        lambda nt: ([(GetAttrKey(f), v) for f, v in zip(nt._fields, nt)],
                                    type(nt)))


def _node_type(x):
  t = type(x)
  node = _registry.get(t)
  if node is not None:
    return t, node
  if _is_namedtuple(x):
    return _NamedTupleNode, _NAMEDTUPLE
  return None, None


def _node_of(kind) -> _NodeType:
  return _NAMEDTUPLE if kind is _NamedTupleNode else _registry[kind]


def _keyed_children(node: _NodeType, x) -> tuple[list, Any]:
  if node.to_keyed is not None:
    pairs, data = node.to_keyed(x)
    return list(pairs), data
  children, data = node.to_iterable(x)
  return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], data


# ----------------------------------------------------------------------------- PyTreeDef


class PyTreeDef:
  """The structure of a pytree: node type, aux data and children treedefs."""

  __slots__ = ("_kind", "_data", "_kids", "num_leaves", "num_nodes", "_hash")

  def __init__(self, kind, data, kids: tuple[PyTreeDef, ...]):
    self._kind = kind  # None means a leaf
    self._data = data
    self._kids = kids
    num_leaves, num_nodes = (1 if kind is None else 0), 1
    for c in kids:
      num_leaves += c.num_leaves
      num_nodes += c.num_nodes
    self.num_leaves, self.num_nodes = num_leaves, num_nodes
    self._hash = None

  def children(self) -> list[PyTreeDef]:
    return list(self._kids)

  def node_data(self):
    """(node type, aux data) of the root, or None for a leaf."""
    if self._kind is None:
      return None
    return (self._data if self._kind is _NamedTupleNode else self._kind), self._data

  def unflatten(self, leaves: Iterable) -> Any:
    leaves = list(leaves)
    if len(leaves) != self.num_leaves:
      raise ValueError(f"Too {'few' if len(leaves) < self.num_leaves else 'many'} leaves for "
                       f"PyTreeDef; expected {self.num_leaves}, got {len(leaves)}")
    return self._build(iter(leaves))

  def _build(self, it):
    if self._kind is None:
      return next(it)
    children = [c._build(it) for c in self._kids]
    return _node_of(self._kind).from_iterable(self._data, children)

  def flatten_up_to(self, tree, name: str = "tree") -> list:
    """Leaves of `tree` at this treedef's leaf positions (they may be subtrees)."""
    out: list = []
    self._flatten_up_to(tree, (), out, name)
    return out

  def _flatten_up_to(self, tree, path, out, name):
    if self._kind is None:
      out.append(tree)
      return
    kind, node = _node_type(tree)
    if kind is not self._kind or (kind is _NamedTupleNode and type(tree) is not self._data):
      raise _structure_error(name, path, "different types",
                             f"has a subtree of type\n    {self._type_name()}\nbut at the same "
                             f"key path the full pytree has a subtree of different type\n    "
                             f"{type(tree)}.")
    pairs, data = _keyed_children(node, tree)
    if len(pairs) != len(self._kids):
      raise _structure_error(name, path, f"different lengths of {type(tree).__name__}",
                             f"has a subtree of type {type(tree).__name__} of length "
                             f"{len(self._kids)}, but the full pytree has a subtree of the same "
                             f"type but of length {len(pairs)}.")
    if kind is not _NamedTupleNode and not _data_equal(data, self._data):
      diff = "\n".join(difflib.ndiff([repr(self._data)], [repr(data)]))
      raise _structure_error(name, path, "different pytree metadata",
                             f"has a subtree of type\n    {type(tree)}\nwith metadata\n    "
                             f"{self._data!r}\nbut at the same key path the full pytree has a "
                             f"subtree of the same type but with metadata\n    {data!r}\nso the "
                             f"diff in the metadata at these pytree nodes is\n{diff}")
    for c, (key, sub) in zip(self._kids, pairs):
      c._flatten_up_to(sub, path + (key,), out, name)

  def _type_name(self):
    return repr(self._data if self._kind is _NamedTupleNode else self._kind)

  def __eq__(self, other):
    return (isinstance(other, PyTreeDef) and self._kind is other._kind
            and _data_equal(self._data, other._data) and self._kids == other._kids)

  def __hash__(self):
    if self._hash is None:
      self._hash = hash((self._kind, _hashable(self._data), self._kids))
    return self._hash

  def __repr__(self):
    return f"PyTreeDef({self._str()})"

  def _str(self):
    if self._kind is None:
      return "*"
    inner = ", ".join(c._str() for c in self._kids)
    if self._kind is tuple:
      return f"({inner}{',' if len(self._kids) == 1 else ''})"
    if self._kind is list:
      return f"[{inner}]"
    if self._kind is dict:
      return "{" + ", ".join(f"{k!r}: {c._str()}" for k, c in zip(self._data, self._kids)) + "}"
    if self._kind is type(None):
      return "None"
    if self._kind is _NamedTupleNode:
      return f"CustomNode(namedtuple[{self._data.__name__}], [{inner}])"
    return f"CustomNode({self._kind.__name__}[{self._data!r}], [{inner}])"


def _data_equal(a, b) -> bool:
  try:
    return bool(a == b)
  except Exception:  # e.g. aux data holding arrays
    return a is b


def _structure_error(name, path, what: str, detail: str) -> ValueError:
  where = f"{name}{keystr(path)}"
  return ValueError(f"pytree structure error: {what} at key path\n    {where}\nAt that key path, "
                    f"the prefix pytree {name} {detail}")


def _hashable(data):
  try:
    hash(data)
    return data
  except TypeError:
    return repr(data)


_LEAF = PyTreeDef(None, None, ())


# ----------------------------------------------------------------------------- flatten / map


def tree_flatten(tree, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list, PyTreeDef]:
  leaves: list = []
  treedef = _flatten(tree, is_leaf, leaves)
  return leaves, treedef


def _flatten(tree, is_leaf, leaves) -> PyTreeDef:
  if is_leaf is not None and is_leaf(tree):
    leaves.append(tree)
    return _LEAF
  kind = type(tree)
  node = _registry.get(kind)
  if node is None:  # _node_type, inlined: this runs once per node and leaf
    if not (isinstance(tree, tuple) and hasattr(kind, "_fields")):
      leaves.append(tree)
      return _LEAF
    kind, node = _NamedTupleNode, _NAMEDTUPLE
  children, data = node.to_iterable(tree)
  kids = []
  for c in children:
    ct = type(c)
    if is_leaf is None and ct not in _registry and not (isinstance(c, tuple)
                                                       and hasattr(ct, "_fields")):
      leaves.append(c)  # a leaf child, without a recursive call
      kids.append(_LEAF)
    else:
      kids.append(_flatten(c, is_leaf, leaves))
  return PyTreeDef(kind, data, tuple(kids))


def tree_flatten_with_path(tree, is_leaf=None) -> tuple[list, PyTreeDef]:
  """([(key_path, leaf), ...], treedef)."""
  pairs: list = []
  _flatten_with_path(tree, is_leaf, (), pairs)
  return pairs, tree_structure(tree, is_leaf)


def _flatten_with_path(tree, is_leaf, path, out) -> None:
  if is_leaf is not None and is_leaf(tree):
    out.append((path, tree))
    return
  _, node = _node_type(tree)
  if node is None:
    out.append((path, tree))
    return
  for key, child in _keyed_children(node, tree)[0]:
    _flatten_with_path(child, is_leaf, path + (key,), out)


def tree_leaves_with_path(tree, is_leaf=None) -> list:
  return tree_flatten_with_path(tree, is_leaf)[0]


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable) -> Any:
  return treedef.unflatten(leaves)


def tree_leaves(tree, is_leaf=None) -> list:
  return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None) -> PyTreeDef:
  return tree_flatten(tree, is_leaf)[1]


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
  return treedef._kind is None


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
  return treedef.children()


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
  return PyTreeDef(tuple, None, tuple(treedefs))


def all_leaves(iterable: Iterable, is_leaf=None) -> bool:
  """True if every element of `iterable` is a leaf (flattens to itself)."""
  if is_leaf is None:
    return all(_node_type(x)[1] is None for x in iterable)
  return all(tree_structure(x, is_leaf) == _LEAF for x in iterable)


def tree_map(f: Callable, tree, *rest, is_leaf=None):
  leaves, treedef = tree_flatten(tree, is_leaf)
  others = [treedef.flatten_up_to(r, "tree_map tree") for r in rest]
  return treedef.unflatten(f(*xs) for xs in zip(leaves, *others))


def tree_map_with_path(f: Callable, tree, *rest, is_leaf=None):
  """`f(key_path, leaf, *other_leaves)` over the leaves of `tree`."""
  pairs, treedef = tree_flatten_with_path(tree, is_leaf)
  others = [treedef.flatten_up_to(r, "tree_map_with_path tree") for r in rest]
  return treedef.unflatten(f(p, x, *xs) for (p, x), *xs in zip(pairs, *others))


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
  flat = outer_treedef.flatten_up_to(pytree_to_transpose, "tree_transpose tree")
  if inner_treedef is None:
    inner_treedef = tree_structure(flat[0]) if flat else _LEAF
  inner = [inner_treedef.flatten_up_to(x, "tree_transpose inner tree") for x in flat]
  if inner_treedef.num_leaves == 0:
    return inner_treedef.unflatten([])
  columns = [outer_treedef.unflatten(col) for col in zip(*inner)] if inner else []
  return inner_treedef.unflatten(columns)


def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
  """`prefix_tree` with each of its leaves repeated over the matching subtree of `full_tree`."""
  prefix_leaves, prefix_def = tree_flatten(prefix_tree, is_leaf)
  subtrees = prefix_def.flatten_up_to(full_tree, "tree_broadcast full tree")
  return prefix_def.unflatten(tree_map(lambda _: p, s, is_leaf=is_leaf)
                              for p, s in zip(prefix_leaves, subtrees))


def build_tree(treedef: PyTreeDef, xs):
  """Build a tree from nested tuples `xs` following `treedef`'s nodes (leaves stay as given)."""
  if treedef._kind is None:
    return xs
  children = [build_tree(c, x) for c, x in zip(treedef._kids, xs)]
  return _node_of(treedef._kind).from_iterable(treedef._data, children)


class Partial(functools.partial):
  """A functools.partial that is a pytree: the bound arguments are its children."""


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, xs: Partial(func, *xs[0], **xs[1]))
