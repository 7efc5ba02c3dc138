"""Compiler options in one place."""

# Every C++ target of ours: hidden symbols by default so that plugins export only
# what they mark, and code linked into several plugins never clashes.
DEFAULT_COPTS = [
    "-fvisibility=hidden",
    "-fvisibility-inlines-hidden",
    "-Wall",
    "-Wno-sign-compare",
    "-Wno-unused-function",
]

# LLVM is built without RTTI and exceptions; code that includes its headers and
# subclasses its types must match.
LLVM_COPTS = ["-fno-rtti"]

TEST_COPTS = DEFAULT_COPTS
