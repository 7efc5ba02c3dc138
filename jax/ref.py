"""Mutable array references."""

from jax._src.ref import AbstractRef as AbstractRef
from jax._src.ref import Ref as Ref
from jax._src.ref import addupdate as addupdate
from jax._src.ref import empty_ref as empty_ref
from jax._src.ref import free_ref as free_ref
from jax._src.ref import freeze as freeze
from jax._src.ref import get as get
from jax._src.ref import new_ref as new_ref
from jax._src.ref import set as set  # noqa: A004
from jax._src.ref import swap as swap
