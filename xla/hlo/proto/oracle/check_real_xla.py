"""Checks our HloModuleProto writer and reader against real XLA (jaxlib 0.10.2).

Run with the Python of a virtual environment holding real JAX (never this
repository's jax, which has the same import name), from outside the repository:

  python3 -m venv /tmp/realjax && /tmp/realjax/bin/pip install jax==0.10.2 jaxlib==0.10.2
  bazel build //xla/hlo/proto:hlo_proto_convert
  cd /tmp && /tmp/realjax/bin/python <repo>/xla/hlo/proto/oracle/check_real_xla.py \
      --convert <repo>/bazel-bin/xla/hlo/proto/hlo_proto_convert \
      --corpus <repo>/../shared/conformance/hlo [--record <repo>/xla/hlo/proto/testdata]

1. Written by us, read by XLA: each corpus module goes text -> our bytes ->
   real XLA -> XLA's text; that text, read by our parser, must print exactly
   as the original does (both without computations the entry never calls,
   which XLA drops).
2. Written by XLA, read by us: programs lowered by real JAX give XLA's bytes;
   our reader's text must equal XLA's own text as our parser prints it.
With --record, the bytes and text of (2) are saved as test data for
hlo_proto_real_xla_test, and real JAX's compile options for compile_options_test.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
import jaxlib._hlo as hlo


def run(convert, *args):
  res = subprocess.run([convert, *args], capture_output=True)
  return res.returncode, res.stdout.decode(), res.stderr.decode()


def normalize(convert, text, tmp, mode="normalize"):
  path = os.path.join(tmp, "n.hlo")
  with open(path, "w") as f:
    f.write(text)
  return run(convert, mode, path)


def blocks(text):
  """The header line and the computations, in a canonical order: XLA may
  print callees in another valid order than the one we wrote them in."""
  parts = text.strip().split("\n\n")
  return parts[0], sorted(parts[1:])


def check_corpus(convert, corpus, tmp):
  ok, failures = 0, []
  names = sorted(os.listdir(corpus))
  for name in names:
    src = os.path.join(corpus, name, "module.hlo")
    pb = os.path.join(tmp, "m.pb")
    rc, _, err = run(convert, "to-proto", src, pb)
    if rc:
      failures.append((name, "ours refused: " + err))
      continue
    try:
      xla_text = hlo.XlaComputation(open(pb, "rb").read()).as_hlo_text()
    except Exception as e:  # real XLA refused our bytes
      failures.append((name, "XLA refused: %s" % e))
      continue
    # XLA drops computations the entry never calls; compare what remains.
    rc1, ours, err1 = run(convert, "reachable", src)
    rc2, theirs, err2 = normalize(convert, xla_text, tmp, "reachable")
    if rc1 or rc2 or blocks(ours) != blocks(theirs):
      failures.append((name, err2 or "texts differ:\n" + theirs))
    else:
      ok += 1
  print("corpus -> real XLA: %d of %d accepted and printed equivalently" % (ok, len(names)))
  for name, why in failures[:10]:
    print("  %s: %s" % (name, why[:2000]))
  return not failures


def programs():
  """Programs covering control flow, indexing, linear algebra and literals."""
  f32 = jnp.float32
  x = jnp.arange(12, dtype=f32).reshape(3, 4)
  yield "elementwise", lambda a: jnp.sin(a) * 2 + jnp.exp(-a), (x,)
  yield "dot_general", lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())), precision=lax.Precision.HIGHEST), (x, x.T)
  yield "while_loop", lambda a: lax.fori_loop(0, 3, lambda i, v: v * 2 + i, a), (x,)
  yield "cond", lambda p, a: lax.cond(p, jnp.sin, jnp.cos, a), (True, x)
  yield "switch", lambda i, a: lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], a), (1, x)
  yield "sort_argsort", lambda a: (jnp.sort(a, axis=0), jnp.argsort(a[0], stable=True)), (x,)
  yield "gather_scatter", lambda a, i: (a[i], a.at[i].add(1.0)), (x, jnp.array([2, 0], jnp.int32))
  yield "conv", lambda a, k: lax.conv_general_dilated(a, k, (1, 1), "SAME", rhs_dilation=(1, 2)), (
      jnp.ones((1, 2, 6, 6), f32), jnp.ones((3, 2, 3, 3), f32))
  yield "reduce_window", lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (2, 2), (1, 2), "VALID"), (x,)
  yield "cumsum_pad", lambda a: jnp.pad(jnp.cumsum(a, axis=1), ((1, 0), (0, 2))), (x,)
  yield "fft", lambda a: jnp.fft.rfft(a), (x,)
  yield "rng_bits", lambda k: jax.random.bits(jax.random.key(k), (4,)), (np.uint32(7),)
  yield "literals", lambda a: (a + jnp.array([1, -2], jnp.int4).astype(f32)[:1].sum(),
                               jnp.array([1.5, 2], jnp.bfloat16), jnp.array([1 + 2j], jnp.complex64),
                               jnp.array([True, False]), jnp.array([3], jnp.uint8),
                               jnp.array([0.5], jnp.float8_e4m3fn), jnp.array([7], jnp.int16)), (x,)
  yield "cholesky_triangular", lambda a: jax.scipy.linalg.solve_triangular(
      jnp.linalg.cholesky(a @ a.T + 4 * jnp.eye(3)), a, lower=True), (x,)
  yield "topk_clamp", lambda a: (lax.top_k(a, 2), jnp.clip(a, 1, 5), lax.reduce_precision(a, 5, 10)), (x,)
  yield "iota_dynamic_slice", lambda a, i: (lax.dynamic_slice(a, (i, 0), (2, 4)),
                                            lax.dynamic_update_slice(a, jnp.zeros((1, 4)), (i, 0))), (x, 1)


def check_real_programs(convert, tmp, record):
  ok, failures = 0, []
  for name, fn, args in programs():
    comp = jax.jit(fn).lower(*args).compiler_ir("hlo")
    data = comp.as_serialized_hlo_module_proto()
    xla_text = hlo.XlaComputation(data).as_hlo_text()
    pb = os.path.join(tmp, "r.pb")
    with open(pb, "wb") as f:
      f.write(data)
    rc, ours, err = run(convert, "from-proto", pb)
    rc2, theirs, err2 = normalize(convert, xla_text, tmp)
    if rc or rc2 or ours != theirs:
      failures.append((name, err or err2 or "ours:\n%s\ntheirs:\n%s" % (ours, theirs)))
    else:
      ok += 1
    if record:
      with open(os.path.join(record, name + ".pb"), "wb") as f:
        f.write(data)
      with open(os.path.join(record, name + ".hlo"), "w") as f:
        f.write(xla_text)
  print("real JAX -> our reader: %d of %d programs read and printed equivalently" % (ok, ok + len(failures)))
  for name, why in failures:
    print("  %s: %s" % (name, why[:3000]))
  return not failures


def record_compile_options(record):
  """What real JAX sends PJRT_Client_Compile for a 2-replica program, with one
  per-compile override (compile_options_test reads it)."""
  from jax._src import compiler
  options = compiler.get_compile_options(num_replicas=2, num_partitions=1,
                                         device_assignment=np.array([[0], [1]]))
  options.env_option_overrides = [("xla_cpu_enable_fast_math", False)]
  with open(os.path.join(record, "compile_options.hex"), "w") as f:
    f.write(options.SerializeAsString().hex() + "\n")


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument("--convert", required=True)
  parser.add_argument("--corpus", required=True)
  parser.add_argument("--record")
  args = parser.parse_args()
  print("jax", jax.__version__)
  # Recorded bytes carry source locations: keep only file names, no folders.
  jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")
  with tempfile.TemporaryDirectory() as tmp:
    good = check_corpus(args.convert, args.corpus, tmp)
    good = check_real_programs(args.convert, tmp, args.record) and good
  if args.record:
    record_compile_options(args.record)
  sys.exit(0 if good else 1)


if __name__ == "__main__":
  main()
