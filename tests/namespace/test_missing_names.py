"""The hints of xdist's AttributeError for NumPy's names it lacks (one table,
``xdist/_missing_names.py``), in ``xdist`` and in its ``random`` and ``linalg`` modules, and
the TypeError of ``mean`` on integers naming its fix."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import distribute

import xdist
from xdist._missing_names import HINTS


def resolve(dotted: str):
    """The object a hint's dotted name stands for: under ``numpy`` or under ``xdist``."""
    obj, parts = xdist, dotted.split(".")
    if parts[0] == "numpy":
        obj, parts = np, parts[1:]
    for part in parts:
        obj = getattr(obj, part)
    return obj


def test_no_hinted_name_exists_and_every_hint_names_something_that_does():
    present = []
    for key in HINTS:
        module, _, name = key.rpartition(".")
        if hasattr(resolve(module) if module else xdist, name):
            present.append(key)
    assert not present, f"xdist provides these names: drop their hints: {present}"
    for name, (target, _) in HINTS.items():
        assert resolve(target) is not None, (name, target)


@pytest.mark.parametrize("name", ["fabs", "ndarray", "float_", "rint", "swapaxes"])
def test_the_error_names_the_replacement(name):
    target = HINTS[name][0]
    with pytest.raises(AttributeError, match=f"no attribute '{name}'; use xdist.{target}"):
        getattr(xdist, name)


@pytest.mark.parametrize(
    "module,name,use",
    [
        ("random", "randn", "xdist.random.Generator.standard_normal"),
        ("random", "RandomState", "xdist.random.default_rng"),
        ("random", "seed", "xdist.random.default_rng"),
        ("linalg", "cond", "xdist.linalg.svdvals"),
        ("linalg", "multi_dot", "xdist.matmul"),
    ],
)
def test_subnamespaces_hint_from_the_same_table(module, name, use):
    with pytest.raises(
        AttributeError, match=f"'xdist.{module}' has no attribute '{name}'; use {use} "
    ):
        getattr(getattr(xdist, module), name)
    with pytest.raises(
        AttributeError, match=f"^module 'xdist.{module}' has no attribute 'no_such'$"
    ):
        getattr(xdist, module).no_such  # noqa: B018


@pytest.mark.parametrize("name", ["errstate", "vectorize", "apply_along_axis", "frombuffer"])
def test_what_a_distributed_array_cannot_have_says_why(name):
    """Each of these hints gives a reason and what to do, beyond a replacement's name."""
    with pytest.raises(AttributeError) as info:
        getattr(xdist, name)
    assert len(str(info.value).split("; use ", 1)[1]) > 60, str(info.value)


def test_the_aliases_are_the_standard_functions():
    assert xdist.absolute is xdist.abs and xdist.power is xdist.pow
    assert xdist.arctan2 is xdist.atan2 and xdist.amax is xdist.max
    assert xdist.true_divide is xdist.divide and xdist.left_shift is xdist.bitwise_left_shift


def test_unknown_names_and_the_api_version():
    with pytest.raises(AttributeError, match="^module 'xdist' has no attribute 'no_such'$"):
        xdist.no_such  # noqa: B018
    assert not hasattr(xdist, "no_such")
    assert xdist.__array_api_version__ == xdist.get_config().api_version


def test_mean_of_integers_names_astype():
    x = distribute(np.arange(6), 0)
    with pytest.raises(TypeError, match=r"x.astype\(xp.float64\)"):
        xdist.mean(x)
