#!/usr/bin/env bash
# jaxlib's C++ under AddressSanitizer and UndefinedBehaviorSanitizer, driven by
# its Python tests: the extension (jaxlib/_jax), the CPU plugin and its
# collectives engine are built with --config=asan, put in place of the
# released ones in a fresh virtualenv made from dist/, and pytest runs there
# with the sanitizer runtime preloaded (Python itself is not instrumented, so
# libasan must come first). A report aborts the process, which fails the run.
#   SANITIZED_VENV   where the virtualenv goes (default: a temporary folder)
#   pytest arguments replace the default selection: tests/jaxlib plus the
#   tests/jax files that lean hardest on the C++ (dispatch, buffers, donation,
#   callbacks, pytrees, serialization, threads, size limits, sharding, control
#   flow, FFT, sorting, convolution, linear algebra, cross-process collectives).
# Needs dist/ with jax, jaxlib for python3 and jaxlib-cpu (built before this).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

py_version="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
py_tag="cp${py_version/./}"
venv="${SANITIZED_VENV:-$(mktemp -d)/venv}"

bazel build --config=asan "//jaxlib:_jax_${py_tag}.so" //plugins/cpu:xla_cpu_plugin.so \
  //xla/backends/cpu/collectives:libjax_cpu_collectives_gloo.so
bin="$(bazel info --config=asan bazel-bin)"

python3 build/build.py venv --python="$py_version" --packages=jax --extra pytest --extra grpcio "$venv"
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')"
extension="$(ls "$site"/jaxlib/_jax.cpython-*.so)"
plugin_dir="$site/jax_plugins/xla_cpu"
install -m 755 "$bin/jaxlib/_jax_${py_tag}.so" "$extension"
install -m 755 "$bin/plugins/cpu/xla_cpu_plugin.so" "$plugin_dir/xla_cpu_plugin.so"
install -m 755 "$bin/xla/backends/cpu/collectives/libjax_cpu_collectives_gloo.so" "$plugin_dir/"

if [ "$#" -eq 0 ]; then
  set -- tests/jaxlib \
    tests/jax/test_dispatch_fast_path.py tests/jax/test_jit_native_fast_path.py \
    tests/jax/test_execution.py tests/jax/test_shape_size_limits.py \
    tests/jax/test_callback.py tests/jax/test_dlpack.py tests/jax/test_donation.py \
    tests/jax/test_serialization.py tests/jax/test_threads.py tests/jax/test_tree_util.py \
    tests/jax/test_tree_util_more.py tests/jax/test_gather_scatter.py tests/jax/test_pmap.py \
    tests/jax/test_tracer_lifetime.py tests/jax/test_jax_array_protocol.py \
    tests/jax/test_sharding.py tests/jax/test_control_flow.py tests/jax/test_fft.py \
    tests/jax/test_sorting.py tests/jax/test_convolution.py tests/jax/test_linalg.py \
    tests/jax/test_distributed_collectives.py \
    -q -p no:cacheprovider
fi
# Paths are made absolute: pytest runs outside the checkout, whose jax/ and
# jaxlib/ folders would shadow the installed packages.
args=()
for a in "$@"; do
  if [ -e "${a%%::*}" ]; then args+=("$PWD/$a"); else args+=("$a"); fi
done
# allocator_may_return_null: the tests ask for terabytes on purpose and expect
# RESOURCE_EXHAUSTED, as without the sanitizer; leaks are the interpreter's.
(cd / && LD_PRELOAD="$(gcc -print-file-name=libasan.so)" \
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$venv/bin/python" -m pytest "${args[@]}")
