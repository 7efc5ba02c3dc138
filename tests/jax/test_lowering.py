"""HLO text properties, checked against the spelling of the conformance corpus."""

import re

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax._src.lowering import hlo

f32 = lambda *s: np.ones(s, np.float32)


def verify_hlo(text: str) -> None:
  """Names unique, defined before use, one ROOT per computation, ENTRY last."""
  assert text.startswith("HloModule ")
  comps = re.findall(r"^(ENTRY )?(\S+) \{\n(.*?)^\}", text, re.S | re.M)
  assert comps and comps[-1][0] == "ENTRY "
  names = set()
  for _, _, body in comps:
    defined = set()
    roots = 0
    for line in body.strip().splitlines():
      m = re.match(r"\s*(ROOT )?(\S+) = (\S+|\(.*?\)) ([\w-]+)\((.*?)\)", line)
      assert m, line
      roots += bool(m.group(1))
      name = m.group(2)
      assert name not in names, f"duplicate {name}"
      names.add(name)
      if m.group(4) not in ("parameter", "constant", "iota"):
        for operand in filter(None, (o.strip() for o in m.group(5).split(","))):
          assert operand in defined, f"{operand} used before definition in {line}"
      defined.add(name)
    assert roots == 1


def lower(f, *args, **kw):
  text = jax.jit(f, **kw).lower(*args).as_text()
  verify_hlo(text)
  return text


def test_add_broadcast_like_jax():
  text = lower(lambda a, b: a + b, f32(3, 1), f32(1, 4))
  assert "entry_computation_layout={(f32[3,1]{1,0}, f32[1,4]{1,0})->f32[3,4]{1,0}}" in text
  assert "f32[3]{0} reshape(" in text
  assert "f32[3,4]{1,0} broadcast(" in text and "dimensions={0}" in text
  assert re.search(r"ROOT add\.\d+ = f32\[3,4\]\{1,0\} add\(", text)


def test_scalar_weak_constant():
  text = lower(lambda x: x * 2, 1.0)
  assert "f32[] constant(2)" in text
  assert "f32[] multiply(" in text
  assert "->f32[]}" in text


def test_reduce_region_before_entry():
  text = lower(lambda x: jnp.sum(x, axis=1), f32(5, 33))
  assert text.index("region_0.") < text.index("ENTRY main.")
  assert re.search(r"reduce\(\S+, constant\.\d+\), dimensions=\{1\}, to_apply=region_0\.\d+", text)
  text = lower(lambda x: jnp.max(x), f32(4))
  assert "constant(-inf)" in text and "maximum(" in text


def test_tuple_results_with_index_markers():
  text = lower(lambda x: tuple(x + i for i in range(6)), f32(2))
  assert "->(f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, /*index=5*/f32[2]{0})" in text
  assert re.search(r"ROOT tuple\.\d+ = \(", text)


def test_dot_general_attrs():
  text = lower(lambda a, b: jnp.matmul(a, b), f32(3, 4, 8), f32(3, 8, 5))
  assert ("dot(Arg_0.1, Arg_1.1), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
          "rhs_batch_dims={0}, rhs_contracting_dims={1}") in text
  text = lower(lambda a, b: a @ b, f32(4, 6), f32(6, 8))
  assert "lhs_contracting_dims={1}, rhs_contracting_dims={0}" in text


def test_compare_select_convert():
  text = lower(lambda x: jnp.where(x > 0, x, 0.0), f32(3))
  assert "compare(" in text and "direction=GT" in text and "select(" in text
  text = lower(lambda x: x.astype(bool), f32(3))
  assert "direction=NE" in text
  text = lower(lambda x: x.astype(jnp.int32), f32(3))
  assert "s32[3]{0} convert(" in text


def test_root_is_parameter():
  text = lower(lambda x, y: x, f32(2), f32(3))
  assert "entry_computation_layout={(f32[2]{0}, f32[3]{0})->f32[2]{0}}" in text


def test_float_constant_spelling():
  assert hlo.format_scalar(0.1, np.float32) == "0.1"
  assert hlo.format_scalar(np.log(2), np.float32) == "0.693147182"
  assert hlo.format_scalar(np.inf, np.float32) == "inf"
  assert hlo.format_scalar(-np.inf, np.float32) == "-inf"
  assert hlo.format_scalar(np.nan, np.float32) == "nan"
  assert hlo.format_scalar(1e-5, np.float32) == "1e-05"
  assert hlo.format_scalar(True, np.bool_) == "true"
  assert hlo.format_scalar(-2147483648, np.int32) == "-2147483648"


def test_grad_lowering_mlp():
  def loss(w, x, y):
    logits = jax.nn.relu(x @ w)
    return -jnp.mean(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, 3))

  text = lower(jax.value_and_grad(loss), f32(6, 3), f32(4, 6), np.zeros(4, np.int32))
  assert "iota()" in text and "exponential(" in text
  assert "->(f32[], f32[6,3]{1,0})" in text


def test_only_corpus_opcodes():
  corpus_ops = set("""abs add and atan2 broadcast cbrt ceil compare concatenate constant convert
    cosine divide dot erf exponential exponential-minus-one floor iota is-finite log log-plus-one
    maximum minimum multiply negate not or pad parameter power reduce remainder reshape reverse
    round-nearest-afz round-nearest-even rsqrt select sign sine slice sqrt subtract tan tanh
    transpose tuple xor""".split())
  fs = [lambda x: jnp.sum(jnp.exp(x) * jnp.tanh(x)), lambda x: jax.nn.softmax(x),
        lambda x: x[::-1, 1:].T, lambda x: jax.grad(lambda y: jnp.sum(jnp.sqrt(y) ** 3))(x),
        lambda x: jnp.concatenate([x, x], 1), lambda x: jax.nn.sigmoid(x)]
  for f in fs:
    text = lower(f, f32(3, 3))
    ops = set(re.findall(r"= (?:\S+|\(.*?\)) ([\w-]+)\(", text))
    assert ops <= corpus_ops, ops - corpus_ops


def test_an_array_closed_over_twice_is_one_constant():
  w = np.arange(16.0, dtype=np.float32).reshape(4, 4) / 7
  f = jax.jit(lambda x: jnp.tanh(x @ w) @ w)
  text = f.lower(jnp.ones((2, 4), jnp.float32)).as_text()
  assert len(re.findall(r"f32\[16\]\{0\} constant\(\{", text)) == 1, text
  x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
  np.testing.assert_allclose(f(x), np.tanh(x @ w) @ w, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.float32, np.float64,
                                   np.complex64, np.int8, np.uint32, np.bool_])
def test_constants_print_each_value_so_it_reads_back_exactly(dtype):
  rng = np.random.RandomState(0)
  raw = np.concatenate([rng.randn(200) * np.exp(rng.randn(200) * 8), [0.0, -0.0, 1e-7, 3e38]])
  with np.errstate(all="ignore"):
    values = (raw if np.dtype(dtype).kind in "fc" else np.abs(raw) % 100).astype(dtype)
  texts = hlo.format_values(values, dtype)
  assert texts == [hlo.format_scalar(v, dtype) for v in values]
  if np.dtype(dtype).kind == "f":
    with np.errstate(all="ignore"):
      back = np.array(texts, np.float64).astype(dtype)
    np.testing.assert_array_equal(back.view(np.uint8), values.view(np.uint8))
  assert hlo.format_values(np.array([np.nan, np.inf, -np.inf], np.float32), np.float32) == [
      "nan", "inf", "-inf"]
