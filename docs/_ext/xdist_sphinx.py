"""The Sphinx side of xdist's API reference.

- ``.. xdist-api:: SECTION`` writes a section of the reference: a summary table and one
  autodoc entry per name, for the names ``xdist_reference.sections()`` puts there.
- Each autodoc entry gets the registry's note (what it communicates) and its runnable example
  appended to its docstring (``autodoc-process-docstring``), so the docstrings in ``xdist/``
  stay as they are and the notes live in one table that the tests check.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from xdist_reference import REFERENCE, kind_of, sections


def _note_lines(name: str) -> list[str]:
    entry = REFERENCE[name]
    lines = ["", ".. rubric:: Communication", "", *entry.comm.splitlines()]
    if entry.sends:
        said = ", ".join(f"{n} {what}" for what, n in sorted(entry.sends.items()))
        lines += ["", f"*In this example, at 3 ranks:* {said} (counted by the tests)."]
    else:
        lines += ["", "*In this example, at 3 ranks:* no message (counted by the tests)."]
    lines += ["", ".. rubric:: Example", "", ".. code-block:: python", ""]
    lines += ["   " + ln if ln else "" for ln in entry.example.rstrip().splitlines()]
    return lines + [""]


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
            out += [".. list-table::", "   :widths: 30 70", ""]
            for name in names:
                first = REFERENCE[name].comm.split(". ")[0].rstrip(".") + "."
                out += [f"   * - :py:obj:`{name}`", f"     - {first}"]
            out.append("")
        for name in names:
            out += self._entry(name)
        text = StringList(out, source=f"<xdist-api {self.arguments[0]}>")
        node = nodes.Element()
        self.state.nested_parse(text, self.content_offset, node)
        return node.children

    def _entry(self, name: str) -> list[str]:
        kind = kind_of(name)
        if kind == "data":
            return [f".. py:data:: {name}", "", *["   " + ln for ln in _note_lines(name)], ""]
        if kind == "module":
            return [f".. py:module:: {name}", "", f"``{name}``", "", *_note_lines(name), ""]
        if kind == "class":
            return [f".. autoclass:: {name}", "   :no-members:", ""]
        if kind == "property":
            return [f".. autoproperty:: {name}", ""]
        if kind == "method":
            return [f".. automethod:: {name}", ""]
        if kind == "attribute":
            return [f".. py:attribute:: {name}", "", *["   " + ln for ln in _note_lines(name)], ""]
        return [f".. autofunction:: {name}", ""]


def setup(app):
    app.connect("autodoc-process-docstring", append_note, priority=600)
    app.add_directive("xdist-api", XdistApi)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
