"""DLPack interchange (``jax.dlpack.from_dlpack``)."""

from jax._src.dlpack import SUPPORTED_DTYPES as SUPPORTED_DTYPES
from jax._src.dlpack import from_dlpack as from_dlpack
from jax._src.dlpack import is_supported_dtype as is_supported_dtype
