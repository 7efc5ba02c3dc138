"""The GEMM variants (gemm_kernels.cc built once per instruction set) define
no symbol the linker could merge across them or with the rest of the plugin:
every global or weak symbol a variant defines names that variant.

Arguments: the output files of the gemm_avx2 and gemm_avx512 libraries.
"""
import collections
import os
import subprocess
import sys
import unittest

# Symbols the compiler emits in any object with exception tables; data, not code.
ALLOWED = {"DW.ref.__gxx_personality_v0"}
# nm letters of defined symbols with external linkage.
EXTERNAL_KINDS = set("TDBRVWui")


def defined_external_symbols(archive):
  out = subprocess.run(["nm", "--defined-only", archive], check=True, capture_output=True,
                       text=True).stdout
  symbols = set()
  for line in out.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in EXTERNAL_KINDS:
      symbols.add(parts[2])
  return symbols


def archives_by_variant(paths):
  found = collections.defaultdict(list)
  for path in paths:
    name = os.path.basename(path)
    for variant in ("avx512", "avx2"):
      if name.startswith("libgemm_%s." % variant) and name.endswith(".a"):
        found[variant].append(path)
  return found


class GemmSymbolsTest(unittest.TestCase):

  def setUp(self):
    self.archives = archives_by_variant(sys.argv[1:])
    self.assertEqual(sorted(self.archives), ["avx2", "avx512"], sys.argv[1:])

  def test_every_external_symbol_names_its_variant(self):
    for variant, paths in self.archives.items():
      for path in paths:
        symbols = defined_external_symbols(path)
        self.assertIn("_ZN3xla3cpu%dgemm_%s7GemmF32ERKNS0_8GemmArgsIfEE" % (
            len("gemm_" + variant), variant), symbols)
        stray = sorted(s for s in symbols - ALLOWED
                       if ("Gemm_" + variant) not in s and ("gemm_" + variant) not in s)
        self.assertEqual(stray, [], "%s defines symbols without its variant's name" % path)

  def test_variants_share_no_symbol(self):
    avx2 = set().union(*(defined_external_symbols(p) for p in self.archives["avx2"]))
    avx512 = set().union(*(defined_external_symbols(p) for p in self.archives["avx512"]))
    self.assertEqual(sorted((avx2 & avx512) - ALLOWED), [])


if __name__ == "__main__":
  unittest.main(argv=sys.argv[:1])
