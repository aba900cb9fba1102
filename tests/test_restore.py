"""helpers.grading.restore: broken files are rejected with a reason; protected cells come back by id."""

from pathlib import Path

import nbformat
import pytest

from helpers import notebooks
from helpers.grading.restore import InvalidSubmission, load_submission, restore

ROOT = Path(__file__).resolve().parents[1]
LAB = ROOT / "labs" / "04_inductor_output.ipynb"


@pytest.fixture
def lab():
    return notebooks.read(LAB)


def cell(nb, cid):
    return next(c for c in nb.cells if c.id == cid)


@pytest.mark.parametrize("content, words", [
    (b"{not json", "not valid notebook JSON"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "not valid notebook JSON"),
    (b'{"hello": 1}', "not a Jupyter notebook"),
    (b'[1, 2, 3]', "not a Jupyter notebook"),
])
def test_invalid_files_rejected_with_reason(tmp_path, content, words):
    path = tmp_path / "sub.ipynb"
    path.write_bytes(content)
    with pytest.raises(InvalidSubmission, match=words):
        load_submission(path)


def test_untouched_lab_needs_no_repair(lab):
    repaired = restore(nbformat.from_dict(lab), lab)
    assert repaired.notes == []
    assert [c.id for c in repaired.nb.cells] == [c.id for c in lab.cells]


@pytest.mark.parametrize("solution", sorted((ROOT / "solutions").glob("0*.ipynb")), ids=lambda p: p.name[:2])
def test_the_reference_solution_needs_no_repair(solution):
    """A solution's introduction has no points table (the build adds it to the lab's): not an edit to report. The
    warm-up grades the reference solution, and its record is shown to the instructor."""
    lab = notebooks.read(ROOT / "labs" / solution.name)
    assert restore(notebooks.read(solution), lab).notes == []


def test_an_edited_introduction_is_still_reported(lab):
    sub = nbformat.from_dict(lab)
    intro = cell(sub, "intro")
    intro.source = intro.source.replace(notebooks.LAB_HEADING, "**Points (mine).**").replace("Lab 04", "Lab 4", 1)
    assert any("'intro'" in n and "restored" in n for n in restore(sub, lab).notes)


def test_edited_check_cell_is_restored_and_reported(lab):
    sub = nbformat.from_dict(lab)
    cell(sub, "check-c").source = "print('✅ all checks passed')"
    repaired = restore(sub, lab)
    assert cell(repaired.nb, "check-c").source == cell(lab, "check-c").source
    assert any("check cell 'check-c'" in n and "restored" in n for n in repaired.notes)


def test_deleted_cells_reinserted_in_place(lab):
    sub = nbformat.from_dict(lab)
    sub.cells = [c for c in sub.cells if c.id not in ("check-a", "setup", "ex-c")]
    repaired = restore(sub, lab)
    assert [c.id for c in repaired.nb.cells] == [c.id for c in lab.cells]
    assert len([n for n in repaired.notes if "deleted" in n]) == 3
    assert any("ex-c" in n and "stub" in n for n in repaired.notes)


def test_learner_code_kept_and_added_cells_stay_put(lab):
    sub = nbformat.from_dict(lab)
    cell(sub, "ex-a").source = "def compile_head(model):\n    return torch.compile(model)"
    helper = nbformat.v4.new_code_cell("def my_helper():\n    return 1")
    helper.metadata["tags"] = ["check"]          # a learner cannot make a cell protected
    sub.cells.insert([c.id for c in sub.cells].index("ex-a") + 1, helper)
    repaired = restore(sub, lab)
    ids = [c.id for c in repaired.nb.cells]
    assert ids[ids.index("ex-a") + 1] == helper.id
    assert "torch.compile(model)" in cell(repaired.nb, "ex-a").source
    assert notebooks.tags(cell(repaired.nb, helper.id)) == []


def test_duplicated_and_retyped_cells(lab):
    sub = nbformat.from_dict(lab)
    ex = cell(sub, "ex-b")
    ex.source = "def dump_inductor_debug(fn, args, root):\n    return None"
    sub.cells.append(nbformat.from_dict(ex))            # the same id twice
    retyped = nbformat.v4.new_markdown_cell(cell(lab, "ex-s").source)
    retyped.id = "ex-s"
    sub.cells[[c.id for c in sub.cells].index("ex-s")] = retyped
    check = nbformat.v4.new_raw_cell(cell(lab, "check-b").source)
    check.id = "check-b"
    sub.cells[[c.id for c in sub.cells].index("check-b")] = check
    repaired = restore(sub, lab)
    assert [c.id for c in repaired.nb.cells].count("ex-b") == 1
    assert cell(repaired.nb, "ex-s").cell_type == "code"
    assert cell(repaired.nb, "check-b").cell_type == "code"
    notes = " ".join(repaired.notes)
    assert "appeared 2 times" in notes and "turned back into a code cell" in notes and "check-b" in notes


def test_outputs_are_dropped(lab):
    sub = nbformat.from_dict(lab)
    cell(sub, "ex-a").outputs = [nbformat.v4.new_output("stream", text="✅ 04.compile_match [2/2]")]
    assert not notebooks.has_outputs(restore(sub, lab).nb)


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_a_notebook_saved_with_a_byte_order_mark_is_read(tmp_path, encoding):
    """Notepad and PowerShell save with a byte-order mark (UTF-8 or UTF-16): the answers are read, not refused."""
    path = tmp_path / "sub.ipynb"
    path.write_bytes((ROOT / "solutions" / "04_inductor_output.ipynb").read_text().encode(encoding))
    nb = load_submission(path)
    assert any("def compile_head" in c.source for c in nb.cells)


def test_an_nbformat_3_notebook_is_converted(tmp_path):
    """A notebook in the old worksheets format (nbformat 3) is converted, its code kept."""
    v3 = {"nbformat": 3, "nbformat_minor": 0, "metadata": {"name": ""}, "worksheets": [{"metadata": {}, "cells": [
        {"cell_type": "code", "language": "python", "input": "x = 41 + 1", "outputs": [], "metadata": {}}]}]}
    path = tmp_path / "old.ipynb"
    path.write_text(__import__("json").dumps(v3))
    nb = load_submission(path)
    assert nb.nbformat == 4 and [c.source for c in nb.cells] == ["x = 41 + 1"]


def without_ids(path: Path, tmp_path: Path, edit=None) -> Path:
    """The notebook as an older tool saves it: nbformat 4.4, no cell ids (optionally edited first)."""
    import json

    data = json.loads(path.read_text())
    data["nbformat_minor"] = 4
    for c in data["cells"]:
        c.pop("id", None)
    if edit:
        edit(data["cells"])
    out = tmp_path / "old_format.ipynb"
    out.write_text(json.dumps(data))
    return out


@pytest.mark.parametrize("lab_name", sorted(p.stem for p in (ROOT / "solutions").glob("0*.ipynb")))
def test_a_notebook_without_ids_keeps_every_answer(lab_name, tmp_path):
    """An honest notebook saved as nbformat 4.4 is matched by position and content, never replaced by stubs."""
    import warnings

    solution = notebooks.read(ROOT / "solutions" / f"{lab_name}.ipynb")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sub = load_submission(without_ids(ROOT / "solutions" / f"{lab_name}.ipynb", tmp_path))
    repaired = restore(sub, notebooks.read(ROOT / "labs" / f"{lab_name}.ipynb"))
    answers = {c.id: c.source for c in solution.cells if "exercise" in notebooks.tags(c)}
    assert {c.id: c.source for c in repaired.nb.cells if c.id in answers} == answers
    assert "matched" in repaired.notes[0] and not any("deleted" in n for n in repaired.notes)


def test_without_ids_added_and_deleted_cells_are_told_apart(lab, tmp_path):
    import warnings

    def edit(cells):
        at = next(i for i, c in enumerate(cells) if "def compile_head" in "".join(c["source"]))
        cells.insert(at + 1, nbformat.v4.new_code_cell("SCALE = 3  # a helper of mine"))
        del cells[at - 1]                                  # the markdown above the exercise

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sub = load_submission(without_ids(ROOT / "solutions" / "04_inductor_output.ipynb", tmp_path, edit))
    repaired = restore(sub, lab)
    ids = [c.id for c in repaired.nb.cells]
    helper = repaired.nb.cells[ids.index("ex-a") + 1]
    assert helper.source.startswith("SCALE = 3") and helper.id not in {c.id for c in lab.cells}
    assert "torch.compile" in cell(repaired.nb, "ex-a").source
    assert any("a-intro" in n and "deleted" in n for n in repaired.notes)
