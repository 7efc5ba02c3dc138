"""The custom-call target registry: registration, duplicates, platforms, handlers."""

import ctypes

import numpy as np
import pytest

pytestmark = pytest.mark.needs_wheels

xla_client = pytest.importorskip("jaxlib.xla_client")

MODULE = """HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}

ENTRY main {
  p = f32[2]{0} parameter(0)
  ROOT r = f32[2]{0} custom-call(p), custom_call_target="%s"
}
"""

_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_KERNEL = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
_kernels = []  # kept alive: the registry holds raw function pointers


def capsule():
  """A PyCapsule over a fresh native function pointer, as a C extension would export."""
  fn = _KERNEL(lambda out, ins: None)
  _kernels.append(fn)
  return _new_capsule(ctypes.cast(fn, ctypes.c_void_p), b"xla._CUSTOM_CALL_TARGET", None)


def test_register_and_list(request):
  name = request.node.name
  fn = capsule()
  xla_client.register_custom_call_target(name, fn, platform="cpu")
  assert xla_client.custom_call_targets("cpu")[name] is fn
  assert xla_client.custom_call_targets("Host")[name] is fn  # XLA's name for the CPU platform
  assert name not in xla_client.custom_call_targets("cuda")
  # The same function again is fine; another one under the name is not.
  xla_client.register_custom_call_target(name, fn, platform="cpu")
  with pytest.raises(ValueError, match=f"'{name}' is already registered for cpu"):
    xla_client.register_custom_call_target(name, capsule(), platform="cpu")
  # Names are per platform.
  xla_client.register_custom_call_target(name, capsule(), platform="gpu")
  assert name in xla_client.custom_call_targets("cuda")


def test_typed_ffi_handlers_are_checked_and_refused_by_cpu(request):
  name = request.node.name
  xla_client.make_cpu_client()  # the CPU plugin is loaded and forwards targets to itself
  with pytest.raises(ValueError, match="needs an 'execute' handler"):
    xla_client.register_custom_call_target(name + "2", {"prepare": capsule()}, api_version=1)
  with pytest.raises(ValueError, match="unknown typed-FFI stage 'run'"):
    xla_client.register_custom_call_target(name + "3", {"run": capsule()}, api_version=1)
  handlers = {"prepare": capsule(), "execute": capsule()}
  with pytest.raises(ValueError, match="runs untyped functions"):
    xla_client.register_custom_call_target(name, handlers, platform="cpu", api_version=1)


def test_handler_sees_earlier_and_later_targets():
  early, late = capsule(), capsule()
  xla_client.register_custom_call_target("tpu_early", early, platform="tpu")
  seen = []
  xla_client.register_custom_call_handler("tpu", lambda *args: seen.append(args))
  assert seen == [("tpu_early", early, 0, 0)]
  xla_client.register_custom_call_target("tpu_late", late, platform="TPU", api_version=1)
  assert seen[1] == ("tpu_late", late, 1, 0)
  with pytest.raises(ValueError, match="tpu already has a custom-call handler"):
    xla_client.register_custom_call_handler("tpu", print)


def test_bad_input():
  with pytest.raises(TypeError, match="must be a PyCapsule"):
    xla_client.register_custom_call_target("t", lambda: None)
  with pytest.raises(TypeError, match="non-empty str"):
    xla_client.register_custom_call_target(3, capsule())
  with pytest.raises(ValueError, match="unknown platform 'quantum'"):
    xla_client.register_custom_call_target("t", capsule(), platform="quantum")
  with pytest.raises(ValueError, match="api_version must be 0"):
    xla_client.register_custom_call_target("t", capsule(), api_version=4)
  with pytest.raises(TypeError, match="must be callable"):
    xla_client.register_custom_call_handler("rocm", "not a function")
  with pytest.raises(TypeError, match="platform must be a str"):
    xla_client.custom_call_targets(None)


_UNTYPED = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))


def _floats(address, n):
  return np.ctypeslib.as_array(ctypes.cast(address, ctypes.POINTER(ctypes.c_float)), (n,))


def _untyped_capsule(body):
  fn = _UNTYPED(body)
  _kernels.append(fn)
  return _new_capsule(ctypes.cast(fn, ctypes.c_void_p), b"xla._CUSTOM_CALL_TARGET", None)


def test_registered_target_runs_in_the_cpu_plugin(request):
  """XLA's original CPU convention: f(out, ins), out the result buffer."""
  name = request.node.name

  def axpb(out, ins):
    _floats(out, 4)[:] = 2 * _floats(ins[0], 4) + _floats(ins[1], 4)

  xla_client.register_custom_call_target(name, _untyped_capsule(axpb), platform="cpu")
  client = xla_client.make_cpu_client()
  exe = client.compile_and_load(f"""HloModule m

ENTRY main {{
  x = f32[4]{{0}} parameter(0)
  y = f32[4]{{0}} parameter(1)
  ROOT r = f32[4]{{0}} custom-call(x, y), custom_call_target="{name}"
}}
""")
  x = np.arange(4, dtype=np.float32)
  y = np.full(4, 0.5, np.float32)
  (out,) = exe.execute([client.buffer_from_pyval(x), client.buffer_from_pyval(y)])
  np.testing.assert_array_equal(np.asarray(out), 2 * x + y)


def test_tuple_result_gets_an_array_of_buffers(request):
  name = request.node.name

  def split(out, ins):
    outs = ctypes.cast(out, ctypes.POINTER(ctypes.c_void_p))
    x = _floats(ins[0], 3)
    _floats(outs[0], 3)[:] = x + 1
    _floats(outs[1], 3)[:] = x * x

  xla_client.register_custom_call_target(name, _untyped_capsule(split), platform="cpu")
  client = xla_client.make_cpu_client()
  exe = client.compile_and_load(f"""HloModule m

ENTRY main {{
  x = f32[3]{{0}} parameter(0)
  c = (f32[3]{{0}}, f32[3]{{0}}) custom-call(x), custom_call_target="{name}", api_version=API_VERSION_ORIGINAL
  a = f32[3]{{0}} get-tuple-element(c), index=0
  b = f32[3]{{0}} get-tuple-element(c), index=1
  ROOT r = (f32[3]{{0}}, f32[3]{{0}}) tuple(a, b)
}}
""")
  x = np.array([1, 2, 3], np.float32)
  a, b = exe.execute([client.buffer_from_pyval(x)])
  np.testing.assert_array_equal(np.asarray(a), x + 1)
  np.testing.assert_array_equal(np.asarray(b), x * x)


def test_other_api_versions_are_refused_by_name(request):
  name = request.node.name
  xla_client.register_custom_call_target(name, _untyped_capsule(lambda out, ins: None))
  client = xla_client.make_cpu_client()
  text = (MODULE % name).replace(f'"{name}"', f'"{name}", api_version=API_VERSION_STATUS_RETURNING')
  with pytest.raises(xla_client.XlaRuntimeError, match="API_VERSION_STATUS_RETURNING, but "
                     "registered native targets use the original untyped convention"):
    client.compile_and_load(text)


def test_unregistered_target_is_refused_by_name(request):
  client = xla_client.make_cpu_client()
  name = request.node.name
  with pytest.raises(xla_client.XlaRuntimeError, match=f'custom-call target "{name}" is not '
                     "registered"):
    client.compile_and_load(MODULE % name)
