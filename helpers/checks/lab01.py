"""Lab 01 — Eager vs graph: the acceptance checks.

The validators here are shared with the grader's hidden checks, which call them
on inputs the notebook never saw. Timing results are checked for shape and
ordering with wide margins only, never against thresholds that could flake.
"""

from __future__ import annotations

import math
import warnings

import torch
import torch.nn as nn

from helpers.checks import CheckFailed, Context, fail_if, register

LAB = "01"
METHODS = ("torch.jit.trace", "torch.jit.script", "torch.fx.symbolic_trace", "torch.compile", "torch.export")
COLUMNS = {
    "control_flow": ("baked", "kept", "error", "graph break", "torch.cond"),
    "dynamic_shapes": ("baked", "dynamic", "error", "specialized"),
    "python_coverage": ("tensor ops only", "typed subset", "no data-dependent control flow",
                        "any (falls back to Python)", "one graph only"),
    "serialisable": (True, False),
}
PYTHON_COVERAGE = {"torch.jit.trace": "tensor ops only", "torch.jit.script": "typed subset",
                   "torch.fx.symbolic_trace": "no data-dependent control flow",
                   "torch.compile": "any (falls back to Python)", "torch.export": "one graph only"}



# ---------------------------------------------------------------- 1: dispatch overhead
def synthetic_op_rows(floor_us: float, per_element_ns: float, sizes) -> list[dict]:
    """Rows as time_op_sweep returns them, from a fixed cost plus a cost per element."""
    rows = []
    for n in sizes:
        t = floor_us + per_element_ns * n / 1e3
        rows.append({"numel": n, "median_us": t, "q25_us": 0.95 * t, "q75_us": 1.05 * t})
    return rows


def knee_problems(overhead_floor_us, first_size_beyond_overhead, cases) -> list[str]:
    """Wrong answers of the learner's floor/knee functions on (rows, floor, knee) cases."""
    for rows, want_floor, want_knee, about in cases:
        answer = overhead_floor_us(rows)
        if not isinstance(answer, (int, float)) or not math.isclose(answer, want_floor, rel_tol=1e-6):
            return [f"overhead_floor_us gave {answer!r} on {about}; expected {want_floor:g} (median of the three smallest sizes)."]
        knee = first_size_beyond_overhead(rows, 2.0)
        if knee != want_knee:
            return [f"first_size_beyond_overhead gave {knee!r} on {about}; expected {want_knee!r}."]
    return []


PUBLIC_KNEE_CASES = (
    (synthetic_op_rows(4.0, 0.5, [10**k for k in range(8)]), 4.005, 10**4, "4 µs + 0.5 ns per element, sizes 1…10⁷"),
    (synthetic_op_rows(10.0, 0.0, [1, 10, 100]), 10.0, None, "a flat 10 µs (never beyond the overhead)"),
)


@register("01.dispatch", points=2, exercise="1", title="the fixed cost of one op, and where the work takes over")
def _dispatch(ctx: Context) -> str:
    problems = knee_problems(lambda r: ctx.call("overhead_floor_us", r),
                             lambda r, f: ctx.call("first_size_beyond_overhead", r, f), PUBLIC_KNEE_CASES)
    rows = ctx.get("op_rows")
    if not problems:
        sizes = [r.get("numel") for r in rows] if isinstance(rows, list) else []
        if len(sizes) < 6 or max(sizes) / max(1, min(sizes)) < 1e5:
            problems.append("time_op_sweep should return one row per size, over at least 6 sizes spanning 10⁵×.")
        elif not all(isinstance(r.get("median_us"), (int, float)) and r["median_us"] > 0 for r in rows):
            problems.append("every row of time_op_sweep needs a positive median_us.")
        elif max(rows, key=lambda r: r["numel"])["median_us"] <= min(r["median_us"] for r in rows):
            problems.append("your largest size is not slower than the smallest: is the op timed on a tensor of that size?")
    fail_if(problems)
    return "the floor and the knee are right, and the sweep spans the sizes"


def fit_problems(fit_per_op_us) -> list[str]:
    """Wrong answers of the learner's least-squares fit on exact and noisy lines."""
    cases = (([1, 2, 4, 8], 3.0, 1.5), ([1, 3, 5], 0.25, 10.0), ([2, 4, 6, 8, 10], 5.0, 0.0))
    for ks, slope, intercept in cases:
        rows = [{"n_ops": k, "median_us": slope * k + intercept} for k in ks]
        got = fit_per_op_us(rows)
        try:
            s, b = (float(v) for v in got)
        except (TypeError, ValueError):
            return [f"fit_per_op_us should return (slope, intercept); it returned {got!r}."]
        if not (math.isclose(s, slope, rel_tol=1e-6) and math.isclose(b, intercept, rel_tol=1e-6, abs_tol=1e-9)):
            return [f"on points exactly on the line {slope:g}·k + {intercept:g}, fit_per_op_us returned ({s:.4g}, {b:.4g})."]
    noisy = [{"n_ops": 1, "median_us": 5.0}, {"n_ops": 2, "median_us": 9.0}, {"n_ops": 3, "median_us": 10.0}]
    s, b = (float(v) for v in fit_per_op_us(noisy))
    if not (math.isclose(s, 2.5, rel_tol=1e-6) and math.isclose(b, 3.0, rel_tol=1e-6)):
        return [f"on (1, 5), (2, 9), (3, 10) the least-squares line is 2.5·k + 3; fit_per_op_us returned ({s:.4g}, {b:.4g})."]
    return []


@register("01.per_op", points=2, exercise="1", title="the overhead adds up per op in a chain")
def _per_op(ctx: Context) -> str:
    problems = fit_problems(lambda rows: ctx.call("fit_per_op_us", rows))
    rows = ctx.get("chain_rows")
    if not problems:
        by_k = {r["n_ops"]: r["median_us"] for r in rows}
        if 8 not in by_k or 1 not in by_k:
            problems.append("chain_rows should hold chains of 1 and 8 ops.")
        elif by_k[8] < 2 * by_k[1]:
            problems.append(f"8 ops took {by_k[8]:.1f} µs and 1 op {by_k[1]:.1f} µs: a chain of tiny ops should cost about 8× one op.")
    fail_if(problems)
    return "the fit is right, and 8 tiny ops cost several times one"


# ---------------------------------------------------------------- 2: capture table
class Branchy(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x * -1


class BranchyCond(nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t * -1, (x,))


class ShapeUser(nn.Module):
    def forward(self, x):
        return x * len(x)


def _serialisable(make) -> bool:
    """True when the captured object round-trips through a file without its Python class."""
    import io

    try:
        buf = io.BytesIO()
        obj = make()
        if isinstance(obj, torch.export.ExportedProgram):
            torch.export.save(obj, buf)
        else:
            torch.jit.save(obj, buf)
        return True
    except Exception:
        return False


def observed_capture_table() -> dict[str, dict]:
    """Run the experiments and return what each capture method did (the truth the table is checked against)."""
    pos, neg = torch.ones(4), -torch.ones(4)
    short, long_ = torch.ones(4), torch.ones(6)
    table: dict[str, dict] = {m: {"python_coverage": PYTHON_COVERAGE[m]} for m in METHODS}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(Branchy(), pos)
        table["torch.jit.trace"]["control_flow"] = "kept" if torch.equal(traced(neg), -neg) else "baked"
        table["torch.jit.trace"]["dynamic_shapes"] = "dynamic" if torch.equal(torch.jit.trace(ShapeUser(), short)(long_), long_ * 6) else "baked"
        table["torch.jit.trace"]["serialisable"] = _serialisable(lambda: torch.jit.trace(Branchy(), pos))
        scripted = torch.jit.script(Branchy())
        table["torch.jit.script"]["control_flow"] = "kept" if torch.equal(scripted(neg), -neg) else "baked"
        table["torch.jit.script"]["dynamic_shapes"] = "dynamic" if torch.equal(torch.jit.script(ShapeUser())(long_), long_ * 6) else "baked"
        table["torch.jit.script"]["serialisable"] = _serialisable(lambda: torch.jit.script(Branchy()))
    try:
        torch.fx.symbolic_trace(Branchy())
        table["torch.fx.symbolic_trace"]["control_flow"] = "kept"
    except Exception:
        table["torch.fx.symbolic_trace"]["control_flow"] = "error"
    try:
        fx_shape = torch.fx.symbolic_trace(ShapeUser())
        table["torch.fx.symbolic_trace"]["dynamic_shapes"] = "dynamic" if torch.equal(fx_shape(long_), long_ * 6) else "baked"
    except Exception:
        table["torch.fx.symbolic_trace"]["dynamic_shapes"] = "error"
    table["torch.fx.symbolic_trace"]["serialisable"] = _serialisable(lambda: torch.fx.symbolic_trace(nn.Linear(2, 2)))
    explained = torch._dynamo.explain(Branchy())(neg)
    table["torch.compile"]["control_flow"] = "graph break" if explained.graph_break_count > 0 else "kept"
    compiled_shape = torch.compile(ShapeUser(), backend="eager")
    compiled_shape(short)
    table["torch.compile"]["dynamic_shapes"] = "dynamic" if torch.equal(compiled_shape(long_), long_ * 6) else "baked"
    table["torch.compile"]["serialisable"] = False   # nothing to save: Dynamo's cache lives in this process
    try:
        torch.export.export(Branchy(), (pos,))
        plain = "kept"
    except Exception:
        plain = "error"
    cond_ok = torch.equal(torch.export.export(BranchyCond(), (pos,)).module()(neg), -neg)
    table["torch.export"]["control_flow"] = "torch.cond" if plain == "error" and cond_ok else plain
    try:
        torch.export.export(ShapeUser(), (short,)).module()(long_)
        table["torch.export"]["dynamic_shapes"] = "dynamic"
    except Exception:
        table["torch.export"]["dynamic_shapes"] = "specialized"
    table["torch.export"]["serialisable"] = _serialisable(lambda: torch.export.export(BranchyCond(), (pos,)))
    return table


_OBSERVED: dict | None = None


def capture_table_problems(table, observed) -> list[str]:
    """Every cell of the learner's table that the experiments contradict, each with what the experiment showed."""
    if not isinstance(table, dict):
        return ["CAPTURE_TABLE should be a dict {method: {column: value}}."]
    missing = [m for m in METHODS if m not in table]
    if missing:
        return [f"CAPTURE_TABLE lacks {', '.join(missing)}."]
    problems = []
    for method in METHODS:
        row = table[method] if isinstance(table[method], dict) else {}
        for column, allowed in COLUMNS.items():
            value = row.get(column)
            if value not in allowed:
                problems.append(f"{method} / {column} is {value!r}; use one of {', '.join(map(repr, allowed))}.")
            elif value != observed[method][column]:
                problems.append(f"{method} / {column}: you wrote {value!r}, but the experiment shows {observed[method][column]!r}.")
    return problems[:4] + ([f"... and {len(problems) - 4} more."] if len(problems) > 4 else [])


@register("01.capture_table", points=3, exercise="2", title="the capture-method table agrees with the experiments")
def _capture_table(ctx: Context) -> str:
    global _OBSERVED
    if _OBSERVED is None:
        _OBSERVED = observed_capture_table()
    fail_if(capture_table_problems(ctx.get("CAPTURE_TABLE"), _OBSERVED))
    return "every cell of the table matches what the experiments did"


# ---------------------------------------------------------------- 3: Dynamo backends and graph breaks
def two_graphs(x):
    """A function with one graph break (a print): Dynamo hands two graphs to the backend."""
    y = x.sin() + 1
    print("break", end="\r")
    return y.cos() * 2


@register("01.recording_backend", points=2, exercise="3", title="a backend that records every graph it receives")
def _recording_backend(ctx: Context) -> str:
    torch._dynamo.reset()
    backend, graphs = ctx.call("make_recording_backend")
    x = torch.randn(5)
    out = torch.compile(two_graphs, backend=backend)(x)
    problems = []
    if not torch.allclose(out, two_graphs(x)):
        problems.append("the compiled function gave a different result: the backend must return something that runs the graph (gm.forward).")
    if len(graphs) != 2 or not all(isinstance(g, torch.fx.GraphModule) for g in graphs):
        problems.append(f"a function with one graph break should leave 2 GraphModules in the list; it holds {len(graphs)} "
                        f"({', '.join(type(g).__name__ for g in graphs)}).")
    n = ctx.call("count_graphs", two_graphs, x)
    if n != 2:
        problems.append(f"count_graphs on a function with one print returned {n!r}; expected 2 (did you reset Dynamo first?).")
    fail_if(problems)
    return "records both graphs of a function with one break"


BREAKERS = {"no_print": "with_print", "no_item": "with_item", "no_branch": "with_branch"}


def references():
    """The three functions with breaks, as the notebook defines them."""
    def with_print(x):
        y = x.sin()
        return y.cos()

    def with_item(x):
        return x / x.max().item() + 1

    def with_branch(x):
        y = x * 3
        return y.relu() if y.sum() > 0 else -y

    return {"no_print": with_print, "no_item": with_item, "no_branch": with_branch}


def no_break_problems(call, inputs) -> list[str]:
    """Which fixed functions break the graph or compute something else, on these inputs."""
    problems = []
    refs = references()
    for name, ref in refs.items():
        torch._dynamo.reset()
        for x in inputs:
            try:
                got = call(name, x)
            except CheckFailed:
                raise
            except Exception as err:
                problems.append(f"{name} does not compile with fullgraph=True ({type(err).__name__}: {str(err).splitlines()[0][:90]}).")
                break
            want = ref(x)
            if not isinstance(got, torch.Tensor) or got.shape != want.shape or not torch.allclose(got, want, atol=1e-5):
                problems.append(f"{name} computes something else than {BREAKERS[name]} on an input whose sum is "
                                f"{'positive' if x.sum() > 0 else 'negative'}.")
                break
    return problems


@register("01.no_breaks", points=3, exercise="3", title="the three functions without graph breaks")
def _no_breaks(ctx: Context) -> str:
    def call(name, x):
        fn = ctx.get(name)
        try:
            return torch.compile(fn, fullgraph=True, backend="eager")(x)
        except NotImplementedError:
            raise CheckFailed(f"`{name}` is not written yet.") from None

    torch.manual_seed(1)
    inputs = [torch.randn(16), torch.randn(16).abs() + 0.1, -torch.randn(16).abs() - 0.1]
    fail_if(no_break_problems(call, inputs))
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


def _scale(x, n):
    return x * n


@register("01.recompiles", points=2, exercise="4", title="predict and count recompiles; avoid them with dynamic shapes")
def _recompiles(ctx: Context) -> str:
    calls = ctx.get("CALLS")
    want = measured_compiles(_scale, calls)
    problems = []
    predicted = ctx.get("PREDICTED_COMPILES")
    if predicted != want:
        problems.append(f"PREDICTED_COMPILES is {predicted!r}, but Dynamo compiled {want} times: work out which call fails which guard.")
    got = ctx.call("count_compiles", _scale, calls)
    if got != want:
        problems.append(f"count_compiles returned {got!r}; a CompileCounter counted {want}.")
    from torch._dynamo.testing import CompileCounter

    torch._dynamo.reset()
    counter = CompileCounter()
    fn = ctx.call("compile_dynamic", lambda t: (t * 2).sum(), counter)
    for n in (3, 5, 9, 17):
        fn(torch.ones(n))
    if counter.frame_count != 1:
        problems.append(f"compile_dynamic's function compiled {counter.frame_count} times for 4 sizes; it should compile once.")
    fail_if(problems)
    return f"{want} compiles, predicted and counted; one compile for every size with dynamic shapes"


# ---------------------------------------------------------------- 5: export
class ExportHead(nn.Module):
    def __init__(self, d_in: int = 16, d_out: int = 8):
        super().__init__()
        self.fc = nn.Linear(d_in, d_out)

    def forward(self, x):
        return torch.softmax(self.fc(x), dim=-1)


def export_problems(program, model, d_in: int, max_batch: int, loaded=None) -> list[str]:
    """Whether an exported program runs at batches 1..max_batch, matches eager, and refuses max_batch + 1."""
    if not isinstance(program, torch.export.ExportedProgram):
        return [f"export_dynamic should return an ExportedProgram, not a {type(program).__name__}."]
    for b in (1, 3, max_batch):
        x = torch.randn(b, d_in)
        try:
            got = program.module()(x)
        except Exception as err:
            return [f"the exported program fails at batch {b} ({type(err).__name__}): is dimension 0 declared dynamic?"]
        if not torch.allclose(got, model(x), atol=1e-6):
            return [f"at batch {b} the exported program differs from eager."]
    try:
        program.module()(torch.randn(max_batch + 1, d_in))
        return [f"the exported program accepted batch {max_batch + 1}; its Dim should stop at max_batch."]
    except Exception:
        pass
    if loaded is not None:
        x = torch.randn(2, d_in)
        if not isinstance(loaded, torch.export.ExportedProgram) or not torch.allclose(loaded.module()(x), model(x), atol=1e-6):
            return ["save_and_load should return the loaded ExportedProgram, computing what the model computes."]
    return []


@register("01.export", points=2, exercise="5", title="export with a dynamic batch, save and load")
def _export(ctx: Context) -> str:
    import tempfile
    from pathlib import Path

    torch.manual_seed(5)
    model = ExportHead().eval()
    program = ctx.call("export_dynamic", model, torch.randn(4, 16), 32)
    with tempfile.TemporaryDirectory() as tmp:
        loaded = ctx.call("save_and_load", program, Path(tmp) / "p.pt2")
        problems = export_problems(program, model, 16, 32, loaded)
    fail_if(problems)
    return "dynamic in [1, 32], refuses 33, and survives save/load"


# ---------------------------------------------------------------- 6: traffic model
def traffic_problems(bytes_moved, predicted_speedup) -> list[str]:
    """Wrong answers of the learner's traffic model."""
    cases = ((1000, 5, False, 4, 40000), (1000, 5, True, 4, 8000), (10, 3, False, 2, 120), (7, 1, True, 8, 112))
    for numel, n_ops, fused, bpe, want in cases:
        got = bytes_moved(numel, n_ops, fused, bpe)
        if got != want:
            return [f"bytes_moved({numel}, {n_ops}, fused={fused}, bytes_per_element={bpe}) returned {got!r}; expected {want} "
                    "(every kernel reads its input once and writes its output once)."]
    for n_ops in (1, 5, 8):
        got = predicted_speedup(n_ops)
        if not isinstance(got, (int, float)) or not math.isclose(got, n_ops):
            return [f"predicted_speedup({n_ops}) returned {got!r}; expected {n_ops}."]
    return []


@register("01.traffic_model", points=2, exercise="6", title="the memory-traffic model of the fused chain")
def _traffic(ctx: Context) -> str:
    problems = traffic_problems(lambda *a: ctx.call("bytes_moved", *a), lambda n: ctx.call("predicted_speedup", n))
    rows = ctx.get("payoff")
    if not problems and (not rows or not all(r.get("eager_ms", 0) > 0 and r.get("compiled_ms", 0) > 0 for r in rows)):
        problems.append("the payoff table should hold measured eager and compiled times for each size.")
    fail_if(problems)
    return "the byte counts and the predicted speedup are right"
