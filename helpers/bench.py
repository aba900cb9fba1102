"""Timing done right: warm-up, device sync, many samples; A against B as a verdict with its confidence.

measure(fn, *args)              one function: median and quartiles of per-call times, and the other programs' load
compare(a, b, *args)            A and B in paired rounds of random order: "compiled is 1.8× faster than eager (95 % CI
                                1.7–1.9×; …)", "… 1.3× slower …" or "no difference this machine can resolve right now"
compare_many({...}, *args)      several functions in the same rounds; any two of them compared from the same pairs
paired(a_ms, b_ms, labels)      the same verdict from pairs timed elsewhere (one generation's TTFT and its e2e ÷ tokens)
unpaired(a_ms, b_ms, labels)    two runs taken at different times (two JSON files): no pairs, so a rank method, and a
                                verdict that load drift between the runs can move (said so in its text)
sweep(fns, make_args, sizes)    compare_many at every size, as rows for tables and plots
thread_policy(device)           the course's one thread policy (torch on one CPU thread), printed with every verdict
cpu_contention()                a warning when other programs keep the cores busy (measured over a moment, not guessed)

The method, in one paragraph: every function is warmed up, then each **round** times one block of back-to-back calls
of every function, in a fresh random order (CUDA synchronised at each block's ends). On a CPU where torch runs on one
thread, a block is timed by this process's **CPU time**, which another program cannot stretch (a descheduled thread
spends none), wherever every function computes in the calling thread; otherwise (a GPU, several threads, or a call
that sleeps or waits) by the wall clock.
The ratio of A's and B's per-call times in one round is one **pair**. The verdict is the median of the pairs' ratios
with its 95 % confidence interval from **order statistics** (distribution-free: the ranks of the sorted ratios that
a Binomial(n, ½) puts 2.5 % beyond either end). A burst of load that hits one round moves one pair, not the median;
load that lasts slows both sides of every round alike. So load widens the interval and does not move it, and a
verdict is "faster" or "slower" only when the whole interval lies beyond RESOLUTION (3 %) either way. Two
measurements taken at different times are never compared: every Comparison comes from one set of rounds.
Introduced in Lab 01; every lab that claims a speedup measures it here.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import os
import random
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable

import torch

DEFAULT_WARMUP = 3  # enough calls for torch.compile to compile, autotune and (reduce-overhead) record graphs
DEFAULT_MIN_RUN_TIME = 0.2  # seconds of timed calls per measurement; QUICK notebooks pass ~0.05
MIN_SAMPLES = 5  # never report a median of fewer samples than this
CONFIDENCE = 0.95
RESOLUTION = 1.03  # a verdict needs its whole interval beyond 3 % either way: effects that small come and go with load
MIN_ROUNDS = 9  # the fewest pairs whose 95 % interval drops the extreme pair at either end (2nd to 8th of 9: 96.1 %)
TARGET_ROUNDS = 15  # the rounds compare aims for within min_run_time
MAX_ROUNDS = 400
MIN_BLOCK_S = 0.004  # a block shorter than a scheduler's time slice is all-or-nothing under load
LOAD_WARN = 0.5  # cores' worth of other programs' CPU time that makes a single timing untrustworthy
CPU_BOUND = (0.2, 1.3)  # a block's CPU time ÷ wall time, at its best, when one thread computes (a sleeper: near 0)
VERDICT_LOG_ENV = "WORKBOOK_VERDICT_LOG"  # benchmarks/verdicts.py sets it: every Comparison made is appended there
THREADS_ENV = "WORKBOOK_THREADS"  # the thread policy's one override

FASTER, SLOWER, SAME = "faster", "slower", "no difference"


# -----------------------------------------------------------------------------
# the machine: threads and other programs' load


def thread_policy(device: str | torch.device = "cpu") -> str:
    """Apply the course's one thread policy and say what it is: on a CPU, torch runs on one thread.

    With several threads every parallel region waits for its slowest thread, so one core taken by another program
    stalls them all, and a timing swings 10–30× with the load; one thread is slowed at most in proportion. Every lab's
    set-up cell calls this before anything is compiled (Inductor writes the thread count into its CPU kernels), and
    the grader's jobs run the same way. WORKBOOK_THREADS=N overrides it (your verdicts then follow the load). On a
    GPU the host's threads are left as torch set them.
    """
    device = torch.device(device)
    if device.type != "cpu":
        from helpers.env import apply_gpu_share

        share = apply_gpu_share(device)
        shared = f"; this job may fill {share:.0%} of the GPU's memory (the grader shares the GPU)" if share else ""
        return f"threads: torch's default ({torch.get_num_threads()}); the timings run on {device}{shared}"
    wanted = os.environ.get(THREADS_ENV, "").strip()
    try:
        n = max(1, int(wanted)) if wanted else 1
    except ValueError:
        raise ValueError(f"{THREADS_ENV}={wanted!r}: give a whole number of threads (1 is the course's policy)") from None
    torch.set_num_threads(n)
    why = ("one thread, so that other programs on the cores slow both sides of a comparison alike"
           if n == 1 else f"{THREADS_ENV}={n}: timings will follow the load of other programs")
    return f"threads: torch runs on {n} CPU thread{'s' if n > 1 else ''} ({why})"


def _affinity() -> list[int]:
    """The CPUs this process may run on."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return list(range(os.cpu_count() or 1))


def _busy_seconds(cpus: list[int]) -> float | None:
    """CPU-seconds spent busy (or stolen by the hypervisor) on these CPUs since boot, from /proc/stat; None elsewhere."""
    try:
        with open("/proc/stat") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    wanted = {f"cpu{c}" for c in cpus}
    ticks = 0
    for line in lines:
        parts = line.split()
        if parts and parts[0] in wanted:
            user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in parts[1:9])
            ticks += user + nice + system + irq + softirq + steal
    return ticks / os.sysconf("SC_CLK_TCK")


class LoadMeter:
    """Cores' worth of CPU time that *other* programs used on our CPUs between start() and stop() (None: unknown).

    /proc/stat's busy time on the CPUs this process may use, minus this process's own CPU time (all its threads):
    what is left is everyone else. Linux only; elsewhere it reports None.
    """

    def start(self) -> "LoadMeter":
        self.cpus = _affinity()
        self.t0, self.busy0, self.own0 = time.perf_counter(), _busy_seconds(self.cpus), time.process_time()
        return self

    def stop(self) -> float | None:
        busy1, own1, t1 = _busy_seconds(self.cpus), time.process_time(), time.perf_counter()
        if self.busy0 is None or busy1 is None or t1 - self.t0 < 0.05:
            return None
        other = (busy1 - self.busy0) - (own1 - self.own0)
        return max(0.0, min(float(len(self.cpus)), other / (t1 - self.t0)))


def other_load(seconds: float = 0.3) -> float | None:
    """Cores' worth of CPU that other programs use right now, measured over `seconds` (None where unknown)."""
    meter = LoadMeter().start()
    time.sleep(seconds)
    return meter.stop()


def cpu_contention(seconds: float = 0.3) -> str | None:
    """A warning when other programs keep this machine's cores busy (single timings then slow down); else None.

    Measured over `seconds` from /proc/stat, less this process's own CPU time, so the notebook's own earlier cells do
    not count (the load average would). Falls back to the load average where /proc/stat is missing (macOS).
    """
    cores = len(_affinity())
    load = other_load(seconds)
    how = f"over the last {seconds:g} s"
    if load is None:
        try:
            load, how = os.getloadavg()[0], "by the 1-minute load average, this notebook included"
        except (AttributeError, OSError):
            return None
    if load < LOAD_WARN:
        return None
    return (f"⚠ the CPU is busy: other programs used {load:.1f} of this machine's {cores} cores {how}. Single timings "
            f"will be slower than this machine can do; comparisons (bench.compare) time both sides in the same rounds, "
            f"so their verdicts hold and their intervals widen. Close other programs for tighter figures.")


def _where(device: str, threads: int | None, clock: str = "wall") -> str:
    """'cpu, 1 thread, CPU time' or 'cuda:0'."""
    if device.startswith("cpu") and threads:
        return f"{device}, {threads} thread{'s' if threads > 1 else ''}" + (", CPU time" if clock == "cpu" else "")
    return device


def _load_note(load: float | None, clock: str = "wall") -> str:
    """'; other programs used 1.8 cores meanwhile' when they did (and, timed in CPU time, that it did not count)."""
    if load is None or load < LOAD_WARN:
        return ""
    return f"; other programs used {load:.1f} cores meanwhile" + (" (CPU time does not count it)" if clock == "cpu" else "")


# -----------------------------------------------------------------------------
# results


@dataclass
class Timing:
    """Per-call times of one function: median and quartiles in milliseconds, how and where measured."""

    label: str
    device: str
    method: str  # "torch.utils.benchmark" or "paired rounds"
    median_ms: float
    q25_ms: float
    q75_ms: float
    min_ms: float
    n: int
    times_ms: list[float] = field(default_factory=list, repr=False)
    threads: int | None = None  # torch's CPU threads while timed
    other_load: float | None = None  # cores' worth of other programs' CPU time meanwhile (None: unknown)
    clock: str = "wall"  # "cpu": this process's CPU time, which other programs cannot stretch; "wall": the wall clock

    @property
    def iqr_ms(self) -> float:
        """Interquartile range: the spread of the middle half of the samples."""
        return self.q75_ms - self.q25_ms

    @property
    def loaded(self) -> bool:
        """True when other programs were busy while a wall clock timed it (CPU time does not stretch with them)."""
        return self.clock == "wall" and self.other_load is not None and self.other_load >= LOAD_WARN

    @property
    def noisy(self) -> bool:
        """True when this time alone settles nothing: the spread exceeds the median, or load stretched a wall time."""
        return self.iqr_ms > self.median_ms or self.loaded

    def __str__(self) -> str:
        text = f"{self.label}: {fmt_ms(self.median_ms)} ms (IQR {fmt_ms(self.iqr_ms)}, n={self.n}, " \
               f"{_where(self.device, self.threads, self.clock)})"
        return text + (f" {noisy_note(self.other_load if self.loaded else None)}" if self.noisy else "")


def noisy_note(load: float | None) -> str:
    """The ⚠ printed beside a single timing that settles nothing."""
    if load is not None and load >= LOAD_WARN:
        return (f"⚠ other programs used {load:.1f} cores meanwhile: this time is slower than the machine can do; "
                "compare two things with bench.compare, whose verdict holds under load")
    return "⚠ noisy: the spread exceeds the median, so this time alone settles nothing (close other programs, run again)"


NOISY = noisy_note(None)


def order_statistic_ci(values: Iterable[float], confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """(low, high, coverage): a distribution-free interval for the median of `values` from their order statistics.

    The k-th smallest and k-th largest value, for the largest k with P(Binomial(n, ½) < k) ≤ (1 − confidence) / 2;
    coverage is the interval's exact confidence (at least `confidence` from 6 values on; below that, the min–max).
    """
    xs = sorted(values)
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, 0.0
    below = lambda j: sum(math.comb(n, i) for i in range(j + 1)) / 2**n  # P(Binomial(n, ½) ≤ j)
    k = 1  # the interval is [k-th smallest, k-th largest]
    while k < (n + 1) // 2 and below(k) <= (1 - confidence) / 2:
        k += 1
    return xs[k - 1], xs[n - k], 1 - 2 * below(k - 1)


def no_difference_words(low: float, high: float, band: tuple[float, float] = (1 / RESOLUTION, RESOLUTION)) -> str:
    """How a 'no difference' verdict reads: unresolved when the interval holds 1, else a gap inside the noise band."""
    if low <= 1 <= high:
        return "no difference this machine can resolve right now"
    width = max(band[1] - 1, 1 - band[0]) * 100
    return f"no difference larger than the ±{width:.0f} % that load moves from run to run"


def fmt_x(r: float) -> str:
    """A ratio: 1.03, 12.4, 153."""
    if not math.isfinite(r):
        return f"{r:g}"
    return f"{r:.2f}" if r < 10 else f"{r:.3g}" if r < 1000 else f"{r:,.0f}"


@dataclass
class Comparison:
    """A against B from the same paired rounds: `ratio` = median of the pairs' a ÷ b, so > 1 means B is faster."""

    a: Timing
    b: Timing
    ratios: list[float] = field(default_factory=list, repr=False)
    null: "Comparison | None" = None  # A against itself in the same rounds, when asked for: the noise floor
    confidence: float = CONFIDENCE
    resolution: float = RESOLUTION

    def __post_init__(self):
        if not self.ratios:
            raise ValueError("a Comparison needs the ratios of paired rounds; time both sides with bench.compare "
                             "(two timings taken at different times are not a comparison)")

    @property
    def ratio(self) -> float:
        """Median of the paired ratios a ÷ b: B's speedup over A."""
        return statistics.median(self.ratios)

    @property
    def ci(self) -> tuple[float, float]:
        """The ratio's confidence interval (order statistics of the pairs)."""
        low, high, _ = order_statistic_ci(self.ratios, self.confidence)
        return low, high

    @property
    def ci_low(self) -> float:
        return self.ci[0]

    @property
    def ci_high(self) -> float:
        return self.ci[1]

    @property
    def band(self) -> tuple[float, float]:
        """Ratios counted as 'no difference': RESOLUTION either way, widened to the null comparison's interval."""
        low, high = 1 / self.resolution, self.resolution
        if self.null is not None:
            n_low, n_high = self.null.ci
            low, high = min(low, n_low), max(high, n_high)
        return low, high

    @property
    def coverage(self) -> float:
        """The interval's exact confidence: below `confidence` when there are too few rounds for it."""
        return order_statistic_ci(self.ratios, self.confidence)[2]

    @property
    def too_few(self) -> bool:
        """True when the rounds are too few for an interval of the confidence asked: then there is no verdict."""
        return self.coverage < self.confidence

    @property
    def verdict(self) -> str:
        """'faster' (B is), 'slower' (B is) or 'no difference': from the whole interval, never the median alone (and
        'no difference' when the rounds are too few for the interval's confidence)."""
        if self.too_few:
            return SAME
        low, high = self.ci
        band_low, band_high = self.band
        if low > band_high:
            return FASTER
        if high < band_low:
            return SLOWER
        return SAME

    @property
    def n(self) -> int:
        return len(self.ratios)

    @property
    def threads(self) -> int | None:
        return self.a.threads

    @property
    def other_load(self) -> float | None:
        return self.a.other_load

    def sentence(self) -> str:
        """The verdict in words, with its interval."""
        a, b = self.a.label, self.b.label
        low, high = self.ci
        pct = f"{self.confidence:.0%}".replace("%", " %")
        if self.too_few:
            unit = "run" if isinstance(self, UnpairedComparison) else "round"
            return (f"{a} vs {b}: too few {unit}s for a verdict ({self.n} {unit}{'s' if self.n != 1 else ''}: the ratio's "
                    f"interval {fmt_x(low)}–{fmt_x(high)}× covers only {self.coverage:.0%}; {pct} needs "
                    f"{self.rounds_needed()} or more)")
        if self.verdict == FASTER:
            return f"{b} is {fmt_x(self.ratio)}× faster than {a} ({pct} CI {fmt_x(low)}–{fmt_x(high)}×)"
        if self.verdict == SLOWER:
            return f"{b} is {fmt_x(1 / self.ratio)}× slower than {a} ({pct} CI {fmt_x(1 / high)}–{fmt_x(1 / low)}×)"
        return f"{a} vs {b}: {no_difference_words(low, high, self.band)} ({b} runs at {fmt_x(low)}–" \
               f"{fmt_x(high)}× {a}'s speed, {pct} CI)"

    def rounds_needed(self) -> int:
        """The fewest rounds whose interval reaches the confidence asked."""
        return next(n for n in range(1, MAX_ROUNDS) if order_statistic_ci(range(n), self.confidence)[2] >= self.confidence)

    def __str__(self) -> str:
        text = f"{self.sentence()}; {self.n} paired rounds, {_where(self.a.device, self.threads, self.a.clock)}"
        text += _load_note(self.other_load, self.a.clock)
        if self.null is not None:
            low, high = self.null.ci
            text += f"; noise floor: {self.a.label} against itself {fmt_x(low)}–{fmt_x(high)}×"
        return text

    def to_dict(self) -> dict:
        """Plain data: labels, medians, ratio, interval, verdict, rounds, device, threads, load."""
        low, high = self.ci
        return {"a": self.a.label, "b": self.b.label, "a_ms": self.a.median_ms, "b_ms": self.b.median_ms,
                "a_q": [self.a.q25_ms, self.a.q75_ms], "b_q": [self.b.q25_ms, self.b.q75_ms],
                "ratio": self.ratio, "ci": [low, high], "verdict": self.verdict, "rounds": self.n,
                "device": self.a.device, "threads": self.threads, "other_load": self.other_load, "clock": self.a.clock,
                "null_ci": list(self.null.ci) if self.null is not None else None}


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


def _block(fn: Callable, args: tuple, number: int, device: torch.device) -> tuple[float, float]:
    """Seconds that `number` back-to-back calls took: (wall clock, the calling thread's CPU time), garbage collection
    off. The calling thread's, not the process's: Inductor's compile workers and other background threads of the
    process would count too (with torch on one thread, the calls' work runs in the calling thread).

    Our own loop rather than torch.utils.benchmark's Timer: the clock is chosen from both readings of the same block
    (Timer reads one)."""
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        _sync(device)
        wall, cpu = time.perf_counter(), time.thread_time()
        for _ in range(number):
            fn(*args)
        _sync(device)
        return time.perf_counter() - wall, time.thread_time() - cpu
    finally:
        if gc_was_on:
            gc.enable()


def _block_size(fn: Callable, args: tuple, device: torch.device, target_s: float) -> tuple[int, float]:
    """Calls per block so that one block takes about target_s, and the seconds one block took at that size.

    A block about to settle the size while its thread was off the CPU for part of it (CPU time under 80 % of the
    wall clock: another program had the core, or the call waited) is timed again, twice at most, and the fastest
    counts. Else one preempted call on a busy machine could fix the size at 1, and single calls, each paying its
    cold caches, time several times slower than the same calls back to back (Lab 01's chain: 40-250 µs a call
    against 9)."""
    number, (block_s, cpu_s) = 1, _block(fn, args, 1, device)
    while number < 10**7:
        for _ in range(2):
            if block_s < target_s / 2 or cpu_s >= 0.8 * block_s:
                break
            again, again_cpu = _block(fn, args, number, device)
            if again < block_s:
                block_s, cpu_s = again, again_cpu
        if block_s >= target_s / 2:
            break
        number = min(number * 10, max(number + 1, math.ceil(number * target_s / max(block_s, 1e-9))))
        block_s, cpu_s = _block(fn, args, number, device)
    return number, block_s


_WALL_ONLY = [0]   # > 0 inside wall_clock_only()
_SHORTEST = [0]   # > 0 inside shortest_timings()


@contextlib.contextmanager
def wall_clock_only():
    """Within it every timing uses the wall clock. For a check whose stand-in op sleeps a known time: a call that
    also computes for a fifth of its time or more would otherwise be timed in CPU time, which misses the sleep."""
    _WALL_ONLY[0] += 1
    try:
        yield
    finally:
        _WALL_ONLY[0] -= 1


@contextlib.contextmanager
def shortest_timings():
    """Within it every measurement takes the fewest samples it may (MIN_SAMPLES blocks, MIN_ROUNDS rounds, the
    warm-up), whatever min_run_time it was given. For a check that runs a learner's timing function only to see
    what it does (which devices its tensors are made on), not what it measures: Lab 01's sweep re-run on another
    device spent a fifth of that lab's checking time in timing loops whose figures nobody read."""
    _SHORTEST[0] += 1
    try:
        yield
    finally:
        _SHORTEST[0] -= 1


def _run_time(min_run_time: float) -> float:
    """min_run_time, or 0 inside shortest_timings()."""
    return 0.0 if _SHORTEST[0] else min_run_time


def _clock(device: torch.device, walls: dict[str, list[float]], cpus: dict[str, list[float]]) -> str:
    """"cpu" where CPU time measures the work: a CPU, torch on one thread, and every function's best block spent
    0.2–1.3 CPU-seconds per second (it computed, in one thread, whatever share of a core other programs left it: a
    third of one with two spinning on each core); else "wall" (a GPU, several threads, or a call that sleeps or waits,
    whose CPU time would miss its time: a sleeper's is near 0; and inside wall_clock_only())."""
    if _WALL_ONLY[0] or device.type != "cpu" or torch.get_num_threads() != 1:
        return "wall"
    for label in walls:
        best = max((c / w for c, w in zip(cpus[label], walls[label]) if w > 0), default=0.0)
        if not CPU_BOUND[0] <= best <= CPU_BOUND[1]:
            return "wall"
    return "cpu"


def _rounds(fns: dict[str, Callable], args: tuple, device: torch.device, numbers: dict[str, int], rounds: int,
            seed: int) -> tuple[dict[str, list[float]], str, float | None]:
    """Per-call ms of every function, one block each per round in a fresh random order; the clock; others' load."""
    rng = random.Random(seed)
    walls: dict[str, list[float]] = {k: [] for k in fns}
    cpus: dict[str, list[float]] = {k: [] for k in fns}
    meter = LoadMeter().start()
    for _ in range(rounds):
        for label in rng.sample(list(fns), len(fns)):
            wall, cpu = _block(fns[label], args, numbers[label], device)
            walls[label].append(wall / numbers[label] * 1e3)
            cpus[label].append(cpu / numbers[label] * 1e3)
    load = meter.stop()
    clock = _clock(device, walls, cpus)
    return (cpus if clock == "cpu" else walls), clock, load


def load_line(rounds: "Rounds") -> str:
    """'' when other programs left these rounds alone; else what their load did to them, in words."""
    if rounds.other_load is None or rounds.other_load < LOAD_WARN:
        return ""
    if rounds.clock == "cpu":
        return (f"other programs used {rounds.other_load:.1f} cores meanwhile; timed in CPU time, which their load "
                "does not stretch")
    return f"other programs used {rounds.other_load:.1f} cores meanwhile: the intervals are wider for it"


def _method(clock: str) -> str:
    return f"blocks of back-to-back calls, {'CPU time' if clock == 'cpu' else 'wall clock'}"


def _quantile(sorted_xs: list[float], q: float) -> float:
    """Linear-interpolated quantile of sorted data (numpy's default)."""
    pos = (len(sorted_xs) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def summarize(times_ms: list[float], label: str, device: torch.device | str, method: str,
              threads: int | None = None, other_load: float | None = None, clock: str = "wall") -> Timing:
    """A Timing from raw per-call times."""
    xs = sorted(times_ms)
    return Timing(label=label, device=str(device), method=method, median_ms=statistics.median(xs),
                  q25_ms=_quantile(xs, 0.25), q75_ms=_quantile(xs, 0.75), min_ms=xs[0], n=len(xs),
                  times_ms=list(times_ms), threads=threads, other_load=other_load, clock=clock)


def _log(comparison: Comparison) -> None:
    """Append the verdict to $WORKBOOK_VERDICT_LOG (benchmarks/verdicts.py reads it); nothing when it is unset."""
    path = os.environ.get(VERDICT_LOG_ENV)
    if not path:
        return
    try:
        with open(path, "a") as f:
            f.write(json.dumps(comparison.to_dict()) + "\n")
    except OSError:
        pass  # a log that cannot be written must not break the measurement


@dataclass
class Rounds:
    """Per-call times of several functions from the same rounds: samples[label][i] is round i's time of label."""

    samples: dict[str, list[float]]
    device: str
    threads: int | None
    other_load: float | None
    clock: str = "wall"

    @property
    def method(self) -> str:
        return f"paired rounds of random order, {_method(self.clock)}"

    def timing(self, label: str) -> Timing:
        """One function's Timing from its blocks."""
        return summarize(self.samples[label], label, self.device, self.method, self.threads, self.other_load,
                         self.clock)

    def compare(self, a: str, b: str, null: str | None = None) -> Comparison:
        """B against A from the same rounds (and A against `null`, a second copy of A, as the noise floor)."""
        for k in (a, b, null):
            if k is not None and k not in self.samples:
                raise KeyError(f"no function labelled {k!r} in these rounds; labels: {list(self.samples)}")
        ratios = [x / y for x, y in zip(self.samples[a], self.samples[b])]
        floor = None
        if null is not None:
            floor = Comparison(self.timing(a), self.timing(null), [x / y for x, y in zip(self.samples[a], self.samples[null])])
        c = Comparison(self.timing(a), self.timing(b), ratios, null=floor)
        _log(c)
        return c


# -----------------------------------------------------------------------------
# the API


def measure(fn: Callable, *args: Any, label: str = "", device: str | torch.device | None = None,
            warmup: int = DEFAULT_WARMUP, repeat: int = MIN_SAMPLES, min_run_time: float = DEFAULT_MIN_RUN_TIME) -> Timing:
    """Time fn(*args): `warmup` untimed calls, then at least `repeat` samples over ~min_run_time seconds.

    The device comes from the tensor arguments; pass device= when fn is a closure over GPU tensors. A single
    Timing says what one function costs here and now; to say which of two is faster, use compare.
    """
    dev = infer_device(args, device)
    min_run_time = _run_time(min_run_time)
    _warmup(fn, args, dev, warmup)
    number, block_s = _block_size(fn, args, dev, max(MIN_BLOCK_S, min_run_time / TARGET_ROUNDS))
    blocks = min(MAX_ROUNDS, max(repeat, round(min_run_time / max(block_s, 1e-9))))
    samples, clock, load = _rounds({"fn": fn}, args, dev, {"fn": number}, blocks, seed=0)
    return summarize(samples["fn"], label or getattr(fn, "__name__", "fn"), dev, _method(clock),
                     torch.get_num_threads(), load, clock)


def compare_many(fns: dict[str, Callable], *args: Any, device: str | torch.device | None = None,
                 warmup: int = DEFAULT_WARMUP, min_run_time: float = 2 * DEFAULT_MIN_RUN_TIME,
                 rounds: int | None = None, seed: int = 0) -> Rounds:
    """Time every function in the same rounds, each round in a fresh random order; any two compare from the pairs.

    Each function is warmed up, then sized to blocks of about min_run_time / (functions × TARGET_ROUNDS) seconds
    (at least MIN_BLOCK_S, one call at least); `rounds` defaults to as many as fit in min_run_time, MIN_ROUNDS at
    least.
    """
    if len(fns) < 2:
        raise ValueError(f"compare_many needs two or more functions, got {list(fns)}")
    dev = infer_device(args, device)
    min_run_time = _run_time(min_run_time)
    for fn in fns.values():
        _warmup(fn, args, dev, warmup)
    target = max(MIN_BLOCK_S, min_run_time / (len(fns) * TARGET_ROUNDS))
    numbers, per_round = {}, 0.0
    for label, fn in fns.items():
        numbers[label], block_s = _block_size(fn, args, dev, target)
        per_round += block_s
    if rounds is None:
        rounds = min(MAX_ROUNDS, max(MIN_ROUNDS, round(min_run_time / max(per_round, 1e-9))))
    samples, clock, load = _rounds(fns, args, dev, numbers, max(MIN_ROUNDS, rounds), seed)
    return Rounds(samples, str(dev), torch.get_num_threads(), load, clock)


def compare(a_fn: Callable, b_fn: Callable, *args: Any, labels: tuple[str, str] = ("eager", "compiled"),
            device: str | torch.device | None = None, warmup: int = DEFAULT_WARMUP, rounds: int | None = None,
            min_run_time: float = 2 * DEFAULT_MIN_RUN_TIME, null: bool = False) -> Comparison:
    """B against A on the same inputs, in paired rounds of random order; print it for the verdict in words.

    null=True times A a second time in the same rounds: its interval against itself is the noise floor, and a
    verdict must clear it.
    """
    if labels[0] == labels[1]:
        raise ValueError(f"compare needs two different labels, got {labels!r}")
    fns = {labels[0]: a_fn, labels[1]: b_fn}
    again = f"{labels[0]} (again)"
    if null:
        fns[again] = a_fn
    r = compare_many(fns, *args, device=device, warmup=warmup, min_run_time=min_run_time, rounds=rounds)
    return r.compare(labels[0], labels[1], null=again if null else None)


def copy_bandwidth(device: str | torch.device, dtype: torch.dtype = torch.float16, numel: int | None = None,
                   min_run_time: float = 1.0) -> float:
    """Bytes per second of a large device-to-device copy (its read and its write), from the fastest block: the
    bandwidth roof a streaming kernel is held to. numel defaults to 2**28 elements on a GPU (past any cache),
    2**24 on a CPU."""
    device = torch.device(device)
    n = numel or (1 << 28 if device.type == "cuda" else 1 << 24)
    src = torch.empty(n, device=device, dtype=dtype)
    dst = torch.empty_like(src)
    t = measure(lambda: dst.copy_(src), label="copy", device=device, min_run_time=min_run_time)
    return 2 * src.numel() * src.element_size() / (t.min_ms * 1e-3)


def cuda_graphed(fn: Callable, *args: Any, device: str | torch.device | None = None,
                 warmup: int = DEFAULT_WARMUP) -> Callable:
    """fn(*args) recorded once into a CUDA graph; the result replays it, whatever arguments it is given.

    Timing the replay measures the kernels alone: one graph launch replaces every Python call, framework dispatch
    and kernel launch of fn, so a host-bound fn (a small kernel behind a costly launcher) times as its GPU work.
    Time both: fn as a caller makes it, and its graph. fn must be capturable (no host sync, the same addresses on
    every call); the warm-up runs first so compilation and autotuning happen outside the capture. Pass device=
    when fn is a closure over GPU tensors."""
    dev = infer_device(args, device)
    if dev.type != "cuda":
        raise ValueError(f"cuda_graphed needs CUDA tensors; got {dev}")
    stream = torch.cuda.Stream(dev)
    stream.wait_stream(torch.cuda.current_stream(dev))
    with torch.cuda.stream(stream):
        for _ in range(max(1, warmup)):
            fn(*args)
    torch.cuda.current_stream(dev).wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn(*args)
    _sync(dev)

    def replay(*_: Any) -> None:
        graph.replay()

    replay.graph = graph      # keeps the graph (and its memory pool) alive as long as the replayer
    return replay


def paired(a_ms: Iterable[float], b_ms: Iterable[float], labels: tuple[str, str], device: str = "cpu",
           method: str = "paired runs", threads: int | None = None, other_load: float | None = None,
           clock: str = "wall") -> Comparison:
    """The verdict for pairs measured elsewhere: a_ms[i] and b_ms[i] must come from the same run (the same moment).

    clock says how they were timed ("wall", or "cpu" for samples of a Rounds whose clock was CPU time)."""
    a_ms, b_ms = [float(x) for x in a_ms], [float(x) for x in b_ms]
    if len(a_ms) != len(b_ms) or not a_ms:
        raise ValueError(f"paired needs as many A times as B times, one pair per run; got {len(a_ms)} and {len(b_ms)}")
    ta = summarize(a_ms, labels[0], device, method, threads, other_load, clock)
    tb = summarize(b_ms, labels[1], device, method, threads, other_load, clock)
    c = Comparison(ta, tb, [x / y for x, y in zip(a_ms, b_ms)])
    _log(c)
    return c


def moses_rank(n: int, m: int, confidence: float = CONFIDENCE) -> tuple[int, float]:
    """(k, coverage): the k-th smallest and k-th largest of the n·m differences bound the Hodges–Lehmann shift.

    k is the largest with P(U < k) ≤ (1 − confidence) / 2 for the Mann–Whitney U of n and m samples (exact counts,
    the Gaussian binomial's coefficients, up to n·m = 2500; a normal approximation beyond); coverage is exact.
    """
    alpha = (1 - confidence) / 2
    if n * m > 2500:
        z = statistics.NormalDist().inv_cdf(1 - alpha)
        k = max(1, math.floor(n * m / 2 - z * math.sqrt(n * m * (n + m + 1) / 12)))
        return k, confidence
    counts = [1] + [0] * (n * m + n)   # arrangements with U = u: [n+m choose n]_q = Π (1 − q^(m+i)) / (1 − q^i)
    for i in range(1, n + 1):
        for u in range(len(counts) - 1, m + i - 1, -1):
            counts[u] -= counts[u - m - i]
        for u in range(i, len(counts)):
            counts[u] += counts[u - i]
    total, k = math.comb(n + m, n), 0
    while k < n * m // 2 and sum(counts[:k + 1]) / total <= alpha:
        k += 1
    k = max(k, 1)   # too few samples for the confidence asked: the extremes, with the coverage they have
    return k, 1 - 2 * sum(counts[:k]) / total


@dataclass
class UnpairedComparison(Comparison):
    """A against B from two separate sets of runs: ratios are every a_i ÷ b_j, `ratio` their median (Hodges–Lehmann
    on log-times), the interval Moses' from the Mann–Whitney distribution. Distribution-free, but the two sets were
    not timed in the same rounds: load that differed between them moves the verdict, not only its width."""

    sizes: tuple[int, int] = (0, 0)

    @property
    def ci(self) -> tuple[float, float]:
        k, _ = moses_rank(*self.sizes, self.confidence)
        xs = sorted(self.ratios)
        return xs[k - 1], xs[len(xs) - k]

    @property
    def coverage(self) -> float:
        return moses_rank(*self.sizes, self.confidence)[1]

    def rounds_needed(self) -> int:
        """The fewest runs on each side whose interval reaches the confidence asked."""
        return next(n for n in range(1, MAX_ROUNDS) if moses_rank(n, n, self.confidence)[1] >= self.confidence)

    @property
    def n(self) -> int:
        return min(self.sizes)

    def __str__(self) -> str:
        n, m = self.sizes
        return (f"{self.sentence()}; unpaired: {n} runs of {self.a.label} against {m} of {self.b.label}, "
                f"Hodges–Lehmann ratio with its Mann–Whitney interval")


def unpaired(a_ms: Iterable[float], b_ms: Iterable[float], labels: tuple[str, str], device: str = "cpu",
             method: str = "unpaired runs") -> UnpairedComparison:
    """B against A from samples taken at different times (two result files): UnpairedComparison."""
    a_ms, b_ms = [float(x) for x in a_ms], [float(x) for x in b_ms]
    if not a_ms or not b_ms:
        raise ValueError(f"unpaired needs samples on both sides; got {len(a_ms)} and {len(b_ms)}")
    ta, tb = summarize(a_ms, labels[0], device, method), summarize(b_ms, labels[1], device, method)
    return UnpairedComparison(ta, tb, [x / y for x in a_ms for y in b_ms], sizes=(len(a_ms), len(b_ms)))


def sweep(fns: dict[str, Callable], make_args: Callable[[Any], Any], sizes: Iterable[Any],
          device: str | torch.device | None = None, warmup: int = DEFAULT_WARMUP, rounds: int | None = None,
          min_run_time: float = DEFAULT_MIN_RUN_TIME, baseline: str | None = None) -> list[dict]:
    """compare_many at every size; one row per (size, label), with the verdict against `baseline` (the first label).

    Each row: size, label, median_ms, q25_ms, q75_ms, min_ms, n, device, method, threads, other_load, iqr_ms,
    noisy; rows other than the baseline's add speedup (baseline ÷ label, the median of the pairs), speedup_low and
    speedup_high (its 95 % interval) and verdict.
    """
    baseline = baseline or next(iter(fns))
    rows = []
    for size in sizes:
        args = make_args(size)
        args = args if isinstance(args, tuple) else (args,)
        r = compare_many(fns, *args, device=device, warmup=warmup, min_run_time=min_run_time, rounds=rounds)
        for label in fns:
            t = r.timing(label)
            row = {"size": size, **{k: v for k, v in asdict(t).items() if k != "times_ms"},
                   "iqr_ms": t.iqr_ms, "noisy": t.noisy}
            if label != baseline:
                c = r.compare(baseline, label)
                row.update(speedup=c.ratio, speedup_low=c.ci_low, speedup_high=c.ci_high, verdict=c.verdict)
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
    """A small aligned markdown table of timings or sweep rows (columns that no row has are left out).

    A Timing in a cell shows its median in ms, with ⚠ when it is noisy; so does median_ms in a row marked noisy."""
    rows = _as_rows(items)
    cols = [c for c in columns if any(c in r for r in rows)]
    if not rows or not cols:
        return "(no timings)"

    def cell(v) -> str:
        if isinstance(v, Timing):
            return fmt_ms(v.median_ms) + (" ⚠" if v.noisy else "")
        return fmt_ms(v) if isinstance(v, float) else str(v)

    body = [[cell(r.get(c, "")) + (" ⚠" if c == "median_ms" and r.get("noisy") else "") for c in cols] for r in rows]
    widths = [max(len(c), *(len(b[i]) for b in body)) for i, c in enumerate(cols)]
    numeric = [all(isinstance(r.get(c), (int, float, Timing)) for r in rows) for c in cols]
    fmt_row = lambda cells: "| " + " | ".join(
        x.rjust(w) if num else x.ljust(w) for x, w, num in zip(cells, widths, numeric)) + " |"
    rule = "|" + "|".join(("-" * (w + 1) + ":") if num else ("-" * (w + 2)) for w, num in zip(widths, numeric)) + "|"
    lines = [fmt_row(cols), rule, *(fmt_row(b) for b in body)]
    if any(cell(r.get(c, "")).endswith(" ⚠") or (c == "median_ms" and r.get("noisy")) for r in rows for c in cols):
        lines.append("⚠ these rows settle nothing alone (other programs were busy, or the spread exceeds the median); "
                     "a comparison's verdict (bench.compare) still holds.")
    return "\n".join(lines)
