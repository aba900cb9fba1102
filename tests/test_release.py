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
    assert "make lab" in (bundle / "README.md").read_text()


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
                                     ["export", "grades", "--roster", "roster.csv"]])
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
