"""lax.reduce_precision: round floats to a narrower format while keeping their dtype."""

from __future__ import annotations

import operator

from jax._src import dtypes
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax.utils import standard_primitive
from jax._src.lowering import hlo


def _abstract_eval(x, *, exponent_bits, mantissa_bits):
  if not dtypes.is_float(x.dtype):
    raise TypeError(f"reduce_precision requires a floating-point operand, got {x.str_short(short_dtypes=True)}")
  if exponent_bits < 1 or mantissa_bits < 0:
    raise ValueError(f"reduce_precision: exponent_bits must be >= 1 and mantissa_bits >= 0, got "
                     f"{exponent_bits} and {mantissa_bits}")
  return x


reduce_precision_p = standard_primitive("reduce_precision", _abstract_eval)


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
  """Round `operand` as if to a float with the given exponent and mantissa widths."""
  return reduce_precision_p.bind(operand, exponent_bits=operator.index(exponent_bits),
                                 mantissa_bits=operator.index(mantissa_bits))


def _lowering(ctx, x, *, exponent_bits, mantissa_bits):
  return ctx.op("reduce-precision", ctx.avals_out[0], x,
                attrs=f"exponent_bits={exponent_bits}, mantissa_bits={mantissa_bits}")


# Rounding is treated as the identity for derivatives, applied to the tangent as well.
ad.deflinear(reduce_precision_p, lambda ct, x, **params: [reduce_precision_p.bind(ct, **params)])
batching.defvectorized(reduce_precision_p)
hlo.lowering_rules[reduce_precision_p] = _lowering
