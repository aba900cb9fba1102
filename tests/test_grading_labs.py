"""Every lab besides 04 (which has its own corpus in test_grading.py): under `workbook grade`, the solution
scores full marks and the untouched lab scores 0, with status ok, and the checks are what the lab registers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers import checks
from helpers.grading import batch

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
LABS = sorted(p.name[:2] for p in (ROOT / "labs").glob("*.ipynb") if not p.name.startswith("04"))


class GradeLab:
    """One lab graded end to end; a subclass per lab below, so `pytest -n` spreads the labs over its workers."""

    lab = ""

    def test_solution_full_marks_and_untouched_lab_zero(self, tmp_path):
        lab = self.lab
        folder = tmp_path / "subs"
        folder.mkdir()
        shutil.copy(batch.lab_path(lab, "solutions"), folder / "solution.ipynb")
        shutil.copy(batch.lab_path(lab, "labs"), folder / "untouched.ipynb")
        settings = batch.Settings(lab=lab, out=tmp_path / "grades", jobs=2, cell_timeout=300, call_timeout=120, warm=False)
        results = {r.submission: r for r in batch.grade([folder], settings, progress=False)}
        top = sum(s.points for s in checks.load_lab(lab))
        sol, lab_r = results["solution"], results["untouched"]
        assert (sol.status, sol.total, sol.max_total) == ("ok", top, top), [c.line() for c in sol.checks if not c.passed]
        assert (lab_r.status, lab_r.total) == ("ok", 0), [c.line() for c in lab_r.checks if c.passed]
        assert all(c.message for c in lab_r.checks)


# One class per lab (pytest -k 03 selects a lab), the slowest first so that pytest-xdist does not leave one for the
# end (seconds of a worker in the last fresh-clone make test: 06 328, 07 122, 05 94, 01 64, 03 53, 02 22)
SLOWEST_FIRST = ("06", "07", "05", "01", "03")
for _lab in sorted(LABS, key=lambda lab: SLOWEST_FIRST.index(lab) if lab in SLOWEST_FIRST else len(SLOWEST_FIRST)):
    globals()[f"TestGradeLab{_lab}"] = type(f"TestGradeLab{_lab}", (GradeLab,), {"lab": _lab})
