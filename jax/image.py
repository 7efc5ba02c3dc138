"""jax.image: image resampling."""

from jax._src.image import ResizeMethod as ResizeMethod
from jax._src.image import resize as resize
from jax._src.image import scale_and_translate as scale_and_translate
