"""Released code and check messages give away nothing a learner is asked to find or predict."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import checks, notebooks
from helpers.grading.release import make_release

ROOT = Path(__file__).resolve().parents[1]


def solution_cell(lab: str, cid: str) -> str:
    path = next((ROOT / "solutions").glob(f"{lab}_*.ipynb"))
    return next(c.source for c in notebooks.read(path).cells if c.get("id") == cid)


def solution_capture_table() -> dict:
    ns: dict = {}
    exec(solution_cell("01", "ex-2"), ns)
    return ns["CAPTURE_TABLE"]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    return make_release(ROOT, tmp_path_factory.mktemp("release") / "bundle")


def test_the_bundle_holds_no_capture_table_answer(bundle):
    """No released file pairs a capture method with its answer (the old PYTHON_COVERAGE did)."""
    pairs = [(m, v) for m, row in solution_capture_table().items() for v in row.values() if isinstance(v, str)]
    for path in bundle.rglob("*.py"):
        text = path.read_text(errors="replace")
        for method, value in pairs:
            assert not re.search(re.escape(method) + r"""["']\s*:\s*["']""" + re.escape(value), text), (path, method, value)


def test_the_bundle_holds_no_prediction(bundle):
    answer = re.search(r"PREDICTED_COMPILES = (\d+)", solution_cell("01", "ex-4")).group(1)
    for path in [*bundle.rglob("*.py"), *bundle.rglob("*.ipynb")]:
        assert f"PREDICTED_COMPILES = {answer}" not in path.read_text(errors="replace"), path


def rotated(table: dict) -> dict:
    """Every string cell replaced by another allowed value of its column: all wrong, all allowed."""
    from helpers.checks.lab01 import COLUMNS

    out = {}
    for method, row in table.items():
        out[method] = {}
        for col, value in row.items():
            allowed = COLUMNS[col]
            out[method][col] = allowed[(allowed.index(value) + 1) % len(allowed)]
    return out


def test_a_wrong_capture_table_is_told_where_not_what():
    truth, wrong = solution_capture_table(), rotated(solution_capture_table())
    result = checks.run_check("01.capture_table", {"CAPTURE_TABLE": wrong})
    assert not result.passed
    for method in truth:
        for col, value in truth[method].items():
            if wrong[method][col] != value and method in result.message and col in result.message:
                assert repr(value) not in result.message.split(f"{method} / {col}")[1].split(".")[0], result.message


def test_wrong_predictions_and_byte_counts_are_not_answered():
    ns: dict = {}
    source = solution_cell("01", "ex-4")
    true_count = re.search(r"PREDICTED_COMPILES = (\d+)", source).group(1)
    exec("import torch\n" + source.replace(f"PREDICTED_COMPILES = {true_count}", "PREDICTED_COMPILES = 17"), ns)
    message = checks.run_check("01.recompiles", ns).message
    assert "PREDICTED_COMPILES (17)" in message and not re.search(rf"\b{true_count}\b", message), message
    ns = {"bytes_moved": lambda numel, n_ops, fused, bpe=4: numel * n_ops, "predicted_speedup": lambda n: n,
          "payoff": [{"eager_ms": 1.0, "compiled_ms": 0.5}]}
    message = checks.run_check("01.traffic_model", ns).message
    assert "bytes_moved" in message and "40000" not in message and "8000" not in message, message
