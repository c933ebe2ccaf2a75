"""Sphinx configuration of xdist's documentation site.

Build: ``sphinx-build -W -b html docs docs/_build/html`` (tests/packaging/test_docs.py runs it).
The API reference is generated from the docstrings (autodoc); ``docs/_ext/xdist_reference.py``
holds each public name's communication note and runnable example, and the extension beside it
appends them to each entry.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
# The pages are built on one process; never look for an MPI launcher here.
os.environ.setdefault("XDIST_COMM", "self")

import xdist  # noqa: E402

project = "xdist"
author = "the xdist developers"
copyright = "the xdist developers"
release = xdist.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "xdist_sphinx",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]
suppress_warnings = ["myst.header"]  # the markdown pages start below level 1 in places
myst_heading_anchors = 3

autosummary_generate = False  # the reference pages list their entries themselves
autodoc_default_options = {"members": False}
autodoc_typehints = "none"  # signatures as written; types are in the text
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()
numpydoc_attributes_as_param_list = False

html_theme = "pydata_sphinx_theme"
html_title = f"xdist {release}"
html_static_path = ["_static"]
html_theme_options = {
    "navigation_depth": 2,
    "show_toc_level": 2,
    "navbar_align": "left",
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_sidebars = {"**": ["sidebar-nav-bs"]}
html_last_updated_fmt = None
html_copy_source = False
html_show_sourcelink = False
