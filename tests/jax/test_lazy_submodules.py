"""`import jax` leaves the libraries (jax.scipy, jax.nn, jax.experimental, ...) unloaded
until first named, and naming them works in every way that it does in JAX."""

import json
import subprocess
import sys

import numpy as np
import pytest
import scipy.special


LAZY = ["distributed", "dlpack", "experimental", "export", "extend", "flatten_util", "image",
        "nn", "ops", "profiler", "scipy"]


def _fresh(code: str) -> dict:
  """Runs `code` in a new interpreter; it prints one JSON value, which is returned."""
  # From outside the checkout: its jax/ folder would shadow the installed package.
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300, check=False, cwd="/")
  assert out.returncode == 0, out.stderr
  return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_jax_does_not_load_the_libraries():
  loaded = _fresh(
      "import json, sys, jax\n"
      "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('jax.', 'jax._src.', "
      "'importlib.metadata')))))")
  for name in LAZY:
    assert f"jax.{name}" not in loaded, name
  assert not [m for m in loaded if m.startswith("jax._src.scipy.stats")]
  assert "importlib.metadata" not in loaded  # only plugin discovery needs it
  # The core namespaces stay eager, as in JAX.
  for name in ("jax.numpy", "jax.lax", "jax.random", "jax.tree_util", "jax.sharding"):
    assert name in loaded


def test_attribute_access_loads_on_first_use():
  got = _fresh(
      "import json, sys, jax\n"
      "v = float(jax.scipy.special.gammaln(4.5))\n"
      "loaded = ['jax.scipy' in sys.modules, 'jax.scipy.stats' in sys.modules]\n"
      "n = float(jax.scipy.stats.norm.cdf(0.3))\n"
      "r = [float(x) for x in jax.nn.relu(jax.numpy.array([-1.0, 2.0]))]\n"
      "print(json.dumps([v, loaded, n, r, 'scipy' in dir(jax), 'stats' in dir(jax.scipy)]))")
  v, loaded, n, r, in_dir, stats_in_dir = got
  np.testing.assert_allclose(v, scipy.special.gammaln(4.5), rtol=1e-6)
  assert loaded == [True, False]  # jax.scipy loaded; its submodules only when named
  np.testing.assert_allclose(n, 0.6179114221889527, rtol=1e-6)
  assert r == [0.0, 2.0]
  assert in_dir and stats_in_dir


def test_from_import_and_import_statement_forms():
  got = _fresh(
      "import json, jax\n"
      "from jax import nn, image\n"
      "from jax.scipy import linalg\n"
      "import jax.experimental.sparse\n"
      "from jax.scipy.special import erf\n"
      "print(json.dumps([nn is jax.nn, image is jax.image, linalg is jax.scipy.linalg,\n"
      "                  jax.experimental.sparse.__name__, float(erf(0.5))]))")
  assert got[:4] == [True, True, True, "jax.experimental.sparse"]
  np.testing.assert_allclose(got[4], scipy.special.erf(0.5), rtol=1e-6)


def test_unknown_attribute_is_an_attribute_error():
  import jax
  with pytest.raises(AttributeError, match="module 'jax' has no attribute 'not_a_module'"):
    jax.not_a_module  # noqa: B018
  assert not hasattr(jax.scipy, "not_a_module")
  with pytest.raises(ImportError):
    from jax import not_a_module  # noqa: F401


def test_attach_on_a_package_of_its_own(tmp_path, monkeypatch):
  pkg = tmp_path / "lazypkg"
  pkg.mkdir()
  (pkg / "__init__.py").write_text(
      "from jax._src import lazy_loader\n"
      "__getattr__, __dir__ = lazy_loader.attach(__name__, ['child'])\n")
  (pkg / "child.py").write_text("VALUE = 7\n")
  monkeypatch.syspath_prepend(str(tmp_path))
  import lazypkg
  try:
    assert "lazypkg.child" not in sys.modules
    assert "child" in dir(lazypkg)
    assert lazypkg.child.VALUE == 7
    assert sys.modules["lazypkg.child"] is lazypkg.child
    with pytest.raises(AttributeError, match="module 'lazypkg' has no attribute 'other'"):
      lazypkg.other  # noqa: B018
  finally:
    for name in ("lazypkg", "lazypkg.child"):
      sys.modules.pop(name, None)
