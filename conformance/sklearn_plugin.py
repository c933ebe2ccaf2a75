"""scikit-learn's own array-API tests with xdist standing in for ``array_api_strict``.

scikit-learn parametrizes its array-API tests over namespaces (``yield_namespace_device_
dtype_combinations``) and each test asks ``sklearn.utils._testing._array_api_for_tests`` for
the module. As a pytest plugin (``-p sklearn_plugin`` with ``conformance/`` on
``PYTHONPATH``) this file:

- answers ``_array_api_for_tests("array_api_strict", device_name, ...)`` with ``xdist`` and
  an xdist device for the suite's device name: ``CPU_DEVICE`` the backend's CPU device,
  ``device1`` a second device of the backend where it has one, else the CPU device (the NumPy
  backend has only ``cpu``); the parametrizations are untouched, so the test ids read as the
  suite names them (``array_api_strict-CPU_DEVICE-float64``) and the suite's checks that run
  only on ``CPU_DEVICE`` (dispatch off) run; ``xdist.__array_namespace_info__()`` also takes
  those two names for ``device=`` (scikit-learn's estimator check passes the name there);
- splits the tests' inputs along samples: ``xdist.asarray`` of host data called from
  scikit-learn's test code (a ``...tests...`` module or ``sklearn.utils.estimator_checks``)
  gives ``split=0`` for arrays of ``--xdist-split`` dimensions (``2d``, the default: 2 or
  more, the data matrices; ``all``: 1 or more, targets and weights too; ``none``), after
  checking that the input is the same on every rank. Arrays scikit-learn makes inside the
  estimators keep xdist's default layout, as for a user who passes ``xp.asarray(X, split=0)``;
- seeds NumPy's and Python's global generators from the test's id, on every rank alike;
- under mpiexec: only rank 0 prints; after each test the ranks compare their outcomes (one
  allgather on a communicator of its own) and a test that failed on any rank counts as
  failed, with that rank's message; a watchdog ends the job when one test runs past
  ``--xdist-test-timeout`` seconds, and a test that a rank made no report of (its pytest
  ended with an internal error, written to stderr and the log with the rank) ends it at once;
- with ``--xdist-log FILE``, rank 0 appends ``started`` before each test and its agreed
  outcome after it, and tests already in FILE are deselected: a run killed by a crash is
  resumed past the test that crashed it.

As a script it is the runner that does the resuming, at each rank count::

    python conformance/sklearn_plugin.py --ranks 1,3 [--split 2d] [-- PYTEST_ARGS]

(default pytest arguments: ``--pyargs sklearn -k array_api_strict``). See
conformance/sklearn.md for the procedure and the counts.
"""

from __future__ import annotations

import faulthandler
import os
import sys
import threading
import time

import pytest

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # read once, when SciPy is first imported

_STRICT = "array_api_strict"
_MIN_NDIM = {"2d": 2, "all": 1, "none": None}
_WORST = ["crashed", "missing", "error", "failed", "passed", "xfailed", "xpassed", "skipped"]
_BAD = _WORST[:4]


class _State:
    """What the plugin keeps for the session (one process per rank)."""

    comm = None  # a duplicate of COMM_WORLD: outcomes never match a collective of a test
    rank, size = 0, 1
    log: str | None = None
    timeout = 300.0
    outcomes: dict[str, tuple[str, str]] = {}  # nodeid -> (outcome, message) on this rank
    stood_in = 0  # calls of _array_api_for_tests answered with xdist
    split_inputs = 0  # test inputs split along samples
    replacements: dict = {}  # name -> (scikit-learn's function, ours)


# ---------------------------------------------------------------- the namespace under test


def _from_test_code(frame) -> bool:
    """Whether ``frame`` runs scikit-learn's test code (where the inputs are made)."""
    name = frame.f_globals.get("__name__", "")
    return ".tests." in name or name == "sklearn.utils.estimator_checks"


def _splitting_asarray(asarray, min_ndim: int | None):
    """``xdist.asarray`` that splits host data of ``min_ndim`` or more dimensions along axis
    0 when scikit-learn's test code calls it without ``split=``."""

    def split_inputs(obj, /, **kwargs):
        if min_ndim is not None and "split" not in kwargs and _from_test_code(sys._getframe(1)):
            import numpy as np

            import xdist

            if not isinstance(obj, xdist.Array) and np.ndim(obj) >= min_ndim:
                _check_same_everywhere(np.asarray(obj))
                kwargs["split"] = 0
                _State.split_inputs += 1
        return asarray(obj, **kwargs)

    split_inputs.__wrapped__ = asarray
    return split_inputs


def _check_same_everywhere(data) -> None:
    """A test's input must be the same whole array on every rank (SPMD); one that differs
    is the test's doing (data drawn per process), not xdist's: say so instead of failing
    later with different numbers."""
    if _State.comm is None:
        return
    import zlib

    import numpy as np

    digest = (data.shape, str(data.dtype), zlib.crc32(np.ascontiguousarray(data).tobytes()))
    if len(set(_State.comm.allgather(digest))) > 1:
        raise AssertionError(
            "sklearn_plugin: this test's input differs between ranks (drawn per process?)"
        )


def _devices_for_suite_names() -> dict[str, object]:
    """xdist's devices for array_api_strict's names: ``CPU_DEVICE`` is the backend's CPU
    device; ``device1`` (strict's second, fake device) a second device of the backend when it
    has one, else the CPU device too (the NumPy backend has one device, ``cpu``)."""
    import xdist

    info = xdist.__array_namespace_info__()
    devices = list(info.devices())
    cpu = next((d for d in devices if getattr(d, "kind", None) == "cpu"), info.default_device())
    other = next((d for d in devices if d != cpu), cpu)
    return {"CPU_DEVICE": cpu, "device1": other}


class _InfoWithSuiteNames:
    """xdist's inspection object that also takes the suite's device names for ``device=``.

    scikit-learn's estimator check hands the device *name* of its parametrization to
    ``__array_namespace_info__().dtypes(kind=..., device=name)`` (``_max_precision_float_
    dtype(xp, device=X_ns_and_device.device)``); array_api_strict ignores the argument there,
    xdist checks it. Only those two names are translated; anything else goes to xdist as is."""

    __slots__ = ("_info", "_devices")

    def __init__(self, info, devices: dict) -> None:
        self._info, self._devices = info, devices

    def __getattr__(self, name):
        attr = getattr(self._info, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            device = kwargs.get("device")
            if isinstance(device, str) and device in self._devices:
                kwargs["device"] = self._devices[device]
            return attr(*args, **kwargs)

        return call

    def __repr__(self) -> str:
        return repr(self._info)


def _patch_everywhere(replacements: dict) -> None:
    """Bind each name of ``replacements`` to its new value in every loaded module that
    holds the original (``from ... import name`` copies the binding)."""
    for module in list(sys.modules.values()):
        for name, (old, new) in replacements.items():
            if getattr(module, name, None) is old:
                setattr(module, name, new)


def _install_namespace(min_ndim: int | None) -> None:
    """xdist for ``array_api_strict`` in scikit-learn's tests; test inputs split."""
    import sklearn.utils._testing as testing

    import xdist

    if _State.replacements:  # installed already; bind it in the modules loaded since
        _patch_everywhere(_State.replacements)
        return
    original = testing._array_api_for_tests
    devices = _devices_for_suite_names()

    def array_api_for_tests(array_namespace, device_name=None, dtype_name=None):
        if array_namespace != _STRICT:
            return original(array_namespace, device_name, dtype_name)
        _State.stood_in += 1
        # the suite's names ("CPU_DEVICE", "device1"; the test ids keep them); anything else
        # (None) goes to xdist as it is
        return xdist, devices.get(device_name, device_name)

    _State.replacements = {"_array_api_for_tests": (original, array_api_for_tests)}
    _patch_everywhere(_State.replacements)
    info = xdist.__array_namespace_info__
    xdist.__array_namespace_info__ = lambda: _InfoWithSuiteNames(info(), devices)
    xdist.asarray = _splitting_asarray(xdist.asarray, min_ndim)


# ------------------------------------------------------------------ ranks kept in step


def _write(text: str) -> None:
    os.write(2, text.encode(errors="replace"))  # one write: mpiexec forwards it whole


def _abort(code: int) -> None:
    time.sleep(0.3)  # let mpiexec forward what was written
    if _State.comm is not None:
        from mpi4py import MPI

        MPI.COMM_WORLD.Abort(code)
    os._exit(code)


def _start_mpi() -> None:
    """Under mpiexec: a communicator of our own, and stdout of every rank but 0 silenced
    (done at import, before pytest's capture duplicates file descriptor 1)."""
    from mpi4py import MPI

    if MPI.COMM_WORLD.Get_size() == 1:
        return
    _State.comm = MPI.COMM_WORLD.Dup()
    _State.rank, _State.size = _State.comm.Get_rank(), _State.comm.Get_size()
    if _State.rank != 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)


if __name__ != "__main__":
    _start_mpi()


def pytest_addoption(parser) -> None:
    group = parser.getgroup("xdist-sklearn", "xdist standing in for array_api_strict")
    group.addoption("--xdist-split", choices=sorted(_MIN_NDIM), default="2d")
    group.addoption("--xdist-log", default=None, help="append outcomes here; resume past it")
    group.addoption("--xdist-test-timeout", type=float, default=300.0)


def pytest_configure(config) -> None:
    _State.log = config.getoption("xdist_log")
    _State.timeout = config.getoption("xdist_test_timeout")
    _install_namespace(_MIN_NDIM[config.getoption("xdist_split")])


def pytest_terminal_summary(terminalreporter) -> None:
    import xdist

    terminalreporter.write_line(
        f"xdist ({os.path.dirname(xdist.__file__)}; {xdist.default_comm().size} rank(s), "
        f"backend {xdist.zeros(1).backend.name}, default split "
        f"{xdist.get_config().default_split}) "
        f"stood in for {_STRICT} {_State.stood_in} times; "
        f"{_State.split_inputs} test inputs were split along samples"
    )


def read_log(path: str) -> dict[str, tuple[str, str]]:
    """nodeid -> (outcome, message) from a log; a test only ``started`` is ``crashed``."""
    found: dict[str, tuple[str, str]] = {}
    if not os.path.exists(path):
        return found
    with open(path) as f:
        for line in f:
            outcome, nodeid, message = (line.rstrip("\n").split("\t") + ["", ""])[:3]
            found[nodeid] = ("crashed" if outcome == "started" else outcome, message)
    return found


def _log(outcome: str, nodeid: str, message: str = "") -> None:
    if _State.log and _State.rank == 0:
        with open(_State.log, "a") as f:
            f.write(f"{outcome}\t{nodeid}\t{' '.join(message.split())[:300]}\n")


def pytest_collection_modifyitems(config, items) -> None:
    """Deselect the tests the log already has (rank 0's reading, the same on every rank)."""
    _install_namespace(_MIN_NDIM[config.getoption("xdist_split")])  # test modules now loaded
    if not _State.log:
        return
    done = set(read_log(_State.log)) if _State.rank == 0 else None
    if _State.comm is not None:
        done = _State.comm.bcast(done, root=0)
    keep = [item for item in items if item.nodeid not in done]
    if len(keep) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid in done])
        items[:] = keep


def pytest_runtest_logreport(report) -> None:
    if hasattr(report, "wasxfail"):
        outcome = "xpassed" if report.passed else "xfailed"
    elif report.skipped:
        outcome = "skipped"
    elif report.failed:
        outcome = "failed" if report.when == "call" else "error"
    else:
        outcome = "passed" if report.when == "call" else None
    if outcome is None:
        return
    crash = getattr(report.longrepr, "reprcrash", None)
    message = crash.message if crash is not None else str(report.longrepr or "")[-300:]
    previous = _State.outcomes.get(report.nodeid)
    if previous is None or _WORST.index(outcome) < _WORST.index(previous[0]):
        _State.outcomes[report.nodeid] = (outcome, message if report.failed else "")


def _watchdog_fired(nodeid: str) -> None:
    _write(f"\n===== rank {_State.rank}: {nodeid} still running after {_State.timeout:.0f} s\n")
    faulthandler.dump_traceback(file=sys.__stderr__, all_threads=True)
    _abort(3)


def _agreed(nodeid: str) -> tuple[str, str]:
    """The worst outcome of ``nodeid`` over the ranks, with the failing rank's message."""
    mine = _State.outcomes.get(nodeid, ("missing", "no outcome reported on this rank"))
    if _State.comm is None:
        return mine
    everyone = _State.comm.allgather(mine)
    worst = min(range(len(everyone)), key=lambda r: _WORST.index(everyone[r][0]))
    outcome, message = everyone[worst]
    if len({o for o, _ in everyone}) > 1:
        message = f"rank {worst} of {_State.size} ({[o for o, _ in everyone]}): {message}"
        if _State.rank == 0:
            _write(f"\n===== {nodeid}: outcomes differ by rank: {message}\n")
    return outcome, message


def _same_random_state(nodeid: str) -> None:
    """Seed NumPy's and Python's global generators from the test's id. Some tests draw their
    data from the unseeded global generator (``np.random.randint``), which starts from a
    different state in each process: every rank would hold a different "same" array."""
    import random
    import zlib

    import numpy as np

    random.seed(nodeid)
    np.random.seed(zlib.crc32(nodeid.encode()))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _log("started", item.nodeid)
    _same_random_state(item.nodeid)
    timer = threading.Timer(_State.timeout, _watchdog_fired, args=(item.nodeid,))
    timer.daemon = True
    timer.start()
    # a backstop should the timer's thread never get the interpreter lock
    faulthandler.dump_traceback_later(_State.timeout + 60, exit=True, file=sys.__stderr__)
    try:
        result = yield
    finally:
        faulthandler.cancel_dump_traceback_later()
        timer.cancel()
    error = result.exception  # pytest's own error, which ends this rank's session
    if error is not None and item.nodeid not in _State.outcomes:
        why = f"pytest internal error on rank {_State.rank}: {type(error).__name__}: {error}"
        _write(f"\n===== {item.nodeid}: {why}\n")
        _State.outcomes[item.nodeid] = ("missing", why)
    outcome, message = _agreed(item.nodeid)
    _log(outcome, item.nodeid, message)
    if outcome == "missing" and _State.comm is not None:
        # A rank made no report of this test: its pytest is ending (an INTERNALERROR), and
        # the others would wait for it in the next test's first collective until the
        # watchdog fires. End the job now; the runner starts it again past this test.
        if _State.rank == 0:
            _write(f"\n===== {item.nodeid}: a rank lost its session; ending this job\n")
        _abort(4)


# ------------------------------------------------------------------------------ the runner

_OVERSUBSCRIBE = {  # tests/run.py's MPICH settings for more ranks than cores
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1",
    "MPIR_CVAR_POLLS_BEFORE_YIELD": "100",
    "MPIR_CVAR_ENABLE_HEAVY_YIELD": "1",
}


def _run_until_done(nranks: int, log: str, pytest_args: list[str], timeout: float) -> None:
    """Run pytest at ``nranks`` until every selected test has an outcome in ``log``: a job
    that dies (a crash, a watchdog) is started again past the test it was running."""
    import subprocess

    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    # the test command's checks: replicated data compared across ranks, and a rank waiting
    # in a collective that the others never enter ends the job instead of waiting on
    env.update(XDIST_CHECK_REPLICATED="1", XDIST_COLLECTIVE_TIMEOUT_ABORT="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [here, env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "sklearn_plugin"]
    cmd += [f"--xdist-log={log}", *pytest_args]
    if nranks > 1:
        env.update(_OVERSUBSCRIBE)
        mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
        cmd = [mpiexec, "-n", str(nranks), sys.executable, "-m", "mpi4py", *cmd[1:]]
    while True:
        print(f"\n===== {nranks} rank(s): {' '.join(cmd)}", flush=True)
        before = len(read_log(log))
        try:
            code = subprocess.run(cmd, env=env, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            code = -1
        found = read_log(log)
        if code in (0, 1, 5) or len(found) == before:  # done, or no progress: stop
            return
        # a test only started (no message) crashed the job: the next run deselects it
        unfinished = [n for n, (o, m) in found.items() if o == "crashed" and not m]
        if unfinished:
            with open(log, "a") as f:
                f.write(f"crashed\t{unfinished[-1]}\texit code {code}\n")


def _summary(logs: dict[int, str]) -> None:
    """Counts per rank count; what fails at the first; what differs at the others."""
    results = {n: read_log(path) for n, path in logs.items()}
    for n, found in results.items():
        counts: dict[str, int] = {}
        for outcome, _ in found.values():
            counts[outcome] = counts.get(outcome, 0) + 1
        print(f"{n} rank(s): {len(found)} tests: {dict(sorted(counts.items()))}  ({logs[n]})")

    def show(title: str, found: dict, tests) -> None:
        print(f"\n{title}: {len(tests)}")
        for t in sorted(tests):
            print(f"  {found[t][0]:8} {t}\n           {found[t][1][:200]}")

    first, *others = sorted(results)
    base = results[first]
    bad = {n: {t for t, (o, _) in results[n].items() if o in _BAD} for n in results}
    show(f"failing at {first} rank(s)", base, bad[first])
    for n in others:
        show(f"failing at {n} rank(s), not at {first}", results[n], bad[n] - bad[first])
        show(f"failing at {first} rank(s), not at {n}", base, bad[first] & set(results[n]) - bad[n])


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", default="1,3", help="comma-separated rank counts")
    parser.add_argument("--split", choices=sorted(_MIN_NDIM), default="2d")
    parser.add_argument("--out", default=".", help="folder for the logs sklearn-<n>.tsv")
    parser.add_argument("--resume", action="store_true", help="keep the logs, run the rest")
    parser.add_argument("--timeout", type=float, default=4 * 3600, help="seconds per job")
    args, rest = parser.parse_known_args()
    rest = [a for a in rest if a != "--"] or ["--pyargs", "sklearn", "-k", _STRICT]
    os.makedirs(args.out, exist_ok=True)
    logs = {}
    for n in [int(r) for r in args.ranks.split(",")]:
        logs[n] = os.path.join(args.out, f"sklearn-{n}.tsv")
        if not args.resume and os.path.exists(logs[n]):
            os.remove(logs[n])
        _run_until_done(n, logs[n], [f"--xdist-split={args.split}", *rest], args.timeout)
    _summary(logs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
