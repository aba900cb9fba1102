"""Lab 01's checks on the solution, public and hidden (the cells the dispatch and export checks need).

The wrong answers, one mistake each, and correct answers written another way are in tests/wrong_answers/lab01.py
(tests/test_catch_rates.py runs them, every check of the lab)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.in_process_grader import notebook_namespace, run_hidden, run_public

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "01_eager_vs_graph.ipynb"
CELLS = ["parameters", "setup", "ex-1", "run-1", "ex-5"]
OUT = tempfile.TemporaryDirectory(prefix="lab01-")


@pytest.fixture(scope="module")
def solved() -> dict:
    return notebook_namespace(SOLUTION, OUT.name, cells=CELLS)


@pytest.mark.parametrize("name", ["01.dispatch", "01.export"])
def test_solution_passes(solved, name):
    for run in (run_public, run_hidden):
        assert run(name, solved, OUT.name).passed
