"""Lab 02's checks, public and hidden, on the solution, the untouched lab, a correct solution written differently,
and wrong solutions, one mistake each.

The checks run in this process (tests/in_process_grader.py): the hidden cases are the grader's, the check
functions the public ones, and every probe's arguments and answer make the grader's pickle and plain-data round
trip; test_grading_labs.py runs the same checks through real grading jobs.
"""

from __future__ import annotations

import functools
import pickle
import tempfile
from pathlib import Path

import pytest
import torch
import torch.fx as fx

from helpers import checks, notebooks
from helpers.checks import lab02
from tests.in_process_grader import hidden_lab, notebook_namespace, run_hidden, run_public

ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "02_fx_rewrites.ipynb"
LAB = ROOT / "labs" / "02_fx_rewrites.ipynb"
# The cells that define what the checks call (the rest of the notebook runs experiments the checks never read).
CELLS = ["parameters", "setup", "ex-1", "ex-2a", "ex-2b", "ex-2c", "p2-random", "ex-2d", "p3-ops", "ex-3",
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


def patched(cell_id: str, *replacements: tuple[str, str]) -> dict[str, str]:
    """The solution's cell with textual replacements: one deliberate mistake."""
    source = next(c.source for c in notebooks.read(SOLUTION).cells if c.id == cell_id)
    for old, new in replacements:
        assert old in source, f"{old!r} not in cell {cell_id}"
        source = source.replace(old, new)
    return {cell_id: source}


@pytest.fixture(scope="module")
def solution_ns():
    return namespace()


@pytest.fixture(scope="module")
def lab_ns():
    return namespace(LAB)


@pytest.fixture(scope="module")
def alternative_ns():
    return namespace(overrides=ALTERNATIVE)


def test_every_check_has_hidden_cases_and_the_points_add_up():
    h, _ = hidden_lab("02")
    assert sorted(h.cases) == sorted(NAMES)
    assert 6 <= len(NAMES) <= 8
    assert 15 <= sum(checks.spec(n).points for n in NAMES) <= 20


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


@pytest.mark.parametrize("name", NAMES)
def test_alternative_solution_passes(alternative_ns, name):
    for result in (public(alternative_ns, name), secret(alternative_ns, name)):
        assert result.passed, result.line()


# ---------------------------------------------------------------- one mistake each
WRONG = {
    "table reads only positional args": ("02.graph_table", patched(
        "ex-1", ('"inputs": [n.name for n in node.all_input_nodes]', '"inputs": [a.name for a in node.args if isinstance(a, fx.Node)]')),
        "inputs"),
    "the page's rewrite: one spelling": ("02.relu_to_gelu", patched(
        "ex-2a", ('return node.target in (torch.relu, torch.relu_, F.relu)', 'return False'),
        ('return isinstance(gm.get_submodule(node.target), nn.ReLU)', 'return False')), "still there"),
    "tanh-approximate GELU": ("02.relu_to_gelu", patched(
        "ex-2a", ("gm.graph.call_function(F.gelu, (source,))", 'gm.graph.call_function(F.gelu, (source,), {"approximate": "tanh"})')),
        "computes something else"),
    "matches any name with relu in it": ("02.relu_to_gelu", patched(
        "ex-2a", ('return node.target in (torch.relu, torch.relu_, F.relu)',
                  'return "relu" in getattr(node.target, "__name__", "")'),
        ('return isinstance(gm.get_submodule(node.target), nn.ReLU)',
         'return "relu" in type(gm.get_submodule(node.target)).__name__.lower()')), "not ReLU"),
    "a pattern rewriter that never calls replace_pattern": ("02.rewriter", patched(
        "ex-2b", ("        subgraph_rewriter.replace_pattern(gm, pattern, gelu)", "        pass"),
        ("    gm.delete_all_unused_submodules()\n    gm.graph.lint()\n    gm.recompile()\n    return gm\n    ### END SOLUTION",
         "    return relu_to_gelu(gm)\n    ### END SOLUTION")), "never called"),
    "a pattern for torch.relu only": ("02.rewriter", patched(
        "ex-2b", ("for pattern in (as_function, as_functional, as_method):", "for pattern in (as_function,):")), "still there"),
    "folds the weights in place": ("02.fold_conv_bn", patched(
        "ex-2c", ("folded = copy.deepcopy(conv)", "folded = conv")), "changed the original model"),
    "folds a conv that has other users": ("02.fold_conv_bn", patched(
        "ex-2c", ("and len(conv_node.users) == 1)", ")")), "computes something else"),
    "folding without eps": ("02.fold_conv_bn", patched(
        "ex-2c", ("torch.rsqrt(bn.running_var + bn.eps)", "torch.rsqrt(bn.running_var)")), "eps=0.01"),
    "folding with PyTorch's default eps": ("02.fold_conv_bn", patched(
        "ex-2c", ("torch.rsqrt(bn.running_var + bn.eps)", "torch.rsqrt(bn.running_var + 1e-5)")), "eps=0.01"),
    "folds a batch norm without running statistics": ("02.fold_conv_bn", patched(
        "ex-2c", ("if bn.training or bn.running_mean is None:", "if bn.training:")), "running"),
    "the library's DCE": ("02.cleanup", patched(
        "ex-2d", ("    if node.is_impure() or node.kwargs.get(\"inplace\") is True:\n        return True\n",
                  "    return node.is_impure()\n")), "computes something else"),
    "folds random ops": ("02.cleanup", patched("ex-2d", ("and not is_random(node) ", "")), "should still be there"),
    "forgets module parameters": ("02.node_costs", patched(
        "ex-3", ("moved += sum(t.numel() * t.element_size() for t in [*mod.parameters(), *mod.buffers()])", "pass")), "bytes"),
    "conv FLOPs that ignore groups": ("02.node_costs", patched(
        "ex-3", ("return 2 * out * mod.weight[0].numel()", "return 2 * out * mod.in_channels * math.prod(mod.kernel_size)")),
        "flops"),
    "four bytes per element": ("02.node_costs", patched(
        "ex-3", ("return math.prod(meta.shape) * meta.dtype.itemsize", "return math.prod(meta.shape) * 4")), "bytes"),
    "a repeated input counted twice": ("02.node_costs", patched(
        "ex-3", ("for i in node.all_input_nodes)", "for i in node.args if isinstance(i, fx.Node))")), "bytes"),
    "ShapeProp on a copy": ("02.node_costs", patched(
        "ex-3", ("ShapeProp(gm).propagate(*example)", "gm = copy.deepcopy(gm)\n        ShapeProp(gm).propagate(*example)")),
        "tensor_meta"),
    "analyze applies the pass": ("02.pipeline", patched(
        "ex-4a", ("return count(gm) - count(fn(copy.deepcopy(gm)))", "return count(gm) - count(fn(gm))")), "analysis must only look"),
    "traces the model itself": ("02.pipeline", patched(
        "ex-4b", ("fx.symbolic_trace(copy.deepcopy(model))", "fx.symbolic_trace(model)")), "original model"),
    "never recompiles": ("02.pipeline", patched("ex-4b", ("            gm.recompile()\n", "")), "Recompile"),
    "an absolute tolerance": ("02.pipeline", patched("ex-4b", ("if not diff <= tol * scale:", "if not diff <= tol:")),
                              "keep the outputs"),
    "compares with the previous pass": ("02.pipeline", patched(
        "ex-4b", ("        report.append({", "        reference = out\n        report.append({")), "original model's outputs"),
    "never verifies": ("02.pipeline", patched("ex-4b", ("if not diff <= tol * scale:", "if False:")), "without an error"),
    "no idempotence test": ("02.check_pass", patched(
        "ex-5", ('return "" if second == first else "idempotent: a second run changed the graph again"', 'return ""')),
        "let"),
    "a harness without a deep copy": ("02.check_pass", patched(
        "ex-5", ("gm = pass_fn(fx.symbolic_trace(copy.deepcopy(case[\"model\"])))", "gm = pass_fn(fx.symbolic_trace(case[\"model\"]))")),
        "deep copy"),
    "a harness that ignores tol": ("02.check_pass", patched(
        "ex-5", ("torch.allclose(got, case[\"expected\"], rtol=tol, atol=tol)", "torch.allclose(got, case[\"expected\"], rtol=1e-5, atol=1e-5)")),
        "tol=1e-07"),
    "no lint": ("02.check_pass", patched("ex-5", ("            gm.graph.lint()\n", "            pass\n")), ""),
}
HIDDEN_NAMES = ("HRelu", "HFold", "HDead", "HConst", "HCost", "HPipe", "bn_t", "deep.0", "sub.0", "shared", "tap")


@functools.lru_cache(maxsize=None)
def wrong_results(mistake: str) -> tuple[checks.Result, checks.Result]:
    """The check a mistake targets, public and hidden, on the solution with that one mistake."""
    name, overrides, _ = WRONG[mistake]
    ns = namespace(overrides=overrides)
    return public(ns, name), secret(ns, name)


@pytest.mark.parametrize("mistake", sorted(WRONG))
def test_a_wrong_solution_fails_public_and_hidden(mistake):
    shown, hidden = wrong_results(mistake)
    for result in (shown, hidden):
        assert not result.passed, f"{mistake}: {result.line()}"
        assert result.message and "not written yet" not in result.message
    assert WRONG[mistake][2] in shown.message, shown.line()


@pytest.mark.parametrize("mistake", sorted(WRONG))
def test_hidden_messages_describe_cases_without_giving_the_models_away(mistake):
    message = wrong_results(mistake)[1].message
    assert not any(word in message for word in HIDDEN_NAMES), message


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
            assert torch.allclose(gm(x), want, atol=1e-6), p.name
    with pytest.raises(ValueError):
        lab02.Crash().apply(fx.symbolic_trace(model))


ALTERNATIVE = {
    "ex-1": '''
def graph_table(gm):
    out = []
    for n in gm.graph.nodes:
        found = []
        fx.node.map_arg((n.args, n.kwargs), lambda a: found.append(a.name))
        t = n.target
        out.append(dict(name=n.name, op=n.op, target=t if isinstance(t, str) else t.__name__,
                        inputs=list(dict.fromkeys(found)), users=sorted(u.name for u in n.users)))
    return out
''',
    "ex-2a": '''
def is_relu(gm, node):
    return ((node.op == "call_function" and node.target in {torch.relu, F.relu})
            or (node.op == "call_method" and node.target == "relu")
            or (node.op == "call_module" and type(gm.get_submodule(node.target)) is nn.ReLU))


def relu_to_gelu(gm):
    for node in gm.graph.nodes:
        if node.op == "call_module" and is_relu(gm, node):
            gm.add_submodule(node.target, nn.GELU())      # gm's own attribute: the model keeps its ReLU
        elif is_relu(gm, node):
            node.op, node.target, node.kwargs = "call_function", F.gelu, {}
    gm.recompile()
    return gm
''',
    "ex-2b": '''
def relu_to_gelu_pattern(gm):
    for node in gm.graph.nodes:                       # one spelling first: torch.relu
        if node.op == "call_method" and node.target == "relu":
            node.op, node.target = "call_function", torch.relu
        elif node.op == "call_function" and node.target is F.relu:
            node.target, node.kwargs = torch.relu, {}
        elif node.op == "call_module" and isinstance(gm.get_submodule(node.target), nn.ReLU):
            node.op, node.target = "call_function", torch.relu
    gm.recompile()
    subgraph_rewriter.replace_pattern(gm, lambda v: torch.relu(v), lambda v: F.gelu(v))
    gm.recompile()
    return gm
''',
    "ex-2c": '''
from torch.nn.utils.fusion import fuse_conv_bn_eval


def fold_conv_bn(gm):
    mods = dict(gm.named_modules())
    pairs = [(n.args[0], n) for n in gm.graph.nodes
             if n.op == "call_module" and type(mods[n.target]) is nn.BatchNorm2d and mods[n.target].track_running_stats
             and isinstance(n.args[0], fx.Node)
             and n.args[0].op == "call_module" and type(mods[n.args[0].target]) is nn.Conv2d and len(n.args[0].users) == 1]
    for i, (conv, bn) in enumerate(pairs):
        name = f"fused_conv_{i}"
        while name in mods:
            name = "_" + name
        gm.add_submodule(name, fuse_conv_bn_eval(mods[conv.target], mods[bn.target]))
        mods[name] = gm.get_submodule(name)
        conv.target = name
        bn.replace_all_uses_with(conv)
        gm.graph.erase_node(bn)
    gm.recompile()
    return gm
''',
    "ex-2d": '''
def has_side_effects(gm, node):
    name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", "")
    module_inplace = node.op == "call_module" and getattr(gm.get_submodule(node.target), "inplace", False)
    return node.is_impure() or bool(node.kwargs.get("inplace")) or module_inplace or (name.endswith("_") and not name.startswith("__"))


def remove_dead_code(gm):
    gm.graph.eliminate_dead_code(is_impure_node=lambda n: has_side_effects(gm, n))
    gm.recompile()
    return gm


def fold_constants(gm):
    interp = fx.Interpreter(gm)
    const = {}
    for node in gm.graph.nodes:
        if node.op == "get_attr" or (node.op in ("call_function", "call_method") and len(node.all_input_nodes) > 0
                                     and all(a in const for a in node.all_input_nodes) and not is_random(node)
                                     and not has_side_effects(gm, node)):
            interp.env = const
            const[node] = interp.run_node(node)
    for i, (node, value) in enumerate(list(const.items())):
        if node.op == "get_attr" or not torch.is_tensor(value):
            continue
        outside = [u for u in node.users if not (u in const and torch.is_tensor(const[u]))]
        if outside:
            gm.register_buffer(f"const_{i}_{node.name}", value.detach())
            with gm.graph.inserting_after(node):
                ref = gm.graph.get_attr(f"const_{i}_{node.name}")
            for u in outside:
                u.replace_input_with(node, ref)
    return remove_dead_code(gm)
''',
    "ex-3": '''
def tensor_bytes(meta):
    if type(meta).__name__ == "TensorMetadata":
        return torch.empty((), dtype=meta.dtype).element_size() * int(torch.Size(meta.shape).numel())
    if isinstance(meta, dict):
        meta = list(meta.values())
    return sum(map(tensor_bytes, meta)) if isinstance(meta, (list, tuple)) else 0


def node_flops(gm, node):
    meta = node.meta.get("tensor_meta")
    if type(meta).__name__ != "TensorMetadata":
        return 0
    out = torch.Size(meta.shape).numel()
    first = lambda: node.args[0].meta["tensor_meta"].shape
    if node.op == "call_module":
        m = gm.get_submodule(node.target)
        return 2 * out * (m.in_features if isinstance(m, nn.Linear) else m.weight[0].numel() if isinstance(m, CONV_MODULES) else 0)
    if node.op == "call_method":
        return 2 * out * first()[-1] if node.target in MATMUL_METHODS else 0
    if node.target in LINEAR_FUNCTIONS | MATMUL_FUNCTIONS:
        return 2 * out * first()[-1]
    if node.target in CONV_FUNCTIONS:
        return 2 * out * torch.Size(node.args[1].meta["tensor_meta"].shape[1:]).numel()
    return 0


def node_costs(gm, example, ridge):
    with torch.no_grad():
        ShapeProp(gm).run(*example)
    out = []
    for n in filter(lambda n: n.op.startswith("call"), gm.graph.nodes):
        b = tensor_bytes(n.meta.get("tensor_meta")) + sum(tensor_bytes(i.meta.get("tensor_meta")) for i in set(n.all_input_nodes))
        if n.op == "call_module":
            b += sum(t.nbytes for t in gm.get_submodule(n.target).state_dict().values())
        f = node_flops(gm, n)
        out.append(dict(name=n.name, op=n.op, target=str(n.target), flops=f, bytes=b,
                        intensity=(f / b) if b else 0.0, memory_bound=(f / b if b else 0.0) < ridge))
    return out
''',
    "ex-4a": '''
def _sites(fn, gm, ops=None):
    keep = lambda g: [n for n in g.graph.nodes if ops is None or n.op in ops]
    return len(keep(gm)) - len(keep(fn(copy.deepcopy(gm))))


class ReluToGelu(OptimizationPass):
    name = "relu_to_gelu"

    def analyze(self, gm):
        return {"matches": len([n for n in gm.graph.nodes if is_relu(gm, n)])}

    def apply(self, gm):
        return relu_to_gelu(gm)


class FoldConvBN(OptimizationPass):
    name = "fold_conv_bn"

    def analyze(self, gm):
        pairs = [n for n in gm.graph.nodes if n.op == "call_module" and isinstance(gm.get_submodule(n.target), nn.BatchNorm2d)
                 and isinstance(n.args[0], fx.Node) and n.args[0].op == "call_module"
                 and isinstance(gm.get_submodule(n.args[0].target), nn.Conv2d) and len(n.args[0].users) == 1]
        return {"matches": len(pairs), "where": [n.name for n in pairs]}

    def apply(self, gm):
        return fold_conv_bn(gm)


class FoldConstants(OptimizationPass):
    name = "fold_constants"

    def analyze(self, gm):
        return {"matches": _sites(fold_constants, gm, ("call_function", "call_method"))}

    def apply(self, gm):
        return fold_constants(gm)


class DeadCode(OptimizationPass):
    name = "dce"

    def analyze(self, gm):
        return {"matches": _sites(remove_dead_code, gm)}

    def apply(self, gm):
        return remove_dead_code(gm)
''',
    "ex-4b": '''
def run_pipeline(model, example, passes, tol=1e-4):
    work = copy.deepcopy(model)
    gm = work if isinstance(work, fx.GraphModule) else fx.symbolic_trace(work)
    with torch.no_grad():
        ref = model(*example)
    report = []
    for p in passes:
        n0 = len(list(gm.graph.nodes))
        info = p.analyze(gm)
        t0 = time.perf_counter()
        try:
            new = p.apply(gm)
            new.graph.lint()
            new.recompile()
            dt = time.perf_counter() - t0
            with torch.no_grad():
                out = new(*example)
            ok = out.shape == ref.shape and torch.allclose(out, ref, rtol=0, atol=tol * max(1.0, ref.abs().max().item()))
        except Exception as e:
            raise PassVerificationError(f"{p.name}: {e!r}") from e
        err = (out - ref).abs().max().item()
        if not ok:
            raise PassVerificationError(f"{p.name} broke the outputs (max error {err})")
        gm = new
        report.append(dict(analysis=info, max_abs_diff=err, nodes_after=len(list(gm.graph.nodes)), nodes_before=n0,
                           seconds=dt, **{"pass": p.name}))
    return gm, report
''',
    "ex-5": '''
def check_pass(pass_fn, cases, tol=1e-5):
    out = []
    for c in cases:
        problem = ""
        try:
            g = pass_fn(fx.symbolic_trace(copy.deepcopy(c["model"])))
        except Exception as e:
            problem = "raised: " + repr(e)
        else:
            try:
                g.graph.lint()
            except Exception as e:
                problem = "lint: " + str(e)
        if not problem:
            try:
                y = g(*c["inputs"])
            except Exception as e:
                problem = "raised at run time: " + repr(e)
            else:
                if not torch.allclose(y, c["expected"], rtol=tol, atol=tol):
                    problem = "output differs"
        if not problem:
            before = [(n.op, str(n.target)) for n in g.graph.nodes]
            try:
                after = [(n.op, str(n.target)) for n in pass_fn(g).graph.nodes]
                if after != before:
                    problem = "idempotent? no: the graph changed"
            except Exception as e:
                problem = "idempotent? no: " + repr(e)
        out.append({"case": c["name"], "ok": not problem, "problem": problem})
    return out
''',
}
