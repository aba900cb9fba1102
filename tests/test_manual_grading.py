"""Manual grading: answers side by side with the rubric, a manual.csv to fill, its points in totals and feedback."""

import csv
import json
from pathlib import Path

import nbformat
import pytest

from helpers import checks, cli, notebooks
from helpers.checks import Result
from helpers.grading import batch, gradebook, manual
from helpers.grading.gradebook import SubmissionResult

# Lab 07's points: every automatic check, and its written answers (4 points)
AUTO = sum(spec.points for spec in checks.load_lab("07"))
TOP = AUTO + 4

ROOT = Path(__file__).resolve().parents[1]


def test_items_come_from_the_solution_and_the_lab_hides_the_rubric():
    its = manual.items("07", ROOT)
    assert [(i.cell_id, i.points) for i in its] == [("a-answer", 2.0), ("f-answer", 2.0)]
    lab = notebooks.read(ROOT / "labs" / "07_llm_bench.ipynb")
    shown = next(c for c in lab.cells if c.id == "a-answer").metadata["workbook"]["manual"]
    assert shown["points"] == 2 and "rubric" not in shown


@pytest.fixture
def gradebook_07(tmp_path):
    """Two graded submissions of Lab 07 with executed notebooks: one answered, one that deleted the answer cell."""
    out = tmp_path / "grades"
    specs = checks.load_lab("07")
    lab = notebooks.read(ROOT / "labs" / "07_llm_bench.ipynb")
    for name, answer in (("ann", "Prefill does the <b>whole prompt</b> at once: <script>x</script>"), ("ben", None)):
        nb = nbformat.from_dict(lab)
        cell = next(c for c in nb.cells if c.id == "a-answer")
        if answer:
            cell.source = answer
        else:
            nb.cells.remove(cell)
        (out / "executed").mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, out / "executed" / f"{name}-0000.ipynb")
        gradebook.save_result(out, SubmissionResult(
            submission=name, key=f"{name}-0000", sha256="x", lab="07", status="ok", message="",
            checks=[Result(s.name, "passed", s.points, s.points, "ok") for s in specs]))
    return out, specs


def test_a_batch_writes_the_answers_page_and_an_empty_manual_csv(gradebook_07):
    out, specs = gradebook_07
    results = batch.finish(out, "07", specs)
    assert all(r.total == AUTO and r.max_total == AUTO for r in results)          # nothing scored yet: automatic only
    page = (out / "answers.html").read_text()
    assert "&lt;script&gt;x&lt;/script&gt;" in page and "<script>x" not in page
    assert "this cell is missing from the submission" in page and "Rubric." in page
    rows = list(csv.DictReader((out / "manual.csv").open()))
    assert [(r["key"], r["item"], r["points"]) for r in rows] == [
        ("ann-0000", "a-answer", ""), ("ann-0000", "f-answer", ""), ("ben-0000", "a-answer", ""), ("ben-0000", "f-answer", "")]
    assert "07.manual" not in (out / "grades.csv").read_text()


def test_filled_points_reach_totals_csv_json_and_feedback_and_survive_a_rebuild(gradebook_07, tmp_path):
    out, specs = gradebook_07
    batch.finish(out, "07", specs)
    filled = tmp_path / "filled.csv"
    text = (out / "manual.csv").read_text().replace("ann-0000,ann,a-answer,2,,", "ann-0000,ann,a-answer,2,1.5,misses the short prompt")
    filled.write_text(text)
    assert cli.main(["merge", str(out), "--lab", "07", "--out", str(out), "--manual", str(filled)]) == 0
    grades = json.loads((out / "grades.json").read_text())
    assert grades["ann-0000"]["total"] == AUTO + 1.5 and grades["ann-0000"]["max_total"] == TOP
    assert grades["ben-0000"]["checks"]["07.manual.a-answer"]["status"] == "not graded"
    assert "07.manual.a-answer" in (out / "grades.csv").read_text().splitlines()[0]
    feedback = (out / "feedback" / "ann-0000.md").read_text()
    assert "📝" in feedback and "misses the short prompt" in feedback and f"{AUTO + 1.5:g} / {TOP}" in feedback
    assert "Almost nobody passes" not in (out / "summary.html").read_text()     # scored answers are not failed checks
    batch.finish(out, "07", specs)                                              # a later batch keeps the points
    assert "1.5,misses the short prompt" in (out / "manual.csv").read_text()
    assert json.loads((out / "grades.json").read_text())["ann-0000"]["total"] == AUTO + 1.5


@pytest.mark.parametrize("row,words", [("ann-0000,ann,a-answer,2,3,", "outside 0..2"),
                                       ("ann-0000,ann,a-answer,2,lots,", "not a number"),
                                       ("zed-0000,zed,a-answer,2,1,", "no graded submission"),
                                       ("ann-0000,ann,q9,2,1,", "no manual item")])
def test_a_bad_manual_csv_is_refused_and_changes_nothing(gradebook_07, tmp_path, capsys, row, words):
    out, specs = gradebook_07
    batch.finish(out, "07", specs)
    before = (out / "manual.csv").read_text()
    bad = tmp_path / "bad.csv"
    bad.write_text(",".join(manual.FIELDS) + "\n" + row + "\n")
    assert cli.main(["merge", str(out), "--lab", "07", "--out", str(out), "--manual", str(bad)]) == 2
    assert words in capsys.readouterr().err
    assert (out / "manual.csv").read_text() == before
