"""Lab 01 hidden checks: the grader's twins of helpers/checks/lab01.py, on inputs the notebook never saw."""

from __future__ import annotations

import torch

from helpers.checks import CheckFailed, fail_if
from helpers.checks import lab01 as public

WORKER_CELLS = ["parameters", "setup", "ex-1", "ex-1b", "ex-2", "ex-3", "ex-3b", "ex-4", "ex-5", "ex-6"]
TRUTHS = {"capture_table": public.observed_capture_table}



def _unsorted(rows):
    return rows[3:] + rows[:3]


HIDDEN_KNEE = (
    (_unsorted(public.synthetic_op_rows(12.0, 0.02, [10**k for k in range(9)])), 12.0002, 10**6, "rows not in size order"),
    (public.synthetic_op_rows(2.0, 3.0, [1, 2, 4, 8, 1024]), 2.006, 1024, "sizes that are not powers of ten"),
)


def dispatch(ctx) -> str:
    fail_if(public.knee_problems(lambda r: ctx.call("overhead_floor_us", r),
                               lambda r, f: ctx.call("first_size_beyond_overhead", r, f), HIDDEN_KNEE))
    rows = ctx.run("result = time_op_sweep(lambda t: t * 3, [1, 1000, 100000])", timeout=120)
    if not isinstance(rows, list) or [r.get("numel") for r in rows] != [1, 1000, 100000]:
        raise CheckFailed("time_op_sweep should return one row per size, in the order given.")
    if not all(r.get("q25_us", 0) <= r.get("median_us", -1) <= r.get("q75_us", 0) for r in rows):
        raise CheckFailed("each row of time_op_sweep needs q25_us ≤ median_us ≤ q75_us.")
    return "right on the grader's rows; the sweep has one row per size"


def per_op(ctx) -> str:
    fail_if(public.fit_problems(lambda rows: ctx.call("fit_per_op_us", rows)))
    rows = [{"n_ops": k, "median_us": 0.75 * k - 2.0} for k in (3, 1, 7, 5, 9)]
    got = ctx.call("fit_per_op_us", rows)
    try:
        slope, intercept = (float(v) for v in got)
    except (TypeError, ValueError):
        raise CheckFailed("fit_per_op_us should return (slope, intercept).") from None
    if abs(slope - 0.75) > 1e-6 or abs(intercept + 2.0) > 1e-6:
        raise CheckFailed("fit_per_op_us is wrong on the grader's points (unordered, with a negative intercept).")
    return "the least-squares fit is right on the grader's points"


def capture_table(ctx) -> str:
    table = ctx.run("result = CAPTURE_TABLE")
    fail_if(public.capture_table_problems(table, ctx.truth("capture_table")))
    return "the table matches the grader's own run of the experiments"


def recording_backend(ctx) -> str:
    got = ctx.run(
        "torch._dynamo.reset()\n"
        "def three_graphs(x):\n"
        "    y = x * 2\n    print('a', end='\\r')\n    y = y + 1\n    print('b', end='\\r')\n    return y.tanh()\n"
        "backend, graphs = make_recording_backend()\n"
        "x = torch.linspace(-1, 1, 7)\n"
        "out = torch.compile(three_graphs, backend=backend)(x)\n"
        "result = {'out': out, 'n': len(graphs), 'gm': all(isinstance(g, torch.fx.GraphModule) for g in graphs),\n"
        "          'count': count_graphs(three_graphs, x)}\n")
    want = (torch.linspace(-1, 1, 7) * 2 + 1).tanh()
    if not isinstance(got, dict) or not torch.allclose(got.get("out"), want):
        raise CheckFailed("with your backend the compiled function computed something else: return gm.forward.")
    if got.get("n") != 3 or not got.get("gm"):
        raise CheckFailed(f"a function with two graph breaks should leave 3 GraphModules; your list held {got.get('n')}.")
    if got.get("count") != 3:
        raise CheckFailed(f"count_graphs returned {got.get('count')!r} for a function with two breaks; expected 3.")
    return "records all three graphs of a function with two breaks"


def no_breaks(ctx) -> str:
    torch.manual_seed(11)
    inputs = [torch.randn(9, 3), torch.rand(5) + 0.5, -torch.rand(33) - 0.5]

    def call(name, x):
        return ctx.run(f"torch._dynamo.reset()\nresult = torch.compile({name}, fullgraph=True, backend='eager')(x)", x=x)

    fail_if(public.no_break_problems(call, inputs))
    return "all three compile as one graph on the grader's inputs"


def recompiles(ctx) -> str:
    calls = [(torch.ones(3), 2), (torch.ones(3), 2), (torch.ones(3), 3), (torch.ones(4), 2),
             (torch.ones(5), 2), (torch.ones(3, dtype=torch.float64), 2)]
    want = public.measured_compiles(public._scale, calls)
    predicted = ctx.run("result = PREDICTED_COMPILES")
    if predicted != want:
        raise CheckFailed(f"PREDICTED_COMPILES is {predicted!r}; Dynamo compiles the lab's sequence {want} times.")
    hidden_calls = [(torch.ones(2, 2), 1), (torch.ones(2, 2), 1.5), (torch.ones(3, 2), 1), (torch.ones(2, 2, dtype=torch.float16), 1)]
    want_hidden = public.measured_compiles(public._scale, hidden_calls)
    got = ctx.run("result = count_compiles(lambda x, n: x * n, calls)", calls=hidden_calls)
    if got != want_hidden:
        raise CheckFailed("count_compiles disagrees with a CompileCounter on the grader's own call sequence.")
    frames = ctx.run(
        "from torch._dynamo.testing import CompileCounter\ntorch._dynamo.reset()\ncounter = CompileCounter()\n"
        "fn = compile_dynamic(lambda t: t.relu().mean(), counter)\n"
        "for n in (2, 7, 11, 64, 100):\n    fn(torch.ones(n, 3))\nresult = counter.frame_count\n")
    if frames != 1:
        raise CheckFailed(f"compile_dynamic's function compiled {frames} times for 5 sizes on the grader's input; it should compile once.")
    return "prediction, count and dynamic compile all right on the grader's sequences"


def export(ctx) -> str:
    torch.manual_seed(21)
    model = public.ExportHead(12, 5).eval()
    xs = [torch.randn(b, 12) for b in (1, 9, 20)]
    got = ctx.run(
        "from helpers.checks.lab01 import ExportHead\nimport tempfile, pathlib\n"
        "model = ExportHead(12, 5); model.load_state_dict(sd); model.eval()\n"
        "program = export_dynamic(model, torch.randn(3, 12), 20)\n"
        "outs = [program.module()(x) for x in xs]\n"
        "try:\n    program.module()(torch.randn(21, 12)); refused = False\nexcept Exception:\n    refused = True\n"
        "with tempfile.TemporaryDirectory() as tmp:\n"
        "    loaded = save_and_load(program, pathlib.Path(tmp) / 'p.pt2')\n"
        "    again = loaded.module()(xs[1])\n"
        "result = {'outs': outs, 'refused': refused, 'again': again}\n", sd=model.state_dict(), xs=xs)
    with torch.no_grad():
        want = [model(x) for x in xs]
    if not isinstance(got, dict) or not all(torch.allclose(o, w, atol=1e-6) for o, w in zip(got.get("outs", []), want)):
        raise CheckFailed("on the grader's model the exported program does not run or differs from eager at batches 1 to max_batch.")
    if not got.get("refused"):
        raise CheckFailed("the exported program accepted a batch above max_batch.")
    if not torch.allclose(got.get("again"), want[1], atol=1e-6):
        raise CheckFailed("the program returned by save_and_load computes something else.")
    return "dynamic batch, range guard and save/load right on the grader's model"


def traffic_model(ctx) -> str:
    cases = ((4096, 7, False, 2, 114688), (4096, 7, True, 2, 16384), (1, 2, False, 1, 4))
    for numel, n_ops, fused, bpe, want in cases:
        if ctx.call("bytes_moved", numel, n_ops, fused, bpe) != want:
            raise CheckFailed("bytes_moved is wrong on the grader's cases (other dtypes and op counts).")
    if ctx.call("predicted_speedup", 11) != 11:
        raise CheckFailed("predicted_speedup is wrong for a chain of 11 ops.")
    return "the traffic model is right on the grader's cases"


HIDDEN = {
    "01.dispatch": dispatch,
    "01.per_op": per_op,
    "01.capture_table": capture_table,
    "01.recording_backend": recording_backend,
    "01.no_breaks": no_breaks,
    "01.recompiles": recompiles,
    "01.export": export,
    "01.traffic_model": traffic_model,
}
