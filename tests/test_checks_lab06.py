"""Lab 06's checks: the solution passes each one, public and hidden; the untouched lab fails each one with
"not written yet". The mistakes each check must catch, and the answers written another way it must accept, are in
the corpus of wrong answers (tests/wrong_answers/lab06.py, run by tests/test_catch_rates.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import checks
from tests.in_process_grader import notebook_namespace, run_hidden, run_public

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "06_compiling_training.ipynb"
LAB = ROOT / "labs" / "06_compiling_training.ipynb"
CELLS = ["parameters", "setup", "ex-a", "ex-b", "ex-b2", "run-c", "ex-c", "ex-d", "ex-d2", "ex-f", "ex-g", "ex-h", "ex-i"]
NAMES = [s.name for s in checks.load_lab("06")]


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("lab06")


@pytest.fixture(scope="module")
def solved(out) -> dict:
    return notebook_namespace(SOLUTION, out, CELLS)


@pytest.fixture(scope="module")
def untouched(out) -> dict:
    return notebook_namespace(LAB, out, CELLS)


def test_points():
    assert sum(s.points for s in checks.load_lab("06")) == 22


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes_public_and_hidden(name, solved, out):
    for run in (run_public, run_hidden):
        result = run(name, solved, out)
        assert result.passed, (run.__name__, result.line())


@pytest.mark.parametrize("name", NAMES)
def test_untouched_lab_fails_as_not_written(name, untouched, out):
    result = run_public(name, untouched, out)
    assert not result.passed
    assert "not written yet" in result.message or "not filled in yet" in result.message, result.line()


def test_the_failed_guard_is_quoted_without_the_hidden_sizes():
    """06.dynamic quotes the guard that failed; the grader's hidden batches keep their sizes to themselves."""
    from helpers.checks.lab06 import guard_that_failed

    reason = ("Recompiling function loss_fn in <cell>:3\n    triggered by the following guard failure(s):\n"
              "    - 0/0: tensor 'idx' size mismatch at index 1. expected 12, actual 7")
    assert guard_that_failed(reason) == "tensor 'idx' size mismatch at index 1. expected 12, actual 7"
    assert guard_that_failed(reason, reveal=False) == "tensor 'idx' size mismatch at index 1"
