"""Every special case of every elementwise function of the standard, on every combination of
special values.

The rules are the standard's own sentences (``special_cases_spec.py``, written from the
standard's text by ``conformance/special_cases.py``): each holds a condition on the operands
and the result it fixes. Each function runs once per precision (float64 and complex128,
float32 and complex64) on one xdist array of the whole cross product of ``VALUES`` (both
zeros, both infinities, NaN of either sign, and the finite values the rules name: ±1, ±0.5,
±2, ±π/2) in every operand, or in every part of a complex operand, split along its only
axis so that at 2 and 3 ranks the cases lie on different ranks. Each element is checked
against the first rule of its function's list whose condition it meets, as the standard's
lists read: NaN by ``isnan``, zeros by their sign (``copysign``) where the standard leaves no
sign open, values it fixes only approximately (π/2) within a rounding of the precision.
"""

from __future__ import annotations

import itertools
import math
from math import inf, isfinite, isnan, nan, pi

import numpy as np
import pytest
from helpers import distribute
from special_cases_spec import EDITION, RULES

import xdist

# NumPy warns of the invalid values and divisions by zero that are the cases tested here.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

NEG_NAN = -np.float64(nan)  # NaN with its sign bit set (copysign and signbit name it)
VALUES = (0.0, -0.0, inf, -inf, nan, NEG_NAN, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, pi / 2, -pi / 2)
# The four parts of two complex operands take fewer values (their rules name only NaN).
VALUES4 = (0.0, -0.0, inf, -inf, nan, 1.0)


# The helpers the rules' expressions call.
def signbit(v: float) -> int:
    return int(math.copysign(1.0, v) < 0)


def is_pos_zero(v: float) -> bool:
    return v == 0 and not signbit(v)


def is_neg_zero(v: float) -> bool:
    return v == 0 and bool(signbit(v))


def is_int(v: float) -> bool:
    return isfinite(v) and v == math.floor(v)


def is_odd(v: float) -> bool:
    return is_int(v) and v % 2 == 1


def is_half(v: float) -> bool:
    return isfinite(v) and v - math.floor(v) == 0.5


def same_sign(x1: float, x2: float) -> bool:
    return signbit(x1) == signbit(x2)


def nonzero_finite(v: float) -> bool:
    return isfinite(v) and v != 0


def cis(s: float, v: float) -> complex:
    """``s * cis(v) = s cos(v) + s sin(v) j``, part by part (``complex(s, 0) * ...`` would
    turn ``inf * 0`` into NaN where the standard means a single real product)."""
    return complex(s * math.cos(v), s * math.sin(v))


def conj(z: complex) -> complex:
    return complex(z.real, -z.imag)


def neg(z: complex) -> complex:
    return complex(-z.real, -z.imag)


def times_minus_j(z: complex) -> complex:
    """``-1j * z``, part by part (``(re + im j) * -1j = im - re j``)."""
    return complex(z.imag, -z.real)


# The names the rules' expressions use.
HELPERS = {
    **{f.__name__: f for f in (signbit, is_pos_zero, is_neg_zero, is_int, is_odd, is_half)},
    **{f.__name__: f for f in (same_sign, nonzero_finite, cis, conj, neg, times_minus_j)},
    **{f.__name__: f for f in (math.copysign, math.isnan, math.isinf, math.isfinite)},
    "inf": inf,
    "nan": nan,
    "pi": pi,
}

# Operand names of each kind of rule, and the inputs of each.
OPERANDS = {
    "real": {1: ("x",), 2: ("x1", "x2"), 3: ("x", "lo", "hi")},
    "complex": {1: ("a", "b")},
    "complex2": {2: ("a", "b", "c", "d")},
}
ARITY = {"clip": 3}


def _arity(name: str) -> int:
    if name in ARITY:
        return ARITY[name]
    return 2 if any("x1" in r[3] or "x2" in r[3] for r in RULES if r[0] == name) else 1


def _compiled(kind: str, arity: int, cond: str, value: str):
    args = ", ".join(OPERANDS[kind][arity])
    return (
        eval(f"lambda {args}: {cond}", HELPERS),  # noqa: S307 (the repository's own table)
        eval(f"lambda {args}: {value}", HELPERS),  # noqa: S307
    )


CASES = sorted({(r[0], r[1]) for r in RULES})


# The real dtype of each precision, its complex dtype, and the relative tolerance for values
# the standard fixes only approximately (pi/2, cis(b)).
PRECISIONS = {"float64": ("complex128", 1e-12), "float32": ("complex64", 1e-6)}


def _inputs(kind: str, arity: int, real: str = "float64") -> list[tuple[float, ...]]:
    """The cross product of the special values, each rounded to ``real`` (float32's pi/2)."""
    values = [float(np.asarray(v, dtype=real)) for v in (VALUES4 if kind == "complex2" else VALUES)]
    width = len(OPERANDS[kind][arity])
    return list(itertools.product(values, repeat=width))


def _run(name: str, kind: str, arity: int, rows: list[tuple[float, ...]], real: str):
    """``name`` on xdist arrays of dtype ``real`` (or its complex dtype) holding ``rows`` (one
    operand per column, complex operands from pairs of columns), split along their axis; the
    whole result as NumPy."""
    cols = np.array(rows, dtype=real).T
    if kind == "real":
        operands = [distribute(c, split=0) for c in cols]
    else:
        parts = [c for c in cols]
        z = [np.empty(len(rows), PRECISIONS[real][0]) for _ in range(len(parts) // 2)]
        for k, arr in enumerate(z):
            arr.real, arr.imag = parts[2 * k], parts[2 * k + 1]
        operands = [distribute(arr, split=0) for arr in z]
    fn = getattr(xdist, name)
    if name == "clip":
        out = fn(operands[0], min=operands[1], max=operands[2])
    else:
        out = fn(*operands)
    return out.to_numpy()


def _matches(got, want, flags: str, tol: float) -> bool:
    if "positive" in flags or "negative" in flags:
        if isnan(got):
            return True
        return (not signbit(got)) if "positive" in flags else bool(signbit(got))
    if isinstance(want, bool) or want is True or want is False:
        return bool(got) is want
    if isinstance(want, complex) or isinstance(got, complex):
        got, want = complex(got), complex(want)
        return _part(got.real, want.real, "re_any_sign" in flags, flags, tol) and _part(
            got.imag, want.imag, "im_any_sign" in flags, flags, tol
        )
    return _part(float(got), float(want), "re_any_sign" in flags, flags, tol)


def _part(got: float, want: float, any_sign: bool, flags: str, tol: float) -> bool:
    if isnan(want):
        if not isnan(got):
            return False
        if "nan_sign0" in flags:
            return not signbit(got)
        if "nan_sign1" in flags:
            return bool(signbit(got))
        return True
    if any_sign:
        got, want = abs(got), abs(want)
    if "approx" in flags or (want != 0 and isfinite(want) and want != round(want)):
        # an implementation-dependent approximation, or a value of pi or cis(b)
        return isfinite(got) and math.isclose(got, want, rel_tol=tol, abs_tol=tol * 1e-3)
    return got == want and signbit(got) == signbit(want)


@pytest.mark.parametrize("real", list(PRECISIONS))
@pytest.mark.parametrize("name, kind", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_special_cases(name, kind, real):
    arity = 2 if kind == "complex2" else _arity(name)
    rules = [
        (text, *_compiled(kind, arity, cond, value), flags)
        for n, k, text, cond, value, flags in RULES
        if n == name and k == kind
    ]
    rows = _inputs(kind, arity, real)
    got = _run(name, kind, arity, rows, real)
    tol = PRECISIONS[real][1]
    failures = []
    for row, out in zip(rows, got.tolist()):
        # The first rule of the list that names the input decides, as the standard's lists
        # read (sqrt: "any value and +infinity" before "NaN and any value").
        for text, matches, expected, flags in rules:
            if matches(*row):
                want = expected(*row)
                if not _matches(out, want, flags, tol):
                    failures.append(
                        f"{name}{_show(kind, row)} = {out!r}, expected {want!r}: {text}"
                    )
                break
    assert not failures, (
        f"{len(failures)} special cases of {name} ({kind} {real}, standard {EDITION}) differ:\n"
        + "\n".join(failures[:40])
    )


def _show(kind: str, row: tuple[float, ...]) -> str:
    if kind == "real":
        return "(" + ", ".join(map(repr, row)) + ")"
    zs = [complex(row[i], row[i + 1]) for i in range(0, len(row), 2)]
    return "(" + ", ".join(f"complex({z.real!r}, {z.imag!r})" for z in zs) + ")"


def test_every_rule_is_met_by_some_input():
    # A rule no input of the cross product meets would test nothing: VALUES must hold a value
    # for every condition the standard names.
    unmet = []
    for name, kind, text, cond, value, _ in RULES:
        if text.startswith(("[1.0 / x]", "[x * x]")):
            continue  # divide's and multiply's rules at x1 = 1 or x1 = x2: not all can hold
        arity = 2 if kind == "complex2" else _arity(name)
        matches, _ = _compiled(kind, arity, cond, value)
        if not any(matches(*row) for row in _inputs(kind, arity)):
            unmet.append(f"{name} ({kind}): {text}")
    assert not unmet, "\n".join(unmet)
