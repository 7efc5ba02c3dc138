"""Sparse arrays (BCOO, BCSR, COO, CSR, CSC), their operations, and `sparsify`."""

from jax.experimental.sparse import ad as ad
from jax.experimental.sparse import api as api
from jax.experimental.sparse import bcoo as bcoo
from jax.experimental.sparse import bcsr as bcsr
from jax.experimental.sparse import coo as coo
from jax.experimental.sparse import csr as csr
from jax.experimental.sparse import linalg as linalg
from jax.experimental.sparse import random as random
from jax.experimental.sparse import transform as transform
from jax.experimental.sparse import util as util
from jax.experimental.sparse.ad import grad as grad
from jax.experimental.sparse.ad import jacfwd as jacfwd
from jax.experimental.sparse.ad import jacobian as jacobian
from jax.experimental.sparse.ad import jacrev as jacrev
from jax.experimental.sparse.ad import value_and_grad as value_and_grad
from jax.experimental.sparse.api import empty as empty
from jax.experimental.sparse.api import eye as eye
from jax.experimental.sparse.api import todense as todense
from jax.experimental.sparse.api import todense_p as todense_p
from jax.experimental.sparse.bcoo import *  # noqa: F401,F403
from jax.experimental.sparse.bcsr import *  # noqa: F401,F403
from jax.experimental.sparse.coo import *  # noqa: F401,F403
from jax.experimental.sparse.csr import *  # noqa: F401,F403
from jax.experimental.sparse.random import random_bcoo as random_bcoo
from jax.experimental.sparse.transform import SparseTracer as SparseTracer
from jax.experimental.sparse.transform import sparsify as sparsify
from jax.experimental.sparse.util import CuSparseEfficiencyWarning as CuSparseEfficiencyWarning
from jax.experimental.sparse.util import JAXSparse as JAXSparse
from jax.experimental.sparse.util import SparseEfficiencyError as SparseEfficiencyError
from jax.experimental.sparse.util import SparseEfficiencyWarning as SparseEfficiencyWarning
