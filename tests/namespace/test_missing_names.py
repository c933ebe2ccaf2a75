"""The hints of xdist's AttributeError for NumPy's names it lacks (one table,
``xdist/_missing_names.py``), and the TypeError of ``mean`` on integers naming its fix."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import distribute

import xdist
from xdist._missing_names import HINTS


def resolve(dotted: str):
    obj = xdist
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def test_no_hinted_name_exists_and_every_hint_names_something_that_does():
    present = sorted(n for n in HINTS if hasattr(xdist, n))
    assert not present, f"xdist provides these names: drop their hints: {present}"
    for name, (target, _) in HINTS.items():
        assert resolve(target) is not None, (name, target)


@pytest.mark.parametrize("name", ["absolute", "ndarray", "float_", "dot", "swapaxes"])
def test_the_error_names_the_replacement(name):
    target = HINTS[name][0]
    with pytest.raises(AttributeError, match=f"no attribute '{name}'; use xdist.{target}"):
        getattr(xdist, name)


def test_unknown_names_and_the_api_version():
    with pytest.raises(AttributeError, match="^module 'xdist' has no attribute 'no_such'$"):
        xdist.no_such  # noqa: B018
    assert not hasattr(xdist, "no_such")
    assert xdist.__array_api_version__ == xdist.get_config().api_version


def test_mean_of_integers_names_astype():
    x = distribute(np.arange(6), 0)
    with pytest.raises(TypeError, match=r"x.astype\(xp.float64\)"):
        xdist.mean(x)
