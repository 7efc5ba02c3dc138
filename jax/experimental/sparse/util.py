"""Errors, warnings and the base class of the sparse formats."""

from jax._src.sparse.util import CuSparseEfficiencyWarning as CuSparseEfficiencyWarning
from jax._src.sparse.util import JAXSparse as JAXSparse
from jax._src.sparse.util import SparseEfficiencyError as SparseEfficiencyError
from jax._src.sparse.util import SparseEfficiencyWarning as SparseEfficiencyWarning
