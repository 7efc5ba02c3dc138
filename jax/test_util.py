"""Derivative checks against finite differences (`jax.test_util`)."""

from jax._src.test_util_public import check_grads as check_grads
from jax._src.test_util_public import check_jvp as check_jvp
from jax._src.test_util_public import check_vjp as check_vjp
