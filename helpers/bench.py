"""Timing done right: warm-up first, device sync, many samples, median and spread, A vs B in one run.

Both devices: torch.utils.benchmark.Timer.blocked_autorange at torch's own thread count. Each sample is the mean of
a block of back-to-back calls, and on CUDA the Timer synchronizes at each block's ends, so a sample is what a caller
waits per call, launch cost included. (Per-call CUDA events after an L2 flush, as do_bench takes them, scatter by more
than their median on launch-bound calls of a few microseconds: the H100 runs of Labs 01 and 04 flagged most rows.)
Introduced in Lab 01; every lab that claims a speedup measures it with `compare`.
"""

from __future__ import annotations

import math
import os
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable

import torch

DEFAULT_WARMUP = 3  # enough calls for torch.compile to compile, autotune and (reduce-overhead) record graphs
DEFAULT_MIN_RUN_TIME = 0.2  # seconds of timed calls per measurement; QUICK notebooks pass ~0.05
MIN_SAMPLES = 5  # never report a median of fewer samples than this


@dataclass
class Timing:
    """Per-call times of one function: median and quartiles in milliseconds, how and where measured."""

    label: str
    device: str
    method: str  # "torch.utils.benchmark"
    median_ms: float
    q25_ms: float
    q75_ms: float
    min_ms: float
    n: int
    times_ms: list[float] = field(default_factory=list, repr=False)

    @property
    def iqr_ms(self) -> float:
        """Interquartile range: the spread of the middle half of the samples."""
        return self.q75_ms - self.q25_ms

    @property
    def noisy(self) -> bool:
        """True when the middle half of the samples spreads wider than the median: too noisy to draw a conclusion."""
        return self.iqr_ms > self.median_ms

    def __str__(self) -> str:
        text = f"{self.label}: {fmt_ms(self.median_ms)} ms (IQR {fmt_ms(self.iqr_ms)}, n={self.n}, {self.device})"
        return text + (f" {NOISY}" if self.noisy else "")


@dataclass
class Comparison:
    """Two timings from one interleaved run; ratio = a / b, so > 1 means b is faster."""

    a: Timing
    b: Timing

    @property
    def ratio(self) -> float:
        """Median time of a over median time of b (the speedup of b)."""
        return self.a.median_ms / self.b.median_ms

    @property
    def ratio_low(self) -> float:
        """Pessimistic ratio from the quartiles: a's fast quarter against b's slow quarter."""
        return self.a.q25_ms / self.b.q75_ms

    @property
    def ratio_high(self) -> float:
        """Optimistic ratio from the quartiles: a's slow quarter against b's fast quarter."""
        return self.a.q75_ms / self.b.q25_ms

    @property
    def noisy(self) -> bool:
        """True when either timing spreads wider than its median: the ratio cannot be trusted."""
        return self.a.noisy or self.b.noisy

    def __str__(self) -> str:
        a, b = self.a.label, self.b.label
        if self.ratio >= 1:
            text = (f"{b} is {self.ratio:.2f}× faster than {a} "
                    f"(quartile range {self.ratio_low:.2f}–{self.ratio_high:.2f}×)")
        else:
            text = (f"{b} is {1 / self.ratio:.2f}× SLOWER than {a} "
                    f"(quartile range {1 / self.ratio_high:.2f}–{1 / self.ratio_low:.2f}× slower)")
        return text + (f" {NOISY}" if self.noisy else "")


NOISY = "⚠ noisy: the spread exceeds the median, so this figure settles nothing (close other programs, run again)"


def cpu_contention() -> str | None:
    """A warning when other processes load the CPU cores torch uses (timings then slow down and spread); else None.

    Compares the 1-minute load average with the cores this process may use. Linux and macOS; None elsewhere.
    """
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if load <= cores - 0.5:
        return None
    threads = torch.get_num_threads()
    advice = ("close other programs, or run torch.set_num_threads(1) to stop torch's threads fighting them"
              if threads > 1 else "close other programs")
    return (f"⚠ the CPU is busy: load average {load:.1f} on {cores} cores, torch uses {threads} "
            f"thread{'s' if threads > 1 else ''}. Timings will be slower and noisier than this machine can do: "
            f"{advice}, and run the cell again.")


def fmt_ms(x: float) -> str:
    """Three significant digits without scientific notation: 0.182, 12.3, 1234, 0.00264."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    decimals = min(6, max(0, 2 - math.floor(math.log10(abs(x)))))
    return f"{x:.{decimals}f}"


# -----------------------------------------------------------------------------
# sampling


def infer_device(args: Iterable[Any], device: str | torch.device | None = None) -> torch.device:
    """The device given, else the first tensor argument's (looking into lists, tuples and dicts), else CPU."""
    if device is not None:
        return torch.device(device)
    stack = list(args)
    while stack:
        a = stack.pop(0)
        if isinstance(a, torch.Tensor):
            return a.device
        if isinstance(a, (list, tuple)):
            stack = list(a) + stack
        elif isinstance(a, dict):
            stack = list(a.values()) + stack
    return torch.device("cpu")


def _sync(device: torch.device) -> None:
    """Wait for queued GPU work, so a time covers the kernels and not just their launch."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _warmup(fn: Callable, args: tuple, device: torch.device, warmup: int) -> None:
    """Call fn a few times untimed: compilation, autotuning and caches happen here, not in the timing."""
    for _ in range(max(1, warmup)):
        fn(*args)
    _sync(device)


def _samples(fn: Callable, args: tuple, device: torch.device, min_run_time: float, min_samples: int) -> tuple[list[float], str]:
    """Per-call times (ms), each the mean of one block of calls, and the method's name."""
    from torch.utils.benchmark import Timer

    _sync(device)
    timer = Timer("fn(*args)", globals={"fn": fn, "args": args}, num_threads=torch.get_num_threads())
    m = timer.blocked_autorange(min_run_time=min_run_time)
    times = list(m.times)
    while len(times) < min_samples:  # slow functions: one block each, top up to a usable median
        times += timer.timeit(m.number_per_run).times
    return [t * 1e3 for t in times], "torch.utils.benchmark"


def _quantile(sorted_xs: list[float], q: float) -> float:
    """Linear-interpolated quantile of sorted data (numpy's default)."""
    pos = (len(sorted_xs) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def summarize(times_ms: list[float], label: str, device: torch.device | str, method: str) -> Timing:
    """A Timing from raw per-call times."""
    xs = sorted(times_ms)
    return Timing(label=label, device=str(device), method=method, median_ms=statistics.median(xs),
                  q25_ms=_quantile(xs, 0.25), q75_ms=_quantile(xs, 0.75), min_ms=xs[0], n=len(xs), times_ms=list(times_ms))


def _interleaved(fns: dict[str, Callable], args: tuple, device: torch.device, warmup: int,
                 rounds: int, min_run_time: float) -> dict[str, Timing]:
    """Time several functions in alternating rounds (order flipped each round), so drift hits all alike."""
    for fn in fns.values():
        _warmup(fn, args, device, warmup)
    times: dict[str, list[float]] = {k: [] for k in fns}
    methods: dict[str, str] = {}
    per_round = min_run_time / rounds
    per_round_samples = max(1, math.ceil(MIN_SAMPLES / rounds))
    for r in range(rounds):
        order = list(fns) if r % 2 == 0 else list(fns)[::-1]
        for k in order:
            ts, methods[k] = _samples(fns[k], args, device, per_round, per_round_samples)
            times[k] += ts
    return {k: summarize(times[k], k, device, methods[k]) for k in fns}


# -----------------------------------------------------------------------------
# the API


def measure(fn: Callable, *args: Any, label: str = "", device: str | torch.device | None = None,
            warmup: int = DEFAULT_WARMUP, repeat: int = MIN_SAMPLES, min_run_time: float = DEFAULT_MIN_RUN_TIME) -> Timing:
    """Time fn(*args): `warmup` untimed calls, then at least `repeat` samples over ~min_run_time seconds.

    The device comes from the tensor arguments; pass device= when fn is a closure over GPU tensors.
    """
    dev = infer_device(args, device)
    _warmup(fn, args, dev, warmup)
    ts, method = _samples(fn, args, dev, min_run_time, repeat)
    return summarize(ts, label or getattr(fn, "__name__", "fn"), dev, method)


def compare(a_fn: Callable, b_fn: Callable, *args: Any, labels: tuple[str, str] = ("eager", "compiled"),
            device: str | torch.device | None = None, warmup: int = DEFAULT_WARMUP, rounds: int = 4,
            min_run_time: float = 2 * DEFAULT_MIN_RUN_TIME) -> Comparison:
    """Time a and b on the same inputs in one interleaved run; Comparison.ratio > 1 means b is faster."""
    if labels[0] == labels[1]:
        raise ValueError(f"compare needs two different labels, got {labels!r}")
    dev = infer_device(args, device)
    t = _interleaved({labels[0]: a_fn, labels[1]: b_fn}, args, dev, warmup, rounds, min_run_time)
    return Comparison(t[labels[0]], t[labels[1]])


def sweep(fns: dict[str, Callable], make_args: Callable[[Any], Any], sizes: Iterable[Any],
          device: str | torch.device | None = None, warmup: int = DEFAULT_WARMUP, rounds: int = 2,
          min_run_time: float = DEFAULT_MIN_RUN_TIME) -> list[dict]:
    """Time every function at every size (interleaved per size); one row per (size, label)."""
    rows = []
    for size in sizes:
        args = make_args(size)
        args = args if isinstance(args, tuple) else (args,)
        dev = infer_device(args, device)
        for label, t in _interleaved(fns, args, dev, warmup, rounds, min_run_time).items():
            row = {"size": size, **asdict(t)}
            row.pop("times_ms")
            row["iqr_ms"] = t.iqr_ms
            row["noisy"] = t.noisy
            rows.append(row)
        del args
    return rows


def _as_rows(items: Timing | Comparison | Iterable[Timing | dict]) -> list[dict]:
    """Rows (dicts) from Timings, a Comparison or rows already."""
    if isinstance(items, Comparison):
        items = [items.a, items.b]
    elif isinstance(items, (Timing, dict)):
        items = [items]
    rows = []
    for it in items:
        if isinstance(it, Timing):
            row = {k: v for k, v in asdict(it).items() if k != "times_ms"}
            row["iqr_ms"] = it.iqr_ms
            row["noisy"] = it.noisy
        else:
            row = dict(it)
        rows.append(row)
    return rows


def table(items: Timing | Comparison | Iterable[Timing | dict],
          columns: tuple[str, ...] = ("size", "label", "median_ms", "q25_ms", "q75_ms", "n", "device", "method")) -> str:
    """A small aligned markdown table of timings or sweep rows (columns that no row has are left out)."""
    rows = _as_rows(items)
    cols = [c for c in columns if any(c in r for r in rows)]
    if not rows or not cols:
        return "(no timings)"
    cell = lambda v: fmt_ms(v) if isinstance(v, float) else str(v)
    body = [[cell(r.get(c, "")) + (" ⚠" if c == "median_ms" and r.get("noisy") else "") for c in cols] for r in rows]
    widths = [max(len(c), *(len(b[i]) for b in body)) for i, c in enumerate(cols)]
    numeric = [all(isinstance(r.get(c), (int, float)) for r in rows) for c in cols]
    fmt_row = lambda cells: "| " + " | ".join(
        x.rjust(w) if num else x.ljust(w) for x, w, num in zip(cells, widths, numeric)) + " |"
    rule = "|" + "|".join(("-" * (w + 1) + ":") if num else ("-" * (w + 2)) for w, num in zip(widths, numeric)) + "|"
    lines = [fmt_row(cols), rule, *(fmt_row(b) for b in body)]
    if "median_ms" in cols and any(r.get("noisy") for r in rows):
        lines.append("⚠ the spread (IQR) of these rows exceeds their median: too noisy to compare; run them again.")
    return "\n".join(lines)
