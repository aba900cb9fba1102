"""Lab 04's validators on real dumps from every device and torch version in the fixtures.

The solution's own annotation code must pass on each dump, and the lab's template must fail, so the
annotation check is right on CPU and GPU alike (the grading tests cover the rest end to end).
"""

from pathlib import Path

import pytest

from helpers import checks, inductor
from helpers.checks import lab04
from tests.submissions import cell, lab, solution

FIXTURES = Path(__file__).resolve().parents[1] / "solutions" / "hidden" / "dumps"
TINYHEADS = sorted(FIXTURES.glob("*/tinyhead"))


def softmax_kernel(folder):
    code = inductor.load_dump(folder)
    found = [k for k in code.kernels if lab04.kernel_is_softmax(k)]
    assert len(found) == 1, f"{folder}: {[k.name for k in code.kernels]}"
    return code, found[0]


def annotation_from(nb, kernel) -> str:
    """Run the notebook's annotation cell with `kernel_to_read` set, as the notebook does."""
    ns = {"kernel_to_read": kernel}
    exec(cell(nb, "ex-d").source, ns)
    return ns["ANNOTATION"]


def test_fixtures_cover_cpu_and_gpu():
    devices = {p.parent.name.split("-")[0] for p in TINYHEADS}
    assert {"cpu", "cuda"} <= devices, f"fixtures: {TINYHEADS}"


@pytest.mark.parametrize("folder", TINYHEADS, ids=lambda p: p.parent.name)
def test_solution_annotation_passes_and_template_fails(folder):
    _, kernel = softmax_kernel(folder)
    assert lab04.annotation_problems(annotation_from(solution(), kernel), kernel) == []
    problems = lab04.annotation_problems(annotation_from(lab(), kernel), kernel)
    assert problems and "misses" in problems[0]


@pytest.mark.parametrize("folder", TINYHEADS, ids=lambda p: p.parent.name)
def test_annotation_of_the_other_device_is_caught(folder):
    _, kernel = softmax_kernel(folder)
    others = [p for p in TINYHEADS if p.parent.name.split("-")[0] != folder.parent.name.split("-")[0]]
    for other in others:
        _, other_kernel = softmax_kernel(other)
        text = annotation_from(solution(), other_kernel)
        assert lab04.annotation_problems(text, kernel), f"an annotation of {other_kernel.name} passed for {kernel.name}"


def test_annotation_messages_name_what_is_missing():
    _, kernel = softmax_kernel(TINYHEADS[0])
    text = annotation_from(solution(), kernel).replace("## Reductions", "## Reduction stuff")
    assert "## Reductions" in " ".join(lab04.annotation_problems(text, kernel))


@pytest.mark.parametrize("folder", [p for p in sorted(FIXTURES.glob("*/*")) if (p / "ir_pre_fusion.txt").is_file()],
                         ids=lambda p: f"{p.parent.name}-{p.name}")
def test_scheduler_expectations_hold_on_real_ir(folder):
    code = inductor.load_dump(folder)
    ns = {}
    exec("import re\n" + cell(solution(), "ex-s").source, ns)
    pre, post = ns["scheduler_nodes"](code.ir_pre_fusion), ns["scheduler_nodes"](code.ir_post_fusion)
    assert lab04.scheduler_problems(pre, post) == [] or len(pre) == len(post)


def crossover_answers(find_crossover, cases) -> dict:
    return {"answers": [find_crossover(c.rows()) for c in cases],
            "rows": lab04.rows_for((0.5, 2.0), (1, 8))}


@pytest.mark.parametrize("hidden_cases", [False, True], ids=["public", "hidden"])
def test_solution_crossover_is_right_on_every_case(hidden_cases):
    """(The wrong rules, the first faster size among them, are in tests/wrong_answers/lab04.py.)"""
    cases, sweep = hidden_lab04().cases_for("04.crossover", {}) if hidden_cases else checks.spec("04.crossover").public_cases()
    sweep = lab04.SweepCase()
    ns = {}
    exec(cell(solution(), "ex-e").source, {"torch": None, "bench": None, "device": None, **ns}, ns)
    assert lab04.crossover_problems(crossover_answers(ns["find_crossover"], cases), cases, sweep, reveal=True) == []


def hidden_lab04():
    from helpers.grading import hidden

    return hidden.load_hidden("04")


def test_gpu_written_annotation_passes_the_hidden_check_on_any_grader():
    """An honest annotation of a stored GPU dump is judged against every dump it may describe (issue: fairness)."""
    gpu = [p for p in TINYHEADS if p.parent.name.startswith("cuda")][0]
    cpu = [p for p in TINYHEADS if p.parent.name.startswith("cpu")][0]
    _, gpu_kernel = softmax_kernel(gpu)
    _, cpu_kernel = softmax_kernel(cpu)
    case = hidden_lab04().cases_for("04.annotation", {"tinyhead": inductor.load_dump(cpu)})
    text = annotation_from(solution(), gpu_kernel)
    assert lab04.best_annotation_problems(text, [lab04.kernel_facts(k) for k in case.kernels]) == []
    wrong = annotation_from(lab(), gpu_kernel)
    assert lab04.best_annotation_problems(wrong, [lab04.kernel_facts(k) for k in case.kernels])
