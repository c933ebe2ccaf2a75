"""Run the official Array API test suite (data-apis/array-api-tests) against xdist.

    python conformance/run.py --suite PATH [--ranks 1,3] [--split 0,1,-1] [--max-examples N]
                              [-k EXPR] [--backend NAME] [--module NAME] [-- pytest args...]

At 1 rank the suite runs in this process's Python; at N > 1 ranks under
``mpiexec -n N python -m mpi4py -m pytest``, with ``XDIST_DEFAULT_SPLIT`` set so that the
arrays the suite creates are really split over the ranks: one run per split axis given
(``--split 0,1,-1``: along the first axis, along axis 1 of arrays that have one, and along
the last axis). Hypothesis is derandomized so every
rank draws the same examples; ``conformance/xdist_mpi_plugin.py`` keeps the ranks in step
(only rank 0 reports, a rank out of step aborts the job, every test has a watchdog) and each
run has a wall-clock limit, so a hang is reported, never waited on. The suite's own
``--skips-file``/``--xfails-file`` options take ``conformance/xdist-skips.txt`` and
``conformance/xdist-xfails.txt``; runs at several ranks add ``conformance/xdist-xfails-mpi.txt``
(what fails only because the array is really split), and ``--backend NAME`` adds
``conformance/xdist-xfails-NAME.txt`` (what the backend's library itself gets wrong) and sets
the suite's ``ARRAY_API_TESTS_SKIP_DTYPES`` to the standard's dtypes the backend lacks (Torch:
uint16, uint32, uint64). Exit status: 0 when every run passed (xfails allowed) and none died
or hung.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


def _tests_run():
    """tests/run.py, for its process runner (kills a hung job's whole process group), its
    mpiexec lookup and its MPICH settings for more ranks than cores."""
    spec = importlib.util.spec_from_file_location("xdist_tests_run", ROOT / "tests" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _suite_dir(arg: str | None) -> Path:
    value = arg or os.environ.get("ARRAY_API_TESTS_DIR")
    if not value:
        sys.exit(
            "conformance/run.py: where is the suite? Pass --suite PATH or set "
            "ARRAY_API_TESTS_DIR to a checkout of https://github.com/data-apis/array-api-tests "
            "(cloned with --recursive)"
        )
    suite = Path(value).expanduser().resolve()
    if not (suite / "array_api_tests").is_dir():
        sys.exit(f"conformance/run.py: {suite} is not an array-api-tests checkout")
    if not (suite / "array-api" / "src").is_dir():
        sys.exit(
            f"conformance/run.py: {suite}/array-api is missing or empty: the suite reads the "
            "standard's text from that git submodule; run "
            f"'git -C {suite} submodule update --init'"
        )
    return suite


def _parse() -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--suite", help="array-api-tests checkout (else $ARRAY_API_TESTS_DIR)")
    parser.add_argument("--ranks", default="1", help="comma-separated rank counts (default 1)")
    parser.add_argument(
        "--split",
        default="0",
        help="XDIST_DEFAULT_SPLIT for runs at several ranks: comma-separated axes (one run "
        "each; 1: axis 1 where arrays have one, -1: the last axis) or 'none' (default 0)",
    )
    parser.add_argument("--max-examples", type=int, default=20, help="Hypothesis examples")
    parser.add_argument("-k", dest="keyword", help="pytest -k expression")
    parser.add_argument("--backend", help="XDIST_BACKEND for xdist's local arrays")
    parser.add_argument(
        "--module", default="xdist", help="ARRAY_API_TESTS_MODULE (e.g. array_api_strict)"
    )
    parser.add_argument(
        "--api-version",
        help="the standard's edition: ARRAY_API_TESTS_VERSION, and XDIST_API_VERSION for "
        "xdist (default: the module's own, 2025.12 for xdist)",
    )
    parser.add_argument(
        "--no-lists", action="store_true", help="do not pass the skips and xfails files"
    )
    parser.add_argument("--timeout", type=float, default=4 * 3600, help="seconds per run")
    parser.add_argument("--test-timeout", type=float, default=600, help="seconds per test")
    parser.add_argument("--json", help="write every run's outcomes by test to this file")
    args, extra = parser.parse_known_args()
    if extra[:1] == ["--"]:
        extra = extra[1:]
    return args, extra


def _xfails_file(n: int, backend: str | None, tmp: str) -> Path:
    """The xfails list for a run at ``n`` ranks: the MPI list added when ``n > 1``, the
    backend's own list (``xdist-xfails-NAME.txt``) when there is one."""
    names = ["xdist-xfails.txt"] + (["xdist-xfails-mpi.txt"] if n > 1 else [])
    if backend and (HERE / f"xdist-xfails-{backend}.txt").is_file():
        names.append(f"xdist-xfails-{backend}.txt")
    if len(names) == 1:
        return HERE / names[0]
    merged = Path(tmp) / f"xfails-{n}.txt"
    merged.write_text("\n".join((HERE / name).read_text() for name in names))
    return merged


def _missing_dtypes(backend: str) -> str:
    """The standard's dtypes that ``backend`` lacks, comma-separated (Torch: uint16, uint32,
    uint64), asked of xdist in a child process (this one starts MPI jobs, so it imports no
    MPI). The suite then draws none of them (``ARRAY_API_TESTS_SKIP_DTYPES``)."""
    code = (
        "from xdist.backends import get_backend\n"
        "from xdist.backends.base import STANDARD_DTYPES\n"
        f"have = get_backend({backend!r}).supported_dtypes()\n"
        "print(','.join(d.name for d in STANDARD_DTYPES if d not in have))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"conformance/run.py: cannot load the {backend} backend:\n{done.stderr}")
    return done.stdout.strip()


def _pytest_args(args: argparse.Namespace, extra: list[str], xfails: Path) -> list[str]:
    cmd = [
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "xdist_mpi_plugin",
        "--hypothesis-derandomize",
        "--hypothesis-disable-deadline",
        f"--max-examples={args.max_examples}",
        "-o",
        "console_output_style=classic",
    ]
    if not args.no_lists:
        cmd += [
            f"--skips-file={HERE / 'xdist-skips.txt'}",
            f"--xfails-file={xfails}",
        ]
    if args.keyword:
        cmd += ["-k", args.keyword]
    paths = [a for a in extra if not a.startswith("-")]
    return cmd + extra + ([] if paths else ["array_api_tests"])


def _splits(value: str) -> list[str]:
    """The split axes of ``--split``: comma-separated ints, or 'none' (replicated)."""
    out = []
    for part in value.split(","):
        part = part.strip()
        if part.lower() == "none":
            out.append("none")
            continue
        try:
            out.append(str(int(part)))
        except ValueError:
            sys.exit(f"conformance/run.py: --split takes axes or 'none', got {part!r}")
    return out


def _run_name(n: int, split: str | None) -> str:
    """How a run is named in the summary and the --json file: ``1 rank(s)`` or
    ``3 rank(s), split -1`` (the name of a split-0 run stays ``3 rank(s)``)."""
    return f"{n} rank(s)" + ("" if split in (None, "0") else f", split {split}")


def _counts(outcomes: dict[str, str]) -> dict[str, int]:
    found = {k: 0 for k in OUTCOMES}
    for outcome in outcomes.values():
        found[outcome] += 1
    return {k: v for k, v in found.items() if v}


def main() -> int:
    args, extra = _parse()
    suite = _suite_dir(args.suite)
    runner = _tests_run()
    ranks = [int(r) for r in args.ranks.split(",")]
    splits = _splits(args.split)
    # One run at 1 rank (the split changes nothing there), one per split axis at several.
    runs = [(n, s) for n in ranks for s in ([None] if n == 1 else splits)]
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    env["ARRAY_API_TESTS_MODULE"] = args.module
    # The same string hashes on every rank: strategies that sample from sets (whose order
    # follows the hashes) must draw the same examples everywhere.
    env.setdefault("PYTHONHASHSEED", "0")
    env["XDIST_CONFORMANCE_TEST_TIMEOUT"] = str(args.test_timeout)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    if args.backend:
        env["XDIST_BACKEND"] = args.backend
    backend = env.get("XDIST_BACKEND") if args.module == "xdist" else None
    if backend:
        env.setdefault("ARRAY_API_TESTS_SKIP_DTYPES", _missing_dtypes(backend))
    if args.api_version:
        env["ARRAY_API_TESTS_VERSION"] = args.api_version
        env["XDIST_API_VERSION"] = args.api_version  # the edition xdist follows
    runner.ROOT = suite  # our private copy of tests/run.py: run the suite from its checkout
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, (n, split_axis) in enumerate(runs):
            run_env = dict(env, XDIST_CONFORMANCE_RANKS=str(n))
            run_env["XDIST_CONFORMANCE_REPORT"] = report = os.path.join(tmp, f"{k}.json")
            pytest_args = _pytest_args(args, extra, _xfails_file(n, backend, tmp))
            if n == 1:
                cmd = [sys.executable, *pytest_args]
            else:
                run_env.update(runner.OVERSUBSCRIBE_ENV)
                run_env["XDIST_DEFAULT_SPLIT"] = split_axis
                cmd = [runner._mpiexec(), "-n", str(n), sys.executable, "-m", "mpi4py"]
                cmd += pytest_args
            split = run_env.get("XDIST_DEFAULT_SPLIT", "none")
            skipped = run_env.get("ARRAY_API_TESTS_SKIP_DTYPES") or "none"
            print(
                f"\n===== array-api-tests ({args.module}) at {n} rank(s), default split {split},"
                f" backend {backend or 'default'}, dtypes skipped: {skipped}"
                f"\n      cd {suite} && {' '.join(cmd)}",
                flush=True,
            )
            start = time.monotonic()
            code, _ = runner._run(cmd, run_env, args.timeout)
            elapsed = time.monotonic() - start
            outcomes: dict[str, str] = {}
            if os.path.exists(report):
                with open(report) as f:
                    outcomes = json.load(f)["outcomes"]
            if code == -1:
                verdict = f"HUNG: killed after {args.timeout:.0f} s"
            elif code in (0, 1) and os.path.exists(report):
                verdict = "ok" if code == 0 else "tests failed"
            else:
                verdict = f"DIED with exit code {code} (see the rank reports above)"
            results.append((_run_name(n, split_axis), verdict, elapsed, outcomes))
    print("\n===== conformance summary")
    for name, verdict, elapsed, outcomes in results:
        counts = ", ".join(f"{v} {k}" for k, v in _counts(outcomes).items()) or "no results"
        print(f"{name}: {counts}  [{verdict}, {elapsed:.0f} s]")
        failing = sorted(t for t, o in outcomes.items() if o in ("failed", "error", "xpassed"))
        for t in failing:
            print(f"    {outcomes[t]:8s} {t}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({name: o for name, _, _, o in results}, f, indent=1, sort_keys=True)
    return 0 if all(v == "ok" for _, v, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
