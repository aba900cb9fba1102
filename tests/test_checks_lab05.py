"""Lab 05's checks, public and hidden: the solution passes, the untouched lab fails, and what the corpus of wrong
answers (tests/wrong_answers/lab05.py) cannot show: the survey checks on the fixtures in tests/fixtures/lab05/ (a
good survey, one whose DDP and pipeline sections swap their collectives, one too short, one naming the removed Pipe
API), the calculator judged apart from the learner's own measurements, and a ring that hangs on three ranks.

Every check runs in this process (tests/in_process_grader.py): the public cases as the notebook runs them, the
hidden ones as the grader does (reveal=False), with the probes' answers round-tripped as plain data;
test_grading_labs.py runs them through real grading jobs. The pipeline's schedule judge is also tested on made-up
logs, and the pipeline check on a machine whose two cores are kept busy and on stages that lose 100 ms per
micro-batch outside their fixed-cost blocks (what load does): an honest pipeline passes both. The distributed
checks start torchrun (a few seconds each on 2 cores): those tests are marked slow.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
import torch

from helpers import checks, models, notebooks
from helpers.checks import lab05
from helpers.grading import hidden
from tests.in_process_grader import notebook_namespace, run_hidden, run_public

ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "05_distributed.ipynb"
LAB = ROOT / "labs" / "05_distributed.ipynb"
FIXTURES = ROOT / "tests" / "fixtures" / "lab05"
HIDDEN = hidden.load_hidden("05").cases
NAMES = [s.name for s in checks.load_lab("05")]
SURVEY = [n for n in NAMES if n.startswith("05.survey")]
LAUNCHED = ["05.collectives", "05.ddp", "05.fsdp", "05.tp", "05.pp"]
# The cells a check needs: the set-up and every exercise's definitions (not the cells that launch them).
CELLS = ["parameters", "setup", "ex-1", "ex-2", "ex-3", "ex-4", "ex-5a", "ex-5b", "ex-6"]


def namespace(tmp_path: Path, path: Path = SOLUTION, overrides: dict[str, str] | None = None) -> dict:
    """The notebook's set-up and exercise cells run here, OUT_DIR in tmp_path, some cells replaced."""
    return notebook_namespace(path, tmp_path, CELLS, overrides)


def public(name: str, ns: dict, out_dir: Path) -> checks.Result:
    return run_public(name, ns, out_dir)


def secret(name: str, ns: dict, out_dir: Path) -> checks.Result:
    return run_hidden(name, ns, out_dir)


def cell_source(path: Path, cell_id: str) -> str:
    return next(c.source for c in notebooks.read(path).cells if c.id == cell_id)


def test_hidden_checks_mirror_the_public_ones():
    assert sorted(HIDDEN) == sorted(NAMES)
    assert sum(s.points for s in checks.load_lab("05")) == 19
    survey = next(c for c in notebooks.read(SOLUTION).cells if c.id == "ex-7")
    assert survey.metadata["workbook"]["manual"]["points"] == 6               # 19 + 6: the lab's 25 points


def test_hidden_cases_keep_the_graders_configurations():
    h = hidden.load_hidden("05")
    cases = {name: h.cases_for(name, {}) for name in NAMES}
    assert cases["05.collectives"][0].nproc == 3
    for name in ("05.ddp", "05.fsdp", "05.tp"):       # not the notebook's 2 ranks: a batch cut or mesh for 2 fails there
        case, on_gpus = cases[name]
        assert case.nproc == 3 and case.cfg["batch"] % case.nproc == 0 and case.cfg["batch"] != case.nproc ** 2, name
        # ... and, where two GPUs run that case on the CPU, the notebook's two ranks on the GPUs (NCCL-only mistakes)
        assert (on_gpus.nproc, on_gpus.on_gpus, not case.on_gpus) == (2, True, True), name
        assert on_gpus.cfg["batch"] % 2 == 0 and on_gpus.kwargs in [c.kwargs for c in checks.spec(name).public_cases()]
    assert [(c.nproc, c.on_gpus) for c in cases["05.collectives"]] == [(3, False), (2, True)]
    assert 4 * cases["05.tp"][0].cfg["d"] % 3 == 0                          # fc1's rows divide by the ranks
    assert cases["05.fsdp"][0].cfg["d_out"] % 2 == 1                       # FSDP must pad it
    pp = cases["05.pp"]
    assert [(s.blocks, s.stages) for s in pp.splits] == [(5, 3), (4, 4), (7, 2), (3, 1), (7, 3), (10, 4)]
    assert pp.per_stage == (3, 3)
    assert all(case.cfg.get("cost_ms", 0) > 0 for name in ("05.ddp", "05.fsdp") for case in cases[name])   # rows logged
    assert len(cases["05.calculator"].plans) == 4 and not cases["05.calculator"].measured
    assert cases["05.survey"] == lab05.SURVEY_FILE


def test_a_case_for_the_gpus_is_launched_only_where_each_rank_gets_one(monkeypatch):
    """On a machine with fewer GPUs than ranks (every CI machine) an on_gpus case starts nothing and is not judged;
    where both ranks get a GPU it is launched like any other case."""
    launched = []
    monkeypatch.setattr(lab05, "launch_result", lambda fn, name, case, device: launched.append((case.nproc, device)) or {})

    class Stub:
        settings = types.SimpleNamespace(device="cuda")

        def function(self, name):
            return lambda *a, **k: None

        def running(self, name):
            return contextlib.nullcontext()

    gpus = lab05.RunCase("2 ranks on the GPUs", 2, {"n": 5}, on_gpus=True)
    monkeypatch.setattr(lab05, "launch_device", lambda device, nproc: "cpu")
    assert "skipped" in lab05.probe_launch(Stub(), "collectives", gpus) and launched == []
    assert lab05.probe_launch(Stub(), "collectives", lab05.RunCase("3 ranks", 3, {"n": 5})) == {}
    monkeypatch.setattr(lab05, "launch_device", lambda device, nproc: "cuda")
    lab05.probe_launch(Stub(), "collectives", gpus)
    assert launched == [(3, "cpu"), (2, "cuda")]

    class Ctx:
        def probe(self, fn, *args, timeout=None):
            return fn(Stub(), *args)

    monkeypatch.setattr(lab05, "launch_device", lambda device, nproc: "cpu")
    assert [c.nproc for c, _ in lab05.launched(Ctx(), "collectives", [lab05.RunCase("3", 3, {"n": 5}), gpus])] == [3]


# ---------------------------------------------------------------- the survey
def survey_results(text: str, tmp_path: Path) -> dict[str, tuple[checks.Result, checks.Result]]:
    (tmp_path / lab05.SURVEY_FILE).write_text(text, encoding="utf-8")
    return {n: (public(n, {}, tmp_path), secret(n, {}, tmp_path)) for n in SURVEY}


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
    assert lost == 1


def test_a_content_free_template_gets_no_automatic_point(tmp_path):
    """Every label and collective name, no content (the old checks gave it 5 of 5): the points are not given away."""
    results = survey_results((FIXTURES / "content_free.md").read_text(), tmp_path)
    assert not any(pub.passed or hid.passed for pub, hid in results.values()), {n: r[0].message for n, r in results.items()}


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


def test_a_missing_survey_says_which_cell_writes_it(tmp_path):
    pub, hid = public("05.survey", {}, tmp_path), secret("05.survey_ddp", {}, tmp_path)
    assert not pub.passed and not hid.passed and "run the cell that writes it" in pub.message + hid.message


def test_a_contrast_with_another_pattern_is_allowed():
    text = (FIXTURES / "good.md").read_text().replace(
        "so most of it hides behind computation.", "so most of it hides behind computation; unlike FSDP, no all-gather.")
    assert lab05.pattern_problems(text, "ddp") == []


def test_any_heading_level_makes_the_same_survey():
    """The sections under `#`, `##` or `###` headings (numbered or not, under a title or a `##` heading that names
    every pattern) are the same survey; a `# comment` in a fenced code block ends no section."""
    ns: dict = {}
    exec(cell_source(SOLUTION, "ex-7"), ns)
    text = ns["SURVEY"]
    heads = ("## DDP: distributed data parallel", "## FSDP: fully sharded data parallel", "## Tensor parallel",
             "## Pipeline parallel", "## Which would I pick for MiniGPT")
    one = text.replace("# Four ways to spread training over devices", "Four ways to spread training over devices")
    for h in heads:
        one = one.replace(h, h[1:])
    three = text.replace("# Four ways to spread training over devices",
                         "# Data, tensor and pipeline parallel\n\n## The four patterns: DDP, FSDP, tensor, pipeline")
    for i, h in enumerate(heads[:4], 1):
        three = three.replace(h, f"### {i}. " + h[3:])
    fenced = text.replace("  torchrun.\n", "  torchrun.\n\n```python\n# wrap the model\nddp = DDP(model)\n```\n", 1)
    for variant in (one, three, fenced):
        problems = [lab05.survey_problems(variant)] + [lab05.pattern_problems(variant, k) for k in lab05.PATTERNS]
        assert all(p == [] for p in problems), problems
    assert lab05.parse_survey(fenced)["sections"]["ddp"]["aspects"]["comm"]


def test_split_and_bubble_messages_name_the_fault_not_the_answer():
    case = lab05.SplitCase(5, 3, (("inp", "blocks.0", "blocks.1"), ("blocks.2", "blocks.3"), ("blocks.4", "head")))
    want = str([list(s) for s in case.want])
    for stages, fault in (([["inp", "blocks.0"], ["blocks.1", "blocks.2"], ["blocks.3", "blocks.4", "head"]], "evenly"),
                          ([["inp", "blocks.0", "blocks.1"], ["blocks.2", "blocks.3"], ["blocks.4"]], "head is in no stage"),
                          ([["inp", "Block", "Block"], ["Block", "Block"], ["Block", "head"]], "not the model's own"),
                          ([["inp", "blocks.0", "blocks.1", "blocks.2"], ["blocks.3", "blocks.4", "head"]], "2 stages")):
        (message,) = lab05.split_problems((case,), [stages])
        assert fault in message and want not in message, message
    (message,) = lab05.split_problems((case,), [[]], kinds=[["list", None, None]])
    assert "a list, not an nn.Sequential" in message
    (message,) = lab05.bubble_problems(((2, 1),), [50.0])
    assert "percentage" in message and "0.5" not in message
    assert "percentage" in lab05.bubble_problems(((2, 1),), [50.0], reveal=False)[0]


def test_the_calculator_names_a_unit_mix_up_and_blames_ddp_when_ddp_alone_is_off(tmp_path):
    ns = namespace(tmp_path)
    info = lab05.probe_small_plan(checks.Learner(ns))
    for factor, words in ((1e9 / 2 ** 30, "10⁹ bytes"), (8, "bits")):
        info_x = {**info, "plan": {n: {k: v * factor if k.endswith("GB") or k.endswith("step") else v for k, v in row.items()}
                                   for n, row in info["plan"].items()}}
        assert words in lab05.measured_problems(info_x)[0]
    calls = lab05.relation_calls()
    plans = [lab05_solution_plan(*args, **kwargs) for _, args, kwargs in calls]
    for plan in plans:
        plan["DDP"]["comm_GB_per_step"] /= 2
    message = lab05.relation_problems(calls, plans, scaling=False)[0]
    assert message.startswith("parallelism_plan(7, 8): DDP's comm_GB_per_step is off by the same factor"), message
    assert lab05.relation_problems(calls, plans, between=False) == []


def test_solution_survey_passes_and_the_template_fails():
    for path, ok in ((SOLUTION, True), (LAB, False)):
        ns: dict = {}
        exec(cell_source(path, "ex-7"), ns)
        text = ns["SURVEY"]
        problems = [lab05.survey_problems(text)] + [lab05.pattern_problems(text, k) for k in lab05.PATTERNS]
        assert all(p == [] for p in problems) if ok else all(p for p in problems), problems


# ---------------------------------------------------------------- the calculator
def test_solution_calculator_passes_public_and_hidden(tmp_path):
    ns = namespace(tmp_path)
    assert public("05.calculator", ns, tmp_path).passed, public("05.calculator", ns, tmp_path).message
    result = secret("05.calculator", ns, tmp_path)
    assert result.passed, result.message


def test_the_calculator_is_never_blamed_for_a_wrong_measurement(tmp_path):
    """A mistake in parts 2–5 (a wrong FSDP count, say) costs those parts' points, not the calculator's."""
    ns = namespace(tmp_path)
    ns["measured"] = {"world": 2, "fsdp": {"all_gather": 1, "reduce_scatter": 1, "local_bytes": 1}, "pp": {"send": 0}}
    result = public("05.calculator", ns, tmp_path)
    assert result.passed, result.message


def test_the_small_models_plan_is_judged_against_what_parts_2_to_5_measure_when_right(tmp_path):
    ns = namespace(tmp_path)
    info = lab05.probe_small_plan(checks.Learner(ns))
    assert lab05.measured_problems(info) == []
    info["plan"]["PP"]["comm_GB_per_step"] *= 2
    message = lab05.measured_problems(info)[0]
    assert "PP's comm_GB_per_step" in message and "the payload part 5 counts when it is right" in message
    cfg = {"d_in": 32, "d": 64, "blocks": 4, "d_out": 8, "batch": 16, "seed": 0}
    ref = lab05.reference_measured(cfg, 2)
    assert ref["fsdp"]["reduce_scatter"] == ref["ddp"]["allreduce_bytes"] and ref["tp"]["all_reduce"] == 8 * 16 * 64 * 4


# ---------------------------------------------------------------- what the lab writes, and what it measures with
def test_the_report_and_manifest_list_the_survey_and_survive_missing_parts(tmp_path):
    """The summary cell writes REPORT.md, pointing to DISTRIBUTED.md, and manifest.json listing both with their
    SHA-256 (seed 001's deliverables); a part that did not run reads "not measured" instead of stopping the cell."""
    import hashlib
    import json

    ns = namespace(tmp_path)
    out = Path(ns["out_dir"])
    (out / lab05.SURVEY_FILE).write_text("# survey\n", encoding="utf-8")
    ns["measured"] = {"world": 2, "ddp": {"allreduce_bytes": 8, "param_bytes": 8, "buckets": [8]},
                      "wire": {"all_reduce": {2: 1.0}}}
    with contextlib.redirect_stdout(None):
        exec(cell_source(SOLUTION, "summary"), ns)
    report = (out / "REPORT.md").read_text()
    assert "DISTRIBUTED.md" in report and "8 bytes all-reduced" in report and "not measured (run part 3)" in report
    manifest = json.loads((out / "manifest.json").read_text())
    files = manifest["files"]
    assert {"REPORT.md", lab05.SURVEY_FILE, "measured.json"} <= set(files) and "torch" in manifest["versions"]
    for name, meta in files.items():
        data = (out / name).read_bytes()
        assert meta == {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}, name


@pytest.mark.skipif(not Path("/proc/self/io").is_file(), reason="bytes_written reads Linux's /proc/self/io")
def test_bytes_written_counts_what_this_process_writes(tmp_path):
    from helpers.dist import bytes_written

    before = bytes_written()
    (tmp_path / "blob").write_bytes(b"x" * 100_000)
    assert 100_000 <= bytes_written() - before < 200_000


def test_untouched_lab_fails_the_quick_checks(tmp_path):
    ns = namespace(tmp_path, path=LAB)
    exec(cell_source(LAB, "ex-7") + "\n" + cell_source(LAB, "write-7"), {**ns})   # the template's survey, written out
    assert (tmp_path / lab05.SURVEY_FILE).is_file()
    for name in ["05.calculator", *SURVEY]:
        pub, hid = public(name, ns, tmp_path), secret(name, ns, tmp_path)
        assert not pub.passed and not hid.passed and pub.message and hid.message, name


# ---------------------------------------------------------------- the pipeline's schedule, judged on made-up logs
def gpipe_log(m: int, per_stage: tuple, batch: int, cost: float = 0.015) -> list[list[dict]]:
    """What each stage's fixed-cost blocks log in one GPipe step (busy_log()'s step list for each rank)."""
    sizes = [len(c) for c in torch.arange(batch).tensor_split(m)]
    return [[{"pass": "forward", "rows": s, "seconds": cost} for s in sizes for _ in range(n)]
            + [{"pass": "backward", "rows": s, "seconds": 2 * cost} for s in sizes for _ in range(n)] for n in per_stage]


def made_up_run(case: lab05.PipelineCase, logs: dict[int, list[list[dict]]], stretch: float) -> tuple[list, list]:
    """(busy, results) of a pp_worker run whose timed steps logged `logs` (by m) and lasted `stretch` × the critical
    path (a busy machine stretches everything the blocks do not): each rank's bubble is 1 - busy / wall, as measured."""
    cfg = case.run.cfg
    busy = [[] for _ in case.per_stage]
    results = [[] for _ in case.per_stage]
    for m in cfg["microbatches"]:
        for rank, calls in enumerate(logs[m]):
            busy[rank] += [calls] * (cfg["steps"] + 1)
        ran = [lab05.stage_ops(calls, n, measured=True) for calls, n in zip(logs[m], case.per_stage)]
        gpipe = [lab05.stage_ops(calls, n, measured=True) for calls, n in zip(gpipe_log(m, case.per_stage, cfg["batch"]),
                                                                               case.per_stage)]
        wall = stretch * max(lab05.finish_times(ran) or lab05.finish_times(gpipe))   # an order that cannot run: GPipe's
        for rank, calls in enumerate(logs[m]):
            results[rank].append({"m": m, "bubble": 1 - busy_of(calls) / wall, "wall_ms": wall * 1e3})
    return busy, results


def busy_of(calls: list[dict]) -> float:
    return sum(c["seconds"] for c in calls)


def shorten(row: dict, calls: list[dict], by: float) -> None:
    """The row of a step timed `by` × too short (without its closing barrier), its bubble consistent with that wall."""
    row["wall_ms"] *= by
    row["bubble"] = 1 - busy_of(calls) / (row["wall_ms"] / 1e3)


PP_CASE = checks.spec("05.pp").public_cases()


def honest_logs(case: lab05.PipelineCase = PP_CASE) -> dict:
    cfg = case.run.cfg
    return {m: gpipe_log(m, case.per_stage, cfg["batch"]) for m in cfg["microbatches"]}


def judged(logs: dict, stretch: float = 1.1) -> list[str]:
    busy, results = made_up_run(PP_CASE, logs, stretch)
    return lab05.schedule_problems(busy, results, PP_CASE, reveal=True)


def test_a_gpipe_schedule_passes_however_busy_the_machine():
    for stretch in (1.0, 1.1, 2.0, 5.0):      # load stretches the step: the measured bubble only grows
        assert judged(honest_logs(), stretch) == [], stretch


def test_gpipe_bubble_in_block_costs_is_the_formula():
    for p, m in ((2, 1), (2, 3), (3, 4), (4, 8)):
        bubbles = lab05.implied_bubbles(lab05.gpipe_ops(m, (2,) * p))
        assert all(abs(b - (p - 1) / (m + p - 1)) < 1e-12 for b in bubbles), (p, m, bubbles)


def test_one_micro_batch_at_a_time_is_caught_by_its_order():
    logs = honest_logs()
    m = PP_CASE.run.cfg["microbatches"][-1]
    for rank, calls in enumerate(logs[m]):    # forward then backward of each micro-batch before the next one starts
        n = PP_CASE.per_stage[rank]
        fwd, bwd = [c for c in calls if c["pass"] == "forward"], [c for c in calls if c["pass"] == "backward"]
        logs[m][rank] = [c for k in range(m) for c in fwd[k * n:(k + 1) * n] + bwd[k * n:(k + 1) * n]]
    problems = judged(logs)
    assert problems and "GPipe's" in problems[0] and "F0 B0 F1 B1" in problems[0], problems


def test_an_order_no_pipeline_can_run_is_caught():
    logs = honest_logs()
    m = PP_CASE.run.cfg["microbatches"][-1]
    logs[m][1] = logs[m][1][::-1]             # the last stage's backwards before its forwards
    assert "can never run" in judged(logs)[0]


def test_whole_batch_blocks_and_a_wrong_split_are_caught():
    cfg = PP_CASE.run.cfg
    m = cfg["microbatches"][-1]
    logs = honest_logs()
    logs[m] = gpipe_log(m, PP_CASE.per_stage, cfg["batch"] * m)          # every micro-batch as big as the batch
    assert "the whole batch" in judged(logs)[0]
    logs = honest_logs()
    logs[m] = gpipe_log(m, (3, 1), cfg["batch"])
    assert "stage 0 holds 3 block(s); it should hold 2" in judged(logs)[0]


def test_a_bubble_below_the_critical_path_or_not_from_busy_time_fails():
    logs = honest_logs()
    m = PP_CASE.run.cfg["microbatches"][0]
    busy, results = made_up_run(PP_CASE, logs, 1.0)
    shorten(results[1][0], logs[m][1], 0.6)
    assert "idle at least" in lab05.schedule_problems(busy, results, PP_CASE, reveal=True)[0]
    busy, results = made_up_run(PP_CASE, logs, 1.5)
    results[0][0]["bubble"] = 1 - results[0][0]["bubble"]          # the busy fraction reported as the bubble
    assert "not 1 - busy / wall" in lab05.schedule_problems(busy, results, PP_CASE, reveal=True)[0]


def test_a_stage_that_leaves_the_first_barrier_late_is_not_held_against_a_correct_pipeline():
    """Ranks leave the first barrier at different times, later on a busy machine: a stage that leaves it as late as
    its own first block can start measures a shorter wall than the whole step, without any mistake."""
    logs = honest_logs()
    for i, m in enumerate(PP_CASE.run.cfg["microbatches"]):
        busy, results = made_up_run(PP_CASE, logs, 1.0)
        ran = [lab05.stage_ops(calls, n, measured=True) for calls, n in zip(logs[m], PP_CASE.per_stage)]
        late = lab05.chain_lengths(ran)[-1] / max(lab05.finish_times(ran))
        assert late < 1
        shorten(results[-1][i], logs[m][-1], late)
        assert lab05.schedule_problems(busy, results, PP_CASE, reveal=True) == [], (m, late)


def test_hidden_messages_leave_the_micro_batch_count_out():
    case = hidden.load_hidden("05").cases_for("05.pp", {})
    logs = honest_logs(case)
    m = case.run.cfg["microbatches"][0]
    busy, results = made_up_run(case, logs, 1.0)
    assert lab05.schedule_problems(busy, results, case, reveal=False) == []
    shorten(results[1][0], logs[m][1], 0.8)
    message = lab05.schedule_problems(busy, results, case, reveal=False)[0]
    assert "grader's number of micro-batches" in message and f"m={m}" not in message


def test_fixed_cost_blocks_log_each_step():
    models.reset_busy()
    x = torch.ones(3, 2, requires_grad=True)
    models.FixedCost.apply(x, 1.0).sum().backward()
    step = models.busy_log()[-1]
    assert [(c["pass"], c["rows"]) for c in step] == [("forward", 3), ("backward", 3)]
    assert abs(sum(c["seconds"] for c in step) - models.busy_seconds()) < 1e-12


# ---------------------------------------------------------------- the distributed exercises (torchrun)
# The solution's launched exercises against their public and hidden cases: test_grading_labs.TestGradeLab05 (the
# grader's run of the solution: its check cells print ✅, the hidden cases give full marks), which launches each
# once already; the pipeline again below, on a busy machine and with time outside the blocks.


@contextlib.contextmanager
def busy_cores(n: int = 2):
    """`n` processes that each keep a core busy, for a while; stopped (by their own handles) afterwards."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in burners:
            p.kill()
            p.wait()


@pytest.mark.slow
def test_pipeline_check_passes_on_a_busy_machine(tmp_path):
    ns = namespace(tmp_path)
    with busy_cores(2):
        pub = public("05.pp", ns, tmp_path)
        hid = secret("05.pp", ns, tmp_path)
    print("under load:", pub.message)
    assert pub.passed, pub.message
    assert hid.passed, hid.message


PP_STAGE = "    stage_module = split_stages(toy_model(cfg), world_size)[rank].to(device)\n"
SLOW_OUTSIDE_THE_BLOCKS = '''
class Overhead(nn.Module):
    """100 ms of wall time per micro-batch outside the fixed-cost blocks: what a busy machine does to the rest."""

    def forward(self, x):
        time.sleep(0.1)
        return x
'''


@pytest.mark.slow
def test_pipeline_check_ignores_time_outside_the_blocks(tmp_path):
    source = cell_source(SOLUTION, "ex-5b").replace(
        PP_STAGE, "    stage_module = nn.Sequential(*split_stages(toy_model(cfg), world_size)[rank], Overhead()).to(device)\n")
    ns = namespace(tmp_path, overrides={"ex-5b": SLOW_OUTSIDE_THE_BLOCKS + source})
    pub, hid = public("05.pp", ns, tmp_path), secret("05.pp", ns, tmp_path)
    print("with 100 ms outside the blocks:", pub.message)
    assert pub.passed, pub.message
    assert float(re.search(r"m=1: ([0-9.]+)", pub.message).group(1)) > 0.7, pub.message   # the formula says 0.50
    assert hid.passed, hid.message


@pytest.mark.slow
def test_untouched_lab_is_not_written_yet(tmp_path):
    ns = namespace(tmp_path, path=LAB)
    for name in LAUNCHED:
        result = public(name, ns, tmp_path)
        assert not result.passed and "not written yet" in result.message, (name, result.message)


@pytest.mark.slow
def test_a_ring_that_hangs_on_three_ranks_is_stopped_and_named(tmp_path, monkeypatch):
    """(rank + 1) % 2 is the right neighbour on the notebook's 2 ranks; on 3 ranks (the public case's and the
    grader's) nobody receives rank 2's send. Not in the corpus: the hung collective waits for the launch's timeout
    (shortened here from its 60 s)."""
    import helpers.checks.lab05 as lab05

    monkeypatch.setattr(lab05, "LAUNCH_TIMEOUT", 20)
    source = cell_source(SOLUTION, "ex-1").replace("(rank + 1) % world_size)", "(rank + 1) % 2)")
    ns = namespace(tmp_path, overrides={"ex-1": source})
    for result in (public("05.collectives", ns, tmp_path), secret("05.collectives", ns, tmp_path)):
        assert not result.passed and "not every rank calls" in result.message, result.message


def test_the_public_calculator_check_ships_no_figures():
    """The public case holds no expected plan: it judges relations between the learner's own calls and the small
    model's plan against what parts 2–5 measure; the grader's figures are hidden."""
    (spec,) = [s for s in checks.load_lab("05") if s.name == "05.calculator"]
    assert spec.cases.plans == () and spec.cases.measured
    assert not hasattr(lab05, "PLAN_CASES")
    calls = lab05.relation_calls()
    plans = [lab05_solution_plan(*args, **kwargs) for _, args, kwargs in calls]
    assert lab05.relation_problems(calls, plans) == []
    scaled = [{n: {**row, "activations_GB": row["activations_GB"] * 2, "memory_GB": row["memory_GB"] + row["activations_GB"]}
               for n, row in plan.items()} for plan in plans]
    assert lab05.relation_problems(calls, scaled) == []     # a constant factor is the hidden cases' to judge


def lab05_solution_plan(*args, **kwargs):
    """The grader's own calculator (solutions/hidden/lab05.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("hidden05", Path(__file__).resolve().parents[1] / "solutions/hidden/lab05.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.plan_truth(*args, **kwargs)
