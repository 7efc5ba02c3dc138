#!/usr/bin/env bash
# A Debian 11 (bullseye, glibc 2.31) root filesystem from the Debian archive, in
# which tests/wheels/test_old_glibc.py runs our shared objects under chroot.
# Cached: a finished root (marked by .complete) is reused as it is.
#   make_bullseye_root.sh [DIR]     (default ~/.cache/jax-bullseye-root)
# Needs root (debootstrap unpacks and configures packages under chroot) and
# the debootstrap package; exits non-zero saying why when it cannot build.
set -euo pipefail

root="${1:-${HOME}/.cache/jax-bullseye-root}"
# debootstrap's own default mirror unless DEBIAN_MIRROR names another.
mirror=(${DEBIAN_MIRROR:-})

if [ -f "$root/.complete" ]; then
  echo "bullseye root: $root (cached)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "bullseye root: building it needs root (debootstrap), this is uid $(id -u)" >&2
  exit 2
fi
if ! command -v debootstrap >/dev/null; then
  if command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null || true
  fi
fi
if ! command -v debootstrap >/dev/null; then
  echo "bullseye root: debootstrap is not installed and could not be installed" >&2
  exit 2
fi

partial="$root.partial"
rm -rf "$partial"
mkdir -p "$(dirname "$root")"
# minbase: libc6, libstdc++6 and coreutils are all the smoke test needs.
debootstrap --variant=minbase bullseye "$partial" "${mirror[@]}"
rm -rf "$root"
mv "$partial" "$root"
touch "$root/.complete"
echo "bullseye root: $root (built)"
