"""Before a submission runs: read it safely and put back what the learner must not change.

Cells are matched by id against the released lab. Check, given and parameters
cells and the instructions are restored from the lab; deleted cells are
re-inserted (a deleted exercise comes back as its stub); cells the learner
added stay where they were. Every change is noted for the feedback.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat.warnings import MissingIDFieldWarning

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
    try:
        text = _decode(path.read_bytes())
        data = json.loads(text)
    except (UnicodeDecodeError, ValueError) as err:
        raise InvalidSubmission(f"{path.name} is not valid notebook JSON ({str(err)[:120]}); open it in JupyterLab, save it, and resubmit.") from None
    cells = data.get("cells", data.get("worksheets")) if isinstance(data, dict) else None   # worksheets: nbformat 3
    if not isinstance(cells, list):
        raise InvalidSubmission(f"{path.name} is JSON but not a Jupyter notebook (no list of cells).")
    try:
        with warnings.catch_warnings():      # a notebook without cell ids (older format, Colab) is normal here
            warnings.simplefilter("ignore", MissingIDFieldWarning)
            nb = nbformat.reads(text, as_version=4)
            if nb.nbformat_minor < notebooks.NBFORMAT_MINOR:
                nb.nbformat_minor = notebooks.NBFORMAT_MINOR
            nbformat.validator.normalize(nb)
    except Exception as err:  # nbformat raises many kinds
        raise InvalidSubmission(f"{path.name} could not be read as a notebook ({type(err).__name__}: {str(err)[:120]}).") from None
    return nb


def _decode(raw: bytes) -> str:
    """A notebook's text: UTF-8, with or without the byte-order mark some Windows editors write, or UTF-16 with its
    mark (what PowerShell's `>` saves)."""
    import codecs

    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return raw.decode("utf-16")
    return raw.decode("utf-8-sig")


def is_protected(cell) -> bool:
    """Cells the learner must not change: checks, given code, parameters, instructions."""
    tags = set(notebooks.tags(cell))
    if tags & set(notebooks.PROTECTED_TAGS):
        return True
    return cell.cell_type == "markdown" and "answer" not in tags


def _describe(cell) -> str:
    role = next((t for t in notebooks.tags(cell) if t in ("check", "given", "parameters", "exercise", "answer")), "instructions")
    return f"{role} cell '{cell.get('id')}'"


def _key(cell) -> tuple[str, str]:
    return cell.cell_type, cell.source.strip()


def match_by_content(sub: nbformat.NotebookNode, lab: nbformat.NotebookNode) -> int:
    """Give the submission's cells the lab's ids by position and content (for notebooks saved without cell ids, or
    with ids another tool made up); return how many cells were matched.

    Unchanged cells are matched exactly, in order (a diff of the two cell lists); in each stretch between them, the
    lab's cells take, in order, the submission's cells of the same type that resemble them most. Cells left over
    are the learner's own."""
    import difflib

    a, b = [_key(c) for c in lab.cells], [_key(c) for c in sub.cells]
    pairs: dict[int, int] = {}            # submission index → lab index
    last_i = last_j = 0
    for block in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_matching_blocks():
        _pair_stretch(lab.cells, sub.cells, range(last_i, block.a), range(last_j, block.b), pairs)
        for k in range(block.size):
            pairs[block.b + k] = block.a + k
        last_i, last_j = block.a + block.size, block.b + block.size
    import uuid

    for j, cell in enumerate(sub.cells):
        cell["id"] = lab.cells[pairs[j]].id if j in pairs else uuid.uuid4().hex[:8]
    return len(pairs)


def _names(source: str) -> set[str]:
    """The names a cell defines: functions, classes and assigned constants (a stub and its answer share them)."""
    import re

    return {a or b for a, b in re.findall(r"^(?:def|class)\s+(\w+)|^([A-Za-z_]\w*)\s*=", source, flags=re.M)}


def _likeness(lab_cell, sub_cell) -> float:
    """How alike two cells of one type are: 1 when they define the same names, else their text's similarity."""
    import difflib

    names = _names(lab_cell.source)
    if names and names & _names(sub_cell.source):
        return 1.0
    return difflib.SequenceMatcher(a=lab_cell.source, b=sub_cell.source, autojunk=False).ratio()


def _pair_stretch(lab_cells, sub_cells, lab_range: range, sub_range: range, pairs: dict[int, int]) -> None:
    """Between two unchanged stretches: cells pair up in order when each type has as many cells on both sides;
    otherwise each lab cell takes the most alike later submission cell of its type."""
    for kind in {lab_cells[i].cell_type for i in lab_range}:
        mine = [i for i in lab_range if lab_cells[i].cell_type == kind]
        theirs = [j for j in sub_range if sub_cells[j].cell_type == kind]
        if len(mine) == len(theirs):
            pairs.update({j: i for i, j in zip(mine, theirs)})
            continue
        start = 0
        for i in mine:
            scored = [(_likeness(lab_cells[i], sub_cells[j]), -k, j) for k, j in enumerate(theirs[start:], start)]
            best = max(scored, default=None)
            if best is not None and best[0] >= 0.2:
                pairs[best[2]] = i
                start = -best[1] + 1


def restore(sub: nbformat.NotebookNode, lab: nbformat.NotebookNode) -> Repaired:
    """The submission with every protected lab cell restored by id and every deleted cell re-inserted."""
    notes: list[str] = []
    lab_ids = {c.id for c in lab.cells}
    protected = [c.id for c in lab.cells if is_protected(c)]
    found = {c.get("id") for c in sub.cells} & set(protected)
    if protected and len(found) < len(protected) / 2:
        matched = match_by_content(sub, lab)
        notes.append(f"Your notebook's cells carried no ids the lab knows (it was saved as an older notebook format, or "
                     f"by another tool), so the grader matched {matched} of its {len(sub.cells)} cells to the lab's by "
                     "position and content; the rest count as cells you added.")
    by_id: dict[str, list] = {}
    for cell in sub.cells:
        by_id.setdefault(cell.get("id"), []).append(cell)
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
            same = (cell.source == template.source
                    or notebooks.without_points_table(cell.source) == notebooks.without_points_table(template.source))
            if cell.cell_type != template.cell_type or not same or notebooks.tags(cell) != notebooks.tags(template):
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
