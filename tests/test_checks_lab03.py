"""Lab 03's checks, public and hidden, against the solution and the untouched lab.

Each namespace is a notebook's definition cells run in this process (tests/in_process_grader.py); the checks then
run on it as the notebook runs them (public cases) and as the grader does (hidden cases, nothing revealed). The
mistakes a learner makes, and a correct alternative written another way, are in tests/wrong_answers/lab03.py
(tests/test_catch_rates.py runs them); the last test grades that alternative with real jobs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import checks, notebooks
from helpers.checks import lab03
from tests.in_process_grader import notebook_namespace, run_hidden, run_public
from tests.wrong_answers.lab03 import ALTERNATIVE

ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "03_operator_fusion.ipynb"
LAB = ROOT / "labs" / "03_operator_fusion.ipynb"
CELLS = ["parameters", "setup", "ex-1", "p2-vocab", "ex-2a", "ex-2b", "p2-pass", "ex-3", "p4-table", "ex-4", "ex-5",
         "p5-register", "ex-6", "ex-8a", "ex-8b", "ex-8c"]
NAMES = [s.name for s in checks.load_lab("03")]
SIDES = ["public", "hidden"]


def namespace(path: Path, out_dir: Path, overrides: dict[str, str] | None = None) -> dict:
    """A notebook's definition cells run here (p2-pass without its demo, which needs a working fuse_chain); its
    Triton kernels read their source now, while the cells' names (shared by every namespace) hold their code."""
    fusion_pass = next(c for c in notebooks.read(path).cells if c.id == "p2-pass").source.split("\n\n\nmodel = ")[0]
    ns = notebook_namespace(path, out_dir, CELLS, {"p2-pass": fusion_pass, **(overrides or {})})
    for value in list(ns.values()):
        if type(value).__name__ == "InterpretedFunction":
            value.rewrite()
    return ns


def grade(name: str, ns: dict, out_dir: Path, side: str) -> checks.Result:
    """Run check `name` on `ns`, public or hidden, with this namespace's memfuse as the registered backend."""
    from torch._dynamo.backends import registry

    registry._COMPILER_FNS["memfuse"] = ns["memfuse"]     # every namespace registers its own under one name
    return (run_hidden if side == "hidden" else run_public)(name, ns, out_dir)


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("lab03")


@pytest.fixture(scope="module")
def solution(out_dir) -> dict:
    return namespace(SOLUTION, out_dir)


@pytest.fixture(scope="module")
def untouched(out_dir) -> dict:
    return namespace(LAB, out_dir)


def test_points_total_twenty():
    assert sum(checks.spec(n).points for n in NAMES) == 20 and len(NAMES) == 11


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("name", NAMES)
def test_solution_passes(solution, out_dir, name, side):
    result = grade(name, solution, out_dir, side)
    assert result.passed, result.line()


@pytest.mark.parametrize("side", SIDES)
def test_untouched_lab_fails_with_not_written_yet(untouched, out_dir, side):
    for name in NAMES:
        result = grade(name, untouched, out_dir, side)
        assert not result.passed and "not written yet" in result.message, result.line()


def test_chain_verifier_accepts_either_answer_at_a_join(solution):
    import torch.fx as fx

    facts = lab03.graph_facts(fx.symbolic_trace(lab03.Branches()), solution["elementwise_op"], solution["mutates"])
    forward = [["sigmoid", "mul", "sub"], ["tanh", "add", "mul_1"]]
    other = [["sigmoid", "mul", "sub", "mul_1"], ["tanh", "add"]]
    assert lab03.chain_problems(facts, forward, "g") == []
    assert lab03.chain_problems(facts, other, "g") == []
    assert lab03.chain_problems(facts, [["sigmoid", "mul"], ["tanh", "add", "mul_1"]], "g")   # not maximal
    assert lab03.chain_problems(facts, [], "g")                                                 # missed


def test_hidden_messages_do_not_show_hidden_numbers():
    import torch

    msgs = lab03.bytes_problems("traffic_bytes", [10], [20], ["the grader's model"], reveal=False)
    assert "20" not in msgs[0] and "too low" in msgs[0]
    msgs = lab03.bytes_problems("estimate_peak_bytes", [30], [20], ["the grader's model"], reveal=False)
    assert "20" not in msgs[0] and "too high" in msgs[0]
    said = lab03.close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.75]), atol=1e-6, reveal=False)
    assert said and "2.75" not in said
    assert "(3,)" not in lab03.close(torch.zeros(2), torch.zeros(3), atol=1e-6, reveal=False)


@pytest.mark.slow
def test_alternative_scores_full_marks_under_workbook_grade(tmp_path, warm_lab):
    """The grader's hidden checks accept the alternative too, on inputs the notebook never saw (graded with the
    caches of the batch's warm-up, as a batch grades every submission: conftest.warm_lab)."""
    import shutil

    from helpers.grading import batch

    nb = notebooks.read(SOLUTION)
    for cell in nb.cells:
        if cell.id in ALTERNATIVE:
            cell.source = ALTERNATIVE[cell.id].strip("\n")
    folder = tmp_path / "subs"
    folder.mkdir()
    notebooks.write(nb, folder / "alternative.ipynb")
    shutil.copytree(warm_lab("03"), tmp_path / "grades" / ".warm", symlinks=True)
    settings = batch.Settings(lab="03", out=tmp_path / "grades", jobs=1, cell_timeout=300, call_timeout=120, threads=1)
    (result,) = batch.grade([folder], settings, progress=False)
    assert (result.status, result.total) == ("ok", result.max_total), [c.line() for c in result.checks if not c.passed]


def test_nothing_scored_twice():
    """memfuse is scored once, by 03.backend; part 7's end-to-end check re-runs exercises 2a, 4 and 5 for 0 points."""
    assert checks.spec("03.pitfalls").points == 0 and checks.spec("03.backend").points == 3


def test_guard_space_catches_a_write_past_the_end_and_keeps_views():
    import torch

    guard = lab03.GuardSpace(slack=64)
    x = guard.guard(torch.arange(12.0).reshape(3, 4).t())          # strides kept, values kept
    assert x.stride() == (1, 4) and torch.equal(x, torch.arange(12.0).reshape(3, 4).t())
    with guard:
        y = torch.empty_like(x.contiguous())
    assert not guard.overrun()
    y.untyped_storage()                                             # y lives at the start of a guarded buffer
    torch.as_strided(y, (y.numel() + 1,), (1,), 0)[-1] = 1.0        # one element past the end, as an unmasked store
    assert guard.overrun()
    assert lab03.GuardSpace().guard(torch.zeros(0)).numel() == 0


def test_guard_space_catches_a_read_past_the_end_of_an_active_lane_only():
    import numpy as np
    import torch

    guard = lab03.GuardSpace(slack=64)
    x = guard.guard(torch.arange(8.0))
    lanes = x.data_ptr() + 4 * np.arange(10, dtype=np.uint64)      # elements 0..9 of an 8-element tensor
    guard.note_reads(lanes, np.arange(10) < 8)                      # masked off past the end: nothing read there
    assert not guard.overread
    guard.note_reads(lanes, np.ones(10, dtype=bool))                # lanes 8 and 9 read guard space
    assert guard.overread


def test_every_run_byte_counts_agree_with_the_graders_references():
    """The byte counts worked out by hand for the graphs every run judges (both sides) are the grader's reference
    implementations' counts too, and a configs_that_fit that writes into its configs is named for it."""
    import sys

    import torch
    import torch.fx as fx

    from helpers.grading import hidden

    hidden.load_hidden("03")
    ref = sys.modules["workbook_hidden_lab03"]
    for cases, reference in ((lab03.EVERY_RUN_TRAFFIC, ref.reference_traffic), (lab03.EVERY_RUN_PEAK, ref.reference_peak)):
        for case in cases:
            with torch.no_grad():
                assert reference(fx.symbolic_trace(case.fn), *[t.clone() for t in case.inputs]) == case.want, case.about
    case = lab03.smem_cases()[0]
    tiles = lambda c, stages, nbytes: stages * (c["BLOCK_M"] * c["BLOCK_K"] + c["BLOCK_K"] * c["BLOCK_N"]) * nbytes
    report = {"sizes": [{"asked": tiles(c, c["num_stages"], case.itemsize), "one_stage": tiles(c, 1, case.itemsize),
                         "one_stage_one_byte": tiles(c, 1, 1)} for c in case.configs]}
    fits = [c for c, s in zip(case.configs, report["sizes"]) if s["asked"] <= case.limit]
    assert lab03.smem_problems({**report, "fit": fits, "changed_input": False}, case) == []
    marked = [{**c, "smem": 1} for c in fits]
    assert "changed the configs" in lab03.smem_problems({**report, "fit": marked, "changed_input": True}, case)[0]


def test_judges_of_the_second_fair_grades_round():
    """A cost dict may carry more keys than flops and bytes; an input changed in place more often than eager changes
    it is named; a returned value's readers include the output node; linear_gelu's tile sizes are passed only where
    its signature takes them."""
    import torch
    import torch.fx as fx

    cost = {"flops": 10, "bytes": 20, "intensity": 0.5}
    assert lab03.as_cost(cost) == {"flops": 10, "bytes": 20} and lab03.as_cost([1]) == "[1]"
    case = lab03.EVERY_RUN_BACKEND[0]
    want, after = case.want(), case.inputs_after()
    assert torch.equal(case.inputs[1], lab03.tensors(10, (300,), (300,))[1]), "the case's own inputs stay as they were"
    report = {"registered": True, "out": want, "launched": 1, "inputs_after": after}
    assert lab03.backend_problems(report, "g", want, 1, inputs_after=after) == []
    twice = [after[0], after[1] * 2]
    assert "warm-up" in lab03.backend_problems({**report, "inputs_after": twice}, "g", want, 1, inputs_after=after)[0]
    facts = lab03.graph_facts(fx.symbolic_trace(lab03.returned_and_read),
                              lambda gm, n: "op" if n.op.startswith("call") else None, lambda gm, n: False)
    said = lab03.chain_problems(facts, [["relu", "mul", "sigmoid"]], "g")
    assert any("output node is one of them" in p for p in said), said
    assert lab03.takes_blocks(lambda x, w, b, block_m=32, block_n=32, block_k=32: None)
    assert lab03.takes_blocks(lambda x, w, b, **kw: None) and not lab03.takes_blocks(lambda x, w, b: None)


def test_tiles_given_takes_the_tiles_asked_for_or_a_clamp_to_a_small_problem():
    from helpers.checks.lab03 import tiles_given

    assert tiles_given([64, 32, 16], (64, 32, 16), (256, 256, 256))          # as asked
    assert not tiles_given([32, 32, 32], (64, 32, 16), (256, 256, 256))      # its own tiles, whatever was asked
    assert tiles_given([16, 32, 16], (64, 32, 16), (10, 256, 256))           # M = 10: 64 clamped to 16
    assert not tiles_given([8, 32, 16], (64, 32, 16), (10, 256, 256))        # below M rounded up: not a clamp
    assert tiles_given([64, 32, 16], (64, 32, 16), (10, 256, 256))           # a clamp is allowed, not required


def test_fp16_cancelling_case_is_exact_in_fp32_and_not_in_fp16_partial_sums():
    """Part 8a's every-run fp16 case: every input is exact in fp16 and every partial sum exact in fp32, so an fp32
    accumulator (the interpreter's, or a GPU's tensor cores) gets the exact product, while rounding each 32-wide K
    block's partial sum to fp16 (out_dtype=tl.float16) misses the tolerance; and the positive results it is judged
    on are a few units, not hundreds."""
    import torch

    x, w, b = lab03.cancelling_halves()
    assert x.dtype == w.dtype == b.dtype == torch.float16
    exact = x.double() @ w.double().T
    assert torch.equal((x.float() @ w.float().T).double(), exact)
    rounded = sum((x[:, k:k + 32].double() @ w[:, k:k + 32].double().T).half().double() for k in range(0, 128, 32))
    ref = torch.nn.functional.gelu(exact + b.double())
    got = torch.nn.functional.gelu(rounded + b.double())
    tol = lab03.linear_tolerance(torch.float16, "cuda", False)
    assert ((got - ref).abs() > tol * (1 + ref.abs())).any()
    assert exact.abs().max() < 32


def test_linear_gelu_errors_are_explained():
    """An exception linear_gelu raised on shapes that fit gets words about its likely cause."""
    hint = lab03.linear_error_hint
    assert "next_power_of_2" in hint("InterpreterError: ValueError(\"arange's range must be a power of 2\")")
    assert "fp32" in hint("InterpreterError: ValueError('out_dtype=bfloat16 is unsupported.')")
    assert "masks" in hint("ValueError: K=33 is not a multiple of BLOCK_K=32")
    assert hint("RuntimeError: something else") == ""


def test_gpu_launch_count_sees_jit_launches_only(monkeypatch):
    """On a GPU, chain_triton's launches are those of @triton.jit functions (JITFunction.run), so a result that came
    from a compiled graph's kernels (no JITFunction launched) is told apart; a warm-up compile is not a launch. The
    real run needs a GPU: here it is stood in for."""
    from triton.runtime.jit import JITFunction

    ran = []
    monkeypatch.setattr(JITFunction, "run", lambda self, *args, **kwargs: ran.append(kwargs.get("warmup")))
    record = lab03.Launches()
    kernel = object.__new__(JITFunction)
    with lab03.counted_jit_launches(record):
        kernel.run(grid=(1,), warmup=False)
        kernel.run(grid=(1,), warmup=True)
    kernel.run(grid=(1,), warmup=False)              # after the context: the real run again, not counted
    assert record.watching and record.launched == 1 and ran == [False, True, False]
    problems = lab03.kernel_problems({"outs": [{"out": None, "aten": [], "converted": [], "watched": True,
                                                "launched": 0, "programs": []}], "bad_block": None},
                                   lab03.kernel_cases()[0][:1], 1000)
    assert any("launched no Triton kernel" in p for p in problems)
