"""Collectives that cannot complete speak instead of hanging in silence.

- A collective entered by one rank only while the other computes: the watchdog names it, with
  the program's line and where the other rank is, once the rank has waited
  ``collective_timeout`` seconds; with ``collective_timeout_abort`` it ends the job (a job of
  its own, started by rank 0 of this run). Ranks that can no longer meet are ended by default:
  tests/transport/test_desync.py.
- ``debug_collectives``: ranks entering different collectives raise the same
  ``CollectiveMismatchError`` on every rank.
- A collective called from a second thread raises a clear error on every rank, before any
  message (scikit-learn's ``n_jobs=2`` threads calling xdist aborted the MPI job). At one
  rank the same calls send nothing, so they run.
- The settings are checked, with messages that say the allowed values.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from helpers import RANK, SIZE, outside_mpi_job, own_processes

import xdist
from xdist._transport.watchdog import CollectiveMismatchError

# Rank 0 plots from a gather that rank 1 never joins (matplotlib's np.asarray, by hand).
ONE_RANK_ONLY = textwrap.dedent(
    """
    import time
    import numpy as np
    import xdist
    x = xdist.ones((10, 2), split=0)
    if xdist.default_comm().rank == 0:
        np.asarray(x[:, 0])  # plt.scatter(X[:, 0], ...) on rank 0 only
    time.sleep(30)
    """
)


def _job(tmp: Path, source: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    script = tmp / "job.py"
    script.write_text(source)
    mpiexec = Path(sys.executable).parent / "mpiexec"
    return subprocess.run(
        [str(mpiexec), "-n", "2", sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**outside_mpi_job(), **env},
    )


@own_processes
def test_watchdog_names_a_collective_entered_by_one_rank(tmp_path):
    env = {"XDIST_COLLECTIVE_TIMEOUT": "1", "XDIST_COLLECTIVE_TIMEOUT_ABORT": "1"}
    run = _job(tmp_path, ONE_RANK_ONLY, env)
    assert run.returncode != 0
    assert "xdist watchdog: rank 0 of 2 has waited" in run.stderr, run.stderr
    assert "in allgatherv, called at" in run.stderr
    assert "np.asarray(x[:, 0])  # plt.scatter" in run.stderr  # the program's line
    assert "rank 1: running, not in a collective" in run.stderr  # where the other is
    assert "if rank == 0:" in run.stderr  # the likely cause, and the fix
    assert "ending the job" in run.stderr


def test_debug_collectives_finds_ranks_in_different_collectives():
    x = xdist.ones((7, 3), split=0)
    with xdist.config_context(debug_collectives=True):
        xdist.sum(x)  # the same collective everywhere passes
        if SIZE == 1:
            return
        with pytest.raises(CollectiveMismatchError, match="rank 0: allreduce.*rank 1: allgather"):
            if RANK == 0:
                xdist.sum(x)  # an allreduce here ...
            else:
                xdist.default_comm().allgather_ints([1])  # ... and an allgather elsewhere


def test_collective_from_a_second_thread_raises_on_every_rank():
    x = xdist.ones((7, 3), split=0)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            xdist.sum(x)
        except RuntimeError as error:
            errors.append(error)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    if SIZE == 1:  # a sum over one rank sends nothing: no collective, nothing to guard
        assert errors == []
    else:
        assert len(errors) == 1 and "second thread" in str(errors[0]), errors
        assert "n_jobs" in str(errors[0])
    assert float(xdist.sum(x)) == 21.0  # the main thread goes on


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"collective_timeout": -1}, "collective_timeout must be a number of seconds >= 0"),
        ({"collective_timeout": "60"}, "collective_timeout must be a number"),
        ({"collective_timeout_abort": 1}, "collective_timeout_abort must be True or False"),
        ({"debug_collectives": "yes"}, "debug_collectives must be True or False"),
        ({"check_call_sites": 0}, "check_call_sites must be True or False"),
    ],
)
def test_settings_are_checked(changes, message):
    with pytest.raises((TypeError, ValueError), match=message):
        xdist.set_config(**changes)


@own_processes
@pytest.mark.parametrize(
    "name, value, message",
    [
        ("XDIST_COLLECTIVE_TIMEOUT", "abc", "expected a number of seconds >= 0, got 'abc'"),
        ("XDIST_COLLECTIVE_TIMEOUT", "-2", "expected a number of seconds >= 0, got '-2'"),
        ("XDIST_DEBUG_COLLECTIVES", "maybe", "expected 0, 1 or auto, got 'maybe'"),
        ("XDIST_CHECK_CALL_SITES", "on", "expected 0, 1 or auto, got 'on'"),
    ],
)
def test_environment_settings_are_checked(name, value, message):
    run = subprocess.run(
        [sys.executable, "-c", "import xdist"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**outside_mpi_job(), name: value, "XDIST_COMM": "self"},
    )
    assert run.returncode != 0 and f"{name}: {message}" in run.stderr, run.stderr
