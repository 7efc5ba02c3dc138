"""Executables to bytes and back: jax.experimental.serialize_executable, the
persistent compilation cache, and AOT calls with static arguments."""

import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax.experimental import serialize_executable
from jax.experimental.compilation_cache import compilation_cache as cc

pytestmark = pytest.mark.usefixtures("backend")


def _mlp(params, x):
  w1, b1, w2 = params
  h = jnp.tanh(x @ w1 + b1)
  return {"out": jnp.sort(h @ w2, axis=-1), "norm": jnp.sum(h * h)}


def _params():
  rng = np.random.RandomState(0)
  return (rng.randn(8, 16).astype(np.float32), rng.randn(16).astype(np.float32),
          rng.randn(16, 4).astype(np.float32)), rng.randn(5, 8).astype(np.float32)


def test_serialized_executable_runs_like_the_original():
  params, x = _params()
  compiled = jax.jit(_mlp).lower(params, x).compile()
  payload, in_tree, out_tree = serialize_executable.serialize(compiled)
  assert isinstance(payload, bytes)
  loaded = serialize_executable.deserialize_and_load(payload, in_tree, out_tree)
  want, got = compiled(params, x), loaded(params, x)
  assert set(got) == {"out", "norm"}
  np.testing.assert_array_equal(got["out"], want["out"])
  np.testing.assert_array_equal(got["norm"], want["norm"])
  assert loaded.out_info["out"].shape == (5, 4)
  with pytest.raises(TypeError, match="pytree"):
    loaded(params)


def test_serialized_executable_with_hoisted_constants_and_static_args():
  table = np.arange(12, dtype=np.float32).reshape(3, 4)
  f = jax.jit(lambda n, x: x * n + jnp.asarray(table), static_argnums=0)
  x = np.ones((3, 4), np.float32)
  compiled = f.lower(3, x).compile()
  # As in JAX, the compiled function takes only the non-static arguments.
  np.testing.assert_array_equal(compiled(x), x * 3 + table)
  loaded = serialize_executable.deserialize_and_load(*serialize_executable.serialize(compiled))
  np.testing.assert_array_equal(loaded(x), x * 3 + table)


def test_deserialize_refuses_garbage():
  with pytest.raises(ValueError, match="not a serialized jax executable"):
    serialize_executable.deserialize_and_load(b"\x00garbage", None, None)
  with pytest.raises(ValueError, match="not a serialized jax executable"):
    serialize_executable.deserialize_and_load(pickle.dumps({"format": "other"}), None, None)
  with pytest.raises(TypeError, match="compile"):
    serialize_executable.serialize(jax.jit(jnp.sin))


def test_plugin_refuses_corrupted_executable_bytes():
  from jax._src import xla_bridge
  client = xla_bridge.get_backend()
  compiled = jax.jit(jnp.cos).lower(np.ones(3, np.float32)).compile()
  data = bytearray(compiled.runtime_executable().serialize())
  data[len(data) // 2] ^= 0xFF
  with pytest.raises(Exception, match="corrupted"):
    client.deserialize_executable(bytes(data), client.devices()[:1])


# Damage behind a valid checksum: random bytes of the serialized executable are
# changed and the checksum (64-bit FNV-1a over everything before it) recomputed,
# so only the plugin's structural checks stand between the bytes and its loader.
# Each load must be refused with an error or succeed; the loaded code is not run
# (damaged instructions are code: see the README). Before those checks, about
# one load in ten crashed the process inside the JIT's linker.
_DAMAGE_SCRIPT = textwrap.dedent("""
    import random, struct, sys
    import numpy as np
    import jax, jax.numpy as jnp
    from jax._src import xla_bridge

    def fnv1a(data):
      h = 0xcbf29ce484222325
      for c in data:
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
      return h

    client = xla_bridge.get_backend()
    f = lambda x: jnp.tanh(x @ x.T) + jnp.sort(x, axis=-1).sum()
    data = jax.jit(f).lower(np.ones((4, 4), np.float32)).compile().runtime_executable().serialize()
    header = len(b"XLA CPU executable\\n") + 4
    rng = random.Random(int(sys.argv[1]))
    refused = loaded = 0
    for _ in range(int(sys.argv[2])):
      body = bytearray(data[:-8])
      for _ in range(rng.randint(1, 4)):
        body[rng.randrange(header, len(body))] = rng.randrange(256)
      damaged = bytes(body) + struct.pack("<Q", fnv1a(bytes(body)))
      try:
        client.deserialize_executable(damaged, client.devices()[:1])
        loaded += 1
      except Exception as e:
        assert "checksum" not in str(e), e
        refused += 1
    print("RESULT", refused, loaded)
""")


def test_damaged_executables_with_a_valid_checksum_never_crash_the_loader():
  proc = subprocess.run([sys.executable, "-c", _DAMAGE_SCRIPT, "1", "200"], capture_output=True,
                        text=True, timeout=600, cwd="/")  # the checkout's jax/ would shadow
  assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
  refused, loaded = map(int, proc.stdout.split("RESULT", 1)[1].split())
  assert refused + loaded == 200 and refused > 0


_CACHE_SCRIPT = textwrap.dedent("""
    import logging, sys
    import numpy as np
    import jax, jax.numpy as jnp
    logging.basicConfig(level=logging.DEBUG, format="%(message)s", stream=sys.stdout)
    logging.getLogger("jax._src.compilation_cache").setLevel(logging.DEBUG)
    jax.config.update("jax_compilation_cache_dir", sys.argv[1])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    @jax.jit
    def f(x):
      return jnp.sort(jnp.exp(x) * 2.0)[::-1]
    print("RESULT", f(np.arange(6, dtype=np.float32)).tolist())
""")


def _run_cached(cache_dir):
  env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
  proc = subprocess.run([sys.executable, "-c", _CACHE_SCRIPT, str(cache_dir)], env=env,
                        capture_output=True, text=True, cwd=str(cache_dir), timeout=300)
  assert proc.returncode == 0, proc.stderr
  return proc.stdout


def test_persistent_cache_is_used_by_a_second_process(tmp_path):
  cache = tmp_path / "cache"
  cache.mkdir()
  first = _run_cached(cache)
  assert "persistent compilation cache miss for jit_f" in first
  entries = [p for p in os.listdir(cache) if p.startswith("jit_f-")]
  assert len(entries) == 1, os.listdir(cache)
  second = _run_cached(cache)
  assert "persistent compilation cache hit for jit_f" in second
  want = np.sort(np.exp(np.arange(6, dtype=np.float32)) * 2.0)[::-1].tolist()
  for out in (first, second):
    got = eval(out.split("RESULT", 1)[1].strip().splitlines()[0])
    np.testing.assert_allclose(got, want, rtol=1e-6)
  # A damaged entry is recompiled and replaced, with a warning.
  path = cache / entries[0]
  path.write_bytes(path.read_bytes()[:100])
  third = _run_cached(cache)
  assert "RESULT" in third
  assert path.stat().st_size > 100


def test_cache_respects_min_compile_time(tmp_path):
  cc.set_cache_dir(tmp_path)
  try:
    assert cc.is_cache_used()
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1e9)
    jax.jit(lambda x: x - 3.5)(np.ones(7, np.float32))
    assert os.listdir(tmp_path) == []
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.jit(lambda x: x - 4.5)(np.ones(7, np.float32))
    assert len(os.listdir(tmp_path)) == 1
  finally:
    cc.reset_cache()
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
  assert not cc.is_cache_used()


def test_host_callbacks_are_never_cached(tmp_path):
  cc.set_cache_dir(tmp_path)
  jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
  try:
    def f(x):
      return jax.pure_callback(lambda v: np.asarray(v) * 2, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    np.testing.assert_array_equal(jax.jit(f)(np.ones(3, np.float32)), 2 * np.ones(3))
    assert os.listdir(tmp_path) == []
  finally:
    cc.reset_cache()
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
