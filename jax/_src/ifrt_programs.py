"""IFRT program descriptions (`jax.extend.ifrt_programs`): what a library hands to an IFRT
runtime (such as Pathways) to compile, as data. Making them needs no runtime; compiling
one needs a client that runs IFRT programs, which the plugins here do not provide."""

from __future__ import annotations

import types
from typing import Any


class _Description:
  """A kind and the fields that make it up."""

  def __init__(self, kind: str, **fields: Any):
    self.kind = kind
    self.fields = fields

  def __repr__(self):
    return f"{type(self).__name__}(kind={self.kind!r})"


class Program(_Description):
  """A program for an IFRT runtime: its kind and what it is made of."""


class CompileOptions(_Description):
  """Options for compiling an IFRT Program of the same kind."""


def _text_or_bytes(what: str, data) -> bytes:
  if isinstance(data, str):
    return data.encode("utf-8")
  if isinstance(data, (bytes, bytearray)):
    return bytes(data)
  raise TypeError(f"{what} takes str or bytes, got {type(data).__name__}")


def make_hlo_program(mlir_module) -> Program:
  """A program of an (MLIR) HLO module, given as text or bytecode."""
  return Program("hlo", module=_text_or_bytes("make_hlo_program", mlir_module))


def make_plugin_program(data) -> Program:
  """A program whose meaning only a runtime plugin knows: opaque data."""
  return Program("plugin", data=_text_or_bytes("make_plugin_program", data))


def make_colocated_python_program(name: str, fun, device_list, input_specs,
                                  output_specs) -> Program:
  """A Python function to run on the hosts of `device_list`."""
  return Program("colocated_python", name=str(name), fun=fun, devices=device_list,
                 input_specs=input_specs, output_specs=output_specs)


def make_xla_compile_options(options, executable_devices=None,
                             host_callbacks=()) -> CompileOptions:
  return CompileOptions("xla", options=options, executable_devices=executable_devices,
                        host_callbacks=tuple(host_callbacks))


def make_plugin_compile_options() -> CompileOptions:
  return CompileOptions("plugin")


def make_colocated_python_compile_options() -> CompileOptions:
  return CompileOptions("colocated_python")


# JAX exposes these as the jaxlib namespace `ifrt_programs`; libraries read it by that name.
ifrt_programs = types.SimpleNamespace(
    Program=Program, CompileOptions=CompileOptions, make_hlo_program=make_hlo_program,
    make_plugin_program=make_plugin_program,
    make_colocated_python_program=make_colocated_python_program,
    make_xla_compile_options=make_xla_compile_options,
    make_plugin_compile_options=make_plugin_compile_options,
    make_colocated_python_compile_options=make_colocated_python_compile_options)
