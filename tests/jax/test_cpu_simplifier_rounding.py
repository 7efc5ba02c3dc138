"""Scalar code under jit rounds as under JAX 0.10.2's CPU backend where its simplifier
rewrites the arithmetic: a rank-0 ((a - b) / 5)^2 is (a - b)^2 * 0.04 (the two
constant factors multiply once), (3a)(7b) is (ab) * 21, exp(a) exp(b) is
exp(a + b), exp(a) / exp(b) is exp(a - b), a / exp(b) is a * exp(-b); and the
derivative of a / y in y is -a * y^-2 (JAX's rule), not -a / y^2.

How the values were made: each function was run under `jax.jit`, one rank-0
float32 pair at a time, with jax==0.10.2 / jaxlib==0.10.2 from the package index
on x86-64 Linux, and the bits of the results were copied here. Each rewrite moves
about a third of these results by one ulp, which a numpyro NUTS chain amplifies.
"""

import numpy as np
import pytest

import jax
import jax.numpy as jnp

A = '3d8c0db7 402e0c35 401cc3a9 bf82a37c bf188f76 bf8702a7 3f91d996 bde5a3d3 3fbf33e5 c06c7524 404884ac be457e39'
B = '3fae2d48 be8bd80c bf421935 3f6d1cc6 3fd31352 becf63fe be9c73fb 3faf89f2 bfdecea5 c041d752 3f4a3b10 bfabaa34'

RESULTS = {
    "square_of_quotient": "3d88d323 3eb76a4b 3ed2b7bb 3e1b3ec2 3e4e6ee6 3c8a521c 3dab0e95 3db44b2b 3ed6415b 3c914b0f 3e60e1bb 3d5806a9",
    "scaled_product": "3ffa227f c1799338 c21c005e c19ed00b c1a518cf 410f8dd7 c0e9fb01 c04eabd5 c25a6a44 436afeb2 424fe71f 40add12f",
    "exp_product": "40859a8f 4138bd86 40ada3b2 3f68f0cd 40377490 3e6dd9cf 401357d1 40617644 3f47fd70 3a9d9a9d 424a384c 3e5cd927",
    "exp_quotient": "3e8c9ad5 419f8108 41c5c3e8 3e12268c 3dd8f26d 3f05aec3 4087be20 3e6847cf 41cb23c5 3f0389b2 41269f03 4049c642",
    "over_exp": "3c8fad1f 4064b62d 40a74d01 becef4e1 bdea9f30 bfca6ef7 3fc5fa1b bce91625 410842e1 c298bfe6 3fb603d3 bf3cc5ac",
    "div_grad_y": "bd17460a c211d088 c088596b 3f9847b0 3e60697d 40cdb766 c1433fab 3d7433f3 befc6a4c 3ece35f8 c0a0a922 3ddb9a75",
}

FUNCTIONS = {
    "square_of_quotient": lambda a, b: ((a - b) / 5.0) ** 2,
    "scaled_product": lambda a, b: (a * 3.0) * (b * 7.0),
    "exp_product": lambda a, b: jnp.exp(a) * jnp.exp(b),
    "exp_quotient": lambda a, b: jnp.exp(a) / jnp.exp(b),
    "over_exp": lambda a, b: a / jnp.exp(b),
    "div_grad_y": lambda a, b: jax.grad(lambda y: a / y)(b),
}


def _floats(hex_words: str) -> np.ndarray:
  return np.array([int(w, 16) for w in hex_words.split()], np.uint32).view(np.float32)


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_rank0_results_match_jax_cpu(name):
  a, b, want = _floats(A), _floats(B), _floats(RESULTS[name])
  f = jax.jit(FUNCTIONS[name])
  got = np.array([np.asarray(f(a[i], b[i])) for i in range(len(a))], np.float32)
  np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32), err_msg=name)


def test_adding_zero_keeps_a_negative_zero():
  # x + 0 is x itself there (the simplifier drops it), so -0.0 stays -0.0.
  got = jax.jit(lambda x: x + 0.0)(np.float32(-0.0))
  assert np.signbit(np.asarray(got))


def test_div_jvp_in_y_is_minus_x_times_y_to_the_minus_2():
  _, tangent = jax.jvp(lambda y: 3.0 / y, (np.float32(2.0),), (np.float32(1.0),))
  assert float(tangent) == -0.75
  jaxpr = jax.make_jaxpr(lambda y: jax.jvp(lambda v: 3.0 / v, (y,), (1.0,))[1])(2.0)
  assert "integer_pow" in str(jaxpr)


def test_a_product_with_a_converted_boolean_selects():
  # JAX 0.10.2 (jax.numpy's functions are jitted whole, so eager calls compile the
  # conversion with the product): inf * False is 0, NaN * False is 0.
  b = jnp.array([False, False, True])
  v = jnp.array([jnp.inf, jnp.nan, 2.0], jnp.float32)
  np.testing.assert_array_equal(v * b, [0.0, 0.0, 2.0])
  np.testing.assert_array_equal(b * v, [0.0, 0.0, 2.0])
  np.testing.assert_array_equal(jnp.inf * jnp.array([False, True]), [0.0, np.inf])
  np.testing.assert_array_equal(jax.jit(lambda x, p: jax.lax.mul(x, p.astype(x.dtype)))(v, b),
                                [0.0, 0.0, 2.0])
  c = jax.jit(lambda x, p: x * p.astype(jnp.complex64))(v.astype(jnp.complex64), b)
  np.testing.assert_array_equal(c, [0, 0, 2])
  # numpyro's binary_cross_entropy_with_logits at x = -inf, y = 0.
  assert float(jnp.inf * jnp.logical_xor(0, jnp.float32(-jnp.inf) > 0)) == 0.0


def test_products_the_rewrite_leaves_alone_as_jax_does():
  # Real JAX: a broadcast boolean, an integer factor, a bf16 product, and ops run one
  # at a time (lax.mul on an already converted array) still give NaN.
  v = jnp.array([jnp.inf, jnp.nan, 2.0], jnp.float32)
  b = jnp.array([False, False, True])
  assert np.isnan(np.asarray(v * jnp.array(False))[:2]).all()
  spread = jax.jit(lambda x, s: x * jax.lax.broadcast_in_dim(s, (3,), ()).astype(x.dtype))
  assert np.isnan(np.asarray(spread(v, jnp.array(False)))[:2]).all()
  i8 = jax.jit(lambda x, i: x * i.astype(jnp.float32))(v, jnp.array([0, 0, 1], jnp.int8))
  assert np.isnan(np.asarray(i8)[:2]).all()
  h = jax.jit(lambda x, p: x * p.astype(jnp.bfloat16))(v.astype(jnp.bfloat16), b)
  assert np.isnan(np.asarray(h, np.float32)[:2]).all()
  assert np.isnan(np.asarray(jax.lax.mul(v, b.astype(v.dtype)))[:2]).all()
