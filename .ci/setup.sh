#!/usr/bin/env bash
# Installs what building and testing this repository needs, and nothing else.
# Idempotent and fast when everything is already there:
#   - Debian packages: Bazel (Debian's bazel-bootstrap), LLVM 19, Eigen, zstd, zlib,
#     libxml2, patchelf, debootstrap (the Debian 11 root of tests/wheels), Gloo
#     (cross-process CPU collectives), and
#     clang 19 with its sanitizer and libFuzzer runtimes (for .ci/fuzz.sh), and
#     protoc (protobuf-compiler) for the HLO and compile-options schemas;
#     `apt-get update` runs once, and only if something is missing.
#   - The protobuf 3.21.12 source tree (Debian's orig tarball, checksum pinned),
#     unpacked under ~/.cache/jax-third-party: its lite runtime is compiled into
#     our libraries privately (Debian ships it only as a non-PIC archive or a
#     shared library, neither of which a hidden-visibility plugin may use).
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
              clang-19 libclang-rt-19-dev libgloo-dev openmpi-bin libopenmpi-dev
              protobuf-compiler)

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

# ---------------------------------------------------------------- protobuf sources
# The version must match protoc's (generated code checks it at compile time).
PROTOBUF_VERSION=3.21.12
PROTOBUF_SHA256=930c2c3b5ecc6c9c12615cf5ad93f1cd6e12d0aba862b572e076259970ac3a53
PROTOBUF_URL="http://deb.debian.org/debian/pool/main/p/protobuf/protobuf_${PROTOBUF_VERSION}.orig.tar.gz"
THIRD_PARTY_CACHE="${JAX_THIRD_PARTY_CACHE:-$HOME/.cache/jax-third-party}"
PROTOBUF_DIR="$THIRD_PARTY_CACHE/protobuf-$PROTOBUF_VERSION"

# Unpacks into a temporary folder and renames it into place, so an interrupted
# run never leaves a half tree that a later run would take as done.
fetch_protobuf() {
  local archive="$THIRD_PARTY_CACHE/protobuf_${PROTOBUF_VERSION}.orig.tar.gz"
  mkdir -p "$THIRD_PARTY_CACHE"
  if [ ! -f "$archive" ] || ! echo "$PROTOBUF_SHA256  $archive" | sha256sum -c --status; then
    log "downloading $PROTOBUF_URL"
    curl -fsSL --retry 3 -o "$archive.part" "$PROTOBUF_URL"
    if ! echo "$PROTOBUF_SHA256  $archive.part" | sha256sum -c --status; then
      log "checksum mismatch for $PROTOBUF_URL (expected $PROTOBUF_SHA256, got $(sha256sum "$archive.part" | cut -d' ' -f1)); refusing it"
      rm -f "$archive.part"
      exit 1
    fi
    mv "$archive.part" "$archive"
  fi
  local staging
  staging=$(mktemp -d "$THIRD_PARTY_CACHE/.unpack.XXXXXX")
  tar -xzf "$archive" -C "$staging"
  rm -rf "$PROTOBUF_DIR"
  mv "$staging/protobuf-$PROTOBUF_VERSION" "$PROTOBUF_DIR"
  rm -rf "$staging"
  echo "$PROTOBUF_SHA256" > "$PROTOBUF_DIR/.source-sha256"
}

if [ -f "$PROTOBUF_DIR/.source-sha256" ] && [ "$(cat "$PROTOBUF_DIR/.source-sha256")" = "$PROTOBUF_SHA256" ]; then
  log "protobuf $PROTOBUF_VERSION sources: present"
else
  fetch_protobuf
  log "protobuf $PROTOBUF_VERSION sources: unpacked in $PROTOBUF_DIR"
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
