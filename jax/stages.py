"""The stages of a jitted function: traced, lowered, compiled (`jax.stages`).

`jax.jit(f)` is a `Wrapped`; `.trace(*args)` gives a `Traced`, `.lower(...)` a
`Lowered` and `.compile()` a `Compiled`, each able to run or inspect the program.
"""

from jax._src.api import ArgInfo as ArgInfo
from jax._src.api import Compiled as Compiled
from jax._src.api import Wrapped as Wrapped
from jax._src.api import Lowered as Lowered
from jax._src.api import Traced as Traced
