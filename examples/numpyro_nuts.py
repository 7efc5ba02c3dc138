"""A Bayesian linear regression fitted with numpyro's NUTS sampler.

    python examples/numpyro_nuts.py

Synthetic data y = 1.5 x - 0.5 + noise. Prints the potential energy (the negative
log joint density, the sampler's "loss") of every 20th posterior sample, then the
posterior means; deterministic (fixed PRNG keys, one chain).

The step size is fixed and warmup adapts only the (diagonal) mass matrix. Step-size
adaptation feeds every iteration's acceptance probability back into the step size,
and that probability is exp of the difference of two energies near 22: a one-ulp
difference in either becomes tens of ulps there, so any ulp-level difference in how
a compiler contracts multiply-adds sends two otherwise equal chains apart. With a
fixed step size, a chain is a fixed function of the keys and the data, which is
what this example compares with real JAX's.
"""

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS


def model(x, y=None):
  slope = numpyro.sample("slope", dist.Normal(0.0, 5.0))
  intercept = numpyro.sample("intercept", dist.Normal(0.0, 5.0))
  sigma = numpyro.sample("sigma", dist.HalfNormal(1.0))
  numpyro.sample("y", dist.Normal(slope * x + intercept, sigma), obs=y)


def main():
  key_x, key_noise, key_mcmc = jax.random.split(jax.random.PRNGKey(0), 3)
  x = jax.random.uniform(key_x, (50,), minval=-2.0, maxval=2.0)
  y = 1.5 * x - 0.5 + 0.3 * jax.random.normal(key_noise, (50,))
  kernel = NUTS(model, step_size=0.1, adapt_step_size=False)
  mcmc = MCMC(kernel, num_warmup=200, num_samples=200, num_chains=1, progress_bar=False)
  mcmc.run(key_mcmc, x, y, extra_fields=("potential_energy",))
  energy = mcmc.get_extra_fields()["potential_energy"]
  for step in range(0, energy.shape[0], 20):
    print(f"step {step} loss {float(energy[step]):.8g}")
  samples = mcmc.get_samples()
  for name in ("slope", "intercept", "sigma"):
    print(f"mean {name} {float(jnp.mean(samples[name])):.8g}")


if __name__ == "__main__":
  main()
