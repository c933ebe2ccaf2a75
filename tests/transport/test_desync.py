"""Ranks out of step are named and ended by default, never left to hang or to return wrong
values in silence (xdist/_transport/watchdog.py).

In this process, at every rank count: a small allreduce or allgather called from different
lines of the program on different ranks raises the same ``CollectiveMismatchError`` on every
rank, on every communicator, before its value is returned.

In child jobs of two ranks, started at once by the 1-rank run of the test command (each takes
a few seconds; a short ``collective_timeout``):

- a rank skips a collective and the next one differs: the job ends with one message that says
  where each rank is (collective, call number, the program's line);
- a rank skips one of two sums: the sum that would be wrong raises on every rank, and its
  error is printed once;
- ``if rank == 0: print(xp.sum(x))`` after the other rank has exited: ended within a second
  or so, long before the (long) timeout;
- a rank computing while the other waits in the same collective: reported, not ended;
- a collective made by one rank only that completed anyway (a broadcast's root does not
  wait): the job ends with an error at exit, naming each rank's number of collectives;
- an error raised alike on every rank prints one traceback; different errors print one each;
  a rank failing alone prints its own and ends the job, and the watchdog of the rank waiting
  for it does not take it for a rank blocked elsewhere.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import time
import zlib
from pathlib import Path

import numpy as np
import pytest
from helpers import RANK, SIZE, comms, outside_mpi_job, own_processes

import xdist
from xdist._transport.watchdog import CollectiveMismatchError

COMMS = comms()


@pytest.mark.parametrize("name", list(COMMS))
@pytest.mark.parametrize(
    "dtype, op",
    [
        ("float64", "sum"),
        ("float32", "sum"),
        ("int64", "sum"),
        ("int32", "max"),
        ("complex128", "sum"),
        ("float64", "min"),
    ],
)
def test_an_allreduce_from_different_lines_raises_on_every_rank(name, dtype, op):
    comm = COMMS[name]
    data = np.arange(3).astype(dtype)
    expected = {"sum": data * comm.size, "min": data, "max": data}[op]
    for _ in range(2):  # one line, called twice: the same collective on every rank
        np.testing.assert_array_equal(comm.allreduce(data, op), expected)
    if comm.size == 1:
        return  # one rank: nothing to match
    with pytest.raises(CollectiveMismatchError, match=r"rank 0: allreduce \(call \d+"):
        if comm.rank == 0:
            comm.allreduce(data, op)
        else:
            comm.allreduce(data, op)
    with xdist.config_context(check_call_sites=False):  # calls that belong together
        if comm.rank == 0:
            got = comm.allreduce(data, op)
        else:
            got = comm.allreduce(data, op)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name", list(COMMS))
def test_an_allgather_from_different_lines_raises_on_every_rank(name):
    comm = COMMS[name]
    got = comm.allgather_ints([comm.rank, 7])
    np.testing.assert_array_equal(got, [[r, 7] for r in range(comm.size)])
    if comm.size == 1:
        return
    with pytest.raises(CollectiveMismatchError, match="different lines of the program"):
        if comm.rank == 0:
            comm.allgather_ints([1])
        else:
            comm.allgather_ints([1])


def test_the_error_names_every_rank_s_line_and_is_the_same_everywhere():
    if SIZE == 1:
        return
    x = xdist.ones((7, 3), split=0)
    with pytest.raises(CollectiveMismatchError) as error:
        if RANK == 0:
            xdist.sum(x)  # line A
        else:
            xdist.sum(x)  # line B
    text = str(error.value)
    assert "rank 0: allreduce" in text and "xdist.sum(x)  # line A" in text
    assert f"rank {SIZE - 1}: allreduce" in text and "xdist.sum(x)  # line B" in text
    rows = xdist.from_local(np.array([zlib.crc32(text.encode())], np.int64)).to_numpy()
    assert (rows == rows[0]).all(), "the same message on every rank"


# -- child jobs ----------------------------------------------------------------------------------
SKIP_THEN_OTHER = """
    import xdist as xp
    x = xp.ones((30, 2), split=0)
    rank = xp.default_comm().rank
    try:
        if rank == 1:
            raise ValueError("rank 1 only")
        total = xp.sum(x)  # rank 1 skips this
    except ValueError:
        pass
    print(xp.default_comm().allgather_ints([1]))
    """

SKIP_ONE_OF_TWO_SUMS = """
    import xdist as xp
    x = xp.ones((30, 2), split=0)
    y = xp.ones((30, 2), split=0) * 3
    rank = xp.default_comm().rank
    try:
        if rank == 1:
            raise ValueError("rank 1 only")
        a = float(xp.sum(x))  # rank 1 skips this
    except ValueError:
        pass
    b = float(xp.sum(y))
    print("sum of y:", b)
    """

RANK_0_ONLY = """
    import xdist as xp
    x = xp.ones((30, 2), split=0)
    if xp.default_comm().rank == 0:
        print(xp.sum(x))
    """

LONG_WAIT = """
    import time
    import xdist as xp
    x = xp.ones((30, 2), split=0)
    if xp.default_comm().rank == 0:
        time.sleep(3)  # computing, while rank 1 waits in the sum
    print("sum:", float(xp.sum(x)))
    """

ROOT_ONLY_BROADCAST = """
    import numpy as np
    import xdist as xp
    comm = xp.default_comm()
    if comm.rank == 0:
        comm.bcast(np.ones(2), 0)  # the root sends and goes on; rank 1 never receives
    print("done")
    """

SAME_ERROR = """
    import xdist as xp
    xp.reshape(xp.ones((30, 2), split=0), (7, 7))
    """

OWN_ERRORS = """
    import xdist as xp
    raise ValueError(f"rank {xp.default_comm().rank} has its own error")
    """

FAILS_WHILE_THE_OTHER_WAITS = """
    import time
    import xdist as xp
    x = xp.ones((30, 2), split=0)
    if xp.default_comm().rank == 1:
        time.sleep(1.5)
        raise RuntimeError("rank 1 fails on purpose")
    xp.sum(x)
    """

# name: (source, collective_timeout)
JOBS = {
    "skip-then-other": (SKIP_THEN_OTHER, 1),
    "skip-one-of-two-sums": (SKIP_ONE_OF_TWO_SUMS, 1),
    "rank-0-only": (RANK_0_ONLY, 30),
    "long-wait": (LONG_WAIT, 1),
    "root-only-broadcast": (ROOT_ONLY_BROADCAST, 30),
    "same-error": (SAME_ERROR, 30),
    "own-errors": (OWN_ERRORS, 30),
    "fails-while-the-other-waits": (FAILS_WHILE_THE_OTHER_WAITS, 1),
}


class Job:
    def __init__(self, tmp: Path, name: str) -> None:
        source, timeout = JOBS[name]
        script = tmp / f"{name}.py"
        script.write_text(textwrap.dedent(source))
        env = {**outside_mpi_job(), "XDIST_COLLECTIVE_TIMEOUT": str(timeout)}
        env["XDIST_BACKEND"] = "numpy"  # what is tested is the transport's; NumPy starts fast
        mpiexec = Path(sys.executable).parent / "mpiexec"
        self.start = time.monotonic()
        self.proc = subprocess.Popen(
            [str(mpiexec), "-n", "2", sys.executable, str(script)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )

    def result(self) -> tuple[int, str, str, float]:
        """Exit code, stdout, stderr and seconds from start to end (a hang fails the test)."""
        try:
            out, err = self.proc.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
            pytest.fail(f"the job hung:\n{out}\n{err}")
        return self.proc.returncode, out, err, time.monotonic() - self.start


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    """Every child job, started at once."""
    tmp = tmp_path_factory.mktemp("desync")
    started = {name: Job(tmp, name) for name in JOBS}
    yield started
    for job in started.values():  # a job left running (a test failed): end it
        if job.proc.poll() is None:
            job.proc.kill()
            job.proc.communicate()


@pytest.fixture
def job(jobs, request):
    """The result of the child job named by the test's parameter."""
    return jobs[request.param].result()


def _waited(stderr: str) -> float:
    found = re.search(r"has waited ([\d.]+) s", stderr)
    assert found, stderr
    return float(found.group(1))


@own_processes
@pytest.mark.parametrize("job", ["skip-then-other"], indirect=True)
def test_a_skipped_collective_then_another_ends_the_job_with_each_rank_s_place(job):
    code, out, err, elapsed = job
    assert code != 0, err
    assert "The ranks cannot meet again" in err, err
    assert "rank 0: in allreduce (call 1 on this communicator)" in err
    assert "total = xp.sum(x)  # rank 1 skips this" in err  # the program's line
    assert "rank 1: in allgather (call 1 on this communicator)" in err
    assert "allgather_ints([1])" in err
    assert err.count("The ranks cannot meet again") == 1, "one message ends the job"
    # On a loaded machine rank 1 may still be on its way when rank 0 has waited 1 s: that long
    # wait is reported once, "still waiting", before the message that ends the job.
    assert err.count("xdist watchdog:") == 1 + err.count("(still waiting:"), err
    assert _waited(err) < 10, err  # the timeout is 1 s


@own_processes
@pytest.mark.parametrize("job", ["skip-one-of-two-sums"], indirect=True)
def test_a_skipped_sum_matched_with_the_next_raises_before_the_wrong_value(job):
    code, out, err, elapsed = job
    assert code != 0, err
    assert "sum of y" not in out, out  # no rank printed a value
    assert "one allreduce was called from different lines" in err, err
    assert "rank 0: allreduce (call 1 on this communicator)" in err
    assert "a = float(xp.sum(x))  # rank 1 skips this" in err
    assert "b = float(xp.sum(y))" in err
    assert err.count("Traceback (most recent call last)") == 1, err  # printed once
    assert "xdist: rank 1: the same CollectiveMismatchError as rank 0" in err


@own_processes
@pytest.mark.parametrize("job", ["rank-0-only"], indirect=True)
def test_a_collective_after_the_other_rank_exited_ends_at_once(job):
    code, out, err, elapsed = job
    assert code != 0, err
    assert "in allreduce (call 1 on this communicator)" in err, err
    assert "print(xp.sum(x))" in err
    assert "rank 1: exited after call 0 on this communicator" in err
    assert _waited(err) < 5, err  # the timeout is 30 s: the exit was noticed at once
    assert elapsed < 30


@own_processes
@pytest.mark.parametrize("job", ["long-wait"], indirect=True)
def test_a_long_wait_in_the_same_collective_is_reported_not_ended(job):
    code, out, err, elapsed = job
    assert code == 0, err
    assert "60.0" in out, out  # (the ranks' lines may interleave)
    assert "rank 1 of 2 has waited" in err and "still waiting" in err, err
    assert "rank 0: running, not in a collective" in err


@own_processes
@pytest.mark.parametrize("job", ["root-only-broadcast"], indirect=True)
def test_a_collective_made_by_one_rank_only_fails_the_job_at_exit(job):
    code, out, err, elapsed = job
    assert "done" in out, out
    assert code != 0, err
    assert "different numbers of collectives" in err, err
    assert "rank 0: 1; rank 1: 0" in err


@own_processes
@pytest.mark.parametrize("job", ["same-error"], indirect=True)
def test_an_error_raised_alike_on_every_rank_is_printed_once(job):
    code, out, err, elapsed = job
    assert code != 0, err
    assert err.count("Traceback (most recent call last)") == 1, err
    assert err.count("cannot reshape an array of shape (30, 2)") == 1, err
    assert "xdist: every rank raised this error (the traceback of rank 0)" in err
    assert "xdist: rank 1: the same ValueError as rank 0" in err
    assert elapsed < 60


@own_processes
@pytest.mark.parametrize("job", ["own-errors"], indirect=True)
def test_different_errors_are_printed_per_rank(job):
    code, out, err, elapsed = job
    assert code != 0, err
    assert err.count("Traceback (most recent call last)") == 2, err
    for r in range(2):
        assert f"ValueError: rank {r} has its own error" in err
        assert f"xdist: rank {r} of 2 raised this error (the traceback of rank {r})" in err


@own_processes
@pytest.mark.parametrize("job", ["fails-while-the-other-waits"], indirect=True)
def test_a_rank_failing_alone_prints_its_own_traceback_and_ends_the_job(job):
    code, out, err, elapsed = job
    assert code != 0, err
    assert "xdist: rank 1 of 2 failed:" in err, err  # rank 0 never raised: no agreement
    assert "RuntimeError: rank 1 fails on purpose" in err
    assert "cannot meet again" not in err  # the failing rank is not taken for a blocked one
