"""The Sphinx side of xdist's API reference.

- ``.. xdist-api:: SECTION`` writes a section of the reference: a summary table and one
  autodoc entry per name, for the names ``xdist_reference.sections()`` puts there.
- Each autodoc entry gets the registry's note (what it communicates) and its runnable example
  appended to its docstring (``autodoc-process-docstring``), so the docstrings in ``xdist/``
  stay as they are and the notes live in one table that the tests check.
- ``.. xdist-example:: NAME.py`` runs ``examples/NAME.py`` when the site is built (under
  ``mpiexec -n 2`` when an ``mpiexec`` is found, else as one process) and shows its source,
  what it printed, and the PNG files it wrote.
"""

from __future__ import annotations

import inspect
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from xdist_reference import REFERENCE, kind_of, resolve, sections


def _said(sends: dict[str, int]) -> str:
    """``{"allreduce": 1}`` as "1 allreduce"; nothing as "no message"."""
    return ", ".join(f"{n} {what}" for what, n in sorted(sends.items())) or "no message"


def _note_lines(name: str) -> list[str]:
    entry = REFERENCE[name]
    lines = ["", ".. rubric:: Communication", "", *entry.comm.splitlines()]
    lines += ["", f"*In this example, at 3 ranks:* {_said(entry.sends)} (counted by the tests)."]
    lines += ["", ".. rubric:: Example", "", ".. code-block:: python", ""]
    lines += ["   " + ln if ln else "" for ln in entry.example.rstrip().splitlines()]
    return lines + [""]


def _first_sentence(text: str) -> str:
    """The first sentence of ``text``, on one line."""
    text = " ".join(text.split())
    cut = re.search(r"[.:;](\s|$)", text)
    return text[: cut.start()] + "." if cut else text


def _comm_summary(comm: str) -> str:
    """The first sentence of a note, and the second when the first is a conditional "None
    ..." (for the table: "None over axes that are not split" says half)."""
    first = _first_sentence(comm)
    if first.startswith("None ") and first != "None.":
        rest = " ".join(comm.split())[len(first) :].strip()
        if rest:
            first += " " + _first_sentence(rest)
    return first


def _summary(name: str) -> str:
    """The first sentence of the docstring, else of the note after its leading "None."."""
    obj = resolve(name)
    doc = "" if kind_of(name) == "data" else (inspect.getdoc(obj) or "")
    if not doc.strip():
        doc = re.sub(r"^None[^.]*\.\s*", "", REFERENCE[name].comm)
    return _first_sentence(doc.split("\n\n")[0]) if doc.strip() else ""


def _module_and_path(name: str) -> tuple[str, str]:
    """``xdist.Layout.offsets`` -> ``("xdist", "Layout.offsets")``: the longest importable
    prefix is the module."""
    import importlib

    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        return ".".join(parts[:cut]), ".".join(parts[cut:])
    raise ImportError(name)


def append_note(app, what, name, obj, options, lines) -> None:
    if name in REFERENCE:
        lines.extend(_note_lines(name))


class XdistApi(SphinxDirective):
    """The entries of one section of the reference."""

    required_arguments = 1
    option_spec = {"no-table": directives.flag}

    def run(self):
        names = sections()[self.arguments[0]]
        out: list[str] = []
        if "no-table" not in self.options:
            out += [".. list-table::", "   :widths: 25 45 30", "   :header-rows: 1", ""]
            out += ["   * - name", "     - what", "     - communication"]
            for name in names:
                out += [
                    f"   * - :py:obj:`{name.removeprefix('xdist.')} <{name}>`",
                    f"     - {_summary(name)}",
                    f"     - {_comm_summary(REFERENCE[name].comm)}",
                ]
            out.append("")
        for name in names:
            out += self._entry(name)
        text = StringList(out, source=f"<xdist-api {self.arguments[0]}>")
        node = nodes.Element()
        self.state.nested_parse(text, self.content_offset, node)
        return node.children

    def _entry(self, name: str) -> list[str]:
        kind = kind_of(name)
        if kind in ("data", "attribute"):
            # The object's path in its module, and the module, so that the entry's anchor is
            # its full name (``xdist.float32``, ``xdist.Layout.offsets``).
            module, path = _module_and_path(name)
            return [
                f".. py:{kind}:: {path}",
                f"   :module: {module}",
                "",
                *["   " + ln for ln in _note_lines(name)],
                "",
            ]
        if kind == "module":
            return [f".. py:module:: {name}", "", f"``{name}``", "", *_note_lines(name), ""]
        if kind == "class":
            return [f".. autoclass:: {name}", "   :no-members:", ""]
        if kind == "property":
            return [f".. autoproperty:: {name}", ""]
        if kind == "method":
            return [f".. automethod:: {name}", ""]
        return [f".. autofunction:: {name}", ""]


class BenchmarkPlots(SphinxDirective):
    """Every PNG under ``docs/_static/benchmarks/`` (written by the scripts of
    ``benchmarks/``), as figures in name order, each captioned by the ``.txt`` beside it (else
    its name); a sentence saying so where there is none yet, so the build never depends on
    them."""

    def run(self):
        folder = Path(self.env.srcdir) / "_static" / "benchmarks"
        plots = sorted(folder.glob("*.png")) if folder.is_dir() else []
        out: list[str] = []
        for png in plots:
            self.env.note_dependency(str(png))
            note = png.with_suffix(".txt")
            caption = note.read_text().strip() if note.exists() else png.stem.replace("_", " ")
            out += [f".. figure:: /_static/benchmarks/{png.name}", "   :width: 90%", ""]
            out += ["   " + ln for ln in caption.splitlines()] + [""]
        if not plots:
            out = [
                "No plots yet: the scripts of ``benchmarks/`` write them as PNG files into "
                "``docs/_static/benchmarks/`` (with an optional ``.txt`` caption beside each), "
                "and they appear here on the next build.",
                "",
            ]
        node = nodes.Element()
        self.state.nested_parse(StringList(out, source="<benchmark plots>"), 0, node)
        return node.children


def _plot_pages(app, env, added, changed, removed) -> list[str]:
    """Pages showing the benchmark plots are read again on every build: a new PNG is not a
    change of their source."""
    return [
        doc
        for doc in sorted(env.found_docs)
        if "xdist-benchmark-plots" in Path(env.doc2path(doc)).read_text(errors="replace")
    ]


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# MPICH on more ranks than cores: yield while waiting (tests/run.py sets the same).
OVERSUBSCRIBE = {
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1",
    "MPIR_CVAR_POLLS_BEFORE_YIELD": "100",
    "MPIR_CVAR_ENABLE_HEAVY_YIELD": "1",
}


class ExampleRun(SphinxDirective):
    """``.. xdist-example:: NAME.py``: the example's source, its output and its plots."""

    required_arguments = 1

    def run(self):
        script = EXAMPLES / self.arguments[0]
        if not script.is_file():
            raise self.error(f"xdist-example: no example {script}")
        self.env.note_dependency(str(script))
        exe = shutil.which("mpiexec", path=os.path.dirname(sys.executable))
        command = [sys.executable, str(script)]
        if exe is not None:
            command = [exe, "-n", "2", *command]
        # a build started inside an MPI job (or with XDIST_COMM=self, as the tests build it)
        # must not hand its job's variables or xdist's settings to the example
        skip = ("PMI", "MPI", "OMPI", "XDIST_")
        env = {k: v for k, v in os.environ.items() if not k.startswith(skip)}
        env.update(OVERSUBSCRIBE, XDIST_BACKEND="numpy", OMP_NUM_THREADS="1")
        out_dir = Path(self.env.srcdir) / "examples" / "_output"
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run(
                command, cwd=tmp, env=env, capture_output=True, text=True, timeout=600
            )
            if done.returncode != 0:
                raise self.error(
                    f"xdist-example: {' '.join(command[-2:])} failed "
                    f"(exit {done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
                )
            plots = []
            for png in sorted(Path(tmp).rglob("*.png")):
                kept = out_dir / f"{script.stem}-{png.name}"
                shutil.copyfile(png, kept)
                plots.append(kept.name)
        ranks = "mpiexec -n 2 python" if exe is not None else "python"
        out = [
            f".. literalinclude:: ../../examples/{script.name}",
            "   :language: python",
            "",
            f"Output of ``{ranks} examples/{script.name}``, run when this page was built:",
            "",
            ".. code-block:: text",
            "",
            *("   " + line for line in (done.stdout.rstrip() or "(nothing printed)").splitlines()),
            "",
        ]
        for name in plots:
            out += [f".. image:: _output/{name}", "   :width: 70%", ""]
        node = nodes.Element()
        self.state.nested_parse(StringList(out, source=f"<example {script.name}>"), 0, node)
        return node.children


def setup(app):
    app.add_directive("xdist-example", ExampleRun)
    app.connect("env-get-outdated", _plot_pages)
    app.add_directive("xdist-benchmark-plots", BenchmarkPlots)
    app.connect("autodoc-process-docstring", append_note, priority=600)
    app.add_directive("xdist-api", XdistApi)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
