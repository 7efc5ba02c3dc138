"""Gamma-family, zeta, incomplete beta, Bessel and erfc primitives.

Each primitive lowers through an expansion written in lax ops (traced into the
HLO by `hlo.lower_fun`): Lanczos for lgamma, recurrence plus asymptotic series
for digamma, Euler-Maclaurin for the Hurwitz zeta, a power series and a Lentz
continued fraction for the incomplete gamma (carrying the derivative in `a` for
igamma_grad_a and random_gamma_grad), a Lentz continued fraction for the
incomplete beta. Half-precision inputs are computed in float32.
"""

from __future__ import annotations

import math

import numpy as np

from jax._src import core
from jax._src.interpreters import ad
from jax._src.lax import control_flow
from jax._src.lax import elementwise as ew
from jax._src.lax import reductions
from jax._src.lax import shape as lax_shape
from jax._src.lowering import hlo

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _c(x, v):
  return lax_shape.full_like(x, v)


def _is_f64(x) -> bool:
  return core.get_aval(x).dtype == np.float64


def _eps(x):
  return np.finfo(core.get_aval(x).dtype).eps


def _polyval(coeffs, x):
  """Horner's rule, highest-degree coefficient first."""
  acc = _c(x, coeffs[0])
  for v in coeffs[1:]:
    acc = ew.add(ew.mul(acc, x), _c(x, v))
  return acc


def _lowering(expansion):
  """Lower through `expansion`, in float32 for half-precision operands."""
  def rule(ctx, *args, **params):
    dt = ctx.avals_in[0].dtype
    if dt in (np.float32, np.float64):
      return hlo.lower_fun(expansion)(ctx, *args, **params)
    ups = [ctx.convert(a, np.float32) for a in args]
    sub = hlo.LoweringContext(ctx.comp, ctx.prefix, [u.aval for u in ups],
                              [core.ShapedArray(ctx.avals_out[0].shape, np.float32)])
    return ctx.convert(hlo.lower_fun(expansion)(sub, *ups, **params), dt)
  return rule


def _match_all(*xs):
  """Give Python scalars the dtype of an array operand and broadcast scalars to its shape."""
  ref = next((x for x in xs if not isinstance(x, (int, float))), None)
  if ref is None:
    return tuple(ew.convert_element_type(x, np.dtype(float), True) for x in xs)
  aval = core.get_aval(ref)
  out = []
  for x in xs:
    if isinstance(x, (int, float)):
      x = ew.convert_element_type(x, aval.dtype, True)
    out.append(x)
  shape = max((core.get_aval(x).shape for x in out), key=len)
  return tuple(x if core.get_aval(x).shape == shape or core.get_aval(x).shape != ()
               else lax_shape.broadcast_in_dim(x, shape, ()) for x in out)


def _primitive(name: str, nargs: int, expansion):
  if nargs == 1:
    prim = ew.unary(name, None, ew.KIND_FLOAT)
  else:  # operands are given one shape (`match_and_broadcast`)
    prim = ew.nary(name, None, ew.KIND_FLOAT, broadcasting=False)
  hlo.lowering_rules[prim] = _lowering(expansion)
  return prim


def _no_grad(name: str, what: str):
  """A JVP for an argument without a derivative. Tangents here are never symbolic zeros,
  so a known all-zero tangent contributes nothing and a known non-zero one is an error;
  a traced tangent (inside grad or jit) cannot be told apart from an unused argument's
  zeros and contributes nothing."""
  def rule(t, *args, **params):
    if not isinstance(t, core.Tracer):
      if np.any(np.asarray(t) != 0):
        raise NotImplementedError(
            f"{name}: differentiation with respect to {what} is not supported")
      return lax_shape.full_like(t, 0)
    return lax_shape.full_like(t, 0)
  return rule

# ----------------------------------------------------------------------------- lgamma

_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)


def _lgamma_lanczos(y):
  """log Gamma(y) for y >= 0.5."""
  z = ew.sub(y, _c(y, 1.0))
  acc = _c(z, _LANCZOS[0])
  for i, v in enumerate(_LANCZOS[1:], start=1):
    acc = ew.add(acc, ew.div(_c(z, v), ew.add(z, _c(z, float(i)))))
  t = ew.add(z, _c(z, _LANCZOS_G + 0.5))
  # (z + 0.5) log t - t, written as (z + 0.5)(log t - 1) - (g - 0.5)... keeps large y exact
  main = ew.sub(ew.mul(ew.add(z, _c(z, 0.5)), ew.sub(ew.log(t), _c(z, 1.0))),
                _c(z, _LANCZOS_G))
  return ew.add(main, ew.add(ew.log(acc), _c(z, _HALF_LOG_2PI)))


def _sin_pi(x):
  """sin(pi x) with the argument reduced first, so integers give exact zeros."""
  r = ew.sub(x, ew.mul(_c(x, 2.0), ew.floor(ew.mul(x, _c(x, 0.5)))))  # in [0, 2)
  return ew.sin(ew.mul(_c(x, math.pi), r))


def _lgamma_expansion(x):
  reflect = ew.lt(x, _c(x, 0.5))
  y = ew.select(reflect, ew.sub(_c(x, 1.0), x), x)
  direct = _lgamma_lanczos(y)
  reflected = ew.sub(ew.log(ew.div(_c(x, math.pi), ew.abs(_sin_pi(x)))), direct)
  out = ew.select(reflect, reflected, direct)
  pole = ew.bitwise_and(ew.le(x, _c(x, 0.0)), ew.eq(x, ew.floor(x)))
  return ew.select(ew.bitwise_or(pole, ew.eq(ew.abs(x), _c(x, math.inf))), _c(x, math.inf), out)


lgamma_p = _primitive("lgamma", 1, _lgamma_expansion)
def lgamma(x): return lgamma_p.bind(x)

# ----------------------------------------------------------------------------- digamma


def _digamma_expansion(x):
  reflect = ew.lt(x, _c(x, 0.5))
  y = ew.select(reflect, ew.sub(_c(x, 1.0), x), x)
  shift = _c(y, 0.0)
  for k in range(6):
    shift = ew.add(shift, ew.div(_c(y, 1.0), ew.add(y, _c(y, float(k)))))
  w = ew.add(y, _c(y, 6.0))
  inv2 = ew.div(_c(w, 1.0), ew.mul(w, w))
  # Bernoulli-number terms 1/12, -1/120, 1/252, -1/240, 1/132 over even powers of w.
  tail = ew.mul(inv2, _polyval((1 / 132, -1 / 240, 1 / 252, -1 / 120, 1 / 12), inv2))
  psi = ew.sub(ew.sub(ew.sub(ew.log(w), ew.div(_c(w, 0.5), w)), tail), shift)
  # psi(1 - x) - psi(x) = pi / tan(pi x)
  r = ew.sub(x, ew.floor(x))
  cot = ew.div(_c(x, math.pi), ew.tan(ew.mul(_c(x, math.pi), r)))
  out = ew.select(reflect, ew.sub(psi, cot), psi)
  pole = ew.bitwise_and(ew.le(x, _c(x, 0.0)), ew.eq(x, ew.floor(x)))
  out = ew.select(pole, _c(x, math.nan), out)
  return ew.select(ew.eq(x, _c(x, math.inf)), x, out)


digamma_p = _primitive("digamma", 1, _digamma_expansion)
def digamma(x): return digamma_p.bind(x)

# ----------------------------------------------------------------------------- zeta, polygamma

# B_2j / (2j)! for j = 1..12
_ZETA_TERMS = tuple(b / math.factorial(2 * j) for j, b in enumerate(
    (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
     43867 / 798, -174611 / 330, 854513 / 138, -236364091 / 2730), start=1))


def _signed_pow(base, neg_x, x):
  """base ** neg_x for integer x when base < 0 (the sign follows x's parity)."""
  mag = ew.exp(ew.mul(neg_x, ew.log(ew.abs(base))))
  odd = ew.eq(ew.sub(x, ew.mul(_c(x, 2.0), ew.floor(ew.mul(x, _c(x, 0.5))))), _c(x, 1.0))
  flip = ew.bitwise_and(ew.lt(base, _c(base, 0.0)), odd)
  return ew.select(flip, ew.neg(mag), mag)


def _zeta_expansion(x, q):
  """Hurwitz zeta sum_k (q + k)^-x by Euler-Maclaurin summation after N direct terms."""
  n = 12 if _is_f64(x) else 9
  neg_x = ew.neg(x)
  total = _c(x, 0.0)
  for k in range(n):
    total = ew.add(total, _signed_pow(ew.add(q, _c(q, float(k))), neg_x, x))
  w = ew.add(q, _c(q, float(n)))
  w_neg_x = ew.exp(ew.mul(neg_x, ew.log(w)))
  total = ew.add(total, ew.div(ew.mul(w, w_neg_x), ew.sub(x, _c(x, 1.0))))
  total = ew.add(total, ew.mul(_c(x, 0.5), w_neg_x))
  fact = ew.div(ew.mul(x, w_neg_x), w)
  inv_w2 = ew.div(_c(w, 1.0), ew.mul(w, w))
  for j, coef in enumerate(_ZETA_TERMS, start=1):
    total = ew.add(total, ew.mul(_c(x, coef), fact))
    fact = ew.mul(fact, ew.mul(ew.mul(ew.add(x, _c(x, 2 * j - 1.0)), ew.add(x, _c(x, 2.0 * j))),
                               inv_w2))
  q_int = ew.eq(q, ew.floor(q))
  x_int = ew.eq(x, ew.floor(x))
  nonpos_q = ew.le(q, _c(q, 0.0))
  out = ew.select(ew.bitwise_and(nonpos_q, q_int), _c(x, math.inf), total)
  out = ew.select(ew.bitwise_and(nonpos_q, ew.bitwise_not(x_int)), _c(x, math.nan), out)
  out = ew.select(ew.eq(x, _c(x, 1.0)), _c(x, math.inf), out)
  return ew.select(ew.lt(x, _c(x, 1.0)), _c(x, math.nan), out)


zeta_p = _primitive("zeta", 2, _zeta_expansion)
def zeta(x, q): return zeta_p.bind(*ew.match_and_broadcast(x, q))


def _polygamma_expansion(m, x):
  sign = ew.select(ew.eq(ew.sub(m, ew.mul(_c(m, 2.0), ew.floor(ew.mul(m, _c(m, 0.5))))),
                         _c(m, 1.0)), _c(m, 1.0), _c(m, -1.0))  # (-1)^(m+1)
  m1 = ew.add(m, _c(m, 1.0))
  out = ew.mul(ew.mul(sign, ew.exp(_lgamma_expansion(m1))), _zeta_expansion(m1, x))
  out = ew.select(ew.eq(m, _c(m, 0.0)), _digamma_expansion(x), out)
  bad_m = ew.bitwise_or(ew.ne(m, ew.floor(m)), ew.lt(m, _c(m, 0.0)))
  return ew.select(bad_m, _c(x, math.nan), out)


polygamma_p = _primitive("polygamma", 2, _polygamma_expansion)
def polygamma(m, x): return polygamma_p.bind(*ew.match_and_broadcast(m, x))

ad.defjvp(lgamma_p, lambda t, x: ew.mul(t, digamma(x)))
ad.defjvp(digamma_p, lambda t, x: ew.mul(t, polygamma(_c(x, 1.0), x)))
ad.defjvp(polygamma_p, _no_grad("polygamma", "m"),
          lambda t, m, x: ew.mul(t, polygamma(ew.add(m, _c(m, 1.0)), x)))
ad.defjvp(zeta_p, _no_grad("zeta", "x"),
          lambda t, x, q: ew.mul(t, ew.mul(ew.neg(x), zeta(ew.add(x, _c(x, 1.0)), q))))

# ----------------------------------------------------------------------------- incomplete gamma
#
# P(a, x) = exp(a log x - x - lgamma(a + 1)) * s,  s = sum_n x^n / ((a + 1)...(a + n))
# Q(a, x) = exp(a log x - x - lgamma(a)) * h,      h a continued fraction (modified Lentz)
# Both loops also carry d/da of their sum, from which dP/da follows.

_MAX_ITERS = 2000


def _gamma_series(a, x):
  """(s, ds/da) of the series, for x <= a + 1."""
  eps = _c(a, _eps(a))

  def cond(state):
    n, t, s, _, _ = state
    return reductions.reduce_or(ew.bitwise_and(ew.lt(n, _c(a, _MAX_ITERS)),
                                               ew.gt(ew.abs(t), ew.mul(eps, ew.abs(s)))))

  def body(state):
    n, t, s, dlog, ds = state
    n = ew.add(n, _c(a, 1.0))
    dlog = ew.sub(dlog, ew.div(_c(a, 1.0), ew.add(a, n)))  # d log t_n / da
    t = ew.mul(t, ew.div(x, ew.add(a, n)))
    return n, t, ew.add(s, t), dlog, ew.add(ds, ew.mul(t, dlog))

  init = (_c(a, 0.0), _c(a, 1.0), _c(a, 1.0), _c(a, 0.0), _c(a, 0.0))
  _, _, s, _, ds = control_flow.while_loop(cond, body, init)
  return s, ds


def _gamma_cfrac(a, x):
  """(h, dh/da) of Q's continued fraction, for x > a + 1."""
  dtype = core.get_aval(a).dtype
  tiny, eps = _c(a, np.finfo(dtype).tiny * 1e3), _c(a, _eps(a))
  one = _c(a, 1.0)
  b0 = ew.sub(ew.add(x, one), a)
  d0 = ew.div(one, b0)
  dd0 = ew.div(one, ew.mul(b0, b0))  # d(1/b)/da with db/da = -1
  state0 = (_c(a, 0.0), b0, ew.div(one, tiny), _c(a, 0.0), d0, dd0, d0, dd0, one)

  def cond(state):
    i, *_, delta_err = state
    return reductions.reduce_or(ew.bitwise_and(ew.lt(i, _c(a, _MAX_ITERS)), ew.gt(delta_err, eps)))

  def body(state):
    i, b, cf, dcf, d, dd, h, dh, _ = state
    i = ew.add(i, one)
    an = ew.mul(ew.neg(i), ew.sub(i, a))
    dan = i
    b = ew.add(b, _c(a, 2.0))
    db = _c(a, -1.0)
    dn = ew.add(ew.mul(an, d), b)
    ddn = ew.add(ew.add(ew.mul(dan, d), ew.mul(an, dd)), db)
    dn = ew.select(ew.lt(ew.abs(dn), tiny), tiny, dn)
    cn = ew.add(b, ew.div(an, cf))
    dcn = ew.add(db, ew.div(ew.sub(ew.mul(dan, cf), ew.mul(an, dcf)), ew.mul(cf, cf)))
    cn = ew.select(ew.lt(ew.abs(cn), tiny), tiny, cn)
    d_inv = ew.div(one, dn)
    dd_inv = ew.neg(ew.div(ddn, ew.mul(dn, dn)))
    delta = ew.mul(d_inv, cn)
    ddelta = ew.add(ew.mul(dd_inv, cn), ew.mul(d_inv, dcn))
    return (i, b, cn, dcn, d_inv, dd_inv, ew.mul(h, delta),
            ew.add(ew.mul(dh, delta), ew.mul(h, ddelta)), ew.abs(ew.sub(delta, one)))

  out = control_flow.while_loop(cond, body, state0)
  return out[6], out[7]


def _gamma_parts(a, x):
  """(use_series, series sums, cfrac sums, xs, xc): each branch gets inputs where it converges."""
  small = ew.bitwise_or(ew.le(x, ew.add(a, _c(a, 1.0))), ew.lt(x, _c(x, 1.0)))
  xs = ew.select(small, x, a)
  xc = ew.select(small, ew.add(a, _c(a, 2.0)), x)
  return small, _gamma_series(a, xs), _gamma_cfrac(a, xc), xs, xc


def _log_prefix(a, x, lg):
  return ew.sub(ew.sub(ew.mul(a, ew.log(x)), x), lg)


def _igamma_edges(a, x, out, at_zero, at_inf):
  out = ew.select(ew.eq(x, _c(x, 0.0)), _c(x, at_zero), out)
  out = ew.select(ew.eq(x, _c(x, math.inf)), _c(x, at_inf), out)
  bad = ew.bitwise_or(ew.bitwise_or(ew.lt(x, _c(x, 0.0)), ew.le(a, _c(a, 0.0))),
                      ew.bitwise_or(ew.ne(a, a), ew.ne(x, x)))
  return ew.select(bad, _c(x, math.nan), out)


def _igamma_pq(a, x):
  small, (s, _), (h, _), xs, xc = _gamma_parts(a, x)
  p_series = ew.mul(ew.exp(_log_prefix(a, xs, _lgamma_expansion(ew.add(a, _c(a, 1.0))))), s)
  q_cfrac = ew.mul(ew.exp(_log_prefix(a, xc, _lgamma_expansion(a))), h)
  return small, p_series, q_cfrac


def _igamma_expansion(a, x):
  small, p, q = _igamma_pq(a, x)
  out = ew.select(small, p, ew.sub(_c(x, 1.0), q))
  return _igamma_edges(a, x, out, 0.0, 1.0)


def _igammac_expansion(a, x):
  small, p, q = _igamma_pq(a, x)
  out = ew.select(small, ew.sub(_c(x, 1.0), p), q)
  return _igamma_edges(a, x, out, 1.0, 0.0)


def _dp_da_over_pdf(a, x):
  """(dP/da) / pdf(x) for the Gamma(a, 1) density."""
  small, (s, ds), (h, dh), xs, xc = _gamma_parts(a, x)
  lx = ew.log(xs)
  series = ew.mul(ew.div(xs, a), ew.add(ew.mul(s, ew.sub(lx, _digamma_expansion(
      ew.add(a, _c(a, 1.0))))), ds))
  cfrac = ew.neg(ew.mul(xc, ew.add(ew.mul(h, ew.sub(ew.log(xc), _digamma_expansion(a))), dh)))
  return ew.select(small, series, cfrac)


def _gamma_log_pdf(a, x):
  return ew.sub(ew.sub(ew.mul(ew.sub(a, _c(a, 1.0)), ew.log(x)), x), _lgamma_expansion(a))


def _igamma_grad_a_expansion(a, x):
  out = ew.mul(_dp_da_over_pdf(a, x), ew.exp(_gamma_log_pdf(a, x)))
  return _igamma_edges(a, x, out, 0.0, 0.0)


def _random_gamma_grad_expansion(a, x):
  out = ew.neg(_dp_da_over_pdf(a, x))
  return ew.select(ew.eq(x, _c(x, 0.0)), _c(x, 0.0), out)


igamma_p = _primitive("igamma", 2, _igamma_expansion)
igammac_p = _primitive("igammac", 2, _igammac_expansion)
igamma_grad_a_p = _primitive("igamma_grad_a", 2, _igamma_grad_a_expansion)
random_gamma_grad_p = _primitive("random_gamma_grad", 2, _random_gamma_grad_expansion)
def igamma(a, x): return igamma_p.bind(*ew.match_and_broadcast(a, x))
def igammac(a, x): return igammac_p.bind(*ew.match_and_broadcast(a, x))
def igamma_grad_a(a, x): return igamma_grad_a_p.bind(*ew.match_and_broadcast(a, x))
def random_gamma_grad(*args):
  """d x / d a of a gamma sample x with shape parameter a: random_gamma_grad(a, x)."""
  if len(args) != 2:
    raise TypeError(f"random_gamma_grad takes two arguments (a, x), got {len(args)}")
  a, x = args
  return random_gamma_grad_p.bind(*ew.match_and_broadcast(a, x))


def _igamma_dx(t, a, x):
  return ew.mul(t, ew.exp(_gamma_log_pdf_traced(a, x)))


def _gamma_log_pdf_traced(a, x):
  return ew.sub(ew.sub(ew.mul(ew.sub(a, _c(a, 1.0)), ew.log(x)), x), lgamma(a))


ad.defjvp(igamma_p, lambda t, a, x: ew.mul(t, igamma_grad_a(a, x)), _igamma_dx)
ad.defjvp(igammac_p, lambda t, a, x: ew.neg(ew.mul(t, igamma_grad_a(a, x))),
          lambda t, a, x: ew.neg(_igamma_dx(t, a, x)))
ad.defjvp(igamma_grad_a_p, _no_grad("igamma_grad_a", "a"), _no_grad("igamma_grad_a", "x"))
ad.defjvp(random_gamma_grad_p, _no_grad("random_gamma_grad", "a"),
          _no_grad("random_gamma_grad", "x"))

# ----------------------------------------------------------------------------- incomplete beta


def _betainc_cfrac(a, b, x):
  """The continued fraction of I_x(a, b) (modified Lentz), for x < (a + 1) / (a + b + 2)."""
  dtype = core.get_aval(a).dtype
  tiny, eps = _c(a, np.finfo(dtype).tiny * 1e3), _c(a, _eps(a))
  one = _c(a, 1.0)
  guard = lambda v: ew.select(ew.lt(ew.abs(v), tiny), tiny, v)
  qab, qap, qam = ew.add(a, b), ew.add(a, one), ew.sub(a, one)
  d0 = ew.div(one, guard(ew.sub(one, ew.div(ew.mul(qab, x), qap))))

  def step(aa, c, d):
    d = ew.div(one, guard(ew.add(one, ew.mul(aa, d))))
    c = guard(ew.add(one, ew.div(aa, c)))
    return c, d, ew.mul(c, d)

  def cond(state):
    m, _, _, _, err = state
    return reductions.reduce_or(ew.bitwise_and(ew.lt(m, _c(a, _MAX_ITERS)), ew.gt(err, eps)))

  def body(state):
    m, c, d, h, _ = state
    m = ew.add(m, one)
    m2 = ew.mul(m, _c(m, 2.0))
    aa = ew.div(ew.mul(ew.mul(m, ew.sub(b, m)), x), ew.mul(ew.add(qam, m2), ew.add(a, m2)))
    c, d, delta = step(aa, c, d)
    h = ew.mul(h, delta)
    aa = ew.div(ew.neg(ew.mul(ew.mul(ew.add(a, m), ew.add(qab, m)), x)),
                ew.mul(ew.add(a, m2), ew.add(qap, m2)))
    c, d, delta = step(aa, c, d)
    return m, c, d, ew.mul(h, delta), ew.abs(ew.sub(delta, one))

  out = control_flow.while_loop(cond, body, (_c(a, 0.0), one, d0, d0, one))
  return out[3]


def _lbeta(a, b):
  return ew.sub(ew.add(_lgamma_expansion(a), _lgamma_expansion(b)),
                _lgamma_expansion(ew.add(a, b)))


def _betainc_expansion(a, b, x):
  one = _c(x, 1.0)
  swap = ew.gt(x, ew.div(ew.add(a, one), ew.add(ew.add(a, b), _c(a, 2.0))))
  aa, bb = ew.select(swap, b, a), ew.select(swap, a, b)
  xx = ew.select(swap, ew.sub(one, x), x)
  inside = ew.bitwise_and(ew.gt(xx, _c(x, 0.0)), ew.lt(xx, one))
  xx = ew.select(inside, xx, _c(x, 0.5))
  log_front = ew.sub(ew.add(ew.mul(aa, ew.log(xx)), ew.mul(bb, ew.log1p(ew.neg(xx)))),
                     _lbeta(aa, bb))
  val = ew.div(ew.mul(ew.exp(log_front), _betainc_cfrac(aa, bb, xx)), aa)
  out = ew.select(swap, ew.sub(one, val), val)
  out = ew.select(ew.eq(x, _c(x, 0.0)), _c(x, 0.0), out)
  out = ew.select(ew.eq(x, one), one, out)
  bad = ew.bitwise_or(ew.bitwise_or(ew.lt(x, _c(x, 0.0)), ew.gt(x, one)),
                      ew.bitwise_or(ew.le(a, _c(a, 0.0)), ew.le(b, _c(b, 0.0))))
  bad = ew.bitwise_or(bad, ew.bitwise_or(ew.ne(x, x), ew.bitwise_or(ew.ne(a, a), ew.ne(b, b))))
  return ew.select(bad, _c(x, math.nan), out)


regularized_incomplete_beta_p = _primitive("regularized_incomplete_beta", 3, _betainc_expansion)


def betainc(a, b, x):
  return regularized_incomplete_beta_p.bind(*_match_all(a, b, x))


def _betainc_dx(t, a, b, x):
  log_pdf = ew.sub(ew.add(ew.mul(ew.sub(a, _c(a, 1.0)), ew.log(x)),
                          ew.mul(ew.sub(b, _c(b, 1.0)), ew.log1p(ew.neg(x)))),
                   ew.sub(ew.add(lgamma(a), lgamma(b)), lgamma(ew.add(a, b))))
  return ew.mul(t, ew.exp(log_pdf))


ad.defjvp(regularized_incomplete_beta_p, _no_grad("betainc", "a"), _no_grad("betainc", "b"),
          _betainc_dx)

# ----------------------------------------------------------------------------- erfc

# Chebyshev-fitted exponent for erfc (fractional error below 1.2e-7 for every x >= 0).
_ERFC_EXPONENT = (0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807,
                  -0.18628806, 0.09678418, 0.37409196, 1.00002368, -1.26551223)


def _erfc_continued_fraction(ax, terms: int = 60):
  """erfc(x) = exp(-x^2)/sqrt(pi) / (x + 1/2/(x + 1/(x + 3/2/(x + ...)))), for large x."""
  acc = ax
  for k in range(terms, 0, -1):
    acc = ew.add(ax, ew.div(_c(ax, k / 2.0), acc))
  return ew.div(ew.exp(ew.neg(ew.mul(ax, ax))), ew.mul(acc, _c(ax, math.sqrt(math.pi))))


def _erfc_nonneg(ax):
  """erfc for ax >= 0, with relative accuracy in the tail (where 1 - erf cancels)."""
  one = _c(ax, 1.0)
  if _is_f64(ax):
    # Below 2 the cancellation in 1 - erf costs at most a factor erfc(2)^-1 ~ 200 of relative
    # precision; from 2 on, 60 terms of the continued fraction are exact to rounding.
    safe = ew.max(ax, _c(ax, 2.0))
    return ew.select(ew.lt(ax, _c(ax, 2.0)), ew.sub(one, ew.erf(ax)),
                     _erfc_continued_fraction(safe))
  t = ew.div(one, ew.add(one, ew.mul(_c(ax, 0.5), ax)))
  exponent = ew.sub(_polyval(_ERFC_EXPONENT, t), ew.mul(ax, ax))
  tail = ew.mul(t, ew.exp(exponent))
  return ew.select(ew.lt(ax, _c(ax, 0.5)), ew.sub(one, ew.erf(ax)), tail)


def _erfc_expansion(x):
  pos = _erfc_nonneg(ew.abs(x))
  return ew.select(ew.lt(x, _c(x, 0.0)), ew.sub(_c(x, 2.0), pos), pos)


erfc_p = _primitive("erfc", 1, _erfc_expansion)
def erfc(x): return erfc_p.bind(x)
ad.defjvp(erfc_p, lambda t, x: ew.mul(t, ew.mul(_c(x, -2 / math.sqrt(math.pi)),
                                                ew.exp(ew.neg(ew.mul(x, x))))))

# ----------------------------------------------------------------------------- Bessel i0e, i1e


def _bessel_ie(ax, nu: int):
  """exp(-x) I_nu(x) for x >= 0, nu in {0, 1}: power series up to 15, Hankel series above."""
  terms = 60 if _is_f64(ax) else 40
  small = ew.min(ax, _c(ax, 15.0))
  q = ew.mul(_c(ax, 0.25), ew.mul(small, small))
  coeffs = [1.0 / (math.factorial(k) * math.factorial(k + nu)) for k in range(terms)]
  series = _polyval(coeffs[::-1], q)
  if nu == 1:
    series = ew.mul(series, ew.mul(_c(ax, 0.5), small))
  series = ew.mul(series, ew.exp(ew.neg(small)))
  large = ew.max(ax, _c(ax, 15.0))
  inv8x = ew.div(_c(ax, 1.0), ew.mul(_c(ax, 8.0), large))
  total, term = _c(ax, 1.0), _c(ax, 1.0)
  for k in range(1, 20):
    term = ew.mul(term, ew.mul(inv8x, _c(ax, ((2 * k - 1) ** 2 - 4 * nu * nu) / k)))
    total = ew.add(total, term)
  asym = ew.div(total, ew.sqrt(ew.mul(_c(ax, 2 * math.pi), large)))
  return ew.select(ew.le(ax, _c(ax, 15.0)), series, asym)


def _i0e_expansion(x):
  return _bessel_ie(ew.abs(x), 0)


def _i1e_expansion(x):
  out = _bessel_ie(ew.abs(x), 1)
  return ew.select(ew.lt(x, _c(x, 0.0)), ew.neg(out), out)


bessel_i0e_p = _primitive("bessel_i0e", 1, _i0e_expansion)
bessel_i1e_p = _primitive("bessel_i1e", 1, _i1e_expansion)
def bessel_i0e(x): return bessel_i0e_p.bind(x)
def bessel_i1e(x): return bessel_i1e_p.bind(x)


def _i1e_jvp(t, ans, x):
  # d/dx i1e = i0e - i1e (sign(x) + 1/x); the limit at 0 is 1/2.
  zero = ew.eq(x, _c(x, 0.0))
  safe_x = ew.select(zero, _c(x, 1.0), x)
  d = ew.sub(bessel_i0e(x), ew.mul(ans, ew.add(ew.sign(x), ew.div(_c(x, 1.0), safe_x))))
  return ew.mul(t, ew.select(zero, _c(x, 0.5), d))


ad.defjvp2(bessel_i0e_p, lambda t, ans, x: ew.mul(t, ew.sub(bessel_i1e(x), ew.mul(ew.sign(x), ans))))
ad.defjvp2(bessel_i1e_p, _i1e_jvp)
