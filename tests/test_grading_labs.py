"""Every lab besides 04 (which has its own corpus in test_grading.py): under `workbook grade`, the solution
scores full marks and the untouched lab scores 0, with status ok, and the checks are what the lab registers; every
check cell of the solution, run by the grader's job, printed ✅ for its public cases. The
untouched lab as the grader ran it is also the stub matrix's first row (tools/stub_matrix.py --lab NN): every given
cell runs, or stops on the stub of its own part saying so; none breaks on an earlier part.

The solution is graded as every batch grades it before the submissions: the warm-up (`batch.warm_up`, shared
through conftest.warm_lab) grades the reference solution from cold caches and keeps its result in `.warm/.done`;
the untouched lab is then graded as a submission, with the caches that warm-up left.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from helpers import checks, notebooks
from helpers.grading import batch
from helpers.grading.gradebook import SubmissionResult

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import stub_matrix  # noqa: E402

LABS = sorted(p.name[:2] for p in (ROOT / "labs").glob("*.ipynb") if not p.name.startswith("04"))


class GradeLab:
    """One lab graded end to end; a subclass per lab below, so `pytest -n` spreads the labs over its workers."""

    lab = ""

    def test_solution_full_marks_and_untouched_lab_zero(self, tmp_path, warm_lab):
        lab = self.lab
        warm = warm_lab(lab)
        sol = SubmissionResult.from_dict(json.loads((warm / ".done").read_text()))
        folder, out = tmp_path / "subs", tmp_path / "grades"
        folder.mkdir()
        shutil.copy(batch.lab_path(lab, "labs"), folder / "untouched.ipynb")
        shutil.copytree(warm, out / ".warm", symlinks=True)
        settings = batch.Settings(lab=lab, out=out, jobs=1, cell_timeout=300, call_timeout=120, threads=1)
        (lab_r,) = batch.grade([folder], settings, progress=False)
        top = sum(s.points for s in checks.load_lab(lab))
        assert (sol.status, sol.total, sol.max_total) == ("ok", top, top), [c.line() for c in sol.checks if not c.passed]
        assert (lab_r.submission, lab_r.status, lab_r.total) == ("untouched", "ok", 0), [c.line() for c in lab_r.checks if c.passed]
        assert all(c.message for c in lab_r.checks)
        # the reference solution's own check cells (the public cases), as the warm-up's job ran them: every one ✅
        (reference,) = (warm.parent / "executed").glob(f"{batch.lab_path(lab, 'solutions').stem}-*.ipynb")
        printed = {name: mark for c in notebooks.read(reference).cells if "check" in notebooks.tags(c)
                   for o in c.get("outputs", []) if o.get("output_type") == "stream"
                   for mark, name in re.findall(r"(?:^|\r)(✅|❌) (\d\d\.\w+)", o.get("text", ""), re.M)}
        assert printed == {s.name: "✅" for s in checks.load_lab(lab)}, printed
        (executed,) = (out / "executed").glob("untouched-*.ipynb")
        broken = [f"{f['role']} cell {f['cell']}: {f['error']}" for f in stub_matrix.executed_failures(notebooks.read(executed))
                  if not f["expected"]]
        assert not broken, "a cell broke on an earlier part's stub (tools/stub_matrix.py --lab NN says more):\n" + "\n".join(broken)


# One class per lab (pytest -k 03 selects a lab), so that pytest-xdist spreads the labs over its workers; the
# order they run in is conftest.LONGEST_FIRST's.
for _lab in LABS:
    globals()[f"TestGradeLab{_lab}"] = type(f"TestGradeLab{_lab}", (GradeLab,), {"lab": _lab})
