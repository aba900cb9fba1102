"""The sealed grader on Lab 04: hostile submissions get nothing they did not earn, honest ones written in unusual
but valid ways score full marks. One batch grades them all (`workbook grade --jobs 2`, jobs in the bubblewrap jail
where it starts); each case states the score it deserves and why.

Slow: a few minutes on 2 CPU cores.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from helpers.grading import gradebook, sandbox
from tests import submissions as S

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
FULL = 15
SLEEP_MARK = "876543"   # a unique sleep length: find a daemon the corpus left behind

# Exec the reference solution's exercise cells, if this job can find the repository (it must not); look for the
# grader's reference answers where a job could read them.
STEAL = f"""
import json, os, pathlib
found = []
for root in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents, pathlib.Path({str(ROOT)!r}), pathlib.Path('/work'), pathlib.Path('/root')]:
    for p in (root / 'solutions' / '04_inductor_output.ipynb', root / 'main' / 'solutions' / '04_inductor_output.ipynb'):
        try:
            cells = json.loads(p.read_text())['cells']
            found.append(str(p))
        except OSError:
            continue
        for c in cells:
            if 'exercise' in c['metadata'].get('tags', []) and c['cell_type'] == 'code':
                try:
                    exec(''.join(c['source']).replace('### BEGIN SOLUTION', '').replace('### END SOLUTION', ''), globals())
                except Exception:
                    pass
# and the grader's reference answers or the reference solution's result, in this job's own scratch folder
found += [str(p) for p in pathlib.Path.cwd().rglob('*') if p.name == '.done' or p.name.startswith('references')]
for p in [pathlib.Path({str(ROOT)!r}) / 'solutions' / 'hidden' / 'lab04.py', pathlib.Path({str(ROOT)!r}) / 'tests']:
    print(p, 'visible' if p.exists() else 'hidden')
print('found', found)
"""

# Replace every probe of the lab with one that returns a made-up, confident answer.
FAKE_PROBES = """
import helpers.checks.lab04 as L, torch
L.probe_compile = lambda learner, case: {'optimized': True, 'same': True, 'type': 'OptimizedModule', 'graphs': 1,
                                         'graphs_ever': 1, 'out': torch.full((case.batch, case.vocab), 1.0 / case.vocab)}
L.probe_debug_dump = lambda learner, fn, shape: {'folder': '/x', 'is_dir': True, 'under_root': True,
    'files': ['output_code.py', 'ir_pre_fusion.txt', 'ir_post_fusion.txt'], 'output_code': '91 187 ' * 50}
L.probe_find_softmax = lambda learner, kernels: {'found': ['cpp_fused__softmax_0'] * 2, 'saved': {},
                                                 'softmax_by_rule': ['cpp_fused__softmax_0']}
L.probe_crossover = lambda learner, rows, sweep: {'answers': [r[-1]['batch'] if r else None for r in rows],
    'rows': [{'batch': b, 'eager_ms': 9.0, 'compiled_ms': 9.0, 'speedup': 1.0} for b in (sweep.batches or (2,))],
    'seen': {'eager': list(sweep.batches or ()), 'compiled': list(sweep.batches or ())}}
L.probe_scheduler = lambda learner, texts: [['op0', 'op1_op2', 'op3'] for t in texts]
"""

DAEMON = f"""
import os, subprocess, time
gradebook = os.environ.get('WORKBOOK_GRADEBOOK', '')
script = ("import os, time, pathlib\\n"
          "time.sleep(20)\\n"
          "for name in ('grades.csv', 'grades.json'):\\n"
          "    try: pathlib.Path({{gb!r}}, name).write_text('untouched,ok,15,15')\\n"
          "    except OSError: pass\\n"
          "time.sleep({SLEEP_MARK})\\n").replace('{{gb!r}}', repr(gradebook))
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp('python3', ['python3', '-c', script])
    os._exit(0)
print('daemon started for', gradebook)
"""

LINK_OUT = """
import os, pathlib, shutil
out = pathlib.Path(os.environ['WORKBOOK_OUT_DIR'])
try:
    neighbours = [p for p in out.parents[2].iterdir() if p.name != out.parents[1].name]
except OSError:
    neighbours = []
print('neighbours seen:', neighbours)
shutil.rmtree(out, ignore_errors=True)
target = next((p / 'experiments' / out.name for p in neighbours), pathlib.Path('/etc'))
os.symlink(target, out)
"""

EXECUTED_LINK = """
import os, pathlib
p = pathlib.Path.cwd() / 'executed.ipynb'
try:
    p.unlink()
except OSError:
    pass
os.symlink('/etc/passwd', p)
"""


def build_corpus(folder: Path) -> dict[str, dict]:
    cases: dict[str, dict] = {}

    def case(name, nb, *, total, **extra):
        S.write(nb, folder, name)
        cases[name] = {"total": total, **extra}

    # ---- hostile: nothing is earned without the work. Attacks that cannot mask each other share a submission
    # (one job each instead of three); every one is still asserted, by the checks it must fail and the test below.
    hostile = S.add_cell(S.add_cell(S.add_cell(S.lab(), DAEMON, after="setup"), FAKE_PROBES, after="setup"), STEAL,
                         after="setup")
    case("steals_fakes_probes_and_leaves_a_daemon", hostile, total=0)
    case("links_out_dir_to_a_neighbour", S.add_cell(S.solution(), LINK_OUT, after="check-g"), total=FULL - 6,
         failed=["04.annotation", "04.report"])
    # ---- honest, unusual but valid: full marks. Numbered headings, a constant from an added cell and a cell
    # magic in an exercise, saved by an older Jupyter (nbformat 4.4: no cell ids, so cells are matched by content),
    # that also points its executed notebook at /etc/passwd: the grader keeps no executed copy of it, reads nothing
    # through the link and takes nothing off. (Answers written another way that only the checks judge, such as a
    # paraphrased or a GPU's annotation, a NaN backend or a typed report, are in the corpus of wrong and right answers,
    # tests/wrong_answers/lab04.py: the same checks, judged in-process, without a grading job each.)
    unusual = S.solution()
    d = S.cell(unusual, "ex-d")
    for k, title in enumerate(("Fused ATen ops", "Input read", "Output written", "Reductions", "What is not there"), 1):
        d.source = d.source.replace(f"## {title}\n", f"### {k}. {title.upper()}:\n", 1)
    S.add_cell(unusual, 'SOFTMAX_OPS = {"exp", "_softmax", "prepare_softmax_online"}', after="setup")
    S.cell(unusual, "ex-c").source = S.cell(unusual, "ex-c").source.replace(
        'softmax_ops = {"exp", "_softmax", "prepare_softmax_online"}', "softmax_ops = SOFTMAX_OPS")
    S.cell(unusual, "ex-s").source = "%%time\n" + S.cell(unusual, "ex-s").source
    S.add_cell(unusual, EXECUTED_LINK, after="outro")
    old = json.loads(nbformat.writes(unusual))
    old["nbformat_minor"] = 4
    for c in old["cells"]:
        c.pop("id", None)
    (folder / "unusual_linked_to_passwd_in_nbformat_4_4.ipynb").write_text(json.dumps(old))
    cases["unusual_linked_to_passwd_in_nbformat_4_4"] = {"total": FULL, "note": "matched"}
    return cases


@pytest.fixture(scope="module")
def graded(tmp_path_factory, warm_lab04):
    why = sandbox.bwrap_problem(sandbox.UID_BASE if os.geteuid() == 0 else None)
    if why:
        pytest.skip(f"the sealed grader needs bubblewrap: {why}")
    folder, out = tmp_path_factory.mktemp("sealed-subs"), tmp_path_factory.mktemp("sealed-grades")
    cases = build_corpus(folder)
    shutil.copytree(warm_lab04, out / ".warm", symlinks=True)   # references and compile caches: conftest.warm_lab04
    cmd = [sys.executable, "-m", "helpers.cli", "grade", "--lab", "04", str(folder), "--out", str(out), "--jobs", "2",
           "--cell-timeout", "180", "--call-timeout", "90", "--quiet"]   # slack for a busy CPU
    done = subprocess.run(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=3600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return {"cases": cases, "out": out, "grades": gradebook.by_submission(json.loads((out / "grades.json").read_text()))}


def test_every_case_scores_what_it_deserves(graded):
    wrong = []
    for name, want in graded["cases"].items():
        g = graded["grades"][name]
        if g["total"] != want["total"] or g["status"] != "ok":
            wrong.append(f"{name}: {g['status']} {g['total']:g}, expected ok {want['total']:g}: "
                         + "; ".join(f"{k}={c['status']} {c['message'][:150]}" for k, c in g["checks"].items() if c["status"] != "passed"))
        for check in want.get("failed", []):
            if g["checks"][check]["status"] == "passed":
                wrong.append(f"{name}: {check} passed")
        if want.get("note") and not any(want["note"] in n for n in g["notes"]):
            wrong.append(f"{name}: no note saying {want['note']!r}: {g['notes']}")
    assert not wrong, "\n".join(wrong)


def test_jobs_ran_in_the_jail(graded):
    for path in (graded["out"] / "results").glob("*.json"):
        assert json.loads(path.read_text())["isolation"].startswith("bwrap"), path.name


def test_nothing_of_the_grader_was_visible_or_changed(graded):
    out = graded["out"]
    executed = {p.name.rsplit("-", 1)[0]: p for p in (out / "executed").glob("*.ipynb")}

    def printed(name: str) -> str:
        nb = nbformat.read(str(executed[name]), as_version=4)
        return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))

    text = printed("steals_fakes_probes_and_leaves_a_daemon")
    assert "visible" not in text and "found []" in text and "hidden" in text, f"the job saw the repository or the grader's answers: {text[:500]}"
    assert "neighbours seen: []" in printed("links_out_dir_to_a_neighbour")
    assert "unusual_linked_to_passwd_in_nbformat_4_4" not in executed and "root:x:0:0" not in " ".join(p.read_text() for p in executed.values())
    rows = (out / "grades.csv").read_text()
    assert "untouched,ok,15,15" not in rows and graded["grades"]["steals_fakes_probes_and_leaves_a_daemon"]["total"] == 0


def test_nothing_left_running(graded):
    leftovers = subprocess.run(["pgrep", "-f", f"time.sleep\\({SLEEP_MARK}"], capture_output=True, text=True).stdout.split()
    assert leftovers == [], f"processes left running: {leftovers}"
