"""Run the API reference's examples (docs/_ext/xdist_reference.py) in this process, counting
what each sends; used by tests/packaging/test_docs.py, and by hand to see the counts:

    mpiexec -n 3 python tests/support/docs_examples.py
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import warnings
from collections import Counter
from pathlib import Path

import xdist
from xdist._movement.agreement import agree_on_errors, bcast_text

DOCS = Path(__file__).resolve().parents[2] / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import xdist_reference  # noqa: E402


@contextlib.contextmanager
def shared_directory():
    """A new directory made by rank 0 and entered by every rank (examples write files),
    removed by rank 0 once every rank has left it."""
    comm = xdist.default_comm()
    made = tempfile.mkdtemp(prefix="xdist-docs-") if comm.rank == 0 else None
    where = bcast_text(made, 0, comm)
    before = os.getcwd()
    os.chdir(where)
    try:
        yield Path(where)
    finally:
        os.chdir(before)
        agree_on_errors(None, comm)  # every rank has left it
        if comm.rank == 0:
            shutil.rmtree(where, ignore_errors=True)


def run_reference_examples() -> dict[str, tuple[BaseException | None, Counter]]:
    """Every entry's setup, then its code under ``count_collectives``: name -> (the error it
    raised or None, the collectives its code made). Run on every rank alike; settings at
    their defaults but ``check_replicated`` off (the entries show what a call sends when the
    data is trusted; their notes name the fingerprint's message); printing silenced."""
    results = {}
    with (
        shared_directory(),
        xdist.config_context(check_replicated=False),
        warnings.catch_warnings(),
        open(os.devnull, "w") as devnull,
        contextlib.redirect_stdout(devnull),
    ):
        warnings.simplefilter("ignore")
        for name, entry in xdist_reference.REFERENCE.items():
            space: dict = {"__name__": "__docs__"}
            counts: Counter = Counter()
            try:
                exec(compile(entry.setup, f"<{name} setup>", "exec"), space)
                with xdist.count_collectives() as counts:
                    exec(compile(entry.code, f"<{name} example>", "exec"), space)
                error = None
            except Exception as exc:  # reported by the caller, with the name
                error = exc
            results[name] = (error, Counter(counts))
    return results


if __name__ == "__main__":
    out = run_reference_examples()
    if xdist.default_comm().rank == 0:
        for name, (error, counts) in out.items():
            declared = xdist_reference.REFERENCE[name].sends
            if error is not None:
                print(f"ERROR {name}: {type(error).__name__}: {error}")
            elif dict(counts) != declared and xdist.default_comm().size > 1:
                print(f"SENDS {name}: measured {dict(counts)} declared {declared}")
