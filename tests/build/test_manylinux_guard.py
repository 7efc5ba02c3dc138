"""The manylinux_2_28 guard in build/build.py and the link-time glibc stubs it
relies on, on small shared objects built here with the system compiler."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pytest

import jax_build_driver as build_driver  # build/build.py, loaded by tests/conftest.py

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


# Runs each replacement in glibc_compat.c (linked in hidden, as in our objects)
# and prints what the test compares against the real system.
COMPAT_DRIVER = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
extern char __libc_single_threaded;
int main(int argc, char** argv) {
  struct stat st;
  if (stat(argv[1], &st) != 0) return 10;
  printf("size %lld\n", (long long)st.st_size);
  struct stat missing;
  int missing_rc = stat("/nonexistent/file", &missing);
  printf("missing %d %d\n", missing_rc, errno == ENOENT);
  uint32_t below = 0;
  for (int i = 0; i < 1000; ++i) below |= arc4random_uniform(7) >= 7;
  printf("uniform_in_range %d\n", below == 0);
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t c = PTHREAD_COND_INITIALIZER;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  now.tv_nsec += 20000000;
  if (now.tv_nsec >= 1000000000) { now.tv_sec += 1; now.tv_nsec -= 1000000000; }
  pthread_mutex_lock(&m);
  printf("clockwait %d\n", pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &now) == ETIMEDOUT);
  printf("bad_clock %d\n", pthread_cond_clockwait(&c, &m, CLOCK_PROCESS_CPUTIME_ID, &now) == EINVAL);
  pthread_mutex_unlock(&m);
  struct dl_find_object found;
  int found_rc = _dl_find_object((void*)&main, &found);
  printf("find_self %d %d\n", found_rc == 0,
         found.dlfo_eh_frame != NULL && (char*)found.dlfo_map_start <= (char*)&main &&
         (char*)&main < (char*)found.dlfo_map_end);
  printf("find_nothing %d\n", _dl_find_object((void*)16, &found) == -1);
  char* volatile big = malloc(1 << 20);   /* volatile: the call is not elided */
  big[0] = 1;
  struct mallinfo2 info = mallinfo2();   /* 1 MiB is mmapped: hblkhd */
  printf("mallinfo2 %d\n", info.hblkhd + info.uordblks >= (1 << 20));
  free(big);
  printf("single_threaded %d\n", __libc_single_threaded);
  return 0;
}
"""


def test_replacements_behave_like_glibcs(tmp_path, stubs):
  src = tmp_path / "driver.c"
  src.write_text(COMPAT_DRIVER)
  exe = str(tmp_path / "driver")
  subprocess.run([_cc(), "-O1", "-fvisibility=hidden", "-o", exe, str(src), COMPAT, "-L" + stubs,
                  "-lpthread", "-ldl"], check=True)
  versions = subprocess.run(["readelf", "-W", "--dyn-syms", exe], check=True, capture_output=True,
                            text=True).stdout
  assert "_dl_find_object" not in versions and "arc4random" not in versions
  out = subprocess.run([exe, STUB_TOOL], check=True, capture_output=True, text=True).stdout
  result = dict(line.split(" ", 1) for line in out.splitlines())
  assert result["size"] == str(os.path.getsize(STUB_TOOL))
  assert result["missing"] == "-1 1"
  assert result["uniform_in_range"] == "1"
  assert result["clockwait"] == "1" and result["bad_clock"] == "1"
  assert result["find_self"] == "1 1" and result["find_nothing"] == "1"
  assert result["mallinfo2"] == "1"
  assert result["single_threaded"] == "0"


def _rule_blocks(text: str):
  """The text of each top-level rule call `name(...)` in a BUILD or .bzl file."""
  depth, start = 0, None
  for i, ch in enumerate(text):
    if ch == "(":
      if depth == 0:
        start = text.rfind("\n", 0, i) + 1
      depth += 1
    elif ch == ")":
      depth -= 1
      if depth == 0 and start is not None:
        yield text[start:i + 1]


def test_every_shipped_shared_object_uses_shared_object():
  """Only build/defs.bzl's shared_object() may link a shared object, except
  test-only ones: any other would miss the glibc 2.28 stubs and replacements."""
  files = subprocess.run(["git", "ls-files", "*BUILD.bazel", "*.bzl"], cwd=REPO, check=True,
                         capture_output=True, text=True).stdout.split()
  offenders = []
  for path in files:
    if path == "build/defs.bzl":
      continue
    with open(os.path.join(REPO, path), encoding="utf-8") as f:
      for block in _rule_blocks(f.read()):
        if "linkshared = True" in block and "testonly = True" not in block:
          offenders.append(f"{path}: {block.splitlines()[0].strip()} ...")
  assert not offenders, offenders
