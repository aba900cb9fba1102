"""Manual grading of free text: the answers side by side, a CSV to fill, and its points added to the gradebook.

A cell of a solution notebook whose metadata holds ``workbook.manual = {"question", "points", "rubric"}`` is a
manual item (the answer cells, Lab 04's explanation, Lab 05's survey). After a batch the grader writes

- ``grades/answers.html``: one question at a time, its rubric, and every learner's cell (found by cell id in the
  executed notebook), side by side;
- ``grades/manual.csv``: one row per submission and item, ``points`` and ``comment`` empty. Rows already there
  keep what the instructor typed; new submissions get new rows; nothing is deleted.

Once any ``points`` cell is filled, every batch and merge adds the manual items to each submission as checks named
``NN.manual.<cell id>`` (status "manual", or "not graded" while empty): in totals, grades.csv, grades.json and the
feedback. ``workbook grade --manual FILE`` (or ``merge --manual FILE``) copies a filled CSV in first;
``workbook desk`` (helpers/grading/desk.py) saves one entry at a time into it (``record``), by the same rule (``entry``).
The automatic checks on the same answers stay: they are a floor and a hint for the reader.
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
from helpers.grading import gradebook

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
             f"<p>{len(results)} submissions, {len(its)} questions. Score them in the browser with <code>workbook desk"
             "</code> on this folder, or in <code>manual.csv</code> (same folder), then run <code>workbook grade ... "
             "--manual manual.csv</code> or <code>workbook merge ... --manual manual.csv</code>.</p>"]
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
    return rows_text(rows)


def rows_text(rows: list[dict]) -> str:
    """manual.csv's text for these rows (its columns only, in order)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, FIELDS, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def entry(row: dict, by_id: dict[str, Item], keys: set[str]) -> tuple[float | None, str]:
    """One row's (points or None, comment); ManualError saying what to change for an unknown key or item, or points
    that are not a number in 0..max. The one rule for a CSV (`scores`) and for the desk's entries (`record`)."""
    key, item_id, raw = row["key"].strip(), row["item"].strip(), (row["points"] or "").strip()
    if item_id not in by_id:
        raise ManualError(f"no manual item {item_id!r} in this lab (items: {', '.join(by_id) or 'none'})")
    if key not in keys:
        raise ManualError(f"no graded submission with key {key!r} in this gradebook")
    points = None
    if raw:
        try:
            points = float(raw)
        except ValueError:
            raise ManualError(f"points {raw!r} is not a number") from None
        top = by_id[item_id].points
        if not (math.isfinite(points) and 0 <= points <= top):
            raise ManualError(f"points {raw} outside 0..{top:g} for {item_id}")
    return points, (row.get("comment") or "").strip()


def scores(rows: list[dict], its: list[Item], keys: set[str], where: str = "manual.csv") -> dict[tuple[str, str], tuple]:
    """{(key, cell id): (points or None, comment)}; ManualError naming the line for an unknown key or item, or points
    out of range."""
    by_id = {i.cell_id: i for i in its}
    out = {}
    for line, row in enumerate(rows, start=2):
        try:
            out[(row["key"].strip(), row["item"].strip())] = entry(row, by_id, keys)
        except ManualError as err:
            raise ManualError(f"{where}, line {line}: {err}") from None
    return out


class Conflict(ManualError):
    """The entry changed since the caller read it (another tab, another instructor): `current` is what it holds now."""

    def __init__(self, message: str, current: dict):
        super().__init__(message)
        self.current = current


def record(out: Path, its: list[Item], results: list, key: str, item_id: str, points: str, comment: str,
           seen: tuple[str, str] | None = None) -> dict:
    """Save one entry (points and comment of a submission's answer) into OUT/manual.csv at once, and return its row.

    Validated as a CSV row is (`entry`; ManualError and nothing written). Under the gradebook's lock, the file is read,
    that one row changed (added if missing) and the file replaced atomically: a crash leaves the old or the new file,
    and two writers never drop each other's rows. `seen` is the (points, comment) the caller last read for the row;
    when the row holds something else now, Conflict, unless it already holds this very entry (None: overwrite)."""
    by_id = {i.cell_id: i for i in its}
    names = {r.key: r.submission for r in results}
    value, note = entry({"key": key, "item": item_id, "points": points, "comment": comment}, by_id, set(names))
    wanted = ("" if value is None else f"{value:g}", note)
    key, item_id = key.strip(), item_id.strip()
    path = out / "manual.csv"
    with gradebook.locked(out):
        rows = read_rows(path) if path.exists() else []
        row = next((r for r in rows if (r["key"].strip(), r["item"].strip()) == (key, item_id)), None)
        if row is None:
            row = {"key": key, "submission": names[key], "item": item_id, "max_points": f"{by_id[item_id].points:g}",
                   "points": "", "comment": ""}
            rows.append(row)
        now = ((row["points"] or "").strip(), (row["comment"] or "").strip())
        if seen is not None and now not in (tuple(s.strip() for s in seen), wanted):
            shown = f"{now[0] or 'no points'}" + (f", {now[1]!r}" if now[1] else "")
            raise Conflict(f"changed elsewhere since you read it: it now holds {shown}; yours was not saved "
                           "(save again to put yours over it)", {"points": now[0], "comment": now[1]})
        if now != wanted:
            row["points"], row["comment"] = wanted
            gradebook.write_atomic(path, rows_text(rows))
    return {**row, "points": wanted[0], "comment": wanted[1]}


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
