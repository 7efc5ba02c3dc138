"""Plugin discovery warns about a plugin installed in two jax_plugins folders, and
only then: one folder reached twice (pytest run from inside site-packages puts it on
sys.path twice) or through a symlink is one copy."""

import os
import warnings

import pytest

from jax._src import xla_bridge


def _plugin_folder(root):
  (root / "xla_cpu").mkdir(parents=True)
  (root / "xla_cpu" / "__init__.py").write_text("")
  return str(root)


def test_one_folder_reached_twice_is_one_copy(tmp_path):
  real = _plugin_folder(tmp_path / "real")
  os.symlink(real, tmp_path / "link")
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    xla_bridge._warn_about_shadowed_copies([real, real, str(tmp_path / "link")])


def test_two_folders_with_the_plugin_are_named(tmp_path):
  first, second = _plugin_folder(tmp_path / "a"), _plugin_folder(tmp_path / "b")
  with pytest.warns(RuntimeWarning, match="installed more than once") as record:
    xla_bridge._warn_about_shadowed_copies([first, first, second])
  message = str(record[0].message)
  assert f"using the copy in {first}, ignoring {second}." in message
