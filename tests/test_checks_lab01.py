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
