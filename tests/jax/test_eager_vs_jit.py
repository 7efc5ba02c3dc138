"""Eager primitives compute exactly what `jit` computes, bit for bit.

Every elementwise primitive of the lax modules (found by scanning them, so a new one is
covered without editing this file) runs on edge values of every dtype it accepts: once
eagerly on host-backed operands (the constant-folding path), once eagerly on device
operands (the one-equation compile) and once under `jit`. Results are compared as raw
bits; NaNs compare equal when both sides are NaN.
"""

import warnings

import ml_dtypes
import numpy as np
import pytest

import jax
from jax import lax
from jax._src import core
from jax._src.core import ShapedArray
from jax._src.lax import clamp as lax_clamp
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import special as lax_special

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "bfloat16", "float16", "float32", "float64", "complex64", "complex128"]
_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, np.inf, -np.inf, np.nan,
           3e9, -3e9, 1e20, -1e20, 2.0**31, -2.0**31, 2.0**32, 2.0**63, -2.0**63, 2.0**64,
           127.9, 128.0, 255.5, 256.0, -129.0, 65504.0, 70000.0, 1e-3, 7.0, -7.0, 1e300,
           5e-324, 1e-40, 1e-310]

# Primitives that are not elementwise maps of their operands' values, or take operands
# this generic driver cannot make.
_NOT_ELEMENTWISE = {"select_n", "add_any"}

# Parameters of the parameterised elementwise primitives.
_PARAMS = {
    "round": [{"rounding_method": m} for m in (0, 1)],
    "integer_pow": [{"y": y} for y in (0, 1, 2, 3, 5, -1, -2)],
    "convert_element_type": [{"new_dtype": np.dtype(getattr(ml_dtypes, d, d)), "weak_type": False}
                             for d in DTYPES],
    "bitcast_convert_type": [{"new_dtype": np.dtype(getattr(ml_dtypes, d, d))}
                             for d in DTYPES if d != "bool"],
}


# Primitives whose lax function may compute on the host instead of binding.
_USER_FUNCTIONS = {"convert_element_type": lax_ew.convert_element_type}


def _dtype(name):
  return np.dtype(getattr(ml_dtypes, name, name))


def edge_values(name: str) -> np.ndarray:
  dt = _dtype(name)
  if dt == np.bool_:
    return np.array([False, True])
  if dt.kind in "iu":
    info = np.iinfo(dt)
    vals = [0, 1, -1, 2, -2, 3, 7, -7, 8, 15, 16, 31, 32, 63, 64, 100,
            info.min, info.max, info.min + 1, info.max - 1]
    bits = 8 * dt.itemsize
    return np.array([v % (1 << bits) for v in vals], np.uint64).astype(dt)
  if dt.kind == "c":
    parts = np.array([0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan, 3e9, 1e-40])
    re, im = np.meshgrid(parts, parts)
    out = np.empty(re.size, dt)
    out.real, out.imag = re.ravel(), im.ravel()
    return out
  info = ml_dtypes.finfo(dt)
  extra = [float(info.max), -float(info.max), float(info.tiny),
           float(info.smallest_subnormal), -float(info.smallest_subnormal)]
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    return np.array(_FLOATS + extra, np.float64).astype(dt)


def _primitives():
  prims = {}
  for module in (lax_ew, lax_special, lax_clamp):
    for value in vars(module).values():
      if isinstance(value, core.Primitive) and value.name not in _NOT_ELEMENTWISE:
        prims[value.name] = value
  return sorted(prims.values(), key=lambda p: p.name)


def _arity(prim, params) -> int | None:
  """How many same-shaped operands `prim` takes with `params` (None: none of 1..3)."""
  for n in (1, 2, 3):
    if any(_accepts(prim, n, _dtype(name), params) for name in DTYPES):
      return n
  return None


def _accepts(prim, n, dt, params) -> bool:
  if prim.name == "bitcast_convert_type" and dt.itemsize != params["new_dtype"].itemsize:
    return False  # width changes reshape the operand: not an elementwise map
  try:
    prim.abstract_eval(*[ShapedArray((2,), dt)] * n, **params)
    return True
  except TypeError:
    return False


def _operands(n: int, name: str) -> list[np.ndarray]:
  v = edge_values(name)
  if n == 1:
    return [v]
  if n == 2:  # every pair of edge values
    a, b = np.meshgrid(v, v)
    return [a.ravel(), b.ravel()]
  return [np.roll(v, 1), v, np.roll(v, -3)]  # clamp(lo, x, hi)


def _cases():
  cases = []
  for prim in _primitives():
    for params in _PARAMS.get(prim.name, [{}]):
      n = 1 if prim.name == "bitcast_convert_type" else _arity(prim, params)
      assert n is not None, f"{prim.name}: unknown parameters; add them to _PARAMS"
      for name in DTYPES:
        if _accepts(prim, n, _dtype(name), params):
          cases.append((prim, params, n, name))
  return cases


def _bits(x) -> np.ndarray:
  x = np.asarray(x)
  if x.dtype.kind == "c":
    return np.stack([_bits(x.real), _bits(x.imag)], -1)
  bits = x.view(f"u{x.dtype.itemsize}") if x.dtype.itemsize > 1 or x.dtype == np.bool_ else \
      x.view(np.uint8)
  if x.dtype.kind == "f" or x.dtype == _dtype("bfloat16"):
    nan = np.isnan(x.astype(np.float64))
    bits = np.where(nan, np.iinfo(bits.dtype).max, bits)  # NaN payloads are not compared
  return bits


def _key(case):
  prim, params, _, name = case
  extra = ",".join(f"{k}={getattr(v, 'name', v)}" for k, v in params.items())
  return f"{prim.name}[{extra}]-{name}"


def _run_all(cases):
  """(case, host eager, device eager, jit) for every case, x64 on."""
  results = []
  for case in cases:
    prim, params, n, name = case
    args = _operands(n, name)
    # Host-backed operands go through the user-facing function, where host shortcuts live.
    user_fn = _USER_FUNCTIONS.get(prim.name, lambda *xs, **kw: prim.bind(*xs, **kw))
    host = _attempt(lambda: user_fn(*[jax.numpy.array(a) for a in args], **params))
    device = _attempt(lambda: prim.bind(*[jax.device_put(a) for a in args], **params))
    jitted = _attempt(lambda: jax.jit(lambda *xs: prim.bind(*xs, **params))(*args))
    results.append((case, host, device, jitted))
  return results


def _attempt(fn):
  """The result, or the error's type name (the compiler lacks some complex ops; eager
  and jit must then fail alike)."""
  try:
    return np.asarray(fn())
  except Exception as e:  # noqa: BLE001 (compared below, by type)
    return type(e).__name__


@pytest.fixture(scope="module")
def results(backend):
  jax.config.update("jax_enable_x64", True)
  try:
    return _run_all(_cases())
  finally:
    jax.config.update("jax_enable_x64", False)


def test_every_elementwise_primitive_is_covered():
  """The module scan finds the primitives the issue names, and casts to every dtype."""
  names = {c[0].name for c in _cases()}
  for expected in ("add", "div", "rem", "max", "shift_left", "shift_right_logical",
                   "shift_right_arithmetic", "round", "nextafter", "clamp", "sign", "pow",
                   "integer_pow", "convert_element_type", "bitcast_convert_type", "exp",
                   "population_count", "complex", "real"):
    assert expected in names
  converts = {c[3] for c in _cases() if c[0].name == "convert_element_type"}
  assert converts == set(DTYPES)


def test_device_arrays_are_device_backed(backend):
  """The two eager variants really differ: device_put is on device, jnp.array on host."""
  assert not jax.device_put(np.zeros(3, np.float32)).is_host_backed
  assert jax.numpy.array(np.zeros(3, np.float32)).is_host_backed


def test_eager_equals_jit_bit_for_bit(results):
  """Eager results (host and device operands) equal jitted ones bit for bit."""
  failures = []
  for case, host, device, jitted in results:
    for label, eager in (("host", host), ("device", device)):
      if isinstance(eager, str) or isinstance(jitted, str):
        if eager != jitted:
          failures.append(f"{_key(case)} {label}: {eager} vs jit {jitted}")
        continue
      e, j = _bits(eager), _bits(jitted)
      same = e.shape == j.shape and np.asarray(eager).dtype == np.asarray(jitted).dtype and \
          np.array_equal(e, j)
      if not same:
        bad = np.flatnonzero((e != j).reshape(e.shape[0], -1).any(-1)) if e.shape == j.shape \
            else "shape/dtype"
        failures.append(f"{_key(case)} {label}: differs at {bad}")
  assert not failures, "\n".join(failures)


def test_python_scalar_conversions_match_jit(backend):
  """Python scalars are converted on the host; the compiled convert must agree."""
  for value in (3e9, -3e9, float("nan"), float("inf"), -1.5, 1e20, 300, -129, 2**40):
    for dt in (np.int8, np.int32, np.uint8, np.uint32):
      eager = lax.convert_element_type(value, dt)
      jitted = jax.jit(lambda x, dt=dt: lax.convert_element_type(x, dt))(
          np.asarray(value, np.float64 if isinstance(value, float) else np.int64))
      assert eager.tolist() == jitted.tolist(), (value, dt)


def test_constants_do_not_compile(backend, monkeypatch):
  """Casting constants follows XLA's rules on the host: nothing is compiled or run."""
  from jax._src import compilation_cache
  compiled = []
  real_compile = compilation_cache.compile_or_get_cached
  monkeypatch.setattr(compilation_cache, "compile_or_get_cached",
                      lambda *a, **k: compiled.append(a[1]) or real_compile(*a, **k))
  values = [
      jax.numpy.array([1.5, 2.5]),
      jax.numpy.array(np.array([np.nan, np.inf, 3e9]), dtype=jax.numpy.int32),
      jax.numpy.array(np.array([np.nan, -1.5]), dtype=jax.numpy.uint8),
      lax.convert_element_type(3e9, np.int32),
      lax.convert_element_type(np.array([1 + 2j]), np.bool_),
      jax.numpy.arange(0, 1, 0.1, dtype=jax.numpy.float16),
  ]
  assert all(v.is_host_backed for v in values)
  assert values[1].tolist() == [0, 2147483647, 2147483647]
  assert values[2].tolist() == [0, 0]
  assert compiled == []


@pytest.mark.parametrize("target", ["int32", "uint8", "int8", "bool", "float16", "bfloat16",
                                    "float32", "complex64"])
def test_numpy_operands_without_x64_match_jit(backend, target):
  """A float64 numpy operand is first narrowed to float32, as a jit argument is."""
  value = np.array([16777217.0, 2.0**31 - 1, -1.5, np.nan, 1e-40, 65519.0, 3e38, 1e300])
  dt = _dtype(target)
  eager = lax.convert_element_type(value, dt)
  with np.errstate(over="ignore"):  # 1e300 becomes inf in float32, as intended
    jitted = jax.jit(lambda x: lax.convert_element_type(x, dt))(value)
  np.testing.assert_array_equal(_bits(eager), _bits(jitted))


def test_host_casts_without_x64_match_jit(backend):
  """With 64-bit types off, host casts between the remaining types equal jitted ones."""
  names = [n for n in DTYPES if not n.endswith("64") or n == "complex64"]
  failures = []
  for src in names:
    value = edge_values(src)
    for dst in names:
      dt = _dtype(dst)
      host = lax_ew.convert_element_type(jax.numpy.array(value), dt)
      jitted = jax.jit(lambda x, dt=dt: lax_ew.convert_element_type(x, dt))(value)
      if not np.array_equal(_bits(host), _bits(jitted)):
        failures.append(f"{src} -> {dst}")
  assert not failures, failures
