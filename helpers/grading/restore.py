"""Before a submission runs: read it safely and put back what the learner must not change.

Cells are matched by id against the released lab. Check, given and parameters
cells and the instructions are restored from the lab; deleted cells are
re-inserted (a deleted exercise comes back as its stub); cells the learner
added stay where they were. Every change is noted for the feedback.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from helpers import notebooks

MAX_NOTEBOOK_MB = 50


class InvalidSubmission(Exception):
    """The file is not a notebook we can grade; the message says why and what to do."""


@dataclass
class Repaired:
    """A submission after restoration, with a note for each change made."""

    nb: nbformat.NotebookNode
    notes: list[str] = field(default_factory=list)


def load_submission(path: Path) -> nbformat.NotebookNode:
    """Read a submitted file as a notebook, or raise InvalidSubmission with a plain reason."""
    if not path.is_file():
        raise InvalidSubmission(f"{path.name} is not a file.")
    if path.stat().st_size > MAX_NOTEBOOK_MB * 2**20:
        raise InvalidSubmission(f"{path.name} is {path.stat().st_size / 2**20:.0f} MB; a notebook over {MAX_NOTEBOOK_MB} MB is not graded (clear its outputs and resubmit).")
    raw = path.read_bytes()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise InvalidSubmission(f"{path.name} is not valid notebook JSON ({str(err)[:120]}); open it in JupyterLab, save it, and resubmit.") from None
    if not isinstance(data, dict) or "cells" not in data or not isinstance(data["cells"], list):
        raise InvalidSubmission(f"{path.name} is JSON but not a Jupyter notebook (no list of cells).")
    try:
        nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
        if nb.nbformat_minor < notebooks.NBFORMAT_MINOR:
            nb.nbformat_minor = notebooks.NBFORMAT_MINOR
        nbformat.validator.normalize(nb)
    except Exception as err:  # nbformat raises many kinds
        raise InvalidSubmission(f"{path.name} could not be read as a notebook ({type(err).__name__}: {str(err)[:120]}).") from None
    return nb


def is_protected(cell) -> bool:
    """Cells the learner must not change: checks, given code, parameters, instructions."""
    tags = set(notebooks.tags(cell))
    if tags & set(notebooks.PROTECTED_TAGS):
        return True
    return cell.cell_type == "markdown" and "answer" not in tags


def _describe(cell) -> str:
    role = next((t for t in notebooks.tags(cell) if t in ("check", "given", "parameters", "exercise", "answer")), "instructions")
    return f"{role} cell '{cell.get('id')}'"


def restore(sub: nbformat.NotebookNode, lab: nbformat.NotebookNode) -> Repaired:
    """The submission with every protected lab cell restored by id and every deleted cell re-inserted."""
    notes: list[str] = []
    by_id: dict[str, list] = {}
    for cell in sub.cells:
        by_id.setdefault(cell.get("id"), []).append(cell)
    lab_ids = [c.id for c in lab.cells]
    for cid, cells in by_id.items():
        if cid in lab_ids and len(cells) > 1:
            notes.append(f"cell '{cid}' appeared {len(cells)} times; the last copy was kept.")

    def restored(template):
        """The cell to use in place of the lab's `template` cell."""
        mine = by_id.get(template.id)
        if not mine:
            what = "its stub was put back, so it scores 0" if "exercise" in notebooks.tags(template) else "it was put back"
            notes.append(f"{_describe(template)} was deleted; {what}.")
            return nbformat.from_dict(template)
        cell = mine[-1]
        if is_protected(template):
            if cell.cell_type != template.cell_type or cell.source != template.source or notebooks.tags(cell) != notebooks.tags(template):
                notes.append(f"{_describe(template)} had been changed; the original was restored.")
            return nbformat.from_dict(template)
        if cell.cell_type != template.cell_type:
            notes.append(f"{_describe(template)} had been turned into a {cell.cell_type} cell; it was turned back into a {template.cell_type} cell.")
            fixed = nbformat.from_dict(template)
            fixed.source = cell.source
            return fixed
        cell.metadata["tags"] = notebooks.tags(template)
        if "workbook" in template.metadata:
            cell.metadata["workbook"] = dict(template.metadata["workbook"])
        return cell

    # Walk the submission; learner-added cells stay after the lab cell they followed.
    added_after: dict[str | None, list] = {}
    previous = None
    for cell in sub.cells:
        if cell.get("id") in lab_ids:
            previous = cell.get("id")
        else:
            added_after.setdefault(previous, []).append(cell)
    out = list(added_after.get(None, []))
    for template in lab.cells:
        out.append(restored(template))
        out.extend(added_after.get(template.id, []))
    for cell in out:
        if cell.get("cell_type") == "raw" or cell.get("id") in lab_ids:
            continue
        cell.metadata["tags"] = [t for t in notebooks.tags(cell) if t not in notebooks.PROTECTED_TAGS + ("exercise",)]

    nb = nbformat.from_dict(lab)
    nb.cells = out
    notebooks.strip_outputs(nb)
    return Repaired(nb, notes)
