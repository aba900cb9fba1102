"""The grading desk: score the written answers in the browser, one question at a time, every entry saved at once.

    workbook desk grades/ --submissions submissions/ --roster roster.csv

A page per written question: its rubric and every learner's answer (escaped, as preformatted text, never run), a
points and a comment field each. Enter (or leaving a changed field) saves that one entry: validated as
`--manual` validates (`manual.entry`), merged into OUT/manual.csv under the gradebook's lock and written atomically
(`manual.record`), then totals, grades.csv, grades.json, feedback and the class report are rebuilt from it
(`batch.finish`, nothing regraded). A closed tab or a crash loses nothing that was acknowledged "saved". Each save
carries the value the page last read; a save over an entry another tab changed meanwhile is refused with that value.
From the same page: a submission's feedback and executed notebook (read-only), regrading one submission (the
`workbook grade --only KEY` a shell would run) and the LMS export (`workbook export`).

Threat model in one paragraph: the server listens on 127.0.0.1 only, and every URL starts with a random token (a
request without it gets 403), so another user of the machine or a web page in the browser cannot reach it. The
learners' text is hostile: answers are HTML-escaped; every page is served with a Content-Security-Policy that allows
the desk's own script file and nothing inline; an executed notebook, whose outputs a learner controls, is rendered
by nbconvert without its scripts and served in a CSP sandbox (no script runs, no request leaves, an origin of its
own; nbconvert's sanitizer is off: it showed the labs' own HTML as text).
"""

from __future__ import annotations

import html
import json
import queue
import re
import secrets
import subprocess
import sys
import threading
import time
import urllib.parse
import webbrowser
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from helpers import checks
from helpers.grading import batch, gradebook, manual

ROOT = Path(__file__).resolve().parents[2]
MAX_BODY_BYTES = 64 * 1024      # one entry is a few hundred bytes
TASK_OUTPUT_CHARS = 4000         # the end of a regrade's or an export's output, shown on the page
PAGE_CSP = ("default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; "
            "form-action 'none'; base-uri 'none'; frame-ancestors 'none'")
FILE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'"
LEARNER_CSP = "sandbox; " + FILE_CSP.replace("img-src 'self' data:", "img-src data:")
# The gradebook files the desk serves, read-only (paths relative to the gradebook folder).
SERVED = re.compile(r"(summary\.html|answers\.html|grades\.csv|grades\.json|manual\.csv|export-[a-z]+\.csv"
                    r"|feedback/[A-Za-z0-9_.-]+\.(?:html|md)|executed/[A-Za-z0-9_.-]+\.ipynb)")
TYPES = {".html": "text/html", ".csv": "text/plain", ".json": "text/plain", ".md": "text/plain",
         ".ipynb": "application/x-ipynb+json"}


class Rebuild:
    """Rebuilds the gradebook's outputs after entries, coalesced: a save waits for one rebuild that started after it
    was written, so fifty saves at once cost a few rebuilds, not fifty, and each answer reports totals that hold it."""

    def __init__(self, build):
        self.build = build
        self.cond = threading.Condition()
        self.asked = self.done = 0
        self.running = False
        self.error: Exception | None = None
        self.results: list = []

    def after_save(self) -> list:
        """Wait until the outputs include every entry saved before this call; the results, or the rebuild's error."""
        with self.cond:
            self.asked += 1
            ticket = self.asked
            while self.done < ticket:
                if self.running:
                    self.cond.wait()
                    continue
                self.running, target = True, self.asked
                self.cond.release()
                try:
                    results, error = self.build(), None
                except Exception as err:  # noqa: BLE001 - reported to every save it covered
                    results, error = None, err
                finally:
                    self.cond.acquire()
                self.running, self.done, self.error = False, target, error
                self.results = results if results is not None else self.results
                self.cond.notify_all()
            if self.error is not None:
                raise self.error
            return self.results


@dataclass
class Task:
    """A regrade or an export run in the background; the page polls its state."""

    id: int
    what: str
    command: list[str]
    state: str = "waiting"          # waiting, running, done, failed
    output: str = ""
    link: str = ""                  # a file to open when done (the export)
    started: float = field(default_factory=time.time)

    def to_dict(self) -> dict:
        return {"id": self.id, "what": self.what, "state": self.state, "output": self.output[-TASK_OUTPUT_CHARS:],
                "link": self.link if self.state == "done" else ""}


class Desk:
    """One gradebook folder as the desk sees it: its lab, written questions, submissions to regrade, background tasks."""

    def __init__(self, out: Path, lab: str | None = None, submissions: list[Path] = (), roster: Path | None = None,
                 grade_args: list[str] = ()):
        self.out = out.resolve()
        results = gradebook.load_results(self.out)
        labs = sorted({r.lab for r in results})
        if not results:
            raise FileNotFoundError(f"no graded submissions in {self.out / 'results'}: run `workbook grade` first")
        if lab is None and len(labs) > 1:
            raise ValueError(f"{self.out} holds results of labs {', '.join(labs)}: name one with --lab")
        self.lab = lab or labs[0]
        self.specs = checks.load_lab(self.lab)
        self.items = manual.items(self.lab, ROOT)
        self.files = {batch.submission_key(p): p for p in batch.discover(list(submissions))}
        self.roster = roster
        self.grade_args = list(grade_args)
        self.token = secrets.token_urlsafe(24)
        self.rebuild = Rebuild(lambda: batch.finish(self.out, self.lab, self.specs))
        self.tasks: list[Task] = []
        self.lock = threading.Lock()
        self.todo: queue.Queue[Task] = queue.Queue()
        self.answers: dict[tuple, str] = {}
        threading.Thread(target=self._work, daemon=True, name="desk-tasks").start()

    # ------------------------------------------------------------ reading
    def results(self) -> list:
        return gradebook.load_results(self.out)

    def entries(self) -> dict[tuple[str, str], dict]:
        """manual.csv's rows by (key, item); none yet when the file is missing."""
        path = self.out / "manual.csv"
        rows = manual.read_rows(path) if path.exists() else []
        return {(r["key"].strip(), r["item"].strip()): r for r in rows}

    def totals(self) -> dict[str, tuple[float, float]]:
        """{key: (total, max_total)} as grades.json holds them now."""
        try:
            data = json.loads((self.out / "grades.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {k: (v["total"], v["max_total"]) for k, v in data.items()}

    def answer(self, key: str, cell_id: str) -> str:
        """The learner's answer to one question, read from the executed notebook (cached while the file is unchanged)."""
        path = self.out / "executed" / f"{key}.ipynb"
        try:
            stamp = path.stat().st_mtime_ns
        except OSError:
            stamp = None
        if (path, stamp, cell_id) not in self.answers:
            self.answers[(path, stamp, cell_id)] = manual.answer_of(path, cell_id)
        return self.answers[(path, stamp, cell_id)]

    # ------------------------------------------------------------ writing
    def save(self, body: dict) -> tuple[int, dict]:
        """One entry from the page: (HTTP status, answer). 400 with the validator's words, 409 with the other value."""
        fields = {name: str(body.get(name) or "") for name in ("key", "item", "points", "comment")}
        seen = (str(body.get("seen_points") or ""), str(body.get("seen_comment") or "")) if "seen_points" in body else None
        try:
            row = manual.record(self.out, self.items, self.results(), fields["key"], fields["item"], fields["points"],
                                fields["comment"], seen)
        except manual.Conflict as err:
            return 409, {"error": f"not saved: {err}", "current": err.current}
        except manual.ManualError as err:
            return 400, {"error": f"not saved: {err}"}
        answer = {"points": row["points"], "comment": row["comment"]}
        try:
            results = self.rebuild.after_save()
        except Exception as err:  # noqa: BLE001 - the entry is safe in manual.csv; say why the rest lags
            return 200, {**answer, "warning": f"saved in manual.csv, but the gradebook was not rebuilt: {err}"}
        # the first scored answer adds the written questions' points to everyone's maximum: every total moves
        return 200, {**answer, "totals": {r.key: [r.total, r.max_total] for r in results}}

    def start(self, what: str, command: list[str], link: str = "") -> Task:
        with self.lock:
            task = Task(len(self.tasks) + 1, what, command, link=link)
            self.tasks.append(task)
        self.todo.put(task)
        return task

    def regrade(self, key: str) -> tuple[int, dict]:
        """Queue `workbook grade --only KEY` on the submission's file: the very path a batch takes."""
        path = self.files.get(key)
        if path is None:
            why = ("start the desk with --submissions FOLDER (the folder `workbook grade` read) to regrade"
                   if not self.files else f"no file under --submissions has the key {key!r}")
            return 400, {"error": why}
        cmd = [sys.executable, "-m", "helpers.cli", "grade", "--lab", self.lab, str(path), "--out", str(self.out),
               "--only", key, "--quiet", *self.grade_args]
        return 200, self.start(f"regrade {path.name} ({key})", cmd).to_dict()

    def export(self, fmt: str, roster: str) -> tuple[int, dict]:
        """Queue `workbook export` of this gradebook; its file is served when done."""
        if fmt not in ("canvas", "moodle", "csv"):
            return 400, {"error": f"unknown format {fmt!r}: canvas, moodle or csv"}
        roster = roster.strip() or (str(self.roster) if self.roster else "")
        if not roster or not Path(roster).is_file():
            return 400, {"error": f"no roster file {roster!r}: give the path of a CSV with student_id,file"}
        cmd = [sys.executable, "-m", "helpers.cli", "export", str(self.out), "--roster", roster, "--format", fmt]
        return 200, self.start(f"export for {fmt}", cmd, link=f"files/export-{fmt}.csv").to_dict()

    def _work(self) -> None:
        """Run the tasks one after another (a regrade uses the grader's CPU share; two at once would halve both)."""
        while True:
            task = self.todo.get()
            task.state = "running"
            try:
                done = subprocess.run(task.command, cwd=ROOT, capture_output=True, text=True)
                task.output = (done.stdout + done.stderr).strip()
                task.state = "done" if done.returncode == 0 else "failed"
            except OSError as err:
                task.output, task.state = str(err), "failed"

    # ------------------------------------------------------------ pages
    def notebook_html(self, key: str) -> bytes | None:
        """The executed notebook as a sanitized HTML page (nbconvert), or None where nbconvert cannot render it."""
        try:
            import nbformat
            from nbconvert import HTMLExporter

            exporter = HTMLExporter()
            body, _ = exporter.from_notebook_node(nbformat.read(self.out / "executed" / f"{key}.ipynb", as_version=4))
            # the template's own scripts (require.js, MathJax from a CDN) could not run in the sandbox anyway
            return re.sub(r"<script\b.*?</script>", "", body, flags=re.S | re.I).encode("utf-8")
        except Exception:  # noqa: BLE001 - the raw notebook is offered instead
            return None

    def page(self, item_id: str | None) -> str:
        """The desk for one written question (the first by default)."""
        esc = html.escape
        results, entries, totals = self.results(), self.entries(), self.totals()
        item = next((i for i in self.items if i.cell_id == item_id), self.items[0] if self.items else None)
        nav = []
        for i in self.items:
            done = sum(bool((entries.get((r.key, i.cell_id)) or {}).get("points", "").strip()) for r in results)
            current = " aria-current='page'" if i is item else ""
            nav.append(f"<a href='?q={esc(urllib.parse.quote(i.cell_id))}'{current}>{esc(i.cell_id)} "
                       f"<small>({done}/{len(results)} scored)</small></a>")
        roster = esc(str(self.roster or ""))
        head = (f"<header><b>Lab {esc(self.lab)}: grading desk</b> <nav>{' '.join(nav)}</nav>"
                "<div class='links'><a href='files/summary.html' target='_blank'>class report</a> · "
                "<a href='files/answers.html' target='_blank'>all answers</a> · "
                "<a href='files/grades.csv' target='_blank'>grades.csv</a> · "
                "<a href='files/manual.csv' target='_blank'>manual.csv</a>"
                "<form id='export'><label>export for <select name='format'><option>canvas</option><option>moodle"
                f"</option><option>csv</option></select></label> <label>roster <input name='roster' size='24' "
                f"value='{roster}' placeholder='roster.csv'></label> <button>export</button></form></div>"
                "<div id='tasks' role='status' aria-live='polite'></div></header>")
        if item is None:
            body = (f"<main><p>Lab {esc(self.lab)} has no written answers to score. The links above open the class "
                    "report and the grades; each submission's feedback and notebook are below.</p>"
                    + "".join(self.card(r, None, {}, totals) for r in results) + "</main>")
        else:
            cards = "".join(self.card(r, item, entries.get((r.key, item.cell_id), {}), totals) for r in results)
            body = (f"<main><h1>{esc(item.question)} <small>({item.points:g} points, cell <code>{esc(item.cell_id)}"
                    f"</code>)</small></h1><div class='rubric'><b>Rubric.</b> {esc(item.rubric)}</div>"
                    "<p class='hint'>Type the points, Tab to the comment, Enter saves and moves to the next answer; a "
                    "changed field you leave is saved too. Every entry goes straight into manual.csv and the grades."
                    f"</p>{cards}</main>")
        return (f"<!doctype html><html lang='en'><meta charset='utf-8'><title>Lab {esc(self.lab)} grading desk</title>"
                f"<style>{STYLE}</style>{head}{body}<script src='desk.js'></script></html>\n")

    def card(self, r, item, row: dict, totals: dict) -> str:
        """One submission: who, total, links, and for a question its answer and the two fields."""
        esc = html.escape
        total, top = totals.get(r.key, (r.total, r.max_total))
        regrade = ("<button type='button' class='regrade' data-key='{0}'>regrade</button>".format(esc(r.key))
                   if r.key in self.files else "")
        who = (f"<div class='who'><b>{esc(r.submission)}</b> <code>{esc(r.key)}</code> · total "
               f"<span class='total'>{total:g}/{top:g}</span> · <a href='feedback/{esc(r.key)}' target='_blank'>feedback"
               f"</a> · <a href='notebook/{esc(r.key)}' target='_blank'>notebook</a> {regrade}</div>")
        if item is None:
            return f"<div class='entry'>{who}</div>"
        points, comment = (row.get("points") or "").strip(), (row.get("comment") or "").strip()
        return (f"<form class='entry' data-key='{esc(r.key)}' data-item='{esc(item.cell_id)}' data-points='{esc(points)}'"
                f" data-comment='{esc(comment)}'>{who}<pre class='answer'>{esc(self.answer(r.key, item.cell_id))}</pre>"
                f"<label>points <small>(0–{item.points:g})</small> <input name='points' value='{esc(points)}' size='5' "
                f"inputmode='decimal' autocomplete='off' aria-label='points for {esc(r.submission)}'></label> "
                f"<label>comment <input name='comment' value='{esc(comment)}' size='60' autocomplete='off' "
                f"aria-label='comment for {esc(r.submission)}'></label> <button>save</button> "
                "<span class='status' role='status' aria-live='polite'></span></form>")


STYLE = """
body{font-family:system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fafafa}
header{position:sticky;top:0;background:#fff;border-bottom:1px solid #ccc;padding:.5em 1.5em;z-index:1}
nav{display:inline-flex;flex-wrap:wrap;gap:.3em;margin-left:1em}
nav a{padding:.2em .6em;border:1px solid #bbb;border-radius:4px;text-decoration:none;color:#1a4d8f}
nav a[aria-current]{background:#1a4d8f;color:#fff}
.links{margin-top:.4em;font-size:90%}#export{display:inline;margin-left:1.5em}
#tasks{font-size:90%;white-space:pre-wrap}#tasks .failed{color:#a00}
main{max-width:70em;margin:1em auto;padding:0 1.5em}
h1{font-size:1.3em}.rubric{background:#f4f4e8;border-left:4px solid #b8b060;padding:.5em .8em;white-space:pre-wrap}
.hint{color:#555;font-size:90%}
.entry{background:#fff;border:1px solid #ccc;border-radius:4px;padding:.6em .8em;margin:1em 0}
.who{margin-bottom:.4em}.who code{color:#666;font-size:85%}
pre.answer{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;border:1px solid #e1e4e8;padding:.6em;
  max-height:24em;overflow:auto;font-size:90%}
input{font:inherit;padding:.2em .3em}input:focus{outline:2px solid #1a4d8f}
.status{margin-left:.6em}.status.ok{color:#1a7f37}.status.error{color:#a00;font-weight:bold}.status.busy{color:#666}
"""

SCRIPT = r"""
"use strict";
async function post(url, data) {
  const res = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(data)});
  let body;
  try { body = await res.json(); } catch (e) { body = {error: "the desk answered " + res.status}; }
  return [res, body];
}
function show(form, text, kind) {
  const status = form.querySelector(".status");
  status.textContent = text;
  status.className = "status " + kind;
}
function next(form) {
  const forms = [...document.querySelectorAll("form.entry")];
  const after = forms[forms.indexOf(form) + 1];
  if (after) { after.elements.points.focus(); after.elements.points.select(); after.scrollIntoView({block: "center"}); }
}
async function save(form, advance) {
  const points = form.elements.points.value.trim(), comment = form.elements.comment.value.trim();
  if (points === form.dataset.points && comment === form.dataset.comment) {
    if (advance) { show(form, "saved", "ok"); next(form); }
    return;
  }
  show(form, "saving…", "busy");
  try {
    const [res, body] = await post("api/entry", {key: form.dataset.key, item: form.dataset.item, points: points,
      comment: comment, seen_points: form.dataset.points, seen_comment: form.dataset.comment});
    if (res.ok) {
      form.dataset.points = body.points; form.dataset.comment = body.comment;
      // the saved form of what was sent ("1.50" is 1.5), unless the instructor typed on meanwhile
      if (form.elements.points.value.trim() === points) form.elements.points.value = body.points;
      if (form.elements.comment.value.trim() === comment) form.elements.comment.value = body.comment;
      for (const other of document.querySelectorAll("form.entry")) {
        const t = (body.totals || {})[other.dataset.key];
        if (t) other.querySelector(".total").textContent = t[0] + "/" + t[1];
      }
      const scored = [...document.querySelectorAll("form.entry")].filter(f => f.dataset.points !== "").length;
      const count = document.querySelector("nav a[aria-current] small");
      if (count) count.textContent = count.textContent.replace(/\d+\//, scored + "/");
      show(form, body.warning ? body.warning : "saved", body.warning ? "error" : "ok");
      if (advance) next(form);
    } else {
      if (res.status === 409) { form.dataset.points = body.current.points; form.dataset.comment = body.current.comment; }
      show(form, body.error, "error");
    }
  } catch (err) {
    show(form, "not saved: the desk did not answer (is `workbook desk` still running?)", "error");
  }
}
for (const form of document.querySelectorAll("form.entry")) {
  let chain = Promise.resolve();
  const queue = advance => { chain = chain.then(() => save(form, advance)); };
  form.addEventListener("submit", ev => { ev.preventDefault(); queue(true); });
  for (const input of form.querySelectorAll("input")) input.addEventListener("change", () => queue(false));
}
async function poll() {
  let tasks = [];
  try { tasks = await (await fetch("api/tasks")).json(); } catch (e) { return; }
  const box = document.getElementById("tasks");
  box.replaceChildren();
  for (const t of tasks.slice(-5)) {
    const line = document.createElement("div");
    line.className = t.state;
    line.textContent = t.what + ": " + t.state + (t.state === "failed" ? " — " + t.output.split("\n").slice(-3).join(" ") : "");
    if (t.link) {
      const a = document.createElement("a"); a.href = t.link; a.target = "_blank"; a.textContent = " open the file";
      line.append(a);
    }
    if (t.state === "done" && t.what.startsWith("regrade")) line.append(" (reload the page to see its answers and total)");
    box.append(line);
  }
  if (tasks.some(t => t.state === "waiting" || t.state === "running")) setTimeout(poll, 1500);
}
for (const button of document.querySelectorAll("button.regrade")) {
  button.addEventListener("click", async () => {
    const [res, body] = await post("api/regrade", {key: button.dataset.key});
    const form = button.closest(".entry");
    if (!res.ok && form.querySelector(".status")) show(form, body.error, "error");
    poll();
  });
}
document.getElementById("export").addEventListener("submit", async ev => {
  ev.preventDefault();
  const f = ev.target;
  const [res, body] = await post("api/export", {format: f.elements.format.value, roster: f.elements.roster.value});
  if (!res.ok) document.getElementById("tasks").textContent = body.error;
  poll();
});
poll();
const first = [...document.querySelectorAll("form.entry")].find(f => !f.dataset.points);
if (first) first.elements.points.focus();
"""


class Handler(BaseHTTPRequestHandler):
    """Every request: the token first, then a page, a gradebook file (read-only) or one of the desk's few actions."""

    server_version = "workbook-desk"

    @property
    def desk(self) -> Desk:
        return self.server.desk

    def log_message(self, format, *args):   # noqa: A002 - the base class's name; quiet unless asked
        if getattr(self.server, "verbose", False):
            super().log_message(format, *args)

    def route(self) -> tuple[str, dict] | None:
        """(path after the token, query) or None after answering 403 to a request without the desk's token."""
        parts = urllib.parse.urlsplit(self.path)
        token, _, rest = parts.path.lstrip("/").partition("/")
        if not secrets.compare_digest(token.encode(), self.desk.token.encode()):
            self.send(403, "text/plain", b"This desk answers only the link with its token, as `workbook desk` printed it.\n")
            return None
        if parts.path == f"/{token}":
            self.send(301, "text/plain", b"", {"Location": f"/{token}/"})
            return None
        return rest, urllib.parse.parse_qs(parts.query)

    def send(self, code: int, kind: str, data: bytes, headers: dict | None = None, csp: str = PAGE_CSP) -> None:
        self.send_response(code)
        self.send_header("Content-Type", f"{kind}; charset=utf-8" if kind.startswith("text") else kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", csp)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def send_json(self, code: int, data) -> None:
        self.send(code, "application/json", json.dumps(data).encode("utf-8"))

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.guarded(self.get)

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.guarded(self.post)

    def guarded(self, answer) -> None:
        """Answer the request; a gradebook the desk cannot read (a broken manual.csv ...) is said in words, not a trace."""
        try:
            answer()
        except (OSError, ValueError) as err:   # ManualError is a ValueError
            self.send(500, "text/plain", f"the desk could not answer: {err}\n".encode())

    def get(self) -> None:
        found = self.route()
        if found is None:
            return
        rest, query = found
        desk = self.desk
        if rest == "":
            self.send(200, "text/html", desk.page((query.get("q") or [None])[0]).encode("utf-8"))
        elif rest == "desk.js":
            self.send(200, "text/javascript", SCRIPT.encode("utf-8"))
        elif rest == "api/tasks":
            self.send_json(200, [t.to_dict() for t in desk.tasks])
        elif rest.startswith("files/") and SERVED.fullmatch(rest[len("files/"):]):
            self.send_file(rest[len("files/"):])
        elif rest.startswith("feedback/") and self.known(rest[len("feedback/"):]):
            self.send_file(f"feedback/{rest[len('feedback/'):]}.html")
        elif rest.startswith("notebook/") and self.known(rest[len("notebook/"):]):
            key = rest[len("notebook/"):]
            page = desk.notebook_html(key) if (desk.out / "executed" / f"{key}.ipynb").is_file() else None
            if page is None:
                self.send_file(f"executed/{key}.ipynb")
            else:
                self.send(200, "text/html", page, csp=LEARNER_CSP)
        else:
            self.send(404, "text/plain", b"not found\n")

    def known(self, key: str) -> bool:
        return any(r.key == key for r in self.desk.results())

    def send_file(self, rel: str) -> None:
        """One gradebook file, read-only; never through a link, never outside the folder."""
        path = self.desk.out / rel
        if not path.is_file() or path.is_symlink() or self.desk.out not in path.resolve().parents:
            self.send(404, "text/plain", f"{rel} is not in the gradebook (yet)\n".encode())
            return
        kind = TYPES.get(path.suffix, "text/plain")
        extra = {"Content-Disposition": f"attachment; filename={path.name}"} if path.suffix == ".ipynb" else {}
        csp = LEARNER_CSP if rel.startswith("executed/") else FILE_CSP
        self.send(200, kind, path.read_bytes(), extra, csp=csp)

    def post(self) -> None:
        found = self.route()
        if found is None:
            return
        rest, _ = found
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES or not (self.headers.get("Content-Type") or "").startswith("application/json"):
            self.send_json(400, {"error": "the desk takes one JSON entry at a time"})
            return
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
            assert isinstance(body, dict)
        except (ValueError, AssertionError):
            self.send_json(400, {"error": "the desk takes one JSON entry at a time"})
            return
        actions = {"api/entry": lambda: self.desk.save(body),
                   "api/regrade": lambda: self.desk.regrade(str(body.get("key") or "")),
                   "api/export": lambda: self.desk.export(str(body.get("format") or ""), str(body.get("roster") or ""))}
        if rest not in actions:
            self.send_json(404, {"error": f"no action {rest!r}"})
            return
        self.send_json(*actions[rest]())


class DeskServer(ThreadingHTTPServer):
    """The desk on 127.0.0.1; `url` carries the token."""

    daemon_threads = True
    request_queue_size = 128   # socketserver's 5 resets connections when a page's saves arrive together

    def __init__(self, desk: Desk, port: int = 0, verbose: bool = False):
        super().__init__(("127.0.0.1", port), Handler)
        self.desk, self.verbose = desk, verbose

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/{self.desk.token}/"


def serve(out: Path, lab: str | None = None, port: int = 0, open_browser: bool = True, submissions: list[Path] = (),
          roster: Path | None = None, grade_args: list[str] = ()) -> int:
    """`workbook desk`: serve until Ctrl-C."""
    server = DeskServer(Desk(out, lab, submissions, roster, grade_args), port)
    desk = server.desk
    print(f"grading desk for lab {desk.lab} ({len(desk.results())} submissions, {len(desk.items)} written questions) on\n"
          f"    {server.url}\nEvery entry is saved into {desk.out / 'manual.csv'} as you type it. Ctrl-C stops the desk.",
          flush=True)
    try:   # catch up with manual.csv, e.g. after a desk that stopped between an entry and its rebuild
        desk.rebuild.after_save()
    except (OSError, ValueError) as err:
        print(f"warning: the gradebook could not be rebuilt from manual.csv: {err}", file=sys.stderr)
    if not desk.files:
        print("(regrading is off: start it with --submissions FOLDER, the folder `workbook grade` read)", flush=True)
    if open_browser:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\ndesk closed; every entry it acknowledged is in manual.csv and the grades", file=sys.stderr)
    finally:
        server.server_close()
    return 0
