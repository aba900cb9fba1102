"""Manual grading of free text: the answers side by side, a CSV to fill, and its points added to the gradebook.

A cell of a solution notebook whose metadata holds ``workbook.manual = {"question", "points", "rubric"}`` is a
manual item (the answer cells, Lab 04's explanation, Lab 05's survey). After a batch the grader writes

- ``grades/answers.html``: one question at a time, its rubric, and every learner's cell (found by cell id in the
  executed notebook), side by side;
- ``grades/manual.csv``: one row per submission and item, ``points`` and ``comment`` empty. Rows already there
  keep what the instructor typed; new submissions get new rows; nothing is deleted.

Once any ``points`` cell is filled, every batch and merge adds the manual items to each submission as checks named
``NN.manual.<cell id>`` (status "manual", or "not graded" while empty): in totals, grades.csv, grades.json and the
feedback. ``workbook grade --manual FILE`` (or ``merge --manual FILE``) copies a filled CSV in first. The automatic
checks on the same answers stay: they are a floor and a hint for the reader.
"""

from __future__ import annotations

import csv
import html
import io
import math
from dataclasses import dataclass
from pathlib import Path

import nbformat

from helpers import notebooks
from helpers.checks import Result

FIELDS = ["key", "submission", "item", "max_points", "points", "comment"]
MAX_ANSWER_CHARS = 20_000


class ManualError(ValueError):
    """The manual CSV cannot be used as it is; the message names the line and what to change."""


@dataclass(frozen=True)
class Item:
    """One question graded by a person: the solution cell's id, its question, points and rubric."""

    lab: str
    cell_id: str
    question: str
    points: float
    rubric: str

    @property
    def check_name(self) -> str:
        return f"{self.lab}.manual.{self.cell_id}"


def items(lab: str, root: Path) -> list[Item]:
    """The lab's manual items, in notebook order, from the solution notebook's cell metadata."""
    nb = notebooks.read(notebooks.lab_path(lab, "solutions", root))
    found = []
    for cell in nb.cells:
        spec = cell.get("metadata", {}).get("workbook", {}).get("manual")
        if spec:
            found.append(Item(lab, cell.get("id"), spec["question"], float(spec["points"]), spec["rubric"]))
    return found


def answer_of(executed: Path, cell_id: str) -> str:
    """The learner's cell with that id, as text; a sentence when the notebook or the cell is missing."""
    try:
        nb = nbformat.read(executed, as_version=4)
    except Exception:  # noqa: BLE001 - any unreadable notebook reads the same to the instructor
        return "(no executed notebook for this submission)"
    cell = next((c for c in nb.cells if c.get("id") == cell_id), None)
    if cell is None:
        return "(this cell is missing from the submission: deleted, or its id was changed)"
    return cell.source[:MAX_ANSWER_CHARS]


def answers_html(lab: str, its: list[Item], results: list, out: Path) -> str:
    """One section per question: the rubric, then every learner's answer (escaped; never run)."""
    esc = html.escape
    parts = [f"<h1>Lab {esc(lab)}: written answers</h1>",
             f"<p>{len(results)} submissions, {len(its)} questions. Score them in <code>manual.csv</code> (same folder), "
             "then run <code>workbook grade ... --manual manual.csv</code> or <code>workbook merge ... --manual "
             "manual.csv</code>.</p>"]
    for item in its:
        parts.append(f"<h2 id='{esc(item.cell_id)}'>{esc(item.question)} <small>({item.points:g} points, cell "
                     f"<code>{esc(item.cell_id)}</code>)</small></h2><div class='rubric'><b>Rubric.</b> "
                     f"{esc(item.rubric)}</div><div class='answers'>")
        for r in results:
            text = answer_of(out / "executed" / f"{r.key}.ipynb", item.cell_id)
            parts.append(f"<div class='answer'><div class='who'>{esc(r.submission)} <code>{esc(r.key)}</code></div>"
                         f"<pre>{esc(text)}</pre></div>")
        parts.append("</div>")
    style = ("body{font-family:sans-serif;margin:2em}.rubric{background:#f4f4e8;padding:.5em;max-width:60em}"
             ".answers{display:flex;flex-wrap:wrap;gap:1em;margin:1em 0}.answer{flex:1 1 28em;border:1px solid #ccc;"
             "padding:.5em}.who{font-weight:bold}pre{white-space:pre-wrap;font-size:90%}")
    return (f"<!doctype html><meta charset='utf-8'><title>Lab {esc(lab)} written answers</title><style>{style}</style>\n"
            + "\n".join(parts) + "\n")


def read_rows(path: Path) -> list[dict]:
    """manual.csv's rows as dicts (ManualError for a missing column)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise ManualError(f"cannot read {path}: {err}") from None
    reader = csv.DictReader(io.StringIO(text))
    missing = [f for f in FIELDS if f not in (reader.fieldnames or [])]
    if missing:
        raise ManualError(f"{path} needs the columns {', '.join(FIELDS)}; missing: {', '.join(missing)}")
    return list(reader)


def template_text(its: list[Item], results: list, existing: list[dict]) -> str:
    """manual.csv with a row per submission and item: the instructor's filled rows kept, new ones added empty."""
    kept = {(row["key"], row["item"]): row for row in existing}
    rows = list(existing)
    for r in sorted(results, key=lambda r: (r.submission, r.key)):
        for item in its:
            if (r.key, item.cell_id) not in kept:
                rows.append({"key": r.key, "submission": r.submission, "item": item.cell_id,
                             "max_points": f"{item.points:g}", "points": "", "comment": ""})
    buf = io.StringIO()
    w = csv.DictWriter(buf, FIELDS, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def scores(rows: list[dict], its: list[Item], keys: set[str], where: str = "manual.csv") -> dict[tuple[str, str], tuple]:
    """{(key, cell id): (points or None, comment)}; ManualError for an unknown key or item, or points out of range."""
    by_id = {i.cell_id: i for i in its}
    out = {}
    for line, row in enumerate(rows, start=2):
        key, item_id, raw = row["key"].strip(), row["item"].strip(), (row["points"] or "").strip()
        if item_id not in by_id:
            raise ManualError(f"{where}, line {line}: no manual item {item_id!r} in this lab "
                              f"(items: {', '.join(by_id) or 'none'})")
        if key not in keys:
            raise ManualError(f"{where}, line {line}: no graded submission with key {key!r} in this gradebook")
        points = None
        if raw:
            try:
                points = float(raw)
            except ValueError:
                raise ManualError(f"{where}, line {line}: points {raw!r} is not a number") from None
            top = by_id[item_id].points
            if not (math.isfinite(points) and 0 <= points <= top):
                raise ManualError(f"{where}, line {line}: points {raw} outside 0..{top:g} for {item_id}")
        out[(key, item_id)] = (points, (row.get("comment") or "").strip())
    return out


def manual_results(its: list[Item], key: str, scored: dict[tuple[str, str], tuple]) -> list[Result]:
    """The manual items of one submission as Results (0 and "not graded" while a row is empty)."""
    found = []
    for item in its:
        points, comment = scored.get((key, item.cell_id), (None, ""))
        if points is None:
            found.append(Result(item.check_name, "not graded", 0, item.points, "not graded yet by your instructor"))
        else:
            found.append(Result(item.check_name, "manual", points, item.points,
                                f"{item.question} {comment}".strip()))
    return found


def apply(results: list, its: list[Item], rows: list[dict]) -> list:
    """The results with their manual items appended, when any points were filled in; else unchanged."""
    if not its or not any((row.get("points") or "").strip() for row in rows):
        return results
    scored = scores(rows, its, {r.key for r in results})
    for r in results:
        r.checks = [c for c in r.checks if ".manual." not in c.name] + manual_results(its, r.key, scored)
    return results
