"""Lab 02 hidden cases: the grader's cases and reference answers for the checks in helpers/checks/lab02.py.

Never released. Cases only: the checks are the public ones, run with probes in the submission's kernel and
messages that describe each case in words, leaving out the hidden models' names, nodes and sizes. The models and
the grader's broken passes are code in hidden_inputs/lab02.py (the job imports them to unpickle the cases); here
they are built with their weights and inputs, and their expected answers computed: the outputs of the models or
of their GELU twins, and the costs by the grader's own rule (`reference_costs`), once per batch in the references
process because one of the models is a MiniGPT captured by torch.export.
"""

from __future__ import annotations

import math

import torch
import torch.fx as fx
import torch.nn as nn
from hidden_inputs import lab02 as inputs

from helpers.checks import lab02 as public
from helpers.models import MiniGPT


def randn(seed: int, *shapes: tuple) -> tuple:
    """Input tensors of these shapes, drawn from `seed`."""
    with public.seeded(seed):
        return tuple(torch.randn(*s) for s in shapes)


# ---------------------------------------------------------------- 1
def table_cases() -> list[public.TableCase]:
    return [public.TableCase("the grader's model (nested submodules, a keyword input, inputs in a tuple, two outputs)",
                             public.built(0, inputs.HTable))]


# ---------------------------------------------------------------- 2
RELU_MODELS = (
    ("the grader's model (one nn.ReLU module called twice, ReLUs after two-input ops, a ReLU two Sequentials deep, "
     "a ReLU read three times)", inputs.HRelu, {}, ((3, 6), (3, 6))),
    ("a graph with no activation at all", inputs.HNoAct, {}, ((2, 4),)),
    ("a graph whose only op is x.relu()", inputs.HSingle, {}, ((7,),)),
    ("a graph that already uses GELU only", inputs.HRelu, {"gelu": True}, ((3, 6), (3, 6))),
    ("a model with activations named like ReLU that are not ReLU (RReLU, relu6, leaky_relu, LeakyReLU) and one F.relu",
     inputs.HLookalikes, {}, ((5, 3),)),
)


def rewrite_cases() -> list[public.RewriteCase]:
    """The same cases for relu_to_gelu and relu_to_gelu_pattern; expected: the GELU twin's outputs."""
    return [public.rewrite_case(about, public.built(30 + i, cls, **kwargs), randn(40 + i, *shapes))
            for i, (about, cls, kwargs, shapes) in enumerate(RELU_MODELS)]


FOLD_MODELS = (
    ("the grader's CNN (a conv module called twice, each call followed by its own batch norm, grouped, strided and "
     "dilated convs, a batch norm without affine parameters, a conv read twice, a batch norm after a ReLU)", inputs.HFold,
     (2, 4, 9, 9), 2),
    ("a graph of one batch norm and no conv", inputs.HOnlyBN, (2, 3, 4, 4), 1),
    ("the empty graph", inputs.HIdentity, (3,), 0),
    ("a model with a batch norm that keeps no running statistics (it normalizes with each batch's own), then a "
     "foldable pair", inputs.HBatchStats, (3, 2, 9, 9), 1, public.BATCH_STATS_HINT),
    ("a model with a batch norm left in training mode, then a foldable pair", inputs.HStaysTraining, (3, 3, 8, 8), 1,
     public.TRAINING_HINT),
)


def fold_cases() -> list[public.FoldCase]:
    cases = [public.fold_case(about, public.randomize_bn(public.built(50 + i, cls), 60 + i), randn(70 + i, shape), bn_left,
                              *hint)
             for i, (about, cls, shape, bn_left, *hint) in enumerate(FOLD_MODELS)]
    with public.seeded(58):
        nested = nn.Sequential(nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4)), nn.ReLU(),
                               nn.Sequential(nn.Conv2d(4, 2, 1, bias=False), nn.BatchNorm2d(2)))
    cases.append(public.fold_case("a model of Sequentials inside a Sequential, each a conv → batch norm pair (dotted "
                                  "targets, two levels deep)", public.randomize_bn(nested, 68), randn(79, (2, 3, 6, 6)), 0))
    tiny = public.small_variances(public.randomize_bn(public.built(57, inputs.HSmallVar), 67), eps=3e-3, seed=77)
    cases.append(public.fold_case("the grader's second CNN, with eps=0.003 and running variances of that order", tiny,
                                  randn(78, (2, 3, 7, 7)), 0))
    return cases


def dead_code_cases() -> list[public.CleanupCase]:
    return [public.cleanup_case(
        "remove_dead_code", "the grader's model (a dead chain through a module and a parameter, in-place ops written as functions, "
        "with inplace=True and as modules, two checks that return nothing, an unused input)", public.built(80, inputs.HDead),
        randn(90, (2, 5), (2, 5), (1,)),
        {"add": 2, "mul": 1, "relu": 2, "clone": 1, "Hardtanh": 1, "clamp_": 1, "Hardswish": 1, "min": 1, "ge": 1,
         "_assert": 1, "max": 1, "lt": 1, "_assert_async": 1}, placeholders=3),
            public.cleanup_case("remove_dead_code", "the grader's hand-built graph (unread dunder calls beside an in-place "
                                "call)", inputs.HDunders(), randn(92, (6,)), {"clone": 1, "add_": 1, "sigmoid": 1}, placeholders=1)]


def fold_constants_cases() -> list[public.CleanupCase]:
    return [public.cleanup_case(
        "fold_constants", "the grader's model (constants through a functional call with a keyword, a list input, views "
        "and reductions, .size() and .cpu(); a random op)", public.built(81, inputs.HConst), randn(91, (4, 5)),
        {"matmul": 1, "dropout": 1, "mul": 1, "sum": 1, "add": 2, "view": 1, "size": 1}),
            public.cleanup_case(
        "fold_constants", "the grader's second model (a constant from a parameter two submodules deep, a parameter "
        "through an op that returns it unchanged, constants computed from a tuple and from an int, an in-place call whose "
        "result is unread)", public.built(82, inputs.HConstParts),
        randn(93, (2, 5)), {"sub": 1, "mul_": 1, "matmul": 1, "add": 2})]


# ---------------------------------------------------------------- 3
def reference_costs(gm: fx.GraphModule, example: tuple) -> dict[str, dict]:
    """The grader's own count, from the rule in the notebook: {node name: {flops, bytes}} per call node."""
    from torch.fx.passes.shape_prop import ShapeProp, TensorMetadata

    with torch.no_grad():
        ShapeProp(gm).propagate(*example)

    def nbytes(meta) -> int:
        if isinstance(meta, TensorMetadata):
            return math.prod(meta.shape) * meta.dtype.itemsize
        if isinstance(meta, (tuple, list)):
            return sum(nbytes(m) for m in meta)
        if isinstance(meta, dict):
            return sum(nbytes(m) for m in meta.values())
        return 0

    F = torch.nn.functional
    aten = torch.ops.aten
    linear = {F.linear, aten.linear.default}
    matmul = {__import__("operator").matmul, torch.matmul, torch.mm, torch.bmm, aten.matmul.default, aten.mm.default, aten.bmm.default}
    conv = {F.conv1d, F.conv2d, F.conv3d, aten.conv1d.default, aten.conv2d.default, aten.conv3d.default}
    truth = {}
    for n in gm.graph.nodes:
        if n.op not in public.CALLS:
            continue
        meta = n.meta.get("tensor_meta")
        out = math.prod(meta.shape) if isinstance(meta, TensorMetadata) else 0
        flops, extra = 0, 0
        if n.op == "call_module":
            mod = gm.get_submodule(n.target)
            extra = sum(t.numel() * t.element_size() for t in list(mod.parameters()) + list(mod.buffers()))
            if isinstance(mod, nn.Linear):
                flops = 2 * out * mod.in_features
            elif isinstance(mod, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
                flops = 2 * out * (mod.in_channels // mod.groups) * math.prod(mod.kernel_size)
        elif (n.op == "call_function" and (n.target in linear or n.target in matmul)) or \
                (n.op == "call_method" and n.target in ("matmul", "mm", "bmm", "__matmul__")):
            flops = 2 * out * n.args[0].meta["tensor_meta"].shape[-1]
        elif n.op == "call_function" and n.target in conv:
            flops = 2 * out * math.prod(n.args[1].meta["tensor_meta"].shape[1:])
        moved = sum(nbytes(i.meta.get("tensor_meta")) for i in n.all_input_nodes) + nbytes(meta) + extra
        truth[n.name] = {"flops": flops, "bytes": moved}
    return truth


def cost_cases() -> list[public.CostCase]:
    """The grader's CNN (symbolic_trace) and a MiniGPT (torch.export, ATen spellings), with their costs by the rule."""
    cnn = public.cost_case("the grader's model (a grouped strided conv, a batch norm, F.conv2d with a parameter, a split "
                           "into a tuple, batched matmuls, a Linear on 3-D input, a broadcast add)", public.built(101, inputs.HCost),
                           randn(100, (2, 4, 8, 8), (2, 6, 16)), 7.5, reference_costs)
    gpt = public.built(102, MiniGPT, vocab=50, d_model=32, n_heads=2, n_layers=1, max_len=16).eval()
    with public.seeded(103):
        tokens = torch.randint(0, 50, (3, 10))
    exported = public.cost_case("a MiniGPT captured by torch.export (ATen spellings)", gpt, (tokens,), 7.5, reference_costs,
                                export=True)
    with public.seeded(104):
        squares_in = (torch.randn(2, 3, 6, 6).bfloat16(),)
    squares = public.cost_case("the grader's bfloat16 model (a depthwise conv, then ops that read one input twice)",
                               public.built(105, inputs.HSquares).bfloat16(), squares_in, 7.5, reference_costs)
    seq, seq_in = public.built(106, inputs.HSeqCost), randn(107, (2, 4, 9), (2, 2, 4))
    at = reference_costs(public.capture(seq, seq_in), seq_in)["bmm"]        # the ridge exactly at one node's intensity
    sequence = public.cost_case("the grader's 1-D model (a grouped strided Conv1d, F.conv1d, a cat of a list, an input "
                                "by keyword, batched and plain matrix products as methods; the ridge exactly at one node's "
                                "intensity)", seq, seq_in, at["flops"] / at["bytes"], reference_costs)
    return [cnn, exported, squares, sequence]


REFERENCES = {"node_costs": cost_cases}


# ---------------------------------------------------------------- 4
# a third and a fourth batch norm are not foldable (after a ReLU; after a conv read twice); an in-place call stays
HPIPE_MATCHES = {"ReluToGelu": 3, "FoldConvBN": 2, "FoldConstants": 5, "DeadCode": 2}


def refused_pipelines(model, ins) -> tuple:
    """The grader's bad pipelines for this model and input; the drift is 0.6 × tol of the output's scale per pass."""
    step = 0.6e-4 * public.output_scale(public.output_of(model, ins))
    return (((public.IdentityPass(), public.ScaleOutput(0.98, "shrinks")), "changes the output by 2%"),
            ((inputs.ReturnsNone(),), "returns None instead of a GraphModule"),
            ((public.IdentityPass(), inputs.BreaksOrder()), "leaves a node before its inputs"),
            ((public.AddDimension(), public.IdentityPass()), "gives the output a leading dimension of 1 (values that "
                                                             "broadcast equal)"),
            ((public.ShiftOutput(step, "drift_1"), public.IdentityPass(), public.ShiftOutput(step, "drift_2")),
             "drifts by 0.6 × tol in two passes (1.2 × tol from the original model)"),
            ((public.IdentityPass(), public.ShiftOutput(1.0, "adds_one"), public.ShiftOutput(-1.0, "takes_one_away")),
             "adds 1 to the output before a pass that takes it away again"),
            ((inputs.MissingMethod(),), "leaves a graph that passes lint and raises when run"),
            ((public.AnalysisCrash(),), "raises in its analyze()"),
            ((public.IdentityPass(), public.ChangeLastOutput()), "changes only the last of the outputs"),
            ((public.DropLastOutput(), public.IdentityPass()), "returns one output fewer than the model"),
            ((public.IdentityPass(), public.ShiftOutput(3e-6 * public.output_scale(public.output_of(model, ins)), "shifts")),
             "shifts the outputs by 3 × tol when run_pipeline is called with tol=1e-6", 1e-6),
            ((public.ShiftOutput(float("nan"), "adds_nan"), public.IdentityPass()), "turns the outputs into NaN"),
            ((public.ShiftOutput(-100 * step, "lowers"),), "lowers the outputs (the difference is |out − ref|)"),
            ((public.IdentityPass(), public.ShiftOutput(float("-inf"), "adds_minus_inf")),
             "turns the outputs into -inf (the tolerance comes from the reference, not from what the pass returns)"))


def pipeline_cases() -> list[public.PipelineCase]:
    model = public.randomize_bn(public.built(110, inputs.HPipe), 111)
    ins = randn(112, (2, 2, 6, 6))
    large = public.OutputsSwapped(public.randomize_bn(public.built(110, inputs.HPipe), 111)).eval()
    large_ins = tuple(t * 3e3 for t in randn(113, (2, 2, 6, 6)))
    large_scale = public.output_scale(public.output_of(large, large_ins))
    ok = (public.IdentityPass(), public.Sleeps(0.04, "slow_identity"), public.NoRecompile(), public.RebuildWithoutDeadCode(),
          public.DoubleWeightsInPlace(), public.ScaleOutput(1 + 1e-7, "tiny_rounding"),
          public.SlowGraph("slow_to_run"),
          public.ShiftOutput(0.5e-4, "shifts_half_tol"))     # the first case's outputs are below 1: tol × max(1, ...) allows it
    return [public.PipelineCase("the grader's CNN (three ReLU spellings, two foldable pairs, two batch norms that are not, "
                                "an in-place call, a dead chain of modules, constants from a parameter; two outputs)", model,
                                ins, HPIPE_MATCHES, ok, refused_pipelines(model, ins)),
            public.PipelineCase("the grader's CNN on inputs near 3·10³, its two outputs returned in the other order (a pass "
                                "that rounds by 3e-5 of the output, or shifts every element by 0.4 × tol × max |ref|, keeps "
                                "it)", large, large_ins, HPIPE_MATCHES,
                                (*ok, public.ScaleOutput(1 + 3e-5, "relative_rounding"),
                                 public.ShiftOutput(0.4e-4 * large_scale, "shifts_0.4_allowed")),
                                (*refused_pipelines(large, large_ins),
                                 ((public.IdentityPass(), public.ScaleOutput(1 + 1.5e-4, "scales_1.5_tol")),
                                  "scales the outputs by 1 + 1.5 × tol (its largest element moves by 1.5 × tol × max |ref|)")))]


# ---------------------------------------------------------------- 5
HARNESS_PASSES = (
    (inputs.tanh_as_function, "a correct pass (it rewrites x.tanh() as torch.tanh(x))", {}),
    (inputs.sub_first_input_twice, "a pass that gives a two-input op its first input twice", {"two-input op": "output"}),
    (inputs.tanh_one_user, "a pass that rewires only one user of the node it replaces, then erases it",
     {"several users": "raised"}),
    (inputs.times_one_every_run, "a pass that adds a node on every run", {c: "idempotent" for c in public.ALL}),
    (public.off_by_one_every_run, "a pass that changes the outputs, and the graph again on every run",
     {c: "output" for c in public.ALL}),
    (inputs.tanh_back_and_forth, "a pass that swaps a spelling back and forth, the node count unchanged",
     {"single op": "idempotent", "several users": "idempotent"}),
    (inputs.tanh_retargeted_in_place, "a pass that swaps a node's target back and forth in place, its op and name unchanged",
     {"single op": "idempotent", "several users": "idempotent"}),
    (inputs.last_call_required, "a pass that assumes the graph has a call node", {"empty graph": "raised"}),
    (inputs.conv_without_bias, "a pass that drops a module's bias", {"call_module with parameters": "output"}),
    (inputs.output_first, "a pass that moves a node before its inputs", {c: "lint" for c in public.ALL if c != "empty graph"}),
    (public.moves_a_call_first, "a pass that moves the last call before the graph's inputs",
     {c: "lint" for c in public.ALL if c != "empty graph"}),
    (inputs.conv_thirds_in_place, "a pass that changes a module's weights in place and compensates in the graph", {}),
    (inputs.tanh_rebuilt_every_run, "a correct pass that rebuilds the nodes it rewrote on every run (new names, the same "
     "ops and targets)", {}),
    (inputs.output_plus_tiny, "a pass that shifts the output by 4e-6, checked with the default tol", {}),
    (inputs.output_indexed_with_none, "a pass that gives the output another shape, its values unchanged",
     {c: "output" for c in public.ALL}),
    (inputs.output_plus_tiny, "a pass that shifts the output by 4e-6, checked with tol=1e-7",
     {c: "output" for c in public.ALL}, 1e-7),
    (inputs.tanh_renamed, "a pass whose graph raises when run (a method tensors do not have)",
     {"single op": "raised", "several users": "raised"}),
    (inputs.tanh_or_raise, "a pass that raises where it finds nothing to rewrite (so on its own output)",
     {"empty graph": "raised", "single op": "idempotent", "two-input op": "raised", "several users": "idempotent",
      "call_module with parameters": "raised"}),
)


def grader_gallery() -> list[dict]:
    """Another gallery: two inputs everywhere, tanh for sin, a subtraction, a Conv1d with a bias; inputs at least 1 in
    size (so the empty graph's outputs are too: a check that keeps the default rtol of 1e-5 beside tol=1e-7 lets the
    strict case's 4e-6 through on every element)."""
    conv = public.built(120, inputs.GModule)
    xy = tuple(t + t.sign() for t in randn(21, (1, 2, 7), (1, 2, 7)))
    models = (inputs.GEmpty(), inputs.GSingle(), inputs.GTwo(), inputs.GUsers(), conv)
    return [public.gallery_case(name, model, xy) for name, model in zip(public.ALL, models)]


# a case whose expected output is the sigmoid's, not what its model (x.tanh()) computes
REWRITE_PASSES = (
    (inputs.tanh_as_sigmoid, "a rewrite meant to change the outputs, correct for the case", {}),
    (inputs.tanh_as_function, "a pass that keeps the model's outputs where the case expects others", {"single op": "output"}),
)


def harness_cases() -> list[public.HarnessCase]:
    xy = randn(22, (1, 2, 7), (1, 2, 7))
    rewrite = [{"name": "single op", "model": inputs.GSingle(), "inputs": xy, "expected": torch.sigmoid(xy[0])}]
    return [public.HarnessCase(grader_gallery(), tuple(public.HarnessPass(*p) for p in HARNESS_PASSES)),
            public.HarnessCase(rewrite, tuple(public.HarnessPass(*p) for p in REWRITE_PASSES), public.EXPECTED_HINT)]


CASES = {
    "02.graph_table": lambda refs: table_cases(),
    "02.relu_to_gelu": lambda refs: rewrite_cases(),
    "02.rewriter": lambda refs: rewrite_cases(),
    "02.fold_conv_bn": lambda refs: fold_cases(),
    "02.dead_code": lambda refs: dead_code_cases(),
    "02.fold_constants": lambda refs: fold_constants_cases(),
    "02.node_costs": lambda refs: refs["node_costs"],
    "02.passes": lambda refs: pipeline_cases(),
    "02.pipeline": lambda refs: pipeline_cases(),
    "02.check_pass": lambda refs: harness_cases(),
}
