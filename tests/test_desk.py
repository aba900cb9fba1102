"""The grading desk (helpers/grading/desk.py): the token, entries validated as --manual validates and saved at once
into manual.csv and every output, two tabs that never lose each other's entries, files served read-only, and
(marked `browser`, run by `make test-browser`) two answers scored in Chromium, the page reloaded, the points found.

The gradebooks are made without grading: SubmissionResults and executed notebooks written directly, as in
test_manual_grading."""

import csv
import json
import os
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from helpers import checks, notebooks
from helpers.checks import Result
from helpers.grading import batch, desk, gradebook, manual
from helpers.grading.gradebook import SubmissionResult

# Lab 07's points: every automatic check, and its written answers (4 points)
AUTO = sum(spec.points for spec in checks.load_lab("07"))
TOP = AUTO + 4

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ("Prefill is <b>bold</b>: <script>window.HACKED = 1; alert('x')</script><img src=x onerror='window.HACKED=2'>\n"
           "```python\nprint('code')\n```")


def make_gradebook(out: Path, names: list[str], answers: dict[str, str] | None = None) -> Path:
    """A Lab 07 gradebook of these learners (every automatic check passed), executed notebooks holding `answers`."""
    specs = checks.load_lab("07")
    lab = notebooks.read(ROOT / "labs" / "07_llm_bench.ipynb")
    (out / "executed").mkdir(parents=True, exist_ok=True)
    for name in names:
        nb = nbformat.from_dict(lab)
        if answers and name in answers:
            next(c for c in nb.cells if c.id == "a-answer").source = answers[name]
        nbformat.write(nb, out / "executed" / f"{name}-0000.ipynb")
        gradebook.save_result(out, SubmissionResult(
            submission=name, key=f"{name}-0000", sha256="x", lab="07", status="ok", message="",
            checks=[Result(s.name, "passed", s.points, s.points, "ok") for s in specs]))
    batch.finish(out, "07", specs)
    return out


@pytest.fixture
def served(tmp_path):
    """A running desk over a gradebook of three learners (ann's answer hostile); yields (server, gradebook folder)."""
    out = make_gradebook(tmp_path / "grades", ["ann", "ben", "cy"], {"ann": HOSTILE})
    server = desk.DeskServer(desk.Desk(out), port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, out
    server.shutdown()
    server.server_close()


def call(url: str, data: dict | None = None) -> tuple[int, dict | str, dict]:
    """(status, JSON or text, headers) of a GET, or of a POST of `data` as JSON."""
    req = urllib.request.Request(url, data=None if data is None else json.dumps(data).encode(),
                                 headers={"Content-Type": "application/json"} if data is not None else {})
    try:
        with urllib.request.urlopen(req, timeout=60) as res:
            code, body, headers = res.status, res.read().decode(), dict(res.headers)
    except urllib.error.HTTPError as err:
        code, body, headers = err.code, err.read().decode(), dict(err.headers)
    try:
        return code, json.loads(body), headers
    except ValueError:
        return code, body, headers


def entry(server, key: str, item: str, points: str, comment: str = "", seen=("", "")) -> tuple[int, dict]:
    code, body, _ = call(server.url + "api/entry", {"key": key, "item": item, "points": points, "comment": comment,
                                                    "seen_points": seen[0], "seen_comment": seen[1]})
    return code, body


def snapshot(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in ("manual.csv", "grades.csv", "grades.json", "summary.html")}


def test_requests_without_the_token_are_refused(served):
    server, out = served
    base = server.url.rsplit("/", 2)[0]
    before = snapshot(out)
    for url in (base + "/", base + "/api/tasks", base + "/files/grades.csv", base + "/x" + server.desk.token[1:] + "/"):
        assert call(url)[0] == 403, url
    code, body, _ = call(base + "/wrong/api/entry", {"key": "ann-0000", "item": "a-answer", "points": "2"})
    assert code == 403 and "token" in body
    assert snapshot(out) == before
    assert call(server.url)[0] == 200


def test_the_page_shows_answers_escaped_as_text_with_the_rubric(served):
    server, out = served
    code, page, headers = call(server.url)
    assert code == 200 and "script-src 'self'" in headers["Content-Security-Policy"]
    assert "&lt;script&gt;window.HACKED" in page and "<script>window" not in page and "<b>bold" not in page
    assert page.count("<script") == 1 and "<script src='desk.js'>" in page   # the desk's own file, nothing inline
    assert "Rubric." in page and "(0/3 scored)" in page and page.count("class='entry'") == 3
    assert "```python\nprint(&#x27;code&#x27;)\n```" in page                     # Markdown and code as written
    second = call(server.url + "?q=f-answer")[1]
    assert "aria-current='page'>f-answer" in second
    assert call(server.url + "desk.js")[0] == 200


def test_an_entry_lands_in_manual_csv_totals_grades_and_feedback(served):
    server, out = served
    report_before = (out / "summary.html").read_bytes()
    code, body = entry(server, "ann-0000", "a-answer", "1.50", "  misses the short prompt ")
    assert code == 200, body
    assert (body["points"], body["comment"]) == ("1.5", "misses the short prompt")
    assert body["totals"] == {"ann-0000": [AUTO + 1.5, TOP], "ben-0000": [AUTO, TOP], "cy-0000": [AUTO, TOP]}
    rows = {(r["key"], r["item"]): r for r in csv.DictReader((out / "manual.csv").open())}
    assert (rows["ann-0000", "a-answer"]["points"], rows["ann-0000", "a-answer"]["comment"]) == ("1.5", "misses the short prompt")
    assert len(rows) == 6
    grades = json.loads((out / "grades.json").read_text())
    assert grades["ann-0000"]["total"] == AUTO + 1.5 and grades["ann-0000"]["checks"]["07.manual.a-answer"]["score"] == 1.5
    assert grades["ben-0000"]["checks"]["07.manual.a-answer"]["status"] == "not graded"
    table = list(csv.DictReader((out / "grades.csv").open()))
    assert next(r for r in table if r["key"] == "ann-0000")["07.manual.a-answer"] == "1.5"
    feedback = (out / "feedback" / "ann-0000.md").read_text()
    assert "misses the short prompt" in feedback and f"{AUTO + 1.5:g} / {TOP}" in feedback
    assert "misses the short prompt" in (out / "feedback" / "ann-0000.html").read_text()
    assert (out / "summary.html").read_bytes() != report_before                  # the class report follows
    page = call(server.url)[1]
    assert "(1/3 scored)" in page and "data-points='1.5'" in page and f"{AUTO + 1.5:g}/{TOP}" in page
    # clearing the points takes the answer back to "not graded"
    code, body = entry(server, "ann-0000", "a-answer", "", "", seen=("1.5", "misses the short prompt"))
    assert code == 200 and body["totals"]["ann-0000"] == [AUTO, AUTO]   # no written answer scored: automatic only


@pytest.mark.parametrize("key,item,points,words", [
    ("ann-0000", "a-answer", "-1", "outside 0..2"),
    ("ann-0000", "a-answer", "2.5", "outside 0..2"),
    ("ann-0000", "a-answer", "lots", "not a number"),
    ("ann-0000", "a-answer", "nan", "outside 0..2"),
    ("zed-0000", "a-answer", "1", "no graded submission"),
    ("ann-0000", "q9", "1", "no manual item"),
])
def test_an_invalid_entry_is_refused_with_the_validators_words_and_nothing_is_written(served, key, item, points, words):
    server, out = served
    before = snapshot(out)
    code, body = entry(server, key, item, points, "a comment")
    assert code == 400 and words in body["error"] and body["error"].startswith("not saved")
    assert snapshot(out) == before


def test_the_desk_and_the_csv_share_one_rule(tmp_path):
    """manual.scores (--manual) reports the same words as the desk, with the line in front."""
    its = manual.items("07", ROOT)
    with pytest.raises(manual.ManualError, match=r"^filled.csv, line 2: points 3 outside 0..2 for a-answer$"):
        manual.scores([{"key": "k", "item": "a-answer", "points": "3", "comment": ""}], its, {"k"}, where="filled.csv")
    with pytest.raises(manual.ManualError, match=r"^points 3 outside 0..2 for a-answer$"):
        manual.entry({"key": "k", "item": "a-answer", "points": "3"}, {i.cell_id: i for i in its}, {"k"})


def test_record_merges_one_row_and_refuses_a_stale_save(tmp_path):
    out = make_gradebook(tmp_path / "grades", ["ann", "ben"])
    its, results = manual.items("07", ROOT), gradebook.load_results(out)
    (out / "manual.csv").unlink()                          # an older gradebook: the row is added
    manual.record(out, its, results, "ben-0000", "f-answer", "2", "good", seen=("", ""))
    with pytest.raises(manual.Conflict) as err:
        manual.record(out, its, results, "ben-0000", "f-answer", "1", "meh", seen=("", ""))
    assert err.value.current == {"points": "2", "comment": "good"} and "2, 'good'" in str(err.value)
    manual.record(out, its, results, "ben-0000", "f-answer", "2", "good", seen=("", ""))   # the same entry again: fine
    manual.record(out, its, results, "ben-0000", "f-answer", "1", "meh", seen=None)          # deliberate overwrite
    rows = list(csv.DictReader((out / "manual.csv").open()))
    assert [(r["key"], r["item"], r["points"], r["comment"]) for r in rows] == [("ben-0000", "f-answer", "1", "meh")]


def test_two_tabs_saving_at_once_lose_nothing(tmp_path):
    """50 entries for 50 cells at once, and two tabs saving one more cell from the same stale view: all 50 land, one of
    the two lands and the other is refused with the value that won, and the grades hold every entry."""
    names = [f"l{i:02d}" for i in range(26)]
    out = make_gradebook(tmp_path / "grades", names)
    server = desk.DeskServer(desk.Desk(out), port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        cells = [(f"{n}-0000", item) for n in names for item in ("a-answer", "f-answer")]
        wanted = {cell: f"{(i % 5) * 0.5:g}" for i, cell in enumerate(cells[:50])}
        jobs = [(key, item, points, f"note {key} {item}") for (key, item), points in wanted.items()]
        contested = cells[50]
        jobs += [(*contested, "1", "tab one"), (*contested, "2", "tab two")]
        start = threading.Barrier(len(jobs))

        def send(job):
            start.wait()
            return entry(server, *job)

        with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            answers = list(pool.map(send, jobs))
    finally:
        server.shutdown()
        server.server_close()
    assert all(code == 200 for code, _ in answers[:50]), [b for c, b in answers[:50] if c != 200][:3]
    (c1, b1), (c2, b2) = answers[50:]
    assert sorted((c1, c2)) == [200, 409]
    won, lost = (b1, b2) if c1 == 200 else (b2, b1)
    assert f"{won['points']}, '{won['comment']}'" in lost["error"] and lost["current"] == {k: won[k] for k in ("points", "comment")}
    rows = {(r["key"], r["item"]): r for r in csv.DictReader((out / "manual.csv").open())}
    assert len(rows) == 52
    for (key, item), points in wanted.items():
        assert (rows[key, item]["points"], rows[key, item]["comment"]) == (points, f"note {key} {item}")
    assert (rows[contested]["points"], rows[contested]["comment"]) == (won["points"], won["comment"])
    grades = json.loads((out / "grades.json").read_text())
    for (key, item), points in wanted.items():
        assert grades[key]["checks"][f"07.manual.{item}"]["score"] == float(points)
    assert grades[contested[0]]["checks"][f"07.manual.{contested[1]}"]["score"] == float(won["points"])
    assert not list(out.glob(".*.tmp"))


def test_feedback_and_notebook_are_served_read_only_and_the_notebook_sandboxed(served):
    server, out = served
    code, page, headers = call(server.url + "feedback/ann-0000")
    assert code == 200 and "Feedback" in page and "script-src" not in headers["Content-Security-Policy"]
    code, page, headers = call(server.url + "notebook/ann-0000")
    assert code == 200 and headers["Content-Security-Policy"].startswith("sandbox")
    assert "<script" not in page and "sandbox" in headers["Content-Security-Policy"]
    assert call(server.url + "files/grades.csv")[0] == 200
    assert call(server.url + "files/executed/ann-0000.ipynb")[2]["Content-Disposition"].startswith("attachment")
    for bad in ("files/results/ann-0000.json", "files/../grades/grades.csv", "files/.gradebook.lock",
                "feedback/zed-0000", "notebook/..%2Fgrades", "api/entry"):
        assert call(server.url + bad)[0] == 404, bad
    code, body = call(server.url + "api/regrade", {"key": "ann-0000"})[:2]
    assert code == 400 and "--submissions" in body["error"]


@pytest.mark.slow
def test_a_merged_gradebook_of_shards_regrade_and_export_from_the_desk(tmp_path):
    """Two shards merged (invalid notebooks: graded at once, as in test_instructor_desk), an entry saved on the merged
    gradebook; the desk's regrade runs `workbook grade --only KEY`, its export `workbook export`, both in the
    background, the exported file served when done."""
    from helpers import cli

    subs = tmp_path / "subs"
    subs.mkdir()
    for name in ("ann", "ben", "cy"):
        (subs / f"{name}.ipynb").write_text("{ not json " + name)
    shards = [str(tmp_path / f"grades-{i}") for i in (1, 2)]
    for i, shard in enumerate(shards, start=1):
        assert cli.main(["grade", "--lab", "04", str(subs), "--out", shard, "--shard", f"{i}/2", "--no-warm", "--quiet"]) == 0
    out = tmp_path / "grades"
    assert cli.main(["merge", *shards, "--lab", "04", "--out", str(out)]) == 0
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,file\ns1,ann.ipynb\ns2,ben.ipynb\ns3,cy.ipynb\n")
    server = desk.DeskServer(desk.Desk(out, submissions=[subs], roster=roster, grade_args=["--no-warm"]), port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        key = batch.submission_key(subs / "ann.ipynb")
        code, body = entry(server, key, "s-why", "2", "clear")
        assert code == 200 and body["totals"][key] == [2, 19], body
        before = {p.name: p.stat().st_mtime_ns for p in (out / "results").glob("*.json")}
        assert "class='regrade'" in call(server.url)[1]
        assert call(server.url + "api/regrade", {"key": key})[0] == 200
        assert call(server.url + "api/export", {"format": "canvas", "roster": ""})[0] == 200
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            tasks = call(server.url + "api/tasks")[1]
            if all(t["state"] in ("done", "failed") for t in tasks):
                break
            time.sleep(1)
        assert [t["state"] for t in tasks] == ["done", "done"], tasks
        after = {p.name: p.stat().st_mtime_ns for p in (out / "results").glob("*.json")}
        assert [n for n in after if after[n] != before[n]] == [f"{key}.json"]
        assert json.loads((out / "grades.json").read_text())[key]["total"] == 2      # the regrade kept the entry
        assert tasks[1]["link"] == "files/export-canvas.csv"
        code, text, _ = call(server.url + tasks[1]["link"])
        assert code == 200 and "Points Possible" in text
    finally:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------- in Chromium (make test-browser)
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "build" / "screenshots"


@pytest.mark.browser
def test_score_two_answers_in_chromium_reload_and_find_them(served):
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium, or set CHROMIUM=/path (make test-browser)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is missing: pip install -e '.[browser]'")
    server, out = served
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            dialogs = []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(server.url)
            forms = page.locator("form.entry")
            assert forms.count() == 3
            assert "<script>window.HACKED" in forms.nth(0).locator("pre.answer").inner_text()
            page.screenshot(path=str(SHOTS / "desk-question.png"), full_page=True)
            # ann: points, Tab, comment, Enter; the focus moves on to ben's points
            assert page.evaluate("document.activeElement.name") == "points"        # the first unscored answer
            page.keyboard.type("1.5")
            page.keyboard.press("Tab")
            page.keyboard.type("names prefill, not the short prompt")
            page.keyboard.press("Enter")
            sync_api.expect(forms.nth(0).locator(".status")).to_have_text("saved", timeout=30_000)
            sync_api.expect(forms.nth(0).locator(".total")).to_have_text(f"{AUTO + 1.5:g}/{TOP}")
            assert page.evaluate("document.activeElement.closest('form').dataset.key") == "ben-0000"
            page.keyboard.type("2")
            page.keyboard.press("Enter")
            sync_api.expect(forms.nth(1).locator(".status")).to_have_text("saved", timeout=30_000)
            # cy: too many points, refused in place with the validator's words
            page.keyboard.type("5")
            page.keyboard.press("Enter")
            sync_api.expect(forms.nth(2).locator(".status")).to_contain_text("outside 0..2", timeout=30_000)
            sync_api.expect(forms.nth(2).locator(".total")).to_have_text(f"{AUTO}/{TOP}")     # everyone's maximum moved
            assert "(2/3 scored)" in page.locator("nav").inner_text()
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(SHOTS / "desk-saved.png"), full_page=True)

            page.reload()
            forms = page.locator("form.entry")
            assert [forms.nth(i).locator("input[name=points]").input_value() for i in range(3)] == ["1.5", "2", ""]
            assert forms.nth(0).locator("input[name=comment]").input_value() == "names prefill, not the short prompt"
            assert forms.nth(0).locator(".total").inner_text() == f"{AUTO + 1.5:g}/{TOP}"
            assert "(2/3 scored)" in page.locator("nav").inner_text()
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(SHOTS / "desk-reloaded.png"), full_page=True)

            with page.expect_popup() as popup:
                forms.nth(0).get_by_role("link", name="feedback").click()
            feedback = popup.value
            feedback.wait_for_load_state()
            assert "names prefill" in feedback.content() and f"{AUTO + 1.5:g} / {TOP}" in feedback.content()
            feedback.screenshot(path=str(SHOTS / "desk-feedback.png"), full_page=True)
            with page.expect_popup() as popup:
                forms.nth(0).get_by_role("link", name="notebook").click()
            nb = popup.value
            nb.wait_for_load_state()
            nb.screenshot(path=str(SHOTS / "desk-notebook.png"))
            nb.get_by_text("Prefill is").first.scroll_into_view_if_needed()
            nb.screenshot(path=str(SHOTS / "desk-notebook-answer.png"))
            assert nb.evaluate("document.scripts.length") == 0 and nb.evaluate("window.HACKED") is None
            assert not dialogs and page.evaluate("window.HACKED") is None
        finally:
            browser.close()
    rows = {(r["key"], r["item"]): r for r in csv.DictReader((out / "manual.csv").open())}
    assert (rows["ann-0000", "a-answer"]["points"], rows["ann-0000", "a-answer"]["comment"]) == (
        "1.5", "names prefill, not the short prompt")
    assert rows["ben-0000", "a-answer"]["points"] == "2" and rows["cy-0000", "a-answer"]["points"] == ""
    grades = json.loads((out / "grades.json").read_text())
    assert (grades["ann-0000"]["total"], grades["ben-0000"]["total"], grades["cy-0000"]["total"]) == (AUTO + 1.5, AUTO + 2, AUTO)
    assert "names prefill, not the short prompt" in (out / "feedback" / "ann-0000.md").read_text()
