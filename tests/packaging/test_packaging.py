"""The package as a user gets it: the sdist and wheel that ``python -m build`` makes, installed
into a fresh virtual environment, outside this checkout.

- The sdist holds what a build needs (``python -m build`` builds the wheel from the unpacked
  sdist, not from the tree), plus LICENSE, the whole test suite and the examples.
- The wheel holds every package of pyproject's list (``backends/`` and ``ml/`` as
  ``xdist.backends`` and ``xdist.ml``) and ``py.typed``, and nothing else: no tests/,
  conformance/, benchmarks/ or examples/. Its metadata passes packaging's validation (what
  ``twine check`` runs) and carries the README, the licence and the project URLs.
- The version lives in ``xdist/_version.py`` only; the files' names, the metadata and
  ``xdist.__version__`` in the fresh environment all say it.
- One fresh venv, in three steps, each followed by a small computation checked against NumPy:
  the wheel with numpy and array-api-compat only (no mpi4py: one process and one notice);
  the plain ``pip install`` of the wheel (mpi4py without an MPI library behind it on a machine
  with no system MPI: one process and one notice); the ``mpi`` extra (mpich), at 1 rank and
  under ``mpiexec -n 2``.

It builds and installs once per test command: ``tests/run.py`` runs it in one run only (the
first NumPy 1-rank run) and sets ``XDIST_PACKAGING_TEST=0`` for the others. pip takes the
dependencies from its cache or its configured index (the test command's own install has just
fetched the same files).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tarfile
import textwrap
import tomllib
import zipfile
from email import message_from_bytes
from pathlib import Path

import pytest
from helpers import SIZE
from packaging.metadata import Metadata
from packaging.requirements import Requirement
from run import OVERSUBSCRIBE_ENV

import xdist

pytestmark = [
    pytest.mark.skipif(
        os.environ.get("XDIST_PACKAGING_TEST") == "0",
        reason="tests/run.py runs the packaging test once per command, in its first NumPy "
        "1-rank run",
    ),
    pytest.mark.skipif(
        SIZE > 1,
        reason="the packaging test builds and installs once, at 1 rank (it starts mpiexec -n 2 "
        "itself)",
    ),
]

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
PACKAGES = PYPROJECT["tool"]["setuptools"]["packages"]
VERSION = re.search(
    r'^__version__ = "([^"]+)"$', (ROOT / "xdist" / "_version.py").read_text(), re.M
).group(1)
NOTICE = "xdist: no MPI"
TIMEOUT = 120  # seconds for one build, install or run (each takes a few here)

# Run inside the fresh venv, from a folder outside the checkout; prints one JSON line a rank.
SMOKE = textwrap.dedent(
    """
    import importlib.metadata, importlib.util, json, sys
    from pathlib import Path
    import numpy as np
    import xdist as xp

    comm = xp.default_comm()
    data = np.arange(7 * 5, dtype=np.float64).reshape(7, 5) ** 1.5  # 7 rows: uneven at 2 ranks
    x = xp.asarray(data, split=0)
    z = (x - xp.mean(x, axis=0)) / xp.std(x, axis=0)
    expected = (data - data.mean(axis=0)) / data.std(axis=0)
    checks = {
        "sum": abs(float(xp.sum(x)) - float(data.sum())) <= 1e-9 * abs(float(data.sum())),
        "standardized": bool(np.allclose(xp.to_numpy(z), expected, rtol=1e-12, atol=1e-12)),
        "gram": bool(np.allclose(xp.to_numpy(x.T @ x), data.T @ data, rtol=1e-12)),
        "sort": bool(np.array_equal(xp.to_numpy(xp.sort(x[:, 1] * -1.0)), np.sort(-data[:, 1]))),
    }
    print("SMOKE " + json.dumps({
        "rank": comm.rank,
        "size": comm.size,
        "rows": x.lshape[0],
        "checks": checks,
        "version": xp.__version__,
        "dist_version": importlib.metadata.version("xdist-array"),
        "file": xp.__file__,
        "prefix": sys.prefix,
        "packages": {n: importlib.util.find_spec(n) is not None for n in sys.argv[1:]},
        "py_typed": (Path(xp.__file__).parent / "py.typed").is_file(),
        "mpi4py": importlib.util.find_spec("mpi4py") is not None,
    }), flush=True)
    """
)


def _run(cmd: list, env: dict | None = None, cwd: Path | None = None):
    proc = subprocess.run(
        [str(c) for c in cmd], capture_output=True, text=True, timeout=TIMEOUT, env=env, cwd=cwd
    )
    assert proc.returncode == 0, (
        f"{' '.join(map(str, cmd))} exited with {proc.returncode}\n"
        f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    )
    return proc


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict:
    """``python -m build``: the sdist, then the wheel built from the unpacked sdist."""
    out = tmp_path_factory.mktemp("dist")
    proc = _run([sys.executable, "-m", "build", "--outdir", out, ROOT])
    sdists, wheels = list(out.glob("*.tar.gz")), list(out.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, sorted(p.name for p in out.iterdir())
    return {"sdist": sdists[0], "wheel": wheels[0], "log": proc.stdout + proc.stderr}


def test_the_version_has_one_place():
    assert "version" not in PROJECT and "version" in PROJECT["dynamic"]
    dynamic = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "xdist._version.__version__"}
    assert xdist.__version__ == VERSION


def test_readme_names_the_distribution_the_import_and_every_extra():
    readme = (ROOT / "README.md").read_text()
    flat = " ".join(readme.split())
    assert "The distribution is called **`xdist-array`**" in flat
    assert "imported as **`xdist`**" in flat and "pip install xdist-array" in flat
    rows = set(re.findall(r"^\| `([a-z]+)` \|", readme, re.M))
    extras = set(PROJECT["optional-dependencies"])
    assert rows == extras, (
        f"README.md's table of extras (section Install) lacks {sorted(extras - rows)} and has "
        f"{sorted(rows - extras)} that pyproject.toml does not define: make them agree"
    )


def test_wheel_is_built_from_the_sdist(dists):
    assert "Building wheel from sdist" in dists["log"], dists["log"]
    assert dists["sdist"].name == f"xdist_array-{VERSION}.tar.gz"
    assert dists["wheel"].name == f"xdist_array-{VERSION}-py3-none-any.whl"


def test_sdist_holds_what_a_build_needs(dists):
    with tarfile.open(dists["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    needed = {
        "PKG-INFO", "pyproject.toml", "README.md", "LICENSE", "MANIFEST.in",
        "xdist/_version.py", "xdist/py.typed", "backends/__init__.py", "ml/__init__.py",
        "tests/conftest.py", "tests/support/helpers.py", "tests/run.py", "examples/quickstart.py",
    }  # fmt: skip
    assert needed <= names, sorted(needed - names)
    for directory in ("xdist", "backends", "ml"):
        source = {str(p.relative_to(ROOT)) for p in (ROOT / directory).rglob("*.py")}
        assert source <= names, f"missing from the sdist: {sorted(source - names)}"
    tops = {n.split("/")[0] for n in names}
    assert not tops & {"docs", "benchmarks", "conformance", ".ci", ".venv"}, sorted(tops)
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)


def test_wheel_holds_the_packages_and_nothing_else(dists):
    with zipfile.ZipFile(dists["wheel"]) as whl:
        names = set(whl.namelist())
    dist_info = f"xdist_array-{VERSION}.dist-info"
    assert {n.split("/")[0] for n in names} == {"xdist", dist_info}, sorted(names)
    packages = {n.rsplit("/", 1)[0].replace("/", ".") for n in names if n.endswith("__init__.py")}
    assert packages == set(PACKAGES)
    for package, directory in (("xdist.backends", "backends"), ("xdist.ml", "ml")):
        source = {p.name for p in (ROOT / directory).glob("*.py")}
        prefix = package.replace(".", "/") + "/"
        wheel = {n.removeprefix(prefix) for n in names if n.startswith(prefix)}
        assert source == wheel, package
    assert "xdist/py.typed" in names
    assert f"{dist_info}/licenses/LICENSE" in names


def test_wheel_metadata_is_valid_and_complete(dists):
    with zipfile.ZipFile(dists["wheel"]) as whl:
        raw = whl.read(f"xdist_array-{VERSION}.dist-info/METADATA")
    meta = Metadata.from_email(raw, validate=True)  # the validation twine check runs
    assert (meta.name, str(meta.version)) == ("xdist-array", VERSION)
    assert str(meta.requires_python) == PROJECT["requires-python"]
    assert str(meta.license_expression) == "BSD-3-Clause" and meta.license_files == ["LICENSE"]
    assert set(meta.project_urls) == {"Homepage", "Documentation", "Source", "Issues"}
    assert meta.description_content_type == "text/markdown"
    readme = (ROOT / "README.md").read_text()
    assert message_from_bytes(raw).get_payload().strip() == readme.strip()
    assert set(meta.provides_extra) == set(PROJECT["optional-dependencies"])
    assert {r.name for r in meta.requires_dist if r.marker is None} == {
        Requirement(d).name for d in PROJECT["dependencies"]
    }
    assert meta.classifiers == PROJECT["classifiers"] and meta.keywords == PROJECT["keywords"]


def _fresh_env(venv: Path) -> dict[str, str]:
    """This process's environment without its venv, Python, MPI job and xdist settings: what
    a user's shell would have with only ``venv`` activated."""
    outer = Path(sys.prefix).resolve()
    dropped = ("PMI_", "PMIX_", "HYDRA_", "MPI_LOCAL", "OMPI_", "MPIR_", "MPI4PY", "XDIST_")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(dropped) and not k.startswith("PYTHON") and k != "VIRTUAL_ENV"
    }
    for var in ("PATH", "LD_LIBRARY_PATH"):
        kept = [p for p in env.get(var, "").split(os.pathsep) if p and outer not in Path(p).parents]
        env[var] = os.pathsep.join(([str(venv / "bin")] if var == "PATH" else []) + kept)
    return {**env, "VIRTUAL_ENV": str(venv), "OMP_NUM_THREADS": "1"}


class FreshVenv:
    """A venv made with ``python -m venv``, filled by this pip (``--python``), run from a folder
    outside the checkout so that ``import xdist`` can only find the installed wheel."""

    def __init__(self, root: Path):
        self.path = root / "venv"
        self.work = root / "work"
        self.work.mkdir()
        _run([sys.executable, "-m", "venv", "--without-pip", self.path])
        self.python = self.path / "bin" / "python"
        (self.work / "smoke.py").write_text(SMOKE)

    def pip_install(self, *args) -> None:
        _run([sys.executable, "-m", "pip", "--python", self.python, "install", "-q", *args])

    def smoke(self, ranks: int = 1) -> dict:
        """Run the smoke program; its reports (one a rank) and its stderr lines."""
        cmd = [self.python, "smoke.py", *PACKAGES]
        env = _fresh_env(self.path)
        if ranks > 1:
            cmd = [self.path / "bin" / "mpiexec", "-n", ranks, *cmd]
            env.update(OVERSUBSCRIBE_ENV)
        proc = _run(cmd, env=env, cwd=self.work)
        reports = [json.loads(ln[6:]) for ln in proc.stdout.splitlines() if ln.startswith("SMOKE ")]
        return {"reports": reports, "stderr": [ln for ln in proc.stderr.splitlines() if ln]}

    def check(self, result: dict, ranks: int) -> None:
        reports = sorted(result["reports"], key=lambda r: r["rank"])
        assert [(r["rank"], r["size"]) for r in reports] == [(i, ranks) for i in range(ranks)]
        assert sum(r["rows"] for r in reports) == 7
        for report in reports:
            assert all(report["checks"].values()), report["checks"]
            assert report["version"] == report["dist_version"] == VERSION
            assert Path(report["prefix"]).resolve() == self.path.resolve()
            assert self.path.resolve() in Path(report["file"]).resolve().parents, report["file"]
            assert all(report["packages"].values()), report["packages"]
            assert report["py_typed"]


def _requirements_without_mpi() -> list[str]:
    return [d for d in PROJECT["dependencies"] if Requirement(d).name != "mpi4py"]


@pytest.fixture(scope="module")
def venv(dists, tmp_path_factory) -> FreshVenv:
    return FreshVenv(tmp_path_factory.mktemp("fresh"))


@pytest.fixture(scope="module")
def no_mpi4py(venv, dists) -> dict:
    """Step 1: the wheel with numpy and array-api-compat only (no mpi4py, no MPI library)."""
    venv.pip_install("--no-deps", dists["wheel"])
    venv.pip_install(*_requirements_without_mpi())
    return venv.smoke()


@pytest.fixture(scope="module")
def plain_install(no_mpi4py, venv, dists) -> dict:
    """Step 2: ``pip install`` of the wheel with its dependencies, as ``pip install
    xdist-array`` (mpi4py, and an MPI library only where the machine has one)."""
    venv.pip_install(dists["wheel"])
    probe = subprocess.run(
        [venv.python, "-c", "from mpi4py import MPI"],
        capture_output=True, env=_fresh_env(venv.path), cwd=venv.work, timeout=TIMEOUT,
    )  # fmt: skip
    return {**venv.smoke(), "system_mpi": probe.returncode == 0}


@pytest.fixture(scope="module")
def mpi_extra(plain_install, venv, dists) -> dict:
    """Step 3: the ``mpi`` extra (the mpich wheel): 1 rank, then ``mpiexec -n 2``."""
    if not any(d.metadata["Name"] == "mpich" for d in importlib.metadata.distributions()):
        pytest.skip("the mpi extra (mpich) is not installed here; the test command installs it")
    venv.pip_install(f"{dists['wheel']}[mpi]")
    return {1: venv.smoke(1), 2: venv.smoke(2)}


def test_without_mpi4py_one_process_and_one_notice(venv, no_mpi4py):
    venv.check(no_mpi4py, ranks=1)
    assert not no_mpi4py["reports"][0]["mpi4py"]
    notices = [line for line in no_mpi4py["stderr"] if line.startswith(NOTICE)]
    assert len(notices) == 1, no_mpi4py["stderr"]
    assert "No module named 'mpi4py'" in notices[0], notices[0]
    assert "pip install 'xdist-array[mpi]'" in notices[0]


def test_plain_install_runs_with_or_without_an_mpi_library(venv, plain_install):
    venv.check(plain_install, ranks=1)
    assert plain_install["reports"][0]["mpi4py"]
    notices = [line for line in plain_install["stderr"] if line.startswith(NOTICE)]
    # mpi4py found this machine's MPI: no notice; else one process and one notice
    assert len(notices) == (0 if plain_install["system_mpi"] else 1), plain_install["stderr"]


def test_mpi_extra_runs_at_one_and_two_ranks(venv, mpi_extra):
    for ranks, result in mpi_extra.items():
        venv.check(result, ranks=ranks)
        assert not any(line.startswith(NOTICE) for line in result["stderr"]), result["stderr"]
