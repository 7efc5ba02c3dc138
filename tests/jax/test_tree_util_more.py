"""Pytrees: key paths, jax.tree, dataclasses, static nodes, structure errors."""

import collections
import dataclasses

import numpy as np
import pytest

import jax
from jax import tree_util as tu

Point = collections.namedtuple("Point", "x y")


class Pair:
  def __init__(self, a, b):
    self.a, self.b = a, b


tu.register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))


@tu.register_dataclass
@dataclasses.dataclass
class Params:
  w: object
  b: object
  name: str = dataclasses.field(default="p", metadata=dict(static=True))


def test_flatten_with_path_and_keystr():
  tree = {"b": [1.0, (2.0, 3.0)], "a": 7, "c": None}
  pairs, treedef = tu.tree_flatten_with_path(tree)
  assert [tu.keystr(p) for p, _ in pairs] == ["['a']", "['b'][0]", "['b'][1][0]", "['b'][1][1]"]
  assert [x for _, x in pairs] == [7, 1.0, 2.0, 3.0]
  assert treedef == tu.tree_structure(tree)
  assert tu.keystr(pairs[2][0], simple=True, separator="/") == "b/1/0"


def test_key_types_per_node_kind():
  paths = [p for p, _ in tu.tree_leaves_with_path((Point(1, 2), Pair(3, 4), Params(5, 6)))]
  assert paths[0] == (tu.SequenceKey(0), tu.GetAttrKey("x"))
  assert paths[2] == (tu.SequenceKey(1), tu.FlattenedIndexKey(0))
  assert paths[4] == (tu.SequenceKey(2), tu.GetAttrKey("w"))
  assert str(tu.FlattenedIndexKey(3)) == "[<flat index 3>]" and str(tu.GetAttrKey("w")) == ".w"


def test_dataclass_meta_fields_are_aux_data():
  p = Params(np.float32(1), np.float32(2), name="q")
  leaves, treedef = tu.tree_flatten(p)
  assert len(leaves) == 2
  assert repr(treedef) == "PyTreeDef(CustomNode(Params[('q',)], [*, *]))"
  back = treedef.unflatten([10, 20])
  assert (back.w, back.b, back.name) == (10, 20, "q")
  assert tu.tree_structure(Params(1, 2, "q")) != tu.tree_structure(Params(1, 2, "r"))


def test_register_dataclass_rejects_incomplete_field_lists():
  @dataclasses.dataclass
  class D:
    x: int
    y: int

  with pytest.raises(ValueError, match="Missing"):
    tu.register_dataclass(D, data_fields=["x"], meta_fields=[])


def test_register_static_and_with_keys():
  @tu.register_static
  class Tag:
    def __eq__(self, other):
      return isinstance(other, Tag)

    def __hash__(self):
      return 0

  leaves, treedef = tu.tree_flatten([Tag(), 1])
  assert leaves == [1] and isinstance(treedef.unflatten([5])[0], Tag)

  class Box:
    def __init__(self, v):
      self.v = v

  tu.register_pytree_with_keys(Box, lambda b: (((tu.GetAttrKey("v"), b.v),), None),
                               lambda _, c: Box(*c))
  assert tu.tree_leaves_with_path(Box(3)) == [((tu.GetAttrKey("v"),), 3)]
  assert tu.tree_map(lambda x: x + 1, Box(3)).v == 4


def test_jax_tree_namespace():
  t = {"a": [1, 2], "b": (3,)}
  assert jax.tree.map(lambda x: x * 2, t) == {"a": [2, 4], "b": (6,)}
  assert jax.tree.leaves(t) == [1, 2, 3]
  assert jax.tree.reduce(lambda a, b: a + b, t) == 6
  assert jax.tree.reduce(lambda a, b: a + b, t, 10) == 16
  assert jax.tree.all([True, (1, 2)]) and not jax.tree.all([True, 0])
  leaves, treedef = jax.tree.flatten(t)
  assert jax.tree.unflatten(treedef, leaves) == t
  assert jax.tree.map_with_path(lambda p, x: tu.keystr(p), [5]) == ["[0]"]
  assert jax.tree.transpose(jax.tree.structure([0, 0]), jax.tree.structure((0, 0)),
                            [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
  assert jax.tree.broadcast([1, 2], [[0, 0], (0,)]) == [[1, 1], (2,)]
  assert jax.tree.reduce_associative(lambda a, b: a + b, [1, 2, 3, 4, 5]) == 15


def test_treedef_methods_and_all_leaves():
  treedef = tu.tree_structure({"a": 1, "b": [2, None]})
  assert treedef.num_nodes == 5 and treedef.num_leaves == 2
  assert treedef.children() == [tu.tree_structure(1), tu.tree_structure([2, None])]
  assert treedef.node_data() == (dict, ("a", "b"))
  assert tu.all_leaves([1, np.ones(2)]) and not tu.all_leaves([[1], 2])
  assert tu.treedef_tuple([tu.tree_structure(1)] * 2) == tu.tree_structure((1, 2))


def test_structure_errors_name_the_key_path():
  with pytest.raises(ValueError, match=r"different lengths of list at key path\n    tree_map tree"):
    tu.tree_map(lambda a, b: a, [1, 2], [1, 2, 3])
  with pytest.raises(ValueError, match=r"different types at key path\n    tree_map tree\[0\]"):
    tu.tree_map(lambda a, b: a, [[1], 2], [(1,), 2])
  with pytest.raises(ValueError, match="different pytree metadata"):
    tu.tree_map(lambda a, b: a, {"a": 1}, {"b": 1})
  with pytest.raises(ValueError, match="Too few leaves"):
    tu.tree_structure((1, 2)).unflatten([1])


def test_defaultdict_and_ordereddict_roundtrip():
  d = collections.defaultdict(list, b=1, a=2)
  back = tu.tree_map(lambda x: x * 10, d)
  assert isinstance(back, collections.defaultdict) and back == {"a": 20, "b": 10}
  o = collections.OrderedDict(b=1, a=2)
  assert list(tu.tree_map(lambda x: x, o)) == ["b", "a"]
  assert tu.tree_leaves(o) == [1, 2]


def test_partial_is_a_pytree():
  p = tu.Partial(lambda a, b: a + b, np.float32(1))
  leaves = tu.tree_leaves(p)
  assert len(leaves) == 1
  q = tu.tree_map(lambda x: x * 3, p)
  assert q(1) == 4


def test_treedefs_pickle_with_registered_nodes():
  import pickle

  tree = {"p": Params(np.float32(1), np.float32(2), name="q"), "t": Point(1, [2, None]),
          "o": collections.OrderedDict(b=1, a=2), "d": collections.defaultdict(list, k=3),
          "pair": Pair(4, 5)}
  treedef = tu.tree_structure(tree)
  back = pickle.loads(pickle.dumps(treedef))
  assert back == treedef and hash(back) == hash(treedef)
  assert repr(back) == repr(treedef)
  rebuilt = back.unflatten(range(back.num_leaves))
  assert rebuilt["p"].name == "q" and isinstance(rebuilt["pair"], Pair)


def test_bad_custom_flatten_raises_type_error():
  class Bad:
    pass

  tu.register_pytree_node(Bad, lambda b: "not a pair", lambda aux, ch: Bad())
  with pytest.raises(TypeError, match="must return a pair"):
    tu.tree_leaves([Bad()])


def test_prefix_errors_name_the_mismatching_key_path():
  import dataclasses
  from jax._src.tree_util import prefix_errors

  @jax.tree_util.register_dataclass
  @dataclasses.dataclass
  class Point:
    x: object
    y: object

  assert prefix_errors({"a": 0, "b": (1, 2)}, {"a": [1, 2], "b": (3, {"q": 4})}) == []
  (e,) = prefix_errors(Point(1.0, [2.0]), Point(1.0, 2.0))
  with pytest.raises(ValueError, match=r"in_axes\.y"):
    raise e("in_axes")
  (e,) = prefix_errors((0, 1), (1, 2, 3))
  assert "different numbers of pytree children" in str(e("x"))
  (e,) = prefix_errors({"a": 0}, {"b": 1})
  assert "different pytree metadata" in str(e("x"))


def test_tree_transpose_counts_leaves_as_jax_does(backend):
  # A custom node whose children are the leaves of what it holds (as haiku's FlatMap):
  # the outer structure is not a prefix of the tree, but the leaf count matches.
  class Flat:
    def __init__(self, mapping):
      self.mapping = mapping

    def __eq__(self, other):
      return isinstance(other, Flat) and self.mapping == other.mapping

  jax.tree_util.register_pytree_node(
      Flat, lambda f: jax.tree.flatten(f.mapping),
      lambda treedef, leaves: Flat(jax.tree.unflatten(treedef, leaves)))
  outer = jax.tree.structure(Flat({"a": 1, "b": 2}))
  inner = jax.tree.structure([1, 2])
  assert jax.tree.transpose(outer, inner, Flat({"a": [3, 4], "b": [5, 6]})) == [
      Flat({"a": 3, "b": 5}), Flat({"a": 4, "b": 6})]
  assert jax.tree.transpose(jax.tree.structure([1, 2]), None, [(1, 2), (3, 4)]) == (
      [1, 3], [2, 4])
  assert jax.tree.transpose(jax.tree.structure([1, 2]), jax.tree.structure([]), [[], []]) == []
  with pytest.raises(TypeError) as e:
    jax.tree.transpose(jax.tree.structure([1, 2]), jax.tree.structure((1, 2)), [(1, 2), (3,)])
  assert str(e.value) == "Mismatch\nPyTreeDef([(*, *), (*,)])\n != \nPyTreeDef([(*, *), (*, *)])"
