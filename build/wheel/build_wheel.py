"""Assembles one wheel from files built by Bazel, and refuses to emit a bad one.

Guards: every plugin library must export exactly GetPjrtApi; the wheel tag must
agree with the files inside (an abi3 wheel holds no version-specific extension,
a pure wheel holds no shared object).
"""

import argparse
import base64
import hashlib
import os
import re
import subprocess
import sys
import zipfile

_EPOCH_DATE = (2020, 1, 1, 0, 0, 0)  # fixed timestamps: reproducible wheels


def _record_hash(data: bytes) -> str:
  digest = hashlib.sha256(data).digest()
  return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _exported_symbols(path: str) -> list[str]:
  out = subprocess.run(["nm", "-D", "--extern-only", "--defined-only", path], check=True,
                       capture_output=True, text=True).stdout
  return sorted(line.split()[-1] for line in out.splitlines() if line.strip())


def _check_tag(tag: str, files: dict[str, str]) -> None:
  python_tag, abi_tag, platform_tag = tag.split("-")
  shared = [d for d in files if d.endswith(".so")]
  if platform_tag == "any" and shared:
    sys.exit(f"error: pure wheel tag {tag} but it holds shared objects: {shared}")
  if abi_tag == "abi3":
    bad = [d for d in shared if ".cpython-" in d]
    if bad:
      sys.exit(f"error: abi3 wheel holds version-specific extensions: {bad}")
  if abi_tag.startswith("cp3") and abi_tag != "abi3":
    want = f".cpython-{abi_tag[2:]}-"
    exts = [d for d in shared if ".cpython-" in d]
    if any(want not in d for d in exts):
      sys.exit(f"error: wheel tag {tag} does not match extensions {exts}")


def _metadata(args) -> str:
  lines = [
      "Metadata-Version: 2.1",
      f"Name: {args.distribution}",
      f"Version: {args.version}",
      f"Summary: {args.summary}",
      "License: Apache-2.0",
      f"Requires-Python: {args.requires_python}",
      "Classifier: License :: OSI Approved :: Apache Software License",
      "Classifier: Programming Language :: Python :: 3",
  ]
  for req in args.requires:
    lines.append(f"Requires-Dist: {req}")
  extras = {}
  for item in args.extra:
    name, req = item.split(":", 1)
    extras.setdefault(name, []).append(req)
  for name, reqs in extras.items():
    lines.append(f"Provides-Extra: {name}")
    for req in reqs:
      if req:
        marker = f'extra == "{name}"'
        lines.append(f"Requires-Dist: {req} ; {marker}" if ";" not in req
                     else f"Requires-Dist: {req} and {marker}")
  lines.append("Description-Content-Type: text/markdown")
  with open(args.description, encoding="utf-8") as f:
    description = f.read()
  return "\n".join(lines) + "\n\n" + description


def _entry_points(items: list[str]) -> str:
  groups: dict[str, list[str]] = {}
  for item in items:
    group, spec = item.split(":", 1)
    groups.setdefault(group, []).append(spec)
  out = []
  for group, specs in groups.items():
    out.append(f"[{group}]")
    out.extend(s.replace("=", " = ", 1) for s in specs)
    out.append("")
  return "\n".join(out)


def main() -> None:
  p = argparse.ArgumentParser(description=__doc__)
  p.add_argument("--output", required=True)
  p.add_argument("--distribution", required=True)
  p.add_argument("--version", required=True)
  p.add_argument("--tag", required=True)
  p.add_argument("--summary", required=True)
  p.add_argument("--requires_python", required=True)
  p.add_argument("--description", required=True)
  p.add_argument("--license", required=True)
  p.add_argument("--requires", action="append", default=[])
  p.add_argument("--extra", action="append", default=[])
  p.add_argument("--entry_point", action="append", default=[])
  p.add_argument("--check_exports", action="append", default=[])
  p.add_argument("--substitute", action="append", default=[])
  p.add_argument("--file", action="append", default=[])
  args = p.parse_args()

  files: dict[str, str] = {}
  for item in args.file:
    src, dest = item.split("=", 1)
    if dest in files and files[dest] != src:
      sys.exit(f"error: two files install to {dest}: {files[dest]} and {src}")
    files[dest] = src
  _check_tag(args.tag, files)

  substitutions = dict(s.split("=", 1) for s in args.substitute)
  for dest in args.check_exports:
    if dest not in files:
      sys.exit(f"error: {dest} is not in the wheel")
    symbols = _exported_symbols(files[dest])
    if symbols != ["GetPjrtApi"]:
      sys.exit(f"error: {dest} must export exactly GetPjrtApi, it exports {symbols[:20]}")

  dist = args.distribution.replace("-", "_")
  info = f"{dist}-{args.version}.dist-info"
  record = []
  with zipfile.ZipFile(args.output, "w", zipfile.ZIP_DEFLATED) as whl:
    def add(name: str, data: bytes, executable: bool = False) -> None:
      zi = zipfile.ZipInfo(name, _EPOCH_DATE)
      zi.external_attr = (0o755 if executable else 0o644) << 16
      zi.compress_type = zipfile.ZIP_DEFLATED
      whl.writestr(zi, data)
      record.append(f"{name},{_record_hash(data)},{len(data)}")

    for dest in sorted(files):
      with open(files[dest], "rb") as f:
        data = f.read()
      if dest.endswith(".py") and substitutions:
        text = data.decode("utf-8")
        for key, value in substitutions.items():
          text = text.replace(f"@{key}@", value)
        data = text.encode("utf-8")
      add(dest, data, executable=dest.endswith(".so"))
    add(f"{info}/METADATA", _metadata(args).encode())
    root_is_purelib = "true" if args.tag.endswith("-any") else "false"
    add(f"{info}/WHEEL", (
        "Wheel-Version: 1.0\nGenerator: jax-monorepo build_wheel\n"
        f"Root-Is-Purelib: {root_is_purelib}\nTag: {args.tag}\n").encode())
    with open(args.license, "rb") as f:
      add(f"{info}/LICENSE", f.read())
    if args.entry_point:
      add(f"{info}/entry_points.txt", _entry_points(args.entry_point).encode())
    record.append(f"{info}/RECORD,,")
    zi = zipfile.ZipInfo(f"{info}/RECORD", _EPOCH_DATE)
    whl.writestr(zi, "\n".join(record) + "\n")


if __name__ == "__main__":
  main()
