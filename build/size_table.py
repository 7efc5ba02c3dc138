#!/usr/bin/env python3
"""Lines of source per top-level folder and the largest source files, as CI
prints them; exits 1 naming every source file over the limit (1,500 lines:
split such a file by topic).

    python3 build/size_table.py [--largest 15] [--limit 1500]
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_SUFFIXES = (".py", ".pyi", ".c", ".cc", ".h", ".bzl", ".sh", ".lds")
SOURCE_NAMES = ("BUILD.bazel", "WORKSPACE")


def source_files(root: str) -> list[str]:
  """Tracked files that are source code (git's list, so build outputs and
  virtualenvs never count)."""
  out = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True,
                       capture_output=True).stdout.decode("utf-8")
  return sorted(p for p in out.split("\0")
                if p and (p.endswith(SOURCE_SUFFIXES) or os.path.basename(p) in SOURCE_NAMES)
                and os.path.isfile(os.path.join(root, p)))


def count_lines(path: str) -> int:
  with open(path, "rb") as f:
    return sum(1 for _ in f)


def table(rows: list[tuple[str, ...]]) -> str:
  widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
  lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
           for r in rows]
  lines.insert(1, "  ".join("-" * w for w in widths))
  return "\n".join(line.rstrip() for line in lines)


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--largest", type=int, default=15, help="how many of the largest files")
  parser.add_argument("--limit", type=int, default=1500, help="most lines a source file may have")
  parser.add_argument("--root", default=REPO_ROOT)
  args = parser.parse_args(argv)

  sizes = {p: count_lines(os.path.join(args.root, p)) for p in source_files(args.root)}
  folders: dict[str, list[int]] = collections.defaultdict(list)
  for path, lines in sizes.items():
    folders[path.split("/", 1)[0] if "/" in path else "."].append(lines)
  rows = [("folder", "files", "lines")]
  for folder in sorted(folders, key=lambda f: -sum(folders[f])):
    rows.append((folder + ("/" if folder != "." else ""), str(len(folders[folder])),
                 str(sum(folders[folder]))))
  rows.append(("total", str(len(sizes)), str(sum(sizes.values()))))
  print(table(rows))
  print()
  largest = sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0]))[:args.largest]
  print(table([("largest files", "lines")] + [(p, str(n)) for p, n in largest]))

  over = [(p, n) for p, n in sizes.items() if n > args.limit]
  if over:
    print(f"\n{len(over)} source file(s) over {args.limit} lines; split each by topic:",
          file=sys.stderr)
    for path, lines in sorted(over, key=lambda kv: -kv[1]):
      print(f"  {path}: {lines}", file=sys.stderr)
    return 1
  return 0


if __name__ == "__main__":
  sys.exit(main())
