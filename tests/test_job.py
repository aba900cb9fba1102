"""A grading job on small notebooks: the settings channel, probes in the notebook's own kernel, and what happens
when the learner's code hangs, dies or is not written yet (helpers/grading/job.py, run_notebook.py)."""

from __future__ import annotations

import getpass
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from helpers import checks
from helpers.checks import lab04
from helpers.env import LabSettings
from helpers.grading import batch, run_notebook, sandbox
from helpers.grading.job import CheckTimeout, NotebookJob, WorkerDied

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
CROSS = [lab04.CrossoverCase((0.5, 2.0), (1, 8), 8)]
SWEEP = lab04.SweepCase(batches=None)

SETUP = ("from helpers.env import lab_settings, pick_device\n"
         "settings = lab_settings(DEVICE, QUICK, OUT_DIR)\n"
         "device = pick_device(settings.device)\n")


def notebook(path: Path, *cells: str, device: str = "cuda") -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f'DEVICE = "{device}"\nQUICK = False\nOUT_DIR = "nowhere"'),
                nbformat.v4.new_code_cell(SETUP), *(nbformat.v4.new_code_cell(c) for c in cells)]
    nbformat.write(nb, str(path))
    return path


def start(tmp_path: Path, nb: Path, cell_timeout: float = 60) -> NotebookJob:
    """The notebook's job, in a jail of its own (bubblewrap where it starts), with the grader's settings."""
    scratch = tmp_path / "scratch"
    settings = batch.Settings(lab="04", out=tmp_path / "grades", device="cpu", quick=True, seed=7)
    jail = sandbox.Jail(scratch, None, settings.lab_settings(scratch / "out").to_env(), settings.out, 1, gpu=False)
    jail.prepare(None)
    src = scratch / nb.name
    src.write_bytes(nb.read_bytes())
    job = NotebookJob(jail, src, scratch / "executed.ipynb", sandbox.Limits(wall_s=600, memory_mb=4096),
                      cell_timeout=cell_timeout, budget=300)
    job.run()
    return job


def crossover(job: NotebookJob, timeout: float = 20):
    return job.probe(lab04.probe_crossover, ([c.rows() for c in CROSS], SWEEP), {}, timeout)


ROWS = "sweep_rows = [{'batch': 1, 'eager_ms': 1.0, 'compiled_ms': 2.0, 'speedup': 0.5}]\n"
GOOD = ("def find_crossover(rows):\n"
        "    rows = sorted(rows, key=lambda r: r['batch'])\n"
        "    return next((r['batch'] for i, r in enumerate(rows) if all(s['speedup'] > 1 for s in rows[i:])), None)\n")


def test_the_job_takes_its_settings_from_the_grader_not_the_parameters_cell(tmp_path):
    """The parameters cell says "cuda" (there is none here): the grader's --device cpu wins, in the run and in probes."""
    job = start(tmp_path, notebook(tmp_path / "nb.ipynb", GOOD + ROWS, device="cuda"))
    try:
        assert job.ran["status"] == "ok", job.ran
        seen = job.probe(checks.probe_settings, (), {}, 30)
        assert (seen["device"], seen["quick"], seen["seed"]) == ("cpu", True, 7)
        assert seen["out_dir"] == str(tmp_path / "scratch" / "out")
        assert crossover(job)["answers"] == [8]
    finally:
        job.stop()


def test_unwritten_hanging_and_crashing_code_cost_one_probe_each(tmp_path):
    cells = [ROWS, "def find_crossover(rows):\n    raise NotImplementedError('find_crossover')\n"]
    job = start(tmp_path, notebook(tmp_path / "nb.ipynb", *cells))
    try:
        with pytest.raises(checks.NotImplementedYet):
            crossover(job)
        job.probe(checks.probe_settings, (), {}, 30)     # the kernel still answers
    finally:
        job.stop()
    hang = "def find_crossover(rows):\n    while True:\n        pass\n"
    job = start(tmp_path, notebook(tmp_path / "hang.ipynb", ROWS, hang))
    try:
        with pytest.raises(CheckTimeout):
            crossover(job, timeout=5)
        assert job.probe(checks.probe_settings, (), {}, 30)["device"] == "cpu"   # interrupted, the kernel goes on
    finally:
        job.stop()


def test_a_cell_that_spins_is_stopped_at_the_cell_limit_and_the_next_cells_run(tmp_path):
    """A cell that keeps a core busy forever (the corpus in test_grading.py loops politely, to leave its cores to the
    other jobs): interrupted at the cell limit, the error recorded in its cell, the kernel and the cells after it go on.
    The limit leaves the cells before it time to import torch (3 s was too short on a GPU machine)."""
    job = start(tmp_path, notebook(tmp_path / "spin.ipynb", ROWS, "while True:\n    pass", GOOD), cell_timeout=15)
    try:
        assert job.ran["status"] == "ok" and job.ran["serving"], job.ran
        assert crossover(job)["answers"] == [8]           # GOOD, after the spinning cell, was defined
    finally:
        job.stop()
    executed = nbformat.read(str(tmp_path / "scratch" / "executed.ipynb"), as_version=4)
    (spun,) = [c for c in executed.cells if c.cell_type == "code" and c.source.startswith("while True")]
    assert [o.ename for o in spun.outputs if o.output_type == "error"] == ["KeyboardInterrupt"], spun.outputs


def test_a_cell_that_answers_the_interrupt_late_costs_that_cell_only(tmp_path):
    """A cell in a long C call (SIGINT blocked here, as during one) takes the grader's interrupt only when the call
    returns, 7 s after its limit: the job waits for it (papermill's own client gave up after 4 s and the whole
    submission scored 0 with "the notebook could not be run"), the cell is marked and the cells after it run."""
    late = ("import signal, time\n"
            "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})\n"
            "time.sleep(10)\n"
            "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(late), nbformat.v4.new_code_cell("print('the next cell ran')")]
    nbformat.write(nb, str(tmp_path / "late.ipynb"))
    job = start(tmp_path, tmp_path / "late.ipynb", cell_timeout=3)
    try:
        assert job.ran["status"] == "ok" and job.ran["serving"], job.ran
    finally:
        job.stop()
    executed = nbformat.read(str(tmp_path / "scratch" / "executed.ipynb"), as_version=4)
    late_cell, next_cell = [c for c in executed.cells if c.cell_type == "code"]
    assert late_cell.metadata.get("grading_outcome") == "ran past its time limit", late_cell.metadata
    assert "KeyboardInterrupt" in [o.get("ename") for o in late_cell.outputs], late_cell.outputs
    assert "the next cell ran" in "".join(o.get("text", "") for o in next_cell.outputs), next_cell.outputs


def test_a_kernel_killed_by_a_probe_or_a_cell_is_replayed(tmp_path):
    dies = "def find_crossover(rows):\n    import os\n    os._exit(3)\n"
    job = start(tmp_path, notebook(tmp_path / "dies.ipynb", ROWS, dies))
    try:
        with pytest.raises(WorkerDied):
            crossover(job)
        assert job.probe(checks.probe_settings, (), {}, 30)["device"] == "cpu"    # a fresh kernel, cells re-run
        assert job.replays == 1
    finally:
        job.stop()
    # a cell that kills the kernel: restarted, the finished cells re-run, that cell skipped, the rest run
    job = start(tmp_path, notebook(tmp_path / "cell.ipynb", GOOD + ROWS, "import os\nos._exit(1)", "x = 1"))
    try:
        assert job.ran["status"] == "crashed" and job.ran["serving"] and "ran the rest" in job.ran["message"]
        assert crossover(job)["answers"] == [8]           # the definitions before the dead cell are back
        assert job.replays == 0                           # served by the restarted kernel of the graded run
    finally:
        job.stop()
    # ... at most MAX_RESTARTS times: then the run stops and a replay serves the probes
    kills = ["import os\nos._exit(1)"] * (run_notebook.MAX_RESTARTS + 1)
    job = start(tmp_path, notebook(tmp_path / "cells.ipynb", GOOD + ROWS, *kills, "x = 1"))
    try:
        assert job.ran["status"] == "crashed" and not job.ran["serving"]
        assert crossover(job)["answers"] == [8]
    finally:
        job.stop()


def test_a_cell_that_ran_out_of_the_jobs_limits_is_not_run_again_by_a_replay(tmp_path):
    """A cell that raised MemoryError (or ran out of processes: a fork loop's BlockingIOError) may have left processes
    behind that hold the limits: a replay re-runs the cells that finished, but not that one."""
    exhausts = "import os\nwith open(os.path.expanduser('~/ran.txt'), 'a') as f:\n    f.write('x')\nraise MemoryError()\n"
    dies = "def find_crossover(rows):\n    import os\n    os._exit(3)\n"
    job = start(tmp_path, notebook(tmp_path / "exhausts.ipynb", ROWS, exhausts, dies))
    try:
        assert job.ran["status"] == "ok"
        with pytest.raises(WorkerDied):
            crossover(job)
        assert job.probe(checks.probe_settings, (), {}, 30)["device"] == "cpu"    # served by a replay
        assert job.replays == 1 and job.jail.read("home/ran.txt", 100) == b"x"
    finally:
        job.stop()
    executed = nbformat.read(str(job.executed), as_version=4)
    assert [run_notebook.OUTCOME in c.metadata for c in executed.cells] == ["MemoryError" in c.source for c in executed.cells]


def test_what_counts_as_a_cell_that_ran_out_of_the_jobs_limits():
    error = lambda ename, evalue: nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output("error", ename=ename,
                                                                                           evalue=evalue, traceback=[])])
    assert run_notebook.exhausted_limits(error("BlockingIOError", "[Errno 11] Resource temporarily unavailable"))
    assert run_notebook.exhausted_limits(error("RuntimeError", "can't start new thread"))
    assert run_notebook.exhausted_limits(error("MemoryError", ""))
    assert not run_notebook.exhausted_limits(error("ValueError", "shapes do not fit"))
    assert not run_notebook.exhausted_limits(nbformat.v4.new_code_cell("x = 1"))


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run as a uid without a passwd entry")
def test_a_job_uid_without_a_passwd_entry_still_has_a_user_name(tmp_path):
    """torch asks getpass.getuser() for cache folders; a job uid has no passwd entry, so the job says who it is."""
    uid = sandbox.UID_BASE + 999
    env = sandbox.job_environment(tmp_path, {}, tmp_path, 1)
    code = "import getpass; print(getpass.getuser())"
    done = subprocess.run([sys.executable, "-c", code], env=env, user=uid, group=uid, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == sandbox.JOB_USER, done.stderr
    bare = {k: v for k, v in env.items() if k not in ("USER", "LOGNAME")}
    failed = subprocess.run([sys.executable, "-c", code], env=bare, user=uid, group=uid, capture_output=True, text=True)
    assert failed.returncode != 0 and "uid not found" in failed.stderr      # what the job would meet without them
    assert getpass.getuser()                                                # (the test process itself has a name)


def test_settings_travel_as_one_set_of_variables():
    env = LabSettings(device="cuda", quick=True, out_dir="/x", seed=3).to_env()
    assert env == {"WORKBOOK_DEVICE": "cuda", "WORKBOOK_QUICK": "1", "WORKBOOK_OUT_DIR": "/x", "WORKBOOK_SEED": "3"}


def test_a_job_that_died_before_writing_its_notebook_fails_its_probes_at_once(tmp_path):
    """No executed notebook to replay (the job crashed at start): every probe says so, no endless retry."""
    job = NotebookJob(jail=None, notebook=tmp_path / "in.ipynb", executed=tmp_path / "never-written.ipynb",
                      limits=None, cell_timeout=5, budget=5)
    with pytest.raises(WorkerDied, match="could not run your notebook's kernel again"):
        job.probe(lab04.probe_crossover, ([], SWEEP), {}, timeout=5)


def test_a_cell_that_prints_megabytes_is_cut_in_the_executed_notebook(tmp_path):
    """The job saves its notebook after every cell: what one cell prints or returns is kept up to a limit, said once,
    and the cells after it still run (a 100 MB print used to make every later save rewrite it: minutes per submission)."""
    from helpers.grading.run_notebook import MAX_PRINTED_CHARS

    chunk = 100_000
    cells = [f"for _ in range({3 * MAX_PRINTED_CHARS // chunk}):\n    print('x' * {chunk - 1})", "after = 1\nprint('next cell ran')",
             f"'y' * {2 * MAX_PRINTED_CHARS}"]                      # a result, not a print: cut the same way
    job = start(tmp_path, notebook(tmp_path / "nb.ipynb", *cells))
    try:
        assert job.ran["status"] == "ok", job.ran
    finally:
        job.stop()
    nb = nbformat.read(str(tmp_path / "scratch" / "executed.ipynb"), as_version=4)
    printed = "".join(o.get("text", "") for o in nb.cells[2].outputs)
    assert MAX_PRINTED_CHARS <= len(printed) < MAX_PRINTED_CHARS + 200
    assert printed.count("the grader keeps the first") == 1
    assert "next cell ran" in "".join(o.get("text", "") for o in nb.cells[3].outputs)
    result = nb.cells[4].outputs
    assert len(result) == 1 and "yyy" not in str(result) and "the grader keeps the first" in result[0]["text"]
