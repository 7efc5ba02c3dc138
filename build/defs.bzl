"""The project's only build macros: C++ libraries and tests, the per-Python
nanobind extension, plugin shared objects, limited-API extensions and wheels."""

load("//build:copts.bzl", "DEFAULT_COPTS", "TEST_COPTS")
load("//third_party:repositories.bzl", "PYTHON_VERSIONS")

def py_tag(version):
    """'3.12' -> 'cp312'."""
    return "cp" + version.replace(".", "")

def xla_cc_library(name, copts = [], **kwargs):
    native.cc_library(name = name, copts = DEFAULT_COPTS + copts, **kwargs)

def xla_cc_test(name, copts = [], linkstatic = True, **kwargs):
    # Static: with hidden visibility a test cannot link against shared libraries.
    native.cc_test(name = name, copts = TEST_COPTS + copts, linkstatic = linkstatic, **kwargs)

# Every shared object we ship loads on glibc 2.28 and newer (manylinux_2_28).
# The toolchain's glibc is newer, so the link searches stubs of the C libraries
# first (build/manylinux/make_glibc_stubs.py: each symbol's newest version not
# newer than 2.28), our hidden replacements give the few newer functions our
# dependencies call (glibc_compat.c), and libstdc++/libgcc are linked in
# statically (the system's may be older than the toolchain's) and kept hidden by
# each object's version script and --exclude-libs. A symbol with no old enough
# version fails the link of a plugin (-z defs); Python extensions leave the
# interpreter's symbols undefined, so tests/wheels checks that theirs are all
# Python's.
_GLIBC_STUBS = "//build/manylinux:glibc_2_28"
MANYLINUX_LINKOPTS = [
    "-L$(BINDIR)/build/manylinux/glibc_2_28",
    "-Wl,--exclude-libs,ALL",
    # The toolchain appends a dynamic -lstdc++ after these options: link the
    # archive first, then let --as-needed drop the now unused shared library.
    "-l:libstdc++.a",
    "-static-libgcc",
    "-Wl,--as-needed",
    # Where these functions lived before glibc 2.34 (the stubs put them back).
    "-lpthread",
    "-ldl",
    "-lrt",
    "-lm",
]

def shared_object(name, deps = [], linkopts = [], additional_linker_inputs = [], static_libgcc = True, **kwargs):
    """A shared object we ship (plugin, extension module, dlopened helper):
    links against the manylinux_2_28 glibc stubs with our replacements and a
    static libstdc++. `linkopts` should name a version script that exports only
    the object's entry points. `static_libgcc = False` keeps the system's
    unwinder (libgcc_s) for an object that C++ exceptions cross into from a
    system library: two unwinders cannot share one exception."""
    manylinux = MANYLINUX_LINKOPTS if static_libgcc else [
        o for o in MANYLINUX_LINKOPTS if o != "-static-libgcc"
    ] + ["-shared-libgcc"]
    native.cc_binary(
        name = name,
        linkshared = True,
        deps = deps + ["//build/manylinux:glibc_compat"],
        linkopts = linkopts + manylinux,
        additional_linker_inputs = additional_linker_inputs + [_GLIBC_STUBS],
        **kwargs
    )

_EXTENSION_VERSION_SCRIPT = "//build:extension_version_script.lds"
_EXTENSION_LINKOPTS = ["-Wl,--version-script=$(location %s)" % _EXTENSION_VERSION_SCRIPT]

def nanobind_extension(name, srcs, deps = [], copts = []):
    """One `<name>_cp3XY.so` per supported Python, each against that Python's headers."""
    for version in PYTHON_VERSIONS:
        tag = version.replace(".", "_")
        shared_object(
            name = "%s_%s.so" % (name, py_tag(version)),
            srcs = srcs,
            copts = DEFAULT_COPTS + ["-fno-strict-aliasing"] + copts,
            linkopts = _EXTENSION_LINKOPTS + ["-Wl,--gc-sections"],
            deps = deps + [_EXTENSION_VERSION_SCRIPT, "@nanobind//:nanobind_%s" % tag, "@python//:python_%s" % tag],
        )

def nanobind_stubs(name, extension, module, package, version, submodules = []):
    """`.pyi` stubs of a built nanobind extension, made by nanobind's stubgen run
    under the extension's own Python: `<name>/<module>/__init__.pyi` plus one
    `<name>/<module>/<sub>.pyi` per submodule (a stub package next to the .so)."""
    tag = version.replace(".", "_")
    so_name = "%s.cpython-%s-x86_64-linux-gnu.so" % (module, version.replace(".", ""))
    outs = ["%s/%s/__init__.pyi" % (name, module)] + ["%s/%s/%s.pyi" % (name, module, s) for s in submodules]
    native.genrule(
        name = name,
        srcs = [extension],
        outs = outs,
        tools = ["@python//:bin/python_" + tag, "@nanobind//:stubgen.py"],
        cmd = " && ".join([
            "stage=$$(mktemp -d)",
            "mkdir -p $$stage/%s" % package,
            "touch $$stage/%s/__init__.py" % package,
            "cp $(location %s) $$stage/%s/%s" % (extension, package, so_name),
            "$(location @python//:bin/python_%s) $(location @nanobind//:stubgen.py) -q -i $$stage -m %s.%s -r -O $(RULEDIR)/%s" % (tag, package, module, name),
            "rm -rf $$stage",
        ]),
    )
    return outs

def limited_api_extension(name, srcs, deps = [], copts = []):
    """A CPython extension against the stable ABI of 3.10 (loads on 3.10 and newer)."""
    shared_object(
        name = name + ".so",
        srcs = srcs,
        copts = DEFAULT_COPTS + ["-DPy_LIMITED_API=0x030A0000"] + copts,
        linkopts = _EXTENSION_LINKOPTS,
        deps = deps + [_EXTENSION_VERSION_SCRIPT, "@python//:python_3_10"],
    )

def plugin_shared_object(name, deps, version_script = "//build:version_script.lds"):
    """A plugin library that statically links its own copy of XLA, LLVM and
    libstdc++ and exports exactly one symbol, GetPjrtApi."""
    shared_object(
        name = name,
        deps = deps + [version_script],
        linkopts = [
            "-Wl,--version-script=$(location %s)" % version_script,
            "-Wl,--gc-sections",
            "-Wl,-z,defs",
        ],
    )

def _wheel_impl(ctx):
    dist = ctx.attr.distribution
    version = ctx.attr.version
    tag = "%s-%s-%s" % (ctx.attr.python_tag, ctx.attr.abi_tag, ctx.attr.platform_tag)
    out = ctx.actions.declare_file("%s-%s-%s.whl" % (dist.replace("-", "_"), version, tag))
    args = ctx.actions.args()
    args.add("--output", out)
    args.add("--distribution", dist)
    args.add("--version", version)
    args.add("--tag", tag)
    args.add("--summary", ctx.attr.summary)
    args.add("--requires_python", ctx.attr.requires_python)
    args.add("--description", ctx.file.description)
    args.add("--license", ctx.file.license)
    for r in ctx.attr.requires:
        args.add("--requires", r.replace("{VERSION}", version).replace("{MIN}", ctx.attr.minimum_version))
    for extra, reqs in ctx.attr.extras.items():
        for r in reqs.split(";"):
            args.add("--extra", "%s:%s" % (extra, r.replace("{VERSION}", version)))
    for ep in ctx.attr.entry_points:
        args.add("--entry_point", ep)
    for ep in ctx.attr.exports_only_get_pjrt_api:
        args.add("--check_exports", ep)
    for k, v in ctx.attr.substitutions.items():
        args.add("--substitute", "%s=%s" % (k, v.replace("{VERSION}", version).replace("{MIN}", ctx.attr.minimum_version)))
    inputs = [ctx.file.description, ctx.file.license]
    for target, dest in ctx.attr.files.items():
        for f in target.files.to_list():
            d = dest
            if d == "" or d.endswith("/"):
                d = d + _strip_prefix(f, ctx.attr.strip_prefix)
            args.add("--file", "%s=%s" % (f.path, d))
            inputs.append(f)
    # python3 from PATH: the tool needs only the standard library and binutils' nm.
    ctx.actions.run_shell(
        outputs = [out],
        inputs = inputs + [ctx.file._tool],
        command = 'python3 "%s" "$@"' % ctx.file._tool.path,
        arguments = [args],
        mnemonic = "Wheel",
        progress_message = "Assembling wheel %s" % out.basename,
    )
    return [DefaultInfo(files = depset([out]))]

def _strip_prefix(f, prefix):
    path = f.short_path
    if prefix and path.startswith(prefix):
        path = path[len(prefix):]
    return path.lstrip("/")

py_wheel = rule(
    implementation = _wheel_impl,
    attrs = {
        "distribution": attr.string(mandatory = True),
        "version": attr.string(mandatory = True),
        "minimum_version": attr.string(default = ""),
        "python_tag": attr.string(default = "py3"),
        "abi_tag": attr.string(default = "none"),
        "platform_tag": attr.string(default = "any"),
        "summary": attr.string(mandatory = True),
        "requires_python": attr.string(default = ">=3.10"),
        "requires": attr.string_list(),
        "extras": attr.string_dict(),
        "entry_points": attr.string_list(doc = "group:name=value"),
        "files": attr.label_keyed_string_dict(allow_files = True, doc = "target -> install path; a path ending in / keeps the file's own path under it (minus strip_prefix)"),
        "strip_prefix": attr.string(default = ""),
        "substitutions": attr.string_dict(doc = "@KEY@ placeholders replaced in installed .py files"),
        "exports_only_get_pjrt_api": attr.string_list(doc = "installed .so paths that must export exactly GetPjrtApi"),
        "description": attr.label(allow_single_file = True, mandatory = True),
        "license": attr.label(allow_single_file = True, mandatory = True),
        "_tool": attr.label(default = "//build:wheel/build_wheel.py", allow_single_file = True),
    },
)
