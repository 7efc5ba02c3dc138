"""The jax.numpy namespace, in the numpy layer: what `jax.numpy` re-exports, for the
library modules under jax._src (scipy, nn, image, sparse...) to import without reaching
up into the public API. The submodules `fft` and `linalg` are not here: import
jax._src.numpy.fft / jax._src.numpy.linalg (linalg imports modules that import this one).
"""

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
from jax._src.dtypes_public import numpy_issubdtype as issubdtype  # knows typed PRNG key dtypes
from jax._src.dtypes import finfo as finfo
from jax._src.dtypes import iinfo as iinfo
from numpy import dtype as dtype  # numpy's class itself, as in JAX (usable in type unions)

pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
newaxis = None
from jax._src.numpy.scalar_types import (  # noqa: E402
    bool_ as bool_, int8 as int8, int16 as int16, int32 as int32, int64 as int64,
    uint8 as uint8, uint16 as uint16, uint32 as uint32, uint64 as uint64,
    bfloat16 as bfloat16, float16 as float16, float32 as float32, float64 as float64,
    complex64 as complex64, complex128 as complex128)
floating = _np.floating
complexfloating = _np.complexfloating
generic = _np.generic
flexible = _np.flexible
character = _np.character
integer = _np.integer
inexact = _np.inexact
number = _np.number
signedinteger = _np.signedinteger
unsignedinteger = _np.unsignedinteger
from jax._src.numpy.sorting import (  # noqa: E402
    sort as sort, argsort as argsort, lexsort as lexsort, sort_complex as sort_complex,
    partition as partition, argpartition as argpartition, searchsorted as searchsorted,
    digitize as digitize, bincount as bincount, histogram as histogram,
    histogram_bin_edges as histogram_bin_edges)
from jax._src.numpy.creation import (  # noqa: E402
    empty_like as empty_like, identity as identity, tri as tri, tril as tril, triu as triu,
    logspace as logspace, geomspace as geomspace, meshgrid as meshgrid, indices as indices,
    mgrid as mgrid, ogrid as ogrid)
from jax._src.numpy.shape_ops import (  # noqa: E402
    atleast_3d as atleast_3d, dstack as dstack, column_stack as column_stack, split as split,
    array_split as array_split, hsplit as hsplit, vsplit as vsplit, dsplit as dsplit,
    broadcast_arrays as broadcast_arrays, tile as tile, repeat as repeat, roll as roll,
    flip as flip, fliplr as fliplr, flipud as flipud, rot90 as rot90, resize as resize,
    diagonal as diagonal, diag as diag, diagflat as diagflat, trace as trace)
from jax._src.numpy.ufuncs import (  # noqa: E402
    fmax as fmax, fmin as fmin, fmod as fmod, divmod as divmod, float_power as float_power,
    pow as pow, left_shift as left_shift, right_shift as right_shift,
    bitwise_left_shift as bitwise_left_shift, bitwise_right_shift as bitwise_right_shift,
    bitwise_invert as bitwise_invert, bitwise_count as bitwise_count, gcd as gcd, lcm as lcm,
    log2 as log2, log10 as log10, logaddexp as logaddexp, logaddexp2 as logaddexp2,
    sinh as sinh, cosh as cosh, arcsin as arcsin, arccos as arccos, arctan as arctan,
    arcsinh as arcsinh, arccosh as arccosh, arctanh as arctanh, asin as asin, acos as acos,
    atan as atan, asinh as asinh, acosh as acosh, atanh as atanh, atan2 as atan2,
    hypot as hypot, sinc as sinc, deg2rad as deg2rad, rad2deg as rad2deg, radians as radians,
    degrees as degrees, trunc as trunc, rint as rint, around as around,
    modf as modf, signbit as signbit, copysign as copysign, frexp as frexp,
    ldexp as ldexp, nextafter as nextafter, heaviside as heaviside, real as real, imag as imag,
    conjugate as conjugate, conj as conj, angle as angle, isinf as isinf, isnan as isnan,
    isposinf as isposinf, isneginf as isneginf, nan_to_num as nan_to_num, isclose as isclose,
    allclose as allclose, array_equal as array_equal, array_equiv as array_equiv)
from jax._src.numpy.ufunc_objects import ufunc as ufunc  # noqa: E402
from jax._src.numpy.reductions import count_nonzero as count_nonzero  # noqa: E402
from jax._src.numpy.nan_reductions import (  # noqa: E402
    nansum as nansum, nanprod as nanprod, nanmax as nanmax, nanmin as nanmin,
    nanmean as nanmean, nanvar as nanvar, nanstd as nanstd, nanargmax as nanargmax,
    nanargmin as nanargmin, nancumsum as nancumsum, nancumprod as nancumprod)
from jax._src.numpy.cumulative import (  # noqa: E402
    cumsum as cumsum, cumprod as cumprod,
    cumulative_sum as cumulative_sum, cumulative_prod as cumulative_prod, diff as diff,
    ediff1d as ediff1d)
from jax._src.numpy.einsum import (  # noqa: E402
    einsum as einsum, tensordot as tensordot, inner as inner,
    kron as kron, cross as cross)
from jax._src.numpy.padding import pad as pad  # noqa: E402
from jax._src.numpy.statistics import (  # noqa: E402
    quantile as quantile, nanquantile as nanquantile, percentile as percentile,
    nanpercentile as nanpercentile, median as median, nanmedian as nanmedian, ptp as ptp,
    average as average, cov as cov, corrcoef as corrcoef)
from jax._src.numpy.shape_ops import matrix_transpose as matrix_transpose  # noqa: E402
from jax._src.numpy.numerical import (  # noqa: E402
    interp as interp, gradient as gradient, vander as vander, trapezoid as trapezoid,
    convolve as convolve, correlate as correlate)
from jax._src.numpy.indexing_funcs import take as take
from jax._src.numpy.indexing_funcs import take_along_axis as take_along_axis
from jax._src.numpy.indexing_funcs import put as put
from jax._src.numpy.indexing_funcs import place as place
from jax._src.numpy.indexing_funcs import choose as choose
from jax._src.numpy.indexing_funcs import select as select
from jax._src.numpy.indexing_funcs import piecewise as piecewise
from jax._src.numpy.indexing_funcs import ix_ as ix_
from jax._src.numpy.indexing_funcs import nonzero as nonzero
from jax._src.numpy.indexing_funcs import flatnonzero as flatnonzero
from jax._src.numpy.indexing_funcs import argwhere as argwhere
from jax._src.numpy.indexing_funcs import compress as compress
from jax._src.numpy.indexing_funcs import extract as extract
from jax._src.numpy.indexing_funcs import insert as insert
from jax._src.numpy.indexing_funcs import delete as delete
from jax._src.numpy.indexing_funcs import append as append
from jax._src.numpy.indexing_funcs import trim_zeros as trim_zeros
from jax._src.numpy.vectorize import (  # noqa: E402
    vectorize as vectorize, apply_along_axis as apply_along_axis,
    apply_over_axes as apply_over_axes)
from jax._src.numpy.extras import (  # noqa: E402
    astype as astype, bartlett as bartlett, blackman as blackman, block as block,
    concat as concat, copy as copy, diag_indices as diag_indices,
    diag_indices_from as diag_indices_from, euler_gamma as euler_gamma, fabs as fabs,
    fill_diagonal as fill_diagonal, fromfunction as fromfunction, hamming as hamming,
    hanning as hanning, i0 as i0, iscomplex as iscomplex, iscomplexobj as iscomplexobj,
    isdtype as isdtype, isreal as isreal, isrealobj as isrealobj, isscalar as isscalar,
    kaiser as kaiser, mask_indices as mask_indices, matvec as matvec, packbits as packbits,
    permute_dims as permute_dims, put_along_axis as put_along_axis,
    ravel_multi_index as ravel_multi_index, rollaxis as rollaxis, spacing as spacing,
    tril_indices as tril_indices, tril_indices_from as tril_indices_from,
    triu_indices as triu_indices, triu_indices_from as triu_indices_from,
    unpackbits as unpackbits, unravel_index as unravel_index, unstack as unstack,
    unwrap as unwrap, vecdot as vecdot, vecmat as vecmat)
from jax._src.numpy.histograms import (  # noqa: E402
    histogram2d as histogram2d, histogramdd as histogramdd)
from jax._src.numpy.host_io import (  # noqa: E402
    c_ as c_, einsum_path as einsum_path, frombuffer as frombuffer, fromfile as fromfile,
    from_dlpack as from_dlpack, fromiter as fromiter, frompyfunc as frompyfunc,
    fromstring as fromstring, get_printoptions as get_printoptions, load as load, printoptions as printoptions,
    r_ as r_, set_printoptions as set_printoptions)
from jax._src.numpy.polynomial import (  # noqa: E402
    poly as poly, polyadd as polyadd, polyder as polyder, polydiv as polydiv,
    polyfit as polyfit, polyint as polyint, polymul as polymul, polysub as polysub,
    polyval as polyval, roots as roots)
from jax._src.numpy.scalar_types import (  # noqa: E402
    float4_e2m1fn as float4_e2m1fn, float6_e2m3fn as float6_e2m3fn,
    float6_e3m2fn as float6_e3m2fn, float8_e3m4 as float8_e3m4, float8_e4m3 as float8_e4m3,
    float8_e4m3b11fnuz as float8_e4m3b11fnuz, float8_e4m3fn as float8_e4m3fn,
    float8_e4m3fnuz as float8_e4m3fnuz, float8_e5m2 as float8_e5m2,
    float8_e5m2fnuz as float8_e5m2fnuz, float8_e8m0fnu as float8_e8m0fnu, int1 as int1,
    int2 as int2, int4 as int4, uint1 as uint1, uint2 as uint2, uint4 as uint4)
from jax._src.numpy.setops import (  # noqa: E402
    intersect1d as intersect1d, isin as isin, setdiff1d as setdiff1d, setxor1d as setxor1d,
    union1d as union1d, unique as unique, unique_all as unique_all,
    unique_counts as unique_counts, unique_inverse as unique_inverse,
    unique_values as unique_values)
# NumPy's aliases of the fixed-width types.
bool = bool_  # noqa: A001
int_ = int64
uint = uint64
float_ = float64
double = float64
single = float32
complex_ = complex128
cdouble = complex128
csingle = complex64
index_exp = _np.index_exp
s_ = _np.s_

from jax._src.numpy import arraylike_checks as _arraylike_checks  # noqa: E402
_arraylike_checks.install(globals())
del _arraylike_checks
