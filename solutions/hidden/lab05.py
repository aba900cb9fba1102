"""Lab 05 hidden checks: the grader's twins of helpers/checks/lab05.py, on configurations the notebook never saw.

Never released. Each distributed exercise is launched again in the sandboxed worker through the public
`probe_launch` (other widths, depths, batch sizes, bucket caps, an odd output size that FSDP must pad, three
ranks for the collectives); the grader computes the single-process truth itself and judges with the public
`*_problems` functions with reveal=False, so messages leave the hidden sizes out. The calculator is compared
with the grader's own formulas on other models; DISTRIBUTED.md is re-read from the folder the notebook wrote.
"""

from __future__ import annotations

from helpers.checks import CheckFailed, fail_if
from helpers.checks import lab05 as public

# The notebook cells whose definitions the worker loads (learner-added cells: their defs and imports).
WORKER_CELLS = ["parameters", "setup", "ex-1", "ex-2", "ex-3", "ex-4", "ex-5a", "ex-5b", "ex-6"]
TRUTHS: dict = {}

PRELUDE = "from helpers.checks import lab05 as L\n"



def _launch(ctx, fn_name: str, nproc: int, timeout: float = 110, cpu_if_short: bool = False, **kwargs):
    """Launch the learner's function in the worker; {"results": ...} or {"error": ...}."""
    device = ("LAUNCH_DEVICE if LAUNCH_DEVICE == 'cpu' or torch.cuda.device_count() >= __nproc else 'cpu'"
              if cpu_if_short else "LAUNCH_DEVICE")
    snippet = (PRELUDE + "import torch\n"
               f"if '{fn_name}' not in globals():\n    raise NameError('{fn_name} is not defined')\n"
               f"result = L.probe_launch({fn_name}, __nproc, {device}, timeout=40, **__kwargs)\n")
    return ctx.run(snippet, timeout=timeout, __nproc=nproc, __kwargs=kwargs)


# ---------------------------------------------------------------- 1
def collectives(ctx) -> str:
    probe = _launch(ctx, "collectives", 3, cpu_if_short=True, n=7)
    fail_if(public.collectives_problems(probe, 3, 7, "the grader's run (another number of ranks and elements)", reveal=False), most=2)
    return "right on every rank of the grader's run"


# ---------------------------------------------------------------- 2
DDP_CFG = {"d_in": 20, "d": 40, "blocks": 5, "d_out": 3, "batch": 10, "seed": 11, "bucket_cap_mb": 0.02}


def ddp(ctx) -> str:
    probe = _launch(ctx, "ddp_worker", 2, cfg=DDP_CFG)
    fail_if(public.ddp_problems(probe, DDP_CFG, 2, "the grader's model (other sizes and bucket cap)", reveal=False), most=2)
    return "gradients, bytes and buckets right on the grader's model"


# ---------------------------------------------------------------- 3
FSDP_CFG = {"d_in": 18, "d": 36, "blocks": 2, "d_out": 5, "batch": 8, "seed": 13, "lr": 0.2, "steps": 3}


def fsdp(ctx) -> str:
    probe = _launch(ctx, "fsdp_worker", 2, cfg=FSDP_CFG)
    fail_if(public.fsdp_problems(probe, FSDP_CFG, 2, "the grader's model (a parameter that does not divide evenly)",
                               reveal=False), most=2)
    return "shards, volumes and losses right on the grader's model"


# ---------------------------------------------------------------- 4
TP_CFG = {"d_in": 16, "d": 40, "blocks": 3, "d_out": 4, "batch": 6, "seed": 17}


def tp(ctx) -> str:
    probe = _launch(ctx, "tp_worker", 2, cfg=TP_CFG)
    fail_if(public.tp_problems(probe, TP_CFG, 2, "the grader's model", reveal=False), most=2)
    return "output, shards and all-reduces right on the grader's model"


# ---------------------------------------------------------------- 5
PP_CFG = {"d_in": 12, "d": 24, "blocks": 6, "d_out": 4, "batch": 8, "seed": 19, "cost_ms": 12.0, "microbatches": [2, 4],
          "steps": 1}
SPLIT_CASES = ((5, 3), (4, 4), (7, 2), (3, 1))        # (blocks, stages): uneven, one block each, odd, one stage


def split_truth(blocks: int, stages: int) -> list[list[str]]:
    sizes = [blocks // stages + (i < blocks % stages) for i in range(stages)]
    out, start = [], 0
    for s, size in enumerate(sizes):
        out.append((["inp"] if s == 0 else []) + [f"blocks.{i}" for i in range(start, start + size)]
                   + (["head"] if s == stages - 1 else []))
        start += size
    return out


def pp(ctx) -> str:
    pairs = [(3, 5), (4, 12), (6, 1), (2, 9)]
    values = ctx.run(PRELUDE + "result = [float(bubble_fraction(p, m)) for p, m in __pairs]\n", __pairs=pairs)
    fail_if(public.bubble_problems(dict(zip(pairs, values)), reveal=False), most=2)
    got = ctx.run(PRELUDE + (
        "from helpers.models import toy_model\n"
        "result = []\n"
        "for blocks, stages in __cases:\n"
        "    model = toy_model({'d_in': 4, 'd': 8, 'blocks': blocks, 'd_out': 2, 'seed': 0})\n"
        "    names = {id(m): n for n, m in model.named_modules()}\n"
        "    parts = split_stages(model, stages)\n"
        "    result.append([[names.get(id(m), type(m).__name__) for m in part] for part in parts])\n"), __cases=SPLIT_CASES)
    for (blocks, stages), stages_got in zip(SPLIT_CASES, got):
        if stages_got != split_truth(blocks, stages):
            raise CheckFailed("split_stages is wrong for some number of blocks and stages: it should give n_stages "
                              "nn.Sequential stages holding inp, every block in order (earlier stages get the extra "
                              "block when they do not divide evenly) and head, each module once (the model's own modules).")
    probe = _launch(ctx, "pp_worker", 2, cfg=PP_CFG)
    fail_if(public.pp_problems(probe, PP_CFG, 2, "the grader's model", reveal=False), most=2)
    return "bubble formula, stage split, outputs, losses, sends and measured bubble right on the grader's runs"


# ---------------------------------------------------------------- 6
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


PLAN_CASES = [
    ((13.0, 16), {"layers": 40, "hidden": 5120, "tokens": 65536}),
    ((70.0, 64), {"layers": 80, "hidden": 8192, "tokens": 4 * 4096, "optim_bytes": 16, "act_bytes": 30}),
    ((0.35, 1), {"layers": 24, "hidden": 1024, "tokens": 8192, "param_bytes": 4, "grad_bytes": 4, "optim_bytes": 8}),
    ((0.002, 3), {"layers": 1.5, "hidden": 48, "tokens": 12, "param_bytes": 4, "grad_bytes": 4, "optim_bytes": 0,
                  "act_bytes": 0}),
]
ABOUT = ["a large model on many devices", "a larger model with another optimizer", "a model on a single device",
         "a tiny float32 model on an odd number of devices"]


def calculator(ctx) -> str:
    for (args, kwargs), about in zip(PLAN_CASES, ABOUT):
        plan = ctx.call("parallelism_plan", *args, **kwargs)
        want = {name: {k: v for k, v in row.items()} for name, row in plan_truth(*args, **kwargs).items()}
        fail_if(public.plan_problems(plan, want, f"the grader's case ({about})", reveal=False), most=2)
    return "memory and traffic right on the grader's models"


# ---------------------------------------------------------------- 7
def _survey(ctx) -> str:
    return ctx.file(public.SURVEY_FILE).read_text(encoding="utf-8", errors="replace")


def survey(ctx) -> str:
    fail_if(public.survey_problems(_survey(ctx)), most=2)
    return "DISTRIBUTED.md re-read: structure and length"


def _pattern(key: str):
    def check(ctx) -> str:
        fail_if(public.pattern_problems(_survey(ctx), key), most=2)
        return f"DISTRIBUTED.md re-read: the {public.PATTERNS[key]['name']} section"

    return check


HIDDEN = {
    "05.collectives": collectives,
    "05.ddp": ddp,
    "05.fsdp": fsdp,
    "05.tp": tp,
    "05.pp": pp,
    "05.calculator": calculator,
    "05.survey": survey,
    **{f"05.survey_{k}": _pattern(k) for k in public.PATTERNS},
}
