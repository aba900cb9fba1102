"""Lab 01's checks on the solution, public and hidden (the cells the dispatch and export checks need).

The wrong answers, one mistake each, and correct answers written another way are in tests/wrong_answers/lab01.py
(tests/test_catch_rates.py runs them, every check of the lab)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import torch

from tests.in_process_grader import notebook_namespace, run_hidden, run_public

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "01_eager_vs_graph.ipynb"
CELLS = ["parameters", "setup", "ex-1", "run-1", "p2-model", "p2-trace", "p2-script", "p2-fx", "p2-compile", "p2-export",
         "p2-shapes", "p2-save", "ex-2", "ex-5"]
OUT = tempfile.TemporaryDirectory(prefix="lab01-")


@pytest.fixture(scope="module")
def solved() -> dict:
    return notebook_namespace(SOLUTION, OUT.name, cells=CELLS)


@pytest.mark.parametrize("name", ["01.dispatch", "01.export"])
def test_solution_passes(solved, name):
    for run in (run_public, run_hidden):
        result = run(name, solved, OUT.name)
        assert result.passed, f"{run.__name__}: {result.line()}"


def _stub(*args, **kwargs):
    raise NotImplementedError("3: remove the breaks: write your solution here")


def test_unwritten_no_breaks_says_not_done_yet():
    from helpers import checks

    result = checks.run_check("01.no_breaks", {"no_print": _stub, "no_item": _stub, "no_branch": _stub})
    assert not result.passed and "not written yet" in result.message and "Observed" not in result.message, result.message


def test_a_copy_of_with_item_fails_no_breaks():
    """with_item's break is the `if` on the Python float: it breaks under fullgraph=True too (torch 2.11-2.15)."""
    from helpers import checks
    from helpers.checks import lab01

    ns = {"no_print": lambda x: x.sin().cos(), "no_item": lab01.with_item,
          "no_branch": lambda x: torch.where((x * 3).sum() > 0, (x * 3).relu(), -(x * 3))}
    result = checks.run_check("01.no_breaks", ns)
    assert not result.passed and "no_item does not compile with fullgraph=True" in result.message, result.message


def test_serialisation_experiment_is_real():
    """A GraphModule pickles and loads without the model's class; torch.compile's wrapper needs the class (the
    grader's own run of the experiment, in its hidden module)."""
    from helpers.grading import hidden

    assert hidden.load_hidden("01").references["capture_table"] and \
        {m: row["serialisable"] for m, row in hidden.load_hidden("01").references["capture_table"]().items()} == {"torch.jit.trace": True, "torch.jit.script": True,
                                                "torch.fx.symbolic_trace": True, "torch.compile": False,
                                                "torch.export": True}


def test_capture_table_counts_unfilled_cells_truthfully():
    from helpers.checks import lab01

    observed = {m: {c: None for c in lab01.COLUMNS} for m in lab01.METHODS}
    table = {m: {c: None for c in lab01.COLUMNS} for m in lab01.METHODS}
    table["torch.jit.trace"].update(control_flow="baked", dynamic_shapes="baked", serialisable=True)
    problems = lab01.capture_table_problems(table, observed)
    assert problems[0].startswith("17 of the table's 20 cells are still None"), problems


def test_call_sequences_tell_the_usual_miscounts_apart():
    """count_compiles is judged on sequences where Dynamo's count differs from the counts the usual mistakes give: with
    dynamic=True or dynamic=False, the number of calls or of distinct calls, and the CompileCounter's op_count
    (public: the lab's calls and shift_scale's; hidden: the grader's own)."""
    from torch._dynamo.testing import CompileCounter

    from helpers.checks import lab01
    from helpers.grading import hidden

    h = hidden.load_hidden("01")
    case = h.cases_for("01.count_compiles", {key: fn() for key, fn in h.references.items()})

    def counts(fn, calls, **kwargs):
        torch._dynamo.reset()
        counter = CompileCounter()
        compiled = torch.compile(fn, backend=counter, **kwargs)
        for args in calls:
            compiled(*args)
        return counter.frame_count, counter.op_count

    for fn, calls, ops_too in ((lab01.scale, lab01.lab_calls(), False), (lab01.shift_scale, lab01.shift_calls(), True),
                               (case.fn, list(case.calls), True)):
        frames, ops = counts(fn, calls)
        assert frames == lab01.measured_compiles(fn, calls)
        others = {"dynamic=True": counts(fn, calls, dynamic=True)[0],
                  "dynamic=False": counts(fn, calls, dynamic=False)[0],
                  "calls": len(calls), "distinct calls": len({(tuple(x.shape), x.dtype, n) for x, n in calls}),
                  **({"op_count": ops} if ops_too else {})}
        assert frames not in others.values(), (fn.__name__, frames, others)


def test_capture_table_names_a_column_spelled_another_way_and_lets_an_extra_one_be():
    from helpers.checks import lab01

    observed = {m: {c: None for c in lab01.COLUMNS} for m in lab01.METHODS}
    table = {m: {c: "baked" if c != "serialisable" else True for c in lab01.COLUMNS} for m in lab01.METHODS}
    spelled = {m: {("serializable" if c == "serialisable" else c): v for c, v in row.items()} for m, row in table.items()}
    problems = lab01.capture_table_problems(spelled, observed)
    assert "'serializable'" in problems[0] and "Did you mean 'serialisable'" in problems[0], problems
    extra = {m: {**row, "notes": "mine"} for m, row in table.items()}       # all four columns, and one of the learner's
    assert not any("not one of the table's columns" in p for p in lab01.capture_table_problems(extra, observed))


def test_knees_tell_a_floor_that_sorts_the_callers_rows_in_place():
    from helpers.checks import lab01

    cases = [*lab01.PUBLIC_KNEE_CASES, *lab01.DEFINITION_KNEE_CASES]

    class Notebook:        # a Learner's call, as probe_knees makes it
        def __init__(self, sort_in_place):
            self.sort_in_place = sort_in_place

        def call(self, name, rows, *args):
            ordered = rows if self.sort_in_place else list(rows)
            ordered.sort(key=lambda r: r["numel"])
            floor = sorted(r["median_us"] for r in ordered[:3])[1]
            if name == "overhead_floor_us":
                return floor
            factor = args[0] if args else 2.0
            return next((r["numel"] for r in ordered if r["median_us"] > factor * floor), None)

    def judged(learner):
        answers = lab01.probe_knees(learner, [list(c.rows) for c in cases], [c.factor for c in cases],
                                    [c.about for c in cases])
        return lab01.knee_problems(answers, cases, True)

    assert judged(Notebook(False)) == []
    assert "changed the rows it was given" in judged(Notebook(True))[0]


def test_a_sweep_that_tells_bench_the_cpu_is_named():
    """bench.measure told device="cpu" while the tensors live on `device` (the meta device in the check's second
    sweep): on a GPU it would not synchronise. Told nothing (a tensor among the arguments) or `device`, it is right."""
    from helpers.checks import lab01

    def info(*devices):
        return {"calls": {}, "fresh": {}, "dtypes": ["float32"],
                "elsewhere": {"op_devices": [lab01.ELSEWHERE], "devices": [list(d) for d in devices]}}

    assert "told bench.measure device='cpu'" in lab01.tensor_problems(info(("cpu", True), ("cpu", True)))[0]
    assert lab01.tensor_problems(info((lab01.ELSEWHERE, True), (lab01.ELSEWHERE, False))) == []


def test_the_grader_cases_hold_what_they_claim():
    """same_twice gives the backend two graphs with the same code (a count of distinct graphs finds one); of the inputs
    of no_breaks, the skewed one has a positive sum while most of its elements, and its median, are negative, the
    transposed one is not contiguous, and the last one's sum is a barely positive 2⁻⁴⁵, exactly, in any order."""
    from helpers.checks import lab01

    torch._dynamo.reset()
    graphs = []
    torch.compile(lab01.same_twice, backend=lambda gm, _: graphs.append(gm) or gm.forward)(torch.randn(5))
    assert len(graphs) == lab01.SAME_TWICE_GRAPHS and len({g.code for g in graphs}) == 1
    torch._dynamo.reset()
    for seed, shapes in ((1, ((4, 4), (16,), (16,))), (11, ((9, 3), (5,), (33,)))):
        *_, skewed, across, barely = lab01.break_inputs(seed, shapes)
        assert skewed.shape == shapes[0] and skewed.sum() > 0 and skewed.median() < 0 and 2 * (skewed < 0).sum() > skewed.numel()
        assert skewed.abs().max() > 1          # with_item divides there
        assert not across.is_contiguous() and across.dim() == 2
        for order in (barely, barely.flip(0), barely.sort().values, barely.double().sum().reshape(1)):
            assert order.sum().item() == 2.0 ** -45


def test_parameters_made_keyword_only_or_renamed_get_their_values():
    """The checks call factor=, fused=, bytes_per_element= and max_batch= by name where the learner's signature takes
    them so (keyword-only, as the notebook passes them), positionally where it renamed them."""
    from helpers.checks import Learner, lab01

    def keyword_only(numel, n_ops, *, fused, bytes_per_element=4):
        return numel, n_ops, fused, bytes_per_element

    def renamed(elements, ops, merged, bpe=4):
        return elements, ops, merged, bpe

    for fn in (keyword_only, renamed):
        learner = Learner({"bytes_moved": fn})
        args, kwargs = lab01.named(learner, "bytes_moved", (10, 3), {"fused": True, "bytes_per_element": 2})
        assert fn(*args, **kwargs) == (10, 3, True, 2)


def test_the_fit_is_judged_on_more_rows_than_four_and_repeated_chains():
    """A fit of the first four rows, or of one row per n_ops, gives another line on the points every run judges."""
    from helpers.checks import lab01

    case = lab01.DEFINITION_FIT_CASES[0]
    assert len(case.points) > 4 and len({k for k, _ in case.points}) < len(case.points)
    firsts = lab01.least_squares(case.points[:4])
    assert abs(float(firsts[0]) - case.slope) > 0.01


def test_the_checkers_own_reference_functions_refuse_while_the_learners_code_runs():
    """A fit or a count that calls the checker's least_squares or measured_compiles is told to do its own work; the
    functions answer again afterwards (the checks compute their references with them)."""
    import pytest

    from helpers.checks import lab01
    from helpers.checks.own_work import OwnWorkNeeded

    with pytest.raises(OwnWorkNeeded, match="checker's own version"):
        with lab01.own_work("01.per_op", lab01.least_squares):
            lab01.least_squares([(1, 2.0), (2, 3.0)])
    assert lab01.least_squares([(1, 2.0), (2, 3.0)]) == (1, 1)
