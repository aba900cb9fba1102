"""Lab 01 — Eager vs graph: the acceptance checks.

Each check is a probe (`probe_*`: runs the learner's code through the door, returns plain data) and a judge
(`*_problems`), run on cases: the public ones below in the notebook, the grader's hidden ones (other rows, other
functions, other call sequences, another model) in the submission's kernel. Timings are judged by what the code
did (one row per size asked for, in that order, the op really run on tensors of those sizes with autograd off, of the
default dtype, made once per size (not inside the timed call) on `device` (a second, short sweep with `device` set to
the meta device tells a sweep written for the CPU alone), each row the median and quartiles of bench.measure's own
Timing of its size, watched as it ran, for one call of the op: ÷ k where the timed function ran it k times), never against
thresholds that a busy machine could break: the unit is judged with an op of the grader's that sleeps a known time,
which load can lengthen but never shorten, against bounds a wrong unit crosses by 1000× (see SLEEP_MS).
"""

from __future__ import annotations

import contextlib
import difflib
import io
import math
import random
import statistics
import tempfile
import time
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import torch
import torch.nn as nn

from helpers.checks import CheckFailed, Context, Learner, LearnerError, fail_if, register

LAB = "01"
METHODS = ("torch.jit.trace", "torch.jit.script", "torch.fx.symbolic_trace", "torch.compile", "torch.export")
COLUMNS = {
    "control_flow": ("baked", "kept", "error", "graph break", "torch.cond"),
    "dynamic_shapes": ("baked", "dynamic", "error", "specialized"),
    "python_coverage": ("tensor ops only", "typed subset", "no data-dependent control flow",
                        "any (falls back to Python)", "one graph only"),
    "serialisable": (True, False),
}
# The python_coverage column is a reading of the notebook's WithPython and Branchy cells (what each method accepts,
# refuses or drops): only the grader judges it (solutions/hidden/lab01.py); a check that shipped the five words, even
# as digests, would give them away. The other columns are judged, in the notebook, against what the learner's own
# part-2 cells recorded in `capture_seen`, and by the grader against its own run of the same experiments.


@contextlib.contextmanager
def calling(label: str, hint: str = "", explain: Callable[[Exception], str | None] | None = None):
    """Code under this block runs the learner's `label`: an exception it raises fails the check in words that name
    the function and, with `hint`, the likely cause (not as a bare traceback). `explain(err)`, when it gives a
    message, says it instead (and the exception's own text, which may show the grader's sizes, is left out)."""
    try:
        yield
    except (CheckFailed, NotImplementedError):
        raise
    except Exception as err:
        said = explain(err) if explain is not None else None
        if said:
            raise LearnerError(said) from None
        text = str(err).strip().splitlines()[0][:160].rstrip(". ") if str(err).strip() else ""
        raise LearnerError(f"`{label}` raised {type(err).__name__}{': ' + text if text else ''}.{hint}") from None


def call(learner: Learner, name: str, *args, hint: str = "", explain: Callable[[Exception], str | None] | None = None,
         **kwargs):
    """learner.call, with an exception the learner's function raises said in words (see `calling`)."""
    with calling(name, hint, explain):
        return learner.call(name, *args, **kwargs)


def named(learner: Learner, name: str, positional: tuple, keywords: dict) -> tuple[tuple, dict]:
    """The arguments for the learner's `name`: `keywords` by name where its signature takes them so (a parameter made
    keyword-only, as `fused=` or `max_batch=` are passed in the notebook, is as right as a positional one), else
    positionally, in order, as the exercise's signature lists them (a parameter renamed still gets its value)."""
    import inspect

    fn = getattr(learner, "ns", {}).get(name)
    try:
        signature = inspect.signature(fn)
        signature.bind(*positional, **keywords)
        return positional, dict(keywords)
    except (TypeError, ValueError):
        return (*positional, *keywords.values()), {}


@contextlib.contextmanager
def own_work(check: str, *refused: Callable):
    """While the block runs the learner's code, the checker's own reference functions (`refused`, functions of this
    module, which ships with the lab) raise instead of answering: the check grades the learner's work, not a call
    of the reference it is compared with."""
    from helpers.checks.own_work import OwnWorkNeeded, refusing

    try:
        with refusing(check, {f"helpers.checks.lab01.{f.__name__}": f for f in refused}):
            yield
    except OwnWorkNeeded as err:        # own_work's sentence speaks of Lab 07's runner: say it for this lab
        raise OwnWorkNeeded(str(err).replace(
            "the package's version (the runner uses it later)",
            "the checker's own version (the check computes its reference answers with it)")) from None


# ---------------------------------------------------------------- 1: dispatch overhead
def synthetic_op_rows(floor_us: float, per_element_ns: float, sizes) -> list[dict]:
    """Rows as time_op_sweep returns them, from a fixed cost plus a cost per element."""
    rows = []
    for n in sizes:
        t = floor_us + per_element_ns * n / 1e3
        rows.append({"numel": n, "median_us": t, "q25_us": 0.95 * t, "q75_us": 1.05 * t})
    return rows


@dataclass(frozen=True)
class KneeCase:
    rows: tuple
    floor: float
    knee: int | None
    about: str
    factor: float | None = None   # first_size_beyond_overhead is asked with this factor; None: without one (its default)

    def asked(self) -> str:
        return "without a factor" if self.factor is None else f"with factor={self.factor:g}"


SLEEP_MS = 1.0    # the grader's op sleeps at least this long per call: a time in µs is at least 1000 × this
UNIT_STEP = 1000  # a wrong unit is off by 1000× (ms, ns) or 10⁶× (s)
MIN_CALLS = 5     # a measurement is a median over repeated calls: fewer calls on a size is one timing, not a median
ROUNDING_US = 0.5  # a row's time still is bench.measure's when rounded to whole µs (as a table might print it)


class RecordingOp:
    """An op for time_op_sweep that remembers the sizes it ran on, once per call (is each size really timed, and
    more than once?), whether autograd recorded it, the dtypes and devices of its tensors, and how many of its calls
    got a tensor it had never seen (a tensor made or copied inside the timed function, on every call); and sleeps at
    least a known time on every call (is the time reported in microseconds?)."""

    MARK = "_lab01_checker_saw"    # set on every tensor the op has seen (a fresh tensor has no such attribute)

    def __init__(self, sleep_ms: float = 0.0):
        self.seen: list[int] = []
        self.grad = False
        self.sleep_s = sleep_ms / 1e3
        self.jitter = random.Random(0)
        self.dtypes: set[str] = set()
        self.devices: set[str] = set()
        self.fresh: dict[int, int] = {}

    def __call__(self, t: torch.Tensor) -> torch.Tensor:
        n = int(t.numel())
        self.seen.append(n)
        self.grad = self.grad or (t.requires_grad and torch.is_grad_enabled())
        self.dtypes.add(str(t.dtype).removeprefix("torch."))
        self.devices.add(t.device.type)
        if not getattr(t, self.MARK, False):
            self.fresh[n] = self.fresh.get(n, 0) + 1
            with contextlib.suppress(Exception):
                setattr(t, self.MARK, True)
        if self.sleep_s:
            # never less than sleep_s; a step per size (a tenth of it per factor of 10 in size) and a random part per
            # call (up to a fifth): the sizes' times lie far apart, and a size's quartiles far from its median, on a
            # quiet machine too (a time copied from another size, or the median reported as a quartile, shows)
            time.sleep(self.sleep_s * (1 + 0.1 * math.log10(max(n, 1)) + 0.2 * self.jitter.random()))
        return t * 3


def holds_tensor(value) -> bool:
    """Whether a tensor is among these arguments (in lists, tuples and dicts too), where bench finds the device."""
    if isinstance(value, dict):
        value = list(value.values())
    return isinstance(value, torch.Tensor) or isinstance(value, (list, tuple)) and any(map(holds_tensor, value))


@contextlib.contextmanager
def watching_bench(op: RecordingOp | None = None):
    """What helpers.bench measures while the block runs: every Timing it summarises (bench.measure's, however it was
    imported, and compare_many's) with its number of samples and, given the grader's `op`, the sizes the op ran on
    since the Timing before it (one size: the Timing is that size's; several, as in paired rounds: unknown); and for
    every measurement the device it synchronised and whether it knew it (device= given, or a tensor among the
    arguments) rather than assuming the CPU; and, given `op`, how many times the op ran per call of the function bench
    timed (`per_call`: 1 for bench.measure(op, x); k for a function that runs the op k times, whose time is then k
    calls' time)."""
    from helpers import bench

    seen: dict[str, list] = {"timings": [], "devices": []}
    summarize, infer_device, block = bench.summarize, bench.infer_device, bench._block
    mark = [0]
    ratios: list[float] = []

    def summarizing(*args, **kwargs):
        timing = summarize(*args, **kwargs)
        sizes = sorted(set(op.seen[mark[0]:])) if op is not None else []
        mark[0] = len(op.seen) if op is not None else 0
        per_call = statistics.median(ratios) if ratios else 1.0
        ratios.clear()
        seen["timings"].append({**{k: getattr(timing, k) for k in ("median_ms", "q25_ms", "q75_ms", "min_ms")},
                                **quartile_readings(timing.times_ms), "samples": len(timing.times_ms), "sizes": sizes,
                                "per_call": per_call})
        return timing

    def blocking(fn, args, number, device):
        before = len(op.seen) if op is not None else 0
        result = block(fn, args, number, device)
        if op is not None and number > 0:
            ratios.append((len(op.seen) - before) / number)
        return result

    def inferring(args, device=None):
        found = infer_device(args, device)
        known = device is not None or holds_tensor(list(args))
        seen["devices"].append([str(found), known])
        return found

    bench.summarize, bench.infer_device, bench._block = summarizing, inferring, blocking
    try:
        yield seen
    finally:
        bench.summarize, bench.infer_device, bench._block = summarize, infer_device, block


@dataclass(frozen=True)
class DispatchCases:
    knees: tuple                 # KneeCases for the floor and the knee
    sweep_sizes: tuple           # time_op_sweep is run on these sizes with an op that records what it ran on
    notebook_rows: bool          # also judge the notebook's own op_rows
    sleep_ms: float = SLEEP_MS   # ... and sleeps this long on every call: the reported times' unit is judged against it


def asked_order(sizes) -> list[int]:
    """The sweep's sizes as time_op_sweep is asked for them: the first moved to the end, so that rows sorted by size
    are not the order given."""
    sizes = list(sizes)
    return sizes[1:] + sizes[:1]


def probe_knees(learner: Learner, row_lists: list[list[dict]], factors: list, abouts: list[str]) -> list:
    """The floor and the knee (with each case's factor, or none) on each list of rows; an exception says which rows.
    A function that changed the list it was given (sorted it in place, changed a row) is named in a last entry,
    ("changed", name)."""
    import copy

    answers = []
    changed = None
    for rows, factor, about in zip(row_lists, factors, abouts):
        given = [dict(r) for r in rows]
        floor = call(learner, "overhead_floor_us", given,
                     hint=f" (The rows: {about}.) The floor is the median time of the three smallest sizes among the "
                          "rows, whatever those sizes are.")
        if changed is None and given != [dict(r) for r in rows]:
            changed = "overhead_floor_us"
        given = [dict(r) for r in rows]
        kept = copy.deepcopy(given)
        args, kwargs = named(learner, "first_size_beyond_overhead", (given,), {} if factor is None else {"factor": factor})
        knee = call(learner, "first_size_beyond_overhead", *args, **kwargs,
                    hint=f" (The rows: {about}; asked {'without a factor' if factor is None else 'with a factor'}.)")
        if changed is None and given != kept:
            changed = "first_size_beyond_overhead"
        answers.append((floor, knee))
    if changed:
        answers.append(("changed", changed))
    return answers


def probe_sweep(learner: Learner, sweep_sizes: list[int], notebook_rows: bool, sleep_ms: float = SLEEP_MS) -> dict:
    """time_op_sweep on the sizes with a sleeping op: its rows, how many times the op ran on each size and whether
    autograd recorded it, what bench measured meanwhile (see watching_bench) and the notebook's `device`; op_rows."""
    info = {}
    from helpers import bench

    op = RecordingOp(sleep_ms)
    with watching_bench(op) as measured, bench.wall_clock_only():     # CPU time would miss the op's sleep
        info["rows"] = call(learner, "time_op_sweep", op, list(sweep_sizes), explain=no_cuda_here)
    info.update(measured, grad=op.grad, device=str(learner.value("device")) if learner.has("device") else None)
    info["seen"] = sorted(set(op.seen))
    info["calls"] = {n: op.seen.count(n) for n in info["seen"]}
    info["dtypes"], info["fresh"] = sorted(op.dtypes), dict(op.fresh)
    info["elsewhere"] = sweep_elsewhere(learner)
    if notebook_rows:
        info["op_rows"] = learner.value("op_rows")
    return info


def no_cuda_here(err: Exception) -> str | None:
    """What to say when the sweep called CUDA on a machine without it (a timing loop that synchronises the GPU
    whatever the device, as course pages write it)."""
    said = str(err)     # a CPU-only build says "not compiled with CUDA"; a CUDA build without a GPU "no NVIDIA driver"
    if ("CUDA" in said or "NVIDIA" in said) and not torch.cuda.is_available():
        return ("`time_op_sweep` called CUDA on a machine without it (torch.cuda.synchronize() or a tensor made on "
                "\"cuda\", whatever `device` is): time each size with bench.measure(op, x), which synchronises the "
                "device the tensor is on, and make the tensors on `device`.")
    return None


ELSEWHERE = "meta"    # another device than the notebook's, on every machine: tensors of shapes alone, no data


def sweep_elsewhere(learner: Learner) -> dict | None:
    """time_op_sweep run once more, on two small sizes, with the notebook's `device` set to another device (meta):
    the devices its tensors were made on, and what bench.measure was told (a sweep written for the CPU alone, which
    its own machine could not tell apart from a right one). None when the sweep fails there (not judged)."""
    from helpers import bench

    code = getattr(learner.ns.get("time_op_sweep"), "__code__", None)
    takes_device = code is not None and "device" in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    if not (learner.has("device") or takes_device):
        return None
    op = RecordingOp()
    elsewhere = {"device": torch.device(ELSEWHERE)} if takes_device else {}   # `device=device` as a parameter
    try:
        with (contextlib.nullcontext() if takes_device else
              learner.replacing_global("time_op_sweep", "device", torch.device(ELSEWHERE))), \
                watching_bench() as measured, \
                bench.shortest_timings(), \
                warnings.catch_warnings():         # what it times there is not read: the fewest samples do
            warnings.simplefilter("ignore")
            learner.call("time_op_sweep", op, [1, 8], **elsewhere)
    except CheckFailed:
        raise
    except Exception:
        return None
    return {"op_devices": sorted(op.devices), "devices": measured["devices"]}


def knee_problems(answers: list, cases: list[KneeCase], reveal: bool) -> list[str]:
    """Wrong answers of the learner's floor/knee functions."""
    changed = [name for tag, name in answers[len(cases):] if tag == "changed"]
    for (floor, knee), case in zip(answers, cases):
        if not isinstance(floor, (int, float)) or not math.isclose(floor, case.floor, rel_tol=1e-6):
            said = f"gave {floor!r} on {case.about}; expected {case.floor:g}" if reveal else f"is wrong on {case.about}"
            return [f"overhead_floor_us {said} (the median of the three smallest sizes)."]
        if knee != case.knee:
            said = (f"gave {knee!r} on {case.about}, asked {case.asked()}; expected {case.knee!r}" if reveal
                    else f"is wrong on {case.about}, asked {case.asked()}")
            return [f"first_size_beyond_overhead {said}: it should return the smallest size whose time is strictly "
                    "more than factor × the floor, with the factor it is given (2 when it is given none); None when no "
                    "size is."]
    if changed:
        return [f"{changed[0]} changed the rows it was given (sorted the list in place, or changed a row): the caller's "
                "rows, the sweep in the order it was measured, must stay as they were. Sort a copy, "
                "sorted(rows, key=...), and read the rows without writing to them."]
    return []


def sweep_problems(rows, sizes: list[int] | None, seen: list[int] | None, calls: dict | None = None,
                   sleep_ms: float | None = None) -> list[str]:
    """Whether the sweep's rows are one measurement per size, each with its quartiles in order, in microseconds.

    The unit is judged on the grader's op, which sleeps sleep_ms on every call. Load can lengthen a sleep but never
    shorten it, so every time of a row in µs (its quartiles too) is at least the sleep, and a time in ms (or s)
    falls 1000× (10⁶×) below it whatever the load. A time in ns reads at least UNIT_STEP × the sleep; a right one
    reaches that only if every call took 1000 × its sleep (a second per call), which no load does. No bound here
    depends on how fast the machine is.
    """
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        return ["time_op_sweep should return a list of dicts {numel, median_us, q25_us, q75_us}."]
    got = [r.get("numel") for r in rows]
    import numbers

    odd = next((n for n in got if not isinstance(n, numbers.Real) or isinstance(n, bool)), None)
    if got and odd is not None:
        return [f"each row's numel should be the number of elements, a number; one row has {type(odd).__name__} "
                f"{str(odd)[:20]!r} (keep the size as it is given, not a label formatted from it)."]
    if sizes is not None and got != list(sizes):
        return ["time_op_sweep should return one row per size, in the order given."]
    if sizes is None and (len(got) < 6 or not all(isinstance(n, int) and n > 0 for n in got) or max(got) / min(got) < 1e5):
        return ["time_op_sweep should return one row per size, over at least 6 sizes spanning 10⁵×."]
    for r in rows:
        vals = [r.get(k) for k in ("q25_us", "median_us", "q75_us")]
        if not all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for v in vals) or not vals[0] <= vals[1] <= vals[2]:
            return ["each row of time_op_sweep needs positive times with q25_us ≤ median_us ≤ q75_us."]
    if seen is not None and len(seen) == 1 and len(set(sizes)) > 1:
        return ["time_op_sweep should run the op it is given on a tensor of each size, but the grader's op saw tensors of "
                "one size only, whatever the row: one tensor timed for every size, or closures made in a loop and timed "
                "after it (a lambda reads the loop's variable when it runs, not when it was made: every one sees the "
                "last tensor). Make each size's tensor and time the op on it in the same step, bench.measure(op, x)."]
    if seen is not None and seen != sorted(set(sizes)):
        return ["time_op_sweep should run the op it is given on a tensor of each size; the grader's op did not see those sizes."]
    if sleep_ms:
        sleep_us = sleep_ms * 1e3
        low = min(rows, key=lambda r: r["q25_us"])
        if low["q25_us"] < sleep_us:
            key = "median_us" if low["median_us"] < sleep_us else "q25_us"
            if all(isinstance(r["numel"], int) and r[key] * r["numel"] >= sleep_us for r in rows):
                return [f"time_op_sweep says the grader's op took {low[key]:.3g} µs ({key}) on {low['numel']} "
                        f"elements, but it sleeps at least {sleep_us:g} µs on every call, whatever the size: a time "
                        "per element? Report the time of one call of the op on the whole tensor (per call, not per "
                        "element), in microseconds: bench.measure's median_ms × 1e3."]
            if key == "q25_us" and low["q25_us"] >= sleep_us / 2:   # near the sleep, not 1000× off: a quartile not measured
                return [f"time_op_sweep's q25_us on {low['numel']} element(s) is {low['q25_us']:.3g} µs, below the "
                        f"{sleep_us:g} µs every call of the grader's op sleeps, while its median is above it: that is not "
                        "bench.measure's lower quartile (no call took less than the sleep). Report the quartiles it "
                        "measured beside the median (q25_ms and q75_ms × 1e3, in µs), in the median's unit."]
            return [f"time_op_sweep says the grader's op took {low[key]:.3g} µs ({key}) on {low['numel']} element(s), "
                    f"but it sleeps at least {sleep_us:g} µs on every call. Report microseconds, the median and both "
                    "quartiles: bench.measure gives milliseconds (median_ms, q25_ms, q75_ms: each × 1e3), "
                    "time.perf_counter seconds (× 1e6)."]
        high = max(rows, key=lambda r: r["q75_us"])
        if high["q75_us"] >= UNIT_STEP * sleep_us:
            key = "median_us" if high["median_us"] >= UNIT_STEP * sleep_us else "q75_us"
            return [f"time_op_sweep says the grader's op, which sleeps at least {sleep_us:g} µs per call, took "
                    f"{high[key]:.4g} µs ({key}) on {high['numel']} element(s): {UNIT_STEP}× its sleep or more. Report "
                    "microseconds (bench.measure gives milliseconds: median_ms × 1e3, not × 1e6)."]
    few = {n: k for n, k in (calls or {}).items() if k < MIN_CALLS}
    if few:
        n, k = next(iter(few.items()))
        return [f"time_op_sweep ran the op only {k} time(s) on {n} element(s): one timing is no measurement (the first "
                "call warms up, and the next are noisy). Time many calls with bench.measure(op, x) and report its "
                "median and quartiles."]
    return []


QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf", "averaged_inverted_cdf",
                    "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
                    "normal_unbiased")


def quartile_readings(times_ms: list[float]) -> dict:
    """The quartiles of bench.measure's samples as the usual functions compute them (numpy's methods, which include
    statistics.quantiles' two and torch.quantile's): a learner who takes Timing.times_ms's quartiles with any of them
    reports the same measurement as q25_ms and q75_ms."""
    import numpy as np

    if not times_ms:
        return {"q25_alts": [], "median_alts": [], "q75_alts": []}
    xs = np.asarray(sorted(times_ms), dtype=float)
    alts = {p: [float(np.percentile(xs, p, method=m)) for m in QUANTILE_METHODS] for p in (25, 50, 75)}
    return {"q25_alts": alts[25], "median_alts": alts[50], "q75_alts": alts[75]}


def same_time(us, ms: float) -> bool:
    """Whether a row's time in µs is this time of bench.measure's, in ms, × 1e3 (rounded to ROUNDING_US at most)."""
    return isinstance(us, (int, float)) and math.isclose(us, ms * 1e3, rel_tol=1e-9, abs_tol=ROUNDING_US)


def reads_as(us, t: dict, key: str) -> bool:
    """Whether a row's time in µs is this Timing's `key` (median_ms, q25_ms, q75_ms) in any usual reading of it."""
    alts = t.get(key.replace("_ms", "_alts"), [])
    return any(same_time(us, ms) for ms in (t[key], *alts))


REPEATED = 1.5    # a function bench timed that ran the op this many times per call or more: a loop of calls, timed


def per_call_scaled(t: dict) -> dict:
    """A Timing of a function that ran the op k times per call (t["per_call"]), as the time of one call: ÷ k."""
    k = t.get("per_call", 1.0)
    if k < REPEATED:
        return t
    div = lambda v: [x / k for x in v] if isinstance(v, list) else v / k if isinstance(v, (int, float)) else v
    return {key: (div(v) if key.endswith(("_ms", "_alts")) else v) for key, v in t.items()}


def repeat_problems(info: dict) -> list[str]:
    """Whether each row is the time of one call of the op. A function given to bench.measure that runs the op k times
    per call (a loop, to beat the timer's resolution) has k calls' time measured; its row is one call's time only when
    every time bench reported is divided by k (then it is as right as bench.measure(op, x))."""
    rows = info.get("rows")
    if not isinstance(rows, list):
        return []
    for row in rows:
        if not isinstance(row, dict) or not all(isinstance(row.get(k), (int, float)) for k in ("median_us", "q25_us", "q75_us")):
            continue
        own = [t for t in info.get("timings") or () if t.get("sizes") == [row.get("numel")]
               and t.get("per_call", 1.0) >= REPEATED]
        if not own:
            continue
        t = own[-1]
        one = per_call_scaled(t)
        if all(reads_as(row[key], one, key.replace("_us", "_ms")) for key in ("median_us", "q25_us", "q75_us")):
            continue
        k = f"{t['per_call']:g}"
        if reads_as(row["median_us"], t, "median_ms"):
            return [f"time_op_sweep gave bench.measure a function that runs the op {k} times per call: bench timed {k} "
                    f"calls at a time, and the row reports that as the time of one op. Time the op itself, "
                    f"bench.measure(op, x), or divide every time it gives (the median and both quartiles) by {k}."]
        return [f"time_op_sweep gave bench.measure a function that runs the op {k} times per call, and the row's times "
                f"are not bench's divided by {k}: one call of the op takes bench's time ÷ the calls in each timed call "
                f"(the median and both quartiles). Or time the op itself, bench.measure(op, x)."]
    return []


def timing_problem(row: dict, timings: list[dict]) -> str | None:
    """Whether the row is one of bench.measure's Timings in µs: its median and both quartiles, × 1e3 (quartiles of its
    samples taken by numpy's or statistics' usual methods count as its quartiles)."""
    n = row["numel"]
    same = [t for t in timings if reads_as(row["median_us"], t, "median_ms")]
    if not same:
        return (f"time_op_sweep's median_us on {n} element(s) is not the median of a bench.measure of that size: time "
                "op(x) with bench.measure for every size, and report its Timing (median_ms × 1e3, in µs).")
    own = [t for t in timings if t.get("sizes") == [n]]       # the Timings of this size alone (bench.measure's)
    if own and not any(t is o for t in same for o in own):
        return (f"time_op_sweep's row for {n} element(s) holds the time bench.measure measured on another size: each "
                "row must pair a size with its own measurement (time the sizes in the order given, or keep each "
                "Timing with the size it was measured on, not two lists zipped in different orders).")
    from helpers.bench import MIN_SAMPLES        # bench.measure's own floor: its defaults never report fewer

    few = min((t.get("samples", MIN_SAMPLES) for t in same), default=MIN_SAMPLES)
    if all(t.get("samples", MIN_SAMPLES) < MIN_SAMPLES for t in same):
        return (f"time_op_sweep's median_us on {n} element(s) is the median of only {few} sample(s): bench.measure was "
                f"cut short (repeat, min_run_time or warmup turned down). Keep its defaults (a median of {MIN_SAMPLES} "
                "samples or more, after warm-up calls), or the knee moves with the noise of a single call.")
    if any(reads_as(row["q25_us"], t, "q25_ms") and reads_as(row["q75_us"], t, "q75_ms") for t in same):
        return None
    # the size's own Timing: the one whose median is nearest (another size's may lie within the rounding too)
    t = min(same, key=lambda t: abs(t["median_ms"] * 1e3 - row["median_us"]))
    key, field, side = (("q25_us", "q25_ms", "lower") if not reads_as(row["q25_us"], t, "q25_ms")
                        else ("q75_us", "q75_ms", "upper"))
    what = (" but the median again" if same_time(row[key], t["median_ms"]) else
            " but the fastest call (min_ms)" if same_time(row[key], t["min_ms"]) else "")
    return (f"time_op_sweep's {key} on {n} element(s) is not bench.measure's {side} quartile{what}: report the "
            f"quartiles it measured beside the median ({field} × 1e3, in µs).")


def tensor_problems(info: dict) -> list[str]:
    """Whether the op got the tensors a sweep should time it on: one tensor per size, made before the timing (not a
    new one on every call), of the default dtype, on `device` (the short sweep with `device` set elsewhere tells)."""
    calls = info.get("calls") or {}
    for n, made in (info.get("fresh") or {}).items():
        if made >= 3 and 2 * made > calls.get(n, 0):
            return [f"time_op_sweep gave the op a new tensor on {made} of its {calls.get(n, 0)} calls on {n} element(s): "
                    "a tensor made or copied inside the timed function (torch.randn, clone, ...) is timed along with "
                    "the op. Make each size's tensor once, before timing, and time the op on it: bench.measure(op, x)."]
    default = str(torch.get_default_dtype()).removeprefix("torch.")
    other = [d for d in info.get("dtypes") or () if d != default]
    if other:
        return [f"time_op_sweep ran the op on {other[0]} tensors: time it on tensors of the default dtype ({default}), "
                "as torch.randn(n, device=device) makes them, the tensors the rest of the lab times (another dtype "
                "moves another number of bytes per element, and moves the knee)."]
    elsewhere = info.get("elsewhere")
    if elsewhere:
        off = [d for d in elsewhere["op_devices"] if d != ELSEWHERE]
        if off:
            return [f"time_op_sweep made its tensors on {off[0]}, not on `device`: the check ran it once more with "
                    f"`device` set to another device ({ELSEWHERE}), and the op still got {off[0]} tensors. Make each "
                    "tensor on `device`, torch.randn(n, device=device): on a GPU machine your sweep would time the "
                    "CPU."]
        if any(torch.device(found).type != ELSEWHERE and not known for found, known in elsewhere["devices"]):
            return ["time_op_sweep gave bench.measure a closure without device=: it cannot tell where the tensors "
                    "live and assumes the CPU (the check ran it with `device` set to another device, and bench was not "
                    "told), so on a GPU it would not synchronise it and the clock would stop while the kernels still "
                    "run. Pass the op and its tensor, bench.measure(op, x), or device=device."]
        told = next((found for found, known in elsewhere["devices"] if known and torch.device(found).type != ELSEWHERE
                     and ELSEWHERE in elsewhere["op_devices"]), None)
        if told:
            return [f"time_op_sweep told bench.measure device={torch.device(told).type!r} whatever `device` is: the "
                    f"check ran it with `device` set to another device ({ELSEWHERE}), the op got tensors there, and "
                    f"bench was still told {torch.device(told).type}, so on a GPU it would not synchronise it (the "
                    "clock stops while the kernels still run). Pass device=device, or the op and its tensor, "
                    "bench.measure(op, x)."]
    return []


def measured_problems(info: dict) -> list[str]:
    """Whether the sweep timed each size with bench.measure, autograd off, on the notebook's device (told to it), and
    reported the Timing it gave: the grader's op and bench itself tell (probe_sweep)."""
    if info.get("grad"):
        return ["time_op_sweep ran the op on a tensor that requires grad: with autograd on, every call also records a "
                "backward node (the graph of part 1's last cell), a cost that is not the op's. Make the tensor as it "
                "is, torch.randn(n, device=device), without requires_grad."]
    if not info.get("timings"):
        return ["time_op_sweep did not time the sizes with bench.measure: a loop of your own has no warm-up, no GPU "
                "synchronisation and no quartiles. Time op(x) with bench.measure(op, x) and report its median and "
                "quartiles (median_ms, q25_ms, q75_ms, each × 1e3)."]
    timings = [per_call_scaled(t) for t in info["timings"]]     # a loop of k calls, timed: ÷ k (repeat_problems)
    for row in info["rows"]:
        problem = timing_problem(row, timings)
        if problem:
            return [problem]
    want = info.get("device")
    for found, known in info.get("devices", []):
        if not want or torch.device(found).type == torch.device(want).type:
            continue
        if not known:
            return [f"time_op_sweep gave bench.measure a closure without device=: it cannot tell where the tensors live "
                    f"and assumes the CPU, while `device` is {want}, so it does not synchronise it (the clock stops "
                    "while the kernels still run). Pass the op and its tensor, bench.measure(op, x), or device=device."]
        return [f"time_op_sweep timed the op on {found}, not on `device` ({want}): make each tensor on `device`, "
                "torch.randn(n, device=device)."]
    return []


def rows_of(times: dict[int, float]) -> tuple:
    """Rows with these medians {numel: µs} and quartiles 5% either side."""
    return tuple({"numel": n, "median_us": t, "q25_us": 0.95 * t, "q75_us": 1.05 * t} for n, t in times.items())


PUBLIC_KNEE_CASES = [
    KneeCase(tuple(synthetic_op_rows(4.0, 0.5, [10**k for k in range(8)])), 4.005, 10**4, "4 µs + 0.5 ns per element, sizes 1…10⁷"),
    KneeCase(tuple(synthetic_op_rows(10.0, 0.0, [1, 10, 100])), 10.0, None, "a flat 10 µs (never beyond the overhead)"),
    KneeCase(rows_of({1: 5.0, 2: 5.0, 4: 5.0, 8: 10.0, 16: 11.0}), 5.0, 16,
             "rows where size 8 takes exactly 2 × the floor (not more), size 16 more"),
    KneeCase(rows_of({1: 3.0, 10: 3.0, 100: 3.0, 1000: 7.0, 10000: 12.5}), 3.0, 10000,
             "a floor of 3 µs asked with factor=4 (7 µs is beyond 2 × the floor, not beyond 4 ×)", factor=4.0),
    KneeCase(tuple(reversed(synthetic_op_rows(4.0, 0.5, [10**k for k in range(8)]))), 4.005, 10**4,
             "the first rows again, from the largest size down"),
    KneeCase(rows_of({1: 5.0, 10: 4.0, 100: 6.0, 1000: 4.5, 10000: 7.0, 100000: 30.0}), 5.0, 100000,
             "noisy rows, as a real sweep gives them (size 10 faster than size 1, size 1000 faster than size 100)"),
    KneeCase(rows_of({1: 4.0, 10: 6.0, 100: 5.0, 1000: 9.0, 10000: 11.0}), 5.0, 10000,
             "rows where one element is the fastest of the three smallest sizes (the floor is their median, not "
             "one element's time)"),
    KneeCase(rows_of({2: 6.0, 4: 4.0, 8: 5.0, 16: 9.0, 32: 10.5}), 5.0, 32,
             "sizes 2 to 32, powers of two (the three smallest sizes are whatever sizes the rows hold)"),
]
# Rows every run judges, the notebook's and the grader's: what they ask follows from the exercise's definition alone
# (the smallest size beyond factor × the floor, whatever comes after it, even among the three sizes of the floor).
DEFINITION_KNEE_CASES = (
    KneeCase(rows_of({1: 5.0, 10: 12.0, 100: 5.0, 1000: 30.0, 10000: 9.0, 100000: 11.0}), 5.0, 10,
             "rows where one of the three smallest sizes is already beyond factor × the floor, and a larger size "
             "falls back below it"),
    KneeCase(rows_of({1: 12.0, 10: 5.0, 100: 5.0, 1000: 6.0, 10000: 30.0}), 5.0, 1,
             "rows where the smallest size itself is beyond factor × the floor (a slow call on one element, which "
             "is a size like any other: the knee can be the smallest size)"),
)


@register("01.dispatch", points=2, exercise="1", title="the fixed cost of one op, and where the work takes over",
          cases=DispatchCases(tuple(PUBLIC_KNEE_CASES), (1, 100, 10000), True))
def _dispatch(ctx: Context, cases: DispatchCases) -> str:
    knees = (*cases.knees, *DEFINITION_KNEE_CASES)
    fail_if(knee_problems(ctx.probe(probe_knees, [list(c.rows) for c in knees], [c.factor for c in knees],
                                    [c.about for c in knees]), knees, ctx.reveal))
    sizes = asked_order(cases.sweep_sizes)
    info = ctx.probe(probe_sweep, sizes, cases.notebook_rows, cases.sleep_ms, timeout=180)
    fail_if(tensor_problems(info) or repeat_problems(info)
            or sweep_problems(info["rows"], sizes, info["seen"], info["calls"], cases.sleep_ms)
            or measured_problems(info)
            or (sweep_problems(info["op_rows"], None, None) if cases.notebook_rows else []))
    return "the floor and the knee are right, and the sweep measures every size"


@dataclass(frozen=True)
class FitCase:
    points: tuple          # (n_ops, median_us) pairs
    slope: float
    intercept: float
    about: str


def probe_fit(learner: Learner, point_lists: list[tuple], chain_rows: bool) -> dict:
    """fit_per_op_us on each list of (n_ops, median_us) points; the notebook's chain_rows when asked."""
    info = {"fits": []}
    with own_work("01.per_op", least_squares):
        _fit_each(learner, point_lists, info)
    if chain_rows:
        info["chain_rows"] = learner.value("chain_rows")
    return info


def _fit_each(learner: Learner, point_lists: list[tuple], info: dict) -> None:
    """fit_per_op_us on each list of points, into info["fits"] (see probe_fit)."""
    for points in point_lists:
        given = [{"n_ops": k, "median_us": t} for k, t in points]
        try:        # what one case raises is judged in the order of the cases (a wrong line before it says more)
            got = call(learner, "fit_per_op_us", given)
            if given != [{"n_ops": k, "median_us": t} for k, t in points]:
                info["changed"] = True      # sorted in place, or a row changed: the caller's rows are not its own
        except LearnerError as err:
            info["fits"].append({"raised": str(err)})
            continue
        try:
            info["fits"].append([float(v) for v in got])
        except (TypeError, ValueError):
            info["fits"].append(repr(got)[:80])


FIT_ROUNDING = 0.0051   # µs: a slope or intercept rounded to two decimals (round(slope, 2)) is still the line


def fit_problems(fits: list, cases: list[FitCase], reveal: bool) -> list[str]:
    """Wrong answers of the learner's least-squares fit."""
    for got, case in zip(fits, cases):
        if isinstance(got, dict) and "raised" in got:
            return [f"{got['raised'].rstrip('.')} (on {case.about}): fit the least-squares line through every row, "
                    "whatever the n_ops (two rows of the same n_ops are two points)."]
        if not (isinstance(got, list) and len(got) == 2):
            return [f"fit_per_op_us should return (slope, intercept); it returned {got!r}."]
        s, b = got
        # float32 arithmetic (torch's default dtype) is as right as float64: a tolerance of 1e-4 of the times' scale;
        # and a line rounded to 0.01 µs, as the notebook prints it, is the same line (FIT_ROUNDING)
        scale = max(abs(y) for _, y in case.points) or 1.0
        near = lambda v, want: math.isclose(v, want, rel_tol=1e-4, abs_tol=max(1e-4 * scale, FIT_ROUNDING))
        if not (near(s, case.slope) and near(b, case.intercept)):
            line = f"{case.slope:g}·k {'−' if case.intercept < 0 else '+'} {abs(case.intercept):g}"
            said = f"returned ({s:.4g}, {b:.4g}); the least-squares line is {line}" if reveal \
                else "returned another line"
            return [f"on {case.about}, fit_per_op_us {said}."]
    return []


def chain_rows_problems(rows) -> list[str]:
    """The notebook's chain measurement: one positive median per chain length, 1 and 8 among them."""
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        return ["chain_rows should be a list of dicts {n_ops, median_us}: run the cell that measures the chains."]
    by_k = {r.get("n_ops"): r.get("median_us") for r in rows}
    if 1 not in by_k or 8 not in by_k or not all(isinstance(t, (int, float)) and t > 0 for t in by_k.values()):
        return ["chain_rows should hold positive medians for chains of 1 and 8 ops."]
    return []


def _line(slope, intercept, ks, about) -> FitCase:
    return FitCase(tuple((k, slope * k + intercept) for k in ks), slope, intercept, about)


PUBLIC_FIT_CASES = [_line(3.0, 1.5, (1, 2, 4, 8), "points exactly on 3·k + 1.5"),
                    _line(2.0, 4.0, (8, 1, 4, 2), "points exactly on 2·k + 4, not in order of k"),
                    _line(0.25, 10.0, (1, 3, 5), "points exactly on 0.25·k + 10"),
                    _line(5.0, 0.0, (2, 4, 6, 8, 10), "points exactly on 5·k"),
                    FitCase(((1, 5.0), (2, 9.0), (3, 10.0)), 2.5, 3.0, "the points (1, 5), (2, 9), (3, 10)"),
                    FitCase(((1, 4.0), (2, 7.0), (4, 9.0)), 11 / 7, 3.0, "the points (1, 4), (2, 7), (4, 9)"),
                    # a line of noisy chains can come out below zero: the fit reports it, it does not clamp it
                    _line(2.0, -1.0, (1, 2, 4, 8), "points exactly on 2·k − 1 (a negative intercept, as noise can give)"),
                    _line(-0.5, 9.0, (1, 2, 4, 8), "points exactly on −0.5·k + 9 (times that fall with k, as noise can give)")]


def least_squares(points) -> tuple:
    """The least-squares line through these (n_ops, µs) points: (slope, intercept), exactly (as fractions)."""
    from fractions import Fraction

    exact = [(Fraction(k), Fraction(t)) for k, t in points]
    n, sx, sy = len(exact), sum(k for k, _ in exact), sum(t for _, t in exact)
    sxx, sxy = sum(k * k for k, _ in exact), sum(k * t for k, t in exact)
    slope = (n * sxy - sx * sy) / (n * sxx - sx * sx)       # the normal equations (the bundle ships no solution line)
    return slope, (sy - slope * sx) / n


def _fit(points, about) -> FitCase:
    slope, intercept = least_squares(points)
    return FitCase(tuple(points), float(slope), float(intercept), about)


# Points every run judges, the notebook's and the grader's: the fit is asked of any rows, not only of four chains of
# distinct lengths (more rows than the notebook's four, and a chain timed twice, each of its rows a point of its own).
DEFINITION_FIT_CASES = (
    _fit(((1, 2.5), (2, 4.0), (2, 5.5), (4, 8.5), (8, 15.0), (8, 18.5)),
         "six noisy points, chains of 2 and 8 ops timed twice (every row is a point, repeated n_ops too)"),
)


@register("01.per_op", points=2, exercise="1", title="the overhead adds up per op in a chain",
          cases=(PUBLIC_FIT_CASES, True))
def _per_op(ctx: Context, cases: tuple) -> str:
    fits, with_rows = cases
    fits = [*fits, *DEFINITION_FIT_CASES]
    info = ctx.probe(probe_fit, [c.points for c in fits], with_rows)
    changed = ["fit_per_op_us changed the rows it was given (sorted the list in place, or changed a row): the "
               "caller's rows, the chains as they were measured, must stay as they were. Sort a copy, "
               "sorted(rows, key=...), and read the rows without writing to them."] if info.get("changed") else []
    fail_if(fit_problems(info["fits"], fits, ctx.reveal) or changed
            or (chain_rows_problems(info["chain_rows"]) if with_rows else []))
    return "the least-squares fit is right"


# ---------------------------------------------------------------- 2: capture table
def probe_capture_table(learner: Learner) -> dict:
    """The learner's table, and what their part-2 cells recorded, kept to plain results (bools, counts, and one dict
    of bools): anything else a notebook put there is dropped, never sent (the grader judges by its own run)."""
    seen = learner.value("capture_seen") if learner.has("capture_seen") else None
    plain = lambda v: isinstance(v, (bool, int)) or (isinstance(v, dict) and all(
        isinstance(k, str) and isinstance(b, bool) for k, b in v.items()))
    table = learner.value("CAPTURE_TABLE")
    shared, keys = [], []
    if isinstance(table, dict):
        # what the plain-data round trip loses: rows that are one object (a change to one changes all), and keys
        # that are not names (a function's key arrives as its repr)
        rows = [(m, r) for m, r in table.items() if isinstance(r, dict)]
        shared = sorted({str(a) for i, (a, r) in enumerate(rows) for b, q in rows[i + 1:] if r is q})
        keys = [type(k).__name__ for k in table if not isinstance(k, str)]
    return {"table": table, "shared": shared, "keys": keys,
            "seen": {k: v for k, v in seen.items() if isinstance(k, str) and plain(v)} if isinstance(seen, dict)
            else None}


def seen_as_table(seen: dict) -> dict[str, dict]:
    """What the learner's own part-2 cells recorded (`capture_seen`: raw results, not the table's words), read as the
    table's control_flow, dynamic_shapes and serialisable cells. Missing results stay None (not judged)."""
    def get(key):
        return seen.get(key) if isinstance(seen, dict) else None

    def kept(right):
        return None if right is None else "kept" if right else "baked"

    def dynamic(right):
        return None if right is None else "dynamic" if right else "baked"

    saved = get("saved and loaded, same result") or {}
    table = {m: {"serialisable": saved.get(m)} for m in METHODS}
    table["torch.jit.trace"].update(control_flow=kept(get("trace: negative input right")),
                                    dynamic_shapes=dynamic(get("trace: length 6 right")))
    table["torch.jit.script"].update(control_flow=kept(get("script: negative input right")),
                                     dynamic_shapes=dynamic(get("script: length 6 right")))
    table["torch.fx.symbolic_trace"].update(
        control_flow="error" if get("fx: branch raised") else kept(get("fx: negative input right")),
        dynamic_shapes="error" if get("fx: length 6 raised") else dynamic(get("fx: length 6 right")))
    breaks = get("compile: graph breaks")
    table["torch.compile"].update(
        control_flow=None if breaks is None else "graph break" if breaks else kept(get("compile: negative input right")),
        dynamic_shapes=dynamic(get("compile: length 6 right")))
    plain = get("export: plain if raised")
    table["torch.export"].update(
        control_flow=None if plain is None else ("torch.cond" if get("export: torch.cond right") else "error")
        if plain else "kept",
        dynamic_shapes=None if get("export: length 6 raised") is None else
        "specialized" if get("export: length 6 raised") else "dynamic")
    return table


def capture_table_problems(table, observed: dict, shared: list | None = None, keys: list | None = None) -> list[str]:
    """Every cell of the learner's table that the experiments contradict (a cell `observed` leaves None, or without
    its column, is only checked for its vocabulary). `shared`: methods whose row is the very dict of another method's
    row; `keys`: the types of the table's keys that are not strings (both seen by the probe, before the round trip)."""
    if not isinstance(table, dict):
        return ["CAPTURE_TABLE should be a dict {method: {column: value}}."]
    missing = [m for m in METHODS if m not in table]
    if missing and keys:
        return [f"CAPTURE_TABLE is keyed by {keys[0]} objects (the capture functions themselves?), not by the methods' "
                f"names: key each row by its name as a string, as the table lists them ({', '.join(map(repr, METHODS))})."]
    if missing:
        return [f"CAPTURE_TABLE lacks {', '.join(missing)}."]
    odd = next((m for m in METHODS if table[m] is not None and not isinstance(table[m], dict)), None)
    if odd is not None:
        return [f"CAPTURE_TABLE[{odd!r}] is a {'list or tuple' if isinstance(table[odd], list) else type(table[odd]).__name__}"
                f": each method's row should be a dict {{column: value}}, keyed by the column names "
                f"({', '.join(map(repr, COLUMNS))}), not values in order."]
    if shared:
        return [f"CAPTURE_TABLE's rows are not a dict each: the row of {', '.join(shared)} is the same dict object as "
                "another method's, so a value written into one is written into both, and the last method's values win "
                "(dict.fromkeys(methods, {}), or one dict reused). Give every method a dict of its own."]
    problems, unfilled = [], 0
    for method in METHODS:
        row = table[method] if isinstance(table[method], dict) else {}
        absent = [c for c in COLUMNS if c not in row]
        for key in row if absent else ():     # a column under another name (an extra column beside all four is let be)
            if key not in COLUMNS:
                near = difflib.get_close_matches(str(key), absent, n=1, cutoff=0.6)
                spell = f" Did you mean {near[0]!r}?" if near else ""
                return [f"{method} has a column {key!r}, which is not one of the table's columns "
                        f"({', '.join(map(repr, COLUMNS))}).{spell} Use the column names as the table gives them."]
        for column, allowed in COLUMNS.items():
            value = row.get(column)
            want = observed.get(method, {}).get(column)
            if value is None:
                unfilled += 1
            elif value not in allowed:
                problems.append(f"{method} / {column} is {value!r}; use one of {', '.join(map(repr, allowed))}.")
            elif want is not None and value != want:
                source = ("what the cells of part 2 showed it accepts (WithPython's cell and the Branchy cells)"
                          if column == "python_coverage"
                          else "what its experiment in part 2 printed")
                problems.append(f"{method} / {column}: {value!r} is not {source}.")
    cells = len(METHODS) * len(COLUMNS)
    if unfilled:
        problems.insert(0, f"{unfilled} of the table's {cells} cells are still None: fill every cell.")
    return problems


FROM_THE_NOTEBOOK = None    # the public case: judged against the notebook's own `capture_seen`


@register("01.capture_table", points=3, exercise="2", title="the capture-method table agrees with the experiments",
          cases=lambda: FROM_THE_NOTEBOOK)
def _capture_table(ctx: Context, observed: dict | None) -> str:
    got = ctx.probe(probe_capture_table)
    if observed is None:
        if not isinstance(got["seen"], dict) or not got["seen"]:
            raise CheckFailed("capture_seen is missing: the experiment cells of part 2 record what they show in it; "
                              "run them (Run ▸ Run All Above Selected Cell), then this check.")
        observed = seen_as_table(got["seen"])
    problems = capture_table_problems(got["table"], observed, got.get("shared"), got.get("keys"))
    unfilled = [p for p in problems if "still None" in p]
    wrong = [p for p in problems if p not in unfilled]
    shown = unfilled + wrong[:4] + ([f"({len(wrong) - 4} more filled cells are wrong.)"] if len(wrong) > 4 else [])
    fail_if(shown, most=len(shown))
    judged = any(observed.get(m, {}).get("python_coverage") for m in METHODS)
    return "every cell of the table matches what the experiments did" + (
        "" if judged else " (its python_coverage column is judged when the lab is graded)")


# ---------------------------------------------------------------- 3: Dynamo backends and graph breaks
def two_graphs(x):
    """A function with one graph break: Dynamo hands two graphs to the backend."""
    y = x.sin() + 1
    torch._dynamo.graph_break()
    return y.cos() * 2


def two_inputs(x, y):
    """Two arguments and one graph break (two graphs): count_graphs calls fn on every argument it is given."""
    z = x * y
    torch._dynamo.graph_break()
    return z + y


TWO_INPUT_GRAPHS = 2


def _sine(x):
    return x.sin()


def same_twice(x):
    """The same step on either side of each of two graph breaks: three graphs with the same code, all of them graphs
    the backend receives (a count of the distinct graphs finds one; and three, where the other functions give two)."""
    x = _sine(x)
    torch._dynamo.graph_break()
    x = _sine(x)
    torch._dynamo.graph_break()
    x = _sine(x)
    return x


SAME_TWICE_GRAPHS = 3


@dataclass(frozen=True)
class BreakCase:
    """A function with graph breaks, an input, and how many graphs Dynamo makes of it."""

    fn: Callable
    x: torch.Tensor
    graphs: int
    about: str


def probe_recording(learner: Learner, fn: Callable, x: torch.Tensor) -> dict:
    """The learner's recording backend on a function with breaks: its result, the graphs kept, count_graphs (twice,
    with Dynamo allowed one compile per function: a count that does not start from a reset Dynamo finds `fn` compiled
    already, by the backend above, and gets no graph), and whether another backend starts with a list of its own."""
    with own_work("01.recording_backend", measured_compiles, reference_compiles):
        return _recording(learner, fn, x)


def _recording(learner: Learner, fn: Callable, x: torch.Tensor) -> dict:
    """The body of probe_recording."""
    torch._dynamo.reset()
    made = call(learner, "make_recording_backend")
    if not (isinstance(made, tuple) and len(made) == 2 and callable(made[0])):
        raise CheckFailed(f"make_recording_backend should return (backend, graphs); it returned {type(made).__name__} "
                          f"{str(made)[:60]}.")
    backend, graphs = made
    with learner.running("make_recording_backend"), \
            calling("make_recording_backend", " Dynamo calls backend(gm, example_inputs) and runs what it returns: "
                    "return something that runs the graph (gm.forward)."):
        compiled = torch.compile(fn, backend=backend)
        out = compiled(x)
    kept = list(graphs)
    with learner.running("make_recording_backend"), calling("make_recording_backend"):
        compiled(x)         # the same call again: nothing new to compile, so nothing new reaches the backend
    ran = len(graphs) - len(kept)
    with torch._dynamo.config.patch(recompile_limit=1), watching_explain(learner) as asked:
        counts = [call(learner, "count_graphs", fn, x, explain=graphs_not_counted) for _ in range(2)]
    two = call(learner, "count_graphs", two_inputs, x, x.flip(0), explain=graphs_not_counted,
               hint=" count_graphs(fn, *args) calls the compiled fn once on all the arguments it is given: fn(*args).")
    same = call(learner, "count_graphs", same_twice, x, explain=graphs_not_counted)
    again = call(learner, "make_recording_backend")
    fresh = isinstance(again, tuple) and len(again) == 2 and again[1] is not graphs and hasattr(again[1], "__len__") \
        and len(again[1]) == 0
    own_list = None
    if fresh and kept and isinstance(kept[0], torch.fx.GraphModule) and not ran:
        # the first backend, called once more after a second make_recording_backend: it records into its own list,
        # not into the newest one (a list kept in a module-level global, rebound on every call, fills the wrong one)
        before = len(graphs)
        try:
            backend(kept[0], [x])
            own_list = len(graphs) == before + 1 and len(again[1]) == 0
        except Exception:
            pass
    return {"own_list": own_list, "ran": ran, "out": out, "n": len(kept), "all_gm": all(isinstance(g, torch.fx.GraphModule) for g in kept),
            "types": [type(g).__name__ for g in kept], "count": counts[0], "again": counts[1], "fresh": fresh,
            "two_inputs": two, "same_twice": same, "explained": asked["explain"] > 0 and asked["backends"] == 0}


def backend_failed(label: str) -> Callable[[Exception], str | None]:
    """What to say when a backend raised inside Dynamo's compile (BackendCompilerFailed): its own error, and the usual
    cause, mode= or options= given beside a backend of one's own (torch.compile hands them to the backend)."""
    def explain(err: Exception) -> str | None:
        from torch._dynamo.exc import BackendCompilerFailed

        if not isinstance(err, BackendCompilerFailed):
            return None
        inner = getattr(err, "inner_exception", None)
        said = str(inner).splitlines()[0][:120] if inner is not None and str(inner).strip() else ""
        if "argument 'mode'" in said or "argument 'options'" in said:     # the only text shown: it names no case
            return (f"`{label}`: the backend raised while Dynamo compiled ({type(inner).__name__}: {said}). "
                    "torch.compile hands mode= and options= to the backend as arguments, and only Inductor takes "
                    "them: compile with the backend alone, torch.compile(fn, backend=...).")
        return (f"`{label}`: the backend raised {type(inner or err).__name__} while Dynamo compiled: it is called as "
                "backend(gm, example_inputs) and must return something that runs the graph.")
    return explain


def graphs_not_counted(err: Exception) -> str | None:
    """count_graphs raised: at a graph break under fullgraph=True, or in its backend."""
    return stopped_at_break(err) or backend_failed("count_graphs")(err)


def stopped_at_break(err: Exception) -> str | None:
    """What to say when count_graphs raised at a graph break (compiled with fullgraph=True, where a break is an
    error)."""
    from torch._dynamo.exc import Unsupported

    if isinstance(err, Unsupported):
        return ("`count_graphs` stopped at a graph break (Dynamo raised Unsupported): compiled with fullgraph=True, a "
                "break is an error. Compile fn without fullgraph, so that Dynamo makes a graph on either side of each "
                "break, and count the graphs the backend received.")
    return None


@contextlib.contextmanager
def watching_explain(learner: Learner):
    """While the block runs: how many graphs torch._dynamo.explain saw (however it was imported: it looks its graph
    accounting up in torch._dynamo.backends.debugging at every call), and how many recording backends the learner's
    make_recording_backend made."""
    from torch._dynamo.backends import debugging

    asked = {"explain": 0, "backends": 0}
    detail = debugging._explain_graph_detail
    made = learner.ns.get("make_recording_backend")

    def explaining(*args, **kwargs):
        asked["explain"] += 1
        return detail(*args, **kwargs)

    def making(*args, **kwargs):
        asked["backends"] += 1
        return made(*args, **kwargs)

    debugging._explain_graph_detail = explaining
    try:
        with learner.replacing_global("count_graphs", "make_recording_backend", making) if callable(made) \
                else contextlib.nullcontext():
            yield asked
    finally:
        debugging._explain_graph_detail = detail


def recording_problems(info: dict, case: BreakCase) -> list[str]:
    problems = []
    want = case.fn(case.x)
    out = info.get("out")
    if not isinstance(out, torch.Tensor) or out.shape != want.shape or not torch.allclose(out, want, equal_nan=False):
        problems.append("with your backend the compiled function computed something else: the backend must return "
                        "something that runs the graph (gm.forward).")
    if info["n"] != case.graphs or not info["all_gm"]:
        problems.append(f"{case.about} should leave {case.graphs} GraphModules in the list; it holds {info['n']} "
                        f"({', '.join(info['types'])}).")
    if info.get("ran"):
        problems.append("the backend's list grew when the compiled function ran again on the same input, which "
                        "compiles nothing: it records graphs as they run, not as Dynamo hands them over "
                        "(a count of calls, not of graphs). Append gm in the backend itself, which Dynamo calls once "
                        "per graph it compiles, and return gm.forward unchanged.")
    if info.get("explained"):
        problems.append("count_graphs asked torch._dynamo.explain for the count instead of counting what a recording "
                        "backend received: compile fn with a fresh backend from make_recording_backend (after "
                        "torch._dynamo.reset()), call it once, and return how many GraphModules it kept.")
    if info.get("own_list") is False:
        problems.append("make_recording_backend should give every backend a list of its own: a backend made by an "
                        "earlier call recorded its graph into the list that a later call returned (a list kept in a "
                        "global, rebound on every call?). Make the list inside the function and let the backend append "
                        "to that list.")
    if not info.get("fresh", True):
        problems.append("make_recording_backend should give a new, empty list on every call; a second call gave back a "
                        "list that already held graphs from an earlier call (make the list inside the function).")
    if info["count"] != case.graphs:
        why = ("more graphs than the function makes: does it count graphs kept from an earlier call? Use a fresh "
               "recording backend on every call" if isinstance(info["count"], int) and info["count"] > case.graphs else
               "counting the breaks instead of the graphs? Count the GraphModules the backend received. Or did you "
               "reset Dynamo first? Without a reset, a function compiled before is found in Dynamo's cache, and what "
               "it skips compiling never reaches the new backend")
        problems.append(f"count_graphs on {case.about} returned {info['count']!r}; expected {case.graphs} ({why}).")
    elif info.get("again", info["count"]) != info["count"]:
        problems.append(f"count_graphs on {case.about} returned {info['count']!r}, then {info['again']!r} when called "
                        "again: it keeps graphs from an earlier call (use a fresh recording backend on every call).")
    elif info.get("two_inputs", TWO_INPUT_GRAPHS) != TWO_INPUT_GRAPHS:
        problems.append(f"count_graphs on a function of two tensors with one graph break returned "
                        f"{info['two_inputs']!r}; expected {TWO_INPUT_GRAPHS}: call the compiled fn on all the arguments "
                        "count_graphs is given, fn(*args).")
    elif info.get("same_twice", SAME_TWICE_GRAPHS) != SAME_TWICE_GRAPHS:
        problems.append(f"count_graphs on a function that runs the same step on either side of each of its two graph "
                        f"breaks ({SAME_TWICE_GRAPHS} graphs with the same code) returned {info['same_twice']!r}: count "
                        "every GraphModule the backend received, len(graphs), not the distinct ones (nor a number read "
                        "off the notebook's functions: the count depends on the function).")
    return problems


@register("01.recording_backend", points=2, exercise="3", title="a backend that records every graph it receives",
          cases=[BreakCase(two_graphs, torch.linspace(-1, 1, 5), 2, "a function with one graph break (torch._dynamo.graph_break())")])
def _recording_backend(ctx: Context, cases: list[BreakCase]) -> str:
    for case in cases:
        fail_if(recording_problems(ctx.probe(probe_recording, case.fn, case.x), case))
    return "records every graph of a function with breaks"


BREAKERS = {"no_print": "with_print", "no_item": "with_item", "no_branch": "with_branch"}


def with_print(x):
    y = x.sin()
    return y.cos()


def with_item(x):
    scale = x.abs().max().item()
    if scale > 1:
        return x / scale + 1
    return x + 1


def with_branch(x):
    y = x * 3
    return y.relu() if y.sum() > 0 else -y


ORIGINALS = {"no_print": with_print, "no_item": with_item, "no_branch": with_branch}


def probe_no_breaks(learner: Learner, inputs: list[torch.Tensor]) -> dict:
    """Each fixed function compiled with fullgraph=True on each input: its output, or the error it raised."""
    out = {}
    for name in BREAKERS:
        fn = learner.function(name)
        try:                                   # eagerly first: an unwritten stub says "not written yet", which under
            with learner.running(name), contextlib.redirect_stdout(io.StringIO()):   # torch.compile would read
                fn(inputs[0].clone())                                                  # as a Dynamo error
        except CheckFailed:
            raise
        except Exception:
            pass                               # any other error: the fullgraph compile below reports it
        torch._dynamo.reset()
        results = []
        for x in inputs:
            given = x.clone()                  # the function's own copy: one that changes it in place is seen
            try:
                with learner.running(name):
                    results.append(torch.compile(fn, fullgraph=True, backend="eager")(given))
                if not torch.equal(given, x):
                    out.setdefault("changed_input", []).append(name)
                if x.requires_grad and isinstance(results[-1], torch.Tensor) and not results[-1].requires_grad:
                    out.setdefault("no_grad", {}).setdefault(name, len(results) - 1)     # (the round trip detaches)
            except CheckFailed:
                raise
            except Exception as err:
                from torch._dynamo.exc import Unsupported, UserError

                results.append(f"{type(err).__name__}: {str(err).splitlines()[0][:90] if str(err) else ''}")
                if not isinstance(err, (Unsupported, UserError)):     # not a graph break: the function's own error
                    out.setdefault("raised_on", {})[name] = len(results) - 1
                break
        out[name] = results
    return out


def describe_input(x: torch.Tensor) -> str:
    """An input of the no_breaks check in words: signs, magnitudes, shape, dtype, layout and the sign of its sum."""
    signs = "of both signs" if (x > 0).any() and (x < 0).any() else "of one sign"
    size = "all below 1 in magnitude" if x.abs().max() <= 1 else "some above 1 in magnitude"
    total = x.detach().sum()
    sign = "positive" if total > 0 else "negative" if total < 0 else "zero (exactly: the test is > 0)"
    if 0 < abs(float(total)) < 1e-9:
        sign += ", barely (far below any rounding tolerance: the test is > 0, exactly)"
    shape = f", a {x.dim()}-d tensor" if x.dim() > 1 else ""
    if not x.is_contiguous():
        shape += ", transposed: not contiguous"
    if x.dtype != torch.float32:
        shape += f", of dtype {str(x.dtype).removeprefix('torch.')}"
    if x.requires_grad:
        shape += ", requiring grad"
    if total != 0 and 2 * int((torch.sign(x) == -torch.sign(total)).sum()) > x.numel():
        shape += ", most of them of the other sign than the sum"
    return f"an input with elements {signs} ({size}{shape}) whose sum is {sign}"


def no_break_problems(got: dict, inputs: list[torch.Tensor]) -> list[str]:
    """Which fixed functions break the graph or compute something else, on these inputs."""
    problems = []
    for name, ref in ORIGINALS.items():
        if name in got.get("changed_input", ()):
            problems.append(f"{name} changes its input in place ({BREAKERS[name]} leaves x as it was): compute a new "
                            "tensor instead of writing into x.")
            continue
        for i, (x, result) in enumerate(zip(inputs, got[name])):
            if isinstance(result, str) and got.get("raised_on", {}).get(name) == i:
                problems.append(f"{name} raised on {describe_input(x)} ({result}), where {BREAKERS[name]} runs: "
                                "write it for inputs of any shape and layout (reshape or flatten, not view; "
                                "x.abs().max() reduces every dimension).")
                break
            if isinstance(result, str):
                problems.append(f"{name} does not compile with fullgraph=True ({result}).")
                break
            want = ref(x)
            if not isinstance(result, torch.Tensor):
                problems.append(f"{name} returns a {type(result).__name__}, not a tensor: {BREAKERS[name]} returns a "
                                "tensor, and so should it.")
                break
            if result.dtype != want.dtype:
                problems.append(f"{name} returns {str(result.dtype).removeprefix('torch.')} where {BREAKERS[name]} "
                                f"returns {str(want.dtype).removeprefix('torch.')} (on the input's own dtype): compute "
                                "in the input's dtype, without converting it (.double(), .float(), .to(...)).")
                break
            if result.shape != want.shape or not torch.allclose(result, want, atol=1e-5):
                problems.append(f"{name} computes something else than {BREAKERS[name]} on {describe_input(x)}.")
                break
            if got.get("no_grad", {}).get(name) == i and want.requires_grad:
                problems.append(f"{name} returns a tensor outside autograd's graph on {describe_input(x)}, where "
                                f"{BREAKERS[name]}'s result requires grad: it computes with autograd off (torch.no_grad, "
                                "inference_mode) or detaches its result, so no gradient flows back to x. Compute as "
                                f"{BREAKERS[name]} does, with autograd on.")
                break
    return problems


def break_inputs(seed: int, shapes) -> list[torch.Tensor]:
    """Inputs of these shapes: random signs, all positive, all negative, random signs with a positive sum, small
    random signs (every magnitude below 1, where with_item does not divide), and random signs whose sum is exactly
    zero (halves, added exactly in any order: `sum > 0` is false there, `sum >= 0` true), and one large positive element
    among small negative ones (a positive sum, while most elements, and so the median, are negative), and the first
    input transposed (not contiguous: a view of it flat fails), and float64 pairs of opposite signs whose sum is a barely
    positive 2⁻⁴⁵ (a test `sum > eps` "to be safe from rounding" takes the wrong branch); and, after the small ones,
    the first input again, requiring grad (a function that computes without autograd, or detaches, returns a result
    no gradient flows through). The all-negative input and the 2⁻⁴⁵ one are float64, the others float32."""
    g = torch.Generator().manual_seed(seed)
    a = 3 * torch.randn(*shapes[0], generator=g)
    mixed = a.abs() - 0.5 * a.abs().mean()      # negative elements, positive sum
    small = 0.9 * (2 * torch.rand(*shapes[0], generator=g) - 1)
    numel = math.prod(shapes[0])
    halves = 0.5 * torch.randint(1, 5, (numel // 2,), generator=g).float()
    balanced = torch.cat([halves, -halves, torch.zeros(numel % 2)])[torch.randperm(numel, generator=g)]
    positive, negative = torch.rand(*shapes[1], generator=g) + 0.5, -torch.rand(*shapes[2], generator=g) - 0.5
    negative = negative.double()     # another floating dtype: the originals compute in the input's own dtype
    skewed = -(0.05 + 0.2 * torch.rand(numel, generator=g))      # small negative elements, and one large positive
    one = int(torch.randint(numel, (1,), generator=g))
    skewed[one] = 1.0 - (skewed.sum() - skewed[one])             # the sum is 1: positive, while most elements are not
    across = a.t() if a.dim() == 2 else a.transpose(0, -1)      # the same numbers, strided: not contiguous
    n = math.prod(shapes[2])    # float64 pairs ±1, ±0.5 ... and one 2⁻⁴⁵: every partial sum exact, the sum 2⁻⁴⁵ > 0
    pairs = 0.5 * torch.randint(1, 5, ((n - 1) // 2,), generator=g).double()
    barely = torch.cat([pairs, -pairs, torch.full((1,), 2.0 ** -45, dtype=torch.float64),
                        torch.zeros(n - 1 - 2 * len(pairs), dtype=torch.float64)])[torch.randperm(n, generator=g)]
    return [a, positive, negative, mixed, small, a.clone().requires_grad_(), balanced.reshape(shapes[0]),
            skewed.reshape(shapes[0]), across, barely.reshape(shapes[2])]


@register("01.no_breaks", points=3, exercise="3", title="the three functions without graph breaks",
          cases=break_inputs(1, ((4, 4), (16,), (16,))))
def _no_breaks(ctx: Context, inputs: list[torch.Tensor]) -> str:
    fail_if(no_break_problems(ctx.probe(probe_no_breaks, inputs), inputs))
    return "all three compile as one graph and match the originals"


# ---------------------------------------------------------------- 4: recompiles
def measured_compiles(fn, calls) -> int:
    """The checker's own count, from Dynamo's statistics (another way than the exercise's CompileCounter)."""
    stats = torch._dynamo.utils.counters["stats"]
    torch._dynamo.reset()
    before = stats["unique_graphs"]
    run = torch.compile(fn, backend="eager")
    for args in calls:
        run(*args)
    return stats["unique_graphs"] - before


_REFERENCE_COUNTS: dict = {}


def reference_compiles(fn, make_calls) -> int:
    """measured_compiles(fn, make_calls()), measured once per process for the same Dynamo settings (a count depends on
    nothing else: every measurement starts from a reset Dynamo), so that the checks of part 4 do not compile the
    grader's functions again on every run."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # (reading a setting torch deprecated warns)
        key = (fn, make_calls, repr(sorted(torch._dynamo.config.get_config_copy().items())))
    if key not in _REFERENCE_COUNTS:
        _REFERENCE_COUNTS[key] = measured_compiles(fn, make_calls())
    return _REFERENCE_COUNTS[key]


def scale(x, n):
    """The lab's function of part 4."""
    return x * n


def shift_scale(x, n):
    """Two ops in one graph: count_compiles counts the graphs (frames), not the ops in them."""
    return (x + 1) * n


def shift_calls() -> list[tuple]:
    """Another call sequence for count_compiles: sizes that go dynamic, a dtype, a size seen before."""
    return [(torch.ones(5), 2), (torch.ones(6), 2), (torch.ones(7), 2), (torch.ones(7, dtype=torch.float64), 2),
            (torch.ones(5), 2)]


def negate(x):
    """One argument: count_compiles makes each call with all of a call's arguments, however many there are."""
    return -x


def negate_calls() -> list[tuple]:
    """One-argument calls for count_compiles: a call seen before, a dtype."""
    return [(torch.ones(3),), (torch.ones(3),), (torch.ones(3, dtype=torch.float64),)]


def scale_then_break(x, n):
    """A graph break between two steps: every compile of the frame gives two graphs (CompileCounter counts both), and
    a new int n recompiles the graph before the break only (the one that reads n)."""
    y = x * n
    torch._dynamo.graph_break()
    return y + 1


def break_calls() -> list[tuple]:
    """Calls for count_compiles on scale_then_break: a call seen before, then a new int constant."""
    return [(torch.ones(3), 2), (torch.ones(3), 2), (torch.ones(3), 5)]


def lab_calls() -> list[tuple]:
    """The lab's call sequence of part 4 (the notebook's CALLS)."""
    return [(torch.ones(3), 2), (torch.ones(3), 2), (torch.ones(3), 3), (torch.ones(4), 2),
            (torch.ones(5), 2), (torch.ones(3, dtype=torch.float64), 2)]


@dataclass(frozen=True)
class RecompileCase:
    """The lab's sequence (for the prediction), and another sequence for count_compiles."""

    lab_compiles: int          # what Dynamo does on the lab's sequence
    fn: Callable
    calls: tuple
    compiles: int              # what Dynamo does on `calls`
    also: tuple = ()           # more (fn, calls, compiles) for count_compiles


def probe_prediction(learner: Learner) -> dict:
    """The learner's PREDICTED_COMPILES."""
    return {"predicted": learner.value("PREDICTED_COMPILES")}


def prediction_problems(info: dict, case: RecompileCase) -> list[str]:
    predicted = info["predicted"]
    if predicted is None:
        return ["PREDICTED_COMPILES is still None: write your prediction (a whole number) before you count."]
    if isinstance(predicted, str) and predicted.strip().isdigit():
        return [f"PREDICTED_COMPILES is the text {predicted!r}: write the prediction as a whole number, without quotes."]
    if predicted != case.lab_compiles:
        return [f"PREDICTED_COMPILES ({predicted!r}) is not how many times Dynamo compiles the lab's calls: work out "
                "which call fails which guard (the recompile log of the cell above tells)."]
    return []


def probe_count(learner: Learner, fn: Callable, calls: list, also: list = ()) -> dict:
    """count_compiles on the calls, after the function was compiled once already (as the notebook's cells leave it),
    then once more on the same calls (a count kept from an earlier call shows), then on each further (fn, calls)."""
    torch._dynamo.reset()
    warm = torch.compile(fn, backend="eager")     # the function compiled before: a count that does not start from a
    for args in calls:                             # reset Dynamo is then wrong
        warm(*args)
    with own_work("01.count_compiles", measured_compiles, reference_compiles):
        return _counts(learner, fn, calls, also)


def _counts(learner: Learner, fn: Callable, calls: list, also: list) -> dict:
    """count_compiles on the calls, twice, then on each further (fn, calls) (see probe_count)."""
    failed = compiles_not_counted
    given = list(calls)
    counted = call(learner, "count_compiles", fn, given, explain=failed)
    info = {"counted": counted, "again": call(learner, "count_compiles", fn, list(calls), explain=failed), "also": [],
            "raised": [], "changed": [id(c) for c in given] != [id(c) for c in calls]}
    for f, c in also:            # what these raise is judged after the counts above (a wrong count says more)
        try:
            info["also"].append(call(learner, "count_compiles", f, list(c), hint=" count_compiles makes each call with "
                                     "all of its arguments, compiled(*args), however many the function takes.",
                                     explain=failed))
        except LearnerError as err:
            info["also"].append(None)
            info["raised"].append(str(err))
    return info


def compiles_not_counted(err: Exception) -> str | None:
    """count_compiles raised: at a graph break under fullgraph=True, or in its backend."""
    from torch._dynamo.exc import Unsupported

    if isinstance(err, Unsupported):
        return ("`count_compiles` stopped at a graph break (Dynamo raised Unsupported): compiled with fullgraph=True "
                "(or nopython=True), a break is an error, and a function of the grader's has one. Compile fn without "
                "fullgraph, with a CompileCounter as the backend: it counts every graph Dynamo compiles, those on either "
                "side of a break too.")
    return backend_failed("count_compiles")(err)


def count_problems(info: dict, case: RecompileCase, reveal: bool) -> list[str]:
    advice = "reset Dynamo first, and count frames with torch._dynamo.testing.CompileCounter as the backend."
    if info["counted"] != case.compiles:
        on = "the lab's calls" if reveal else "the grader's own sequence of calls"
        return [f"count_compiles returned {info['counted']!r}, which disagrees with a CompileCounter on {on}: {advice}"]
    if info.get("again", info["counted"]) != info["counted"]:
        return [f"count_compiles returned {info['counted']!r}, then {info['again']!r} on the same calls: it keeps a "
                "count from an earlier call (make a fresh CompileCounter on every call)."]
    if info.get("changed"):
        return ["count_compiles changed the list of calls it was given (emptied it with pop, or reordered it): the "
                "caller's calls must stay as they were, for the cells after it. Loop over them, for args in calls."]
    if info.get("raised"):
        return info["raised"][:1]
    for (fn, calls, want), got in zip(case.also, info.get("also", [])):
        if got != want:
            on = f"{fn.__name__} over {len(calls)} calls" if reveal else "another of the grader's functions"
            return [f"count_compiles returned {got!r}, which disagrees with a CompileCounter on {on}: {advice} (its "
                    "frame_count counts the graphs compiled, not the ops in them)"]
    return []


def public_recompile_case() -> RecompileCase:
    lab = reference_compiles(scale, lab_calls)
    return RecompileCase(lab, scale, tuple(lab_calls()), lab,
                         ((shift_scale, tuple(shift_calls()), reference_compiles(shift_scale, shift_calls)),))


@register("01.recompiles", points=1, exercise="4", title="predict how many times Dynamo compiles the lab's calls",
          cases=public_recompile_case)
def _recompiles(ctx: Context, case: RecompileCase) -> str:
    fail_if(prediction_problems(ctx.probe(probe_prediction), case))
    return "the prediction matches what Dynamo does"


@register("01.count_compiles", points=1, exercise="4", title="count the compiles with a CompileCounter",
          cases=public_recompile_case)
def _count_compiles(ctx: Context, case: RecompileCase) -> str:
    case = replace(case, also=(*case.also, (negate, tuple(negate_calls()),      # every run: one argument
                                             reference_compiles(negate, negate_calls)),
                               (scale_then_break, tuple(break_calls()),         # ... and a graph break, a new int
                                reference_compiles(scale_then_break, break_calls))))
    fail_if(count_problems(ctx.probe(probe_count, case.fn, list(case.calls), [(f, list(c)) for f, c, _ in case.also]),
                           case, ctx.reveal))
    return "count_compiles agrees with Dynamo on every call sequence"


# ---------------------------------------------------------------- 5: export
class ExportHead(nn.Module):
    def __init__(self, d_in: int = 16, d_out: int = 8):
        super().__init__()
        self.fc = nn.Linear(d_in, d_out)

    def forward(self, x):
        return torch.softmax(self.fc(x), dim=-1)


@dataclass(frozen=True)
class ExportCase:
    seed: int
    d_in: int
    d_out: int
    example_batch: int
    max_batch: int
    batches: tuple

    def model(self) -> ExportHead:
        torch.manual_seed(self.seed)
        return ExportHead(self.d_in, self.d_out).eval()

    def inputs(self) -> list[torch.Tensor]:
        g = torch.Generator().manual_seed(self.seed + 1)
        return [torch.randn(b, self.d_in, generator=g) for b in self.batches]


def shape_mismatch(err: Exception) -> str | None:
    """What to say when the model itself raised while export_dynamic exported it: torch.export's own complaints (about
    the Dims) are TorchDynamoExceptions, a plain RuntimeError is the model refusing the input it was traced on."""
    if type(err) is RuntimeError:
        return ("`export_dynamic` failed inside the model (a shape mismatch): export on `example`, the input it is "
                "given, not on a tensor of your own, and export `model`, the model it is given, not the notebook's "
                "`head` (the check's model takes another number of features than the notebook's Head).")
    return None


def batch_range(program: torch.export.ExportedProgram) -> list | None:
    """[lower, upper] of the range the program declares for dimension 0 of its input; None when that is static."""
    names = set(program.graph_signature.user_inputs)
    size = next((n.meta["val"].shape[0] for n in program.graph.nodes if n.op == "placeholder" and n.name in names), None)
    if not isinstance(size, torch.SymInt):
        return None
    bounds = program.range_constraints.get(size.node.expr)
    return None if bounds is None else [str(bounds.lower), str(bounds.upper)]


def probe_export(learner: Learner, case: ExportCase) -> dict:
    """export_dynamic on the case's model: outputs at each batch, whether max_batch + 1 is refused, the batch range it
    declares, save and load."""
    model = case.model()
    args, kwargs = named(learner, "export_dynamic", (model, torch.randn(case.example_batch, case.d_in)),
                         {"max_batch": case.max_batch})
    program = call(learner, "export_dynamic", *args, **kwargs,
                   hint=" Declare dimension 0 of the example (the batch) dynamic: dynamic_shapes=({0: Dim},), one "
                        "entry per argument of forward in order, or a dict keyed by the name of forward's argument, "
                        "{name: {0: Dim}}.", explain=shape_mismatch)
    if not isinstance(program, torch.export.ExportedProgram):
        return {"type": type(program).__name__}
    info = {"type": "ExportedProgram", "outs": [], "batch_range": batch_range(program)}
    for x in case.inputs():
        try:
            info["outs"].append(program.module()(x))
        except Exception as err:
            info["outs"].append(f"{type(err).__name__}")
    try:
        program.module()(torch.randn(case.max_batch + 1, case.d_in))
        info["refused"] = False
    except Exception:
        info["refused"] = True
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.pt2"
        loaded = call(learner, "save_and_load", program, path,
                      hint=" Save with torch.export.save and load it back with torch.export.load.")
        info["saved_bytes"] = path.stat().st_size if path.is_file() else 0
        info["same_object"] = loaded is program
        info["loaded_type"] = type(loaded).__name__
        try:
            info["loaded"] = loaded.module()(case.inputs()[1]) if isinstance(loaded, torch.export.ExportedProgram) else None
        except Exception as err:
            info["loaded"] = type(err).__name__
    return info


def export_problems(info: dict, case: ExportCase, reveal: bool) -> list[str]:
    """Whether the exported program runs at each batch, matches eager, refuses max_batch + 1, and survives save/load."""
    if info["type"] != "ExportedProgram":
        return [f"export_dynamic should return an ExportedProgram, not a {info['type']}."]
    model = case.model()
    with torch.no_grad():
        wants = [model(x) for x in case.inputs()]
    for b, got, want in zip(case.batches, info["outs"], wants):
        batch = f"batch {b}" if reveal else "one of the grader's batch sizes"
        if isinstance(got, str):
            top = " (max_batch itself: a Dim's max is inclusive)" if b == case.max_batch else ""
            return [f"the exported program fails at {batch}{top} ({got}): is dimension 0 declared dynamic, with a Dim "
                    "from 1 to max_batch?"]
        if got.shape != want.shape or not torch.allclose(got, want, atol=1e-6):
            return [f"at {batch} the exported program differs from eager: does export_dynamic export the `model` it is "
                    "given (not the notebook's `head`)?"]
    if not info["refused"]:
        return ["the exported program accepted a batch above max_batch; its Dim should stop at max_batch: declare "
                "the batch in dynamic_shapes with torch.export.Dim(..., max=max_batch) (a Dim without a max, "
                "Dim.DYNAMIC or mark_dynamic leave it unbounded)."]
    lower = (info.get("batch_range") or ["0"])[0]
    if lower.isdigit() and int(lower) > 1:
        return [f"the exported program declares its batch from {lower}: batch 1 lies outside the range it promises to "
                "handle (torch does not stop it at run time, but nothing guarantees its result there). Declare a named "
                "Dim from 1 to max_batch, torch.export.Dim(\"batch\", min=1, max=max_batch): the hints Dim.DYNAMIC and "
                "Dim.AUTO start a dynamic size at 2, whatever min they are given."]
    if not info.get("saved_bytes"):
        return ["save_and_load wrote nothing at the path it was given: save the program there with torch.export.save, "
                "then load it back with torch.export.load."]
    if info.get("same_object"):
        return ["save_and_load returned the very program it was given: return what torch.export.load gives back from "
                "the file (that is what proves the file holds the whole program)."]
    if info.get("loaded_type") != "ExportedProgram":
        return [f"save_and_load returned {'None' if info.get('loaded_type') == 'NoneType' else 'a ' + str(info.get('loaded_type'))}: "
                "return what torch.export.load(path) gives back, an ExportedProgram."]
    loaded = info["loaded"]
    if not isinstance(loaded, torch.Tensor) or loaded.shape != wants[1].shape or not torch.allclose(loaded, wants[1], atol=1e-6):
        return ["save_and_load should return the loaded ExportedProgram, computing what the model computes."]
    return []


@register("01.export", points=2, exercise="5", title="export with a dynamic batch, save and load",
          cases=[ExportCase(seed=5, d_in=10, d_out=6, example_batch=4, max_batch=32, batches=(1, 3, 32))])
def _export(ctx: Context, cases: list[ExportCase]) -> str:
    for case in cases:
        fail_if(export_problems(ctx.probe(probe_export, case), case, ctx.reveal))
    return "dynamic up to max_batch, refuses more, and survives save/load"


# ---------------------------------------------------------------- 6: traffic model
@dataclass(frozen=True)
class TrafficCases:
    moved: tuple           # (numel, n_ops, fused, bytes_per_element or None for the default, expected bytes)
    speedups: tuple        # n_ops whose predicted speedup is n_ops
    payoff: bool           # also look at the notebook's payoff table


def probe_traffic(learner: Learner, moved: list[tuple], speedups: list[int], payoff: bool) -> dict:
    """bytes_moved on each (numel, n_ops, fused, bytes_per_element), predicted_speedup on each n_ops, the payoff table."""
    keys = ("fused", "bytes_per_element")
    info = {"moved": [call(learner, "bytes_moved", *a, **k) for a, k in
                      (named(learner, "bytes_moved", tuple(args[:2]), dict(zip(keys, args[2:]))) for args in moved)],
            "speedups": [call(learner, "predicted_speedup", k) for k in speedups]}
    if payoff:
        info["payoff"] = learner.value("payoff")
    return info


def traffic_problems(info: dict, cases: TrafficCases, reveal: bool) -> list[str]:
    for (numel, n_ops, fused, bpe, want), got in zip(cases.moved, info["moved"]):
        if got != want:
            args = f"{numel}, {n_ops}, fused={fused}" + ("" if bpe is None else f", bytes_per_element={bpe}")
            said = f"bytes_moved({args}) returned {got!r}, which" \
                if reveal else "bytes_moved is wrong on the grader's cases (other dtypes and op counts): it"
            default = (" Called without bytes_per_element, it counts the float32 elements the chain runs on (keep "
                       "the signature's default).") if bpe is None else ""
            return [f"{said} does not follow the rule: every kernel reads its input once and writes its output once, "
                    f"and fused there is one kernel.{default}"]
    for n_ops, got in zip(cases.speedups, info["speedups"]):
        if not isinstance(got, (int, float)) or not math.isclose(got, n_ops):
            return [f"predicted_speedup({n_ops}) returned {got!r}, which is not eager's bytes over the fused kernel's bytes."]
    rows = info.get("payoff")
    if cases.payoff and (not isinstance(rows, list) or not rows or not all(
            isinstance(r, dict) and isinstance(r.get("eager_ms"), (int, float)) and r["eager_ms"] > 0
            and isinstance(r.get("compiled_ms"), (int, float)) and r["compiled_ms"] > 0 for r in rows)):
        return ["the payoff table should hold measured eager and compiled times for each size."]
    return []


@register("01.traffic_model", points=2, exercise="6", title="the memory-traffic model of the fused chain",
          cases=TrafficCases(((1000, 5, False, 4, 40000), (1000, 5, True, 4, 8000), (10, 3, False, 2, 120),
                              (7, 1, True, 8, 112), (250, 5, False, None, 10000)),
                             (1, 5, 8), True))
def _traffic(ctx: Context, cases: TrafficCases) -> str:
    info = ctx.probe(probe_traffic, [m[:4] if m[3] is not None else m[:3] for m in cases.moved], list(cases.speedups),
                     cases.payoff)
    fail_if(traffic_problems(info, cases, ctx.reveal))
    return "the byte counts and the predicted speedup are right"
