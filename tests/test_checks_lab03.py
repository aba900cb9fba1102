"""Lab 03's checks against the solution's code, a correct alternative, and one classic mistake per check.

The notebook's definitions (vocabulary, passes, kernels, backend) are executed once from the solution notebook,
as the grader's worker does; each test then swaps in other code for one exercise and runs the public checks.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import checks
from helpers.notebooks import remember_source
from helpers.checks import lab03
from tests.lab03_variants import ALTERNATIVE, BROKEN

ROOT = Path(__file__).resolve().parents[1]
CELLS = ["parameters", "setup", "ex-1", "p2-vocab", "ex-2a", "ex-2b", "p2-pass", "ex-3", "p4-table", "ex-4", "ex-5",
         "p5-register", "ex-6"]
NAMES = [s.name for s in checks.load_lab("03")]


@pytest.fixture(scope="module")
def notebook(tmp_path_factory):
    """The solution notebook's definitions, executed on the CPU (Triton's interpreter)."""
    os.environ.setdefault("WORKBOOK_QUICK", "1")
    nb = json.loads((ROOT / "solutions" / "03_operator_fusion.ipynb").read_text())
    source = {c["id"]: "".join(c["source"]) for c in nb["cells"]}
    ns = {"__name__": "__main__"}
    for cid in CELLS:
        code = source[cid]
        if cid == "parameters":
            code = code.replace('DEVICE = "auto"', 'DEVICE = "cpu"').replace(
                'OUT_DIR = "experiments/03_operator_fusion"', f'OUT_DIR = {str(tmp_path_factory.mktemp("lab03"))!r}')
        exec(compile(code, remember_source(code, f"<lab03 cell {cid}>"), "exec"), ns)
    return ns




@pytest.fixture()
def restore_backend(notebook):
    yield
    from torch._dynamo.backends import registry

    registry._COMPILER_FNS["memfuse"] = notebook["memfuse"]


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes(notebook, name):
    result = checks.run_check(name, notebook)
    assert result.passed, result.line()


def test_untouched_stubs_fail_with_not_written_yet(notebook, restore_backend):
    stubs = {"traffic_bytes", "find_fusible_chains", "fuse_chain", "chain_triton", "emit_triton", "memfuse",
             "estimate_peak_bytes"}
    broken = dict(notebook)
    for fn in stubs:
        exec(f"def {fn}(*args, **kwargs):\n    raise NotImplementedError('{fn}')\n", broken)
    _rebind(broken)
    for name in NAMES:
        result = checks.run_check(name, broken)
        assert not result.passed and "not written yet" in result.message, result.line()


def _rebind(ns: dict) -> None:
    """Solution classes and functions read globals from the dict they were defined in: re-run those cells' code."""
    nb = json.loads((ROOT / "solutions" / "03_operator_fusion.ipynb").read_text())
    source = {c["id"]: "".join(c["source"]) for c in nb["cells"]}
    keep = {k: ns[k] for k in ("traffic_bytes", "find_fusible_chains", "fuse_chain", "chain_triton", "chain_kernel",
                               "emit_triton", "memfuse", "estimate_peak_bytes") if k in ns}
    for cid in ("p2-pass", "p4-table", "p5-register"):
        code = source[cid]
        if cid == "p2-pass":
            code = code.split("\n\n\nmodel = Spellings()")[0]
        exec(compile(code, remember_source(code, f"<lab03 cell {cid}>"), "exec"), ns)
    ns.update(keep)
    from torch._dynamo.backends import registry

    registry._COMPILER_FNS["memfuse"] = ns["memfuse"]


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_each_classic_mistake_fails_its_check(notebook, restore_backend, name):
    why, code = BROKEN[name]
    ns = dict(notebook)
    exec(compile(code, remember_source(code, f"<lab03 broken {name}>"), "exec"), ns)
    _rebind(ns)
    result = checks.run_check(name, ns)
    assert not result.passed, f"{name} passed with code that {why}"
    assert result.status == "failed" and len(result.message) > 40, result.line()


def test_alternative_implementation_passes_every_check(notebook, restore_backend):
    ns = dict(notebook)
    for cid, code in ALTERNATIVE.items():    # Triton reads a kernel's source back through linecache
        exec(compile(code, remember_source(code, f"<lab03 alternative {cid}>"), "exec"), ns)
    _rebind(ns)
    failed = [r.line() for r in (checks.run_check(n, ns) for n in NAMES) if not r.passed]
    assert not failed, failed


def test_chain_verifier_accepts_either_answer_at_a_join(notebook):
    import torch.fx as fx

    gm = fx.symbolic_trace(lab03.Branches())
    ew, mut = notebook["elementwise_op"], notebook["mutates"]
    forward = [["sigmoid", "mul", "sub"], ["tanh", "add", "mul_1"]]
    other = [["sigmoid", "mul", "sub", "mul_1"], ["tanh", "add"]]
    assert lab03.chain_problems(gm, forward, ew, mut, "g") == []
    assert lab03.chain_problems(gm, other, ew, mut, "g") == []
    assert lab03.chain_problems(gm, [["sigmoid", "mul"], ["tanh", "add", "mul_1"]], ew, mut, "g")   # not maximal
    assert lab03.chain_problems(gm, [], ew, mut, "g")                                                 # missed


def test_hidden_messages_do_not_show_hidden_numbers():
    msgs = lab03.bytes_problems("traffic_bytes", [10], [20], ["the grader's model"], reveal=False)
    assert "20" not in msgs[0] and "too low" in msgs[0]
    msgs = lab03.bytes_problems("estimate_peak_bytes", [30], [20], ["the grader's model"], reveal=False)
    assert "20" not in msgs[0] and "too high" in msgs[0]


@pytest.mark.slow
def test_alternative_scores_full_marks_under_workbook_grade(tmp_path):
    """The grader's hidden checks accept the alternative too, on inputs the notebook never saw."""
    from helpers import notebooks
    from helpers.grading import batch

    nb = notebooks.read(ROOT / "solutions" / "03_operator_fusion.ipynb")
    for cell in nb.cells:
        if cell.id in ALTERNATIVE:
            cell.source = ALTERNATIVE[cell.id].strip("\n")
    folder = tmp_path / "subs"
    folder.mkdir()
    notebooks.write(nb, folder / "alternative.ipynb")
    settings = batch.Settings(lab="03", out=tmp_path / "grades", jobs=1, cell_timeout=300, call_timeout=120, warm=False)
    (result,) = batch.grade([folder], settings, progress=False)
    assert (result.status, result.total) == ("ok", result.max_total), [c.line() for c in result.checks if not c.passed]
