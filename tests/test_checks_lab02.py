"""Lab 02's checks, public and hidden, on the solution and the untouched lab; the validators themselves.
(Wrong answers, one mistake each, and correct answers written another way: tests/wrong_answers/lab02.py.)

The checks run in this process (tests/in_process_grader.py): the hidden cases are the grader's, the check
functions the public ones, and every probe's arguments and answer make the grader's pickle and plain-data round
trip; test_grading_labs.py runs the same checks through real grading jobs.
"""

from __future__ import annotations

import copy
import pickle
import tempfile
from pathlib import Path

import pytest
import torch
import torch.fx as fx

from helpers import checks
from helpers.checks import lab02
from tests.in_process_grader import hidden_lab, notebook_namespace, run_hidden, run_public

ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "02_fx_rewrites.ipynb"
LAB = ROOT / "labs" / "02_fx_rewrites.ipynb"
# The cells that define what the checks call (the rest of the notebook runs experiments the checks never read).
CELLS = ["parameters", "setup", "ex-1", "ex-2a", "ex-2b", "ex-2c", "ex-2d", "p2-random", "ex-2e", "p3-ops", "ex-3",
         "p4-base", "ex-4a", "ex-4b", "ex-5"]
NAMES = [s.name for s in checks.load_lab("02")]
OUT = tempfile.TemporaryDirectory(prefix="lab02-")     # the notebook's OUT_DIR; removed when the tests end


def namespace(path: Path = SOLUTION, overrides: dict[str, str] | None = None) -> dict:
    """The notebook's definitions, with some cells' source replaced (OUT_DIR in a temp folder)."""
    return notebook_namespace(path, OUT.name, cells=CELLS, overrides=overrides)


def public(ns: dict, name: str) -> checks.Result:
    return run_public(name, ns, OUT.name)


def secret(ns: dict, name: str) -> checks.Result:
    return run_hidden(name, ns, OUT.name)


def hidden_cases(name: str):
    h, refs = hidden_lab("02")
    return h.cases_for(name, refs)


@pytest.fixture(scope="module")
def solution_ns():
    return namespace()


@pytest.fixture(scope="module")
def lab_ns():
    return namespace(LAB)


def test_every_check_has_hidden_cases_and_the_points_add_up():
    h, _ = hidden_lab("02")
    assert sorted(h.cases) == sorted(NAMES)
    assert len(NAMES) == 10          # one check per exercise part: 1, 2a–2e, 3, 4a, 4b, 5
    assert sum(checks.spec(n).points for n in NAMES) == 20


@pytest.mark.parametrize("name", NAMES)
def test_public_and_hidden_cases_can_travel_to_the_job(name):
    for cases in (checks.spec(name).public_cases(), hidden_cases(name)):
        assert pickle.loads(pickle.dumps(cases)) is not None
        assert "workbook_hidden" not in str(pickle.dumps(cases)), "a case refers to the hidden module, which a job cannot import"


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes(solution_ns, name):
    for result in (public(solution_ns, name), secret(solution_ns, name)):
        assert result.passed, result.line()


@pytest.mark.parametrize("name", NAMES)
def test_untouched_lab_fails_as_not_written(lab_ns, name):
    for result in (public(lab_ns, name), secret(lab_ns, name)):
        assert result.status == "failed" and result.score == 0, result.line()
        assert "not written yet" in result.message, result.line()


# ---------------------------------------------------------------- one mistake each, and answers written another way
# The wrong answers and the correct ones written another way (once this file's ALTERNATIVE) live in
# tests/wrong_answers/lab02.py; tests/test_catch_rates.py runs them.


# ---------------------------------------------------------------- the validators themselves
def test_cost_truth_by_hand_agrees_with_flop_counter_and_the_graders_rule():
    gm = fx.symbolic_trace(lab02.CostNet().eval())
    inputs = (torch.randn(2, 3, 8, 8), torch.randn(2, 8, 8, 8))
    truth = lab02.cost_net_truth()
    assert sum(t["flops"] for t in truth.values()) == lab02.flop_counter_total(gm, inputs)
    hidden_module = __import__("sys").modules["workbook_hidden_lab02"]
    assert hidden_module.reference_costs(gm, inputs) == truth


def test_relu_validator_names_the_spelling_left_and_hides_it_when_asked():
    probe = {"returned": "GraphModule", "relu_left": ["call_module blocks.0.act"]}
    assert "call_module blocks.0.act" in lab02.relu_problems(probe, "relu_to_gelu", None, "a model")[0]
    hidden_message = lab02.relu_problems(probe, "relu_to_gelu", None, "a model", reveal=False)[0]
    assert "call_module" in hidden_message and "blocks" not in hidden_message


def test_harness_validator_wants_the_right_word_first():
    rows = [{"case": c, "ok": c != "two-input op", "problem": "" if c != "two-input op" else "lint: nope"} for c in lab02.ALL]
    bad = lab02.harness_pass(lab02.mul_drops_second_input, lab02.HARNESS_EXPECT["mul_drops_second_input"])
    problems = lab02.harness_problems([{"rows": rows, "changed": []}], [bad], lab02.ALL)
    assert problems and "start with 'output'" in problems[0]


def test_grader_passes_do_what_their_docstrings_say():
    def make():
        torch.manual_seed(0)
        return lab02.randomize_bn(lab02.PipeNet(), 1)

    model = make()
    x = torch.randn(2, 3, 6, 6)
    with torch.no_grad():
        want = model(x)
        for p in (lab02.IdentityPass(), lab02.RebuildWithoutDeadCode(), lab02.NoRecompile(), lab02.DoubleWeightsInPlace()):
            gm = p.apply(fx.symbolic_trace(make()))
            gm.recompile()
            assert lab02.close(gm(x), want, rtol=0, atol=1e-6), p.name      # two outputs, in a tuple
    with pytest.raises(ValueError):
        lab02.Crash().apply(fx.symbolic_trace(model))


def test_a_pass_class_is_skipped_only_when_the_function_it_wraps_is_a_stub():
    """4a does not judge ReluToGelu while relu_to_gelu is its stub; a class that raises a stub's message of part 2a
    itself, while relu_to_gelu is written, is not skipped (it would earn 4a's point without being written)."""
    from helpers.notebooks import read

    sources = {c.id: c.source for c in read(SOLUTION).cells}
    faked = sources["ex-4a"].replace('''        return {"matches": sum(is_relu(gm, n) for n in gm.graph.nodes)}''',
                                     '''        raise NotImplementedError("2a: relu to gelu: write your solution here")''')
    assert faked != sources["ex-4a"]
    for result in (public(namespace(overrides={"ex-4a": faked}), "02.passes"),
                   secret(namespace(overrides={"ex-4a": faked}), "02.passes")):
        assert not result.passed and "ReluToGelu" in result.message, result.line()
    stub_2a = {c.id: c.source for c in read(LAB).cells}["ex-2a"]
    for result in (public(namespace(overrides={"ex-2a": stub_2a}), "02.passes"),
                   secret(namespace(overrides={"ex-2a": stub_2a}), "02.passes")):
        assert result.passed, result.line()


def test_aten_cost_truth_by_hand_agrees_with_flop_counter_and_the_graders_rule():
    gm = fx.symbolic_trace(lab02.AtenCosts().eval())
    inputs = (torch.randn(2, 1, 6),)
    truth = lab02.aten_costs_truth()
    assert sum(t["flops"] for t in truth.values()) == lab02.flop_counter_total(gm, inputs)
    hidden_lab("02")
    hidden_module = __import__("sys").modules["workbook_hidden_lab02"]
    assert hidden_module.reference_costs(gm, inputs) == truth


def test_pattern_counter_counts_the_relus_replace_pattern_replaced():
    """relu_to_gelu_pattern is judged by the ReLUs replace_pattern itself replaced (not by hand or by relu_to_gelu)."""
    from torch.fx import subgraph_rewriter

    gm = fx.symbolic_trace(lab02.Spellings())
    with lab02.counting_pattern_rewrites() as counted:
        subgraph_rewriter.replace_pattern(gm, lambda x: torch.relu(x), lambda x: torch.nn.functional.gelu(x))
        subgraph_rewriter.replace_pattern(gm, lambda x: x.sigmoid(), lambda x: x.tanh())     # nothing to replace
    assert counted == [2, 1]


def test_cases_checked_on_every_run_give_the_solution_full_marks_in_their_own_words():
    """The cases each check adds to the notebook's or the grader's (a keyword ReLU, repeated in-place calls, an in-place
    call on a constant, a transposed conv, a dead get_attr) hold the words their messages use."""
    assert "input=x" in lab02.keyword_cases()[0].about
    assert lab02.fold_cases_always()[0].bn_left == (0, 1)
    assert {c.fn_name for c in lab02.cleanup_cases_always("remove_dead_code")} == {"remove_dead_code"}
    assert {c.fn_name for c in lab02.cleanup_cases_always("fold_constants")} == {"fold_constants"}
    about, _, matches = lab02.DEAD_PARAMETER_CASE()
    assert "get_attr" in about and matches["DeadCode"] == 2


def test_second_fair_grades_round_cases_hold_what_their_messages_say():
    """The cases a second fair-grades round added: a node that moves 0 bytes and a module called twice (node_costs), calls
    with inplace=False (dead code), two constants of one op and a constant output (constant folding), a ReLU module
    called twice (the pass classes), a pipeline case whose larger output comes last, and a harness pass whose outputs go
    wrong before its graph does."""
    case = lab02.cost_cases_always()[0]
    assert case.truth["getitem"] == {"flops": 0, "bytes": 0} and case.hint
    gm = fx.symbolic_trace(lab02.ShapeDivided().eval())
    inputs = (torch.randn(4, 3),)
    assert sum(t["flops"] for t in case.truth.values()) == lab02.flop_counter_total(gm, inputs)
    hidden_lab("02")
    assert __import__("sys").modules["workbook_hidden_lab02"].reference_costs(gm, inputs) == lab02.shape_divided_truth()

    traced = fx.symbolic_trace(lab02.UnreadNotInPlace())
    assert sum(lab02.out_of_place_call(traced, n) for n in traced.graph.nodes) == 3
    assert not any(lab02.works_in_place(traced, n) for n in traced.graph.nodes)
    dead = [c for c in lab02.cleanup_cases_always("remove_dead_code") if isinstance(c.model, lab02.UnreadNotInPlace)]
    assert dead and dead[0].calls == {"sin": 1}

    about, model, matches = lab02.DEAD_PARAMETER_CASE()
    relus = [n for n in fx.symbolic_trace(model).graph.nodes if lab02.activation(fx.symbolic_trace(model), n) == "relu"]
    assert matches["ReluToGelu"] == len(relus) == 3 and len({str(n.target) for n in relus}) == 2

    large = lab02.pipeline_cases()[1]
    first, second = lab02.output_of(large.model, large.inputs)
    assert isinstance(large.model, lab02.OutputsSwapped) and second.abs().max() > 2.5 * first.abs().max()

    rows = [{"case": c, "ok": False, "problem": "idempotent: changed again"} for c in lab02.ALL]
    off = lab02.harness_pass(lab02.off_by_one_every_run, lab02.HARNESS_EXPECT["off_by_one_every_run"])
    problems = lab02.harness_problems([{"rows": rows, "changed": []}], [off], lab02.ALL)
    assert problems and "start with 'output'" in problems[0] and "in this order" in problems[0]


def test_fourth_fair_grades_round_cases_hold_what_their_messages_say():
    """The cases a fourth round added: an unread in-place call and a submodule named relu that is no ReLU (2a, 2b),
    nodes read only inside a list or by keyword (2d, 2e), a model in float64 (2c), rows in graph order (3), batch norms
    that are no sites (4a), a model of two inputs (4b), a shift that only a per-element tolerance sees and a pass whose
    code is stale (5)."""
    for model in (lab02.KeywordSpellings(), lab02.ModuleOnRelu()):
        gm = fx.symbolic_trace(model)
        unread = [n for n in gm.graph.nodes if lab02.works_in_place(gm, n) and not n.users]
        assert len(unread) == 1 and lab02.activation(gm, unread[0]) is None
    gm = fx.symbolic_trace(lab02.KeywordSpellings())
    named = [n for n in gm.graph.nodes if n.op == "call_module" and n.target == "relu"]
    assert named and lab02.node_kind(gm, named[0]) == "LeakyReLU"

    gm = fx.symbolic_trace(lab02.ListsAndKeywords())
    positional = {a for n in gm.graph.nodes for a in n.args if isinstance(a, fx.Node)}
    assert any(n.users and n not in positional for n in gm.graph.nodes if n.op.startswith("call"))

    doubles = lab02.fold_cases_always()[1]
    assert all(p.dtype == torch.float64 for p in doubles.model.parameters()) and doubles.hint

    for case in lab02.cost_cases() + lab02.cost_cases_always():
        names = [n.name for n in lab02.capture(case.model, case.inputs, case.export).graph.nodes]
        assert list(case.truth) == [n for n in names if n in case.truth], case.about

    _, model, matches = lab02.FOLD_OR_NOT_CASE()
    bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    assert sum(not m.training and m.running_mean is not None for m in bns) == matches["FoldConvBN"] == 1 < len(bns)

    two = lab02.pipeline_cases_always()[0]
    assert len(two.inputs) == 2 and two.hint

    large, stale = lab02.harness_cases_always()[0], lab02.harness_cases_always()[-1]
    want = large.gallery[0]["expected"]
    got = want + 7e-3
    assert not torch.allclose(got, want, rtol=1e-5, atol=1e-5) and (got - want).abs().max() <= 1e-5 * want.abs().max()
    case = stale.gallery[0]
    gm = lab02.relu_as_gelu_stale(fx.symbolic_trace(case["model"]))
    assert lab02.stale_code(gm) and not torch.allclose(gm(*case["inputs"]), case["expected"])


def test_fifth_fair_grades_round_cases_hold_what_their_messages_say():
    """The cases a fifth round added: readers that hold a ReLU by keyword (2a, 2b), a batch-norm module called twice with
    its folded output returned inside a tuple (2c), a module called twice with one call dead, a dead read of a dotted
    get_attr and a tuple output (2d), constants read by keyword and from a list, computed with a constant keyword, and
    changed in place by a function (2e), a grouped F.conv2d (3), and passes that return a new GraphModule or change the
    output's shape where its first dimension is 1 (5)."""
    def keyword_readers(gm, pick):
        return [n for n in gm.graph.nodes if pick(gm, n) and any(n in u.kwargs.values() for u in n.users)]

    gm = fx.symbolic_trace(lab02.KeywordSpellings())
    assert keyword_readers(gm, lambda g, n: lab02.activation(g, n) == "relu" and n.op == "call_function")
    gm = fx.symbolic_trace(lab02.ModuleOnRelu())
    assert keyword_readers(gm, lambda g, n: lab02.activation(g, n) == "relu" and n.op == "call_module")

    shared_bn = lab02.fold_cases_always()[-1]
    gm = fx.symbolic_trace(shared_bn.model)
    bn_calls = [n for n in gm.graph.nodes if n.op == "call_module" and n.target == "bn"]
    output = next(n for n in gm.graph.nodes if n.op == "output")
    assert len(bn_calls) == 2 and bn_calls[0] in output.args[0] and shared_bn.bn_left == 1 and shared_bn.hint

    dead = [c for c in lab02.cleanup_cases_always("remove_dead_code") if isinstance(c.model, lab02.SharedDead)]
    gm = fx.symbolic_trace(dead[0].model)
    assert sum(n.target == "fc" for n in gm.graph.nodes) == 2 and any(n.target == "fc.weight" for n in gm.graph.nodes)
    assert isinstance(next(n for n in gm.graph.nodes if n.op == "output").args[0], tuple)

    const = [c for c in lab02.cleanup_cases_always("fold_constants") if isinstance(c.model, lab02.ConstKeywords)]
    gm = fx.symbolic_trace(const[0].model)
    assert any(isinstance(v, fx.Node) for n in gm.graph.nodes for v in n.kwargs.values())
    assert any(n.op == "call_function" and n.target is torch.sigmoid_ for n in gm.graph.nodes)

    grouped = lab02.cost_cases_always()[1]
    gm = fx.symbolic_trace(grouped.model.eval())
    assert sum(t["flops"] for t in grouped.truth.values()) == lab02.flop_counter_total(gm, grouped.inputs)
    hidden_lab("02")
    assert __import__("sys").modules["workbook_hidden_lab02"].reference_costs(gm, grouped.inputs) == grouped.truth

    _, new, shape, _ = lab02.harness_cases_always()
    case = new.gallery[0]
    assert case["expected"].shape[0] == 1
    given = fx.symbolic_trace(case["model"])
    returned = lab02.new_module_shifted(given)
    assert returned is not given and torch.allclose(given(*case["inputs"]), case["expected"])
    assert not torch.allclose(returned(*case["inputs"]), case["expected"])
    wider = lab02.repeats_the_output(fx.symbolic_trace(case["model"]))(*case["inputs"])
    with pytest.raises(RuntimeError):
        torch.allclose(wider, case["expected"])


def test_sixth_fair_grades_round_cases_hold_what_their_messages_say():
    """The cases a sixth round added: a dead module and parameter whose names end in one underscore (2d), a pass
    function that returns a new GraphModule for nodes_removed (4a), and a pipeline case with a nested output, a module
    left in training mode and tol=0 (4b)."""
    traced = fx.symbolic_trace(lab02.UnreadNotInPlace())
    trailing = [n for n in traced.graph.nodes if n.op in ("call_module", "get_attr") and n.target.endswith("_")]
    assert {n.op for n in trailing} == {"call_module", "get_attr"}
    assert not any(lab02.works_in_place(traced, n) for n in trailing)
    dead = [c for c in lab02.cleanup_cases_always("remove_dead_code") if isinstance(c.model, lab02.UnreadNotInPlace)]
    assert dead[0].hint and "trailing underscore" in dead[0].hint

    _, model, _ = lab02.DEAD_PARAMETER_CASE()
    given = fx.symbolic_trace(model)
    before = len(given.graph.nodes)
    returned = lab02.rebuilt_without_dead_code(given)
    assert returned is not given and len(given.graph.nodes) == before and len(returned.graph.nodes) == before - 2

    nested = lab02.pipeline_cases_always()[1]
    out = lab02.output_of(copy.deepcopy(nested.model), nested.inputs)
    assert isinstance(out[1], tuple) and len(torch.utils._pytree.tree_leaves(out)) == 3
    assert nested.tol == 0.0 and any(m.training for m in nested.model.modules()) and nested.hint
    with torch.no_grad():
        again = lab02.IdentityPass().apply(fx.symbolic_trace(copy.deepcopy(nested.model)))(*nested.inputs)
        direct = nested.model(*nested.inputs)
    assert lab02.max_diff(again, direct) == 0.0
