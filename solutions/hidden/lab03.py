"""Lab 03 hidden cases: the grader's cases and reference answers for the checks in helpers/checks/lab03.py.

Never released. Cases only: the checks are the public ones, run with probes in the submission's kernel and
messages that reveal nothing. The graphs, models and chains the learner's code runs on are real code in
hidden_inputs/lab03.py (the job imports them); the expected answers are computed here, by the reference
implementations below. The rules they follow (which node is elementwise, which mutates, which aliases its input)
are the solution notebook's own vocabulary cell, run here in the grader, so grader and notebook never disagree.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import math
import operator
from pathlib import Path

import torch
import torch.fx as fx
import torch.nn as nn
import torch.nn.functional as F
from hidden_inputs import lab03 as inputs
from torch.fx.passes.shape_prop import ShapeProp, TensorMetadata

from helpers.checks import lab03 as public
from helpers.checks.lab03 import seeded, tensors

SOLUTION = Path(__file__).resolve().parents[1] / "03_operator_fusion.ipynb"
NOTEBOOK_CELLS = ["p2-vocab"]      # the solution notebook's cells this module reads (workbook build --check looks)
CALLS = ("call_function", "call_method", "call_module")


@functools.cache
def vocabulary() -> dict:
    """The lab's rules (elementwise_op, mutates, aliases_input): the solution notebook's vocabulary cell, run here."""
    cell = next(c for c in json.loads(SOLUTION.read_text(encoding="utf-8"))["cells"] if c.get("id") == NOTEBOOK_CELLS[0])
    ns = {"operator": operator, "torch": torch, "fx": fx, "nn": nn, "F": F, "TensorMetadata": TensorMetadata}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile("".join(cell["source"]), "<lab03 vocabulary>", "exec"), ns)
    return ns


def rule(name: str):
    return vocabulary()[name]


# ---------------------------------------------------------------- the grader's reference answers
def reference_chains(gm: fx.GraphModule) -> list[list[fx.Node]]:
    """Chains grown forward in graph order (one valid answer among several)."""
    elementwise_op, mutates = rule("elementwise_op"), rule("mutates")
    order = {n: i for i, n in enumerate(gm.graph.nodes)}
    muts = [order[n] for n in gm.graph.nodes if mutates(gm, n)]
    seen, out = set(), []
    for n in gm.graph.nodes:
        if n in seen or elementwise_op(gm, n) is None:
            continue
        chain = [n]
        while len(chain[-1].users) == 1:
            u = next(iter(chain[-1].users))
            if u in seen or elementwise_op(gm, u) is None or any(order[n] < m < order[u] for m in muts):
                break
            chain.append(u)
        if len(chain) > 1:
            seen.update(chain)
            out.append(chain)
    return out


def _nbytes(meta) -> int:
    return math.prod(meta.shape) * meta.dtype.itemsize if isinstance(meta, TensorMetadata) else 0


def reference_traffic(gm: fx.GraphModule, *args) -> int:
    """Bytes every call node reads and writes, with module state, by the notebook's rule."""
    ShapeProp(gm).propagate(*args)
    total = 0
    for n in gm.graph.nodes:
        if n.op in CALLS:
            total += sum(_nbytes(i.meta.get("tensor_meta")) for i in n.all_input_nodes) + _nbytes(n.meta.get("tensor_meta"))
            if n.op == "call_module":
                mod = gm.get_submodule(n.target)
                total += sum(t.numel() * t.element_size() for t in [*mod.parameters(), *mod.buffers()])
    return total


def reference_peak(gm: fx.GraphModule, *args) -> int:
    """Peak bytes alive, each value freed after its last reader (through its aliases), outputs kept."""
    ShapeProp(gm).propagate(*args)
    nodes = list(gm.graph.nodes)
    where = {n: i for i, n in enumerate(nodes)}
    alias = rule("aliases_input")

    def base(n):
        while n.op in CALLS and alias(gm, n) and isinstance(n.args[0], fx.Node):
            n = n.args[0]
        return n

    last = {}
    for n in nodes:
        for i in n.all_input_nodes:
            last[base(i)] = where[n]
    kept = {base(i) for i in nodes[-1].all_input_nodes}
    alive, current, top = {}, 0, 0
    for k, n in enumerate(nodes):
        if n.op in CALLS and not alias(gm, n):
            alive[n] = _nbytes(n.meta.get("tensor_meta"))
            current += alive[n]
            top = max(top, current)
        for m in [m for m in alive if m not in kept and last.get(m, where[m]) <= k]:
            current -= alive.pop(m)
    return top


def bytes_case(about: str, fn, args: tuple, reference, before: tuple = ()) -> public.BytesCase:
    """A byte-count case whose answer the reference computes on a fresh trace (`before`: inputs of other shapes the
    learner's function measures the same graph with first)."""
    with torch.no_grad():
        want = reference(fx.symbolic_trace(fn), *[t.clone() for t in args])
    return public.BytesCase(about, fn, args, want, before)


# ---------------------------------------------------------------- the cases
def traffic_cases(refs: dict) -> list:
    return [
        bytes_case("a graph with three inputs broadcast against each other", inputs.broadcast_three,
                   tensors(110, (5, 7), (5, 1), (7,)), reference_traffic),
        bytes_case("a model with a batch norm module (parameters and buffers) and a GELU module",
                   seeded(inputs.HBatchNorm, 111), tensors(111, (6, 12), (12,)), reference_traffic),
        bytes_case("a graph that changes dtype (fp32 in, fp16 ops)", inputs.half_inside, tensors(112, (9, 11)),
                   reference_traffic),
        bytes_case("a graph with a matmul and a parameter read twice", seeded(inputs.HMatmul, 113),
                   tensors(113, (4, 5), (4, 5)), reference_traffic),
        bytes_case("a graph where one node reads the same input twice", inputs.squares_sum,
                   tensors(114, (6, 9), (6, 9)), reference_traffic),
        bytes_case("a graph with tensors passed inside a list and as a keyword argument", inputs.h_cat_kwargs,
                   tensors(115, (4, 3), (4, 5), (8,)), reference_traffic),
        bytes_case("a model whose modules are each called twice", seeded(inputs.HShared, 116),
                   tensors(116, (5, 6), (5, 6)), reference_traffic),
        bytes_case("a graph with three inputs broadcast against each other, measured again after other inputs",
                   inputs.broadcast_three, tensors(117, (6, 4), (6, 1), (4,)), reference_traffic,
                   before=tensors(118, (2, 3), (2, 1), (3,))),
    ]


CHAIN_MODELS = {
    "a model with nested Sequentials, method and function spellings and two readers of one value": inputs.HDeep,
    "a model with in-place ops (inplace=True and torch.relu_) inside and around chains": inputs.HInplace,
    "a model where chains meet and a value is read by a later op of its own chain": inputs.HJoins,
    "a model where matmuls cut chains and a parameter is read twice": inputs.HMatmul,
    "a function that mutates an input between two ops": public.Traced(inputs.h_mutate),
    "a function with views (a transpose, a reshape, a flatten) between elementwise ops": public.Traced(inputs.h_views),
}


def chain_facts(make) -> dict:
    """The graph `make` builds, as the chain judge sees it, by the notebook's rules."""
    return public.graph_facts(public.trace(make), rule("elementwise_op"), rule("mutates"))


def chain_cases(refs: dict) -> list:
    return [public.ChainCase(about, make, chain_facts(make)) for about, make in CHAIN_MODELS.items()]


def fuse_cases(refs: dict) -> list:
    """The chain models without in-place ops, their weights from a seed, fused along the reference's chains."""
    cases = []
    for k, (about, make) in enumerate(CHAIN_MODELS.items()):
        if make not in (inputs.HDeep, inputs.HJoins, inputs.HMatmul, inputs.HInplace):
            continue
        model = seeded(make, 120 + k)
        chains = tuple(tuple(n.name for n in c) for c in reference_chains(fx.symbolic_trace(model)))
        cases.append(public.FuseCase(about, model, chains, tensors(120 + k, (3, 5), (3, 5))))
    return cases


def kernel_cases(refs: dict) -> tuple:
    cube, long, over, wide, empty = tensors(130, (3, 5, 7), (8193,), (2049,), (31, 9), (4, 0, 3))
    sliced, row, image, vector = tensors(131, (30, 41), (17, 9, 5), (3, 4, 6, 5), (2001,))
    return ([public.KernelCase("the grader's 3-D fp32 tensor", cube, 1024),
             public.KernelCase("the grader's long fp16 vector with a small block", long.half(), 64),
             public.KernelCase("the grader's vector one element longer than the block", over, 2048),
             public.KernelCase("the grader's transposed bf16 matrix", (wide * 3).bfloat16().t(), 256),
             public.KernelCase("the grader's tensor with a zero-size dimension", empty, 1024),
             public.KernelCase("the grader's strided fp16 view (every other column)", sliced.half(), 128, "sliced"),
             public.KernelCase("the grader's expanded tensor (stride 0)", row, 64, "expanded"),
             public.KernelCase("the grader's channels-last fp16 tensor", image.half(), 256, "channels_last"),
             public.KernelCase("the grader's every other element of a vector (a strided view)", vector, 256,
                               "every_other")], 6)


def codegen_cases(refs: dict) -> list:
    return [
        public.CodegenCase("a chain with neg, div and silu", inputs.neg_div_silu, tensors(140, (40, 3), (40, 3)), True),
        public.CodegenCase("a chain of three inputs with an integer literal", inputs.three_inputs_int,
                           tensors(141, (7, 9), (7, 9), (9,)), True),
        public.CodegenCase("a chain of modules-turned-functions on fp16", inputs.gelu_sigmoid_tanh,
                           tensors(142, (1025,), dtype=torch.float16), True),
        public.CodegenCase("a chain with numbers on the left of a subtraction and a division, on fp16",
                           inputs.numbers_first, tensors(144, (33, 7), (33, 7), dtype=torch.float16), True),
        public.CodegenCase("a chain with gelu's tanh approximation (codegen may decline)", inputs.gelu_tanh_approx,
                           tensors(143, (64,)), False),
        public.CodegenCase("a chain of an fp16 input and an fp32 one (an fp32 result), the second used first",
                           inputs.h_mixed, (tensors(145, (5, 13), dtype=torch.float16)[0], tensors(146, (5, 13))[0]),
                           True),
    ]


def backend_cases(refs: dict) -> tuple:
    return ([public.BackendCase("the grader's residual block (a layer norm between two chains)",
                                seeded(inputs.HResidual, 150), tensors(150, (6, 24)), 2),
             public.BackendCase("the grader's fp16 chain", inputs.neg_div_silu,
                                tensors(151, (37, 5), (37, 5), dtype=torch.float16), 1),
             public.BackendCase("the grader's chain with gradients on and no input that requires one",
                                inputs.neg_div_silu, tensors(152, (9, 4), (9, 4)), 1, grad_mode=True)],
            pitfall_cases(refs)[0])


def peak_cases(refs: dict) -> list:
    return [
        bytes_case("a model with a batch norm module and two chains", seeded(inputs.HBatchNorm, 160),
                   tensors(160, (6, 12), (12,)), reference_peak),
        bytes_case("a graph whose intermediate is read through a transpose much later", inputs.transpose_later,
                   tensors(161, (8, 16)), reference_peak),
        bytes_case("a graph with in-place ops on an intermediate and on an input", seeded(inputs.HInplace, 162),
                   tensors(162, (10, 5), (10, 5)), reference_peak),
        bytes_case("a graph with matmuls", seeded(inputs.HMatmul, 163), tensors(163, (4, 5), (4, 5)), reference_peak),
        bytes_case("a graph whose intermediate is read through a detach and a view of a view", inputs.alias_reduce,
                   tensors(164, (12, 10)), reference_peak),
        bytes_case("a graph with two outputs, one of them a view", inputs.view_outputs, tensors(165, (6, 7)),
                   reference_peak),
        bytes_case("a graph with a value that nothing reads", inputs.h_dead, tensors(166, (9, 8)), reference_peak),
        bytes_case("a graph that changes dtype (fp32 in, fp16 ops)", inputs.half_inside, tensors(167, (9, 11)),
                   reference_peak),
        bytes_case("a graph that reads sizes from a tensor (numbers, not tensors)", inputs.h_size_reshape,
                   tensors(168, (3, 4, 5)), reference_peak),
        bytes_case("a graph whose intermediate is read through a transpose, measured again after other inputs",
                   inputs.transpose_later, tensors(169, (6, 10)), reference_peak, before=tensors(171, (3, 4))),
        bytes_case("a graph on fp16 inputs with two outputs, one of them a view", inputs.view_outputs,
                   tensors(172, (6, 7), dtype=torch.float16), reference_peak),
    ]


def pitfall_cases(refs: dict) -> list:
    x, y0, y1, x16 = tensors(170, (3, 24), (9,), (9,), (3001,))
    return [public.PitfallCase(seeded(inputs.HResidual, 170, train=True), x, inputs.h_mutate, (y0, y1), x16.half(),
                               (257, 1000, 1999))]



# ================================================================ part 8: linear + bias + GELU
def linear_cases(refs: dict) -> tuple:
    x1, w1, b1 = public.linear_inputs(210, 33, 17, 65, torch.float16)
    x2, w2, b2 = public.linear_inputs(211, 2, 130, 31, torch.bfloat16)
    x3, w3, b3 = public.linear_inputs(212, 21, 50, 18, torch.float32)
    x4, w4, b4 = public.linear_inputs(213, 6, 24, 2 * 19, torch.float16)
    x5, w5, b5 = public.linear_inputs(214, 8, 5, 40, torch.float32)
    x6, w6, b6 = public.linear_inputs(215, 7, 96, 20, torch.float32)
    cases = [public.LinearCase("the grader's fp16 shapes (no size a multiple of a block)", x1, w1, b1),
             public.LinearCase("the grader's bf16 pair of rows with a long K", x2, w2, b2),
             public.LinearCase("the grader's transposed x (strides (1, M))", x3.t().contiguous().t(), w3, b3,
                               strided=True),
             public.LinearCase("the grader's weight made of every other row of a larger one", x4, w4[::2], b4[::2].contiguous(),
                               strided=True),
             public.LinearCase("the grader's K smaller than any block", x5, w5, b5),
             public.LinearCase("the grader's K a whole number of blocks", x6, w6, b6),
             public.LinearCase("the grader's epilogue-only case (x all zeros, a wide range of biases)",
                               torch.zeros(3, 32), torch.randn(70, 32), torch.linspace(-6, 6, 70), epilogue=True)]
    wrong = [(torch.zeros(3, 7), torch.zeros(5, 8), torch.zeros(5)), (torch.zeros(3, 7), torch.zeros(5, 7),
                                                                       torch.zeros(4)),
             (torch.zeros(2, 3, 7), torch.zeros(5, 7), torch.zeros(5))]
    return cases, wrong, ["the grader's x and w with different K", "the grader's bias of the wrong length",
                          "the grader's 3-D x"]


HIDDEN_CONFIGS = [
    {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "num_warps": 4, "num_stages": 5},
    {"BLOCK_M": 256, "BLOCK_N": 64, "BLOCK_K": 64, "num_warps": 8, "num_stages": 4},
    {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 128, "num_warps": 2, "num_stages": 2},
    {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 128, "num_warps": 8, "num_stages": 3},
    {"BLOCK_M": 16, "BLOCK_N": 256, "BLOCK_K": 64, "num_warps": 4, "num_stages": 6},
]


def smem_cases(refs: dict) -> list:
    exact = 3 * (128 * 128 + 128 * 64) * 2        # what the config 128×64×128 in 3 stages needs in bf16
    return [public.SmemCase("the grader's configs in fp32 with an A100's limit", HIDDEN_CONFIGS, 4, 166_912),
            public.SmemCase("the grader's configs in bf16 with a limit one config needs exactly", HIDDEN_CONFIGS, 2,
                            exact),
            public.SmemCase("the grader's configs in fp8 with a small limit", HIDDEN_CONFIGS, 1, 49_152)]


def roofline_cases(refs: dict) -> list:
    return [public.RooflineCase("the grader's decode step with A100 peaks", (2, 11008, 4096), 2, 312e12, 2.0e12),
            public.RooflineCase("the grader's prefill in fp8", (2048, 4096, 11008), 1, 1979e12, 3.35e12),
            public.RooflineCase("the grader's tiny fp32 matmul with made-up peaks", (7, 9, 5), 4, 1e12, 1e11)]

CASES = {
    "03.traffic": traffic_cases,
    "03.chains": chain_cases,
    "03.fuse": fuse_cases,
    "03.triton_kernel": kernel_cases,
    "03.codegen": codegen_cases,
    "03.backend": backend_cases,
    "03.peak_memory": peak_cases,
    "03.pitfalls": pitfall_cases,
    "03.linear_gelu": linear_cases,
    "03.smem": smem_cases,
    "03.linear_roofline": roofline_cases,
}
