"""JAX-style arrays, transformations and compilation to XLA HLO (public API)."""

from jax.version import __version__ as __version__
# Importing jax checks the jaxlib version rule at once (it loads no plugin).
from jax._src import lib as _lib  # noqa: F401
from jax._src.config import config as config
from jax._src.api import jit as jit
from jax._src.api import grad as grad
from jax._src.api import value_and_grad as value_and_grad
from jax._src.api import jvp as jvp
from jax._src.api import vjp as vjp
from jax._src.api import linearize as linearize
from jax._src.api import vmap as vmap
from jax._src.pmap import pmap as pmap
from jax._src.api import make_jaxpr as make_jaxpr
from jax._src.api import clear_caches as clear_caches
from jax._src.api import jacfwd as jacfwd
from jax._src.api import jacrev as jacrev
from jax._src.api import hessian as hessian
from jax._src.custom_derivatives import custom_jvp as custom_jvp
from jax._src.custom_derivatives import custom_vjp as custom_vjp
from jax._src.remat import checkpoint as checkpoint
from jax._src.remat import remat as remat
from jax._src.ad_checkpoint import checkpoint_policies as checkpoint_policies
from jax._src.api import eval_shape as eval_shape
from jax._src.api import ShapeDtypeStruct as ShapeDtypeStruct
from jax._src.api import device_put as device_put
from jax._src.api import block_until_ready as block_until_ready
from jax._src.api import devices as devices
from jax._src.api import device_count as device_count
from jax._src.api import local_devices as local_devices
from jax._src.api import local_device_count as local_device_count
from jax._src.api import default_backend as default_backend
from jax._src.array import Array as Array

import jax._src.numpy.array_methods as _array_methods  # installs array operators
from jax import numpy as numpy
from jax import lax as lax
from jax import random as random
from jax import tree_util as tree_util
from jax import tree as tree
from jax._src.api import device_get as device_get
from jax._src.api import linear_transpose as linear_transpose
from jax._src.api import closure_convert as closure_convert
from jax import sharding as sharding
from jax._src.sharding import make_mesh as make_mesh
from jax._src.shard_map import shard_map as shard_map
from jax._src.callback import pure_callback as pure_callback
from jax import errors as errors
from jax.tools.env_info import print_environment_info as print_environment_info

# Transformations and configuration context managers.
from jax._src.api import jacobian as jacobian
from jax._src.name_stack import named_call as named_call
from jax._src.name_stack import named_scope as named_scope
from jax._src.api import ensure_compile_time_eval as ensure_compile_time_eval
from jax._src.custom_derivatives import custom_gradient as custom_gradient
from jax._src.dtypes import float0 as float0
from jax._src.config import enable_x64_context as enable_x64
from jax._src.config import disable_jit as disable_jit
from jax._src.config import make_user_context as make_user_context
from jax._src.config import debug_nans as debug_nans
from jax._src.config import debug_infs as debug_infs
from jax._src.config import log_compiles as log_compiles
from jax._src.config import enable_checks as enable_checks
from jax._src.config import check_tracer_leaks as check_tracer_leaks
from jax._src.config import checking_leaks as checking_leaks
from jax._src.config import numpy_dtype_promotion as numpy_dtype_promotion
from jax._src.config import numpy_rank_promotion as numpy_rank_promotion
from jax._src.config import default_matmul_precision as default_matmul_precision
from jax._src.config import default_device as default_device
from jax._src.config import default_prng_impl as default_prng_impl
from jax._src.config import transfer_guard as transfer_guard
from jax._src.config import transfer_guard_host_to_device as transfer_guard_host_to_device
from jax._src.config import transfer_guard_device_to_host as transfer_guard_device_to_host
from jax._src.config import transfer_guard_device_to_device as transfer_guard_device_to_device
from jax._src.config import no_tracing as no_tracing
from jax._src.config import no_execution as no_execution
from jax._src.config import allow_f16_reductions as allow_f16_reductions
from jax._src.config import array_garbage_collection_guard as array_garbage_collection_guard
from jax._src.config import auto_pcast as auto_pcast
from jax._src.config import debug_key_reuse as debug_key_reuse
from jax._src.config import enable_custom_prng as enable_custom_prng
from jax._src.config import explain_cache_misses as explain_cache_misses
from jax._src.config import jax2tf_associative_scan_reductions as jax2tf_associative_scan_reductions
from jax._src.config import legacy_prng_key as legacy_prng_key
from jax._src.config import remove_size_one_mesh_axis_from_type as remove_size_one_mesh_axis_from_type
from jax._src.config import softmax_custom_jvp as softmax_custom_jvp
from jax._src.config import thread_guard as thread_guard
from jax._src.config import threefry_partitionable as threefry_partitionable
from jax._src.api import typeof as typeof
from jax._src.api import fwd_and_bwd as fwd_and_bwd
# Modules and names that libraries built on jax import (kept in one alphabetised block).
from jax import ad_checkpoint as ad_checkpoint
from jax import core as core
from jax import custom_batching as custom_batching
from jax import custom_derivatives as custom_derivatives
from jax import debug as debug
from jax import dtypes as dtypes
from jax import interpreters as interpreters
from jax import monitoring as monitoring
from jax import stages as stages
from jax import typing as typing
from jax._src.sharding import NamedSharding as NamedSharding
from jax._src.sharding import PartitionSpec as P
from jax._src.sharding import Shard as Shard
from jax._src.xla_bridge import process_count as process_count
from jax._src.xla_bridge import process_index as process_index
from jax._src.array_constructors import copy_to_host_async as copy_to_host_async
from jax._src.array_constructors import effects_barrier as effects_barrier
from jax._src.array_constructors import host_count as host_count
from jax._src.array_constructors import host_id as host_id
from jax._src.array_constructors import host_ids as host_ids
from jax._src.array_constructors import live_arrays as live_arrays
from jax._src.array_constructors import make_array_from_callback as make_array_from_callback
from jax._src.array_constructors import (
    make_array_from_process_local_data as make_array_from_process_local_data)
from jax._src.array_constructors import (
    make_array_from_single_device_arrays as make_array_from_single_device_arrays)
from jax._src.array_constructors import process_indices as process_indices
from jax._src.array_constructors import reshard as reshard
from jax._src.mesh_context import set_mesh as set_mesh
from jax._src.shard_map import smap as smap
from jax import ref as ref
from jax import api_util as api_util
from jax import lib as lib
from jax._src.ref import Ref as Ref
from jax._src.ref import ds as ds
from jax._src.ref import empty_ref as empty_ref
from jax._src.ref import free_ref as free_ref
from jax._src.ref import freeze as freeze
from jax._src.ref import new_ref as new_ref
from jax._src.lib import _jax as _jaxlib_ext
from jax.version import __version_info__ as __version_info__
Device = _jaxlib_ext.Device
del _jaxlib_ext

# Libraries imported on first use (`jax.scipy.special.x`, `from jax import nn`), so that
# `import jax` does not pay for them.
import typing as _typing  # noqa: E402

if _typing.TYPE_CHECKING:  # what type checkers and editors see
  # For type checkers only; at run time the __getattr__ below imports each on first use.
  from jax import (  # noqa: F401
      distributed as distributed,
      dlpack as dlpack,
      experimental as experimental,
      export as export,
      extend as extend,
      flatten_util as flatten_util,
      image as image,
      nn as nn,
      ops as ops,
      profiler as profiler,
      scipy as scipy,
  )
else:
  from jax._src import lazy_loader as _lazy_loader  # only needed in this branch

  __getattr__, __dir__ = _lazy_loader.attach(__name__, [
      "distributed", "dlpack", "experimental", "export", "extend", "flatten_util", "image",
      "nn", "ops", "profiler", "scipy"])
  del _lazy_loader
del _typing
