"""Lab 01's checks against two mistakes the corpus found: a sweep timed in the wrong unit, and a save_and_load that
never saves (or hands back the program it was given). The solution passes, public and hidden."""

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

SECONDS = '''
def time_op_sweep(op, sizes):
    rows = []
    for n in sizes:
        t = bench.measure(op, torch.randn(n, device=device), label=str(n))
        rows.append({"numel": n, "median_us": t.median_ms / 1e3, "q25_us": t.q25_ms / 1e3, "q75_us": t.q75_ms / 1e3})
    return rows
'''
NO_SAVE = '''
def save_and_load(program, path):
    return program
'''


@pytest.fixture(scope="module")
def solved() -> dict:
    return notebook_namespace(SOLUTION, OUT.name, cells=CELLS)


@pytest.mark.parametrize("name", ["01.dispatch", "01.export"])
def test_solution_passes(solved, name):
    for run in (run_public, run_hidden):
        assert run(name, solved, OUT.name).passed


@pytest.mark.parametrize("name,source,words", [("01.dispatch", SECONDS, "microseconds"),
                                               ("01.export", NO_SAVE, "wrote nothing")])
def test_mistake_fails_with_its_cause(solved, name, source, words):
    ns = dict(solved)
    exec(source, ns)
    for run in (run_public, run_hidden):
        result = run(name, ns, OUT.name)
        assert not result.passed and words in result.message, result.line()
