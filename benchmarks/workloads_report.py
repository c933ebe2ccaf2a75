"""The report of ``benchmarks/workloads.py``: the contenders' names, the markdown tables
(seconds, best peer / xdist, scaling) and the plots, from the times the driver collected.

The ratio of a round compares the best peer of that round with xdist's time of the same
round, so that the two times it divides were taken moments apart; the tables give the
median of the rounds' ratios and each round's.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness import median
from workloads_cases import CASES, LASSO_EPOCHS

PEER_NAMES = {
    "numpy": "NumPy 1 thread",
    "sklearn": "scikit-learn 2 threads",
    "onedal": "oneDAL 2 threads",
    "torch": "Torch 2 threads",
    "jax": "JAX jit 2 cores",
    "heat": "HeAT 2 ranks",
}
PEER_LABEL = {
    ("sklearn", "kmeans"): "scikit-learn KMeans",
    ("jax", "kmeans"): "JAX jit Lloyd",
    ("onedal", "kmeans"): "scikit-learn-intelex KMeans",
    ("onedal", "lasso_gram"): "daal4py Lasso precompute=True",
    ("onedal", "lasso_residual"): "daal4py Lasso precompute=False",
    ("numpy", "kmeans"): "NumPy Lloyd by hand",
    ("sklearn", "lasso_gram"): "scikit-learn precompute=True",
    ("sklearn", "lasso_residual"): "scikit-learn precompute=False",
    ("numpy", "lasso_gram"): "NumPy Gram descent by hand",
    ("numpy", "cdist"): "NumPy expansion",
    ("torch", "cdist"): "torch.cdist",
    ("jax", "cdist"): "JAX jit expansion",
    ("heat", "cdist"): "HeAT cdist",
}


def report_epochs(epochs: dict[str, int]) -> None:
    """Print the epochs each Lasso contender ran. With ``tol=0`` scikit-learn's rule (which
    xdist follows) still stops early after a sweep that changes no coefficient if the
    duality gap is then <= 0 in rounding: such a contender did less work than the others,
    so its ratio is not comparable (the tables below do not correct for it). daal4py
    reports one more than the epochs it ran (it counts its last check)."""
    line = f"- lasso: epochs run: all {LASSO_EPOCHS}"
    short = [f"{k} {v}" for k, v in epochs.items() if v < LASSO_EPOCHS]
    more = [f"{k} {v}" for k, v in epochs.items() if v > LASSO_EPOCHS]
    if more:
        line += " (reported " + ", ".join(more) + ")"
    if short:
        line += " but " + ", ".join(short) + " (a sweep changed nothing and the duality gap"
        line += " was <= 0 in rounding: less work, not comparable)"
    print(line, flush=True)


def label(key) -> str:
    """A contender's name: a peer group's, or an xdist configuration's (backend, ranks)."""
    if isinstance(key, str):
        return PEER_NAMES[key]
    return f"xdist {key[0]} {key[1]} rank{'s' if key[1] > 1 else ''}"


def _peer_label(p: tuple[str, str]) -> str:
    """'scikit-learn precompute=True, 2 threads', or the library's name for plain ops."""
    if p in PEER_LABEL:
        threads = " ".join(PEER_NAMES[p[0]].split(" ")[-2:])  # "2 threads", "2 cores"
        return f"{PEER_LABEL[p]}, {threads}"
    return PEER_NAMES[p[0]]


def _times(out: dict, key, op: str) -> list[float] | None:
    """The per-round times of one contender's op (``key``: a peer group, or [backend, ranks])."""
    return out["times"].get(f"{json.dumps(key)}|{op}")


def _spreads(out: dict, key, op: str) -> list[float]:
    """The per-round slowest / fastest call of one contender's op (none in older records)."""
    return out.get("spreads", {}).get(f"{json.dumps(key)}|{op}", [])


def _fmt(v: float) -> str:
    return "-" if v != v else f"{v:.3g}" if v < 1 else f"{v:.2f}"


def tables(out: dict, args) -> dict:
    """Print the markdown tables; return {case: {config: per-round ratios}} for the plots."""
    configs = args.configs
    cases = [c for c in CASES if c[0] in args.only]
    print(
        f"\n### Seconds (median of {args.rounds} rounds; each round's time the median of "
        f"{args.repeat} calls)\n"
    )
    print("| case | contender | median s | per round | slowest / fastest call, worst round |")
    print("|---|---|---|---|---|")
    ratios, best_names = {}, {}
    for _, name, peers, xop in cases:
        rows = [(_peer_label(p), _times(out, p[0], p[1])) for p in peers]
        rows += [(label(c), _times(out, list(c), xop)) for c in configs]
        spreads = [_spreads(out, p[0], p[1]) for p in peers]
        spreads += [_spreads(out, list(c), xop) for c in configs]
        for (who, ts), sp in zip(rows, spreads):
            if ts:
                per = ", ".join(_fmt(t) for t in ts)
                worst = max((v for v in sp if v == v), default=float("nan"))
                print(f"| {name} | {who} | {_fmt(median(ts))} | {per} | {_fmt(worst)} |")
        peer_ts = [(p, _times(out, p[0], p[1])) for p in peers]
        peer_ts = [(p, ts) for p, ts in peer_ts if ts]
        if not peer_ts:
            continue
        best = [  # a peer whose call failed in a round (nan) is left out of that round
            min((ts[r] for _, ts in peer_ts if ts[r] == ts[r]), default=float("nan"))
            for r in range(args.rounds)
        ]
        best_p = min(peer_ts, key=lambda pt: median(pt[1]))[0]
        best_names[name] = (_peer_label(best_p), median(best))
        ratios[name] = {}
        for c in configs:
            ts = _times(out, list(c), xop)
            if ts:
                ratios[name][c] = [b / t for b, t in zip(best, ts)]
    head = "| case | best peer (median s) |" + "".join(f" {label(c)} |" for c in configs)
    for title, cell in (
        ("median of the rounds' ratios", lambda rs: _fmt(median(rs))),
        ("per round", lambda rs: ", ".join(_fmt(r) for r in rs)),
    ):
        print(f"\n### Best peer / xdist (above 1: xdist faster), {title}\n")
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for name, by_config in ratios.items():
            peer, t = best_names[name]
            cells = "".join(
                f" {cell(by_config[c])} |" if c in by_config else " - |" for c in configs
            )
            print(f"| {name} | {peer} ({_fmt(t)}) |{cells}")
    _scaling(out, args, cases, configs)
    return ratios


def _scaling(out, args, cases, configs) -> None:
    """Time / time tables: 1 rank / R ranks, Torch backend / NumPy backend, and xdist at one
    rank / NumPy (one thread) where NumPy is a peer of the case."""

    def xdist(config):
        return lambda case: _times(out, list(config), case[3])

    def numpy_peer(case):
        ops = [op for group, op in case[2] if group == "numpy"]
        return _times(out, "numpy", ops[0]) if ops else None

    pairs = []  # (column title, times of the numerator, times of the denominator)
    for b in ("numpy", "torch"):
        for r in (2, 3):
            if (b, 1) in configs and (b, r) in configs:
                pairs.append((f"{b}: 1 rank / {r} ranks", xdist((b, 1)), xdist((b, r))))
    for r in (1, 2, 3):
        if ("numpy", r) in configs and ("torch", r) in configs:
            title = f"Torch backend / NumPy backend, {r} rank(s)"
            pairs.append((title, xdist(("torch", r)), xdist(("numpy", r))))
    if ("numpy", 1) in configs and "numpy" in args.peers:
        pairs.append(("xdist numpy 1 rank / NumPy 1 thread", xdist(("numpy", 1)), numpy_peer))
    if not pairs:
        return
    print("\n### Scaling (time / time, median of the rounds' ratios; per round in brackets)\n")
    head = "| case |" + "".join(f" {p[0]} |" for p in pairs)
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for case in cases:
        cells = ""
        for _, fa, fb in pairs:
            ta, tb = fa(case), fb(case)
            if ta and tb:
                rs = [x / y for x, y in zip(ta, tb)]
                cells += f" {_fmt(median(rs))} ({', '.join(_fmt(r) for r in rs)}) |"
            else:
                cells += " - |"
        print(f"| {case[1]} |{cells}")


def plots(out: dict, ratios: dict, args, caption: str) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(args.plots)
    folder.mkdir(parents=True, exist_ok=True)
    configs = args.configs
    written = []
    names = list(ratios)
    if names:
        fig, ax = plt.subplots(figsize=(9, 0.55 * len(names) * max(1, len(configs)) / 2 + 1.5))
        height = 0.8 / max(1, len(configs))
        for i, c in enumerate(configs):
            ys = [k + (i - (len(configs) - 1) / 2) * height for k in range(len(names))]
            rs = [ratios[n].get(c, [float("nan")]) for n in names]
            med = [median(r) for r in rs]
            lo = [m - min(r) if m == m else 0 for m, r in zip(med, rs)]
            hi = [max(r) - m if m == m else 0 for m, r in zip(med, rs)]
            ax.barh(ys, med, height=height, xerr=[lo, hi], label=label(c), capsize=2)
        ax.axvline(1.0, color="black", linewidth=1)
        ax.set_xscale("log")
        ax.set_yticks(range(len(names)), names)
        ax.invert_yaxis()
        ax.set_xlabel(
            "best peer's time / xdist's time (above 1: xdist faster; bars: median, "
            "whiskers: rounds' range)"
        )
        ax.legend(fontsize=8)
        ax.set_title(f"xdist against the best peer, --scale {args.scale}")
        fig.tight_layout()
        written.append(_save(fig, folder / "workloads_ratios.png", caption))
        plt.close(fig)
    cases = [c for c in CASES if c[0] in args.only]
    backends = [
        b for b in ("numpy", "torch") if (b, 1) in configs and sum(bb == b for bb, _ in configs) > 1
    ]
    if backends:
        top = max(r for _, r in configs)
        fig, axes = plt.subplots(
            1, len(backends), figsize=(5 * len(backends) + 1, 5.5), sharey=True, squeeze=False
        )
        colors = plt.get_cmap("tab10").colors
        for ax, b in zip(axes[0], backends):
            ranks = sorted(r for bb, r in configs if bb == b)
            for i, (_, name, _, xop) in enumerate(cases):
                t1 = _times(out, [b, 1], xop)
                if not t1:
                    continue
                pts = [
                    (r, median([x / y for x, y in zip(t1, _times(out, [b, r], xop))]))
                    for r in ranks
                    if _times(out, [b, r], xop)
                ]
                ax.plot(*zip(*pts), "-o" if i < 10 else "--s", color=colors[i % 10], label=name)
            ax.plot([1, top], [1, top], ":", color="gray", label="ideal")
            ax.set_xticks(range(1, top + 1))
            ax.set_xlabel("ranks (one thread each)")
            ax.set_title(f"{b} backend")
        axes[0][0].set_ylabel("1 rank's time / R ranks' time")
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8)
        fig.suptitle(f"xdist rank scaling, --scale {args.scale}")
        fig.tight_layout(rect=(0, 0.16, 1, 1))
        written.append(_save(fig, folder / "workloads_scaling.png", caption))
        plt.close(fig)
    return written


def _save(fig, path: Path, caption: str) -> Path:
    fig.savefig(path, dpi=110)
    path.with_suffix(".txt").write_text(caption + "\n")
    return path
