"""jax.numpy: the NumPy API on jax arrays."""

import numpy as _np

from jax._src.array import Array as Array
ndarray = Array
from jax._src.numpy.creation import array as array
from jax._src.numpy.creation import asarray as asarray
from jax._src.numpy.creation import zeros as zeros
from jax._src.numpy.creation import ones as ones
from jax._src.numpy.creation import full as full
from jax._src.numpy.creation import empty as empty
from jax._src.numpy.creation import zeros_like as zeros_like
from jax._src.numpy.creation import ones_like as ones_like
from jax._src.numpy.creation import full_like as full_like
from jax._src.numpy.creation import arange as arange
from jax._src.numpy.creation import linspace as linspace
from jax._src.numpy.creation import eye as eye
from jax._src.numpy.ufuncs import add as add
from jax._src.numpy.ufuncs import subtract as subtract
from jax._src.numpy.ufuncs import multiply as multiply
from jax._src.numpy.ufuncs import divide as divide
from jax._src.numpy.ufuncs import true_divide as true_divide
from jax._src.numpy.ufuncs import floor_divide as floor_divide
from jax._src.numpy.ufuncs import remainder as remainder
from jax._src.numpy.ufuncs import mod as mod
from jax._src.numpy.ufuncs import power as power
from jax._src.numpy.ufuncs import maximum as maximum
from jax._src.numpy.ufuncs import minimum as minimum
from jax._src.numpy.ufuncs import arctan2 as arctan2
from jax._src.numpy.ufuncs import equal as equal
from jax._src.numpy.ufuncs import not_equal as not_equal
from jax._src.numpy.ufuncs import less as less
from jax._src.numpy.ufuncs import less_equal as less_equal
from jax._src.numpy.ufuncs import greater as greater
from jax._src.numpy.ufuncs import greater_equal as greater_equal
from jax._src.numpy.ufuncs import bitwise_and as bitwise_and
from jax._src.numpy.ufuncs import bitwise_or as bitwise_or
from jax._src.numpy.ufuncs import bitwise_xor as bitwise_xor
from jax._src.numpy.ufuncs import bitwise_not as bitwise_not
from jax._src.numpy.ufuncs import invert as invert
from jax._src.numpy.ufuncs import logical_and as logical_and
from jax._src.numpy.ufuncs import logical_or as logical_or
from jax._src.numpy.ufuncs import logical_xor as logical_xor
from jax._src.numpy.ufuncs import logical_not as logical_not
from jax._src.numpy.ufuncs import negative as negative
from jax._src.numpy.ufuncs import positive as positive
from jax._src.numpy.ufuncs import sign as sign
from jax._src.numpy.ufuncs import exp as exp
from jax._src.numpy.ufuncs import exp2 as exp2
from jax._src.numpy.ufuncs import log as log
from jax._src.numpy.ufuncs import log1p as log1p
from jax._src.numpy.ufuncs import expm1 as expm1
from jax._src.numpy.ufuncs import sin as sin
from jax._src.numpy.ufuncs import cos as cos
from jax._src.numpy.ufuncs import tan as tan
from jax._src.numpy.ufuncs import tanh as tanh
from jax._src.numpy.ufuncs import sqrt as sqrt
from jax._src.numpy.ufuncs import cbrt as cbrt
from jax._src.numpy.ufuncs import isfinite as isfinite
from jax._src.numpy.ufuncs import abs as abs
from jax._src.numpy.ufuncs import absolute as absolute
from jax._src.numpy.ufuncs import floor as floor
from jax._src.numpy.ufuncs import ceil as ceil
from jax._src.numpy.ufuncs import round as round
from jax._src.numpy.ufuncs import square as square
from jax._src.numpy.ufuncs import reciprocal as reciprocal
from jax._src.numpy.ufuncs import where as where
from jax._src.numpy.ufuncs import clip as clip
from jax._src.numpy.reductions import sum as sum
from jax._src.numpy.reductions import prod as prod
from jax._src.numpy.reductions import max as max
from jax._src.numpy.reductions import min as min
from jax._src.numpy.reductions import amax as amax
from jax._src.numpy.reductions import amin as amin
from jax._src.numpy.reductions import mean as mean
from jax._src.numpy.reductions import var as var
from jax._src.numpy.reductions import std as std
from jax._src.numpy.reductions import all as all
from jax._src.numpy.reductions import any as any
from jax._src.numpy.reductions import argmax as argmax
from jax._src.numpy.reductions import argmin as argmin
from jax._src.numpy.shape_ops import shape as shape
from jax._src.numpy.shape_ops import ndim as ndim
from jax._src.numpy.shape_ops import size as size
from jax._src.numpy.shape_ops import reshape as reshape
from jax._src.numpy.shape_ops import ravel as ravel
from jax._src.numpy.shape_ops import transpose as transpose
from jax._src.numpy.shape_ops import moveaxis as moveaxis
from jax._src.numpy.shape_ops import swapaxes as swapaxes
from jax._src.numpy.shape_ops import expand_dims as expand_dims
from jax._src.numpy.shape_ops import squeeze as squeeze
from jax._src.numpy.shape_ops import concatenate as concatenate
from jax._src.numpy.shape_ops import stack as stack
from jax._src.numpy.shape_ops import hstack as hstack
from jax._src.numpy.shape_ops import vstack as vstack
from jax._src.numpy.shape_ops import atleast_1d as atleast_1d
from jax._src.numpy.shape_ops import atleast_2d as atleast_2d
from jax._src.numpy.shape_ops import dot as dot
from jax._src.numpy.shape_ops import matmul as matmul
from jax._src.numpy.shape_ops import outer as outer
from jax._src.numpy.shape_ops import vdot as vdot
from jax._src.numpy.util import broadcast_to as broadcast_to
from jax._src.numpy.util import broadcast_shapes as broadcast_shapes
from jax._src.dtypes import promote_types as promote_types
from jax._src.dtypes import result_type as result_type
from jax._src.dtypes import issubdtype as issubdtype
from jax._src.dtypes import finfo as finfo
from jax._src.dtypes import iinfo as iinfo
from jax._src.dtypes import bfloat16 as bfloat16
from jax._src.dtypes import dtype as dtype

pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
newaxis = None
bool_ = _np.bool_
int8 = _np.int8
int16 = _np.int16
int32 = _np.int32
int64 = _np.int64
uint8 = _np.uint8
uint16 = _np.uint16
uint32 = _np.uint32
uint64 = _np.uint64
float16 = _np.float16
float32 = _np.float32
float64 = _np.float64
complex64 = _np.complex64
complex128 = _np.complex128
floating = _np.floating
integer = _np.integer
inexact = _np.inexact
number = _np.number
signedinteger = _np.signedinteger
unsignedinteger = _np.unsignedinteger
