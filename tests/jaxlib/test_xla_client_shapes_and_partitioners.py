"""xla_client: Shape.array_shape with a PrimitiveType (and layouts), CustomCallTargetTraits,
register_custom_call_partitioner."""

import numpy as np
import pytest

pytestmark = pytest.mark.needs_wheels

xla_client = pytest.importorskip("jaxlib.xla_client")


def test_array_shape_takes_a_primitive_type_or_a_dtype():
  a = xla_client.Shape.array_shape(xla_client.PrimitiveType.F32, (2, 3))
  b = xla_client.Shape.array_shape(np.dtype(np.float32), (2, 3))
  assert a == b and a.numpy_dtype() == np.float32 and a.dimensions() == (2, 3)
  assert a.element_type() == xla_client.PrimitiveType.F32
  s = xla_client.Shape.array_shape(xla_client.PrimitiveType.S8, (4,))
  assert s.numpy_dtype() == np.int8 and s.rank() == 1
  with pytest.raises(TypeError, match="TOKEN"):
    xla_client.Shape.array_shape(xla_client.PrimitiveType.TOKEN, ())


def test_layouts():
  assert xla_client.Shape.array_shape(np.float32, (2, 3, 4)).minor_to_major() == (2, 1, 0)
  col = xla_client.Shape.array_shape(np.float32, (2, 3), (0, 1))
  assert col.minor_to_major() == (0, 1)
  with pytest.raises(ValueError, match="minor-to-major"):
    xla_client.Shape.array_shape(np.float32, (2, 3), (0, 0))


def test_custom_call_target_traits():
  traits = xla_client.CustomCallTargetTraits
  assert traits.DEFAULT == 0 and traits.COMMAND_BUFFER_COMPATIBLE == 1
  assert int(traits.DEFAULT | traits.COMMAND_BUFFER_COMPATIBLE) == 1


def test_register_custom_call_partitioner():
  cb = lambda *a: None
  xla_client.register_custom_call_partitioner("my_partitioned_op", cb, cb, cb,
                                              can_side_effecting_have_replicated_sharding=True)
  got = xla_client.custom_call_partitioners()["my_partitioned_op"]
  assert got["partition"] is cb and got["can_side_effecting_have_replicated_sharding"]
  with pytest.raises(ValueError, match="already registered"):
    xla_client.register_custom_call_partitioner("my_partitioned_op", cb, cb, cb)
  with pytest.raises(TypeError, match="callable"):
    xla_client.register_custom_call_partitioner("other_op", cb, 3, cb)
  with pytest.raises(TypeError, match="non-empty"):
    xla_client.register_custom_call_partitioner("", cb, cb, cb)
