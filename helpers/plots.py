"""Figures for the labs: timings with their spread, speedup ratios, a roofline. Each returns the Figure.

Figures are built without pyplot state (a `LabFigure`, a matplotlib Figure that draws itself as a PNG), so
they work headless and show once in Jupyter when returned as a cell's last value, whatever the matplotlib
backend (a bare Figure shows as "<Figure size ...>" text unless pyplot's inline backend was set up).
Every title carries the device label.
"""

from __future__ import annotations

import io
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter


class LabFigure(Figure):
    """A Figure that Jupyter shows as a picture when it is a cell's last value."""

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=100)
        return buf.getvalue()


def _label_for(rows: list[dict], device_label: str | None) -> str:
    """The device label given, else one built from the rows' device."""
    if device_label:
        return device_label
    from helpers.env import device_label as make_label

    device = next((r["device"] for r in rows if r.get("device")), None)
    return make_label(device)  # None: the device this machine would pick


def _by_label(rows: Iterable[dict], x: str) -> dict[str, list[dict]]:
    """Rows grouped by label, each group sorted by x."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[str(r.get("label", ""))].append(r)
    return {k: sorted(v, key=lambda r: r[x]) for k, v in groups.items()}


def _new_figure(size: tuple[float, float] = (7, 4.5)) -> tuple[Figure, Any]:
    """A fresh Figure with one Axes."""
    fig = LabFigure(figsize=size, layout="constrained")
    return fig, fig.add_subplot()


def plot_timings(rows: list[dict], x: str = "size", title: str = "Time per call", device_label: str | None = None,
                 logx: bool = True, logy: bool = True, xlabel: str | None = None,
                 ylabel: str = "time per call (ms)") -> Figure:
    """One line per label (median) with a shaded band from q25 to q75; rows as returned by bench.sweep."""
    fig, ax = _new_figure()
    for label, group in _by_label(rows, x).items():
        xs = [r[x] for r in group]
        (line,) = ax.plot(xs, [r["median_ms"] for r in group], marker="o", label=f"{label} (median)")
        if all("q25_ms" in r and "q75_ms" in r for r in group):
            ax.fill_between(xs, [r["q25_ms"] for r in group], [r["q75_ms"] for r in group],
                            color=line.get_color(), alpha=0.25, label=f"{label} (q25–q75)")
    ax.set_xscale("log" if logx else "linear")
    ax.set_yscale("log" if logy else "linear")
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel)
    ax.set_title(f"{title}\n{_label_for(rows, device_label)}", fontsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return fig


def speedups(rows: list[dict], a: str, b: str, x: str = "size") -> list[dict]:
    """Per x: b's speedup over a and its range; > 1 means b is faster.

    From bench.sweep rows whose baseline is a: the median of the paired rounds' ratios and its 95 % interval. Rows
    without a verdict (made by hand) fall back to median ÷ median with the quartiles' range, labelled as such.
    """
    groups = _by_label(rows, x)
    missing = [k for k in (a, b) if k not in groups]
    if missing:
        raise KeyError(f"no rows labelled {missing}; labels present: {sorted(groups)}")
    b_at = {r[x]: r for r in groups[b]}
    out = []
    for ra in groups[a]:
        rb = b_at.get(ra[x])
        if rb is None:
            continue
        if "speedup_low" in rb:
            out.append({x: ra[x], "ratio": rb["speedup"], "low": rb["speedup_low"], "high": rb["speedup_high"],
                        "band": "95 % interval"})
        else:
            out.append({x: ra[x], "ratio": ra["median_ms"] / rb["median_ms"],
                        "low": ra.get("q25_ms", ra["median_ms"]) / rb.get("q75_ms", rb["median_ms"]),
                        "high": ra.get("q75_ms", ra["median_ms"]) / rb.get("q25_ms", rb["median_ms"]),
                        "band": "quartile range"})
    return out


def plot_ratio(rows: list[dict], a: str = "eager", b: str = "compiled", x: str = "size", title: str | None = None,
               device_label: str | None = None, logx: bool = True, logy: bool = False,
               xlabel: str | None = None) -> Figure:
    """Speedup of b over a against size, with its quartile band and a line at 1× (below it, b loses)."""
    pts = speedups(rows, a, b, x)
    fig, ax = _new_figure()
    xs = [p[x] for p in pts]
    ax.plot(xs, [p["ratio"] for p in pts], marker="o", color="C0", label=f"{b} speedup over {a} (median of the pairs)")
    ax.fill_between(xs, [p["low"] for p in pts], [p["high"] for p in pts], color="C0", alpha=0.25,
                    label=pts[0]["band"] if pts else "range")
    ax.axhline(1.0, color="black", lw=1, ls="--", label="1× (same speed)")
    ax.text(0.99, 0.02, f"below 1: {b} is slower than {a}", transform=ax.transAxes, ha="right", va="bottom",
            fontsize=9, color="dimgray")
    ax.set_xscale("log" if logx else "linear")
    ax.set_yscale("log" if logy else "linear")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}×"))
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(f"speedup (time {a} / time {b})")
    ax.set_title(f"{title or f'{b} vs {a}'}\n{_label_for(rows, device_label)}", fontsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return fig


def plot_roofline(peak_gbps: float, peak_gflops: float | None = None,
                  points: Iterable[tuple[str, float, float]] = (), device_label: str = "",
                  title: str = "Roofline") -> Figure:
    """Roofline: points are (name, FLOP/byte, achieved GFLOP/s); without peak_gflops, (name, FLOP/byte, achieved GB/s).

    With peak_gflops the roof is min(peak_gflops, peak_gbps × intensity). Without it the chart is a
    bandwidth roof only: a flat line at peak_gbps, the ceiling of every memory-bound kernel.
    """
    points = list(points)
    fig, ax = _new_figure()
    intensities = [p[1] for p in points] or [1.0]
    lo, hi = min(intensities) / 10, max(intensities) * 10
    if peak_gflops:
        ridge = peak_gflops / peak_gbps
        lo, hi = min(lo, ridge / 10), max(hi, ridge * 10)
        ax.plot([lo, ridge, hi], [peak_gbps * lo, peak_gflops, peak_gflops], color="black",
                label=f"roof: {peak_gbps:,.0f} GB/s × intensity, capped at {peak_gflops:,.0f} GFLOP/s")
        ax.axvline(ridge, color="gray", ls=":", lw=1, label=f"ridge at {ridge:.1f} FLOP/byte")
        ax.set_yscale("log")
        ax.set_ylabel("achieved GFLOP/s")
        unit, roof = "GFLOP/s", lambda i: min(peak_gflops, peak_gbps * i)
    else:
        ax.axhline(peak_gbps, color="black", label=f"bandwidth roof {peak_gbps:,.0f} GB/s")
        ax.set_ylim(0, 1.15 * max([peak_gbps] + [p[2] for p in points]))
        ax.set_ylabel("achieved bandwidth (GB/s)")
        unit, roof = "GB/s", lambda i: peak_gbps
    for k, (name, intensity, achieved) in enumerate(points):
        ax.scatter([intensity], [achieved], color=f"C{k % 10}", zorder=3,
                   label=f"{name}: {achieved:,.1f} {unit} ({100 * achieved / roof(intensity):.0f}% of roof)")
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity (FLOP/byte)")
    ax.set_title(f"{title}\n{device_label or _label_for([], None)}", fontsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plot_bubble(ms: list[int], measured: list[float], p: int, device_label: str,
                per_rank: list[list[float]] | None = None) -> Figure:
    """Measured pipeline bubble against micro-batch count, with GPipe's (p - 1) / (m + p - 1)."""
    fig, ax = _new_figure()
    dense = [1 + i * (max(ms) - 1) / 200 for i in range(201)]
    ax.plot(dense, [(p - 1) / (m + p - 1) for m in dense], color="black", lw=1.5, label=f"(p − 1) / (m + p − 1), p = {p}")
    ax.plot(ms, measured, marker="o", color="C3", lw=0, ms=9, label="measured, mean of the stages")
    for r, values in enumerate(per_rank or []):
        ax.scatter(ms, values, s=30, marker="x+"[r % 2], color=f"C{r % 3}", zorder=3, label=f"measured, stage {r}")
    ax.set_xscale("log", base=2)
    ax.set_xticks(ms, [str(m) for m in ms])
    ax.set_ylim(0, max(0.6, max(measured) + 0.05))
    ax.set_xlabel("micro-batches per step, m")
    ax.set_ylabel("bubble: idle fraction of a step")
    ax.set_title(f"GPipe bubble on {p} stages\n{device_label}", fontsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plot_plan(plan: dict, title: str, device_gb: float | None = 80.0) -> Figure:
    """Memory per device (stacked: parameters, gradients, optimizer state, activations) and GB sent per step.

    device_gb: draws the memory of one device (80 GB: an H100) as a line on the memory panel; None for none.
    """
    names = list(plan)
    fig = LabFigure(figsize=(11, 4.5), layout="constrained")
    mem, comm = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    bottom = [0.0] * len(names)
    for key, label in (("params_GB", "parameters"), ("grads_GB", "gradients"), ("optimizer_GB", "optimizer state"),
                       ("activations_GB", "activations")):
        values = [plan[n][key] for n in names]
        mem.bar(names, values, bottom=bottom, label=label)
        bottom = [b + v for b, v in zip(bottom, values)]
    if device_gb:
        mem.axhline(device_gb, color="black", ls="--", lw=1, label=f"one device: {device_gb:g} GB")
    mem.set_ylabel("memory per device (GB)")
    mem.set_title("memory per device", fontsize=10)
    mem.legend(fontsize=8)
    comm.bar(names, [plan[n]["comm_GB_per_step"] for n in names], color="C4")
    comm.set_ylabel("sent per device per step (GB)")
    comm.set_title("communication per training step", fontsize=10)
    for ax in (mem, comm):
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle(title, fontsize=11)
    return fig


def plot_payoff(rows: list[dict], title: str = "Cumulative time of a training run", device_label: str | None = None,
                max_steps: int | None = None) -> Figure:
    """Cumulative wall time against steps, one line per mode: the first steps' time (compile included), then the
    median step time; where a compiled line crosses eager's, compiling has paid for itself (Lab 06).

    A row may carry its verdict against eager (bench's "faster", "slower" or "no difference"), `ci` (the interval of
    eager's time ÷ its time: drawn as a band of step times, the noise state) and `steps` (pay-off at the median and at
    the interval's ends); a mode whose name says "warm" is dashed. A box says what each verdict means for the pay-off:
    a dot where a faster line crosses eager's (at the crossing of the two drawn lines), "never pays off" for a slower
    one or lines that never cross, "not resolved" for no difference.
    """
    fig, ax = _new_figure()
    eager = next((r for r in rows if r["mode"] == "eager"), rows[0])
    finite = lambda n: isinstance(n, (int, float)) and n != float("inf")
    ends = [n for r in rows for n in [r.get("pay_off_steps"), *(r.get("steps") or ())] if finite(n)]
    top = max_steps or int(max([200, *[1.2 * n for n in ends]]))
    steps = [3 + i * (top - 3) / 200 for i in range(201)]
    notes = []
    for r in rows:
        line, = ax.plot(steps, [r["first_steps_s"] + (n - 3) * r["median_ms"] / 1000 for n in steps], label=r["mode"],
                        ls="--" if "warm" in str(r["mode"]) else "-")
        if r is eager:
            continue
        if r.get("ci"):
            fast, slow = (eager["median_ms"] / ratio for ratio in sorted(r["ci"], reverse=True))
            ax.fill_between(steps, [r["first_steps_s"] + (n - 3) * fast / 1000 for n in steps],
                            [r["first_steps_s"] + (n - 3) * slow / 1000 for n in steps], color=line.get_color(),
                            alpha=0.15, lw=0)
        verdict, n = r.get("verdict"), r.get("pay_off_steps")
        # where the two drawn lines meet (None: they never do, the compiled step being no quicker at the median)
        cross = (max(3.0, 3 + (r["first_steps_s"] - eager["first_steps_s"]) * 1000 / (eager["median_ms"] - r["median_ms"]))
                 if eager["median_ms"] > r["median_ms"] else None)
        if verdict == "slower":
            notes.append(f"{r['mode']}: never pays off (slower)")
        elif verdict != "no difference" and cross is None:
            notes.append(f"{r['mode']}: never pays off (the lines do not cross)")
        elif verdict == "no difference":
            notes.append(f"{r['mode']}: pay-off not resolved (no difference)")
        else:
            rng = r.get("steps")
            notes.append(f"{r['mode']}: pays off after {n:,} steps" + (
                f" ({rng[1]:,}–{rng[2]:,})" if rng and all(finite(x) for x in rng[1:]) else "") if finite(n) else
                f"{r['mode']}: pays off after about {cross:,.0f} steps")
            if cross <= top:
                ax.plot([cross], [r["first_steps_s"] + (cross - 3) * r["median_ms"] / 1000], "o", color=line.get_color())
    if notes:
        ax.text(0.02, 0.98, "\n".join(notes), transform=ax.transAxes, va="top", fontsize=8,
                bbox=dict(boxstyle="round", facecolor="white", alpha=0.8))
    ax.set_xlabel("training steps")
    if any(r.get("clock") == "cpu" for r in rows):      # bench timed the steps in CPU time: other programs were busy
        ax.set_ylabel("cumulative time (s): first 3 steps' wall time,\nthen median steps in CPU time", fontsize=8)
    else:
        ax.set_ylabel("cumulative wall time (s)")
    ax.set_title(f"{title}\n{_label_for(rows, device_label)}", fontsize=11)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    return fig


def save(fig: Figure, path: str | Path, dpi: int = 120) -> Path:
    """Write the figure as a PNG (folders created); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, format="png")
    return path
