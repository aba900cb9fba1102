"""Lab 05 — Distributed: the acceptance checks.

The distributed exercises are functions that run on every rank (``fn(rank, world_size, device, ...)``). A probe
(`probe_launch`) launches the learner's function with `helpers.dist.launch` on a case's configuration, on the
run's device (``learner.settings.device`` through `helpers.dist.backend_for`: gloo on the CPU unless there is a
GPU for every rank), under a small wrapper (`checked_entry`) that starts the log of the fixed-cost layers of
`helpers.models` and, for the collectives exercise, counts the collectives issued; it brings back, as plain data,
what every rank returned, what its fixed-cost layers did (the rows each block ran on) and which collectives it
issued. The judges (`*_problems`) compare that with what one process computes on the same model and batch
(`reference_*`): gradients and losses, and also that each rank of DDP and FSDP ran its own slice of the batch (the
whole batch on every rank gives the same numbers for N times the work) and that each result of the collectives
exercise came from its own collective (an all-reduce and a slice is no reduce-scatter). The notebook runs the checks
on the cases given here (the collectives on three ranks, the other exercises on the notebook's two); the grader runs
the same checks on its hidden cases (three ranks for DDP, FSDP and tensor parallel too, other widths, depths, batch
sizes, bucket caps and micro-batch counts, an output size FSDP must pad, uneven stage splits) with ``reveal=False``, so
messages leave the hidden sizes out. A machine with two GPUs runs three ranks on the CPU with gloo, where a tensor,
model or mesh left on the CPU goes unseen; there the cases marked `on_gpus` (two ranks, one GPU each, NCCL) run too.

No check judges how long something took on a machine others may share. The pipeline is judged by its schedule:
the order and count of each stage's fixed-cost calls (`helpers.models.busy_log`) and the bubble that order
implies in units of the layer's cost, which must be GPipe's; the bubble the learner measured must agree with the
busy time those layers logged and cannot be smaller than the chain of blocks from the rank's own first block to the
step's end allows (load only makes it larger, and a rank that leaves the first barrier late is not blamed). DDP's
bucket timings are judged by their order only. A check judges its own exercise only: the calculator's predictions
for the notebook's model are compared with what parts 2–5 measure when they are right (`reference_measured`), not
with the learner's runs. The survey, DISTRIBUTED.md, is read from the output folder
(`probe_files`); its checks give the points a reader of words can verify (structure, each collective named next to
what it carries, what each device holds, MiniGPT's size), the rest is graded by hand (the survey cell's rubric).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from helpers.checks import CheckFailed, Context, Learner, fail_if, probe_files, register

LAB = "05"
SURVEY_FILE = "DISTRIBUTED.md"
PLAN_NAMES = ("DDP", "ZeRO-1", "ZeRO-2", "FSDP / ZeRO-3", "TP", "PP")
PLAN_KEYS = ("memory_GB", "params_GB", "grads_GB", "optimizer_GB", "activations_GB", "comm_GB_per_step")
LAUNCH_TIMEOUT = 60    # seconds a launch's ranks may wait in a collective before they are stopped
PROBE_TIMEOUT = 240    # seconds the grader waits for a probe that launches (torchrun starts slowly on a busy machine)


# ---------------------------------------------------------------- launching the learner's rank functions
@dataclass(frozen=True)
class RunCase:
    """One launch of an exercise: what messages call it, the number of ranks, the rank function's keyword arguments.

    on_gpus: launched only where its ranks get a GPU each (NCCL). A machine with two GPUs runs a three-rank case on
    the CPU with gloo, where a tensor or a model left on the CPU, or a mesh built for "cpu", goes unseen; a two-rank
    case on the GPUs beside it makes such a mistake cost its points there too."""

    about: str
    nproc: int
    kwargs: dict
    on_gpus: bool = False

    @property
    def cfg(self) -> dict:
        return self.kwargs["cfg"]


def launch_device(device: str, nproc: int) -> str:
    """The device type a launch of `nproc` ranks uses for the run's device setting (backend_for's choice, quietly)."""
    import warnings

    from helpers.dist import backend_for

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return backend_for(device, nproc=nproc)[1]


# What a check launches: the learner's rank function, called by a wrapper that starts the log of its fixed-cost
# blocks (helpers.models.busy_log: the rows each block ran on) and, for the exercises about collectives, counts the
# collectives it issues (helpers.dist.CommCounter; elsewhere no dispatch mode wraps DDP, FSDP, DTensor or the pipeline).
CHECKED = '''
def {entry}(rank, world_size, device, **kwargs):
    """`{name}` as a check runs it: its fixed-cost blocks logged from the start{counted}."""
    from helpers.models import reset_busy

    reset_busy()
{call}
'''
PLAIN_CALL = '    return {{"result": {name}(rank, world_size, device, **kwargs), "collectives": None}}'
COUNTED_CALL = '''    from helpers.dist import CommCounter

    with CommCounter() as comm:
        result = {name}(rank, world_size, device, **kwargs)
    return {{"result": result, "collectives": comm.log}}'''
COUNTED = ("collectives",)   # the exercises whose collectives a check counts


def checked_entry(fn, name: str) -> tuple[str, list]:
    """(entry, needs) that launch the learner's `name` under the check's wrapper: launch(entry, needs=needs, ...)."""
    entry, count = f"checked_{name}", name in COUNTED
    call = (COUNTED_CALL if count else PLAIN_CALL).format(name=fn.__name__)   # the name its source defines
    return entry, [fn, CHECKED.format(entry=entry, name=name, call=call, counted=", its collectives counted" if count else "")]


def rank_outputs(results: list, busy: list | None, backend: str) -> dict:
    """The probe's plain data from what every rank's wrapper returned: {"results", "collectives", "busy", "backend"}."""
    return {"results": [r["result"] for r in results], "collectives": [r["collectives"] for r in results],
            "busy": busy, "backend": backend}


def launch_result(fn, name: str, case: RunCase, device: str) -> dict:
    """Launch the learner's `name` on the case's ranks under the check's wrapper: rank_outputs, or {"error": the first
    failure}. NotImplementedError (every failing rank raised it) goes through: not written yet."""
    import tempfile

    from helpers.dist import DistributedError, RankNotImplemented, ScriptError, launch, stub_message

    if stub_message(fn) is not None:   # a stub: every rank would raise NotImplementedError; start none
        raise RankNotImplemented(f"`{name}` is not written yet")
    with tempfile.TemporaryDirectory(prefix=f"check-{name}-") as scripts:
        try:
            entry, needs = checked_entry(fn, name)
            run = launch(entry, needs=needs, nproc=case.nproc, device=device, timeout=LAUNCH_TIMEOUT, script_dir=scripts,
                         **case.kwargs)
        except NotImplementedError:
            raise
        except (DistributedError, ScriptError) as err:
            return {"error": str(err).split("\n\n")[0][:400]}
    return rank_outputs(run.results, run.busy, run.backend)


def probe_launch(learner: Learner, name: str, case: RunCase) -> dict:
    """Launch the learner's `name` on the case's ranks: {"results", "collectives", "busy", "backend"}, or {"error"};
    {"skipped": why} for an on_gpus case where its ranks would not get a GPU each."""
    fn = learner.function(name)
    device = launch_device(learner.settings.device, case.nproc)
    if case.on_gpus and device != "cuda":
        return {"skipped": f"{case.nproc} ranks get no GPU each here"}
    with learner.running(name):
        return launch_result(fn, name, case, device)


# What to look at when a rank function raised: the mistakes that make each exercise's function fail on a rank,
# in the exercise's words (the rank's own error, shown first, is torch's and rarely names the cause).
# A rank that made something on another device than its own (on GPUs with NCCL: on the CPU) fails with one of these.
OFF_DEVICE = re.compile(r"device type cpu|at least two devices|single-device/multiple-device GPU|on the same device|"
                        r"[Ee]xpected .*cuda.* but (got|found) .*cpu|Tensors must be CUDA")
ON_THE_GPUS = ("Something the function made is on another device than the rank's: every tensor, model and mesh it "
               "makes must be on `device` (torch.full(..., device=device), model.to(device), x.to(device), "
               "init_device_mesh(device.type, ...)). On GPUs with NCCL a tensor left on the CPU fails; on a CPU the "
               "same code runs, because there `device` is the CPU.")
FAILURE_HINTS = {
    "collectives": "Size every tensor from n and world_size (the gathered output and the reduce-scattered input have "
                   "n * world_size elements), never from the notebook's number of ranks, and give every collective "
                   "float32 tensors of the same size on every rank",
    "ddp_worker": "Wrap the model built by toy_model(cfg) in DistributedDataParallel, let the comm hook return the "
                  "future that allreduce_hook(state, bucket) gives, and give rank r the r-th of world_size slices of the "
                  "batch (x.chunk(world_size)[rank]): the function must work for any number of ranks, not only the "
                  "notebook's",
    "fsdp_worker": "fully_shard each block of model.blocks, then the whole model (the root last), build the optimizer "
                   "after that, from the sharded model.parameters(), and give rank r the r-th of world_size slices of the "
                   "batch (x.chunk(world_size)[rank]): the function must work for any number of ranks, not only the "
                   "notebook's",
    "tp_worker": "Build the mesh with init_device_mesh(device.type, (world_size,)): the device the launch gives (a CPU "
                 "with gloo, or GPUs) and every rank, however many; give the plan, for every block i, ColwiseParallel() "
                 "on blocks.{i}.fc1 and RowwiseParallel() on blocks.{i}.fc2 with their default layouts, and nothing else "
                 "(inp and head stay whole)",
    "pp_worker": "Rank r runs PipelineStage(split_stages(toy_model(cfg), world_size)[r], r, world_size, device) with a "
                 "ScheduleGPipe of m micro-batches and loss_fn=F.mse_loss (without a loss_fn the last stage computes no "
                 "loss and no backward runs); the first stage steps with x, the last with the targets",
}


def launched(ctx: Context, name: str, cases: list[RunCase]):
    """(case, probe) for each case launched on this machine (an on_gpus case only where its ranks get GPUs)."""
    for case in cases:
        probe = ctx.probe(probe_launch, name, case, timeout=PROBE_TIMEOUT)
        if not (isinstance(probe, dict) and "skipped" in probe):
            yield case, probe


def rank_results(probe: dict, name: str, case: RunCase, reveal: bool = True) -> list:
    """What each rank returned; CheckFailed, saying what went wrong, when the launch failed or gave back too little.
    Hidden (reveal=False), the rank's error keeps its words but not its numbers (the grader's ranks and sizes)."""
    if "error" in probe:
        error = probe["error"] if reveal else re.sub(r"(?<!\w)\d+", "…", probe["error"])   # fc1, f32 stay
        hint = f" {FAILURE_HINTS[name]}." if name in FAILURE_HINTS else ""
        if OFF_DEVICE.search(probe["error"]):
            hint = f" {ON_THE_GPUS}{hint}"
        raise CheckFailed(f"{name} failed on {case.about}: {error}.{hint}")
    res = probe.get("results")
    if not isinstance(res, list) or len(res) != case.nproc:
        raise CheckFailed(f"{name} should return one result per rank; launch gave back {res!r:.100}.")
    return res


def diff(a, b) -> float:
    """Largest |a - b| of two tensors (inf when either is not a tensor or the shapes differ)."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or a.shape != b.shape:
        return math.inf
    return (a.double() - b.double()).abs().max().item() if a.numel() else 0.0


def near(a, b, rel: float = 1e-4, abs_: float = 1e-5) -> bool:
    """a ≈ b for tensors: within abs_ + rel × the largest |b| (collectives sum in another order than one process)."""
    scale = b.abs().max().item() if isinstance(b, torch.Tensor) and b.numel() else 0.0
    return diff(a, b) <= abs_ + rel * scale


def number(x) -> bool:
    """A real, finite int or float (not a bool)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _shape(t) -> str:
    """A tensor's shape as 2×3, or the type of what is not a tensor (for messages that hide values)."""
    return "×".join(map(str, t.shape)) if isinstance(t, torch.Tensor) else type(t).__name__


CHECK_CFG = {"d_in": 24, "d": 48, "blocks": 3, "d_out": 6, "batch": 12, "seed": 7}
ABOUT = "the check's model (3 blocks of width 48, 2 ranks)"


# ---------------------------------------------------------------- 1: collectives
def expected_collectives(rank: int, world: int, n: int) -> dict[str, torch.Tensor]:
    """What each collective of the exercise leaves on `rank` (the rule stated in the notebook)."""
    total = world * (world + 1) / 2
    return {"all_reduce": torch.full((n,), total),
            "all_gather": torch.cat([torch.arange(n, dtype=torch.float32) + 100 * r for r in range(world)]),
            "reduce_scatter": torch.arange(n * world, dtype=torch.float32)[rank * n:(rank + 1) * n] * total,
            "ring": torch.full((n,), float((rank - 1) % world))}


COLLECTIVE_HINTS = {
    "all_reduce": "dist.all_reduce(t) sums t over the ranks, in place",
    "all_gather": "dist.all_gather_into_tensor(out, mine) puts every rank's tensor into out, in rank order",
    "reduce_scatter": "dist.reduce_scatter_tensor(out, full) sums `full` over the ranks and gives rank r the r-th slice",
    "ring": "send to (rank + 1) % world_size and receive from (rank - 1) % world_size, with isend/irecv (or "
            "batch_isend_irecv) so that no rank waits for a send nobody receives",
}


def collectives_problems(probe: dict, case: RunCase, reveal: bool = True) -> list[str]:
    """Each rank's four tensors against what the collectives leave there."""
    res = rank_results(probe, "collectives", case, reveal)
    world, n = case.nproc, case.kwargs["n"]
    for rank, got in enumerate(res):
        if not isinstance(got, dict):
            return [f"collectives should return a dict; rank {rank} returned {got!r:.80}."]
        want = expected_collectives(rank, world, n)
        missing = [k for k in want if k not in got]
        if missing:
            return [f"the dict needs the keys {', '.join(want)}; rank {rank}'s lacks {', '.join(missing)}."]
        for key, w in want.items():
            g = got[key]
            if not isinstance(g, torch.Tensor) or g.shape != w.shape or not torch.allclose(g.float(), w, atol=1e-4):
                said = (f" expected {w.tolist()}, got {g.tolist() if isinstance(g, torch.Tensor) else g!r}" if reveal
                        else f" (a tensor of {_shape(g)})")
                return [f"on {case.about}, rank {rank}'s {key} is wrong:{said}. {COLLECTIVE_HINTS[key]}."]
            if g.dtype != torch.float32:
                return [f"on {case.about}, rank {rank}'s {key} holds the right numbers as {g.dtype}: make every tensor "
                        "float32, as the exercise asks (torch.arange gives int64 unless you pass dtype=torch.float32, "
                        "and new_empty or empty_like keep the dtype of the tensor they come from)."]
    return issued_problems(probe.get("collectives"), case)


# The collectives each key's result must come from (CommCounter's kinds), and why another way does not count.
ISSUED = {
    "all_reduce": (("all_reduce",), "an all-reduce"),
    "all_gather": (("all_gather",), "an all-gather, and building it from another collective (an all-reduce of a "
                                    "zero-padded buffer, a broadcast per rank) sends more"),
    "reduce_scatter": (("reduce_scatter",), "a reduce-scatter: an all-reduce followed by a slice leaves the same numbers, "
                                            "but with the ring algorithm (NCCL's) it sends twice the bytes, 2(N-1)/N × S "
                                            "against (N-1)/N × S"),
    "ring": (("send", "recv"), "a point-to-point send and receive: gathering every rank's tensor to keep one sends "
                               "N - 1 tensors where the ring sends one"),
}


def issued_problems(logs, case: RunCase) -> list[str]:
    """Each key's result made by its own collective, once: the kinds every rank issued (CommCounter's log)."""
    for rank, log in enumerate(logs or []):
        kinds = [entry[0] for entry in log]
        for key, (needs, what) in ISSUED.items():
            if not all(k in kinds for k in needs):
                return [f"on {case.about}, rank {rank}'s {key} has the right numbers, but the function issued no "
                        f"{' or '.join(needs).replace('_', '-')}: {key} should come from {what}. {COLLECTIVE_HINTS[key]}."]
        if kinds.count("all_reduce") > 1:
            return [f"on {case.about}, rank {rank} issued {kinds.count('all_reduce')} all-reduces: only all_reduce needs "
                    "one; every other key comes from its own collective, which sends less than an all-reduce."]
    return []


@register("05.collectives", points=2, exercise="1", title="all-reduce, all-gather, reduce-scatter and a send/recv ring",
          cases=[RunCase("3 ranks with n=5", 3, {"n": 5}), RunCase("2 ranks on the GPUs with n=5", 2, {"n": 5}, on_gpus=True)])
def _collectives(ctx: Context, cases: list[RunCase]) -> str:
    for case, probe in launched(ctx, "collectives", cases):
        fail_if(collectives_problems(probe, case, ctx.reveal), most=2)
    return "every rank holds the right result of each collective"


# ---------------------------------------------------------------- shared: the toy model on one process
def plain_model(cfg: dict):
    """The case's toy model on one process, without fixed-cost blocks (they only sleep and log): the references'."""
    from helpers.models import toy_model

    return toy_model({**cfg, "cost_ms": 0.0})


def reference_grads(cfg: dict) -> tuple[dict, float, int]:
    """Gradients of the mean loss on the whole batch in one process, the loss, and the parameter bytes."""
    from helpers.models import param_bytes, toy_batch

    model = plain_model(cfg)
    x, y = toy_batch(cfg)
    loss = F.mse_loss(model(x), y)
    loss.backward()
    return {n: p.grad.clone() for n, p in model.named_parameters()}, loss.item(), param_bytes(model)


def reference_losses(cfg: dict) -> list[float]:
    """Losses of `cfg["steps"]` SGD steps on the whole batch in one process (the loss before each update)."""
    from helpers.models import toy_batch

    model = plain_model(cfg)
    sgd = torch.optim.SGD(model.parameters(), lr=cfg["lr"])
    x, y = toy_batch(cfg)
    losses = []
    for _ in range(cfg["steps"]):
        loss = F.mse_loss(model(x), y)
        loss.backward()
        sgd.step()
        sgd.zero_grad()
        losses.append(loss.item())
    return losses


def reference_output(cfg: dict, chunks: int = 1) -> tuple[torch.Tensor, list[float]]:
    """The model's output on the whole batch, and the loss of each of `chunks` micro-batches."""
    from helpers.models import toy_batch

    model = plain_model(cfg)
    x, y = toy_batch(cfg)
    with torch.no_grad():
        out = model(x)
        losses = [F.mse_loss(model(a), b).item() for a, b in zip(x.tensor_split(chunks), y.tensor_split(chunks))]
    return out, losses


# The DDP and FSDP cases make every block log the rows it runs on (a fixed cost of 10 µs, nothing else changes):
# N ranks that each run the whole batch get the same gradients and losses as N slices do, for N times the work.
LOG_ROWS = {"cost_ms": 0.01}


def data_split_problems(busy, case: RunCase, name: str, reveal: bool = True) -> list[str]:
    """Whether each rank's blocks ran forward on its own slice of the batch (what its fixed-cost blocks logged)."""
    batch, world = case.cfg["batch"], case.nproc
    sizes = [len(c) for c in torch.arange(batch).chunk(world)]
    logs = busy if isinstance(busy, list) and len(busy) == world else [None] * world
    for rank, log in enumerate(logs):
        rows = {c["rows"] for step in log or [] for c in step if c["pass"] == "forward"}
        if not rows:
            return [f"on {case.about}, no block of the model ran forward on rank {rank}: build the model with "
                    "toy_model(cfg) (the check's cfg makes its blocks log the rows they run on)."]
        if rows != {sizes[rank]}:
            said = ("the whole batch" if batch in rows else f"{sorted(rows)} rows, not its slice of {sizes[rank]}" if reveal
                    else "other rows than its slice of the batch")
            return [f"on {case.about}, rank {rank}'s blocks ran forward on {said}: give rank r the r-th of world_size "
                    f"equal slices (x.chunk(world_size)[rank], and the same for y). Every rank of {name} running the "
                    "whole batch gets the same gradients as the slices do, for world_size times the work."]
    return []


# ---------------------------------------------------------------- 2: DDP
def max_param_bytes(cfg: dict) -> int:
    """Bytes of the model's largest parameter (a bucket may exceed its cap by at most one gradient)."""
    return max(p.numel() * p.element_size() for p in plain_model(cfg).parameters())


def ddp_problems(probe: dict, case: RunCase, reveal: bool = True) -> list[str]:
    """Gradients (equal on every rank and to one process's), bytes all-reduced, buckets, and the order of their timings."""
    res = rank_results(probe, "ddp_worker", case, reveal)
    cfg, about = case.cfg, case.about
    problems = data_split_problems(probe.get("busy"), case, "ddp_worker", reveal)
    if problems:
        return problems
    grads, whole_loss, nbytes = reference_grads(cfg)
    for rank, got in enumerate(res):
        missing = [k for k in ("grads", "loss", "allreduce_bytes", "steps") if not isinstance(got, dict) or k not in got]
        if missing:
            return [f"ddp_worker should return a dict with grads, loss, allreduce_bytes and steps; rank {rank}'s lacks "
                    f"{', '.join(missing)}."]
        g = got["grads"]
        if not isinstance(g, dict) or sorted(g) != sorted(grads):
            return ["grads should map every parameter name of the model (model.named_parameters(), not the DDP "
                    f"wrapper's 'module.' names) to its gradient; got the keys {sorted(g) if isinstance(g, dict) else g!r:.120}."]
    scale = max(t.abs().max().item() for t in grads.values())
    for rank, got in enumerate(res[1:], 1):
        worst = max(diff(got["grads"][k], res[0]["grads"][k]) for k in grads)
        if worst > 1e-6 + 1e-5 * scale:
            return [f"on {about}, rank {rank}'s gradients differ from rank 0's by {worst:.2e}: DDP makes them equal during "
                    "backward, with the all-reduce your comm hook must still start: it returns the future that allreduce_hook gives. "
                    "Call backward on the loss of the DDP-wrapped model's output."]
    for rank, got in enumerate(res):
        g = got["grads"]
        bad = [k for k in grads if not near(g[k], grads[k])]
        if bad:
            if all(near(g[k], grads[k] / len(res)) for k in grads):
                return [f"on {about}, rank {rank}'s gradients are 1/world_size of a single process's on the whole batch: "
                        "DDP already averages the gradients over the ranks (allreduce_hook divides the bucket by "
                        "world_size before it all-reduces it), so divide nothing by world_size again: not the loss of "
                        "each rank (the plain mean loss of its slice), nor the bucket in your comm hook."]
            scaled = [f for f in {2, len(res)} if all(near(g[k], f * grads[k]) for k in grads)]
            if scaled:
                causes = []
                if len(res) in scaled:
                    causes.append("the all-reduce sums the ranks' gradients without dividing by world_size (DDP "
                                  "averages: allreduce_hook divides the bucket by world_size before it all-reduces it; "
                                  "a hand-written hook must divide by world_size too)")
                if 2 in scaled:
                    causes.append("the second backward added its gradients to the first one's: zero the gradients "
                                  "(model.zero_grad()) before each step")
                return [f"on {about}, rank {rank}'s gradients are {scaled[0]} times a single process's on the whole batch: "
                        + ", or ".join(causes) + "."]
            return [f"on {about}, the gradient of {bad[0] if reveal else 'a parameter'} differs from a single process's on "
                    f"the whole batch by {diff(g[bad[0]], grads[bad[0]]):.2e}: give rank r the r-th of world_size equal "
                    "slices of the batch (x.chunk(world_size)[rank]), use the mean loss, and run the first backward "
                    "before any optimizer step."]
        if rank == 0:       # the gradients are right (and equal on every rank): the losses the ranks report
            problems = ddp_loss_problems([r["loss"] for r in res], whole_loss, about, reveal)
            if problems:
                return problems
        if got["allreduce_bytes"] != nbytes:
            said = f"; the model's parameters take {nbytes} bytes" if reveal else ", not the bytes of the model's parameters"
            return [f"on {about}, allreduce_bytes is {got['allreduce_bytes']!r}{said}. Add up "
                    "bucket.buffer().numel() * bucket.buffer().element_size() over the buckets of one step, in your comm hook."]
        steps = got["steps"]
        if not isinstance(steps, list) or len(steps) < 2 or not all(isinstance(s, dict) and "bucket_bytes" in s for s in steps):
            return ["steps should hold one dict per backward pass (at least 2), each with bucket_bytes, allreduce_ms "
                    "and backward_ms."]
        if any(sum(s["bucket_bytes"]) != nbytes for s in steps[:2]):
            return [f"on {about}, the buckets of a step should add up to the parameter bytes: every gradient is "
                    "all-reduced once per step. Clear the list of buckets before each step."]
        cap = cfg["bucket_cap_mb"] * 2 ** 20
        if len(steps[1]["bucket_bytes"]) < 2 or any(b > cap + max_param_bytes(cfg) for b in steps[1]["bucket_bytes"]):
            where = f"on {about} (bucket_cap_mb={cfg['bucket_cap_mb']})" if reveal else f"on {about}"
            return [f"{where}, the second step all-reduced {len(steps[1]['bucket_bytes'])} bucket(s): pass "
                    "bucket_cap_mb=cfg['bucket_cap_mb'] to DistributedDataParallel (DDP rebuilds its buckets, at that "
                    "size, after the first step)."]
        problems = timing_order_problems(steps[:2])
        if problems:
            return problems
    return []


def ddp_loss_problems(losses: list, whole_loss: float, about: str, reveal: bool = True) -> list[str]:
    """Each rank's loss: the mean loss of its slice, so that (the slices being equal) their mean is the whole batch's
    mean loss; a loss already averaged over the ranks (the whole batch's on every rank) is as good."""
    if not all(number(v) for v in losses):
        return ["loss should be the last step's loss on each rank, as a float (loss.item())."]
    mean, world = sum(losses) / len(losses), len(losses)
    if math.isclose(mean, whole_loss, rel_tol=1e-3, abs_tol=1e-6):       # loose: GPUs sum in another order
        return []
    if world > 1 and math.isclose(mean, world * whole_loss, rel_tol=1e-3):
        return [f"on {about}, the ranks' losses are world_size times the mean loss of the whole batch: the loss was summed "
                "over the ranks (an all-reduce without dividing by world_size). Report each rank's own loss, loss.item() "
                "of the mean loss of its slice: DDP averages the gradients, not the loss."]
    said = f"average to {mean:.5g}, not the mean loss of the whole batch, {whole_loss:.5g}" if reveal else \
        "do not average to the mean loss of the whole batch"
    return [f"on {about}, the ranks' losses {said}: report each rank's own loss of the last step, loss.item() of "
            "F.mse_loss on its slice, as it is (its gradients are right, so only the number reported is off)."]


def timing_order_problems(steps: list[dict]) -> list[str]:
    """DDP's timings judged by their order only (what load cannot change): each bucket's all-reduce starts after
    the one before it and after backward started, and backward ends after the last one started."""
    for s in steps:
        times = s.get("allreduce_ms")
        if not isinstance(times, list) or len(times) != len(s["bucket_bytes"]) or \
                not all(number(t) and t >= 0 for t in times) or times != sorted(times):
            return ["each step needs allreduce_ms: for every bucket, in order, when its all-reduce started (ms after "
                    "backward started; time.perf_counter() in the hook)."]
        if number(s.get("backward_ms")) and times[-1] > s["backward_ms"] + 1e3:
            return ["allreduce_ms should hold, for every bucket, when its all-reduce started in ms after backward started "
                    f"((t - start) * 1e3, with start = time.perf_counter() just before loss.backward()); the last one, "
                    f"{times[-1]:.0f} ms, comes long after backward ended ({s['backward_ms']:.1f} ms): subtract the start."]
        if not number(s.get("backward_ms")) or not s["backward_ms"] >= times[-1]:
            return ["each step needs backward_ms: how long loss.backward() took (it returns after the last all-reduce)."]
    return []


@register("05.ddp", points=3, exercise="2", title="DDP: equal gradients on every rank, bytes all-reduced per step",
          cases=[RunCase(ABOUT, 2, {"cfg": {**CHECK_CFG, **LOG_ROWS, "bucket_cap_mb": 0.03}})])
def _ddp(ctx: Context, cases: list[RunCase]) -> str:
    for case, probe in launched(ctx, "ddp_worker", cases):
        fail_if(ddp_problems(probe, case, ctx.reveal), most=2)
    return "gradients equal on both ranks and to one process's; all-reduced bytes = parameter bytes; buckets of the cap"


# ---------------------------------------------------------------- 3: FSDP
def fsdp_expected(cfg: dict, world: int) -> dict:
    """FSDP2 with every block sharded, then the root: numbers per step (dim 0 of each parameter padded to world)."""
    model = plain_model(cfg)

    def padded(params) -> int:
        return sum(math.ceil(p.shape[0] / world) * world * (p.numel() // p.shape[0]) * p.element_size() for p in params)

    blocks = padded(p for b in model.blocks for p in b.parameters())
    root = padded(list(model.inp.parameters()) + list(model.head.parameters()))
    elements = sum(p.numel() for p in model.parameters())
    shard = sum(math.ceil(p.shape[0] / world) * (p.numel() // p.shape[0]) for p in model.parameters())

    def rows(p, r: int) -> int:      # FSDP2 cuts dim 0 as torch.chunk does: ceil-sized pieces, the last ones short or none
        pieces = torch.arange(p.shape[0]).chunk(world)
        return len(pieces[r]) if r < len(pieces) else 0

    per_rank = [sum(rows(p, r) * (p.numel() // p.shape[0]) for p in model.parameters()) for r in range(world)]
    in_blocks = [sum(rows(p, r) * (p.numel() // p.shape[0]) for b in model.blocks for p in b.parameters())
                 for r in range(world)]
    root_elements = sum(p.numel() for p in list(model.inp.parameters()) + list(model.head.parameters()))
    return {"all_gather": root + 2 * blocks, "reduce_scatter": root + blocks, "total_numel": elements, "max_local": shard,
            "local": per_rank, "blocks_gathered": blocks,
            "root_whole": [n + root_elements for n in in_blocks]}   # local_numel when the root is never sharded


def fsdp_problems(probe: dict, case: RunCase, reveal: bool = True) -> list[str]:
    """Shard sizes, losses against one process's SGD, and the all-gather and reduce-scatter volumes of a step."""
    res = rank_results(probe, "fsdp_worker", case, reveal)
    cfg, world, about = case.cfg, case.nproc, case.about
    problems = data_split_problems(probe.get("busy"), case, "fsdp_worker", reveal)
    if problems:
        return problems
    want = fsdp_expected(cfg, world)
    ref = reference_losses(cfg)
    for rank, got in enumerate(res):
        missing = [k for k in ("local_numel", "total_numel", "losses", "comm") if not isinstance(got, dict) or k not in got]
        if missing:
            return [f"fsdp_worker should return a dict with local_numel, total_numel, losses and comm; rank {rank}'s "
                    f"lacks {', '.join(missing)}."]
        if got["total_numel"] != want["total_numel"]:
            return [f"on {about}, total_numel is {got['total_numel']!r}" + (f", the model has {want['total_numel']}" if reveal else "")
                    + ": count p.numel() of every parameter (a DTensor's numel is the whole tensor's)."]
        if got["local_numel"] == want["root_whole"][rank] and world > 1:
            return [f"on {about}, rank {rank}'s parameters hold every element of inp and head: the root is not sharded. "
                    "After fully_shard on each block, call fully_shard on the whole model (the root, last): it shards the "
                    "parameters the blocks leave out, and averages their gradients over the ranks."]
        if not isinstance(got["local_numel"], int) or not 0 < got["local_numel"] <= want["max_local"]:
            return [f"on {about}, rank {rank} holds {got['local_numel']!r} parameter elements; with {world} ranks each should "
                    f"hold about 1/{world} of {want['total_numel'] if reveal else 'them'}. Shard with fully_shard and "
                    "count p.to_local().numel()."]
        if got["local_numel"] != want["local"][rank]:
            said = f"{got['local_numel']}, but its shards hold {want['local'][rank]}" if reveal else "not what its shards hold"
            return [f"on {about}, rank {rank}'s local_numel is {said}: after fully_shard, add up p.to_local().numel() over "
                    "the parameters on each rank; do not compute it from total_numel (where a first dimension does not "
                    "divide by world_size, the ranks' shards differ in size)."]
        losses = got["losses"]
        if not isinstance(losses, list) or len(losses) != len(ref) or not all(number(v) for v in losses):
            steps = f"{cfg['steps']} steps" if reveal else "cfg['steps'] steps"
            return [f"losses should hold one float per step ({steps})."]
        worst = max(abs(a - b) / max(1.0, abs(b)) for a, b in zip(losses, ref))
        if not worst <= 1e-4 and len(ref) > 1 and all(abs(v - ref[0]) <= 1e-4 * max(1.0, abs(ref[0])) for v in losses):
            return [f"on {about}, the first loss is right but it never changes: the optimizer updated nothing. Build the "
                    "optimizer after fully_shard, from the sharded model.parameters() (fully_shard replaces the "
                    "parameters an optimizer built before it holds), and call opt.step() after each backward, before "
                    "zero_grad() clears the gradients it needs."]
        first = abs(losses[0] - ref[0]) / max(1.0, abs(ref[0]))
        if not first <= 1e-4:
            return [f"on {about}, the losses differ from one process's SGD on the whole batch from the first one, before "
                    f"any update (relative difference {first:.2e}): each rank trains on its slice of the batch, the loss "
                    "you report is the mean over the ranks (all-reduce it and divide by world_size), and every rank "
                    "starts from the same model, toy_model(cfg) as it comes (fully_shard keeps each rank's piece of the "
                    "weights it finds there and, unlike DDP, broadcasts nothing from rank 0)."]
        if not worst <= 1e-4:
            return [f"on {about}, the first loss is right, but later ones differ from one process's SGD on the whole batch "
                    f"(relative difference {worst:.2e}): the updates differ. Step with lr=cfg['lr'], and clear the "
                    "gradients after each step (opt.zero_grad() after opt.step()), or each backward adds its gradients "
                    "to the ones before."]
        comm = got["comm"]
        ag = comm.get("all_gather", {}).get("bytes") if isinstance(comm, dict) else None
        rs = comm.get("reduce_scatter", {}).get("bytes") if isinstance(comm, dict) else None
        gathers = comm.get("all_gather", {}).get("calls") if isinstance(comm, dict) else None
        if ag == want["all_gather"] - want["blocks_gathered"] and rs == want["reduce_scatter"] and \
                gathers == cfg["blocks"] + 1:   # the root once, each block once (not only the root, gathered once)
            return [f"on {about}, one step all-gathered each block's parameters once, not twice: the blocks stayed gathered "
                    "from forward to backward (reshard_after_forward=False), which keeps whole blocks in memory, as ZeRO-2 "
                    "does. Keep fully_shard's default, which frees each block after its forward and gathers it again for "
                    "backward: that is the memory FSDP saves."]
        if ag != want["all_gather"] or rs != want["reduce_scatter"]:
            said = (f"all-gathered {ag} and reduce-scattered {rs} bytes; expected {want['all_gather']} and "
                    f"{want['reduce_scatter']}" if reveal else "moved other volumes than FSDP2 does")
            return [f"on {about}, one step {said}: fully_shard each block, then the whole model, and measure one "
                    "forward + backward inside `with CommCounter() as comm:` (comm.summary())."]
        if isinstance(comm, dict) and "all_reduce" in comm:
            return [f"on {about}, the step's comm also holds an all-reduce, which FSDP does not issue: all-reduce the "
                    "loss after the with block, so that comm counts forward and backward only."]
    if sum(r["local_numel"] for r in res) < want["total_numel"]:
        return ["the ranks' local_numel add up to less than the model: each rank should count its own shard."]
    return []


@register("05.fsdp", points=3, exercise="3", title="FSDP: 1/N of the parameters per rank, gather/scatter volumes, same loss",
          cases=[RunCase(ABOUT, 2, {"cfg": {**CHECK_CFG, **LOG_ROWS, "d_out": 5, "lr": 0.1, "steps": 3}})])
def _fsdp(ctx: Context, cases: list[RunCase]) -> str:
    for case, probe in launched(ctx, "fsdp_worker", cases):
        fail_if(fsdp_problems(probe, case, ctx.reveal), most=2)
    return "each rank holds half the parameters; all-gather and reduce-scatter volumes as FSDP2's; losses as one process's"


# ---------------------------------------------------------------- 4: tensor parallel
def tp_problems(probe: dict, case: RunCase, reveal: bool = True) -> list[str]:
    """Output against one process's, each block's shard shapes, and one all-reduce per block forward and backward."""
    res = rank_results(probe, "tp_worker", case, reveal)
    cfg, world, about = case.cfg, case.nproc, case.about
    out, _ = reference_output(cfg)
    d, hidden, blocks = cfg["d"], 4 * cfg["d"], cfg["blocks"]
    shapes = {}
    for i in range(blocks):
        shapes.update({f"blocks.{i}.fc1.weight": [hidden // world, d], f"blocks.{i}.fc1.bias": [hidden // world],
                       f"blocks.{i}.fc2.weight": [d, hidden // world], f"blocks.{i}.fc2.bias": [d]})
    payload = cfg["batch"] * d * 4
    from helpers.models import toy_batch

    whole_loss = F.mse_loss(out, toy_batch(cfg)[1]).item()
    for rank, got in enumerate(res):
        missing = [k for k in ("out", "loss", "shard_shapes", "comm") if not isinstance(got, dict) or k not in got]
        if missing:
            return [f"tp_worker should return a dict with out, loss, shard_shapes and comm; rank {rank}'s lacks "
                    f"{', '.join(missing)}."]
        if not near(got["out"], out):
            same = isinstance(got["out"], torch.Tensor) and got["out"].shape == out.shape
            said = (f"differs from the model's on one process by {diff(got['out'], out):.2e}" if same else
                    f"has the shape {_shape(got['out'])}, the model's on one process {_shape(out)}" if reveal else
                    "has another shape than the model's on one process")
            return [f"on {about}, rank {rank}'s output {said}: every rank feeds the whole batch; shard fc1 column-wise and "
                    "fc2 row-wise so the block's output is complete after fc2's all-reduce."]
        loss = got["loss"]
        if not number(loss) or not math.isclose(loss, whole_loss, rel_tol=1e-3, abs_tol=1e-6):
            summed = number(loss) and world > 1 and math.isclose(loss, world * whole_loss, rel_tol=1e-3)
            said = (f"{loss!r}, the mean loss of the batch is {whole_loss:.5g}" if reveal else
                    "not the mean loss of the batch") if not summed else "world_size times the mean loss of the batch"
            return [f"on {about}, rank {rank}'s loss is {said}: with tensor parallel every rank computes the whole batch's "
                    "loss from the whole (replicated) output, so report loss.item() as it is"
                    + (": an all-reduce over the ranks sums world_size copies of it." if summed else ".")]
        ss = got["shard_shapes"]
        if not isinstance(ss, dict):
            return ["shard_shapes should map parameter names to the shape of this rank's local shard."]
        for name, shape in shapes.items():
            if list(ss.get(name, [])) != shape:
                where = f"{name} should be {tuple(shape)}" if reveal else "a block's weight or bias has the wrong local shape"
                return [f"on {about}, {where}; rank {rank} has {tuple(ss.get(name, ())) if reveal else 'another'}. "
                        "ColwiseParallel on fc1 splits its output features (weight rows and bias), RowwiseParallel on "
                        "fc2 splits its input features (weight columns; the bias is kept whole)."]
        comm = got["comm"] if isinstance(got["comm"], dict) else {}
        ar = comm.get("all_reduce", {})
        if ar.get("calls") != 2 * blocks or ar.get("bytes") != 2 * blocks * payload:
            said = (f"{ar.get('calls')} all-reduce(s) of {ar.get('bytes')} bytes; expected {2 * blocks} of "
                    f"{payload} bytes each" if reveal else "other all-reduces than tensor parallel needs")
            return [f"on {about}, one forward + backward made {said}: one per block forward (fc2's partial sums) and "
                    "one backward (the gradient of fc1's input). Measure inside `with CommCounter() as comm:`."]
        extra = [k for k in comm if k != "all_reduce"]
        if extra:
            return [f"on {about}, the step also ran {', '.join(extra)}: keep the default layouts of ColwiseParallel and "
                    "RowwiseParallel, so that nothing is gathered between fc1 and fc2."]
    return []


@register("05.tp", points=2, exercise="4", title="tensor parallel: same output, weight shards, one all-reduce per layer",
          cases=[RunCase(ABOUT, 2, {"cfg": dict(CHECK_CFG)})])
def _tp(ctx: Context, cases: list[RunCase]) -> str:
    for case, probe in launched(ctx, "tp_worker", cases):
        fail_if(tp_problems(probe, case, ctx.reveal), most=2)
    return "output equal to one process's; fc1 split by rows, fc2 by columns; 2 all-reduces per block per step"


# ---------------------------------------------------------------- 5: pipeline parallel
FORWARD, BACKWARD = "forward", "backward"
UNIT = {FORWARD: 1.0, BACKWARD: 2.0}   # a fixed-cost block's forward and backward, in units of its cost_ms
# A measured bubble is judged against a floor no load can lift: each rank's wall time, from the moment it leaves the
# first barrier, covers at least the longest chain of measured block times from its own first block to the step's
# end (every block on that chain waits for the one before it; load only lengthens the chain and the gaps between).
# The floor starts at the rank's own first block, not at the step's first: ranks leave the first barrier at
# different times, and a rank that leaves it late (by up to the blocks that run before its first one) measures a
# shorter wall than the whole step without any mistake. That skew grows with the load, so a floor over the whole
# critical path, less a fixed slack, could fail a correct pipeline on a busy machine; this one cannot.
TOLERANCE = 0.01   # rounding: the floor is exact, the measured times are floats


@dataclass(frozen=True)
class SplitCase:
    """split_stages on a ToyStack of `blocks` blocks cut into `stages` stages, and the modules each stage should hold."""

    blocks: int
    stages: int
    want: tuple   # per stage, the names of its modules in the model ("inp", "blocks.0", ..., "head")


@dataclass(frozen=True)
class PipelineCase:
    """What the pipeline check runs: bubble_fraction on (p, m) pairs, split_stages on split cases, and pp_worker
    launched on `run`, whose stages should hold `per_stage` blocks each."""

    bubbles: tuple
    splits: tuple
    run: RunCase
    per_stage: tuple


def probe_pipeline_parts(learner: Learner, pairs: list, splits: list) -> dict:
    """bubble_fraction(p, m) for each pair; for each (blocks, stages), the module names split_stages puts in each stage,
    and the type of each stage that is not an nn.Sequential (None for one that is)."""
    from helpers.models import toy_model

    bubbles = [learner.call("bubble_fraction", p, m) for p, m in pairs]
    stages, kinds = [], []
    for blocks, n in splits:
        model = toy_model({"d_in": 4, "d": 8, "blocks": blocks, "d_out": 2, "seed": 0})
        names = {id(module): name for name, module in model.named_modules()}
        with learner.running("split_stages"):
            parts = learner.function("split_stages")(model, n)
            stages.append([[names.get(id(module), type(module).__name__) for module in part] for part in parts])
            kinds.append([None if isinstance(part, torch.nn.Sequential) else type(part).__name__ for part in parts])
    return {"bubbles": bubbles, "splits": stages, "kinds": kinds}


def bubble_problems(pairs: tuple, values: list, reveal: bool = True) -> list[str]:
    """The learner's bubble_fraction(p, m) for each pair against GPipe's (p - 1) / (m + p - 1)."""
    for (p, m), got in zip(pairs, values):
        want = (p - 1) / (m + p - 1)
        if not number(got) or abs(got - want) > 1e-9:
            said = f"bubble_fraction({p}, {m}) is {got!r}" if reveal else "bubble_fraction is wrong for some (p, m)"
            if number(got) and want and abs(got - 100 * want) <= 1e-7 * abs(100 * want):
                return [f"{said}: that is a percentage; return the idle fraction of the step, between 0 and 1."]
            return [f"{said}: a GPipe step lasts m + p - 1 slots and each stage is busy in m of them, so it idles (p - 1) "
                    "of them."]
    return []


def split_problems(cases: tuple, got: list, reveal: bool = True, kinds: list | None = None) -> list[str]:
    """The module names split_stages put in each stage against each case's (and, given `kinds`, each stage an
    nn.Sequential: None where it is, else the type it has)."""
    for types in kinds or []:
        other = next((t for t in types if t is not None), None)
        if other is not None:
            return [f"split_stages returned a stage that is a {other}, not an nn.Sequential: PipelineStage runs each stage "
                    "as a module, so wrap each stage's modules in nn.Sequential(*modules)."]
    for case, stages in zip(cases, got):
        want = [list(stage) for stage in case.want]
        if stages != want:
            said = (f"split_stages of a model with {case.blocks} blocks into {case.stages} stage{'s' * (case.stages != 1)} "
                    f"gave {stages} ({split_fault(stages, want)})" if reveal
                    else "split_stages is wrong for some number of blocks and stages")
            return [f"{said}: it should give n_stages nn.Sequential stages holding inp, every block in order (earlier "
                    "stages get the extra block when they do not divide evenly) and head, each module once (the model's "
                    "own modules)."]
    return []


def split_fault(stages: list, want: list) -> str:
    """What is wrong with a split, in words (the expected split itself is the learner's to work out)."""
    flat, whole = [name for stage in stages for name in stage], [name for stage in want for name in stage]
    if len(stages) != len(want):
        return f"{len(stages)} stage{'s' * (len(stages) != 1)} for n_stages={len(want)}"
    strangers = sorted({name for name in flat if name not in whole})
    if strangers:
        return f"it holds {', '.join(strangers)}, which are not the model's own modules"
    missing = [name for name in whole if name not in flat]
    if missing:
        return f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} in no stage"
    twice = sorted({name for name in flat if flat.count(name) > 1})
    if twice:
        return f"{', '.join(twice)} {'is' if len(twice) == 1 else 'are'} in more than one stage"
    if flat != whole:
        return "the modules are out of order: inp first, the blocks in order, head last"
    return "the blocks are not divided as evenly as possible, earlier stages first"


def timed_steps(log, counts: int, steps: int) -> list | None:
    """One rank's timed step for each micro-batch count, from its busy_log(): the harness runs steps + 1 steps per
    count, each after a reset_busy(), and the last is timed; None when the log holds fewer steps than that."""
    per = steps + 1
    if not isinstance(log, list) or len(log) < counts * per or not all(isinstance(step, list) for step in log):
        return None
    log = log[-counts * per:]
    return [log[(i + 1) * per - 1] for i in range(counts)]


def stage_ops(calls: list[dict], blocks: int, measured: bool) -> list[tuple[str, int, float]]:
    """A stage's fixed-cost calls as micro-batch ops, in the order they ran: (pass, micro-batch, cost). An op is
    `blocks` calls of one pass, each pass takes the micro-batches in order, and the cost is in units of cost_ms
    (or, measured, the seconds the calls took)."""
    ops, seen = [], {FORWARD: 0, BACKWARD: 0}
    for call in calls:
        kind = call["pass"]
        k = seen[kind] // blocks
        seen[kind] += 1
        cost = call["seconds"] if measured else UNIT[kind]
        if ops and ops[-1][:2] == (kind, k):
            ops[-1] = (kind, k, ops[-1][2] + cost)
        else:
            ops.append((kind, k, cost))
    return ops


def gpipe_ops(m: int, per_stage: tuple) -> list[list[tuple[str, int, float]]]:
    """GPipe's order on every stage (all m forwards, then all m backwards), in units of cost_ms."""
    return [[(FORWARD, k, n * UNIT[FORWARD]) for k in range(m)] + [(BACKWARD, k, n * UNIT[BACKWARD]) for k in range(m)]
            for n in per_stage]


def input_of(kind: str, stage: int, k: int, last: int) -> tuple[str, int, int] | None:
    """The op whose output micro-batch k's op needs on this stage: a forward the previous stage's forward, a backward
    the next stage's backward (the last stage: its own forward); None for the first stage's forwards."""
    if kind == FORWARD:
        return (FORWARD, stage - 1, k) if stage > 0 else None
    return (BACKWARD, stage + 1, k) if stage < last else (FORWARD, stage, k)


def run_order(stages: list[list[tuple[str, int, float]]]):
    """The ops in an order they can run, each as soon as its stage is free and its input is there: (stage, kind,
    micro-batch, cost, the op it waits for or None). A forward needs the previous stage's forward of its micro-batch,
    a backward the next stage's backward of it (the last stage: its own forward). Ends with None when the order can
    never run (an op waits for one that comes after it)."""
    last = len(stages) - 1
    done: set[tuple[str, int, int]] = set()
    nxt, moved = [0] * len(stages), True
    while moved:
        moved = False
        for s, ops in enumerate(stages):
            while nxt[s] < len(ops):
                kind, k, cost = ops[nxt[s]]
                need = input_of(kind, s, k, last)
                if need is not None and need not in done:
                    break
                yield s, kind, k, cost, need
                done.add((kind, s, k))
                nxt[s] += 1
                moved = True
    if not all(i == len(ops) for i, ops in zip(nxt, stages)):
        yield None


def finish_times(stages: list[list[tuple[str, int, float]]]) -> list[float] | None:
    """When each stage finishes if every op starts as soon as its stage is free and its input is there (run_order);
    None when the order can never run."""
    done: dict[tuple[str, int, int], float] = {}
    free = [0.0] * len(stages)
    for op in run_order(stages):
        if op is None:
            return None
        s, kind, k, cost, need = op
        free[s] = done[(kind, s, k)] = max(free[s], done.get(need, 0.0)) + cost
    return free


def chain_lengths(stages: list[list[tuple[str, int, float]]]) -> list[float] | None:
    """For each stage, the longest chain of op costs from its own first op to the step's end, when every op starts as
    soon as its stage is free and its input is there: finish_times with every op that does not wait on that first
    op (directly or through others) costing nothing. None when the order can never run."""
    lengths = []
    for first in range(len(stages)):
        waits: set[tuple[str, int, int]] = set()
        before = [None] * len(stages)      # the op each stage ran last
        for op in run_order(stages):
            if op is None:
                return None
            s, kind, k, _, need = op
            if s == first or need in waits or before[s] in waits:
                waits.add((kind, s, k))
            before[s] = (kind, s, k)
        ends = finish_times([[(kind, k, cost if (kind, s, k) in waits else 0.0) for kind, k, cost in ops]
                             for s, ops in enumerate(stages)])
        lengths.append(max(ends))
    return lengths


def floor_bubbles(stages: list[list[tuple[str, int, float]]]) -> list[float] | None:
    """Each stage's idle fraction of a step at least, whatever the load: 1 - busy / (its chain_lengths)."""
    lengths = chain_lengths(stages)
    if lengths is None or min(lengths) <= 0:
        return None
    return [1 - sum(op[2] for op in ops) / length for ops, length in zip(stages, lengths)]


def implied_bubbles(stages: list[list[tuple[str, int, float]]]) -> list[float] | None:
    """Each stage's idle fraction of the step when the ops run in this order, each as soon as it can."""
    ends = finish_times(stages)
    if ends is None or max(ends) <= 0:
        return None
    return [1 - sum(op[2] for op in ops) / max(ends) for ops in stages]


def _order(ops: list[tuple[str, int, float]]) -> str:
    """A stage's ops as F0 F1 B0 B1 (pass and micro-batch), for messages."""
    return " ".join(f"{kind[0].upper()}{k}" for kind, k, _ in ops)


def stage_call_problems(calls: list, m: int, case: PipelineCase, reveal: bool) -> list[str]:
    """Whether each stage ran each of its blocks once per micro-batch, forward and backward, on micro-batches of the
    right size (what its fixed-cost layers logged)."""
    cfg, about = case.run.cfg, case.run.about
    sizes = [len(c) for c in torch.arange(cfg["batch"]).tensor_split(m)]
    with_m = f"with m={m}" if reveal else "with the grader's number of micro-batches"
    for rank, (got, n) in enumerate(zip(calls, case.per_stage)):
        for kind in (FORWARD, BACKWARD):
            rows = sorted(c["rows"] for c in got if c["pass"] == kind)
            everywhere = sum(c["pass"] == kind for stage in calls for c in stage)
            if len(rows) != m * n and everywhere == m * sum(case.per_stage) and len(rows) % m == 0:
                said = f"holds {len(rows) // m} block(s); it should hold {n}" if reveal else "holds another number of blocks than it should"
                return [f"on {about}, stage {rank} {said}: build rank r's stage from split_stages(toy_model(cfg), "
                        "world_size)[r], the blocks divided evenly, earlier stages taking the extra one."]
            if len(rows) != m * n:
                return [f"on {about} {with_m}, rank {rank}'s blocks ran {len(rows)} {kind} pass(es) in one step; each "
                        "block of the stage runs once per micro-batch: one ScheduleGPipe with n_microbatches=m, and one "
                        "schedule.step(...) per step."]
            if rows != sorted(sizes * n):
                said = "the whole batch" if set(rows) == {cfg["batch"]} else f"micro-batches of {sorted(set(rows))} rows"
                return [f"on {about} {with_m}, rank {rank}'s blocks ran on {said}: pass the whole batch to "
                        "schedule.step and let ScheduleGPipe(stage, n_microbatches=m) split it into m micro-batches."]
    return []


def measured_bubble_problems(row: dict, calls: list, floor: float, rank: int, about: str, steps: int,
                             with_m: str) -> list[str]:
    """The bubble the learner measured: 1 - busy / wall with the busy time the fixed-cost layers logged, and no
    smaller than the chain of blocks from this rank's first one to the step's end allows (a busy machine only makes
    it larger)."""
    bubble, wall = row.get("bubble"), row.get("wall_ms")
    if not (number(bubble) and 0 <= bubble < 1 and number(wall) and wall > 0):
        return [f"each row needs bubble, the idle fraction the step measured (between 0 and 1), and wall_ms; rank {rank} "
                f"has {bubble!r} and {wall!r}: count busy time from a reset_busy() at the start of each step."]
    logged = 1 - sum(c["seconds"] for c in calls) / (wall / 1e3)
    if steps == 1 and abs(bubble - logged) > 0.01:
        return [f"on {about}, rank {rank}'s bubble ({bubble:.2f}) is not 1 - busy / wall of its step ({logged:.2f} with "
                "the time its fixed-cost blocks logged): reset_busy() when the step starts, and divide busy_seconds() "
                "by the step's wall time, as the harness does."]
    if bubble < floor - TOLERANCE:
        return [f"on {about}, rank {rank} measured a bubble of {bubble:.2f} {with_m}, but the order its stages ran in "
                f"leaves it idle at least {floor:.2f} of the step on any machine: time the whole step between two "
                "barriers and count as busy only the time the stage's layers run (busy_seconds())."]
    return []


def schedule_problems(busy, res: list, case: PipelineCase, reveal: bool) -> list[str]:
    """Each timed step judged by what the stages' fixed-cost layers logged: the blocks each stage ran, on which
    micro-batches, in an order whose bubble (in units of the layer's cost) is GPipe's; then the measured bubble."""
    cfg, about = case.run.cfg, case.run.about
    ms, steps = cfg["microbatches"], cfg["steps"]
    if not isinstance(busy, list) or len(busy) != case.run.nproc or any(b is None for b in busy):
        return ["the ranks ran no fixed-cost blocks: build each rank's stage from split_stages(toy_model(cfg), world_size)."]
    timed = [timed_steps(log, len(ms), steps) for log in busy]
    if any(t is None for t in timed):
        return [f"pp_worker should run cfg['steps'] + 1 steps for each micro-batch count, each after a reset_busy() "
                "(keep the given harness): the check reads every step's fixed-cost blocks from it."]
    for i, m in enumerate(ms):
        calls = [t[i] for t in timed]
        with_m = f"with m={m}" if reveal else "with the grader's number of micro-batches"
        if not any(calls):
            return ["no block ran between a step's reset_busy() and its end: call reset_busy() at the start of each step, "
                    "before the schedule runs (as the harness does)."]
        problems = stage_call_problems(calls, m, case, reveal)
        if problems:
            return problems
        ran = [stage_ops(c, n, measured=False) for c, n in zip(calls, case.per_stage)]
        implied, want = implied_bubbles(ran), implied_bubbles(gpipe_ops(m, case.per_stage))
        if implied is None or any(abs(a - b) > 1e-9 for a, b in zip(implied, want)):
            order = f" ({' | '.join(_order(ops) for ops in ran)}, stage by stage)" if reveal else ""
            said = "can never run" if implied is None else f"idles the stages {', '.join(f'{b:.2f}' for b in implied)} of a step"
            return [f"on {about} {with_m}, the order the stages ran their micro-batches in{order} {said}, against GPipe's "
                    f"{want[0]:.2f} = (p - 1) / (m + p - 1): run all m micro-batches through one ScheduleGPipe step, so "
                    "that stage 0 starts micro-batch 2 while stage 1 works on micro-batch 1."]
        floors = floor_bubbles([stage_ops(c, n, measured=True) for c, n in zip(calls, case.per_stage)])
        floors = floors or [0.0] * len(calls)          # no block time logged: nothing to hold the bubble against
        for rank, rows in enumerate(res):
            problems = measured_bubble_problems(rows[i], calls[rank], floors[rank], rank, about, steps, with_m)
            if problems:
                return problems
    return []


def pp_problems(probe: dict, case: PipelineCase, reveal: bool = True) -> list[str]:
    """pp_worker's rows: the last stage's outputs and losses against one process's, the bytes sent, then the schedule."""
    res = rank_results(probe, "pp_worker", case.run, reveal)
    cfg, about = case.run.cfg, case.run.about
    ms = cfg["microbatches"]
    payload = cfg["batch"] * cfg["d"] * 4
    for rank, rows in enumerate(res):
        if not isinstance(rows, list) or [r.get("m") if isinstance(r, dict) else None for r in rows] != list(ms):
            return [f"pp_worker should return one dict per micro-batch count, in the order of cfg['microbatches']; "
                    f"rank {rank} returned {rows!r:.100}."]
    for row in res[-1]:
        m = row["m"]
        out, losses = reference_output(cfg, m)
        if not near(row.get("out"), out):
            return [f"on {about} with {m if reveal else 'some number of'} micro-batches, the last stage's output differs "
                    f"from the whole model's on one process (by {diff(row.get('out'), out):.2e}): the stages together "
                    "must hold inp, every block in order, and head, once each."]
        got = row.get("losses")
        if not isinstance(got, list) or len(got) != m or not all(number(a) for a in got) or \
                any(abs(a - b) > 1e-5 * max(1, abs(b)) for a, b in zip(got, losses)):
            return [f"on {about}, the last stage's losses should be the {f'{m} ' if reveal else ''}per-micro-batch losses "
                    "(schedule.step(target=y, losses=losses) fills them); they differ from one process's."]
    for rank, rows in enumerate(res):
        for row in rows:
            sent = row.get("send_bytes")
            if sent != payload:
                said = f"{sent!r}, expected {payload}" if reveal else f"{sent!r}, not the bytes of one batch of activations"
                return [f"on {about}, rank {rank} sent {said} per step (m={row['m'] if reveal else '…'}): the first stage "
                        "sends activations forward, the last sends their gradients back, one micro-batch at a time."]
    return schedule_problems(probe.get("busy"), res, case, reveal)


def bubble_note(probe: dict, case: PipelineCase) -> str:
    """The bubble each micro-batch count measured (mean over the ranks), next to the formula's."""
    ms, world = case.run.cfg["microbatches"], case.run.nproc
    mean = [sum(rows[i]["bubble"] for rows in probe["results"]) / world for i in range(len(ms))]
    return ", ".join(f"m={m}: {b:.2f} (formula {(world - 1) / (m + world - 1):.2f})" for m, b in zip(ms, mean))


PP_CHECK = {**CHECK_CFG, "blocks": 4, "batch": 12, "cost_ms": 15.0, "microbatches": [1, 3], "steps": 1}
PP_ABOUT = "the check's model (4 blocks, 2 stages)"


@register("05.pp", points=3, exercise="5", title="pipeline parallel: same outputs and losses, bubble as (p-1)/(m+p-1)",
          cases=PipelineCase(bubbles=((2, 1), (2, 4), (4, 4), (8, 32)),
                             splits=(SplitCase(4, 2, (("inp", "blocks.0", "blocks.1"), ("blocks.2", "blocks.3", "head"))),
                                     SplitCase(2, 1, (("inp", "blocks.0", "blocks.1", "head"),)),
                                     SplitCase(5, 3, (("inp", "blocks.0", "blocks.1"), ("blocks.2", "blocks.3"),
                                                      ("blocks.4", "head"))),
                                     SplitCase(6, 4, (("inp", "blocks.0", "blocks.1"), ("blocks.2", "blocks.3"),
                                                      ("blocks.4",), ("blocks.5", "head")))),
                             run=RunCase(PP_ABOUT, 2, {"cfg": PP_CHECK}), per_stage=(2, 2)))
def _pp(ctx: Context, case: PipelineCase) -> str:
    parts = ctx.probe(probe_pipeline_parts, list(case.bubbles), [(s.blocks, s.stages) for s in case.splits])
    fail_if(bubble_problems(case.bubbles, parts["bubbles"], ctx.reveal), most=2)
    fail_if(split_problems(case.splits, parts["splits"], ctx.reveal, parts.get("kinds")), most=2)
    probe = ctx.probe(probe_launch, "pp_worker", case.run, timeout=PROBE_TIMEOUT)
    fail_if(pp_problems(probe, case, ctx.reveal), most=2)
    done = "outputs and per-micro-batch losses as one process's; activations sent once; GPipe's schedule and bubble"
    return f"{done}; measured bubble {bubble_note(probe, case)}" if ctx.reveal else done


# ---------------------------------------------------------------- 6: the calculator
@dataclass(frozen=True)
class PlanCase:
    """parallelism_plan(*args, **kwargs), what messages call it, and numbers it should give ({name: {key: GB}})."""

    about: str
    args: tuple
    kwargs: dict
    want: dict


def plan_case(args: tuple, kwargs: dict, want: dict) -> PlanCase:
    """A PlanCase whose messages show the call itself."""
    return PlanCase(f"parallelism_plan({args[0]:g}, {args[1]}{''.join(f', {k}={v}' for k, v in kwargs.items())})",
                    args, kwargs, want)


@dataclass(frozen=True)
class CalculatorCase:
    """The plans to judge, and whether to judge the plan of the notebook's small model against what parts 2–5
    measure on it."""

    plans: tuple
    measured: bool = False


def probe_plans(learner: Learner, calls: list) -> list:
    """parallelism_plan(*args, **kwargs) for each (args, kwargs)."""
    return [learner.call("parallelism_plan", *args, **kwargs) for args, kwargs in calls]


def probe_small_plan(learner: Learner) -> dict:
    """The notebook's model (`CFG`) and number of processes (`WORLD`), and the learner's plan for that model in
    float32 with SGD, the way part 6 compares it with what parts 2–5 measured."""
    from helpers.models import toy_model

    cfg, world = learner.value("CFG"), learner.value("WORLD")
    params = sum(p.numel() for p in toy_model(cfg).parameters())
    plan = learner.call("parallelism_plan", params / 1e9, world, layers=cfg["blocks"] / 2, hidden=cfg["d"],
                        tokens=cfg["batch"], param_bytes=4, grad_bytes=4, optim_bytes=0, act_bytes=0)
    return {"cfg": cfg, "world": world, "params": params, "plan": plan}


def reference_measured(cfg: dict, world: int) -> dict:
    """What parts 2–5 measure on cfg's model when they are right (DDP's buckets, FSDP2's and DTensor's rules, the
    pipeline's cut), in the shape of the notebook's `measured`. The calculator is judged against these, never against
    the learner's own runs: a mistake in parts 2–5 costs those parts' points, not the calculator's."""
    from helpers.models import param_bytes

    fsdp = fsdp_expected(cfg, world)
    act = cfg["batch"] * cfg["d"] * 4
    return {"ddp": {"allreduce_bytes": param_bytes(plain_model(cfg))},
            "fsdp": {"all_gather": fsdp["all_gather"], "reduce_scatter": fsdp["reduce_scatter"],
                     "local_bytes": fsdp["max_local"] * 4},
            "tp": {"all_reduce": 2 * cfg["blocks"] * act}, "pp": {"send": act}}


def plan_shape_problems(plan) -> list[str]:
    """Whether the plan has every pattern, each with every number."""
    if not isinstance(plan, dict):
        return [f"parallelism_plan should return a dict; it returned a {type(plan).__name__}."]
    missing = [n for n in PLAN_NAMES if n not in plan]
    if missing:
        return [f"the plan needs an entry for each of {', '.join(PLAN_NAMES)}; it lacks {', '.join(missing)}."]
    for name in PLAN_NAMES:
        row = plan[name]
        gone = [k for k in PLAN_KEYS if not isinstance(row, dict) or not number(row.get(k))]
        if gone:
            return [f"plan[{name!r}] needs the numbers {', '.join(PLAN_KEYS)}; it lacks {', '.join(gone)}."]
    return []


def plan_problems(plan: dict, want: dict, about: str, reveal: bool = True, rel: float = 0.01,
                  n_devices: float | None = None) -> list[str]:
    """The learner's plan against expected {name: {key: value}} numbers (n_devices: the call's N, to tell a figure
    of all the devices together from one device's)."""
    problems = plan_shape_problems(plan)
    if problems:
        return problems
    for name, row in want.items():
        for key, value in sorted(row.items(), key=lambda kv: kv[0] == "memory_GB"):   # the parts before their sum
            got = plan[name][key]
            if not abs(got - value) <= rel * abs(value) + 1e-9:
                said = f"{got:.4g} GB, expected {value:.4g} GB" if reveal else f"{got:.4g} GB, which is off"
                together = (" It is N times one device's: every figure is per device, not of all the devices together."
                            if n_devices and n_devices > 1 and value and math.isclose(got, n_devices * value, rel_tol=rel)
                            else "")
                return [f"for {about}, {name}'s {key} is {said}.{unit_slip(got, value) or together} "
                        f"{PLAN_HINTS.get((name, key), PLAN_HINTS.get(key, ''))}"]
    return memory_sum_problems(plan)


def memory_sum_problems(plan: dict, n_devices: float | None = None) -> list[str]:
    """memory_GB against the sum of the four parts of each pattern (and, given N, whether it is N times that sum:
    the memory of all the devices together)."""
    problems = []
    for name in PLAN_NAMES:
        row = plan[name]
        total = row["params_GB"] + row["grads_GB"] + row["optimizer_GB"] + row["activations_GB"]
        if abs(total - row["memory_GB"]) > 1e-6 * max(1.0, total):
            together = (n_devices is not None and n_devices > 1 and total
                        and math.isclose(row["memory_GB"], n_devices * total, rel_tol=1e-6))
            problems.append(f"{name}'s memory_GB should be the sum of its params, grads, optimizer and activations"
                            + (" (one device's): it is N times that sum, the memory of all the devices together."
                               if together else ", all per device."))
    return problems


PLAN_HINTS = {
    "params_GB": "Parameters: P × param_bytes, divided by N where the pattern shards them (ZeRO-3/FSDP, TP, PP).",
    "grads_GB": "Gradients: P × grad_bytes, divided by N from ZeRO-2 on and for TP and PP.",
    "optimizer_GB": "Optimizer state: P × optim_bytes, divided by N from ZeRO-1 on and for TP and PP.",
    "activations_GB": "Activations: tokens × hidden × layers × act_bytes for the whole step, 1/N of it per device.",
    "memory_GB": "memory_GB: the sum of the device's params_GB, grads_GB, optimizer_GB and activations_GB.",
    ("DDP", "comm_GB_per_step"): "DDP: a ring all-reduce of the gradients sends 2(N-1)/N × P × grad_bytes per device.",
    ("ZeRO-1", "comm_GB_per_step"): "ZeRO-1/2: reduce-scatter the gradients, all-gather the updated parameters: "
                                    "(N-1)/N × P × (grad_bytes + param_bytes).",
    ("ZeRO-2", "comm_GB_per_step"): "ZeRO-1/2: reduce-scatter the gradients, all-gather the updated parameters: "
                                    "(N-1)/N × P × (grad_bytes + param_bytes).",
    ("FSDP / ZeRO-3", "comm_GB_per_step"): "FSDP: all-gather the parameters twice (forward, backward) and reduce-scatter "
                                           "the gradients: (N-1)/N × P × (2 param_bytes + grad_bytes).",
    ("TP", "comm_GB_per_step"): "TP: 4 ring all-reduces per layer (2 forward, 2 backward) of tokens × hidden × "
                                "param_bytes: layers × 4 × 2(N-1)/N × tokens × hidden × param_bytes.",
    ("PP", "comm_GB_per_step"): "PP: N-1 boundaries each carry the activations forward and their gradients back, "
                                "shared by N devices: 2(N-1)/N × tokens × hidden × param_bytes.",
}

# The public check holds no figures of its own: it calls the learner's calculator at two configurations and at each
# with one input changed, and judges how the figures move (what each pattern shards, what each figure is
# proportional to, what a ring sends as N grows). The absolute scale is judged against what parts 2–5 measure
# (measured_problems); the grader's exact figures for other models are hidden.
RELATION_BASES = (((7.0, 8), {}),
                  ((1.5, 4), {"layers": 24, "hidden": 2048, "tokens": 16384, "param_bytes": 4, "grad_bytes": 4,
                              "optim_bytes": 8, "act_bytes": 20}))
PLAN_DEFAULTS = {"layers": 32, "hidden": 4096, "tokens": 32768, "param_bytes": 2, "grad_bytes": 2, "optim_bytes": 12,
                 "act_bytes": 34}
# The figures that shard, by pattern: (parameters, gradients, optimizer state) each device holds a 1/N share of.
SHARDED = {"DDP": (False, False, False), "ZeRO-1": (False, False, True), "ZeRO-2": (False, True, True),
           "FSDP / ZeRO-3": (True, True, True), "TP": (True, True, True), "PP": (True, True, True)}


def plan_inputs(args: tuple, kwargs: dict) -> dict:
    """The calculator's inputs by name: P (parameters), N, and every keyword with its default filled in."""
    return {"P": args[0] * 1e9, "N": args[1], **PLAN_DEFAULTS, **kwargs}


def relative_size(name: str, key: str, x: dict) -> float:
    """A number proportional to plan[name][key] for inputs x (its constant factor left out): what the relations
    compare between two calls."""
    n, ring = x["N"], (x["N"] - 1) / x["N"]
    shard = dict(zip(("params_GB", "grads_GB", "optimizer_GB"), SHARDED[name]))
    per = {"params_GB": x["param_bytes"], "grads_GB": x["grad_bytes"], "optimizer_GB": x["optim_bytes"]}
    if key in per:
        return x["P"] * per[key] / (n if shard[key] else 1)
    if key == "activations_GB":
        return x["tokens"] * x["hidden"] * x["layers"] * x["act_bytes"] / n
    comm = {"DDP": 2 * x["P"] * x["grad_bytes"], "ZeRO-1": x["P"] * (x["grad_bytes"] + x["param_bytes"]),
            "ZeRO-2": x["P"] * (x["grad_bytes"] + x["param_bytes"]),
            "FSDP / ZeRO-3": x["P"] * (2 * x["param_bytes"] + x["grad_bytes"]),
            "TP": 8 * x["layers"] * x["tokens"] * x["hidden"] * x["param_bytes"],
            "PP": 2 * x["tokens"] * x["hidden"] * x["param_bytes"]}
    return ring * comm[name]


def relation_calls(bases=RELATION_BASES) -> list[tuple[str, tuple, dict]]:
    """(what changed, args, kwargs): each base, then the base with one input doubled (N: doubled, and 1)."""
    calls = []
    for args, kwargs in bases:
        x = plan_inputs(args, kwargs)
        calls.append(("", args, kwargs))
        calls.append(("twice the parameters", (args[0] * 2, args[1]), kwargs))
        calls.append(("twice the devices", (args[0], args[1] * 2), kwargs))
        calls.append(("one device", (args[0], 1), kwargs))
        for key in PLAN_DEFAULTS:
            calls.append((f"twice {key}", args, {**kwargs, key: x[key] * 2}))
    return calls


def relation_problems(calls: list, plans: list, reveal: bool = True, scaling: bool = True,
                      between: bool = True) -> list[str]:
    """How the learner's figures move between calls against how the notebook's table says they move: from a base
    call to the same call with one input changed (`scaling`), and between the patterns of one call (`between`)."""
    for plan in plans:
        problems = plan_shape_problems(plan)
        if problems:
            return problems
    described = []
    for (changed, args, kwargs), plan in zip(calls, plans):
        x = plan_inputs(args, kwargs)
        call = (f"parallelism_plan({args[0]:g}, {args[1]}"
                + "".join(f", {k}={v:g}" for k, v in kwargs.items()) + ")")
        described.append((changed, x, plan, call))
    bases = [(x, plan, call) for changed, x, plan, call in described if not changed]
    base = None
    for changed, x, plan, call in described if scaling else ():   # each pattern's figures as one input changes
        if not changed:
            base = (x, plan, call)
            continue
        bx, bplan, bcall = base
        for name in PLAN_NAMES:
            for key in (*PLAN_KEYS_SIZES, "comm_GB_per_step"):
                before, after = relative_size(name, key, bx), relative_size(name, key, x)
                got_before, got_after = bplan[name][key], plan[name][key]
                if before == 0:
                    if after == 0 and not math.isclose(got_after, 0, abs_tol=1e-9):
                        return [f"with {changed} ({call}), {name}'s {key} should be 0; it is {got_after:.4g}."]
                    continue
                want = after / before
                if not got_before:
                    return [f"{bcall}: {name}'s {key} is 0, and it should not be. "
                            f"{PLAN_HINTS.get((name, key), PLAN_HINTS.get(key, ''))}"]
                got = got_after / got_before
                if not math.isclose(got, want, rel_tol=0.01, abs_tol=1e-12):
                    said = f"changes {got:.3g}×" + (f", expected {want:.3g}×" if reveal else "")
                    return [f"with {changed} ({call} against {bcall}), {name}'s {key} {said}. "
                            f"{PLAN_HINTS.get((name, key), PLAN_HINTS.get(key, ''))}"]
    for x, plan, call in bases if between else ():          # between the patterns of one call
        for key in (*PLAN_KEYS_SIZES, "comm_GB_per_step"):
            want_ref = relative_size("DDP", key, x)
            if want_ref == 0:
                continue
            off = [(name, plan[name][key] / plan["DDP"][key] / (relative_size(name, key, x) / want_ref)
                    if plan["DDP"][key] else math.nan) for name in PLAN_NAMES[1:]]
            wrong = [(name, r) for name, r in off if not math.isclose(r, 1, rel_tol=0.01)]
            if len(wrong) == len(off) and len(off) > 1 and all(math.isclose(r, wrong[0][1], rel_tol=0.01) for _, r in wrong):
                said = f"off by the same factor ({wrong[0][1]:.3g}×) against every other pattern's" if reveal else \
                    "off against every other pattern's"
                return [f"{call}: DDP's {key} is {said}, so DDP's is the one that is wrong. "
                        f"{PLAN_HINTS.get(('DDP', key), PLAN_HINTS.get(key, ''))}"]
            for name, r in wrong:
                want = relative_size(name, key, x) / want_ref
                got = plan[name][key] / plan["DDP"][key] if plan["DDP"][key] else math.nan
                said = f"{got:.3g}× DDP's" + (f", expected {want:.3g}×" if reveal else "")
                return [f"{call}: {name}'s {key} is {said}. {PLAN_HINTS.get((name, key), PLAN_HINTS.get(key, ''))}"]
    return memory_sum_problems(plans[0], plan_inputs(*calls[0][1:])["N"] if calls else None)


PLAN_KEYS_SIZES = ("params_GB", "grads_GB", "optimizer_GB", "activations_GB")
# A figure off by exactly one of these factors mixed up a unit: (got / right, what the mix-up is).
UNIT_SLIPS = ((1e9 / 2 ** 30, "GB here are 10⁹ bytes (divide bytes by 1e9), not GiB (2³⁰ bytes)"),
              (2 ** 30 / 1e9, "a billion parameters is 10⁹ (P = params_billion × 1e9), not 2³⁰"),
              (8.0, "the figures count bytes, not bits: comm_GB_per_step is gigabytes sent"),
              (1 / 8, "the figures count bytes: param_bytes, grad_bytes and the rest are bytes already, not bits"),
              (1e-9, "a factor of 10⁹ is missing: P = params_billion × 10⁹ parameters (params_billion counts billions)"),
              (1e9, "a factor of 10⁹ too many: the figures are in GB, the bytes divided by 10⁹"))


def unit_slip(got: float, right: float) -> str:
    """The unit mix-up that turns `right` into `got`, as a sentence (empty when it is none of UNIT_SLIPS)."""
    if not right:
        return ""
    return next((f" It looks like a unit mix-up: {what}." for factor, what in UNIT_SLIPS
                 if math.isclose(got / right, factor, rel_tol=2e-3)), "")


def measured_problems(info: dict) -> list[str]:
    """The learner's predictions for the notebook's small model against what parts 2–5 measure on it when they are
    right (reference_measured, from probe_small_plan's facts)."""
    plan = info.get("plan")
    problems = plan_shape_problems(plan)
    if problems:
        return problems
    n = info["world"]
    ring = (n - 1) / n
    ref = reference_measured(info["cfg"], n)
    pairs = [("DDP", "comm_GB_per_step", 2 * ring * ref["ddp"]["allreduce_bytes"], 0.01, "DDP's all-reduce", 2),
             ("FSDP / ZeRO-3", "comm_GB_per_step", ring * (ref["fsdp"]["all_gather"] + ref["fsdp"]["reduce_scatter"]),
              0.05, "FSDP's all-gathers and reduce-scatter", 3),
             ("FSDP / ZeRO-3", "params_GB", ref["fsdp"]["local_bytes"], 0.02, "FSDP's parameter shard", 3),
             ("TP", "comm_GB_per_step", 2 * ring * ref["tp"]["all_reduce"], 0.01, "tensor parallel's all-reduces", 4),
             ("PP", "comm_GB_per_step", ref["pp"]["send"], 0.01, "the pipeline's sends", 5)]
    for name, key, value, tol, what, part in pairs:
        got = plan[name][key] * 1e9
        if not abs(got - value) <= tol * value:
            predicted = f"{got:.0f}" if abs(got) >= 1 else f"{got:.3g}"
            return [f"for the notebook's small model (P = {info['params']} parameters, N = {n}, fp32), your plan predicts "
                    f"{predicted} bytes for {name}'s {key}, but {what} come to {value:.0f} (bytes per device: the payload "
                    f"part {part} counts when it is right, times the ring model's factor).{unit_slip(got, value)} "
                    f"{PLAN_HINTS.get((name, key), PLAN_HINTS.get(key, ''))}"]
    return []


@register("05.calculator", points=3, exercise="6", title="the parallelism calculator, and its predictions for the model parts 2–5 measure",
          cases=CalculatorCase((), measured=True))
def _calculator(ctx: Context, case: CalculatorCase) -> str:
    plans = ctx.probe(probe_plans, [(c.args, c.kwargs) for c in case.plans])
    for c, plan in zip(case.plans, plans):
        fail_if(plan_problems(plan, c.want, c.about, ctx.reveal, n_devices=c.args[1]), most=2)
    if case.measured:
        calls = relation_calls()
        plans = ctx.probe(probe_plans, [(a, k) for _, a, k in calls])
        fail_if(relation_problems(calls, plans, ctx.reveal, between=False), most=2)     # how each figure scales
        fail_if(measured_problems(ctx.probe(probe_small_plan)), most=2)                 # the scale, in bytes
        fail_if(relation_problems(calls, plans, ctx.reveal, scaling=False), most=2)     # the patterns against each other
        return ("memory and traffic per device shard and scale as the table says, and the small model's plan is "
                "within a few % of what parts 2–5 measure")
    return f"memory and traffic per device right for {len(case.plans)} models"

# ---------------------------------------------------------------- 7: the survey
# The survey's automatic points are what a reader of words can verify: the structure, each collective named next to
# what it carries (a negated mention is no mention), what each device holds, MiniGPT's size. Whether the rest is right
# is for the instructor (the survey cell's manual rubric).
COLLECTIVES = {
    "all_reduce": (re.compile(r"all[-_ ]?reduce", re.I), "all-reduce"),
    "all_gather": (re.compile(r"all[-_ ]?gather", re.I), "all-gather"),
    "reduce_scatter": (re.compile(r"reduce[-_ ]?scatter", re.I), "reduce-scatter"),
    "send_recv": (re.compile(r"send\s*/\s*rec(?:v|eive)|send\s+and\s+recv|point[-_ ]to[-_ ]point|\bp2p\b|\bi?recv\b|\bisend\b",
                             re.I), "point-to-point send/recv"),
}
OWNERS = {"all_reduce": "DDP (and tensor parallel)", "all_gather": "FSDP", "reduce_scatter": "FSDP",
          "send_recv": "pipeline parallel"}
NEGATION = re.compile(r"\b(not|no|never|without|unlike|instead|rather|nor|none|avoid\w*|neither|cannot|\w+n[’']t)\b", re.I)
NEGATED_AFTER = re.compile(r"^\W*(?:[\w’'/-]+\W+){0,4}?(?:not|never|\w+n[’']t)\b", re.I)   # "an all-reduce is not needed"
CLAUSE = re.compile(r"[;:,()\[\]—–]|\s-\s|\b(?:but|whereas|while|although|though)\b", re.I)
COMPARISON = re.compile(r"\b(?:than|times|compared|versus|vs)\b", re.I)
NEAR_WORDS = 15   # how far (in words, within a sentence) what a collective carries may stand from its name
GRADIENTS = re.compile(r"\bgrad(?:ient)?s?\b", re.I)
PARAMETERS = re.compile(r"\bparam(?:eter)?s?\b|\bweights?\b", re.I)
ACTIVATIONS = re.compile(r"\bactivations?\b|\bpartial\s+(?:sums?|outputs?|results?|products?)\b|\boutputs?\b|\bhidden\s+states?\b",
                         re.I)
REPLICA = re.compile(r"\breplica|\b(?:full|whole|complete|entire|identical)\s+(?:\w+\s+)?(?:cop(?:y|ies)|model|network)\b|"
                     r"\bcop(?:y|ies)\s+of\s+(?:the\s+)?(?:whole\s+|entire\s+|full\s+)?(?:model|network)", re.I)
SHARDS = re.compile(r"\bshard", re.I)
PIECES = re.compile(r"\bshard|\bslices?\b|\bsplit|\bpartition|\bpieces?\b|\bcut\b|\b1\s*/\s*N\b|\bdivid", re.I)
STATE = re.compile(r"\bparam|\bweights?\b|\bgrad|\boptimi[sz]er|\bstate\b|\btensors?\b|\beverything\b", re.I)
MATRICES = re.compile(r"\bmatri|\bweights?\b|\blayers?\b|\blinear|\bprojection|\btensors?\b", re.I)
SPLITS = re.compile(r"\bsplit|\bshard|\bpartition|\bslice|\bcut\b|\bdivid|\bcolumn|\brow", re.I)
STAGES = re.compile(r"\bstages?\b|\bdepth\b|\bconsecutive\b|\b(?:groups?|blocks?|sets?|ranges?|runs?)\s+of\s+(?:\w+\s+)?layers\b|"
                    r"\bfirst\s+layers\b", re.I)
PATTERNS = {
    "ddp": {"name": "DDP", "heading": re.compile(r"\bddp\b|distributed data[- ]parallel", re.I),
            "api": re.compile(r"DistributedDataParallel"), "api_name": "torch.nn.parallel.DistributedDataParallel",
            "needs": ("all_reduce",), "allowed": (), "what": "DDP all-reduces the gradients (one all-reduce per bucket, "
                                                              "during backward)",
            "carries": {"all_reduce": (GRADIENTS, "the gradients")},
            "holds": ((REPLICA, None), "every device holds a full copy (a replica) of the model"),
            "wrong_objects": {"all_reduce": (PARAMETERS, "all-reduces the parameters: DDP all-reduces the gradients "
                                                         "(every replica starts equal and takes the same step)")},
            "not_holds": (SHARDS, "sharding, which is FSDP's: in DDP no device shards anything")},
    "fsdp": {"name": "FSDP", "heading": re.compile(r"\bfsdp\b|fully[- ]sharded", re.I),
             "api": re.compile(r"fully_shard|FullyShardedDataParallel"), "api_name": "torch.distributed.fsdp.fully_shard",
             "needs": ("all_gather", "reduce_scatter"), "allowed": ("all_reduce",),
             "what": "FSDP all-gathers each unit's parameters (forward and backward) and reduce-scatters the gradients",
             "carries": {"all_gather": (PARAMETERS, "the parameters"), "reduce_scatter": (GRADIENTS, "the gradients")},
             "wrong_objects": {"all_gather": (GRADIENTS, "all-gathers the gradients: FSDP all-gathers each unit's "
                                                         "parameters, before its forward and again before its backward"),
                               "reduce_scatter": (PARAMETERS, "reduce-scatters the parameters: FSDP reduce-scatters the "
                                                              "gradients, so that each device ends with its shard of "
                                                              "their average")},
             "wrong_pairs": {"all_reduce": (GRADIENTS, "all-reduces the gradients, which is DDP's: FSDP reduce-scatters "
                                                       "them, so that each device ends with only its shard of the average")},
             "holds": ((PIECES, STATE), "each device holds only a shard of the parameters (and of their gradients and "
                                        "optimizer state)"),
             "not_holds": (REPLICA, "a full copy of the model on every device, which is DDP's")},
    "tp": {"name": "tensor parallel", "heading": re.compile(r"tensor", re.I),
           "api": re.compile(r"parallelize_module|ColwiseParallel|RowwiseParallel"),
           "api_name": "torch.distributed.tensor.parallel.parallelize_module (ColwiseParallel, RowwiseParallel)",
           "needs": ("all_reduce",), "allowed": ("all_gather", "reduce_scatter"),
           "what": "tensor parallel all-reduces the partial outputs of every layer (forward, and backward)",
           "carries": {"all_reduce": (ACTIVATIONS, "the activations (the layer's partial outputs)")},
           "holds": ((SPLITS, MATRICES), "the weight matrices inside each layer are split across the devices"),
           "not_holds": (STAGES, "the pipeline's split, each device a stage of consecutive layers")},
    "pp": {"name": "pipeline parallel", "heading": re.compile(r"pipeline", re.I),
           "api": re.compile(r"torch\.distributed\.pipelining|PipelineStage|Schedule(?:GPipe|1F1B|Interleaved\w*)|pipeline\("),
           "api_name": "torch.distributed.pipelining (PipelineStage, ScheduleGPipe)",
           "needs": ("send_recv",), "allowed": (),
           "what": "pipeline parallel sends activations to the next stage and gradients back, point to point",
           "carries": {"send_recv": (ACTIVATIONS, "the activations")},
           "holds": ((STAGES, None), "each device holds a stage: a run of consecutive layers")},
}
PICK_HEADING = re.compile(r"minigpt|\bpick\b|\bchoose\b|\bchoice\b|which", re.I)
ASPECTS = {"pattern": "Pattern", "api": "API", "use": "When to use", "comm": "Communicates", "avoid": "When not to use"}
ASPECT_LINE = re.compile(r"^\s*(?:[-*+]\s+|#{3,6}\s+)?(?:\*\*|__)?\s*(when\s+not\s+to\s+use|when\s+to\s+use|what\s+it\s+"
                         r"communicates|communicat\w*|pattern|api)\b\s*(?:\*\*|__)?\s*[:—–.-]?\s*(?:\*\*|__)?\s*", re.I)
MIN_WORDS, MAX_WORDS, SECTION_MIN_WORDS = 350, 1300, 60


def _aspect_key(label: str) -> str:
    """The ASPECTS key of a section's label line (pattern, api, use, comm, avoid)."""
    label = " ".join(label.lower().split())
    if label.startswith("when not"):
        return "avoid"
    if label.startswith("when to"):
        return "use"
    if "communicat" in label:
        return "comm"
    return "pattern" if label == "pattern" else "api"


def words(text: str) -> int:
    """How many words a text has (code and numbers count)."""
    return len(re.findall(r"[A-Za-z0-9][\w'’/().-]*", text))


def sentences(text: str) -> list[str]:
    """Sentences of at least three words (a list item without a full stop counts as one)."""
    text = re.sub(r"`[^`]*`", "CODE", text)
    parts = re.split(r"(?<=[.!?])\s+|\n\s*[-*+]\s+", text)
    return [p.strip() for p in parts if words(p) >= 3]


HEADING = re.compile(r"^(#{1,6})(?!#)\s*(.*?)\s*#*\s*$")   # "##DDP" counts, as it always has; "#x" is no heading
FENCE = re.compile(r"^\s*(```|~~~)")


def heading_lines(text: str) -> list[tuple[str, re.Match | None]]:
    """Each line of a Markdown text with its heading match (None for a line that is no heading, and for every line
    of a fenced code block, where `# a comment` is code)."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        m = None if fenced or FENCE.match(line) else HEADING.match(line)
        out.append((line, m if m and (len(m.group(1)) > 1 or line[1:2].isspace() or line == "#") else None))
    return out


def section_level(text: str) -> int:
    """The heading level of the survey's sections (## as the exercise shows, but # or ### sections are the same
    survey): the level with the most headings that name a pattern, the shallower on a tie; 2 when none does."""
    levels = [len(m.group(1)) for line, m in heading_lines(text) if m and not ASPECT_LINE.match(line)
              and any(p["heading"].search(m.group(2)) for p in PATTERNS.values())]
    return min(set(levels), key=lambda n: (-levels.count(n), n)) if levels else 2


def parse_survey(text: str) -> dict:
    """{"sections": {key: {"heading", "text", "aspects": {aspect: text}}}, "pick": text or None, "words": int}."""
    blocks, current = [], None
    level = section_level(text)
    for line, m in heading_lines(text):
        if m and len(m.group(1)) <= level and not ASPECT_LINE.match(line):
            current = {"heading": m.group(2).strip(), "lines": [], "level": len(m.group(1))}
            blocks.append(current)
        elif current is not None:
            current["lines"].append(line)
    sections, pick = {}, None
    for block in blocks:
        body = "\n".join(block["lines"]).strip()
        h = block["heading"]
        if PICK_HEADING.search(h) and not any(p["heading"].search(h) for p in PATTERNS.values()) or re.search(r"minigpt", h, re.I):
            pick = body if pick is None else pick + "\n" + body
            continue
        key = next((k for k in ("fsdp", "ddp", "tp", "pp") if PATTERNS[k]["heading"].search(h)), None)
        if key is None or key in sections or block["level"] != level:     # a title above the sections is none
            continue
        aspects, which = {}, None
        for line in body.splitlines():
            m = ASPECT_LINE.match(line)
            if m:
                which = _aspect_key(m.group(1))
                aspects[which] = (aspects.get(which, "") + " " + line[m.end():]).strip()
            elif which is not None:
                aspects[which] = (aspects[which] + "\n" + line).strip()
        sections[key] = {"heading": h, "text": body, "aspects": aspects}
    return {"sections": sections, "pick": pick, "words": words(text)}


# ---- what a text affirms: a mention in a clause that no negation governs
@dataclass(frozen=True)
class Clause:
    """A clause of a sentence: its text, where it starts in the sentence, and whether a negation governs it."""

    text: str
    start: int
    negated: bool


def clauses(sentence: str) -> list[Clause]:
    """The sentence cut at punctuation and at but/whereas/while ("not only" is no negation)."""
    out, start = [], 0
    for m in [*CLAUSE.finditer(sentence), None]:
        end = m.start() if m else len(sentence)
        text = sentence[start:end]
        out.append(Clause(text, start, bool(NEGATION.search(re.sub(r"\bnot\s+only\b", "only", text, flags=re.I)))))
        start = m.end() if m else end
    return out


def _affirmed(clause: Clause, m: re.Match) -> bool:
    """Whether a match inside the clause stands affirmed: no negation before it, no "is not" right after it."""
    before = re.sub(r"\bnot\s+only\b", "only", clause.text[:m.start()], flags=re.I)
    return not NEGATION.search(before) and not NEGATED_AFTER.search(clause.text[m.end():])


def affirmed_spans(sentence: str, rx: re.Pattern) -> list[int]:
    """Where (as a word position in the sentence) rx matches in an affirmed position."""
    spots = []
    for clause in clauses(sentence):
        for m in rx.finditer(clause.text):
            if _affirmed(clause, m):
                spots.append(words(sentence[:clause.start + m.start()]))
    return spots


def _mentions(text: str, affirmed: bool = True) -> set[str]:
    """The collectives a text names (affirmed only, unless affirmed=False)."""
    if not affirmed:
        return {k for k, (rx, _) in COLLECTIVES.items() if rx.search(text)}
    return {k for s in sentences(text) or [text] for k, (rx, _) in COLLECTIVES.items() if affirmed_spans(s, rx)}


def _next_to(text: str, kind: str, carried: re.Pattern, exempt: re.Pattern | None = None) -> bool:
    """Whether some sentence names the collective, affirmed, within NEAR_WORDS words of an affirmed `carried` word
    (sentences that match `exempt` do not count)."""
    for s in sentences(text) or [text]:
        if exempt is not None and exempt.search(s):
            continue
        names, things = affirmed_spans(s, COLLECTIVES[kind][0]), affirmed_spans(s, carried)
        if any(abs(a - b) <= NEAR_WORDS for a in names for b in things):
            return True
    return False


def _holds(text: str, first: re.Pattern, second: re.Pattern | None) -> bool:
    """Whether an affirmed clause of the text matches `first` (and `second`, when given)."""
    return any(not c.negated and first.search(c.text) and (second is None or second.search(c.text))
               for s in sentences(text) or [text] for c in clauses(s))


def pattern_problems(text: str, key: str) -> list[str]:
    """What falls short in the survey's section about one pattern (ddp, fsdp, tp, pp)."""
    p = PATTERNS[key]
    name = p["name"]
    sec = parse_survey(text)["sections"].get(key)
    if sec is None:
        return [f"DISTRIBUTED.md has no section about {name}: add a `## {name}` heading."]
    missing = [ASPECTS[a] for a in ASPECTS if words(sec["aspects"].get(a, "")) < (1 if a == "api" else 3)]
    if missing:
        return [f"the {name} section lacks {', '.join(f'**{m}**' for m in missing)}: start a line of the section with each "
                "label (e.g. `- **Communicates**: ...`) and write at least a sentence after it."]
    if len(sentences(sec["aspects"]["pattern"])) < 2:
        return [f"the {name} section's **Pattern** needs at least two sentences: what each device holds, and what it "
                "computes, so that it cannot be mistaken for another pattern."]
    if words(sec["text"]) < SECTION_MIN_WORDS:
        return [f"the {name} section has {words(sec['text'])} words; say enough to tell it apart from the others "
                f"(at least {SECTION_MIN_WORDS}, about 100–200)."]
    if re.search(r"distributed\.pipeline\.sync|\bPipe\(", sec["text"]):
        return [f"the {name} section names torch.distributed.pipeline.sync.Pipe, which was removed from torch (2.4): "
                "name torch.distributed.pipelining (PipelineStage, ScheduleGPipe)."]
    if not p["api"].search(sec["aspects"]["api"]):
        return [f"the {name} section's **API** should name {p['api_name']}."]
    return communicates_problems(sec["aspects"]["comm"], key) or holds_problems(sec["aspects"]["pattern"], key)


def communicates_problems(comm: str, key: str) -> list[str]:
    """The section's **Communicates**: the pattern's collectives named (a negated mention is none), each next to what
    it carries, and no other pattern's collective (except to contrast it)."""
    p = PATTERNS[key]
    name = p["name"]
    said = _mentions(comm)
    lacking = [k for k in p["needs"] if k not in said]
    foreign = sorted(k for k in said if k not in p["needs"] and k not in p["allowed"])
    if lacking or foreign:
        parts = []
        if foreign:
            parts.append(f"names {', '.join(COLLECTIVES[k][1] for k in foreign)}, which is what "
                         f"{' and '.join(sorted({OWNERS[k] for k in foreign}))} use{'s' if len(foreign) == 1 else ''}")
        if lacking:
            negated = [k for k in lacking if k in _mentions(comm, affirmed=False)]
            parts.append(f"does not name {' and '.join(COLLECTIVES[k][1] for k in lacking)}"
                         + (f" (a negated mention, such as \"no {COLLECTIVES[negated[0]][1]} is needed\", says the pattern "
                            "does without it)" if negated else ""))
        return [f"the {name} section's **Communicates** {', and '.join(parts)}: {p['what']}. Fix what {name} communicates."]
    for kind, (carried, thing) in p["carries"].items():
        if not _next_to(comm, kind, carried):
            return [f"the {name} section's **Communicates** names {COLLECTIVES[kind][1]} but not what it carries: say, in "
                    f"the same sentence, that it carries {thing} ({p['what']})."]
    for kind, (thing, why) in p.get("wrong_objects", {}).items():
        if _carries(comm, kind, thing):
            return [f"the {name} section's **Communicates** {why}."]
    for kind, (carried, why) in p.get("wrong_pairs", {}).items():
        if _next_to(comm, kind, carried, exempt=COMPARISON):
            return [f"the {name} section's **Communicates** {why}."]
    if key == "tp" and not re.search(r"\blayers?\b", comm, re.I):
        return ["the tensor parallel section's **Communicates** should say that the all-reduce happens in every layer "
                "(per layer, forward and backward): that is why it needs a fast link."]
    return []


THINGS = (GRADIENTS, PARAMETERS, ACTIVATIONS)
PASSIVE = re.compile(r"are|is|get|gets|be|being|been", re.I)   # "the gradients are reduce-scattered"
DETERMINERS = ("the", "its", "their", "each", "every", "all", "this", "these", "a", "an")


def _object(tokens: list[str]) -> str | None:
    """The thing a collective's object names: the head noun of the first run of thing words (gradients, parameters,
    activations) among the first words, so that "parameter gradients" are gradients."""
    hit = next((i for i, t in enumerate(tokens[:6]) if any(rx.fullmatch(t) for rx in THINGS)), None)
    if hit is None:
        return None
    while hit + 1 < len(tokens) and any(rx.fullmatch(tokens[hit + 1]) for rx in THINGS):
        hit += 1
    return tokens[hit]


def _carries(text: str, kind: str, thing: re.Pattern) -> bool:
    """Whether an affirmed clause says the collective carries `thing`: "an all-gather of the gradients" (its object
    after "of", "on" or "for") or "the gradients are all-gathered" (passive). A clause that compares does not count."""
    rx = COLLECTIVES[kind][0]
    for s in sentences(text) or [text]:
        for c in clauses(s):
            for m in rx.finditer(c.text):
                if COMPARISON.search(c.text) or not _affirmed(c, m):
                    continue
                after = re.findall(r"[\w'’-]+", c.text[m.end():])
                ending = after.pop(0).lower() if after and re.fullmatch(r"s|es|ed|ing", after[0], re.I) else ""
                lead = after[0].lower() if after else ""
                got = (_object(after[1:]) if lead in ("of", "on", "for") else
                       _object(after) if ending in ("s", "es") and lead in DETERMINERS else None)   # "all-gathers the weights"
                before = re.findall(r"[\w'’-]+", c.text[:m.start()])[-3:]
                if before and re.fullmatch(r"\w+ly|then|also|again|first|later", before[-1], re.I):   # "are then all-gathered"
                    before = before[:-1]
                if got is None and len(before) >= 2 and PASSIVE.fullmatch(before[-1]) and \
                        any(r.fullmatch(before[-2]) for r in THINGS):
                    got = before[-2]
                if got is not None and thing.fullmatch(got):
                    return True
    return False


def holds_problems(pattern: str, key: str) -> list[str]:
    """The section's **Pattern** says what each device holds, and not what another pattern's devices hold."""
    p = PATTERNS[key]
    (first, second), holds = p["holds"]
    if not _holds(pattern, first, second):
        return [f"the {p['name']} section's **Pattern** should say what each device holds: {holds}."]
    if "not_holds" in p:
        rx, other = p["not_holds"]
        if _holds(pattern, rx, None):
            return [f"the {p['name']} section's **Pattern** describes {other}; {holds}."]
    return []


def _sentence_set(text: str) -> set[str]:
    """A text's sentences of six words or more, normalised, to find sentences two sections share."""
    return {" ".join(s.lower().split()) for s in sentences(text) if words(s) >= 6}


# ---- MiniGPT's size, as the pick paragraph states it
SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "billion": 1e9, "b": 1e9, "bn": 1e9,
          "trillion": 1e12, "t": 1e12}
_NUMBER = r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*(thousand|million|billion|trillion|mn|bn|[kmbt])?(?![\w])"
COUNT_BEFORE = re.compile(_NUMBER + r"[\s-]*(?:[a-z]+[\s-]+){0,2}?param", re.I)      # "181k parameters", "0.18M-param"
COUNT_AFTER = re.compile(r"param\w*(?:\s+count)?\s*(?:is|are|of|:|=|totals?|comes?\s+to)?\s*(?:about|around|roughly|only|"
                         r"just|some|~|≈)?\s*" + _NUMBER, re.I)                        # "parameter count is 180,992"
VAGUE = {"hundreds of thousands": (1e5, 1e6), "tens of thousands": (1e4, 1e5), "thousands": (1e3, 1e6),
         "hundreds of millions": (1e8, 1e9), "tens of millions": (1e7, 1e8), "millions": (1e6, 1e9),
         "hundreds of billions": (1e11, 1e12), "tens of billions": (1e10, 1e11), "billions": (1e9, 1e12),
         "trillions": (1e12, 1e15)}
VAGUE_COUNT = re.compile(r"\b(" + "|".join(sorted(VAGUE, key=len, reverse=True)) + r")\s+of\s+(?:[a-z]+\s+){0,2}?param", re.I)
SIZE_SLACK = 2.0   # a stated size within this factor of MiniGPT's count matches it ("about 200 thousand")


def minigpt_params() -> int:
    """MiniGPT's parameter count (helpers.models.MiniGPT as the course builds it)."""
    from helpers.models import MiniGPT

    return sum(p.numel() for p in MiniGPT().parameters())


def stated_sizes(sentence: str) -> list[tuple[float, float]]:
    """The parameter counts a sentence states, each as a range (low, high)."""
    found = []
    for rx in (COUNT_BEFORE, COUNT_AFTER):
        for m in rx.finditer(sentence):
            value = float(m.group(1).replace(",", "")) * SCALES.get((m.group(2) or "").lower(), 1)
            found.append((value / SIZE_SLACK, value * SIZE_SLACK))
    found += [VAGUE[m.group(1).lower()] for m in VAGUE_COUNT.finditer(sentence)]
    return found


def size_problems(pick: str) -> list[str]:
    """Whether the MiniGPT paragraph states a parameter count that matches MiniGPT's, and no other for MiniGPT."""
    n = minigpt_params()
    count = "count them: sum(p.numel() for p in MiniGPT().parameters())"
    stated = [(s, stated_sizes(s)) for s in sentences(pick) or [pick]]
    for s, sizes in stated:
        if sizes and re.search(r"minigpt", s, re.I) and not any(lo <= n <= hi for lo, hi in sizes):
            return [f"the MiniGPT paragraph gives MiniGPT a size it does not have (\"{s[:90]}\"): {count}, and let the "
                    "pick follow from that size."]
    if not any(lo <= n <= hi for _, sizes in stated for lo, hi in sizes):
        return [f"the MiniGPT paragraph should say how many parameters MiniGPT has ({count}): the pick follows from that "
                "size against one device's memory."]
    return []


def survey_problems(text: str) -> list[str]:
    """The whole survey: four sections, about a page, no copied sentences, and a MiniGPT paragraph that names a
    pattern and MiniGPT's size."""
    parsed = parse_survey(text)
    secs = parsed["sections"]
    missing = [PATTERNS[k]["name"] for k in PATTERNS if k not in secs]
    if missing:
        return [f"DISTRIBUTED.md needs one `##` section per pattern; none is about {', '.join(missing)} (headings name "
                "the pattern: DDP, FSDP, Tensor parallel, Pipeline parallel)."]
    pick = parsed["pick"]
    if pick is None:
        return ["DISTRIBUTED.md needs a last `## Which would I pick for MiniGPT` section."]
    if len(sentences(pick)) < 2 or not any(p["heading"].search(pick) or p["name"].lower() in pick.lower() for p in PATTERNS.values()):
        return ["the MiniGPT paragraph should name the pattern you would pick and say why, in at least two sentences "
                "(think of its size against one device's memory, and of what each pattern communicates)."]
    by_size = sorted((words(s["text"]), PATTERNS[k]["name"]) for k, s in secs.items())
    n = parsed["words"]
    if n < MIN_WORDS:
        short = ", ".join(f"{name} ({w} words)" for w, name in by_size[:2])
        return [f"DISTRIBUTED.md has {n} words, too short: about a page is 400–1000 words. The shortest sections are {short}: "
                "each should give the pattern, the API, when to use it, what it communicates and when not to use it."]
    if n > MAX_WORDS:
        long_ = ", ".join(f"{name} ({w} words)" for w, name in by_size[::-1][:2])
        return [f"DISTRIBUTED.md has {n} words, too long: keep it to about a page (400–1000 words). The longest sections "
                f"are {long_}."]
    keys = list(secs)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            shared = _sentence_set(secs[a]["text"]) & _sentence_set(secs[b]["text"])
            if shared:
                return [f"the {PATTERNS[a]['name']} and {PATTERNS[b]['name']} sections share the sentence "
                        f"\"{next(iter(shared))[:80]}\": write each pattern's section in its own words."]
    return size_problems(pick)


@dataclass(frozen=True)
class SectionCase:
    """The survey's file and the pattern (ddp, fsdp, tp, pp) whose section a check reads."""

    file: str
    key: str


def survey_text(ctx: Context, name: str) -> str:
    """The survey the notebook wrote to its output folder, read through a probe."""
    found = ctx.probe(probe_files, [name])[name]
    if not found.get("exists"):
        raise CheckFailed(f"{name} does not exist in the output folder: run the cell that writes it.")
    if "text" not in found:
        raise CheckFailed(f"{name} is not UTF-8 text of at most 4 MB: write the survey as plain Markdown.")
    return found["text"]


@register("05.survey", points=1, exercise="7", title="DISTRIBUTED.md: four sections, about a page, MiniGPT's size and pick",
          cases=SURVEY_FILE)
def _survey(ctx: Context, name: str) -> str:
    fail_if(survey_problems(survey_text(ctx, name)), most=2)
    return "four sections, about a page, a MiniGPT paragraph with its size and a pick (the rest is graded by hand)"


def _survey_section(ctx: Context, case: SectionCase) -> str:
    fail_if(pattern_problems(survey_text(ctx, case.file), case.key), most=2)
    return (f"the {PATTERNS[case.key]['name']} section: its five parts, what each device holds, its collectives next to "
            "what they carry (whether it is right is graded by hand)")


for _key in PATTERNS:
    register(f"05.survey_{_key}", points=0.5, exercise="7",
             title=f"DISTRIBUTED.md: the {PATTERNS[_key]['name']} section, its collectives and what they carry",
             cases=SectionCase(SURVEY_FILE, _key))(_survey_section)
