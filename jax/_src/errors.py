"""User-facing exception classes. Each docstring says what causes it and how to fix it."""

from __future__ import annotations


class JAXTypeError(TypeError):
  """Base class of the errors below that are raised for a wrong kind of value."""


class ConcretizationTypeError(JAXTypeError):
  """A traced value was used where a concrete (known) Python value is needed.

  Cause: inside ``jit``, ``vmap`` or ``grad`` arguments become abstract tracers:
  their shape and dtype are known but not their values. Code that needs the
  value, such as ``int(x)``, ``float(x)``, ``x.item()``, ``np.asarray(x)`` or a
  shape computed from ``x``, cannot run while tracing.

  Fix: mark the argument static (``jax.jit(f, static_argnums=...)``), compute the
  value outside the transformed function, or use value-independent operations
  (``jnp.where`` instead of ``if``, ``lax`` control flow instead of Python loops).
  """

  def __init__(self, tracer, context: str = ""):
    aval = getattr(tracer, "aval", None)
    what = aval.str_short(short_dtypes=True) if aval is not None else type(tracer).__name__
    msg = f"Abstract tracer value encountered where a concrete value is expected: {what}."
    if context:
      msg += f"\n{context}"
    msg += ("\nThe value is only known when the function runs, not while it is traced. "
            "Mark the argument static (static_argnums/static_argnames) or avoid "
            "needing its value.")
    super().__init__(msg)


class TracerBoolConversionError(ConcretizationTypeError):
  """``bool(x)`` (an ``if``, ``while``, ``and``/``or``) was called on a traced value.

  Cause: Python control flow on a traced array needs its value.

  Fix: use ``jnp.where(cond, a, b)`` or ``lax.cond`` for data-dependent choices,
  or make the argument static.
  """

  def __init__(self, tracer):
    super().__init__(tracer, "The problem arose with the `bool` function (an `if`, "
                     "`while`, `and`/`or` or `assert` on a traced value).")


class TracerIntegerConversionError(ConcretizationTypeError):
  """``int(x)`` or ``operator.index(x)`` was called on a traced value.

  Cause: Python needs an actual integer, e.g. as a shape, a list index or a
  ``range`` bound. Fix: pass that value as a static argument.
  """

  def __init__(self, tracer):
    super().__init__(tracer, "The problem arose with the `int`/`__index__` function.")


class TracerArrayConversionError(JAXTypeError):
  """A traced value was converted to a NumPy array (``np.asarray(x)``).

  Cause: NumPy functions run eagerly on concrete data, tracers have none.

  Fix: use the ``jax.numpy`` function instead of the ``numpy`` one inside
  transformed functions.
  """

  def __init__(self, tracer):
    aval = getattr(tracer, "aval", None)
    what = aval.str_short(short_dtypes=True) if aval is not None else type(tracer).__name__
    super().__init__(
        f"The numpy.ndarray conversion method __array__() was called on traced array "
        f"{what}. Use jax.numpy instead of numpy inside jit/grad/vmap.")


class UnexpectedTracerError(JAXTypeError):
  """A tracer escaped the transformation that created it.

  Cause: a traced value was stored somewhere (a global, a list, ``self``) during
  tracing and used after the transformation had finished.

  Fix: return values out of transformed functions instead of storing them.
  """


class JAXIndexError(IndexError):
  """Base class of the errors below that are raised for a bad index."""


class NonConcreteBooleanIndexError(JAXIndexError):
  """A boolean mask was used as an index on a traced array (``x[mask]`` inside ``jit``).

  Cause: the result's shape depends on how many entries of the mask are True,
  and shapes must be known while tracing.

  Fix: keep the shape fixed, e.g. ``jnp.where(mask, x, 0)`` instead of ``x[mask]``,
  ``x.sum(where=mask)`` for reductions, or ``jnp.nonzero(mask, size=N)`` with a
  static bound; or index outside of ``jit``.
  """

  def __init__(self, tracer):
    aval = getattr(tracer, "aval", tracer)
    what = aval.str_short(short_dtypes=True) if hasattr(aval, "str_short") else str(aval)
    super().__init__(f"Array boolean indices must be concrete; got {what}")


class KeyReuseError(JAXTypeError):
  """A PRNG key was used twice (reported when `jax_debug_key_reuse` is on).

  Fix: split the key (`jax.random.split`) and use each piece once."""


class JaxprTypeError(TypeError):
  """A jaxpr failed its type check (`jax_enable_checks`): an equation's inputs or outputs
  do not have the types its primitive gives them."""


class InconclusiveDimensionOperation(Exception):
  """A comparison or arithmetic on symbolic dimensions whose result depends on the values
  the dimensions take."""
