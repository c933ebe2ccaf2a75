"""xdist: a distributed array namespace following the Python Array API standard, over MPI."""

from __future__ import annotations

from ._array import Array
from ._comm import Communicator, SelfComm, count_collectives
from ._config import config_context, get_config, set_config
from ._distribution import balance, from_local, resplit, to_numpy
from ._dtypes import (
    bool, complex64, complex128, float32, float64, int8, int16, int32, int64,
    uint8, uint16, uint32, uint64,
)
from ._elementwise_functions import *  # noqa: F403
from ._elementwise_functions import __all__ as _elementwise_all
from ._layout import Layout
from ._runtime import default_comm, set_default_comm

__array_api_version__ = "2024.12"

e = 2.718281828459045
inf = float("inf")
nan = float("nan")
newaxis = None
pi = 3.141592653589793
