"""One macro for every plugin wheel: the shared object, the stable-ABI extension
and the wheel, so the CPU plugin is built exactly like the GPU and TPU ones."""

load("//build:defs.bzl", "limited_api_extension", "plugin_shared_object", "py_wheel", "xla_cc_library")
load("@jax_version//:version.bzl", "VERSION")
load("//xla/pjrt/c:c_api_version.bzl", "PJRT_API_MAJOR", "PJRT_API_MINOR")

def jax_plugin(name, distribution, platforms, priority, backend, plugin_info, description, requires = [],
               extra_libraries = []):
    """name: plugin name ("cpu"); backend: the cc_library that defines
    `const xla::PluginInfo& xla::<plugin_info>()`; extra_libraries: shared objects
    installed beside the plugin library (which it may dlopen from its own directory)."""
    library = "xla_%s_plugin.so" % name
    xla_cc_library(
        name = "pjrt_entry",
        srcs = ["//plugins/common:pjrt_entry.cc"],
        copts = [
            "-DJAX_PLUGIN_INFO=" + plugin_info,
            "-DJAX_PLUGIN_VERSION=\\\"%s\\\"" % VERSION,
        ],
        deps = [
            backend,
            "//xla/pjrt:client",
            "//xla/pjrt/c:c_api_wrapper",
            "//xla/pjrt/c:pjrt_c_api",
        ],
        alwayslink = True,
    )
    plugin_shared_object(
        name = library,
        deps = [":pjrt_entry"],
    )
    limited_api_extension(
        name = "_plugin_ext",
        srcs = ["//plugins/common:plugin_ext.c"],
        copts = [
            "-DJAX_PLUGIN_VERSION=\\\"%s\\\"" % VERSION,
            "-DJAX_PLUGIN_MODULE=_plugin_ext",
        ],
        deps = ["//xla/pjrt/c:pjrt_c_api"],
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
        files = dict({
            "//plugins/common:jax_plugin_init.py": package + "__init__.py",
            ":" + library: package + library,
            ":_plugin_ext.so": package + "_plugin_ext.abi3.so",
        }, **{lib: package + lib.split(":")[-1] for lib in extra_libraries}),
        entry_points = ["jax_plugins:xla_%s=jax_plugins.xla_%s" % (name, name)],
        exports_only_get_pjrt_api = [package + library],
        substitutions = {
            "VERSION": "{VERSION}",
            "DIST": distribution,
            "DESCRIPTION": description,
            "PLUGIN": name,
            "PLATFORMS": ",".join(platforms),
            "C_API_MAJOR": str(PJRT_API_MAJOR),
            "C_API_MINOR": str(PJRT_API_MINOR),
            "PRIORITY": str(priority),
            "LIBRARY": library,
        },
    )
