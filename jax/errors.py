"""User-facing exception classes."""

from jax._src.errors import ConcretizationTypeError as ConcretizationTypeError
from jax._src.errors import TracerBoolConversionError as TracerBoolConversionError
from jax._src.errors import TracerIntegerConversionError as TracerIntegerConversionError
from jax._src.errors import TracerArrayConversionError as TracerArrayConversionError
from jax._src.errors import UnexpectedTracerError as UnexpectedTracerError
from jax._src.errors import JAXTypeError as JAXTypeError
from jax._src.errors import JAXIndexError as JAXIndexError
from jax._src.errors import NonConcreteBooleanIndexError as NonConcreteBooleanIndexError
