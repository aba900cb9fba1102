"""Roster matching and LMS export: every student and every submission accounted for, in each LMS's layout."""

import csv
import io

import pytest

from helpers import cli
from helpers.checks import Result
from helpers.grading import gradebook
from helpers.grading.export import RosterError, export_text, leftovers_text, match, read_roster
from helpers.grading.gradebook import SubmissionResult


def result(name: str, total: int, key: str | None = None) -> SubmissionResult:
    checks = [Result("04.a", "passed" if total else "failed", total, 2, "")]
    return SubmissionResult(submission=name, key=key or f"{name}-0000", sha256="x", lab="04", status="ok", message="",
                            checks=checks)


ROSTER = ("\ufeffstudent_id,file,name,email,section,lms_id\n"
          's1,ann.ipynb,"Doe, Ann",ann@uni.example,A1,101\n'
          "s2,ben,Ben Roe,ben@uni.example,A1,102\n"
          "s3,report-1111,Cy,cy@uni.example,B2,103\n"
          "s4,dee.ipynb,Dee,dee@uni.example,B2,104\n")


@pytest.fixture
def roster(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text(ROSTER, encoding="utf-8")
    return read_roster(path)


def results():
    return [result("ann", 2), result("ben", 0), result("report", 2, key="report-1111"),
            result("report", 1, key="report-2222"), result("stray", 2)]


def test_match_by_file_stem_or_key_and_report_leftovers(roster):
    m = match(roster, results())
    assert [(s.student_id, r.key) for s, r in m.pairs] == [("s1", "ann-0000"), ("s2", "ben-0000"), ("s3", "report-1111")]
    assert [s.student_id for s in m.no_submission] == ["s4"]
    assert sorted(r.key for r in m.no_student) == ["report-2222", "stray-0000"]
    text = " ".join(leftovers_text(m))
    assert "s4 (dee.ipynb)" in text and "stray [stray-0000]" in text and "report [report-2222]" in text


def test_canvas_layout(roster):
    rows = list(csv.reader(io.StringIO(export_text("canvas", match(roster, results()), "04"))))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 04"]
    assert rows[1] == ["Points Possible", "", "", "", "", "2"]
    assert rows[2] == ["Doe, Ann", "101", "s1", "ann@uni.example", "A1", "2"]
    assert rows[-1] == ["Dee", "104", "s4", "dee@uni.example", "B2", ""]      # no submission: empty, not 0


def test_moodle_and_csv_layouts(roster):
    m = match(roster, results())
    moodle = list(csv.reader(io.StringIO(export_text("moodle", m, "04"))))
    assert moodle[0] == ["ID number", "Email address", "Full name", "Lab 04", "Lab 04 feedback"]
    assert moodle[2][:4] == ["s2", "ben@uni.example", "Ben Roe", "0"] and "not passed: 04.a" in moodle[2][4]
    assert "every check passed" in moodle[1][4]
    plain = list(csv.DictReader(io.StringIO(export_text("csv", m, "04"))))
    assert plain[2]["key"] == "report-1111" and plain[3]["status"] == "no submission"


@pytest.mark.parametrize("text,words", [
    ("id,file\ns1,a.ipynb\n", "student_id, file"),
    ("student_id,file\ns1,a.ipynb\ns1,b.ipynb\n", "listed twice"),
    ("student_id,file\ns1,a.ipynb\ns2,a.ipynb\n", "two students"),
    ("student_id,file\ns1,\n", "must both be filled in"),
])
def test_a_bad_roster_says_what_to_fix(tmp_path, text, words):
    path = tmp_path / "roster.csv"
    path.write_text(text)
    with pytest.raises(RosterError, match=words):
        read_roster(path)


def test_an_ambiguous_file_name_asks_for_the_key(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("student_id,file\ns1,report.ipynb\n")
    with pytest.raises(RosterError, match="give the key"):
        match(read_roster(path), results())


def test_export_command(tmp_path, capsys):
    for r in results():
        gradebook.save_result(tmp_path / "grades", r)
    (tmp_path / "roster.csv").write_text(ROSTER)
    code = cli.main(["export", str(tmp_path / "grades"), "--roster", str(tmp_path / "roster.csv"), "--format", "canvas"])
    out = capsys.readouterr()
    assert code == 0 and "3 grades of lab 04" in out.out and "without a submission" in out.err
    assert (tmp_path / "grades" / "export-canvas.csv").read_text().startswith("Student,ID,SIS User ID")
    assert cli.main(["export", str(tmp_path / "empty"), "--roster", str(tmp_path / "roster.csv")]) == 2
