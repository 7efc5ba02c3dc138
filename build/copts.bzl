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

# Host kernels compiled ahead of time (Eigen GEMM, convolution, decompositions)
# target x86-64-v3, the level real-world JAX users' CPUs have had for a decade;
# without it Eigen falls back to SSE2 at a third of the speed. Every target that
# instantiates Eigen uses exactly these flags, so the linker never mixes copies
# of one template built for different instruction sets. The CPU client checks
# the host at creation (CheckHostCpu in cpu_client.cc).
# (The wheels are x86_64 only.)
HOST_KERNEL_COPTS = ["-mavx2", "-mfma", "-mf16c"]

# The x86-64-v4 (AVX-512) copy of the GEMM kernels, chosen at run time on
# hosts that have it (xla/backends/cpu/runtime/gemm.h). Only code built as a
# separate variant, with its own symbol names, may use these flags.
HOST_KERNEL_AVX512_COPTS = HOST_KERNEL_COPTS + [
    "-mavx512f",
    "-mavx512cd",
    "-mavx512vl",
    "-mavx512dq",
    "-mavx512bw",
]
