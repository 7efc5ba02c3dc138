"""Array layouts (`jax.experimental.layout`)."""

from jax._src.layout import Format as Format
from jax._src.layout import Layout as Layout
