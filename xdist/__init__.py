"""xdist: a distributed array namespace following the Python Array API standard, over MPI.

``import xdist as xp``: every function of the standard, on arrays whose blocks live on the
ranks of an MPI communicator (or on one process, with no MPI at all).
"""

from __future__ import annotations

import functools as _functools
import sys as _sys

from . import _editions, _indexing, _numpy_interop, fft, io, lib, linalg, random, special
from ._argwhere import argwhere
from ._array import OPERATORS as _OPERATORS
from ._array import Array
from ._bincount import bincount
from ._block_pool import empty_cache
from ._comparisons import allclose, array_equal, isclose
from ._config import config_context, get_config, set_config
from ._constants import e, inf, nan, newaxis, pi
from ._covariance import corrcoef, cov
from ._creation_functions import *  # noqa: F403
from ._cumulative import cumprod, cumsum
from ._data_type_functions import *  # noqa: F403
from ._distribution_functions import balance, from_local, resplit, show, to_numpy
from ._dtypes import (
    bool,
    complex64,
    complex128,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._einsum import einsum
from ._elementwise_functions import *  # noqa: F403
from ._elementwise_functions import __all__ as _elementwise_names
from ._fusion import synchronize
from ._gradient import gradient
from ._histograms import digitize, histogram, histogram2d, histogramdd
from ._indexing_functions import *  # noqa: F403
from ._info import *  # noqa: F403
from ._layout import Layout
from ._linear_algebra_functions import *  # noqa: F403
from ._manipulation_functions import *  # noqa: F403
from ._median import median
from ._missing_names import hint as _hint
from ._movement.gathers import GatherWarning
from ._nan_functions import *  # noqa: F403
from ._numpy_aliases import *  # noqa: F403
from ._numpy_array import array
from ._numpy_dtypes import *  # noqa: F403
from ._numpy_elementwise import *  # noqa: F403
from ._numpy_indices import *  # noqa: F403
from ._numpy_shapes import *  # noqa: F403
from ._numpy_statistics import average, ptp
from ._pad import pad
from ._quantile import nanmedian, nanpercentile, nanquantile, percentile, quantile
from ._rounding import around
from ._runtime import backend_context, default_comm, set_backend, set_default_comm
from ._runtime import start as _start
from ._searching_functions import *  # noqa: F403
from ._set_functions import *  # noqa: F403
from ._sliding_window import sliding_window_view
from ._sorting_functions import *  # noqa: F403
from ._statistical_functions import *  # noqa: F403
from ._transport.comm import Communicator, SelfComm, count_collectives
from ._unique import unique
from ._utility_functions import *  # noqa: F403
from ._version import __version__
from .linalg._numpy_products import diag, dot, kron, outer, trace


def __getattr__(name: str) -> str:
    # The edition of the standard xdist follows: the api_version setting (XDIST_API_VERSION,
    # default 2025.12), read when asked so that set_config and config_context change it.
    if name == "__array_api_version__":
        return get_config().api_version
    raise AttributeError(_hint(name))


# The functions behind Array's operators and methods (see xdist/_array.py).
_OPERATORS.update({name: globals()[name] for name in _elementwise_names})
_OPERATORS.update(
    matmul=matmul,  # noqa: F405
    matrix_transpose=matrix_transpose,  # noqa: F405
    around=around,
    permute_dims=permute_dims,  # noqa: F405
    to_numpy=to_numpy,
    getitem=_indexing.getitem,
    setitem=_indexing.setitem,
    __array_namespace__=_functools.partial(_editions.namespace, _sys.modules[__name__]),
    __array_ufunc__=_numpy_interop.array_ufunc,
    __array_function__=_numpy_interop.array_function,
    __torch_function__=_numpy_interop.torch_function,
)

_start()
