"""The gradebook: one result file per submission, grades.csv / grades.json, feedback in Markdown and HTML.

Every file is written atomically (temporary file + rename), so a batch killed
at any moment leaves either the old file or the new one. Results are kept per
submission in ``OUT/results/<key>.json``; the CSV and JSON are rebuilt from
them, which is what makes resuming, sharding and merging simple.
"""

from __future__ import annotations

import csv
import fcntl
import html
import io
import json
import os
import tempfile
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from helpers.checks import Result

STATUS_WORDS = {
    "ok": "ran to the end",
    "timeout": "stopped at the time limit",
    "crashed": "the kernel died",
    "memory": "stopped at the memory limit",
    "invalid": "not a gradable notebook",
    "error": "the grader could not run it",
}


@dataclass
class SubmissionResult:
    """Everything the grader decided about one submission."""

    submission: str
    key: str
    sha256: str
    lab: str
    status: str
    message: str
    checks: list[Result]
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    settings: dict = field(default_factory=dict)   # what the job's kernel ran with (device, QUICK, torch), as it said
    isolation: str = ""                             # how the job was jailed: "bwrap + job uid", "bwrap", "job uid only", ...

    @property
    def total(self) -> float:
        return sum(r.score for r in self.checks)

    @property
    def max_total(self) -> float:
        return sum(r.max_score for r in self.checks)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["checks"] = [r.to_dict() for r in self.checks]
        d["total"], d["max_total"] = self.total, self.max_total
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "SubmissionResult":
        fields = {k: d[k] for k in ("submission", "key", "sha256", "lab", "status", "message", "notes", "seconds")}
        return cls(checks=[Result(**r) for r in d["checks"]], settings=d.get("settings") or {},
                   isolation=d.get("isolation", ""), **fields)


def write_atomic(path: Path, text: str) -> None:
    """Write text to path so that readers see the old or the new file, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def locked(out: Path):
    """Hold the gradebook's lock (OUT/.gradebook.lock, fcntl.flock) for a read-modify-write of its files: the desk's
    entries and every rebuild of the outputs take turns, across threads and processes, so none undoes another's."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".gradebook.lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def save_result(out: Path, result: SubmissionResult) -> None:
    write_atomic(out / "results" / f"{result.key}.json", json.dumps(result.to_dict(), indent=1, sort_keys=True, ensure_ascii=False))


def load_results(out: Path) -> list[SubmissionResult]:
    """Every finished submission in a gradebook folder, sorted by name."""
    results = []
    for path in sorted((out / "results").glob("*.json")):
        try:
            results.append(SubmissionResult.from_dict(json.loads(path.read_text(encoding="utf-8"))))
        except (ValueError, KeyError, TypeError):
            continue  # a damaged result file is graded again on resume
    return sorted(results, key=lambda r: (r.submission, r.key))


def feedback_name(r: SubmissionResult) -> str:
    """The learner's feedback file, relative to the gradebook folder (also as .html)."""
    return f"feedback/{r.key}.md"


def csv_text(results: list[SubmissionResult], check_names: list[str]) -> str:
    """grades.csv: submission, status, total, max_total, one column per check, then the unique key and the feedback
    file (two submissions with the same file name in different folders get different keys)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["submission", "status", "total", "max_total", *check_names, "key", "feedback"])
    for r in results:
        scores = {c.name: c.score for c in r.checks}
        w.writerow([r.submission, r.status, f"{r.total:g}", f"{r.max_total:g}",
                    *(f"{scores.get(n, 0):g}" for n in check_names), r.key, feedback_name(r)])
    return buf.getvalue()


def json_text(results: list[SubmissionResult]) -> str:
    """grades.json, keyed by the unique key: submission, feedback file, status, totals, per check score/max/status/message."""
    data = {r.key: {"submission": r.submission, "feedback": feedback_name(r), "status": r.status, "message": r.message,
                    "total": r.total, "max_total": r.max_total, "notes": r.notes,
                    "checks": {c.name: {"score": c.score, "max": c.max_score, "status": c.status, "message": c.message}
                               for c in r.checks}}
            for r in results}
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def by_submission(grades: dict) -> dict[str, dict]:
    """grades.json's entries by submission name, for scripts that know their file names are unique."""
    out: dict[str, dict] = {}
    for key, entry in grades.items():
        if entry["submission"] in out:
            raise ValueError(f"two submissions are named {entry['submission']!r}: use grades.json's keys ({key})")
        out[entry["submission"]] = entry
    return out


def write_gradebook(out: Path, check_names: list[str], results: list[SubmissionResult] | None = None
                    ) -> list[SubmissionResult]:
    """Rebuild grades.csv and grades.json from the per-submission results (or from `results`, manual items added)."""
    results = load_results(out) if results is None else results
    write_atomic(out / "grades.csv", csv_text(results, check_names))
    write_atomic(out / "grades.json", json_text(results))
    return results


def feedback_markdown(r: SubmissionResult, titles: dict[str, str]) -> str:
    """The learner's feedback: each check, its points, what to fix. Never hidden inputs or code."""
    lines = [f"# Feedback — Lab {r.lab}: {r.submission}", "",
             f"**Score: {r.total:g} / {r.max_total:g}**", "",
             f"Notebook: {r.message or STATUS_WORDS.get(r.status, r.status)}.", ""]
    if r.notes:
        lines += ["## What the grader changed before running your notebook", ""] + [f"- {n}" for n in r.notes] + [""]
    lines += ["## Checks", "", "| | check | points | what it means |", "|---|---|---:|---|"]
    for c in r.checks:
        mark = "✅" if c.passed else "📝" if c.status in ("manual", "not graded") else "❌"
        lines.append(f"| {mark} | `{c.name}` {titles.get(c.name, '')} | {c.score:g}/{c.max_score:g} | {c.status}: {c.message.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def feedback_html(markdown_text: str, title: str) -> str:
    """A plain, self-contained HTML page of the Markdown feedback (tables rendered, the rest preformatted)."""
    body = []
    for block in markdown_text.split("\n\n"):
        rows = [l for l in block.splitlines() if l.startswith("|")]
        if rows and len(rows) == len(block.splitlines()):
            cells = [[html.escape(c.strip()) for c in row.strip("|").split("|")] for row in rows if not set(row) <= set("|-: ")]
            head, *rest = cells
            body.append("<table><tr>" + "".join(f"<th>{c}</th>" for c in head) + "</tr>"
                        + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rest) + "</table>")
        elif block.startswith("#"):
            level = len(block) - len(block.lstrip("#"))
            body.append(f"<h{level}>{html.escape(block.lstrip('# ').strip())}</h{level}>")
        else:
            body.append(f"<p>{html.escape(block).replace(chr(10), '<br>')}</p>")
    style = "body{font-family:sans-serif;max-width:60em;margin:2em auto}td,th{border:1px solid #ccc;padding:.3em .6em}table{border-collapse:collapse}"
    return f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title><style>{style}</style>\n" + "\n".join(body) + "\n"


def write_feedback(out: Path, r: SubmissionResult, titles: dict[str, str]) -> None:
    md = feedback_markdown(r, titles)
    write_atomic(out / "feedback" / f"{r.key}.md", md)
    write_atomic(out / "feedback" / f"{r.key}.html", feedback_html(md, f"Lab {r.lab} feedback: {r.submission}"))


class Guard:
    """Remembers every result file this run wrote and puts it back if anything else changed it.

    As root each job runs under its own uid and cannot write here at all; as an ordinary user a
    submission could, so after every submission the grader restores what it wrote and removes
    result files that appeared without it."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.known: dict[Path, bytes] = {p: p.read_bytes() for p in folder.glob("*.json")} if folder.is_dir() else {}

    def record(self, path: Path) -> None:
        self.known[path] = path.read_bytes()

    def repair(self) -> list[str]:
        """Restore tampered result files; return a note for each repair."""
        notes = []
        for path, data in self.known.items():
            if not path.is_file() or path.read_bytes() != data:
                write_atomic(path, data.decode("utf-8"))
                notes.append(f"the gradebook file {path.name} was changed while your notebook ran; the grader restored it")
        for path in self.folder.glob("*.json"):
            if path not in self.known:
                path.unlink(missing_ok=True)
                notes.append(f"a file {path.name} appeared in the gradebook while your notebook ran; the grader removed it")
        return notes


def merge(sources: list[Path], out: Path, check_names: list[str]) -> list[SubmissionResult]:
    """Combine the results of several shards into one gradebook folder."""
    for src in sources:
        for sub in ("results", "feedback", "executed"):
            for path in sorted((src / sub).glob("*")):
                if path.is_file():
                    (out / sub).mkdir(parents=True, exist_ok=True)
                    data = path.read_bytes()
                    target = out / sub / path.name
                    if not target.exists() or target.read_bytes() != data:
                        tmp = target.with_name(f".{target.name}.tmp")
                        tmp.write_bytes(data)
                        os.replace(tmp, target)
    return write_gradebook(out, check_names)
