"""Where traced operations come from in the user's code: tracebacks shown to users skip
frames of jax and of the files libraries register here."""

from jax._src.traceback_util import register_exclusion as register_exclusion
