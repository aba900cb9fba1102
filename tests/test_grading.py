"""Grading end to end on Lab 04: the reference solution (graded by the batch's warm-up), the untouched lab, one
exercise solved, a solution written another way, and a corpus of bad submissions. One batch grades them all
(`workbook grade --jobs 3`, as an instructor would run it); it is killed part-way and resumed, which must lose
nothing and change no grade.

Slow: a few minutes on 2 CPU cores. Each case states the score it deserves and why.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.grading import gradebook
from tests import submissions as S

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
FULL = 15
# More than twice the slowest cell of a working solution seen here (40 s: run-a's first compile, with five jobs of
# both corpora on 2 cores); the cases that loop, hang or fork-bomb wait for it (it was 120 s: 30 s more each).
CELL_TIMEOUT = 90
POINTS = {"04.compile_match": 0, "04.debug_dump": 3, "04.find_softmax": 2, "04.annotation": 4,
          "04.crossover": 2, "04.scheduler": 2, "04.report": 2}
SLEEP_MARK = "987654"   # a unique sleep length: find background processes the corpus left


def build_corpus(folder: Path, out: Path) -> dict[str, dict]:
    """Write every submission; return {name: what it deserves}."""
    cases: dict[str, dict] = {}

    def case(name, nb=None, *, total, status="ok", **extra):
        if nb is not None:
            S.write(nb, folder, name)
        cases[name] = {"total": total, "status": status, **extra}

    # The reference solution is graded by the warm-up every batch starts with (test_reference_solution_full_marks).
    S.untouched_file(folder, "untouched")
    case("untouched", total=0)
    (folder / "invalid_json.ipynb").write_text('{"cells": [ {"cell_type": "code", ')
    case("invalid_json", total=0, status="invalid")
    (folder / "not_a_notebook.ipynb").write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(64))
    case("not_a_notebook", total=0, status="invalid")
    # one exercise solved (its points, and only those) and a find_crossover that is right on every list of rows the
    # notebook gives it but waits forever on a single row, which only the hidden cases give: the notebook runs on and
    # the grader's call is stopped at the call limit (a cell that hangs is the case written another way's; it polls,
    # leaving the CPU to the other jobs)
    stuck = S.with_solved(["ex-c"])
    S.cell(stuck, "ex-e").source = S.cell(stuck, "ex-e").source + (
        "\n\nimport time\n\n\ndef find_crossover(rows):\n    if not rows:\n        return None\n"
        "    while len(rows) < 2:          # waits for a second row to compare with\n        time.sleep(0.1)\n"
        "    answer = None\n    for row in sorted(rows, key=lambda r: r['batch'], reverse=True):\n"
        "        if row['speedup'] <= 1:\n            break\n        answer = row['batch']\n    return answer\n")
    case("only_c_and_a_function_that_hangs_on_hidden_input", stuck, total=POINTS["04.find_softmax"],
         scores={"04.find_softmax": 2}, statuses={"04.crossover": "timeout"})
    unsorted = S.with_solved(["ex-e"])
    S.cell(unsorted, "ex-e").source = S.cell(unsorted, "ex-e").source.replace(
        'sorted(rows, key=lambda r: r["batch"], reverse=True)', 'rows[::-1]')
    # passes in the notebook only; and a cell that kills the kernel (after part C) costs its own part only: the grader
    # restarts the kernel, re-runs the cells that had finished, skips that cell and runs the rest (the submission
    # still says the kernel died, and where); in this one-part submission, so the kill adds no full run of the lab
    S.add_cell(unsorted, "import os\nos._exit(1)", after="check-c")
    case("crossover_unsorted_and_os_exit", unsorted, total=0, status="crashed", statuses={"04.crossover": "failed"})
    # A kernel killed up to MAX_RESTARTS times costs nothing (the checks after each kill still pass on the cells
    # re-run before them); the third kill ends the run, and the checks after it were not run
    thrice = S.solution()
    for after in ("check-a", "check-c", "check-e"):
        S.add_cell(thrice, "import os\nos._exit(1)", after=after)
    case("os_exit_thrice", thrice, total=FULL - POINTS["04.scheduler"] - POINTS["04.report"], status="crashed",
         statuses={"04.scheduler": "crashed", "04.report": "crashed", "04.crossover": "passed"})
    case("crash_segfault", S.add_cell(S.lab(), "import ctypes\nctypes.string_at(0)", after="setup"), total=0, status="crashed")
    # A correct solution written another way, its cells deleted, duplicated and retyped, with disruptions that must
    # cost it nothing, in one submission (one job instead of two; a failure names the checks they broke): a cell that
    # loops forever (stopped at the cell limit; it sleeps, to leave the cores to the other jobs: test_job stops one
    # that spins), sys.exit (a SystemExit IPython catches), a 100 MB print (kept short in the executed notebook), a
    # loop that allocates until the job's memory limit raises MemoryError in it (not a killed job; the next cell frees
    # the blocks: a notebook that kept them would have nothing left for the checks, here or in Jupyter), a fork that
    # leaves a detached background process (killed with the job), and at the end a fork bomb (1024 forked kernels:
    # the process or the memory watchdog stops it first, after every check has run).
    daemon = ("import os, subprocess, sys, time\n"
              f"subprocess.Popen(['sleep', '{SLEEP_MARK}'], start_new_session=True)\n"
              "if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
              f"        os.execvp('sleep', ['sleep', '{SLEEP_MARK}1'])\n    os._exit(0)\n")
    edited = S.alternative()
    for source, after in (("import time\nwhile True:\n    time.sleep(0.1)", "check-a"),
                          ("import sys\nsys.exit(1)", "check-a"),
                          ("print('x' * 100_000_000)", "check-a"),
                          ("del blocks   # what the cell above left", "check-b"),
                          ("blocks = []\nwhile True:\n    blocks.append(bytearray(512 << 20))\n", "check-b"),
                          (daemon, "check-g")):
        S.add_cell(edited, source, after=after)
    edited.cells = [c for c in edited.cells if c.id not in ("check-a", "check-d", "run-c")]
    dup = next(c for c in edited.cells if c.id == "ex-b")
    edited.cells.append(S.nbformat.from_dict(dup))
    retyped = S.cell(edited, "ex-s")
    retyped.cell_type = "markdown"
    retyped.pop("outputs", None)
    retyped.pop("execution_count", None)
    edited.cells.append(S.nbformat.v4.new_code_cell("import os, time\nfor _ in range(10):\n    os.fork()\ntime.sleep(600)\n"))
    case("written_another_way_deleted_duplicated_retyped_disrupted_fork_bomb", edited, total=FULL,
         status=("crashed", "memory"), notes=["deleted", "turned back into a code cell"])
    # Ways to claim points without the work, in one untouched lab (it must score 0): replace the checks in the
    # kernel, write over the gradebook from inside the job, print a pass line.
    patch = ("import helpers.checks as hc\n"
             "hc.run = lambda spec, ctx: hc.Result(spec.name, 'passed', spec.points, spec.points, 'ok')\n"
             "def check(name, ns=None):\n    print('✅', name)\n")
    forge = (f"import json, pathlib\nout = pathlib.Path({str(out)!r})\n"
             "for name in ('grades.csv', 'grades.json'):\n"
             "    try:\n        (out / name).write_text('solution,ok,15,15\\nuntouched,ok,15,15\\n')\n"
             "    except OSError as err:\n        print('could not write', name, err)\n"
             "try:\n    for p in (out / 'results').glob('*.json'):\n"
             "        d = json.loads(p.read_text()); d['checks'] = [dict(c, score=c['max_score'], status='passed') for c in d['checks']]\n"
             "        p.write_text(json.dumps(d))\n"
             "    (out / 'results' / 'forged.json').write_text('{}')\n"
             "except OSError as err:\n    print('could not write results', err)\n")
    claims = S.add_cell(S.add_cell(S.lab(), forge, after="setup"), patch, after="setup")
    case("patches_forges_and_prints", S.add_cell(claims, "print('✅ all checks passed: 15/15 points')", after="check-g"),
         total=0)
    return cases


def grade_cmd(folder: Path, out: Path) -> list[str]:
    """Three jobs at a time on 2 cores: several cases mostly wait (a hung function, a fork bomb held at its limit),
    and a third job keeps the cores busy meanwhile."""
    return [sys.executable, "-m", "helpers.cli", "grade", "--lab", "04", str(folder), "--out", str(out), "--jobs", "3",
            "--cell-timeout", str(CELL_TIMEOUT), "--call-timeout", "60", "--timeout", "900", "--quiet"]


def graded_by_a_job(out: Path) -> bool:
    """A result written by a job (not an invalid file, graded without one). The batch is killed then: the jobs in
    flight lose their work. Submissions are graded in name order, and the corpus's names put short jobs first (the
    segfault at set-up, "crash_…", finishes first, beside two jobs that have run ~20 s; the forging job comes after
    results exist, to have something to forge;
    the full run of the solution written another way, "written_another_way_…", starts last), so little is lost:
    the batch is killed about 20 s in, not 55 s (two jobs' CPU lost, of 2 cores)."""
    for path in (out / "results").glob("*.json"):
        try:
            if json.loads(path.read_text()).get("status") != "invalid":
                return True
        except (OSError, ValueError):
            continue      # being written
    return False


@pytest.fixture(scope="module")
def batch(tmp_path_factory, warm_lab04):
    """Grade the corpus; kill the batch after a few results; resume it; re-run it once more."""
    folder = tmp_path_factory.mktemp("submissions")
    out = tmp_path_factory.mktemp("grades")
    shutil.copytree(warm_lab04, out / ".warm", symlinks=True)   # references and compile caches: conftest.warm_lab04
    cases = build_corpus(folder, out)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(grade_cmd(folder, out), cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 1800
    while not graded_by_a_job(out) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGKILL)          # the instructor's machine goes down mid-batch
    proc.wait()
    before_kill = {p.name: p.read_bytes() for p in (out / "results").glob("*.json")}
    resumed = subprocess.run(grade_cmd(folder, out), cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    csv_after = (out / "grades.csv").read_bytes()
    again = subprocess.run(grade_cmd(folder, out), cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    return {"cases": cases, "out": out, "folder": folder, "before_kill": before_kill, "resumed": resumed,
            "again": again, "csv_after": csv_after}


def grades(out: Path) -> dict[str, dict]:
    return gradebook.by_submission(json.loads((out / "grades.json").read_text()))


def test_every_case_scores_what_it_deserves(batch):
    got = grades(batch["out"])
    wrong = []
    for name, want in batch["cases"].items():
        g = got.get(name)
        if g is None:
            wrong.append(f"{name}: not graded")
            continue
        statuses = want["status"] if isinstance(want["status"], tuple) else (want["status"],)
        if g["total"] != want["total"] or g["status"] not in statuses:
            wrong.append(f"{name}: {g['status']} {g['total']:g}, expected {want['status']} {want['total']:g}: "
                         + "; ".join(f"{k}={c['status']} {c['message'][:160]}" for k, c in g["checks"].items() if c["status"] != "passed"))
        for check, score in want.get("scores", {}).items():
            if g["checks"][check]["score"] != score:
                wrong.append(f"{name}: {check} scored {g['checks'][check]['score']}, expected {score}")
        for check, status in want.get("statuses", {}).items():
            if g["checks"][check]["status"] != status:
                wrong.append(f"{name}: {check} is {g['checks'][check]['status']}, expected {status}")
        for words in want.get("notes", []):
            if not any(words in n for n in g["notes"]):
                wrong.append(f"{name}: no note saying {words!r}: {g['notes']}")
    assert not wrong, "\n".join(wrong)


def test_reference_solution_full_marks(batch):
    """The reference solution, graded from cold caches by the warm-up every batch starts with (here the one shared
    through conftest.warm_lab04, whose limits are looser than the corpus's: 300 s a cell, 120 s a call)."""
    ref = json.loads((batch["out"] / ".warm" / ".done").read_text())
    assert (ref["status"], ref["total"], ref["max_total"]) == ("ok", FULL, FULL), ref["checks"]


def test_every_failed_check_says_why(batch):
    for name, g in grades(batch["out"]).items():
        for check, c in g["checks"].items():
            assert c["status"] in ("passed", "failed", "error", "timeout", "crashed", "not run")
            if c["status"] != "passed":
                assert len(c["message"]) > 15, f"{name} {check}: {c['message']!r}"


def test_crash_names_the_cell(batch):
    once = grades(batch["out"])["crossover_unsorted_and_os_exit"]
    assert "killed the notebook's kernel" in once["message"] and "ran the rest" in once["message"]
    message = grades(batch["out"])["os_exit_thrice"]["checks"]["04.report"]["message"]
    assert "kernel died" in message and "in cell '" in message and "import os" in message


def test_csv_has_the_columns_instructors_expect(batch):
    rows = list(csv.reader((batch["out"] / "grades.csv").open()))
    assert rows[0] == ["submission", "status", "total", "max_total", *POINTS, "key", "feedback"]
    assert {r[0] for r in rows[1:]} == set(batch["cases"])


def test_feedback_never_shows_hidden_checks(batch):
    hidden = "\n".join((ROOT / "solutions" / "hidden" / name).read_text() for name in ("lab04.py", "hidden_inputs/lab04.py"))
    secrets = ["graded_fn", "d=48, vocab=333", "reference_scheduler_nodes", "sigmoid(t) - 0.25",
               "(0.5, 0.7, 1.2, 1.5), (1, 2, 4, 16)", "(11, 17)"]
    assert all(s in hidden for s in secrets), [s for s in secrets if s not in hidden]
    secrets += ["[0.5, 0.7, 1.2, 1.5]", "[1, 2, 4, 16]", "TinyHead(48"]
    secrets += ["ExternKernelSchedulerNode", "SchedulerNode("]          # the hidden IR inputs
    for path in (batch["out"] / "feedback").glob("*"):
        text = path.read_text()
        assert not [s for s in secrets if s in text], path.name
    assert len(list((batch["out"] / "feedback").glob("*.md"))) == len(batch["cases"])


def test_kill_and_resume_lost_nothing_and_changed_nothing(batch):
    assert batch["before_kill"], "the batch was killed before any submission finished"
    after = {p.name: p.read_bytes() for p in (batch["out"] / "results").glob("*.json")}
    for name, data in batch["before_kill"].items():
        assert json.loads(after[name])["checks"] == json.loads(data)["checks"], name
    assert batch["again"].returncode == 0
    assert (batch["out"] / "grades.csv").read_bytes() == batch["csv_after"], "a re-run changed grades.csv"


def test_forged_gradebook_was_repaired(batch):
    out = batch["out"]
    assert not (out / "results" / "forged.json").exists()
    assert grades(out)["untouched"]["total"] == 0


def test_nothing_left_running(batch):
    leftovers = subprocess.run(["pgrep", "-f", f"sleep {SLEEP_MARK}"], capture_output=True, text=True).stdout.split()
    assert leftovers == [], f"processes left running: {leftovers}"


def test_executed_notebooks_are_kept_small(batch):
    executed = batch["out"] / "executed"
    assert all(p.stat().st_size < 8 * 2**20 for p in executed.glob("*.ipynb"))


def test_a_probe_near_its_time_limit_is_noted_for_the_log():
    """GraderContext notes each probe that used more than half its limit (the instructor's hint that --call-timeout,
    or the check's own limit, is tight for this machine), and forgets it once taken."""
    import time as clock

    from helpers.grading import hidden

    class SlowJob:
        def probe(self, probe, args, kwargs, timeout):
            clock.sleep(args[0])
            return "answer"

    def some_probe(learner, seconds):
        return None

    ctx = hidden.GraderContext(SlowJob(), call_timeout=0.2)
    assert ctx.probe(some_probe, 0.0) == "answer" and ctx.take_near_limit() == []
    assert ctx.probe(some_probe, 0.15) == "answer"
    (name, took, limit), = ctx.take_near_limit()
    assert name == "some_probe" and took >= 0.15 and limit == 0.2 and ctx.take_near_limit() == []
    ctx.probe(some_probe, 0.15, timeout=1.0)                 # a check's own, longer limit counts
    assert ctx.take_near_limit() == []
