"""jax.experimental.pjit (pjit: a deprecated name of jax.jit in JAX 0.10.2) and
jax.interpreters.pxla (only deprecated and removed names remain)."""

import warnings

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax.experimental import pjit as pjit_module
from jax.interpreters import pxla
from jax.sharding import NamedSharding, PartitionSpec as P


def _pjit_without_warning():
  with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    return pjit_module.pjit


def test_pjit_warns_and_is_jit(backend):
  with pytest.warns(DeprecationWarning,
                    match=r"jax.experimental.pjit.pjit has been deprecated. Please use "
                          r"`jax.jit` instead."):
    pjit = pjit_module.pjit
  f = pjit(lambda x, n: x * n, static_argnums=1)
  np.testing.assert_allclose(f(jnp.arange(3.0), 2), [0.0, 2.0, 4.0])
  assert "mul" in str(jax.make_jaxpr(f, static_argnums=1)(jnp.arange(3.0), 2))
  g = jax.grad(lambda x: pjit(jnp.sin)(x))(0.5)
  np.testing.assert_allclose(g, np.cos(0.5), rtol=1e-6)
  np.testing.assert_allclose(jax.vmap(pjit(lambda x: x ** 2))(jnp.arange(3.0)), [0., 1., 4.])


def test_pjit_places_outputs_by_out_shardings(backend):
  pjit = _pjit_without_warning()
  mesh = jax.make_mesh((len(jax.devices()),), ("x",))
  sharding = NamedSharding(mesh, P("x"))
  n = len(jax.devices())
  out = pjit(lambda x: x + 1, out_shardings=sharding)(jnp.zeros(2 * n))
  assert out.sharding.is_equivalent_to(sharding, 1)
  np.testing.assert_allclose(out, np.ones(2 * n))


def test_pjit_bad_input_and_unknown_names(backend):
  pjit = _pjit_without_warning()
  with pytest.raises(TypeError, match="pjit expects a callable"):
    pjit(3)
  with pytest.raises(AttributeError, match="has no attribute 'nope'"):
    pjit_module.nope


def test_pxla_names_say_they_were_deprecated_or_removed():
  with pytest.raises(AttributeError, match="ShardingSpec was removed in JAX v0.10.0. Please "
                     "use `jax.shard_map` instead of `jax.pmap`."):
    pxla.ShardingSpec
  with pytest.raises(AttributeError, match="thread_resources is deprecated as of JAX v0.8.2"):
    pxla.thread_resources
  assert not hasattr(pxla, "global_result_handlers")  # libraries probe it with hasattr
  with pytest.raises(AttributeError, match="has no attribute 'nope'"):
    pxla.nope
  assert not hasattr(jax, "pxla")  # as JAX 0.10.2 (chex probes jax.pxla)
