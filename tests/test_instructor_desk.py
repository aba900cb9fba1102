"""The instructor's desk end to end, through the `workbook` command: duplicate file names, --only, four shards,
a merge with a manual CSV, the class report, the answers page and an LMS export with roster leftovers.

The submissions are notebooks that are not valid JSON: the grader rejects them at once (status "invalid"), so the
whole flow runs in a couple of minutes; grading real notebooks is covered by test_grading and test_grading_labs."""

import csv
import json
from pathlib import Path

import pytest

from helpers import cli

pytestmark = pytest.mark.slow


def write_class(root: Path) -> Path:
    subs = root / "subs"
    for folder, names in {"group_a": ["report", "ann"], "group_b": ["report", "ben"], "late": ["cy"]}.items():
        (subs / folder).mkdir(parents=True)
        for i, name in enumerate(names):
            (subs / folder / f"{name}.ipynb").write_text("{" * (i + 1) + folder)
    return subs


def test_the_desk(tmp_path, capsys):
    subs = write_class(tmp_path)
    shards = []
    for i in (1, 2, 3, 4):
        out = tmp_path / f"grades-{i}"
        assert cli.main(["grade", "--lab", "04", str(subs), "--out", str(out), "--shard", f"{i}/4", "--no-warm", "--quiet"]) == 0
        shards.append(str(out))
    grades = tmp_path / "grades"
    assert cli.main(["merge", *shards, "--lab", "04", "--out", str(grades)]) == 0
    data = json.loads((grades / "grades.json").read_text())
    assert len(data) == 5 and sorted(v["submission"] for v in data.values()) == ["ann", "ben", "cy", "report", "report"]
    rows = list(csv.DictReader((grades / "grades.csv").open()))
    assert len({r["key"] for r in rows}) == 5 and all((grades / r["feedback"]).is_file() for r in rows)
    for name in ("summary.html", "summary.png", "answers.html", "manual.csv"):
        assert (grades / name).is_file(), name
    assert "5 submissions" in (grades / "summary.html").read_text()

    # regrade one submission by its key; the others keep their results untouched
    report_key = next(k for k, v in data.items() if v["submission"] == "report")
    before = {p.name: p.stat().st_mtime_ns for p in (grades / "results").glob("*.json")}
    assert cli.main(["grade", "--lab", "04", str(subs), "--out", str(grades), "--only", report_key, "--no-warm", "--quiet"]) == 0
    after = {p.name: p.stat().st_mtime_ns for p in (grades / "results").glob("*.json")}
    assert [n for n in after if after[n] != before[n]] == [f"{report_key}.json"]

    # the instructor scores one written answer; the points reach the totals and the feedback
    manual_rows = list(csv.DictReader((grades / "manual.csv").open()))
    assert {r["item"] for r in manual_rows} == {"s-why", "ex-e2"} and len(manual_rows) == 10
    filled = tmp_path / "manual-filled.csv"
    text = (grades / "manual.csv").read_text()
    first = next(r for r in manual_rows if r["submission"] == "ann" and r["item"] == "s-why")
    filled.write_text(text.replace(f"{first['key']},ann,s-why,2,,", f"{first['key']},ann,s-why,2,2,clear"))
    assert cli.main(["merge", *shards, "--lab", "04", "--out", str(grades), "--manual", str(filled)]) == 0
    ann = json.loads((grades / "grades.json").read_text())[first["key"]]
    assert ann["total"] == 2 and ann["max_total"] == 15 + 4
    assert "clear" in (grades / "feedback" / f"{first['key']}.md").read_text()

    # the roster: one student without a submission, one file without a student
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,file,name\ns1,ann.ipynb,Ann\ns2,ben,Ben\ns3," + report_key + ",Rae\ns9,zoe.ipynb,Zoe\n")
    capsys.readouterr()
    assert cli.main(["export", str(grades), "--roster", str(roster), "--format", "canvas"]) == 0
    err = capsys.readouterr().err
    assert "s9 (zoe.ipynb)" in err and "cy [" in err and "report [" in err
    exported = list(csv.reader((grades / "export-canvas.csv").open()))
    assert exported[1][0] == "Points Possible" and [r[2] for r in exported[2:]] == ["s1", "s2", "s3", "s9"]
    assert exported[2][5] == "2" and exported[-1][5] == ""
