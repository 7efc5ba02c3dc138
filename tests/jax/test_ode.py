"""jax.experimental.ode.odeint: values against closed forms and scipy, derivatives by the
adjoint method against analytic ones, under jit and vmap; the step helpers."""

import numpy as np
import pytest
import scipy.integrate

import jax
import jax.numpy as jnp
from jax.experimental import ode

pytestmark = pytest.mark.usefixtures("backend")


def decay(y, t, k):
  return -k * y


def test_exponential_decay_matches_closed_form():
  t = jnp.array([0., 0.5, 1., 2.])
  ys = ode.odeint(decay, jnp.float32(2.), t, 0.7)
  np.testing.assert_allclose(ys, 2 * np.exp(-0.7 * np.asarray(t)), rtol=1e-5)
  assert ys.shape == (4,) and ys.dtype == jnp.float32


def test_pytree_state_and_time_dependence_match_scipy():
  def f(state, t):
    x, v = state["x"], state["v"]
    return {"x": v, "v": -x + jnp.sin(t)}
  t = np.linspace(0., 3., 7)
  out = ode.odeint(f, {"x": jnp.float32(1.), "v": jnp.float32(0.)}, jnp.asarray(t),
                   rtol=1e-7, atol=1e-7)
  ref = scipy.integrate.solve_ivp(lambda tt, y: [y[1], -y[0] + np.sin(tt)], (0, 3), [1., 0.],
                                  t_eval=t, rtol=1e-10, atol=1e-10).y
  np.testing.assert_allclose(out["x"], ref[0], rtol=1e-4, atol=1e-5)
  np.testing.assert_allclose(out["v"], ref[1], rtol=1e-4, atol=1e-5)


def test_grad_with_respect_to_args_y0_and_t():
  t = jnp.array([0., 1., 2.])
  loss = lambda y0, ts, k: ode.odeint(decay, y0, ts, k)[-1]
  dy0, dt, dk = jax.grad(loss, argnums=(0, 1, 2))(1.5, t, 0.5)
  e = np.exp(-0.5 * 2.)
  np.testing.assert_allclose(dy0, e, rtol=1e-4)
  np.testing.assert_allclose(dk, -2. * 1.5 * e, rtol=1e-4)
  # y(T) = y0 exp(-k (T - t0)): d/dt0 = k y(T), d/dT = -k y(T), middle time unused.
  np.testing.assert_allclose(dt, [0.5 * 1.5 * e, 0., -0.5 * 1.5 * e], rtol=1e-3, atol=1e-6)


def test_closure_over_traced_values_is_differentiable():
  def loss(k):
    return ode.odeint(lambda y, t: -k * y, 1., jnp.array([0., 1.]))[-1]
  np.testing.assert_allclose(jax.grad(loss)(0.3), -np.exp(-0.3), rtol=1e-4)


def test_jit_and_vmap():
  t = jnp.array([0., 1.])
  solve = jax.jit(lambda y0, k: ode.odeint(decay, y0, t, k))
  ks = jnp.array([0.1, 0.5, 1.0])
  out = jax.vmap(solve, in_axes=(None, 0))(jnp.float32(1.), ks)
  np.testing.assert_allclose(out[:, -1], np.exp(-np.asarray(ks)), rtol=1e-5)


def test_args_must_be_arrays():
  with pytest.raises(TypeError, match="must be arrays or scalars"):
    ode.odeint(lambda y, t, s: y, 1., jnp.array([0., 1.]), "not an array")
  with pytest.raises(ValueError, match="1-D"):
    ode.odeint(decay, 1., jnp.zeros((2, 2)), 1.)


def test_quartic_fit_interpolates_its_conditions():
  y0, y1, ym, d0, d1, dt = 1., 3., 1.5, 0.5, 2., 2.
  c = ode.fit_4th_order_polynomial(y0, y1, ym, d0, d1, dt)
  p = np.poly1d(np.asarray(c))
  np.testing.assert_allclose([p(0), p(1), p(0.5), p.deriv()(0), p.deriv()(1)],
                             [y0, y1, ym, d0 * dt, d1 * dt], rtol=1e-6)


def test_runge_kutta_step_is_fifth_order_accurate():
  f = lambda y, t: y
  y0 = jnp.array([1.])
  y1, f1, err, k = ode.runge_kutta_step(f, y0, f(y0, 0.), 0., jnp.float32(0.1))
  np.testing.assert_allclose(y1, np.exp(0.1), rtol=1e-7)
  np.testing.assert_allclose(f1, y1)
  assert k.shape == (7, 1) and abs(float(err[0])) < 1e-6


def test_step_size_control():
  assert float(ode.optimal_step_size(0.1, 0.)) == pytest.approx(1.0)       # grows by ifactor
  assert float(ode.optimal_step_size(0.1, 1e12)) == pytest.approx(0.02)     # shrinks by dfactor
  assert float(ode.mean_error_ratio(jnp.array([1e-3]), 0., 1e-3, 0., 0.)) == pytest.approx(1.)
  h = ode.initial_step_size(lambda y, t: -y, 0., jnp.array([1.]), 4, 1e-6, 1e-6, jnp.array([-1.]))
  assert 0 < float(h) < 1
  np.testing.assert_allclose(ode.abs2(jnp.array([3 + 4j])), [25.])
