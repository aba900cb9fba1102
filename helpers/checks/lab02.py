"""Lab 02 — FX rewrites: the acceptance checks.

The checks look at behaviour only: what a rewritten graph computes, which kinds of node it holds (a ReLU is a
ReLU however it is spelled), how many, and what the learner's functions return. Each check is a probe
(`probe_*`: traces the case's model, runs the learner's code on it through `Learner`, returns plain data) and a
judge (`*_problems`: says what to fix), run on cases. A case is a model (weights included), its inputs and what
the answer must be; the probe gets the model and the inputs, the expected answer stays where the check is
judged. The notebook runs the checks on the cases below; the grader runs the same functions on hidden cases
(other models, other broken passes, another gallery) with messages that name no hidden model, node or number.
"""

from __future__ import annotations

import contextlib
import copy
import math
import numbers
import operator
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import torch
import torch.fx as fx
import torch.nn as nn
import torch.nn.functional as F

from helpers.checks import CheckFailed, Context, Learner, LearnerError, fail_if, register, unfinished_part
from helpers.notebooks import stub_message

LAB = "02"
CALLS = ("call_function", "call_method", "call_module")
RELU_FUNCTIONS = (torch.relu, torch.relu_, F.relu, torch.ops.aten.relu.default, torch.ops.aten.relu_.default)
GELU_FUNCTIONS = (F.gelu, torch.ops.aten.gelu.default)
SAME = dict(rtol=1e-5, atol=1e-6)          # the same ops in another spelling
FOLDED = dict(rtol=1e-4, atol=1e-5)        # arithmetic reordered (conv-bn folding)


# ---------------------------------------------------------------- what a node is, whatever its spelling
def module_of(gm: fx.GraphModule, node: fx.Node) -> nn.Module | None:
    try:
        return gm.get_submodule(node.target)
    except AttributeError:
        return None


def activation(gm: fx.GraphModule, node: fx.Node) -> str | None:
    """'relu' or 'gelu' when the node computes one (any spelling), else None."""
    if node.op == "call_function":
        if node.target in RELU_FUNCTIONS:
            return "relu"
        if node.target in GELU_FUNCTIONS and node.kwargs.get("approximate", "none") == "none":
            return "gelu"
    elif node.op == "call_method" and node.target in ("relu", "relu_"):
        return "relu"
    elif node.op == "call_module":
        mod = module_of(gm, node)
        if isinstance(mod, nn.ReLU):
            return "relu"
        if isinstance(mod, nn.GELU) and mod.approximate == "none":
            return "gelu"
    return None


def node_kind(gm: fx.GraphModule, node: fx.Node) -> str:
    """A spelling-free name for what a node does: 'relu', 'gelu', a module's class name, a function's name."""
    act = activation(gm, node)
    if act:
        return act
    if node.op == "call_module":
        return type(module_of(gm, node)).__name__
    if node.op == "call_function":
        return getattr(node.target, "__name__", str(node.target))
    if node.op == "call_method":
        return str(node.target)
    return node.op


def target_text(node: fx.Node) -> str:
    if isinstance(node.target, str):
        return node.target
    try:
        return fx.node._get_qualified_name(node.target)
    except Exception:
        return str(node.target)


def signature(gm: fx.GraphModule) -> list[tuple[str, str]]:
    """The graph as (op, target) pairs: equal signatures, same graph shape."""
    return [(n.op, target_text(n)) for n in gm.graph.nodes]


def graph_of(model: nn.Module) -> fx.GraphModule:
    """What a pass is given: the model's symbolic trace, or the graph a HandBuilt model builds (nodes no trace would
    write, such as a call_method `__add__`)."""
    return model.graph_module() if isinstance(model, HandBuilt) else fx.symbolic_trace(model)


def kinds_of(model: nn.Module) -> list[tuple[str, str]]:
    """(op, kind) of every node of the model's trace: what a pass starts from, worked out where the check is judged."""
    gm = graph_of(model)
    return [(n.op, node_kind(gm, n)) for n in gm.graph.nodes]


def a_node(op: str) -> str:
    """'a call_module node', 'an output node'."""
    return f"{'an' if op[0] in 'aeiou' else 'a'} {op} node"


def node_labels(gm: fx.GraphModule) -> dict[str, str]:
    """{node name: 'a call_module node (Conv2d)'}: how a message names a node of a hidden model without its name."""
    return {n.name: f"{a_node(n.op)} ({node_kind(gm, n)})" for n in gm.graph.nodes}


def call_kinds(kinds_by_node: list[tuple[str, str]]) -> Counter:
    return Counter(kind for op, kind in kinds_by_node if op in CALLS)


def max_diff(a, b) -> float:
    """Largest absolute difference over the tensors of two outputs (inf when their structure differs)."""
    la, lb = torch.utils._pytree.tree_leaves(a), torch.utils._pytree.tree_leaves(b)
    if len(la) != len(lb):
        return math.inf
    worst = 0.0
    for x, y in zip(la, lb):
        if not (isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor)) or x.shape != y.shape:
            return math.inf
        if x.numel():
            worst = max(worst, (x.double() - y.double()).abs().max().item())
    return worst


def output_scale(out) -> float:
    """max(1, max |ref|) over the tensors of an output (one, or several in a tuple): what a pipeline's tol scales with."""
    return max([1.0] + [t.abs().max().item() for t in torch.utils._pytree.tree_leaves(out)
                        if isinstance(t, torch.Tensor) and t.numel()])


def close(a, b, rtol: float, atol: float) -> bool:
    ref = max((t.abs().max().item() for t in torch.utils._pytree.tree_leaves(b) if isinstance(t, torch.Tensor) and t.numel()), default=0.0)
    return max_diff(a, b) <= atol + rtol * ref


# ---------------------------------------------------------------- building cases
@contextlib.contextmanager
def seeded(seed: int):
    """torch's RNG seeded for a while, then restored: building cases never disturbs the notebook's random numbers."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def built(seed: int, cls: type, **kwargs) -> nn.Module:
    """cls(**kwargs) with its weights drawn from `seed`."""
    with seeded(seed):
        return cls(**kwargs)


def output_of(model: nn.Module, inputs: tuple) -> Any:
    """The model's output in eval mode, without autograd."""
    with torch.no_grad():
        return model.eval()(*inputs)


def randomize_bn(model: nn.Module, seed: int) -> nn.Module:
    """Give every batch norm non-trivial statistics and affine parameters, and put the model in eval mode."""
    g = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            with torch.no_grad():
                if m.running_mean is not None:     # a batch norm with track_running_stats=False keeps none
                    m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.5)
                    m.running_var.copy_(torch.rand(m.num_features, generator=g) * 2 + 0.2)
                if m.affine:
                    m.weight.copy_(torch.randn(m.num_features, generator=g))
                    m.bias.copy_(torch.randn(m.num_features, generator=g))
    return model.eval()


# ---------------------------------------------------------------- 1: the graph as a table
@dataclass(frozen=True)
class TableCase:
    """A model whose traced graph graph_table must describe."""

    about: str
    model: nn.Module


def _callable_names(target) -> list[str]:
    """Every name a function target goes by as text: its name, qualified name, and str() unless that is a repr with an
    address ('<function relu at 0x...>', which changes from one process to the next)."""
    names = {getattr(target, "__name__", "")} | ({str(target)} if " at 0x" not in str(target) else set())
    try:
        names.add(fx.node._get_qualified_name(target))
    except Exception:
        pass
    return sorted(n for n in names if n)


def graph_truth(model: nn.Module) -> list[dict]:
    """Every node of the model's trace as graph_table should describe it (a function: every name it goes by)."""
    gm = fx.symbolic_trace(model)
    return [{"name": n.name, "op": n.op, **target_truth(n),
             "inputs": [i.name for i in n.all_input_nodes], "users": [u.name for u in n.users]} for n in gm.graph.nodes]


def plain_row(row: Any) -> dict | str:
    """One of graph_table's rows with every value as text, a list of text, or None."""
    if not isinstance(row, dict):
        return f"<{type(row).__name__}>"
    out, not_text = {}, []
    for k in ("name", "op", "target", "inputs", "users"):
        if k in row:
            v = row[k]
            out[k] = v if isinstance(v, str) else [str(i) for i in v] if isinstance(v, (list, tuple)) else None if v is None else str(v)
            items = v if isinstance(v, (list, tuple)) and k in ("inputs", "users") else [v]
            kinds = sorted({type(i).__name__ for i in items if not isinstance(i, str)})
            if kinds:
                not_text.append(f"{k} ({', '.join(kinds)})")
    out["not_text"] = not_text
    return out


def probe_graph_table(learner: Learner, model: nn.Module) -> list | str:
    """graph_table on the model's trace: its rows as plain data."""
    rows = learner.call("graph_table", fx.symbolic_trace(model))
    return [plain_row(r) for r in rows] if isinstance(rows, list) else f"<{type(rows).__name__}>"


def target_truth(node: fx.Node) -> dict:
    """What a row's `target` may say for this node: the string target itself, or every name of the function."""
    if isinstance(node.target, str):
        return {"target": node.target, "target_names": []}
    return {"target": None, "target_names": _callable_names(node.target)}


def _target_ok(text, want: dict) -> bool:
    if not isinstance(text, str):
        return False
    if want["target"] is not None:
        return text == want["target"]
    short = [n for n in want["target_names"] if "." not in n and " " not in n]
    return text in want["target_names"] or any(text.endswith("." + s) for s in short)


TARGET_RULE = ("give the target as text: a string target (a method's or module's name) as it is, a function by its name "
               "(e.g. 'relu') or its qualified name (e.g. 'torch.relu'), not the function object or its repr.")


def graph_table_problems(rows: list | str, truth: list[dict], about: str, reveal: bool = True) -> list[str]:
    """Rows vs the graph's own truth; with reveal=False, messages name the node's kind, not the hidden model's names."""
    if not isinstance(rows, list):
        return [f"graph_table should return a list of dicts, one per node; it returned {rows}."]
    if len(rows) != len(truth):
        kept = (" More rows than nodes: rows of an earlier call are still there (a list that outlives the call, such as "
                "a default argument rows=[] or a list at module level); make a new list on every call."
                if len(rows) > len(truth) else "")
        return [f"on {about} the graph has {len(truth)} nodes, graph_table returned {len(rows)} rows: one row per node of "
                f"gm.graph.nodes, in order (a node nobody reads has its row too; leave the graph as it is).{kept}"]
    for i, (row, want) in enumerate(zip(rows, truth)):
        node = f"node '{want['name']}'" if reveal else f"node {i} ({a_node(want['op'])})"
        if not isinstance(row, dict):
            return [f"every row should be a dict; one is {row}."]
        missing = [k for k in ("name", "op", "target", "inputs", "users") if k not in row]
        if missing:
            return [f"rows need the keys name, op, target, inputs, users; the row of {node} lacks {', '.join(missing)}."]
        not_text = [k for k in row.get("not_text", []) if not k.startswith("target")]
        if not_text:
            return [f"on {about}, the row of {node} holds objects where text belongs: {', '.join(not_text)}. A row is plain "
                    "data: name and op as strings, inputs and users as lists of node names (node.name), not the Node "
                    "objects themselves."]
        if any(k.startswith("target") for k in row.get("not_text", [])):
            return [f"on {about}, {node} has a target that is not text: {TARGET_RULE}"]
        if row["name"] != want["name"] or row["op"] != want["op"]:
            where = f"{want['name']!r} ({want['op']})" if reveal else a_node(want["op"])
            said = f"says {row['name']!r} ({row['op']})" if reveal else "has another name or op"
            return [f"on {about}, row {i} {said} where the graph has {where}: one row per node, "
                    "in the graph's order, with node.name and node.op."]
        if not _target_ok(row["target"], want):
            return [f"on {about}, {node} has target {row['target']!r}: {TARGET_RULE}"]
        if not isinstance(row["inputs"], list) or sorted(set(row["inputs"])) != sorted(set(want["inputs"])):
            said = f"reads {sorted(set(want['inputs']))}, your row says {row['inputs']}" if reveal else "has the wrong inputs"
            return [f"on {about}, {node} {said}: inputs can sit inside lists, tuples and keyword arguments "
                    "(node.all_input_nodes finds them all)."]
        if not isinstance(row["users"], list) or sorted(set(row["users"])) != sorted(set(want["users"])):
            said = f"is read by {sorted(set(want['users']))}, your row says {row['users']}" if reveal else "has the wrong users"
            return [f"on {about}, {node} {said} (node.users)."]
    return []


class TableNet(nn.Module):
    """All six node kinds; a submodule inside a Sequential (a dotted target); inputs inside a list and in a keyword
    argument; a node read by several others."""

    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(6, 6))
        self.register_buffer("shift", torch.linspace(-1, 1, 6))

    def forward(self, x, y):
        a = self.enc(x)
        b = torch.cat([a, y], dim=0)
        c = torch.sub(b, other=self.shift)       # an input given by keyword
        d = c.relu()
        return d * d.sigmoid() + c.sum()


def table_cases() -> list[TableCase]:
    return [TableCase("a model with a Linear inside a Sequential (a dotted target), a buffer read as a keyword argument, "
                      "torch.cat of a list, and a node read twice", built(0, TableNet))]


class TableEdges(nn.Module):
    """A parameter of a nested submodule read directly (a get_attr with a dotted target), a node nobody reads, a call
    whose one input is a keyword argument, a value read by two nodes, and two outputs."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(nn.Linear(3, 3))

    def forward(self, x):
        w = self.blocks[0].weight
        x.cos()                                  # nobody reads it
        h = torch.relu(input=x @ w)
        s = w.sum()
        return h * s, h - s


def table_cases_always() -> list[TableCase]:
    """Checked on every run, the grader's too: the boundaries (a node without users, a dotted get_attr, an input by
    keyword only); a second call of graph_table besides."""
    return [TableCase("a model with a nested submodule's parameter read directly (a dotted get_attr), a node nobody "
                      "reads, torch.relu(input=...) and two outputs", built(1, TableEdges))]


@register("02.graph_table", points=1, exercise="1", title="a table of the graph: op, target, inputs and users of every node",
          cases=table_cases)
def _graph_table(ctx: Context, cases: list[TableCase]) -> str:
    for case in [*cases, *table_cases_always()]:
        rows = ctx.probe(probe_graph_table, case.model)
        fail_if(graph_table_problems(rows, graph_truth(case.model), case.about, reveal=ctx.reveal))
    return "every node's op, target, inputs and users are right"


# ---------------------------------------------------------------- 2: rewrites
def _matched_relus(replaced) -> int:
    """How many ReLU nodes (function or method spellings: a pattern cannot call a module) a replace_pattern call's
    result says it matched and replaced."""
    count = 0
    for match in replaced if isinstance(replaced, list) else ():
        for node in getattr(match, "nodes_map", {}).values():
            if isinstance(node, fx.Node) and ((node.op == "call_function" and node.target in RELU_FUNCTIONS)
                                              or (node.op == "call_method" and node.target in ("relu", "relu_"))):
                count += 1
    return count


@contextlib.contextmanager
def counting_pattern_rewrites():
    """Count calls of torch.fx.subgraph_rewriter's replace_pattern functions made meanwhile, and the ReLU nodes they
    replaced (a two-item list: calls, ReLUs)."""
    from torch.fx import subgraph_rewriter

    calls = [0, 0]
    # both public functions call the module's _replace_pattern, looked up at call time: counting it counts them
    # however the learner imported them (a `from ... import replace_pattern` binds the public function early)
    names = [n for n in ("_replace_pattern",) if hasattr(subgraph_rewriter, n)] or \
        [n for n in ("replace_pattern", "replace_pattern_with_filters") if hasattr(subgraph_rewriter, n)]
    originals = {n: getattr(subgraph_rewriter, n) for n in names}

    def counted(original):
        def wrapper(*args, **kwargs):
            calls[0] += 1
            result = original(*args, **kwargs)
            calls[1] += _matched_relus(result)
            return result
        return wrapper

    for n in names:
        setattr(subgraph_rewriter, n, counted(originals[n]))
    try:
        yield calls
    finally:
        for n in names:
            setattr(subgraph_rewriter, n, originals[n])


def input_names(gm: fx.GraphModule) -> list[str]:
    """The names of the graph's placeholders: its inputs."""
    return [n.name for n in gm.graph.nodes if n.op == "placeholder"]


def stale_code(gm: fx.GraphModule) -> bool:
    """True when gm's forward is not the code of its graph: the graph changed and gm.recompile() was not called."""
    try:
        return gm.code != gm.graph.python_code("self").src
    except Exception:
        return False


def approximate_gelus(gm: fx.GraphModule) -> list[str]:
    """GELU nodes (function or module) that are not the exact GELU: 'call_function gelu (approximate='tanh')'."""
    found = []
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target in GELU_FUNCTIONS:
            approx = n.kwargs.get("approximate", "none")
        elif n.op == "call_module" and isinstance(module_of(gm, n), nn.GELU):
            approx = module_of(gm, n).approximate
        else:
            continue
        if approx != "none":
            found.append(f"{n.op} {target_text(n)} (approximate={approx!r})")
    return found


def works_in_place(gm: fx.GraphModule, n: fx.Node) -> bool:
    """A call that changes a tensor in place (a name ending in one underscore, inplace=True): it has a side effect."""
    if n.op == "call_module":
        return getattr(module_of(gm, n), "inplace", False) is True
    if n.op in CALLS:
        name = n.target if isinstance(n.target, str) else getattr(n.target, "__name__", "")
        return n.kwargs.get("inplace") is True or (name.endswith("_") and not name.endswith("__"))
    return False


def out_of_place_call(gm: fx.GraphModule, n: fx.Node) -> bool:
    """A call that takes an inplace argument and leaves it False: F.relu(x) (traced with inplace=False), nn.ReLU()."""
    if n.op == "call_module":
        return getattr(module_of(gm, n), "inplace", None) is False
    return n.op in CALLS and "inplace" in n.kwargs and n.kwargs["inplace"] is not True


def in_place_calls(gm: fx.GraphModule) -> int:
    """How many calls change a tensor in place."""
    return sum(works_in_place(gm, n) for n in gm.graph.nodes)


def impure_calls(gm: fx.GraphModule) -> int:
    """How many calls node.is_impure() says must stay (an assertion, a random op, ...), whether read or not."""
    return sum(n.op in CALLS and n.is_impure() for n in gm.graph.nodes)


def conv_settings(gm: fx.GraphModule) -> list[str]:
    """What each conv module called in the graph convolves with, besides its weight and bias: folding keeps it."""
    found = []
    for n in gm.graph.nodes:
        mod = module_of(gm, n) if n.op == "call_module" else None
        if isinstance(mod, nn.modules.conv._ConvNd):
            found.append(f"{type(mod).__name__}(kernel_size={mod.kernel_size}, stride={mod.stride}, padding={mod.padding}, "
                         f"dilation={mod.dilation}, groups={mod.groups}, padding_mode={mod.padding_mode!r})")
    return sorted(found)


def torch_side_effects(gm: fx.GraphModule, node: fx.Node) -> bool:
    """torch.fx's own idea of a node that must stay, and the in-place calls: what stands in for a `has_side_effects`
    that is a stub."""
    return node.is_impure() or works_in_place(gm, node)


def torch_dead_code(gm: fx.GraphModule) -> fx.GraphModule:
    """torch.fx's own dead-code elimination, keeping the in-place calls: what stands in for a `remove_dead_code` that is
    still its stub."""
    gm.graph.eliminate_dead_code(is_impure_node=lambda n: torch_side_effects(gm, n))
    gm.recompile()
    return gm


# The earlier part's functions a pass builds on, and what stands in for each while it is a stub
# (Learner.standing_in): constant folding uses part 2d's has_side_effects and remove_dead_code, and is judged on its
# own, with torch.fx's in their place.
BUILDS_ON = {"fold_constants": (("remove_dead_code", torch_dead_code), ("has_side_effects", torch_side_effects))}


@contextlib.contextmanager
def earlier_parts(learner: Learner, *fn_names: str, always: bool = False):
    """While the block runs, what the passes `fn_names` build on stands in for its stubs (BUILDS_ON); with `always`,
    for the learner's own version too, stub or not, so that a mistake in an earlier part costs that part alone."""
    with contextlib.ExitStack() as stack:
        for fn_name in fn_names:
            for name, stand_in in BUILDS_ON.get(fn_name, ()):
                stack.enter_context(learner.replacing(name, stand_in) if always else learner.standing_in(name, stand_in))
        yield


def probe_pass(learner: Learner, fn_name: str, model: nn.Module, inputs: tuple) -> dict:
    """Trace `model`, run the learner's pass on it, then again on its result; what happened, as plain data."""
    with earlier_parts(learner, fn_name, always=True):     # constant folding is judged on its own (part 2d apart)
        return _probe_pass(learner, fn_name, model, inputs)


def _probe_pass(learner: Learner, fn_name: str, model: nn.Module, inputs: tuple) -> dict:
    fn = learner.fn(fn_name)
    model.eval()
    with torch.no_grad(), counting_pattern_rewrites() as pattern_calls:
        before = model(*inputs)
        traced = graph_of(model)
        inputs_before = input_names(traced)
        params_before = {name for name, _ in traced.named_parameters()}
        attrs_before = {n.target for n in traced.graph.nodes if n.op == "get_attr"}
        buffers_before = {name for name, _ in traced.named_buffers()}
        # the folding passes run with autograd on, as a learner (or a pipeline) calls them: what they keep must not hold
        # an autograd graph, and a parameter changed in place outside no_grad raises
        with torch.enable_grad() if fn_name in ("fold_constants", "fold_conv_bn") else contextlib.nullcontext():
            out_gm = fn(traced)
        if not isinstance(out_gm, fx.GraphModule):
            return {"returned": type(out_gm).__name__}
        try:
            out_gm.graph.lint()
            lint = ""
        except Exception as err:
            lint = f"{type(err).__name__}: {str(err)[:160]}"
        shape = {"returned": "GraphModule", "lint": lint, "stale": stale_code(out_gm), "approximate_gelu": approximate_gelus(out_gm),
                 "in_place": in_place_calls(out_gm), "impure": impure_calls(out_gm), "conv_settings": conv_settings(out_gm),
                 "kinds": [(n.op, node_kind(out_gm, n)) for n in out_gm.graph.nodes],
                 "relu_left": [f"{n.op} {target_text(n)}" for n in out_gm.graph.nodes if activation(out_gm, n) == "relu"],
                 "pattern_calls": pattern_calls[0], "pattern_relus": pattern_calls[1], "n_inputs": len(inputs_before),
                 "removed_inputs": [name for name in inputs_before if name not in input_names(out_gm)],
                 "new_parameters": sorted({name for name, _ in out_gm.named_parameters()} - params_before),
                 "dead_attrs": sum(n.op == "get_attr" and not n.users for n in out_gm.graph.nodes),
                 "unread_out_of_place": sum(not n.users and out_of_place_call(out_gm, n) for n in out_gm.graph.nodes),
                 "inference_tensors": sum(t.is_inference() for t in [*out_gm.parameters(), *out_gm.buffers()]),
                 "own_convs": sum(n.op == "call_module" and isinstance(module_of(out_gm, n), nn.modules.conv._ConvNd)
                                  and any(module_of(out_gm, n) is m for m in model.modules()) for n in out_gm.graph.nodes),
                 **new_constants(out_gm, attrs_before, buffers_before)}
        if shape["stale"] or shape["removed_inputs"]:
            return shape       # not run: it cannot take the model's inputs, or its forward is the old code
        out = out_gm(*inputs)
        out_next_call = out_gm(*inputs)      # the same graph called again: what it keeps must not change as it runs
        sig = signature(out_gm)
        again = fn(out_gm)
        same = isinstance(again, fx.GraphModule) and signature(again) == sig
        out_again = again(*inputs) if isinstance(again, fx.GraphModule) else None
        after = model(*inputs)
    return {**shape, "out": out, "out_next_call": out_next_call, "out_again": out_again, "idempotent": same,
            "original_unchanged": max_diff(before, after) == 0.0}


def new_constants(gm: fx.GraphModule, before: set, buffers_before: set = frozenset()) -> dict:
    """The tensors a pass's new get_attr nodes read that are not parameters: kept as plain attributes (not in the
    state_dict, not moved by .to()) or as buffers that require grad (computed with autograd on, still tied to the
    parameters they came from); and the new buffers no get_attr node reads (kept, saved and moved for nothing)."""
    params, buffers = dict(gm.named_parameters()), dict(gm.named_buffers())
    read = {n.target for n in gm.graph.nodes if n.op == "get_attr"}
    unread = sorted(name for name in buffers if name not in buffers_before and name not in read)
    loose, grad = [], []
    readers = Counter(n.target for n in gm.graph.nodes if n.op == "get_attr" and n.target not in before)
    for n in gm.graph.nodes:
        if n.op != "get_attr" or n.target in before or n.target in params:
            continue
        owner, _, attr = n.target.rpartition(".")
        try:
            value = getattr(gm.get_submodule(owner) if owner else gm, attr)
        except AttributeError:
            continue
        if not isinstance(value, torch.Tensor):
            continue
        if n.target not in buffers:
            loose.append(n.target)
        elif value.requires_grad:
            grad.append(n.target)
    return {"loose_constants": sorted(set(loose)), "grad_constants": sorted(set(grad)), "unread_buffers": unread,
            "shared_new_attrs": sum(k > 1 for k in readers.values())}


def pass_problems(p: dict, fn_name: str, want, about: str, tol: dict, reveal: bool = True) -> list[str]:
    """The problems every pass can have: wrong type, an input removed, lint, code not recompiled, wrong output, not
    idempotent, original model changed."""
    if p["returned"] != "GraphModule":
        return [f"{fn_name} should return a torch.fx.GraphModule; it returned a {p['returned']}."]
    if p.get("removed_inputs"):
        which = (f"placeholder {', '.join(repr(n) for n in p['removed_inputs'])}" if reveal
                 else f"{len(p['removed_inputs'])} of its {p['n_inputs']} placeholder(s)")
        return [f"on {about}, your pass removed an input of the graph ({which}): the GraphModule can no longer be "
                "called with the model's inputs. Never erase a placeholder, even one nothing reads."]
    if p["lint"]:
        return [f"on {about}, the rewritten graph fails gm.graph.lint() ({p['lint']})."]
    if p.get("stale"):
        return [f"on {about}, {fn_name} changed the graph but the GraphModule still runs its old code (gm.code is not "
                "the graph's): did you call gm.recompile() after changing gm.graph?"]
    if not close(p["out"], want, **tol):
        return [f"on {about}, the rewritten graph computes something else (largest difference {max_diff(p['out'], want):.3g})."]
    if "out_next_call" in p and not close(p["out_next_call"], want, **tol):
        return [f"on {about}, the rewritten graph gives the right outputs on its first call and other outputs when it is "
                "called again: running it changes a tensor it keeps. A call that works in place (add_, mul_, ...) on a "
                "value your pass turned into a buffer changes that buffer on every call: what an in-place call changes "
                "(and what it is a view of) is not a constant, so leave it unfolded."]
    if not p["idempotent"]:
        return [f"on {about}, running {fn_name} a second time changed the graph again: on a graph it already rewrote, a pass "
                "should find nothing to do."]
    if p["out_again"] is None or not close(p["out_again"], want, **tol):
        return [f"on {about}, after a second run of {fn_name} the graph computes something else."]
    if not p["original_unchanged"]:
        return [f"on {about}, {fn_name} changed the original model, not only the graph: the GraphModule shares its submodules "
                "with the model, so replace a module instead of changing its weights in place."]
    if p.get("inference_tensors"):
        return [f"on {about}, {fn_name} left {p['inference_tensors']} tensor(s) made under torch.inference_mode() in the "
                "GraphModule (parameters or buffers): an inference tensor can never take part in autograd, so calling the "
                "rewritten model with autograd on (to fine-tune it, or for a gradient with respect to its input) raises. "
                "Compute under torch.no_grad() instead (or clone the result outside inference_mode)."]
    return []


# ---------------------------------------------------------------- 2a, 2b: ReLU → GELU
@dataclass(frozen=True)
class RewriteCase:
    """A model, its inputs, and the output of its GELU twin: what the graph computes once every ReLU is GELU."""

    about: str
    model: nn.Module
    inputs: tuple
    want: Any
    hint: str = ""           # the likely cause of the pass raising on this case, added to its message


def gelu_twin(model: nn.Module) -> nn.Module:
    """A copy of the model with every ReLU written as exact GELU (the cases' models say so with `gelu=True`)."""
    twin = copy.deepcopy(model)
    for mod in list(twin.modules()):
        if isinstance(getattr(mod, "gelu", None), bool):
            mod.gelu = True
        for child_name, child in list(mod.named_children()):
            if isinstance(child, nn.ReLU):
                setattr(mod, child_name, nn.GELU())
    return twin.eval()


def rewrite_case(about: str, model: nn.Module, inputs: tuple) -> RewriteCase:
    """The case of `model`, its expected output from its GELU twin."""
    return RewriteCase(about, model.eval(), inputs, output_of(gelu_twin(model), inputs))


def relu_problems(p: dict, fn_name: str, want, about: str, reveal: bool = True) -> list[str]:
    """The ReLU → GELU rewrite: no ReLU left in any spelling, one exact GELU per ReLU, outputs of the GELU model."""
    if p["returned"] == "GraphModule" and p["relu_left"]:
        left = p["relu_left"] if reveal else sorted({a_node(r.split()[0]) for r in p["relu_left"]})
        return [f"on {about}, ReLU is still there as: {', '.join(left)}."]
    if p["returned"] == "GraphModule":
        before, after = call_kinds(p["kinds_before"]), call_kinds(p["kinds"])
        gone = sorted(k for k in before if k not in ("relu", "gelu") and "relu" in k.lower() and after[k] < before[k])
        if gone:
            return [f"on {about}, your pass rewrote {', '.join(gone)}, which {'is' if len(gone) == 1 else 'are'} not ReLU: "
                    "match ReLU's own spellings exactly (the functions torch.relu and F.relu, the method .relu(), the "
                    "module class nn.ReLU), not every name that contains 'relu'. A string target names a method, or a "
                    "submodule whatever its class: test node.op first, then look a module up with gm.get_submodule."]
    if fn_name == "relu_to_gelu_pattern" and p.get("pattern_calls") == 0:
        return ["relu_to_gelu_pattern never called torch.fx.subgraph_rewriter.replace_pattern: this exercise is the "
                "pattern rewrite (write the patterns and their replacement as functions and let replace_pattern find "
                "them); the hand-written loop is relu_to_gelu."]
    if fn_name == "relu_to_gelu_pattern" and p["returned"] == "GraphModule" and \
            p.get("pattern_relus", math.inf) < call_kinds(p["kinds_before"])["relu"]:
        said = (f"replace_pattern replaced {p['pattern_relus']} of the {call_kinds(p['kinds_before'])['relu']} ReLUs"
                if reveal else "replace_pattern replaced only some of the ReLUs")
        return [f"on {about}, {said}; the others became GELU some other way (by hand, or by calling relu_to_gelu of "
                "part 2a): in this exercise every ReLU is rewritten by replace_pattern. Turn the nn.ReLU module calls "
                "into torch.relu calls first (a pattern function cannot call a submodule), then let one pattern per "
                "spelling replace them all."]
    if p.get("approximate_gelu"):
        found = p["approximate_gelu"] if reveal else sorted({a_node(g.split()[0]) for g in p["approximate_gelu"]})
        return [f"on {about}, GELU must be exact (approximate='none'): your graph has the tanh approximation as "
                f"{', '.join(found)}. Call F.gelu(x) without approximate=..., or nn.GELU()."]
    if p["returned"] == "GraphModule" and not p.get("stale") and p["in_place"] < p["in_place_before"]:
        return [f"on {about}, {fn_name} removed a call that changes a tensor in place (its result is unread, the tensor "
                "it changes is read later): replace the ReLUs and leave every other node alone. gm.graph.eliminate_dead_code() "
                "erases such calls; erase each ReLU you replaced yourself (gm.graph.erase_node)."]
    problems = pass_problems(p, fn_name, want, about, SAME, reveal)
    if problems:
        return problems
    kb, ka = call_kinds(p["kinds_before"]), call_kinds(p["kinds"])
    want_gelu = kb["relu"] + kb["gelu"]
    if ka["gelu"] != want_gelu:
        return [f"on {about}, expected {want_gelu} exact GELU node(s) (one per ReLU, plus those already there), found {ka['gelu']}."]
    others_before = {k: v for k, v in kb.items() if k not in ("relu", "gelu")}
    others_after = {k: v for k, v in ka.items() if k not in ("relu", "gelu")}
    if others_after != others_before:
        changed = f" ({others_before} → {others_after})" if reveal else ""
        return [f"on {about}, the nodes that are not activations changed{changed}: replace the ReLUs and touch nothing else."]
    return []


class Spellings(nn.Module):
    """ReLU written four ways, one result read twice, the nn.ReLU module called twice; gelu=True writes each of them as
    GELU (the rewrite's target)."""

    def __init__(self, gelu: bool = False):
        super().__init__()
        self.gelu = gelu
        self.fc = nn.Linear(8, 8)
        self.act = nn.GELU() if gelu else nn.ReLU()

    def forward(self, x, y):
        a = F.gelu(x) if self.gelu else torch.relu(x)
        b = F.gelu(y) if self.gelu else F.relu(y)
        c = F.gelu(a + b) if self.gelu else (a + b).relu()
        d = self.act(self.fc(c))
        return d * 2 + d.mean() + self.act(a - b)


class NestedSpellings(nn.Module):
    """nn.ReLU inside a Sequential (a dotted target), another nn.ReLU module called twice, and the three function
    spellings, one read three times."""

    def __init__(self, gelu: bool = False):
        super().__init__()
        self.gelu = gelu
        self.mlp = nn.Sequential(nn.Linear(5, 7), nn.GELU() if gelu else nn.ReLU(), nn.Linear(7, 5))
        self.act = nn.GELU() if gelu else nn.ReLU()

    def forward(self, x):
        h = self.mlp(x)
        r = F.gelu(h) if self.gelu else h.relu()
        s = F.gelu(r * x) if self.gelu else F.relu(r * x)
        t = F.gelu(s - r) if self.gelu else torch.relu(s - r)
        return self.act(t) + r.sum(dim=-1, keepdim=True) + self.act(r - x)


class Identity(nn.Module):
    """The empty graph: a placeholder and an output."""

    def forward(self, x):
        return x


class SingleRelu(nn.Module):
    """A single-op graph."""

    def __init__(self, gelu: bool = False):
        super().__init__()
        self.gelu = gelu

    def forward(self, x):
        return F.gelu(x) if self.gelu else torch.relu(x)


class Lookalikes(nn.Module):
    """Activations whose names contain "relu" but are not ReLU (leaky_relu, relu6, nn.LeakyReLU, nn.ReLU6), and one
    nn.ReLU; gelu=True writes only that one as GELU."""

    def __init__(self, gelu: bool = False):
        super().__init__()
        self.gelu = gelu
        self.leaky = nn.LeakyReLU(0.2)
        self.six = nn.ReLU6()
        self.act = nn.GELU() if gelu else nn.ReLU()

    def forward(self, x):
        a = F.leaky_relu(x, 0.1) + F.relu6(x * 4) + self.leaky(x) + self.six(x * 5)
        return self.act(a - 1)


class KeywordSpellings(nn.Module):
    """torch.relu with its input given by keyword (torch.relu(input=x): the node has no args), an nn.ReLU inside a
    Sequential (a dotted target, 'block.1'), a submodule named `relu` that is a LeakyReLU (a call_module node's target
    is a name, not a class), an in-place t.add_(1) whose result nobody reads (t is read later: it must stay), and the
    ReLU's result read by keyword (torch.sub(..., other=a): a pass that rewires node.args by hand misses that reader)."""

    def __init__(self, gelu: bool = False):
        super().__init__()
        self.gelu = gelu
        self.block = nn.Sequential(nn.Linear(4, 4), nn.GELU() if gelu else nn.ReLU())
        self.relu = nn.LeakyReLU(0.1)

    def forward(self, x):
        a = F.gelu(x) if self.gelu else torch.relu(input=x)
        t = x * 2
        t.add_(1)
        return torch.sub(self.block(a) * 2, other=a) + self.relu(t)


READERS_HINT = (" A node's readers can hold it anywhere in their arguments: by keyword (torch.sub(h, other=a)) or "
                "inside a list or tuple (torch.cat([a, b]), the output node's tuple). node.replace_all_uses_with(new) "
                "rewires every one of them; a loop that rewrites each reader's node.args misses the others.")


def keyword_cases() -> list[RewriteCase]:
    """Checked for relu_to_gelu on every run, the grader's too: a spelling the other cases do not hold."""
    with seeded(12):
        x = (torch.randn(3, 4),)
    return [replace(rewrite_case("a model with torch.relu(input=x) (its input given by keyword, so node.args is "
                                 "empty), an nn.ReLU inside a Sequential, a submodule named relu that is a LeakyReLU, an "
                                 "in-place t.add_(1) whose result nobody reads, and the ReLU's result read by keyword "
                                 "(torch.sub(h, other=a))", built(13, KeywordSpellings), x), hint=READERS_HINT)]


class ModuleOnRelu(nn.Module):
    """An nn.ReLU module called on a torch.relu's result, and again on the input: a call added at the end of the graph
    (no inserting_before) is read before it exists once the patterns replace what reads it; the second call's result
    is read by keyword (torch.add(..., other=...)). Beside them, an in-place u.mul_(0.5) whose result nobody reads (u is
    read later: it must stay)."""

    def __init__(self, gelu: bool = False):
        super().__init__()
        self.gelu = gelu
        self.act = nn.GELU() if gelu else nn.ReLU()

    def forward(self, x):
        t = F.gelu(x) if self.gelu else torch.relu(x)
        u = x * 3
        u.mul_(0.5)
        return torch.add(self.act(t), other=self.act(x)) + u


WHERE_NODES_GO = (" A node a pass adds goes where the node it replaces stood (with gm.graph.inserting_before(node)): "
                  "created anywhere else (by default, after the output node), its readers may use it before it exists.")


def rewriter_cases_always() -> list[RewriteCase]:
    """Checked for relu_to_gelu_pattern on every run, the grader's too: an nn.ReLU module on a torch.relu's result."""
    with seeded(22):
        x = (torch.randn(3, 5),)
    return [replace(rewrite_case("a model with an nn.ReLU module called on a torch.relu's result and again on the input "
                                 "(that call's result read by keyword: torch.add(h, other=...)), and an in-place "
                                 "u.mul_(0.5) whose result nobody reads", ModuleOnRelu(), x),
                    hint=WHERE_NODES_GO + READERS_HINT)]


def relu_cases(main: type, about: str) -> list[RewriteCase]:
    """The main model, the empty graph, one op, a graph already rewritten, and ReLU's lookalikes."""
    with seeded(2):
        ins = (torch.randn(3, 8), torch.randn(3, 8)) if main is Spellings else (torch.randn(4, 5),)
        empty, single, look = (torch.randn(4),), (torch.randn(6),), (torch.randn(4, 6),)
    return [rewrite_case(about, built(3, main), ins),
            rewrite_case("the empty graph (it returns its input)", Identity(), empty),
            rewrite_case("a graph of one torch.relu", SingleRelu(), single),
            rewrite_case("a graph that already uses GELU only", built(3, main, gelu=True), ins),
            rewrite_case("a model with F.leaky_relu, F.relu6, nn.LeakyReLU and nn.ReLU6 (none of them ReLU) and one "
                         "nn.ReLU", Lookalikes(), look)]


def spellings_cases() -> list[RewriteCase]:
    return relu_cases(Spellings, "a model with ReLU written as torch.relu, F.relu, x.relu() and nn.ReLU (one nn.ReLU module "
                                 "called twice)")


def nested_cases() -> list[RewriteCase]:
    return relu_cases(NestedSpellings, "a model with an nn.ReLU inside a Sequential, another nn.ReLU module called twice, "
                                       "and ReLU written as x.relu(), F.relu and torch.relu, one result read three times")


AUTOGRAD_HINT = (" It raised because it changed a parameter in place with autograd on: the checks call a pass with autograd "
                 "on, as a pipeline does. Change weights under torch.no_grad(), or build a new nn.Parameter.")
STILL_READ_HINT = (" A node that something still reads cannot be erased: whatever a node that stays reads (the condition a "
                   "torch._assert checks, the tensor an in-place call changes) is still read, so it stays too. Erase only "
                   "nodes nothing reads, and let what they read become dead after them.")
FOLD_SHAPE_HINT = (" A folded conv keeps the shape of its conv's weight: scale its dim 0 (the output channels) only, with "
                   "the scale shaped to the weight's own number of dimensions (a Conv1d's weight is 3-D, a Conv2d's 4-D); "
                   "a grouped conv's weight holds in_channels / groups channels per filter, so take no size from "
                   "in_channels.")
INFERENCE_HINT = (" Tensors made under torch.inference_mode() can never take part in autograd: compute under "
                  "torch.no_grad() instead.")


def error_hint(fn_name: str, err: BaseException, hint: str = "") -> str:
    """What a pass's error says about its cause, in words, for the kinds of error a learner's pass typically raises
    (added to the message whatever `reveal` is: it describes the learner's code, not the case)."""
    text = str(err)
    found = ""
    if "leaf Variable that requires grad" in text:
        found = AUTOGRAD_HINT
    elif "Inference tensors" in text:
        found = INFERENCE_HINT
    elif "Tried to erase Node" in text and "still had" in text:
        found = STILL_READ_HINT
    elif fn_name == "fold_conv_bn" and any(s in text for s in ("dimensional weight", "weight of size", "size of tensor")):
        found = FOLD_SHAPE_HINT
    return "" if found and found in hint else found


@contextlib.contextmanager
def raised_on(ctx: Context, fn_name: str, about: str, hint: str = ""):
    """Learner code that raises inside the block fails the check with the case it raised on (and `hint`, the case's
    likely cause), not as a bare exception."""
    try:
        yield
    except Exception as err:
        if isinstance(err, CheckFailed) and not isinstance(err, LearnerError):
            raise                  # not written yet, a timeout: as they are
        if isinstance(err, LearnerError):
            said = str(err)
        else:
            said = f"raised {type(err).__name__}" + (f": {str(err)[:300].rstrip('.!')}" if ctx.reveal else "")
        raise CheckFailed(f"on {about}, {fn_name} {said}.{hint}{error_hint(fn_name, err, hint)}") from None


def pass_on_case(ctx: Context, fn_name: str, model: nn.Module, inputs: tuple, about: str, hint: str = "") -> dict:
    """probe_pass on one case, with what the trace held before the pass (node kinds, in-place and impure calls, conv
    settings); a pass that raises fails with the case it raised on (raised_on)."""
    with raised_on(ctx, fn_name, about, hint):
        got = ctx.probe(probe_pass, fn_name, model, inputs)
    before = graph_of(model)
    return {**got, "kinds_before": kinds_of(model), "in_place_before": in_place_calls(before),
            "impure_before": impure_calls(before), "conv_settings_before": conv_settings(before)}


def judge_rewrites(ctx: Context, cases: list[RewriteCase], fn_name: str) -> None:
    """Run the learner's ReLU → GELU pass `fn_name` on every case; fail on the first problem."""
    for case in cases:
        got = pass_on_case(ctx, fn_name, case.model, case.inputs, case.about, case.hint)
        fail_if(relu_problems(got, fn_name, case.want, case.about, reveal=ctx.reveal))


@register("02.relu_to_gelu", points=2, exercise="2a", title="ReLU → GELU in every spelling, by graph surgery",
          cases=spellings_cases)
def _relu_to_gelu(ctx: Context, cases: list[RewriteCase]) -> str:
    judge_rewrites(ctx, [*cases, *keyword_cases()], "relu_to_gelu")
    return "every spelling becomes exact GELU; empty, single-op and already-rewritten graphs are handled"


@register("02.rewriter", points=1, exercise="2b", title="ReLU → GELU with torch.fx.subgraph_rewriter", cases=nested_cases)
def _rewriter(ctx: Context, cases: list[RewriteCase]) -> str:
    judge_rewrites(ctx, [*cases, *rewriter_cases_always()], "relu_to_gelu_pattern")
    return "the pattern rewrite handles every spelling, a nested nn.ReLU and a ReLU read several times"


# ---------------------------------------------------------------- 2c: conv + batch-norm folding
@dataclass(frozen=True)
class FoldCase:
    """A model in eval mode, its inputs, its output, and how many batch norms folding must leave."""

    about: str
    model: nn.Module
    inputs: tuple
    want: Any
    bn_left: int | tuple
    hint: str = ""           # the likely cause of a failure on this case, added to its message


def fold_case(about: str, model: nn.Module, inputs: tuple, bn_left: int | tuple, hint: str = "") -> FoldCase:
    return FoldCase(about, model.eval(), inputs, output_of(model, inputs), bn_left, hint)


BATCH_STATS_HINT = (" A batch norm with track_running_stats=False has no running_mean or running_var: it normalizes "
                    "with each batch's own statistics, so it is not a fixed map: leave it unfolded.")
TRAINING_HINT = (" A batch norm in training mode (bn.training is True) normalizes with each batch's own statistics, "
                 "not its running ones, so it is not a fixed map: fold only batch norms in eval mode.")


def fold_problems(p: dict, want, about: str, bn_left: int | tuple, reveal: bool = True, hint: str = "") -> list[str]:
    """Folding keeps the outputs and one conv per conv (each convolving as before), and leaves exactly the batch norms
    it cannot fold."""
    if p["returned"] == "GraphModule" and len(p["conv_settings"]) == len(p["conv_settings_before"]) \
            and p["conv_settings"] != p["conv_settings_before"]:
        lost = sorted((Counter(p["conv_settings_before"]) - Counter(p["conv_settings"])).elements())
        which = f" (before: {'; '.join(lost)})" if reveal else ""
        return [f"on {about}, a folded conv does not convolve the way the conv it replaces did{which}: folding changes "
                "the weight and bias only, every other setting (stride, padding, dilation, groups, padding_mode) stays. "
                "Start from copy.deepcopy(conv) rather than building a new conv from some of its settings."]
    problems = pass_problems(p, "fold_conv_bn", want, about, FOLDED, reveal)
    bns_before = sum(v for k, v in call_kinds(p.get("kinds_before", [])).items() if k.startswith("BatchNorm"))
    bns_after = sum(v for k, v in call_kinds(p.get("kinds", [])).items() if k.startswith("BatchNorm"))
    convs_after = sum(v for k, v in call_kinds(p.get("kinds", [])).items() if k.startswith("Conv"))
    if problems and "computes something else" in problems[0] and bns_after < bns_before \
            and p.get("own_convs") == convs_after:
        return [problems[0] + " Batch norms are gone, but every conv the graph calls is still one of the model's own "
                "conv modules: the graph still calls the original conv. After registering the folded conv, point the conv node at "
                "it (node.target = its new name)." + hint]
    if problems:
        return [problems[0] + hint]
    kb, ka = call_kinds(p["kinds_before"]), call_kinds(p["kinds"])
    convs_b = sum(v for k, v in kb.items() if k.startswith("Conv"))
    convs_a = sum(v for k, v in ka.items() if k.startswith("Conv"))
    bns = sum(v for k, v in ka.items() if k.startswith("BatchNorm"))
    if convs_a != convs_b:
        said = f"there were {convs_b} convolutions and now there are {convs_a}" if reveal else "the number of convolutions changed"
        return [f"on {about}, {said}: folding keeps one conv per conv."]
    if isinstance(bn_left, tuple):      # either is right (a fold the exercise does not ask for, done correctly)
        bn_left = bns if bns in bn_left else max(bn_left)
    if bns != bn_left:
        if bns > bn_left:
            said = f"{bns} batch norm(s) are left where {bn_left} should be" if reveal else "too many batch norms are left"
            return [f"on {about}, {said}: fold every BatchNorm2d whose input is a Conv2d that feeds nothing else (how "
                    "many nodes read the batch norm's own output does not matter: they all read the folded conv). A conv "
                    "without a bias, and a batch norm without affine parameters (affine=False), fold all the same: take a "
                    "missing bias as 0, a missing weight as 1."]
        said = f"only {bns} batch norm(s) are left where {bn_left} should be" if reveal else "too few batch norms are left"
        return [f"on {about}, {said}: a conv whose output is also read by another node cannot be folded (that node needs "
                "the un-normalized values)."]
    return []


class ConvBNNet(nn.Module):
    """Two foldable pairs (with and without conv bias, one inside a Sequential, one conv dilated with reflect padding,
    its batch norm's output read twice: still foldable, the conv feeds the batch norm alone), and one conv read twice."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1, bias=False), nn.BatchNorm2d(6), nn.ReLU())
        self.conv = nn.Conv2d(6, 6, 3, padding=2, dilation=2, padding_mode="reflect")
        self.bn = nn.BatchNorm2d(6)
        self.side = nn.Conv2d(6, 6, 1)
        self.side_bn = nn.BatchNorm2d(6)

    def forward(self, x):
        h = self.stem(x)
        h = self.bn(self.conv(h))
        s = self.side(h)
        return F.relu(self.side_bn(s) + s) + h


class StaysInTraining(nn.Module):
    """A conv → batch norm whose batch norm stays in training mode when the model is put in eval mode (the model's
    train() keeps it there), as when a model is not switched to eval before folding: it is not a fixed map."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def train(self, mode: bool = True):
        super().train(mode)
        self.bn.train(True)
        return self

    def forward(self, x):
        return self.bn(self.conv(x))


class SharedConv(nn.Module):
    """One conv called twice, each call into a batch norm of its own (the second without affine parameters: its
    weight and bias are None), and a batch norm after a ReLU (no conv before it: nothing to fold it into)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, padding=1)
        self.bn_a = nn.BatchNorm2d(3)
        self.bn_b = nn.BatchNorm2d(3, affine=False)
        self.bn_c = nn.BatchNorm2d(3)

    def forward(self, x):
        a = self.bn_a(self.conv(x))
        b = self.bn_b(self.conv(F.relu(a)))
        return self.bn_c(F.relu(b))


class ConvNotBefore(nn.Module):
    """A batch norm whose conv is not the node just before it in graph order: conv_a(x), then conv_b(x), then
    bn(conv_a's output). The batch norm's input is node.args[0] (conv_a); the node before it (conv_b) is another conv."""

    def __init__(self):
        super().__init__()
        self.conv_a = nn.Conv2d(3, 4, 3, padding=1)
        self.conv_b = nn.Conv2d(3, 4, 1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        a = self.conv_a(x)
        b = self.conv_b(x)
        return self.bn(a) + b


class SharedBN(nn.Module):
    """One batch-norm module called twice: after a conv (a pair to fold) and after a ReLU (nothing to fold it into:
    that call must still normalize); the folded pair's output is also returned as it is, inside the output tuple."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, padding=1)
        self.bn = nn.BatchNorm2d(3)

    def forward(self, x):
        h = self.bn(self.conv(x))
        return self.bn(F.relu(h)), h


SHARED_BN_HINT = (" Here one batch-norm module is called twice, and only its call after the conv is folded: fold by "
                  "replacing the node (replace_all_uses_with, then erase_node), never by changing, swapping or deleting "
                  "the module, which its other call still needs. The folded pair's output is also read inside the output "
                  "node's tuple: replace_all_uses_with finds that reader, a loop over each reader's node.args does not.")


def small_variances(model: nn.Module, eps: float, seed: int) -> nn.Module:
    """Every batch norm gets this eps and running variances of the same order: folding that leaves eps out, or
    assumes PyTorch's default 1e-5, is then visibly wrong (with variances near 1 it hides under the tolerance)."""
    g = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm) and m.running_var is not None:
            m.eps = eps
            with torch.no_grad():
                m.running_var.copy_((torch.rand(m.num_features, generator=g) + 0.2) * eps)
    return model.eval()


class TransposedConvBN(nn.Module):
    """A ConvTranspose2d into a batch norm: its weight is (in, out, kh, kw), so a fold that scales dim 0 as for a Conv2d
    scales the input channels; then a Conv2d → batch norm pair."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(3, 2, 3, stride=2)
        self.bn_up = nn.BatchNorm2d(2)
        self.conv = nn.Conv2d(2, 4, 1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return self.bn(self.conv(self.bn_up(self.up(x))))


class DepthwiseThenOneD(nn.Module):
    """A depthwise conv (groups = channels, no bias: a weight of one channel per filter) → BatchNorm2d, then a Conv1d →
    BatchNorm1d on the flattened result: the exercise folds BatchNorm2d after Conv2d; a fold that also takes Conv1d
    must shape the scale to the Conv1d's 3-D weight."""

    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(4, 4, 3, padding=1, groups=4, bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.seq = nn.Conv1d(4, 3, 3)
        self.bn1 = nn.BatchNorm1d(3)

    def forward(self, x):
        return self.bn1(self.seq(self.bn(self.dw(x)).flatten(2)))


FLOAT64_HINT = (" This model is in float64: a module or tensor you build (nn.Conv2d(...), torch.zeros(n)) is float32 "
                "on the CPU whatever the model is. Start from copy.deepcopy(conv), or give what you build the conv's "
                "dtype and device.")


def fold_cases_always() -> list[FoldCase]:
    """Checked on every run, the grader's too: a transposed conv before a batch norm (left, or folded correctly), a
    model in float64, a batch norm whose conv is not the node before it, a depthwise conv and a Conv1d → BatchNorm1d
    (left, or folded correctly), and a batch-norm module called twice."""
    with seeded(16):
        x = (torch.randn(2, 3, 4, 4),)
        doubles = randomize_bn(nn.Sequential(nn.Conv2d(3, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4)), 31).double()
        x4 = (torch.randn(2, 4, 4, 4),)
    return [fold_case("a model with a ConvTranspose2d → batch norm (the exercise folds Conv2d only; a transposed conv's "
                      "weight holds its output channels in dim 1), then a Conv2d → batch norm", randomize_bn(built(17,
                      TransposedConvBN), 18), x, (0, 1)),
            fold_case("a conv → batch norm in float64 (model.double())", doubles, (x[0].double(),), 0, FLOAT64_HINT),
            fold_case("a model whose batch norm reads a conv that is not the node just before it (another conv runs in "
                      "between): the conv to fold is the batch norm's input, node.args[0], not node.prev",
                      randomize_bn(built(19, ConvNotBefore), 20), x, 0),
            fold_case("a model with a depthwise conv (groups=4) → BatchNorm2d, then a Conv1d → BatchNorm1d (the "
                      "exercise folds BatchNorm2d after Conv2d; a fold that takes Conv1d too must do it right)",
                      randomize_bn(built(37, DepthwiseThenOneD), 38), x4, (0, 1), FOLD_SHAPE_HINT),
            fold_case("a model that calls one batch-norm module twice, after a conv and after a ReLU, and returns the "
                      "conv → batch norm's output inside a tuple", randomize_bn(built(32, SharedBN), 33), x, 1,
                      SHARED_BN_HINT)]


def fold_cases() -> list[FoldCase]:
    with seeded(4):
        ins = (torch.randn(2, 3, 8, 8),), (torch.randn(4),), (torch.randn(1, 2, 5, 5),), (torch.randn(3, 2, 6, 6),)
        cnn, one_conv = randomize_bn(ConvBNNet(), 5), nn.Sequential(nn.Conv2d(2, 3, 3))
        tiny_var = small_variances(randomize_bn(ConvBNNet(), 6), eps=1e-2, seed=7)
        batch_stats = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4, track_running_stats=False))
        training = randomize_bn(StaysInTraining(), 8)
        shared, shared_in = randomize_bn(SharedConv(), 9), (torch.randn(2, 3, 5, 5),)
    return [fold_case("a CNN with two foldable conv → batch-norm pairs (one conv dilated, with reflect padding, its batch "
                      "norm's output read twice) and one conv read twice", cnn, ins[0], 1),
            fold_case("the empty graph (it returns its input)", Identity(), ins[1], 0),
            fold_case("a graph of one Conv2d (nothing to fold)", one_conv, ins[2], 0),
            fold_case("a model with one conv module called twice, each call into its own batch norm (the second with "
                      "affine=False), and a batch norm after a ReLU", shared, shared_in, 1),
            fold_case("the same CNN with eps=0.01 and running variances of the same order", tiny_var, ins[0], 1),
            fold_case("a conv → batch norm that keeps no running statistics (track_running_stats=False: it normalizes "
                      "with each batch's own statistics, so it is not a fixed map)", batch_stats, ins[3], 1, BATCH_STATS_HINT),
            fold_case("a conv → batch norm left in training mode (bn.training is True: it normalizes with each batch's "
                      "own statistics)", training, ins[3], 1, TRAINING_HINT)]


@register("02.fold_conv_bn", points=3, exercise="2c", title="conv + batch-norm folding for inference, checked numerically",
          cases=fold_cases)
def _fold_conv_bn(ctx: Context, cases: list[FoldCase]) -> str:
    for case in [*cases, *fold_cases_always()]:
        got = pass_on_case(ctx, "fold_conv_bn", case.model, case.inputs, case.about, case.hint)
        fail_if(fold_problems(got, case.want, case.about, case.bn_left, reveal=ctx.reveal, hint=case.hint))
    return ("the foldable pairs are folded, a conv that another node also reads is not, outputs agree within 1e-4 and "
            "the model is untouched")


# ---------------------------------------------------------------- 2d: dead code and constants
@dataclass(frozen=True)
class CleanupCase:
    """A pass (remove_dead_code or fold_constants), a model, its inputs and output, the calls that must be left
    ({kind: count}), and how many inputs the graph keeps (None: not checked)."""

    fn_name: str
    about: str
    model: nn.Module
    inputs: tuple
    want: Any
    calls: dict
    placeholders: int | None = None
    hint: str = ""           # the likely cause of the pass raising on this case, added to its message


def cleanup_case(fn_name: str, about: str, model: nn.Module, inputs: tuple, calls: dict,
                 placeholders: int | None = None) -> CleanupCase:
    return CleanupCase(fn_name, about, model.eval(), inputs, output_of(model, inputs), dict(calls), placeholders)


def cleanup_problems(p: dict, fn_name: str, want, about: str, want_calls: Counter, placeholders: int | None = None,
                     reveal: bool = True) -> list[str]:
    """The pass keeps the outputs and the in-place calls, leaves exactly the calls it should, and keeps every input."""
    if p["returned"] == "GraphModule" and not p.get("removed_inputs") and p["in_place"] < p["in_place_before"]:
        return [f"on {about}, {fn_name} removed a call that changes a tensor in place (a method or function whose name "
                "ends in _, or inplace=True): nothing reads its result, but the tensor it changes is read later, so it "
                "has a side effect and must stay."]
    problems = pass_problems(p, fn_name, want, about, SAME, reveal)
    if problems and fn_name == "fold_constants" and p.get("shared_new_attrs") and "computes something else" in problems[0]:
        return [problems[0] + " Several of the get_attr nodes your pass added read one and the same new buffer: give each "
                "folded constant a name of its own (register_buffer under a name that already holds a buffer replaces "
                "that buffer without a word, so two constants computed by the same op end up sharing one value)."]
    if problems:
        return problems
    if p.get("new_parameters"):
        return [f"on {about}, {fn_name} kept what it computed as nn.Parameters ({len(p['new_parameters'])} new): an "
                "optimizer would train them and they would count as the model's weights; a folded constant is a buffer "
                "(register_buffer)."]
    if p.get("loose_constants"):
        return [f"on {about}, {fn_name} kept what it computed as plain attributes of the module "
                f"({len(p['loose_constants'])}), not buffers: a plain tensor attribute is not in the state_dict and "
                "model.to(device) leaves it behind. Keep each folded value with gm.register_buffer(name, value)."]
    if p.get("grad_constants"):
        return [f"on {about}, {fn_name} kept buffers that require grad ({len(p['grad_constants'])}): each was computed "
                "with autograd on, or is a parameter itself (an op that changes nothing, such as .float() on a float "
                "parameter, returns the parameter), so it is still tied to the parameters it came from (a backward "
                "through the folded model would reach them). Compute the constants under torch.no_grad(), and keep "
                "value.detach()."]
    if p.get("unread_buffers"):
        return [f"on {about}, {fn_name} registered {len(p['unread_buffers'])} buffer(s) that no node of the folded graph "
                "reads: they are saved in the state_dict and moved by .to() for nothing. Keep a buffer only for a constant "
                "that a node which is not itself folded (or the output) reads."]
    if fn_name == "remove_dead_code" and p.get("dead_attrs"):
        return [f"on {about}, {p['dead_attrs']} get_attr node(s) that nothing reads are still in the graph: a get_attr "
                "is dead code too once the calls that read it are gone (only placeholders and the output always stay)."]
    got = call_kinds(p["kinds"])
    if got != want_calls:
        extra, missing = got - want_calls, want_calls - got
        parts = []
        name = (lambda c: ", ".join(f"{k} ×{v}" for k, v in sorted(c.items()))) if reveal else (lambda c: f"{sum(c.values())} call(s)")
        if extra:
            parts.append("still there, but should be gone: " + name(extra))
        if missing:
            parts.append("gone, but should still be there: " + name(missing))
        impure = (" Among them is a call that node.is_impure() says must stay (an assertion such as torch._assert or "
                  "torch._assert_async returns nothing anyone reads, and acts all the same): ask node.is_impure(), not "
                  "a list of functions you know." if fn_name == "remove_dead_code" and p["impure"] < p["impure_before"] else "")
        out_of_place = (" Among those still there is a call whose inplace argument is False (F.relu(x) is traced with "
                        "inplace=False; nn.ReLU() and nn.Dropout() have inplace=False): it works out of place and changes "
                        "nothing, so it is dead code when nothing reads it. Only inplace=True makes a side effect."
                        if fn_name == "remove_dead_code" and extra and p.get("unread_out_of_place") else "")
        return [f"on {about}, the calls left in the graph are wrong; " + "; ".join(parts) + "." + impure + out_of_place]
    if placeholders is not None and sum(op == "placeholder" for op, _ in p["kinds"]) != placeholders:
        return [f"on {about}, an input (placeholder) was removed: the graph's signature must not change, even for an unused input."]
    return []


class DeadNet(nn.Module):
    """A dead chain through a Linear and a parameter, in-place calls whose results nobody reads (methods, a function,
    a keyword inplace=True, the modules nn.ReLU, nn.LeakyReLU and nn.ELU with inplace=True), torch._assert and
    torch._assert_async (impure: they return nothing), and an unused input."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.act = nn.ReLU(inplace=True)
        self.leaky = nn.LeakyReLU(0.1, inplace=True)
        self.elu = nn.ELU(inplace=True)
        self.gain = nn.Parameter(torch.full((4,), 0.5))          # read by the dead chain only

    def forward(self, x, unused):
        t = x * 1.5
        t.add_(1)
        t.clamp_(-2, 2)
        u = x * 2
        self.act(u)                                            # changes u in place; the result itself is unread
        v = x - 1
        torch.relu_(v)                                         # in place, written as a function
        self.elu(v)
        w = x * 3
        F.leaky_relu(w, 0.2, inplace=True)                     # in place by keyword
        self.leaky(w)
        torch._assert(x.abs().sum() >= 0, "a check the graph must keep")
        torch._assert_async((x > -100).all())
        dead = (self.lin(x) * self.gain).sin().cos()  # noqa: F841 (dead code, on purpose)
        return t.relu() + u + v + w


class ConstNet(nn.Module):
    """Constants from two parameters (a two-input op, a list input, a keyword argument, a node named `to` like a
    method of nn.Module, an int from .size()), random ops, and the live computation.

    (symbolic_trace computes expressions on *buffers* while tracing, so the constants here come from parameters.)
    """

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4))
        self.b = nn.Parameter(torch.randn(4), requires_grad=False)

    def forward(self, x):
        scale = (self.w.t() @ self.w).tanh()
        shift = self.b * 2 + self.b
        both = F.normalize(torch.stack([self.b, shift]), dim=0).sum(0).to(torch.float32)   # a node named `to`
        noise = (torch.rand_like(self.b) + self.b.sigmoid().bernoulli()) * 0
        return x.view(-1, self.b.size(0)) @ scale + shift + noise + both          # .size(): an int, not a tensor


class SubmoduleConst(nn.Module):
    """A constant from a submodule's parameter (a dotted get_attr target, fc.weight), a parameter through a .float()
    that changes nothing (it returns the parameter itself), constants computed from values that are not tensors (the
    tuple of a chunk, the int of a .size()), and an in-place add_ on a live value, its result unread."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.w = nn.Parameter(torch.randn(4))

    def forward(self, x):
        t = x * 2
        t.add_(1)
        halves = self.fc.weight.chunk(2, dim=0)                          # a tuple of two constant tensors
        gain = (halves[0] - halves[1]).sum(0) * self.w.view(self.fc.weight.size(1))     # .size(1): a constant int
        return t @ self.fc.weight.t().tanh() + self.w.float() + gain


class HandBuilt(nn.Module):
    """A model whose graph is built by hand (`graph_module`), with nodes no trace writes; it travels to the learner's
    kernel as this class (a GraphModule would be traced again when unpickled, and lose them)."""

    def graph_module(self) -> fx.GraphModule:
        raise NotImplementedError


class DunderCalls(HandBuilt):
    """x.__add__(1) and x.__mul__(2) computed and never read (dunder methods: two underscores at the end, no side
    effect), an in-place x.mul_(1), and the live x.relu()."""

    def forward(self, x):
        x.mul_(1)
        return x.relu()

    def graph_module(self) -> fx.GraphModule:
        g = fx.Graph()
        x = g.placeholder("x")
        g.call_method("__add__", (x, 1))
        g.call_method("__mul__", (x, 2))
        g.call_method("mul_", (x, 1))
        g.output(g.call_method("relu", (x,)))
        return fx.GraphModule(nn.Module(), g)


class RepeatedInPlace(nn.Module):
    """The same in-place method twice and the same in-place function twice, their results unread: the second node of
    each is named add__1 or relu__1 (a rule that reads node.name, not the target, misses them)."""

    def forward(self, x):
        t = x * 2
        t.add_(1)
        t.add_(1)
        u = x - 1
        torch.relu_(u)
        torch.relu_(u)
        return t + u


class InPlaceOnConstant(nn.Module):
    """A value computed from a parameter alone, then changed in place (g.add_(1)) before it is read: folded into a
    buffer, the add_ would change that buffer on every call. Beside it, two constants computed by the same op (two
    sines, each read by a live node: a buffer named after the op would serve both) and a constant the graph returns
    as it is (its reader is the output node)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4))

    def forward(self, x):
        g = self.w * 2
        g.add_(1)
        return (x + g + self.w.sin()) * (self.w * 3).sin(), self.w.cos() * 2


class UnreadNotInPlace(nn.Module):
    """Calls that take an inplace argument and work out of place, their results unread: F.relu(x) (traced with
    inplace=False), an nn.ReLU() and an nn.Dropout() module (inplace=False); x.log_softmax(-1), an underscore
    inside its name, not at its end; and a Linear named `in_` called on x times a parameter named `lambda_` (names with
    a trailing underscore, Python's way around a keyword, that are a module and a parameter, not in-place calls). They
    change nothing: dead code."""

    def __init__(self):
        super().__init__()
        self.act = nn.ReLU()
        self.drop = nn.Dropout(0.25)
        self.in_ = nn.Linear(4, 4)
        self.lambda_ = nn.Parameter(torch.ones(4))

    def forward(self, x):
        F.relu(x - 1)
        self.act(x)
        self.drop(x * 2)
        x.log_softmax(-1)
        self.in_(x * self.lambda_)
        return x.sin()


TRAILING_NAMES_HINT = (" The trailing-underscore rule is about what a call does, so it reads the names of functions and "
                       "methods (call_function, call_method targets); a submodule or a parameter may be named with a "
                       "trailing underscore too (in_, lambda_: Python's way around a keyword), and calling or reading it "
                       "changes nothing in place.")


class MaskedConstants(nn.Module):
    """Constants that are not float: a boolean mask (w > 0), read by two live nodes, and an integer index
    (w.argsort()). Folded, each keeps its dtype: torch.where takes a boolean condition, indexing an integer index."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4))

    def forward(self, x):
        mask = self.w > 0
        return torch.where(mask, x, -x)[:, self.w.argsort()] + mask


class ConstTraps(nn.Module):
    """A constant read from a plain tensor attribute (k: traced as a get_attr of a tensor constant); a constant changed in place through a view (t[:2].mul_(0.5)); a Dropout module called on a parameter (a call_module:
    not a candidate); a random method on a parameter (p.bernoulli(), times 0); and torch.poisson(p), times 0: a random call
    that node.is_impure() knows and is_random's lists do not hold. (symbolic_trace computes what reads buffers while
    it traces: parameters it records.)"""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4))
        self.p = nn.Parameter(torch.full((4,), 0.5), requires_grad=False)
        self.k = torch.randn(4)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        t = self.w * 2
        t[:2].mul_(0.5)
        return x + t + self.drop(self.w) + self.w * self.k + self.p.bernoulli() * 0 + torch.poisson(self.p) * 0


CONST_TRAPS_HINT = (" Only call_function and call_method nodes are candidates (a module call stays: a module can hold "
                    "state or draw random numbers); a random method (is_random) stays, and so does a call with side effects "
                    "(has_side_effects: node.is_impure() knows random calls that is_random's lists do not hold, such as "
                    "torch.poisson(p)); a value changed in place, even through a view of it (t[:2].mul_), stays with "
                    "what it is a view of.")


DTYPE_HINT = (" Its constants are a boolean mask and an integer index: a folded value keeps the dtype it was computed "
              "with (torch.where needs a boolean condition, indexing an integer index).")


class SharedDead(nn.Module):
    """One Linear called twice, one call dead (its module stays: the live call needs it); a dead computation on that
    Linear's weight (a get_attr with a dotted target, fc.weight, whose parameter the live call still needs); and two
    outputs, the second a list (the output node's args[0] is a tuple, not a node)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        self.fc(x * 2).exp()
        self.fc.weight.t().sum()
        h = self.fc(x)
        return h.sin(), [h, x]


SHARED_DEAD_HINT = (" Here one Linear is called twice and only one call is dead, a dead node reads that Linear's weight "
                    "(fc.weight), and the graph returns a tuple (the output node's args[0] is a tuple of nodes, not a "
                    "node: its inputs are output.all_input_nodes). Erase the dead nodes only: a module or parameter that "
                    "a dead node used may still be used by a live one (GraphModule.delete_all_unused_submodules knows which).")


class ConstKeywords(nn.Module):
    """A constant computed with a constant keyword argument (torch.sub(w.exp(), other=w)) and read by a live node by
    keyword (torch.mul(x, other=c)); another read by a live node from inside a list (torch.cat([x, s.unsqueeze(0)]));
    and a value computed from the parameter alone, then changed in place by a function (torch.sigmoid_(g)), not a
    method: folded, the sigmoid_ would change that buffer again at every call."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4))

    def forward(self, x):
        c = torch.sub(self.w.exp(), other=self.w)
        s = self.w.sin()
        g = self.w * 3
        torch.sigmoid_(g)
        return torch.mul(x, other=c) + torch.cat([x, s.unsqueeze(0)]).sum(0) + g


CONST_KEYWORDS_HINT = (" Here a constant is computed with a keyword argument that is a node itself (other=w), and "
                       "constants are read by keyword (other=c) and from inside a list: evaluate with the values of the "
                       "nodes in args and kwargs, at any depth (fx.node.map_arg), and rewire every reader with "
                       "replace_all_uses_with. A value that a call changes in place stays unfolded, whether that call is "
                       "a method (g.mul_()) or a function (torch.sigmoid_(g)): ask has_side_effects.")


class ListsAndKeywords(nn.Module):
    """Nodes read only from inside a list (torch.cat([x, x * c])) or by keyword (torch.sub(c.sin(), other=joined)),
    beside a dead x.cos(): a pass that looks at the positional arguments alone misses those readers and inputs (a live
    node looks dead; a call on a live value looks constant)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4))

    def forward(self, x):
        c = self.w.exp()
        x.cos()
        joined = torch.cat([x, x * c])
        return torch.sub(c.sin(), other=joined)


LISTS_HINT = (" Here nodes are read from inside a list and by keyword only: node.users holds every reader and "
              "node.all_input_nodes every input, wherever it sits in the arguments (node.args alone misses them).")


def cleanup_cases_always(fn_name: str) -> list[CleanupCase]:
    """Checked on every run, the grader's too: in-place calls repeated and unread calls that change nothing (dead code),
    an in-place call on a value computed from parameters alone and constants that are not float (constant folding), and
    nodes read only from inside a list or by keyword (both)."""
    with seeded(14):
        x = (torch.randn(2, 4),)
    if fn_name == "remove_dead_code":
        return [cleanup_case("remove_dead_code", "a model with t.add_(1) twice and torch.relu_(u) twice, their results "
                             "unread (the second node of each is named add__1 or relu__1)", RepeatedInPlace(), x,
                             {"mul": 1, "add_": 2, "sub": 1, "relu": 2, "add": 1}, placeholders=1),
                replace(cleanup_case("remove_dead_code", "a model whose unread calls take an inplace argument and work "
                                     "out of place: F.relu(x - 1) (traced with inplace=False), an nn.ReLU() and an "
                                     "nn.Dropout() module (their inplace is False), an unread x.log_softmax(-1) (an "
                                     "underscore inside the name, not at its end), and an unread call of a Linear named "
                                     "in_ on x times a parameter named lambda_: they change nothing, so they are dead code",
                                     built(36, UnreadNotInPlace), x, {"sin": 1}, placeholders=1), hint=TRAILING_NAMES_HINT),
                replace(cleanup_case("remove_dead_code", "a model whose nodes are read only from inside a list "
                                     "(torch.cat([x, x * c])) or by keyword (torch.sub(c.sin(), other=joined)), beside a "
                                     "dead x.cos()", built(25, ListsAndKeywords), x,
                                     {"exp": 1, "mul": 1, "cat": 1, "sin": 1, "sub": 1}, placeholders=1), hint=LISTS_HINT),
                replace(cleanup_case("remove_dead_code", "a model that calls one Linear twice, one call dead, computes "
                                     "something dead from that Linear's weight (fc.weight), and returns a tuple (a "
                                     "tensor and a list)", built(34, SharedDead), x, {"Linear": 1, "sin": 1},
                                     placeholders=1), hint=SHARED_DEAD_HINT)]
    return [cleanup_case("fold_constants", "a model with g = w * 2 from a parameter, then g.add_(1) in place before g is "
                         "read; two constants computed by the same op (w.sin() and (w * 3).sin(), each read by a live "
                         "node); and a constant w.cos() * 2 that the graph returns as it is (a second output)",
                         built(15, InPlaceOnConstant), x, {"mul": 2, "add_": 1, "add": 2}),
            replace(cleanup_case("fold_constants", "a model whose constants are a boolean mask (w > 0, read by two live "
                                 "nodes) and an integer index (w.argsort())", built(23, MaskedConstants), x,
                                 {"where": 1, "neg": 1, "getitem": 1, "add": 1}), hint=DTYPE_HINT),
            replace(cleanup_case("fold_constants", "a model whose live values reach a call from inside a list "
                                 "(torch.cat([x, x * c])) or by keyword (torch.sub(c.sin(), other=joined)), c = w.exp() a "
                                 "constant", built(25, ListsAndKeywords), x, {"mul": 1, "cat": 1, "sub": 1}), hint=LISTS_HINT),
            replace(cleanup_case("fold_constants", "a model with a constant from a plain tensor attribute (w * k), a constant changed in place through a view (t = w * 2; t[:2].mul_(0.5)), "
                                 "a Dropout module called on a parameter, a random method on a parameter "
                                 "(p.bernoulli()), and torch.poisson(p) (random, though not in is_random's lists)",
                                 built(26, ConstTraps), x,
                                 {"mul": 3, "getitem": 1, "mul_": 1, "add": 5, "Dropout": 1, "bernoulli": 1, "poisson": 1}),
                    hint=CONST_TRAPS_HINT),
            replace(cleanup_case("fold_constants", "a model with a constant computed with a constant keyword argument "
                                 "(torch.sub(w.exp(), other=w)) and read by keyword (torch.mul(x, other=c)), and another "
                                 "read from inside a list (torch.cat([x, s.unsqueeze(0)])), and g = w * 3 changed in "
                                 "place by torch.sigmoid_(g) before it is read", built(35, ConstKeywords), x,
                                 {"mul": 2, "sigmoid_": 1, "cat": 1, "sum": 1, "add": 2}), hint=CONST_KEYWORDS_HINT)]


def dead_code_cases() -> list[CleanupCase]:
    with seeded(6):
        dead, dead_ins = DeadNet(), (torch.randn(3, 4), torch.randn(2))
        dunder_ins = (torch.randn(5),)
    return [cleanup_case("remove_dead_code", "a model with a dead chain through a Linear and a parameter, in-place calls "
                         "whose results are unread (t.add_, t.clamp_, torch.relu_, F.leaky_relu(inplace=True), nn.ReLU, "
                         "nn.LeakyReLU and nn.ELU with inplace=True), torch._assert, torch._assert_async and an unused "
                         "input", dead, dead_ins,
                         {"mul": 3, "add_": 1, "clamp_": 1, "relu": 3, "sub": 1, "ELU": 1, "leaky_relu": 1, "LeakyReLU": 1,
                          "add": 3, "abs": 1, "sum": 1, "ge": 1, "_assert": 1, "gt": 1, "all": 1, "_assert_async": 1},
                         placeholders=2),
            cleanup_case("remove_dead_code", "a hand-built graph whose unread calls are the dunder methods __add__ and "
                         "__mul__ (two underscores at the end: no side effect), beside an in-place mul_", DunderCalls(),
                         dunder_ins, {"mul_": 1, "relu": 1}, placeholders=1)]


def fold_constants_cases() -> list[CleanupCase]:
    with seeded(6):
        const, const_ins = ConstNet(), (torch.randn(3, 4),)
        nested, nested_ins = SubmoduleConst(), (torch.randn(2, 4),)
    return [cleanup_case("fold_constants", "a model with constants computed from parameters (through a list, a keyword "
                         "argument, .to() and .size()), and random ops", const, const_ins,
                         {"rand_like": 1, "bernoulli": 1, "mul": 1, "matmul": 1, "add": 4, "view": 1, "size": 1}),
            cleanup_case("fold_constants", "a model with a constant from a submodule's parameter (fc.weight), a parameter "
                         "through a .float() that changes nothing, constants computed from a chunk (a tuple) and from a "
                         ".size() (an int), and an in-place t.add_(1) whose result is unread",
                         nested, nested_ins, {"mul": 1, "add_": 1, "matmul": 1, "add": 2})]


def judge_cleanup(ctx: Context, cases: list[CleanupCase]) -> None:
    """Run each case's pass (remove_dead_code or fold_constants) on its model; fail on the first problem."""
    for case in cases:
        got = pass_on_case(ctx, case.fn_name, case.model, case.inputs, case.about, case.hint)
        problems = cleanup_problems(got, case.fn_name, case.want, case.about, Counter(case.calls), case.placeholders,
                                    reveal=ctx.reveal)
        fail_if([problems[0] + case.hint, *problems[1:]] if problems else [])


@register("02.dead_code", points=2, exercise="2d", title="dead-code elimination that keeps side effects and inputs",
          cases=dead_code_cases)
def _dead_code(ctx: Context, cases: list[CleanupCase]) -> str:
    judge_cleanup(ctx, [*cases, *cleanup_cases_always("remove_dead_code")])
    return "dead code goes, dead chains in one call; in-place calls and unused inputs stay"


@register("02.fold_constants", points=3, exercise="2e", title="constant folding: parameter-only values computed once, "
          "random ops left alone", cases=fold_constants_cases)
def _fold_constants(ctx: Context, cases: list[CleanupCase]) -> str:
    judge_cleanup(ctx, [*cases, *cleanup_cases_always("fold_constants")])
    return "constants are computed once and kept as buffers; random ops are not folded, in-place calls stay"


# ---------------------------------------------------------------- 3: shapes and cost
@dataclass(frozen=True)
class CostCase:
    """A model and its inputs (captured by symbolic_trace, or by torch.export when `export`), the ridge, and the
    answers: {node name: {flops, bytes}}, FlopCounterMode's total, how messages name each node, and what each node's
    `target` may say (target_truth)."""

    about: str
    model: nn.Module
    inputs: tuple
    ridge: float
    truth: dict
    flops: int
    labels: dict
    export: bool = False
    targets: dict = field(default_factory=dict)
    hint: str = ""           # the likely cause of node_costs raising on this case, added to its message


def capture(model: nn.Module, inputs: tuple, export: bool = False) -> fx.GraphModule:
    """The model's graph: symbolic_trace, or torch.export's ATen graph."""
    model.eval()
    return torch.export.export(model, inputs).module() if export else fx.symbolic_trace(model)


def flop_counter_total(gm: nn.Module, inputs: tuple) -> int:
    """FlopCounterMode's count for one forward pass: the independent total."""
    from torch.utils.flop_counter import FlopCounterMode

    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        gm(*inputs)
    return int(counter.get_total_flops())


def cost_case(about: str, model: nn.Module, inputs: tuple, ridge: float, truth_of: Callable[[fx.GraphModule, tuple], dict],
              export: bool = False) -> CostCase:
    """The case of `model`: its costs by `truth_of(gm, inputs)`, FlopCounterMode's total, and its nodes' labels."""
    gm = capture(model, inputs, export)
    truth = truth_of(gm, inputs)
    truth = {n.name: truth[n.name] for n in gm.graph.nodes if n.name in truth}       # in graph order
    targets = {n.name: target_truth(n) for n in gm.graph.nodes if n.name in truth}
    return CostCase(about, model, inputs, ridge, truth, flop_counter_total(gm, inputs), node_labels(gm), export, targets)


def probe_costs(learner: Learner, model: nn.Module, inputs: tuple, ridge: float, export: bool) -> dict:
    """node_costs on the model's graph: its rows as plain data, and which nodes lack tensor_meta afterwards."""
    gm = capture(model, inputs, export)
    rows = learner.call("node_costs", gm, inputs, ridge)
    with torch.no_grad():
        interp = fx.Interpreter(gm)
        interp.run(*inputs)
        tensor_nodes = {n.name for n, v in interp.env.items()
                        if any(isinstance(t, torch.Tensor) for t in torch.utils._pytree.tree_leaves(v))}
    no_meta = [n.name for n in gm.graph.nodes if n.name in tensor_nodes and "tensor_meta" not in n.meta]
    if not isinstance(rows, list):
        return {"rows": f"<{type(rows).__name__}>", "no_meta": no_meta}
    plain = [{k: (v if isinstance(v, (bool, str)) else f"<{type(v).__name__}, not text>" if k == "target"
                  else float(v) if isinstance(v, (int, float)) else str(v)) for k, v in r.items()}
             if isinstance(r, dict) else str(r) for r in rows]
    # FLOPs and bytes are counts: integers (an int, or an integer type such as numpy's), never floats
    not_int = sorted({k for r in rows if isinstance(r, dict) for k in ("flops", "bytes")
                      if k in r and (isinstance(r[k], bool) or not isinstance(r[k], numbers.Integral))})
    return {"rows": plain, "no_meta": no_meta, "not_int": not_int}


def bytes_hint(got: float, want: int) -> str:
    """The likely cause of a byte count off by a telling amount: nothing counted, the wrong unit, elements for bytes."""
    if not want or isinstance(got, bool) or not isinstance(got, (int, float)):
        return ""
    if got == 0:
        return (" Your count says it moves nothing: a real compiler makes views free, but the rule here counts every call "
                "node, views and reshapes included (flatten, view, transpose, getitem ...).")
    for factor, unit in ((1000, "kB"), (1024, "KiB"), (10**6, "MB"), (2**20, "MiB")):
        if got < want and abs(got * factor - want) < factor:
            return f" Your count is about {factor} times smaller than the rule's: report bytes, not {unit}."
    if got * 4 == want:
        return (" Your count is 4 times smaller than the rule's, as if it counted elements of float32 tensors: bytes are "
                "elements × dtype.itemsize.")
    return ""


def cost_problems(probe: dict, truth: dict[str, dict], ridge: float, about: str, describe=lambda name: f"node '{name}'",
                  reveal: bool = True, targets: dict | None = None) -> list[str]:
    """Compare node_costs rows with the truth {name: {flops, bytes}} and each row's target with `targets` (target_truth
    per node); `describe` names a node without giving inputs away."""
    num = (lambda v: f" {v:g}") if reveal else (lambda v: "")
    rows = probe["rows"]
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        return [f"node_costs should return a list of dicts; it returned {str(rows)[:80]}."]
    if probe["no_meta"]:
        return [f"on {about}, {len(probe['no_meta'])} node(s) have no tensor_meta after node_costs "
                f"(e.g. {describe(probe['no_meta'][0])}): run ShapeProp on gm itself, so every node is annotated."]
    by_name = {r.get("name"): r for r in rows}
    extra = [n for n in by_name if n not in truth]
    if len(rows) != len(truth) or extra:
        return [f"on {about}, expected one row per call_function, call_method and call_module node ({len(truth)}); got {len(rows)}."]
    if [r.get("name") for r in rows] != list(truth):
        return [f"on {about}, your rows are not in graph order: one row per call node in the order of gm.graph.nodes "
                "(sort a copy of them when you print a table, not the list node_costs returns)."]
    for name, want in truth.items():
        row = by_name.get(name)
        if row is None:
            return [f"on {about}, {describe(name)} has no row."]
        for key in ("op", "target", "flops", "bytes", "intensity", "memory_bound"):
            if key not in row:
                return [f"rows need name, op, target, flops, bytes, intensity and memory_bound; {describe(name)}'s row "
                        f"lacks {key}."]
        if targets and name in targets and not _target_ok(row["target"], targets[name]):
            return [f"on {about}, {describe(name)} has target {row['target']!r}: as in graph_table, {TARGET_RULE}"]
        if row["flops"] != want["flops"]:
            return [f"on {about}, {describe(name)} has flops {row['flops']:g}, expected{num(want['flops'])} "
                    "(2 × output elements × the inner dimension for a Linear or matmul, × weight elements per output channel "
                    "for a conv; 0 for everything else)."]
        if row["bytes"] != want["bytes"]:
            by_rule = f"{want['bytes']:g} by the rule" if reveal else "another number by the rule"
            return [f"on {about}, {describe(name)} moves {row['bytes']:g} bytes by your count, {by_rule} "
                    "(every distinct input node's tensors + a module's parameters and buffers + the output's tensors)."
                    + bytes_hint(row["bytes"], want["bytes"])]
        intensity = want["flops"] / want["bytes"] if want["bytes"] else 0.0
        if not math.isclose(row["intensity"], intensity, rel_tol=1e-6, abs_tol=1e-12):
            return [f"on {about}, {describe(name)} has intensity {row['intensity']:.4g}; it should be flops / bytes."]
        if bool(row["memory_bound"]) != (intensity < ridge):
            return [f"on {about}, {describe(name)} has memory_bound {row['memory_bound']!r}; with its intensity and the ridge "
                    f"{ridge:g} it should be {intensity < ridge} (intensity < ridge)."]
    if probe.get("not_int"):
        return [f"on {about}, {' and '.join(probe['not_int'])} should be integers (counts of FLOPs and of bytes); yours "
                "are not ints (a float such as 2.0 * ..., or a tensor): compute them with ints (math.prod of the shape, "
                "dtype.itemsize)."]
    total = sum(r["flops"] for r in rows)
    if total != probe["flop_counter"]:
        return [f"on {about}, your FLOPs add up to {total:g}, FlopCounterMode counts{num(probe['flop_counter'])}."]
    return []


class CostNet(nn.Module):
    """A conv with parameters, a two-input add, a flatten, a Linear and a matmul with a parameter."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(512, 16)
        self.proj = nn.Parameter(torch.randn(16, 4))

    def forward(self, x, y):
        h = F.relu(self.conv(x) + y)
        return self.fc(torch.flatten(h, 1)) @ self.proj


def cost_net_truth(gm: fx.GraphModule | None = None, inputs: tuple | None = None) -> dict[str, dict]:
    """CostNet's costs worked out by hand from its sizes (batch 2, 3×8×8 images, float32); the arguments, unused,
    make it a `truth_of` for cost_case."""
    f = 4
    x, h, fc_out, out = 2 * 3 * 8 * 8, 2 * 8 * 8 * 8, 2 * 16, 2 * 4
    conv_params, fc_params, proj = 8 * 3 * 3 * 3 + 8, 512 * 16 + 16, 16 * 4
    return {
        "conv": {"flops": 2 * h * 27, "bytes": f * (x + conv_params + h)},
        "add": {"flops": 0, "bytes": f * 3 * h},
        "relu": {"flops": 0, "bytes": f * 2 * h},
        "flatten": {"flops": 0, "bytes": f * 2 * h},
        "fc": {"flops": 2 * fc_out * 512, "bytes": f * (h + fc_params + fc_out)},
        "matmul": {"flops": 2 * out * 16, "bytes": f * (fc_out + proj + out)},
    }


class GroupedSquare(nn.Module):
    """A grouped conv without bias, a square (one input read twice) and a mean: run in bfloat16."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 6, 3, groups=2, bias=False)

    def forward(self, x):
        h = self.conv(x)
        return (h * h).mean()


def grouped_square_truth(gm: fx.GraphModule | None = None, inputs: tuple | None = None) -> dict[str, dict]:
    """GroupedSquare's costs by hand (one 4×5×5 image, bfloat16: 2 bytes per element). Each of the 6 output channels
    sees 4 / 2 = 2 input channels × 3 × 3 = 18 weights; h * h reads its one input node once."""
    f, x, h, weights = 2, 4 * 5 * 5, 6 * 3 * 3, 6 * 2 * 3 * 3
    return {"conv": {"flops": 2 * h * 18, "bytes": f * (x + weights + h)},
            "mul": {"flops": 0, "bytes": f * (h + h)},
            "mean": {"flops": 0, "bytes": f * (h + 1)}}


class FunctionalCosts(nn.Module):
    """F.conv2d with a parameter, a batch norm (buffers besides its parameters), a chunk into a tuple, the method
    x.matmul(y) and F.linear."""

    def __init__(self):
        super().__init__()
        self.k = nn.Parameter(torch.randn(4, 2, 3, 3))
        self.bn = nn.BatchNorm2d(4)
        self.w = nn.Parameter(torch.randn(3, 4))

    def forward(self, x):
        h = self.bn(F.conv2d(x, self.k))
        a, b = h.flatten(2).chunk(2, dim=1)
        s = a.matmul(b.transpose(1, 2))
        return F.linear(s.flatten(1), self.w)


def functional_costs_truth(gm: fx.GraphModule | None = None, inputs: tuple | None = None) -> dict[str, dict]:
    """FunctionalCosts's costs by hand (one 2×6×6 image, float32). The conv makes 4×4×4 = 64 elements from 2 × 3 × 3 =
    18 weights per output channel; the batch norm reads 4 weights, 4 biases, 4 running means and 4 running variances
    (float32) and its num_batches_tracked (one int64, 8 bytes); the chunk writes a tuple of two 2×16 halves; the
    matmul makes 2×2 from an inner dimension of 16; the linear makes 3 from 4."""
    f = 4
    x, k, h, half, s, w = 2 * 6 * 6, 4 * 2 * 3 * 3, 4 * 4 * 4, 2 * 16, 2 * 2, 3 * 4
    return {
        "conv2d": {"flops": 2 * h * 18, "bytes": f * (x + k + h)},
        "bn": {"flops": 0, "bytes": f * (h + 16 + h) + 8},
        "flatten": {"flops": 0, "bytes": f * (h + h)},
        "chunk": {"flops": 0, "bytes": f * (h + 2 * half)},
        "getitem": {"flops": 0, "bytes": f * (2 * half + half)},
        "getitem_1": {"flops": 0, "bytes": f * (2 * half + half)},
        "transpose": {"flops": 0, "bytes": f * (half + half)},
        "matmul": {"flops": 2 * s * 16, "bytes": f * (half + half + s)},
        "flatten_1": {"flops": 0, "bytes": f * (s + s)},
        "linear": {"flops": 2 * 3 * 4, "bytes": f * (s + w + 3)},
    }


class SequenceCosts(nn.Module):
    """A Conv1d module and F.conv1d with a parameter, torch.cat of a list that holds one node twice, an input given
    by keyword (torch.sub(c, other=...)), and the matrix-product methods x.bmm(y) and x.mm(w)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 4, 3)
        self.k = nn.Parameter(torch.randn(3, 4, 3))
        self.w = nn.Parameter(torch.randn(9, 5))

    def forward(self, x):
        g = F.conv1d(self.conv(x), self.k)
        c = torch.cat([g, g], dim=2)
        d = torch.sub(c, other=c.mean())
        return d.bmm(d.transpose(1, 2)).flatten(1).mm(self.w)


def sequence_costs_truth(gm: fx.GraphModule | None = None, inputs: tuple | None = None) -> dict[str, dict]:
    """SequenceCosts's costs by hand (a batch of two 2×8 sequences, float32). The Conv1d makes 2×4×6 = 48 elements
    from 2 × 3 = 6 weights per output channel (24 weights and 4 biases), F.conv1d 2×3×4 = 24 from 4 × 3 = 12 (36
    weights); the cat reads its one input node once and writes 2×3×8; the bmm makes 2×3×3 from an inner dimension
    of 8, the mm 2×5 from 9 (a 9×5 weight)."""
    f = 4
    x, h, g, c, e, w = 2 * 2 * 8, 2 * 4 * 6, 2 * 3 * 4, 2 * 3 * 8, 2 * 3 * 3, 9 * 5
    return {
        "conv": {"flops": 2 * h * 6, "bytes": f * (x + 24 + 4 + h)},
        "conv1d": {"flops": 2 * g * 12, "bytes": f * (h + 36 + g)},
        "cat": {"flops": 0, "bytes": f * (g + c)},
        "mean": {"flops": 0, "bytes": f * (c + 1)},
        "sub": {"flops": 0, "bytes": f * (c + 1 + c)},
        "transpose": {"flops": 0, "bytes": f * (c + c)},
        "bmm": {"flops": 2 * e * 8, "bytes": f * (c + c + e)},
        "flatten": {"flops": 0, "bytes": f * (e + e)},
        "mm": {"flops": 2 * 2 * 5 * 9, "bytes": f * (e + w + 2 * 5)},
    }


class TokenCosts(nn.Module):
    """An nn.Embedding of int64 token ids, a Linear on 3-D input, and a .size() call (an int, no tensor) read by a view."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.fc = nn.Linear(4, 3)

    def forward(self, ids):
        return self.fc(self.emb(ids)).view(ids.size(0), -1)


def token_costs_truth(gm: fx.GraphModule | None = None, inputs: tuple | None = None) -> dict[str, dict]:
    """TokenCosts's costs by hand (2×5 int64 token ids: 8 bytes each). The embedding reads its 10×4 table and writes
    2×5×4 floats; the Linear makes 2×5×3 from an inner dimension of 4 (every token is a row: 30 outputs, not 2 × 3);
    .size() reads the ids and writes no tensor; the view reads the Linear's output (and an int) and writes 2×15."""
    f, ids, h, out = 4, 2 * 5 * 8, 2 * 5 * 4, 2 * 5 * 3
    return {"emb": {"flops": 0, "bytes": ids + f * (10 * 4 + h)},
            "fc": {"flops": 2 * out * 4, "bytes": f * (h + 4 * 3 + 3 + out)},
            "size": {"flops": 0, "bytes": ids},
            "view": {"flops": 0, "bytes": f * (out + out)}}


class AtenCosts(nn.Module):
    """The ATen spellings torch.export writes, called directly: aten.conv1d.default with a parameter, a flatten,
    aten.linear.default and aten.mm.default (the sets of part 3 hold them beside the torch functions)."""

    def __init__(self):
        super().__init__()
        self.k = nn.Parameter(torch.randn(2, 1, 3))
        self.w = nn.Parameter(torch.randn(3, 8))
        self.m = nn.Parameter(torch.randn(3, 5))

    def forward(self, x):
        h = torch.ops.aten.conv1d.default(x, self.k)
        return torch.ops.aten.mm.default(torch.ops.aten.linear.default(h.flatten(1), self.w), self.m)


def aten_costs_truth(gm: fx.GraphModule | None = None, inputs: tuple | None = None) -> dict[str, dict]:
    """AtenCosts's costs by hand (a batch of two 1×6 sequences, float32): the conv makes 2×2×4 = 16 elements from 1 × 3
    weights per output channel (a 2×1×3 weight), the linear 2×3 from an inner dimension of 8 (a 3×8 weight), the mm
    2×5 from 3 (a 3×5 weight)."""
    f = 4
    return {"conv1d_default": {"flops": 2 * 16 * 3, "bytes": f * (12 + 6 + 16)},
            "flatten": {"flops": 0, "bytes": f * (16 + 16)},
            "linear_default": {"flops": 2 * 6 * 8, "bytes": f * (16 + 24 + 6)},
            "mm_default": {"flops": 2 * 10 * 3, "bytes": f * (6 + 15 + 10)}}


class ShapeDivided(nn.Module):
    """One Linear called twice (two nodes, each reading the module's weights), its output divided by x.shape[0]: a
    getattr node (it reads x and writes a torch.Size, no tensor), then a getitem node that reads and writes no tensor."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        return self.fc(self.fc(x)) / x.shape[0]


def shape_divided_truth(gm: fx.GraphModule | None = None, inputs: tuple | None = None) -> dict[str, dict]:
    """ShapeDivided's costs by hand (a 4×3 input, float32): each call of the Linear makes 4×3 from an inner dimension of
    3 and reads the whole module (a 3×3 weight and 3 biases), the second call as the first; getattr(x, 'shape') reads x
    and writes no tensor; the getitem reads a torch.Size and writes an int: 0 bytes, so intensity 0 (memory-bound,
    0 < ridge); the division reads the second Linear's output and an int."""
    f, x = 4, 4 * 3
    linear = {"flops": 2 * x * 3, "bytes": f * (x + 3 * 3 + 3 + x)}
    return {"fc": linear, "fc_1": dict(linear),
            "getattr_1": {"flops": 0, "bytes": f * x},
            "getitem": {"flops": 0, "bytes": 0},
            "truediv": {"flops": 0, "bytes": f * (x + x)}}


class GroupedFunctional(nn.Module):
    """F.conv2d with groups=2: its weight holds in_channels / groups = 2 channels per filter, the input 4."""

    def __init__(self):
        super().__init__()
        self.k = nn.Parameter(torch.randn(6, 2, 3, 3))

    def forward(self, x):
        return F.conv2d(x, self.k, groups=2)


def grouped_functional_truth(gm: fx.GraphModule | None = None, inputs: tuple | None = None) -> dict[str, dict]:
    """GroupedFunctional's cost by hand (one 4×5×5 image, float32): 6×3×3 = 54 outputs, each from 2 × 3 × 3 = 18
    weights (the weight's elements per output channel, not the input's 4 channels × 3 × 3)."""
    f, x, k, out = 4, 4 * 5 * 5, 6 * 2 * 3 * 3, 6 * 3 * 3
    return {"conv2d": {"flops": 2 * out * 18, "bytes": f * (x + k + out)}}


GROUPED_HINT = (" A grouped convolution's filter sees in_channels / groups channels: its FLOPs come from the weight's "
                "elements per output channel (weight.shape[1:]), not from the input's channels.")


ZERO_BYTES_HINT = (" One node here moves no tensor (the getitem of x.shape[0] reads a torch.Size and writes an int): it "
                   "moves 0 bytes, and its intensity is 0 (not flops / 0), as the task says.")


def cost_cases_always() -> list[CostCase]:
    """Checked on every run, the grader's too: a node that moves 0 bytes."""
    with seeded(20):
        x, x4 = (torch.randn(4, 3),), torch.randn(1, 4, 5, 5)
    return [replace(cost_case("a model that calls one Linear twice (each call reads the module's weights) and divides by "
                              "x.shape[0] (a getattr node, then a getitem node that reads and writes no tensor: it moves 0 "
                              "bytes)", built(21, ShapeDivided), x, 4.0,
                              shape_divided_truth), hint=ZERO_BYTES_HINT),
            replace(cost_case("a model of one F.conv2d with groups=2 (a weight of 2 channels per filter, an input of 4)",
                              built(36, GroupedFunctional), (x4,), 4.0, grouped_functional_truth), hint=GROUPED_HINT)]


def cost_cases() -> list[CostCase]:
    with seeded(7):
        model, inputs = CostNet(), (torch.randn(2, 3, 8, 8), torch.randn(2, 8, 8, 8))
        grouped, image = GroupedSquare().to(torch.bfloat16), (torch.randn(1, 4, 5, 5, dtype=torch.bfloat16),)
        functional, functional_in = FunctionalCosts(), (torch.randn(1, 2, 6, 6),)
        sequence, sequence_in = SequenceCosts(), (torch.randn(2, 2, 8),)
        tokens, token_ids = TokenCosts(), (torch.randint(0, 10, (2, 5)),)
        aten, aten_in = AtenCosts(), (torch.randn(2, 1, 6),)
    conv = sequence_costs_truth()["conv"]
    return [cost_case("a conv → add → relu → flatten → linear → matmul model", model, inputs, 4.0, cost_net_truth),
            cost_case("a bfloat16 model: a grouped conv (groups=2), then h * h and a mean", grouped, image, 4.0,
                      grouped_square_truth),
            cost_case("a model of F.conv2d, a batch norm (running statistics are buffers), a chunk into a tuple, "
                      "x.matmul(y) and F.linear", functional, functional_in, 4.0, functional_costs_truth),
            cost_case("a model of a Conv1d, F.conv1d, torch.cat([g, g]), torch.sub(c, other=c.mean()), x.bmm(y) and "
                      "x.mm(w), with the ridge exactly at the convolutions' intensity", sequence, sequence_in,
                      conv["flops"] / conv["bytes"], sequence_costs_truth),
            cost_case("a model of an nn.Embedding on int64 token ids, a Linear on its 3-D output, and a view sized by "
                      "ids.size(0)", tokens, token_ids, 4.0, token_costs_truth),
            cost_case("a model of ATen ops called directly, as in an exported graph (aten.conv1d.default, "
                      "aten.linear.default and aten.mm.default on parameters)", aten, aten_in, 4.0, aten_costs_truth)]


@register("02.node_costs", points=3, exercise="3", title="shapes on every node; FLOPs and bytes per node; memory-bound nodes",
          cases=cost_cases)
def _node_costs(ctx: Context, cases: list[CostCase]) -> str:
    for case in [*cases, *cost_cases_always()]:
        with raised_on(ctx, "node_costs", case.about, case.hint):
            got = {**ctx.probe(probe_costs, case.model, case.inputs, case.ridge, case.export, timeout=180),
                   "flop_counter": case.flops}
        describe = (lambda name: f"node '{name}'") if ctx.reveal else (lambda name: case.labels.get(name, "a node"))
        problems = cost_problems(got, case.truth, case.ridge, case.about, describe=describe, reveal=ctx.reveal,
                                 targets=case.targets)
        fail_if([problems[0] + case.hint, *problems[1:]] if problems else [])
    return "every node annotated; FLOPs, bytes and the memory-bound verdicts are right; the total matches FlopCounterMode"


# ---------------------------------------------------------------- 4: the pipeline
class GraderPass:
    """A pass of the grader's own, with the interface the lab defines: name, analyze, apply."""

    name = "grader"

    def analyze(self, gm):
        """What the pass sees in the graph it is given: its node count (a report's analysis must be taken before apply)."""
        return {"nodes": len(gm.graph.nodes)}

    def apply(self, gm):
        return gm


class IdentityPass(GraderPass):
    name = "identity"


class RebuildWithoutDeadCode(GraderPass):
    """Returns a new GraphModule (not the one it got), without the nodes nothing reads (in-place calls stay)."""

    name = "rebuild_without_dead_code"

    def apply(self, gm):
        new = fx.GraphModule(gm, copy.deepcopy(gm.graph))
        new.graph.eliminate_dead_code(is_impure_node=lambda n: torch_side_effects(new, n))
        new.recompile()
        return new


class NoRecompile(GraderPass):
    """Spells x.mean() as torch.mean(x) and does not recompile: the pipeline must."""

    name = "mean_as_function"

    def apply(self, gm):
        for n in gm.graph.nodes:
            if n.op == "call_method" and n.target == "mean":
                n.op, n.target = "call_function", torch.mean
        return gm


class DoubleWeightsInPlace(GraderPass):
    """Doubles the first conv's parameters in place and halves its output: gm computes the same, a shared model does not."""

    name = "double_weights_in_place"

    def apply(self, gm):
        node = next(n for n in gm.graph.nodes if n.op == "call_module" and isinstance(gm.get_submodule(n.target), nn.Conv2d))
        with torch.no_grad():
            for param in gm.get_submodule(node.target).parameters():
                param.mul_(2)
        with gm.graph.inserting_after(node):
            half = gm.graph.call_function(operator.mul, (node, 0.5))
        node.replace_all_uses_with(half, delete_user_cb=lambda user: user is not half)
        return gm


def each_output(gm: fx.GraphModule, change: Callable[[fx.Node], fx.Node]) -> fx.GraphModule:
    """The graph with every tensor it returns (one, or several in a tuple) replaced by change(node), a new node."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    with gm.graph.inserting_before(out):
        out.args = (fx.node.map_arg(out.args[0], change),)
    return gm


class ScaleOutput(GraderPass):
    """Multiplies the output by `factor`: 1 + 1e-7 is within any sane tolerance, 1.01 is not."""

    combine = staticmethod(operator.mul)

    def __init__(self, factor: float, name: str):
        self.factor, self.name = factor, name

    def apply(self, gm):
        return each_output(gm, lambda n: gm.graph.call_function(self.combine, (n, self.factor)))


class ShiftOutput(ScaleOutput):
    """Adds `factor` to the output: an error of a known size, whatever the output's scale."""

    combine = staticmethod(operator.add)


class Sleeps(GraderPass):
    """Changes nothing and takes `seconds` to do it, after an analyze() that takes ANALYZE_SECONDS: the report must say
    it took `seconds`, in seconds, its analysis not timed with it.

    A sleeping pass's report is judged by bounds load cannot bend: it took at least its sleep (load lengthens a
    sleep, never shortens it), and less than its sleep + ANALYZE_SECONDS, which a report that times the analysis
    too, or reports ms, reaches whatever the load. A right report can pass that bound only on a loaded machine (lint
    and recompile of a tiny graph taking ANALYZE_SECONDS), and then it still says no more than the time from the end
    of the analysis to the next pass's (probe_pipeline measures it), which a report that times the analysis exceeds
    unless the pipeline spent ANALYZE_SECONDS after the pass's clock stopped."""

    ANALYZE_SECONDS = 0.2

    def __init__(self, seconds: float, name: str):
        self.seconds, self.name = seconds, name

    def analyze(self, gm):
        time.sleep(self.ANALYZE_SECONDS)
        return super().analyze(gm)

    def apply(self, gm):
        time.sleep(self.seconds)
        return gm


class AddDimension(GraderPass):
    """Gives the output a leading dimension of 1: its values broadcast equal to the model's, its shape does not."""

    name = "adds_a_dimension"

    def apply(self, gm):
        return each_output(gm, lambda n: gm.graph.call_method("unsqueeze", (n, 0)))


class UnknownMethod(GraderPass):
    """Renames the graph's last call_method to gelu, a method tensors do not have: the graph passes lint, and raises
    when run."""

    name = "renames_a_method"

    def apply(self, gm):
        [n for n in gm.graph.nodes if n.op == "call_method"][-1].target = "gelu"
        return gm


class CallBeforeInputs(GraderPass):
    """Moves the last call node before the graph's inputs: a graph that uses a value before it exists (lint fails)."""

    name = "moves_a_call_first"

    def apply(self, gm):
        calls = [n for n in gm.graph.nodes if n.op in CALLS]
        next(iter(gm.graph.nodes)).prepend(calls[-1])
        return gm


class Crash(GraderPass):
    name = "crashes"

    def apply(self, gm):
        raise ValueError("this pass is broken on purpose")


class ReturnsNothing(GraderPass):
    """Changes the graph it is given and returns None (a forgotten `return gm`): not a GraphModule, so the pipeline has
    no graph to carry on with, not even the one it gave the pass, which that pass may have left half-changed."""

    name = "returns_nothing"

    def apply(self, gm):
        gm.graph.lint()
        return None


class AnalysisCrash(GraderPass):
    """Its analyze() raises: a pass that raises before it changes anything (the pipeline must report it as it reports
    a pass whose apply raises)."""

    name = "analysis_crashes"

    def analyze(self, gm):
        raise KeyError("this analysis is broken on purpose")


def output_tensors(gm: fx.GraphModule) -> list[fx.Node]:
    """The nodes the graph returns, in order (one, or several in a tuple)."""
    found: list[fx.Node] = []
    fx.node.map_arg(next(n for n in gm.graph.nodes if n.op == "output").args[0], found.append)
    return found


class ChangeLastOutput(GraderPass):
    """Scales the last tensor the graph returns by 1.5 and leaves the others as they were: a pipeline that compares
    only the first output of a tuple lets it through."""

    name = "changes_the_last_output"

    def apply(self, gm):
        last = output_tensors(gm)[-1]
        out = next(n for n in gm.graph.nodes if n.op == "output")
        with gm.graph.inserting_before(out):
            scaled = gm.graph.call_function(operator.mul, (last, 1.5))
        out.args = (fx.node.map_arg(out.args[0], lambda n: scaled if n is last else n),)
        return gm


class DropLastOutput(GraderPass):
    """Returns the model's outputs but the last (a tuple one shorter): zip() pairs the outputs that are left with the
    reference's and says nothing of the one that is gone."""

    name = "drops_the_last_output"

    def apply(self, gm):
        out = next(n for n in gm.graph.nodes if n.op == "output")
        if isinstance(out.args[0], (tuple, list)) and len(out.args[0]) > 1:
            out.args = (tuple(out.args[0][:-1]),)
        return gm


SLOW_RUNS: list[float] = []      # when each call of sleepy_identity began (time.perf_counter()), in this process


def sleepy_identity(x):
    """x itself, after SlowGraph.SECONDS of sleep; notes when it began (SLOW_RUNS)."""
    SLOW_RUNS.append(time.perf_counter())
    time.sleep(SlowGraph.SECONDS)
    return x


class SlowGraph(GraderPass):
    """Quick itself, it leaves a graph that is slow to run: a call that sleeps SECONDS before the first tensor the graph
    returns. A report that times the pass must stop its clock before the verification run: it then says at most the
    time from the end of the pass's analyze() to the graph's first run (probe_pipeline measures it), however loaded the
    machine; a report that times the verification run too says more."""

    SECONDS = 0.03

    def __init__(self, name: str):
        self.name = name

    def apply(self, gm):
        if not any(n.op == "call_function" and n.target is sleepy_identity for n in gm.graph.nodes):
            first = output_tensors(gm)[0]
            out = next(n for n in gm.graph.nodes if n.op == "output")
            with gm.graph.inserting_before(out):
                slow = gm.graph.call_function(sleepy_identity, (first,))
            out.args = (fx.node.map_arg(out.args[0], lambda n: slow if n is first else n),)
        return gm


@dataclass(frozen=True)
class PipelineCase:
    """A model and its inputs; how many sites each of the learner's pass classes must find on it; passes of the
    grader's that keep the outputs (`ok`), and pipelines (passes, what the bad one does[, the tol to call
    run_pipeline with, where it is not the case's]) that must be refused."""

    about: str
    model: nn.Module
    inputs: tuple
    matches: dict
    ok: tuple
    bad: tuple
    tol: float = 1e-4
    hint: str = ""           # what is special about this case, added where the pipeline raises on the good passes


# What each pass class's apply must do to the counts its analyze reports: which nodes it removes ("relu": the ReLUs
# it replaces, counted as the ReLUs left afterwards; None: every node; a tuple: the nodes of these ops).
APPLY_COUNTS = {"ReluToGelu": "relu", "FoldConvBN": None, "FoldConstants": ("call_function", "call_method"), "DeadCode": None}


# The part-2 function each pass class wraps: a class is judged against what the learner's own function does (so a
# part-2 mistake is charged to part 2 alone), and not judged while that function is still its stub.
WRAPS = {"ReluToGelu": "relu_to_gelu", "FoldConvBN": "fold_conv_bn", "FoldConstants": "fold_constants",
         "DeadCode": "remove_dead_code"}
# another part-2 function that does the same rewrite: apply may call it instead (ReLU → GELU by pattern, part 2b)
ALSO_WRAPS = {"ReluToGelu": ("relu_to_gelu_pattern",)}


def probe_pass_classes(learner: Learner, class_names: list[str], model: nn.Module) -> dict:
    """Instantiate each of the learner's pass classes, analyze a fresh trace (name, matches, graph unchanged), then
    apply the pass to another fresh trace: what it returned, and the counts APPLY_COUNTS compares; beside it, what
    the part-2 function the class wraps does on its own to a third trace ("skipped": that part is a stub)."""
    with earlier_parts(learner, *WRAPS.values()):
        return _probe_pass_classes(learner, class_names, model)


def _probe_pass_classes(learner: Learner, class_names: list[str], model: nn.Module) -> dict:
    out = {}
    for cls_name in class_names:
        cls = learner.value(cls_name)
        wrapped = learner.ns.get(WRAPS[cls_name])
        if callable(wrapped) and stub_message(wrapped) is not None:
            out[cls_name] = {"skipped": unfinished_part(NotImplementedError(stub_message(wrapped))) or
                             f"`{WRAPS[cls_name]}`"}     # the part-2 function it wraps is still its stub
            continue
        with learner.running(cls_name):
            p = cls()
            p.analyze(fx.symbolic_trace(Identity()))    # one pass object, two graphs: each analysis is its graph's own
            gm = fx.symbolic_trace(copy.deepcopy(model))
            sig = signature(gm)
            analysis = p.analyze(gm)
            target = fx.symbolic_trace(copy.deepcopy(model))
            counts_before = _apply_counts(target)
            with torch.no_grad():
                applied = p.apply(target)
        own = None
        try:
            with torch.no_grad():
                alone = learner.function(WRAPS[cls_name])(fx.symbolic_trace(copy.deepcopy(model))) \
                    if learner.has(WRAPS[cls_name]) else None
            own = {"counts": _apply_counts(alone), "signature": signature(alone)} \
                if isinstance(alone, fx.GraphModule) else None
        except Exception:   # noqa: BLE001 - a part-2 mistake is part 2's check's to report
            own = None
        others = []
        for other in ALSO_WRAPS.get(cls_name, ()):
            fn = learner.ns.get(other)
            if not callable(fn) or stub_message(fn) is not None:
                continue
            try:
                with torch.no_grad():
                    alone = learner.function(other)(fx.symbolic_trace(copy.deepcopy(model)))
                if isinstance(alone, fx.GraphModule):
                    others.append(signature(alone))
            except Exception:   # noqa: BLE001 - a part-2 mistake is part 2's check's to report
                pass
        name = getattr(p, "name", None)
        matches = analysis.get("matches") if isinstance(analysis, dict) else None
        out[cls_name] = {"name": name if isinstance(name, str) else None,
                         "analysis": "dict" if isinstance(analysis, dict) else type(analysis).__name__,
                         "matches": matches if isinstance(matches, int) and not isinstance(matches, bool) else repr(matches),
                         "matches_type": type(matches).__name__, "unchanged": signature(gm) == sig,
                         "applied": type(applied).__name__ if not isinstance(applied, fx.GraphModule) else "GraphModule",
                         "counts": (counts_before, _apply_counts(applied) if isinstance(applied, fx.GraphModule) else None),
                         "same_as_own": own is not None and isinstance(applied, fx.GraphModule)
                         and signature(applied) in [own["signature"], *others],
                         "own_counts": own and own["counts"]}
    return out


def rebuilt_without_dead_code(gm: fx.GraphModule) -> fx.GraphModule:
    """A pass function that leaves the GraphModule it is given as it was and returns a new one, without its dead code."""
    return RebuildWithoutDeadCode().apply(gm)


def probe_nodes_removed(learner: Learner, model: nn.Module) -> dict:
    """nodes_removed with a pass function that returns a new GraphModule: all nodes, and the call_module nodes only;
    beside it, what the learner's answers should be and whether gm stayed as it was."""
    fn = learner.ns.get("nodes_removed")
    if not callable(fn) or stub_message(fn) is not None:
        return {"skipped": True}      # the classes may count their sites another way: nodes_removed is a means
    gm = fx.symbolic_trace(copy.deepcopy(model))
    sig = signature(gm)
    new = rebuilt_without_dead_code(fx.symbolic_trace(copy.deepcopy(model)))
    count = lambda g, ops: sum(ops is None or n.op in ops for n in g.graph.nodes)
    got = [learner.call("nodes_removed", rebuilt_without_dead_code, gm, ops) for ops in (None, ("call_module",))]
    want = [count(gm, ops) - count(new, ops) for ops in (None, ("call_module",))]
    return {"got": [g if isinstance(g, int) and not isinstance(g, bool) else repr(g) for g in got], "want": want,
            "unchanged": signature(gm) == sig}


def nodes_removed_problems(probe: dict, about: str, reveal: bool = True) -> list[str]:
    if probe.get("skipped"):
        return []
    if not probe["unchanged"]:
        return [f"on {about}, nodes_removed changed the graph it was given: dry-run the pass on copy.deepcopy(gm)."]
    if probe["got"] != probe["want"]:
        said = f" (all nodes, then ops=('call_module',)): {probe['want']} expected, yours says {probe['got']}" if reveal else ""
        return [f"on {about}, nodes_removed counted wrong for a pass function that returns a new GraphModule and leaves "
                f"the copy it was given as it was{said}. Count the nodes of the GraphModule fn returns (it may be the copy, "
                "changed in place, or a new one), not of the copy you handed it."]
    return []


def _apply_counts(gm: fx.GraphModule) -> dict:
    """The counts APPLY_COUNTS speaks of: ReLUs (any spelling), all nodes, call_function/call_method nodes."""
    nodes = list(gm.graph.nodes)
    return {"relu": sum(activation(gm, n) == "relu" for n in nodes), "all": len(nodes),
            "calls": sum(n.op in ("call_function", "call_method") for n in nodes)}


def pass_class_problems(probe: dict, about: str, want: dict[str, int], reveal: bool = True) -> list[str]:
    """The learner's four pass classes: a name each, analyze() counts the sites and changes nothing, apply() changes
    what analyze counted. A class whose part-2 function is a stub is not judged; analyze may count the true sites
    or what the learner's own part-2 function changes (a part-2 mistake is part 2's)."""
    names = set()
    skipped = {cls_name: got["skipped"] for cls_name, got in probe.items() if "skipped" in got}
    if len(skipped) == len(want):
        return [f"4a wraps the passes of part 2, and none is written yet ({', '.join(sorted(set(skipped.values())))} "
                "not done): write one, and its class is judged."]
    for cls_name, matches in want.items():
        got = probe[cls_name]
        if cls_name in skipped:
            continue
        if not got["name"] or got["name"] in names:
            return [f"{cls_name} needs a `name`: a non-empty string of its own."]
        names.add(got["name"])
        if got["analysis"] != "dict" or got["matches"] == "None":
            return [f"{cls_name}.analyze should return a dict with an integer 'matches' count; it returned a {got['analysis']}"
                    + (" without 'matches'." if got["analysis"] == "dict" else ".")]
        if not isinstance(got["matches"], int):
            return [f"{cls_name}.analyze should return a dict with an integer 'matches' count; its 'matches' is a "
                    f"{got.get('matches_type', 'something else')}."]
        if not got["unchanged"]:
            return [f"{cls_name}.analyze changed the graph: analysis must only look (dry-run on a copy)."]
        rule = APPLY_COUNTS.get(cls_name)
        key = "relu" if rule == "relu" else "all" if rule is None else "calls"
        before, after = got["counts"]
        own = got.get("own_counts")
        own_matches = before[key] - own[key] if own else None
        if got["matches"] not in (matches, own_matches):
            return [f"on {about}, {cls_name}.analyze found {got['matches']!r} sites" + (f"; there are {matches}" if reveal else
                    ", which is not what its apply changes") + ". A site is a node apply changes: a module or function "
                    "called twice is two sites."]
        if got["applied"] != "GraphModule":
            return [f"{cls_name}.apply should return the rewritten torch.fx.GraphModule; it returned a {got['applied']}."]
        if own is not None:
            if not got["same_as_own"] and rule == "relu" and after["relu"] > own["relu"]:
                return [f"on {about}, {cls_name}.apply left ReLU nodes in the graph that your relu_to_gelu alone "
                        "rewrites: it should call your relu_to_gelu."]
            if not got["same_as_own"]:
                return [f"on {about}, {cls_name}.apply gave another graph than your {WRAPS[cls_name]} alone: apply "
                        "should run the part-2 pass of the same name."]
            continue
        if rule == "relu":
            if after["relu"]:
                return [f"on {about}, {cls_name}.apply left ReLU nodes in the graph: it should call your relu_to_gelu."]
            continue
        removed = before[key] - after[key]
        if removed != matches:
            said = f"removed {removed} node(s) where its analyze counts {matches}" if reveal else \
                "did not remove the nodes its analyze counts"
            return [f"on {about}, {cls_name}.apply {said}: apply should run the part-2 pass of the same name, and "
                    "analyze count exactly what that pass removes."]
    return []


def probe_pipeline(learner: Learner, model: nn.Module, inputs: tuple, ok_passes: list, bad: list[tuple], tol: float) -> dict:
    """Run the learner's pipeline with the grader's passes on copies of `model`: the report and the result, as plain data."""
    run_pipeline, error_cls = learner.fn("run_pipeline"), learner.value("PassVerificationError")
    fresh = copy.deepcopy(model)
    modes = [m.training for m in fresh.modules()]
    with torch.no_grad():
        before = fresh(*inputs)
    SLOW_RUNS.clear()
    try:
        with clocked(ok_passes) as marks:
            gm, report = run_pipeline(fresh, inputs, ok_passes, tol)
    except CheckFailed:
        raise
    except Exception as err:
        return {"ok_error": f"{type(err).__name__}: {str(err)[:200]}"}
    slow_windows = {}
    for p in ok_passes:
        if isinstance(p, SlowGraph):
            ends = [end for name, _, end in marks if name == p.name]
            runs = [t for t in SLOW_RUNS if ends and t >= ends[0]]
            slow_windows[p.name] = runs[0] - ends[0] if runs else math.inf
    # a GraphModule given as the model: the passes must run on a copy of it (its graph and weights stay as they were)
    given = fx.symbolic_trace(copy.deepcopy(model))
    given_before = (signature(given), model_fingerprint(given))
    try:
        run_pipeline(given, inputs, [NoRecompile(), DoubleWeightsInPlace()], tol)
    except CheckFailed:
        raise
    except Exception:   # noqa: BLE001 - the passes keep the outputs; a pipeline that raises on them is judged above
        pass
    given_unchanged = signature(given) == given_before[0] and all(
        torch.equal(a, b) for a, b in zip(given_before[1], model_fingerprint(given)))
    with torch.no_grad():
        after = fresh(*inputs)
        out = gm(*inputs) if isinstance(gm, fx.GraphModule) else None
    plain = lambda v: v if isinstance(v, (bool, str, int, float)) or v is None else str(v)
    rows = report if not isinstance(report, list) else [
        {k: ({str(a): plain(b) for a, b in v.items()} if k == "analysis" and isinstance(v, dict) else plain(v))
         for k, v in r.items()} if isinstance(r, dict) else str(r) for r in report]
    errors = []
    for passes, what, *own_tol in bad:
        bad_tol = own_tol[0] if own_tol else tol
        guilty = first_refused(model, inputs, passes, bad_tol)
        # a stricter pipeline may stop at an earlier pass (the other cases judge the tolerance): it must name that one
        names = [q.name for q in passes]
        may_name = names[:names.index(guilty) + 1] if guilty in names else []
        try:
            run_pipeline(copy.deepcopy(model), inputs, list(passes), bad_tol)
            errors.append({"pass": what, "guilty": guilty, "may_name": may_name, "raised": None, "message": ""})
        except CheckFailed:
            raise
        except Exception as err:
            errors.append({"pass": what, "guilty": guilty, "may_name": may_name, "message": str(err)[:300],
                           "raised": "PassVerificationError" if isinstance(err, error_cls) else type(err).__name__})
    return {"ok_error": "", "returned_gm": isinstance(gm, fx.GraphModule), "report": rows,
            "out_diff": max_diff(out, before) if out is not None else math.inf,
            "ref_scale": output_scale(before), "original_unchanged": max_diff(before, after) == 0.0,
            "recompiled": isinstance(gm, fx.GraphModule) and "torch.mean(" in gm.code, "errors": errors,
            "windows": after_analysis(marks), "slow_windows": slow_windows, "given_unchanged": given_unchanged,
            "modes_unchanged": [m.training for m in fresh.modules()] == modes}


@contextlib.contextmanager
def clocked(passes: list):
    """While the block runs, each pass's analyze() notes when it began and ended: [(name, start, end)], then the time
    the block ended as ("", end, end)."""
    marks: list[tuple[str, float, float]] = []

    def timed(p, analyze):
        def analyze_and_note(gm):
            start = time.perf_counter()
            result = analyze(gm)
            marks.append((p.name, start, time.perf_counter()))
            return result
        return analyze_and_note

    for p in passes:
        p.analyze = timed(p, type(p).analyze.__get__(p))
    try:
        yield marks
    finally:
        marks.append(("", time.perf_counter(), time.perf_counter()))
        for p in passes:
            p.__dict__.pop("analyze", None)


def after_analysis(marks: list[tuple[str, float, float]]) -> dict[str, float]:
    """{pass: seconds from the end of its first analyze() to the start of the next pass's (or the pipeline's end)}: a
    report that times apply, lint and recompile, and not the analysis, says at most this, however loaded the machine."""
    windows = {}
    for i, (name, _, end) in enumerate(marks):
        if name and name not in windows:
            windows[name] = next((start for other, start, _ in marks[i + 1:] if other != name), end) - end
    return windows


def first_refused(model: nn.Module, inputs: tuple, passes: tuple, tol: float) -> str:
    """The name of the first pass a verifying pipeline must refuse, by the task's rule (it raises, returns no
    GraphModule, fails lint, or leaves outputs of another shape or more than tol × max(1, max |ref|) away), each pass
    run on the previous one's result from a trace of a copy of `model`."""
    with torch.no_grad():
        ref = model(*inputs)
    scale = output_scale(ref)
    gm = fx.symbolic_trace(copy.deepcopy(model))
    for p in passes:
        try:
            p.analyze(gm)
            gm = p.apply(gm)
            gm.graph.lint()
            gm.recompile()
            with torch.no_grad():
                out = gm(*inputs)
        except Exception:
            return p.name
        if not max_diff(out, ref) <= tol * scale:
            return p.name
    return ""


def pass_trail(model: nn.Module, inputs: tuple, passes: tuple) -> list[tuple[int, int, float]]:
    """(nodes before, nodes after, max |out − ref|) of each pass run in order on a trace of a copy of `model`, the
    output compared with the model's: what the report must say."""
    with torch.no_grad():
        ref = model(*inputs)
    gm = fx.symbolic_trace(copy.deepcopy(model))
    trail = []
    for p in passes:
        n0 = len(gm.graph.nodes)
        gm = p.apply(gm)
        gm.recompile()
        with torch.no_grad():
            trail.append((n0, len(gm.graph.nodes), max_diff(gm(*inputs), ref)))
    return trail


def pipeline_problems(p: dict, tol: float, about: str, reveal: bool = True, hint: str = "") -> list[str]:
    """The report (one row per pass, right counts), the result (recompiled, same outputs, model untouched), the refusals."""
    if p["ok_error"] and hint:
        return [f"on {about}, run_pipeline raised {p['ok_error']} on passes that keep the outputs.{hint}"]
    if p["ok_error"]:
        return [f"on {about}, run_pipeline raised {p['ok_error']} on passes that all keep the outputs (one returns a new "
                "GraphModule, one edits the graph without recompiling, one changes a module's weights in place and "
                "compensates in the graph, one shifts the outputs by less than tol). Recompile after every pass, carry on "
                "with the GraphModule each pass returns, compare every tensor of the output (it may be a tuple), and "
                "allow tol × max(1, max |ref|), with max |ref| over every tensor of the output, for the largest difference "
                "over them all: the 1 keeps small outputs from getting a tolerance below tol."]
    if not p["returned_gm"]:
        return ["run_pipeline should return (gm, report) with gm the optimized GraphModule."]
    rows = p["report"]
    if not isinstance(rows, list) or len(rows) != len(p["names"]) or not all(isinstance(r, dict) for r in rows):
        return [f"on {about}, the report should hold one dict per pass ({len(p['names'])} passes); it holds {rows if not isinstance(rows, list) else len(rows)}."]
    for row, name, (n0, n1, diff) in zip(rows, p["names"], p["trail"]):
        missing = [k for k in ("pass", "analysis", "nodes_before", "nodes_after", "seconds", "max_abs_diff") if k not in row]
        if missing:
            return [f"each report row needs pass, analysis, nodes_before, nodes_after, seconds and max_abs_diff; the row of "
                    f"'{name}' lacks {', '.join(missing)}."]
        if row["pass"] != name:
            return [f"report rows should be in the order the passes ran, named by pass.name: expected '{name}', got {row['pass']!r}."]
        if row["analysis"] != {"nodes": n0}:
            said = f" ({{'nodes': {n0}}}); your report has {row['analysis']!r}" if reveal else ""
            return [f"on {about}, the analysis of pass '{name}' is not what its analyze() said about the graph it was "
                    f"given{said}: call p.analyze(gm) before p.apply(gm) and report what it returned (the grader's "
                    "passes report the node count they saw)."]
        if (row["nodes_before"], row["nodes_after"]) != (n0, n1):
            took = f" took the graph from {n0} to {n1} nodes; your report says {row['nodes_before']} → {row['nodes_after']}" \
                if reveal else ": your report has the wrong node counts"
            return [f"on {about}, pass '{name}'{took}. Count len(gm.graph.nodes) before the pass and on the GraphModule "
                    "it returns (it may be a new one)."]
        if isinstance(row["seconds"], bool) or not isinstance(row["seconds"], (int, float)) or row["seconds"] < 0:
            return [f"seconds should be the pass's time in seconds (a float); for '{name}' it is {row['seconds']!r}."]
        slept = p["sleeps"].get(name)
        window = p.get("windows", {}).get(name, math.inf)
        if slept and not (slept <= row["seconds"] and (row["seconds"] < slept + Sleeps.ANALYZE_SECONDS
                                                       or row["seconds"] <= window)):
            which = (f"pass '{name}' sleeps {slept:g} s in apply() (and {Sleeps.ANALYZE_SECONDS:g} s in analyze())" if reveal
                     else "a pass of the grader's takes a known time in apply() (and another in analyze())")
            return [f"{which}; your report says it took {row['seconds']:.4g} s. Time p.apply(gm) itself, "
                    "with its lint and recompile, using time.perf_counter() before and after them (not analyze(), which "
                    "comes before), and report seconds (not ms)."]
        slow = p.get("slow_windows", {}).get(name)
        if slow is not None and row["seconds"] > slow * 1.001 + 1e-4:      # slack for a clock other than perf_counter
            which = (f"pass '{name}' leaves a graph that sleeps {SlowGraph.SECONDS:g} s whenever it runs; your report says "
                     f"the pass took {row['seconds']:.4g} s, more than the {slow:.4g} s from the end of its analyze() to "
                     "the graph's first run" if reveal else
                     "a pass of the grader's leaves a graph that is slow to run, and your report counts that run as the "
                     "pass's time")
            return [f"{which}. Time p.apply(gm) itself, with its lint and recompile, and stop the clock before you run "
                    "the graph to verify it."]
        # the same passes on the same inputs: the same outputs, up to rounding (a conv may sum in another order)
        if isinstance(row["max_abs_diff"], bool) or not isinstance(row["max_abs_diff"], (int, float)) \
                or not row["max_abs_diff"] <= tol * p["ref_scale"] \
                or not abs(row["max_abs_diff"] - diff) <= 1e-2 * tol * p["ref_scale"] + 1e-3 * diff:
            measured = f" where the grader measures {diff:.4g}" if reveal else ""
            return [f"on {about}, max_abs_diff should be the largest |optimized − original| over the output's elements "
                    f"after the pass (absolute: not divided by the output's scale; the largest: not the mean); for '{name}' "
                    f"it is {row['max_abs_diff']!r}{measured}."]
    if not p["recompiled"]:
        return [f"on {about}, a pass changed the graph without recompiling and the returned module's code does not show it: "
                "call gm.recompile() after every pass."]
    if not p["original_unchanged"]:
        return [f"on {about}, the original model's output changed: a pass changed a module in place. Trace a deep copy "
                "(copy.deepcopy(model)) so the passes never touch the model you were given."]
    if not p.get("modes_unchanged", True):
        return [f"on {about}, run_pipeline switched the model you were given (or one of its submodules) to another mode: "
                "part of it was in training mode and came back in eval mode (or the other way round). Leave the caller's "
                "model as it is: call it as it is for the reference, and trace and change only a deep copy."]
    if not p.get("given_unchanged", True):
        return [f"on {about}, given the model as a GraphModule (already traced), run_pipeline let the passes change that "
                "GraphModule (its graph or its weights): deep-copy a GraphModule too (copy.deepcopy(model)) and run the "
                "passes on the copy."]
    if not p["out_diff"] <= tol * p["ref_scale"]:
        return [f"on {about}, the returned GraphModule computes something else than the model (difference {p['out_diff']:.3g})."]
    for e in p["errors"]:
        if e["raised"] is None:
            return [f"on {about}, a pass that {e['pass']} went through the pipeline without an error: verify the outputs "
                    "after every pass against the original model's outputs and raise PassVerificationError."]
        if e["raised"] != "PassVerificationError":
            return [f"on {about}, a pass that {e['pass']} made the pipeline raise {e['raised']}; wrap it in PassVerificationError."]
        if e["may_name"] and not any(name in e["message"] for name in e["may_name"]):
            named = f" ('{e['guilty']}')" if reveal else ""
            return [f"on {about}, the PassVerificationError for a pass that {e['pass']} does not name that pass{named}: "
                    "the message must say which pass failed (its name), so whoever runs the pipeline knows what to fix"
                    + (f"; it said: {e['message'][:160]!r}." if reveal else ".")]
    return []


class PipeNet(nn.Module):
    """conv → bn → nn.ReLU → bn (the second batch norm follows no conv: not foldable), a conv → bn whose conv is also
    read by an add (not foldable), an in-place mul_ whose result is unread, a dead chain of two nodes, a constant from a
    parameter (three nodes), x.relu() and x.mean(); two outputs, in a tuple."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.act = nn.ReLU()
        self.bn2 = nn.BatchNorm2d(4)
        self.side = nn.Conv2d(4, 4, 1)
        self.side_bn = nn.BatchNorm2d(4)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.w = nn.Parameter(torch.randn(4))

    def forward(self, x):
        h = self.bn2(self.act(self.bn(self.conv(x))))
        s = self.side(h)
        h = self.side_bn(s) + s
        h.mul_(0.5)
        unused = self.pool(h).flatten(1)  # noqa: F841 (dead code, on purpose)
        scale = (self.w.exp() + 1).view(1, 4, 1, 1)
        return ((h * scale).relu() + x.mean()) * 0.25, h.mean(dim=(2, 3)) * 0.1


class OutputsSwapped(nn.Module):
    """A model of two outputs with the two returned in the other order (for PipeNet and its like: the larger one last), so
    that a pipeline that scales its tolerance by the first output alone, or reports the first output's difference as
    the largest, shows it."""

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        a, b = self.inner(x)
        return b, a


PIPE_MATCHES = {"ReluToGelu": 2, "FoldConvBN": 1, "FoldConstants": 3, "DeadCode": 2}


class DeadParameter(nn.Module):
    """A torch.relu and one nn.ReLU module called twice (three ReLU nodes, two ReLU targets), a constant w.exp() from a
    parameter, and a dead module call whose only input is a parameter nothing else reads: the dead code is two nodes, a
    call_module and a get_attr."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3))
        self.spare = nn.Parameter(torch.randn(3))
        self.squash = nn.Tanh()
        self.act = nn.ReLU()

    def forward(self, x):
        unused = self.squash(self.spare)  # noqa: F841 (dead code, on purpose)
        return torch.relu(x) + self.act(x - 1) * self.act(x + 1) + self.w.exp()


def DEAD_PARAMETER_CASE() -> tuple:
    """(about, model, matches) for the pass classes, checked on every run, the grader's too."""
    return ("a model with a torch.relu and one nn.ReLU module called twice, a constant w.exp() and a dead module call "
            "that reads a parameter nothing else reads (a dead get_attr)", built(19, DeadParameter),
            {"ReluToGelu": 3, "FoldConvBN": 0, "FoldConstants": 1, "DeadCode": 2})


class SomeFoldable(StaysInTraining):
    """Three conv → batch norm pairs: one batch norm keeps no running statistics, one stays in training mode (as in
    StaysInTraining), one is foldable. Only the last is a site of FoldConvBN."""

    def __init__(self):
        super().__init__()
        self.conv_a, self.bn_a = nn.Conv2d(4, 4, 1), nn.BatchNorm2d(4, track_running_stats=False)
        self.conv_b, self.bn_b = nn.Conv2d(4, 4, 1), nn.BatchNorm2d(4)

    def forward(self, x):
        return self.bn_b(self.conv_b(self.bn_a(self.conv_a(self.bn(self.conv(x))))))


def FOLD_OR_NOT_CASE() -> tuple:
    """(about, model, matches) for the pass classes, checked on every run, the grader's too."""
    return ("a model with three conv → batch-norm pairs, one batch norm without running statistics and one left in "
            "training mode (neither is folded: not sites)", randomize_bn(built(26, SomeFoldable), 27),
            {"ReluToGelu": 0, "FoldConvBN": 1, "FoldConstants": 0, "DeadCode": 0})


def BAD_PASSES(scale: float = 1.0) -> list[tuple]:
    """(passes, what the bad one does) for the pipeline's refusals; `scale` is max(1, max |ref|) of the case, so the
    drift is 0.7 × the tolerance whatever the outputs' size."""
    return [((IdentityPass(), ScaleOutput(1.01, "scale_by_1.01")), "changes the output by 1%"),
            ((Crash(),), "raises ValueError"),
            ((IdentityPass(), ReturnsNothing()), "returns None, not a GraphModule (a pipeline that carries on with the graph "
                                                 "it gave the pass has not verified what the pass left)"),
            ((IdentityPass(), CallBeforeInputs()), "leaves a graph that fails lint (a node before its inputs)"),
            ((IdentityPass(), AddDimension()), "adds a leading dimension to the output (its values broadcast equal to "
                                               "the model's: compare shapes, not only values)"),
            ((ShiftOutput(0.7e-4 * scale, "drift_a"), ShiftOutput(0.7e-4 * scale, "drift_b")),
             "drifts by 0.7 × tol twice (1.4 × tol from the original model; compare with the model, not the previous pass)"),
            ((ScaleOutput(2.0, "doubles_output"), ScaleOutput(0.5, "halves_output")),
             "doubles the output before a pass that halves it back (verify after every pass, not once at the end)"),
            ((IdentityPass(), UnknownMethod()), "leaves a graph that passes lint but raises when run (a method tensors "
                                                "do not have)"),
            ((IdentityPass(), AnalysisCrash()), "raises in its analyze() (a pass that raises, whichever of its methods)"),
            ((ChangeLastOutput(),), "changes only the last of the outputs (compare every tensor of a tuple, not the first)"),
            ((IdentityPass(), DropLastOutput()), "returns one output fewer than the model (compare how many tensors there "
                                                 "are, not only those zip() pairs)"),
            ((ShiftOutput(1e-5 * scale, "shifts_by_1e-5"),), "shifts the outputs by 10 × tol when run_pipeline is called "
                                                            "with tol=1e-6 (use the tol you are given)", 1e-6),
            ((IdentityPass(), ShiftOutput(-0.01 * scale, "lowers_output")),
             "lowers the outputs by 1% of their scale (the difference is |out − ref|: a drop counts as much as a rise)"),
            ((IdentityPass(), ScaleOutput(float("inf"), "makes_inf")),
             "turns the outputs into infinities (the tolerance comes from the reference's outputs, never from what the "
             "pass returns)"),
            ((IdentityPass(), ScaleOutput(float("nan"), "makes_nan")),
             "turns the outputs into NaN (a NaN compares false with everything: max() skips it and `diff > tol` lets it "
             "through; test that the difference is within the tolerance, or look for NaN)")]


def pipeline_cases() -> list[PipelineCase]:
    with seeded(8):
        model, inputs = randomize_bn(PipeNet(), 9), (torch.randn(2, 3, 6, 6),)
        large = OutputsSwapped(randomize_bn(PipeNet(), 9)).eval(), (torch.randn(2, 3, 6, 6) * 1e4,)
    scale, large_scale = output_scale(output_of(model, inputs)), output_scale(output_of(*large))
    # outputs below 1 here: a shift of half the tolerance is allowed (the scale is max(1, max |ref|))
    ok = (IdentityPass(), RebuildWithoutDeadCode(), NoRecompile(), DoubleWeightsInPlace(), ScaleOutput(1 + 1e-7, "tiny_rounding"),
          Sleeps(0.03, "sleeps_30ms"), SlowGraph("slow_graph_run"), ShiftOutput(5e-5, "shift_by_half_tol"))
    # every element shifted by 0.4 × tol × max |ref|: allowed, though far more than tol × |ref| for the small elements
    relative = (*ok, ScaleOutput(1 + 2e-5, "relative_rounding"), ShiftOutput(0.4e-4 * large_scale, "shift_by_0.4_tol_of_scale"))
    # its largest element moves by 1.5 × tol × max |ref|: refused, though within allclose(rtol=tol, atol=tol × max |ref|)
    too_far = ((IdentityPass(), ScaleOutput(1 + 1.5e-4, "scale_by_1.5_tol")),
               "scales the outputs by 1 + 1.5 × tol (the largest element moves by 1.5 × tol × max |ref|: a tolerance "
               "relative to each element, added to tol × max(1, max |ref|), lets it through)")
    return [PipelineCase("a conv → bn → relu → bn model with a conv read twice, an in-place call, a dead chain and a "
                         "constant, two outputs below 1 in a tuple", model, inputs, PIPE_MATCHES, ok, tuple(BAD_PASSES(scale))),
            PipelineCase("the same model on inputs 10⁴ times larger, its two outputs returned in the other order (the larger "
                         "one last; outputs near 10⁴: a pass that rounds by 2e-5 of the output, or shifts every element by "
                         "0.4 × tol × max |ref|, keeps it within a tolerance relative to the output's scale)", *large, PIPE_MATCHES, relative, (*BAD_PASSES(large_scale), too_far))]


class TwoInputPipe(nn.Module):
    """A conv → batch norm on one input, scaled by the mean of the other (a call_method mean): a model of two inputs."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3)
        self.bn = nn.BatchNorm2d(3)

    def forward(self, x, y):
        return self.bn(self.conv(x)) * y.mean()


class NestedOutputs(nn.Module):
    """Two outputs, the second a tuple of two (a nested output), and a Dropout(p=0) left in training mode: it computes
    the same in either mode, and a pipeline must leave the mode of the model it was given as it is."""

    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.0)

    def forward(self, x, y):
        a = self.drop(x * 2) + y.mean()
        return a, (a.sin(), y - 1)


class LargeNegative(nn.Module):
    """Outputs that are all negative and large (below −10³ + |mean x|): max |ref| is their size, max(ref) is negative."""

    def forward(self, x):
        return -(x * x + 1) * 1e3 + x.mean()


NEGATIVE_HINT = (" Its outputs are all negative and large: max |ref| is the size of the largest of them, whatever its sign "
                 "(take abs() before the max), so a pass that shifts them by half of tol × max |ref| keeps them.")


def pipeline_cases_always() -> list[PipelineCase]:
    """Checked on every run, the grader's too: a model of two inputs; a nested output checked with tol=0; outputs that
    are all large and negative."""
    with seeded(28):
        inputs = (torch.randn(2, 2, 5, 5), torch.randn(3))
        nested_inputs = (torch.randn(3, 4), torch.randn(4))
        negative_inputs = (torch.randn(2, 5),)
    ok = (IdentityPass(), NoRecompile(), ScaleOutput(1 + 1e-7, "tiny_rounding"))
    bad = (((ScaleOutput(1.01, "scale_by_1.01"),), "changes the output by 1%"),)
    exact_bad = (((IdentityPass(), ScaleOutput(1 + 1e-6, "rounds_by_1e-6")),
                  "changes the output by 1e-6 of itself when run_pipeline is called with tol=0"),)
    return [PipelineCase("a model of two inputs", randomize_bn(built(29, TwoInputPipe), 30), inputs, {}, ok, bad,
                         hint=" The model here takes two inputs: call it, and every graph a pass leaves, with all of "
                              "them (model(*example)), never with example[0] alone."),
            PipelineCase("a model whose output is a tensor and a tuple of two tensors (a nested output), with a "
                         "Dropout(p=0) left in training mode, run with tol=0", NestedOutputs().train(), nested_inputs, {},
                         (IdentityPass(), NoRecompile()), exact_bad, tol=0.0,
                         hint=" Here the output nests a tuple inside a tuple: flatten it all the way down "
                              "(torch.utils._pytree.tree_leaves does), not one level. And tol=0 asks for outputs equal "
                              "bit for bit: passes that change nothing have a difference of 0, which is within "
                              "tol × max(1, max |ref|) = 0 (refuse only a difference above it)."),
            PipelineCase("a model whose outputs are all negative and large (below -10³)", LargeNegative(), negative_inputs,
                         {}, (IdentityPass(), NoRecompile(), ShiftOutput(0.5e-4 * output_scale(output_of(LargeNegative(), negative_inputs)),
                                                          "shift_by_half_tol_of_scale")),
                         (((ScaleOutput(1.01, "scale_by_1.01"),), "changes the output by 1%"),), hint=NEGATIVE_HINT)]


@register("02.passes", points=1, exercise="4a", title="four passes behind name/analyze/apply: analyze counts what apply "
          "changes, without changing the graph", cases=pipeline_cases)
def _passes(ctx: Context, cases: list[PipelineCase]) -> str:
    # the other cases differ in their inputs only, which analyze never sees; DeadParameter and SomeFoldable are checked
    # on every run
    always = [DEAD_PARAMETER_CASE(), FOLD_OR_NOT_CASE()]
    for about, model, matches in [(case.about, case.model, case.matches) for case in cases[:1]] + always:
        classes = ctx.probe(probe_pass_classes, list(matches), model)
        fail_if(pass_class_problems(classes, about, matches, reveal=ctx.reveal))
    about, model, _ = DEAD_PARAMETER_CASE()
    fail_if(nodes_removed_problems(ctx.probe(probe_nodes_removed, model), about, reveal=ctx.reveal))
    return "each pass has a name of its own; analyze counts the sites without touching the graph; apply changes them"


@register("02.pipeline", points=2, exercise="4b", title="a pipeline that recompiles, reports and verifies every pass",
          cases=pipeline_cases)
def _pipeline(ctx: Context, cases: list[PipelineCase]) -> str:
    for case in [*cases, *pipeline_cases_always()]:
        got = {**ctx.probe(probe_pipeline, case.model, case.inputs, list(case.ok), list(case.bad), case.tol),
               "names": [p.name for p in case.ok], "trail": pass_trail(case.model, case.inputs, case.ok),
               "sleeps": {p.name: p.seconds for p in case.ok if isinstance(p, Sleeps)}}
        fail_if(pipeline_problems(got, case.tol, case.about, reveal=ctx.reveal, hint=case.hint))
    return "the pipeline recompiles, reports and verifies every pass, on outputs of any scale, and never touches the model"


# ---------------------------------------------------------------- 5: the edge-case harness
@dataclass(frozen=True)
class HarnessPass:
    """A pass of the grader's, how messages describe it, and {case: the word its problem must start with ("" = any
    problem)}; on the cases not named it must pass. `tol`: check_pass is called with this tol (None: its default)."""

    fn: Callable
    words: str
    flagged: dict
    tol: float | None = None


@dataclass(frozen=True)
class HarnessCase:
    """check_pass's cases (dicts: name, model, inputs, expected) and the passes to run it on; `hint`: what is
    special about this gallery, added to its messages."""

    gallery: list
    passes: tuple
    hint: str = ""


def gallery_case(name: str, model: nn.Module, inputs: tuple) -> dict:
    """One of check_pass's cases, its expected output computed from the model."""
    return {"name": name, "model": model, "inputs": inputs, "expected": output_of(model, inputs)}


class TwoInputs(nn.Module):
    def forward(self, x, y):
        return x * y


class SeveralUsers(nn.Module):
    def forward(self, x):
        r = x.sin()
        return r * 2 + r.cos()


class SingleSin(nn.Module):
    def forward(self, x):
        return x.sin()


class WithLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


def harness_gallery() -> list[dict]:
    with seeded(10):
        return [gallery_case("empty graph", Identity(), (torch.randn(3),)),
                gallery_case("single op", SingleSin(), (torch.randn(3),)),
                gallery_case("two-input op", TwoInputs(), (torch.randn(3), torch.randn(3))),
                gallery_case("several users", SeveralUsers(), (torch.randn(3),)),
                gallery_case("call_module with parameters", WithLinear(), (torch.randn(2, 4),))]


def _done(gm):
    gm.recompile()
    return gm


def ok_pass(gm):
    """Correct: spells x.sin() as torch.sin(x), rewiring every user."""
    for n in list(gm.graph.nodes):
        if n.op == "call_method" and n.target == "sin":
            with gm.graph.inserting_before(n):
                new = gm.graph.call_function(torch.sin, n.args)
            n.replace_all_uses_with(new)
            gm.graph.erase_node(n)
    return _done(gm)


def mul_drops_second_input(gm):
    """The course page's bug: a two-input op gets its first input twice."""
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is operator.mul and all(isinstance(a, fx.Node) for a in n.args) and n.args[0] is not n.args[1]:
            n.args = (n.args[0], n.args[0])
    return _done(gm)


def rewires_first_user_only(gm):
    """Rewires one user of x.sin(), then erases it: fails where it has several users."""
    for n in list(gm.graph.nodes):
        if n.op == "call_method" and n.target == "sin":
            with gm.graph.inserting_before(n):
                new = gm.graph.call_function(torch.sin, n.args)
            next(iter(n.users)).replace_input_with(n, new)
            gm.graph.erase_node(n)
    return _done(gm)


def grows_every_run(gm):
    """Adds `+ 0` before the output on every run: right outputs, never idempotent."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    with gm.graph.inserting_before(out):
        plus = gm.graph.call_function(operator.add, (out.args[0], 0))
    out.args = (plus,)
    return _done(gm)


def needs_a_call(gm):
    """Assumes the graph holds at least one call: fails on the empty graph."""
    first = [n for n in gm.graph.nodes if n.op in CALLS][0]
    first.meta["seen"] = True
    return _done(gm)


def linear_drops_bias(gm):
    """Turns a Linear module into F.linear with the weight only: wrong where a module has a bias."""
    for n in list(gm.graph.nodes):
        if n.op == "call_module" and isinstance(gm.get_submodule(n.target), nn.Linear):
            with gm.graph.inserting_before(n):
                w = gm.graph.get_attr(n.target + ".weight")
                new = gm.graph.call_function(F.linear, (n.args[0], w))
            n.replace_all_uses_with(new)
            gm.graph.erase_node(n)
    return _done(gm)


def adds_a_dimension(gm):
    """Gives the output a leading dimension of 1: the same values in another shape (allclose broadcasts)."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    if not any(a.op == "call_method" and a.target == "unsqueeze" for a in out.all_input_nodes):
        with gm.graph.inserting_before(out):
            wider = gm.graph.call_method("unsqueeze", (out.args[0], 0))
        out.args = (wider,)
    return _done(gm)


def _add_once(gm, amount: float):
    """The output + amount, added on the first run only (idempotent)."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    if not any(a.op == "call_function" and a.target is operator.add and amount in a.args for a in out.all_input_nodes):
        with gm.graph.inserting_before(out):
            plus = gm.graph.call_function(operator.add, (out.args[0], amount))
        out.args = (plus,)
    return _done(gm)


def nudges_the_output(gm):
    """Adds 3e-6 to the output: within the default tolerance, outside tol=1e-7."""
    return _add_once(gm, 3e-6)


def doubles_weights_in_place(gm):
    """Doubles a Linear's weight and bias in place and halves its output: right outputs, but it changes the module it
    was given (a harness that does not trace a deep copy of the case's model lets that reach the model)."""
    for n in list(gm.graph.nodes):
        if n.op == "call_module" and isinstance(gm.get_submodule(n.target), nn.Linear) and not n.meta.get("doubled"):
            mod = gm.get_submodule(n.target)
            with torch.no_grad():
                mod.weight.mul_(2)
                mod.bias.mul_(2)
            with gm.graph.inserting_after(n):
                half = gm.graph.call_function(operator.mul, (n, 0.5))
            n.replace_all_uses_with(half, delete_user_cb=lambda user: user is not half)
            n.meta["doubled"] = True
    return _done(gm)


def off_by_one_every_run(gm):
    """Adds 1 to the output, again on every run: wrong outputs, and never idempotent (the outputs go wrong first)."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    with gm.graph.inserting_before(out):
        plus = gm.graph.call_function(operator.add, (out.args[0], 1.0))
    out.args = (plus,)
    return _done(gm)


def flips_the_spelling(gm):
    """Spells x.sin() as torch.sin(x) and torch.sin(x) as x.sin(): right outputs and the same number of nodes, but
    every run changes the graph again."""
    for n in list(gm.graph.nodes):
        method, function = n.op == "call_method" and n.target == "sin", n.op == "call_function" and n.target is torch.sin
        if method or function:
            with gm.graph.inserting_before(n):
                new = gm.graph.call_function(torch.sin, n.args) if method else gm.graph.call_method("sin", n.args)
            n.replace_all_uses_with(new)
            gm.graph.erase_node(n)
    return _done(gm)


def retargets_in_place(gm):
    """Spells x.sin() as torch.sin(x), then on every later run swaps torch.sin and torch.ops.aten.sin.default by
    changing the node's target in place (its op and name stay): right outputs, but every run changes the graph again."""
    for n in gm.graph.nodes:
        if n.op == "call_method" and n.target == "sin":
            n.op, n.target = "call_function", torch.sin
        elif n.op == "call_function" and n.target in (torch.sin, torch.ops.aten.sin.default):
            n.target = torch.ops.aten.sin.default if n.target is torch.sin else torch.sin
    return _done(gm)


def renews_every_run(gm):
    """Correct and idempotent: spells x.sin() as torch.sin(x), and on every later run puts a fresh torch.sin node in
    place of each one (a new node name each time, the same op and target): the (op, target) lists stay the same."""
    for n in list(gm.graph.nodes):
        if (n.op == "call_method" and n.target == "sin") or (n.op == "call_function" and n.target is torch.sin):
            with gm.graph.inserting_before(n):
                new = gm.graph.call_function(torch.sin, n.args)
            n.replace_all_uses_with(new)
            gm.graph.erase_node(n)
    return _done(gm)


def relu_as_gelu(gm):
    """Correct for a ReLU → GELU rewrite: writes torch.relu(x) as F.gelu(x)."""
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is torch.relu:
            n.target = F.gelu
    return _done(gm)


def relu_as_silu(gm):
    """Writes torch.relu(x) as F.silu(x): not the GELU the case expects."""
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is torch.relu:
            n.target = F.silu
    return _done(gm)


def relu_as_gelu_stale(gm):
    """Writes torch.relu(x) as F.gelu(x) in the graph and does not recompile: the module it returns still runs ReLU."""
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is torch.relu:
            n.target = F.gelu
    return gm


def moves_a_call_first(gm):
    """Moves the last call before the inputs: a graph that uses values before they exist."""
    calls = [n for n in gm.graph.nodes if n.op in CALLS]
    if calls:
        next(iter(gm.graph.nodes)).prepend(calls[-1])
    return _done(gm)


def sin_renamed_gelu(gm):
    """The page's rename: x.sin() becomes x.gelu(), a method tensors do not have (the graph raises when run)."""
    for n in gm.graph.nodes:
        if n.op == "call_method" and n.target == "sin":
            n.target = "gelu"
    return _done(gm)


def needs_a_sin(gm):
    """Rewrites x.sin() as torch.sin(x), and raises where there is no x.sin() left to rewrite (so on its own output)."""
    found = [n for n in gm.graph.nodes if n.op == "call_method" and n.target == "sin"]
    if not found:
        raise ValueError("no x.sin() to rewrite")
    return ok_pass(gm)


ALL = "empty graph", "single op", "two-input op", "several users", "call_module with parameters"
# pass → {case: the word its problem must start with ("" = any problem)}; cases not named must pass.
HARNESS_EXPECT = {
    "ok_pass": {},
    "mul_drops_second_input": {"two-input op": "output"},
    "rewires_first_user_only": {"several users": "raised"},
    "grows_every_run": {c: "idempotent" for c in ALL},
    "off_by_one_every_run": {c: "output" for c in ALL},
    "needs_a_call": {"empty graph": "raised"},
    "linear_drops_bias": {"call_module with parameters": "output"},
    "moves_a_call_first": {c: "lint" for c in ALL if c != "empty graph"},
    "flips_the_spelling": {"single op": "idempotent", "several users": "idempotent"},
    "retargets_in_place": {"single op": "idempotent", "several users": "idempotent"},
    "renews_every_run": {},
    "nudges_the_output": {},
    "adds_a_dimension": {c: "output" for c in ALL},
    "doubles_weights_in_place": {},
    "sin_renamed_gelu": {"single op": "raised", "several users": "raised"},
    "needs_a_sin": {"empty graph": "raised", "single op": "idempotent", "two-input op": "raised",
                    "several users": "idempotent", "call_module with parameters": "raised"},
}
# passes run again with an explicit tol: check_pass(fn, cases, tol=...) must use it
HARNESS_STRICT = {"nudges_the_output": (1e-7, {c: "output" for c in ALL})}


def harness_pass(fn: Callable, flagged: dict) -> HarnessPass:
    """A public pass, described in messages by its name and docstring."""
    return HarnessPass(fn, f"`{fn.__name__}` ({fn.__doc__.strip()})", flagged)


# a gallery whose expected output is not what its model computes (a rewrite meant to change it): pass → flagged
REWRITE_EXPECT = {"relu_as_gelu": {}, "relu_as_silu": {"single op": "output"}}
EXPECTED_HINT = (" Here the case's `expected` is the output the rewrite must give, not what the case's model computes: "
                 "compare the rewritten graph with case['expected'].")


def rewrite_gallery() -> list[dict]:
    """One case whose `expected` is the GELU twin's output, as the notebook's gallery has for the ReLU → GELU passes."""
    with seeded(11):
        x = (torch.randn(6),)
    return [{"name": "single op", "model": SingleRelu(), "inputs": x, "expected": output_of(SingleRelu(gelu=True), x)}]


def harness_cases() -> list[HarnessCase]:
    passes = tuple(harness_pass(globals()[name], flagged) for name, flagged in HARNESS_EXPECT.items())
    strict = tuple(replace(harness_pass(globals()[name], flagged), tol=tol) for name, (tol, flagged) in HARNESS_STRICT.items())
    rewrites = tuple(harness_pass(globals()[name], flagged) for name, flagged in REWRITE_EXPECT.items())
    return [HarnessCase(harness_gallery(), passes + strict), HarnessCase(rewrite_gallery(), rewrites, EXPECTED_HINT)]


class LargeOutputs(nn.Module):
    """Outputs in the hundreds: x.sin() scaled, plus x scaled."""

    def forward(self, x):
        return x.sin() * 500 + x * 300


def _sin_times(gm, factor: float):
    """x.sin() spelled as torch.sin(x) × factor."""
    for n in list(gm.graph.nodes):
        if n.op == "call_method" and n.target == "sin":
            with gm.graph.inserting_before(n):
                new = gm.graph.call_function(operator.mul, (gm.graph.call_function(torch.sin, n.args), factor))
            n.replace_all_uses_with(new)
            gm.graph.erase_node(n)
    return _done(gm)


def sin_rounded(gm):
    """Spells x.sin() as torch.sin(x) × (1 + 4e-6): right up to rounding (4e-6 of each value, within rtol=1e-5)."""
    return _sin_times(gm, 1 + 4e-6)


def sin_off_by_1e4(gm):
    """Spells x.sin() as torch.sin(x) × (1 + 1e-4): 1e-4 of each value off, beyond rtol=1e-5."""
    return _sin_times(gm, 1 + 1e-4)


def repeats_the_output(gm):
    """Returns torch.cat([out, out], dim=-1): a shape that does not broadcast with the expected one."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    if not any(a.op == "call_function" and a.target is torch.cat for a in out.all_input_nodes):
        with gm.graph.inserting_before(out):
            twice = gm.graph.call_function(torch.cat, ([out.args[0], out.args[0]],), {"dim": -1})
        out.args = (twice,)
    return _done(gm)


def new_module_shifted(gm):
    """Returns a new GraphModule whose output is 0.5 larger, leaving the one it was given as it was."""
    new = fx.GraphModule(gm, copy.deepcopy(gm.graph))
    return _add_once(new, 0.5)


def new_module_same(gm):
    """Correct: returns a new GraphModule around a copy of the graph, x.sin() spelled as torch.sin(x) in it."""
    return ok_pass(fx.GraphModule(gm, copy.deepcopy(gm.graph)))


def shifts_by_7e_3(gm):
    """Adds 7e-3 to every value: below 1e-5 of the largest outputs (near 1000), above 1e-5 of the smallest (near 500)."""
    return _add_once(gm, 7e-3)


LARGE_HINT = (" The outputs here are in the hundreds: torch.allclose(got, expected, rtol=tol, atol=tol) allows each "
              "element atol + rtol × |that element|, so rounding relative to a large value is no error, while an error "
              "that is small beside the largest value but not beside an element's own is one. A fixed absolute "
              "tolerance, or one scaled by the largest value (the pipeline's rule), judges otherwise.")
NEW_MODULE_HINT = (" Here the passes return a new GraphModule and leave the one they were given as it was: judge the "
                   "module the pass returns (gm = pass_fn(...)), not the one you handed it.")
SHAPE_HINT = (" Here the output's first dimension is 1, so a leading dimension of 1 added to it leaves its len() as it "
              "was: compare the whole shape (got.shape == expected.shape), and before the values (torch.allclose "
              "broadcasts, and raises on shapes that do not broadcast).")
STALE_HINT = (" Run the GraphModule as the pass returned it, as its users will: a harness that recompiles it (or "
              "interprets its graph) hides a pass that forgot gm.recompile() and still runs its old code.")


def harness_cases_always() -> list[HarnessCase]:
    """Checked on every run, the grader's too: outputs in the hundreds (of shape (1, 6)), a pass right up to rounding and
    three that are not; two passes that return a new GraphModule; a rewrite whose graph is right and whose code is stale
    (not recompiled)."""
    with seeded(24):
        x = (torch.randn(1, 6) * 3,)
    gallery = [gallery_case("large outputs", LargeOutputs(), x)]
    passes = (harness_pass(sin_rounded, {}), harness_pass(sin_off_by_1e4, {"large outputs": "output"}),
              harness_pass(shifts_by_7e_3, {"large outputs": "output"}))
    new = (harness_pass(new_module_same, {}), harness_pass(new_module_shifted, {"large outputs": "output"}))
    shape = (harness_pass(adds_a_dimension, {"large outputs": "output"}),
             harness_pass(repeats_the_output, {"large outputs": "output"}))
    stale = (harness_pass(relu_as_gelu_stale, {"single op": "output"}),)
    return [HarnessCase(gallery, passes, LARGE_HINT), HarnessCase(gallery, new, NEW_MODULE_HINT),
            HarnessCase(gallery, shape, SHAPE_HINT),
            HarnessCase(rewrite_gallery(), stale, STALE_HINT)]


def plain_harness_row(row: Any) -> dict:
    return {"case": str(row.get("case")), "ok": bool(row.get("ok")), "problem": str(row.get("problem", ""))} \
        if isinstance(row, dict) else {"case": "?", "ok": None, "problem": str(row)}


def model_fingerprint(model: nn.Module) -> list:
    return [t.detach().clone() for t in model.state_dict().values()]


def probe_harness(learner: Learner, gallery: list[dict], passes: list[Callable], tols: list | None = None) -> list:
    """The learner's check_pass on each of the grader's passes (with its tol, where given), each on a fresh copy of
    the gallery: rows as plain data, and the cases whose own model the run changed."""
    out = []
    for fn, tol in zip(passes, tols or [None] * len(passes)):
        cases = copy.deepcopy(gallery)
        before = [model_fingerprint(c["model"]) for c in cases]
        try:
            rows = learner.call("check_pass", fn, cases, **({} if tol is None else {"tol": tol}))
        except CheckFailed:
            raise
        except Exception as err:      # the pass's own exception escaped the harness
            out.append({"raised": type(err).__name__, "rows": [], "changed": []})
            break
        changed = [c["name"] for c, b in zip(cases, before)
                   if any(not torch.equal(x, y) for x, y in zip(b, model_fingerprint(c["model"])))]
        out.append({"rows": [plain_harness_row(r) for r in rows] if isinstance(rows, list) else f"<{type(rows).__name__}>",
                    "changed": changed})
    return out


def harness_problems(got: list, passes: list[HarnessPass], cases: tuple, hint: str = "") -> list[str]:
    """Each pass flagged on exactly the cases it breaks, with a problem that starts with the right word; `hint` (the
    gallery's) is added where a pass is judged wrongly."""
    for p, result in zip(passes, got):
        rows = result["rows"]
        if result.get("raised"):
            return [f"check_pass itself raised {result['raised']} while checking {p.words}: run the pass (and the "
                    "graph it returns) inside try/except, and report what it raised as the case's problem "
                    "(starting with 'raised')." + hint]
        if result["changed"]:
            return [f"checking {p.words}, check_pass let it change the case's own model ('{result['changed'][0]}'): run "
                    "the pass on a trace of a deep copy of case['model'], so a pass never touches the model it checks."]
        if not isinstance(rows, list) or [r["case"] for r in rows] != list(cases):
            return [f"check_pass should return one row per case, in order, with the case's name; for {p.words} it "
                    f"returned {rows if not isinstance(rows, list) else [r['case'] for r in rows]}."]
        for r in rows:
            want = p.flagged.get(r["case"])
            if want is None and r["ok"] is not True:
                return [f"check_pass flagged {p.words} on the case '{r['case']}', where it is correct: {r['problem'][:120]}"
                        + hint]
            if r["ok"] is True and r["problem"] != "":
                return [f"for {p.words} on '{r['case']}', check_pass says ok, and its problem reads {r['problem'][:60]!r}: "
                        "the problem should be '' when the case is ok (whoever reads the rows takes any other text for a "
                        "problem)."]
            if want is not None and r["ok"] is not False:
                with_tol = (f" with tol={p.tol:g} (compare with the tol you are given, as rtol and atol)"
                            if p.tol is not None else "")
                return [f"check_pass let {p.words} through on the case '{r['case']}'{with_tol}.{hint}"]
            if want and not r["problem"].startswith(want):
                return [f"for {p.words} on '{r['case']}', the problem should start with '{want}' (the first thing that "
                        f"goes wrong, in this order: raised, lint, output, idempotent); it reads {r['problem'][:100]!r}."]
    return []


@register("02.check_pass", points=2, exercise="5", title="a harness that catches broken passes on the edge cases",
          cases=harness_cases)
def _check_pass(ctx: Context, cases: list[HarnessCase]) -> str:
    for case in [*cases, *harness_cases_always()]:
        got = ctx.probe(probe_harness, case.gallery, [p.fn for p in case.passes], [p.tol for p in case.passes])
        fail_if(harness_problems(got, list(case.passes), tuple(c["name"] for c in case.gallery), case.hint))
    return "a correct pass passes every case; each broken one is caught on the case that breaks it, for the right reason"
