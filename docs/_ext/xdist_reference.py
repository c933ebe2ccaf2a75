"""What every public name of xdist communicates, with a runnable example: the registry that the
API reference appends to each docstring (``xdist_sphinx.py``) and that the tests check.

- ``tests/packaging/test_docs.py::test_every_public_name_has_an_entry`` fails when a public
  name has no entry here (a new function must come with its note and example) or an entry
  names nothing.
- ``tests/packaging/test_docs.py::test_reference_examples`` runs every example (its
  ``setup``, then its ``code``) in one process per rank count, and at 3 ranks compares the
  collectives that ``code`` makes, counted by ``xdist.count_collectives()``, with ``sends``:
  the counts the page shows are measured, not written by hand. On one rank nothing is sent.

The notes are read off the code (the chapter modules' docstrings and functions); where a
function's messages depend on the layouts, the note gives the rule and the example one case.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

# -- example set-ups (each example runs on its own, at any number of ranks) -----------------
_IMPORTS = "import numpy as np\nimport xdist as xp\n"
X = _IMPORTS + "x = xp.asarray(np.arange(12.0).reshape(4, 3), split=0)  # 4 rows over the ranks\n"
V = _IMPORTS + "v = xp.asarray(np.linspace(0.1, 0.9, 9), split=0)  # 9 values over the ranks\n"
INT = _IMPORTS + "i = xp.asarray(np.arange(12).reshape(4, 3), split=0)\n"
BOOL = _IMPORTS + "b = xp.asarray(np.arange(12).reshape(4, 3) % 3 == 0, split=0)\n"
SPD = _IMPORTS + "a = xp.asarray(4.0 * np.eye(4) + 1.0, split=0)  # symmetric positive definite\n"
TALL = (
    _IMPORTS
    + "t = xp.asarray(np.random.default_rng(0).standard_normal((30, 3)), split=0)  # tall-skinny\n"
)
SIGNAL = _IMPORTS + "s = xp.asarray(np.cos(np.arange(24.0)).reshape(6, 4), split=0)\n"
NONE = _IMPORTS
REPL = _IMPORTS + "r = xp.asarray(np.arange(12.0).reshape(4, 3))  # replicated: no split\n"
RNG = _IMPORTS + "import xdist.random\n\nrng = xdist.random.default_rng(42)\n"
BLOBS = (
    _IMPORTS
    + "from xdist.ml import KMeans, Lasso, Moments\n\n"
    + "data = np.random.default_rng(0).standard_normal((40, 3))\n"
    + "data[:20] += 5.0\n"
    + "X = xp.asarray(data, split=0)  # samples split over the ranks\n"
    + "y = xp.asarray(data @ np.array([1.0, 0.0, -2.0]), split=0)\n"
)


@dataclass(frozen=True)
class Entry:
    """One public name: ``comm`` says what it communicates (the rule), ``code`` (after
    ``setup``) is its example, ``sends`` the collectives ``code`` makes at 3 ranks (the same
    on every backend)."""

    comm: str
    code: str
    setup: str = X
    sends: dict[str, int] = field(default_factory=dict)

    @property
    def example(self) -> str:
        return self.setup + "\n" + self.code


REFERENCE: dict[str, Entry] = {}


def _add(names, comm, code, setup=X, sends=None):
    """Entries for ``names`` (a name or a list); ``{name}`` in ``code`` stands for the last
    dotted part of each."""
    for full in [names] if isinstance(names, str) else names:
        short = full.rsplit(".", 1)[-1]
        REFERENCE[full] = Entry(comm, code.replace("{name}", short), setup, dict(sends or {}))


# -- wording shared by families ------------------------------------------------------------
ELEMENTWISE = (
    "None when the operands share a layout, or when the others are replicated or Python "
    "scalars (a replicated operand is sliced locally). Otherwise the parts of an operand that "
    "live on another rank move to the output's layout (one all-to-all); nothing is gathered."
)
REDUCTION = (
    "None over axes that are not split (the result keeps the split). Over the split axis (or "
    "``axis=None`` on a split array) each rank reduces its block and one allreduce of the "
    "result-sized partials combines them; the result is replicated."
)
LOCAL = "None: each rank works on its own block; the layout is kept."
CREATION = (
    "None: every rank builds only its own block from the global arguments (``split=`` picks "
    "the axis, ``None`` a full copy on every rank)."
)
METADATA = "None: answered from dtypes or global metadata on every rank."

# -- the namespace: elementwise functions ----------------------------------------------------
_FLOAT_UNARY = [
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "ceil",
    "conj",
    "cos",
    "cosh",
    "exp",
    "expm1",
    "floor",
    "imag",
    "isfinite",
    "isinf",
    "isnan",
    "log",
    "log1p",
    "log2",
    "log10",
    "negative",
    "positive",
    "real",
    "reciprocal",
    "round",
    "sign",
    "signbit",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "tan",
    "tanh",
    "trunc",
]
_FLOAT_BINARY = [
    "add",
    "atan2",
    "copysign",
    "divide",
    "equal",
    "floor_divide",
    "greater",
    "greater_equal",
    "hypot",
    "less",
    "less_equal",
    "logaddexp",
    "maximum",
    "minimum",
    "multiply",
    "nextafter",
    "not_equal",
    "pow",
    "remainder",
    "subtract",
]
_DOMAIN_01 = {"acos", "asin", "atanh"}  # arguments in [-1, 1]
_ABOVE_1 = {"acosh"}
for _n in _FLOAT_UNARY:
    if _n in _DOMAIN_01:
        _add(f"xdist.{_n}", ELEMENTWISE, "y = xp.{name}(v)", V)
    elif _n in _ABOVE_1:
        _add(f"xdist.{_n}", ELEMENTWISE, "y = xp.{name}(x + 1.0)")
    else:
        _add(f"xdist.{_n}", ELEMENTWISE, "y = xp.{name}(x)")
_add([f"xdist.{n}" for n in _FLOAT_BINARY], ELEMENTWISE, "y = xp.{name}(x, 2.0 * x + 1.0)")
_add(
    [f"xdist.bitwise_{n}" for n in ("and", "or", "xor", "left_shift", "right_shift")],
    ELEMENTWISE,
    "y = xp.{name}(i, i + 1)",
    INT,
)
_add("xdist.bitwise_invert", ELEMENTWISE, "y = xp.bitwise_invert(i)", INT)
_add(
    [f"xdist.logical_{n}" for n in ("and", "or", "xor")], ELEMENTWISE, "y = xp.{name}(b, ~b)", BOOL
)
_add("xdist.logical_not", ELEMENTWISE, "y = xp.logical_not(b)", BOOL)
_add("xdist.clip", ELEMENTWISE, "y = xp.clip(x, 2.0, 9.0)")
_add(
    "xdist.where",
    ELEMENTWISE,
    "y = xp.where(x > 5.0, x, 0.0)  # condition and x share a layout: nothing moves",
)

# -- creation --------------------------------------------------------------------------------
_add("xdist.arange", CREATION, "x = xp.arange(10, split=0)  # rank r holds its run of 0..9", NONE)
_add("xdist.empty", CREATION, "x = xp.empty((6, 2), split=0)", NONE)
_add("xdist.zeros", CREATION, "x = xp.zeros((6, 2), split=0)", NONE)
_add("xdist.ones", CREATION, "x = xp.ones((6, 2), split=1)  # columns over the ranks", NONE)
_add("xdist.full", CREATION, "x = xp.full((6, 2), 7.0, split=0)", NONE)
_add("xdist.eye", CREATION, "x = xp.eye(5, split=0)  # each rank its rows of the identity", NONE)
_add("xdist.linspace", CREATION, "x = xp.linspace(0.0, 1.0, 11, split=0)", NONE)
_add(
    ["xdist.empty_like", "xdist.zeros_like", "xdist.ones_like"],
    "None: the result has the layout of ``x``, each rank allocating its own block.",
    "y = xp.{name}(x)",
)
_add("xdist.full_like", "None: the result has the layout of ``x``.", "y = xp.full_like(x, 3.0)")
_add(
    ["xdist.tril", "xdist.triu"],
    LOCAL + " The diagonal is placed from global indices.",
    "y = xp.{name}(x)",
)
_add(
    "xdist.asarray",
    "Data given whole on every rank (a NumPy array, a list): each rank keeps its slice, and one "
    "allreduce of a fixed-size row agrees on the arguments, the shape, the dtype and (with "
    "``check_replicated``, on by default) a fingerprint of the values, so that data "
    "differing between ranks raises the same error everywhere. An xdist array asked for "
    "another split moves as "
    "``resplit`` does.",
    "x = xp.asarray(np.arange(12.0).reshape(4, 3), split=0)",
    NONE,
    {"allreduce": 1},
)
_add(
    "xdist.from_dlpack",
    "As ``asarray`` of data given whole on every rank: each rank keeps its slice (all of it "
    "for a replicated result) and one allreduce agrees on the shape and dtype.",
    "y = xp.from_dlpack(np.arange(6.0))",
    NONE,
    {"allreduce": 1},
)
_add(
    "xdist.meshgrid",
    "None for replicated inputs. The output follows the first split input (its blocks serve "
    "as they are); any other split input is needed whole along its axis: one allgather of "
    "that 1-D array.",
    "gx, gy = xp.meshgrid(xp.arange(3), xp.arange(4), indexing='ij')",
    NONE,
)

# -- data types ------------------------------------------------------------------------------
_add("xdist.astype", LOCAL, "y = xp.astype(x, xp.float32)")
_add("xdist.can_cast", METADATA, "ok = xp.can_cast(xp.int16, xp.float32)  # True", NONE)
_add("xdist.finfo", METADATA, "eps = xp.finfo(xp.float64).eps", NONE)
_add("xdist.iinfo", METADATA, "top = xp.iinfo(xp.int32).max", NONE)
_add("xdist.isdtype", METADATA, "ok = xp.isdtype(x.dtype, 'real floating')")
_add("xdist.result_type", METADATA, "dt = xp.result_type(xp.int8, xp.float32)", NONE)


def _dtype_names() -> list[str]:
    """The dtypes of the namespace (NumPy ``dtype`` objects), as the namespace has them."""
    import numpy as np

    import xdist

    return sorted(n for n in dir(xdist) if isinstance(getattr(xdist, n), np.dtype))


for _d in _dtype_names():
    _add(
        f"xdist.{_d}",
        f"None. The standard's ``{_d}`` dtype (a NumPy ``dtype`` object; each backend maps it "
        "to its own type).",
        f"y = xp.astype(x > 5.0, xp.{_d})" if _d == "bool" else f"y = xp.astype(x, xp.{_d})",
    )

# -- constants -------------------------------------------------------------------------------
for _c, _what in (
    ("e", "Euler's number, a Python float"),
    ("pi", "pi, a Python float"),
    ("inf", "positive infinity, a Python float"),
    ("nan", "a Python float NaN"),
    ("newaxis", "``None``, for indexing: ``x[:, xp.newaxis]`` adds an axis"),
):
    _add(
        f"xdist.{_c}",
        f"None. {_what}.",
        "y = x[:, xp.newaxis]  # shape (4, 1, 3), still split along rows"
        if _c == "newaxis"
        else f"y = x * xp.{_c}",
    )

# -- statistics, utility ---------------------------------------------------------------------
for _n in ("sum", "prod", "max", "min", "mean"):
    _add(
        f"xdist.{_n}",
        REDUCTION,
        "col = xp.{name}(x, axis=0)  # over the split axis",
        sends={"allreduce": 1},
    )
_NAN = (
    REDUCTION + " NaN-ignoring, with NumPy's meaning (beyond the standard): ``nanmean`` "
    "sends sums and counts of valid values in one message, ``nanvar``/``nanstd`` per-element "
    "Chan records, ``nanmin``/``nanmax`` the extreme with an all-NaN flag."
)
_NANX = _IMPORTS + "x = xp.asarray(np.array([[1.0, np.nan], [3.0, 4.0], [np.nan, 6.0]]), split=0)\n"
for _n in ("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmin", "nanmax"):
    _add(f"xdist.{_n}", _NAN, "col = xp.{name}(x, axis=0)", _NANX, {"allreduce": 1})
_add(
    ["xdist.nanargmin", "xdist.nanargmax"],
    "As ``argmin``/``argmax`` (one allreduce with a record operation over the split axis), "
    "plus one agreement on all-NaN slices, which raise ``ValueError`` on every rank as in "
    "NumPy.",
    "k = xp.{name}(x, axis=0)",
    _NANX,
    {"allreduce": 2},
)
_add(
    ["xdist.nancumsum", "xdist.nancumprod"],
    "As ``cumulative_sum``/``cumulative_prod``, NaN counted as 0 (1 for the product): one "
    "exscan along the split axis.",
    "c = xp.{name}(x, axis=0)",
    _NANX,
    {"exscan": 1},
)
_add(
    ["xdist.var", "xdist.std"],
    REDUCTION + " The per-rank ``(n, mean, M2)`` records merge pairwise (Chan et al.) in that "
    "one allreduce, never as a difference of sums of squares.",
    "s = xp.{name}(x, axis=0, correction=1)",
    sends={"allreduce": 1},
)
_add(
    ["xdist.cumulative_sum", "xdist.cumulative_prod"],
    "None along an axis that is not split; along the split axis one exscan of the blocks' "
    "totals (the result keeps the layout).",
    "c = xp.{name}(x, axis=0)",
    sends={"exscan": 1},
)
_add(
    ["xdist.all", "xdist.any"], REDUCTION, "ok = xp.{name}(x > 0.0, axis=0)", sends={"allreduce": 1}
)
_add(
    "xdist.diff",
    "None along an axis that is not split. Along the split axis rank r needs the next ``n`` "
    "rows after its block: one sendrecv from the next rank, or one all-to-all when blocks "
    "are empty or shorter than ``n``; the result's counts are exact.",
    "d = xp.diff(x, axis=0)",
    sends={"sendrecv": 1},
)
_add("xdist.count_nonzero", REDUCTION, "n = xp.count_nonzero(x, axis=0)", sends={"allreduce": 1})
_add(
    ["xdist.argmax", "xdist.argmin"],
    "None over an axis that is not split. Over the split axis each rank finds its best value "
    "and its global index and one allreduce with a record operation keeps the best pair (the "
    "first on ties); the result is replicated.",
    "k = xp.{name}(x, axis=0)",
    sends={"allreduce": 1},
)
_add(
    "xdist.median",
    "None where the reduced axes are not split. Over the split axis the lines are sorted by "
    "the distributed sort (all-to-all, never a gather) and one allgatherv brings the middle "
    "elements; the result is replicated.",
    "m = xp.median(x, axis=0)",
    sends={"allgatherv": 1, "alltoallv": 2},
)
_QUANTILE = (
    "NumPy's linear method, bit for bit (beyond the standard). None where the reduced axes are "
    "not split (the result keeps the split). Over the split axis the lines are sorted by the "
    "distributed sort (all-to-all, never a gather), one allreduce counts the valid values "
    "(``nan*``), and the two neighbours of each quantile (and, for ``quantile``, the last "
    "value of each line, NaN if it has any) are fetched from their owners (result-sized "
    "allgatherv); the result is replicated, the quantiles' axes first."
)
_add(
    ["xdist.quantile", "xdist.nanquantile"],
    _QUANTILE,
    "q = xp.{name}(x, [0.25, 0.75], axis=0)",
    _NANX,
)
REFERENCE["xdist.quantile"].sends.update(allgatherv=4, alltoall=1, allgather=1, alltoallv=2)
REFERENCE["xdist.nanquantile"].sends.update(
    allgatherv=3, alltoall=1, allgather=1, alltoallv=2, allreduce=1
)
_add(
    "xdist.nanmedian",
    _QUANTILE + " The median is the mean of the two middle valid values, as NumPy's.",
    "m = xp.nanmedian(x, axis=0)",
    _NANX,
    {"allgatherv": 3, "alltoall": 1, "allgather": 1, "alltoallv": 2, "allreduce": 1},
)
_add(
    ["xdist.percentile", "xdist.nanpercentile"],
    "NumPy's ``percentile``/``nanpercentile``: ``quantile``/``nanquantile`` of ``q / 100``, "
    "with their communication. " + _QUANTILE,
    "p = xp.{name}(x, [25, 75], axis=0)",
    _NANX,
)
REFERENCE["xdist.percentile"].sends.update(REFERENCE["xdist.quantile"].sends)
REFERENCE["xdist.nanpercentile"].sends.update(REFERENCE["xdist.nanquantile"].sends)
_add(
    "xdist.ptp",
    "NumPy's ``ptp`` (beyond the standard). None over axes that are not split. Over the split "
    "axis one allreduce carries the maxima and the minima together (the minima mapped by an "
    "order-reversing ``-v``, or ``~v`` for integers); the result is replicated.",
    "r = xp.ptp(x, axis=0)",
    sends={"allreduce": 1},
)
_add(
    "xdist.average",
    "NumPy's ``average`` (beyond the standard). Over the split axis: ``mean``'s one "
    "allreduce without weights; with weights ``a * w`` and ``w`` summed together, one "
    "allreduce of twice the result; the result is replicated. Over axes that are not split: "
    "none, but with weights one allreduce of a flag agrees whether a weight sum is zero.",
    "avg = xp.average(x, axis=0, weights=w)",
    X + "w = xp.asarray(np.array([1.0, 2.0, 3.0, 4.0]), split=0)\n",
    {"allreduce": 1},
)
_add(
    "xdist.histogram",
    "NumPy's ``histogram`` (beyond the standard). None for a replicated array. Split: one "
    "allreduce of the data's minimum and maximum (when ``bins`` is a number and ``range`` is "
    "None) and one allreduce of the per-rank counts; the data never moves; ``hist`` and "
    "``bin_edges`` are replicated.",
    "hist, edges = xp.histogram(x, bins=4)",
    sends={"allreduce": 2},
)
_add(
    ["xdist.histogramdd", "xdist.histogram2d"],
    "NumPy's (beyond the standard). None for a replicated sample. Points split over the ranks: "
    "one allreduce of every dimension's minimum and maximum (when a number of bins has no "
    "range) and one allreduce of the per-rank counts; a sample split along its dimensions "
    "first moves to its points (one all-to-all); the counts and edges are replicated.",
    "hist, edges = xp.histogramdd(x, bins=2)",
    sends={"allreduce": 2},
)
REFERENCE["xdist.histogram2d"] = Entry(
    REFERENCE["xdist.histogramdd"].comm,
    "hist, xedges, yedges = xp.histogram2d(x[:, 0], x[:, 1], bins=2)",
    X,
    {"allreduce": 2},
)
_add(
    "xdist.digitize",
    "None: NumPy's ``digitize``, each rank searches its block in the replicated bins; the "
    "result (int64) is laid out as ``x``.",
    "k = xp.digitize(x, np.array([2.0, 5.0, 8.0]))",
)
_add(
    ["xdist.cov", "xdist.corrcoef"],
    "NumPy's (beyond the standard), the observations split over the ranks: each rank centres "
    "its observations on their mean (two passes over its block) and one allreduce merges the "
    "ranks' (weight, mean, centred cross-products) records pairwise (Chan et al.): "
    "``8 (2 + D + D^2)`` bytes for D variables. Variables split: one all-to-all to the "
    "observations first. Weights: one small allreduce each to agree none is negative. The "
    "D x D result is replicated.",
    "c = xp.{name}(x, rowvar=False)  # the rows are the observations",
    sends={"allreduce": 1},
)
_add(
    ["xdist.around", "xdist.Array.round"],
    "None: elementwise (NumPy's round with ``decimals``, beyond the standard).",
    "r = xp.around(x, 2)",
)
REFERENCE["xdist.Array.round"] = Entry(
    REFERENCE["xdist.around"].comm, "r = x.round(2)", REFERENCE["xdist.around"].setup
)
_add(
    "xdist.gradient",
    "NumPy's ``gradient``, bit for bit (beyond the standard; xarray's ``differentiate``). None "
    "along an axis that is not split. Along the split axis the shifted views meet through the "
    "elementwise pipeline and ``concat``: all-to-alls of a few elements per block, never a "
    "gather.",
    "g = xp.gradient(x, axis=0)",
    sends={"alltoallv": 3},
)
_add(
    "xdist.cross",
    "NumPy's ``cross`` (beyond the standard; xarray's ``cross``): elementwise on the "
    "components, so none when the vector axis is not split (a component of a split vector "
    "axis is a broadcast slab).",
    "c = xp.cross(x, x + 1.0)  # 3-vectors along the rows: no message",
)
_add(
    "xdist.transpose",
    "None: NumPy's name for ``permute_dims`` (axes reversed by default), beyond the standard; "
    "the split axis moves with its data.",
    "t = xp.transpose(x)",
)
_add(
    "xdist.bincount",
    "None for a replicated ``x``. A split ``x``: one allreduce finds the number of bins (and "
    "negative values), each rank counts its block, one allreduce adds the counts; the small "
    "result is replicated.",
    "counts = xp.bincount(labels)",
    _IMPORTS + "labels = xp.asarray(np.array([0, 1, 1, 3, 2, 1]), split=0)\n",
    {"allreduce": 2},
)

# -- searching, sorting, sets ------------------------------------------------------------------
_add(
    "xdist.nonzero",
    "One allgather of the per-rank counts: the result is split with exact, uneven counts. An "
    "array split along an axis other than 0 first moves to split 0 (one all-to-all).",
    "rows, cols = xp.nonzero(x > 5.0)",
    sends={"allgather": 1},
)
_add(
    "xdist.searchsorted",
    "A replicated sorted ``x1``: none. A split ``x1`` and a replicated ``x2``: one allreduce "
    "of ``x2.size`` counts. Both split: the values are routed to the owning blocks (an "
    "allgatherv of ``p`` values, an allgather of ``p`` counts per rank, two all-to-alls).",
    "k = xp.searchsorted(edges, x[:, 0])",
    X + "edges = xp.asarray(np.array([0.0, 4.0, 8.0]))  # replicated, sorted\n",
)
_add(
    ["xdist.sort", "xdist.argsort"],
    "None along an axis that is not split. Along the split axis: with at least as many lines "
    "as ranks, one all-to-all makes each line whole on one rank and one brings it back; "
    "otherwise a sample sort (an allgatherv of at most ``L * p * p`` samples, or beyond 65536 "
    "of them their own sample sort; an all-to-all and an allgather of the piece lengths, an "
    "all-to-all of the pieces, one to rebalance). Nothing is gathered.",
    "y = xp.{name}(x, axis=0, descending=True)",
    sends={"alltoallv": 2},
)
_add(
    ["xdist.unique_counts", "xdist.unique_inverse", "xdist.unique_all"],
    "A replicated ``x``: none. A split ``x``: local runs, then a sample sort of the run "
    "records (allgathers of counts and samples, one all-to-all) and an allgatherv of at most "
    "one value per rank to join runs across ranks; results are split with exact counts (the "
    "inverse indices like ``x``). Nothing is gathered.",
    "u = xp.{name}(labels)",
    _IMPORTS + "labels = xp.asarray(np.array([3, 1, 3, 2, 1, 3]), split=0)\n",
    {"allgather": 3, "allgatherv": 2, "alltoall": 1, "alltoallv": 1},
)
for _n in ("unique_inverse", "unique_all"):  # the inverse goes back to x's layout: one more
    REFERENCE[f"xdist.{_n}"].sends["alltoallv"] = 2
_add(
    "xdist.unique_values",
    "A replicated ``x``: none. A split ``x``: each rank's distinct values (integers of a "
    "small span counted, others sorted), one allgather of their counts; at most "
    "``gather_warning_elements`` in all (class labels): one allgatherv of them, merged alike "
    "on every rank, the result replicated; more: the sample sort of ``unique_counts``, the "
    "result split with exact counts. ``x`` is never gathered.",
    "u = xp.unique_values(labels)",
    _IMPORTS + "labels = xp.asarray(np.array([3, 1, 3, 2, 1, 3]), split=0)\n",
    {"allgather": 1, "allgatherv": 1},
)
_add(
    "xdist.isin",
    "Integer arrays: ``unique_values(x2)`` makes the sorted set (distributed when ``x2`` is "
    "split with many values) and two ``searchsorted`` queries, routed to the owners of the "
    "set's blocks, "
    "answer each element; none for a replicated ``x2``. ``x2`` is never gathered.",
    "m = xp.isin(i, wanted)",
    INT + "wanted = xp.asarray(np.array([1, 5]))  # replicated\n",
)

# -- NumPy's names beyond the standard: comparisons, scans, joining, array, argwhere, unique --
_add(
    ["xdist.concatenate", "xdist.hstack", "xdist.vstack", "xdist.column_stack"],
    "NumPy's joining functions (beyond the standard): ``concat`` after local reshapes of 0-d "
    "and 1-D inputs (``axis=None`` flattens). None for inputs split alike along another axis "
    "than the joined one, or replicated; otherwise every input's pieces move to the output's "
    "owners in one all-to-all. Nothing is gathered.",
    "y = xp.{name}([x, x])",
)
REFERENCE["xdist.concatenate"].sends["alltoallv"] = 1  # along the split axis
REFERENCE["xdist.vstack"].sends["alltoallv"] = 1

_add(
    "xdist.isclose",
    "NumPy's ``isclose`` (beyond the standard), elementwise in one pass. " + ELEMENTWISE,
    "c = xp.isclose(x, x + 1e-9)",
)
_add(
    ["xdist.allclose", "xdist.array_equal"],
    "NumPy's (beyond the standard): a Python bool, the same on every rank. The elementwise "
    "comparison (as ``isclose``), then one allreduce of one byte for a split operand; none "
    "when every operand is replicated. ``array_equal`` of shapes that differ is ``False`` "
    "with no message.",
    "same = xp.{name}(x, x + 0.0)",
    sends={"allreduce": 1},
)
_add(
    ["xdist.cumsum", "xdist.cumprod"],
    "NumPy's names for ``cumulative_sum`` and ``cumulative_prod`` (beyond the standard). None "
    "along an axis that is not split; along the split axis one exscan of the blocks' totals. "
    "``axis=None`` flattens in C order first: locally for an array split along its first axis "
    "(or replicated), by one all-to-all for one split along another axis.",
    "c = xp.{name}(x)  # flattened",
    sends={"exscan": 1},
)
_add(
    "xdist.argwhere",
    "NumPy's ``argwhere`` (beyond the standard): ``nonzero``'s one allgather of the per-rank "
    "counts (after one all-to-all for an array split along another axis than the first); the "
    "result is split along its first axis with exact counts, its columns joined locally.",
    "k = xp.argwhere(x > 5.0)",
    sends={"allgather": 1},
)
_add(
    "xdist.array",
    "NumPy's constructor (beyond the standard): ``asarray`` with ``copy=True`` by default. "
    "Data that is not an xdist array: one allgather agreeing on its shape and dtype (and one "
    "of a checksum under ``check_replicated``); an xdist array: none (each rank copies its "
    "block), unless a new ``split`` moves it. ``ndmin``'s leading axes are added locally.",
    "y = xp.array(x, ndmin=3)  # a copy of shape (1, 4, 3)",
)
_add(
    "xdist.unique",
    "NumPy's ``unique`` with its flags (beyond the standard). A replicated ``x``: none. A "
    "split ``x``: the set functions' messages for what the flags ask (allgathers of counts and "
    "samples, one all-to-all of the run records, an allgatherv of at most one value per rank, "
    "one all-to-all more for the inverse), and for floating data with ``equal_nan`` one "
    "allreduce counting the NaNs, which become one value. Results split with exact counts. "
    "Nothing is gathered.",
    "u, counts = xp.unique(v, return_counts=True)",
    _IMPORTS + "v = xp.asarray(np.array([3.0, np.nan, 3.0, 1.0, np.nan, 2.0]), split=0)\n",
    {"allgather": 3, "allgatherv": 2, "alltoall": 1, "alltoallv": 1, "allreduce": 1},
)
# -- indexing, linear algebra ----------------------------------------------------------------
_add(
    ["xdist.take", "xdist.take_along_axis"],
    "Along an axis that is not split each rank takes from its own block. Along the split axis "
    "the indices are routed to the ranks that own them and the values come back (all-to-all); "
    "the result is split like the indices, or replicated when they are (one allgatherv of "
    "the taken values: the result's memory on every rank). Never a gather of ``x``. Indices "
    "that may differ between ranks are checked against the bounds with one allreduce of a "
    "flag before any value moves.",
    "",
)
REFERENCE["xdist.take"] = Entry(
    REFERENCE["xdist.take"].comm,
    "y = xp.take(x, rows, axis=0)  # rows 3 and 0, replicated",
    X + "rows = xp.asarray(np.array([3, 0]))  # replicated indices\n",
    {"allgatherv": 1},
)
REFERENCE["xdist.take_along_axis"] = Entry(
    REFERENCE["xdist.take_along_axis"].comm,
    "y = xp.take_along_axis(x, order, axis=1)  # along the rows: each rank its own",
    X + "order = xp.argsort(x, axis=1)  # split like x\n",
    {"allreduce": 1},
)
_add(
    "xdist.matmul",
    "The matmul planner picks the cheapest layouts for one local product: contracting over "
    "the split axis (``x.T @ x`` with rows split) is local partial products and one allreduce "
    "of the result; rows split times a replicated matrix is local; rows split times a matrix "
    "split along ``k`` passes the second operand's blocks around the ranks (``p - 1`` "
    "sendrecv, two blocks in memory at a time). A large operand is never gathered while a "
    "plan that does not gather exists.",
    "g = xp.matmul(xp.matrix_transpose(x), x)  # (3, 3), replicated",
    sends={"allreduce": 1},
)
_add(
    "xdist.matrix_transpose",
    "None: each rank transposes its block; the split axis moves with its data.",
    "y = xp.matrix_transpose(x)  # split along axis 1 now",
)
_add(
    "xdist.tensordot",
    "As ``matmul`` (it is one, after local reshapes and permutations).",
    "g = xp.tensordot(x, x, axes=([0], [0]))",
    sends={"allreduce": 1},
)
_add(
    "xdist.vecdot",
    "None along an axis that is not split; one allreduce along the split axis.",
    "d = xp.vecdot(x, x, axis=-2)  # over the split rows",
    sends={"allreduce": 1},
)

# -- manipulation --------------------------------------------------------------------------------
MANIP = (
    "None where the split axis survives (each rank transforms its block). Otherwise the data "
    "moves in one all-to-all of boxes of global index space; nothing is gathered."
)
_add(
    "xdist.reshape",
    "None when the split axis survives. Otherwise the array moves to split "
    "0 (one all-to-all, skipped if it is) and flat ranges move to a balanced layout of the "
    "new shape (one all-to-all); a 0-d result gathers its one element. ``copy=False`` on a "
    "local reshape: one small allreduce agrees whether every block can be viewed.",
    "y = xp.reshape(x, (4, 3, 1))",
)
_add(
    "xdist.squeeze",
    "None (a view) unless a squeezed axis is the split axis: then one "
    "all-to-all re-splits along the largest remaining axis, moving only the owner's data "
    "(a 0-d result: its one element is gathered).",
    "y = xp.squeeze(xp.reshape(x, (4, 1, 3)), axis=1)",
)
_add("xdist.expand_dims", LOCAL, "y = xp.expand_dims(x, axis=0)  # split axis becomes 1")
_add(
    "xdist.permute_dims",
    "None: the split axis moves with its data.",
    "y = xp.permute_dims(x, (1, 0))",
)
_add("xdist.moveaxis", "None: the split axis moves with its data.", "y = xp.moveaxis(x, 0, 1)")
_add(
    "xdist.broadcast_to",
    "None for a split ``x`` broadcast along other axes (it keeps its "
    "split and counts) or a replicated one. An ``x`` split along an axis it broadcasts "
    "(length 1 there) is gathered first: one allgatherv of ``x``, which is small (at most "
    "the result's size over that axis's new length).",
    "y = xp.broadcast_to(x, (2, 4, 3))",
)
_add("xdist.broadcast_arrays", ELEMENTWISE, "a, b = xp.broadcast_arrays(x, xp.ones(3))")
_add("xdist.broadcast_shapes", METADATA, "shape = xp.broadcast_shapes((4, 1), (1, 3))", NONE)
_add(
    "xdist.concat",
    "Inputs split alike along another axis (or replicated) concatenate locally. Otherwise "
    "(an input split along ``axis``, or layouts that differ) every input's pieces move to "
    "their owners in the output (balanced along ``axis``) in one all-to-all.",
    "y = xp.concat([x, x], axis=1)",
)
_add("xdist.stack", MANIP, "y = xp.stack([x, x], axis=0)  # the split axis becomes axis 1")
_add(
    "xdist.unstack",
    "None along any axis but the split one (each piece keeps the split), and "
    "none along the split axis of an array of 2 or more dimensions (each piece lies whole on "
    "the rank that owns its index). A 1-D split array unstacks into replicated 0-d arrays: "
    "one allgather of it (a gather, with its ``GatherWarning``).",
    "a, b, c = xp.unstack(x, axis=1)",
)
_add(
    "xdist.tile",
    "None when the split axis is not repeated; otherwise the block is placed at "
    "displaced ranges (one all-to-all).",
    "y = xp.tile(x, (1, 2))",
)
_add(
    "xdist.repeat",
    "No data of ``x`` moves: each rank repeats its own block; along the split "
    "axis the result's counts are the repeats of each rank's range (exact, uneven). A "
    "repeats array costs at most an all-to-all or an allgather of the repeats and one small "
    "allgather of counts.",
    "y = xp.repeat(x, 2, axis=1)",
)
_add(
    "xdist.flip",
    "None along axes that are not split; along the split axis each rank "
    "reverses its block and swaps it with rank ``size - 1 - rank`` (one sendrecv); the "
    "counts come out reversed.",
    "y = xp.flip(x, axis=1)",
)
_add(
    "xdist.roll",
    "None along axes that are not split; along the split axis one all-to-all "
    "moves each piece to its new owner and the layout is kept.",
    "y = xp.roll(x, 1, axis=1)",
)

_add(
    "xdist.pad",
    "NumPy's ``pad``, beyond the standard. ``constant``: none. Other modes: none along axes "
    "that are not split; along the split axis slices of ``x`` as long as the pad widths join "
    "it (a sendrecv for each mirrored piece and one all-to-all).",
    "y = xp.pad(x, ((1, 1), (0, 2)))  # zeros around: no message",
)
_add(
    "xdist.sliding_window_view",
    "NumPy's ``sliding_window_view``, beyond the standard (a new array, not a view). Along "
    "the split axis one halo sendrecv of ``w - 1`` elements (one all-to-all past empty or "
    "short blocks); elsewhere none.",
    "w = xp.sliding_window_view(x, 2, axis=0)  # windows of 2 rows, split like x",
    sends={"sendrecv": 1},
)
_add(
    "xdist.lib",
    "NumPy's ``lib`` names that libraries look up on a namespace: "
    "``xdist.lib.stride_tricks.sliding_window_view`` (xarray's ``rolling``), as "
    "``xdist.sliding_window_view``.",
    "w = xp.lib.stride_tricks.sliding_window_view(x, 2, axis=1)  # along rows: no message",
)
_add(
    "xdist.einsum",
    "NumPy's ``einsum``, beyond the standard. Along the label of the largest split operand's "
    "split axis: operands with that label are split alike (cut locally from replicated ones, "
    "one all-to-all for one split differently), the others used whole; a result with that "
    "label stays split (no message), one without it is one allreduce of the partial sums.",
    "g = xp.einsum('ij,ik->jk', x, x)  # sums over the split rows: one allreduce",
    sends={"allreduce": 1},
)

# -- xdist's own: distribution, inspection, settings --------------------------------------------
_add(
    "xdist.from_local",
    "One allreduce of the blocks' metadata (dtype, the other lengths, split, device kind: a "
    "fixed-size row), so that a block that does not fit raises the same error on every "
    "rank, and one allgather of the lengths along ``split``; with ``split=None`` no "
    "allgather, the row carrying a fingerprint of the values instead (``check_replicated``, "
    "on by default). The data does not move.",
    "block = np.full((xp.default_comm().rank + 1, 2), float(xp.default_comm().rank))\n"
    "x = xp.from_local(block, split=0)  # rank r gives r + 1 rows: uneven counts\n"
    "print(x.layout.describe())",
    NONE,
    {"allreduce": 1, "allgather": 1},
)
_add(
    "xdist.resplit",
    "Split to another split: only what changes owner moves, in one all-to-all. Split to "
    "``None``: one allgather, after which every rank holds the whole array (memory: the "
    "global array on every rank). ``None`` to split: none (each rank keeps its slice).",
    "y = xp.resplit(x, 1)  # rows -> columns: one all-to-all",
    sends={"alltoallv": 1},
)
_add(
    "xdist.balance",
    "None when the counts are already balanced; otherwise one all-to-all.",
    "y = xp.balance(x[2:])  # the slice's counts are uneven; balance moves the rows",
    sends={"alltoallv": 1},
)
_add(
    "xdist.to_numpy",
    "Gathers the whole array on every rank: one allgatherv; memory of the global array on "
    "every rank. Always a copy.",
    "a = xp.to_numpy(x)  # the same NumPy array on every rank",
    sends={"allgatherv": 1},
)
_add(
    "xdist.show",
    "Only the printed elements move: long axes are cut to NumPy's summary locally (one "
    "``take`` on the split axis), then one gather of that small result; rank 0 prints.",
    "xp.show(x)  # every rank calls it; rank 0 prints once",
    sends={"allgatherv": 1},
)
_add(
    "xdist.GatherWarning",
    "None itself: the warning an implicit gather of a split array larger than "
    "``gather_warning_elements`` issues (``np.asarray(x)``, a dense linalg function on a "
    "matrix split along a matrix axis, ...). Make it an error to prove a computation never "
    "gathers.",
    "import warnings\n\n"
    "with warnings.catch_warnings():\n"
    "    warnings.simplefilter('error', xp.GatherWarning)\n"
    "    s = xp.sum(x, axis=0)  # no gather: fine",
    sends={"allreduce": 1},
)
_add(
    "xdist.count_collectives",
    "None itself: counts the collectives made inside the ``with`` block, by name (on one rank "
    "nothing is sent and nothing is counted).",
    "with xp.count_collectives() as counts:\n"
    "    s = xp.sum(x, axis=0)\n"
    "print(dict(counts))  # {'allreduce': 1} on several ranks",
    sends={"allreduce": 1},
)
_add(
    "xdist.synchronize",
    "None: makes every pending block (chains of elementwise functions are recorded and run "
    "when their value is needed) and waits for the default device's queued work, so that "
    "a timer measures the work of the code it times.",
    "import time\n\n"
    "t0 = time.perf_counter()\n"
    "y = xp.sqrt(x * x + 1.0)\n"
    "xp.synchronize()\n"
    "seconds = time.perf_counter() - t0",
    X,
)
_add(
    "xdist.empty_cache",
    "None: drops the unused blocks this rank keeps for reuse (the result blocks of fused "
    "chains of 4 MiB and more, at most the ``block_pool_bytes`` setting).",
    "y = xp.sqrt(x * x + 1.0)\ndel y\nxp.empty_cache()",
    X,
)
_add("xdist.get_config", "None: this process's settings.", "cfg = xp.get_config()", NONE)
_add(
    "xdist.set_config",
    "None: this process's settings; every rank must set the same values.",
    "before = xp.get_config().gather_warning_elements\n"
    "xp.set_config(gather_warning_elements=1000)\n"
    "xp.set_config(gather_warning_elements=before)",
    NONE,
)
_add(
    "xdist.config_context",
    "None itself: the settings inside a ``with`` block; every rank must use the same values.",
    "import warnings\n\n"
    "with xp.config_context(gather_warning_elements=0), warnings.catch_warnings():\n"
    "    warnings.simplefilter('ignore', xp.GatherWarning)\n"
    "    a = np.asarray(x)  # would warn: an implicit gather",
    sends={"allgatherv": 1},
)
_add(
    "xdist.default_comm",
    "None (the first call makes the world communicator).",
    "comm = xp.default_comm()\nprint(comm.rank, comm.size)",
    NONE,
)
_add(
    "xdist.set_default_comm",
    "None: the communicator new arrays use.",
    "previous = xp.set_default_comm(xp.SelfComm())  # one process: arrays are not distributed\n"
    "y = xp.ones(3)\n"
    "xp.set_default_comm(previous)",
    NONE,
)
_add(
    "xdist.set_backend",
    "None: the library that holds new arrays' blocks (``numpy``, ``torch``, ``cupy``) and the "
    "device.",
    "previous_name, previous_device = xp.set_backend('numpy')\n"
    "y = xp.ones(3)\n"
    "xp.set_backend(previous_name, previous_device)",
    NONE,
)
_add(
    "xdist.backend_context",
    "None: the backend inside a ``with`` block.",
    "with xp.backend_context('numpy'):\n    y = xp.ones(3)",
    NONE,
)
_add(
    "xdist.Communicator",
    "The protocol a communicator follows (every method collective). xdist's own calls go "
    "through it; ``xdist.count_collectives`` counts them.",
    "comm = xp.default_comm()\nassert isinstance(comm, xp.Communicator)",
    NONE,
)
_add(
    "xdist.SelfComm",
    "None: the one-process communicator (used when no MPI library is found, or with "
    "``XDIST_COMM=self``).",
    "y = xp.ones((4, 2), split=0, comm=xp.SelfComm())  # one block, whole",
    NONE,
)
_add(
    "xdist.__array_namespace_info__",
    METADATA,
    "info = xp.__array_namespace_info__()\nprint(info.default_dtypes())",
    NONE,
)
_add(
    "xdist.backends",
    "None: the backend modules (``numpy``, ``torch``, ``cupy``) behind ``set_backend``.",
    "import xdist.backends",
    NONE,
)
_add(
    "xdist.Layout",
    "None: a value object; every rank holds the same layout.",
    "print(x.layout)\nprint(x.layout.describe())",
)

# -- Array and its attributes --------------------------------------------------------------------
_add(
    "xdist.Array",
    "Operators call the namespace's functions (``x + y`` is ``xdist.add``, ``x @ y`` "
    "``xdist.matmul``, ``x[k]`` indexing). ``repr``/``str`` show what the calling rank holds "
    "and send nothing; ``bool``/``int``/``float`` broadcast the value from its owner (every "
    "rank gets it); ``np.asarray(x)`` gathers (a ``GatherWarning`` above "
    "``gather_warning_elements``).",
    "print(x)  # this rank's rows, no message\nrow = x[1]  # one broadcast from its owner\n"
    "y = 2.0 * x + 1.0",
    sends={"bcast": 1},
)
for _attr, _what, _code in (
    ("shape", "The global shape.", "print(x.shape)  # (4, 3) on every rank"),
    ("dtype", "The dtype.", "print(x.dtype)"),
    ("device", "The device of this rank's block.", "print(x.device)"),
    ("ndim", "The number of dimensions.", "print(x.ndim)"),
    ("size", "The number of elements of the global array.", "print(x.size)"),
    ("split", "The split axis, ``None`` when replicated.", "print(x.split)  # 0"),
    (
        "counts",
        "Per-rank lengths along the split axis (``None`` when replicated).",
        "print(x.counts)  # (2, 1, 1) at 3 ranks",
    ),
    ("offsets", "Where each rank's block starts along the split axis.", "print(x.offsets)"),
    ("lshape", "The shape of this rank's block.", "print(x.lshape)"),
    (
        "local",
        "This rank's block, an array of the backend (writable).",
        "x.local[...] *= 2.0  # think globally, act locally",
    ),
    ("layout", "The ``Layout``: split axis and counts.", "print(x.layout.describe())"),
    ("comm", "The communicator.", "print(x.comm.rank, x.comm.size)"),
    ("backend", "The backend holding the blocks.", "print(x.backend.name)"),
    ("T", "The transpose of a 2-D array; the split axis moves with its data.", "y = x.T"),
    ("mT", "The transpose of the last two axes.", "y = x.mT"),
):
    _add(f"xdist.Array.{_attr}", f"None. {_what}", _code)
_add(
    "xdist.Array.to_device",
    "None between ranks: each rank copies its block to the device.",
    "y = x.to_device(x.device)",
)
_add(
    "xdist.Array.to_numpy",
    REFERENCE["xdist.to_numpy"].comm,
    "a = x.to_numpy()",
    sends={"allgatherv": 1},
)

# NumPy's ndarray methods (beyond the standard): each is NumPy's function of the same name
# dispatched to the namespace, so it communicates as that function does.
_NUMPY_METHOD = "NumPy's ``ndarray.{name}`` (beyond the standard). "
for _m, _comm, _code, _sends in (
    ("astype", LOCAL, "y = x.astype(np.float32)  # also x.astype('float32'), x.astype(float)", {}),
    ("sum", REDUCTION, "col = x.sum(axis=0)", {"allreduce": 1}),
    ("prod", REDUCTION, "col = x.prod(axis=0)", {"allreduce": 1}),
    ("mean", REDUCTION, "col = x.mean(axis=0)", {"allreduce": 1}),
    ("max", REDUCTION, "col = x.max(axis=0)", {"allreduce": 1}),
    ("min", REDUCTION, "col = x.min(axis=0)", {"allreduce": 1}),
    ("std", REFERENCE["xdist.std"].comm, "s = x.std(axis=0, ddof=1)", {"allreduce": 1}),
    ("var", REFERENCE["xdist.var"].comm, "s = x.var(axis=0, ddof=1)", {"allreduce": 1}),
    ("any", REDUCTION, "ok = (x > 0.0).any(axis=0)", {"allreduce": 1}),
    ("all", REDUCTION, "ok = (x > 0.0).all(axis=0)", {"allreduce": 1}),
    ("argmax", REFERENCE["xdist.argmax"].comm, "k = x.argmax(axis=0)", {"allreduce": 1}),
    ("argmin", REFERENCE["xdist.argmin"].comm, "k = x.argmin(axis=0)", {"allreduce": 1}),
    (
        "cumsum",
        REFERENCE["xdist.cumulative_sum"].comm + " ``axis=None`` flattens first (a reshape).",
        "c = x.cumsum(axis=0)",
        {"exscan": 1},
    ),
    ("reshape", REFERENCE["xdist.reshape"].comm, "y = x.reshape(4, 3, 1)  # or ((4, 3, 1))", {}),
    ("ravel", REFERENCE["xdist.reshape"].comm, "y = x.ravel()  # split along its one axis", {}),
    ("flatten", REFERENCE["xdist.reshape"].comm + " Always a copy.", "y = x.flatten()", {}),
    ("copy", "None: each rank copies its block; the layout is kept.", "y = x.copy()", {}),
    (
        "view",
        "None: a view of the same elements (``x[...]``), with ``x``'s layout; only the "
        "array's own dtype (reading the bytes as another dtype is refused).",
        "y = x.view()  # or x.view(x.dtype)",
        {},
    ),
    (
        "transpose",
        "None: each rank transposes its block; the split axis moves with its data.",
        "y = x.transpose()  # or x.transpose(1, 0), x.transpose((1, 0))",
        {},
    ),
    ("squeeze", REFERENCE["xdist.squeeze"].comm, "y = x.reshape(4, 1, 3).squeeze()", {}),
    ("clip", ELEMENTWISE, "y = x.clip(1.0, 5.0)", {}),
    (
        "dot",
        REFERENCE["xdist.matmul"].comm,
        "g = x.T.dot(x)  # (3, 3), replicated",
        {"allreduce": 1},
    ),
    (
        "nonzero",
        REFERENCE["xdist.nonzero"].comm,
        "rows, cols = (x > 5.0).nonzero()",
        {"allgather": 1},
    ),
    (
        "item",
        "One bcast of the element from the rank that holds it (none when every rank does): "
        "the same Python scalar on every rank. ``x.item()`` needs one element; ``x.item(k)`` "
        "takes a flat index, ``x.item(i, j)`` one index per axis.",
        "v = x.item(4)  # 4.0 on every rank",
        {"bcast": 1},
    ),
    (
        "tolist",
        "A gather: one allgatherv brings the whole array to every rank, then a Python object "
        "per element (several times the array's memory on every rank; for small arrays). "
        "The same nested lists on every rank.",
        "rows = x.tolist()",
        {"allgatherv": 1},
    ),
    (
        "fill",
        "None: each rank writes its own block (the scalar, converted to the array's dtype as "
        "NumPy converts it, must be the same on every rank).",
        "x.fill(0.0)",
        {},
    ),
    (
        "cumprod",
        "One exscan of the blocks' products along the split axis, none along another; "
        "``axis=None`` flattens first (a reshape).",
        "c = x.cumprod(axis=0)",
        {"exscan": 1},
    ),
    (
        "sort",
        "``xdist.sort``'s, then a write into ``x`` (in place, as NumPy's).",
        "x.sort(axis=1)",
        {},
    ),
    ("argsort", "``xdist.argsort``'s (always stable).", "k = x.argsort(axis=1)", {}),
    (
        "searchsorted",
        "``xdist.searchsorted``'s; a list or NumPy array of values is made a replicated array "
        "(``asarray``'s one allreduce).",
        "i = x[:, 0].searchsorted([2.5, 7.0])",
        {"allreduce": 2},
    ),
    (
        "take",
        "``xdist.take``'s (``axis=None``: of the flattened array); a list or NumPy array of "
        "indices is made a replicated array (``asarray``'s one allreduce).",
        "y = x.take([2, 0], axis=1)",
        {"allreduce": 1},
    ),
    ("repeat", "``xdist.repeat``'s.", "y = x.repeat(2, axis=1)", {}),
    ("swapaxes", "None: the split axis moves with its data.", "y = x.swapaxes(0, 1)", {}),
    ("diagonal", "``xdist.linalg.diagonal``'s.", "d = x.diagonal()", {}),
    ("trace", "``xdist.trace``'s.", "t = x.trace()", {"allreduce": 1}),
    ("conj", ELEMENTWISE, "y = x.conj()", {}),
    ("conjugate", ELEMENTWISE, "y = x.conjugate()", {}),
    ("real", ELEMENTWISE + " A new array, not a view.", "y = x.real", {}),
    ("imag", ELEMENTWISE + " A new array, not a view.", "y = x.imag", {}),
    ("itemsize", "None: bytes per element.", "print(x.itemsize)  # 8", {}),
    (
        "nbytes",
        "None: bytes of the global array (``x.local.nbytes``: this rank's).",
        "print(x.nbytes)",
        {},
    ),
):
    _add(f"xdist.Array.{_m}", _NUMPY_METHOD.format(name=_m) + _comm, _code, sends=_sends)

# -- Layout ------------------------------------------------------------------------------------
_LAYOUT = "None: arithmetic on the layout, the same on every rank."
for _m, _code in (
    ("balanced", "lay = xp.Layout.balanced((7, 2), 0, 3)\nprint(lay.counts)  # (3, 2, 2)"),
    ("replicated", "lay = xp.Layout.replicated((7, 2))"),
    ("trusted", "lay = xp.Layout.trusted((7, 2), 0, (3, 2, 2))  # fields known valid: no checks"),
    ("describe", "print(x.layout.describe())"),
    ("bounds", "lay = xp.Layout.balanced((7, 2), 0, 3)\nprint(lay.bounds)  # [0 3 5 7]"),
    ("ends", "lay = xp.Layout.balanced((7, 2), 0, 3)\nprint(lay.ends)  # (3, 5, 7)"),
    ("is_balanced", "print(x.layout.is_balanced, x[1:].layout.is_balanced)"),
    ("local_range", "lay = xp.Layout.balanced((7, 2), 0, 3)\nprint(lay.local_range(1))  # (3, 5)"),
    ("local_shape", "lay = xp.Layout.balanced((7, 2), 0, 3)\nprint(lay.local_shape(2))  # (2, 2)"),
    (
        "local_slice",
        "lay = xp.Layout.balanced((7, 2), 0, 3)\n"
        "print(lay.local_slice(1))  # rows 3:5, all columns",
    ),
    ("ndim", "print(x.layout.ndim)"),
    ("offsets", "lay = xp.Layout.balanced((7, 2), 0, 3)\nprint(lay.offsets)  # (0, 3, 5)"),
    ("origin", "lay = xp.Layout.balanced((7, 2), 0, 3)\nprint(lay.origin(2))  # [5, 0]"),
    ("owner", "lay = xp.Layout.balanced((7, 2), 0, 3)\nprint(lay.owner(4))  # 1"),
    (
        "owners",
        "lay = xp.Layout.balanced((7, 2), 0, 3)\nprint(lay.owners(np.array([0, 4, 6])))  # [0 1 2]",
    ),
    (
        "overlap",
        "a = xp.Layout.balanced((7, 2), 0, 3)\nb = xp.Layout((7, 2), 0, (1, 1, 5))\n"
        "print(a.overlap(b))  # (rank of a, rank of b, box) moved by a resplit",
    ),
    (
        "ranks_meeting",
        "lay = xp.Layout.balanced((7, 2), 0, 3)\n"
        "print(lay.ranks_meeting((slice(2, 4), slice(0, 2)), 3))  # range(0, 2)",
    ),
    ("with_shape", "lay = xp.Layout.balanced((7, 2), 0, 3)\nprint(lay.with_shape((7, 5), 0))"),
):
    _add(f"xdist.Layout.{_m}", _LAYOUT, _code)

# -- xdist.linalg --------------------------------------------------------------------------------
GATHERED = (
    "Gathers a matrix split along one of its two matrix axes whole on every rank (memory: "
    "the whole matrix, ``size * itemsize`` bytes, on every rank; a ``GatherWarning`` above "
    "``gather_warning_elements``) and computes the result there on every rank alike. A "
    "replicated stack, or a stack split along a batch axis, is computed locally with no "
    "message. A data-dependent failure (a singular matrix) raises on every rank."
)
TSQR = (
    "For a tall-skinny matrix split along its rows (or, for ``svd``/``svdvals``, a wide one "
    "split along its columns), never the matrix: at least twice as tall as wide, Cholesky QR, "
    "one allgatherv of an ``N x N`` Gram matrix per rank with the rank's rows among the first "
    "``N`` where the rows below them are well conditioned (their Cholesky factor within 8), "
    "else two (past ``p N^2 = 2^22``, an allreduce of each instead), three for an "
    "ill-conditioned matrix; otherwise, or for a numerically rank-deficient matrix, "
    "Householder TSQR, one allgatherv of at most ``2N`` rows of ``N`` per rank (past ``p N^2 "
    "= 2^22``, the R factors go up a binary tree: ``2 log2 p`` sendrecvs of ``N x N`` and a "
    "broadcast). Either way the factors are LAPACK's for the whole matrix, signs included. "
    "Other layouts of a matrix split along a matrix axis are gathered as for ``inv`` "
    "(memory: the whole matrix on every rank); replicated or batch-split stacks are local."
)
for _n, _code in (
    ("cholesky", "l = xp.linalg.cholesky(a)"),
    ("det", "d = xp.linalg.det(a)"),
    ("slogdet", "sign, logabs = xp.linalg.slogdet(a)"),
    ("inv", "b = xp.linalg.inv(a)"),
    ("solve", "z = xp.linalg.solve(a, xp.ones((4, 1)))"),
    ("eigh", "w, q = xp.linalg.eigh(a)"),
    ("eigvalsh", "w = xp.linalg.eigvalsh(a)"),
    ("eig", "w, q = xp.linalg.eig(a)"),
    ("eigvals", "w = xp.linalg.eigvals(a)"),
    ("matrix_power", "b = xp.linalg.matrix_power(a, 3)"),
):
    _add(f"xdist.linalg.{_n}", GATHERED, _code, SPD, {"allgatherv": 1})
for _n, _code in (
    ("qr", "q, r = xp.linalg.qr(t)  # q split like t's rows, r (3, 3) replicated"),
    ("svd", "u, s, vh = xp.linalg.svd(t, full_matrices=False)"),
    ("svdvals", "s = xp.linalg.svdvals(t)"),
):
    _add(f"xdist.linalg.{_n}", TSQR, _code, TALL, {"allgatherv": 1})
_add(
    "xdist.linalg.matrix_rank",
    "As ``svdvals`` (it is built on it).",
    "k = xp.linalg.matrix_rank(t)",
    TALL,
    {"allgatherv": 1},
)
_add(
    "xdist.linalg.pinv",
    "As ``svd`` (it is built on it), plus one local product per rank.",
    "p = xp.linalg.pinv(t)",
    TALL,
    {"allgatherv": 1},
)
_add(
    "xdist.linalg.vector_norm",
    REDUCTION,
    "n = xp.linalg.vector_norm(x, axis=0)",
    sends={"allreduce": 1},
)
_add(
    "xdist.linalg.matrix_norm",
    "``'fro'``, 1, -1, inf, -inf: local work and one allreduce when a matrix axis is split. "
    "2, -2, ``'nuc'``: the singular values, as ``svdvals``.",
    "n = xp.linalg.matrix_norm(x, ord='fro')",
    sends={"allreduce": 1},
)
_add(
    "xdist.linalg.trace",
    "Local, plus one allreduce when the diagonal is split.",
    "s = xp.linalg.trace(x)",
    sends={"allreduce": 1},
)
_add(
    "xdist.linalg.diagonal",
    "None: a rank holding rows of a matrix holds the matching run of "
    "its diagonal (the result is split with those counts).",
    "d = xp.linalg.diagonal(x)",
)
_add(
    "xdist.linalg.outer",
    "Local; the second vector is gathered when it is split (memory: that "
    "vector on every rank), never the first.",
    "o = xp.linalg.outer(x[:, 0], w)",
    X + "w = xp.asarray(np.array([1.0, 2.0]))\n",
)
_add(
    "xdist.linalg.norm",
    "NumPy's ``linalg.norm`` (beyond the standard): ``vector_norm`` or ``matrix_norm`` by "
    "NumPy's rules for ``ord`` and ``axis``, with their messages: none unless the split axis is "
    "reduced, then one allreduce (2 / -2 / 'nuc': ``svdvals``'s TSQR).",
    "n = xp.linalg.norm(x, axis=0)",
    sends={"allreduce": 1},
)
_add(
    "xdist.linalg.lstsq",
    "NumPy's ``linalg.lstsq`` (beyond the standard) of a tall matrix split along its rows, "
    "never gathered: ``qr``'s TSQR (allgathervs of ``N x N`` pieces), one allreduce of "
    "``Q^H b`` and one of the residuals; a small SVD of ``R`` on every rank gives the rank and "
    "NumPy's minimum-norm answer for rank-deficient matrices. Split along its columns: one "
    "all-to-all to its rows first.",
    "sol, res, rank, s = xp.linalg.lstsq(t, y)",
    TALL + "y = xp.asarray(np.arange(30.0), split=0)\n",
    {"allgatherv": 1, "allreduce": 2},
)
_add(
    "xdist.linalg.cross",
    ELEMENTWISE + " The 3-element axis must not be split.",
    "c = xp.linalg.cross(x, 2.0 * x)",
)
for _n in ("matmul", "matrix_transpose", "tensordot", "vecdot"):
    _base = REFERENCE[f"xdist.{_n}"]
    _add(
        f"xdist.linalg.{_n}",
        _base.comm,
        _base.code.replace("xp.", "xp.linalg.", 1),
        _base.setup,
        _base.sends,
    )

# -- NumPy's names beyond the standard: products, shapes, indices, elementwise, dtypes ------
_ALIAS = "NumPy's name for the standard's ``{std}`` (beyond the standard; the same function). "
for _n, _std in (
    ("absolute", "abs"),
    ("arccos", "acos"),
    ("arccosh", "acosh"),
    ("arcsin", "asin"),
    ("arcsinh", "asinh"),
    ("arctan", "atan"),
    ("arctanh", "atanh"),
    ("conjugate", "conj"),
):
    _base = REFERENCE[f"xdist.{_std}"]
    _add(
        f"xdist.{_n}",
        _ALIAS.format(std=_std) + _base.comm,
        _base.code.replace(_std, _n, 1),
        _base.setup,
    )
for _n, _std in (("arctan2", "atan2"), ("power", "pow"), ("true_divide", "divide")):
    _add(f"xdist.{_n}", _ALIAS.format(std=_std) + ELEMENTWISE, "y = xp.{name}(x, 2.0 * x + 1.0)")
for _n, _std in (
    ("invert", "bitwise_invert"),
    ("left_shift", "bitwise_left_shift"),
    ("right_shift", "bitwise_right_shift"),
):
    _add(
        f"xdist.{_n}",
        _ALIAS.format(std=_std) + ELEMENTWISE,
        "y = xp.invert(i)" if _n == "invert" else "y = xp.{name}(i, 1)",
        INT,
    )
for _n, _std in (("amax", "max"), ("amin", "min")):
    _add(
        f"xdist.{_n}",
        _ALIAS.format(std=_std) + REDUCTION,
        "col = xp.{name}(x, axis=0)",
        sends={"allreduce": 1},
    )
_add(
    ["xdist.asanyarray", "xdist.ascontiguousarray"],
    "NumPy's (beyond the standard): ``asarray``, ``dtype`` also given second. Every rank's "
    "block is C-contiguous already. " + REFERENCE["xdist.asarray"].comm,
    "y = xp.{name}(np.arange(6.0), split=0)",
    NONE,
    {"allreduce": 1},
)
_add(
    "xdist.identity",
    "NumPy's ``eye(n)`` (beyond the standard). " + CREATION,
    "y = xp.identity(4, split=0)",
    NONE,
)
_add(
    ["xdist.atleast_1d", "xdist.atleast_2d", "xdist.atleast_3d"],
    "NumPy's (beyond the standard). None: local reshapes, the split axis moves with its data.",
    "y = xp.{name}(x[:, 0])",
)
_add(
    "xdist.dot",
    "NumPy's ``dot`` (beyond the standard): ``matmul`` of 1-D and 2-D arrays, ``tensordot`` "
    "over the last axis of ``a`` and the second-to-last of ``b`` otherwise, a product with a "
    "scalar. " + REFERENCE["xdist.matmul"].comm,
    "g = xp.dot(x.T, x)  # (3, 3), replicated",
    sends={"allreduce": 1},
)
_add(
    "xdist.outer",
    "NumPy's ``outer`` of the flattened inputs (beyond the standard). None when at most one is "
    "split (the result is split like it); when both are, ``b`` is made whole on every rank "
    "(one allgatherv of its ``N`` elements), never ``a``.",
    "o = xp.outer(x[:, 0], x[:, 1])  # both split: b's 4 elements on every rank",
    sends={"allgatherv": 1},
)
_add(
    "xdist.kron",
    "NumPy's ``kron`` (beyond the standard): a broadcast product reshaped. None for a split "
    "``a`` beside a replicated ``b``; both split: ``b`` made whole on every rank (one "
    "allgatherv of ``b``), never ``a``; a replicated ``a`` beside a split ``b``: what the "
    "product and ``reshape`` move (all-to-alls).",
    "k = xp.kron(x, np.eye(2))  # (8, 6), split along rows",
)
_add(
    "xdist.trace",
    "NumPy's ``trace`` along ``axis1``/``axis2`` (beyond the standard): "
    + REFERENCE["xdist.linalg.trace"].comm,
    "s = xp.trace(x)",
    sends={"allreduce": 1},
)
_add(
    "xdist.diag",
    "NumPy's ``diag`` (beyond the standard). None: of a 2-D array its diagonal (split with "
    "exact counts where the matrix is); of a 1-D array the matrix with it on the ``k``-th "
    "diagonal, split along the rows where the vector is (each rank its own entries).",
    "m = xp.diag(x[:, 0], k=1)  # (5, 5)",
)
_add(
    "xdist.ravel",
    "NumPy's ``ravel`` (beyond the standard): " + REFERENCE["xdist.reshape"].comm,
    "y = xp.ravel(x)  # split along its one axis: local",
)
_add("xdist.copy", "NumPy's ``copy`` (beyond the standard). " + LOCAL, "y = xp.copy(x)")
_add(
    "xdist.append",
    "NumPy's ``append`` (beyond the standard): " + REFERENCE["xdist.concat"].comm,
    "y = xp.append(x, np.ones((1, 3)), axis=0)",
    sends={"alltoallv": 1},
)
_add(
    ["xdist.delete", "xdist.insert"],
    "NumPy's (beyond the standard). None: the positions are global arguments, so every rank "
    "knows which of its entries go (or which values come before its entries: past the end, "
    "on the last rank); the result is split with exact, uneven counts along the split axis. "
    "``axis=None`` flattens first, as ``reshape``.",
    "",
)
REFERENCE["xdist.delete"] = Entry(
    REFERENCE["xdist.delete"].comm, "y = xp.delete(x, [0, 2], axis=0)"
)
REFERENCE["xdist.insert"] = Entry(
    REFERENCE["xdist.insert"].comm, "y = xp.insert(x, 1, -1.0, axis=0)"
)
_add(
    "xdist.resize",
    "NumPy's ``resize`` (beyond the standard): the elements in C order repeated; the result "
    "split along its first axis, each rank fetching its elements from their owners (``take``: "
    "all-to-alls; one more for ``reshape`` when the rows do not line up), never the whole "
    "array.",
    "y = xp.resize(x, (5, 4))",
    sends={"alltoall": 1, "alltoallv": 3},
)
_add(
    "xdist.flatnonzero",
    "NumPy's ``flatnonzero`` (beyond the standard): " + REFERENCE["xdist.nonzero"].comm,
    "k = xp.flatnonzero(x > 5.0)",
    sends={"allgather": 1},
)
_add(
    ["xdist.unravel_index", "xdist.ravel_multi_index"],
    "NumPy's (beyond the standard): elementwise integer arithmetic on the index arrays (their "
    "layout kept); one allreduce of one flag checks the bounds for split indices (none for "
    "replicated ones, or ``ravel_multi_index``'s ``mode='wrap'``/``'clip'``), so an index out "
    "of bounds raises the same error on every rank.",
    "",
)
REFERENCE["xdist.unravel_index"] = Entry(
    REFERENCE["xdist.unravel_index"].comm,
    "rows, cols = xp.unravel_index(xp.flatnonzero(x > 5.0), x.shape)",
    sends={"allgather": 1, "allreduce": 1},
)
REFERENCE["xdist.ravel_multi_index"] = Entry(
    REFERENCE["xdist.unravel_index"].comm,
    "flat = xp.ravel_multi_index(xp.nonzero(x > 5.0), x.shape)",
    sends={"allgather": 1, "allreduce": 1},
)
_add(
    "xdist.ix_",
    "NumPy's ``ix_`` (beyond the standard). None for xdist arrays (local reshapes); NumPy data "
    "becomes a replicated array as ``asarray`` makes it.",
    "rows, cols = xp.ix_(k, np.array([0, 2]))",
    X + "k = xp.asarray(np.array([3, 0]))  # replicated\n",
)
_add(
    ["xdist.tril_indices", "xdist.triu_indices"],
    "NumPy's (beyond the standard). None: every rank builds the small replicated index arrays.",
    "rows, cols = xp.{name}(4)",
    NONE,
)
_add(
    "xdist.diag_indices",
    "NumPy's (beyond the standard). None: replicated ``arange(n)``, ``ndim`` times.",
    "rows, cols = xp.diag_indices(3)",
    NONE,
)
_add(
    "xdist.fill_diagonal",
    "NumPy's (beyond the standard), in place. None: each rank writes the diagonal positions "
    "in its block (NumPy values are compared across the ranks under ``check_replicated``).",
    "xp.fill_diagonal(x, 0.0)",
)
for _n in ("isposinf", "isneginf", "isreal", "spacing"):
    _add(
        f"xdist.{_n}", f"NumPy's ``{_n}`` (beyond the standard). " + ELEMENTWISE, "y = xp.{name}(x)"
    )
_add(
    "xdist.interp",
    "NumPy's ``interp`` (beyond the standard). None for replicated ``xp``/``fp``: each rank "
    "searches the sample points for its own block's values; the result has ``x``'s layout. "
    "NumPy ``xp``/``fp`` are compared across the ranks under ``check_replicated``.",
    "y = xp.interp(x, np.array([0.0, 5.0, 11.0]), np.array([1.0, 0.0, 2.0]))",
)
for _n, _code in (
    ("promote_types", "dt = xp.promote_types(xp.int16, xp.float32)  # float32"),
    ("issubdtype", "ok = xp.issubdtype(x.dtype, np.floating)"),
    ("iscomplexobj", "ok = xp.iscomplexobj(x)  # False"),
    ("isrealobj", "ok = xp.isrealobj(x)  # True"),
    ("isscalar", "ok = xp.isscalar(3.0)  # True; arrays never are"),
    ("iterable", "ok = xp.iterable(x)  # True"),
):
    _add(f"xdist.{_n}", f"NumPy's ``{_n}`` (beyond the standard). " + METADATA, _code)

# -- xdist.fft ---------------------------------------------------------------------------------
FFT = (
    "None along axes that are not split (each rank transforms its block). Along the split "
    "axis the split moves to another axis (one all-to-all), the transform runs there and the "
    "split moves back (one more). A 1-D array uses the six-step FFT (three all-to-alls), or, "
    "when the length is prime, the one documented gather: the whole array on the rank that "
    "holds most of it (memory there: the input and the output)."
)
for _n in ("fft", "ifft", "fftn", "ifftn", "rfft", "rfftn", "hfft", "ihfft"):
    _axes = "axes=(1,)" if _n.endswith("n") else "axis=1"
    _add(f"xdist.fft.{_n}", FFT, f"f = xp.fft.{_n}(s, {_axes})  # along the rows: local", SIGNAL)
_add(
    "xdist.fft.irfft",
    FFT,
    "f = xp.fft.irfft(xp.fft.rfft(s, axis=0), n=6, axis=0)  # split axis",
    SIGNAL,
    {"alltoallv": 4},
)
_add(
    "xdist.fft.irfftn",
    FFT,
    "f = xp.fft.irfftn(xp.fft.rfftn(s), s=(6, 4), axes=(0, 1))",
    SIGNAL,
    {"alltoallv": 4},
)
_add(
    ["xdist.fft.fftfreq", "xdist.fft.rfftfreq"],
    CREATION,
    "f = xp.fft.{name}(8, d=0.5, split=0)",
    NONE,
)
_add(
    ["xdist.fft.fftshift", "xdist.fft.ifftshift"],
    "None along axes that are not split; a roll along the split axis (one all-to-all).",
    "y = xp.fft.{name}(xp.fft.fftfreq(8, split=0))",
    NONE,
    {"alltoallv": 1},
)

# -- xdist.special ---------------------------------------------------------------------------------
SPECIAL = (
    ELEMENTWISE + " SciPy computes each rank's block (``pip install scipy``); the dtype is "
    "SciPy's for NumPy inputs of the same dtypes."
)
_SPECIAL_CODE = {
    1: "y = xp.special.{name}(v)",
    2: "y = xp.special.{name}(v, 2.0 * v)",
    3: "y = xp.special.{name}(v, 2.0 * v, 0.5)",
    4: "y = xp.special.{name}(0.5, 1.5, 2.0, v)",
}
_SPECIAL_OVERRIDE = {
    "bdtr": "y = xp.special.bdtr(3, 10, v)  # k, n, p",
    "bdtrc": "y = xp.special.bdtrc(3, 10, v)",
    "bdtri": "y = xp.special.bdtri(3, 10, v)",
    "nbdtr": "y = xp.special.nbdtr(3, 10, v)",
    "nbdtrc": "y = xp.special.nbdtrc(3, 10, v)",
    "nbdtri": "y = xp.special.nbdtri(3, 10, v)",
    "pdtr": "y = xp.special.pdtr(3, 10.0 * v)",
    "pdtrc": "y = xp.special.pdtrc(3, 10.0 * v)",
    "pdtri": "y = xp.special.pdtri(3, v)",
    "expn": "y = xp.special.expn(2, v)",
    "yn": "y = xp.special.yn(2, v)",
    "lpmv": "y = xp.special.lpmv(0, 2, v)",
    "stdtrit": "y = xp.special.stdtrit(5.0, v)",
    "chdtri": "y = xp.special.chdtri(3.0, v)",
    "fdtri": "y = xp.special.fdtri(3.0, 4.0, v)",
    "gammaincinv": "y = xp.special.gammaincinv(2.0, v)",
    "gammainccinv": "y = xp.special.gammainccinv(2.0, v)",
    "betaincinv": "y = xp.special.betaincinv(2.0, 3.0, v)",
}


def _special_arity(name: str) -> int:
    """The number of arguments of SciPy's ufunc (with ``SCIPY_ARRAY_API=1`` the public names
    are wrappers; the ufuncs live in its private modules)."""
    import importlib

    for where in ("scipy.special._ufuncs", "scipy.special._special_ufuncs", "scipy.special"):
        try:
            ufunc = getattr(importlib.import_module(where), name, None)
        except ImportError:  # the reference is read without SciPy too
            return 1
        if hasattr(ufunc, "nin"):
            return ufunc.nin
    raise LookupError(f"xdist_reference: scipy.special has no ufunc {name}")


# fmt: off
_SPECIAL_NAMES = (
    "bdtr", "bdtrc", "bdtri", "betainc", "betaincc", "betaincinv", "betaln", "binom", "boxcox",
    "boxcox1p", "cbrt", "chdtr", "chdtrc", "chdtri", "cosdg", "cosm1", "cotdg", "ellipk",
    "ellipkm1", "entr", "erf", "erfc", "erfcx", "erfinv", "exp1", "exp10", "exp2", "exprel",
    "expi", "expit", "expn", "fdtr", "fdtrc", "fdtri", "gamma", "gammainc", "gammaincc",
    "gammainccinv", "gammaincinv", "gammaln", "gammasgn", "gdtr", "gdtrc", "huber", "hyp1f1",
    "i0", "i0e", "i1", "i1e", "inv_boxcox", "inv_boxcox1p", "j0", "j1", "k0", "k0e", "k1",
    "k1e", "kl_div", "log_ndtr", "loggamma", "logit", "lpmv", "nbdtr", "nbdtrc", "nbdtri",
    "ndtr", "ndtri", "pdtr", "pdtrc", "pdtri", "poch", "pseudo_huber", "psi", "radian",
    "rel_entr", "rgamma", "sindg", "spence", "stdtr", "stdtrit", "tandg", "xlog1py", "xlogy",
    "y0", "y1", "yn", "zetac", "digamma",
)
# fmt: on
for _n in _SPECIAL_NAMES:
    _code = (
        _SPECIAL_OVERRIDE.get(_n) or _SPECIAL_CODE[_special_arity("psi" if _n == "digamma" else _n)]
    )
    _add(f"xdist.special.{_n}", SPECIAL, _code, V)

# -- xdist.random ----------------------------------------------------------------------------------
DRAW = (
    "None: element ``j`` is a function of the seed and ``j`` only, so each rank draws only its "
    "own elements and the array is the same bits at any rank count, split and backend (one "
    "all-to-all only for a result split along a later axis in short runs)."
)
_add(
    "xdist.random.default_rng",
    "A given seed: one allgather of a fingerprint of the key (none with ``check_replicated`` "
    "off). "
    "``seed=None``: rank 0 draws fresh entropy and broadcasts it (16 bytes).",
    "rng = xdist.random.default_rng(42)",
    RNG,
)
_add("xdist.random.Generator", DRAW, "x = rng.standard_normal((6, 2), split=0)", RNG)
for _n, _code in (
    ("random", "x = rng.random((6, 2), split=0)"),
    ("uniform", "x = rng.uniform(-1.0, 1.0, (6, 2), split=0)"),
    ("standard_normal", "x = rng.standard_normal((6, 2), split=0)"),
    ("normal", "x = rng.normal(10.0, 2.0, (6, 2), split=0)"),
    ("integers", "k = rng.integers(0, 10, 100, split=0)"),
):
    _add(f"xdist.random.Generator.{_n}", DRAW, _code, RNG)
_add(
    ["xdist.random.Generator.permutation"],
    "None along an axis that is not split, or for a replicated result. Along the split axis "
    "a distributed argsort of the keys (a sample sort: an allgather of samples and "
    "all-to-alls) and, for an array, a ``take``; never a gather.",
    "p = rng.permutation(10, split=0)  # a split permutation of 0..9",
    RNG,
    {"allgather": 1, "allgatherv": 1, "alltoall": 1, "alltoallv": 2},
)
_add(
    "xdist.random.Generator.shuffle",
    "As ``permutation``: in place, along ``axis``.",
    "rng.shuffle(x)",
    RNG + "x = xp.asarray(np.arange(10.0), split=0)\n",
    {"allgather": 1, "allgatherv": 1, "alltoall": 2, "alltoallv": 4},
)
_add(
    "xdist.random.Generator.choice",
    "With replacement from ``range(a)`` or a replicated ``a``: none, as ``random``. From a "
    "split ``a``: a ``take`` (an all-to-all of indices and one of values). Without "
    "replacement into a split result: a distributed argsort of ``len(a)`` keys.",
    "s = rng.choice(100, size=10, split=0)",
    RNG,
)
_add(
    "xdist.random.Generator.spawn",
    "None: independent child generators, alike on every rank.",
    "a, b = rng.spawn(2)",
    RNG,
)
for _n, _what in (
    ("key", "The key the counter-based stream draws from."),
    ("seed_seq", "The NumPy ``SeedSequence`` it was made from."),
    ("comm", "The communicator new arrays use (``None``: the default)."),
):
    _add(f"xdist.random.Generator.{_n}", f"None. {_what}", f"print(rng.{_n})", RNG)

# -- xdist.io ------------------------------------------------------------------------------------
LOAD = (
    "Rank 0 reads the metadata and broadcasts it (two broadcasts); each rank reads only its "
    "slab (memory: its block plus one piece of ``chunk_bytes``, 64 MiB by default, never the "
    "whole file); one allgather agrees that every rank's read succeeded, so a missing file "
    "raises the same error everywhere."
)
SAVE = (
    "Written under a temporary name (two broadcasts), each rank writing only its own part, "
    "in parallel where the format allows (``.npy``, Zarr, CSV) and rank by rank otherwise "
    "(HDF5, NetCDF: one allgather per rank with data); one allgather agrees that every part "
    "was written and two broadcasts rename the file: it appears only when complete. Zarr "
    "adds a halo exchange where blocks do not start at chunk boundaries; CSV an exscan of "
    "the byte offsets and, first, one allgather agreeing on the header."
)
_IO_SENDS = {
    "save_npy": {"bcast": 4, "allgather": 1},
    "load_npy": {"bcast": 2, "allgather": 1},
    "save_hdf5": {"bcast": 4, "allgather": 4},
    "load_hdf5": {"bcast": 2, "allgather": 1},
    "save_zarr": {"bcast": 4, "alltoallv": 1, "allgather": 1},
    "load_zarr": {"bcast": 2, "allgather": 1},
    "save_netcdf": {"bcast": 4, "allgather": 4},
    "load_netcdf": {"bcast": 2, "allgather": 1},
    "save_csv": {"bcast": 4, "exscan": 1, "allgather": 2},
    "load_csv": {"bcast": 2, "allgather": 2},
}
IO = _IMPORTS + "import xdist.io\n\nx = xp.asarray(np.arange(12.0).reshape(4, 3), split=0)\n"
for _fmt, _save, _load in (
    ("npy", "xdist.io.save_npy(x, 'x.npy')", "y = xdist.io.load_npy('x.npy', split=0)"),
    ("hdf5", "xdist.io.save_hdf5(x, 'x.h5', 'data')", "y = xdist.io.load_hdf5('x.h5', 'data')"),
    ("zarr", "xdist.io.save_zarr(x, 'x.zarr')", "y = xdist.io.load_zarr('x.zarr', split=0)"),
    (
        "netcdf",
        "xdist.io.save_netcdf(x, 'x.nc', 'data')",
        "y = xdist.io.load_netcdf('x.nc', 'data')",
    ),
    ("csv", "xdist.io.save_csv(x, 'x.csv')", "y = xdist.io.load_csv('x.csv')"),
):
    _add(f"xdist.io.save_{_fmt}", SAVE, _save, IO, _IO_SENDS[f"save_{_fmt}"])
    _add(f"xdist.io.load_{_fmt}", LOAD, _load, IO + _save + "\n", _IO_SENDS[f"load_{_fmt}"])
_add(
    "xdist.io.save",
    "As the format's ``save_*`` (chosen by the extension).",
    "xdist.io.save(x, 'x.npy')",
    IO,
    _IO_SENDS["save_npy"],
)
_add(
    "xdist.io.load",
    "As the format's ``load_*`` (chosen by the extension).",
    "y = xdist.io.load('x.npy')",
    IO + "xdist.io.save(x, 'x.npy')\n",
    _IO_SENDS["load_npy"],
)
_add(
    "xdist.io.from_sliceable",
    "Each rank reads only its slab of an object with ``shape``, ``dtype`` and "
    "``__getitem__`` that every rank opened (an h5py dataset, a Zarr array, a memory map); "
    "one allgather agrees that every read succeeded.",
    "y = xdist.io.from_sliceable(whole, split=0)",
    IO + "whole = np.arange(12.0).reshape(4, 3)  # any sliceable object opened on every rank\n",
    {"allgather": 1},
)
_add(
    "xdist.io.is_lazy_array",
    "None: a type test (h5py, Zarr, NetCDF variables).",
    "print(xdist.io.is_lazy_array(np.zeros(3)))  # False",
    IO,
)

# -- xdist.ml ----------------------------------------------------------------------------------
_ESTIMATOR = (
    "Every call is collective (all ranks call it with their blocks). Per-feature or "
    "per-cluster results are replicated, per-sample results split like ``X``."
)
_KM = BLOBS + "km = KMeans(n_clusters=2, n_init=1, random_state=0).fit(X)\n"
_LASSO = BLOBS + "model = Lasso(alpha=0.1).fit(X, y)\n"
_MOM = BLOBS + "m = Moments().fit(X)\n"
_add(
    "xdist.ml.KMeans",
    _ESTIMATOR + " Per Lloyd iteration: local distances and labels, then one allreduce of "
    "``k x (d + 1)`` weighted sums for all clusters and the count of changed labels; "
    "k-means++ samples by a global cumulative sum and ``searchsorted``, never gathering X.",
    "km = KMeans(n_clusters=2, n_init=1, random_state=0).fit(X)\nprint(km.cluster_centers_.shape)",
    BLOBS,
)
_add(
    "xdist.ml.Lasso",
    _ESTIMATOR + " With ``precompute=True`` (or ``'auto'`` and more samples than features) the "
    "Gram problem comes from a few reductions and the descent runs on the replicated "
    "``p x p`` problem with no further messages; otherwise (``precompute=False``, the "
    "default) coordinate blocks of 16: one allreduce for a block's scores when first "
    "entered and one for its Gram columns when its coefficients first change, then none "
    "per sweep (past a budget of Gram columns, one per block entered).",
    "model = Lasso(alpha=0.1).fit(X, y)\nprint(model.coef_)",
    BLOBS,
)
_add(
    "xdist.ml.Moments",
    _ESTIMATOR + " Per batch: one pass of local moments about a shifted center, combined "
    "across ranks by allreduces (Pebay's pairwise merges); the results are replicated.",
    "m = Moments().fit(X)\nprint(m.mean_)",
    BLOBS,
)
_add(
    "xdist.ml.KMeans.fit",
    REFERENCE["xdist.ml.KMeans"].comm,
    "km = KMeans(n_clusters=2, n_init=1, random_state=0).fit(X)",
    BLOBS,
)
_add(
    "xdist.ml.KMeans.fit_predict",
    "As ``fit``; the labels are split like ``X``.",
    "labels = KMeans(n_clusters=2, n_init=1, random_state=0).fit_predict(X)",
    BLOBS,
)
_add(
    "xdist.ml.KMeans.fit_transform",
    "As ``fit``, then ``transform``.",
    "d = KMeans(n_clusters=2, n_init=1, random_state=0).fit_transform(X)",
    BLOBS,
)
_add(
    "xdist.ml.Lasso.fit",
    REFERENCE["xdist.ml.Lasso"].comm,
    "model = Lasso(alpha=0.1).fit(X, y)",
    BLOBS,
)
_add("xdist.ml.Moments.fit", REFERENCE["xdist.ml.Moments"].comm, "m = Moments().fit(X)", BLOBS)
for _name, _comm, _code, _setup in (
    (
        "KMeans.predict",
        "One allreduce checks that ``X`` is finite; then local distances to "
        "the replicated centers: the labels are split like ``X``.",
        "labels = km.predict(X)",
        _KM,
    ),
    (
        "KMeans.transform",
        "One allreduce checks that ``X`` is finite; then local distances to "
        "the replicated centers, split like ``X``.",
        "d = km.transform(X)",
        _KM,
    ),
    (
        "KMeans.score",
        "The finiteness check, local distances, then allreduces of the sums.",
        "s = km.score(X)",
        _KM,
    ),
    (
        "Lasso.predict",
        "One allreduce checks that ``X`` is finite; then one local product with "
        "the replicated ``coef_``: split like ``X``.",
        "p = model.predict(X)",
        _LASSO,
    ),
    (
        "Lasso.score",
        "R^2: the prediction, then reductions over the samples (allreduces).",
        "r2 = model.score(X, y)",
        _LASSO,
    ),
    (
        "Lasso.sparse_coef_",
        "None: ``coef_`` as a SciPy sparse matrix (it is small and replicated).",
        "c = model.sparse_coef_",
        _LASSO,
    ),
    (
        "Moments.partial_fit",
        "One batch: local moments merged across ranks by allreduces and into the running results.",
        "m.partial_fit(X[:20])",
        _MOM,
    ),
    (
        "Moments.transform",
        "One allreduce checks that ``X`` is finite; then each rank "
        "standardizes its block with the replicated moments.",
        "z = m.transform(X)",
        _MOM,
    ),
    (
        "Moments.inverse_transform",
        "As ``transform`` (one allreduce checks the input).",
        "back = m.inverse_transform(m.transform(X))",
        _MOM,
    ),
):
    _add(f"xdist.ml.{_name}", _comm, _code, _setup)
for _mod, _what in (
    ("cluster", "``KMeans``"),
    ("linear_model", "``Lasso``"),
    ("stats", "``Moments`` and the moment functions"),
):
    _add(
        f"xdist.ml.{_mod}",
        f"The module holding {_what}; see there.",
        f"import xdist.ml.{_mod}",
        NONE,
    )

# What the ml examples send at 3 ranks (iterative fits: for these data and seeds).
_FIT_KM = {"allreduce": 15, "exscan": 2, "bcast": 1, "allgather": 1, "allgatherv": 2}
for _name, _sends in {
    "KMeans": _FIT_KM,
    "KMeans.fit": _FIT_KM,
    "KMeans.fit_predict": _FIT_KM,
    "KMeans.fit_transform": dict(_FIT_KM, allreduce=16),
    "KMeans.predict": {"allreduce": 1},
    "KMeans.transform": {"allreduce": 1},
    "KMeans.score": {"allreduce": 3},
    "Lasso": {"allreduce": 18},
    "Lasso.fit": {"allreduce": 18},
    "Lasso.predict": {"allreduce": 1},
    "Lasso.score": {"allreduce": 5},
    "Moments": {"allreduce": 6},
    "Moments.fit": {"allreduce": 6},
    "Moments.partial_fit": {"allreduce": 6},
    "Moments.transform": {"allreduce": 1},
    "Moments.inverse_transform": {"allreduce": 2},
}.items():
    REFERENCE[f"xdist.ml.{_name}"].sends.update(_sends)


# -- what is public, and where the reference shows it ------------------------------------------
def resolve(name: str):
    """The object a dotted public name stands for (``xdist.Array.shape``: the class attribute
    as stored, so a property is the property)."""
    import importlib

    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for k, part in enumerate(parts[cut:]):
            if inspect.isclass(obj) and k == len(parts) - cut - 1:
                return inspect.getattr_static(obj, part)
            obj = getattr(obj, part)
        return obj
    raise ImportError(name)


def kind_of(name: str) -> str:
    """How the reference renders ``name``: module, class, function, method, property,
    attribute or data."""
    obj = resolve(name)
    parent = name.rsplit(".", 1)[0]
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if parent in REFERENCE and kind_of(parent) == "class":
        if isinstance(obj, property):
            return "property"
        if inspect.isfunction(obj) or isinstance(obj, (classmethod, staticmethod)):
            return "method"
        return "attribute"
    if callable(obj) and not isinstance(obj, type(None)) and not _is_dtype(obj):
        return "function"
    return "data"


def _is_dtype(obj) -> bool:
    import numpy as np

    return isinstance(obj, np.dtype)


def _own_members(cls) -> list[str]:
    """Public attributes a class of xdist defines itself (not those it inherits from another
    library, such as scikit-learn's ``get_params``)."""
    names = []
    for attr in dir(cls):
        if attr.startswith("_") or (attr.startswith("set_") and attr.endswith("_request")):
            continue  # scikit-learn's generated metadata-routing setters
        for base in cls.__mro__:
            if attr in vars(base):
                if base.__module__.startswith("xdist"):
                    names.append(attr)
                break
    return names


CLASSES = (
    "xdist.Array",
    "xdist.Layout",
    "xdist.random.Generator",
    "xdist.ml.KMeans",
    "xdist.ml.Lasso",
    "xdist.ml.Moments",
)
SUBMODULES = ("linalg", "fft", "special", "random", "io", "ml")


def public_names() -> list[str]:
    """Every public name of xdist: the namespace's attributes (and
    ``__array_namespace_info__``), each submodule's ``__all__``, and the members the public
    classes define."""
    import __future__

    import importlib

    import xdist

    names = [
        f"xdist.{n}"
        for n in dir(xdist)
        if not n.startswith("_")
        and n not in SUBMODULES
        and not isinstance(getattr(xdist, n), __future__._Feature)  # ``annotations``
    ]
    names.append("xdist.__array_namespace_info__")
    for sub in SUBMODULES:
        module = importlib.import_module(f"xdist.{sub}")
        names += [f"xdist.{sub}.{n}" for n in module.__all__]
    for cls in CLASSES:
        names += [f"{cls}.{m}" for m in _own_members(resolve(cls))]
    return sorted(set(names))


_CHAPTERS = {
    "creation": "xdist._creation_functions",
    "data-types": "xdist._data_type_functions",
    "elementwise": "xdist._elementwise_functions",
    "indexing": "xdist._indexing_functions",
    "linear-algebra": "xdist._linear_algebra_functions",
    "manipulation": "xdist._manipulation_functions",
    "searching": "xdist._searching_functions",
    "set": "xdist._set_functions",
    "sorting": "xdist._sorting_functions",
    "statistical": "xdist._statistical_functions",
    "utility": "xdist._utility_functions",
}
_BESIDE = {
    "xdist._median": "statistical",
    "xdist._bincount": "statistical",
    "xdist._nan_functions": "statistical",
    "xdist._pad": "manipulation",
    "xdist._sliding_window": "manipulation",
    "xdist._einsum": "linear-algebra",
    "xdist._quantile": "statistical",
    "xdist._covariance": "statistical",
    "xdist._histograms": "statistical",
    "xdist._numpy_statistics": "statistical",
    "xdist._rounding": "elementwise",
    "xdist._numpy_aliases": "manipulation",
    "xdist._gradient": "utility",
    "xdist._unique": "set",
    "xdist._numpy_array": "creation",
    "xdist._argwhere": "searching",
    "xdist._cumulative": "statistical",
    "xdist._comparisons": "utility",
    "xdist._numpy_dtypes": "data-types",
    "xdist._numpy_elementwise": "elementwise",
    "xdist._numpy_indices": "indexing",
    "xdist._numpy_shapes": "manipulation",
    "xdist.linalg._numpy_products": "linear-algebra",
}
_MODULES = {"xdist.lib": "manipulation"}  # namespace attributes that are modules
_FIXED = {
    "distribution": [
        "xdist.from_local",
        "xdist.resplit",
        "xdist.balance",
        "xdist.to_numpy",
        "xdist.show",
    ],
    "settings": [
        "xdist.GatherWarning",
        "xdist.count_collectives",
        "xdist.synchronize",
        "xdist.empty_cache",
        "xdist.get_config",
        "xdist.set_config",
        "xdist.config_context",
        "xdist.default_comm",
        "xdist.set_default_comm",
        "xdist.set_backend",
        "xdist.backend_context",
        "xdist.Communicator",
        "xdist.SelfComm",
        "xdist.backends",
        "xdist.__array_namespace_info__",
    ],
    "constants": ["xdist.e", "xdist.inf", "xdist.nan", "xdist.newaxis", "xdist.pi"],
}


def sections() -> dict[str, list[str]]:
    """Section of the reference -> the names it shows, in order. Every entry is in one."""
    out: dict[str, list[str]] = {k: [] for k in ("array", "layout", *_FIXED, *_CHAPTERS)}
    for k in SUBMODULES:
        out[k] = []
    placed = {n for names in _FIXED.values() for n in names}
    for k, names in _FIXED.items():
        out[k] = list(names)
    for name in REFERENCE:
        if name in placed:
            continue
        parts = name.split(".")
        if parts[1] == "Array":
            out["array"].append(name)
        elif parts[1] == "Layout":
            out["layout"].append(name)
        elif parts[1] in SUBMODULES:
            out[parts[1]].append(name)
        elif name in _MODULES:
            out[_MODULES[name]].append(name)
        elif kind_of(name) == "data":
            out["data-types"].append(name)
        else:
            module = getattr(resolve(name), "__module__", "")
            chapter = _BESIDE.get(module) or next(
                (k for k, m in _CHAPTERS.items() if module == m or module.startswith(m + ".")),
                None,
            )
            if chapter is None:
                raise LookupError(f"xdist_reference: no section of the reference for {name}")
            out[chapter].append(name)
    return out
