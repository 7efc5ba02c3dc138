"""The annotation types behind `jax.typing` (also usable in `isinstance`)."""

from __future__ import annotations

from typing import Any, Union

import numpy as np

from jax._src.array import Array
from jax._src.core import Tracer

# A Union of classes, so `isinstance(x, ArrayLike)` works as well as annotations.
ArrayLike = Union[Array, Tracer, np.ndarray, np.bool_, np.number, bool, int, float, complex]

# Anything np.dtype() accepts that names a dtype: a dtype, a scalar type, or its name.
DTypeLike = Union[str, type, np.dtype, Any]

Shape = tuple[int, ...]
