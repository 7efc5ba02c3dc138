"""Functions wrapped with composable transformations (`jax.extend.linear_util`)."""

from jax._src import linear_util as _lu
from jax._src.linear_util import StoreException as StoreException
from jax._src.linear_util import WrappedFun as WrappedFun
from jax._src.linear_util import cache as cache
from jax._src.linear_util import merge_linear_aux as merge_linear_aux
from jax._src.linear_util import wrap_init as wrap_init

# Used as decorators on generators/functions, as in `@lu.transformation`.
transformation = _lu.as_decorator(_lu.transformation)
transformation_with_aux = _lu.as_decorator(_lu.transformation_with_aux)
transformation2 = _lu.as_decorator(_lu.transformation2)
transformation_with_aux2 = _lu.as_decorator(_lu.transformation_with_aux2)
