"""What the standard's special values cost (backends/standard_semantics.py, Torch's _acos and
_log1p): each corrected function of a backend's namespace against the library function it
corrects (what xdist called before), on the same block of 1e6 elements, finite (the common
case: only the test for non-finite inputs is added) and with one infinity (the correction
runs).

    python benchmarks/special_values.py                 # NumPy and Torch, 1e6 elements
    python benchmarks/special_values.py --n 100000 --repeat 20

Prints, per backend and function, the fastest of ``--repeat`` timings of each (calls
interleaved, so that the machine's load falls on both alike) and the overhead in percent.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from xdist.backends import get_backend

CASES = {
    "floor_divide": ("float64", 2),
    "expm1": ("complex128", 1),
    "tan": ("complex128", 1),
    "tanh": ("complex128", 1),
    "acos": ("complex128", 1),
    "log1p": ("complex128", 1),
}


def _data(dtype: str, n: int, special: bool, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.5, 4.0, n)
    if dtype.startswith("complex"):
        a = a + 1j * rng.uniform(-2.0, 2.0, n)
    a = a.astype(dtype)
    if special:
        a[n // 2] = np.inf
    return a


def _ms(fn, args) -> float:
    start = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - start) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10**6)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--backends", default="numpy,torch")
    args = parser.parse_args()
    print(f"{args.n} elements, fastest of {args.repeat} interleaved calls each (ms)")
    print(f"{'backend':8s} {'function':13s} {'input':9s} {'library':>9s} {'xdist':>9s} overhead")
    for name in args.backends.split(","):
        backend = get_backend(name)
        for func, (dtype, nin) in CASES.items():
            library = _library(name, func)
            if library is None:
                continue
            corrected = getattr(backend.xp, func)  # what xdist calls now
            for special in (False, True):
                blocks = [
                    backend.from_host(_data(dtype, args.n, special and k == 0, k), None)
                    for k in range(nin)
                ]
                with np.errstate(all="ignore"):
                    lib_t, cor_t = [], []
                    for _ in range(args.repeat):
                        lib_t.append(_ms(library, blocks))
                        cor_t.append(_ms(corrected, blocks))
                lib, cor = min(lib_t), min(cor_t)
                kind = "one inf" if special else "finite"
                print(
                    f"{name:8s} {func:13s} {kind:9s} {lib:9.2f} {cor:9.2f} "
                    f"{100 * (cor - lib) / lib:8.1f}%"
                )


def _library(backend: str, func: str):
    """The library function xdist called before the correction, or ``None`` where the
    backend does not correct ``func``."""
    if backend == "numpy":
        import array_api_compat.numpy as xp_numpy

        return getattr(xp_numpy, func) if func in ("floor_divide", "expm1", "tan", "tanh") else None
    if backend == "torch":
        import array_api_compat.torch as xp_torch

        return getattr(xp_torch, func)
    return None


if __name__ == "__main__":
    main()
