"""The manylinux_2_28 guard in build/build.py and the link-time glibc stubs it
relies on, on small shared objects built here with the system compiler."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pytest

from conftest import build_driver

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STUB_TOOL = os.path.join(REPO, "build", "manylinux", "make_glibc_stubs.py")
COMPAT = os.path.join(REPO, "build", "manylinux", "glibc_compat.c")

# Calls functions that glibc added after 2.28 (arc4random 2.36, stat 2.33 as a
# function, pthread_create's 2.34 version, the 2.30 clock waits).
SOURCE = r"""
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
static void* body(void* p) { return p; }
unsigned use(const char* path) {
  struct stat st;
  pthread_t t;
  pthread_create(&t, 0, body, 0);
  pthread_join(t, 0);
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t c = PTHREAD_COND_INITIALIZER;
  struct timespec when = {0, 0};
  pthread_mutex_lock(&m);
  pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &when);
  pthread_mutex_unlock(&m);
  return arc4random() + (unsigned)stat(path, &st);
}
"""


def _cc() -> str:
  return os.environ.get("CC", "cc")


@pytest.fixture(scope="module")
def source(tmp_path_factory):
  path = tmp_path_factory.mktemp("src") / "use.c"
  path.write_text(SOURCE)
  return str(path)


@pytest.fixture(scope="module")
def stubs(tmp_path_factory):
  out = str(tmp_path_factory.mktemp("stubs"))
  subprocess.run([sys.executable, STUB_TOOL, "--out", out], check=True)
  return out


def _wheel(tmp_path, so_path: str, platform: str) -> str:
  path = str(tmp_path / f"demo-1.0-cp310-abi3-{platform}.whl")
  with zipfile.ZipFile(path, "w") as whl:
    whl.write(so_path, "demo/libuse.so")
  return path


def test_plain_link_is_refused_naming_the_symbols(tmp_path, source):
  so = str(tmp_path / "libuse.so")
  subprocess.run([_cc(), "-shared", "-fPIC", "-O1", "-o", so, source, "-lpthread"], check=True)
  newer = build_driver.too_new_symbols(so)
  if not newer:
    pytest.skip("this system's glibc is not newer than 2.28")
  assert any(s.startswith("arc4random@GLIBC_2.") for s in newer), newer
  with pytest.raises(build_driver.BuildError) as info:
    build_driver.check_baseline(_wheel(tmp_path, so, "manylinux_2_36_x86_64"))
  message = str(info.value)
  assert "newer than manylinux_2_28" in message and "demo/libuse.so: arc4random@GLIBC_2." in message


def test_link_against_the_stubs_needs_nothing_newer(tmp_path, source, stubs):
  so = str(tmp_path / "libuse.so")
  subprocess.run([_cc(), "-shared", "-fPIC", "-O1", "-fvisibility=hidden", "-o", so, source,
                  COMPAT, "-L" + stubs, "-Wl,-z,defs", "-Wl,--as-needed", "-lpthread", "-ldl"],
                 check=True)
  assert build_driver.too_new_symbols(so) == []
  needed = subprocess.run(["readelf", "-d", so], check=True, capture_output=True, text=True).stdout
  # pthread_create at its 2.2.5 version lived in libpthread before glibc 2.34.
  assert "libpthread.so.0" in needed
  versions = subprocess.run(["readelf", "-W", "--dyn-syms", so], check=True, capture_output=True,
                            text=True).stdout
  assert "pthread_create@GLIBC_2.2.5" in versions
  assert "arc4random" not in versions   # ours, hidden
  build_driver.check_baseline(_wheel(tmp_path, so, "manylinux_2_17_x86_64"))


def test_a_symbol_without_an_old_version_fails_the_link(tmp_path, stubs):
  src = tmp_path / "new.c"
  src.write_text("#include <stdlib.h>\nunsigned f(void) { return arc4random(); }\n")
  proc = subprocess.run([_cc(), "-shared", "-fPIC", "-o", str(tmp_path / "libnew.so"), str(src),
                         "-L" + stubs, "-Wl,-z,defs"], capture_output=True, text=True)
  assert proc.returncode != 0 and "arc4random" in proc.stderr


def test_tags_read_as_their_oldest_glibc():
  assert build_driver.manylinux_version("manylinux_2_27_x86_64") == (2, 27)
  assert build_driver.manylinux_version("manylinux2014_x86_64.manylinux_2_28_x86_64") == (2, 17)
  with pytest.raises(build_driver.BuildError):
    build_driver.manylinux_version("linux_x86_64")
