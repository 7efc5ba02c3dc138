"""HloSharding: constructors, XLA's text form both ways, equality and queries."""

import pytest

pytestmark = pytest.mark.needs_wheels

xla_client = pytest.importorskip("jaxlib.xla_client")
HloSharding = xla_client.HloSharding

TEXTS = [
    "{replicated}",
    "{manual}",
    "{maximal device=0}",
    "{maximal device=3}",
    "{devices=[2,1]0,1}",
    "{devices=[2,2]0,2,1,3}",
    "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}",
    "{devices=[2,2]<=[4]}",
    "{devices=[2,2]<=[2,2]T(1,0)}",
    "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
    "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dims={manual}}",
    "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}",
    "{{replicated}, {maximal device=1}, {devices=[2]0,1}}",
]


@pytest.mark.parametrize("text", TEXTS)
def test_text_round_trip(text):
  s = HloSharding.from_string(text)
  assert s.to_string() == text and str(s) == text
  assert HloSharding.from_string(s.to_string()) == s
  assert hash(HloSharding.from_string(text)) == hash(s)


def test_constructors_print_xla_text():
  assert HloSharding.replicate().to_string() == "{replicated}"
  assert HloSharding.maximal(0).to_string() == "{maximal device=0}"
  assert HloSharding.tiled([2, 1], [0, 1]).to_string() == "{devices=[2,1]0,1}"
  assert (HloSharding.tiled([2, 1, 2], [0, 1, 2, 3], replicate_on_last_tile_dim=True)
          .to_string() == "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}")
  assert HloSharding.iota_tile([2, 2]).to_string() == "{devices=[2,2]<=[4]}"
  assert (HloSharding.iota_tile([4, 2], [2, 4], [1, 0]).to_string()
          == "{devices=[4,2]<=[2,4]T(1,0)}")
  # An identity transpose is not a transpose: XLA prints the compact form.
  assert HloSharding.iota_tile([2, 2], [2, 2], [0, 1]).to_string() == "{devices=[2,2]<=[4]}"


def test_iota_and_explicit_forms_are_equal():
  iota = HloSharding.iota_tile([2, 2], [2, 2], [1, 0])
  explicit = HloSharding.tiled([2, 2], [0, 2, 1, 3])
  assert iota == explicit and hash(iota) == hash(explicit)
  assert iota.tile_assignment_devices() == [0, 2, 1, 3]
  assert iota != HloSharding.iota_tile([2, 2])


def test_queries():
  r = HloSharding.replicate()
  assert r.is_replicated() and not r.is_tiled() and r.num_devices == 1
  assert r.tile_assignment_dimensions() == [1] and r.tile_assignment_devices() == [0]
  m = HloSharding.maximal(3)
  assert m.is_maximal() and not m.is_replicated() and m.tile_assignment_devices() == [3]
  t = HloSharding.from_string("{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}")
  assert t.is_tiled() and not t.is_replicated() and t.replicate_on_last_tile_dim()
  assert t.tile_assignment_dimensions() == [2, 1, 2]
  assert t.tile_assignment_devices() == [0, 1, 2, 3]
  assert t.num_devices == 4 and t.num_dimensions == 3 and t.tiled_data_rank() == 2
  assert t.subgroup_types() == ["replicated"]
  assert t.tile_index_of() == {0: (0, 0), 1: (0, 0), 2: (1, 0), 3: (1, 0)}
  assert HloSharding.manual().is_manual()
  tup = HloSharding.from_string("{{replicated}, {maximal device=0}}")
  assert tup.is_tuple() and tup.tuple_elements()[1] == HloSharding.maximal(0)


def test_normalization():
  # Replicating every tile over all devices is plain replication.
  assert HloSharding.tiled([1, 1, 4], [0, 1, 2, 3], replicate_on_last_tile_dim=True) == \
      HloSharding.replicate()
  # A replication group of one device is dropped.
  assert HloSharding.tiled([2, 1, 1], [0, 1], replicate_on_last_tile_dim=True) == \
      HloSharding.tiled([2, 1], [0, 1])


@pytest.mark.parametrize("text,message", [
    ("{devices=[2,2]0,1}", "holds 4 devices, got 2"),
    ("{devices=[2]0,0}", "distinct logical ids"),
    ("{foo}", "column 2: unknown sharding kind 'foo'"),
    ("{devices=[2]0,1", "expected '}'"),
    ("{maximal device=x}", "column 17: expected a non-negative integer"),
    ("{replicated} extra", "unexpected text after the sharding"),
    ("{devices=[2]0,1 last_tile_dims={bogus}}", "'replicated' or 'manual'"),
    ("{devices=[4]<=[3]}", "reshape_dims [3] hold 3 devices"),
    ("{devices=[2,2]<=[2,2]T(0,0)}", "not a permutation"),
    ("", "expected '{'"),
])
def test_parse_errors(text, message):
  with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
    HloSharding.from_string(text)


def test_bad_constructor_input():
  with pytest.raises(TypeError, match="expects a str"):
    HloSharding.from_string(b"{replicated}")
  with pytest.raises(ValueError, match="logical id >= 0"):
    HloSharding.maximal(-1)
  with pytest.raises(TypeError, match="sequence of ints"):
    HloSharding.tiled([2], [0.5, 1])
  with pytest.raises(ValueError, match="not both"):
    HloSharding.tiled([2, 2], [0, 1, 2, 3], replicate_on_last_tile_dim=True,
                      last_tile_dims=["manual"])
  with pytest.raises(TypeError, match="element 1 is a int"):
    HloSharding.tuple_sharding([HloSharding.replicate(), 3])
