"""Staging to jaxprs and partial evaluation (`jax.interpreters.partial_eval`)."""

from jax._src.interpreters.partial_eval import DynamicJaxprTrace as DynamicJaxprTrace
from jax._src.interpreters.partial_eval import DynamicJaxprTracer as DynamicJaxprTracer
from jax._src.interpreters.partial_eval import JaxprTrace as JaxprTrace
from jax._src.interpreters.partial_eval import JaxprTracer as JaxprTracer
from jax._src.interpreters.partial_eval import PartialVal as PartialVal
from jax._src.interpreters.partial_eval import convert_constvars_jaxpr as convert_constvars_jaxpr
from jax._src.interpreters.partial_eval import dce_jaxpr as dce_jaxpr
from jax._src.interpreters.partial_eval import partial_eval_jaxpr_rules as partial_eval_jaxpr_custom_rules
from jax._src.interpreters.partial_eval import partial_eval_rules as custom_partial_eval_rules
from jax._src.interpreters.partial_eval import trace_to_jaxpr_dynamic as _trace_to_jaxpr_dynamic
from jax._src.interpreters.partial_eval import trace_to_jaxpr_nounits as trace_to_jaxpr_nounits


def trace_to_jaxpr_dynamic(fun, in_avals, *args, **kwargs):
  """Stage `fun` (a function or WrappedFun of flat arguments) into (jaxpr, out_avals, consts)."""
  del args, kwargs  # debug info and keep_inputs: every input is kept here
  call = getattr(fun, "call_wrapped", fun)
  jaxpr, consts = _trace_to_jaxpr_dynamic(lambda *xs: list(call(*xs)), list(in_avals))
  return jaxpr, [v.aval for v in jaxpr.outs], consts
