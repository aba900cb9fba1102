"""Lab 01's wrong answers (see tests/wrong_answers/__init__.py): one plausible mistake each, and correct answers
written another way.

CELLS runs the slow measurement cells first (run-6 compiles the chain with Inductor, ~15 s; run-1b and run-1 time
ops, run-1 last), so that a mistake in a later cell does not run them again. A mistake in a function that no
measurement read by the checks depends on (the floor and the knee, the fit, the traffic model) is made `late`: the
exercise cell, with the mistake, runs again after the last cell, as when a learner edits a cell and re-runs only
it. The older mistakes in time_op_sweep re-run the sweep, since the dispatch check also reads its rows (op_rows); the
ones the grader's own sweep catches (its rows against bench.measure's Timings) are made late.
"""

from helpers import notebooks
from tests.wrong_answers import ROOT, Edit, Right, Wrong, right, wrong

SOLUTION = ROOT / "solutions" / "01_eager_vs_graph.ipynb"
CELLS = ["parameters", "setup", "ex-6", "run-6", "ex-1b", "run-1b", "ex-1", "run-1", "p2-model", "p2-trace", "p2-script",
         "p2-fx", "p2-compile", "p2-export", "p2-shapes", "p2-save", "ex-2", "ex-3", "ex-3b", "ex-4",
         "ex-5"]
# Words the hidden messages must never show: the grader's functions.
HIDDEN_NAMES = ("three_graphs",)
SOURCES = {c.id: c.source for c in notebooks.read(SOLUTION).cells if c.cell_type == "code"}


def rerun_last(cell: str, *replace: tuple[str, str], source: str | None = None) -> Edit:
    """The last cell, followed by `cell` with the replacements (or another source): `cell` run again, late."""
    again = source if source is not None else Edit(cell, tuple(replace)).apply(SOURCES[cell])
    return Edit(CELLS[-1], source=SOURCES[CELLS[-1]] + "\n\n\n" + again)


def late(check: str, why: str, cell: str, *replace: tuple[str, str], says: str, hidden_says: str = "") -> Wrong:
    """A mistake in `cell`, re-run after the measurement cells (see the module's docstring)."""
    return Wrong(check, why, (rerun_last(cell, *replace),), says, hidden_says)


def late_right(check: str, why: str, cell: str, source: str) -> Right:
    """A correct answer written another way, for `cell`, re-run after the measurement cells."""
    return Right((check,), why, (rerun_last(cell, source=source),))


def traffic(why: str, *replace: tuple[str, str], says: str) -> Wrong:
    """A mistake in the traffic model (ex-6), made late."""
    return late("01.traffic_model", why, "ex-6", *replace, says=says)


SWEEP_ROW = 'rows.append({"numel": n, "median_us": t.median_ms * 1e3, "q25_us": t.q25_ms * 1e3, "q75_us": t.q75_ms * 1e3})'
KNEE = 'next((r["numel"] for r in sorted(rows, key=lambda r: r["numel"]) if r["median_us"] > factor * floor), None)'

WRONG = [
    # ---------------------------------------------------------------- 1: the fixed cost of one op
    wrong('01.dispatch', 'the sweep in seconds (median_ms / 1e3)', 'ex-1',
          (SWEEP_ROW, SWEEP_ROW.replace("* 1e3", "/ 1e3")),
          says='microseconds'),
    wrong('01.dispatch', 'the sweep in milliseconds, as bench.measure gives it', 'ex-1',
          (SWEEP_ROW, SWEEP_ROW.replace(" * 1e3", "")),
          says='microseconds'),
    wrong('01.dispatch', 'the sweep in nanoseconds (median_ms × 1e6)', 'ex-1',
          (SWEEP_ROW, SWEEP_ROW.replace("* 1e3", "* 1e6")),
          says='microseconds'),
    wrong('01.dispatch', 'one time.perf_counter timing per size, reported as median and quartiles', 'ex-1',
          ('        t = bench.measure(op, x, label=f"{n}")\n        ' + SWEEP_ROW,
           '        start = time.perf_counter()\n        op(x)\n        us = (time.perf_counter() - start) * 1e6\n'
           '        rows.append({"numel": n, "median_us": us, "q25_us": us, "q75_us": us})'),
          says='only 1 time'),
    wrong('01.dispatch', 'every size timed on the same one-element tensor', 'ex-1',
          ('x = torch.randn(n, device=device)', 'x = torch.randn(1, device=device)'),
          says='each size'),
    wrong('01.dispatch', 'times x + 1 instead of the op it is given', 'ex-1',
          ('bench.measure(op, x,', 'bench.measure(lambda v: v + 1, x,'),
          says='each size'),
    late('01.dispatch', 'the floor as the mean of the three smallest sizes', 'ex-1',
          ('return times[len(times) // 2]', 'return sum(times) / len(times)'),
          says='median of the three smallest'),
    late('01.dispatch', "the floor as the smallest size's time", 'ex-1',
          ('return times[len(times) // 2]', 'return times[0]'),
          says='median of the three smallest'),
    late('01.dispatch', 'the floor from the first three rows, whatever their sizes', 'ex-1',
          ('smallest = sorted(rows, key=lambda r: r["numel"])[:3]', 'smallest = rows[:3]'),
          says='median of the three smallest'),
    late('01.dispatch', 'the floor as the median of every row', 'ex-1',
          ('smallest = sorted(rows, key=lambda r: r["numel"])[:3]', 'smallest = sorted(rows, key=lambda r: r["numel"])'),
          says='median of the three smallest'),
    late('01.dispatch', 'the knee at a time equal to factor × the floor (>= for >)', 'ex-1',
          (KNEE, KNEE.replace('r["median_us"] > factor', 'r["median_us"] >= factor')),
          says='strictly more'),
    late('01.dispatch', 'the knee with factor 2 whatever factor it is given', 'ex-1',
          (KNEE, KNEE.replace("factor * floor", "2 * floor")),
          says='with the factor it is given'),
    late('01.dispatch', 'the knee as a row index, not a size', 'ex-1',
          (KNEE, 'next((i for i, r in enumerate(sorted(rows, key=lambda r: r["numel"])) if r["median_us"] > factor * floor), None)'),
          says='first_size_beyond_overhead'),
    late('01.dispatch', 'the largest size when no size is beyond the overhead, not None', 'ex-1',
          (KNEE, KNEE.replace(", None)", ', max(r["numel"] for r in rows))')),
          says='None when no size is'),
    late('01.dispatch', "the knee against the first row's time, not the floor", 'ex-1',
          ('floor = overhead_floor_us(rows)', 'floor = rows[0]["median_us"]'),
          says='first_size_beyond_overhead'),
    late('01.dispatch', 'the floor from the three fastest rows, not the three smallest sizes', 'ex-1',
          ('smallest = sorted(rows, key=lambda r: r["numel"])[:3]', 'smallest = sorted(rows, key=lambda r: r["median_us"])[:3]'),
          says='median of the three smallest'),
    late('01.dispatch', 'the knee where the whole interquartile range is beyond factor × the floor (q25, not the median)', 'ex-1',
          (KNEE, KNEE.replace('r["median_us"] > factor', 'r["q25_us"] > factor')),
          says='strictly more than factor'),

    late('01.dispatch', 'the quartiles skipped: q25_us and q75_us set to the median', 'ex-1',
          (SWEEP_ROW, 'rows.append({"numel": n, "median_us": t.median_ms * 1e3, "q25_us": t.median_ms * 1e3, "q75_us": t.median_ms * 1e3})'),
          says='lower quartile but the median again', hidden_says='lower quartile but the median again'),
    late('01.dispatch', 'q25 left in milliseconds (the × 1e3 forgotten on one quartile)', 'ex-1',
          (SWEEP_ROW, 'rows.append({"numel": n, "median_us": t.median_ms * 1e3, "q25_us": t.q25_ms, "q75_us": t.q75_ms * 1e3})'),
          says='q25_us.*microseconds', hidden_says='q25_us.*microseconds'),
    late('01.dispatch', 'the lowest call (min_ms) reported as the lower quartile', 'ex-1',
          (SWEEP_ROW, SWEEP_ROW.replace('t.q25_ms', 't.min_ms')),
          says=r'fastest call \(min_ms\)', hidden_says=r'fastest call \(min_ms\)'),
    late('01.dispatch', 'timed with autograd on: the tensors require grad, so every op also records a backward node', 'ex-1',
          ('x = torch.randn(n, device=device)', 'x = torch.randn(n, device=device, requires_grad=True)'),
          says='requires grad', hidden_says='requires grad'),
    late('01.dispatch', 'a hand-rolled loop: 10 calls in one perf_counter block, no warm-up, the mean reported as median and both quartiles', 'ex-1',
          ('        t = bench.measure(op, x, label=f"{n}")\n        ' + SWEEP_ROW,
           '        start = time.perf_counter()\n        for _ in range(10):\n            op(x)\n'
           '        us = (time.perf_counter() - start) / 10 * 1e6\n'
           '        rows.append({"numel": n, "median_us": us, "q25_us": us, "q75_us": us})'),
          says='did not time the sizes with bench.measure', hidden_says='did not time the sizes with bench.measure'),
    late('01.dispatch', 'the sweep over sorted(set(sizes)): rows in ascending order, not the order given', 'ex-1',
          ('    for n in sizes:\n        x = torch.randn', '    for n in sorted(set(sizes)):\n        x = torch.randn'),
          says='in the order given', hidden_says='in the order given'),
    late('01.dispatch', 'the knee as the first size from which every larger size stays beyond factor × the floor', 'ex-1',
         ('    floor = overhead_floor_us(rows)\n    return ' + KNEE,
          '    floor = overhead_floor_us(rows)\n    knee = None\n'
          '    for r in sorted(rows, key=lambda r: r["numel"], reverse=True):\n'
          '        if r["median_us"] <= factor * floor:\n            break\n        knee = r["numel"]\n    return knee'),
         says='smallest size whose time is strictly more', hidden_says='smallest size whose time is strictly more'),
    late('01.dispatch', 'the knee searched only beyond the three sizes that make the floor', 'ex-1',
         (KNEE, KNEE.replace('sorted(rows, key=lambda r: r["numel"])', 'sorted(rows, key=lambda r: r["numel"])[3:]')),
         says='smallest size whose time is strictly more', hidden_says='first_size_beyond_overhead is wrong'),
    late('01.dispatch', 'the knee as the fastest row beyond factor × the floor (rows sorted by time, not by size)', 'ex-1',
         (KNEE, KNEE.replace('sorted(rows, key=lambda r: r["numel"])', 'sorted(rows, key=lambda r: r["median_us"])')),
         says='smallest size whose time is strictly more', hidden_says='first_size_beyond_overhead is wrong'),
    late('01.dispatch', "the knee's default factor 1 (any size slower than the floor), not the 2 the exercise gives", 'ex-1',
         ('def first_size_beyond_overhead(rows, factor=2.0):', 'def first_size_beyond_overhead(rows, factor=1.0):'),
         says='asked without a factor.*2 when it is given none', hidden_says='asked without a factor.*2 when it is given none'),
    late('01.dispatch', 'the floor from the notebook sizes 1, 10 and 100 (works only for the sizes shown)', 'ex-1',
         ('smallest = sorted(rows, key=lambda r: r["numel"])[:3]', 'smallest = [r for r in rows if r["numel"] in (1, 10, 100)]'),
         says='median (time )?of the three smallest', hidden_says='median time of the three smallest sizes among the rows'),


    # (round 3)
    late('01.dispatch', "the knee against the smallest size's time (one element's, as the paired rounds use), not the floor", 'ex-1',
         ('floor = overhead_floor_us(rows)', 'floor = min(rows, key=lambda r: r["numel"])["median_us"]'),
         says='first_size_beyond_overhead', hidden_says='first_size_beyond_overhead is wrong'),
    late('01.dispatch', "the floor as the time of the middle one of the three smallest sizes, not the median of their times", 'ex-1',
         ('times = sorted(r["median_us"] for r in smallest)', 'times = [r["median_us"] for r in smallest]'),
         says='median of the three smallest', hidden_says='median of the three smallest'),
    late('01.dispatch', 'the knee searched in the order the rows come in, not by size', 'ex-1',
         (KNEE, KNEE.replace('sorted(rows, key=lambda r: r["numel"])', 'rows')),
         says='smallest size whose time is strictly more', hidden_says='first_size_beyond_overhead is wrong'),
    late('01.dispatch', 'a fresh tensor made inside the timed function on every call (times torch.randn with the op)', 'ex-1',
         ('t = bench.measure(op, x, label=f"{n}")',
          't = bench.measure(lambda: op(torch.randn(n, device=device)), label=f"{n}", device=device)'),
         says='new tensor', hidden_says='new tensor'),
    late('01.dispatch', 'the tensor cloned inside the timed function on every call (to protect it from the op), the copy timed too', 'ex-1',
         ('t = bench.measure(op, x, label=f"{n}")', 't = bench.measure(lambda: op(x.clone()), label=f"{n}", device=device)'),
         says='new tensor', hidden_says='new tensor'),
    late('01.dispatch', 'the sweep on torch.arange(n): int64 tensors, not the float32 the lab times', 'ex-1',
         ('x = torch.randn(n, device=device)', 'x = torch.arange(n, device=device)'),
         says='int64', hidden_says='int64'),
    late('01.dispatch', 'the sweep on float64 tensors (twice the bytes per element)', 'ex-1',
         ('x = torch.randn(n, device=device)', 'x = torch.randn(n, device=device, dtype=torch.float64)'),
         says='float64', hidden_says='float64'),
    late('01.dispatch', 'the tensors made without device= (always on the CPU, whatever `device` is)', 'ex-1',
         ('x = torch.randn(n, device=device)', 'x = torch.randn(n)'),
         says='not on `device`', hidden_says='not on `device`'),
    late('01.dispatch', "the mean of bench.measure's samples reported as the median", 'ex-1',
         (SWEEP_ROW, SWEEP_ROW.replace('t.median_ms * 1e3', 'statistics.mean(t.times_ms) * 1e3')),
         says='median_us', hidden_says='median_us'),
    late('01.dispatch', 'the quartiles swapped (q25_us from q75_ms and q75_us from q25_ms)', 'ex-1',
         (SWEEP_ROW, 'rows.append({"numel": n, "median_us": t.median_ms * 1e3, "q25_us": t.q75_ms * 1e3, "q75_us": t.q25_ms * 1e3})'),
         says='q25_us ≤ median_us ≤ q75_us', hidden_says='q25_us ≤ median_us ≤ q75_us'),

    # ---------------------------------------------------------------- 1: the cost per op in a chain
    late('01.per_op', 'returns (intercept, slope)', 'ex-1b',
          ('return slope, my - slope * mx', 'return my - slope * mx, slope'),
          says='least-squares line'),
    late('01.per_op', 'the slope through the first and last points', 'ex-1b',
          ('slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)',
           'slope = (ys[-1] - ys[0]) / (xs[-1] - xs[0])'),
          says='least-squares line'),
    late('01.per_op', 'a line through the origin (no intercept)', 'ex-1b',
          ('slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)\n    return slope, my - slope * mx',
           'slope = sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs)\n    return slope, 0.0'),
          says='least-squares line'),
    late('01.per_op', 'the mean time over the mean number of ops as the cost per op', 'ex-1b',
          ('return slope, my - slope * mx', 'return my / mx, 0.0'),
          says='least-squares line'),
    late('01.per_op', "the intercept as the first point's time", 'ex-1b',
          ('return slope, my - slope * mx', 'return slope, ys[0]'),
          says='least-squares line'),
    late('01.per_op', 'divides by the spread of the times instead of the spread of the op counts', 'ex-1b',
          ('/ sum((x - mx) ** 2 for x in xs)', '/ sum((y - my) ** 2 for y in ys)'),
          says='least-squares line'),
    late('01.per_op', 'the slope as a sample covariance over a population variance', 'ex-1b',
          ('slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)', 'slope = statistics.covariance(xs, ys) / statistics.pvariance(xs)'),
          says='least-squares line'),
    late('01.per_op', 'the mean op count by floor division', 'ex-1b',
          ('mx, my = sum(xs) / n, sum(ys) / n', 'mx, my = sum(xs) // n, sum(ys) / n'),
          says='least-squares line'),
    late('01.per_op', 'the slope from the first and last points over the last op count, not over their difference', 'ex-1b',
          ('slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)', 'slope = (ys[-1] - ys[0]) / xs[-1]'),
          says='least-squares line'),
    late('01.per_op', 'the op counts regressed on the times, the slope inverted', 'ex-1b',
          ('slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)',
           'slope = 1 / (sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((y - my) ** 2 for y in ys))'),
          says='least-squares line'),

    # (round 3)
    late('01.per_op', 'the slope as the mean of the slopes between neighbouring points', 'ex-1b',
         ('slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)',
          'pts = sorted(zip(xs, ys))\n    slope = statistics.mean((b[1] - a[1]) / (b[0] - a[0]) for a, b in zip(pts, pts[1:]))'),
         says='least-squares line'),
    late('01.per_op', 'the intercept of the line through the first point with the least-squares slope', 'ex-1b',
         ('return slope, my - slope * mx', 'return slope, ys[0] - slope * xs[0]'),
         says='least-squares line'),
    late('01.per_op', 'the op counts sorted but not the times that go with them', 'ex-1b',
         ('xs = [float(r["n_ops"]) for r in rows]', 'xs = sorted(float(r["n_ops"]) for r in rows)'),
         says='least-squares line'),

    # ---------------------------------------------------------------- 2: the capture table
    wrong('01.capture_table', 'jit.trace said to keep the branch', 'ex-2',
          ('"torch.jit.trace": {"control_flow": "baked"', '"torch.jit.trace": {"control_flow": "kept"'),
          says='not what its experiment in part 2 printed'),
    wrong('01.capture_table', 'torch.compile said to keep the branch in one graph', 'ex-2',
          ('"torch.compile": {"control_flow": "graph break"', '"torch.compile": {"control_flow": "kept"'),
          says='not what its experiment in part 2 printed'),
    wrong('01.capture_table', 'torch.export said to follow a new length without a Dim', 'ex-2',
          ('"dynamic_shapes": "specialized"', '"dynamic_shapes": "dynamic"'),
          says='not what its experiment in part 2 printed'),
    wrong('01.capture_table', "fx said not to be serialisable (a GraphModule pickles and loads without the model's class)", 'ex-2',
          ('"python_coverage": "no data-dependent control flow", "serialisable": True', '"python_coverage": "no data-dependent control flow", "serialisable": False'),
          says='not what its experiment in part 2 printed'),
    wrong('01.capture_table', "torch.export's data-dependent if called an error (it offers torch.cond)", 'ex-2',
          ('"torch.export": {"control_flow": "torch.cond"', '"torch.export": {"control_flow": "error"'),
          says='not what its experiment in part 2 printed'),
    wrong('01.capture_table', 'three cells left None', 'ex-2',
          ('"torch.jit.trace": {"control_flow": "baked", "dynamic_shapes": "baked"', '"torch.jit.trace": {"control_flow": None, "dynamic_shapes": None'),
          ('"torch.export": {"control_flow": "torch.cond"', '"torch.export": {"control_flow": None'),
          says='3 of the table.s 20 cells are still None'),
    wrong('01.capture_table', "torch.compile said to be serialisable", 'ex-2',
          ('"python_coverage": "any (falls back to Python)", "serialisable": False', '"python_coverage": "any (falls back to Python)", "serialisable": True'),
          says='not what its experiment in part 2 printed'),
    wrong('01.capture_table', 'jit.script said to bake the length in', 'ex-2',
          ('"torch.jit.script": {"control_flow": "kept", "dynamic_shapes": "dynamic"', '"torch.jit.script": {"control_flow": "kept", "dynamic_shapes": "baked"'),
          says='not what its experiment in part 2 printed'),
    wrong('01.capture_table', 'fx said to bake the length in (its trace fails on len())', 'ex-2',
          ('"dynamic_shapes": "error"', '"dynamic_shapes": "baked"'),
          says='not what its experiment in part 2 printed'),
    wrong('01.capture_table', 'a value spelled another way than the allowed words', 'ex-2',
          ('"control_flow": "graph break"', '"control_flow": "graph-break"'),
          says='use one of'),
    wrong('01.capture_table', 'booleans written as text', 'ex-2',
          ('"python_coverage": "tensor ops only", "serialisable": True', '"python_coverage": "tensor ops only", "serialisable": "yes"'),
          says='use one of'),
    wrong('01.capture_table', "jit.trace's and jit.script's Python coverage swapped", 'ex-2',
          ('"python_coverage": "tensor ops only"', '"python_coverage": "TYPED"'),
          ('"python_coverage": "typed subset"', '"python_coverage": "tensor ops only"'),
          ('"python_coverage": "TYPED"', '"python_coverage": "typed subset"'),
          says='showed it accepts'),
    wrong('01.capture_table', 'a method left out of the table', 'ex-2',
          ('    "torch.export": {"control_flow": "torch.cond", "dynamic_shapes": "specialized",\n                     "python_coverage": "one graph only", "serialisable": True},\n', ''),
          says='lacks torch.export'),

    # (round 3)
    wrong('01.capture_table', 'fx.symbolic_trace said to keep only the tensor ops, like jit.trace (it refuses a data-dependent if)', 'ex-2',
          ('"python_coverage": "no data-dependent control flow"', '"python_coverage": "tensor ops only"'),
          says='showed it accepts', hidden_says='showed it accepts'),
    wrong('01.capture_table', "torch.export's Python coverage read as fx's (no data-dependent control flow)", 'ex-2',
          ('"python_coverage": "one graph only"', '"python_coverage": "no data-dependent control flow"'),
          says='showed it accepts', hidden_says='showed it accepts'),
    wrong('01.capture_table', 'jit.trace said to follow a new length (it records size() calls, but len() gives it a plain int)', 'ex-2',
          ('"torch.jit.trace": {"control_flow": "baked", "dynamic_shapes": "baked"', '"torch.jit.trace": {"control_flow": "baked", "dynamic_shapes": "dynamic"'),
          says='not what its experiment in part 2 printed'),
    wrong('01.capture_table', 'torch.compile said to specialise on the length (its recompile read as a refusal)', 'ex-2',
          ('"torch.compile": {"control_flow": "graph break", "dynamic_shapes": "dynamic"', '"torch.compile": {"control_flow": "graph break", "dynamic_shapes": "specialized"'),
          says='not what its experiment in part 2 printed'),

    # ---------------------------------------------------------------- 3: a recording backend
    wrong('01.recording_backend', 'the backend returns nothing', 'ex-3',
          ('        return gm.forward', '        pass'),
          says='return something that runs the graph'),
    wrong('01.recording_backend', 'records the example inputs instead of the graphs', 'ex-3',
          ('graphs.append(gm)', 'graphs.append(example_inputs)'),
          says='GraphModules'),
    wrong('01.recording_backend', 'records the Graph, not the GraphModule', 'ex-3',
          ('graphs.append(gm)', 'graphs.append(gm.graph)'),
          says='GraphModules'),
    wrong('01.recording_backend', 'the backend fills a list of its own, not the one returned', 'ex-3',
          ('graphs.append(gm)', 'graphs = [gm]  # noqa: F841'),
          says='GraphModules'),
    wrong('01.recording_backend', 'count_graphs compiles but never calls the compiled function', 'ex-3',
          ('torch.compile(fn, backend=backend)(*args)', 'torch.compile(fn, backend=backend)'),
          says='count_graphs'),
    wrong('01.recording_backend', 'count_graphs counts the breaks, not the graphs', 'ex-3',
          ('    return len(graphs)\n', '    return len(graphs) - 1\n'),
          says='count_graphs'),
    wrong('01.recording_backend', 'count_graphs calls the compiled function on its first argument only', 'ex-3',
          ('torch.compile(fn, backend=backend)(*args)', 'torch.compile(fn, backend=backend)(args[0])'),
          says='on all the arguments it is given', hidden_says='on all the arguments it is given'),
    wrong('01.recording_backend', "count_graphs asks explain() for the breaks instead of counting the backend's graphs", 'ex-3',
          ('    return len(graphs)\n', '    return torch._dynamo.explain(fn)(*args).graph_break_count\n'),
          says='counting the breaks instead of the graphs', hidden_says='counting the breaks instead of the graphs'),
    wrong('01.recording_backend', 'count_graphs passes its arguments as one tuple', 'ex-3',
          ('torch.compile(fn, backend=backend)(*args)', 'torch.compile(fn, backend=backend)(args)'),
          says='count_graphs. raised'),
    wrong('01.recording_backend', 'the backend runs the graph and returns its output, not something that runs it', 'ex-3',
          ('        return gm.forward', '        return gm(*example_inputs)'),
          says='return something that runs the graph'),
    wrong('01.recording_backend', 'one list for every backend, made once when the cell runs and never emptied', 'ex-3',
          ('def make_recording_backend():', 'ALL_GRAPHS = []\n\n\ndef make_recording_backend():'),
          ('    graphs = []\n\n    def backend', '    graphs = ALL_GRAPHS\n\n    def backend'),
          says='new, empty list on every call'),
    wrong('01.recording_backend', 'count_graphs without torch._dynamo.reset() (the cached compile is reused)', 'ex-3',
          ('    torch._dynamo.reset()\n    backend, graphs', '    backend, graphs'),
          says='reset Dynamo first'),
    wrong('01.recording_backend', 'count_graphs reuses one backend made when the cell ran, its list never emptied', 'ex-3',
          ('def count_graphs(fn, *args):', 'SHARED = None\n\n\ndef count_graphs(fn, *args):'),
          ('    backend, graphs = make_recording_backend()\n    torch.compile', '    backend, graphs = SHARED\n    torch.compile'),
          ('    return len(graphs)\n', '    return len(graphs)\n\n\nSHARED = make_recording_backend()\n'),
          says='earlier call', hidden_says='earlier call'),

    # (round 3)
    wrong('01.recording_backend', "count_graphs returns torch._dynamo.explain's graph_count instead of using the recording backend", 'ex-3',
          ('    torch._dynamo.reset()\n    backend, graphs = make_recording_backend()\n    torch.compile(fn, backend=backend)(*args)\n    return len(graphs)',
           '    return torch._dynamo.explain(fn)(*args).graph_count'),
          says='explain', hidden_says='explain'),
    wrong('01.recording_backend', 'count_graphs resets Dynamo after counting, not before', 'ex-3',
          ('    torch._dynamo.reset()\n    backend, graphs = make_recording_backend()\n    torch.compile(fn, backend=backend)(*args)\n    return len(graphs)',
           '    backend, graphs = make_recording_backend()\n    torch.compile(fn, backend=backend)(*args)\n    torch._dynamo.reset()\n    return len(graphs)'),
          says='reset Dynamo first', hidden_says='reset Dynamo first'),
    wrong('01.recording_backend', 'count_graphs compiles with fullgraph=True (a break then raises instead of making a second graph)', 'ex-3',
          ('torch.compile(fn, backend=backend)(*args)', 'torch.compile(fn, backend=backend, fullgraph=True)(*args)'),
          says='count_graphs'),

    # ---------------------------------------------------------------- 3: the functions without breaks
    wrong('01.no_breaks', 'no_print keeps the print', 'ex-3b',
          ('    return x.sin().cos()', '    y = x.sin()\n    print("halfway")\n    return y.cos()'),
          says='fullgraph=True'),
    wrong('01.no_breaks', 'no_item forgets the + 1', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'return x / x.abs().max().clamp(min=1)'),
          says='computes something else than with_item'),
    wrong('01.no_breaks', 'no_item divides by the largest magnitude even when it is below 1', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'return x / x.abs().max() + 1'),
          says='computes something else than with_item'),
    wrong('01.no_breaks', 'no_item divides by the maximum, not the largest magnitude', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'return x / x.max().clamp(min=1) + 1'),
          says='computes something else than with_item'),
    wrong('01.no_breaks', 'no_item copies with_item unchanged (the if on .item() still breaks under fullgraph)', 'ex-3b',
          ('    return x / x.abs().max().clamp(min=1) + 1',
           '    scale = x.abs().max().item()\n    if scale > 1:\n        return x / scale + 1\n    return x + 1'),
          says='no_item does not compile with fullgraph=True'),
    wrong('01.no_breaks', 'no_branch keeps the Python if', 'ex-3b',
          ('return torch.where(y.sum() > 0, y.relu(), -y)', 'return y.relu() if y.sum() > 0 else -y'),
          says='fullgraph=True'),
    wrong('01.no_breaks', 'no_branch decides on the sum with .item()', 'ex-3b',
          ('torch.where(y.sum() > 0,', 'torch.where(y.sum().item() > 0,'),
          says='fullgraph=True'),
    wrong('01.no_breaks', 'no_branch tests each element, not the sum', 'ex-3b',
          ('torch.where(y.sum() > 0,', 'torch.where(y > 0,'),
          says='computes something else than with_branch'),
    wrong('01.no_breaks', 'no_branch forgets the relu of the positive branch', 'ex-3b',
          ('torch.where(y.sum() > 0, y.relu(), -y)', 'torch.where(y.sum() > 0, y, -y)'),
          says='computes something else than with_branch on an input with elements of both signs'),
    wrong('01.no_breaks', "no_branch with torch.where's branches swapped", 'ex-3b',
          ('torch.where(y.sum() > 0, y.relu(), -y)', 'torch.where(y.sum() > 0, -y, y.relu())'),
          says='computes something else than with_branch'),
    wrong('01.no_breaks', 'no_item hides the break with torch._dynamo.disable on the whole function', 'ex-3b',
          ('def no_item(x):\n    ### BEGIN SOLUTION\n    return x / x.abs().max().clamp(min=1) + 1',
           '@torch._dynamo.disable\ndef no_item(x):\n    ### BEGIN SOLUTION\n    scale = x.abs().max().item()\n'
           '    if scale > 1:\n        return x / scale + 1\n    return x + 1'),
          says='no_item does not compile with fullgraph=True'),
    wrong('01.no_breaks', 'no_print hides the print with torch.compiler.disable on the whole function', 'ex-3b',
          ('def no_print(x):\n    ### BEGIN SOLUTION\n    return x.sin().cos()',
           '@torch.compiler.disable\ndef no_print(x):\n    ### BEGIN SOLUTION\n    y = x.sin()\n    print("halfway")\n    return y.cos()'),
          says='no_print does not compile with fullgraph=True'),
    wrong('01.no_breaks', 'no_item moves the if on .item() into a helper marked allow_in_graph', 'ex-3b',
          ('def no_item(x):\n    ### BEGIN SOLUTION\n    return x / x.abs().max().clamp(min=1) + 1',
           '@torch._dynamo.allow_in_graph\ndef _scaled(x):\n    scale = x.abs().max().item()\n    if scale > 1:\n'
           '        return x / scale + 1\n    return x + 1\n\n\ndef no_item(x):\n    ### BEGIN SOLUTION\n    return _scaled(x)'),
          says='no_item does not compile with fullgraph=True'),
    wrong('01.no_breaks', 'no_item divides and adds into its input in place (x changes)', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'return x.div_(x.abs().max().clamp(min=1)).add_(1)'),
          says='no_item changes its input in place'),
    wrong('01.no_breaks', 'no_item clamps the wrong way (max=1: divides by at most 1)', 'ex-3b',
          ('clamp(min=1)', 'clamp(max=1)'),
          says='computes something else than with_item'),
    wrong('01.no_breaks', 'no_branch takes the relu of the negated branch too', 'ex-3b',
          ('torch.where(y.sum() > 0, y.relu(), -y)', 'torch.where(y.sum() > 0, y.relu(), (-y).relu())'),
          says='computes something else than with_branch'),

    # (round 3)
    wrong('01.no_breaks', 'no_branch takes the relu side when the sum is exactly zero (>= for >)', 'ex-3b',
          ('torch.where(y.sum() > 0,', 'torch.where(y.sum() >= 0,'),
          says='computes something else than with_branch.*sum is zero', hidden_says='computes something else than with_branch.*sum is zero'),
    wrong('01.no_breaks', 'no_branch decides per row (sum over the last dimension), not on the whole sum', 'ex-3b',
          ('torch.where(y.sum() > 0,', 'torch.where(y.sum(dim=-1, keepdim=True) > 0,'),
          says='computes something else than with_branch', hidden_says='computes something else than with_branch'),
    wrong('01.no_breaks', 'no_item divides by the largest magnitude of each column (max(0)), not of the whole tensor', 'ex-3b',
          ('x / x.abs().max().clamp(min=1) + 1', 'x / x.abs().max(0)[0].clamp(min=1) + 1'),
          says='computes something else than with_item', hidden_says='computes something else than with_item'),
    wrong('01.no_breaks', 'no_print drops the cos along with the print', 'ex-3b',
          ('    return x.sin().cos()', '    return x.sin()'),
          says='computes something else than with_print'),

    # ---------------------------------------------------------------- 4: recompiles
    wrong('01.recompiles', 'predicts one compile per call', 'ex-4',
          ('PREDICTED_COMPILES = 4', 'PREDICTED_COMPILES = 6'),
          says='PREDICTED_COMPILES'),
    wrong('01.recompiles', 'predicts no recompile for the new dtype', 'ex-4',
          ('PREDICTED_COMPILES = 4', 'PREDICTED_COMPILES = 3'),
          says='PREDICTED_COMPILES'),
    wrong('01.recompiles', 'predicts a recompile for every new size (no automatic dynamic shapes)', 'ex-4',
          ('PREDICTED_COMPILES = 4', 'PREDICTED_COMPILES = 5'),
          says='PREDICTED_COMPILES'),
    wrong('01.recompiles', 'the prediction left as None', 'ex-4',
          ('PREDICTED_COMPILES = 4', 'PREDICTED_COMPILES = None'),
          says='still None'),
    wrong('01.recompiles', 'predicts guards on shapes only (the first call and a new size; n and the dtype unguarded)', 'ex-4',
          ('PREDICTED_COMPILES = 4', 'PREDICTED_COMPILES = 2'),
          says='PREDICTED_COMPILES'),
    wrong('01.recompiles', 'the prediction written as text', 'ex-4',
          ('PREDICTED_COMPILES = 4', 'PREDICTED_COMPILES = "4"'),
          says='PREDICTED_COMPILES is the text.*whole number'),
    wrong('01.count_compiles', 'count_compiles without resetting Dynamo', 'ex-4',
          ('    torch._dynamo.reset()\n    counter = CompileCounter()', '    counter = CompileCounter()'),
          says='reset Dynamo first'),
    wrong('01.count_compiles', "count_compiles reads the old counters['recompiles'], empty on current torch", 'ex-4',
          ('    return counter.frame_count', '    return len(torch._dynamo.utils.counters["recompiles"])'),
          says='CompileCounter'),
    wrong('01.count_compiles', 'count_compiles returns the number of calls', 'ex-4',
          ('    return counter.frame_count', '    return len(calls)'),
          says='count_compiles returned'),
    wrong('01.count_compiles', 'count_compiles counts recompiles only (frames minus the first compile)', 'ex-4',
          ('    return counter.frame_count', '    return counter.frame_count - 1'),
          says='count_compiles returned'),
    wrong('01.count_compiles', "count_compiles returns the CompileCounter's op_count, not its frame_count", 'ex-4',
          ('    return counter.frame_count', '    return counter.op_count'),
          says='not the ops in them', hidden_says='count_compiles returned'),
    wrong('01.count_compiles', 'count_compiles with dynamic=True, which hides the shape recompiles', 'ex-4',
          ('torch.compile(fn, backend=counter)', 'torch.compile(fn, backend=counter, dynamic=True)'),
          says='count_compiles returned'),
    wrong('01.count_compiles', 'one CompileCounter for every call of count_compiles, made when the cell runs', 'ex-4',
          ('    counter = CompileCounter()\n', ''),
          ('def count_compiles(fn, calls):', 'from torch._dynamo.testing import CompileCounter\ncounter = CompileCounter()\n\n\ndef count_compiles(fn, calls):'),
          says='earlier call', hidden_says='count_compiles returned'),
    wrong('01.count_compiles', "count_compiles reads Dynamo's unique_graphs statistic, which counts since the process started", 'ex-4',
          ('    return counter.frame_count', '    return torch._dynamo.utils.counters["stats"]["unique_graphs"]'),
          says='count_compiles returned'),
    wrong('01.count_compiles', 'count_compiles unpacks every call as (x, n): works only for two-argument functions', 'ex-4',
          ('    for args in calls:\n        compiled(*args)', '    for x, n in calls:\n        compiled(x, n)'),
          says='all of its arguments', hidden_says='all of its arguments'),
    wrong('01.count_compiles', 'count_compiles counts the distinct (shape, dtype, n) among the calls', 'ex-4',
          ('    return counter.frame_count', '    return len({(tuple(a[0].shape), a[0].dtype, a[1]) for a in calls})'),
          says='count_compiles returned'),

    # (round 3)
    wrong('01.recompiles', 'predicts a single compile (every call passes the guards)', 'ex-4',
          ('PREDICTED_COMPILES = 4', 'PREDICTED_COMPILES = 1'),
          says='PREDICTED_COMPILES'),
    wrong('01.count_compiles', 'count_compiles with dynamic=False, which recompiles for every new size', 'ex-4',
          ('torch.compile(fn, backend=counter)', 'torch.compile(fn, backend=counter, dynamic=False)'),
          says='count_compiles returned'),
    wrong('01.count_compiles', 'count_compiles resets Dynamo after counting, not before', 'ex-4',
          ('    torch._dynamo.reset()\n    counter = CompileCounter()', '    counter = CompileCounter()'),
          ('    return counter.frame_count', '    torch._dynamo.reset()\n    return counter.frame_count'),
          says='reset Dynamo first'),

    # ---------------------------------------------------------------- 5: export
    wrong('01.export', 'exports without a dynamic dimension', 'ex-5',
          (', dynamic_shapes=({0: batch},)', ''),
          says='declared dynamic'),
    wrong('01.export', 'a Dim without a max', 'ex-5',
          ('min=1, max=max_batch', 'min=1'),
          says='max_batch'),
    wrong('01.export', 'a Dim that stops one above max_batch', 'ex-5',
          ('max=max_batch)', 'max=max_batch + 1)'),
          says='accepted a batch above max_batch'),
    wrong('01.export', 'a Dim that stops one below max_batch (max read as exclusive)', 'ex-5',
          ('max=max_batch)', 'max=max_batch - 1)'),
          says='max is inclusive'),
    wrong('01.export', 'returns the GraphModule of the program, not the ExportedProgram', 'ex-5',
          ('dynamic_shapes=({0: batch},))', 'dynamic_shapes=({0: batch},)).module()'),
          says='ExportedProgram'),
    wrong('01.export', 'save_and_load that never saves and returns the program it was given', 'ex-5',
          ('    torch.export.save(program, path)\n    return torch.export.load(path)', '    return program'),
          says='wrote nothing'),
    wrong('01.export', 'save_and_load saves, then returns the program it was given', 'ex-5',
          ('    return torch.export.load(path)', '    return program'),
          says='returned the very program'),
    wrong('01.export', 'save_and_load loads but forgets to return', 'ex-5',
          ('    return torch.export.load(path)', '    torch.export.load(path)'),
          says='returned None'),
    wrong('01.export', 'torch.save and torch.load instead of torch.export.save and load', 'ex-5',
          ('    torch.export.save(program, path)\n    return torch.export.load(path)', '    torch.save(program, path)\n    return torch.load(path)'),
          says='save_and_load. raised.*torch.export.save'),
    wrong('01.export', 'the dynamic dimension declared on axis 1 (the features), not the batch', 'ex-5',
          ('({0: batch},)', '({1: batch},)'),
          says='export_dynamic. raised.*dimension 0'),
    wrong('01.export', 'Dim.DYNAMIC for the batch, without max_batch', 'ex-5',
          ('dynamic_shapes=({0: batch},)', 'dynamic_shapes=({0: torch.export.Dim.DYNAMIC},)'),
          says='accepted a batch above max_batch'),
    wrong('01.export', "dynamic_shapes keyed by a name that is not forward's argument", 'ex-5',
          ('({0: batch},)', '{"input": {0: batch}}'),
          says="export_dynamic. raised.*name of forward's argument"),
    wrong('01.export', 'a Dim from 2 (to dodge the 0/1 specialisation): the program declares batch 1 outside its range (torch does not enforce the lower bound at run time)', 'ex-5',
          ('min=1, max=max_batch', 'min=2, max=max_batch'),
          says='batch 1 lies outside', hidden_says='batch 1 lies outside'),
    wrong('01.export', "export_dynamic builds its own example with the notebook's 16 features, ignoring `example`", 'ex-5',
          ('torch.export.export(model, (example,),', 'torch.export.export(model, (torch.randn(4, 16),),'),
          says='export_dynamic', hidden_says='shape mismatch.*export on .example.'),
    wrong('01.export', 'save_and_load returns the module of the loaded program', 'ex-5',
          ('    return torch.export.load(path)', '    return torch.export.load(path).module()'),
          says='ExportedProgram'),

    # (round 3)
    wrong('01.export', "the batch marked with torch._dynamo.mark_dynamic instead of export's dynamic_shapes", 'ex-5',
          ('    batch = torch.export.Dim("batch", min=1, max=max_batch)\n    return torch.export.export(model, (example,), dynamic_shapes=({0: batch},))',
           '    torch._dynamo.mark_dynamic(example, 0)\n    return torch.export.export(model, (example,))'),
          says='export'),

    # ---------------------------------------------------------------- 6: the traffic model
    traffic('bytes per element fixed at 4', ('* bytes_per_element', '* 4'), says='does not follow the rule'),
    traffic('each kernel only reads (no write)', ('kernels * 2 * numel', 'kernels * numel'), says='does not follow the rule'),
    traffic('fused moves as much as eager', ('kernels = 1 if fused else n_ops', 'kernels = n_ops'), says='fused there is one kernel'),
    traffic('one kernel too many in eager', ('else n_ops', 'else n_ops + 1'), says='does not follow the rule'),
    traffic('bits, not bytes', ('* bytes_per_element', '* bytes_per_element * 8'), says='does not follow the rule'),
    traffic('the speedup upside down (fused over eager)',
            ('bytes_moved(1, n_ops, fused=False) / bytes_moved(1, n_ops, fused=True)',
             'bytes_moved(1, n_ops, fused=True) / bytes_moved(1, n_ops, fused=False)'),
            says="eager's bytes over the fused kernel's"),
    traffic("the default bytes per element of a float16 (2), not the float32 the chain runs on",
            ('bytes_per_element=4', 'bytes_per_element=2'), says='without bytes_per_element'),
    traffic('the default bytes per element of a float64 (8)', ('bytes_per_element=4', 'bytes_per_element=8'),
            says='without bytes_per_element'),
    traffic('eager counted as one read of the input and a write per op (n_ops + 1 tensors)',
            ('return kernels * 2 * numel * bytes_per_element', 'return (kernels + 1) * numel * bytes_per_element'),
            says='does not follow the rule'),
    traffic("the fused kernel said to read an operand per op (n_ops reads, one write)",
            ('return kernels * 2 * numel * bytes_per_element',
             'return (n_ops + 1 if fused else 2 * n_ops) * numel * bytes_per_element'),
            says='does not follow the rule'),
    traffic('the count in gigabytes', ('return kernels * 2 * numel * bytes_per_element',
                                       'return kernels * 2 * numel * bytes_per_element / 1e9'),
            says='does not follow the rule'),
    traffic('predicted_speedup hard-coded to the chain of five',
            ('return bytes_moved(1, n_ops, fused=False) / bytes_moved(1, n_ops, fused=True)', 'return 5.0'),
            says="predicted_speedup.*eager's bytes over"),
    # (round 3)
    traffic('predicted_speedup as the fraction of the traffic fusion saves',
            ('return bytes_moved(1, n_ops, fused=False) / bytes_moved(1, n_ops, fused=True)',
             'return 1 - bytes_moved(1, n_ops, fused=True) / bytes_moved(1, n_ops, fused=False)'),
            says="eager's bytes over the fused kernel's"),
    traffic('predicted_speedup passes n_ops where bytes_moved takes numel (arguments swapped)',
            ('return bytes_moved(1, n_ops, fused=False) / bytes_moved(1, n_ops, fused=True)',
             'return bytes_moved(n_ops, 1, fused=False) / bytes_moved(n_ops, 1, fused=True)'),
            says="eager's bytes over the fused kernel's"),
]

RIGHT = [
    right('01.dispatch', 'the device bound as a default argument (device=device): the grader passes its own', 'ex-1',
          ('def time_op_sweep(op, sizes):', 'def time_op_sweep(op, sizes, device=device):')),
    right('01.dispatch', 'the sweep through `measure` imported by name, a closure with device=, under no_grad, its times rounded to 0.01 µs', 'ex-1',
          ('def time_op_sweep(op, sizes):', 'from helpers.bench import measure\n\n\ndef time_op_sweep(op, sizes):'),
          ('        t = bench.measure(op, x, label=f"{n}")\n',
           '        with torch.no_grad():\n            t = measure(lambda: op(x), label=f"{n}", device=device)\n'),
          (SWEEP_ROW, 'rows.append({"numel": n, **{f"{k}_us": round(getattr(t, f"{k}_ms") * 1e3, 2) for k in ("median", "q25", "q75")}})')),
    right('01.dispatch', 'the times rounded to whole microseconds', 'ex-1',
          (SWEEP_ROW, 'rows.append({"numel": n, **{f"{k}_us": round(getattr(t, f"{k}_ms") * 1e3) for k in ("median", "q25", "q75")}})')),
    right('01.dispatch', "the quartiles taken from bench.measure's own samples with numpy.percentile", 'ex-1',
          (SWEEP_ROW, 'import numpy as np\n        q25, q75 = np.percentile(t.times_ms, [25, 75])\n        '
                      'rows.append({"numel": n, "median_us": t.median_ms * 1e3, "q25_us": q25 * 1e3, "q75_us": q75 * 1e3})')),
    right('01.dispatch', 'the sweep as a list comprehension, the floor with statistics.median, the knee by a loop', 'ex-1',
          source='''
import statistics


def time_op_sweep(op, sizes):
    timings = [(n, bench.measure(op, torch.randn(n, device=device))) for n in sizes]
    return [{"numel": n, "median_us": 1000 * t.median_ms, "q25_us": 1000 * t.q25_ms, "q75_us": 1000 * t.q75_ms}
            for n, t in timings]


def overhead_floor_us(rows):
    return statistics.median(r["median_us"] for r in sorted(rows, key=lambda r: r["numel"])[:3])


def first_size_beyond_overhead(rows, factor=2.0):
    limit = factor * overhead_floor_us(rows)
    for r in sorted(rows, key=lambda r: r["numel"]):
        if r["median_us"] > limit:
            return r["numel"]
    return None
'''),
    late_right('01.per_op', 'numpy.polyfit', 'ex-1b', source='''
import numpy as np


def fit_per_op_us(rows):
    slope, intercept = np.polyfit([r["n_ops"] for r in rows], [r["median_us"] for r in rows], 1)
    return float(slope), float(intercept)
'''),
    late_right('01.per_op', 'statistics.linear_regression', 'ex-1b', source='''
import statistics


def fit_per_op_us(rows):
    line = statistics.linear_regression([float(r["n_ops"]) for r in rows], [float(r["median_us"]) for r in rows])
    return line.slope, line.intercept
'''),
    right('01.recording_backend', 'the backend returns the GraphModule itself (it is callable)', 'ex-3',
          ('        return gm.forward', '        return gm')),
    right('01.no_breaks', 'no_item with torch.where on the largest magnitude', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1',
           'm = x.abs().max()\n    return torch.where(m > 1, x / m, x) + 1')),
    right('01.no_breaks', 'no_branch with torch.cond', 'ex-3b',
          ('return torch.where(y.sum() > 0, y.relu(), -y)',
           'return torch.cond(y.sum() > 0, lambda t: t.relu(), lambda t: -t, (y,))')),
    right('01.count_compiles', 'count_compiles with a backend of its own that counts the graphs it receives', 'ex-4',
          ('    counter = CompileCounter()\n    compiled = torch.compile(fn, backend=counter)\n    for args in calls:\n'
           '        compiled(*args)\n    return counter.frame_count',
           '    graphs = []\n    compiled = torch.compile(fn, backend=lambda gm, example: graphs.append(gm) or gm.forward)\n'
           '    for args in calls:\n        compiled(*args)\n    return len(graphs)')),
    right('01.export', 'a Dim without a min, dynamic_shapes as a tuple', 'ex-5',
          ('batch = torch.export.Dim("batch", min=1, max=max_batch)\n    return torch.export.export(model, (example,), dynamic_shapes=({0: batch},))',
           'return torch.export.export(model, (example,), dynamic_shapes=({0: torch.export.Dim("n", max=max_batch)},))')),
    right('01.export', 'save_and_load through a str path', 'ex-5',
          ('    torch.export.save(program, path)\n    return torch.export.load(path)',
           '    torch.export.save(program, str(path))\n    return torch.export.load(str(path))')),
    late_right('01.traffic_model', 'the model written as reads plus writes, the speedup as a ratio of kernels', 'ex-6', source='''
def bytes_moved(numel, n_ops, fused, bytes_per_element=4):
    reads = writes = numel * bytes_per_element
    return (reads + writes) * (1 if fused else n_ops)


def predicted_speedup(n_ops):
    return bytes_moved(1000, n_ops, False, 2) / bytes_moved(1000, n_ops, True, 2)
'''),
    right('01.recording_backend', 'a recorder class whose instances are the backend and hold the list; count_graphs with torch.compiler.reset()', 'ex-3', source='''
class Recorder:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm


def make_recording_backend():
    recorder = Recorder()
    return recorder, recorder.graphs


def count_graphs(fn, *args):
    torch.compiler.reset()
    recorder, graphs = make_recording_backend()
    torch.compile(fn, backend=recorder)(*args)
    return len(graphs)
'''),
    right('01.no_breaks', 'no_item and no_branch work in place on tensors of their own (never on x)', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'out = x / x.abs().max().clamp(min=1)\n    out.add_(1)\n    return out'),
          ('    y = x * 3\n    return torch.where(y.sum() > 0, y.relu(), -y)', '    y = x.mul(3)\n    return torch.where(y.sum() > 0, y.clamp_min(0), y.neg_())')),
    right('01.count_compiles', 'count_compiles with torch.compiler.reset() and a CompileCounter made inline', 'ex-4',
          ('    torch._dynamo.reset()\n    counter = CompileCounter()', '    torch.compiler.reset()\n    counter = torch._dynamo.testing.CompileCounter()'),
          ('    from torch._dynamo.testing import CompileCounter\n', '    import torch._dynamo.testing\n')),
    right('01.export', 'dynamic_shapes per dimension as a tuple, exported strictly', 'ex-5',
          ('dynamic_shapes=({0: batch},))', 'dynamic_shapes={"x": (batch, None)}, strict=True)')),
    late_right('01.dispatch', 'the floor from heapq.nsmallest by size, the knee as the least size beyond the limit', 'ex-1', source='''
import heapq


def overhead_floor_us(rows):
    return statistics.median(r["median_us"] for r in heapq.nsmallest(3, rows, key=lambda r: r["numel"]))


def first_size_beyond_overhead(rows, factor=2.0):
    limit = factor * overhead_floor_us(rows)
    beyond = [r["numel"] for r in rows if r["median_us"] > limit]
    return min(beyond) if beyond else None
'''),
    # (round 3)
    late_right('01.per_op', 'torch.linalg.lstsq on float32 tensors (the default dtype)', 'ex-1b', source='''
def fit_per_op_us(rows):
    a = torch.tensor([[float(r["n_ops"]), 1.0] for r in rows])
    b = torch.tensor([[float(r["median_us"])] for r in rows])
    slope, intercept = torch.linalg.lstsq(a, b).solution.flatten().tolist()
    return slope, intercept
'''),
    right('01.count_compiles', "count_compiles with Dynamo's counters cleared, then its unique_graphs statistic", 'ex-4',
          ('    counter = CompileCounter()\n    compiled = torch.compile(fn, backend=counter)\n    for args in calls:\n'
           '        compiled(*args)\n    return counter.frame_count',
           '    torch._dynamo.utils.counters.clear()\n    compiled = torch.compile(fn, backend="eager")\n'
           '    for args in calls:\n        compiled(*args)\n    return torch._dynamo.utils.counters["stats"]["unique_graphs"]')),
    right('01.dispatch', 'the sweep timed in the same paired rounds with bench.compare_many, its Timing per size', 'ex-1',
          ('        x = torch.randn(n, device=device)\n        t = bench.measure(op, x, label=f"{n}")\n        ' + SWEEP_ROW,
           '        pass\n    xs = {n: torch.randn(n, device=device) for n in sizes}\n'
           '    rounds = bench.compare_many({str(n): (lambda x=xs[n]: op(x)) for n in sizes}, device=device)\n'
           '    for n in sizes:\n        t = rounds.timing(str(n))\n        ' + SWEEP_ROW)),
    right('01.dispatch', 'the tensors made with torch.ones on the CPU and moved with .to(device), timed under inference_mode', 'ex-1',
          ('        x = torch.randn(n, device=device)\n        t = bench.measure(op, x, label=f"{n}")',
           '        x = torch.ones(n).to(device)\n        with torch.inference_mode():\n'
           '            t = bench.measure(op, x, label=f"{n}")')),
    right('01.recording_backend', "count_graphs counts its backend's graphs and prints explain's break reasons too", 'ex-3',
          ('    torch.compile(fn, backend=backend)(*args)\n    return len(graphs)',
           '    torch.compile(fn, backend=backend)(*args)\n    n = len(graphs)\n'
           '    for reason in torch._dynamo.explain(fn)(*args).break_reasons:\n        print("break:", reason.reason)\n'
           '    return n')),
    right('01.no_breaks', 'no_branch with the test turned round (sum <= 0 picks -y)', 'ex-3b',
          ('torch.where(y.sum() > 0, y.relu(), -y)', 'torch.where(y.sum() <= 0, -y, y.relu())')),
    late_right('01.traffic_model', 'bytes_per_element defaulting to float32 by torch.finfo, the speedup as a kernel ratio', 'ex-6', source='''
def bytes_moved(numel, n_ops, fused, bytes_per_element=torch.finfo(torch.float32).bits // 8):
    one_kernel = 2 * numel * bytes_per_element
    return one_kernel if fused else n_ops * one_kernel


def predicted_speedup(n_ops):
    return n_ops / 1
'''),
]


# ---------------------------------------------------------------- round 4 ("fair grades"): mistakes a half-sure
# learner makes that the earlier rounds did not imagine, and correct answers written another unusual way.
ROUND4 = [
    # 1: the sweep, the floor and the knee
    wrong('01.dispatch', 'the sizes timed in sorted order, then zipped with the sizes as given: each row holds another size\'s time', 'ex-1',
          ('    rows = []\n    for n in sizes:\n        x = torch.randn(n, device=device)\n        t = bench.measure(op, x, label=f"{n}")\n        ' + SWEEP_ROW,
           '    timings = [bench.measure(op, torch.randn(m, device=device), label=f"{m}") for m in sorted(sizes)]\n'
           '    rows = []\n    for n, t in zip(sizes, timings):\n        ' + SWEEP_ROW),
          says='another size', hidden_says='another size'),
    late('01.dispatch', "overhead_floor_us sorts the caller's rows in place (rows.sort) to find the smallest sizes", 'ex-1',
         ('smallest = sorted(rows, key=lambda r: r["numel"])[:3]', 'rows.sort(key=lambda r: r["numel"])\n    smallest = rows[:3]'),
         says='in place', hidden_says='in place'),
    late('01.dispatch', 'the floor from the lower quartiles (q25_us) of the three smallest sizes, not their medians', 'ex-1',
         ('times = sorted(r["median_us"] for r in smallest)', 'times = sorted(r["q25_us"] for r in smallest)'),
         says='median of the three smallest', hidden_says='overhead_floor_us is wrong'),
    late('01.dispatch', 'the knee where the upper quartile (q75_us) is beyond factor × the floor', 'ex-1',
         (KNEE, KNEE.replace('r["median_us"] > factor', 'r["q75_us"] > factor')),
         says='strictly more than factor', hidden_says='first_size_beyond_overhead is wrong'),
    late('01.dispatch', '"more than factor × the floor" read as factor more: beyond (1 + factor) × the floor', 'ex-1',
         (KNEE, KNEE.replace('factor * floor', '(1 + factor) * floor')),
         says='strictly more than factor', hidden_says='first_size_beyond_overhead is wrong'),
    late('01.dispatch', 'bench.measure cut short to save time (no warm-up, one repeat, no minimum run time)', 'ex-1',
         ('t = bench.measure(op, x, label=f"{n}")', 't = bench.measure(op, x, label=f"{n}", warmup=0, repeat=1, min_run_time=0.0)'),
         says=r'only \d+ sample', hidden_says=r'only \d+ sample'),
    # 1: the fit
    late('01.per_op', 'the first chain dropped as a warm-up before the fit', 'ex-1b',
         ('xs = [float(r["n_ops"]) for r in rows]\n    ys = [float(r["median_us"]) for r in rows]',
          'rows = rows[1:]     # the first chain warms up\n    xs = [float(r["n_ops"]) for r in rows]\n    ys = [float(r["median_us"]) for r in rows]'),
         says='least-squares line', hidden_says='another line'),
    late('01.per_op', 'the intercept through the medians of the op counts and the times, not their means', 'ex-1b',
         ('return slope, my - slope * mx', 'return slope, statistics.median(ys) - slope * statistics.median(xs)'),
         says='least-squares line', hidden_says='another line'),
    # 2: the capture table
    wrong('01.capture_table', "the serialisable column spelled the American way ('serializable')", 'ex-2',
          ('"serialisable"', '"serializable"'),
          says="'serializable'.*not one of the table's columns.*'serialisable'", hidden_says="'serializable'.*not one of the table's columns"),
    wrong('01.capture_table', "torch.export's dynamic_shapes said 'error' (it raised at the new length: the column's word is 'specialized')", 'ex-2',
          ('"dynamic_shapes": "specialized"', '"dynamic_shapes": "error"'),
          says='not what its experiment in part 2 printed', hidden_says='not what its experiment'),
    # 3: the recording backend, the functions without breaks
    wrong('01.recording_backend', 'the backend records only the first graph it is given', 'ex-3',
          ('        graphs.append(gm)\n', '        if not graphs:\n            graphs.append(gm)\n'),
          says='GraphModules', hidden_says='GraphModules'),
    wrong('01.recording_backend', 'make_recording_backend returns (graphs, backend), the other way round', 'ex-3',
          ('    return backend, graphs\n', '    return graphs, backend\n'),
          ('    backend, graphs = make_recording_backend()\n', '    graphs, backend = make_recording_backend()\n'),
          says=r'should return \(backend, graphs\)', hidden_says=r'should return \(backend, graphs\)'),
    wrong('01.no_breaks', 'no_print logs the message with logging instead of printing it (still a side effect Dynamo breaks on)', 'ex-3b',
          ('    return x.sin().cos()', '    y = x.sin()\n    logging.getLogger("lab01").warning("halfway")\n    return y.cos()'),
          says='fullgraph=True', hidden_says='fullgraph=True'),
    wrong('01.no_breaks', 'no_item adds the 1 before dividing ((x + 1) / scale)', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'return (x + 1) / x.abs().max().clamp(min=1)'),
          says='computes something else than with_item', hidden_says='computes something else than with_item'),
    wrong('01.no_breaks', 'no_branch takes relu in place (y.relu_()) before -y is computed, so the negative branch negates the relu', 'ex-3b',
          ('torch.where(y.sum() > 0, y.relu(), -y)', 'torch.where(y.sum() > 0, y.relu_(), -y)'),
          says='computes something else than with_branch', hidden_says='computes something else than with_branch'),
    wrong('01.no_breaks', 'no_branch negates x, not y = 3x, in the negative branch', 'ex-3b',
          ('torch.where(y.sum() > 0, y.relu(), -y)', 'torch.where(y.sum() > 0, y.relu(), -x)'),
          says='computes something else than with_branch', hidden_says='computes something else than with_branch'),
    # 4: count_compiles
    wrong('01.count_compiles', 'count_compiles with automatic dynamic shapes turned off (every new size recompiles)', 'ex-4',
          ('    for args in calls:\n        compiled(*args)\n    return counter.frame_count',
           '    with torch._dynamo.config.patch(automatic_dynamic_shapes=False):\n        for args in calls:\n'
           '            compiled(*args)\n    return counter.frame_count'),
          says='count_compiles returned', hidden_says='count_compiles returned'),
    # 5: export
    wrong('01.export', 'every dimension declared dynamic (the features too): the Linear needs its 16 features, export refuses', 'ex-5',
          ('({0: batch},)', '({0: batch, 1: torch.export.Dim("features")},)'),
          says='export_dynamic. raised', hidden_says='export_dynamic. raised'),
    wrong('01.export', 'save_and_load saves to a file name of its own, ignoring `path`', 'ex-5',
          ('    torch.export.save(program, path)\n    return torch.export.load(path)',
           '    import tempfile\n    mine = tempfile.gettempdir() + "/program.pt2"   # a name of its own\n'
           '    torch.export.save(program, mine)\n    return torch.export.load(mine)'),
          says='wrote nothing', hidden_says='wrote nothing'),
    # 6: the traffic model
    traffic('the fused kernel said to write every intermediate (one read, n_ops writes)',
            ('return kernels * 2 * numel * bytes_per_element',
             'return ((1 + n_ops) if fused else 2 * n_ops) * numel * bytes_per_element'),
            says='does not follow the rule'),
]

ROUND4_RIGHT = [
    right('01.dispatch', 'one tensor of the largest size made once, each size timed on a slice of it (a contiguous view)', 'ex-1',
          ('    rows = []\n    for n in sizes:\n        x = torch.randn(n, device=device)\n',
           '    rows = []\n    pool = torch.randn(max(sizes), device=device)\n    for n in sizes:\n        x = pool[:n]\n')),
    late_right('01.per_op', 'the slope as the sample covariance over the sample variance (statistics)', 'ex-1b', source='''
def fit_per_op_us(rows):
    xs = [r["n_ops"] for r in rows]
    ys = [r["median_us"] for r in rows]
    slope = statistics.covariance(xs, ys) / statistics.variance(xs)
    return slope, statistics.fmean(ys) - slope * statistics.fmean(xs)
'''),
    right('01.no_breaks', 'no_branch as a blend: the test as a 0/1 tensor that weighs the two branches', 'ex-3b',
          ('    return torch.where(y.sum() > 0, y.relu(), -y)',
           '    positive = (y.sum() > 0).to(y.dtype)\n    return positive * y.relu() - (1 - positive) * y')),
    right('01.recording_backend', 'the backend a lambda that appends to the list and hands back the GraphModule', 'ex-3',
          ('    def backend(gm, example_inputs):\n        graphs.append(gm)\n        return gm.forward\n',
           '    backend = lambda gm, example_inputs: graphs.append(gm) or gm\n')),
]

WRONG += ROUND4
RIGHT += ROUND4_RIGHT


# ---------------------------------------------------------------- round 5 ("fair grades"): more mistakes a learner makes
# from the exercise text (a device hard-coded for bench, a global read instead of an argument, a count of distinct
# graphs, a decision on the typical element instead of the sum, a cache across calls), and right answers written
# another way.
FIT_SLOPE = 'slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)'
HEAD = SOURCES["run-5"].split("\n\n\nhead = ")[0] + "\n\n\nhead = Head().eval()   # run-5's model, as the notebook defines it"

ROUND5 = [
    # 1: dispatch
    late('01.dispatch', 'bench.measure told device="cpu" whatever `device` is (no GPU synchronisation on a GPU)', 'ex-1',
         ('t = bench.measure(op, x, label=f"{n}")', 't = bench.measure(op, x, label=f"{n}", device="cpu")'),
         says="told bench.measure device='cpu'", hidden_says="told bench.measure device='cpu'"),
    late('01.dispatch', 'first_size_beyond_overhead returns the row, not its size', 'ex-1',
         (KNEE, KNEE.replace('(r["numel"] for r', '(r for r')),
         says='first_size_beyond_overhead', hidden_says='first_size_beyond_overhead is wrong'),
    late('01.dispatch', "the knee against the notebook's global `floor` (from op_rows), not the floor of the rows it is given", 'ex-1',
         ('    floor = overhead_floor_us(rows)\n    return next', '    return next'),
         says='first_size_beyond_overhead', hidden_says='first_size_beyond_overhead is wrong'),
    late('01.dispatch', 'the knee beyond factor plus the floor (factor + floor), not factor times it', 'ex-1',
         (KNEE, KNEE.replace('factor * floor', 'factor + floor')),
         says='strictly more than factor', hidden_says='first_size_beyond_overhead is wrong'),
    # 1: per_op
    late('01.per_op', "numpy.polyfit's coefficients read as (intercept, slope): its highest power comes first", 'ex-1b',
         (FIT_SLOPE + '\n    return slope, my - slope * mx',
          'import numpy as np\n    intercept, slope = np.polyfit(xs, ys, 1)\n    return slope, intercept'),
         says='least-squares line', hidden_says='another line'),
    late('01.per_op', 'the line fitted against the row number (0, 1, 2, ...), not the number of ops', 'ex-1b',
         ('xs = [float(r["n_ops"]) for r in rows]', 'xs = [float(i) for i in range(len(rows))]'),
         says='least-squares line', hidden_says='another line'),
    late('01.per_op', "the cost per op as the mean of each chain's time per op (t / k), no intercept", 'ex-1b',
         ('return slope, my - slope * mx', 'return sum(y / x for x, y in zip(xs, ys)) / n, 0.0'),
         says='least-squares line', hidden_says='another line'),
    # 2: capture table
    wrong('01.capture_table', "the methods keyed without the torch. prefix ('jit.trace', ...)", 'ex-2',
          ('"torch.jit.trace": {', '"jit.trace": {'), ('"torch.jit.script": {', '"jit.script": {'),
          ('"torch.fx.symbolic_trace": {', '"fx.symbolic_trace": {'), ('"torch.compile": {', '"compile": {'),
          ('"torch.export": {', '"export": {'),
          says='lacks torch.jit.trace', hidden_says='lacks torch.jit.trace'),
    wrong('01.capture_table', 'fx.symbolic_trace said to break the graph at the if, like torch.compile', 'ex-2',
          ('"torch.fx.symbolic_trace": {"control_flow": "error"', '"torch.fx.symbolic_trace": {"control_flow": "graph break"'),
          says='not what its experiment in part 2 printed', hidden_says='not what its experiment'),
    wrong('01.capture_table', 'jit.script said not to be serialisable (thought to need the class, like a pickle)', 'ex-2',
          ('"python_coverage": "typed subset", "serialisable": True', '"python_coverage": "typed subset", "serialisable": False'),
          says='not what its experiment in part 2 printed', hidden_says='not what its experiment'),
    wrong('01.capture_table', "the British spelling 'specialised' for torch.export's dynamic_shapes (the column's word is 'specialized')", 'ex-2',
          ('"dynamic_shapes": "specialized"', '"dynamic_shapes": "specialised"'),
          says="'specialised'.*use one of", hidden_says="'specialised'.*use one of"),
    # 3: recording backend
    wrong('01.recording_backend', 'count_graphs counts the distinct graphs (by their code), so two identical graphs count once', 'ex-3',
          ('    return len(graphs)\n', '    return len({g.code for g in graphs})\n'),
          says='not the distinct ones', hidden_says='not the distinct ones'),
    wrong('01.recording_backend', "count_graphs calls the compiled fn on the notebook's global x, not on its arguments", 'ex-3',
          ('torch.compile(fn, backend=backend)(*args)', 'torch.compile(fn, backend=backend)(x)'),
          says='count_graphs', hidden_says='count_graphs'),
    wrong('01.recording_backend', 'count_graphs calls the original fn, not the compiled one', 'ex-3',
          ('    torch.compile(fn, backend=backend)(*args)\n', '    torch.compile(fn, backend=backend)\n    fn(*args)\n'),
          says='count_graphs', hidden_says='count_graphs'),
    wrong('01.recording_backend', 'make_recording_backend memoised with functools.cache: every call hands back the same backend and list', 'ex-3',
          ('def make_recording_backend():', 'import functools\n\n\n@functools.cache\ndef make_recording_backend():'),
          says='new, empty list on every call', hidden_says='new, empty list on every call'),
    wrong('01.dispatch', "time_op_sweep keeps each size's timing in a cache across calls (a size timed once is never timed again)", 'ex-1',
          ('def time_op_sweep(op, sizes):', 'SWEEP_CACHE = {}\n\n\ndef time_op_sweep(op, sizes):'),
          ('        t = bench.measure(op, x, label=f"{n}")',
           '        if n not in SWEEP_CACHE:\n            SWEEP_CACHE[n] = bench.measure(op, x, label=f"{n}")\n        t = SWEEP_CACHE[n]'),
          says='did not see those sizes', hidden_says='did not see those sizes'),
    # 3: no breaks
    wrong('01.no_breaks', 'no_item divides only the elements above 1 in magnitude (an elementwise test, not the largest magnitude)', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'return torch.where(x.abs() > 1, x / x.abs().max(), x) + 1'),
          says='computes something else than with_item', hidden_says='computes something else than with_item'),
    wrong('01.no_breaks', 'no_branch decides on the majority of signs, not on the sum', 'ex-3b',
          ('torch.where(y.sum() > 0,', 'torch.where((y > 0).sum() > y.numel() / 2,'),
          says='computes something else than with_branch.*most of them of the other sign',
          hidden_says='computes something else than with_branch.*most of them of the other sign'),
    wrong('01.no_breaks', "no_branch decides on the median element's sign (a typical value), not on the sum", 'ex-3b',
          ('torch.where(y.sum() > 0,', 'torch.where(y.median() > 0,'),
          says='computes something else than with_branch.*most of them of the other sign',
          hidden_says='computes something else than with_branch.*most of them of the other sign'),
    wrong('01.no_breaks', 'no_print applies cos before sin (the order of the two ops swapped)', 'ex-3b',
          ('    return x.sin().cos()', '    return x.cos().sin()'),
          says='computes something else than with_print', hidden_says='computes something else than with_print'),
    # 4: recompiles
    wrong('01.count_compiles', "count_compiles loops over the notebook's CALLS, not the calls it is given", 'ex-4',
          ('    for args in calls:\n        compiled(*args)', '    for args in CALLS:\n        compiled(*args)'),
          says='count_compiles', hidden_says='count_compiles'),
    wrong('01.count_compiles', 'count_compiles resets Dynamo before every call (each call a fresh start)', 'ex-4',
          ('    for args in calls:\n        compiled(*args)', '    for args in calls:\n        torch._dynamo.reset()\n        compiled(*args)'),
          says='count_compiles returned', hidden_says='count_compiles returned'),
    wrong('01.count_compiles', "count_compiles marks every call's first dimension dynamic (mark_dynamic) before the call", 'ex-4',
          ('    for args in calls:\n        compiled(*args)',
           '    for args in calls:\n        torch._dynamo.mark_dynamic(args[0], 0)\n        compiled(*args)'),
          says='count_compiles returned', hidden_says='count_compiles returned'),
    wrong('01.recompiles', 'predicts the recompiles only (3: the first compile left out)', 'ex-4',
          ('PREDICTED_COMPILES = 4', 'PREDICTED_COMPILES = 4 - 1'),
          says='PREDICTED_COMPILES'),
    # 5: export
    wrong('01.export', "export_dynamic exports the notebook's global `head`, not the model it is given", 'ex-5',
          ('torch.export.export(model, (example,),', 'torch.export.export(head, (example,),'),
          ('def export_dynamic(', HEAD + '\n\ndef export_dynamic('),
          says="not the notebook's `head`", hidden_says="not the notebook's `head`"),
    wrong('01.export', 'the batch declared with Dim.DYNAMIC(min=1, max=max_batch): torch records it from 2', 'ex-5',
          ('torch.export.Dim("batch", min=1, max=max_batch)', 'torch.export.Dim.DYNAMIC(min=1, max=max_batch)'),
          says='Dim.DYNAMIC', hidden_says='Dim.DYNAMIC'),
    wrong('01.export', 'the example passed to export alone, not in a tuple of arguments', 'ex-5',
          ('torch.export.export(model, (example,),', 'torch.export.export(model, example,'),
          says='tuple', hidden_says='tuple'),
    wrong('01.export', "the Dim's max set to the example's batch, not max_batch", 'ex-5',
          ('max=max_batch)', 'max=example.shape[0])'),
          says='max_batch', hidden_says='max_batch'),
    # 6: traffic
    traffic('the fused kernel counted as reading the input once per op (n_ops reads, one write)',
            ('return kernels * 2 * numel * bytes_per_element',
             'return ((n_ops + 1) if fused else 2 * n_ops) * numel * bytes_per_element'),
            says='does not follow the rule'),
]

ROUND5_RIGHT = [
    right('01.no_breaks', "no_item bounds the scale with Python's max(scale, 1), which Dynamo turns into a tensor op", 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'return x / max(x.abs().max(), 1) + 1')),
    right('01.recording_backend', "the backend returns an fx Interpreter's run over the graph", 'ex-3',
          ('        return gm.forward', '        return torch.fx.Interpreter(gm).run')),
    right('01.count_compiles', 'count_compiles makes a fresh torch.compile wrapper for every call (the cache lives on the code, not the wrapper)', 'ex-4',
          ('    compiled = torch.compile(fn, backend=counter)\n    for args in calls:\n        compiled(*args)',
           '    for args in calls:\n        torch.compile(fn, backend=counter)(*args)')),
    right('01.count_compiles', 'count_compiles with a CompileCounterWithBackend("eager")', 'ex-4',
          ('    counter = CompileCounter()', '    counter = torch._dynamo.testing.CompileCounterWithBackend("eager")')),
    right('01.export', 'export_dynamic decomposes the program to core ATen; save_and_load through open files', 'ex-5',
          ('dynamic_shapes=({0: batch},))', 'dynamic_shapes=({0: batch},)).run_decompositions()'),
          ('    torch.export.save(program, path)\n    return torch.export.load(path)',
           '    with open(path, "wb") as f:\n        torch.export.save(program, f)\n    with open(path, "rb") as f:\n        return torch.export.load(f)')),
    right('01.export', 'dynamic_shapes as a list per argument', 'ex-5',
          ('dynamic_shapes=({0: batch},))', 'dynamic_shapes=[{0: batch}])')),
    right('01.export', 'dynamic_shapes keyed by the name of forward\'s argument, as the check\'s models call it', 'ex-5',
          ('dynamic_shapes=({0: batch},))', 'dynamic_shapes={"x": {0: batch}})')),
    right('01.no_breaks', 'no_branch tests the mean, and the sum of x (same sign as the sum of 3x)', 'ex-3b',
          ('torch.where(y.sum() > 0, y.relu(), -y)', 'torch.where(y.mean() > 0, y.relu(), y.neg())')),
    right('01.dispatch', 'uniform tensors (torch.rand), the rows built with dict(), the floor with numpy.median', 'ex-1', source='''
import numpy as np


def time_op_sweep(op, sizes):
    rows = []
    for n in sizes:
        x = torch.rand(n, device=device)
        t = bench.measure(op, x)
        rows.append(dict(numel=n, median_us=t.median_ms * 1000, q25_us=t.q25_ms * 1000, q75_us=t.q75_ms * 1000))
    return rows


def overhead_floor_us(rows):
    return float(np.median([r["median_us"] for r in sorted(rows, key=lambda r: r["numel"])[:3]]))


def first_size_beyond_overhead(rows, factor=2.0):
    floor = overhead_floor_us(rows)
    return min((r["numel"] for r in rows if r["median_us"] / floor > factor), default=None)
'''),
    late_right('01.per_op', 'numpy.linalg.lstsq with a column of ones, the pair returned as an array', 'ex-1b', source='''
import numpy as np


def fit_per_op_us(rows):
    a = np.array([[r["n_ops"], 1.0] for r in rows], dtype=float)
    return np.linalg.lstsq(a, np.array([r["median_us"] for r in rows], dtype=float), rcond=None)[0]
'''),
    late_right('01.traffic_model', "bytes_per_element defaulting to the default dtype's element size", 'ex-6', source='''
def bytes_moved(numel, n_ops, fused, bytes_per_element=torch.empty(0).element_size()):
    passes = 1 if fused else n_ops
    return passes * (numel * bytes_per_element + numel * bytes_per_element)


def predicted_speedup(n_ops):
    return bytes_moved(1, n_ops, False) // bytes_moved(1, n_ops, True)
'''),
]

WRONG += ROUND5
RIGHT += ROUND5_RIGHT


# ---------------------------------------------------------------- round 6 ("fair grades"): what a learner copying the
# course pages writes (their benchmark() helper in ms, torch.cuda.synchronize() on any machine, torch._dynamo.optimize,
# torch._dynamo.export, the page's comparison table read into the table's words, mode= beside a backend of one's own),
# and the usual slips the earlier rounds did not try: a time per element, a clamp on the fit, the smallest size never
# the knee, state kept in a cache or a mutable default, a float64 result, a Dim fixed at the notebook's max_batch.
SWEEP_BODY = '        t = bench.measure(op, x, label=f"{n}")\n        ' + SWEEP_ROW
COUNT_BODY = ('    counter = CompileCounter()\n    compiled = torch.compile(fn, backend=counter)\n    for args in calls:\n'
              '        compiled(*args)\n    return counter.frame_count')

ROUND6 = [
    # ---- dispatch
    late('01.dispatch', "the page's benchmark() helper ported: 10 warm-up calls, the mean of 100 in one perf_counter block, in ms", 'ex-1',
         (SWEEP_BODY,
          '        for _ in range(10):\n            op(x)\n        if device.type == "cuda":\n            torch.cuda.synchronize()\n'
          '        t0 = time.perf_counter()\n        for _ in range(100):\n            op(x)\n        if device.type == "cuda":\n'
          '            torch.cuda.synchronize()\n        ms = (time.perf_counter() - t0) / 100 * 1000\n'
          '        rows.append({"numel": n, "median_us": ms, "q25_us": ms, "q75_us": ms})'),
         says='microseconds', hidden_says='microseconds'),
    late('01.dispatch', 'the time per element (median over numel), not per call', 'ex-1',
         (SWEEP_ROW, 'rows.append({"numel": n, "median_us": t.median_ms * 1e3 / n, "q25_us": t.q25_ms * 1e3 / n, "q75_us": t.q75_ms * 1e3 / n})'),
         says='per element', hidden_says='per element'),
    late('01.dispatch', 'the tensors made on CUDA when it is there, else the CPU (not on `device`)', 'ex-1',
         ('x = torch.randn(n, device=device)', 'x = torch.randn(n, device="cuda" if torch.cuda.is_available() else "cpu")'),
         says='not on `device`', hidden_says='not on `device`'),
    late('01.dispatch', 'the knee as the last size still within factor × the floor (the size before the work takes over)', 'ex-1',
         (KNEE, 'next((a["numel"] for a, b in zip(sorted(rows, key=lambda r: r["numel"]), sorted(rows, key=lambda r: r["numel"])[1:]) if b["median_us"] > factor * floor), None)'),
         says='smallest size whose time is strictly more', hidden_says='first_size_beyond_overhead is wrong'),
    late('01.dispatch', 'the knee searched from the second size on (the smallest size taken as the reference, never the knee)', 'ex-1',
         (KNEE, KNEE.replace('sorted(rows, key=lambda r: r["numel"])', 'sorted(rows, key=lambda r: r["numel"])[1:]')),
         says='smallest size whose time is strictly more', hidden_says='first_size_beyond_overhead is wrong'),
    late('01.dispatch', 'overhead_floor_us remembers the first floor it computed (a module-level cache)', 'ex-1',
         ('def overhead_floor_us(rows):\n    """Median time of the three smallest sizes: what one op costs when there is nothing to compute."""\n    ### BEGIN SOLUTION\n',
          'FLOOR_CACHE = []\n\n\ndef overhead_floor_us(rows):\n    """Median time of the three smallest sizes: what one op costs when there is nothing to compute."""\n    ### BEGIN SOLUTION\n'
          '    if FLOOR_CACHE:\n        return FLOOR_CACHE[0]\n'),
         ('    return times[len(times) // 2]', '    FLOOR_CACHE.append(times[len(times) // 2])\n    return FLOOR_CACHE[0]'),
         says='overhead_floor_us', hidden_says='overhead_floor_us is wrong'),
    late('01.dispatch', "the page's benchmark() ported as it is: torch.cuda.synchronize() whatever the device (no CUDA here)", 'ex-1',
         (SWEEP_BODY,
          '        for _ in range(10):\n            op(x)\n        torch.cuda.synchronize()\n'
          '        t0 = time.perf_counter()\n        for _ in range(100):\n            op(x)\n        torch.cuda.synchronize()\n'
          '        us = (time.perf_counter() - t0) / 100 * 1e6\n'
          '        rows.append({"numel": n, "median_us": us, "q25_us": us, "q75_us": us})'),
         says='called CUDA on a machine without it', hidden_says='called CUDA on a machine without it'),
    late('01.dispatch', "the quartiles rebuilt as the median ± half bench.measure's IQR (as if the spread were symmetric)", 'ex-1',
         (SWEEP_ROW, 'rows.append({"numel": n, "median_us": t.median_ms * 1e3, "q25_us": (t.median_ms - t.iqr_ms / 2) * 1e3, "q75_us": (t.median_ms + t.iqr_ms / 2) * 1e3})'),
         says="not bench.measure's (lower|upper) quartile", hidden_says="not bench.measure's (lower|upper) quartile"),
    # ---- per_op
    late('01.per_op', 'the slope and intercept converted to milliseconds (÷ 1000): the rows are already in µs', 'ex-1b',
         ('return slope, my - slope * mx', 'return slope / 1e3, (my - slope * mx) / 1e3'),
         says='least-squares line', hidden_says='another line'),
    late('01.per_op', "the op counts taken as the notebook's chains 1, 2, 4, 8, not the rows' n_ops", 'ex-1b',
         ('xs = [float(r["n_ops"]) for r in rows]', 'xs = [1.0, 2.0, 4.0, 8.0]'),
         says='least-squares line', hidden_says='another line'),
    late('01.per_op', 'the intercept clamped at zero (a cost cannot be negative)', 'ex-1b',
         ('return slope, my - slope * mx', 'return slope, max(0.0, my - slope * mx)'),
         says='least-squares line', hidden_says='another line'),
    late('01.per_op', 'the slope clamped at zero (an added op cannot save time)', 'ex-1b',
         ('return slope, my - slope * mx', 'slope = max(slope, 0.0)\n    return slope, my - slope * mx'),
         says='least-squares line', hidden_says='another line'),
    late('01.per_op', 'the time per op (median over n_ops) fitted against n_ops', 'ex-1b',
         ('ys = [float(r["median_us"]) for r in rows]', 'ys = [float(r["median_us"]) / r["n_ops"] for r in rows]'),
         says='least-squares line', hidden_says='another line'),
    # ---- capture table
    wrong('01.capture_table', "the page's '✗ Limited' control flow for fx read as baked (fx refuses the if)", 'ex-2',
          ('"torch.fx.symbolic_trace": {"control_flow": "error"', '"torch.fx.symbolic_trace": {"control_flow": "baked"'),
          says='not what its experiment in part 2 printed', hidden_says='not what its experiment'),
    wrong('01.capture_table', "the page's '✓ Limited' dynamic shapes for jit.script read as specialized", 'ex-2',
          ('"torch.jit.script": {"control_flow": "kept", "dynamic_shapes": "dynamic"', '"torch.jit.script": {"control_flow": "kept", "dynamic_shapes": "specialized"'),
          says='not what its experiment in part 2 printed', hidden_says='not what its experiment'),
    wrong('01.capture_table', 'the table transposed, as a DataFrame gives it (columns as keys, methods inside)', 'ex-2',
          ('### END SOLUTION', 'CAPTURE_TABLE = {c: {m: row[c] for m, row in CAPTURE_TABLE.items()} for c in next(iter(CAPTURE_TABLE.values()))}\n### END SOLUTION'),
          says='lacks torch.jit.trace', hidden_says='lacks torch.jit.trace'),
    wrong('01.capture_table', "fx keyed by its module ('torch.fx'), not the function symbolic_trace", 'ex-2',
          ('"torch.fx.symbolic_trace": {', '"torch.fx": {'),
          says='lacks torch.fx.symbolic_trace', hidden_says='lacks torch.fx.symbolic_trace'),
    wrong('01.capture_table', "torch.compile's Python coverage read from the page's '~95%' as a typed subset", 'ex-2',
          ('"python_coverage": "any (falls back to Python)"', '"python_coverage": "typed subset"'),
          says='showed it accepts', hidden_says='showed it accepts'),
    # ---- recording backend
    wrong('01.recording_backend', 'make_recording_backend keeps its list as a mutable default argument (graphs=[]), shared by every call', 'ex-3',
          ('def make_recording_backend():', 'def make_recording_backend(graphs=[]):'),
          ('    graphs = []\n\n    def backend', '    def backend'),
          says='new, empty list on every call', hidden_says='new, empty list on every call'),
    wrong('01.recording_backend', 'count_graphs compiles with the page\'s torch._dynamo.optimize(backend, nopython=True): a break is then an error', 'ex-3',
          ('torch.compile(fn, backend=backend)(*args)', 'torch._dynamo.optimize(backend, nopython=True)(fn)(*args)'),
          says='count_graphs', hidden_says='count_graphs'),
    wrong('01.recording_backend', "count_graphs reads Dynamo's unique_graphs statistic without clearing it (counts since the process started)", 'ex-3',
          ('    torch.compile(fn, backend=backend)(*args)\n    return len(graphs)',
           '    torch.compile(fn, backend=backend)(*args)\n    return torch._dynamo.utils.counters["stats"]["unique_graphs"]'),
          says='count_graphs', hidden_says='count_graphs'),
    wrong('01.recording_backend', 'count_graphs counts the nodes of the graphs, not the graphs', 'ex-3',
          ('    return len(graphs)\n', '    return sum(len(g.graph.nodes) for g in graphs)\n'),
          says='count_graphs', hidden_says='count_graphs'),
    wrong('01.recording_backend', 'count_graphs keeps each compiled function (and its backend) in a cache by fn, reused on the next call', 'ex-3',
          ('def count_graphs(fn, *args):', 'COMPILED = {}\n\n\ndef count_graphs(fn, *args):'),
          ('    backend, graphs = make_recording_backend()\n    torch.compile(fn, backend=backend)(*args)\n',
           '    if fn not in COMPILED:\n        backend, graphs = make_recording_backend()\n        COMPILED[fn] = (torch.compile(fn, backend=backend), graphs)\n'
           '    compiled, graphs = COMPILED[fn]\n    compiled(*args)\n'),
          says='earlier call', hidden_says='earlier call'),
    wrong('01.recording_backend', 'count_graphs compiles with mode="max-autotune" beside its recording backend', 'ex-3',
          ('torch.compile(fn, backend=backend)(*args)', 'torch.compile(fn, backend=backend, mode="max-autotune")(*args)'),
          says='mode= and options=', hidden_says='mode= and options='),
    # ---- no breaks
    wrong('01.no_breaks', 'no_print warns with warnings.warn instead of printing (still a side effect Dynamo breaks on)', 'ex-3b',
          ('    return x.sin().cos()', '    y = x.sin()\n    warnings.warn("halfway")\n    return y.cos()'),
          says='fullgraph=True', hidden_says='fullgraph=True'),
    wrong('01.no_breaks', 'no_branch as a blend weighed by (sign(sum) + 1) / 2: half of each branch when the sum is zero', 'ex-3b',
          ('    return torch.where(y.sum() > 0, y.relu(), -y)',
           '    w = (torch.sign(y.sum()) + 1) / 2\n    return w * y.relu() + (1 - w) * (-y)'),
          says='computes something else than with_branch.*sum is zero', hidden_says='computes something else than with_branch.*sum is zero'),
    wrong('01.no_breaks', 'no_branch returns y.abs() on the negative side, not -y', 'ex-3b',
          ('torch.where(y.sum() > 0, y.relu(), -y)', 'torch.where(y.sum() > 0, y.relu(), y.abs())'),
          says='computes something else than with_branch', hidden_says='computes something else than with_branch'),
    wrong('01.no_breaks', 'no_branch triples x in place (x.mul_(3)): the caller\'s x changes', 'ex-3b',
          ('    y = x * 3\n    return torch.where', '    y = x.mul_(3)\n    return torch.where'),
          says='changes its input in place', hidden_says='changes its input in place'),
    wrong('01.no_breaks', 'no_item computes in float64 for precision (x.double()): the result is no longer float32', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'x = x.double()\n    return x / x.abs().max().clamp(min=1) + 1'),
          says='float64 where with_item returns float32', hidden_says='float64 where with_item returns float32'),
    # ---- count compiles
    wrong('01.count_compiles', "count_compiles reads Dynamo's calls_captured statistic (ops captured), counters cleared first", 'ex-4',
          (COUNT_BODY, '    torch._dynamo.utils.counters.clear()\n    compiled = torch.compile(fn, backend="eager")\n    for args in calls:\n'
                       '        compiled(*args)\n    return torch._dynamo.utils.counters["stats"]["calls_captured"]'),
          says='count_compiles returned', hidden_says='count_compiles returned'),
    wrong('01.count_compiles', 'count_compiles keeps each compiled function in a cache by fn (its first CompileCounter with it)', 'ex-4',
          ('def count_compiles(fn, calls):', 'COMPILED = {}\n\n\ndef count_compiles(fn, calls):'),
          (COUNT_BODY, '    counter = CompileCounter()\n    if fn not in COMPILED:\n        COMPILED[fn] = (torch.compile(fn, backend=counter), counter)\n'
                       '    compiled, counter = COMPILED[fn]\n    for args in calls:\n        compiled(*args)\n    return counter.frame_count'),
          says='earlier call', hidden_says='count_compiles returned'),
    wrong('01.count_compiles', 'count_compiles sums explain\'s graph_count over the calls (each explain compiles afresh)', 'ex-4',
          (COUNT_BODY, '    return sum(torch._dynamo.explain(fn)(*args).graph_count for args in calls)'),
          says='count_compiles returned', hidden_says='count_compiles returned'),
    wrong('01.count_compiles', 'count_compiles compiles with mode="reduce-overhead" beside its CompileCounter backend', 'ex-4',
          ('torch.compile(fn, backend=counter)', 'torch.compile(fn, backend=counter, mode="reduce-overhead")'),
          says='mode= and options=', hidden_says='mode= and options='),
    wrong('01.count_compiles', 'count_compiles turns automatic dynamic shapes off for good (the setting left changed)', 'ex-4',
          ('    counter = CompileCounter()\n', '    torch._dynamo.config.automatic_dynamic_shapes = False\n    counter = CompileCounter()\n'),
          says='count_compiles returned', hidden_says='count_compiles returned'),
    # ---- export
    wrong('01.export', "export_dynamic with the older torch._dynamo.export (an ExportResult, not an ExportedProgram)", 'ex-5',
          ('    return torch.export.export(model, (example,), dynamic_shapes=({0: batch},))',
           '    return torch._dynamo.export(model, dynamic_shapes={"x": {0: batch}})(example)'),
          says='ExportedProgram', hidden_says='ExportedProgram'),
    wrong('01.export', "the Dim made once when the cell runs, with the notebook's max_batch 64, whatever max_batch is", 'ex-5',
          ('def export_dynamic(', 'BATCH = torch.export.Dim("batch", min=1, max=64)\n\n\ndef export_dynamic('),
          ('dynamic_shapes=({0: batch},))', 'dynamic_shapes=({0: BATCH},))'),
          says='max_batch', hidden_says='max_batch'),
    wrong('01.export', 'exported on the first row of the example only (example[:1]): a batch of 1 specialises', 'ex-5',
          ('torch.export.export(model, (example,),', 'torch.export.export(model, (example[:1],),'),
          says='export_dynamic', hidden_says='export_dynamic'),
    wrong('01.export', 'save_and_load saves to the path with .pt2 added (path + ".pt2"), and loads that', 'ex-5',
          ('    torch.export.save(program, path)\n    return torch.export.load(path)',
           '    torch.export.save(program, f"{path}.pt2")\n    return torch.export.load(f"{path}.pt2")'),
          says='wrote nothing', hidden_says='wrote nothing'),
    # ---- traffic
    traffic('bytes_per_element ignored: the default dtype\'s element size whatever it is given',
            ('return kernels * 2 * numel * bytes_per_element', 'return kernels * 2 * numel * torch.empty(0).element_size()'),
            says='does not follow the rule'),
    traffic('the fused flag read the other way round (one kernel when not fused)',
            ('kernels = 1 if fused else n_ops', 'kernels = n_ops if fused else 1'),
            says='does not follow the rule|fused there is one kernel'),
    traffic('predicted_speedup as the measured speedup of the largest size (the payoff table), not the model',
            ('return bytes_moved(1, n_ops, fused=False) / bytes_moved(1, n_ops, fused=True)',
             'return payoff[-1]["eager_ms"] / payoff[-1]["compiled_ms"]'),
            says="eager's bytes over"),
    traffic('predicted_speedup counts tensors touched: eager n_ops + 1, fused 2',
            ('return bytes_moved(1, n_ops, fused=False) / bytes_moved(1, n_ops, fused=True)', 'return (n_ops + 1) / 2'),
            says="eager's bytes over"),
]

ROUND6_RIGHT = [
    right('01.dispatch', "the quartiles of bench.measure's samples with statistics.quantiles", 'ex-1',
          (SWEEP_ROW, 'q25, _, q75 = statistics.quantiles(t.times_ms, n=4)\n        '
                      'rows.append({"numel": n, "median_us": t.median_ms * 1e3, "q25_us": q25 * 1e3, "q75_us": q75 * 1e3})')),
    late_right('01.per_op', "statistics.linear_regression's result returned as it is (a named (slope, intercept) pair)", 'ex-1b', source='''
def fit_per_op_us(rows):
    return statistics.linear_regression([r["n_ops"] for r in rows], [r["median_us"] for r in rows])
'''),
    Right(('01.capture_table',), "the part-2 compile cell counts the breaks with a recording backend (graphs - 1), not explain",
          (Edit('p2-compile', (('explanation = torch._dynamo.explain(branchy)(neg)\nprint(f"graphs: {explanation.graph_count}, graph breaks: {explanation.graph_break_count}")\nfor reason in explanation.break_reasons:\n    print("  break:", str(reason.reason)[:100])\n',
                                'seen_graphs = []\ntorch._dynamo.reset()\ntorch.compile(branchy, backend=lambda gm, ex: seen_graphs.append(gm) or gm)(neg)\nprint(f"graphs: {len(seen_graphs)}, graph breaks: {len(seen_graphs) - 1}")\n'),
                               ('capture_seen["compile: graph breaks"] = explanation.graph_break_count', 'capture_seen["compile: graph breaks"] = len(seen_graphs) - 1'))),)),
    right('01.capture_table', 'the table filled from capture_seen in code (the words chosen from the raw results)', 'ex-2',
          ('### END SOLUTION', '''seen = capture_seen
CAPTURE_TABLE["torch.jit.trace"]["control_flow"] = "kept" if seen["trace: negative input right"] else "baked"
CAPTURE_TABLE["torch.jit.script"]["dynamic_shapes"] = "dynamic" if seen["script: length 6 right"] else "baked"
for method, ok in seen["saved and loaded, same result"].items():
    CAPTURE_TABLE[method]["serialisable"] = ok
### END SOLUTION''')),
    right('01.recording_backend', "count_graphs with the older spelling torch._dynamo.optimize(backend)(fn)", 'ex-3',
          ('torch.compile(fn, backend=backend)(*args)', 'torch._dynamo.optimize(backend)(fn)(*args)')),
    right('01.recording_backend', "count_graphs reads Dynamo's unique_graphs statistic, cleared first, compiling with its recording backend", 'ex-3',
          ('    torch.compile(fn, backend=backend)(*args)\n    return len(graphs)',
           '    torch._dynamo.utils.counters.clear()\n    torch.compile(fn, backend=backend)(*args)\n'
           '    return torch._dynamo.utils.counters["stats"]["unique_graphs"]')),
    right('01.no_breaks', 'no_print keeps its print in eager mode only (torch.compiler.is_compiling())', 'ex-3b',
          ('    return x.sin().cos()', '    y = x.sin()\n    if not torch.compiler.is_compiling():\n        print("halfway")\n    return y.cos()')),
    right('01.no_breaks', 'no_item bounds the scale with torch.maximum, and no_branch with torch.cond on closures', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'return x / torch.maximum(x.abs().amax(), torch.ones(())) + 1'),
          ('return torch.where(y.sum() > 0, y.relu(), -y)', 'return torch.cond(y.sum() > 0, lambda: y.relu(), lambda: -y, ())')),
    right('01.no_breaks', "no_item keeps .item() but no if: Python's max on the float, which a fullgraph compile captures", 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'return x / max(x.abs().max().item(), 1.0) + 1')),
    right('01.count_compiles', 'count_compiles with the older spelling torch._dynamo.optimize(counter)(fn)', 'ex-4',
          ('compiled = torch.compile(fn, backend=counter)', 'compiled = torch._dynamo.optimize(counter)(fn)')),
    right('01.count_compiles', "count_compiles reads Dynamo's frames-converted counter, cleared first", 'ex-4',
          (COUNT_BODY, '    torch._dynamo.utils.counters.clear()\n    compiled = torch.compile(fn, backend="eager")\n    for args in calls:\n'
                       '        compiled(*args)\n    return torch._dynamo.utils.counters["frames"]["ok"]')),
    right('01.export', "the page's way: export and Dim imported by name, non-strict export", 'ex-5',
          ('    batch = torch.export.Dim("batch", min=1, max=max_batch)\n    return torch.export.export(model, (example,), dynamic_shapes=({0: batch},))',
           '    from torch.export import Dim, export\n\n    return export(model, (example,), dynamic_shapes={"x": {0: Dim("batch", min=1, max=max_batch)}}, strict=False)')),
    late_right('01.per_op', 'the slope and intercept rounded to 0.01 µs, as the notebook prints them', 'ex-1b', source='''
def fit_per_op_us(rows):
    xs = [float(r["n_ops"]) for r in rows]
    ys = [float(r["median_us"]) for r in rows]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return round(slope, 2), round(my - slope * mx, 2)
'''),
]

WRONG += ROUND6
RIGHT += ROUND6_RIGHT


# ---------------------------------------------------------------- round 7 ("fair grades"): mistakes that held only on
# the notebook's own examples (a fit of four distinct chains, functions without a break, float32 inputs, counts of 2),
# and right answers that the checks called in another way than the notebook does (keyword-only parameters).
ROUND7 = [
    # ---- per_op: the fit of any rows, not only of four chains of distinct lengths
    late('01.per_op', "the fit on the first four rows only (the notebook's four chains)", 'ex-1b',
         ('xs = [float(r["n_ops"]) for r in rows]', 'rows = rows[:4]\n    xs = [float(r["n_ops"]) for r in rows]'),
         says='least-squares line', hidden_says='another line'),
    late('01.per_op', 'the rows collected in a dict by n_ops (a chain measured twice keeps only its last time)', 'ex-1b',
         ('xs = [float(r["n_ops"]) for r in rows]\n    ys = [float(r["median_us"]) for r in rows]',
          'by_k = {r["n_ops"]: r["median_us"] for r in rows}\n    xs = [float(k) for k in by_k]\n    ys = [float(t) for t in by_k.values()]'),
         says='least-squares line', hidden_says='another line'),
    late('01.per_op', 'the slope as the median of the pairwise slopes (Theil-Sen, robust to noise)', 'ex-1b',
         (FIT_SLOPE, 'import itertools\n    slope = statistics.median((b[1] - a[1]) / (b[0] - a[0]) for a, b in '
                     'itertools.combinations(zip(xs, ys), 2) if b[0] != a[0])'),
         says='least-squares line', hidden_says='another line'),
    late('01.per_op', 'the slope and intercept rounded to one decimal, as a table would print them', 'ex-1b',
         ('return slope, my - slope * mx', 'return round(slope, 1), round(my - slope * mx, 1)'),
         says='least-squares line', hidden_says='another line'),
    late('01.per_op', 'the point farthest from the line dropped as an outlier, and the line fitted again', 'ex-1b',
         ('    return slope, my - slope * mx',
          '    b = my - slope * mx\n    if n > 2:\n        worst = max(range(n), key=lambda i: abs(ys[i] - slope * xs[i] - b))\n'
          '        return fit_per_op_us([r for i, r in enumerate(rows) if i != worst])\n    return slope, b'),
         says='least-squares line', hidden_says='another line'),
    late('01.per_op', 'the line fitted against log2(n_ops): the chains double in length', 'ex-1b',
         ('xs = [float(r["n_ops"]) for r in rows]', 'xs = [math.log2(r["n_ops"]) for r in rows]'),
         says='least-squares line', hidden_says='another line'),
    # ---- dispatch
    late('01.dispatch', 'the rows keyed by the size formatted as the paired rounds label it (f"{n:,}")', 'ex-1',
         (SWEEP_ROW, SWEEP_ROW.replace('"numel": n', '"numel": f"{n:,}"')),
         says='numel should be the number of elements', hidden_says='numel should be the number of elements'),
    # ---- capture table
    wrong('01.capture_table', "torch.export said not serialisable (thought to need the model's class, like a pickle)", 'ex-2',
          ('"python_coverage": "one graph only", "serialisable": True', '"python_coverage": "one graph only", "serialisable": False'),
          says='not what its experiment in part 2 printed', hidden_says='not what its experiment'),
    # ---- recording backend, no breaks
    wrong('01.recording_backend', "count_graphs returns 2, the count the notebook's functions printed", 'ex-3',
          ('    return len(graphs)\n', '    return 2   # every function above printed 2 graphs\n'),
          says='count_graphs', hidden_says='count_graphs'),
    wrong('01.no_breaks', 'no_item divides by the largest magnitude of each row (amax over the last dim)', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'return x / x.abs().amax(dim=-1, keepdim=True).clamp(min=1) + 1'),
          says='computes something else than with_item', hidden_says='computes something else than with_item'),
    wrong('01.no_breaks', 'no_item converts to float32 (.float()) to be safe', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'x = x.float()\n    return x / x.abs().max().clamp(min=1) + 1'),
          says='returns float32 where with_item returns float64', hidden_says='returns float32 where with_item returns float64'),
    wrong('01.no_breaks', "no_item's scale as torch.maximum(x.max(), x.min()) (the larger extreme, not the larger magnitude)", 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'return x / torch.maximum(x.max(), x.min()).clamp(min=1) + 1'),
          says='computes something else than with_item', hidden_says='computes something else than with_item'),
    wrong('01.no_breaks', 'no_print takes sin and cos in place (x.sin_().cos_()): the caller\'s x changes', 'ex-3b',
          ('    return x.sin().cos()', '    return x.sin_().cos_()'),
          says='no_print changes its input in place', hidden_says='no_print changes its input in place'),
    # ---- count_compiles
    wrong('01.count_compiles', 'count_compiles compiles with fullgraph=True (copied from part 3): a function with a break raises', 'ex-4',
          ('torch.compile(fn, backend=counter)', 'torch.compile(fn, backend=counter, fullgraph=True)'),
          says='stopped at a graph break', hidden_says='stopped at a graph break'),
    wrong('01.count_compiles', "count_compiles with the page's torch._dynamo.optimize(counter, nopython=True)", 'ex-4',
          ('compiled = torch.compile(fn, backend=counter)', 'compiled = torch._dynamo.optimize(counter, nopython=True)(fn)'),
          says='stopped at a graph break', hidden_says='stopped at a graph break'),
    wrong('01.count_compiles', 'count_compiles passes the ints as tensors (to avoid recompiles on constants)', 'ex-4',
          ('    for args in calls:\n        compiled(*args)',
           '    for args in calls:\n        compiled(*(a if isinstance(a, torch.Tensor) else torch.tensor(a) for a in args))'),
          says='count_compiles returned', hidden_says='count_compiles returned'),
    wrong('01.count_compiles', 'count_compiles counts the distinct graphs the backend received (by their code)', 'ex-4',
          (COUNT_BODY, '    codes = set()\n    compiled = torch.compile(fn, backend=lambda gm, ex: codes.add(gm.code) or gm.forward)\n'
                       '    for args in calls:\n        compiled(*args)\n    return len(codes)'),
          says='count_compiles returned', hidden_says='count_compiles returned'),
    wrong('01.count_compiles', 'count_compiles returns 4, the count the notebook printed for its calls', 'ex-4',
          ('    return counter.frame_count', '    return 4'),
          says='count_compiles returned', hidden_says='count_compiles returned'),
    wrong('01.count_compiles', 'count_compiles with assume_static_by_default=False (every size dynamic from the start)', 'ex-4',
          ('    for args in calls:\n        compiled(*args)\n    return counter.frame_count',
           '    with torch._dynamo.config.patch(assume_static_by_default=False):\n        for args in calls:\n'
           '            compiled(*args)\n    return counter.frame_count'),
          says='count_compiles returned', hidden_says='count_compiles returned'),
    # ---- export
    wrong('01.export', "the Dim's max from the notebook's example: 16 × the example's batch (4 × 16 = 64)", 'ex-5',
          ('max=max_batch)', 'max=16 * example.shape[0])'),
          says='max_batch', hidden_says='max_batch'),
]

ROUND7_RIGHT = [
    late_right('01.traffic_model', 'fused and bytes_per_element keyword-only, as the notebook passes fused=', 'ex-6', source='''
def bytes_moved(numel, n_ops, *, fused, bytes_per_element=4):
    return (1 if fused else n_ops) * 2 * numel * bytes_per_element


def predicted_speedup(n_ops):
    return bytes_moved(1, n_ops, fused=False) / bytes_moved(1, n_ops, fused=True)
'''),
    late_right('01.traffic_model', 'bytes_moved with its parameters renamed, the factor as a power of n_ops', 'ex-6', source='''
def bytes_moved(elements, ops, fused, bpe=4):
    return 2 * elements * bpe * ops ** (not fused)


def predicted_speedup(n_ops):
    return float(n_ops)
'''),
    late_right('01.dispatch', 'factor keyword-only in first_size_beyond_overhead', 'ex-1', source='''
def first_size_beyond_overhead(rows, *, factor=2.0):
    floor = overhead_floor_us(rows)
    return next((r["numel"] for r in sorted(rows, key=lambda r: r["numel"]) if r["median_us"] > factor * floor), None)
'''),
    right('01.export', 'max_batch keyword-only, as the notebook passes it', 'ex-5',
          ('def export_dynamic(model, example, max_batch):', 'def export_dynamic(model, example, *, max_batch):')),
    right('01.export', 'the batch declared with torch.export.ShapesCollection', 'ex-5',
          ('    return torch.export.export(model, (example,), dynamic_shapes=({0: batch},))',
           '    shapes = torch.export.ShapesCollection()\n    shapes[example] = {0: batch}\n'
           '    return torch.export.export(model, (example,), dynamic_shapes=shapes)')),
    right('01.export', 'torch.export.export with mod= and args= by keyword, the Dim made inline under another name', 'ex-5',
          ('    batch = torch.export.Dim("batch", min=1, max=max_batch)\n    return torch.export.export(model, (example,), dynamic_shapes=({0: batch},))',
           '    return torch.export.export(mod=model, args=(example,),\n'
           '                               dynamic_shapes={"x": {0: torch.export.Dim("rows", min=1, max=max_batch)}})')),
    right('01.count_compiles', 'count_compiles compiles a lambda that calls fn', 'ex-4',
          ('torch.compile(fn, backend=counter)', 'torch.compile(lambda *a: fn(*a), backend=counter)')),
    right('01.count_compiles', 'count_compiles counts the calls to a backend of its own with a nonlocal counter', 'ex-4',
          (COUNT_BODY, '    n = 0\n\n    def backend(gm, ex):\n        nonlocal n\n        n += 1\n        return gm.forward\n\n'
                       '    compiled = torch.compile(fn, backend=backend)\n    for args in calls:\n        compiled(*args)\n    return n')),
    right('01.recording_backend', 'the backend keeps a deep copy of each GraphModule; count_graphs compiles a lambda around fn', 'ex-3',
          ('graphs.append(gm)', 'import copy\n        graphs.append(copy.deepcopy(gm))'),
          ('torch.compile(fn, backend=backend)(*args)', 'torch.compile(lambda *a: fn(*a), backend=backend)(*args)')),
    right('01.no_breaks', 'no_item with torch.linalg.vector_norm(x, inf); no_branch with clamp and mul', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'return x / torch.linalg.vector_norm(x, float("inf")).clamp(min=1) + 1'),
          ('torch.where(y.sum() > 0, y.relu(), -y)', 'torch.where(y.sum() > 0, y.clamp(min=0), y.mul(-1))')),
    right('01.no_breaks', "no_item's largest magnitude as torch.maximum(x.max(), -x.min())", 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'return x / torch.maximum(x.max(), -x.min()).clamp(min=1) + 1')),
    late_right('01.per_op', 'numpy.polyfit on the rows sorted by n_ops, the coefficients unpacked from the highest power', 'ex-1b', source='''
import numpy as np


def fit_per_op_us(rows):
    rows = sorted(rows, key=lambda r: r["n_ops"])
    slope, intercept = np.polyfit(np.asarray([r["n_ops"] for r in rows], float),
                                  np.asarray([r["median_us"] for r in rows], float), deg=1)
    return slope.item(), intercept.item()
'''),
    right('01.capture_table', 'the table built from rows of values zipped with the column names', 'ex-2', source='''
COLS = ("control_flow", "dynamic_shapes", "python_coverage", "serialisable")
CAPTURE_TABLE = {method: dict(zip(COLS, values)) for method, values in [
    ("torch.jit.trace", ("baked", "baked", "tensor ops only", True)),
    ("torch.jit.script", ("kept", "dynamic", "typed subset", True)),
    ("torch.fx.symbolic_trace", ("error", "error", "no data-dependent control flow", True)),
    ("torch.compile", ("graph break", "dynamic", "any (falls back to Python)", False)),
    ("torch.export", ("torch.cond", "specialized", "one graph only", True)),
]}
'''),
]

WRONG += ROUND7
RIGHT += ROUND7_RIGHT


# ---------------------------------------------------------------- round 8 ("fair grades"): the checker's own reference
# functions called instead of doing the work (helpers/checks/lab01.py ships with the lab), state kept in a module-level
# global, a tensor flattened with view (contiguous inputs only), group means before a fit, and slips in the words.
ROUND8 = [
    # ---- per_op
    late('01.per_op', "fit_per_op_us hands the rows to the checker's own least_squares (helpers.checks.lab01)", 'ex-1b',
         ('    xs = [float(r["n_ops"]) for r in rows]',
          '    from helpers.checks.lab01 import least_squares\n'
          '    return tuple(float(v) for v in least_squares([(r["n_ops"], r["median_us"]) for r in rows]))\n'
          '    xs = [float(r["n_ops"]) for r in rows]'),
         says="checker's own", hidden_says="checker's own"),
    late('01.per_op', 'the repeated chains averaged first: the line through the mean time of each n_ops', 'ex-1b',
         ('    xs = [float(r["n_ops"]) for r in rows]\n    ys = [float(r["median_us"]) for r in rows]',
          '    groups = {}\n    for r in rows:\n        groups.setdefault(r["n_ops"], []).append(r["median_us"])\n'
          '    xs = [float(k) for k in groups]\n    ys = [sum(v) / len(v) for v in groups.values()]'),
         says='least-squares line', hidden_says='another line'),
    late('01.per_op', 'the times truncated to whole microseconds with int()', 'ex-1b',
         ('ys = [float(r["median_us"]) for r in rows]', 'ys = [int(r["median_us"]) for r in rows]'),
         says='least-squares line', hidden_says='another line'),
    # ---- dispatch
    late('01.dispatch', 'the floor from the three largest sizes (sorted with reverse=True)', 'ex-1',
         ('smallest = sorted(rows, key=lambda r: r["numel"])[:3]',
          'smallest = sorted(rows, key=lambda r: r["numel"], reverse=True)[:3]'),
         says='median of the three smallest', hidden_says='median of the three smallest'),
    late('01.dispatch', 'the knee as min() over the sizes beyond the limit, without a default (raises when none is)', 'ex-1',
         (KNEE, 'min(r["numel"] for r in rows if r["median_us"] > factor * floor)'),
         says='first_size_beyond_overhead', hidden_says='first_size_beyond_overhead'),
    late('01.per_op', "fit_per_op_us sorts the caller's rows in place (rows.sort) before the fit", 'ex-1b',
         ('    xs = [float(r["n_ops"]) for r in rows]', '    rows.sort(key=lambda r: r["n_ops"])\n    xs = [float(r["n_ops"]) for r in rows]'),
         says='changed the rows it was given', hidden_says='changed the rows it was given'),
    # ---- capture table
    wrong('01.capture_table', 'jit.trace said not to be serialisable (a trace thought to keep Python references)', 'ex-2',
          ('"python_coverage": "tensor ops only", "serialisable": True', '"python_coverage": "tensor ops only", "serialisable": False'),
          says='not what its experiment in part 2 printed', hidden_says='not what its experiment'),
    wrong('01.capture_table', "torch.compile's Python coverage read as fx's (no data-dependent control flow)", 'ex-2',
          ('"python_coverage": "any (falls back to Python)"', '"python_coverage": "no data-dependent control flow"'),
          says='python_coverage', hidden_says='python_coverage'),
    # ---- recording backend
    wrong('01.recording_backend', 'make_recording_backend keeps the list in a module-level global, rebound on every call '
          '(an older backend then fills the newest list)', 'ex-3',
          ('    graphs = []\n\n    def backend(gm, example_inputs):\n        graphs.append(gm)',
           '    global GRAPHS\n    GRAPHS = []\n\n    def backend(gm, example_inputs):\n        GRAPHS.append(gm)'),
          ('    return backend, graphs', '    return backend, GRAPHS'),
          says='list of its own', hidden_says='list of its own'),
    # ---- no breaks
    wrong('01.no_breaks', 'no_branch tests the sum against a small epsilon (sum > 1e-9) "to be safe from rounding"', 'ex-3b',
          ('torch.where(y.sum() > 0, y.relu(), -y)', 'torch.where(y.sum() > 1e-9, y.relu(), -y)'),
          says='barely', hidden_says='barely'),
    wrong('01.no_breaks', 'no_item flattens with x.view(-1) before the max (a transposed input cannot be viewed flat)', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1', 'return x / x.view(-1).abs().max().clamp(min=1) + 1'),
          says='no_item', hidden_says='no_item'),
    # ---- count_compiles
    wrong('01.count_compiles', "count_compiles is the checker's own measured_compiles (helpers.checks.lab01)", 'ex-4',
          (COUNT_BODY, '    from helpers.checks.lab01 import measured_compiles\n    return measured_compiles(fn, calls)'),
          says="checker's own", hidden_says="checker's own"),
    wrong('01.count_compiles', "count_compiles pops the calls off the caller's list (while calls: calls.pop(0))", 'ex-4',
          ('    for args in calls:\n        compiled(*args)', '    while calls:\n        compiled(*calls.pop(0))'),
          says='changed the list of calls', hidden_says='changed the list of calls'),
    wrong('01.count_compiles', 'count_compiles converts every tensor to float32 before the call (the dtype recompile lost)', 'ex-4',
          ('    for args in calls:\n        compiled(*args)',
           '    for args in calls:\n        compiled(*(a.float() if isinstance(a, torch.Tensor) else a for a in args))'),
          says='count_compiles returned', hidden_says='count_compiles returned'),
    # ---- export
    wrong('01.export', "the Dim's min set to the example's batch (min=example.shape[0])", 'ex-5',
          ('min=1, max=max_batch)', 'min=example.shape[0], max=max_batch)'),
          says='Dim from 1 to max_batch', hidden_says='Dim from 1 to max_batch'),
    wrong('01.export', 'dynamic_shapes written ({0: batch}) for a one-element tuple: the comma forgotten, a dict keyed by 0',
          'ex-5', ('dynamic_shapes=({0: batch},)', 'dynamic_shapes=({0: batch})'),
          says='dynamic_shapes', hidden_says='dynamic_shapes'),
    # ---- traffic
    traffic('the fused kernel counted in elements, bytes_per_element forgotten on that side',
            ('return kernels * 2 * numel * bytes_per_element',
             'return 2 * numel if fused else kernels * 2 * numel * bytes_per_element'),
            says='does not follow the rule'),
]

ROUND8_RIGHT = [
    late_right('01.per_op', 'the slope as the correlation times the ratio of standard deviations (statistics)', 'ex-1b', source='''
import statistics


def fit_per_op_us(rows):
    ks = [r["n_ops"] for r in rows]
    ts = [r["median_us"] for r in rows]
    slope = statistics.correlation(ks, ts) * statistics.stdev(ts) / statistics.stdev(ks)
    return slope, statistics.fmean(ts) - slope * statistics.fmean(ks)
'''),
    late_right('01.per_op', 'the normal equations solved with torch.linalg.solve in float64', 'ex-1b', source='''
def fit_per_op_us(rows):
    A = torch.tensor([[float(r["n_ops"]), 1.0] for r in rows], dtype=torch.float64)
    y = torch.tensor([float(r["median_us"]) for r in rows], dtype=torch.float64)
    slope, intercept = torch.linalg.solve(A.T @ A, A.T @ y).tolist()
    return slope, intercept
'''),
    late_right('01.dispatch', 'the knee as min() over the sizes beyond the limit, with default=None', 'ex-1', source='''
def first_size_beyond_overhead(rows, factor=2.0):
    limit = factor * overhead_floor_us(rows)
    return min((r["numel"] for r in rows if r["median_us"] > limit), default=None)
'''),
    right('01.no_breaks', 'no_item with the scale as the largest of x.abs() clamped at 1 (clamp first, then max), no_print '
          'with torch functions, no_branch with neg', 'ex-3b',
          ('return x.sin().cos()', 'return torch.cos(torch.sin(x))'),
          ('return x / x.abs().max().clamp(min=1) + 1', 'return x / torch.clamp(x.abs(), min=1).max() + 1'),
          ('torch.where(y.sum() > 0, y.relu(), -y)', 'torch.where(y.sum() > 0, torch.relu(y), y.neg())')),
    right('01.no_breaks', 'no_print takes cos in place on the fresh result of sin (x itself untouched)', 'ex-3b',
          ('return x.sin().cos()', 'y = torch.sin(x)\n    y.cos_()\n    return y')),
    right('01.no_breaks', 'no_item with torch.where on the two sides, the + 1 after it', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1',
           'scale = x.abs().max()\n    return torch.where(scale > 1, x / scale, x) + 1')),
    right('01.recording_backend', 'the backend a functools.partial of a module-level recorder bound to a fresh list', 'ex-3',
          source='''
import functools


def _record(graphs, gm, example_inputs):
    graphs.append(gm)
    return gm


def make_recording_backend():
    graphs = []
    return functools.partial(_record, graphs), graphs


def count_graphs(fn, *args):
    torch._dynamo.reset()
    backend, graphs = make_recording_backend()
    torch.compile(fn, backend=backend)(*args)
    return len(graphs)
'''),
    right('01.count_compiles', 'count_compiles makes the calls under torch.no_grad() with a CompileCounter', 'ex-4',
          ('    for args in calls:\n        compiled(*args)',
           '    with torch.no_grad():\n        for args in calls:\n            compiled(*args)')),
    right('01.export', "dynamic_shapes keyed by the name of forward's first parameter, read with inspect", 'ex-5',
          ('    return torch.export.export(model, (example,), dynamic_shapes=({0: batch},))',
           '    import inspect\n    name = next(iter(inspect.signature(model.forward).parameters))\n'
           '    return torch.export.export(model, (example,), dynamic_shapes={name: {0: batch}})')),
    right('01.export', 'save_and_load through os.fspath(path)', 'ex-5',
          ('    torch.export.save(program, path)\n    return torch.export.load(path)',
           '    where = os.fspath(path)\n    torch.export.save(program, where)\n    loaded = torch.export.load(where)\n'
           '    return loaded')),
    late_right('01.traffic_model', 'the kernel count from a dict, the result an int', 'ex-6', source='''
def bytes_moved(numel, n_ops, fused, bytes_per_element=4):
    kernels = {True: 1, False: n_ops}[bool(fused)]
    return int(kernels * (numel * bytes_per_element + numel * bytes_per_element))


def predicted_speedup(n_ops):
    return bytes_moved(1000, n_ops, False) / bytes_moved(1000, n_ops, True)
'''),
    right('01.capture_table', 'the table written with dict() calls and the booleans as comparisons', 'ex-2', source='''
CAPTURE_TABLE = dict()
CAPTURE_TABLE["torch.jit.trace"] = dict(control_flow="baked", dynamic_shapes="baked",
                                        python_coverage="tensor ops only", serialisable=1 == 1)
CAPTURE_TABLE["torch.jit.script"] = dict(control_flow="kept", dynamic_shapes="dynamic",
                                         python_coverage="typed subset", serialisable=True)
CAPTURE_TABLE["torch.fx.symbolic_trace"] = dict(control_flow="error", dynamic_shapes="error",
                                                python_coverage="no data-dependent control flow", serialisable=True)
CAPTURE_TABLE["torch.compile"] = dict(control_flow="graph break", dynamic_shapes="dynamic",
                                      python_coverage="any (falls back to Python)", serialisable=1 == 0)
CAPTURE_TABLE["torch.export"] = dict(control_flow="torch.cond", dynamic_shapes="specialized",
                                     python_coverage="one graph only", serialisable=True)
'''),
]

WRONG += ROUND8
RIGHT += ROUND8_RIGHT


# ---------------------------------------------------------------- round 9: new kinds of mistake
MEASURE = 't = bench.measure(op, x, label=f"{n}")'
TEN_CALLS = 't = bench.measure(lambda: [op(x) for _ in range(10)], label=f"{n}", device=device)'
TABLE_ROWS = '''    "torch.jit.trace": ("baked", "baked", "tensor ops only", True),
    "torch.jit.script": ("kept", "dynamic", "typed subset", True),
    "torch.fx.symbolic_trace": ("error", "error", "no data-dependent control flow", True),
    "torch.compile": ("graph break", "dynamic", "any (falls back to Python)", False),
    "torch.export": ("torch.cond", "specialized", "one graph only", True),
'''

ROUND9 = [
    # ---- dispatch
    late('01.dispatch', "ten calls of the op in each timed call (to beat the timer's resolution), the time not divided by ten",
         'ex-1', (MEASURE, TEN_CALLS),
         says='10 times', hidden_says='10 times'),
    late('01.dispatch', 'ten calls of the op in each timed call, the time divided by 100 (the wrong count)', 'ex-1',
         (MEASURE, TEN_CALLS), (SWEEP_ROW, SWEEP_ROW.replace("* 1e3", "* 1e3 / 100")),
         says='10 times', hidden_says='10 times'),
    late('01.dispatch', 'a closure per size made in a loop before the timing (late binding: every closure times the last '
         "size's tensor)", 'ex-1',
         ('    rows = []\n    for n in sizes:\n        x = torch.randn(n, device=device)\n        ' + MEASURE,
          '    timed = {}\n    for n in sizes:\n        x = torch.randn(n, device=device)\n        timed[n] = lambda: op(x)\n'
          '    rows = []\n    for n in sizes:\n        t = bench.measure(timed[n], label=f"{n}", device=device)'),
         says='one size', hidden_says='one size'),
    # ---- per_op
    late('01.per_op', "the line fitted against the ops added beyond the first (n_ops - 1): its intercept is one op's time",
         'ex-1b', ('xs = [float(r["n_ops"]) for r in rows]', 'xs = [float(r["n_ops"]) - 1 for r in rows]'),
         says='least-squares line', hidden_says='another line'),
    # ---- capture table
    wrong('01.capture_table', 'CAPTURE_TABLE made with dict.fromkeys(methods, {}): every method shares one row, the last '
          'values written win', 'ex-2', source='''
CAPTURE_TABLE = dict.fromkeys(["torch.jit.trace", "torch.jit.script", "torch.fx.symbolic_trace", "torch.compile",
                               "torch.export"], {})
CAPTURE_TABLE["torch.jit.trace"].update(control_flow="baked", dynamic_shapes="baked", python_coverage="tensor ops only",
                                        serialisable=True)
CAPTURE_TABLE["torch.jit.script"].update(control_flow="kept", dynamic_shapes="dynamic", python_coverage="typed subset",
                                         serialisable=True)
CAPTURE_TABLE["torch.fx.symbolic_trace"].update(control_flow="error", dynamic_shapes="error",
                                                python_coverage="no data-dependent control flow", serialisable=True)
CAPTURE_TABLE["torch.compile"].update(control_flow="graph break", dynamic_shapes="dynamic",
                                      python_coverage="any (falls back to Python)", serialisable=False)
CAPTURE_TABLE["torch.export"].update(control_flow="torch.cond", dynamic_shapes="specialized",
                                     python_coverage="one graph only", serialisable=True)
''', says='same dict', hidden_says='same dict'),
    wrong('01.capture_table', "each method's row a tuple of values in the columns' order, not a dict", 'ex-2',
          source='CAPTURE_TABLE = {\n' + TABLE_ROWS + '}\n',
          says='a dict', hidden_says='a dict'),
    wrong('01.capture_table', 'the table keyed by the capture functions themselves (torch.jit.trace, ...), not their names',
          'ex-2', source='''
CAPTURE_TABLE = {
    torch.jit.trace: {"control_flow": "baked", "dynamic_shapes": "baked", "python_coverage": "tensor ops only",
                      "serialisable": True},
    torch.jit.script: {"control_flow": "kept", "dynamic_shapes": "dynamic", "python_coverage": "typed subset",
                       "serialisable": True},
    torch.fx.symbolic_trace: {"control_flow": "error", "dynamic_shapes": "error",
                              "python_coverage": "no data-dependent control flow", "serialisable": True},
    torch.compile: {"control_flow": "graph break", "dynamic_shapes": "dynamic",
                    "python_coverage": "any (falls back to Python)", "serialisable": False},
    torch.export.export: {"control_flow": "torch.cond", "dynamic_shapes": "specialized",
                          "python_coverage": "one graph only", "serialisable": True},
}
''', says='names', hidden_says='names'),
    # ---- recording backend
    wrong('01.recording_backend', 'the backend returns a wrapper that records the graph every time it runs (graphs counted '
          'by calls, not by compiles)', 'ex-3',
          ('        graphs.append(gm)\n        return gm.forward',
           '        def run(*args):\n            graphs.append(gm)\n            return gm.forward(*args)\n\n        return run'),
          says='ran', hidden_says='ran'),
    # ---- no breaks
    wrong('01.no_breaks', "no_print under @torch.no_grad() (its result loses autograd's graph)", 'ex-3b',
          ('def no_print(x):', '@torch.no_grad()\ndef no_print(x):'),
          says='autograd', hidden_says='autograd'),
    wrong('01.no_breaks', "no_branch keeps only the positive side (y.relu()), the side the notebook's x took", 'ex-3b',
          ('return torch.where(y.sum() > 0, y.relu(), -y)', 'return y.relu()'),
          says='computes something else than with_branch', hidden_says='computes something else than with_branch'),
    wrong('01.no_breaks', 'no_item adds the + 1 only where it divides (torch.where(scale > 1, x / scale + 1, x))', 'ex-3b',
          ('return x / x.abs().max().clamp(min=1) + 1',
           'scale = x.abs().max()\n    return torch.where(scale > 1, x / scale + 1, x)'),
          says='computes something else than with_item.*below 1', hidden_says='computes something else than with_item'),
    wrong('01.no_breaks', 'no_branch flattens x first (x.flatten() * 3): a 2-d input comes back flat', 'ex-3b',
          ('    y = x * 3\n    return torch.where', '    y = x.flatten() * 3\n    return torch.where'),
          says='with_branch.*2-d', hidden_says='with_branch.*2-d'),
    # ---- count_compiles
    wrong('01.count_compiles', 'count_compiles makes a fresh CompileCounter for every call and sums their frame counts', 'ex-4',
          (COUNT_BODY, '    total = 0\n    for args in calls:\n        counter = CompileCounter()\n'
                       '        torch.compile(fn, backend=counter)(*args)\n        total += counter.frame_count\n'
                       '    return total'),
          says='count_compiles returned', hidden_says='count_compiles returned'),
    # ---- traffic
    traffic('each kernel counted as reading two operands (x and the scalar, as if a whole tensor) and writing one',
            ('return kernels * 2 * numel * bytes_per_element', 'return kernels * 3 * numel * bytes_per_element'),
            says='does not follow the rule'),
]

ROUND9_RIGHT = [
    late_right('01.dispatch', 'ten calls of the op in each timed call, every time divided by ten', 'ex-1', source='''
def time_op_sweep(op, sizes):
    rows = []
    for n in sizes:
        x = torch.randn(n, device=device)
        t = bench.measure(lambda: [op(x) for _ in range(10)], label=f"{n}", device=device)
        rows.append({"numel": n, "median_us": t.median_ms * 1e3 / 10, "q25_us": t.q25_ms * 1e3 / 10,
                     "q75_us": t.q75_ms * 1e3 / 10})
    return rows
'''),
]

WRONG += ROUND9
RIGHT += ROUND9_RIGHT
