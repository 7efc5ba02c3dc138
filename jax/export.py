"""Exporting jitted functions to serializable artifacts and calling them back."""

from jax._src.export import DisabledSafetyCheck as DisabledSafetyCheck
from jax._src.export import Exported as Exported
from jax._src.export import default_export_platform as default_export_platform
from jax._src.export import deserialize as deserialize
from jax._src.export import export as export
from jax._src.export import (
    maximum_supported_calling_convention_version as maximum_supported_calling_convention_version)
from jax._src.export import (
    minimum_supported_calling_convention_version as minimum_supported_calling_convention_version)
from jax._src.export import register_namedtuple_serialization as register_namedtuple_serialization
from jax._src.export import (
    register_pytree_node_serialization as register_pytree_node_serialization)
