"""Lab 03 hidden checks: the grader's twins of helpers/checks/lab03.py, on graphs and inputs the notebook never saw.

Never released. The models are Python source, executed here (to compute the truth) and in the sandboxed worker
(to run the learner's code on them). The rules of the lab (which node is elementwise, which mutates) come from the
solution notebook's own vocabulary cell, executed here, so the grader and the notebook can never disagree.
Messages describe each case in words and leave out the hidden graphs' shapes and values.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import operator
from pathlib import Path

import torch
import torch.fx as fx
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.passes.shape_prop import ShapeProp, TensorMetadata

from helpers.checks import fail_if
from helpers.checks import lab03 as public

WORKER_CELLS = ["parameters", "setup", "ex-1", "p2-vocab", "ex-2a", "ex-2b", "p2-pass", "ex-3", "p4-table", "ex-4",
                "ex-5", "p5-register", "ex-6"]
TRUTHS: dict = {}

SOURCE = r'''
import operator
import torch
import torch.fx as fx
import torch.nn as nn
import torch.nn.functional as F


class HDeep(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(nn.Sequential(nn.Linear(5, 5), nn.SiLU(), nn.Tanh()), nn.Sigmoid())
        self.post = nn.ReLU()

    def forward(self, x, y):
        h = self.block(x)
        h = torch.mul(h, y).neg()
        k = h.abs()
        return self.post(k - h) / (k + 1)


class HInplace(nn.Module):
    def forward(self, x, y):
        a = torch.exp(x) * 3
        b = F.relu(a - y, inplace=True)
        c = b.sigmoid().tanh()
        torch.relu_(y)
        return c + y


class HJoins(nn.Module):
    def forward(self, x, y):
        p = x.sigmoid()
        q = y.tanh() - 1
        r = p * q
        s = r.exp()
        t = torch.add(s, r)
        return t.relu(), F.gelu(x) * 2


class HMatmul(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(5, 5))

    def forward(self, x, y):
        h = (x @ self.w).relu() + y
        return (h @ self.w.t()).sigmoid() * h.abs()


class HBatchNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(12)
        self.act = nn.GELU()

    def forward(self, x, s):
        return self.act(self.bn(x)) * s + 1


class HResidual(nn.Module):
    """Two chains around a layer norm, for the backend."""

    def __init__(self, d=24):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc = nn.Linear(d, d)
        self.alpha = nn.Parameter(torch.rand(d))

    def forward(self, x):
        h = torch.tanh(self.fc(self.norm(x))) * self.alpha
        return (x + h).relu() - 0.25 * x.sigmoid().exp()


def h_mutate(x, y):
    a = x.tanh()
    b = a * 3
    x.sub_(1)
    return (b - x).abs() + y


CHAIN_MODELS = {"HDeep": "a model with nested Sequentials, method and function spellings and two readers of one value",
                "HInplace": "a model with in-place ops (inplace=True and torch.relu_) inside and around chains",
                "HJoins": "a model where chains meet and a value is read by a later op of its own chain",
                "HMatmul": "a model where matmuls cut chains and a parameter is read twice"}
'''


def _namespace() -> dict:
    ns: dict = {"__name__": "workbook_hidden_lab03_models"}
    exec(compile(SOURCE, "<hidden lab03 models>", "exec"), ns)
    return ns


M = _namespace()


def _vocabulary() -> dict:
    """The notebook's own vocabulary cell (elementwise_op, mutates, aliases_input), from the solution notebook."""
    nb = json.loads((Path(__file__).resolve().parents[1] / "03_operator_fusion.ipynb").read_text())
    source = next("".join(c["source"]) for c in nb["cells"] if c.get("id") == "p2-vocab")
    ns = {"operator": operator, "torch": torch, "fx": fx, "nn": nn, "F": F, "TensorMetadata": TensorMetadata}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, "<lab03 vocabulary>", "exec"), ns)
    return ns


V = _vocabulary()



def _run(ctx, body: str, timeout: float | None = None, **inputs):
    """Run SOURCE and then `body` in the learner's namespace in the worker."""
    return ctx.run(SOURCE + "\nfrom helpers.checks import lab03 as L\n" + body, timeout=timeout, **inputs)


# ---------------------------------------------------------------- the grader's reference answers
def reference_chains(gm: fx.GraphModule) -> list[list[fx.Node]]:
    """Chains grown forward in graph order (one valid answer among several)."""
    order = {n: i for i, n in enumerate(gm.graph.nodes)}
    muts = [order[n] for n in gm.graph.nodes if V["mutates"](gm, n)]
    seen, out = set(), []
    for n in gm.graph.nodes:
        if n in seen or V["elementwise_op"](gm, n) is None:
            continue
        chain = [n]
        while len(chain[-1].users) == 1:
            u = next(iter(chain[-1].users))
            if u in seen or V["elementwise_op"](gm, u) is None or any(order[n] < m < order[u] for m in muts):
                break
            chain.append(u)
        if len(chain) > 1:
            seen.update(chain)
            out.append(chain)
    return out


def _nbytes(meta) -> int:
    return math.prod(meta.shape) * meta.dtype.itemsize if isinstance(meta, TensorMetadata) else 0


def reference_traffic(gm: fx.GraphModule, *inputs) -> int:
    ShapeProp(gm).propagate(*inputs)
    total = 0
    for n in gm.graph.nodes:
        if n.op in public_calls():
            total += sum(_nbytes(i.meta.get("tensor_meta")) for i in n.all_input_nodes) + _nbytes(n.meta.get("tensor_meta"))
            if n.op == "call_module":
                mod = gm.get_submodule(n.target)
                total += sum(t.numel() * t.element_size() for t in [*mod.parameters(), *mod.buffers()])
    return total


def public_calls() -> tuple[str, ...]:
    return ("call_function", "call_method", "call_module")


def reference_peak(gm: fx.GraphModule, *inputs) -> int:
    ShapeProp(gm).propagate(*inputs)
    nodes = list(gm.graph.nodes)
    where = {n: i for i, n in enumerate(nodes)}
    alias = V["aliases_input"]

    def base(n):
        while n.op in public_calls() and alias(gm, n) and isinstance(n.args[0], fx.Node):
            n = n.args[0]
        return n

    last = {}
    for n in nodes:
        for i in n.all_input_nodes:
            last[base(i)] = where[n]
    kept = {base(i) for i in nodes[-1].all_input_nodes}
    alive, current, top = {}, 0, 0
    for k, n in enumerate(nodes):
        if n.op in public_calls() and not alias(gm, n):
            alive[n] = _nbytes(n.meta.get("tensor_meta"))
            current += alive[n]
            top = max(top, current)
        for m in [m for m in alive if m not in kept and last.get(m, where[m]) <= k]:
            current -= alive.pop(m)
    return top


# ---------------------------------------------------------------- 1
TRAFFIC_CASES = (
    ("a graph with three inputs broadcast against each other",
     "lambda x, y, z: torch.sigmoid(x * y) + z", lambda: (torch.randn(5, 7), torch.randn(5, 1), torch.randn(7))),
    ("a model with a batch norm module (parameters and buffers) and a GELU module", "HBatchNorm",
     lambda: (torch.randn(6, 12), torch.randn(12))),
    ("a graph that changes dtype (fp32 in, fp16 ops)", "lambda x: (x.half() * 2).relu().float()",
     lambda: (torch.randn(9, 11),)),
    ("a graph with a matmul and a parameter read twice", "HMatmul", lambda: (torch.randn(4, 5), torch.randn(4, 5))),
)


def _build(spec: str):
    return eval(spec, M) if spec.startswith("lambda") else M[spec]().eval()


def _bytes_check(ctx, fn_name: str, cases: tuple, reference, seed: int) -> None:
    """The learner's byte count (traffic or peak) against the grader's reference, case by case, in the worker."""
    got, want = [], []
    for i, (about, spec, make_inputs) in enumerate(cases):
        torch.manual_seed(seed + i)
        model = _build(spec)
        inputs = make_inputs()
        body = (f"model = {spec}\n" if spec.startswith("lambda") else f"model = {spec}().eval()\nmodel.load_state_dict(sd)\n")
        got += _run(ctx, body + f"result = L.probe_bytes({fn_name!r}, {fn_name}, [('', model, ins)])\n",
                    sd=getattr(model, "state_dict", dict)(), ins=tuple(t.clone() for t in inputs))
        with torch.no_grad():
            want.append(reference(fx.symbolic_trace(model), *[t.clone() for t in inputs]))
    fail_if(public.bytes_problems(fn_name, got, want, [c[0] for c in cases], reveal=False), most=2)


def traffic(ctx) -> str:
    _bytes_check(ctx, "traffic_bytes", TRAFFIC_CASES, reference_traffic, 110)
    return "right on the grader's graphs"


# ---------------------------------------------------------------- 2a
def chains(ctx) -> str:
    problems = []
    for name, about in M["CHAIN_MODELS"].items():
        found = _run(ctx, f"result = L.probe_chains(find_fusible_chains, {name})\n")
        problems += public.chain_problems(fx.symbolic_trace(M[name]()), found, V["elementwise_op"], V["mutates"], about)
    found = _run(ctx, "result = L.probe_chains(find_fusible_chains, lambda: fx.symbolic_trace(h_mutate))\n")
    problems += public.chain_problems(fx.symbolic_trace(M["h_mutate"]), found, V["elementwise_op"], V["mutates"],
                                      "a function that mutates an input between two ops")
    fail_if(problems, most=2)
    return "chains right on the grader's graphs"


# ---------------------------------------------------------------- 2b
def fuse(ctx) -> str:
    problems = []
    for i, (name, about) in enumerate(M["CHAIN_MODELS"].items()):
        if name == "HInplace":
            continue
        torch.manual_seed(120 + i)
        model = M[name]().eval()
        inputs = (torch.randn(3, 5), torch.randn(3, 5))
        with torch.no_grad():
            want = model(*[t.clone() for t in inputs])
        want = want[0] if isinstance(want, tuple) else want
        names = [[n.name for n in c] for c in reference_chains(fx.symbolic_trace(model))]
        report = _run(ctx, f"model = {name}().eval()\nmodel.load_state_dict(sd)\n"
                           "result = L.probe_fuse(fuse_chain, lambda: model, names, ins)\n"
                           "result['output'] = result['output'][0] if isinstance(result.get('output'), tuple) else result.get('output')\n",
                      sd=model.state_dict(), names=names, ins=inputs)
        problems += public.fuse_problems(report, [len(n) for n in names], want, about)
    fail_if(problems, most=2)
    return "fused graphs equal and smaller on the grader's models"


# ---------------------------------------------------------------- 3
def _kernel_cases() -> list:
    torch.manual_seed(130)
    return [("the grader's 3-D fp32 tensor", torch.randn(3, 5, 7), 1024),
            ("the grader's long fp16 vector with a small block", torch.randn(65537).half(), 64),
            ("the grader's vector one element longer than the block", torch.randn(2049), 2048),
            ("the grader's transposed bf16 matrix", (torch.randn(31, 9) * 3).bfloat16().t(), 256),
            ("the grader's tensor with a zero-size dimension", torch.randn(4, 0, 3), 1024)]


def triton_kernel(ctx) -> str:
    cases = _kernel_cases()
    report = _run(ctx, "dev = 'cuda' if str(device).startswith('cuda') else 'cpu'\n"
                       "cases = [(a, x.to(dev), b) for a, x, b in cases]\n"
                       "result = L.probe_kernel(chain_triton, cases, 6)\n", timeout=240, cases=cases)
    fail_if(public.kernel_problems(report, cases, 6), most=2)
    return "right on the grader's awkward inputs"


# ---------------------------------------------------------------- 4
CODEGEN_CASES = (
    ("a chain with neg, div and silu", "lambda x, y: F.silu(-x / (y.abs() + 1))", [(40, 3), (40, 3)], torch.float32, True),
    ("a chain of three inputs with an integer literal", "lambda x, y, z: ((x - y) * 3 + z).exp()", [(7, 9), (7, 9), (9,)],
     torch.float32, True),
    ("a chain of modules-turned-functions on fp16", "lambda x: torch.sigmoid(F.gelu(x) - 0.5).tanh()", [(1025,)],
     torch.float16, True),
    ("a chain with gelu's tanh approximation (codegen may decline)", "lambda x: F.gelu(x * 2, approximate='tanh') + 1",
     [(64,)], torch.float32, False),
)


def codegen(ctx) -> str:
    problems = []
    for i, (about, spec, shapes, dtype, supported) in enumerate(CODEGEN_CASES):
        torch.manual_seed(140 + i)
        inputs = [torch.randn(s).to(dtype) for s in shapes]
        r = _run(ctx, f"dev = 'cuda' if str(device).startswith('cuda') else 'cpu'\n"
                      f"result = L.probe_codegen(TritonChain, {spec}, [t.to(dev) for t in ins])\n", timeout=240, ins=inputs)
        want = eval(spec, M)(*[t.double() for t in inputs]).to(dtype)
        problems += public.codegen_problems(r, want, about, supported)
    fail_if(problems, most=2)
    return "generated kernels right on the grader's chains"


# ---------------------------------------------------------------- 5
def backend(ctx) -> str:
    torch.manual_seed(150)
    model = M["HResidual"]().eval()
    x = torch.randn(6, 24)
    with torch.no_grad():
        want = model(x)
    report = _run(ctx, "dev = 'cuda' if str(device).startswith('cuda') else 'cpu'\n"
                       "model = HResidual().eval()\nmodel.load_state_dict(sd)\nmodel.to(dev)\n"
                       "result = L.probe_backend(TritonChain, [('', model, (x.to(dev),))])\n", timeout=240,
                  sd=model.state_dict(), x=x)
    fail_if(public.backend_problems(report, ["the grader's residual block (a layer norm between two chains)"], [want], [2]), most=2)
    return "memfuse right on the grader's model"


# ---------------------------------------------------------------- 6
PEAK_CASES = (
    ("a model with a batch norm module and two chains", "HBatchNorm", lambda: (torch.randn(6, 12), torch.randn(12))),
    ("a graph whose intermediate is read through a transpose much later",
     "lambda x: (x.exp().t().sigmoid() + 1).t() * x.exp().sum()", lambda: (torch.randn(8, 16),)),
    ("a graph with in-place ops and two outputs", "HInplace", lambda: (torch.randn(10, 5), torch.randn(10, 5))),
    ("a graph with matmuls", "HMatmul", lambda: (torch.randn(4, 5), torch.randn(4, 5))),
)


def peak_memory(ctx) -> str:
    _bytes_check(ctx, "estimate_peak_bytes", PEAK_CASES, reference_peak, 160)
    return "peak estimates right on the grader's graphs"


# ---------------------------------------------------------------- 7
def pitfalls(ctx) -> str:
    torch.manual_seed(170)
    model = M["HResidual"]()
    x = torch.randn(3, 24)
    y0, y1 = torch.randn(9), torch.randn(9)
    x16 = torch.randn(3001).half()
    sizes = (257, 1000, 1999)
    report = _run(ctx, "dev = 'cuda' if str(device).startswith('cuda') else 'cpu'\n"
                       "model = HResidual()\nmodel.load_state_dict(sd)\nmodel.to(dev)\n"
                       "result = L.probe_pitfalls(TritonChain, model, x.to(dev), h_mutate, (y0.to(dev), y1.to(dev)), "
                       "x16.to(dev), sizes)\n", timeout=300,
                  sd=model.state_dict(), x=x, y0=y0, y1=y1, x16=x16, sizes=sizes)
    fail_if(public.pitfall_problems(report, model, x, M["h_mutate"], (y0, y1), x16, sizes), most=2)
    return "memfuse handles gradients, in-place ops, fp16 and dynamic shapes on the grader's cases"


HIDDEN = {"03.traffic": traffic, "03.chains": chains, "03.fuse": fuse, "03.triton_kernel": triton_kernel,
          "03.codegen": codegen, "03.backend": backend, "03.peak_memory": peak_memory, "03.pitfalls": pitfalls}
