"""jax.experimental.hijax: hi primitives run their impl eagerly and refuse to be
staged; hi types register their abstract types; aval methods and properties."""

import pytest

import jax
import jax.numpy as jnp
from jax._src import hijax as hijax_impl
from jax.experimental import hijax as hjx


class Box:
  def __init__(self, value):
    self.value = value


class AbstractBox(hjx.MutableHiType):
  def __init__(self, inner):
    self.inner = inner

  def peek(self):
    return f"box of {self.inner}"

  described = hjx.aval_property(fget=lambda self: f"a box ({self.inner})")
  label = hjx.aval_method(peek)


class NewBox(hjx.HiPrimitive):
  def impl(self, value):
    return Box(value)

  def abstract_eval(self, aval):
    return AbstractBox(aval), set()


class GetBox(hjx.HiPrimitive):
  multiple_results = True

  def impl(self, box):
    return [box.value]


new_box_p = NewBox("new_box")
get_box_p = GetBox("get_box")


def test_hi_primitives_run_eagerly(backend):
  box = new_box_p.bind(jnp.float32(2.5))
  assert isinstance(box, Box)
  assert get_box_p.multiple_results and not new_box_p.multiple_results
  assert float(get_box_p.bind(box)[0]) == 2.5


def test_hi_primitives_refuse_transformations(backend):
  with pytest.raises(NotImplementedError, match="new_box.*eagerly only"):
    jax.jit(lambda x: new_box_p.bind(x))(1.0)


def test_registered_hi_type_has_an_abstract_type():
  hjx.register_hitype(Box, lambda b: AbstractBox(type(b.value).__name__))
  aval = hijax_impl.typeof_hi(Box(1.0))
  assert isinstance(aval, AbstractBox) and aval.mutable and aval.inner == "float"
  assert aval.label() == "box of float" and aval.described == "a box (float)"
  with pytest.raises(TypeError, match="not a registered hi type"):
    hijax_impl.typeof_hi(object())
  with pytest.raises(TypeError, match="callable"):
    hjx.register_hitype(Box, None)


def test_effect_types_allowed_in_control_flow():
  class MyEffect:
    pass
  hjx.control_flow_allowed_effects.add_type(MyEffect)
  assert hjx.control_flow_allowed_effects.contains(MyEffect())
  assert not hjx.control_flow_allowed_effects.contains(object())


def test_state_types_name_the_reference_type(backend):
  from jax._src.state.types import AbstractRef
  ref = jax.new_ref(jnp.zeros(3))
  assert isinstance(ref.aval, AbstractRef) and ref.aval.shape == (3,)
