"""build/size_table.py: the table CI prints, and its limit on source file length."""

from __future__ import annotations

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO, "build", "size_table.py")


def _run(*args: str) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)


def _git_repo(path, files: dict[str, int]) -> str:
  subprocess.run(["git", "init", "-q", str(path)], check=True)
  for name, lines in files.items():
    target = path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(f"x = {i}\n" for i in range(lines)))
  subprocess.run(["git", "-C", str(path), "add", "."], check=True)
  return str(path)


def test_this_repository_has_no_file_over_the_limit():
  proc = _run()
  assert proc.returncode == 0, proc.stderr
  assert "jax/" in proc.stdout and "largest files" in proc.stdout


def test_counts_lines_per_folder_and_names_the_largest(tmp_path):
  root = _git_repo(tmp_path, {"a/one.py": 10, "a/two.cc": 5, "b/three.py": 7, "b/data.txt": 99})
  proc = _run("--root", root, "--largest", "2")
  assert proc.returncode == 0, proc.stderr
  rows = [line.split() for line in proc.stdout.splitlines()]
  assert ["a/", "2", "15"] in rows and ["b/", "1", "7"] in rows and ["total", "3", "22"] in rows
  assert ["a/one.py", "10"] in rows and ["b/three.py", "7"] in rows
  assert not any(r and r[0] == "a/two.cc" for r in rows)   # only the 2 largest
  assert "data.txt" not in proc.stdout                      # not source


def test_a_file_over_the_limit_fails_and_is_named(tmp_path):
  root = _git_repo(tmp_path, {"big/module.py": 1501, "small.py": 1500})
  proc = _run("--root", root)
  assert proc.returncode == 1
  assert "big/module.py: 1501" in proc.stderr and "small.py" not in proc.stderr

