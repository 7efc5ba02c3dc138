"""Functions wrapped with composable transformations (`jax.extend.linear_util`)."""

from jax._src import linear_util as _lu
from jax._src.linear_util import StoreException as StoreException
from jax._src.linear_util import WrappedFun as WrappedFun
from jax._src.linear_util import cache as cache
from jax._src.linear_util import merge_linear_aux as merge_linear_aux
from jax._src.linear_util import wrap_init as wrap_init

# Curried as JAX's: `@lu.transformation` on a generator, or `lu.transformation(gen, fun, *static)`.
transformation = _lu.curry(_lu.transformation)
transformation_with_aux = _lu.curry(_lu.transformation_with_aux)
transformation2 = _lu.curry(_lu.transformation2)
transformation_with_aux2 = _lu.curry(_lu.transformation_with_aux2)
