"""Lab 03 — Operator fusion: the acceptance checks.

The checks judge behaviour: bytes counted by the notebook's rule, chains judged by their
four defining properties (so any correct search passes, whatever order it walks in),
fused graphs by their outputs and node counts, kernels by their results on awkward sizes
and by the ATen ops they did *not* dispatch (a Triton kernel computes without ATen).
The `probe_*` functions run the learner's code and return plain data, so the grader's
hidden checks can run them in the sandboxed worker; the `*_problems` functions turn that
data into messages that say what to fix.
"""

from __future__ import annotations

from typing import Any, Callable

import torch
import torch.fx as fx
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

from helpers.checks import Context, NotImplementedYet, fail_if, learner, register

LAB = "03"


def notebook_device(ctx: Context) -> str:
    """The device the notebook runs on: its kernels are compiled for it (or interpreted on the CPU)."""
    dev = str(ctx.ns.get("device", "cpu"))
    return "cuda" if dev.startswith("cuda") and torch.cuda.is_available() else "cpu"
# ATen ops that compute something elementwise: none of them may run while a Triton kernel does the work.
COMPUTE_OPS = {"add", "sub", "rsub", "mul", "div", "neg", "relu", "sigmoid", "tanh", "exp", "abs", "gelu", "silu",
               "clamp", "maximum", "minimum", "erf", "where", "pow", "add_", "mul_", "sub_", "div_", "sigmoid_",
               "relu_", "tanh_", "exp_"}




class OpRecorder(TorchDispatchMode):
    """Records the ATen ops dispatched while it is active, by name ("add", "empty", ...)."""

    def __init__(self):
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(func.overloadpacket.__name__)
        return func(*args, **(kwargs or {}))

    def computed(self) -> list[str]:
        return sorted({op for op in self.ops if op in COMPUTE_OPS})


def close(got: Any, want: torch.Tensor, atol: float, rtol: float = 0.0) -> str | None:
    """None when got matches want; otherwise what differs, in words."""
    if not isinstance(got, torch.Tensor):
        return f"returned a {type(got).__name__}, not a tensor"
    got, want = got.detach().cpu(), want.detach().cpu()
    if got.shape != want.shape:
        return f"returned shape {tuple(got.shape)}, expected {tuple(want.shape)}"
    if got.dtype != want.dtype:
        return f"returned dtype {got.dtype}, expected {want.dtype}"
    if got.numel() == 0:
        return None
    diff = (got.double() - want.double()).abs()
    bad = diff > atol + rtol * want.double().abs()
    if bool(bad.any()):
        first = tuple(int(i) for i in torch.nonzero(bad)[0])
        return (f"differs at {bad.sum().item()} of {want.numel()} elements (first at index {first}: "
                f"{got[first].item():.6g} vs {want[first].item():.6g}; max difference {diff.max().item():.3g})")
    return None


# ---------------------------------------------------------------- the graphs the checks use
class Spellings(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.Tanh()
        self.fc = nn.Linear(6, 6)

    def forward(self, x, y):
        h = self.act(torch.relu(x).sigmoid()) + y
        g = self.fc(F.silu(h)) * 2
        return g.exp() + g


class Branches(nn.Module):
    """A value read by two paths (fan-out), then the paths meet again (a join)."""

    def forward(self, x, y):
        a = x.relu()
        left = (a.sigmoid() * 2) - 1
        right = torch.tanh(a) + y
        return left * right


class MutatesBetween(nn.Module):
    def forward(self, x, y):
        a = y.sigmoid()
        b = a * 2
        y.add_(1)
        return (b * y).relu() + x


class Modules(nn.Module):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.GELU(), nn.Linear(6, 6), nn.SiLU(), nn.Sigmoid())

    def forward(self, x, y):
        return self.seq(x) * y


class Single(nn.Module):
    def forward(self, x, y):
        return x.relu()


class Empty(nn.Module):
    def forward(self, x, y):
        return x


def already_fused() -> fx.GraphModule:
    """A graph whose only calls are two fused chains (GraphModules): nothing left to fuse."""
    root = nn.Module()
    root.fused_0 = fx.symbolic_trace(lambda x: (x + 1).relu())
    root.fused_1 = fx.symbolic_trace(lambda x: (x * 2).sigmoid())
    graph = fx.Graph()
    x = graph.placeholder("x")
    graph.placeholder("y")
    a = graph.call_module("fused_0", (x,))
    graph.output(graph.call_module("fused_1", (a,)))
    return fx.GraphModule(root, graph)


CHAIN_CASES: tuple[tuple[str, Callable[[], nn.Module | fx.GraphModule]], ...] = (
    ("a model with every spelling (call_function, call_method, call_module), a two-input op and a value with two "
     "readers", Spellings),
    ("a fan-out and a join (one value read by two paths that meet again)", Branches),
    ("an in-place op between two elementwise ops", MutatesBetween),
    ("activation modules inside an nn.Sequential", Modules),
    ("a graph with a single op", Single),
    ("the empty graph", Empty),
)


def trace(make: Callable[[], Any]) -> fx.GraphModule:
    obj = make()
    return obj if isinstance(obj, fx.GraphModule) else fx.symbolic_trace(obj)


# ---------------------------------------------------------------- 1: traffic
def traffic_cases() -> list[tuple[str, Callable, tuple, int]]:
    """(what, function or model, inputs, expected bytes) worked out by hand from the notebook's rule."""
    f32, f16 = 4, 2
    n = 100 * 37
    lin = nn.Sequential(nn.Linear(16, 8), nn.ReLU())
    return [
        ("chain_ops on a 100×37 fp32 tensor", "chain", (torch.randn(100, 37),), 5 * 2 * n * f32),
        ("(x + b).relu() * b with a broadcast bias b of 32 elements", lambda x, b: (x + b).relu() * b,
         (torch.randn(64, 32), torch.randn(32)), f32 * ((2048 + 32 + 2048) + (2048 + 2048) + (2048 + 32 + 2048))),
        ("(x * x).sigmoid() in fp16 (x is read once by x * x)", lambda x: (x * x).sigmoid(),
         (torch.randn(10, 10).half(),), f16 * (100 + 100 + 100 + 100)),
        ("Linear(16, 8) then ReLU as modules (the Linear reads its weight and bias)", lin, (torch.randn(4, 16),),
         f32 * (64 + 32 + 8 * 16 + 8) + f32 * (32 + 32)),
        ("the empty graph", lambda x: x, (torch.randn(5),), 0),
    ]


def probe_bytes(fn_name: str, fn: Callable, cases: list[tuple[str, Any, tuple]]) -> list[Any]:
    """The learner's byte-counting function (traffic_bytes, estimate_peak_bytes) on each case's traced graph;
    an error message instead of a number where it raised."""
    from helpers.models import chain_ops

    out = []
    for _, make, inputs in cases:
        gm = fx.symbolic_trace(chain_ops if make == "chain" else make)
        try:
            with torch.no_grad():
                out.append(learner(fn_name, fn, gm, *inputs))
        except NotImplementedYet:
            raise
        except Exception as err:
            out.append(f"raised {type(err).__name__}: {err}")
    return out


BYTES_HINTS = {  # fn_name → (got, want) → what the difference suggests
    "traffic_bytes": lambda g, w: " (half: count both the reads and the write)" if w and g == w // 2 else "",
    "estimate_peak_bytes": lambda g, w: (
        " (too low: allocate a node's output before freeing its inputs, and keep a value alive while an alias of it "
        "is read)" if g < w else " (too high: free each value after its last reader; views and in-place ops allocate "
        "nothing)"),
}


def bytes_problems(fn_name: str, got: list, want: list[int], about: list[str], reveal: bool = True) -> list[str]:
    """Messages for the cases where a byte count is not the rule's; reveal=False keeps the expected numbers hidden."""
    problems = []
    for g, w, what in zip(got, want, about):
        if isinstance(g, str):
            problems.append(f"{fn_name} {g} on {what}.")
        elif not isinstance(g, (int, float)) or isinstance(g, bool):
            problems.append(f"{fn_name} should return a number of bytes; on {what} it returned a {type(g).__name__}.")
        elif g != w:
            said = f"on {what}: {g:,} bytes, expected {w:,}" if reveal else \
                f"on {what}: {g:,} bytes is {'too low' if g < w else 'too high'} for the rule"
            problems.append(f"{said}{BYTES_HINTS[fn_name](g, w)}.")
    return problems


@register("03.traffic", points=2, exercise="1", title="traffic_bytes counts the bytes every call node moves")
def traffic(ctx: Context) -> str:
    cases = traffic_cases()
    got = probe_bytes("traffic_bytes", ctx.get("traffic_bytes"), [(a, m, i) for a, m, i, _ in cases])
    fail_if(bytes_problems("traffic_bytes", got, [w for *_, w in cases], [a for a, *_ in cases]))
    return f"right on {len(cases)} graphs: a chain, a broadcast bias, a value read twice, modules with weights, the empty graph"


# ---------------------------------------------------------------- 2a: chains
def probe_chains(find: Callable, make: Callable) -> Any:
    """The learner's chains on a fresh trace, as lists of node names (or an error message)."""
    gm = trace(make)
    try:
        chains = learner("find_fusible_chains", find, gm)
    except NotImplementedYet:
        raise
    except Exception as err:
        return f"raised {type(err).__name__}: {str(err)[:500]}"
    if not isinstance(chains, (list, tuple)) or not all(isinstance(c, (list, tuple)) for c in chains):
        return f"returned a {type(chains).__name__}, not a list of lists of nodes"
    names = []
    for chain in chains:
        if not all(isinstance(n, fx.Node) for n in chain):
            return "a chain holds something that is not an fx.Node"
        names.append([n.name for n in chain])
    return names


def chain_problems(gm: fx.GraphModule, found: Any, elementwise_op: Callable, mutates: Callable, about: str) -> list[str]:
    """What is wrong with `found` (lists of node names) as the fusible chains of gm, by the four rules."""
    if isinstance(found, str):
        return [f"find_fusible_chains {found} on {about}."]
    nodes = {n.name: n for n in gm.graph.nodes}
    order = {n: i for i, n in enumerate(gm.graph.nodes)}
    writes_at = [order[n] for n in gm.graph.nodes if mutates(gm, n)]
    fusible = {n for n in gm.graph.nodes if elementwise_op(gm, n) is not None}

    def crosses(a: fx.Node, b: fx.Node) -> bool:
        return any(order[a] < m < order[b] for m in writes_at)

    def can_link(a: fx.Node, b: fx.Node) -> bool:
        return a in fusible and b in fusible and list(a.users) == [b] and not crosses(a, b)

    problems, owner = [], {}
    for names in found:
        where = f"on {about}, the chain {' → '.join(names)}"
        unknown = [n for n in names if n not in nodes]
        if unknown:
            return [f"{where} names nodes that are not in the graph ({', '.join(unknown)}): return the graph's own nodes."]
        chain = [nodes[n] for n in names]
        if len(chain) < 2:
            problems.append(f"{where} has one node: a chain has two or more (a single op has nothing to fuse with).")
        for n in chain:
            if n in owner:
                problems.append(f"on {about}, node {n.name} is in two chains: chains must not share nodes.")
            owner[n] = names
            if n not in fusible:
                problems.append(f"{where} contains {n.name} ({n.op} {getattr(n.target, '__name__', n.target)}), "
                                f"which is not elementwise (elementwise_op returns None).")
        for a, b in zip(chain, chain[1:]):
            if a not in b.all_input_nodes:
                problems.append(f"{where}: {b.name} does not read {a.name}; each node must read the one before it.")
            elif len(a.users) != 1:
                problems.append(f"{where}: {a.name} has {len(a.users)} readers, so it must be written to memory and "
                                f"ends its chain.")
            elif crosses(a, b):
                problems.append(f"{where} reaches across an in-place op between {a.name} and {b.name} (rule 3).")
    if problems:
        return problems
    first = {tuple(c)[0]: c for c in found}
    for names in found:
        last = nodes[names[-1]]
        if len(last.users) == 1:
            nxt = next(iter(last.users))
            if can_link(last, nxt) and (nxt not in owner or nxt.name in first):
                problems.append(f"on {about}, the chain ending at {last.name} could go on into {nxt.name}: chains must "
                                f"be maximal.")
        head = nodes[names[0]]
        for prev in head.all_input_nodes:
            if can_link(prev, head) and (prev not in owner or owner[prev][-1] == prev.name):
                problems.append(f"on {about}, the chain starting at {head.name} could start earlier, at {prev.name}.")
    for a in fusible - set(owner):
        for b in a.users:
            if b not in owner and can_link(a, b):
                problems.append(f"on {about}, {a.name} → {b.name} is a chain that was not found.")
    return problems


@register("03.chains", points=3, exercise="2a", title="find_fusible_chains finds maximal chains, every spelling")
def chains(ctx: Context) -> str:
    elementwise_op, mutates = ctx.get("elementwise_op"), ctx.get("mutates")
    problems = []
    for about, make in (*CHAIN_CASES, ("a graph that is already fused (two call_module nodes of fused chains)",
                                       already_fused)):
        found = probe_chains(ctx.get("find_fusible_chains"), make)
        problems += chain_problems(trace(make), found, elementwise_op, mutates, about)
    fail_if(problems)
    return "maximal chains on every spelling, a fan-out, a join, an in-place op, a single op and the empty graph"


# ---------------------------------------------------------------- 2b: fuse
FUSE_CASES = (
    ("a model with every spelling and a two-input op", Spellings, [["relu", "sigmoid", "act", "add", "silu"],
                                                                   ["exp", "add_1"]]),
    ("a fan-out and a join", Branches, [["sigmoid", "mul", "sub"], ["tanh", "add", "mul_1"]]),
    ("activation modules in a Sequential, and a value read twice", Modules, [["seq_1", "seq_2"], ["seq_4", "seq_5", "mul"]]),
)


def probe_fuse(fuse: Callable, make: Callable, chain_names: list[list[str]], inputs: tuple) -> dict:
    """Fuse the named chains with the learner's fuse_chain; report what the graph became and what it computes."""
    gm = trace(make)
    before = sum(n.op.startswith("call") for n in gm.graph.nodes)
    nodes = {n.name: n for n in gm.graph.nodes}
    report = {"before": before, "returned": [], "error": None}
    try:
        for names in chain_names:
            new = learner("fuse_chain", fuse, gm, [nodes[n] for n in names])
            sub = gm.get_submodule(new.target) if isinstance(new, fx.Node) and new.op == "call_module" else None
            report["returned"].append({
                "node": isinstance(new, fx.Node), "op": getattr(new, "op", type(new).__name__),
                "graph_module": isinstance(sub, fx.GraphModule),
                "sub_calls": sum(n.op.startswith("call") for n in sub.graph.nodes) if isinstance(sub, fx.GraphModule) else 0})
        gm.graph.lint()
        gm.recompile()
        with torch.no_grad():
            report["output"] = gm(*[t.clone() for t in inputs])
    except NotImplementedYet:
        raise
    except Exception as err:
        report["error"] = f"{type(err).__name__}: {err}"
        return report
    report["after"] = sum(n.op.startswith("call") for n in gm.graph.nodes)
    return report


def fuse_problems(report: dict, chain_lengths: list[int], want: torch.Tensor, about: str) -> list[str]:
    if report["error"]:
        return [f"on {about}, fusing raised {report['error']}."]
    problems = []
    for length, r in zip(chain_lengths, report["returned"]):
        if not r["node"]:
            problems.append(f"on {about}, fuse_chain returned a {r['op']}: return the new fx.Node.")
        elif r["op"] != "call_module" or not r["graph_module"]:
            problems.append(f"on {about}, the new node is a {r['op']} node; make it a call_module node whose submodule "
                            f"is an fx.GraphModule of the chain (the backend needs to find it).")
        elif r["sub_calls"] != length:
            problems.append(f"on {about}, a fused submodule holds {r['sub_calls']} call nodes for a chain of {length}.")
    saved = sum(n - 1 for n in chain_lengths)
    if report["after"] != report["before"] - saved:
        problems.append(f"on {about}, the graph went from {report['before']} to {report['after']} call nodes; fusing "
                        f"chains of {chain_lengths} nodes should leave {report['before'] - saved} (erase the chain's nodes).")
    diff = close(report["output"], want, atol=1e-5, rtol=1e-5)
    if diff:
        problems.append(f"on {about}, the fused graph's output {diff}: pass every outside input to the fused node, "
                        f"in the order of its placeholders.")
    return problems


@register("03.fuse", points=2, exercise="2b", title="fuse_chain replaces a chain by one node that computes the same")
def fuse(ctx: Context) -> str:
    problems = []
    for i, (about, make, names) in enumerate(FUSE_CASES):
        torch.manual_seed(300 + i)
        model = make()
        inputs = (torch.randn(3, 6), torch.randn(3, 6))
        with torch.no_grad():
            want = model(*[t.clone() for t in inputs])
        torch.manual_seed(300 + i)
        report = probe_fuse(ctx.get("fuse_chain"), make, names, inputs)
        problems += fuse_problems(report, [len(n) for n in names], want, about)
    fail_if(problems)
    return "outputs equal and one node per chain, with outside inputs passed on"


# ---------------------------------------------------------------- 3: the hand-written kernel
def reference_chain(x: torch.Tensor) -> torch.Tensor:
    """chain_ops in fp32, rounded once to x's dtype."""
    from helpers.models import chain_ops

    return chain_ops(x.float()).to(x.dtype)


TOLERANCE = {torch.float32: 1e-6, torch.float16: 1e-3, torch.bfloat16: 8e-3, torch.float64: 1e-6}


def kernel_cases(device: str) -> list[tuple[str, torch.Tensor, int]]:
    torch.manual_seed(3)
    return [
        ("a 1823×781 fp32 tensor (not a multiple of the block)", torch.randn(1823, 781, device=device), 1024),
        ("a single element", torch.randn(1, device=device), 1024),
        ("an empty tensor", torch.randn(0, 5, device=device), 1024),
        ("a transposed (non-contiguous) 300×37 fp16 tensor", torch.randn(37, 300, device=device).half().t(), 1024),
        ("1000 bf16 elements with block=128", (torch.randn(1000, device=device) * 4).bfloat16(), 128),
        ("4097 fp32 elements with block=4096 (one element in the last block)", torch.randn(4097, device=device), 4096),
    ]


def probe_kernel(fn: Callable, cases: list[tuple[str, torch.Tensor, int]], bad_block: int) -> dict:
    """Run the learner's chain_triton on each case, recording ATen compute ops; then try a bad block size."""
    outs = []
    for _, x, block in cases:
        rec = OpRecorder()
        try:
            with rec:
                y = learner("chain_triton", fn, x, block=block)
            outs.append({"out": y, "aten": rec.computed()})
        except NotImplementedYet:
            raise
        except Exception as err:
            outs.append({"error": f"{type(err).__name__}: {err}"})
    try:
        fn(cases[0][1][:10], block=bad_block)
        bad = "returned normally"
    except ValueError:
        bad = None
    except Exception as err:
        bad = f"raised {type(err).__name__}, not ValueError"
    return {"outs": outs, "bad_block": bad}


def kernel_problems(report: dict, cases: list[tuple[str, torch.Tensor, int]], bad_block: int) -> list[str]:
    problems = []
    for (about, x, _), r in zip(cases, report["outs"]):
        if "error" in r:
            problems.append(f"on {about}, chain_triton raised {r['error']}.")
            continue
        if r["aten"]:
            problems.append(f"on {about}, PyTorch ops ran ({', '.join(r['aten'])}): compute inside the Triton kernel, "
                            f"not with torch.")
        want = reference_chain(x)
        diff = close(r["out"], want, atol=TOLERANCE[x.dtype])
        if not diff and x.dtype == torch.float16 and x.numel():   # (Triton's interpreter truncates to bf16)
            same = (r["out"].cpu() == want.cpu()).float().mean().item()
            if same < 0.99:
                problems.append(f"on {about}, only {same:.1%} of the results equal 'compute in fp32, round once': "
                                f"convert the loaded values to fp32 (.to(tl.float32)) and round once, when storing.")
        if diff:
            problems.append(f"on {about}, the result {diff}. Check the masks (offsets < n_elements) and that the "
                            f"arithmetic is done in fp32 and rounded once, at the store.")
    if report["bad_block"]:
        problems.append(f"block={bad_block} (not a power of two) {report['bad_block']}: raise ValueError and say why.")
    return problems


@register("03.triton_kernel", points=3, exercise="3", title="the hand-written Triton kernel is right on awkward sizes")
def triton_kernel(ctx: Context) -> str:
    device = notebook_device(ctx)
    cases = kernel_cases(device)
    fail_if(kernel_problems(probe_kernel(ctx.get("chain_triton"), cases, 1000), cases, 1000))
    return f"right on {len(cases)} awkward inputs ({device}), and a bad block size is refused"


# ---------------------------------------------------------------- 4: generated kernels
def codegen_cases() -> list[tuple[str, Callable, list[tuple[int, ...]], torch.dtype]]:
    return [
        ("chain_ops", "chain", [(1823, 781)], torch.float32),
        ("a two-input chain (x * y + 1).sigmoid() - y", lambda x, y: (x * y + 1).sigmoid() - y, [(33, 17), (33, 17)],
         torch.float32),
        ("(x * x).tanh(): one input read twice", lambda x: (x * x).tanh(), [(1000,)], torch.float32),
        ("F.gelu(x + b) * 0.5 with a broadcast bias b", lambda x, b: F.gelu(x + b) * 0.5, [(64, 40), (40,)],
         torch.float32),
        ("(2.0 - x).abs() in fp16: a number on the left", lambda x: (2.0 - x).abs(), [(513,)], torch.float16),
        ("torch.add(x, x, alpha=2).relu(): a keyword codegen may decline", lambda x: torch.add(x, x, alpha=2).relu(),
         [(100,)], torch.float32),
        ("x.clamp(0, 1).exp(): an op missing from TRITON_EXPR", lambda x: x.clamp(0, 1).exp(), [(100,)], torch.float32),
    ]


def probe_codegen(runner_cls: Callable, make: Any, inputs: list[torch.Tensor]) -> dict:
    """Build a TritonChain of the traced chain and run it, recording ATen compute ops and kernel launches."""
    from helpers.models import chain_ops

    gm = fx.symbolic_trace(chain_ops if make == "chain" else make)
    try:
        runner = learner("emit_triton", runner_cls, gm)
        before = sum(runner_cls.launches.values())
        rec = OpRecorder()
        with rec:
            out = runner(*inputs)
        return {"source": runner.source, "name": runner.name, "out": out, "aten": rec.computed(),
                "launched": sum(runner_cls.launches.values()) - before}
    except NotImplementedYet:
        raise
    except Exception as err:
        return {"error": f"{type(err).__name__}: {str(err)[:300]}"}


def codegen_problems(r: dict, want: torch.Tensor, about: str, supported: bool) -> list[str]:
    if "error" in r:
        return [f"on {about}, building or running the kernel raised {r['error']}."]
    problems = []
    if r["source"] is not None:
        if not isinstance(r["source"], str) or f"def {r['name']}(" not in r["source"]:
            return [f"on {about}, emit_triton's source does not define a function called {r['name']!r}."]
        if r["aten"]:
            problems.append(f"on {about}, PyTorch ops ran ({', '.join(r['aten'])}) although a kernel was generated.")
        if not r["launched"]:
            problems.append(f"on {about}, the generated kernel was not launched.")
    elif supported:
        problems.append(f"on {about}, emit_triton returned None, but every op is in TRITON_EXPR: generate the kernel.")
    diff = close(r["out"], want, atol=TOLERANCE[want.dtype], rtol=1e-5)
    if diff:
        problems.append(f"on {about}, the {'generated kernel' if r['source'] else 'fallback'}'s result {diff}.")
    return problems


def codegen_want(make: Any, inputs: list[torch.Tensor]) -> torch.Tensor:
    from helpers.models import chain_ops

    fn = chain_ops if make == "chain" else make
    return fn(*[t.double() for t in inputs]).to(inputs[0].dtype)


@register("03.codegen", points=3, exercise="4", title="emit_triton generates a working kernel for any supported chain")
def codegen(ctx: Context) -> str:
    problems = []
    for i, (about, make, shapes, dtype) in enumerate(codegen_cases()):
        torch.manual_seed(40 + i)
        inputs = [torch.randn(s).to(dtype).to(notebook_device(ctx)) for s in shapes]
        r = probe_codegen(ctx.get("TritonChain"), make, inputs)
        problems += codegen_problems(r, codegen_want(make, inputs), about, supported=i < 5)
    fail_if(problems)
    return "generated kernels match eager on 5 chains, and the 2 it may decline run correctly in eager"


# ---------------------------------------------------------------- 5: the backend
class GatedMLP(nn.Module):
    def __init__(self, d: int = 16):
        super().__init__()
        self.gate, self.up, self.down = nn.Linear(d, 2 * d), nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.scale = nn.Parameter(torch.rand(d))

    def forward(self, x):
        return x + self.down(torch.sigmoid(self.gate(x)) * self.up(x)) * self.scale


def probe_backend(runner_cls: Any, cases: list[tuple[str, Callable, tuple]]) -> dict:
    """torch.compile(fn, backend="memfuse") on each case, under no_grad: outputs and kernel launches."""
    report = {"registered": "memfuse" in torch._dynamo.list_backends(exclude_tags=()), "cases": []}
    if not report["registered"]:
        return report
    for _, fn, inputs in cases:
        torch._dynamo.reset()
        before = sum(runner_cls.launches.values())
        try:
            with torch.no_grad():
                out = torch.compile(fn, backend="memfuse", dynamic=False)(*inputs)
            report["cases"].append({"out": out, "launched": sum(runner_cls.launches.values()) - before})
        except Exception as err:
            if isinstance(getattr(err, "inner_exception", None), NotImplementedError) or "NotImplementedError" in str(err):
                raise NotImplementedYet("memfuse: not written yet; replace the `raise NotImplementedError` in its cell.") from None
            report["cases"].append({"error": f"{type(err).__name__}: {str(err)[:300]}"})
    torch._dynamo.reset()
    return report


def backend_problems(report: dict, abouts: list[str], wants: list[torch.Tensor], min_launches: list[int]) -> list[str]:
    if not report["registered"]:
        return ["no backend called 'memfuse' is registered: run the cell that calls register_backend."]
    problems = []
    for about, want, n, r in zip(abouts, wants, min_launches, report["cases"]):
        if "error" in r:
            problems.append(f"torch.compile(..., backend='memfuse') on {about} raised {r['error']}.")
            continue
        diff = close(r["out"], want, atol=1e-5, rtol=1e-5)
        if diff:
            problems.append(f"on {about}, the compiled output {diff}.")
        if r["launched"] < n:
            problems.append(f"on {about}, {r['launched']} generated kernels ran; its {n} fusible chain(s) should each "
                            f"run as a TritonChain (replace each fused submodule).")
    return problems


@register("03.backend", points=3, exercise="5", title="backend='memfuse' fuses the chains and runs generated kernels")
def backend(ctx: Context) -> str:
    from helpers.models import chain_ops

    dev = notebook_device(ctx)
    torch.manual_seed(5)
    mlp = GatedMLP().eval().to(dev)
    cases = [("chain_ops", chain_ops, (torch.randn(2000, device=dev),)),
             ("a gated MLP block with a residual", mlp, (torch.randn(8, 16, device=dev),))]
    with torch.no_grad():
        wants = [fn(*inputs) for _, fn, inputs in cases]
    report = probe_backend(ctx.get("TritonChain"), cases)
    fail_if(backend_problems(report, [c[0] for c in cases], wants, [1, 2]))
    return "memfuse runs a generated kernel per chain and the rest in eager, with outputs equal"


# ---------------------------------------------------------------- 6: peak memory
def peak_cases() -> list[tuple[str, Any, tuple, int]]:
    """(what, function or model, inputs, expected peak bytes by the notebook's rule), worked out by hand."""
    n = 4 * 1000
    mlp = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))
    return [
        ("chain_ops on 1000 fp32 elements (two values alive at once)", "chain", (torch.randn(1000),), 2 * n),
        ("x.relu(): one output", lambda x: x.relu(), (torch.randn(1000),), n),
        ("two outputs, (x.relu() + 1, x.sigmoid()): outputs are never freed", lambda x: (x.relu() + 1, x.sigmoid()),
         (torch.randn(1000),), 2 * n),
        ("x.relu().view(-1).sigmoid(): the view keeps relu's memory alive", lambda x: x.relu().view(-1).sigmoid(),
         (torch.randn(10, 100),), 2 * n),
        ("torch.relu_(x.sigmoid()) * 2: the in-place op allocates nothing", lambda x: torch.relu_(x.sigmoid()) * 2,
         (torch.randn(1000),), 2 * n),
        ("Linear(16, 32) → ReLU → Linear(32, 8) on a 4×16 input", mlp, (torch.randn(4, 16),), 4 * 4 * 32 * 2),
        ("the empty graph", lambda x: x, (torch.randn(1000),), 0),
    ]


@register("03.peak_memory", points=2, exercise="6", title="estimate_peak_bytes follows liveness, views and outputs")
def peak_memory(ctx: Context) -> str:
    cases = peak_cases()
    got = probe_bytes("estimate_peak_bytes", ctx.get("estimate_peak_bytes"), [(a, m, i) for a, m, i, _ in cases])
    fail_if(bytes_problems("estimate_peak_bytes", got, [w for *_, w in cases], [a for a, *_ in cases]))
    return f"right on {len(cases)} graphs: chains, outputs, views, in-place ops, modules"


# ---------------------------------------------------------------- 7: the pitfalls
def probe_pitfalls(runner_cls: Any, model: nn.Module, x: torch.Tensor, mutate_fn: Callable, mutate_inputs: tuple,
                   x16: torch.Tensor, sizes: tuple[int, ...]) -> dict:
    """Run memfuse on a model that needs gradients, on an in-place op, on fp16 and under dynamic shapes."""
    import copy

    from torch._dynamo.testing import CompileCounterWithBackend

    from helpers.models import chain_ops

    report: dict = {}

    def attempt(key: str, body: Callable) -> None:
        torch._dynamo.reset()
        try:
            report[key] = body()
        except Exception as err:
            if "NotImplementedError" in f"{type(err).__name__}: {err}" or isinstance(getattr(err, "inner_exception", None), NotImplementedError):
                raise NotImplementedYet("memfuse: not written yet; replace the `raise NotImplementedError` in its cell.") from None
            report[key] = {"error": f"{type(err).__name__}: {str(err)[:300]}"}

    def grads():
        ours = copy.deepcopy(model)
        out = torch.compile(ours, backend="memfuse")(x)
        if out.grad_fn is None:
            return {"no_grad_fn": True}
        out.square().mean().backward()
        return {"grads": [p.grad for p in ours.parameters()]}

    def aliasing():
        ins = tuple(t.clone() for t in mutate_inputs)
        with torch.no_grad():
            out = torch.compile(mutate_fn, backend="memfuse")(*ins)
        return {"out": out, "mutated": ins}

    def fp16():
        before = sum(runner_cls.launches.values())
        with torch.no_grad():
            out = torch.compile(chain_ops, backend="memfuse")(x16)
        return {"out": out, "launched": sum(runner_cls.launches.values()) - before}

    def dynamic():
        counter = CompileCounterWithBackend("memfuse")
        run = torch.compile(chain_ops, backend=counter, dynamic=True)
        with torch.no_grad():
            outs = [run(torch.arange(n, dtype=torch.float32, device=x.device) / n - 0.5) for n in sizes]
        return {"outs": outs, "frames": counter.frame_count}

    for key, body in (("grads", grads), ("aliasing", aliasing), ("fp16", fp16), ("dynamic", dynamic)):
        attempt(key, body)
    torch._dynamo.reset()
    return report


def pitfall_problems(report: dict, model: nn.Module, x: torch.Tensor, mutate_fn: Callable, mutate_inputs: tuple,
                     x16: torch.Tensor, sizes: tuple[int, ...]) -> list[str]:
    import copy

    from helpers.models import chain_ops

    problems = []
    g = report["grads"]
    if "error" in g:
        problems.append(f"memfuse on a model that needs gradients raised {g['error']}: when gradients are needed, "
                        f"return gm.forward (eager) instead of fusing.")
    elif g.get("no_grad_fn"):
        problems.append("memfuse on a model that needs gradients returned an output with no grad_fn: training would "
                        "silently stop; fall back to eager when gradients are needed.")
    else:
        ref = copy.deepcopy(model)
        ref(x).square().mean().backward()
        if any(close(a, p.grad, atol=1e-5, rtol=1e-4) for a, p in zip(g["grads"], ref.parameters())):
            problems.append("memfuse on a model that needs gradients gave gradients that differ from eager's.")
    a = report["aliasing"]
    if "error" in a:
        problems.append(f"memfuse on a function with an in-place op raised {a['error']}.")
    else:
        ins = tuple(t.clone() for t in mutate_inputs)
        want = mutate_fn(*ins)
        if close(a["out"], want, atol=1e-6) or any(close(p, q, atol=1e-6) for p, q in zip(a["mutated"], ins)):
            problems.append("memfuse on a function with an in-place op between two elementwise ops computed a different "
                            "result from eager: a chain must not reach across an in-place op (rule 3 of exercise 2a).")
    h = report["fp16"]
    if "error" in h:
        problems.append(f"memfuse on fp16 input raised {h['error']}.")
    elif not h["launched"]:
        problems.append("memfuse on fp16 input ran no generated kernel.")
    elif isinstance(h["out"], torch.Tensor) and h["out"].shape == x16.shape:
        same = (h["out"].cpu() == chain_ops(x16.float()).half().cpu()).float().mean().item()
        if h["out"].dtype != torch.float16:
            problems.append(f"memfuse on fp16 input returned {h['out'].dtype}; store in the output's dtype.")
        elif same < 0.99:
            problems.append(f"memfuse on fp16 input matches 'compute in fp32, round once' on only {same:.1%} of the "
                            f"elements: load as fp32 (.to(tl.float32)) and convert once when storing.")
    else:
        problems.append("memfuse on fp16 input returned the wrong shape.")
    d = report["dynamic"]
    if "error" in d:
        problems.append(f"memfuse under dynamic=True raised {d['error']} (example_inputs can hold SymInts, which have "
                        f"no requires_grad).")
    else:
        if d["frames"] != 1:
            problems.append(f"under dynamic=True, {len(sizes)} sizes compiled {d['frames']} times instead of once.")
        for n, out in zip(sizes, d["outs"]):
            diff = close(out, chain_ops(torch.arange(n, dtype=torch.float32) / n - 0.5), atol=1e-6)
            if diff:
                problems.append(f"under dynamic=True, the output for {n} elements {diff}.")
                break
    return problems


def mutate_between(x, y):
    a = y.exp()
    b = a - 1
    y.mul_(2)
    return (b + y).sigmoid() * x


@register("03.pitfalls", points=2, exercise="5", title="memfuse is right with gradients, in-place ops, fp16 and dynamic shapes")
def pitfalls(ctx: Context) -> str:
    dev = notebook_device(ctx)
    torch.manual_seed(7)
    model, x = GatedMLP().to(dev), torch.randn(4, 16, device=dev)
    args = (model, x, mutate_between, (torch.randn(6, device=dev), torch.randn(6, device=dev)),
            torch.randn(5000, device=dev).half(), (300, 700, 1100))
    report = probe_pitfalls(ctx.get("TritonChain"), *args)
    fail_if(pitfall_problems(report, *args))
    return "falls back for gradients, keeps in-place order, rounds fp16 once, one compile for every size"
