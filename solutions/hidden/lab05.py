"""Lab 05 hidden cases: the grader's cases and reference answers for the checks in helpers/checks/lab05.py.

Never released. Cases only: the checks are the public ones, run with probes in the submission's kernel and messages
that reveal nothing. Each distributed exercise is launched again on configurations the notebook never saw: three ranks
and another size for the collectives; three ranks for DDP, FSDP and tensor parallel; other widths, depths, batch
sizes and a smaller bucket cap for DDP (whose blocks
log the rows they run on, as FSDP's do); an output size FSDP must pad; other micro-batch counts, a deeper model and
stage splits that leave one or two blocks over for the pipeline. The grader's own answers come from its reference
implementations here: the stage split (`split_truth`, for the split cases and for how many blocks each pipeline stage
must run) and the calculator (`plan_truth`, on other models, one with gradients wider than its parameters, so that
param_bytes and grad_bytes cannot be mixed up). DISTRIBUTED.md is re-read from the folder the notebook wrote.
"""

from __future__ import annotations

from helpers.checks import lab05 as public

COLLECTIVES = public.RunCase("the grader's run (another number of ranks and elements)", 3, {"n": 7})
# DDP, FSDP and tensor parallel run on 3 ranks (the notebook runs 2): a batch cut or a mesh sized for the notebook's 2
# ranks fails there. Batches divide by 3, so that the mean of the ranks' slices is the whole batch's mean, and are not
# 3 × 3, where pieces of world_size rows (x.split(world_size)) would be the right slices; FSDP's output size (5) and
# TP's hidden width (4 × 36 = 144) make the shards uneven and even.
DDP_RANKS = FSDP_RANKS = TP_RANKS = 3
DDP_CFG = {"d_in": 20, "d": 40, "blocks": 5, "d_out": 3, "batch": 15, "seed": 11, "bucket_cap_mb": 0.02, **public.LOG_ROWS}
FSDP_CFG = {"d_in": 18, "d": 36, "blocks": 2, "d_out": 5, "batch": 6, "seed": 13, "lr": 0.2, "steps": 3, **public.LOG_ROWS}
TP_CFG = {"d_in": 16, "d": 36, "blocks": 3, "d_out": 4, "batch": 6, "seed": 17}
PP_CFG = {"d_in": 12, "d": 24, "blocks": 6, "d_out": 4, "batch": 8, "seed": 19, "cost_ms": 12.0, "microbatches": [2, 4],
          "steps": 1}
BUBBLE_PAIRS = ((3, 5), (4, 12), (6, 1), (2, 9))
# (blocks, stages): uneven, one block each, odd, one stage, and two with 2 blocks left over (3+2+2, 3+3+2+2)
SPLIT_CASES = ((5, 3), (4, 4), (7, 2), (3, 1), (7, 3), (10, 4))


def split_truth(blocks: int, stages: int) -> list[list[str]]:
    """The grader's own stage split: module names per stage, the blocks divided evenly, earlier stages first."""
    sizes = [blocks // stages + (i < blocks % stages) for i in range(stages)]
    out, start = [], 0
    for s, size in enumerate(sizes):
        out.append((["inp"] if s == 0 else []) + [f"blocks.{i}" for i in range(start, start + size)]
                   + (["head"] if s == stages - 1 else []))
        start += size
    return out


def on_the_gpus(kwargs: dict) -> public.RunCase:
    """A two-rank launch that runs only where both ranks get a GPU (NCCL): beside a three-rank case that a two-GPU
    machine runs on the CPU, it makes a mistake only NCCL shows (a tensor, a model or a mesh left on the CPU) cost
    its points on that machine too."""
    return public.RunCase("the grader's run on the GPUs", 2, kwargs, on_gpus=True)


def on_the_gpus_too(check: str) -> list[public.RunCase]:
    """The public case of a two-rank exercise as an on_gpus case (its batch divides by two, as the notebook's)."""
    from helpers.checks import spec

    return [on_the_gpus(case.kwargs) for case in spec(check).public_cases() if case.nproc == 2]


def pipeline_case() -> public.PipelineCase:
    """The bubble pairs, the split cases with the grader's answers, and pp_worker on a deeper model over 2 stages."""
    splits = tuple(public.SplitCase(b, s, tuple(tuple(stage) for stage in split_truth(b, s))) for b, s in SPLIT_CASES)
    per_stage = tuple(sum(name.startswith("blocks.") for name in stage) for stage in split_truth(PP_CFG["blocks"], 2))
    return public.PipelineCase(BUBBLE_PAIRS, splits, public.RunCase("the grader's model", 2, {"cfg": PP_CFG}), per_stage)


def plan_truth(params_billion, n_devices, layers=32, hidden=4096, tokens=32768, param_bytes=2, grad_bytes=2,
               optim_bytes=12, act_bytes=34) -> dict:
    """The grader's own calculator, from the table in the notebook."""
    P, N = params_billion * 1e9, n_devices
    f = (N - 1) / N
    act = tokens * hidden * layers * act_bytes / N / 1e9
    sharded = (1 / N, 1 / N, 1 / N)
    shares = {"DDP": (1, 1, 1), "ZeRO-1": (1, 1, 1 / N), "ZeRO-2": (1, 1 / N, 1 / N), "FSDP / ZeRO-3": sharded,
              "TP": sharded, "PP": sharded}
    comm = {"DDP": 2 * f * P * grad_bytes, "ZeRO-1": f * P * (grad_bytes + param_bytes),
            "ZeRO-2": f * P * (grad_bytes + param_bytes), "FSDP / ZeRO-3": f * P * (2 * param_bytes + grad_bytes),
            "TP": layers * 4 * 2 * f * tokens * hidden * param_bytes, "PP": 2 * f * tokens * hidden * param_bytes}
    out = {}
    for name, (sp, sg, so) in shares.items():
        row = {"params_GB": P * param_bytes * sp / 1e9, "grads_GB": P * grad_bytes * sg / 1e9,
               "optimizer_GB": P * optim_bytes * so / 1e9, "activations_GB": act}
        out[name] = {"memory_GB": sum(row.values()), **row, "comm_GB_per_step": comm[name] / 1e9}
    return out


PLANS = [
    ("a large model on many devices, its gradients reduced in float32", (13.0, 16),
     {"layers": 40, "hidden": 5120, "tokens": 65536, "grad_bytes": 4}),
    ("a larger model with another optimizer", (70.0, 64),
     {"layers": 80, "hidden": 8192, "tokens": 4 * 4096, "optim_bytes": 16, "act_bytes": 30}),
    ("a model on a single device", (0.35, 1),
     {"layers": 24, "hidden": 1024, "tokens": 8192, "param_bytes": 4, "grad_bytes": 4, "optim_bytes": 8}),
    ("a tiny float32 model on an odd number of devices", (0.002, 3),
     {"layers": 1.5, "hidden": 48, "tokens": 12, "param_bytes": 4, "grad_bytes": 4, "optim_bytes": 0, "act_bytes": 0}),
]


def calculator_case() -> public.CalculatorCase:
    """The grader's models, each with the plan its own calculator gives."""
    return public.CalculatorCase(tuple(public.PlanCase(f"the grader's case ({about})", args, kwargs, plan_truth(*args, **kwargs))
                                       for about, args, kwargs in PLANS))


CASES = {
    "05.collectives": [COLLECTIVES, on_the_gpus({"n": 7})],
    "05.ddp": [public.RunCase("the grader's model (other sizes, ranks and bucket cap)", DDP_RANKS, {"cfg": DDP_CFG}),
               *on_the_gpus_too("05.ddp")],
    "05.fsdp": [public.RunCase("the grader's model (other ranks, a parameter that does not divide evenly)", FSDP_RANKS,
                               {"cfg": FSDP_CFG}), *on_the_gpus_too("05.fsdp")],
    "05.tp": [public.RunCase("the grader's model (other sizes and ranks)", TP_RANKS, {"cfg": TP_CFG}),
              *on_the_gpus_too("05.tp")],
    "05.pp": pipeline_case(),
    "05.calculator": calculator_case(),
    "05.survey": public.SURVEY_FILE,
    **{f"05.survey_{key}": public.SectionCase(public.SURVEY_FILE, key) for key in public.PATTERNS},
}
