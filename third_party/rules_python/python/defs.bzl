"""Offline stand-in: forwards to Bazel's native Python rules."""
def py_library(**kw): native.py_library(**kw)
def py_binary(**kw): native.py_binary(**kw)
def py_test(**kw): native.py_test(**kw)
def py_runtime(**kw): native.py_runtime(**kw)
def py_runtime_pair(**kw):
    if hasattr(native, "py_runtime_pair"):
        native.py_runtime_pair(**kw)
