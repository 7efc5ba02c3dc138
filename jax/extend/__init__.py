"""Interfaces for libraries that extend jax with primitives and transformations."""

from jax.extend import backend as backend
from jax.extend import core as core
from jax.extend import ifrt_programs as ifrt_programs
from jax.extend import linear_util as linear_util
from jax.extend import random as random
from jax.extend import source_info_util as source_info_util
