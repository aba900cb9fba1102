"""Lab 01 hidden cases: the grader's cases and reference answers for the checks in helpers/checks/lab01.py.

Never released. Cases only: unordered and noisy rows and sizes that are not powers of ten for the knee, a negative
intercept for the fit, a function with two breaks, other inputs, another call sequence, another model to export, other
dtypes and the default one for the traffic model. What Dynamo and the capture methods do on this machine is measured
once per batch by the grader (REFERENCES), never in the learner's kernel.
"""

from __future__ import annotations

import contextlib
import io
import warnings

import torch
import torch.nn as nn
from hidden_inputs import lab01 as inputs

from helpers.checks import lab01 as public

# ---------------------------------------------------------------- 01.capture_table: the grader's own experiments
# The notebook's check judges the learner's table against what their own part-2 cells recorded (capture_seen); the
# grader runs the same experiments here, in a process of its own, and knows the python_coverage column, which only
# it judges.
PYTHON_COVERAGE = {"torch.jit.trace": "tensor ops only", "torch.jit.script": "typed subset",
                   "torch.fx.symbolic_trace": "no data-dependent control flow",
                   "torch.compile": "any (falls back to Python)", "torch.export": "one graph only"}


class BranchModel(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x * -1


class CondModel(nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t * -1, (x,))


class LenModel(nn.Module):
    def forward(self, x):
        return x * len(x)


class SavedModel(nn.Module):
    """A model every capture method can capture: the serialisation experiment saves each capture of it."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.fc(x)) * 2


SOURCE_MODULE = "lab01_learner_source"    # where SavedModel lives while saving; gone while loading


def serialisation_experiment() -> dict[str, bool]:
    """Capture SavedModel five ways, save each with its method's own way of saving (jit.save, pickle, export.save), then
    load each with SavedModel's module gone, as on a machine without the Python source: True when it loads and computes
    what the model computes. The same experiment as the notebook's part-2 cell."""
    model, x = SavedModel().eval(), torch.randn(2, 4)
    want = model(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        captured = {"torch.jit.trace": torch.jit.trace(model, x), "torch.jit.script": torch.jit.script(model),
                    "torch.fx.symbolic_trace": torch.fx.symbolic_trace(model),
                    "torch.compile": torch.compile(model, backend="eager"),
                    "torch.export": torch.export.export(model, (x,))}
    captured["torch.compile"](x)
    with warnings.catch_warnings():         # jit.save and jit.load are deprecated: hide that here
        warnings.simplefilter("ignore")
        return _save_and_load(captured, x, want)


def _save_and_load(captured: dict, x: torch.Tensor, want: torch.Tensor) -> dict[str, bool]:
    """The second half of serialisation_experiment: save with SavedModel's module present, load with it gone."""
    import pickle
    import sys
    import types

    blobs: dict[str, bytes | None] = {}
    old_module = SavedModel.__module__
    SavedModel.__module__ = SOURCE_MODULE
    sys.modules[SOURCE_MODULE] = types.SimpleNamespace(SavedModel=SavedModel)
    try:
        for method, obj in captured.items():
            buf = io.BytesIO()
            try:
                if method.startswith("torch.jit"):
                    torch.jit.save(obj, buf)
                elif method == "torch.export":
                    torch.export.save(obj, buf)
                else:
                    pickle.dump(obj, buf)
                blobs[method] = buf.getvalue()
            except Exception:
                blobs[method] = None
    finally:
        del sys.modules[SOURCE_MODULE]
    out = {}
    try:
        for method, blob in blobs.items():
            if blob is None:
                out[method] = False
                continue
            try:
                buf = io.BytesIO(blob)
                if method.startswith("torch.jit"):
                    run = torch.jit.load(buf)
                elif method == "torch.export":
                    run = torch.export.load(buf).module()
                else:
                    run = pickle.load(buf)
                out[method] = bool(torch.allclose(run(x), want))
            except Exception:
                out[method] = False
    finally:
        SavedModel.__module__ = old_module
    torch._dynamo.reset()
    return out


@contextlib.contextmanager
def quiet_stderr():
    """Hide what torch prints to stderr on a failed capture (torch.export prints the partial graph, and the
    shape solver logs a warning about data-dependent sizes)."""
    import logging

    shapes = logging.getLogger("torch.fx.experimental.symbolic_shapes")
    level = shapes.level
    shapes.setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        shapes.setLevel(level)


def observed_capture_table() -> dict[str, dict]:
    """Run the experiments and return what each capture method did (the truth the table is checked against)."""
    pos, neg = torch.ones(4), -torch.ones(4)
    short, long_ = torch.ones(4), torch.ones(6)
    table: dict[str, dict] = {m: {"python_coverage": PYTHON_COVERAGE[m]} for m in public.METHODS}
    for method, ok in serialisation_experiment().items():
        table[method]["serialisable"] = ok
    with warnings.catch_warnings(), quiet_stderr():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(BranchModel(), pos)
        table["torch.jit.trace"]["control_flow"] = "kept" if torch.equal(traced(neg), -neg) else "baked"
        table["torch.jit.trace"]["dynamic_shapes"] = "dynamic" if torch.equal(torch.jit.trace(LenModel(), short)(long_), long_ * 6) else "baked"
        scripted = torch.jit.script(BranchModel())
        table["torch.jit.script"]["control_flow"] = "kept" if torch.equal(scripted(neg), -neg) else "baked"
        table["torch.jit.script"]["dynamic_shapes"] = "dynamic" if torch.equal(torch.jit.script(LenModel())(long_), long_ * 6) else "baked"
        _fx_compile_export(pos, neg, short, long_, table)
    torch._dynamo.reset()
    return table


def _fx_compile_export(pos, neg, short, long_, table: dict) -> None:
    """The fx, torch.compile and torch.export rows of the capture experiments, written into `table`."""
    try:
        torch.fx.symbolic_trace(BranchModel())
        table["torch.fx.symbolic_trace"]["control_flow"] = "kept"
    except Exception:
        table["torch.fx.symbolic_trace"]["control_flow"] = "error"
    try:
        fx_shape = torch.fx.symbolic_trace(LenModel())
        table["torch.fx.symbolic_trace"]["dynamic_shapes"] = "dynamic" if torch.equal(fx_shape(long_), long_ * 6) else "baked"
    except Exception:
        table["torch.fx.symbolic_trace"]["dynamic_shapes"] = "error"
    explained = torch._dynamo.explain(BranchModel())(neg)
    table["torch.compile"]["control_flow"] = "graph break" if explained.graph_break_count > 0 else "kept"
    compiled_shape = torch.compile(LenModel(), backend="eager")
    compiled_shape(short)
    table["torch.compile"]["dynamic_shapes"] = "dynamic" if torch.equal(compiled_shape(long_), long_ * 6) else "baked"
    try:
        torch.export.export(BranchModel(), (pos,))
        plain = "kept"
    except Exception:
        plain = "error"
    cond_ok = torch.equal(torch.export.export(CondModel(), (pos,)).module()(neg), -neg)
    table["torch.export"]["control_flow"] = "torch.cond" if plain == "error" and cond_ok else plain
    try:
        torch.export.export(LenModel(), (short,)).module()(long_)
        table["torch.export"]["dynamic_shapes"] = "dynamic"
    except Exception:
        table["torch.export"]["dynamic_shapes"] = "specialized"





def _unsorted(rows):
    return rows[3:] + rows[:3]


# Rows of 2 × 3 (two sizes that differ: with dynamic=True, duck sizing would otherwise tie them), a float n, three more
# batch sizes (the first makes the size dynamic, the next reuse it), a dtype: a count of distinct calls, of calls, or
# with dynamic=True or dynamic=False, each gives another number than Dynamo's.
HIDDEN_CALLS = ((torch.ones(2, 3), 1), (torch.ones(2, 3), 1), (torch.ones(2, 3), 1.5), (torch.ones(4, 3), 1),
                (torch.ones(5, 3), 1), (torch.ones(6, 3), 1), (torch.ones(2, 3, dtype=torch.float16), 1))


def dynamo_counts() -> dict:
    """How many graphs Dynamo compiles for the lab's sequence and for the grader's own, on this machine."""
    return {"lab": public.measured_compiles(public.scale, public.lab_calls()),
            "hidden": public.measured_compiles(inputs.times, list(HIDDEN_CALLS))}


REFERENCES = {"capture_table": observed_capture_table, "compiles": dynamo_counts}


def recompile_case(refs: dict) -> public.RecompileCase:
    return public.RecompileCase(refs["compiles"]["lab"], inputs.times, HIDDEN_CALLS, refs["compiles"]["hidden"])


CASES = {
    "01.dispatch": public.DispatchCases((
        public.KneeCase(tuple(_unsorted(public.synthetic_op_rows(12.0, 0.02, [10**k for k in range(9)]))), 12.0002, 10**6,
                        "rows not in size order"),
        public.KneeCase(tuple(public.synthetic_op_rows(2.0, 3.0, [1, 2, 4, 8, 1024])), 2.006, 1024,
                        "sizes that are not powers of ten"),
        public.KneeCase(tuple(reversed(public.rows_of({2: 4.0, 20: 4.0, 200: 4.0, 2000: 12.0, 20000: 13.0}))), 4.0, 20000,
                        "rows from the largest size down, asked with another factor, one size exactly at factor × the "
                        "floor", factor=3.0),
        public.KneeCase(public.rows_of({5: 7.0, 50: 7.0, 500: 7.0, 5000: 13.0}), 7.0, None,
                        "rows whose largest time stays within factor × the floor"),
        public.KneeCase(public.rows_of({3: 6.0, 30: 5.0, 300: 7.0, 3000: 5.5, 30000: 12.5, 300000: 40.0}), 6.0, 30000,
                        "noisy rows (a small size slower than a larger one), one size just beyond factor × the "
                        "floor"),
        public.KneeCase(tuple(reversed(public.rows_of({4: 3.0, 40: 3.5, 400: 3.0, 4000: 7.0, 40000: 9.0}))), 3.0, 4000,
                        "rows from the largest size down, two sizes beyond factor × the floor"),
        public.KneeCase(public.rows_of({8: 3.0, 16: 5.0, 32: 4.0, 64: 7.0, 128: 8.5}), 4.0, 128,
                        "rows whose smallest size is the fastest of the three smallest")),
        (1, 1000, 100000), False, sleep_ms=2.0),
    "01.per_op": ([*public.PUBLIC_FIT_CASES,
                   public.FitCase(tuple((k, 0.75 * k - 2.0) for k in (3, 1, 7, 5, 9)), 0.75, -2.0,
                                  "the grader's points (unordered, with a negative intercept)"),
                   public.FitCase(((2, 3.0), (3, 8.0), (5, 7.0), (6, 12.0)), 1.7, 0.7,
                                  "the grader's noisy points (not on one line)")], False),
    "01.capture_table": lambda refs: refs["capture_table"],
    "01.recording_backend": [public.BreakCase(inputs.three_graphs, torch.linspace(-1, 1, 7), 3,
                                              "a function with two graph breaks")],
    "01.no_breaks": public.break_inputs(11, ((9, 3), (5,), (33,))),
    "01.recompiles": recompile_case,
    "01.count_compiles": recompile_case,
    "01.export": [public.ExportCase(seed=21, d_in=12, d_out=5, example_batch=3, max_batch=20, batches=(1, 9, 20))],
    "01.traffic_model": public.TrafficCases(((4096, 7, False, 2, 114688), (4096, 7, True, 2, 16384),
                                             (1, 2, False, 1, 4), (3000, 3, True, None, 24000)),
                                            (11,), False),
}
