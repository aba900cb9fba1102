"""Roster matching and grade export for a learning-management system.

The roster is a CSV file the instructor writes (or exports from the LMS and adds a column to):

    student_id,file,name,email,section,lms_id
    s1234567,alice_lab04.ipynb,"Doe, Alice",alice@uni.example,A1,80412

`student_id` and `file` are required; `file` is a submission's file name, its stem, or its gradebook key.
The other columns are optional and fill the LMS columns that need them. Every submission without a student and
every student without a submission is reported, never dropped.

Formats (each LMS's documented grade-import layout):
- `canvas`: Canvas's Gradebook import CSV: Student, ID, SIS User ID, SIS Login ID, Section, then one column per
  assignment, with a "Points Possible" row under the header (Canvas guides, "How do I import grades in the
  Gradebook?"). Canvas matches students by ID or SIS User ID; `lms_id` fills ID.
- `moodle`: Moodle's "Import grades: CSV file": one row per student, an identifier column ("ID number" and
  "Email address" here) mapped to a user field at import, a grade column and a feedback column mapped to the grade
  item (Moodle docs, "Grade import").
- `csv`: everything, for anything else: student_id, name, email, section, submission, key, status, total,
  max_total, feedback file.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from helpers.grading.gradebook import SubmissionResult, feedback_name

FORMATS = ("canvas", "moodle", "csv")
REQUIRED = ("student_id", "file")


class RosterError(ValueError):
    """The roster file cannot be used as it is; the message says what to change."""


@dataclass
class Student:
    student_id: str
    file: str
    name: str = ""
    email: str = ""
    section: str = ""
    lms_id: str = ""


@dataclass
class Matched:
    """Who submitted what: pairs, plus the leftovers on both sides."""

    pairs: list[tuple[Student, SubmissionResult]] = field(default_factory=list)
    no_submission: list[Student] = field(default_factory=list)
    no_student: list[SubmissionResult] = field(default_factory=list)


def read_roster(path: Path) -> list[Student]:
    """The roster's students; RosterError for a missing column, an empty id, or an id or file given twice."""
    try:
        text = path.read_text(encoding="utf-8-sig")   # a spreadsheet's byte-order mark is fine
    except (OSError, UnicodeDecodeError) as err:
        raise RosterError(f"cannot read the roster {path}: {err}") from None
    reader = csv.DictReader(io.StringIO(text))
    columns = [c.strip().lower() for c in reader.fieldnames or []]
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise RosterError(f"the roster {path} needs the columns {', '.join(REQUIRED)} (it has {', '.join(columns) or 'none'}); "
                          "see README, 'Roster and LMS export'")
    students, ids, files = [], set(), set()
    for line, row in enumerate(reader, start=2):
        row = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items()}
        if not any(row.values()):
            continue
        s = Student(**{k: row.get(k, "") for k in Student.__dataclass_fields__})
        if not s.student_id or not s.file:
            raise RosterError(f"{path}, line {line}: student_id and file must both be filled in")
        if s.student_id in ids:
            raise RosterError(f"{path}, line {line}: student {s.student_id} is listed twice")
        if s.file in files:
            raise RosterError(f"{path}, line {line}: file {s.file} is given to two students")
        ids.add(s.student_id)
        files.add(s.file)
        students.append(s)
    return students


def match(students: list[Student], results: list[SubmissionResult]) -> Matched:
    """Pair students with submissions by file name, stem or key; report what is left on either side."""
    by_name: dict[str, list[SubmissionResult]] = {}
    for r in results:
        for name in {r.submission, f"{r.submission}.ipynb", r.key}:
            by_name.setdefault(name, []).append(r)
    matched, used = Matched(), set()
    for s in students:
        candidates = [r for r in by_name.get(s.file, by_name.get(Path(s.file).stem, [])) if r.key not in used]
        if len(candidates) > 1:
            raise RosterError(f"{s.student_id}'s file {s.file!r} matches {len(candidates)} submissions "
                              f"({', '.join(r.key for r in candidates)}): give the key instead")
        if candidates:
            matched.pairs.append((s, candidates[0]))
            used.add(candidates[0].key)
        else:
            matched.no_submission.append(s)
    matched.no_student = [r for r in results if r.key not in used]
    return matched


def _write(rows: list[list]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def assignment_name(lab: str) -> str:
    return f"Lab {lab}"


def short_feedback(r: SubmissionResult) -> str:
    """One line for an LMS feedback column: the score and the checks to look at."""
    failed = [c.name for c in r.checks if c.score < c.max_score]   # manual items count when short of full points
    return (f"{r.total:g}/{r.max_total:g}" + (f"; not passed: {', '.join(failed)}" if failed else "; every check passed")
            + f"; details in {feedback_name(r).removesuffix('.md')}.html")


def export_text(fmt: str, matched: Matched, lab: str) -> str:
    """The export file's text in the given format; students without a submission get an empty grade."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    rows_in = [(s, r) for s, r in matched.pairs] + [(s, None) for s in matched.no_submission]
    rows_in.sort(key=lambda sr: sr[0].student_id)
    top = max((r.max_total for _, r in matched.pairs), default=0)
    item = assignment_name(lab)
    if fmt == "canvas":
        rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", item],
                ["Points Possible", "", "", "", "", f"{top:g}"]]
        rows += [[s.name, s.lms_id, s.student_id, s.email, s.section, f"{r.total:g}" if r else ""] for s, r in rows_in]
    elif fmt == "moodle":
        rows = [["ID number", "Email address", "Full name", item, f"{item} feedback"]]
        rows += [[s.student_id, s.email, s.name, f"{r.total:g}" if r else "", short_feedback(r) if r else "no submission"]
                 for s, r in rows_in]
    else:
        rows = [["student_id", "name", "email", "section", "submission", "key", "status", "total", "max_total", "feedback"]]
        rows += [[s.student_id, s.name, s.email, s.section, r.submission if r else "", r.key if r else "",
                  r.status if r else "no submission", f"{r.total:g}" if r else "", f"{r.max_total:g}" if r else "",
                  feedback_name(r) if r else ""] for s, r in rows_in]
    return _write(rows)


def leftovers_text(matched: Matched) -> list[str]:
    """Sentences for the instructor: who has no submission, which files have no student."""
    lines = []
    if matched.no_submission:
        lines.append(f"{len(matched.no_submission)} student(s) without a submission (exported with an empty grade): "
                     + ", ".join(f"{s.student_id} ({s.file})" for s in matched.no_submission))
    if matched.no_student:
        lines.append(f"{len(matched.no_student)} submission(s) with no student in the roster (not exported): "
                     + ", ".join(f"{r.submission} [{r.key}]" for r in matched.no_student))
    return lines
