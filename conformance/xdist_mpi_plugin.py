"""pytest plugin that lets data-apis/array-api-tests run under mpiexec against xdist.

Loaded by ``conformance/run.py`` with ``-p xdist_mpi_plugin`` (at 1 rank too). It:

- silences the stdout of every rank but 0, so the suite's own report is printed once;
- makes Hypothesis deterministic across ranks at several ranks. With
  ``--hypothesis-derandomize`` and a fixed ``PYTHONHASHSEED`` (the suite samples from sets,
  whose order follows the string hashes) every rank draws the same examples; but Hypothesis
  also decides things from the clock (the deadline, the "too slow" health check, the 10 s of
  extra search after a first failure, the 5 minutes shrink limit), and a rank deciding
  differently would call xdist's collectives in another order and the job would hang. So: no
  deadline, no health checks, one bug per test, and no shrinking (a failure is reported with
  the example that first failed); and Python's global ``random``, which
  ``strategy.example()`` uses, is seeded from each test's id;
- checks after every test that all ranks reached the same outcome (one small allgather on a
  communicator of its own, so it can never match a collective of the test); if they differ,
  the ranks are out of step: every rank writes its outcome and the job is aborted;
- arms a watchdog for every test: past ``XDIST_CONFORMANCE_TEST_TIMEOUT`` seconds the rank
  writes which test hung and its stacks, and exits, which ends the MPI job;
- on rank 0, writes every test's outcome as JSON to ``XDIST_CONFORMANCE_REPORT`` (if set),
  for the runner's summary.
"""

from __future__ import annotations

import faulthandler
import hashlib
import json
import os
import random
import sys
import threading
import time

import pytest

_NRANKS = int(os.environ.get("XDIST_CONFORMANCE_RANKS", "1"))
_TIMEOUT = float(os.environ.get("XDIST_CONFORMANCE_TEST_TIMEOUT", "600"))
_REPORT = os.environ.get("XDIST_CONFORMANCE_REPORT")

_comm = None  # a duplicate of COMM_WORLD, used only to compare outcomes
_rank = 0
_outcomes: dict[str, str] = {}  # nodeid -> outcome
_reports: dict[str, str] = {}  # nodeid -> failure text, for a desynchronization report


def _outcome(report) -> str | None:
    """The test's outcome in the words of pytest's summary line."""
    if hasattr(report, "wasxfail"):
        return "xpassed" if report.passed else "xfailed"
    if report.skipped:
        return "skipped"
    if report.failed:
        return "failed" if report.when == "call" else "error"
    return "passed" if report.when == "call" else None


def _write(text: str) -> None:
    os.write(2, text.encode(errors="replace"))  # one write: mpiexec forwards it whole


def _abort(code: int) -> None:
    time.sleep(0.3)  # let mpiexec forward what was written
    if _comm is not None:
        from mpi4py import MPI

        MPI.COMM_WORLD.Abort(code)
    os._exit(code)


def _silence_other_ranks() -> None:
    """Point stdout of every rank but 0 at /dev/null. Done when pytest imports this plugin
    (``-p``), before its output capture duplicates file descriptor 1."""
    global _comm, _rank
    from mpi4py import MPI

    _comm = MPI.COMM_WORLD.Dup()
    _rank = _comm.Get_rank()
    if _rank != 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)


if _NRANKS > 1:
    _silence_other_ranks()


@pytest.hookimpl(trylast=True)  # after the suite's conftest has loaded its profile
def pytest_configure(config: pytest.Config) -> None:
    if _comm is None:
        return
    from hypothesis import HealthCheck, Phase, settings

    if _rank == 0 and os.environ.get("PYTHONHASHSEED", "random") == "random":
        _write(
            "xdist_mpi_plugin: PYTHONHASHSEED is not fixed; strategies that sample from sets "
            "may draw different examples on different ranks (conformance/run.py sets it)\n"
        )

    settings.register_profile(
        "xdist-mpi",
        parent=settings(),  # the profile in force: the suite's
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        phases=[p for p in Phase if p not in (Phase.shrink, Phase.explain)],
    )
    settings.load_profile("xdist-mpi")


def pytest_sessionstart(session) -> None:
    """Say what the arrays under test are (a check that the run's settings reached xdist)."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if os.environ.get("ARRAY_API_TESTS_MODULE") != "xdist" or reporter is None:
        return
    import xdist

    x = xdist.zeros((2 * xdist.default_comm().size, 2))
    reporter.write_line(
        f"xdist: {x.comm.size} rank(s), default split {xdist.get_config().default_split}, "
        f"backend {x.backend.name}, device {x.device}"
    )


def pytest_runtest_logreport(report) -> None:
    outcome = _outcome(report)
    if outcome is None:
        return
    previous = _outcomes.get(report.nodeid)
    # A failing teardown after a passing call is an error; keep the worst outcome.
    if previous is None or previous in ("passed", "skipped") or outcome == "error":
        _outcomes[report.nodeid] = outcome
    if report.failed:
        _reports[report.nodeid] = report.longreprtext[-4000:]


def _watchdog_fired(nodeid: str) -> None:
    _write(f"\n===== rank {_rank}: {nodeid} still running after {_TIMEOUT:.0f} s; stacks:\n")
    faulthandler.dump_traceback(file=sys.__stderr__, all_threads=True)
    _abort(3)


def _agree(nodeid: str) -> None:
    """All ranks compare their outcome of ``nodeid``; a difference aborts the job."""
    mine = _outcomes.get(nodeid, "none")
    everyone = _comm.allgather(mine)
    if len(set(everyone)) == 1:
        return
    text = f"\n===== desynchronized at {nodeid}: outcomes by rank {everyone}\n"
    if nodeid in _reports:
        text += f"rank {_rank}'s failure:\n{_reports[nodeid]}\n"
    _write(text)
    _abort(2)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    # Some tests draw with Hypothesis's ``strategy.example()``, which shuffles with Python's
    # global random: seed it from the test's id so that every rank (and every run) draws alike.
    random.seed(item.nodeid)
    timer = threading.Timer(_TIMEOUT, _watchdog_fired, args=(item.nodeid,))
    timer.daemon = True
    timer.start()
    # A backstop should the timer's thread never get the interpreter lock.
    faulthandler.dump_traceback_later(_TIMEOUT + 60, exit=True, file=sys.__stderr__)
    try:
        yield
        if _comm is not None:
            _agree(item.nodeid)
    finally:
        faulthandler.cancel_dump_traceback_later()
        timer.cancel()


def pytest_collection_finish(session) -> None:
    """Every rank must have collected the same tests (a collection error is fine when all
    ranks share it: the suite reports it)."""
    if _comm is None:
        return
    ids = [item.nodeid for item in session.items]
    digest = hashlib.sha1("\n".join(ids).encode()).hexdigest()  # hash() is salted per process
    everyone = _comm.allgather(digest)
    if len(set(everyone)) != 1:
        _write(f"\n===== rank {_rank}: the ranks collected different tests ({len(ids)} here)\n")
        _abort(4)


def pytest_sessionfinish(session, exitstatus) -> None:
    if _REPORT and _rank == 0:
        with open(_REPORT, "w") as f:
            json.dump({"exitstatus": int(exitstatus), "outcomes": _outcomes}, f, indent=0)
