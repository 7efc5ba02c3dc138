"""The types of mutable references (`AbstractRef`), by JAX's module path."""

from jax._src.ref import AbstractRef as AbstractRef
from jax._src.ref import Ref as Ref
