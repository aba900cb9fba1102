"""Lab 06 hidden cases: the grader's cases and reference answers for the checks in helpers/checks/lab06.py.

Never released. Cases only: MiniGPTs of other sizes and depths, functions with two breaks, guard scenarios the
notebook never ran, another training run, other pay-off figures, other
lengths and batch sizes. Everything Dynamo and AOTAutograd decide on this
machine (graphs, saved bytes, compile counts, losses) is computed once per batch by the grader (REFERENCES), in a
process of its own, never in the learner's kernel.
"""

from __future__ import annotations

from pathlib import Path

from hidden_inputs import lab06 as inputs

from helpers import inductor
from helpers.checks import lab06 as public

DUMPS = Path(__file__).resolve().parent / "dumps"
GPT = public.GPTCase("the grader's MiniGPT (2 layers, other sizes)", seed=61, n_layers=2, d_model=48, n_heads=3, vocab=131,
                     batch=3, seq=10)
BREAKS = [("a step with two prints", inputs.two_breaks, (5, 6)), ("a step of two matmuls without a break", inputs.no_break_two_matmuls, (3, 7)),
          ("two prints after a piece that needs no gradient", inputs.frozen_head_two_breaks, (4, 6))]
HIDDEN_GUARDS = [("eval then train, twice", inputs.BranchOnTraining, inputs.eval_then_train_twice),
                 ("a Linear flipped to eval", inputs.make_plain_linear, inputs.linear_mode_flips),
                 ("a float64 input", inputs.make_square, inputs.new_dtype),
                 ("four growing shapes", inputs.make_square, inputs.growing_shapes),
                 ("no_grad in between", inputs.make_plain_linear, inputs.grad_mode_flips)]
VARLEN = public.VarlenCase("the grader's batches (other lengths and batch sizes, a partial batch last)",
                           public.GPTCase("the grader's MiniGPT", seed=64, n_layers=1, d_model=24, n_heads=2, vocab=83),
                           ((3, 10), (3, 6), (3, 13), (3, 4), (2, 8)), lr=0.05, max_len=24)
PRECISION = public.PrecisionCase(public.GPTCase("the grader's training run", seed=62, n_layers=1, d_model=32, n_heads=4,
                                                vocab=89, batch=3, seq=9), steps=3, lr=0.05)


def device():
    from helpers.env import current_settings, pick_device

    return pick_device(current_settings().device)


def train_kernels() -> list:
    """This machine's Inductor kernels for a training step of the grader's MiniGPT."""
    model, idx, targets = GPT.build(device())

    def step(idx, targets):
        loss = public.lm_loss(model, idx, targets)
        loss.backward()
        return loss

    return list(inductor.capture(step, idx, targets, no_grad=False).kernels)


def breaks() -> list:
    return [public.BreakCase(about, fn, shape, count_graphs(fn, shape)) for about, fn, shape in BREAKS]


def count_graphs(fn, shape) -> tuple:
    """The grader's own count of forward and backward graphs."""
    import torch
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.aot_autograd import make_boxed_func

    counts = [0, 0]

    def counter(i):
        def compiler(gm, example_inputs):
            counts[i] += 1
            return make_boxed_func(gm.forward)
        return compiler

    torch._dynamo.reset()
    x, w = public.break_inputs(shape)
    torch.compile(fn, backend=aot_autograd(fw_compiler=counter(0), bw_compiler=counter(1)))(x, w).sum().backward()
    torch._dynamo.reset()
    return tuple(counts)


def guards() -> dict:
    return {"hidden": [public.GuardCase(key, make, script, public.compiles_of(make, script)) for key, make, script in HIDDEN_GUARDS],
            "public": public.public_guard_cases()}


REFERENCES = {
    "saved": lambda: public.saved_reference(GPT, device()),
    "saved_gated": lambda: public.saved_reference(public.GatedCase("the grader's gated model", seed=64, d_model=20,
                                                                   vocab=53, batch=3, seq=9), device()),
    "recompute": lambda: public.recompute_reference(GPT, device()),
    "train_kernels": train_kernels,
    "breaks": breaks,
    "guards": guards,
    "precision": lambda: public.precision_case(PRECISION, device()),
    "varlen": lambda: public.varlen_reference(VARLEN, device()),
}


def stored_train_dumps() -> list:
    return [inductor.load_dump(d) for d in sorted(DUMPS.glob("*/minigpt_train")) if (d / "output_code.py").is_file()]


def backward_kernel_cases(refs: dict) -> list:
    cases = [public.KernelListCase("this machine's dump of the grader's training step", refs["train_kernels"])]
    cases += [public.KernelListCase(f"a stored {d.device} training-step dump", list(d.kernels)) for d in stored_train_dumps()]
    return cases + [public.KernelListCase("the grader's kernels of another model (SiLU, dropout, hardtanh)", public.kernels_of(
        ("cpp_fused_native_dropout_silu_0", ("silu", "native_dropout", "mul")),
        ("cpp_fused_hardtanh_hardtanh_backward_1", ("hardtanh", "hardtanh_backward")),
        ("cpp_fused_native_dropout_backward_silu_backward_2", ("native_dropout_backward", "silu_backward", "mul")),
        ("cpp_fused_backward_view_3", ("view", "add")),
        ("cpp_fused_add_mul_4", ("mul", "silu_backward", "add"))))]


def hidden_recompute_counts() -> public.RecomputeCase:
    """The grader's op counts: exp runs once in the default backward and three times in min-cut's, mm the same, mul
    once less in min-cut's."""
    default = (("mm", 6), ("exp", 1), ("view", 2), ("mul", 4))
    mincut = (("mm", 6), ("exp", 3), ("view", 4), ("mul", 3), ("tanh", 2))
    return public.recompute_counts_case(default, mincut, "the grader's two backward graphs (exp in both, more often in "
                                                         "min-cut's; mul less often)")


CASES = {
    "06.two_graphs": [GPT],
    "06.saved": lambda refs: [refs["saved"], refs["saved_gated"]],
    "06.recompute": lambda refs: [refs["recompute"], hidden_recompute_counts()],
    "06.backward_kernels": backward_kernel_cases,
    "06.breaks": lambda refs: refs["breaks"],
    "06.recompiles": lambda refs: refs["guards"]["hidden"],
    "06.predictions": lambda refs: refs["guards"]["public"],
    "06.checkpoint": [public.GPTCase("the grader's MiniGPT (3 blocks)", seed=63, n_layers=3, d_model=24, n_heads=2, vocab=71,
                                     batch=2, seq=7)],
    "06.mixed_precision": lambda refs: [refs["precision"]],
    "06.dynamic": lambda refs: [refs["varlen"]],
    "06.payoff": [public.PayoffCase(45.0, 20.0, 5.0), public.PayoffCase(1.0, 0.5, 0.6), public.PayoffCase(2.0, 10.0, 7.0),
                  public.PayoffCase(5.0, 9.0, 2.0),
                  public.PayoffCase(0.001, 2.0, 1.0), public.PayoffCase(7.0, 4.0, 4.0)],
}
