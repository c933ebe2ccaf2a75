"""From a file to cluster labels, in parallel: load a data set by slab, standardize it,
cluster it with k-means, and save the labels, each rank touching only its rows.

    mpiexec -n 2 python examples/cluster_file.py [DIRECTORY]

The data set (300,000 points in 3 well separated blobs, 8 features) is first written to
``DIRECTORY/points.npy`` (default: ./xdist_example) from a seeded generator, so the example
needs no input; its values are the same whatever the number of ranks. The labels go to
``DIRECTORY/labels.npy``. At the end rank 0 checks the clustering against scikit-learn's on
the whole file.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

import xdist as xp
from xdist import io
from xdist.ml import KMeans

N_POINTS, N_FEATURES, N_CLUSTERS = 300_000, 8, 3


def make_data(path: pathlib.Path) -> None:
    """The data set, drawn split along samples (each rank draws its own rows) and saved."""
    rng = xp.random.default_rng(2026)
    which = rng.integers(0, N_CLUSTERS, size=(N_POINTS, 1), split=0)
    centres = xp.asarray(np.arange(N_CLUSTERS * N_FEATURES).reshape(N_CLUSTERS, N_FEATURES))
    centres = xp.astype(centres, xp.float64) * 4.0
    noise = rng.standard_normal((N_POINTS, N_FEATURES), split=0)
    onehot = xp.astype(which == xp.arange(N_CLUSTERS), xp.float64)  # (n, k), split
    io.save_npy(onehot @ centres + noise, path)


def main(directory: str = "xdist_example") -> dict:
    folder = pathlib.Path(directory)
    if xp.default_comm().rank == 0:
        folder.mkdir(parents=True, exist_ok=True)
    make_data(folder / "points.npy")  # (a save ends with all ranks agreeing: the folder exists)

    x = io.load_npy(folder / "points.npy", split=0)  # each rank reads its rows only
    z = (x - xp.mean(x, axis=0)) / xp.std(x, axis=0)  # two allreduce; no data moves
    model = KMeans(n_clusters=N_CLUSTERS, random_state=0, n_init=1).fit(z)
    io.save_npy(model.labels_, folder / "labels.npy")  # each rank writes its rows
    result = {"inertia": float(model.inertia_), "n_iter": int(model.n_iter_)}

    if xp.default_comm().rank == 0:  # a check on the whole data, on one rank
        from sklearn.cluster import KMeans as Reference
        from sklearn.metrics import adjusted_rand_score

        points = np.load(folder / "points.npy")
        labels = np.load(folder / "labels.npy")
        standard = (points - points.mean(axis=0)) / points.std(axis=0)
        expected = Reference(n_clusters=N_CLUSTERS, random_state=0, n_init=1).fit(standard)
        agreement = adjusted_rand_score(expected.labels_, labels)
        assert agreement == 1.0, agreement
        assert abs(result["inertia"] - expected.inertia_) <= 1e-6 * expected.inertia_
        print(
            f"{N_POINTS} points in {N_CLUSTERS} clusters, inertia {result['inertia']:.1f}, "
            f"the same clustering as scikit-learn's (adjusted Rand index {agreement})"
        )
        plot(standard, labels, folder / "clusters.png")
    return result


def plot(points: np.ndarray, labels: np.ndarray, path: pathlib.Path) -> None:
    """Two features of every 50th point, coloured by cluster (when matplotlib is there)."""
    try:
        from matplotlib.figure import Figure  # no pyplot: no display needed
    except ImportError:
        return
    fig = Figure(figsize=(5, 4))
    ax = fig.add_subplot()
    ax.scatter(points[::50, 0], points[::50, 1], c=labels[::50], s=4, cmap="viridis")
    ax.set(xlabel="feature 0 (standardized)", ylabel="feature 1 (standardized)")
    ax.set_title(f"k-means labels of {len(labels):,} points, saved by every rank")
    fig.savefig(path, dpi=80, bbox_inches="tight")
    print(f"plot: {path.name}")


if __name__ == "__main__":
    main(*sys.argv[1:])
