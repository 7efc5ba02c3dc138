"""One macro for every plugin wheel: the shared object, the stable-ABI extension
and the wheel, so the CPU plugin is built exactly like the GPU and TPU ones."""

load("//build:copts.bzl", "DEFAULT_COPTS")
load("//build:defs.bzl", "plugin_shared_object", "py_wheel")
load("@jax_version//:version.bzl", "VERSION")

def jax_plugin(name, distribution, platforms, priority, backend, description, requires = []):
    """name: plugin name ("cpu"); backend: the cc_library defining PluginInfoForThisPlugin()."""
    library = "xla_%s_plugin.so" % name
    plugin_shared_object(
        name = library,
        deps = ["//plugins/common:pjrt_entry", backend],
    )
    native.cc_binary(
        name = "_plugin_ext.so",
        srcs = ["//plugins/common:plugin_ext.c"],
        copts = DEFAULT_COPTS + [
            "-DPy_LIMITED_API=0x030A0000",
            "-DJAX_PLUGIN_VERSION=\\\"%s\\\"" % VERSION,
            "-DJAX_PLUGIN_MODULE=_plugin_ext",
        ],
        linkshared = True,
        deps = ["@python//:python_3_10", "//xla/pjrt/c:pjrt_c_api"],
    )
    package = "jax_plugins/xla_%s/" % name
    py_wheel(
        name = "wheel",
        distribution = distribution,
        version = VERSION,
        python_tag = "cp310",
        abi_tag = "abi3",
        platform_tag = "linux_x86_64",
        requires_python = ">=3.10",
        requires = requires,
        summary = "%s: %s" % (distribution, description),
        description = "//:README.md",
        license = "//:LICENSE",
        files = {
            "//plugins/common:jax_plugin_init.py": package + "__init__.py",
            ":" + library: package + library,
            ":_plugin_ext.so": package + "_plugin_ext.abi3.so",
        },
        entry_points = ["jax_plugins:xla_%s=jax_plugins.xla_%s" % (name, name)],
        exports_only_get_pjrt_api = [package + library],
        substitutions = {
            "VERSION": "{VERSION}",
            "DIST": distribution,
            "DESCRIPTION": description,
            "PLUGIN": name,
            "PLATFORMS": ",".join(platforms),
            "C_API_MAJOR": "1",
            "C_API_MINOR": "0",
            "PRIORITY": str(priority),
            "LIBRARY": library,
        },
    )
