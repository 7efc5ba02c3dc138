"""jax.nn: neural-network functions."""

from jax._src.nn.functions import relu as relu
from jax._src.nn.functions import sigmoid as sigmoid
from jax._src.nn.functions import log_sigmoid as log_sigmoid
from jax._src.nn.functions import softplus as softplus
from jax._src.nn.functions import silu as silu
from jax._src.nn.functions import swish as swish
from jax._src.nn.functions import gelu as gelu
from jax._src.nn.functions import logsumexp as logsumexp
from jax._src.nn.functions import log_softmax as log_softmax
from jax._src.nn.functions import softmax as softmax
from jax._src.nn.functions import one_hot as one_hot
from jax._src.nn.functions import standardize as standardize
