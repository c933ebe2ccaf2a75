"""Test setup shared by every run (1 rank, or N ranks under mpiexec).

- Hypothesis is derandomized so that every rank draws the same examples.
- Under several ranks, only rank 0 reports; a test failing on any rank prints its report
  (with the rank) and aborts the whole job, so the other ranks never wait in a collective
  that will not come.
- ``SCIPY_ARRAY_API=1`` is set before anything imports SciPy, so that SciPy dispatches on
  xdist arrays (the interop tests) as a user who sets it gets.
- ``XDIST_TORCH_FACTORY_DEVICE=meta`` (Torch backend): Torch's factory functions called
  without a device make tensors on the meta device, so a block mixed with a tensor made on
  Torch's default device raises as it does on a GPU, where that default (the CPU) is not the
  blocks' device. The test command runs the Torch suite once so (tests/run.py).
- Every test has a watchdog: past ``XDIST_TEST_TIMEOUT`` seconds (default 120), or the
  longer ``@pytest.mark.time_limit(seconds)`` of a test that builds something, the stacks are
  dumped and the process exits, which ends the MPI job.
"""

from __future__ import annotations

import faulthandler
import os
import sys
import time

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # read once, when SciPy is first imported

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import xdist

settings.register_profile(
    "xdist",
    derandomize=True,
    deadline=None,
    database=None,
    max_examples=int(os.environ.get("XDIST_HYPOTHESIS_EXAMPLES", "25")),
    suppress_health_check=list(HealthCheck),
    print_blob=False,
)
settings.load_profile("xdist")


_FACTORY_LOG = set() if os.environ.get("XDIST_FACTORY_LOG") else None


def pytest_sessionfinish(session):
    if _FACTORY_LOG:
        with open(os.environ["XDIST_FACTORY_LOG"], "w") as f:
            f.write("\n".join(sorted(_FACTORY_LOG)))


def _factories_elsewhere(device: str) -> None:
    """Torch factories without ``device=`` (and ``asarray`` of data that is not a tensor)
    make their tensors on ``device``: what a CPU-only machine can check of GPU placement."""
    import torch
    from torch.overrides import TorchFunctionMode

    factories = {
        torch.arange, torch.zeros, torch.ones, torch.full, torch.empty, torch.eye,
        torch.linspace, torch.tensor, torch.asarray, torch.as_tensor, torch.empty_strided,
    }  # fmt: skip

    class FactoriesElsewhere(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            data = args[0] if args else kwargs.get("data", kwargs.get("obj"))
            if (
                func in factories
                and kwargs.get("device") is None
                and not isinstance(data, torch.Tensor)
            ):
                kwargs["device"] = device
                if _FACTORY_LOG is not None:
                    import traceback

                    for fr in reversed(traceback.extract_stack(limit=25)[:-1]):
                        if "/tests/" not in fr.filename and "site-packages" not in fr.filename:
                            _FACTORY_LOG.add(f"{fr.filename}:{fr.lineno} {func.__name__}")
                            break
            return func(*args, **kwargs)

    FactoriesElsewhere().__enter__()


if os.environ.get("XDIST_TORCH_FACTORY_DEVICE") and os.environ.get("XDIST_BACKEND") == "torch":
    _factories_elsewhere(os.environ["XDIST_TORCH_FACTORY_DEVICE"])

_COMM = xdist.default_comm()
RANK, SIZE = _COMM.rank, _COMM.size
_TIMEOUT = float(os.environ.get("XDIST_TEST_TIMEOUT", "120"))


def _dtype_names(value) -> set[str]:
    """The dtype names a test parameter mentions (a name, a dtype, or inside a tuple; lists
    are data, such as the expected answer of an inspection test)."""
    if isinstance(value, tuple):
        return set().union(*(_dtype_names(v) for v in value)) if value else set()
    if isinstance(value, str):
        return {value}
    if isinstance(value, np.dtype):
        return {value.name}
    return set()


def pytest_collection_modifyitems(config: pytest.Config, items) -> None:
    """Parametrizations naming a dtype the backend lacks (uint16/32/64 under Torch) are
    skipped with that reason: a library limitation, not an xdist failure."""
    from helpers import UNSUPPORTED, unsupported_reason

    if not UNSUPPORTED:
        return
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        missing = sorted(set().union(set(), *map(_dtype_names, params.values())) & UNSUPPORTED)
        if missing:
            item.add_marker(pytest.mark.skip(reason=unsupported_reason(missing[0])))


def pytest_configure(config: pytest.Config) -> None:
    if SIZE > 1 and RANK != 0:
        # Keep rank 0's report readable: other ranks speak (on stderr) only when they fail.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)


def _abort(report) -> None:
    text = f"\n===== rank {RANK} of {SIZE}: {report.nodeid} failed\n{report.longreprtext}\n"
    os.write(2, text.encode(errors="replace"))  # one write: mpiexec forwards it whole
    time.sleep(0.2)  # let mpiexec forward the report before MPI_Abort kills every rank
    from mpi4py import MPI

    MPI.COMM_WORLD.Abort(1)


def pytest_runtest_logreport(report) -> None:
    if SIZE > 1 and report.failed:
        _abort(report)


def pytest_collectreport(report) -> None:
    if SIZE > 1 and report.failed:
        _abort(report)


@pytest.fixture(autouse=True)
def _watchdog(request):
    # ``@pytest.mark.time_limit(seconds)``: a test that builds something (the docs site)
    # may take longer than the limit for one test; it still has one.
    marker = request.node.get_closest_marker("time_limit")
    limit = max(_TIMEOUT, marker.args[0]) if marker else _TIMEOUT
    faulthandler.dump_traceback_later(limit, exit=True, file=sys.__stderr__)
    yield
    faulthandler.cancel_dump_traceback_later()
