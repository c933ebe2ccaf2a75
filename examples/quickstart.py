"""A distributed computation on generated data: standardize a tall matrix split by rows,
form its covariance, and check the result against NumPy.

    mpiexec -n 2 python examples/quickstart.py

Every rank generates only its own rows (from a seed and its global row offset), so the data
is never whole on any rank.
"""

from __future__ import annotations

import numpy as np

import xdist as xp

N_ROWS, N_COLS = 100_000, 6


def rows(start: int, stop: int) -> np.ndarray:
    """Rows ``start:stop`` of the global data set, the same whatever the number of ranks:
    the data is made in chunks of 10,000 rows, each from its own seed."""
    parts = []
    for first in range(start - start % 10_000, stop, 10_000):
        chunk = np.random.default_rng(first // 10_000).standard_normal((10_000, N_COLS))
        parts.append(chunk[max(start - first, 0) : stop - first])
    data = np.concatenate(parts) if parts else np.empty((0, N_COLS))
    return data * np.arange(1, N_COLS + 1) + 10.0


def main() -> None:
    comm = xp.default_comm()
    # Each rank makes its block of a balanced row split.
    counts = xp.Layout.balanced((N_ROWS, N_COLS), 0, comm.size).counts
    start = sum(counts[: comm.rank])
    x = xp.from_local(rows(start, start + counts[comm.rank]), split=0)

    mean = xp.mean(x, axis=0)  # one allreduce: replicated result
    std = xp.std(x, axis=0, correction=1)
    z = (x - mean) / std  # no message: mean and std are replicated
    corr = (z.T @ z) / (N_ROWS - 1)  # local products + one allreduce
    largest = float(xp.max(xp.abs(corr - xp.eye(N_COLS))))

    if comm.rank == 0:
        print(f"{comm.size} rank(s); x: shape {x.shape}, split {x.split}, counts {x.counts}")
        print("column means:", np.round(mean.to_numpy(), 4))
        print("column stds: ", np.round(std.to_numpy(), 4))
        print(f"largest off-diagonal correlation: {largest:.5f}")
    reference = np.corrcoef(rows(0, N_ROWS), rowvar=False)  # the same data on one process
    assert np.allclose(corr.to_numpy(), reference, atol=1e-10)
    if comm.rank == 0:
        print("matches NumPy on the whole data: True")


if __name__ == "__main__":
    main()
