"""The name JAX gives its dispatch module, kept because libraries import it
(`jax._src.dispatch.apply_primitive`, `wait_for_tokens`); execution lives in
`jax._src.execution`."""

from jax._src.execution import apply_primitive as apply_primitive


def wait_for_tokens() -> None:
  """Wait until every side-effecting computation issued so far has finished.

  Effectful programs (debug prints, io callbacks) run to completion before the call
  that issued them returns here, so nothing is ever pending."""
