"""Special functions lowered as polynomial/bit expansions: erf_inv, nextafter.

The expansions are the ones XLA's client library uses (jax lowers through them),
so results match real JAX bit for bit: erf_inv is Giles' approximation
(single- and double-precision coefficient sets), nextafter steps the integer
representation of the float.
"""

from __future__ import annotations

import math

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import elementwise as ew
from jax._src.lax import shape as lax_shape
from jax._src.lax.utils import same_dtypes, same_shapes, standard_primitive
from jax._src.lowering import hlo

# ----------------------------------------------------------------------------- erf_inv

_ERF_INV_F32 = (  # (w < 5, w >= 5): highest order first
    (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
     -0.00125372503, -0.00417768164, 0.246640727, 1.50140941),
    (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
     -0.0076224613, 0.00943887047, 1.00167406, 2.83297682),
)

_ERF_INV_F64 = (  # (w < 6.25, w < 16, w >= 16)
    (-3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
     1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
     6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
     2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
     1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
     4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
     0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
     0.24015818242558961693, 1.6536545626831027356),
    (2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
     1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
     2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
     6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
     0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
     -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
     3.0838856104922207635),
    (-2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
     -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
     2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
     -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
     7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
     1.0103004648645343977, 4.8499064014085844221),
)


def _horner(coeffs, w):
  p = lax_shape.full_like(w, coeffs[0])
  for c in coeffs[1:]:
    p = ew.add(lax_shape.full_like(w, c), ew.mul(p, w))
  return p


def _erf_inv_expansion(x):
  c = lambda v: lax_shape.full_like(x, v)
  w = ew.neg(ew.log1p(ew.mul(x, ew.neg(x))))
  if core.get_aval(x).dtype == np.float64:
    lt1, lt2 = ew.lt(w, c(6.25)), ew.lt(w, c(16.0))
    sw = ew.sqrt(w)
    p = ew.select(lt1, _horner(_ERF_INV_F64[0], ew.sub(w, c(3.125))),
                  ew.select(lt2, _horner(_ERF_INV_F64[1], ew.sub(sw, c(3.25))),
                            _horner(_ERF_INV_F64[2], ew.sub(sw, c(5.0)))))
  else:
    lt = ew.lt(w, c(5.0))
    p = ew.select(lt, _horner(_ERF_INV_F32[0], ew.sub(w, c(2.5))),
                  _horner(_ERF_INV_F32[1], ew.sub(ew.sqrt(w), c(3.0))))
  result = ew.mul(p, x)
  return ew.select(ew.eq(ew.abs(x), c(1.0)), ew.mul(x, c(math.inf)), result)


def _erf_inv_lowering(ctx, x):
  dt = x.aval.dtype
  if dt in (np.float32, np.float64):
    return hlo.lower_fun(_erf_inv_expansion)(ctx, x)
  # f16/bf16: compute in f32, as XLA does
  up = ctx.convert(x, np.float32)
  sub = hlo.LoweringContext(ctx.comp, ctx.prefix, [up.aval], [up.aval])
  return ctx.convert(hlo.lower_fun(_erf_inv_expansion)(sub, up), dt)


erf_inv_p = ew.unary("erf_inv", None, ew.KIND_REAL_FLOAT)
def erf_inv(x): return erf_inv_p.bind(x)
ad.defjvp2(erf_inv_p, lambda t, ans, x: ew.mul(t, ew.mul(
    lax_shape.full_like(x, math.sqrt(math.pi) / 2), ew.exp(ew.mul(ans, ans)))))
hlo.lowering_rules[erf_inv_p] = _erf_inv_lowering

# ----------------------------------------------------------------------------- nextafter

_INT_OF = {2: np.int16, 4: np.int32, 8: np.int64}


def _nextafter_expansion(x, y):
  dt = core.get_aval(x).dtype
  it = np.dtype(_INT_OF[dt.itemsize])
  xi = ew.bitcast_convert_type(x, it)
  yi = ew.bitcast_convert_type(y, it)
  one = lax_shape.full_like(xi, 1)
  sign_bit = lax_shape.full_like(xi, np.iinfo(it).min)  # only the sign bit set
  x_zero = ew.eq(x, lax_shape.full_like(x, 0))
  # Away from zero: step the integer towards y (up when y is beyond x in x's direction).
  towards_larger_magnitude = ew.eq(ew.gt(y, x), ew.gt(x, lax_shape.full_like(x, 0)))
  stepped = ew.select(towards_larger_magnitude, ew.add(xi, one), ew.sub(xi, one))
  from_zero = ew.bitwise_or(ew.bitwise_and(yi, sign_bit), one)  # smallest subnormal, y's sign
  out = ew.bitcast_convert_type(ew.select(x_zero, from_zero, stepped), dt)
  out = ew.select(ew.eq(x, y), y, out)
  nan = ew.bitwise_or(ew.ne(x, x), ew.ne(y, y))
  return ew.select(nan, lax_shape.full_like(x, math.nan), out)


def _nextafter_abstract_eval(x, y):
  same_shapes("nextafter", x, y)
  same_dtypes("nextafter", x, y)
  if not dtypes.is_inexact(x.dtype) or dtypes.is_complex(x.dtype):
    raise TypeError(f"nextafter needs real floating-point arguments, got {x.str_short(short_dtypes=True)}")
  return ShapedArray(x.shape, x.dtype, x.weak_type and y.weak_type)


nextafter_p = standard_primitive("nextafter", _nextafter_abstract_eval)
def nextafter(x1, x2): return nextafter_p.bind(*ew.match_and_broadcast(x1, x2))
ad.defjvp_zero(nextafter_p)
batching.defbroadcasting(nextafter_p, size_one=False)  # bound with one shape
hlo.lowering_rules[nextafter_p] = hlo.lower_fun(_nextafter_expansion)
