"""jax_threefry_partitionable=False: the threefry counter stream of JAX before 0.5.

Code written for older JAX (distrax's tests among it) sets the option to keep its random
draws. Then `split` and `random_bits` hash the flat uint32 stream 0, 1, 2, ... (a 0
after it when its length is odd), its first half paired with its second; `fold_in` is
unchanged. Every value below was printed by jax==0.10.2 / jaxlib==0.10.2 from the
package index (CPU), with the option off.
"""

import numpy as np
import pytest

import jax
import jax.numpy as jnp

pytestmark = pytest.mark.usefixtures("backend")

RECORDED = {
    "split2": [[2465931498, 3679230171], [255383827, 267815257]],
    "split_2x3": [[[2768684296, 515161807], [1303553849, 4184444755], [416959680, 1163211924]], [[3055579793, 2323374536], [871308580, 1523113029], [1252189920, 1179259758]]],
    "uniform_3x5": [[0.23671817779541016, 0.41735875606536865, 0.005064487457275391, 0.8493639230728149, 0.08022212982177734], [0.9173359870910645, 0.20055174827575684, 0.6183092594146729, 0.5565098524093628, 0.03893566131591797], [0.04691731929779053, 0.6232017278671265, 0.722834587097168, 0.7028237581253052, 0.18053948879241943]],
    "normal_7": [-0.475055992603302, 1.0589066743850708, 0.9018586874008179, 1.6344530582427979, -1.3541821241378784, -1.6734178066253662, 1.0711491107940674],
    "bits8_9": [234, 32, 251, 146, 111, 248, 163, 25, 19],
    "bits16_5": [8426, 37627, 63599, 6563, 55571],
    "randint": [27, 33, 39, 29, 39, 6],
    "perm": [9, 0, 2, 6, 1, 4, 5, 8, 3, 7],
    "choice": [5, 2, 4, 14],
    "gamma": [0.06380411237478256, 2.970080852508545, 11.426921844482422],
    "bern": [False, False, True, True, False, True, True, True],
    "vmap_split": [[[3754883976, 518794995], [2307307231, 1768497676], [2692899483, 2533649164]], [[1245536116, 3554031723], [2395711293, 1211085833], [3735526216, 3692299482]]],
    "jit_normal": [0.6122652292251587, 1.1225882768630981, -0.8544133901596069, -0.8127325177192688, -0.890404999256134],
    "typed_key_data": [[2939540675, 3006210766], [3038296040, 3076691462], [279368646, 2516963019]],
    "bits_empty": [],
    "bits64_3": [13462782411356743825, 16033796027023006562, 16091099645456652183],
    "uniform64": [0.7298188969046309, 0.8691938242843895, 0.8723002596642415],
}


@pytest.fixture
def legacy():
  with jax.threefry_partitionable(False):
    yield


def _draws():
  k = jax.random.PRNGKey(42)
  out = {
      "split2": jax.random.split(k),
      "split_2x3": jax.random.split(k, (2, 3)),
      "uniform_3x5": jax.random.uniform(k, (3, 5)),
      "normal_7": jax.random.normal(jax.random.key(3), (7,)),
      "bits8_9": jax.random.bits(k, (9,), dtype=jnp.uint8),
      "bits16_5": jax.random.bits(k, (5,), dtype=jnp.uint16),
      "randint": jax.random.randint(k, (6,), -5, 50),
      "perm": jax.random.permutation(k, 10),
      "choice": jax.random.choice(k, 20, (4,), replace=False),
      "gamma": jax.random.gamma(k, jnp.array([0.5, 2.0, 7.0])),
      "bern": jax.random.bernoulli(k, 0.3, (8,)),
      "vmap_split": jax.vmap(lambda kk: jax.random.split(kk, 3))(jax.random.split(k, 2)),
      "jit_normal": jax.jit(lambda kk: jax.random.normal(kk, (5,)))(k),
      "typed_key_data": jax.random.key_data(jax.random.split(jax.random.key(5), 3)),
      "bits_empty": jax.random.bits(k, (0,)),
  }
  with jax.enable_x64():
    out["bits64_3"] = jax.random.bits(k, (3,), dtype=jnp.uint64)
    out["uniform64"] = jax.random.uniform(k, (3,), dtype=jnp.float64)
  return out


def test_draws_equal_jax_with_the_option_off(legacy):
  for name, value in _draws().items():
    want = np.array(RECORDED[name], dtype=np.asarray(value).dtype)
    np.testing.assert_array_equal(np.asarray(value), want, err_msg=name)


def test_option_is_part_of_the_trace_cache():
  f = jax.jit(lambda k: jax.random.uniform(k, (3,)))
  k = jax.random.PRNGKey(42)
  on = [0.48870956897735596, 0.6797971725463867, 0.6162714958190918]
  off = [0.5741443634033203, 0.1001582145690918, 0.059461116790771484]
  np.testing.assert_array_equal(np.asarray(f(k)), np.float32(on))
  with jax.threefry_partitionable(False):
    np.testing.assert_array_equal(np.asarray(f(k)), np.float32(off))
  np.testing.assert_array_equal(np.asarray(f(k)), np.float32(on))  # the first trace again


def test_fold_in_is_the_same_either_way():
  k = jax.random.PRNGKey(1)
  on = np.asarray(jax.random.fold_in(k, 7))
  with jax.threefry_partitionable(False):
    np.testing.assert_array_equal(np.asarray(jax.random.fold_in(k, 7)), on)
  np.testing.assert_array_equal(on, [954670714, 4016809582])
