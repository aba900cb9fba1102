"""One unfinished part costs only its own part: tools/stub_matrix.py and the line a stopped cell prints."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import checks

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import stub_matrix  # noqa: E402


def test_not_done_names_the_part():
    err = NotImplementedError("C: find softmax kernel: write your solution here")
    assert checks.not_done(err).startswith("⏭ part C (find softmax kernel) is not done yet")
    assert "an exercise this cell uses" in checks.not_done(NotImplementedError())
    assert checks.not_done(NotImplementedError("A: write your solution here")).startswith("⏭ part A is not done yet")
    assert checks.unfinished_part(NotImplementedError("exercise 8a: linear_gelu")) == "part 8a (linear_gelu)"
    assert checks.unfinished_part(NotImplementedError("Could not run 'aten::add' with arguments from 'Meta'")) is None


def test_a_stubbed_cell_says_which_part_and_other_errors_keep_their_traceback():
    shell_mod = pytest.importorskip("IPython.core.interactiveshell")
    shell = shell_mod.InteractiveShell.instance()
    shown = []
    shell._showtraceback = lambda etype, value, stb: shown.append("\n".join(stb))
    try:
        shell.run_cell("from helpers import checks; checks.show_unfinished_parts()")
        stub = shell.run_cell('raise NotImplementedError("2a: find chains: write your solution here")')
        other = shell.run_cell('raise NotImplementedError("not on this device")')
        wrapped = shell.run_cell('try:\n    raise NotImplementedError("5: the backend: write your solution here")\n'
                                 'except NotImplementedError as e:\n    raise RuntimeError("backend raised") from e')
        bug = shell.run_cell('raise ValueError("a real bug")')
    finally:
        shell.set_custom_exc((), None)
        del shell._showtraceback
    assert isinstance(stub.error_in_exec, NotImplementedError) and isinstance(other.error_in_exec, NotImplementedError)
    assert shown[0].startswith("⏭ part 2a (find chains) is not done yet")
    assert "not on this device" in shown[1] and "not done yet" not in shown[1]
    # an error raised from a stub (torch.compile wraps a backend's in BackendCompilerFailed) names the part too
    assert isinstance(wrapped.error_in_exec, RuntimeError) and shown[2].startswith("⏭ part 5 (the backend) is not done yet")
    assert isinstance(bug.error_in_exec, ValueError) and "a real bug" in shown[3] and "not done yet" not in shown[3]


def test_part_c_of_lab_04_left_as_its_stub_breaks_no_other_cell(tmp_path, monkeypatch):
    """Lab 04's part C unfinished once cost parts E and G (a given cell read the kernel's name)."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    for key, value in {"WORKBOOK_QUICK": "1", "WORKBOOK_DEVICE": "cpu", "MPLBACKEND": "Agg"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("WORKBOOK_OUT_DIR", str(tmp_path / "out"))
    failures = stub_matrix.run(stub_matrix.with_stubs("04", "C"), "C")
    assert [f for f in failures if not f["expected"]] == []


def test_the_matrix_reports_a_given_cell_that_breaks():
    import nbformat

    cell = nbformat.from_dict({"cell_type": "code", "id": "g", "metadata": {"tags": ["given"]}, "source": "undefined_name"})
    (got,) = stub_matrix.run([cell])
    assert (got["cell"], got["role"], got["expected"]) == ("g", "given", False) and "NameError" in got["error"]


def test_the_executed_untouched_lab_is_read_as_the_matrix_runs_it():
    """stub_matrix.executed_failures (what test_grading_labs reads from the grader's run of the untouched lab): a given
    cell that stops on its own part's stub is expected; one that stops on an earlier part's, or a NameError, is not."""
    import nbformat

    def cell(cid, tags, exercise=None, error=None):
        c = nbformat.v4.new_code_cell("pass", id=cid, metadata={"tags": tags, **({"workbook": {"exercise": exercise}} if exercise else {})})
        if error:
            c.outputs = [nbformat.v4.new_output("error", ename=error[0], evalue=error[1], traceback=[error[2]])]
        return c

    stop = lambda part: ("NotImplementedError", f"{part}: write your solution here", f"\x1b[0;31m⏭ part {part} is not done yet\x1b[0m")
    nb = nbformat.v4.new_notebook(cells=[
        cell("ex-a", ["exercise"], "A: compile"), cell("run-a", ["given"], error=stop("A")),
        cell("check-a", ["check"], error=("AssertionError", "", "x")),
        cell("ex-b", ["exercise"], "B: dump"), cell("run-b", ["given"], error=stop("A")),
        cell("run-b2", ["given"], error=("NameError", "name 'k' is not defined", "NameError")),
        cell("run-b3", ["given"], error=("BackendCompilerFailed", "backend raised", "NotImplementedError: B: write your solution here"))])
    rows = {r["cell"]: r["expected"] for r in stub_matrix.executed_failures(nb)}
    assert rows == {"run-a": True, "check-a": True, "run-b": False, "run-b2": False, "run-b3": True}


@pytest.mark.parametrize("lab", ["04"])
def test_the_untouched_lab_runs_every_given_cell_past_the_stubs(lab, tmp_path):
    """Every exercise left as its stub: each given cell either runs or stops on its own part's stub, saying so; no
    given cell breaks on an earlier part (tools/stub_matrix.py --lab NN, in a process of its own, as a kernel). The
    other labs: test_grading_labs reads the same from the untouched lab the grader ran (stub_matrix.executed_failures)."""
    env = {**os.environ, "TMPDIR": str(tmp_path), "WORKBOOK_QUICK": "1", "WORKBOOK_DEVICE": "cpu", "MPLBACKEND": "Agg"}
    env.pop("TRITON_INTERPRET", None)
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "stub_matrix.py"), "--lab", lab], env=env,
                          capture_output=True, text=True, timeout=900)
    lines = [line for line in done.stdout.splitlines() if line.startswith(("lab ", "  ", "    "))]
    assert done.returncode == 0, "\n".join(lines) or done.stderr[-3000:]


def test_lab_02s_whole_matrix_charges_each_exercise_alone(tmp_path, monkeypatch):
    """Each exercise of Lab 02 in turn put back to its stub, then given a wrong answer of the corpus: only that
    exercise's checks fail, and no cell breaks that should not (the other labs: tools/stub_matrix.py --each --wrong,
    whose table is in the closing note of issue 31)."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    for key, value in {"WORKBOOK_QUICK": "1", "WORKBOOK_DEVICE": "cpu", "MPLBACKEND": "Agg"}.items():
        monkeypatch.setenv(key, value)
    bad = []
    for exercise in stub_matrix.exercises("02"):
        for mode in ("stub", "wrong"):
            row = stub_matrix.matrix_row("02", exercise, mode)
            if row["ok"] is False:
                bad.append(row)
    assert not bad, bad


def test_given_cells_and_checks_use_a_stand_in_only_for_a_stub(capsys):
    """mine_or and Learner.standing_in call the learner's own function while it is written (right or wrong) and the
    stand-in only while it is its stub; Learner.replacing hands every call to the checker's own;
    needs_earlier_parts ends a block on a stub (or an error raised from one) and lets any other error through."""
    stub = NotImplementedError("2d: dead code: write your solution here")

    def unwritten(x):
        raise stub

    wrapped = checks.mine_or(unwritten, lambda x: x + 100, "the checker's own")
    assert wrapped(1) == 101 and wrapped(2) == 102
    assert capsys.readouterr().out.count("part 2d (dead code) is not done yet") == 1      # said once
    assert checks.mine_or(lambda x: -x, lambda x: x + 100, "")(1) == -1                   # a written one is used
    with pytest.raises(NotImplementedError):
        checks.mine_or(lambda x: (_ for _ in ()).throw(NotImplementedError("not on this device")), abs, "")(1)

    ns = {"f": unwritten, "g": lambda x: -x}
    learner = checks.Learner(ns)
    with learner.standing_in("f", lambda x: x * 10) as stood_in, learner.standing_in("g", lambda x: x * 10):
        assert ns["f"](2) == 20 and ns["g"](2) == -2 and stood_in == ["part 2d (dead code)"]
    with learner.replacing("g", lambda x: x * 10):
        assert ns["g"](2) == 20
    assert ns["f"] is unwritten and ns["g"](2) == -2                                       # put back after

    with checks.needs_earlier_parts():
        try:
            raise stub
        except NotImplementedError as err:
            raise RuntimeError("a pass failed") from err
    assert "part 2d (dead code) is not done yet" in capsys.readouterr().out
    with pytest.raises(ValueError), checks.needs_earlier_parts():
        raise ValueError("a real bug")
