"""User-facing exception classes."""

from jax._src.errors import ConcretizationTypeError as ConcretizationTypeError
from jax._src.errors import TracerBoolConversionError as TracerBoolConversionError
from jax._src.errors import TracerIntegerConversionError as TracerIntegerConversionError
from jax._src.errors import TracerArrayConversionError as TracerArrayConversionError
from jax._src.errors import UnexpectedTracerError as UnexpectedTracerError
from jax._src.errors import JAXTypeError as JAXTypeError
from jax._src.errors import JAXIndexError as JAXIndexError
from jax._src.errors import NonConcreteBooleanIndexError as NonConcreteBooleanIndexError
from jax._src.errors import InconclusiveDimensionOperation as InconclusiveDimensionOperation
from jax._src.errors import JaxprTypeError as JaxprTypeError
from jax._src.errors import KeyReuseError as KeyReuseError
from jax._src.lib import _jax as _jaxlib_ext

# Errors raised by the runtime (compilation or execution failures) are jaxlib's.
JaxRuntimeError = _jaxlib_ext.XlaRuntimeError
del _jaxlib_ext
