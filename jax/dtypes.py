"""dtype helpers: promotion, canonicalization, and jax's extra dtypes (`jax.dtypes`)."""

from jax._src.dtypes import bfloat16 as bfloat16
from jax._src.dtypes import default_float_dtype as default_float_dtype
from jax._src.dtypes import dtype as dtype
from jax._src.dtypes import is_weakly_typed as is_weakly_typed
from jax._src.dtypes_public import TypePromotionError as TypePromotionError
from jax._src.dtypes_public import canonicalize_dtype as canonicalize_dtype
from jax._src.dtypes_public import extended as extended
from jax._src.dtypes_public import finfo as finfo
from jax._src.dtypes_public import float0 as float0
from jax._src.dtypes_public import iinfo as iinfo
from jax._src.dtypes_public import issubdtype as issubdtype
from jax._src.dtypes_public import itemsize_bits as itemsize_bits
from jax._src.dtypes_public import prng_key as prng_key
from jax._src.dtypes_public import result_type as result_type
from jax._src.dtypes_public import scalar_type_of as scalar_type_of
