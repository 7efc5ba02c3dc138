"""Repositories for the native dependencies, all found on the local machine.

Nothing is downloaded here: LLVM and Eigen come from Debian packages, Python
headers from the machine's pyenv interpreters, nanobind from its PyPI package,
and protobuf's sources from the folder .ci/setup.sh unpacks them into.
"""

PYTHON_VERSIONS = ["3.10", "3.11", "3.12", "3.13"]

LLVM_PREFIX = "/usr/lib/llvm-19"

# LLVM components each backend links privately.
LLVM_COMPONENTS = {
    "cpu": ["orcjit", "native", "passes", "ipo"],
    # linker and bitreader: libdevice is linked into CUDA modules.
    "nvptx": ["nvptxcodegen", "nvptxdesc", "nvptxinfo", "passes", "ipo", "target", "codegen", "linker", "bitreader"],
    "amdgpu": ["amdgpucodegen", "amdgpuasmparser", "amdgpudesc", "amdgpuinfo", "passes", "ipo", "target", "codegen", "object"],
}

def _fail_missing(what, fix):
    fail("%s not found. %s" % (what, fix))

def _llvm_impl(rctx):
    prefix = rctx.os.environ.get("LLVM_PREFIX", LLVM_PREFIX)
    config = prefix + "/bin/llvm-config"
    if not rctx.path(config).exists:
        _fail_missing(config, "Install it with: apt-get install llvm-19-dev (or run .ci/setup.sh).")
    rctx.symlink(prefix + "/include", "include")
    rctx.symlink(prefix + "/lib", "lib")
    build = ['package(default_visibility = ["//visibility:public"])', ""]
    build.append('cc_library(name = "headers", hdrs = glob(["include/llvm/**", "include/llvm-c/**"]), includes = ["include"], defines = ["__STDC_CONSTANT_MACROS", "__STDC_FORMAT_MACROS", "__STDC_LIMIT_MACROS"])')
    for name, comps in LLVM_COMPONENTS.items():
        res = rctx.execute([config, "--libnames", "--link-static"] + comps)
        if res.return_code != 0:
            fail("llvm-config failed for %s: %s" % (name, res.stderr))
        libs = ['"lib/%s"' % l for l in res.stdout.strip().split(" ") if l]
        build.append("""cc_library(
    name = "%s",
    srcs = [%s],
    deps = [":headers"],
    linkopts = ["-Wl,-Bstatic", "-lzstd", "-lz", "-Wl,-Bdynamic", "-ldl", "-lpthread", "-lm", "-lrt"],
)""" % (name, ", ".join(libs)))
    rctx.file("BUILD.bazel", "\n".join(build) + "\n")
    rctx.file("WORKSPACE", 'workspace(name = "llvm")\n')

llvm_configure = repository_rule(
    implementation = _llvm_impl,
    environ = ["LLVM_PREFIX"],
    local = True,
)

def _pyenv_root(rctx):
    root = rctx.os.environ.get("PYENV_ROOT", "")
    if not root:
        res = rctx.execute(["pyenv", "root"])
        root = res.stdout.strip() if res.return_code == 0 else rctx.os.environ.get("HOME", "") + "/.pyenv"
    return root

def _find_version_dir(rctx, root, version):
    res = rctx.execute(["sh", "-c", "ls -d %s/versions/%s.* 2>/dev/null | sort -V | tail -1" % (root, version)])
    return res.stdout.strip()

def _python_impl(rctx):
    root = _pyenv_root(rctx)
    build = ['package(default_visibility = ["//visibility:public"])', ""]
    for version in PYTHON_VERSIONS:
        tag = version.replace(".", "_")
        vdir = _find_version_dir(rctx, root, version)
        inc = vdir + "/include/python" + version
        if vdir and rctx.path(inc + "/Python.h").exists:
            rctx.symlink(inc, "include_" + tag)
            build.append('cc_library(name = "python_%s", hdrs = glob(["include_%s/**/*.h"]), includes = ["include_%s"])' % (tag, tag, tag))
            # The interpreter itself: build steps that import a built extension (stubgen).
            rctx.symlink(vdir + "/bin/python" + version, "bin/python_" + tag)
            build.append('exports_files(["bin/python_%s"])' % tag)
        else:
            # Missing interpreters fail only the targets that need them.
            build.append('cc_library(name = "python_%s", srcs = ["MISSING_PYTHON_%s_UNDER_%s"])' % (tag, tag, root.replace("/", "_")))
            rctx.file("bin/python_" + tag, "#!/bin/sh\necho 'Python %s is not installed under %s' >&2\nexit 1\n" % (version, root), executable = True)
            build.append('exports_files(["bin/python_%s"])' % tag)
    rctx.file("BUILD.bazel", "\n".join(build) + "\n")
    rctx.file("WORKSPACE", 'workspace(name = "python")\n')

python_configure = repository_rule(
    implementation = _python_impl,
    environ = ["PYENV_ROOT"],
    local = True,
)

def _nanobind_impl(rctx):
    python = rctx.os.environ.get("JAX_BUILD_PYTHON", "python3")
    res = rctx.execute([python, "-c", "import nanobind, os; print(os.path.dirname(nanobind.__file__))"])
    if res.return_code != 0:
        _fail_missing("The nanobind package", "Install it with: %s -m pip install nanobind" % python)
    pkg = res.stdout.strip()
    rctx.symlink(pkg + "/include", "include")
    rctx.symlink(pkg + "/src", "src")
    rctx.symlink(pkg + "/ext", "ext")
    rctx.symlink(pkg + "/stubgen.py", "stubgen.py")  # runs as a plain script under any Python
    build = ['package(default_visibility = ["//visibility:public"])', 'exports_files(["stubgen.py"])', ""]
    for version in PYTHON_VERSIONS:
        tag = version.replace(".", "_")
        build.append("""cc_library(
    name = "nanobind_{tag}",
    srcs = glob(["src/*.cpp", "src/*.h"], exclude = ["src/nb_combined.cpp", "src/nb_backend.cpp", "src/nb_ft.cpp"]),
    hdrs = glob(["include/**/*.h", "ext/robin_map/include/**/*.h"]),
    includes = ["include", "ext/robin_map/include"],
    copts = ["-fvisibility=hidden", "-fno-strict-aliasing", "-O2", "-DNDEBUG"],
    deps = ["@python//:python_{tag}"],
    alwayslink = True,
)""".format(tag = tag))
    rctx.file("BUILD.bazel", "\n".join(build) + "\n")
    rctx.file("WORKSPACE", 'workspace(name = "nanobind")\n')

nanobind_configure = repository_rule(
    implementation = _nanobind_impl,
    environ = ["JAX_BUILD_PYTHON"],
    local = True,
)

def _eigen_impl(rctx):
    path = "/usr/include/eigen3"
    if not rctx.path(path + "/Eigen/Core").exists:
        _fail_missing("Eigen", "Install it with: apt-get install libeigen3-dev")
    rctx.symlink(path + "/Eigen", "Eigen")
    rctx.symlink(path + "/unsupported", "unsupported")
    rctx.file("BUILD.bazel", """package(default_visibility = ["//visibility:public"])
cc_library(name = "eigen", hdrs = glob(["Eigen/**", "unsupported/**"]), includes = ["."], defines = ["EIGEN_MPL2_ONLY"])
""")
    rctx.file("WORKSPACE", 'workspace(name = "eigen")\n')

eigen_configure = repository_rule(implementation = _eigen_impl, local = True)

def _version_impl(rctx):
    text = rctx.read(rctx.path(Label("//jax:version.py")))
    values = {}
    for line in text.splitlines():
        for key in ["_version", "_minimum_jaxlib_version", "_pjrt_c_api_major", "_pjrt_c_api_minor"]:
            if line.startswith(key + " ="):
                values[key] = line.split("=", 1)[1].strip().strip('"')
    rctx.file("version.bzl", """VERSION = "{v}"
MINIMUM_JAXLIB_VERSION = "{m}"
""".format(v = values["_version"], m = values["_minimum_jaxlib_version"]))
    rctx.file("BUILD.bazel", 'exports_files(["version.bzl"])\n')
    rctx.file("WORKSPACE", 'workspace(name = "jax_version")\n')

version_configure = repository_rule(implementation = _version_impl, local = True)

PROTOBUF_VERSION = "3.21.12"

# The lite runtime only: our schemas use optimize_for = LITE_RUNTIME, so no
# descriptors, reflection or text format are linked into plugins.
PROTOBUF_LITE_SRCS = [
    "any_lite.cc",
    "arena.cc",
    "arenastring.cc",
    "arenaz_sampler.cc",
    "extension_set.cc",
    "generated_enum_util.cc",
    "generated_message_tctable_lite.cc",
    "generated_message_util.cc",
    "implicit_weak_message.cc",
    "inlined_string_field.cc",
    "io/coded_stream.cc",
    "io/io_win32.cc",
    "io/strtod.cc",
    "io/zero_copy_stream.cc",
    "io/zero_copy_stream_impl.cc",
    "io/zero_copy_stream_impl_lite.cc",
    "map.cc",
    "message_lite.cc",
    "parse_context.cc",
    "repeated_field.cc",
    "repeated_ptr_field.cc",
    "stubs/bytestream.cc",
    "stubs/common.cc",
    "stubs/int128.cc",
    "stubs/status.cc",
    "stubs/statusor.cc",
    "stubs/stringpiece.cc",
    "stubs/stringprintf.cc",
    "stubs/structurally_valid.cc",
    "stubs/strutil.cc",
    "stubs/time.cc",
    "wire_format_lite.cc",
]

_PROTOBUF_SETUP_HINT = "Run .ci/setup.sh, which installs protobuf-compiler and unpacks the protobuf %s sources into ~/.cache/jax-third-party." % PROTOBUF_VERSION

def _protobuf_impl(rctx):
    cache = rctx.os.environ.get("JAX_THIRD_PARTY_CACHE", "")
    if not cache:
        cache = rctx.os.environ.get("HOME", "") + "/.cache/jax-third-party"
    root = "%s/protobuf-%s" % (cache, PROTOBUF_VERSION)
    if not rctx.path(root + "/src/google/protobuf/message_lite.cc").exists:
        _fail_missing("The protobuf %s source tree (%s)" % (PROTOBUF_VERSION, root), _PROTOBUF_SETUP_HINT)
    protoc = rctx.which("protoc")
    if protoc == None:
        _fail_missing("protoc", _PROTOBUF_SETUP_HINT)
    res = rctx.execute([protoc, "--version"])
    if res.return_code != 0 or res.stdout.strip() != "libprotoc " + PROTOBUF_VERSION:
        fail("protoc at %s reports '%s'; generated code must match the protobuf %s runtime. %s" %
             (protoc, res.stdout.strip(), PROTOBUF_VERSION, _PROTOBUF_SETUP_HINT))
    # Only the C++ sources: the tree's own BUILD files must not become packages here.
    rctx.symlink(root + "/src/google", "src/google")
    rctx.symlink(protoc, "bin/protoc")
    rctx.file("BUILD.bazel", """load("@//build:copts.bzl", "DEFAULT_COPTS")

package(default_visibility = ["//visibility:public"])

exports_files(["bin/protoc"])

cc_library(
    name = "protobuf_lite",
    srcs = [{srcs}],
    hdrs = glob(["src/google/protobuf/**/*.h", "src/google/protobuf/**/*.inc"]),
    includes = ["src"],
    # 3.21's packed-field reader copies zero bytes into a still-null buffer
    # (defined in practice, but UBSan's nonnull check stops --config=asan).
    copts = DEFAULT_COPTS + ["-DHAVE_PTHREAD", "-Wno-unused-variable", "-Wno-stringop-overflow", "-Wno-class-memaccess",
                             "-fno-sanitize=nonnull-attribute"],
    linkopts = ["-lpthread"],
)
""".format(srcs = ", ".join(['"src/google/protobuf/%s"' % s for s in PROTOBUF_LITE_SRCS])))
    rctx.file("WORKSPACE", 'workspace(name = "protobuf")\n')

protobuf_configure = repository_rule(
    implementation = _protobuf_impl,
    environ = ["JAX_THIRD_PARTY_CACHE", "HOME", "PATH"],
    local = True,
)

def jax_repositories():
    llvm_configure(name = "llvm")
    python_configure(name = "python")
    nanobind_configure(name = "nanobind")
    eigen_configure(name = "eigen")
    version_configure(name = "jax_version")
    protobuf_configure(name = "protobuf")
