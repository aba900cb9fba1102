"""Lab 06 — Compiling training: the acceptance checks.

Each check is a probe (`probe_*`: runs the learner's code in the kernel, returns plain data) and a judge
(`*_problems`: says what to fix), run on cases. The notebook runs them on the cases below; the grader runs the same
functions on hidden cases (other model sizes, functions with other breaks, other guard scenarios, other training
runs) with reference answers it computed itself, on the batch's device and torch.
"""

from __future__ import annotations

import copy
import functools
import math
import numbers
import re
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import torch
import torch.nn.functional as F
from torch import nn

from helpers.checks import Context, Learner, fail_if, register
from helpers.checks.dynamo_state import count_runs, settings_kept
from helpers.checks.own_work import OwnWorkNeeded, refusing

LAB = "06"
# ATen ops that only rename or reshape memory: the compute ops of a graph are the others.
VIEW_OPS = {"view", "_unsafe_view", "reshape", "t", "transpose", "permute", "expand", "slice", "select", "split",
            "split_with_sizes", "unsqueeze", "squeeze", "alias", "detach", "clone", "as_strided", "getitem", "unbind"}
FORWARD_OPS = ("embedding", "native_layer_norm", "_softmax", "gelu", "_log_softmax", "nll_loss_forward")
DERIVATIVE_OPS = ("embedding_dense_backward", "native_layer_norm_backward", "_softmax_backward_data", "gelu_backward",
                  "_log_softmax_backward_data", "nll_loss_backward")


# ---------------------------------------------------------------- shared pieces
@dataclass(frozen=True)
class GPTCase:
    """A MiniGPT and a batch of tokens with their next-token targets, reproducible from a seed."""

    about: str
    seed: int
    n_layers: int = 1
    d_model: int = 32
    n_heads: int = 2
    vocab: int = 97
    batch: int = 2
    seq: int = 12

    def model(self) -> nn.Module:
        from helpers.models import MiniGPT

        return MiniGPT(vocab=self.vocab, d_model=self.d_model, n_heads=self.n_heads, n_layers=self.n_layers,
                       max_len=max(self.seq, 16))

    def build(self, device: str | torch.device = "cpu"):
        torch.manual_seed(self.seed)
        model = self.model().to(device)
        tokens = torch.randint(0, self.vocab, (self.batch, self.seq + 1), device=device)
        return model, tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()


class GatedLM(nn.Module):
    """A one-layer language model with a gated projection: one Linear to 2·d, split in two halves with chunk, one
    half times the SiLU of the other. Autograd saves both halves, views of one storage twice their size that start at
    different places in it (the storage is one allocation: counted once)."""

    def __init__(self, vocab: int, d_model: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.up = nn.Linear(d_model, 2 * d_model)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, idx):
        a, b = self.up(self.embed(idx)).chunk(2, dim=-1)
        return self.head(a * F.silu(b))


@dataclass(frozen=True)
class GatedCase(GPTCase):
    """A GatedLM and a batch of tokens with their next-token targets, reproducible from a seed."""

    def model(self) -> nn.Module:
        return GatedLM(self.vocab, self.d_model)


def lm_loss(model: nn.Module, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Next-token cross-entropy of a language model over every position (the lab's `loss_fn`)."""
    logits = model(idx)
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def aten_name(target: Any) -> str:
    """'aten.mm' for an ATen overload or packet, the plain name for anything else (operator.getitem → 'getitem')."""
    packet = getattr(target, "overloadpacket", target)
    if isinstance(packet, torch._ops.OpOverloadPacket):
        return f"aten.{packet.__name__}" if str(packet).startswith("aten.") else str(packet)
    return getattr(target, "__name__", str(target))


def compute_ops(histogram: dict) -> Counter:
    """A histogram without the ops that only view or copy memory, keyed by bare op name ('mm')."""
    out: Counter = Counter()
    for name, n in (histogram or {}).items():
        bare = str(name).split(".")[-1]
        if bare not in VIEW_OPS:
            out[bare] += int(n)
    return out


def histogram_of(gm) -> dict:
    """Every call_function node of a graph, counted by name (the checker's own count)."""
    return dict(Counter(aten_name(n.target) for n in gm.graph.nodes if n.op == "call_function"))


def run_device(learner: Learner) -> torch.device:
    from helpers.env import pick_device

    return pick_device(learner.settings.device)


def own_work(learner: Learner, check: str, refused: tuple, name: str, *args) -> Any:
    """Call the learner's `name` while the checker's own versions of the exercise (`refused`, functions of this
    module that the given cells import) refuse to run: the check grades the learner's code, not the checker's."""
    try:
        with refusing(check, {f"helpers.checks.lab06.{f.__name__}": f for f in refused}):
            return learner.call(name, *args)
    except OwnWorkNeeded as err:       # own_work's sentence speaks of Lab 07's runner: say it for this lab
        raise OwnWorkNeeded(str(err).replace("the package's version (the runner uses it later)",
                                             "the checker's own version (the given cells use it)")) from None


# ---------------------------------------------------------------- A: two graphs from one step
def probe_two_graphs(learner: Learner, case: GPTCase) -> dict:
    """record_train_graphs and op_histogram on the case's MiniGPT: how many graphs, what is in them, whether the
    step really ran backward."""
    torch._dynamo.reset()
    model, idx, targets = case.build(run_device(learner))
    params = list(model.parameters())
    reached: set = set()             # the parameters whose gradient the backward computed (however .grad is left)
    hooks = [p.register_hook(lambda grad, i=i: reached.add(i)) for i, p in enumerate(params)]
    try:
        graphs = own_work(learner, "06.two_graphs", TWO_GRAPHS_OWN, "record_train_graphs", model, idx, targets)
    except OwnWorkNeeded:
        raise
    except Exception as err:          # aot_autograd(partition_fn=None): Dynamo wraps the TypeError of calling None
        if "'NoneType' object is not callable" in str(err):
            return {"type": "raised", "none_partition": True}
        raise
    finally:
        for hook in hooks:
            hook.remove()
    if not isinstance(graphs, dict):
        return {"type": type(graphs).__name__}
    info = {"type": "dict", "keys": sorted(map(str, graphs)), "grads": len(reached) == len(params)}
    for side in ("forward", "backward"):
        gms = graphs.get(side)
        gms = [gms] if isinstance(gms, torch.fx.GraphModule) else list(gms or [])
        info[side] = {"count": len(gms), "modules": all(isinstance(g, torch.fx.GraphModule) for g in gms),
                      "types": sorted({type(g).__name__ for g in gms if not isinstance(g, torch.fx.GraphModule)})}
        if gms and info[side]["modules"]:
            info[side]["truth"] = [histogram_of(g) for g in gms]
            info[side]["learner"] = [own_work(learner, "06.two_graphs", TWO_GRAPHS_OWN, "op_histogram", g) for g in gms]
    other = other_namespace_graph()
    info["other_namespace"] = {"truth": histogram_of(other),
                               "learner": own_work(learner, "06.two_graphs", TWO_GRAPHS_OWN, "op_histogram", other)}
    info["partition_used"], info["second_call"] = partition_handed_on(learner, case)
    return info


def other_namespace_graph() -> "torch.fx.GraphModule":
    """A graph (never run) with an op outside the aten namespace, as Inductor's decompositions leave them
    (prims.convert_element_type), next to aten ops and a getitem: op_histogram names each by its own packet."""
    import operator

    import torch.fx as fx

    g = fx.Graph()
    x = g.placeholder("x")
    y = g.call_function(torch.ops.aten.mul.Tensor, (x, x))
    z = g.call_function(torch.ops.prims.convert_element_type.default, (y, torch.float16))
    halves = g.call_function(torch.ops.aten.split.Tensor, (z, 2))
    g.output(g.call_function(operator.getitem, (halves, 0)))
    return fx.GraphModule(nn.Module(), g)


def partition_handed_on(learner: Learner, case: GPTCase) -> tuple[bool, dict]:
    """Whether record_train_graphs hands a partition_fn it is given on to aot_autograd (part B records min-cut's
    graphs with it): a partitioner that does the default partition's work and notes that it was called; and how many
    graphs of each side this second call returned (one each, unless it adds to what an earlier call kept)."""
    from torch._functorch.partitioners import default_partition

    called = []

    def partition(*args, **kwargs):
        called.append(True)
        return default_partition(*args, **kwargs)

    torch._dynamo.reset()
    model, idx, targets = case.build(run_device(learner))
    graphs = own_work(learner, "06.two_graphs", TWO_GRAPHS_OWN, "record_train_graphs", model, idx, targets, partition)
    torch._dynamo.reset()
    counts = {}
    for side in ("forward", "backward"):
        gms = graphs.get(side) if isinstance(graphs, dict) else None
        counts[side] = 1 if isinstance(gms, torch.fx.GraphModule) else len(gms) if isinstance(gms, (list, tuple)) else None
    return bool(called), counts


def per_layer_counts(n_layers: int) -> dict:
    """How often a MiniGPT of n_layers runs the ops that mark it, forward and backward (two layer norms per block
    and a final one; one softmax and one GELU per block; token and position embeddings)."""
    fw = {"native_layer_norm": 2 * n_layers + 1, "_softmax": n_layers, "gelu": n_layers, "embedding": 2}
    bw = {"native_layer_norm_backward": 2 * n_layers + 1, "_softmax_backward_data": n_layers, "gelu_backward": n_layers,
          "embedding_dense_backward": 2}
    return {"forward": fw, "backward": bw}


def two_graphs_problems(info: dict, about: str, n_layers: int = 1) -> list[str]:
    if info.get("none_partition"):
        return ["record_train_graphs handed aot_autograd partition_fn=None, and aot_autograd calls whatever it is "
                "given: with None, leave partition_fn out (aot_autograd then uses its default partitioner); pass it "
                "on only when one is given."]
    if info.get("type") != "dict" or not {"forward", "backward"} <= set(info.get("keys", [])):
        return [f"record_train_graphs should return a dict with 'forward' and 'backward' lists of GraphModules; it returned "
                f"{info.get('type')} with keys {info.get('keys')}."]
    if not info.get("grads"):
        return [f"on {about}, the model's parameters have no .grad after record_train_graphs: run the backward pass "
                "(loss.backward()) on the model you were given (not a copy of it), so AOTAutograd hands your backend "
                "the backward graph of that model's step."]
    for side in ("forward", "backward"):
        if info[side]["count"] and not info[side]["modules"]:
            return [f"on {about}, record_train_graphs's '{side}' list holds {', '.join(info[side]['types'])}, not the "
                    "fx.GraphModule the compiler received: keep the gm itself (what the compiler returns is only what "
                    "AOTAutograd will run)."]
    if info["forward"]["count"] and not info["backward"]["count"]:
        fw_ops = info["forward"].get("truth", [{}])[0]
        if any(str(op).startswith("aten.") for op in fw_ops):     # AOTAutograd's forward: its backward never ran
            return [f"on {about}, your backend received AOTAutograd's forward graph and no backward graph, though the "
                    "model's gradients were computed: the backward ran on a loss the compiled function did not "
                    "return. Call .backward() on the output of the compiled function, so that AOTAutograd compiles "
                    "its backward graph and hands it to your bw_compiler."]
        return [f"on {about}, backward ran but your backend received no backward graph: a plain Dynamo backend sees "
                "only the forward (torch-level) graph. Build it with aot_autograd(fw_compiler=..., bw_compiler=...), so "
                "AOTAutograd hands you both ATen graphs."]
    for side in ("forward", "backward"):
        got = info[side]
        if not got["modules"] or got["count"] != 1:
            hint = (" A backward graph is compiled only when backward runs." if side == "backward" and got["count"] == 0
                    else " Compile only the loss function (model + loss), not the optimizer or .backward() call, "
                         "call torch._dynamo.reset() first, and start from new lists on every call, so that graphs of an "
                         "earlier call are not counted.")
            return [f"on {about}, expected exactly one {side} GraphModule, got {got['count']}.{hint}"]
    fw, bw = compute_ops(info["forward"]["truth"][0]), compute_ops(info["backward"]["truth"][0])
    if any(op in fw for op in DERIVATIVE_OPS) and not any(op in bw for op in DERIVATIVE_OPS):
        return [f"on {about}, the 'forward' graph holds the derivative ops and the 'backward' one does not: the two are "
                "swapped. aot_autograd's fw_compiler receives the forward graph, its bw_compiler the backward graph."]
    missing = [op for op in FORWARD_OPS if op not in fw] + [op for op in DERIVATIVE_OPS if op not in bw]
    if missing:
        return [f"on {about}, the graphs lack {', '.join(missing)}: these are not AOTAutograd's ATen graphs of the "
                "model's forward and backward (use aot_autograd's fw_compiler and bw_compiler)."]
    for side, ops in (("forward", fw), ("backward", bw)):
        off = [op for op, n in per_layer_counts(n_layers)[side].items() if ops.get(op) != n]
        if off:
            return [f"on {about}, the {side} graph holds {ops.get(off[0], 0)} {off[0]}, not the {per_layer_counts(n_layers)[side][off[0]]} "
                    f"a MiniGPT of {n_layers} block(s) runs: return the graphs of the model you were given, compiled "
                    "afresh (torch._dynamo.reset() first), not graphs kept from an earlier compile."]
    for side in ("forward", "backward"):
        want, got = info[side]["truth"][0], info[side]["learner"][0]
        if (isinstance(got, dict) and {str(k) for k in got} == set(want) and set(got.values()) == {1}
                and max(want.values()) > 1):
            return [f"op_histogram of the {side} graph gives every op a count of 1: count how many nodes call each op "
                    "(a graph calls aten.mm, aten.view and others more than once), not only which ops appear."]
        if not isinstance(got, dict) or {str(k): v for k, v in got.items()} != want:
            wrong = sorted(k for k in set(want) | set(got or {}) if (got or {}).get(k) != want.get(k))[:4] if isinstance(got, dict) else []
            return [f"op_histogram of the {side} graph is off for {', '.join(map(str, wrong)) or 'its type'}: count every "
                    "call_function node once, named by its overload packet ('aten.mm', not 'aten.mm.default'; "
                    "operator.getitem as 'getitem')."]
    other = info.get("other_namespace") or {}
    got = other.get("learner")
    if not isinstance(got, dict) or {str(k): v for k, v in got.items()} != other.get("truth"):
        return ["op_histogram of a graph with an op outside the aten namespace (prims.convert_element_type, as "
                "Inductor's decompositions leave them) is off: name each op by str() of its overload packet, which "
                "carries the op's own namespace ('prims.convert_element_type'), rather than writing 'aten.' in front "
                "of every name."]
    second = info.get("second_call") or {}
    if any(n is not None and n > 1 for n in second.values()):
        return [f"on {about}, a second call of record_train_graphs returned {second.get('forward')} forward and "
                f"{second.get('backward')} backward graphs: it added its graphs to those of an earlier call. Start from "
                "new lists on every call (a default argument, or a dict made at module level, is made once and shared "
                "by every call)."]
    if info.get("partition_used") is False:
        return ["record_train_graphs was given a partition_fn and aot_autograd never called it: pass it on "
                "(aot_autograd(..., partition_fn=partition_fn)) when it is not None, so that part B records the "
                "min-cut partitioner's graphs and not the default's again; and compile afresh on every call "
                "(torch._dynamo.reset() first), never handing back graphs kept from an earlier compile."]
    return []


@register("06.two_graphs", points=4, exercise="A", title="one training step, two graphs: AOTAutograd's forward and backward",
          cases=[GPTCase("the lab's MiniGPT", seed=6)])
def _two_graphs(ctx: Context, cases: list[GPTCase]) -> str:
    for case in cases:
        fail_if(two_graphs_problems(ctx.probe(probe_two_graphs, case), case.about, case.n_layers))
    return "one forward and one backward graph, every op counted"


# ---------------------------------------------------------------- B: what the partitioner saves
@dataclass(frozen=True)
class SavedCase:
    """A MiniGPT case and what the two graphs and eager autograd save for it (None: worked out here)."""

    gpt: GPTCase
    saved: dict | None = None          # {name: bytes} of the activations the forward graph hands to backward
    eager_bytes: int | None = None     # bytes of the distinct non-parameter storages eager autograd saves
    layout: dict | None = None         # {name: (shape, dtype name)} of the same activations


def graphs_of(model: nn.Module, idx, targets, partition_fn: Callable | None = None) -> tuple:
    """The checker's own forward and backward graphs of one step (the given partitioner, or aot_autograd's default)."""
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.aot_autograd import make_boxed_func

    got: dict[str, list] = {"fw": [], "bw": []}

    def keeper(side):
        def compiler(gm, example_inputs):
            got[side].append(gm)
            return make_boxed_func(gm.forward)
        return compiler

    extra = {"partition_fn": partition_fn} if partition_fn is not None else {}
    torch._dynamo.reset()
    loss = torch.compile(lm_loss, backend=aot_autograd(fw_compiler=keeper("fw"), bw_compiler=keeper("bw"), **extra))(model, idx, targets)
    loss.backward()
    torch._dynamo.reset()
    return got["fw"][0], got["bw"][0]


def saved_by_outputs(fw, user_outputs: int = 1) -> dict:
    """{name: bytes} of the tensors the forward graph returns beyond its user outputs that are not its own inputs."""
    inputs = {n.name for n in fw.graph.nodes if n.op == "placeholder"}
    out = next(n for n in fw.graph.nodes if n.op == "output").args[0]
    saved = {}
    for node in list(out)[user_outputs:]:
        val = getattr(node, "meta", {}).get("val") if isinstance(node, torch.fx.Node) else None
        if isinstance(val, torch.Tensor) and node.name not in inputs:
            saved[node.name] = val.numel() * val.element_size()
    return saved


def saved_layout(fw, user_outputs: int = 1) -> dict:
    """{name: (shape, dtype name)} of the tensors `saved_by_outputs` lists."""
    inputs = {n.name for n in fw.graph.nodes if n.op == "placeholder"}
    out = next(n for n in fw.graph.nodes if n.op == "output").args[0]
    return {node.name: (tuple(node.meta["val"].shape), dtype_name(node.meta["val"].dtype))
            for node in list(out)[user_outputs:]
            if isinstance(node, torch.fx.Node) and isinstance(node.meta.get("val"), torch.Tensor) and node.name not in inputs}


def dtype_name(dtype) -> str | None:
    """'float32' for torch.float32, 'torch.float32', 'float32' or an alias such as 'float'; None if it names no dtype."""
    if isinstance(dtype, torch.dtype):
        return str(dtype).removeprefix("torch.")
    named = getattr(torch, str(dtype).strip().removeprefix("torch."), None)
    return str(named).removeprefix("torch.") if isinstance(named, torch.dtype) else None


def shape_of(shape) -> tuple | None:
    """A listed shape as a tuple of ints (a torch.Size, tuple or list), or None if it is not one."""
    try:
        return tuple(int(n) for n in shape)
    except (TypeError, ValueError):
        return None


def autograd_saved_bytes(model: nn.Module, idx, targets) -> int:
    """Bytes of the distinct storages eager autograd packs for the backward of one `lm_loss` (its saved-tensor
    hooks see every one), the parameters' storages left out: what eager autograd keeps for the backward. (Walking
    `grad_fn.next_functions` and reading `_saved_*` attributes misses most of them on torch 2.11.)"""
    skip = {p.untyped_storage().data_ptr() for p in model.parameters()}
    sizes: dict[int, int] = {}

    def note(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        if storage.data_ptr() not in skip:
            sizes[storage.data_ptr()] = storage.nbytes()
        return t

    hooks = torch.autograd.graph.saved_tensors_hooks(note, lambda t: t)
    with hooks:
        lm_loss(model, idx, targets)
    return sum(sizes.values())


def packed_bytes(model: nn.Module, idx, targets) -> int:
    """Bytes of every tensor autograd packs during the forward, counted each time it is packed (a rough measure
    that falls when checkpointing keeps a block's activations out of the graph)."""
    total = [0]

    def count(t):
        total[0] += t.nelement() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(count, lambda t: t):
        lm_loss(model, idx, targets)
    return total[0]


@functools.lru_cache(maxsize=8)
def _step_graphs(case: GPTCase, device: str, mincut: bool) -> tuple:
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    model, idx, targets = case.build(device)
    return graphs_of(model, idx, targets, min_cut_rematerialization_partition if mincut else None)


def step_graphs(case: GPTCase, device: str | torch.device, mincut: bool = False) -> tuple:
    """The checker's forward and backward graphs of one step of the case's model (aot_autograd's default partition,
    or min-cut's): compiled once per case and device, handed out as copies, so what code does to them stays there."""
    return tuple(copy.deepcopy(g) for g in _step_graphs(case, str(device), mincut))


def saved_reference(case: GPTCase, device: str | torch.device) -> SavedCase:
    model, idx, targets = case.build(device)
    fw, _ = step_graphs(case, device)
    return SavedCase(case, saved_by_outputs(fw), autograd_saved_bytes(model, idx, targets), saved_layout(fw))


def probe_saved(learner: Learner, case: GPTCase) -> dict:
    """saved_activations on the checker's graphs of the case, and eager_saved_bytes on the case's model, twice (a
    fresh copy of the same step the second time: the answer must not depend on an earlier call)."""
    device = run_device(learner)
    model, idx, targets = case.build(device)
    fw, bw = step_graphs(case, device)
    rows = own_work(learner, "06.saved", SAVED_OWN, "saved_activations", fw, bw)
    eager = own_work(learner, "06.saved", SAVED_OWN, "eager_saved_bytes", model, idx, targets)
    again = own_work(learner, "06.saved", SAVED_OWN, "eager_saved_bytes", *case.build(device))   # the same, afresh
    try:
        listed = {str(r["name"]): int(r["bytes"]) for r in rows}
        layout = {str(r["name"]): (shape_of(r.get("shape")), dtype_name(r.get("dtype"))) for r in rows}
    except (TypeError, KeyError, ValueError, AttributeError):
        listed, layout = None, None
    return {"rows": listed, "layout": layout, "n_rows": len(rows) if hasattr(rows, "__len__") else None,
            "eager": eager, "eager_type": type(eager).__name__, "eager_again": again}


def saved_problems(got: dict, want: SavedCase, reveal: bool) -> list[str]:
    about = want.gpt.about
    if got.get("rows") is None:
        return ["saved_activations should return a list of dicts with at least 'name' and 'bytes' (and 'shape', 'dtype')."]
    rows, truth = got["rows"], want.saved
    if got.get("n_rows") != len(rows):
        return [f"on {about}, saved_activations lists some tensor twice."]
    extra, missing = sorted(set(rows) - set(truth)), sorted(set(truth) - set(rows))
    if extra or missing:
        problems = []
        if extra:
            problems.append(f"on {about}, saved_activations lists {len(extra)} value(s) the backward does not get from the "
                            f"forward's activations{' (' + ', '.join(extra[:4]) + ')' if reveal else ''}: leave out the "
                            "tangents (the incoming gradients) and the forward's own inputs (parameters and tokens "
                            "exist anyway), and non-tensors such as SymInts.")
        if missing:
            problems.append(f"on {about}, saved_activations misses {len(missing)} saved tensor(s)"
                            f"{' (' + ', '.join(missing[:4]) + ')' if reveal else ''}: every backward placeholder that "
                            "is neither a tangent nor a forward input is an activation the forward saved.")
        return problems
    wrong = [n for n in truth if rows[n] != truth[n]]
    if wrong:
        return [f"on {about}, the bytes of {', '.join(wrong[:3])} are off: bytes = numel × element_size of the node's "
                "meta['val'] (a FakeTensor)."]
    listed = {n: (tuple(v[0]) if isinstance(v[0], list) else v[0], v[1]) for n, v in (got.get("layout") or {}).items()}
    for part, at, say in (("shape", 0, "a tuple of the sizes of meta['val'] (a 0-d tensor's shape is ())"),
                          ("dtype", 1, "meta['val'].dtype, as a torch.dtype or its name")):
        wrong = [n for n in truth if listed.get(n, (None, None))[at] != want.layout[n][at]]
        if wrong:
            return [f"on {about}, the {part} of {', '.join(wrong[:3])} is missing or off: each row's '{part}' is {say}."]
    eager = got.get("eager")
    if not isinstance(eager, int) or isinstance(eager, bool):
        return [f"eager_saved_bytes should return an int (bytes); it returned a {got.get('eager_type')}."]
    if got.get("eager_again") != eager:
        return [f"on {about}, eager_saved_bytes gave {got.get('eager_again')!r} when asked again about the same step "
                f"(the first time {eager:,}): start from nothing on every call, keeping no storages from an earlier "
                "one."]
    if eager == 0 and want.eager_bytes > 0:
        return [f"on {about}, eager_saved_bytes gave 0 bytes, yet eager autograd saves tensors for this step's "
                "backward: count the storages the pack hook of torch.autograd.graph.saved_tensors_hooks receives while "
                "loss_fn runs, which works on any device (a CUDA allocator figure such as torch.cuda.memory_allocated() "
                "never moves for a step on the CPU, and counts more than what is saved on a GPU)."]
    if eager != want.eager_bytes:
        said = f"{eager:,} bytes, expected {want.eager_bytes:,}" if reveal else f"{eager:,} bytes, which is not what eager autograd saves"
        return [f"on {about}, eager_saved_bytes gave {said}: count each storage once (several saved views of one "
                "tensor are one allocation: untyped_storage().data_ptr()), use its nbytes, and leave out the "
                "parameters' storages, and only those (a saved weight or its transpose costs nothing extra; the "
                "tokens and targets autograd saves for the embedding and the loss count)."]
    return []


@register("06.saved", points=3, exercise="B", title="the activations forward hands to backward, compiled and eager",
          cases=lambda: [saved_reference(GPTCase("the lab's MiniGPT", seed=6), "cpu"),
                         saved_reference(GatedCase("a gated model (one projection split in two with chunk: a saved half "
                                                   "is a view of a storage twice its size)", seed=7), "cpu")])
def _saved(ctx: Context, cases: list[SavedCase]) -> str:
    for case in cases:
        fail_if(saved_problems(ctx.probe(probe_saved, case.gpt), case, ctx.reveal))
    return "saved activations and their bytes are right, compiled and eager"


# ---------------------------------------------------------------- B2: what min-cut recomputes
@dataclass(frozen=True)
class RecomputeCase:
    """A MiniGPT's two backward graphs (gpt), or two graphs made from op counts: ((op, times), ...) for the default
    backward and for min-cut's, where an op min-cut runs more often may also run in the default one."""

    gpt: GPTCase | None
    want: tuple | None = None
    counts: tuple | None = None
    label: str = ""
    fewer: tuple = ()                  # compute ops min-cut's backward runs less often (moved into its forward)

    @property
    def about(self) -> str:
        return self.gpt.about if self.gpt is not None else self.label


# ops counted_graph can write: aten op → (overload, how many inputs)
COUNTABLE = {"mm": ("default", 2), "mul": ("Tensor", 2), "add": ("Tensor", 2), "tanh": ("default", 1),
             "exp": ("default", 1), "view": ("default", None), "t": ("default", 1)}


def counted_graph(counts: tuple) -> "torch.fx.GraphModule":
    """A graph that calls each aten op of ((op, times), ...) that many times (never run: read as a histogram)."""
    import torch.fx as fx

    g = fx.Graph()
    y = g.placeholder("x")
    for op, times in counts:
        overload, arity = COUNTABLE[op]
        target = getattr(getattr(torch.ops.aten, op), overload)
        for _ in range(times):
            args = (y, [4, 4]) if arity is None else (y,) * arity
            y = g.call_function(target, args)
    g.output(y)
    return fx.GraphModule(nn.Module(), g)


def synthetic_recompute_case() -> RecomputeCase:
    """mul runs in both backwards, twice more in min-cut's; tanh in min-cut's alone; mm and views alike in both;
    add once less in min-cut's (min-cut can move a computation the backward needs into the forward, as it does the
    layer norm's 1/σ): an op that runs less often is not recomputed."""
    default = (("mm", 4), ("mul", 2), ("t", 2), ("view", 3), ("add", 2))
    mincut = (("mm", 4), ("mul", 4), ("tanh", 1), ("t", 3), ("view", 5), ("add", 1))
    return recompute_counts_case(default, mincut, "two backward graphs where min-cut runs mul twice more than the "
                                                  "default (which runs it too), tanh only in its own, and add less often")


def recompute_counts_case(default: tuple, mincut: tuple, label: str) -> RecomputeCase:
    """A RecomputeCase of two graphs made from op counts, with its truth and the ops min-cut runs less often."""
    a, b = (compute_ops(histogram_of(counted_graph(c))) for c in (default, mincut))
    return RecomputeCase(None, recompute_truth_counts(default, mincut), (default, mincut), label,
                         tuple(sorted(op for op in a if a[op] > b.get(op, 0))))


def recompute_truth_counts(default: tuple, mincut: tuple) -> tuple:
    return recompute_truth(counted_graph(default), counted_graph(mincut))


def recompute_truth(bw_default, bw_mincut) -> tuple:
    """Compute ops the min-cut backward runs more often than the default backward does, sorted."""
    a, b = compute_ops(histogram_of(bw_default)), compute_ops(histogram_of(bw_mincut))
    return tuple(sorted(op for op in b if b[op] > a.get(op, 0)))


def recompute_reference(case: GPTCase, device) -> RecomputeCase:
    default, mincut = step_graphs(case, device)[1], step_graphs(case, device, mincut=True)[1]
    a, b = compute_ops(histogram_of(default)), compute_ops(histogram_of(mincut))
    return RecomputeCase(case, recompute_truth(default, mincut),
                         fewer=tuple(sorted(op for op in a if a[op] > b.get(op, 0))))


def probe_recompute(learner: Learner, case: "GPTCase | tuple") -> dict:
    """recomputed_ops on a MiniGPT's default and min-cut backward graphs, or on two graphs made from op counts."""
    if isinstance(case, tuple):
        graphs = counted_graph(case[0]), counted_graph(case[1])
    else:
        device = run_device(learner)
        graphs = step_graphs(case, device)[1], step_graphs(case, device, mincut=True)[1]
    with learner.replacing("op_histogram", histogram_of):   # part A's: its mistakes are A's to pay
        try:
            got = own_work(learner, "06.recompute", RECOMPUTE_OWN, "recomputed_ops", *graphs)
        except KeyError as err:       # a plain dict indexed with an op the other graph never runs
            return {"ops": None, "missing_key": str(err)[:80]}
        except IndexError as err:     # a name split on "." and indexed past its end: getitem has no "aten." part
            return {"ops": None, "index_error": str(err)[:80]}
    try:
        named = [str(o).split(".")[-1] for o in got]
        return {"ops": sorted(set(named)), "twice": sorted({o for o in named if named.count(o) > 1})}
    except TypeError:
        return {"ops": None, "type": type(got).__name__}


def recompute_problems(got: dict, case: RecomputeCase, reveal: bool) -> list[str]:
    if got.get("missing_key"):
        return [f"on {case.about}, recomputed_ops raised KeyError {got['missing_key']}: an op that runs only in min-cut's "
                "backward has no count in the default backward's histogram. Count it as 0 there: a Counter gives 0 "
                "for a missing key, a dict gives it with a.get(op, 0)."]
    if got.get("index_error"):
        return [f"on {case.about}, recomputed_ops raised IndexError ({got['index_error']}): not every name in the "
                "histograms is 'aten.<op>'. A plain Python function such as getitem is named by its __name__, with "
                "no dot, so name.split('.')[1] has nothing to index: take the part after the last dot "
                "(name.split('.')[-1]) or name.removeprefix('aten.')."]
    if got.get("ops") is None:
        return [f"recomputed_ops should return a list or set of op names; it returned a {got.get('type')}."]
    want = list(case.want)
    views = [op for op in got["ops"] if op in VIEW_OPS]
    if views and not set(views) <= set(want):
        named = f" ({', '.join(views)})" if reveal else ""
        return [f"on {case.about}, recomputed_ops lists {len(views)} view or copy op(s){named}: leave out the ops "
                "that only view or copy memory (VIEW_AND_COPY_OPS, matched on the bare name without 'aten.') and keep "
                "the compute ops min-cut's backward runs more often."]
    if got.get("twice"):
        return [f"on {case.about}, recomputed_ops names {len(got['twice'])} op(s) more than once: list each op that "
                "min-cut's backward runs more often once, however many more times it runs (a sorted list of names, "
                "not Counter(...).elements())."]
    fewer = [op for op in got["ops"] if op in case.fewer]
    if fewer:
        named = f" ({', '.join(fewer)})" if reveal else ""
        return [f"on {case.about}, recomputed_ops lists {len(fewer)} op(s) that min-cut's backward runs less often than "
                f"the default backward{named} (the partitioner moved that work into the forward): keep only the ops "
                "min-cut's backward runs more often (its count greater than the default's), not those whose counts "
                "merely differ."]
    if got["ops"] != want:
        said = f"{got['ops']}, expected {want}" if reveal else "another set of ops"
        return [f"on {case.about}, recomputed_ops gave {said}: compare the compute ops (views and copies left out) "
                "of the two backward graphs, and keep those min-cut's backward runs more often."]
    return []


@register("06.recompute", points=2, exercise="B", title="the ops the min-cut partitioner recomputes instead of saving",
          cases=lambda: [recompute_reference(GPTCase("the lab's MiniGPT", seed=6), "cpu"), synthetic_recompute_case()])
def _recompute(ctx: Context, cases: list[RecomputeCase]) -> str:
    for case in cases:
        fail_if(recompute_problems(ctx.probe(probe_recompute, case.gpt if case.counts is None else case.counts), case,
                                   ctx.reveal))
    return "the recomputed ops are right"


class PointwiseMLP(nn.Module):
    """Embedding, a Linear, a chain of pointwise ops on its output, a Linear to the vocabulary: a model whose min-cut
    partition visibly recomputes (Lab 06, part B)."""

    def __init__(self, vocab: int = 97, d_model: int = 32, hidden: int = 128):
        super().__init__()
        self.tok, self.up, self.down = nn.Embedding(vocab, d_model), nn.Linear(d_model, hidden), nn.Linear(hidden, vocab)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        h = self.up(self.tok(idx))
        g = F.gelu(h) * h
        return self.down(torch.sin(g) * g)


# ---------------------------------------------------------------- C: backward kernels
TRAIN_CAPTURE = None   # None: the notebook's own capture of a training step (`train_code`)


def is_derivative(op: str) -> bool:
    op = str(op).split(".")[-1]
    return op.endswith("_backward") or op.endswith("_backward_data")


@dataclass(frozen=True)
class KernelListCase:
    about: str
    kernels: list | None = TRAIN_CAPTURE


def probe_backward_kernels(learner: Learner, kernels: list | None) -> dict:
    """derivative_kernels on the kernels (None: the notebook's capture) in their order and reversed."""
    import dataclasses

    kernels = list(learner.value("train_code").kernels) if kernels is None else list(kernels)
    listed = [{"name": k.name, "aten_ops": list(k.aten_ops)} for k in kernels] \
        if dataclasses.is_dataclass(kernels[0] if kernels else None) else []
    answers, changed = [], False
    for ks in (kernels, list(reversed(kernels))):
        given = copy.deepcopy(ks)        # copies: the notebook's capture stays as it is, whatever the code does
        got = own_work(learner, "06.backward_kernels", KERNELS_OWN, "derivative_kernels", given)
        if listed:
            changed = changed or sorted((k.name, list(k.aten_ops)) for k in given) != \
                sorted((k["name"], k["aten_ops"]) for k in listed)
        try:
            answers.append({str(k): sorted(str(o).split(".")[-1] for o in v) for k, v in dict(got).items()})
        except (TypeError, ValueError):
            answers.append(None)
    return {"answers": answers, "kernels": listed, "changed": changed}


def shown(names: list[str], most: int = 2) -> str:
    """Up to `most` kernel names, and how many more."""
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def backward_kernel_problems(got: dict, about: str) -> list[str]:
    truth = {k["name"]: sorted(o for o in k["aten_ops"] if is_derivative(o)) for k in got["kernels"]}
    truth = {k: v for k, v in truth.items() if v}
    if not truth:
        return [f"{about} holds no kernel that computes a derivative: capture a step that runs backward."]
    if got.get("changed"):
        return [f"on {about}, derivative_kernels changed the kernels it was given (their aten_ops): build a new list "
                "for each kernel and leave the kernels as they are; the notebook reads them again (the cell after "
                "it prints what else each kernel fuses)."]
    for answer in got["answers"]:
        if answer is None:
            return ["derivative_kernels should return a dict {kernel name: [derivative ops it fuses]}."]
        names = {k["name"] for k in got["kernels"]}
        if not set(answer) <= names:
            return [f"on {about}, derivative_kernels's keys are not kernel names: key the dict by each kernel's name (k.name)."]
        if answer != truth:
            named_only = [k for k in answer if k not in truth]
            missed = [k for k in truth if k not in answer]
            unnamed = [k for k in missed if "backward" not in k] if all("backward" not in k for k in missed) else []
            off = [k for k in truth if k in answer and answer[k] != truth[k]]
            hint = (f" {len(named_only)} of yours compute no derivative ({shown(named_only)}): a kernel's name can "
                    "mention 'backward' because of where its ops came from; decide by its aten_ops." if named_only else
                    f" {len(missed)} kernel(s) that fuse a derivative are missing, e.g. {unnamed[0]} (it fuses "
                    f"{', '.join(truth[unnamed[0]])}), whose name does not say 'backward': a kernel's name need not "
                    "(Inductor can name a kernel after the torch-level ops, or cut a long name short), so decide by "
                    "its aten_ops alone, whatever the name says." if unnamed else
                    f" {len(missed)} kernel(s) that fuse a derivative are missing, e.g. {missed[0]} (it fuses "
                    f"{', '.join(truth[missed[0]])}): an op is a derivative when its name ends in _backward or "
                    "_backward_data, whatever the model." if missed else
                    f" The kernels are the right ones, but the ops listed for {shown(off)} are not the derivative ops they fuse: "
                    "list every derivative op each one fuses, and only those.")
            return [f"on {about}, derivative_kernels picked {len(answer)} kernels, and {len(truth)} fuse a derivative "
                    f"op (an op whose name ends in _backward or _backward_data), or the ops listed are off.{hint}"]
    return []


def kernels_of(*fused: tuple) -> list:
    """Kernels as helpers.inductor parses them, from (name, aten ops) pairs: the checker's own kernel lists, of models
    whose derivatives are not MiniGPT's (a derivative decided by a list of MiniGPT's own ops misses them)."""
    from helpers.inductor import Kernel

    return [Kernel(name=name, kind="pointwise", device="cpu", aten_ops=list(ops)) for name, ops in fused]


def other_model_kernels() -> KernelListCase:
    return KernelListCase("the kernels of a training step through tanh, sigmoid and relu (another model)", kernels_of(
        ("cpp_fused_addmm_tanh_0", ("addmm", "tanh")),
        ("cpp_fused_relu_sigmoid_1", ("sigmoid", "relu")),
        ("cpp_fused_sigmoid_sigmoid_backward_threshold_backward_2", ("sigmoid_backward", "mul", "threshold_backward")),
        ("cpp_fused_backward_sum_3", ("sum", "view")),
        ("cpp_fused_tanh_tanh_backward_4", ("tanh", "tanh_backward", "sum")),
        ("cpp_fused__softmax_backward_data_5", ("_softmax_backward_data", "mul")),
        ("cpp_fused_mul_sum_6", ("mul", "sigmoid_backward", "sum"))))   # named after torch-level ops: no 'backward'


@register("06.backward_kernels", points=1, exercise="C", title="the fused backward kernels in Inductor's code",
          cases=lambda: [KernelListCase("this notebook's capture of a training step"), other_model_kernels()])
def _backward_kernels(ctx: Context, cases: list[KernelListCase]) -> str:
    for case in cases:
        fail_if(backward_kernel_problems(ctx.probe(probe_backward_kernels, case.kernels), case.about))
    return "every kernel that fuses a derivative found, with its ops"


# ---------------------------------------------------------------- D: breaks split the backward
def step_without_break(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return torch.tanh(x @ w).relu()


def step_with_break(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    h = torch.tanh(x @ w)
    print("", end="")                      # a print: Dynamo cannot put it in a graph
    return h.relu()


def step_frozen_then_break(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    h = torch.sin(x) * 2                   # x needs no gradient: AOTAutograd compiles no backward for this graph
    print("", end="")
    return torch.tanh(h @ w)


@dataclass(frozen=True)
class BreakCase:
    about: str
    fn: Callable
    shape: tuple = (4, 8)
    want: tuple | None = None           # (forward graphs, backward graphs)


def break_inputs(shape: tuple) -> tuple:
    torch.manual_seed(0)
    return torch.randn(*shape), torch.randn(shape[-1], shape[-1], requires_grad=True)


def probe_breaks(learner: Learner, fn: Callable, shape: tuple) -> dict:
    torch._dynamo.reset()
    x, w = break_inputs(shape)
    try:
        got = learner.call("count_graphs", fn, x, w)
    except torch._dynamo.exc.Unsupported:      # fullgraph=True meets the break (Dynamo's text names the function)
        torch._dynamo.reset()
        return {"got": None, "type": "an error", "unsupported": True}
    again = learner.call("count_graphs", fn, *break_inputs(shape))    # the same question again: the same answer
    return {"got": list(got) if isinstance(got, (tuple, list)) else None, "type": type(got).__name__,
            "grad": w.grad is not None, "again": list(again) if isinstance(again, (tuple, list)) else None}


def breaks_problems(got: dict, case: BreakCase, reveal: bool) -> list[str]:
    if got.get("unsupported"):
        return [f"on {case.about}, count_graphs raised Dynamo's Unsupported error: fn has a graph break (a print) and "
                "Dynamo was told not to break the graph there (fullgraph=True). Compile without fullgraph: the break "
                "is what splits fn into the graphs you count."]
    if got.get("got") is None or len(got["got"]) != 2:
        return [f"count_graphs should return (forward graphs, backward graphs); it returned a {got.get('type')}."]
    if not got.get("grad"):
        return [f"on {case.about}, the weight handed to count_graphs has no .grad afterwards: call fn on the arguments "
                "as given (not on copies of them) and call .sum().backward() on the output, so the backward graphs get "
                "compiled and counted."]
    if got["got"][1] == 0 and case.want[1] > 0 and got["got"][0] == case.want[0]:
        return [f"on {case.about}, count_graphs counted {got['got'][0]} forward graph(s) and no backward graph, though "
                "the weight got its gradient: AOTAutograd compiles a backward graph (and calls your bw_compiler) only "
                "when .backward() first runs through the compiled function's output. Run .sum().backward() on that "
                "output, and read the counts after it."]
    if tuple(got["got"]) != tuple(case.want):
        said = f"{tuple(got['got'])}, expected {tuple(case.want)}" if reveal else f"{tuple(got['got'])}, which is not what Dynamo compiled"
        fw, bw = got["got"]
        hint = (" A graph whose outputs need no gradient gets no backward graph, so do not assume one backward per "
                "forward." if fw == bw and case.want[0] != case.want[1] else "")
        return [f"on {case.about}, count_graphs gave {said}: count the graphs your aot_autograd backend's fw_compiler "
                f"and bw_compiler receive (torch._dynamo.reset() first).{hint}"]
    if got.get("again") != got["got"]:
        return [f"on {case.about}, count_graphs gave {tuple(got['got'])} and then, asked again about the same step, "
                f"{tuple(got['again'] or ())}: count from zero in every call (counters made inside the function, "
                "not kept from an earlier call)."]
    return []


@register("06.breaks", points=2, exercise="D", title="a graph break in forward splits the backward too",
          cases=[BreakCase("a step without a break", step_without_break, want=(1, 1)),
                 BreakCase("a step with a print in it", step_with_break, want=(2, 2)),
                 BreakCase("a print after a piece that needs no gradient", step_frozen_then_break, want=(2, 1))])
def _breaks(ctx: Context, cases: list[BreakCase]) -> str:
    for case in cases:
        fail_if(breaks_problems(ctx.probe(probe_breaks, case.fn, case.shape), case, ctx.reveal))
    return "forward and backward graphs counted"


# ---------------------------------------------------------------- D2: guards and recompiles
class Dropper(nn.Module):
    """A Linear followed by dropout: its forward reads self.training."""

    def __init__(self):
        super().__init__()
        self.lin, self.drop = nn.Linear(8, 8), nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.lin(x))


def branch_on_int(x: torch.Tensor, n: int) -> torch.Tensor:
    """Python branches on a plain int."""
    if n > 2:
        return x * n
    return x + n


def make_linear() -> nn.Module:
    return nn.Linear(8, 8)


def make_branch() -> Callable:
    return branch_on_int


def flip_eval(compiled, fn):
    """Call in train mode, then in eval mode, then in train mode again."""
    x = torch.randn(4, 8)
    compiled(x)
    fn.eval()
    compiled(x)
    fn.train()
    compiled(x)


def flip_requires_grad(compiled, fn):
    x = torch.randn(4, 8)
    compiled(x)
    compiled(x.clone().requires_grad_())


def flip_autocast(compiled, fn):
    x = torch.randn(4, 8)
    compiled(x)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        compiled(x)


def int_calls(compiled, fn):
    x = torch.randn(4)
    for n in (1, 2, 3, 4, 1):
        compiled(x, n)


@dataclass(frozen=True)
class GuardCase:
    """A function (or a module class to build), a script of calls on its compiled version, and the compile count."""

    key: str
    make: Callable
    script: Callable
    want: int | None = None


def public_guard_cases() -> list[GuardCase]:
    return list(_public_guard_cases())


@functools.lru_cache(maxsize=1)
def _public_guard_cases() -> tuple:
    """The notebook's four scenarios with their compile counts on this machine (measured once)."""
    cases = [GuardCase("eval", Dropper, flip_eval), GuardCase("requires_grad", make_linear, flip_requires_grad),
             GuardCase("autocast", make_linear, flip_autocast), GuardCase("int_branch", make_branch, int_calls)]
    return tuple(GuardCase(c.key, c.make, c.script, compiles_of(c.make, c.script)) for c in cases)


def compiles_of(make: Callable, script: Callable) -> int:
    """The checker's own count: graphs Dynamo compiled while the script ran (its `unique_graphs` statistic)."""
    from torch._dynamo.utils import counters

    torch.manual_seed(0)
    fn = make()
    torch._dynamo.reset()
    before = counters["stats"]["unique_graphs"]
    script(torch.compile(fn, backend="eager"), fn)
    n = counters["stats"]["unique_graphs"] - before
    torch._dynamo.reset()
    return n


def probe_guards(learner: Learner, cases: list[GuardCase], with_predictions: bool) -> dict:
    """count_compiles on each scenario, then on each again (a count must not depend on what was compiled before: the
    second round finds the graphs and the dynamic sizes an answer without torch._dynamo.reset() carries over)."""
    rounds: list[list] = [[], []]
    for counts in rounds:
        for case in cases:
            torch.manual_seed(0)
            fn = case.make()
            counts.append(own_work(learner, "06.recompiles", RECOMPILES_OWN, "count_compiles", fn, case.script))
    info = {"counts": rounds[0], "again": rounds[1]}
    if with_predictions:
        said = learner.value("PREDICTED_COMPILES")
        info["predictions"] = ({str(k): v if is_count(v) else None if v is Ellipsis else f"{v!r} (a {type(v).__name__})"
                                for k, v in said.items()}
                               if isinstance(said, dict) else None)   # `...` (not filled in): None; not a count: words
    return info


def guard_problems(got: dict, cases: list[GuardCase], reveal: bool) -> list[str]:
    all_short = all(is_count(n) and n == case.want - 1 for n, case in zip(got["counts"], cases))
    for n, case in zip(got["counts"], cases):
        if not is_count(n) or n != case.want:
            said = f"{n!r}, measured {case.want}" if reveal else f"{n!r}, which is not the number of compiles"
            first = "count every compile, the first one included (not only the recompiles): " if all_short else ""
            return [f"on the '{case.key}' scenario, count_compiles gave {said}: {first}compile fn itself (not a copy: "
                    "the script flips fn's mode) with a new counting backend on every call "
                    "(torch._dynamo.testing.CompileCounter), torch._dynamo.reset() first, run the script on the compiled "
                    "function, and return the counter's frame_count."]
    for n, first, case in zip(got.get("again", []), got["counts"], cases):
        if n != first:
            return [f"asked about the '{case.key}' scenario a second time, count_compiles gave {n!r} (the first time "
                    f"{first!r}): call torch._dynamo.reset() first, so that the graphs and the dynamic sizes Dynamo "
                    "kept from an earlier call do not change the count."]
    return []


def is_count(n: Any) -> bool:
    return isinstance(n, int) and not isinstance(n, bool)


def prediction_problems(predictions: dict | None, cases: list[GuardCase]) -> list[str]:
    if predictions is None:
        return ["PREDICTED_COMPILES should be a dict {scenario: number of compiles}."]
    wrong, one_short = [], True
    unknown = sorted(set(predictions) - {c.key for c in cases})
    for case in cases:
        said = predictions.get(case.key)
        if case.key not in predictions and unknown:
            return [f"PREDICTED_COMPILES has no '{case.key}', and it has {', '.join(map(repr, unknown))}, which is no "
                    f"scenario: use the scenario names {', '.join(repr(c.key) for c in cases)}."]
        if said is None:
            return [f"PREDICTED_COMPILES['{case.key}'] is not filled in yet: write the number of compiles you expect."]
        if isinstance(said, str):
            return [f"PREDICTED_COMPILES['{case.key}'] should be a whole number of compiles (an int such as 2); it is {said}."]
        if said != case.want:
            wrong.append(f"'{case.key}': you predicted {said}, it compiled {case.want} time(s)")
            one_short = one_short and said == case.want - 1
    if wrong:
        first = " Count the first compile too: every prediction is one short." if one_short and len(wrong) > 1 else ""
        return ["; ".join(wrong) + f".{first} Read the guards printed above for each scenario: which one fails, and "
                "does Dynamo then compile again?"]
    return []


@register("06.recompiles", points=1, exercise="D", title="count the compiles a guard failure causes",
          cases=public_guard_cases)
def _recompiles(ctx: Context, cases: list[GuardCase]) -> str:
    fail_if(guard_problems(ctx.probe(probe_guards, cases, False), cases, ctx.reveal))
    return "compiles counted right in every scenario"


@register("06.predictions", points=1, exercise="D", title="predicted which guard fails and whether it recompiles",
          cases=public_guard_cases)
def _predictions(ctx: Context, cases: list[GuardCase]) -> str:
    got = ctx.probe(probe_guards, [], True)
    fail_if(prediction_problems(got.get("predictions"), cases))
    return "every prediction matches the measurement"


# ---------------------------------------------------------------- F: activation checkpointing
def block_modules(model: nn.Module) -> list[nn.Module]:
    from helpers.models import Block

    return [m for m in model.modules() if isinstance(m, Block)]


def probe_checkpoint(learner: Learner, case: GPTCase) -> dict:
    """checkpoint_blocks on the case's MiniGPT: same loss and gradients, block forwards re-run in backward, less saved."""
    device = run_device(learner)
    model, idx, targets = case.build(device)
    plain = copy.deepcopy(model)
    own = [id(p) for p in model.parameters()]          # what an optimizer made before checkpointing holds
    classes = {type(m) for m in model.modules()}
    methods = {cls: cls.__dict__.get("forward") for cls in classes}
    try:
        ck = learner.call("checkpoint_blocks", model)
    finally:
        patched = sorted(cls.__name__ for cls in classes if cls.__dict__.get("forward") is not methods[cls])
        for cls in classes:                            # every model built later: as it was
            if cls.__dict__.get("forward") is not methods[cls]:
                if methods[cls] is None:
                    delattr(cls, "forward")
                else:
                    cls.forward = methods[cls]
    if patched:
        return {"module": True, "class_patched": patched}
    info: dict = {"module": isinstance(ck, nn.Module)}
    if not info["module"]:
        return info
    kept = {id(p) for p in ck.parameters()}
    info["params_kept"], info["params"] = sum(i in kept for i in own), len(own)
    calls = {"forward": 0, "backward": 0}
    phase = ["forward"]
    events: list[str] = []        # in backward: "ln" for a recomputed layer norm, "grad" for a block's parameter gradient
    layer_norm = nn.LayerNorm.forward

    def counted(self, *args, **kwargs):   # looked up on the class at each call: counts a recomputed block however it
        calls[phase[0]] += 1              # was wrapped (module hooks do not fire when checkpoint re-runs a block)
        if phase[0] == "backward":
            events.append("ln")
        return layer_norm(self, *args, **kwargs)

    def noted(grad):
        events.append("grad")

    nn.LayerNorm.forward = counted
    hooks = [p.register_hook(noted) for block in block_modules(ck) for p in block.parameters() if p.requires_grad]
    try:
        with learner.running("checkpoint_blocks"):
            loss = lm_loss(ck, idx, targets)
            phase[0] = "backward"
            loss.backward()
    finally:
        nn.LayerNorm.forward = layer_norm
        for hook in hooks:
            hook.remove()
    first_grad = events.index("grad") if "grad" in events else len(events)
    ref = lm_loss(plain, idx, targets)
    ref.backward()
    mine, theirs = list(ck.parameters()), list(plain.parameters())   # a wrapper renames parameters, never reorders them
    same = len(mine) == len(theirs) and all(a.shape == b.shape for a, b in zip(mine, theirs))
    diffs = [(a.grad - b.grad).abs().max().item() if a.grad is not None else math.inf for a, b in zip(mine, theirs)] if same else []
    info.update(blocks=len(block_modules(ck)), want_blocks=case.n_layers, calls=calls, loss_diff=abs(loss.item() - ref.item()),
                recomputed_at_once=events[:first_grad].count("ln"),
                grad_diff=max(diffs) if diffs else math.inf, same_names=same,
                saved=packed_bytes(ck, idx, targets), saved_plain=packed_bytes(plain, idx, targets))
    return info


def checkpoint_problems(got: dict, about: str) -> list[str]:
    if got.get("class_patched"):
        return [f"on {about}, checkpoint_blocks replaced the forward of the class {', '.join(got['class_patched'])} "
                "itself, so every model built from it (the plain model the check compares with, any MiniGPT made "
                "later) runs checkpointed too: wrap the blocks of the model you are given, and leave the class as it "
                "is."]
    if not got.get("module"):
        return ["checkpoint_blocks should return the model (an nn.Module) with its blocks checkpointed."]
    if got["blocks"] != got["want_blocks"] or not got["same_names"]:
        return ["checkpoint_blocks should keep the model's blocks and parameter names (wrap each block's call; do not "
                "rebuild or re-initialise them)."]
    if got["params_kept"] != got["params"]:
        return [f"on {about}, the checkpointed model trains {got['params_kept']} of the model's {got['params']} "
                "parameter tensors: the others were copied (a deepcopy of a block, a block built again), so an optimizer "
                "made before checkpointing would update tensors the model no longer uses. Wrap the blocks themselves."]
    if got["loss_diff"] > 1e-5 or got["grad_diff"] > 1e-5:
        return [f"on {about}, the checkpointed model's loss or gradients differ from the plain model's (by "
                f"{max(got['loss_diff'], got['grad_diff']):.1e}): checkpointing must not change the arithmetic."]
    if got["calls"]["backward"] > 2 * got["want_blocks"]:
        return [f"on {about}, more than the blocks ran again during backward ({got['calls']['backward']} layer norms, the "
                f"blocks hold {2 * got['want_blocks']}): checkpoint each block of model.blocks, not the whole model."]
    if got["calls"]["backward"] != 2 * got["want_blocks"]:   # a block's forward runs its two layer norms
        return [f"on {about}, {got['calls']['backward'] // 2} block forward(s) ran again during backward, expected one "
                "per block: run each block through torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)."]
    if got.get("recomputed_at_once", 0) > 2:    # per block: the last block's two layer norms, then its gradients
        return [f"on {about}, {got['recomputed_at_once'] // 2} blocks were recomputed at once in backward, before the "
                "first block's gradients: the blocks run under one checkpoint together. Checkpoint each block on its "
                "own (one checkpoint call per block), so that backward rebuilds one block's activations at a time."]
    if not got["saved"] < got["saved_plain"]:
        return [f"on {about}, autograd still saves {got['saved']:,} bytes ({got['saved_plain']:,} without "
                "checkpointing): the blocks' activations should no longer be saved."]
    return []


@register("06.checkpoint", points=2, exercise="F", title="activation checkpointing of every block: same gradients, less saved",
          cases=[GPTCase("the lab's MiniGPT", seed=6, n_layers=2)])
def _checkpoint(ctx: Context, cases: list[GPTCase]) -> str:
    for case in cases:
        fail_if(checkpoint_problems(ctx.probe(probe_checkpoint, case), case.about))
    return "blocks recomputed in backward, gradients unchanged, fewer bytes saved"


# ---------------------------------------------------------------- G: mixed precision
@dataclass(frozen=True)
class PrecisionCase:
    gpt: GPTCase
    steps: int = 4
    lr: float = 0.1
    reference: tuple | None = None    # fp32 eager losses (None: worked out here)


def batches_for(case: PrecisionCase, device) -> tuple[nn.Module, list]:
    model, idx, targets = case.gpt.build(device)
    gen = torch.Generator().manual_seed(case.gpt.seed + 1)
    batches = []
    for _ in range(case.steps):
        tokens = torch.randint(0, case.gpt.vocab, (case.gpt.batch, case.gpt.seq + 1), generator=gen).to(device)
        batches.append((tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()))
    return model, batches


@functools.lru_cache(maxsize=8)
def reference_losses(case: PrecisionCase, device, dtype: torch.dtype = torch.float32) -> tuple:
    """Eager SGD losses, the forward under autocast(dtype) unless fp32: the checker's own training loop."""
    model, batches = batches_for(case, device)
    opt = torch.optim.SGD(model.parameters(), lr=case.lr)
    losses = []
    for idx, targets in batches:
        opt.zero_grad()
        with torch.autocast(torch.device(device).type, dtype=dtype, enabled=dtype != torch.float32):
            loss = lm_loss(model, idx, targets)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return tuple(losses)


def precision_case(case: PrecisionCase, device) -> PrecisionCase:
    return PrecisionCase(case.gpt, case.steps, case.lr, reference_losses(case, device))


RUNS = (("float32", False), ("bfloat16", False), ("float16", False), ("float32", True), ("bfloat16", True))   # eager first


def autocast_dtype(device, dtype: torch.dtype) -> str:
    """The dtype a Linear computes in on this device under torch.autocast(dtype) (fp32: no autocast)."""
    lin = nn.Linear(2, 2).to(device)
    with torch.autocast(torch.device(device).type, dtype=dtype, enabled=dtype != torch.float32):
        return str(lin(torch.ones(1, 2, device=device)).dtype)


def linear_dtypes(model: nn.Module) -> tuple[set, list]:
    """Forward hooks on the model's Linears that note the dtypes they compute in (hooks to remove afterwards)."""
    seen: set = set()
    hooks = [m.register_forward_hook(lambda mod, args, out: seen.add(str(out.dtype)))
             for m in model.modules() if isinstance(m, nn.Linear)]
    return seen, hooks


def probe_precision(learner: Learner, case: PrecisionCase) -> dict:
    """train_losses five ways (fp32, bf16 and fp16 eager, then fp32 and bf16 compiled): the losses (and whether they
    are plain numbers), how many graphs each run compiled, the dtypes the weights were left in, the dtypes the
    model's Linears computed in (eager runs: forward hooks) and those autocast gives on this device; and the
    checker's own bf16 autocast losses on this device. The compiled runs
    are left out when the eager ones are already wrong (they would be judged against them). As in probe_varlen,
    graphs meant for Inductor run through AOTAutograd without Inductor's code generation: where autocast applies is
    decided when Dynamo traces, and each case would otherwise build the C++ of two training steps."""
    from torch._dynamo.utils import counters

    device = run_device(learner)
    got: dict = {"runs": {}, "compiles": {}, "weights": {}, "computed_in": {}, "types": {},
                 "own_bf16": list(reference_losses(case, device, torch.bfloat16)),
                 "autocast": {dtype: autocast_dtype(device, getattr(torch, dtype)) for dtype, _ in RUNS}}
    for dtype, compiled in RUNS:
        if compiled and eager_precision_problems(got, case):
            break
        key = f"{dtype}/{'compiled' if compiled else 'eager'}"
        model, batches = batches_for(case, device)
        seen, hooks = linear_dtypes(model) if not compiled else (set(), [])   # eager: Dynamo never meets the hooks
        torch._dynamo.reset()
        before = counters["stats"]["unique_graphs"]
        try:
            with _CompileWatch(inductor_as="aot_eager", stop_at_second_reset=False):
                losses = learner.call("train_losses", model, batches, getattr(torch, dtype), compiled, case.lr)
        finally:
            for hook in hooks:
                hook.remove()
        got["compiles"][key] = counters["stats"]["unique_graphs"] - before
        got["weights"][key] = sorted({str(p.dtype) for p in model.parameters()})
        got["computed_in"][key] = sorted(seen)
        try:
            got["types"][key] = sorted({type(v).__name__ for v in losses if not isinstance(v, numbers.Real)})
            got["runs"][key] = [float(v) for v in losses]
        except (TypeError, ValueError):
            got["runs"][key] = None
    torch._dynamo.reset()
    return got


# How far a learner's eager bf16 run may be from the checker's own on the same device: the same ops in the same
# order give the same bits; float16, a cast model or scaled gradients are orders of magnitude further.
BF16_SAME = 1e-6


def relative_gap(a: list, b: list) -> float:
    return max((abs(x - y) / max(abs(y), 1e-6) for x, y in zip(a, b)), default=math.inf) if len(a) == len(b) else math.inf


def run_problems(got: dict, case: PrecisionCase, mode: str) -> list[str]:
    """What is wrong with the runs of one mode ('eager' or 'compiled') in themselves: their losses, the weights'
    dtype, whether they compiled."""
    for key, losses in got["runs"].items():
        if not key.endswith(mode):
            continue
        if losses is None or len(losses) != case.steps:
            return [f"train_losses ({key}) should return {case.steps} losses, one per batch."]
        if got["types"].get(key):
            return [f"train_losses ({key}) returned its losses as {', '.join(got['types'][key])}: return them as "
                    "Python floats (loss.item()); a tensor per step keeps what it was computed from alive."]
        if not all(map(math.isfinite, losses)):
            return [f"train_losses ({key}) returned losses that are not finite: the training diverged. Step the "
                    "optimizer on the true gradients (with a GradScaler, scaler.step(opt) unscales them first)."]
        if got["weights"][key] != ["torch.float32"]:
            return [f"train_losses ({key}) left the model's weights in {', '.join(got['weights'][key])}: keep the weights "
                    "in fp32 and run the forward under torch.autocast, which casts op by op (model.to(dtype) trains in "
                    "low precision)."]
        if mode == "compiled" and got["compiles"][key] == 0:
            return [f"train_losses ({key}) compiled nothing: when `compiled` is true, wrap loss_fn in torch.compile "
                    "and call the compiled function."]
        if mode == "eager" and got["compiles"][key] > 0:
            return [f"train_losses ({key}) compiled {got['compiles'][key]} graph(s): run loss_fn as it is when "
                    "`compiled` is false."]
    return []


def eager_precision_problems(got: dict, case: PrecisionCase) -> list[str]:
    problems = run_problems(got, case, "eager")
    if problems:
        return problems
    runs = got["runs"]
    if relative_gap(runs["float32/eager"], list(case.reference)) > 1e-4:
        return ["the fp32 eager losses are not those of plain SGD on these batches: one optimizer step per batch, "
                "zero_grad before each backward, loss_fn on each batch, the learning rate given, and nothing else "
                "(no momentum, weight decay or gradient clipping)."]
    for dtype in ("bfloat16", "float16"):       # a loss many times fp32's: the scaled loss a GradScaler backpropagates
        ratio = max(abs(x) / max(abs(y), 1e-6) for x, y in zip(runs[f"{dtype}/eager"], runs["float32/eager"]))
        if ratio > 2:
            return [f"the eager {dtype} losses are up to {ratio:.0f} times the fp32 ones: record the loss itself "
                    "(loss.item() of what loss_fn returned), not the scaled loss a GradScaler backpropagates "
                    "(scaler.scale(loss) multiplies it by the scale)."]
    if relative_gap(runs["bfloat16/eager"], runs["float32/eager"]) < 1e-6:
        return ["the bfloat16 losses equal the fp32 ones exactly: run the forward under torch.autocast(device_type, "
                "dtype=...) when a lower precision is asked for."]
    for key, seen in got.get("computed_in", {}).items():
        want = got["autocast"][key.split("/")[0]]
        if seen and seen != [want]:
            return [f"train_losses ({key}): the model's Linear layers computed in {', '.join(seen)}, where "
                    f"torch.autocast with the dtype you are given computes in {want}: autocast to the dtype you are "
                    "given (any dtype that is not torch.float32, float16 as well as bfloat16)."]
    off = relative_gap(runs["bfloat16/eager"], got["own_bf16"])
    if off > BF16_SAME:
        return [f"the eager bfloat16 losses are {off:.1e} (relative) away from plain SGD with loss_fn under "
                "torch.autocast(device_type, dtype=torch.bfloat16): autocast to the dtype you are given, and step the "
                "optimizer on the true gradients (a GradScaler is for float16; if you use one, scaler.step(opt) "
                "unscales them, opt.step() alone does not)."]
    return []


def precision_problems(got: dict, case: PrecisionCase) -> list[str]:
    problems = eager_precision_problems(got, case) or run_problems(got, case, "compiled")
    if problems:
        return problems
    runs = got["runs"]
    if relative_gap(runs["float32/compiled"], runs["float32/eager"]) > 1e-3:
        return [f"compiled fp32 losses differ from eager by {relative_gap(runs['float32/compiled'], runs['float32/eager']):.1e} "
                "(relative): compile the loss computation and keep the same training loop."]
    if relative_gap(runs["bfloat16/compiled"], runs["float32/compiled"]) < 1e-6:
        return ["the compiled bfloat16 losses equal the compiled fp32 ones exactly: put the autocast context around "
                "the compiled call too, the same way as in eager."]
    gap = relative_gap(runs["bfloat16/compiled"], runs["bfloat16/eager"])
    if gap > 3e-2:
        return [f"compiled bf16 losses differ from eager bf16 by {gap:.1e} (relative, allowed 3e-2): put the autocast "
                "context around the compiled call, the same way as in eager."]
    return []


@register("06.mixed_precision", points=3, exercise="G", title="bf16 autocast in a compiled step matches eager",
          cases=lambda: [precision_case(PrecisionCase(GPTCase("the lab's MiniGPT", seed=6), lr=0.2), "cpu")])
def _mixed_precision(ctx: Context, cases: list[PrecisionCase]) -> str:
    for case in cases:
        fail_if(precision_problems(ctx.probe(probe_precision, case), case))
    return "fp32 and bf16 losses of compiled training match eager"


# ---------------------------------------------------------------- H: is it worth it
@dataclass(frozen=True)
class PayoffCase:
    compile_s: float
    eager_ms: float
    compiled_ms: float

    def want(self) -> float:
        saved = self.eager_ms - self.compiled_ms
        return math.inf if saved <= 0 else math.ceil(self.compile_s * 1000 / saved)

    def accepted(self) -> set:
        """The exact answer (the inputs read as the decimals they are written as) and what float arithmetic gives for
        it in the usual orders: 10.0 - 9.9 is 0.0999…96 in floats, so math.ceil(300 / it) is 3001, not 3000."""
        if math.isinf(self.want()):
            return {math.inf}
        c, e, k = (Fraction(str(v)) for v in (self.compile_s, self.eager_ms, self.compiled_ms))
        saved = self.eager_ms - self.compiled_ms
        return {math.ceil(c * 1000 / (e - k)), self.want(), math.ceil(self.compile_s / (saved / 1000)),
                math.ceil(self.compile_s * 1000 / self.eager_ms / (1 - self.compiled_ms / self.eager_ms))}


def probe_payoff(learner: Learner, cases: list[PayoffCase]) -> list:
    """steps_to_pay_off on each case, or what it raised (a division by a zero saving, say)."""
    out = []
    for c in cases:
        try:
            out.append(learner.call("steps_to_pay_off", c.compile_s, c.eager_ms, c.compiled_ms))
        except (ArithmeticError, TypeError, ValueError) as err:
            out.append({"raised": type(err).__name__})
    return out


def payoff_problems(got: list, cases: list[PayoffCase], reveal: bool) -> list[str]:
    for n, case in zip(got, cases):
        want = case.want()
        call = (f"steps_to_pay_off({case.compile_s}, {case.eager_ms}, {case.compiled_ms})" if reveal else
                f"steps_to_pay_off on a case where compiling {'saves no time' if math.isinf(want) else 'saves time'}")
        never = "when compiling does not make a step faster it never pays off: return math.inf"
        if isinstance(n, dict):
            return [f"{call} raised {n.get('raised')}: {never}, before dividing by the time saved." if math.isinf(want)
                    else f"{call} raised {n.get('raised')}: return the smallest whole number of steps whose saved time "
                    "covers the compile time."]
        want = min(case.accepted())
        ok = (math.isinf(want) and isinstance(n, float) and math.isinf(n)) or (
            not math.isinf(want) and is_count(n) and n in case.accepted())
        if not ok:
            said = f"{n!r}, expected {want}" if reveal else f"{n!r}"
            if math.isinf(want):
                hint = never
            elif isinstance(n, float) and n in case.accepted():
                hint = "return a whole number as an int (math.ceil gives one), not a float"
            elif isinstance(n, (int, float)) and 1 <= n < math.inf and abs(n * 1000 - want) <= 1000:
                hint = "compile_s is in seconds and the step times in milliseconds: convert before dividing"
            else:
                hint = "the smallest whole number of steps whose saved time covers the compile time (round up)"
            return [f"{call} gave {said}: {hint}."]
    return []


# Cases every pay-off check runs, the grader's as well as the notebook's: a saving of less than a millisecond that is
# no whole number of them, so that rounding the saving, or an integer ceiling ((a + b - 1) // b) applied to floats, shows.
ALWAYS_PAYOFF = [PayoffCase(0.9, 2.4, 1.7)]


@register("06.payoff", points=1, exercise="H", title="after how many steps compiling pays off",
          cases=[PayoffCase(30.0, 12.0, 8.0), PayoffCase(2.5, 1.0, 1.0), PayoffCase(1.0, 3.0, 1.5), PayoffCase(1.0, 10.0, 7.0),
                 PayoffCase(3.0, 5.0, 6.0), PayoffCase(0.3, 10.0, 9.9)])
def _payoff(ctx: Context, cases: list[PayoffCase]) -> str:
    cases = [*cases, *(c for c in ALWAYS_PAYOFF if c not in cases)]
    fail_if(payoff_problems(ctx.probe(probe_payoff, cases), cases, ctx.reveal))
    return "pay-off steps right, including a compile that never pays"


# ---------------------------------------------------------------- I: variable lengths without recompiling
@dataclass(frozen=True)
class VarlenCase:
    """A MiniGPT trained with SGD on batches of the given (batch, length) shapes, the last batch often a partial one;
    the eager losses worked out here (None until then)."""

    about: str
    gpt: GPTCase
    shapes: tuple
    lr: float = 0.1
    max_len: int = 32
    reference: tuple | None = None

    def build(self, device) -> tuple[nn.Module, list]:
        from helpers.models import MiniGPT

        g = self.gpt
        torch.manual_seed(g.seed)
        model = MiniGPT(vocab=g.vocab, d_model=g.d_model, n_heads=g.n_heads, n_layers=g.n_layers,
                        max_len=self.max_len).to(device)
        gen = torch.Generator().manual_seed(g.seed + 2)
        batches = []
        for batch, length in self.shapes:
            tokens = torch.randint(0, g.vocab, (batch, length + 1), generator=gen).to(device)
            batches.append((tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()))
        return model, batches


def varlen_reference(case: VarlenCase, device) -> VarlenCase:
    """The case with the checker's own eager SGD losses on this device."""
    model, batches = case.build(device)
    opt = torch.optim.SGD(model.parameters(), lr=case.lr)
    losses = []
    for idx, targets in batches:
        opt.zero_grad()
        loss = lm_loss(model, idx, targets)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return VarlenCase(case.about, case.gpt, case.shapes, case.lr, case.max_len, tuple(losses))


class ResetAgain(Exception):
    """Raised by _CompileWatch at a second `torch._dynamo.reset()`: a reset per batch compiles every batch afresh."""


class _CompileWatch:
    """While a probe runs: what `torch.compile` was asked for (its `dynamic=`), how often Dynamo was reset (a
    second reset stops the run with ResetAgain), and how often each compiled graph ran (`runs`, one count per graph
    Dynamo handed to the backend; None where the backend could not be wrapped): a batch that a recompile limit or
    the `eager_on_recompile` stance sends to eager runs no compiled graph. With `inductor_as`, graphs meant for
    Inductor go to that backend instead (see probe_varlen)."""

    def __init__(self, inductor_as: str | None = None, stop_at_second_reset: bool = True):
        self.inductor_as, self.stop_at_second_reset = inductor_as, stop_at_second_reset
        self.dynamic: list = []
        self.resets = 0
        self.runs: list[int] | None = []
        self.backends: dict = {}

    def counted(self, backend, mode, options, dynamic):
        """The backend torch.compile would build from these arguments, each graph it returns counting its runs; the
        same one for the same arguments (Dynamo guards on the backend: a new one per call would recompile)."""
        if self.runs is None:                     # counting was given up on (below): run uncounted
            return None
        if isinstance(options, dict) and {"guard_filter_fn", "use_aoti"} & set(options):   # torch.compile's own keys
            self.runs = None
            return None
        key = (backend if isinstance(backend, str) else id(backend), mode, repr(options), dynamic)
        if key in self.backends:
            return self.backends[key]
        try:
            if backend == "inductor" and self.inductor_as:
                inner = torch._TorchCompileWrapper(self.inductor_as, None, None, dynamic)
            elif backend == "inductor":
                inner = torch._TorchCompileInductorWrapper(mode, options, dynamic)
            else:
                inner = torch._TorchCompileWrapper(backend, mode, options, dynamic)
        except (AttributeError, TypeError):       # torch's private wrappers changed: run uncounted
            self.runs = None
            return None

        self.backends[key] = count_runs(inner, self.runs)
        return self.backends[key]

    def __enter__(self):
        self.saved = torch.compile, torch._dynamo.reset
        compile_, reset = self.saved

        @functools.wraps(compile_)
        def watched_compile(model=None, **kwargs):
            if model is None:                     # @torch.compile(...) with arguments: a decorator
                return lambda fn: watched_compile(fn, **kwargs)
            self.dynamic.append(kwargs.get("dynamic"))
            backend = self.counted(kwargs.get("backend", "inductor"), kwargs.get("mode"), kwargs.get("options"),
                                   kwargs.get("dynamic"))
            if backend is not None:
                kwargs = {k: v for k, v in kwargs.items() if k not in ("mode", "options")} | {"backend": backend}
            return compile_(model, **kwargs)

        @functools.wraps(reset)
        def watched_reset(*args, **kwargs):
            self.resets += 1
            if self.resets > 1 and self.stop_at_second_reset:
                raise ResetAgain("torch._dynamo.reset() called again")
            return reset(*args, **kwargs)

        torch.compile, torch._dynamo.reset = watched_compile, watched_reset
        return self

    def __exit__(self, *exc):
        torch.compile, torch._dynamo.reset = self.saved


def probe_varlen(learner: Learner, case: VarlenCase) -> dict:
    """varlen_losses on the case's batches: the losses, and how many graphs Dynamo compiled meanwhile.

    Dynamo raises at the first recompilation (`error_on_recompile`): one is enough to fail the check, and a
    static-shape answer would otherwise compile a forward and a backward per shape (a minute on a 2-core CPU). The
    guard that failed, the `dynamic=` torch.compile was given and the resets tell the mistakes apart. Graphs meant
    for Inductor run through AOTAutograd without Inductor's code generation (aot_eager): whether a batch recompiles
    is decided by the guards of Dynamo and AOTAutograd, and the losses are eager's; generating and building the
    C++ of a symbolic training step would cost half a minute per case on a 2-core CPU."""
    from torch._dynamo.exc import RecompileError
    from torch._dynamo.utils import counters

    model, batches = case.build(run_device(learner))
    torch._dynamo.reset()
    before = counters["stats"]["unique_graphs"]
    recompiled = specialized = None
    with settings_kept(), _CompileWatch(inductor_as="aot_eager") as watch, \
            torch._dynamo.config.patch(error_on_recompile=True):
        try:
            got = learner.call("varlen_losses", model, batches, case.lr)
        except RecompileError as err:
            got, recompiled = None, str(err)
        except ResetAgain:
            got = None
        except RuntimeError as err:
            if type(err).__name__ != "ConstraintViolationError":   # torch.fx.experimental.symbolic_shapes'
                raise
            got, specialized = None, str(err)
    compiles = counters["stats"]["unique_graphs"] - before
    torch._dynamo.reset()
    seen = {"compiles": compiles, "resets": watch.resets, "static": False in watch.dynamic,
            "graph_runs": max(watch.runs, default=0) if watch.runs is not None else None}
    if specialized is not None:      # a dim marked dynamic that the code made a constant: Dynamo refused to compile
        return {"losses": None, **seen, "specialized": specialized}
    if recompiled is not None or watch.resets > 1:
        return {"losses": None, **seen, "recompiled": recompiled}
    try:
        types = sorted({type(v).__name__ for v in got if not isinstance(v, numbers.Real)})
        losses = [float(v) for v in got]
    except (TypeError, ValueError):
        return {"losses": None, "type": type(got).__name__, **seen}
    return {"losses": losses, "types": types, **seen}


def guard_that_failed(reason: str, reveal: bool = True) -> str:
    """The first guard failure of Dynamo's recompilation message, e.g. "tensor 'idx' size mismatch at index 1.
    expected 12, actual 7" (the wording varies between releases: kept loose), without Dynamo's compile id; without
    the sizes when the case's values are not to be shown (the grader's hidden batches)."""
    lines = [ln.strip().lstrip("- ").strip() for ln in reason.splitlines()]
    failed = [ln for ln in lines if ln and not ln.startswith(("Recompiling", "triggered by"))]
    guard = re.sub(r"^\[?\d+/\d+\]?:\s*", "", failed[0] if failed else reason.strip())
    if not reveal:
        guard = re.sub(r"[.,;]?\s*expected\b.*$", "", guard)
    return guard[:200]


def varlen_problems(got: dict, case: VarlenCase, reveal: bool) -> list[str]:
    steps, shapes = len(case.shapes), len(set(case.shapes))
    fix = ("mark the sizes that vary dynamic before the first call (torch._dynamo.mark_dynamic on the batch and "
           "sequence dims of both idx and targets), or compile with dynamic=True, so that one graph serves every batch.")
    static = ("one graph per shape: every new length (or batch size) fails a guard and compiles again. Do not force "
              "static shapes (dynamic=False) or reset Dynamo between batches; ")
    if got.get("specialized") is not None:
        marked = re.search(r"L\['(\w+)'\]\.size\(\)\[(\d)\]", got["specialized"])
        which = f" (size {marked.group(2)} of {marked.group(1)})" if marked else ""
        return [f"on {case.about}, Dynamo refused to compile: a size you marked dynamic{which} was made a constant by "
                "the step, most often because another input of that size was left static (idx and targets share "
                "their batch and sequence sizes, and cross_entropy matches them). Mark the same dims of every input "
                "that shares them (both dims of idx and of targets), or use torch._dynamo.maybe_mark_dynamic, or "
                "compile with dynamic=True."]
    stopped = got.get("recompiled") is not None or got.get("resets", 0) > 1     # probe_varlen stopped the run
    if stopped or got.get("compiles", 0) > 1:
        if got.get("static") or got.get("resets", 0) > 1:
            why = static
        elif got.get("recompiled") is not None:
            guard = guard_that_failed(got["recompiled"], reveal)
            dim0 = re.search(r"(index|dim(ension)?)\s*0\b", guard) is not None
            why = (f"a batch failed a guard of the graph compiled before it ({guard}), so Dynamo compiled again. "
                   + ("The last, partial batch changes the batch size: a dim left static there compiles again; "
                      if dim0 else
                      "The first call compiled with its sizes as constants; automatic dynamic shapes then compile "
                      "again with the size that changed dynamic, once per input and dim (the last, partial batch "
                      "changes the batch size too), and a function compiled with dynamic=False compiles once per "
                      "shape; "))
        else:
            why = ("the first call compiled with its sizes as constants, and a later shape compiled again with them "
                   "dynamic (automatic dynamic shapes), once per input and dim that changed; the last, partial batch "
                   "changes the batch size too. ")
        n = got.get("compiles", 0)
        counted = "Dynamo had to compile more than one graph" if stopped else f"Dynamo compiled {n} graphs over {shapes} shapes"
        return [f"on {case.about}, {counted}: {why}{fix}"]
    if got.get("losses") is None:
        return [f"varlen_losses should return the {steps} losses as floats (loss.item()); it returned a {got.get('type')}."]
    losses = got["losses"]
    if len(losses) != steps:
        return [f"on {case.about}, varlen_losses returned {len(losses)} losses for {steps} batches: one per batch."]
    if got.get("types"):
        return [f"on {case.about}, varlen_losses returned its losses as {', '.join(got['types'])}: return them as "
                "Python floats (loss.item()); a tensor per step keeps what it was computed from alive."]
    if got["compiles"] == 0:
        return [f"on {case.about}, varlen_losses compiled nothing: wrap loss_fn in torch.compile and train with it."]
    if got.get("graph_runs") is not None and got["graph_runs"] < steps:
        return [f"on {case.about}, Dynamo compiled one graph, but it ran on {got['graph_runs']} of the {steps} batches: "
                "the others ran eagerly. A recompile limit, error_on_recompile=False or the eager_on_recompile stance "
                "hides a recompilation by skipping the compile, it does not remove it; " + fix]
    gap = relative_gap(losses, list(case.reference))
    if gap > 1e-4:
        said = f" (largest relative gap {gap:.1e})" if reveal else ""
        return [f"on {case.about}, the losses are not those of eager SGD on the same batches{said}: one optimizer "
                "step per batch, in the order given, zero_grad before each backward, the learning rate given; if you "
                "pad to a bucket, "
                "pad the targets with -100 (cross_entropy's ignore_index) so the padding adds nothing to the loss."]
    return []


@register("06.dynamic", points=2, exercise="I", title="one compiled training step for every sequence length and batch size",
          cases=lambda: [varlen_reference(VarlenCase("four batches of lengths 12, 7, 15 and a partial batch of 5",
                                                     GPTCase("the lab's MiniGPT", seed=6),
                                                     ((4, 12), (4, 7), (4, 15), (3, 5)), lr=0.2), "cpu")])
def _dynamic(ctx: Context, cases: list[VarlenCase]) -> str:
    for case in cases:
        fail_if(varlen_problems(ctx.probe(probe_varlen, case), case, ctx.reveal))
    return "one graph for every batch, losses as in eager"


# ---------------------------------------------------------------- the checker's own versions of the exercises
# The given cells import some of these (graphs_of, recompute_truth, autograd_saved_bytes): while a check runs the
# learner's function, they refuse to run (own_work), so that an answer that only calls them earns nothing.
TWO_GRAPHS_OWN = (graphs_of, histogram_of, aten_name)
SAVED_OWN = (saved_by_outputs, autograd_saved_bytes)
RECOMPUTE_OWN = (recompute_truth, recompute_truth_counts, compute_ops)
KERNELS_OWN = (is_derivative,)
RECOMPILES_OWN = (compiles_of,)
