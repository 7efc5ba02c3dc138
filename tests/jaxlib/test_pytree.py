"""jaxlib._jax.pytree on its own: the registry, treedefs and their error paths.

A fresh registry per test (with small key classes of the test's own), so nothing
here depends on jax.tree_util's registrations.
"""

import collections
import dataclasses
import pickle

import pytest

pytestmark = pytest.mark.needs_wheels

_jax = pytest.importorskip("jaxlib._jax")
pt = _jax.pytree


@dataclasses.dataclass(frozen=True)
class Key:
  kind: str
  value: object

  def __str__(self):
    return f"<{self.kind}:{self.value}>"


def seq_key(i):
  return Key("seq", i)


def dict_key(k):
  return Key("dict", k)


def attr_key(n):
  return Key("attr", n)


def flat_key(i):
  return Key("flat", i)


@pytest.fixture
def reg():
  return pt.PyTreeRegistry(seq_key, dict_key, attr_key, flat_key)


Point = collections.namedtuple("Point", "x y")


class Box:
  def __init__(self, *items):
    self.items = list(items)

  def __eq__(self, other):
    return isinstance(other, Box) and self.items == other.items


def test_builtin_nodes_roundtrip(reg):
  tree = [(1, 2), {"b": 3, "a": None}, Point(4, [5]), collections.OrderedDict(z=6, y=7),
          collections.defaultdict(list, q=8, p=9)]
  leaves, treedef = reg.flatten(tree)
  assert leaves == [1, 2, 3, 4, 5, 6, 7, 9, 8]
  assert treedef.num_leaves == 9
  back = treedef.unflatten(leaves)
  assert back == tree
  assert type(back[3]) is collections.OrderedDict and list(back[3]) == ["z", "y"]
  assert type(back[4]) is collections.defaultdict and back[4].default_factory is list


def test_num_nodes_children_node_data_and_repr(reg):
  _, treedef = reg.flatten({"a": (1,), "b": [2, None]})
  assert treedef.num_nodes == 6
  assert [repr(c) for c in treedef.children()] == ["PyTreeDef((*,))", "PyTreeDef([*, None])"]
  assert treedef.node_data() == (dict, ("a", "b"))
  assert repr(treedef) == "PyTreeDef({'a': (*,), 'b': [*, None]})"
  assert reg.flatten(5)[1].node_data() is None
  assert reg.flatten(5)[1].is_leaf() and not treedef.is_leaf()


def test_custom_node_with_and_without_keys(reg):
  reg.register_node(Box, lambda b: (b.items, "box"), lambda aux, ch: Box(*ch))
  leaves, treedef = reg.flatten(Box(1, Box(2, 3)))
  assert leaves == [1, 2, 3]
  assert repr(treedef) == "PyTreeDef(CustomNode(Box['box'], [*, CustomNode(Box['box'], [*, *])]))"
  assert treedef.unflatten([4, 5, 6]) == Box(4, Box(5, 6))
  pairs, _ = reg.flatten_with_path(Box(1, [2]))
  assert pairs == [((flat_key(0),), 1), ((flat_key(1), seq_key(0)), 2)]

  class Named:
    def __init__(self, a, b):
      self.a, self.b = a, b

  reg.register_node(Named, lambda n: ((n.a, n.b), None), lambda _, ch: Named(*ch),
                    lambda n: (((attr_key("a"), n.a), (attr_key("b"), n.b)), None))
  pairs, treedef = reg.flatten_with_path(Named(1, 2))
  assert pairs == [((attr_key("a"),), 1), ((attr_key("b"),), 2)]
  assert treedef == reg.flatten(Named(7, 8))[1]


def test_key_paths_of_builtins(reg):
  pairs, _ = reg.flatten_with_path({"b": Point(1, 2), "a": [3]})
  assert [p for p, _ in pairs] == [(dict_key("a"), seq_key(0)), (dict_key("b"), attr_key("x")),
                                   (dict_key("b"), attr_key("y"))]


def test_dataclass_and_static_nodes(reg):
  @dataclasses.dataclass
  class P:
    w: object
    name: str

  reg.register_dataclass_node(P, ["w"], ["name"])
  leaves, treedef = reg.flatten(P([1, 2], "n"))
  assert leaves == [1, 2]
  back = treedef.unflatten([3, 4])
  assert back == P([3, 4], "n")
  assert treedef != reg.flatten(P([1, 2], "m"))[1]
  assert reg.flatten_with_path(P(1, "n"))[0] == [((attr_key("w"),), 1)]

  class Tag:
    pass

  reg.register_static_node(Tag)
  t = Tag()
  leaves, treedef = reg.flatten([t, 1])
  assert leaves == [1] and treedef.unflatten([2])[0] is t


def test_is_leaf_and_registry_is_leaf(reg):
  leaves, treedef = reg.flatten([(1, 2), [3]], is_leaf=lambda x: isinstance(x, tuple))
  assert leaves == [(1, 2), 3] and treedef.num_nodes == 4
  assert reg.is_leaf(1.0) and not reg.is_leaf([]) and not reg.is_leaf(None)


def test_equality_and_hash(reg):
  a = reg.flatten({"x": [1, 2]})[1]
  b = reg.flatten({"x": [3, 4]})[1]
  assert a == b and hash(a) == hash(b) and {a: 1}[b] == 1
  assert a != reg.flatten({"y": [1, 2]})[1]
  assert a != reg.flatten({"x": (1, 2)})[1]
  assert a != "not a treedef"
  assert reg.treedef_tuple([a, b]) == reg.flatten(({"x": [0, 0]}, {"x": [0, 0]}))[1]


def test_flatten_up_to_and_errors(reg):
  _, treedef = reg.flatten([1, {"a": 2}])
  assert treedef.flatten_up_to([(5, 6), {"a": [7]}]) == [(5, 6), [7]]
  with pytest.raises(ValueError, match=r"different types at key path\n    t<seq:0>"):
    reg.flatten([[1], 2])[1].flatten_up_to([(1,), 2], "t")
  with pytest.raises(ValueError, match=r"different lengths of list at key path\n    tree\n"):
    reg.flatten([1, 2])[1].flatten_up_to([1, 2, 3])
  with pytest.raises(ValueError, match=r"different pytree metadata at key path\n    tree<seq:1>"):
    treedef.flatten_up_to([1, {"b": 2}])
  with pytest.raises(ValueError, match="Too many leaves for PyTreeDef; expected 2, got 3"):
    treedef.unflatten([1, 2, 3])
  with pytest.raises(TypeError, match="leaves must be iterable"):
    treedef.unflatten(5)


def test_bad_flatten_functions_raise(reg):
  class NotPair:
    pass

  class NotIterable:
    pass

  class Raises:
    pass

  class BadKeys:
    pass

  reg.register_node(NotPair, lambda x: 5, lambda aux, ch: None)
  reg.register_node(NotIterable, lambda x: (3, None), lambda aux, ch: None)
  reg.register_node(Raises, lambda x: 1 / 0, lambda aux, ch: None)
  reg.register_node(BadKeys, lambda x: ((), None), lambda aux, ch: None,
                    lambda x: ([1, 2], None))
  with pytest.raises(TypeError, match="must return a pair"):
    reg.flatten([NotPair()])
  with pytest.raises(TypeError, match="not iterable"):
    reg.flatten(NotIterable())
  with pytest.raises(ZeroDivisionError):
    reg.flatten({"a": Raises()})
  with pytest.raises(TypeError, match=r"\(key, child\) pairs"):
    reg.flatten_with_path(BadKeys())
  with pytest.raises(ZeroDivisionError):
    reg.flatten([1, 2], is_leaf=lambda x: 1 / 0)


def test_bad_registrations_and_unflatten_functions(reg):
  with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration"):
    reg.register_node(list, lambda x: (x, None), lambda a, c: c)
  with pytest.raises(TypeError, match="must be classes"):
    reg.register_static_node(5)
  with pytest.raises(TypeError, match="must be callable"):
    reg.register_node(Box, 1, 2)

  class Fails:
    pass

  reg.register_node(Fails, lambda x: ((1,), None), lambda aux, ch: [][0])
  _, treedef = reg.flatten(Fails())
  with pytest.raises(IndexError):
    treedef.unflatten([1])


def test_unsortable_dict_keys_and_deep_trees(reg):
  with pytest.raises(TypeError):
    reg.flatten({1: 1, "a": 2})
  # Deeper than any interpreter's guard: from 3.12 the C recursion limit that
  # Py_EnterRecursiveCall checks is far above sys.getrecursionlimit().
  deep = []
  for _ in range(50_000):
    deep = [deep]
  with pytest.raises(RecursionError):
    reg.flatten(deep)
  cyclic = []
  cyclic.append(cyclic)
  with pytest.raises(RecursionError):
    reg.flatten(cyclic)


def test_from_iterable_tree(reg):
  _, treedef = reg.flatten({"a": [1, 2], "b": 3})
  assert treedef.from_iterable_tree(((10, 20), 30)) == {"a": [10, 20], "b": 30}
  with pytest.raises(ValueError, match="a node with 2 children was given 3"):
    treedef.from_iterable_tree(((1, 2, 3), 4))


def test_pickle_roundtrip_uses_the_default_registry(reg):
  previous = pt._default_registry
  pt.set_default_registry(reg)
  try:
    _, treedef = reg.flatten([Point(1, 2), {"k": None}, collections.OrderedDict(a=1)])
    assert pickle.loads(pickle.dumps(treedef)) == treedef
  finally:
    if previous is not None:
      pt.set_default_registry(previous)


def test_treedefs_from_many_threads(reg):
  import threading

  reg.register_node(Box, lambda b: (b.items, None), lambda aux, ch: Box(*ch))
  errors = []

  def work(i):
    try:
      for _ in range(200):
        tree = {"a": [i, Box(i, (i,))], "b": Point(i, None)}
        leaves, treedef = reg.flatten(tree)
        assert treedef.unflatten(leaves) == tree
    except Exception as e:  # pragma: no cover - reported below
      errors.append(e)

  threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
  for t in threads:
    t.start()
  for t in threads:
    t.join()
  assert not errors


def test_registry_in_a_reference_cycle_is_collected():
  import gc
  import weakref

  class Anchor:
    pass

  class Node:
    pass

  anchor = Anchor()
  anchor.registry = pt.PyTreeRegistry(seq_key, dict_key, attr_key, flat_key)
  anchor.registry.register_node(Node, lambda n, a=anchor: ((), None), lambda aux, ch: Node())
  anchor.treedef = anchor.registry.flatten([Node()])[1]
  alive = weakref.ref(anchor)
  del anchor
  gc.collect()
  assert alive() is None


def test_malformed_pickle_states_raise(reg):
  previous = pt._default_registry
  pt.set_default_registry(reg)
  try:
    good = reg.flatten({"a": [1, 2]})[1].__getstate__()
    one, two, lst, dct = good  # (kind, arity, data, type, num_leaves, num_nodes) each
    for bad in [(), (lst,), (one, lst), (one, two, dct),
                (one, two, lst[:4] + (5,) + lst[5:], dct),
                (one, two, lst, dct[:2] + (("a", "b"),) + dct[3:]),
                (one, two, lst, dct[:3] + (int,) + dct[4:]),
                ((99, 0, None, None, 1, 1),)]:
      fresh = pt.PyTreeDef.__new__(pt.PyTreeDef)
      with pytest.raises(ValueError, match="PyTreeDef state|not registered"):
        fresh.__setstate__(bad)
    fresh = pt.PyTreeDef.__new__(pt.PyTreeDef)
    fresh.__setstate__(good)
    assert fresh == reg.flatten({"a": [3, 4]})[1]
  finally:
    if previous is not None:
      pt.set_default_registry(previous)
