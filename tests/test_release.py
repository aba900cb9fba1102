"""`workbook release`: the learner bundle holds the labs and helpers, and no solution or hidden check."""

from pathlib import Path

import pytest

from helpers import notebooks
from helpers.grading.release import leaks_in, make_release

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return make_release(ROOT, tmp_path_factory.mktemp("release") / "bundle")


def test_bundle_has_what_a_learner_needs(bundle):
    for name in ("README.md", "Makefile", "environment.yml", "pyproject.toml", "helpers/checks/lab04.py",
                 "helpers/inductor.py", "labs/04_inductor_output.ipynb"):
        assert (bundle / name).is_file(), name
    readme = (bundle / "README.md").read_text()
    assert "make lab" in readme and "workbook run 04" in readme and "workbook llm-bench --backend" in readme


def test_bundle_holds_no_solution_and_no_hidden_check(bundle):
    assert not (bundle / "solutions").exists() and not (bundle / "helpers" / "grading").exists()
    assert leaks_in(bundle, ROOT) == []
    solution_lines = {line.strip() for p in (ROOT / "solutions").glob("*.ipynb")
                      for c in notebooks.read(p).cells if "exercise" in notebooks.tags(c)
                      for line in c.source.splitlines() if len(line.strip()) > 30}
    lab_lines = {line.strip() for p in (ROOT / "labs").glob("*.ipynb") for c in notebooks.read(p).cells
                 for line in c.source.splitlines()}
    secret = solution_lines - lab_lines                       # lines only the solution has
    assert secret
    for path in bundle.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert not [s for s in secret if s in text], f"{path} holds solution code"


def answer_words() -> set[str]:
    """The string answers an exercise's solution writes: its literals of two words or more, such as the capture
    table's "any (falls back to Python)" (the lab lists the words a cell may hold; which cell holds which is the
    answer)."""
    import ast
    import re

    words = set()
    for p in (ROOT / "solutions").glob("*.ipynb"):
        for c in notebooks.read(p).cells:
            if "exercise" not in notebooks.tags(c) or c.cell_type != "code":
                continue
            for region in re.findall(r"### BEGIN SOLUTION\n(.*?)### (?:STUB|END SOLUTION)", c.source, re.S):
                try:
                    tree = ast.parse("\n".join(line[4:] if line.startswith("    ") else line
                                               for line in region.splitlines()) if region.startswith("    ") else region)
                except SyntaxError:
                    continue
                words |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                          and " " in n.value.strip()}
    return words


def test_bundle_holds_no_answer_as_a_digest(bundle):
    """An answer shipped as its SHA-256 (whole or cut short, as Lab 01's coverage column once was) is given away by a
    loop over the few words it can be: no digest of a solution's string answer is anywhere in the bundle."""
    import hashlib

    words = answer_words()
    assert "any (falls back to Python)" in words
    digests = {hashlib.sha256(w.encode()).hexdigest()[:16]: w for w in words}
    digests |= {hashlib.sha1(w.encode()).hexdigest()[:16]: w for w in words}
    digests |= {hashlib.md5(w.encode()).hexdigest()[:16]: w for w in words}
    for path in bundle.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            found = [w for d, w in digests.items() if d in text]
            assert not found, f"{path} holds digests of the answers {found}"


def test_leak_detector_catches_a_leak(bundle, tmp_path):
    import shutil

    leaky = tmp_path / "leaky"
    shutil.copytree(bundle, leaky)
    shutil.copy(ROOT / "solutions" / "04_inductor_output.ipynb", leaky / "labs" / "copy.ipynb")
    shutil.copy(ROOT / "solutions" / "hidden" / "lab04.py", leaky / "helpers" / "extra.py")
    found = " ".join(leaks_in(leaky, ROOT))
    assert "copy.ipynb holds a solution region" in found and "extra.py holds hidden-check code" in found


def test_release_refuses_to_overwrite_the_repository():
    with pytest.raises(ValueError):
        make_release(ROOT, ROOT)


@pytest.mark.parametrize("command", [["grade", "--lab", "04", "subs", "--out", "grades"], ["release", "--out", "x"],
                                     ["build", "--check"], ["merge", "a", "--lab", "04", "--out", "b"],
                                     ["export", "grades", "--roster", "roster.csv"], ["desk", "grades"]])
def test_bundle_says_instructor_commands_are_not_for_learners(bundle, command):
    """In the learner bundle, the instructor's commands exit 2 with a sentence, never a traceback."""
    import os
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "helpers.cli", *command], cwd=bundle, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(bundle)}, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "instructor command" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_bundle_doctor_still_runs(bundle):
    import os
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "helpers.cli", "doctor"], cwd=bundle, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(bundle)}, timeout=300)
    assert "Traceback" not in proc.stderr and "instructor command" not in proc.stderr, proc.stderr


@pytest.mark.slow
def test_bundle_sets_itself_up_and_runs_a_check_cell(bundle, tmp_path):
    """A fresh copy of the bundle: its own `make` set-up (a new .venv), then Lab 01's set-up, exercise and first
    check cells run with the bundle's Python: the check says the exercise is not written yet."""
    import os
    import shutil
    import subprocess

    copy = tmp_path / "learner"
    shutil.copytree(bundle, copy)
    # PIP_NO_COMPILE: this venv runs a few cells once; byte-compiling torch's files up front costs 12 s of CPU here
    made = subprocess.run(["make", ".venv/.installed"], cwd=copy, capture_output=True, text=True, timeout=1800,
                          env={**os.environ, "PIP_NO_COMPILE": "1"})
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    script = (
        "import os\n"
        "os.environ.update(WORKBOOK_QUICK='1', WORKBOOK_DEVICE='cpu')\n"
        "from helpers import notebooks\n"
        "ns = {'__name__': '__main__'}\n"
        "for cell in notebooks.read('labs/01_eager_vs_graph.ipynb').cells:\n"
        "    tags = notebooks.tags(cell)\n"
        "    if cell.cell_type == 'code' and ('parameters' in tags or 'exercise' in tags or cell.id == 'setup'):\n"
        "        exec(cell.source, ns)\n"
        "    if 'check' in tags:\n"
        "        exec(cell.source, ns)\n"
        "        break\n"
        "import helpers\n"
        "print('helpers from', helpers.__file__)\n")
    ran = subprocess.run([str(copy / ".venv" / "bin" / "python"), "-c", script], cwd=copy, capture_output=True,
                         text=True, timeout=600)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert "not written yet" in ran.stdout and f"helpers from {copy}" in ran.stdout, ran.stdout[-2000:]


def test_bundle_leaves_the_int8_kernel_out_and_says_so(bundle):
    """helpers/llm_bench/int8_triton.py is Lab 07 part E2's answer: the bundle has no copy, and asking for its backend
    says why and what to use instead."""
    import subprocess
    import sys

    assert not (bundle / "helpers" / "llm_bench" / "int8_triton.py").exists()
    script = "from helpers.llm_bench import make_backend\nmake_backend('int8-triton', 'tiny', device='cpu')"
    proc = subprocess.run([sys.executable, "-c", script], cwd=bundle, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "leaves out" in proc.stderr and "int8-compiled" in proc.stderr, proc.stderr[-800:]
    # the benchmark's command line says so in one line, before anything runs
    cli = subprocess.run([sys.executable, "-m", "helpers.llm_bench", "--device", "cpu", "--backend", "int8-triton"],
                         cwd=bundle, capture_output=True, text=True, timeout=300)
    assert cli.returncode == 2 and "Traceback" not in cli.stderr and cli.stdout == "", cli.stderr[-800:]
    assert cli.stderr.strip().count("\n") == 0 and "leaves out" in cli.stderr, cli.stderr[-800:]
    # and 07.int8_kernel, which refuses the package's kernel while it runs, runs without it (a learner's right kernel
    # scored 0 when the check imported the module the bundle leaves out)
    check = subprocess.run([sys.executable, "-c", "from helpers.checks import lab07\n"
                            "print(sorted(lab07.package_versions(*lab07.INT8_KERNEL, *lab07.INT8)))"],
                           cwd=bundle, capture_output=True, text=True, timeout=300)
    assert check.returncode == 0 and "int8_triton" not in check.stdout and "Int8Linear" in check.stdout, \
        check.stdout[-800:] + check.stderr[-800:]
