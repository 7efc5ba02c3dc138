"""The benchmarks, written only against the public JAX API (and numpy for the numpy
figures). run.py runs this once per group and install:

    python suite.py GROUP [--quick] [--repeats N]

and reads the JSON object on the last line of stdout:
  {"group", "jax_version", "numpy_version", "python",
   "figures": {name: {"jax": [samples], "numpy": [samples]}},
   "errors": {name: {"jax" or "numpy": message}}, "unsupported": [name, ...]}
Samples are in the figure's unit (harness.FIGURES). A benchmark whose API our jax
lacks is reported as unsupported with the exception's message, not a crash.
The "openxla" group runs in our virtualenv only and adds a third source,
"openxla": the same functions on a device of OpenXLA's CPU plugin.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import platform
import subprocess
import sys
import time
import traceback

import numpy as np

import harness

HERE = os.path.dirname(os.path.abspath(__file__))

# Exceptions meaning "this install lacks the API", as opposed to a failure.
UNSUPPORTED = (AttributeError, ImportError, NotImplementedError)


@dataclasses.dataclass
class Config:
  repeats: int = 5          # samples per figure in this process
  sample_time: float = 0.2  # seconds of calls per sample (dispatch-sized calls loop)
  quick: bool = False


class Recorder:
  """Collects samples per figure and source ('jax' or 'numpy'); a benchmark that
  raises is recorded with its message and the others still run."""

  def __init__(self, group: str, cfg: Config) -> None:
    self.active = {f.name for f in harness.figures_of(group, cfg.quick)}
    self.figures: dict[str, dict[str, list[float]]] = {}
    self.errors: dict[str, dict[str, str]] = {}
    self.unsupported: list[str] = []

  def run(self, name: str, source: str, measure) -> None:
    if name not in harness.BY_NAME:
      raise KeyError(f"no figure named {name!r} in harness.FIGURES")
    if name not in self.active:
      return
    try:
      self.figures.setdefault(name, {})[source] = [float(v) for v in measure()]
    except Exception as e:  # pylint: disable=broad-except
      message = f"{type(e).__name__}: {e}".strip().splitlines()[0][:300]
      self.errors.setdefault(name, {})[source] = message
      if isinstance(e, UNSUPPORTED) and source == "jax":
        self.unsupported.append(name)
      elif not isinstance(e, UNSUPPORTED):
        traceback.print_exc(file=sys.stderr)


# ---------------------------------------------------------------------------- timing


def per_call_seconds(call, cfg: Config) -> list[float]:
  """Seconds per call of `call` (which must wait for its result): one warm-up call,
  then cfg.repeats samples, each looping enough calls to last about sample_time."""
  call()
  start = time.perf_counter()
  call()
  once = time.perf_counter() - start
  number = max(1, min(200_000, int(cfg.sample_time / max(once, 1e-7))))
  samples = []
  for _ in range(cfg.repeats):
    start = time.perf_counter()
    for _ in range(number):
      call()
    samples.append((time.perf_counter() - start) / number)
  return samples


def blocking(fn, *args):
  """A call of fn(*args) that waits until the result is computed."""
  import jax  # pylint: disable=import-outside-toplevel
  return lambda: jax.block_until_ready(fn(*args))


def scaled(seconds: list[float], unit: str) -> list[float]:
  return [s * {"s": 1.0, "ms": 1e3, "us": 1e6}[unit] for s in seconds]


def rate(seconds: list[float], amount: float) -> list[float]:
  """Bytes or FLOPs per call -> G per second."""
  return [amount / s / 1e9 for s in seconds]


def random_f32(*shape: int, seed: int = 0) -> np.ndarray:
  return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


# ---------------------------------------------------------------------------- groups


def bench_import(rec: Recorder, cfg: Config) -> None:
  """`import jax` in fresh interpreters (the interpreter's own start not counted)."""
  code = ("import time; t = time.perf_counter(); import jax; "
          "print(time.perf_counter() - t)")

  def measure():
    times = []
    for _ in range(cfg.repeats):
      out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout
      times.append(float(out.strip().splitlines()[-1]))
    return scaled(times, "ms")

  rec.run("import_jax", "jax", measure)


def bench_dispatch(rec: Recorder, cfg: Config) -> None:
  import jax
  import jax.numpy as jnp
  x_np = random_f32(16)
  x = jnp.asarray(x_np)
  rec.run("eager_add_f32_16", "jax",
          lambda: scaled(per_call_seconds(blocking(jnp.add, x, x), cfg), "us"))
  rec.run("eager_add_f32_16", "numpy",
          lambda: scaled(per_call_seconds(lambda: np.add(x_np, x_np), cfg), "us"))
  add1 = jax.jit(lambda v: v + 1)
  rec.run("jit_add1_f32_16", "jax",
          lambda: scaled(per_call_seconds(blocking(add1, x), cfg), "us"))
  tree = {f"a{i}": jnp.asarray(random_f32(16, seed=i)) for i in range(10)}
  total = jax.jit(lambda d: sum(d.values()))
  rec.run("jit_dict10_f32_16", "jax",
          lambda: scaled(per_call_seconds(blocking(total, tree), cfg), "us"))


def bench_compile(rec: Recorder, cfg: Config) -> None:
  """First call of a new small function: tracing, lowering, compiling, running. One
  throw-away function first, so one-time backend start-up is not counted."""
  import jax
  import jax.numpy as jnp
  x = jnp.asarray(random_f32(16))

  def fresh(i: int):
    def f(v):
      return jnp.sum(jnp.sin(v) * 2.0 + v * v - float(i))
    return jax.jit(f)

  def measure():
    jax.block_until_ready(fresh(-1)(x))
    times = []
    for i in range(2 * cfg.repeats):
      start = time.perf_counter()
      jax.block_until_ready(fresh(i)(x))
      times.append(time.perf_counter() - start)
    return scaled(times, "ms")

  rec.run("compile_small", "jax", measure)

  # A model's weights held as numpy arrays and closed over (haiku's numpy inputs, a
  # dataset): what the first call costs besides the compile is moving the constant.
  weight = random_f32(2048, 2048)
  rows = jnp.asarray(random_f32(4, 2048))

  def measure_closure():
    times = []
    for i in range(max(2, cfg.repeats // 2)):
      w = weight + np.float32(i)  # a new array each time: nothing cached by contents
      start = time.perf_counter()
      jax.block_until_ready(jax.jit(lambda v: jnp.tanh(v @ w) @ w)(rows))
      times.append(time.perf_counter() - start)
    return scaled(times, "ms")

  rec.run("compile_closure_16mb", "jax", measure_closure)


def bench_elementwise(rec: Recorder, cfg: Config) -> None:
  import jax
  import jax.numpy as jnp
  n = 10**7
  x_np, y_np = random_f32(n, seed=0), random_f32(n, seed=1)
  moved = 3 * 4 * n  # two inputs read, one output written
  x, y = jnp.asarray(x_np), jnp.asarray(y_np)
  fused = jax.jit(lambda a, b: jnp.maximum(a * 2.0 + b * 0.5 - 1.0, 0.0))
  rec.run("fused_elementwise_1e7", "jax",
          lambda: rate(per_call_seconds(blocking(fused, x, y), cfg), moved))
  rec.run("fused_elementwise_1e7", "numpy",
          lambda: rate(per_call_seconds(
              lambda: np.maximum(x_np * 2.0 + y_np * 0.5 - 1.0, 0.0), cfg), moved))
  dst = np.empty_like(x_np)
  rec.run("numpy_copy_1e7", "numpy",
          lambda: rate(per_call_seconds(lambda: np.copyto(dst, x_np), cfg), 2 * 4 * n))


def bench_reduce(rec: Recorder, cfg: Config) -> None:
  import jax
  import jax.numpy as jnp
  flat_np = random_f32(10**7)
  rows_np = random_f32(1000, 10000, seed=1)
  flat, rows = jnp.asarray(flat_np), jnp.asarray(rows_np)
  total = jax.jit(jnp.sum)
  row_sums = jax.jit(lambda a: jnp.sum(a, axis=1))
  rec.run("sum_1e7", "jax", lambda: rate(per_call_seconds(blocking(total, flat), cfg), 4e7))
  rec.run("sum_1e7", "numpy", lambda: rate(per_call_seconds(lambda: flat_np.sum(), cfg), 4e7))
  rec.run("sum_rows_1000x10000", "jax",
          lambda: rate(per_call_seconds(blocking(row_sums, rows), cfg), 4e7))
  rec.run("sum_rows_1000x10000", "numpy",
          lambda: rate(per_call_seconds(lambda: rows_np.sum(axis=1), cfg), 4e7))


def bench_matmul(rec: Recorder, cfg: Config) -> None:
  """All of JAX's sizes first, then numpy's: BLAS threads keep spinning for a while
  after a call and would take cores from the next JAX measurement."""
  import jax
  import jax.numpy as jnp
  matmul = jax.jit(jnp.matmul)
  sizes = [n for n in (256, 1024, 2048) if f"matmul_{n}" in rec.active]
  inputs = {n: (random_f32(n, n, seed=0), random_f32(n, n, seed=1)) for n in sizes}
  for n in sizes:
    a, b = (jnp.asarray(m) for m in inputs[n])
    rec.run(f"matmul_{n}", "jax",
            lambda: rate(per_call_seconds(blocking(matmul, a, b), cfg), 2 * n**3))
  for n in sizes:
    a_np, b_np = inputs[n]
    rec.run(f"matmul_{n}", "numpy",
            lambda: rate(per_call_seconds(lambda: a_np @ b_np, cfg), 2 * n**3))


def bench_mlp(rec: Recorder, cfg: Config) -> None:
  import jax
  import jax.numpy as jnp
  import mlp_train
  params = [(jnp.asarray(w), jnp.asarray(b)) for w, b in mlp_train.init_params()]
  x, y = (jnp.asarray(a) for a in mlp_train.make_batch())
  step = jax.jit(jax.value_and_grad(mlp_train.loss_fn))
  rec.run("mlp_step", "jax",
          lambda: scaled(per_call_seconds(blocking(step, params, x, y), cfg), "ms"))


def bench_vmap(rec: Recorder, cfg: Config) -> None:
  import jax
  import jax.numpy as jnp
  m_np, v_np = random_f32(64, 256, 256), random_f32(64, 256, seed=1)
  m, v = jnp.asarray(m_np), jnp.asarray(v_np)
  batched = jax.jit(jax.vmap(lambda a, b: a @ b))
  rec.run("vmap_matvec_64x256", "jax",
          lambda: scaled(per_call_seconds(blocking(batched, m, v), cfg), "us"))
  rec.run("vmap_matvec_64x256", "numpy",
          lambda: scaled(per_call_seconds(lambda: np.matmul(m_np, v_np[:, :, None]), cfg),
                         "us"))


def bench_softmax(rec: Recorder, cfg: Config) -> None:
  import jax
  import jax.numpy as jnp
  x_np = random_f32(4096, 1024)
  x = jnp.asarray(x_np)
  moved = 2 * 4 * x_np.size
  softmax = jax.jit(lambda a: jax.nn.softmax(a, axis=-1))

  def numpy_softmax():
    e = np.exp(x_np - x_np.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)

  rec.run("softmax_4096x1024", "jax",
          lambda: rate(per_call_seconds(blocking(softmax, x), cfg), moved))
  rec.run("softmax_4096x1024", "numpy", lambda: rate(per_call_seconds(numpy_softmax, cfg), moved))


def bench_conv(rec: Recorder, cfg: Config) -> None:
  import jax
  import jax.numpy as jnp

  def measure():
    x = jnp.asarray(random_f32(8, 64, 64, 32))
    w = jnp.asarray(random_f32(3, 3, 32, 32, seed=1))
    conv = jax.jit(lambda a, b: jax.lax.conv_general_dilated(
        a, b, window_strides=(1, 1), padding="SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC")))
    return scaled(per_call_seconds(blocking(conv, x, w), cfg), "ms")

  rec.run("conv_3x3_nhwc", "jax", measure)


def bench_random(rec: Recorder, cfg: Config) -> None:
  import jax
  key = jax.random.PRNGKey(0)
  rec.run("random_normal_1e7", "jax",
          lambda: scaled(per_call_seconds(blocking(jax.random.normal, key, (10**7,)), cfg),
                         "ms"))
  rng = np.random.default_rng(0)
  rec.run("random_normal_1e7", "numpy",
          lambda: scaled(per_call_seconds(
              lambda: rng.standard_normal(10**7, dtype=np.float32), cfg), "ms"))


def bench_scan(rec: Recorder, cfg: Config) -> None:
  import jax
  import jax.numpy as jnp
  xs = jnp.asarray(random_f32(10**5))
  scan = jax.jit(lambda v: jax.lax.scan(lambda c, x: (c + x, x * 2.0), 0.0, v)[1])
  rec.run("scan_stacked_1e5", "jax",
          lambda: scaled(per_call_seconds(blocking(scan, xs), cfg), "ms"))


def bench_memory(rec: Recorder, cfg: Config) -> None:
  """Peak resident memory of mlp_train.py, each run in its own child process."""
  script = os.path.join(HERE, "mlp_train.py")
  steps = "5" if cfg.quick else "20"

  def measure():
    peaks = []
    for _ in range(max(1, cfg.repeats // 2)):
      peaks.append(peak_rss_mb([sys.executable, script, "--steps", steps]))
    return peaks

  rec.run("peak_rss_mlp", "jax", measure)


def peak_rss_mb(cmd: list[str]) -> float:
  """Runs cmd and returns its peak resident set size in MB (ru_maxrss of that
  child alone, which os.wait4 reports; Linux counts it in KB)."""
  proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
  _, status, usage = os.wait4(proc.pid, 0)
  proc.returncode = os.waitstatus_to_exitcode(status)
  stderr = proc.stderr.read().decode(errors="replace")
  proc.stderr.close()
  if proc.returncode != 0:
    last = (stderr.strip().splitlines() or ["no message"])[-1]
    raise RuntimeError(f"{os.path.basename(cmd[1])} exited with {proc.returncode}: {last}")
  return usage.ru_maxrss / 1024


# ---------------------------------------------------------------------------- vs OpenXLA

OPENXLA_PLATFORM = "openxla_cpu"   # the name OpenXLA's CPU plugin is registered under


def openxla_devices() -> dict:
  """Source -> device: "jax" is our CPU plugin's first device, "openxla" the first
  of OpenXLA's CPU plugin, registered as any vendor's plugin is, with a priority
  below ours so that ours stays the default backend. Must run before anything
  initialises jax's backends. Raises when OpenXLA's plugin is missing."""
  plugin = importlib.import_module(harness.OPENXLA_MODULE)
  # jax is imported inside each benchmark, as everywhere in this file: the
  # import group measures a fresh `import jax`, and one install's suite must not
  # import the other's jax at module load.
  from jax._src import xla_bridge  # pylint: disable=import-outside-toplevel
  xla_bridge.register_plugin(OPENXLA_PLATFORM, library_path=str(plugin.PLUGIN_PATH),
                             priority=0)
  import jax  # pylint: disable=import-outside-toplevel
  return {"jax": jax.devices("cpu")[0], "openxla": jax.devices(OPENXLA_PLATFORM)[0]}


def interleaved_per_call_seconds(calls: dict, cfg: Config) -> dict[str, list[float]]:
  """per_call_seconds for several calls at once, taking turns sample by sample (the
  first call flips every sample) so drift in the machine's load falls on each.
  Every call is warmed up first."""
  number = {}
  for source, call in calls.items():
    call()
    start = time.perf_counter()
    call()
    once = time.perf_counter() - start
    number[source] = max(1, min(200_000, int(cfg.sample_time / max(once, 1e-7))))
  samples = {source: [] for source in calls}
  order = list(calls)
  for i in range(cfg.repeats):
    for source in (order if i % 2 == 0 else order[::-1]):
      call, n = calls[source], number[source]
      start = time.perf_counter()
      for _ in range(n):
        call()
      samples[source].append((time.perf_counter() - start) / n)
  return samples


def _record_pair(rec: Recorder, cfg: Config, name: str, devices: dict, failed: dict,
                 make_call, convert) -> None:
  """One figure measured on every device in turn. make_call(device) -> a blocking
  call on inputs placed there; a source that failed before (`failed`) or whose call
  cannot be made or warmed up is recorded as that source's error, and the others
  are still measured."""
  if name not in rec.active:
    return
  errors, calls = dict(failed), {}
  for source, device in devices.items():
    try:
      call = make_call(device)
      call()
      calls[source] = call
    except Exception as e:  # pylint: disable=broad-except
      errors[source] = e
  for source, e in errors.items():
    rec.run(name, source, lambda e=e: _raise(e))
  if calls:
    samples = interleaved_per_call_seconds(calls, cfg)
    for source in calls:
      rec.run(name, source, lambda s=samples[source]: convert(s))


def _raise(e: BaseException):
  raise e


def bench_openxla(rec: Recorder, cfg: Config) -> None:
  """Our CPU compiler against OpenXLA's, both plugins in this process under our
  jax: each figure jits one function and runs it on inputs placed on one device of
  each plugin, so both compile the same HLO."""
  import jax
  import jax.numpy as jnp
  import mlp_train

  failed: dict[str, BaseException] = {}
  try:
    devices = openxla_devices()
  except Exception as e:  # pylint: disable=broad-except
    devices = {"jax": jax.devices("cpu")[0]}
    failed["openxla"] = RuntimeError(
        f"OpenXLA's CPU plugin ({harness.OPENXLA_WHEEL}) unavailable: {type(e).__name__}: {e}")

  def on(device, fn, *args):
    placed = jax.device_put(args, device)
    return lambda: jax.block_until_ready(fn(*placed))

  def pair(name, make_call, convert):
    _record_pair(rec, cfg, name, devices, failed, make_call, convert)

  n = 1024
  matmul = jax.jit(jnp.matmul)
  a, b = random_f32(n, n, seed=0), random_f32(n, n, seed=1)
  pair("xla_matmul_1024", lambda d: on(d, matmul, a, b), lambda s: rate(s, 2 * n**3))

  conv = jax.jit(lambda x, w: jax.lax.conv_general_dilated(
      x, w, window_strides=(1, 1), padding="SAME",
      dimension_numbers=("NHWC", "HWIO", "NHWC")))
  x, w = random_f32(8, 64, 64, 32), random_f32(3, 3, 32, 32, seed=1)
  pair("xla_conv_3x3_nhwc", lambda d: on(d, conv, x, w), lambda s: scaled(s, "ms"))

  size = 10**7
  fused = jax.jit(lambda p, q: jnp.maximum(p * 2.0 + q * 0.5 - 1.0, 0.0))
  p, q = random_f32(size, seed=0), random_f32(size, seed=1)
  pair("xla_fused_elementwise_1e7", lambda d: on(d, fused, p, q),
       lambda s: rate(s, 3 * 4 * size))
  del p, q

  params = mlp_train.init_params()
  batch_x, batch_y = mlp_train.make_batch()
  step = jax.jit(jax.value_and_grad(mlp_train.loss_fn))
  pair("xla_mlp_step", lambda d: on(d, step, params, batch_x, batch_y),
       lambda s: scaled(s, "ms"))

  if "xla_compile_mid" in rec.active:
    _record_compile_mid(rec, cfg, devices, failed)


def _mid_size_fn(i: int):
  """A new function each call (so nothing is cached): the gradient of an 8-layer
  MLP (128 wide) with layer norm and a log-softmax loss, about a thousand lines of
  HLO text, most of the first call's time spent compiling."""
  import jax
  import jax.numpy as jnp

  def loss(weights, x):
    h = x
    for k, w in enumerate(weights):
      h = jnp.tanh(h @ w + float(i + k))
      mean = jnp.mean(h, axis=-1, keepdims=True)
      h = (h - mean) / jnp.sqrt(jnp.var(h, axis=-1, keepdims=True) + 1e-5)
    return -jnp.mean(jax.nn.log_softmax(h)[:, 0])

  return jax.jit(jax.grad(loss))


def _record_compile_mid(rec: Recorder, cfg: Config, devices: dict, failed: dict) -> None:
  """First-call latency (trace, lower, compile, run) of fresh jits on each device,
  the devices taking turns; one throw-away compile each first (backend start-up)."""
  import jax
  weights = [random_f32(128, 128, seed=k) * np.float32(0.1) for k in range(8)]
  x = random_f32(32, 128, seed=9)
  placed, errors = {}, dict(failed)
  for source, device in devices.items():
    try:
      placed[source] = jax.device_put((weights, x), device)
      jax.block_until_ready(_mid_size_fn(-1)(*placed[source]))
    except Exception as e:  # pylint: disable=broad-except
      errors[source] = e
      placed.pop(source, None)
  for source, e in errors.items():
    rec.run("xla_compile_mid", source, lambda e=e: _raise(e))
  times = {source: [] for source in placed}
  order = list(placed)
  for i in range(cfg.repeats):
    for source in (order if i % 2 == 0 else order[::-1]):
      fn = _mid_size_fn(i)
      start = time.perf_counter()
      jax.block_until_ready(fn(*placed[source]))
      times[source].append(time.perf_counter() - start)
  for source, values in times.items():
    rec.run("xla_compile_mid", source, lambda v=values: scaled(v, "ms"))


GROUPS = {
    "import": bench_import, "dispatch": bench_dispatch, "compile": bench_compile,
    "elementwise": bench_elementwise, "reduce": bench_reduce, "matmul": bench_matmul,
    "mlp": bench_mlp, "vmap": bench_vmap, "softmax": bench_softmax, "conv": bench_conv,
    "random": bench_random, "scan": bench_scan, "memory": bench_memory,
    "openxla": bench_openxla,
}
assert list(GROUPS) == harness.SUITE_GROUPS, "suite.GROUPS and harness.FIGURES disagree"


def run_group(group: str, cfg: Config) -> dict:
  rec = Recorder(group, cfg)
  GROUPS[group](rec, cfg)
  try:
    import jax  # pylint: disable=import-outside-toplevel
    jax_version = jax.__version__
  except Exception as e:  # pylint: disable=broad-except
    jax_version = f"unavailable ({type(e).__name__}: {e})"
  return {"group": group, "jax_version": jax_version, "numpy_version": np.__version__,
          "python": platform.python_version(), "figures": rec.figures,
          "errors": rec.errors, "unsupported": rec.unsupported}


def main(argv: list[str] | None = None) -> None:
  parser = argparse.ArgumentParser(description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("group", choices=list(GROUPS))
  parser.add_argument("--quick", action="store_true", help="fewer, shorter samples")
  parser.add_argument("--repeats", type=int, default=None, help="samples per figure")
  args = parser.parse_args(argv)
  cfg = Config(repeats=3, sample_time=0.05, quick=True) if args.quick else Config()
  if args.repeats:
    cfg.repeats = args.repeats
  print(json.dumps(run_group(args.group, cfg)), flush=True)


if __name__ == "__main__":
  main()
