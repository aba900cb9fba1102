"""The points tables in README.md and in each lab's introduction come from the check registry and cannot drift."""

import shutil
from pathlib import Path

from helpers import notebooks
from helpers.checks import load_lab
from helpers.points_table import BEGIN, END, lab_table, sync_readme

ROOT = Path(__file__).resolve().parents[1]


def test_every_lab_intro_lists_its_checks_and_total():
    for sol in notebooks.solution_notebooks(ROOT):
        lab = sol.name[:2]
        intro = notebooks.read(ROOT / "labs" / sol.name).cells[0].source
        specs = load_lab(lab)
        assert f"{len(specs)} checks, {sum(s.points for s in specs):g} points" in intro, sol.name
        assert all(f"`{s.name}`" in intro for s in specs)
        manual = [c.metadata["workbook"]["manual"] for c in notebooks.read(sol).cells
                  if c.get("metadata", {}).get("workbook", {}).get("manual")]
        assert intro.endswith(lab_table(lab, [(m["question"], m["points"]) for m in manual]))


def test_readme_table_is_current_and_a_stale_one_is_caught(tmp_path):
    assert sync_readme(ROOT, check=True) == []
    shutil.copytree(ROOT / "solutions", tmp_path / "solutions", ignore=shutil.ignore_patterns("hidden", "experiments"))
    readme = (ROOT / "README.md").read_text()
    stale = readme.replace("| **all labs** |", "| **all labs (old)** |")
    assert stale != readme
    (tmp_path / "README.md").write_text(stale)
    assert "stale" in sync_readme(tmp_path, check=True)[0]
    assert sync_readme(tmp_path) == [] and (tmp_path / "README.md").read_text() == readme
    (tmp_path / "README.md").write_text(readme.replace(BEGIN, "").replace(END, ""))
    assert "markers" in sync_readme(tmp_path, check=True)[0]


# Exercises worth nothing in all, each with the reason (README: nothing scored for a one-liner; a check worth 0 still
# says ✅ or ❌). Every other exercise, a core topic above all, earns points.
WORTH_NOTHING = {("03", "7"): "the backend pitfalls: given experiments, the learner reads their verdicts",
                 ("04", "A"): "a one-line torch.compile and a max-error print"}


def test_every_exercise_but_the_one_liners_earns_points():
    for sol in notebooks.solution_notebooks(ROOT):
        lab = sol.name[:2]
        per_exercise: dict = {}
        for s in load_lab(lab):
            per_exercise[s.exercise] = per_exercise.get(s.exercise, 0) + s.points
        zero = {ex for ex, points in per_exercise.items() if points == 0}
        assert zero == {ex for (lb, ex) in WORTH_NOTHING if lb == lab}, f"Lab {lab}: exercises worth 0: {sorted(zero)}"
