"""Lab 05's checks, public and hidden: the solution passes, the untouched lab fails, and wrong answers fail with a
message that says what to fix. The survey checks run on the fixtures in tests/fixtures/lab05/ (a good survey,
one whose DDP and pipeline sections swap their collectives, one too short, one naming the removed Pipe API).

Hidden checks run in this process, with answers round-tripped through torch.save / torch.load(weights_only=True)
as the grader's worker does; test_grading_labs.py runs them in the real sandbox. The distributed checks start
torchrun (a few seconds each on 2 cores): those tests are marked slow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import checks, notebooks
from helpers.checks import lab05
from helpers.grading import hidden
from tests.in_process_grader import run_hidden, worker_namespace

ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "05_distributed.ipynb"
LAB = ROOT / "labs" / "05_distributed.ipynb"
FIXTURES = ROOT / "tests" / "fixtures" / "lab05"
HIDDEN, _, WORKER_CELLS = hidden.load_hidden("05")
NAMES = [s.name for s in checks.load_lab("05")]
SURVEY = [n for n in NAMES if n.startswith("05.survey")]
LAUNCHED = ["05.collectives", "05.ddp", "05.fsdp", "05.tp", "05.pp"]


def namespace(tmp_path: Path, path: Path = SOLUTION, overrides: dict[str, str] | None = None) -> dict:
    """The worker's namespace (the cells the grader loads), OUT_DIR in tmp_path, some cells replaced."""
    return worker_namespace(path, WORKER_CELLS, tmp_path, overrides)


def public(name: str, ns: dict) -> checks.Result:
    return checks.run_check(name, ns)


def secret(name: str, ns: dict, out_dir: Path) -> checks.Result:
    return run_hidden(name, HIDDEN[name], ns, out_dir)


def cell_source(path: Path, cell_id: str) -> str:
    return next(c.source for c in notebooks.read(path).cells if c.id == cell_id)


def test_hidden_checks_mirror_the_public_ones():
    assert sorted(HIDDEN) == sorted(NAMES)
    assert sum(s.points for s in checks.load_lab("05")) == 21


# ---------------------------------------------------------------- the survey
def survey_results(text: str, tmp_path: Path) -> dict[str, tuple[checks.Result, checks.Result]]:
    (tmp_path / lab05.SURVEY_FILE).write_text(text, encoding="utf-8")
    ns = {"OUT_DIR": str(tmp_path)}
    return {n: (public(n, ns), secret(n, {}, tmp_path)) for n in SURVEY}


def test_good_survey_passes_every_survey_check(tmp_path):
    for name, (pub, hid) in survey_results((FIXTURES / "good.md").read_text(), tmp_path).items():
        assert pub.passed and hid.passed, (name, pub.message, hid.message)


def test_swapping_two_patterns_collectives_loses_exactly_those_points(tmp_path):
    results = survey_results((FIXTURES / "swapped_ddp_pp.md").read_text(), tmp_path)
    failed = {n for n, (pub, hid) in results.items() if not pub.passed}
    assert failed == {"05.survey_ddp", "05.survey_pp"}
    assert all(pub.passed == hid.passed for pub, hid in results.values())
    ddp, pp = results["05.survey_ddp"][0].message, results["05.survey_pp"][0].message
    assert "DDP section's **Communicates** names point-to-point send/recv" in ddp and "pipeline parallel" in ddp
    assert "does not name all-reduce" in ddp
    assert "pipeline parallel section's **Communicates** names all-reduce" in pp and "does not name point-to-point" in pp
    lost = sum(r.max_score - r.score for r, _ in results.values())
    assert lost == 2


def test_too_short_survey_says_which_sections_fall_short(tmp_path):
    results = survey_results((FIXTURES / "too_short.md").read_text(), tmp_path)
    msg = results["05.survey"][0].message
    assert not results["05.survey"][0].passed and "too short" in msg and "shortest sections are" in msg
    assert "two sentences" in results["05.survey_ddp"][0].message


def test_removed_pipe_api_is_named(tmp_path):
    results = survey_results((FIXTURES / "removed_pipe_api.md").read_text(), tmp_path)
    assert not results["05.survey_pp"][0].passed and "removed" in results["05.survey_pp"][0].message
    assert all(results[n][0].passed for n in SURVEY if n != "05.survey_pp")


def test_naming_every_collective_everywhere_fails(tmp_path):
    text = (FIXTURES / "good.md").read_text()
    lines = [("- **Communicates**: all-reduce, all-gather, reduce-scatter and point-to-point send/recv of tensors "
              "in each layer.") if line.startswith("- **Communicates**") else line
             for line in text.splitlines() if not (line.startswith("  ") and "Communicates" in text)]
    results = survey_results("\n".join(lines), tmp_path)
    for key in ("ddp", "fsdp", "tp", "pp"):
        assert not results[f"05.survey_{key}"][0].passed, key


def test_a_contrast_with_another_pattern_is_allowed():
    text = (FIXTURES / "good.md").read_text().replace(
        "so most of it hides behind computation.", "so most of it hides behind computation; unlike FSDP, no all-gather.")
    assert lab05.pattern_problems(text, "ddp") == []


def test_solution_survey_passes_and_the_template_fails():
    for path, ok in ((SOLUTION, True), (LAB, False)):
        ns: dict = {}
        exec(cell_source(path, "ex-7"), ns)
        text = ns["SURVEY"]
        problems = [lab05.survey_problems(text)] + [lab05.pattern_problems(text, k) for k in lab05.PATTERNS]
        assert all(p == [] for p in problems) if ok else all(p for p in problems), problems


# ---------------------------------------------------------------- the calculator
def exact_measured(cfg: dict, world: int = 2) -> dict:
    """What parts 2–5 measure on cfg's model, worked out from FSDP2's and DTensor's rules (as the runs count it)."""
    from helpers.models import param_bytes, toy_model

    fsdp = lab05.fsdp_expected(cfg, world)
    act = cfg["batch"] * cfg["d"] * 4
    p = param_bytes(toy_model(cfg))
    return {"world": world, "model": {"params": p // 4, "blocks": cfg["blocks"], "d": cfg["d"], "batch": cfg["batch"]},
            "ddp": {"allreduce_bytes": p}, "fsdp": {"all_gather": fsdp["all_gather"], "reduce_scatter": fsdp["reduce_scatter"],
                                                     "local_bytes": p // world},
            "tp": {"all_reduce": 2 * cfg["blocks"] * act}, "pp": {"send": act}}


CFG = {"d_in": 32, "d": 64, "blocks": 4, "d_out": 8, "batch": 16, "seed": 0}


def test_solution_calculator_passes_public_and_hidden(tmp_path):
    ns = namespace(tmp_path)
    ns["measured"] = exact_measured(CFG)
    assert public("05.calculator", ns).passed, public("05.calculator", ns).message
    result = secret("05.calculator", ns, tmp_path)
    assert result.passed, result.message


def test_calculator_without_the_ring_factor_fails_with_the_formula(tmp_path):
    wrong = cell_source(SOLUTION, "ex-6").replace('"DDP": (1, 1, 1, 2 * ring * P * grad_bytes,', '"DDP": (1, 1, 1, 2 * P * grad_bytes,')
    ns = namespace(tmp_path, overrides={"ex-6": wrong})
    ns["measured"] = exact_measured(CFG)
    pub = public("05.calculator", ns)
    assert not pub.passed and "DDP's comm_GB_per_step" in pub.message and "2(N-1)/N" in pub.message
    hid = secret("05.calculator", ns, tmp_path)
    assert not hid.passed and "which is off" in hid.message and "13" not in hid.message


def test_calculator_against_measurements_says_what_differs(tmp_path):
    ns = namespace(tmp_path)
    ns["measured"] = {**exact_measured(CFG), "pp": {"send": 2 * CFG["batch"] * CFG["d"] * 4}}
    result = public("05.calculator", ns)
    assert not result.passed and "PP's comm_GB_per_step" in result.message and "the pipeline's sends" in result.message
    ns["measured"] = {"world": 2}
    assert "run parts 2–5" in public("05.calculator", ns).message


def test_untouched_lab_fails_the_quick_checks(tmp_path):
    ns = namespace(tmp_path, path=LAB)
    scope = {**ns, "Path": Path}
    exec(cell_source(LAB, "ex-7") + "\n" + cell_source(LAB, "write-7").replace("out_dir", "Path(OUT_DIR)"), scope)
    for name in ["05.calculator", *SURVEY]:
        pub, hid = public(name, ns), secret(name, ns, tmp_path)
        assert not pub.passed and not hid.passed and pub.message and hid.message, name


# ---------------------------------------------------------------- the distributed exercises (torchrun)
@pytest.mark.slow
@pytest.mark.parametrize("name", LAUNCHED)
def test_solution_passes_public_and_hidden(name, tmp_path):
    ns = namespace(tmp_path)
    pub = public(name, ns)
    assert pub.passed, pub.message
    hid = secret(name, ns, tmp_path)
    assert hid.passed, hid.message


@pytest.mark.slow
def test_untouched_lab_is_not_written_yet(tmp_path):
    ns = namespace(tmp_path, path=LAB)
    for name in LAUNCHED:
        result = public(name, ns)
        assert not result.passed and "not written yet" in result.message, (name, result.message)


WRONG = [
    # (check, cell, old, new, passes the public check?, words the failing message must hold)
    ("05.collectives", "ex-1", "(rank + 1) % world_size)", "(rank + 1) % 2)", True, "not every rank calls"),
    ("05.ddp", "ex-2", ", bucket_cap_mb=cfg[\"bucket_cap_mb\"])", ")", False, "bucket_cap_mb"),
    ("05.fsdp", "ex-3", "    for block in model.blocks:\n        fully_shard(block)\n", "", False, "fully_shard each block"),
    ("05.tp", "ex-4", 'ColwiseParallel()\n        plan[f"blocks.{i}.fc2"] = RowwiseParallel()',
     'ColwiseParallel(output_layouts=torch.distributed.tensor.Replicate())', False, "should be"),
    ("05.pp", "ex-5a", "return (p - 1) / (m + p - 1)", "return (p - 1) / (m + p)", False, "bubble_fraction(2, 1)"),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,cell,old,new,public_passes,words", WRONG, ids=[w[0] + "-" + w[5].split()[0] for w in WRONG])
def test_wrong_solutions_fail_with_a_useful_message(name, cell, old, new, public_passes, words, tmp_path):
    source = cell_source(SOLUTION, cell)
    assert old in source
    ns = namespace(tmp_path, overrides={cell: source.replace(old, new)})
    pub = public(name, ns)
    assert pub.passed == public_passes, pub.message
    hid = secret(name, ns, tmp_path)
    assert not hid.passed
    message = hid.message if public_passes else pub.message
    assert words in message, message
