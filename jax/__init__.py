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
from jax._src.api import jacfwd as jacfwd
from jax._src.api import jacrev as jacrev
from jax._src.api import hessian as hessian
from jax._src.custom_derivatives import custom_jvp as custom_jvp
from jax._src.custom_derivatives import custom_vjp as custom_vjp
from jax._src.custom_derivatives import checkpoint as checkpoint
from jax._src.custom_derivatives import remat as remat
from jax._src.custom_derivatives import checkpoint_policies as checkpoint_policies
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
from jax import nn as nn
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
from jax._src.tree_util import tree_map as tree_map, tree_leaves as tree_leaves, tree_structure as tree_structure
from jax import errors as errors
from jax.tools.env_info import print_environment_info as print_environment_info
# Modules and names that libraries built on jax import (kept in one alphabetised block).
from jax import ad_checkpoint as ad_checkpoint
from jax import core as core
from jax import custom_batching as custom_batching
from jax import custom_derivatives as custom_derivatives
from jax import debug as debug
from jax import dtypes as dtypes
from jax import extend as extend
from jax import flatten_util as flatten_util
from jax import interpreters as interpreters
from jax import monitoring as monitoring
from jax import profiler as profiler
from jax import stages as stages
from jax import typing as typing
from jax._src.dtypes_public import float0 as float0
from jax._src.extend_core import ensure_compile_time_eval as ensure_compile_time_eval
from jax._src.lib import _jax as _jaxlib_ext
from jax._src.name_stack import named_call as named_call
from jax._src.name_stack import named_scope as named_scope
from jax.version import __version_info__ as __version_info__
Device = _jaxlib_ext.Device
del _jaxlib_ext
