"""Is every check wired: run by a check cell, registered once with its points, given hidden cases by the grader?

`workbook build --check` runs this after the sync check. A check is one function with one registration (its
points), so its hidden twin is the same function on the hidden cases: the wiring to prove is that every
`check("NN.x")` cell names a registered check, every registered check has a check cell (the grader learns from
it whether the check's part of the notebook ran) and hidden cases, the hidden module has no cases for checks
that do not exist, and every notebook cell a hidden module reads (its ``NOTEBOOK_CELLS``) is there.
"""

from __future__ import annotations

import re
from pathlib import Path

from helpers import checks, notebooks
from helpers.grading import hidden
from helpers.notebooks import Problem

CHECK_CALL = re.compile(r"check\(\s*['\"]([^'\"]+)['\"]")


def check_cell_names(nb) -> dict[str, str]:
    """{check name: id of the check cell that runs it}."""
    found = {}
    for cell in nb.cells:
        if "check" in notebooks.tags(cell):
            for name in CHECK_CALL.findall(cell.source):
                found[name] = cell.get("id")
    return found


def lab_problems(root: Path, path: Path) -> list[Problem]:
    """Everything mis-wired about one solution notebook's checks."""
    lab = path.name[:2]
    nb = notebooks.read(path)
    problems = [Problem(path, m) for m in _untagged_calls(nb)]
    in_cells = check_cell_names(nb)
    try:
        registered = {s.name: s for s in checks.load_lab(lab)}
    except Exception as err:
        return problems + [Problem(path, f"helpers/checks/lab{lab}.py cannot be imported ({type(err).__name__}: {err})")]
    for name, cid in in_cells.items():
        if name not in registered:
            problems.append(Problem(path, f"check cell '{cid}' runs {name!r}, which no check registers"))
    for name in registered:
        if name not in in_cells:
            problems.append(Problem(path, f"{name} is registered but no check cell runs it (the grader needs that cell)"))
    try:
        hidden_lab = hidden.load_hidden(lab)
    except Exception as err:
        return problems + [Problem(path, f"solutions/hidden/lab{lab}.py cannot be loaded ({type(err).__name__}: {err})")]
    for name in registered:
        if name not in hidden_lab.cases:
            problems.append(Problem(path, f"{name} has no hidden cases in solutions/hidden/lab{lab}.py CASES"))
    for name in hidden_lab.cases:
        if name not in registered:
            problems.append(Problem(path, f"solutions/hidden/lab{lab}.py has cases for {name}, which no check registers"))
    ids = {c.get("id") for c in nb.cells}
    for cid in hidden_lab.notebook_cells:
        if cid not in ids:
            problems.append(Problem(path, f"solutions/hidden/lab{lab}.py reads cell '{cid}', which the notebook lacks"))
    return problems


def _untagged_calls(nb) -> list[str]:
    """check(...) calls in cells not tagged `check`: the grader would restore nothing there and learn nothing."""
    return [f"cell '{c.get('id')}' calls check() but is not tagged 'check'" for c in nb.cells
            if c.cell_type == "code" and "check" not in notebooks.tags(c) and CHECK_CALL.search(c.source)]


def wiring_problems(root: Path) -> list[Problem]:
    """Mis-wired checks of every solution notebook under root/solutions."""
    out = []
    for path in notebooks.solution_notebooks(root):
        out += lab_problems(root, path)
    return out
