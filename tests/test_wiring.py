"""`workbook build --check` proves the wiring: check cells, registered checks and hidden cases agree."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import notebooks
from helpers.grading import hidden, wiring

ROOT = Path(__file__).resolve().parents[1]


def test_the_course_is_wired():
    assert [str(p) for p in wiring.wiring_problems(ROOT)] == []


def copy_of_lab04(tmp_path: Path) -> Path:
    path = tmp_path / "04_inductor_output.ipynb"
    shutil.copy(ROOT / "solutions" / "04_inductor_output.ipynb", path)
    return path


def test_a_check_cell_naming_no_check_is_reported(tmp_path):
    path = copy_of_lab04(tmp_path)
    nb = notebooks.read(path)
    cell = next(c for c in nb.cells if c.get("id") == "check-a")
    cell.source = 'check("04.compile_mach")'
    notebooks.write(nb, path)
    messages = [p.message for p in wiring.lab_problems(ROOT, path)]
    assert any("'04.compile_mach', which no check registers" in m for m in messages), messages
    assert any("04.compile_match is registered but no check cell runs it" in m for m in messages), messages


def test_a_check_call_outside_a_check_cell_is_reported(tmp_path):
    path = copy_of_lab04(tmp_path)
    nb = notebooks.read(path)
    next(c for c in nb.cells if c.get("id") == "run-a").source += '\ncheck("04.compile_match")\n'
    notebooks.write(nb, path)
    assert any("cell 'run-a' calls check() but is not tagged 'check'" in p.message for p in wiring.lab_problems(ROOT, path))


def test_missing_and_extra_hidden_cases_are_reported(tmp_path, monkeypatch):
    real = hidden.load_hidden("04")
    cases = {k: v for k, v in real.cases.items() if k != "04.report"}
    cases["04.gone"] = []
    monkeypatch.setattr(hidden, "load_hidden", lambda lab: hidden.HiddenLab(lab, cases, {}, ["no-such-cell"]))
    messages = [p.message for p in wiring.lab_problems(ROOT, copy_of_lab04(tmp_path))]
    assert any("04.report has no hidden cases" in m for m in messages), messages
    assert any("cases for 04.gone, which no check registers" in m for m in messages), messages
    assert any("reads cell 'no-such-cell'" in m for m in messages), messages
