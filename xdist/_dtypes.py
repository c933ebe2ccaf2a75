"""The standard's data types (as NumPy ``dtype`` objects) and their categories."""

from __future__ import annotations

import functools

import numpy as np

from .backends.base import STANDARD_DTYPES

__all__ = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "ALL_DTYPES",
    "CATEGORIES",
    "check_category",
    "as_dtype",
    "default_float",
    "default_int",
    "default_complex",
    "default_index",
]

bool = np.dtype("bool")  # noqa: A001 (the standard's name)
int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
uint8 = np.dtype("uint8")
uint16 = np.dtype("uint16")
uint32 = np.dtype("uint32")
uint64 = np.dtype("uint64")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")

ALL_DTYPES = STANDARD_DTYPES  # the same tuple the backends map

default_float = float64
default_int = int64
default_complex = complex128
default_index = int64

# The dtype categories of the standard, by the kinds of NumPy's dtype.kind.
CATEGORIES: dict[str, str] = {
    "all": "biufc",
    "numeric": "iufc",
    "real numeric": "iuf",
    "integer": "iu",
    "integer or boolean": "biu",
    "boolean": "b",
    "floating-point": "fc",
    "real floating-point": "f",
    "complex floating-point": "c",
}


def as_dtype(dtype: object, func: str, name: str = "dtype") -> np.dtype:
    """``dtype`` as one of the standard's dtypes, or a ``TypeError`` naming the function."""
    try:
        # np.dtype(None) is float64: None must not pass for a dtype here.
        d = None if dtype is None else np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError:
        d = None
    if d is None or d not in ALL_DTYPES:
        raise TypeError(f"{func}: {name} must be a dtype of the standard, got {dtype!r}")
    return d


def check_category(dtype: np.dtype, category: str, func: str, name: str = "x") -> None:
    if dtype.kind not in CATEGORIES[category]:
        raise TypeError(f"{func}: {name} must have a {category} dtype, got {dtype}")


@functools.cache
def promote_pair(d1: np.dtype, d2: np.dtype) -> np.dtype:
    """The standard's promotion of two of its dtypes, remembered: the elementwise functions
    ask it on every call, with a handful of distinct pairs in a program."""
    out = np.result_type(d1, d2)
    if out not in ALL_DTYPES:  # not reachable with standard dtypes; guards NumPy changes
        raise TypeError(f"result_type: {d1} and {d2} promote to {out}, not a standard dtype")
    return out
