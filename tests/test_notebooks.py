"""helpers.notebooks: solution markers → lab stubs, and the sync check `workbook build --check` relies on."""

import re
import shutil
from pathlib import Path

import nbformat
import pytest

from helpers import checks, notebooks
from helpers.notebooks import MarkerError, make_lab, replace_code_solutions
from helpers.points_table import build_labs

ROOT = Path(__file__).resolve().parents[1]


def test_code_region_becomes_raise_with_exercise_name():
    src = "def f(x):\n    ### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION\n"
    out = replace_code_solutions(src, "C: f")
    assert "return x + 1" not in out
    assert '    raise NotImplementedError("C: f: write your solution here")' in out


def test_stub_lines_are_uncommented_and_solution_dropped():
    src = "### BEGIN SOLUTION\nA = compute()\n### STUB\n# A = '''\n#\n# ## Heading\n# '''\n### END SOLUTION\nprint(A)"
    out = replace_code_solutions(src, "D")
    assert out == "A = '''\n\n## Heading\n'''\nprint(A)"


@pytest.mark.parametrize("src", [
    "### BEGIN SOLUTION\nx = 1\n",                       # never closed
    "x = 1\n### END SOLUTION\n",                          # closed, never opened
    "### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n",
    "### BEGIN SOLUTION\n### STUB\nnot commented\n### END SOLUTION\n",
])
def test_malformed_markers_raise(src):
    with pytest.raises(MarkerError):
        replace_code_solutions(src, "X")


def test_markdown_region_replaced():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("Why?\n<!-- BEGIN SOLUTION -->\nBecause.\n<!-- END SOLUTION -->")]
    lab = make_lab(nb)
    assert "Because" not in lab.cells[0].source and notebooks.MD_STUB in lab.cells[0].source


@pytest.fixture
def repo(tmp_path):
    """A copy of solutions/ and labs/ to break."""
    for sub in ("solutions", "labs"):
        shutil.copytree(ROOT / sub, tmp_path / sub, ignore=shutil.ignore_patterns("hidden", "experiments"))
    return tmp_path


def test_committed_labs_are_in_step():
    assert build_labs(ROOT, check=True) == []


def test_check_fails_when_lab_is_stale_and_build_fixes_it(repo):
    lab = repo / "labs" / "04_inductor_output.ipynb"
    nb = notebooks.read(lab)
    nb.cells[0].source += "\nedited by hand"
    notebooks.write(nb, lab)
    problems = build_labs(repo, check=True)
    assert any("stale" in p.message for p in problems)
    assert build_labs(repo) == []
    assert build_labs(repo, check=True) == []


def test_check_fails_on_outputs(repo):
    sol = repo / "solutions" / "04_inductor_output.ipynb"
    nb = notebooks.read(sol)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("stream", text="hello")]
    notebooks.write(nb, sol)
    assert any("has outputs" in p.message for p in build_labs(repo, check=True))


def test_orphan_lab_is_reported(repo):
    shutil.copy(repo / "labs" / "04_inductor_output.ipynb", repo / "labs" / "09_orphan.ipynb")
    assert any("no solution notebook" in p.message for p in build_labs(repo, check=True))


@pytest.mark.parametrize("path", sorted((ROOT / "labs").glob("*.ipynb")), ids=lambda p: p.name)
def test_lab_has_no_solution_and_a_check_cell_per_check(path):
    text = path.read_text()
    assert not notebooks.has_solution(text)
    nb = notebooks.read(path)
    ids = [c.id for c in nb.cells]
    assert len(ids) == len(set(ids))
    assert "parameters" in notebooks.tags(nb.cells[1]) or any("parameters" in notebooks.tags(c) for c in nb.cells[:3])
    lab = path.name[:2]
    called = re.findall(r"check\(\"([^\"]+)\"\)", "".join(c.source for c in nb.cells if "check" in notebooks.tags(c)))
    assert sorted(called) == sorted(s.name for s in checks.load_lab(lab))


def test_lab_exercises_are_stubs():
    nb = notebooks.read(ROOT / "labs" / "04_inductor_output.ipynb")
    exercises = [c for c in nb.cells if "exercise" in notebooks.tags(c)]
    assert len(exercises) >= 6
    graded = [c for c in exercises if "not graded" not in c.source]
    assert len(graded) >= 6
    assert all("NotImplementedError" in c.source or '"""' in c.source for c in graded)


def test_an_ungraded_exercise_after_the_last_check_must_not_stop_run_all():
    nb = nbformat.v4.new_notebook()
    ex = nbformat.v4.new_code_cell("### BEGIN SOLUTION\nx = 1\n### END SOLUTION", metadata={"tags": ["exercise"]})
    chk = nbformat.v4.new_code_cell("check('01.x')", metadata={"tags": ["check"]})
    stretch = nbformat.v4.new_code_cell("### BEGIN SOLUTION\ny = 2\n### END SOLUTION", metadata={"tags": ["exercise"]})
    nb.cells = [ex, chk, stretch]
    found = notebooks._run_all_stoppers(notebooks.make_lab(nb), Path("lab.ipynb"))
    assert len(found) == 1 and "Run All" in found[0].message
    stretch.source = "### BEGIN SOLUTION\ny = 2\n### STUB\n# print('Stretch (not graded)')\n### END SOLUTION"
    assert notebooks._run_all_stoppers(notebooks.make_lab(nb), Path("lab.ipynb")) == []


def test_a_code_cell_without_a_role_is_a_build_problem():
    """Lab 03's part 8 cells once had no tags: the grader neither restored its given cells nor knew its exercises."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["given"]}),
                nbformat.v4.new_code_cell("y = 2"),
                nbformat.v4.new_code_cell("z = 3", metadata={"tags": ["exercise"]})]
    found = [p.message for p in notebooks._check_roles(nb, Path("lab.ipynb"))]
    assert len(found) == 2 and "no role tag" in found[0] and "workbook.exercise" in found[1]


def test_cell_namespace_runs_the_named_cells_in_order(tmp_path):
    """notebooks.cell_namespace: only the cells asked for, in the order asked, their source readable by inspect."""
    import inspect

    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("a = 1", id="one"), nbformat.v4.new_code_cell("raise SystemExit", id="bad"),
                nbformat.v4.new_code_cell("def f():\n    return a + 1", id="two")]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, str(path))
    ns = notebooks.cell_namespace(path, ("one", "two"))
    assert ns["f"]() == 2 and "return a + 1" in inspect.getsource(ns["f"])
    assert [cell_id for cell_id, _, _ in notebooks.code_cells(path)] == ["one", "bad", "two"]
