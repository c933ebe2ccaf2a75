"""SciPy's own array-API tests with xdist standing in for Torch, at one rank.

SciPy parametrizes its array-API tests with the fixture ``xp`` of ``scipy/conftest.py``
over the libraries it knows (``numpy``, ``array_api_strict``, ``torch``, ...), and each
test asks that fixture for the namespace: ``array_namespace(<library>.empty(0))``. As a
pytest plugin (``-p scipy_plugin`` with ``conformance/`` on ``PYTHONPATH``), this file
answers that call with ``xdist`` for the parameter SciPy selects with
``SCIPY_ARRAY_API='["torch"]'``: the tests then build their inputs with ``xp.asarray`` and
compare with ``xp_assert_close`` on xdist arrays, and the markers SciPy sets for Torch
(``skip_xp_backends("torch", ...)``) skip here too. Torch must be installed (its parameter
is the one replaced); SciPy's wheels carry their tests.

Run it from anywhere but the repository root (SciPy's tests import ``scipy`` installed)::

    cd /tmp && XDIST_API_VERSION=2024.12 SCIPY_ARRAY_API='["torch"]' \\
        PYTHONPATH=/path/to/xdist/conformance python -m pytest -p scipy_plugin \\
        --pyargs scipy.stats scipy.special scipy.fft scipy.signal scipy.integrate \\
        -m array_api_backends -q -p no:cacheprovider -W ignore

``XDIST_API_VERSION=2024.12``: SciPy's ``devices`` fixture adds ``[None]`` to
``__array_namespace_info__().devices()``, a list in the 2024.12 edition (a tuple in
2025.12). At one rank the arrays are whole on the rank, so the run checks that SciPy's
array-API code finds in xdist what it calls. Under ``mpiexec -n 2 python -m mpi4py -m pytest``
with ``XDIST_DEFAULT_SPLIT=0`` every array the tests create is split along its first axis
and every rank runs every test (each xdist call is collective); give each rank its own
output file (MPICH: ``-outfile-pattern out.%r.txt``). ``tests/interop/test_interop_scipy.py``
checks SciPy's functions on split samples in the test command. docs/interop.md has the counts
and what fails.
"""

from __future__ import annotations

import itertools
import random
import zlib

import numpy as np
import pytest

import xdist

_DEFAULT_RNG = np.random.default_rng


@pytest.hookimpl(trylast=True)
def pytest_plugin_registered(plugin, manager):
    """Once SciPy's conftest is loaded, its ``xp`` fixture's ``array_namespace`` returns
    xdist (the fixture reads the module's global when each test starts)."""
    if getattr(plugin, "__name__", "") == "scipy.conftest":
        plugin.array_namespace = lambda *arrays, **kwargs: xdist


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Every rank draws the same data: NumPy's and Python's global generators seeded from the
    test's id, and ``np.random.default_rng()`` without a seed (fresh entropy, different on
    each rank) seeded from the id and a count. Otherwise ``xp.asarray`` of such data under
    mpiexec raises xdist's error for data that differs between ranks (``check_replicated``),
    as it should."""
    seed = zlib.crc32(item.nodeid.encode())
    np.random.seed(seed)
    random.seed(seed)
    count = itertools.count()

    def default_rng(seed_=None, *args, **kwargs):
        if seed_ is None:
            seed_ = (seed, next(count))
        return _DEFAULT_RNG(seed_, *args, **kwargs)

    np.random.default_rng = default_rng


def pytest_runtest_teardown(item):
    np.random.default_rng = _DEFAULT_RNG
