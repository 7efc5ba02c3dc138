import collections

import pytest

from jax import tree_util as tu

Point = collections.namedtuple("Point", "x y")


class Box:
  def __init__(self, a, b):
    self.a, self.b = a, b


tu.register_pytree_node(Box, lambda b: ((b.a, b.b), "box"), lambda aux, ch: Box(*ch))


@pytest.mark.parametrize("tree", [
    1, (1, 2), [1, (2, 3)], {"b": 1, "a": [2, None]}, Point(1, (2, 3)), None, (), {"x": {}},
])
def test_roundtrip(tree):
  leaves, treedef = tu.tree_flatten(tree)
  assert tu.tree_unflatten(treedef, leaves) == tree


def test_dict_order_and_none():
  leaves, treedef = tu.tree_flatten({"b": 1, "a": 2, "c": None})
  assert leaves == [2, 1]
  assert treedef.num_leaves == 2


def test_treedef_hash_eq():
  assert tu.tree_structure((1, [2])) == tu.tree_structure((5, [6]))
  assert hash(tu.tree_structure((1, [2]))) == hash(tu.tree_structure((5, [6])))
  assert tu.tree_structure((1, [2])) != tu.tree_structure((1, (2,)))


def test_custom_node_and_map():
  out = tu.tree_map(lambda x, y: x + y, Box(1, [2]), Box(10, [20]))
  assert (out.a, out.b) == (11, [22])
  assert tu.tree_leaves(Point(Box(1, 2), 3)) == [1, 2, 3]


def test_structure_mismatch():
  with pytest.raises(ValueError):
    tu.tree_map(lambda x, y: x, (1, 2), [1, 2])
  with pytest.raises(ValueError):
    tu.tree_structure((1, 2)).unflatten([1])
