"""Lab 02 hidden checks: the grader's twins of helpers/checks/lab02.py, on models the notebook never saw.

Never released. The models (and the grader's own broken passes) are Python source, executed here to compute the
expected answers and in the sandboxed worker to run the learner's passes on them; weights travel as state dicts.
GraphModules cannot come back from the worker, so each snippet runs a `probe_*` from helpers.checks.lab02 there
and returns plain data. Messages describe each case in words and leave out the hidden models' names and sizes.
"""

from __future__ import annotations

import math
from collections import Counter

import torch
import torch.fx as fx
import torch.nn as nn

from helpers.checks import fail_if
from helpers.checks import lab02 as public

# The notebook cells whose definitions the worker loads (learner-added cells: their defs and imports).
WORKER_CELLS = ["parameters", "setup", "ex-1", "ex-2a", "ex-2b", "ex-2c", "p2-random", "ex-2d", "p3-ops", "ex-3",
                "p4-base", "ex-4a", "ex-4b", "ex-5"]
TRUTHS: dict = {}

SOURCE = r'''
import operator
import torch
import torch.fx as fx
import torch.nn as nn
import torch.nn.functional as F


class HTable(nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = nn.Sequential(nn.Linear(5, 5), nn.Tanh())
        self.gain = nn.Parameter(torch.ones(5))

    def forward(self, x, y, z):
        a = self.sub(x)
        b = torch.add(a, other=y)
        c = torch.stack((b, z * self.gain))
        return c.max(dim=0).values, a


class HRelu(nn.Module):
    def __init__(self, gelu=False):
        super().__init__()
        self.gelu = gelu
        self.a = nn.Linear(6, 6)
        self.b = nn.Linear(6, 6)
        self.act = nn.GELU() if gelu else nn.ReLU()
        self.deep = nn.Sequential(nn.Sequential(nn.Linear(6, 6), nn.GELU() if gelu else nn.ReLU()))

    def forward(self, x, y):
        h = self.act(self.a(x)) + self.act(self.b(y))
        r = F.gelu(h * y) if self.gelu else F.relu(h * y)
        s = F.gelu(self.deep(r)) if self.gelu else self.deep(r).relu()
        t = F.gelu(s - x) if self.gelu else torch.relu(s - x)
        return t * r + r.mean() - r.abs()


class HNoAct(nn.Module):
    def __init__(self, gelu=False):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x).tanh()


class HSingle(nn.Module):
    def __init__(self, gelu=False):
        super().__init__()
        self.gelu = gelu

    def forward(self, x):
        return F.gelu(x) if self.gelu else x.relu()


class HFold(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Conv2d(4, 4, 3, padding=1, groups=2, bias=False)
        self.bn_a = nn.BatchNorm2d(4, eps=1e-3)
        self.bn_b = nn.BatchNorm2d(4, affine=False)
        self.down = nn.Conv2d(4, 6, 3, stride=2)
        self.bn_d = nn.BatchNorm2d(6)
        self.tap = nn.Conv2d(6, 6, 1)
        self.bn_t = nn.BatchNorm2d(6)
        self.bn_late = nn.BatchNorm2d(6)

    def forward(self, x):
        a = self.bn_a(self.shared(x))
        b = self.bn_b(self.shared(a))
        d = self.bn_d(self.down(b))
        t = self.tap(d)
        u = self.bn_t(t) * t.sigmoid()
        return self.bn_late(F.relu(u))


class HOnlyBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(3)

    def forward(self, x):
        return self.bn(x)


class HIdentity(nn.Module):
    def forward(self, x):
        return x


class HDead(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 5)

    def forward(self, x, y, unused):
        a = x + y
        b = a * 2
        torch.relu_(b)
        c = y.clone()
        F.relu(c, inplace=True)
        dead = self.lin(a)
        dead2 = dead.exp() + a
        d = a.mean()
        return b + c


class HConst(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 5))
        self.v = nn.Parameter(torch.randn(5))

    def forward(self, x):
        m = F.normalize(self.w, dim=-1)
        bias = torch.cat([self.v, self.v.flip(0)]).view(2, 5).sum(0)
        noise = F.dropout(self.v, p=0.5, training=True) * 0.0
        h = x @ m.t()
        return h.sum(-1, keepdim=True) + (bias + noise)


class HCost(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, stride=2, padding=1, groups=2)
        self.k = nn.Parameter(torch.randn(6, 8, 1, 1))
        self.fc = nn.Linear(16, 12)
        self.bias = nn.Parameter(torch.randn(12))

    def forward(self, x, q):
        h = F.conv2d(self.conv(x), self.k)
        a, b = h.flatten(2).split(8, dim=-1)
        s = torch.bmm(a, b.transpose(1, 2))
        z = self.fc(q)
        return torch.bmm(s, z) + self.bias


class HPipe(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(2, 4, 3, padding=1)
        self.b1 = nn.BatchNorm2d(4)
        self.c2 = nn.Conv2d(4, 4, 1, bias=False)
        self.b2 = nn.BatchNorm2d(4)
        self.act = nn.ReLU()
        self.p1 = nn.AvgPool2d(2)
        self.p2 = nn.Flatten()
        self.g = nn.Parameter(torch.randn(4))

    def forward(self, x):
        h = self.act(self.b1(self.c1(x)))
        h = F.relu(self.b2(self.c2(h)))
        dead = self.p2(self.p1(h))
        gate = torch.sigmoid(self.g * 3).view(1, 4, 1, 1)
        scale = self.g.abs()
        return (h * gate).relu() * scale.mean()


class ReturnsNone:
    name = "returns_none"

    def analyze(self, gm):
        return {}

    def apply(self, gm):
        return None


class BreaksOrder:
    name = "breaks_node_order"

    def analyze(self, gm):
        return {}

    def apply(self, gm):
        calls = [n for n in gm.graph.nodes if n.op.startswith("call")]
        next(iter(gm.graph.nodes)).prepend(calls[-1])
        return gm


# ---- the edge-case harness: another gallery, other broken passes
class GEmpty(nn.Module):
    def forward(self, x, y):
        return x


class GSingle(nn.Module):
    def forward(self, x, y):
        return x.tanh()


class GTwo(nn.Module):
    def forward(self, x, y):
        return x - y


class GUsers(nn.Module):
    def forward(self, x, y):
        t = x.tanh()
        return t * 3 + t.abs()


class GModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 3, 3)

    def forward(self, x, y):
        return self.conv(x)


def gallery(sd):
    torch.manual_seed(21)
    x, y = torch.randn(1, 2, 7), torch.randn(1, 2, 7)
    cases = []
    for name, cls in (("empty graph", GEmpty), ("single op", GSingle), ("two-input op", GTwo), ("several users", GUsers),
                      ("call_module with parameters", GModule)):
        model = cls()
        if cls is GModule:
            model.load_state_dict(sd)
        with torch.no_grad():
            cases.append({"name": name, "model": model, "inputs": (x, y), "expected": model(x, y)})
    return cases


def _recompiled(gm):
    gm.recompile()
    return gm


def tanh_as_function(gm):
    for n in list(gm.graph.nodes):
        if n.op == "call_method" and n.target == "tanh":
            with gm.graph.inserting_after(n):
                new = gm.graph.call_function(torch.tanh, n.args)
            n.replace_all_uses_with(new)
            gm.graph.erase_node(n)
    return _recompiled(gm)


def sub_first_input_twice(gm):
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is operator.sub and all(isinstance(a, fx.Node) for a in n.args):
            n.args = (n.args[0], n.args[0])
    return _recompiled(gm)


def tanh_one_user(gm):
    for n in list(gm.graph.nodes):
        if n.op == "call_method" and n.target == "tanh":
            with gm.graph.inserting_after(n):
                new = gm.graph.call_function(torch.tanh, n.args)
            n.replace_all_uses_with(new, delete_user_cb=lambda user, first=next(iter(n.users)): user is first)
            gm.graph.erase_node(n)
    return _recompiled(gm)


def times_one_every_run(gm):
    out = next(n for n in gm.graph.nodes if n.op == "output")
    with gm.graph.inserting_before(out):
        new = gm.graph.call_function(operator.mul, (out.args[0], 1))
    out.args = (new,)
    return _recompiled(gm)


def last_call_required(gm):
    last = [n for n in gm.graph.nodes if n.op.startswith("call")][-1]
    last.meta["seen"] = True
    return _recompiled(gm)


def conv_without_bias(gm):
    for n in list(gm.graph.nodes):
        if n.op == "call_module" and isinstance(gm.get_submodule(n.target), nn.Conv1d):
            with gm.graph.inserting_before(n):
                w = gm.graph.get_attr(n.target + ".weight")
                new = gm.graph.call_function(F.conv1d, (n.args[0], w))
            n.replace_all_uses_with(new)
            gm.graph.erase_node(n)
    return _recompiled(gm)


def output_first(gm):
    calls = [n for n in gm.graph.nodes if n.op.startswith("call")]
    if calls:
        next(iter(gm.graph.nodes)).prepend(calls[0])
    return _recompiled(gm)


HARNESS_PASSES = {"tanh_as_function": tanh_as_function, "sub_first_input_twice": sub_first_input_twice,
                  "tanh_one_user": tanh_one_user, "times_one_every_run": times_one_every_run,
                  "last_call_required": last_call_required, "conv_without_bias": conv_without_bias,
                  "output_first": output_first}
'''


def _namespace() -> dict:
    ns: dict = {"__name__": "workbook_hidden_lab02_models"}
    exec(compile(SOURCE, "<hidden lab02 models>", "exec"), ns)
    return ns


M = _namespace()



def _run(ctx, body: str, timeout: float | None = None, **inputs):
    """Run SOURCE and then `body` in the learner's namespace in the worker."""
    return ctx.run(SOURCE + "\nfrom helpers.checks import lab02 as L\n" + body, timeout=timeout, **inputs)


def _make(name: str, seed: int, **kwargs) -> nn.Module:
    torch.manual_seed(seed)
    return M[name](**kwargs)


def _grader_kinds(model: nn.Module) -> list[tuple[str, str]]:
    gm = fx.symbolic_trace(model)
    return [(n.op, public.node_kind(gm, n)) for n in gm.graph.nodes]


# ---------------------------------------------------------------- 1
def graph_table(ctx) -> str:
    rows = _run(ctx, "result = L.probe_graph_table(graph_table, HTable())['rows']")
    truth = public.probe_graph_table(lambda gm: [], _make("HTable", 0))["truth"]
    fail_if(public.graph_table_problems({"rows": rows, "truth": truth},
                                      "the grader's model (nested submodules, a keyword input, inputs in a tuple, two outputs)",
                                      reveal=False), most=2)
    return "right on the grader's model"


# ---------------------------------------------------------------- 2
RELU_CASES = (
    ("the grader's model (one nn.ReLU module called twice, ReLUs after two-input ops, a ReLU two Sequentials deep, "
     "a ReLU read three times)", "HRelu", {}, lambda: (torch.randn(3, 6), torch.randn(3, 6))),
    ("a graph with no activation at all", "HNoAct", {}, lambda: (torch.randn(2, 4),)),
    ("a graph whose only op is x.relu()", "HSingle", {}, lambda: (torch.randn(7),)),
    ("a graph that already uses GELU only", "HRelu", {"gelu": True}, lambda: (torch.randn(3, 6), torch.randn(3, 6))),
)


def _relu_check(ctx, fn_name: str) -> str:
    for i, (about, cls, kwargs, make_inputs) in enumerate(RELU_CASES):
        model = _make(cls, 30 + i, **kwargs).eval()
        torch.manual_seed(40 + i)
        ins = make_inputs()
        twin = _make(cls, 30 + i, gelu=True).eval()
        twin.load_state_dict(model.state_dict())
        with torch.no_grad():
            want = twin(*ins)
        args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
        probe = _run(ctx, f"model = {cls}({args})\nmodel.load_state_dict(sd)\nresult = L.probe_pass({fn_name}, model, ins)\n",
                     sd=model.state_dict(), ins=ins)
        probe["kinds_before"] = _grader_kinds(model)
        fail_if(public.relu_problems(probe, fn_name, want, about, reveal=False), most=2)
    return "every ReLU becomes exact GELU on the grader's models and edge cases"


def relu_to_gelu(ctx) -> str:
    return _relu_check(ctx, "relu_to_gelu")


def rewriter(ctx) -> str:
    return _relu_check(ctx, "relu_to_gelu_pattern")


FOLD_CASES = (
    ("the grader's CNN (a conv module called twice, each call followed by its own batch norm, grouped and strided "
     "convs, a batch norm without affine parameters, a conv read twice, a batch norm after a ReLU)", "HFold",
     lambda: (torch.randn(2, 4, 9, 9),), 2),
    ("a graph of one batch norm and no conv", "HOnlyBN", lambda: (torch.randn(2, 3, 4, 4),), 1),
    ("the empty graph", "HIdentity", lambda: (torch.randn(3),), 0),
)


def fold_conv_bn(ctx) -> str:
    for i, (about, cls, make_inputs, bn_left) in enumerate(FOLD_CASES):
        model = public.randomize_bn(_make(cls, 50 + i), 60 + i)
        torch.manual_seed(70 + i)
        ins = make_inputs()
        with torch.no_grad():
            want = model(*ins)
        probe = _run(ctx, f"model = {cls}()\nmodel.load_state_dict(sd)\nresult = L.probe_pass(fold_conv_bn, model, ins)\n",
                     sd=model.state_dict(), ins=ins)
        probe["kinds_before"] = _grader_kinds(model)
        fail_if(public.fold_problems(probe, want, about, bn_left), most=2)
    return "folds what can be folded on the grader's CNN, leaves the rest, and matches its outputs"


def cleanup(ctx) -> str:
    cases = (
        ("remove_dead_code", "HDead", lambda: (torch.randn(2, 5), torch.randn(2, 5), torch.randn(1)),
         Counter({"add": 2, "mul": 1, "relu": 2, "clone": 1}), 3,
         "the grader's model (a dead chain through a module, in-place ops written as a function, with inplace=True, "
         "an unused input)"),
        ("fold_constants", "HConst", lambda: (torch.randn(4, 5),),
         Counter({"matmul": 1, "dropout": 1, "mul": 1, "sum": 1, "add": 2}), None,
         "the grader's model (constants through a functional call, a list input, views and reductions; a random op)"),
    )
    for i, (fn_name, cls, make_inputs, want_calls, placeholders, about) in enumerate(cases):
        model = _make(cls, 80 + i).eval()
        torch.manual_seed(90 + i)
        ins = make_inputs()
        with torch.no_grad():
            want = model(*ins)
        probe = _run(ctx, f"model = {cls}()\nmodel.load_state_dict(sd)\nresult = L.probe_pass({fn_name}, model, ins)\n",
                     sd=model.state_dict(), ins=ins)
        fail_if(public.cleanup_problems(probe, fn_name, want, about, want_calls, placeholders, reveal=False), most=2)
    return "dead code and constants handled on the grader's models"


# ---------------------------------------------------------------- 3
def reference_costs(gm: fx.GraphModule, inputs: tuple) -> dict[str, dict]:
    """The grader's own count, from the rule in the notebook: {node name: {flops, bytes}} per call node."""
    from torch.fx.passes.shape_prop import ShapeProp, TensorMetadata

    with torch.no_grad():
        ShapeProp(gm).propagate(*inputs)

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


def _describe(gm: fx.GraphModule):
    kinds = {n.name: f"a {n.op} node ({public.node_kind(gm, n)})" for n in gm.graph.nodes}
    return lambda name: kinds.get(name, "a node")


def node_costs(ctx) -> str:
    ridge = 7.5
    torch.manual_seed(100)
    model = _make("HCost", 101).eval()
    ins = (torch.randn(2, 4, 8, 8), torch.randn(2, 6, 16))
    probe = _run(ctx, "model = HCost()\nmodel.load_state_dict(sd)\nmodel.eval()\n"
                      "result = L.probe_costs(node_costs, fx.symbolic_trace(model), ins, ridge)\n",
                 sd=model.state_dict(), ins=ins, ridge=ridge)
    gm = fx.symbolic_trace(model)
    truth = reference_costs(gm, ins)
    probe["flop_counter"] = public.flop_counter_total(gm, ins)
    fail_if(public.cost_problems(probe, truth, ridge, "the grader's model (a grouped strided conv, F.conv2d with a parameter, "
                               "a split into a tuple, batched matmuls, a Linear on 3-D input, a broadcast add)",
                               describe=_describe(gm), reveal=False), most=2)

    from helpers.models import MiniGPT

    torch.manual_seed(102)
    gpt = MiniGPT(vocab=50, d_model=32, n_heads=2, n_layers=1, max_len=16).eval()
    tokens = torch.randint(0, 50, (3, 10))
    probe = _run(ctx, "from helpers.models import MiniGPT\n"
                      "gpt = MiniGPT(vocab=50, d_model=32, n_heads=2, n_layers=1, max_len=16)\ngpt.load_state_dict(sd)\ngpt.eval()\n"
                      "gm = torch.export.export(gpt, (tokens,)).module()\n"
                      "result = L.probe_costs(node_costs, gm, (tokens,), ridge)\n",
                 timeout=180, sd=gpt.state_dict(), tokens=tokens, ridge=ridge)
    gm = torch.export.export(gpt, (tokens,)).module()
    truth = reference_costs(gm, (tokens,))
    probe["flop_counter"] = public.flop_counter_total(gm, (tokens,))
    fail_if(public.cost_problems(probe, truth, ridge, "a MiniGPT captured by torch.export (ATen spellings)",
                               describe=_describe(gm), reveal=False), most=2)
    return "costs right on the grader's CNN and on an exported MiniGPT"


# ---------------------------------------------------------------- 4
HPIPE_MATCHES = {"ReluToGelu": 3, "FoldConvBN": 2, "FoldConstants": 5, "DeadCode": 2}


def pipeline(ctx) -> str:
    model = public.randomize_bn(_make("HPipe", 110), 111)
    torch.manual_seed(112)
    ins = (torch.randn(2, 2, 6, 6),)
    got = _run(ctx, (
        "def make():\n    m = HPipe()\n    m.load_state_dict(sd)\n    return m.eval()\n"
        "classes = {'ReluToGelu': ReluToGelu, 'FoldConvBN': FoldConvBN, 'FoldConstants': FoldConstants, 'DeadCode': DeadCode}\n"
        "ok = [L.IdentityPass(), L.NoRecompile(), L.RebuildWithoutDeadCode(), L.DoubleWeightsInPlace(), L.ScaleOutput(1 + 1e-7, 'tiny_rounding')]\n"
        "bad = [([L.IdentityPass(), L.ScaleOutput(0.98, 'shrinks')], 'changes the output by 2%'),\n"
        "       ([ReturnsNone()], 'returns None instead of a GraphModule'),\n"
        "       ([L.IdentityPass(), BreaksOrder()], 'leaves a node before its inputs')]\n"
        "result = {'classes': L.probe_pass_classes(classes, make),\n"
        "          'pipeline': L.probe_pipeline(run_pipeline, PassVerificationError, make, ins, ok, bad)}\n"),
        sd=model.state_dict(), ins=ins)
    fail_if(public.pass_class_problems(got["classes"], "the grader's CNN (three ReLU spellings, two foldable pairs, "
                                     "a dead chain of modules, constants from a parameter)", HPIPE_MATCHES, reveal=False), most=2)
    fail_if(public.pipeline_problems(got["pipeline"], 1e-4, "the grader's CNN", reveal=False), most=2)
    return "analysis counts and the verifying pipeline right on the grader's CNN and passes"


# ---------------------------------------------------------------- 5
HARNESS_EXPECT = {
    "tanh_as_function": {},
    "sub_first_input_twice": {"two-input op": "output"},
    "tanh_one_user": {"several users": "raised"},
    "times_one_every_run": {c: "idempotent" for c in public.ALL},
    "last_call_required": {"empty graph": "raised"},
    "conv_without_bias": {"call_module with parameters": "output"},
    "output_first": {c: "lint" for c in public.ALL if c != "empty graph"},
}
HARNESS_WORDS = {
    "tanh_as_function": "a correct pass (it rewrites x.tanh() as torch.tanh(x))",
    "sub_first_input_twice": "a pass that gives a two-input op its first input twice",
    "tanh_one_user": "a pass that rewires only one user of the node it replaces, then erases it",
    "times_one_every_run": "a pass that adds a node on every run",
    "last_call_required": "a pass that assumes the graph has a call node",
    "conv_without_bias": "a pass that drops a module's bias",
    "output_first": "a pass that moves a node before its inputs",
}


def check_pass(ctx) -> str:
    torch.manual_seed(120)
    sd = M["GModule"]().state_dict()
    probe = _run(ctx, "result = L.probe_harness(check_pass, HARNESS_PASSES, lambda: gallery(sd))\n", sd=sd)
    fail_if(public.harness_problems(probe, HARNESS_EXPECT, public.ALL, describe=lambda p: HARNESS_WORDS[p]), most=2)
    return "the harness sorts the grader's passes right on another gallery"


HIDDEN = {
    "02.graph_table": graph_table,
    "02.relu_to_gelu": relu_to_gelu,
    "02.rewriter": rewriter,
    "02.fold_conv_bn": fold_conv_bn,
    "02.cleanup": cleanup,
    "02.node_costs": node_costs,
    "02.pipeline": pipeline,
    "02.check_pass": check_pass,
}
