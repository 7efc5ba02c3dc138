#!/usr/bin/env bash
# Installs what building and testing this repository needs, and nothing else.
# Idempotent and fast when everything is already there:
#   - Debian packages: Bazel (Debian's bazel-bootstrap), LLVM 19, Eigen, zstd, zlib,
#     libxml2, patchelf, debootstrap (the Debian 11 root of tests/wheels), Gloo
#     (cross-process CPU collectives), and
#     clang 19 with its sanitizer and libFuzzer runtimes (for .ci/fuzz.sh);
#     `apt-get update` runs once, and only if something is missing.
#   - For python3 (the build driver): the build tools (nanobind, auditwheel, patchelf,
#     build) and the test tools (numpy, ml_dtypes, scipy, pytest).
#   - For each CPython 3.10-3.13 that is found (python3.X on PATH or pyenv's): only
#     what the tests need (numpy, ml_dtypes, scipy, pytest).
# Third-party packages come from the package index; this project's own wheels are
# never installed here (tests install them from dist/ with --no-index).
set -euo pipefail

log() { printf '[setup] %s\n' "$*"; }

# ---------------------------------------------------------------- Debian packages
APT_PACKAGES=(bazel-bootstrap llvm-19-dev libeigen3-dev libzstd-dev zlib1g-dev libxml2-dev patchelf debootstrap
              clang-19 libclang-rt-19-dev libgloo-dev openmpi-bin libopenmpi-dev)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  log "apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
else
  log "Debian packages: all present"
fi

# ---------------------------------------------------------------- Python packages
BUILD_PY_PACKAGES=(nanobind auditwheel patchelf build)
TEST_PY_PACKAGES=(numpy ml_dtypes scipy pytest grpcio)

# Installs, for interpreter $1, those of the remaining distributions it lacks.
pip_ensure() {
  local python="$1"; shift
  local need
  need=$(cd / && "$python" - "$@" <<'PY'
import importlib.metadata, sys
for name in sys.argv[1:]:
  try:
    importlib.metadata.version(name)
  except importlib.metadata.PackageNotFoundError:
    print(name)
PY
)
  if [ -n "$need" ]; then
    log "$python: pip install" $need
    # shellcheck disable=SC2086
    "$python" -m pip install --disable-pip-version-check -q $need
  else
    log "$python: all present"
  fi
}

pip_ensure python3 "${BUILD_PY_PACKAGES[@]}" "${TEST_PY_PACKAGES[@]}"

# Same search order as build/build.py: python3.X on PATH, then pyenv's newest 3.X.
find_python() {
  local version="$1" candidate root
  local candidates=()
  if command -v "python$version" >/dev/null 2>&1; then candidates+=("$(command -v "python$version")"); fi
  root="${PYENV_ROOT:-}"
  if [ -z "$root" ] && command -v pyenv >/dev/null 2>&1; then root="$(pyenv root)"; fi
  root="${root:-$HOME/.pyenv}"
  if [ -d "$root/versions" ]; then
    while IFS= read -r candidate; do
      candidates+=("$candidate/bin/python$version")
    done < <(ls -d "$root/versions/$version".* 2>/dev/null | grep -E "/$version\.[0-9]+$" | sort -V -r)
  fi
  for candidate in "${candidates[@]}"; do
    if [ -x "$candidate" ] && [ "$("$candidate" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = "$version" ]; then
      echo "$candidate"; return 0
    fi
  done
  return 1
}

for version in 3.10 3.11 3.12 3.13; do
  if python=$(find_python "$version"); then
    pip_ensure "$python" "${TEST_PY_PACKAGES[@]}"
  else
    log "Python $version not found: jaxlib for $version cannot be built or tested here"
  fi
done
log "done"
