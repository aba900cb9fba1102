"""The gradebook: atomic files, CSV/JSON layout, feedback, tamper repair, shards and merge."""

import csv
import json
from pathlib import Path

import pytest

from helpers.checks import Result
from helpers.grading import batch, gradebook
from helpers.grading.gradebook import SubmissionResult

NAMES = ["04.a", "04.b"]


def result(name: str, scores=(1, 0)) -> SubmissionResult:
    checks = [Result(n, "passed" if s else "failed", s, 1, "fine" if s else "fix this | and that") for n, s in zip(NAMES, scores)]
    return SubmissionResult(submission=name, key=f"{name}-0000", sha256="x", lab="04", status="ok", message="", checks=checks)


def test_csv_json_and_feedback(tmp_path):
    for r in (result("ann"), result("ben", (1, 1))):
        gradebook.save_result(tmp_path, r)
        gradebook.write_feedback(tmp_path, r, {"04.a": "first"})
    gradebook.write_gradebook(tmp_path, NAMES)
    rows = list(csv.reader((tmp_path / "grades.csv").open()))
    assert rows == [["submission", "status", "total", "max_total", *NAMES, "key", "feedback"],
                    ["ann", "ok", "1", "2", "1", "0", "ann-0000", "feedback/ann-0000.md"],
                    ["ben", "ok", "2", "2", "1", "1", "ben-0000", "feedback/ben-0000.md"]]
    data = json.loads((tmp_path / "grades.json").read_text())
    assert data["ann-0000"]["submission"] == "ann" and data["ann-0000"]["feedback"] == "feedback/ann-0000.md"
    assert (tmp_path / data["ann-0000"]["feedback"]).is_file()
    assert data["ann-0000"]["checks"]["04.b"] == {"score": 0, "max": 1, "status": "failed", "message": "fix this | and that"}
    md = (tmp_path / "feedback" / "ann-0000.md").read_text()
    assert "**Score: 1 / 2**" in md and "fix this / and that" in md
    assert "<table>" in (tmp_path / "feedback" / "ann-0000.html").read_text()
    assert not list(tmp_path.rglob("*.tmp"))


def test_guard_restores_tampered_results_and_removes_forged_ones(tmp_path):
    gradebook.save_result(tmp_path, result("ann"))
    guard = gradebook.Guard(tmp_path / "results")
    gradebook.save_result(tmp_path, result("ben"))
    guard.record(tmp_path / "results" / "ben-0000.json")
    original = (tmp_path / "results" / "ben-0000.json").read_text()
    (tmp_path / "results" / "ben-0000.json").write_text("{}")
    (tmp_path / "results" / "forged.json").write_text("{}")
    notes = guard.repair()
    assert len(notes) == 2
    assert (tmp_path / "results" / "ben-0000.json").read_text() == original
    assert not (tmp_path / "results" / "forged.json").exists()


def test_damaged_result_file_is_graded_again(tmp_path):
    gradebook.save_result(tmp_path, result("ann"))
    (tmp_path / "results" / "ann-0000.json").write_text("{trunc")
    assert gradebook.load_results(tmp_path) == []


def test_shards_split_every_submission_once():
    paths = [Path(f"/x/s{i}.ipynb") for i in range(7)]
    shards = [batch.shard_of(paths, f"{i}/3") for i in (1, 2, 3)]
    assert sorted(p for s in shards for p in s) == sorted(paths)
    with pytest.raises(ValueError):
        batch.shard_of(paths, "4/3")


@pytest.mark.slow
def test_four_shards_merge_into_the_gradebook_of_one_batch(tmp_path):
    """--shard 1/4 … 4/4 then `workbook merge`: the same grades.csv and grades.json as one batch, and a report."""
    from helpers import cli

    folder = tmp_path / "subs"
    folder.mkdir()
    for i in range(6):
        (folder / f"broken{i}.ipynb").write_text("{" * (i + 1))
    outs = []
    for i in (1, 2, 3, 4):
        out = tmp_path / f"shard{i}"
        batch.grade([folder], batch.Settings(lab="04", out=out, warm=False), shard=f"{i}/4", progress=False)
        outs.append(out)
    assert [len(list((o / "results").glob("*.json"))) for o in outs] == [2, 2, 1, 1]
    assert cli.main(["merge", *map(str, outs), "--lab", "04", "--out", str(tmp_path / "all")]) == 0
    batch.grade([folder], batch.Settings(lab="04", out=tmp_path / "one", warm=False), progress=False)
    for name in ("grades.csv", "grades.json", "manual.csv"):
        assert (tmp_path / "all" / name).read_text() == (tmp_path / "one" / name).read_text(), name
    assert (tmp_path / "all" / "summary.html").is_file() and (tmp_path / "all" / "answers.html").is_file()
    merged = gradebook.load_results(tmp_path / "all")
    assert sorted(r.submission for r in merged) == [f"broken{i}" for i in range(6)]
    assert all(r.status == "invalid" and r.total == 0 and "not valid notebook JSON" in r.message for r in merged)


def test_to_grade_skips_graded_files_unless_forced_or_named(tmp_path):
    import shutil

    from helpers.grading.batch import file_hash, submission_key, to_grade

    subs = tmp_path / "subs"
    subs.mkdir()
    files = []
    for name in ("ann", "ben", "cat"):
        (subs / f"{name}.ipynb").write_text(f'{{"cells": [], "who": "{name}"}}')
        files.append(subs / f"{name}.ipynb")
    out = tmp_path / "grades"
    for path in files[:2]:   # ann and ben are in the gradebook, unchanged
        r = result(path.stem)
        r.key, r.sha256 = submission_key(path), file_hash(path)
        gradebook.save_result(out, r)
    assert to_grade(files, out) == [files[2]]
    assert to_grade(files, out, force=True) == files
    assert to_grade(files, out, only=("ann.ipynb",)) == [files[0]]
    assert to_grade(files, out, only=(submission_key(files[1]), "cat")) == files[1:]
    (subs / "ann.ipynb").write_text('{"cells": [], "who": "ann, edited"}')
    assert to_grade(files, out) == [files[0], files[2]]          # a changed file is graded again
    with pytest.raises(ValueError, match="dan"):
        to_grade(files, out, only=("dan",))
    shutil.rmtree(out)


def test_two_submissions_with_one_name_keep_two_rows(tmp_path):
    """report.ipynb from two folders: two keys, two rows, two feedback files; by_submission refuses to guess."""
    first, second = result("report"), result("report", (1, 1))
    second.key = "report-1111"
    for r in (first, second):
        gradebook.save_result(tmp_path, r)
        gradebook.write_feedback(tmp_path, r, {})
    gradebook.write_gradebook(tmp_path, NAMES)
    data = json.loads((tmp_path / "grades.json").read_text())
    assert {k: v["total"] for k, v in data.items()} == {"report-0000": 1, "report-1111": 2}
    assert len(list(csv.reader((tmp_path / "grades.csv").open()))) == 3
    with pytest.raises(ValueError, match="report-"):
        gradebook.by_submission(data)


def test_a_check_line_says_points_or_that_it_is_practice():
    from helpers.checks import Result

    assert Result("07.latency", "passed", 2, 2, "ok").line() == "✅ 07.latency [2/2] ok"
    assert Result("03.step", "failed", 0, 1.5, "off").line() == "❌ 03.step [0/1.5] off"
    assert Result("07.roofline", "passed", 0, 0, "ok").line() == "✅ 07.roofline [practice, no points] ok"
