#!/usr/bin/env python3
"""Link-time stand-ins for glibc that make our shared objects need no symbol
version newer than a chosen glibc (2.28, the manylinux_2_28 baseline).

The toolchain's glibc is newer (2.36). When the linker resolves `pthread_create`
against it, the reference is recorded with the library's default version
(GLIBC_2.34), and no older glibc can load the result. This tool reads the
version table of each real library on the build machine and writes, for each,
a stub shared object with the same soname that defines every symbol once, with
its newest version not newer than the baseline as the default. Linking against
the stubs (they come first on the library search path) records those old
versions; at run time the real library is loaded and provides them (glibc keeps
every old version as a compatibility symbol). Symbols that exist only in newer
versions are left out, so using one fails at link time instead of at load time
on a user's machine; glibc_compat.c gives the ones our dependencies need.

Symbols that glibc 2.32-2.34 moved from libpthread, libdl, librt, libutil,
libanl, libresolv and libm into libc are put back into the stub of the library
that held them at the baseline (glibc_moves.txt), so the output names that
library as NEEDED and finds the symbol there on an older glibc.

    make_glibc_stubs.py --out DIR [--baseline 2.28] [--libdir /lib/x86_64-linux-gnu]
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

# stub file name -> (soname, the real library it stands for).
LIBRARIES = {
    "libc.so.6": ("libc.so.6", "libc.so.6"),
    "libm.so": ("libm.so.6", "libm.so.6"),
    "ld-linux-x86-64.so.2": ("ld-linux-x86-64.so.2", "ld-linux-x86-64.so.2"),
    # These hold nothing of their own on a new glibc; their stubs are filled
    # with what moved into libc (MOVED_FROM_LIBC below).
    "libpthread.so": ("libpthread.so.0", None),
    "libdl.so": ("libdl.so.2", None),
    "librt.so": ("librt.so.1", None),
    "libutil.so": ("libutil.so.1", None),
    "libresolv.so": ("libresolv.so.2", None),
    "libanl.so": ("libanl.so.1", None),
}

# Where the symbols that glibc 2.32-2.34 moved into libc lived before: one
# "library name" a line, recorded from a real glibc 2.31 (--record_moves; the
# libraries did not change between 2.28 and 2.31).
MOVES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "glibc_moves.txt")
OLD_LIBRARIES = {  # old real library -> its stub
    "libpthread.so.0": "libpthread.so", "libdl.so.2": "libdl.so", "librt.so.1": "librt.so",
    "libutil.so.1": "libutil.so", "libresolv.so.2": "libresolv.so", "libanl.so.1": "libanl.so",
    "libm.so.6": "libm.so",
}

# Created in the output folder: the linker script `-lc` finds. libc_nonshared.a
# (atexit, pthread_atfork, ...) comes from the toolchain; it needs nothing newer.
LIBC_SCRIPT = """/* Link-time libc: the stub (old symbol versions) and the toolchain's
   libc_nonshared.a; made by make_glibc_stubs.py. */
GROUP ( libc.so.6 libc_nonshared.a AS_NEEDED ( ld-linux-x86-64.so.2 ) )
"""


def version_key(version: str) -> tuple[int, ...] | None:
  """'GLIBC_2.2.5' -> (2, 2, 5); None for GLIBC_PRIVATE and other nodes."""
  match = re.fullmatch(r"GLIBC_(\d+(?:\.\d+)*)", version)
  return tuple(int(p) for p in match.group(1).split(".")) if match else None


class Symbol:
  """One definition in a real library: name, version, default or not, type, size."""

  def __init__(self, name: str, version: str, default: bool, kind: str, size: int):
    self.name, self.version, self.default = name, version, default
    self.kind, self.size = kind, size


def read_symbols(path: str) -> list[Symbol]:
  """The versioned definitions of a shared library, from `readelf --dyn-syms`."""
  out = subprocess.run(["readelf", "-W", "--dyn-syms", path], capture_output=True,
                       text=True, check=True).stdout
  symbols = []
  for line in out.splitlines():
    parts = line.split()
    # Num: Value Size Type Bind Vis Ndx Name
    if len(parts) < 8 or not parts[0].endswith(":") or parts[6] in ("UND", "ABS"):
      continue
    name, sep, version = parts[7].partition("@")
    if not sep:
      continue
    default = version.startswith("@")
    version = version.lstrip("@")
    size = int(parts[2], 0) if parts[2].startswith("0x") else int(parts[2])
    symbols.append(Symbol(name, version, default, parts[3], size))
  return symbols


def choose(symbols: list[Symbol], baseline: tuple[int, ...]) -> dict[str, Symbol]:
  """name -> its newest definition whose version is not newer than baseline."""
  chosen: dict[str, Symbol] = {}
  for sym in symbols:
    key = version_key(sym.version)
    if key is None or key > baseline:
      continue
    best = chosen.get(sym.name)
    if best is None or version_key(best.version) < key:
      chosen[sym.name] = sym
  return chosen


def read_moves(path: str = MOVES_FILE) -> dict[str, str]:
  """name -> stub file of the library that held it before it moved into libc."""
  moves = {}
  with open(path, encoding="utf-8") as f:
    for line in f:
      line = line.split("#", 1)[0].strip()
      if line:
        library, name = line.split()
        moves[name] = OLD_LIBRARIES[library]
  return moves


def record_moves(old_libdir: str, new_libdir: str, baseline: tuple[int, ...]) -> list[str]:
  """'library name' for each symbol (not newer than baseline) that an old
  glibc's libpthread/libdl/... defines, the old libc does not, and the new
  libc does: what moved."""
  new_libc = {(s.name, s.version) for s in read_symbols(os.path.join(new_libdir, "libc.so.6"))}
  old_libc = {(s.name, s.version) for s in read_symbols(os.path.join(old_libdir, "libc.so.6"))}
  lines = set()
  for library in OLD_LIBRARIES:
    path = os.path.join(old_libdir, library)
    if not os.path.exists(path):
      continue
    for sym in read_symbols(path):
      key = version_key(sym.version)
      if key is None or key > baseline:
        continue
      if (sym.name, sym.version) in new_libc and (sym.name, sym.version) not in old_libc:
        lines.add(f"{library} {sym.name}")
  return sorted(lines)


def assembly(symbols: list[Symbol]) -> str:
  """Definitions with the real type and size (objects' sizes matter to copy
  relocations); the bodies are never run."""
  lines = []
  for sym in sorted(symbols, key=lambda s: s.name):
    if sym.kind == "OBJECT":
      lines += [".data", f".globl {sym.name}", f".type {sym.name}, @object",
                f".size {sym.name}, {max(sym.size, 1)}", f"{sym.name}:", f".zero {max(sym.size, 1)}"]
    elif sym.kind == "TLS":
      lines += [".section .tbss,\"awT\",@nobits", f".globl {sym.name}",
                f".type {sym.name}, @tls_object", f".size {sym.name}, {max(sym.size, 1)}",
                f"{sym.name}:", f".zero {max(sym.size, 1)}"]
    else:  # FUNC, IFUNC, NOTYPE
      lines += [".text", f".globl {sym.name}", f".type {sym.name}, @function", f"{sym.name}:", "ret"]
  return "\n".join(lines) + "\n"


def version_script(symbols: list[Symbol]) -> str:
  by_version = collections.defaultdict(list)
  for sym in symbols:
    by_version[sym.version].append(sym.name)
  nodes = []
  for version in sorted(by_version, key=version_key):
    names = "".join(f"    {n};\n" for n in sorted(by_version[version]))
    nodes.append(f"{version} {{\n  global:\n{names}}};\n")
  return "".join(nodes)


def link_stub(out_path: str, soname: str, symbols: list[Symbol], cc: str) -> None:
  with tempfile.TemporaryDirectory() as tmp:
    asm = os.path.join(tmp, "stub.s")
    script = os.path.join(tmp, "stub.map")
    with open(asm, "w", encoding="utf-8") as f:
      f.write(assembly(symbols))
    with open(script, "w", encoding="utf-8") as f:
      f.write(version_script(symbols))
    subprocess.run([cc, "-shared", "-nostdlib", "-o", out_path, asm,
                    f"-Wl,-soname,{soname}", f"-Wl,--version-script={script}"], check=True)


def stub_tables(libdir: str, baseline: tuple[int, ...]) -> dict[str, list[Symbol]]:
  """stub file name -> the symbols it defines."""
  tables: dict[str, list[Symbol]] = {stub: [] for stub in LIBRARIES}
  for stub, (_, real) in LIBRARIES.items():
    if real is None:
      continue
    symbols = read_symbols(os.path.join(libdir, real))
    if stub != "libc.so.6":
      tables[stub] = list(choose(symbols, baseline).values())
      continue
    moves = read_moves()
    for name, sym in choose(symbols, baseline).items():
      tables[moves.get(name, "libc.so.6")].append(sym)
  return tables


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--out", required=True, help="folder for the stubs (created)")
  parser.add_argument("--baseline", default="2.28", help="newest glibc version to bind to")
  parser.add_argument("--libdir", default="/lib/x86_64-linux-gnu",
                      help="where the toolchain's real glibc libraries are")
  parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
  parser.add_argument("--record_moves", metavar="OLD_LIBDIR",
                      help="print the moves file from an old glibc's libraries instead")
  parser.add_argument("--list", action="store_true",
                      help="print 'stub symbol version' lines instead of linking")
  args = parser.parse_args(argv)
  baseline = version_key("GLIBC_" + args.baseline)
  if baseline is None:
    parser.error(f"--baseline {args.baseline!r} is not a version like 2.28")
  if args.record_moves:
    print("# Made by make_glibc_stubs.py --record_moves from glibc 2.31 (Debian 11).")
    print("\n".join(record_moves(args.record_moves, args.libdir, baseline)))
    return 0
  tables = stub_tables(args.libdir, baseline)
  if args.list:
    for stub, symbols in tables.items():
      for sym in sorted(symbols, key=lambda s: s.name):
        print(stub, sym.name, sym.version)
    return 0
  os.makedirs(args.out, exist_ok=True)
  for stub, symbols in tables.items():
    soname, _ = LIBRARIES[stub]
    link_stub(os.path.join(args.out, stub), soname, symbols, args.cc)
  with open(os.path.join(args.out, "libc.so"), "w", encoding="utf-8") as f:
    f.write(LIBC_SCRIPT)
  return 0


if __name__ == "__main__":
  sys.exit(main())
