"""Lab 05's wrong answers (see tests/wrong_answers/__init__.py): one plausible mistake each.

The distributed exercises are judged by launching them with torchrun, twice per answer (the public case and the hidden
one), and a launch costs seconds on 2 cores: one at a time, the launched answers of this corpus would take several
minutes. So the first launch the corpus's checks ask for runs them all, public and hidden cases, grouped into one
torchrun per number of ranks (`Prelaunched`): every rank executes each answer's script, the very text the check would
launch, in a namespace of its own and with an empty fixed-cost log, as a fresh process would; the checks then judge
those results. An answer that raised on every rank keeps the error a launch of its own would report (rank 0's last
line, as helpers.dist words it); one that raised on some ranks only, and anything not prepared, gets a launch of its
own, as the grader would give it. An answer known to raise on some ranks only (`ALONE`: a batch cut for 2 ranks, on
the grader's 3) is left out of the group: the other ranks would wait in a collective and put the group out of step.
Answers whose mistake is in split_stages or bubble_fraction (part 5's first cell) fail before the pipeline is
launched and are left out of the group; a right answer written another way there joins it.

Order matters for the pipeline: the launched script carries split_stages' source as the cell that defines it was
last run (the Workbench reruns a cell under the same name), so the answers that change split_stages come after
every answer that launches pp_worker.
"""

from __future__ import annotations

import copy
import linecache
import sys
import tempfile
import warnings
from pathlib import Path

from helpers import checks
from helpers.checks import lab05
from tests.wrong_answers import ROOT, Edit, right, wrong

SOLUTION = ROOT / "solutions" / "05_distributed.ipynb"
CELLS = ["parameters", "setup", "ex-1", "ex-2", "ex-3", "ex-4", "ex-5a", "ex-5b", "ex-6", "ex-7", "write-7"]
# Words the hidden messages must never show: the grader's sizes, split cases and models.
HIDDEN_NAMES = ("n=7", "bucket_cap_mb=0.02", "m=2", "m=4", "(7, 3)", "(10, 4)", "13.0", "70.0", "0.002", "of 3 raised",
                "expected (7)")

# ---------------------------------------------------------------- edits used by several answers
SLICE = "x, y = x.chunk(world_size)[rank].to(device), y.chunk(world_size)[rank].to(device)"
WHOLE_BATCH = "x, y = x.to(device), y.to(device)"
PP_STAGE = "    stage_module = split_stages(toy_model(cfg), world_size)[rank].to(device)\n"
UNEVEN = ("    whole = toy_model(cfg)\n"
          "    stage_module = (nn.Sequential(whole.inp, *whole.blocks[:-1]) if rank == 0 else\n"
          "                    nn.Sequential(whole.blocks[-1], whole.head)).to(device)\n")
END_BARRIER = "                dist.barrier()                        # ... and ends it together: wall is the whole step\n"
SIZES = "    sizes = [len(blocks) // n_stages + (i < len(blocks) % n_stages) for i in range(n_stages)]"

# Parts of the solution's survey that hostile surveys change.
DDP_PATTERN = ("- **Pattern**: Every device holds a full copy of the model, its gradients and its optimizer state, and works on its\n"
               "  own slice of each batch. After backward, the gradients are averaged over the devices, so every replica takes the\n"
               "  same optimizer step and the copies never drift apart.")
FSDP_PATTERN = ("- **Pattern**: Parameters, gradients and optimizer state are cut into N shards, and each device keeps only its own.\n"
                "  Before a unit (a transformer block, say) runs, its full parameters are gathered from all devices, used and freed\n"
                "  again, so only one unit at a time is whole in memory. The batch is still split across devices, as in DDP.")
FSDP_COMM = ("- **Communicates**: an all-gather of each unit's parameters in forward and again in backward, and a reduce-scatter\n"
             "  of its gradients, so that each device ends with its shard of the averaged gradient: about 1.5 times the traffic of\n"
             "  data parallel with replicas.")
TP_COMM = ("- **Communicates**: an all-reduce of the activations in every layer, in forward and again in backward (two per MLP\n"
           "  block, four per transformer layer), on the critical path between one layer and the next.")
MINIGPT_SIZE = ("MiniGPT has about 181 thousand parameters, so the model, its gradients and Adam's state take about 3 MB and fit on\n"
                "any single device many times over.")

# A survey with every label and collective name and no content (tests/fixtures/lab05/content_free.md).
CONTENT_FREE = 'SURVEY = """' + (ROOT / "tests" / "fixtures" / "lab05" / "content_free.md").read_text() + '"""\n'

# The calculator written another way: a helper per figure, GB as 10**9, DDP's all-reduce as a reduce-scatter plus an
# all-gather (the same bytes as 2(N-1)/N).
CALCULATOR_OTHER_WAY = '''MODEL_BILLIONS = 7.0
N_DEVICES = 8

GB = 10**9


def ring_share(n):
    """What each device sends of a buffer in a ring reduce-scatter or all-gather."""
    return (n - 1) / n


def parallelism_plan(params_billion, n_devices, *, layers=32, hidden=4096, tokens=32768, param_bytes=2, grad_bytes=2,
                     optim_bytes=12, act_bytes=34):
    P, N = params_billion * 10**9, n_devices
    weights, grads, states = P * param_bytes, P * grad_bytes, P * optim_bytes
    reduce_scatter, all_gather = ring_share(N) * grads, ring_share(N) * weights
    cut = tokens * hidden * param_bytes
    sharded = {"DDP": (False, False, False), "ZeRO-1": (False, False, True), "ZeRO-2": (False, True, True),
               "FSDP / ZeRO-3": (True, True, True), "TP": (True, True, True), "PP": (True, True, True)}
    traffic = {"DDP": reduce_scatter + ring_share(N) * grads,      # an all-reduce = reduce-scatter + all-gather
               "ZeRO-1": reduce_scatter + all_gather, "ZeRO-2": reduce_scatter + all_gather,
               "FSDP / ZeRO-3": reduce_scatter + 2 * all_gather,
               "TP": layers * 4 * 2 * ring_share(N) * cut, "PP": 2 * ring_share(N) * cut}
    named = {"DDP": "all-reduce of gradients", "ZeRO-1": "reduce-scatter, all-gather", "ZeRO-2": "reduce-scatter, all-gather",
             "FSDP / ZeRO-3": "all-gathers of parameters, reduce-scatter of gradients",
             "TP": "all-reduces of activations", "PP": "send/recv of activations"}
    plan = {}
    for name, (p_split, g_split, o_split) in sharded.items():
        row = {"params_GB": (weights / N if p_split else weights) / GB,
               "grads_GB": (grads / N if g_split else grads) / GB,
               "optimizer_GB": (states / N if o_split else states) / GB,
               "activations_GB": tokens * hidden * layers * act_bytes / N / GB}
        row["memory_GB"] = row["params_GB"] + row["grads_GB"] + row["optimizer_GB"] + row["activations_GB"]
        row["comm_GB_per_step"] = traffic[name] / GB
        row["collectives"] = named[name]
        plan[name] = row
    return plan
'''

# ---------------------------------------------------------------- the corpus
WRONG = [
    # 1: collectives
    wrong('05.collectives', 'reduce-scatter done as an all-reduce and a slice: the same numbers, twice the ring\'s bytes', 'ex-1',
          ('my_slice = torch.empty(n, device=device)\n    dist.reduce_scatter_tensor(my_slice, whole)',
           'dist.all_reduce(whole)\n    my_slice = whole[rank * n:(rank + 1) * n]'),
          says='issued no reduce-scatter', hidden_says='issued no reduce-scatter'),
    wrong('05.collectives', 'all-gather done as an all-reduce of a zero-padded buffer', 'ex-1',
          ('gathered = torch.empty(n * world_size, device=device)\n    dist.all_gather_into_tensor(gathered, mine)',
           'gathered = torch.zeros(n * world_size, device=device)\n    gathered[rank * n:(rank + 1) * n] = mine\n'
           '    dist.all_reduce(gathered)'),
          says='issued no all-gather', hidden_says='issued no all-gather'),
    wrong('05.collectives', 'the ring done by gathering every rank and keeping the previous one', 'ex-1',
          ('    ring = [dist.P2POp(dist.isend, outgoing, (rank + 1) % world_size),\n'
           '            dist.P2POp(dist.irecv, incoming, (rank - 1) % world_size)]\n'
           '    for work in dist.batch_isend_irecv(ring):\n        work.wait()\n',
           '    everyone = torch.empty(n * world_size, device=device)\n'
           '    dist.all_gather_into_tensor(everyone, outgoing)\n'
           '    incoming = everyone[((rank - 1) % world_size) * n:][:n]\n'),
          says='issued no send or recv', hidden_says='issued no send or recv'),
    wrong('05.collectives', 'the ring turned the other way: the same as the right one on 2 ranks', 'ex-1',
          ('dist.P2POp(dist.isend, outgoing, (rank + 1) % world_size)', 'dist.P2POp(dist.isend, outgoing, (rank - 1) % world_size)'),
          ('dist.P2POp(dist.irecv, incoming, (rank - 1) % world_size)', 'dist.P2POp(dist.irecv, incoming, (rank + 1) % world_size)'),
          says='ring is wrong', hidden_says='ring is wrong'),
    wrong('05.collectives', 'all-reduce of the rank instead of rank + 1', 'ex-1',
          ('summed = torch.full((n,), float(rank + 1), device=device)', 'summed = torch.full((n,), float(rank), device=device)'),
          says='all_reduce is wrong', hidden_says='all_reduce is wrong'),
    wrong('05.collectives', 'reduce-scatter of arange times the rank instead of rank + 1', 'ex-1',
          ('* (rank + 1)\n    my_slice', '* rank\n    my_slice'),
          says='reduce_scatter is wrong', hidden_says='reduce_scatter is wrong'),

    wrong('05.collectives', 'all-reduce of a copy: the sum lands in a tensor nobody keeps', 'ex-1',
          ('dist.all_reduce(summed)', 'dist.all_reduce(summed.clone())'),
          says='all_reduce is wrong.*in place', hidden_says='all_reduce is wrong.*in place'),
    wrong('05.collectives', 'the all-reduce averaged, as DDP does with gradients', 'ex-1',
          ('dist.all_reduce(summed)', 'dist.all_reduce(summed)\n    summed /= world_size'),
          says='all_reduce is wrong', hidden_says='all_reduce is wrong'),
    wrong('05.collectives', 'arange without dtype: the all-gather in int64, not float32', 'ex-1',
          ('mine = torch.arange(n, dtype=torch.float32, device=device) + 100 * rank\n'
           '    gathered = torch.empty(n * world_size, device=device)',
           'mine = torch.arange(n, device=device) + 100 * rank\n    gathered = mine.new_empty(n * world_size)'),
          says='float32', hidden_says='float32'),
    wrong('05.collectives', 'the gather buffer sized for 2 ranks, as in the notebook', 'ex-1',
          ('gathered = torch.empty(n * world_size, device=device)', 'gathered = torch.empty(n * 2, device=device)'),
          says='never from the notebook', hidden_says='never from the notebook'),

    # 1, new: the learner's slips (unit, shape, the size of the reduce-scatter's input)
    wrong('05.collectives', 'all-reduce of an int64 tensor: rank + 1 passed without float()', 'ex-1',
          ('summed = torch.full((n,), float(rank + 1), device=device)', 'summed = torch.full((n,), rank + 1, device=device)'),
          says='float32', hidden_says='float32'),
    wrong('05.collectives', "reduce-scatter given only n elements (this rank's share) as its input", 'ex-1',
          ('whole = torch.arange(n * world_size, dtype=torch.float32, device=device) * (rank + 1)',
           'whole = torch.arange(n, dtype=torch.float32, device=device) * (rank + 1)'),
          says='n \\* world_size', hidden_says='n \\* world_size'),

    # 2: DDP
    wrong('05.ddp', 'every rank trains on the whole batch: the same gradients for twice the work', 'ex-2',
          (SLICE, WHOLE_BATCH), says='whole batch', hidden_says='whole batch'),
    wrong('05.ddp', "every rank takes rank 0's slice", 'ex-2',
          (SLICE, "x, y = x.chunk(world_size)[0].to(device), y.chunk(world_size)[0].to(device)"),
          says='slices', hidden_says='slices'),
    wrong('05.ddp', 'buckets of the default size: bucket_cap_mb not passed to DDP', 'ex-2',
          (', bucket_cap_mb=cfg["bucket_cap_mb"])', ')'), says='bucket_cap_mb', hidden_says='bucket_cap_mb'),
    wrong('05.ddp', 'allreduce_bytes added up over both steps', 'ex-2',
          ('"allreduce_bytes": sum(steps[1]["bucket_bytes"])', '"allreduce_bytes": sum(sum(s["bucket_bytes"]) for s in steps)'),
          says='allreduce_bytes', hidden_says='allreduce_bytes'),
    wrong('05.ddp', "the hook's list is never cleared, so the second step counts the first one's buckets too", 'ex-2',
          ('        seen.clear()\n', ''), says='allreduce_bytes|clear the list', hidden_says='allreduce_bytes|clear the list'),
    wrong('05.ddp', 'a comm hook that counts but never all-reduces', 'ex-2',
          ('        return allreduce_hook(state, bucket)',
           '        done = torch.futures.Future()\n        done.set_result(flat)\n        return done'),
          says="differ from rank 0's", hidden_says="differ from rank 0's"),
    wrong('05.ddp', 'the summed loss instead of the mean', 'ex-2',
          ('loss = F.mse_loss(ddp(x), y)', 'loss = F.mse_loss(ddp(x), y, reduction="sum")'),
          says='mean loss', hidden_says='mean loss'),

    wrong('05.ddp', 'a hand-written hook that sums the gradients without dividing by world_size', 'ex-2',
          ('        return allreduce_hook(state, bucket)',
           '        return dist.all_reduce(flat, async_op=True).get_future().then(lambda fut: fut.value()[0])'),
          says='sum.*divide by world_size', hidden_says='sum.*divide by world_size'),
    wrong('05.ddp', 'no zero_grad between the two steps: the second backward adds to the first', 'ex-2',
          ('        model.zero_grad()\n', ''), says='zero the gradients', hidden_says='zero the gradients'),
    wrong('05.ddp', 'bucket sizes counted in elements, not bytes', 'ex-2',
          ('seen.append((flat.numel() * flat.element_size(), time.perf_counter()))',
           'seen.append((flat.numel(), time.perf_counter()))'),
          says='allreduce_bytes', hidden_says='allreduce_bytes'),
    wrong('05.ddp', 'allreduce_ms as raw perf_counter readings, not ms after backward started', 'ex-2',
          ('"allreduce_ms": [(t - start) * 1e3 for _, t in seen]', '"allreduce_ms": [t * 1e3 for _, t in seen]'),
          says='after backward started', hidden_says='after backward started'),
    wrong('05.ddp', "grads keyed by the DDP wrapper's names (module.inp.weight ...)", 'ex-2',
          ('{"grads": {name: p.grad for name, p in model.named_parameters()}',
           '{"grads": {name: p.grad for name, p in ddp.named_parameters()}'),
          says="'module\\.' names", hidden_says="'module\\.' names"),

    # 2, new
    wrong('05.ddp', 'forward through the unwrapped model: DDP never sees the step, each rank keeps its own gradients', 'ex-2',
          ('loss = F.mse_loss(ddp(x), y)', 'loss = F.mse_loss(model(x), y)'),
          says="differ from rank 0's|DDP-wrapped", hidden_says="differ from rank 0's|DDP-wrapped"),
    wrong('05.ddp', 'the batch cut with x.split(world_size): pieces of world_size rows, not world_size pieces', 'ex-2',
          (SLICE, "x, y = x.split(world_size)[rank].to(device), y.split(world_size)[rank].to(device)"),
          says='slice', hidden_says='slice'),
    wrong('05.ddp', "the loss divided by world_size on top of DDP's own averaging", 'ex-2',
          ('loss = F.mse_loss(ddp(x), y)', 'loss = F.mse_loss(ddp(x), y) / world_size'),
          says='already averages', hidden_says='already averages'),
    wrong('05.ddp', "each rank's batch drawn from its own seed", 'ex-2',
          ('    x, y = toy_batch(cfg)\n    x, y = x.chunk', '    x, y = toy_batch({**cfg, "seed": cfg["seed"] + rank})\n    x, y = x.chunk'),
          says='differs from a single process', hidden_says='differs from a single process'),
    wrong('05.ddp', 'bucket_cap_mb converted to bytes before DDP gets it', 'ex-2',
          ('bucket_cap_mb=cfg["bucket_cap_mb"])', 'bucket_cap_mb=cfg["bucket_cap_mb"] * 2**20)'),
          says='bucket_cap_mb', hidden_says='bucket_cap_mb'),
    wrong('05.ddp', "the batch cut for the notebook's 2 ranks: x.chunk(2)", 'ex-2',
          (SLICE, "x, y = x.chunk(2)[rank].to(device), y.chunk(2)[rank].to(device)"),
          says='world_size', hidden_says='world_size'),

    # 3: FSDP
    wrong('05.fsdp', 'every rank trains on the whole batch: the same losses for twice the work', 'ex-3',
          (SLICE, WHOLE_BATCH), says='whole batch', hidden_says='whole batch'),
    wrong('05.fsdp', 'only the root is sharded', 'ex-3',
          ('    for block in model.blocks:\n        fully_shard(block)\n', ''),
          says='fully_shard each block', hidden_says='fully_shard each block'),
    wrong('05.fsdp', 'local_numel counted before sharding', 'ex-3',
          ('local = sum(p.to_local().numel() for p in model.parameters())', 'local = total'),
          says='about 1/2', hidden_says='about 1/'),
    wrong('05.fsdp', 'total_numel counted from the shards', 'ex-3',
          ('    fully_shard(model)\n', '    fully_shard(model)\n    total = sum(p.to_local().numel() for p in model.parameters())\n'),
          says='total_numel', hidden_says='total_numel'),
    wrong("05.fsdp", "each rank reports its own slice's loss", 'ex-3',
          ('        dist.all_reduce(total_loss)\n        losses.append(total_loss.item() / world_size)',
           '        losses.append(total_loss.item())'),
          says='mean over the ranks', hidden_says='mean over the ranks'),
    wrong('05.fsdp', 'the loss all-reduced but not divided by world_size', 'ex-3',
          ('losses.append(total_loss.item() / world_size)', 'losses.append(total_loss.item())'),
          says='divide by world_size', hidden_says='divide by world_size'),

    wrong('05.fsdp', 'the optimizer built before fully_shard: it holds the unsharded parameters, nothing trains', 'ex-3',
          ('    for block in model.blocks:\n        fully_shard(block)\n',
           '    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"])\n    for block in model.blocks:\n        fully_shard(block)\n'),
          ('    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"])\n    x, y', '    x, y'),
          says='optimizer after fully_shard', hidden_says='optimizer after fully_shard'),
    wrong('05.fsdp', "only backward inside the counter: forward's all-gathers left out", 'ex-3',
          ('        with CommCounter() as comm:\n            loss = F.mse_loss(model(x), y)\n            loss.backward()',
           '        loss = F.mse_loss(model(x), y)\n        with CommCounter() as comm:\n            loss.backward()'),
          says='forward \\+ backward inside', hidden_says='forward \\+ backward inside'),
    wrong('05.fsdp', 'local_numel computed as total // world_size instead of counted', 'ex-3',
          ('local = sum(p.to_local().numel() for p in model.parameters())', 'local = total // world_size'),
          says='do not compute it from total_numel', hidden_says='do not compute it from total_numel'),
    wrong('05.fsdp', 'the loss all-reduced on a copy: each rank reports half its own loss', 'ex-3',
          ('dist.all_reduce(total_loss)', 'dist.all_reduce(total_loss.clone())'),
          says='mean over the ranks', hidden_says='mean over the ranks'),
    wrong('05.fsdp', 'the root sharded before its blocks', 'ex-3',
          ('    for block in model.blocks:\n        fully_shard(block)\n    fully_shard(model)\n',
           '    fully_shard(model)\n    for block in model.blocks:\n        fully_shard(block)\n'),
          says='fully_shard each block of model.blocks, then the whole model \\(the root last\\)', hidden_says='the root last'),

    # 3, new
    wrong('05.fsdp', "the notebook's learning rate (0.05) instead of cfg['lr']", 'ex-3',
          ('lr=cfg["lr"]', 'lr=0.05'), says='differ from one process', hidden_says='differ from one process'),
    wrong('05.fsdp', 'blocks kept gathered after forward (reshard_after_forward=False): backward gathers nothing', 'ex-3',
          ('        fully_shard(block)\n', '        fully_shard(block, reshard_after_forward=False)\n'),
          says='reshard_after_forward', hidden_says='reshard_after_forward'),
    wrong('05.fsdp', 'the root never sharded: inp and head stay whole on every rank', 'ex-3',
          ('    fully_shard(model)\n    local = sum(p.to_local().numel() for p in model.parameters())',
           '    local = sum(p.to_local().numel() if hasattr(p, "to_local") else p.numel() for p in model.parameters())'),
          says='the root', hidden_says='the root'),
    wrong('05.fsdp', "the loss's all-reduce inside the counter: counted as FSDP's traffic", 'ex-3',
          ('            loss.backward()\n        opt.step()\n        opt.zero_grad()\n        total_loss = loss.detach().clone()\n'
           '        dist.all_reduce(total_loss)\n',
           '            loss.backward()\n            total_loss = loss.detach().clone()\n            dist.all_reduce(total_loss)\n'
           '        opt.step()\n        opt.zero_grad()\n'),
          says='after the with block', hidden_says='after the with block'),
    wrong('05.fsdp', "the batch cut for the notebook's 2 ranks: x.chunk(2)", 'ex-3',
          (SLICE, "x, y = x.chunk(2)[rank].to(device), y.chunk(2)[rank].to(device)"),
          says='world_size', hidden_says='world_size'),
    wrong('05.fsdp', 'the gradients zeroed before the optimizer step: nothing trains', 'ex-3',
          ('        opt.step()\n        opt.zero_grad()\n', '        opt.zero_grad()\n        opt.step()\n'),
          says='updated nothing', hidden_says='updated nothing'),
    wrong('05.fsdp', "rank 0's loss broadcast as everyone's", 'ex-3',
          ('        dist.all_reduce(total_loss)\n        losses.append(total_loss.item() / world_size)',
           '        dist.broadcast(total_loss, src=0)\n        losses.append(total_loss.item())'),
          says='mean over the ranks', hidden_says='mean over the ranks'),

    # mistakes only NCCL shows: gloo on a CPU runs them, because there `device` is the CPU (judged with
    # WORKBOOK_TEST_DEVICE=cuda on a machine with two GPUs; graded there, the checks' on_gpus cases catch them)
    wrong('05.collectives', 'the all-reduce on a tensor made on the CPU', 'ex-1',
          ('summed = torch.full((n,), float(rank + 1), device=device)', 'summed = torch.full((n,), float(rank + 1))'),
          says='on `device`', hidden_says='on `device`', gpus=2),
    wrong('05.ddp', "the model never moved to the rank's GPU", 'ex-2',
          ('model = toy_model(cfg).to(device)', 'model = toy_model(cfg)'),
          says='on `device`', hidden_says='on `device`', gpus=2),
    wrong('05.fsdp', 'the batch left on the CPU', 'ex-3',
          (SLICE, "x, y = x.chunk(world_size)[rank], y.chunk(world_size)[rank]"),
          says='on `device`', hidden_says='on `device`', gpus=2),
    wrong('05.tp', 'the device mesh built for the CPU', 'ex-4',
          ('mesh = init_device_mesh(device.type, (world_size,))', 'mesh = init_device_mesh("cpu", (world_size,))'),
          says='on `device`', hidden_says='on `device`', gpus=2),
    wrong('05.pp', 'the pipeline stage told it lives on the CPU', 'ex-5b',
          ('stage = PipelineStage(stage_module, rank, world_size, device)',
           'stage = PipelineStage(stage_module, rank, world_size, torch.device("cpu"))'),
          says='on `device`', hidden_says='on `device`', gpus=2),

    # 4: tensor parallel
    wrong('05.tp', "fc1's output replicated, fc2 left whole", 'ex-4',
          ('ColwiseParallel()\n        plan[f"blocks.{i}.fc2"] = RowwiseParallel()',
           'ColwiseParallel(output_layouts=torch.distributed.tensor.Replicate())'),
          says='should be', hidden_says='wrong local shape'),
    wrong('05.tp', 'only the first block is parallelized', 'ex-4',
          ('for i in range(len(model.blocks)):', 'for i in range(1):'),
          says='should be', hidden_says='wrong local shape'),
    wrong('05.tp', 'each rank feeds its slice of the batch, as in data parallel', 'ex-4',
          ('out = model(x.to(device))\n        loss = F.mse_loss(out, y.to(device))',
           'out = model(x.chunk(world_size)[rank].to(device))\n'
           '        loss = F.mse_loss(out, y.chunk(world_size)[rank].to(device))'),
          says='whole batch', hidden_says='whole batch'),
    wrong('05.tp', 'shard_shapes of the whole parameters', 'ex-4',
          ('tuple(p.to_local().shape) for name, p', 'tuple(p.shape) for name, p'),
          says='should be', hidden_says='wrong local shape'),
    wrong('05.tp', 'backward outside the counter: half the all-reduces counted', 'ex-4',
          ('        loss.backward()\n    shards', '    loss.backward()\n    shards'),
          says='all-reduce', hidden_says='all-reduces than tensor parallel needs'),

    wrong('05.tp', 'fc1 row-wise and fc2 column-wise: the two splits swapped', 'ex-4',
          ('plan[f"blocks.{i}.fc1"] = ColwiseParallel()\n        plan[f"blocks.{i}.fc2"] = RowwiseParallel()',
           'plan[f"blocks.{i}.fc1"] = RowwiseParallel()\n        plan[f"blocks.{i}.fc2"] = ColwiseParallel()'),
          says='ColwiseParallel\\(\\) on blocks', hidden_says='ColwiseParallel\\(\\) on blocks'),
    wrong('05.tp', 'inp and head parallelized too', 'ex-4',
          ('    parallelize_module(model, mesh, plan)',
           '    plan["inp"], plan["head"] = ColwiseParallel(), RowwiseParallel()\n    parallelize_module(model, mesh, plan)'),
          says='nothing else \\(inp and head stay whole\\)', hidden_says='nothing else \\(inp and head stay whole\\)'),
    wrong('05.tp', 'both linears column-wise, fc2 gathered back to whole', 'ex-4',
          ('plan[f"blocks.{i}.fc2"] = RowwiseParallel()',
           'plan[f"blocks.{i}.fc2"] = ColwiseParallel(output_layouts=torch.distributed.tensor.Replicate())'),
          says='RowwiseParallel\\(\\) on blocks', hidden_says='RowwiseParallel\\(\\) on blocks'),

    # 4, new
    wrong('05.tp', 'the device mesh built on "cuda" whatever the device', 'ex-4',
          ('mesh = init_device_mesh(device.type, (world_size,))', 'mesh = init_device_mesh("cuda", (world_size,))'),
          says='device\\.type', hidden_says='device\\.type'),
    wrong('05.tp', "the device mesh of the notebook's 2 ranks", 'ex-4',
          ('mesh = init_device_mesh(device.type, (world_size,))', 'mesh = init_device_mesh(device.type, (2,))'),
          says='world_size', hidden_says='world_size'),
    wrong('05.tp', "fc2's partial sums reduce-scattered over the batch (output_layouts=Shard(0)), not all-reduced", 'ex-4',
          ('plan[f"blocks.{i}.fc2"] = RowwiseParallel()',
           'plan[f"blocks.{i}.fc2"] = RowwiseParallel(output_layouts=torch.distributed.tensor.Shard(0))'),
          says='default layouts', hidden_says='default layouts'),

    # 2-4, new: the batch, the averaging, the seed, the units of FSDP, the loss reported
    wrong('05.ddp', 'a hook that averages the bucket itself, then hands it to allreduce_hook, which averages again', 'ex-2',
          ('        return allreduce_hook(state, bucket)', '        flat.div_(world_size)\n        return allreduce_hook(state, bucket)'),
          says='already averages.*hook', hidden_says='already averages.*hook'),
    wrong('05.ddp', 'the batch shuffled with a per-rank seed before slicing: the slices overlap and miss rows', 'ex-2',
          (SLICE, 'torch.manual_seed(rank)\n    order = torch.randperm(len(x))\n'
                  '    x, y = x[order].chunk(world_size)[rank].to(device), y[order].chunk(world_size)[rank].to(device)'),
          says='slices', hidden_says='slices'),
    wrong('05.ddp', "slices cut with an inclusive end: one row too many, overlapping the next rank's", 'ex-2',
          (SLICE, 'per = len(x) // world_size\n'
                  '    x, y = x[rank * per:(rank + 1) * per + 1].to(device), y[rank * per:(rank + 1) * per + 1].to(device)'),
          says='slice', hidden_says='slice'),
    wrong('05.ddp', 'the loss reported summed over the ranks (all-reduced, never divided)', 'ex-2',
          ('    return {"grads": {name: p.grad for name, p in model.named_parameters()}, "loss": loss.item(),',
           '    summed = loss.detach().clone()\n    dist.all_reduce(summed)\n'
           '    return {"grads": {name: p.grad for name, p in model.named_parameters()}, "loss": summed.item(),'),
          says='summed\\s+over the ranks', hidden_says='summed\\s+over the ranks'),
    wrong('05.fsdp', "each rank builds its model from its own seed: fully_shard keeps each rank's piece, it broadcasts nothing", 'ex-3',
          ('    model = toy_model(cfg).to(device)\n    total', '    model = toy_model({**cfg, "seed": cfg["seed"] + rank}).to(device)\n    total'),
          says='same model', hidden_says='same model'),
    wrong('05.fsdp', 'opt.zero_grad() left out: each backward adds its gradients to the ones before', 'ex-3',
          ('        opt.step()\n        opt.zero_grad()\n', '        opt.step()\n'),
          says='zero_grad', hidden_says='zero_grad'),
    wrong('05.tp', 'the loss all-reduced over the ranks, as in data parallel: every rank already holds the whole loss', 'ex-4',
          ('return {"out": out, "loss": loss.item(),',
           'summed = loss.detach().clone()\n    dist.all_reduce(summed)\n    return {"out": out, "loss": summed.item(),'),
          says='all-reduce over the ranks sums', hidden_says='all-reduce over the ranks sums'),

    # 5: pipeline parallel (launched; the answers that change split_stages come after these)
    wrong('05.pp', 'the stages split by hand, unevenly', 'ex-5b', (PP_STAGE, UNEVEN),
          says='holds 3 block', hidden_says='another number of blocks'),
    wrong('05.pp', 'no micro-batching: one micro-batch per step', 'ex-5b', ('n_microbatches=m', 'n_microbatches=1'),
          says='per-micro-batch losses', hidden_says='per-micro-batch losses'),
    wrong('05.pp', 'the busy fraction reported as the bubble', 'ex-5b',
          ('bubbles.append(1 - busy_seconds() / wall)', 'bubbles.append(busy_seconds() / wall)'),
          says='not 1 - busy / wall', hidden_says='not 1 - busy / wall'),
    wrong('05.pp', 'no closing barrier: the first stage stops its clock before the last one is done', 'ex-5b',
          (END_BARRIER, ''), says='idle at least', hidden_says='idle at least'),

    wrong('05.pp', 'as many micro-batches as stages: n_microbatches=world_size', 'ex-5b',
          ('n_microbatches=m', 'n_microbatches=world_size'),
          says='per-micro-batch losses', hidden_says='per-micro-batch losses'),

    # 5, new (launched)
    wrong('05.pp', 'ScheduleGPipe without loss_fn: no loss, so no backward', 'ex-5b',
          ('ScheduleGPipe(stage, n_microbatches=m, loss_fn=F.mse_loss)', 'ScheduleGPipe(stage, n_microbatches=m)'),
          says='loss_fn', hidden_says='loss_fn'),
    wrong('05.pp', 'the last stage steps without losses=losses: no per-micro-batch losses come back', 'ex-5b',
          ('out = schedule.step(target=y, losses=losses)', 'out = schedule.step(target=y)'),
          says='losses=losses', hidden_says='losses=losses'),

    # 5: split_stages and bubble_fraction (fail before the pipeline is launched)
    wrong('05.pp', 'a bubble over m + p slots', 'ex-5a',
          ('return (p - 1) / (m + p - 1)', 'return (p - 1) / (m + p)'),
          says='bubble_fraction\\(2, 1\\)', hidden_says='bubble_fraction is wrong'),
    wrong('05.pp', 'the bubble as idle slots over busy ones', 'ex-5a',
          ('return (p - 1) / (m + p - 1)', 'return (p - 1) / m'),
          says='bubble_fraction\\(2, 1\\)', hidden_says='bubble_fraction is wrong'),
    wrong('05.pp', 'the bubble in integer division', 'ex-5a',
          ('return (p - 1) / (m + p - 1)', 'return (p - 1) // (m + p - 1)'),
          says='bubble_fraction\\(2, 1\\)', hidden_says='bubble_fraction is wrong'),
    wrong('05.pp', 'the extra blocks go to the last stages', 'ex-5a',
          (SIZES, '    sizes = [len(blocks) // n_stages + (i >= n_stages - len(blocks) % n_stages) for i in range(n_stages)]'),
          says='earlier stages get the extra block', hidden_says='split_stages is wrong'),
    wrong('05.pp', 'stages of ceil(blocks / stages) blocks, the last one short', 'ex-5a',
          (SIZES, '    per = -(-len(blocks) // n_stages)\n'
                  '    sizes = [max(0, min(per, len(blocks) - i * per)) for i in range(n_stages)]'),
          says='6 blocks into 4 stages', hidden_says='split_stages is wrong'),
    wrong('05.pp', 'every block left over goes to the first stage', 'ex-5a',
          (SIZES, '    sizes = [len(blocks) // n_stages + (len(blocks) % n_stages if i == 0 else 0) for i in range(n_stages)]'),
          says='earlier stages get the extra block', hidden_says='split_stages is wrong'),
    wrong('05.pp', 'stages built from copies of the modules', 'ex-5a',
          ('stages.append(nn.Sequential(*layers))', 'stages.append(copy.deepcopy(nn.Sequential(*layers)))'),
          ('def split_stages(model, n_stages):', 'import copy\n\n\ndef split_stages(model, n_stages):'),
          says="model's\\s+own modules", hidden_says="model's\\s+own modules"),

    wrong('05.pp', 'the bubble as p / (m + p)', 'ex-5a',
          ('return (p - 1) / (m + p - 1)', 'return p / (m + p)'),
          says='bubble_fraction\\(2, 1\\)', hidden_says='bubble_fraction is wrong'),
    wrong('05.pp', "bubble_fraction's parameters in the other order (m, p)", 'ex-5a',
          ('def bubble_fraction(p, m):', 'def bubble_fraction(m, p):'),
          says='bubble_fraction\\(2, 1\\)', hidden_says='bubble_fraction is wrong'),
    wrong('05.pp', 'inp and head counted with the blocks and all of them divided evenly', 'ex-5a',
          ('    blocks = list(model.blocks)\n' + SIZES + '\n    stages, start = [], 0\n'
           '    for s, size in enumerate(sizes):\n'
           '        layers = ([model.inp] if s == 0 else []) + blocks[start:start + size] + ([model.head] if s == n_stages - 1 else [])\n',
           '    blocks = [model.inp, *model.blocks, model.head]\n'
           '    sizes = [len(blocks) // n_stages + (i < len(blocks) % n_stages) for i in range(n_stages)]\n'
           '    stages, start = [], 0\n    for s, size in enumerate(sizes):\n        layers = blocks[start:start + size]\n'),
          says='6 blocks into 4 stages', hidden_says='split_stages is wrong'),

    # 5, new (split_stages and bubble_fraction)
    wrong('05.pp', 'the bubble as a percentage', 'ex-5a',
          ('return (p - 1) / (m + p - 1)', 'return 100 * (p - 1) / (m + p - 1)'),
          says='percentage', hidden_says='percentage'),
    wrong('05.pp', 'inp and head placed with if/elif: a single stage gets no head', 'ex-5a',
          ('        layers = ([model.inp] if s == 0 else []) + blocks[start:start + size] + ([model.head] if s == n_stages - 1 else [])\n',
           '        layers = blocks[start:start + size]\n'
           '        if s == 0:\n            layers = [model.inp] + layers\n'
           '        elif s == n_stages - 1:\n            layers = layers + [model.head]\n'),
          says='into 1 stage', hidden_says='split_stages is wrong'),
    wrong('05.pp', 'stages returned as lists of modules, not nn.Sequential', 'ex-5a',
          ('stages.append(nn.Sequential(*layers))', 'stages.append(layers)'),
          says='nn\\.Sequential', hidden_says='nn\\.Sequential'),

    # 6: the calculator
    wrong('05.calculator', 'DDP without the ring factor', 'ex-6',
          ('"DDP": (1, 1, 1, 2 * ring * P * grad_bytes,', '"DDP": (1, 1, 1, 2 * P * grad_bytes,'),
          says="DDP's comm_GB_per_step.*2\\(N-1\\)/N", hidden_says="which is off"),
    wrong('05.calculator', 'FSDP gathers the parameters once per step', 'ex-6',
          ('ring * P * (2 * param_bytes + grad_bytes)', 'ring * P * (param_bytes + grad_bytes)'),
          says="FSDP / ZeRO-3's comm_GB_per_step", hidden_says="which is off"),
    wrong('05.calculator', 'ZeRO-2 keeps the whole gradients', 'ex-6',
          ('"ZeRO-2": (1, 1 / N, 1 / N,', '"ZeRO-2": (1, 1, 1 / N,'),
          says="ZeRO-2's grads_GB", hidden_says="which is off"),
    wrong('05.calculator', 'two all-reduces per layer for tensor parallel (forward only)', 'ex-6',
          ('layers * 4 * 2 * ring * tokens', 'layers * 2 * 2 * ring * tokens'),
          says="TP's comm_GB_per_step", hidden_says="which is off"),
    wrong('05.calculator', 'the activations of the whole step on every device', 'ex-6',
          ('activations = tokens * hidden * layers * act_bytes / N', 'activations = tokens * hidden * layers * act_bytes'),
          says="activations_GB", hidden_says="which is off"),
    wrong('05.calculator', 'GB as 2**30 bytes', 'ex-6',
          ('"params_GB": P * param_bytes * share_p / 1e9', '"params_GB": P * param_bytes * share_p / 2**30'),
          says="params_GB", hidden_says="which is off"),
    wrong('05.calculator', 'the pipeline without the ring factor', 'ex-6',
          ('2 * ring * tokens * hidden * param_bytes, "send/recv', '2 * tokens * hidden * param_bytes, "send/recv'),
          says="PP's comm_GB_per_step", hidden_says="which is off"),
    wrong('05.calculator', 'memory_GB without the activations', 'ex-6',
          ('plan[name] = {"memory_GB": sum(parts.values()),',
           'plan[name] = {"memory_GB": sum(parts.values()) - parts["activations_GB"],'),
          says="memory_GB", hidden_says="which is off"),

    wrong('05.calculator', "ZeRO-1 and ZeRO-2 sending DDP's all-reduce of the gradients", 'ex-6',
          ('"ZeRO-1": (1, 1, 1 / N, ring * P * (grad_bytes + param_bytes), both),\n'
           '        "ZeRO-2": (1, 1 / N, 1 / N, ring * P * (grad_bytes + param_bytes), both),',
           '"ZeRO-1": (1, 1, 1 / N, 2 * ring * P * grad_bytes, both),\n'
           '        "ZeRO-2": (1, 1 / N, 1 / N, 2 * ring * P * grad_bytes, both),'),
          says="ZeRO-1's comm_GB_per_step", hidden_says="which is off"),
    wrong('05.calculator', "DDP's all-reduce counted in parameter bytes, not gradient bytes", 'ex-6',
          ('"DDP": (1, 1, 1, 2 * ring * P * grad_bytes,', '"DDP": (1, 1, 1, 2 * ring * P * param_bytes,'),
          says="DDP's comm_GB_per_step", hidden_says="which is off"),

    # 6, new: units, formula variants, arguments ignored
    wrong('05.calculator', "DDP's all-reduce as (N-1)/N: the ring's factor 2 forgotten", 'ex-6',
          ('"DDP": (1, 1, 1, 2 * ring * P * grad_bytes,', '"DDP": (1, 1, 1, ring * P * grad_bytes,'),
          says="DDP's comm_GB_per_step", hidden_says="DDP's comm_GB_per_step.*which is off"),
    wrong('05.calculator', 'every figure in GiB (2**30 bytes)', 'ex-6',
          ('/ 1e9', '/ 2**30'), says='10⁹ bytes', hidden_says='10⁹ bytes'),
    wrong('05.calculator', 'a billion parameters as 2**30', 'ex-6',
          ('P, N = params_billion * 1e9, n_devices', 'P, N = params_billion * 2**30, n_devices'),
          says='billion', hidden_says='billion'),
    wrong('05.calculator', 'the traffic in gigabits, not gigabytes', 'ex-6',
          ('"comm_GB_per_step": sent / 1e9', '"comm_GB_per_step": sent * 8 / 1e9'),
          says='bits', hidden_says='bits'),
    wrong('05.calculator', 'the traffic of all devices together, not per device', 'ex-6',
          ('"comm_GB_per_step": sent / 1e9', '"comm_GB_per_step": sent * N / 1e9'),
          says='comm_GB_per_step', hidden_says='comm_GB_per_step'),
    wrong('05.calculator', 'a float32 master copy added on top of optim_bytes, which already holds it', 'ex-6',
          ('"optimizer_GB": P * optim_bytes * share_o / 1e9', '"optimizer_GB": P * (optim_bytes + 4) * share_o / 1e9'),
          says='optimizer_GB', hidden_says='optimizer_GB'),
    wrong('05.calculator', 'the pipeline sends the activations forward only, no gradients back', 'ex-6',
          ('2 * ring * tokens * hidden * param_bytes, "send/recv', 'ring * tokens * hidden * param_bytes, "send/recv'),
          says="PP's comm_GB_per_step", hidden_says="PP's comm_GB_per_step"),
    wrong('05.calculator', 'FSDP with two reduce-scatters and one all-gather', 'ex-6',
          ('ring * P * (2 * param_bytes + grad_bytes)', 'ring * P * (param_bytes + 2 * grad_bytes)'),
          says="FSDP / ZeRO-3's comm_GB_per_step", hidden_says="FSDP / ZeRO-3's comm_GB_per_step"),
    wrong('05.calculator', "Adam's 12 bytes hard-coded: optim_bytes ignored", 'ex-6',
          ('"optimizer_GB": P * optim_bytes * share_o / 1e9', '"optimizer_GB": P * 12 * share_o / 1e9'),
          says='optimizer_GB', hidden_says='optimizer_GB'),

    # 6, new: shares, bytes per figure, ring factors, per-device against total
    wrong('05.calculator', 'ZeRO-1 shards the gradients too: its row the same as ZeRO-2\'s', 'ex-6',
          ('"ZeRO-1": (1, 1, 1 / N,', '"ZeRO-1": (1, 1 / N, 1 / N,'),
          says="ZeRO-1's grads_GB", hidden_says="ZeRO-1's grads_GB"),
    wrong('05.calculator', 'the gradients sized in param_bytes (as the bf16 weights): grad_bytes ignored', 'ex-6',
          ('"grads_GB": P * grad_bytes * share_g / 1e9', '"grads_GB": P * param_bytes * share_g / 1e9'),
          says="grads_GB", hidden_says="grads_GB"),
    wrong('05.calculator', "the all-reduce's 2(N-1)/N used for the reduce-scatters and all-gathers too", 'ex-6',
          ('ring = (N - 1) / N', 'ring = 2 * (N - 1) / N'),
          ('"DDP": (1, 1, 1, 2 * ring * P * grad_bytes,', '"DDP": (1, 1, 1, ring * P * grad_bytes,'),
          ('layers * 4 * 2 * ring * tokens', 'layers * 4 * ring * tokens'),
          ('2 * ring * tokens * hidden * param_bytes, "send/recv', 'ring * tokens * hidden * param_bytes, "send/recv'),
          says="comm_GB_per_step.*\\(N-1\\)/N", hidden_says="comm_GB_per_step"),
    wrong('05.calculator', 'param_bytes read as bits: the parameters divided by 8', 'ex-6',
          ('"params_GB": P * param_bytes * share_p / 1e9', '"params_GB": P * param_bytes / 8 * share_p / 1e9'),
          says='bits', hidden_says='bits'),
    wrong('05.calculator', 'no ring: each device sends the whole buffer to each of the N-1 others', 'ex-6',
          ('ring = (N - 1) / N', 'ring = N - 1'),
          says='comm_GB_per_step.*\\(N-1\\)/N', hidden_says='comm_GB_per_step'),
    wrong('05.calculator', "the pipeline's traffic over all N-1 cuts together, not per device", 'ex-6',
          ('2 * ring * tokens * hidden * param_bytes, "send/recv', '2 * (N - 1) * tokens * hidden * param_bytes, "send/recv'),
          says="PP's comm_GB_per_step", hidden_says="PP's comm_GB_per_step"),
    wrong('05.calculator', 'the activations of one layer: layers left out of A', 'ex-6',
          ('activations = tokens * hidden * layers * act_bytes / N', 'activations = tokens * hidden * act_bytes / N'),
          says='activations_GB', hidden_says='activations_GB'),
    wrong('05.calculator', 'the activations divided by N twice: tokens per device, then per device again', 'ex-6',
          ('activations = tokens * hidden * layers * act_bytes / N', 'activations = (tokens / N) * hidden * layers * act_bytes / N'),
          says='activations_GB', hidden_says='activations_GB'),
    wrong('05.calculator', 'params_billion taken as the number of parameters: the 10**9 left out of P', 'ex-6',
          ('P, N = params_billion * 1e9, n_devices', 'P, N = params_billion, n_devices'),
          says='10⁹', hidden_says='10⁹'),
    wrong('05.calculator', "FSDP's traffic as 1.5 times DDP's, all in gradient bytes", 'ex-6',
          ('ring * P * (2 * param_bytes + grad_bytes)', '1.5 * 2 * ring * P * grad_bytes'),
          says="FSDP / ZeRO-3's comm_GB_per_step", hidden_says="FSDP / ZeRO-3's comm_GB_per_step"),
    wrong('05.calculator', "the optimizer's state as optim_bytes per parameter byte: optim_bytes × param_bytes", 'ex-6',
          ('"optimizer_GB": P * optim_bytes * share_o / 1e9', '"optimizer_GB": P * optim_bytes * param_bytes * share_o / 1e9'),
          says='optimizer_GB', hidden_says='optimizer_GB'),
    wrong('05.calculator', "DDP and ZeRO keep the whole step's activations: only TP, PP and FSDP divide them by N", 'ex-6',
          ('"activations_GB": activations / 1e9',
           '"activations_GB": activations * (N if name in ("DDP", "ZeRO-1", "ZeRO-2") else 1) / 1e9'),
          says="activations_GB", hidden_says="activations_GB"),
    wrong('05.calculator', 'memory_GB of all N devices together, its parts per device', 'ex-6',
          ('plan[name] = {"memory_GB": sum(parts.values()),', 'plan[name] = {"memory_GB": sum(parts.values()) * N,'),
          says='memory_GB.*all the devices together', hidden_says='memory_GB.*all the devices together'),
    wrong('05.calculator', 'the traffic left in bytes: comm never divided by 1e9', 'ex-6',
          ('"comm_GB_per_step": sent / 1e9', '"comm_GB_per_step": sent'),
          says='10⁹', hidden_says='10⁹'),

    # 7: the survey (hostile surveys: the solution's with one part changed, or a template with no content)
    wrong('05.survey', 'a content-free template: labels, collective names, no content (no size for MiniGPT)', 'ex-7',
          source=CONTENT_FREE, says='how many parameters MiniGPT has'),
    wrong('05.survey_ddp', 'a content-free template: collectives named with nothing they carry', 'ex-7',
          source=CONTENT_FREE, says='not what it carries'),
    wrong('05.survey_pp', 'a content-free template, seen from the pipeline section', 'ex-7',
          source=CONTENT_FREE, says='not what it carries|what each device holds'),
    wrong('05.survey', 'MiniGPT called a model of billions of parameters', 'ex-7',
          (MINIGPT_SIZE, "MiniGPT has billions of parameters, so the model, its gradients and Adam's state do not fit on one "
                         "device."),
          says='size it does not have'),
    wrong('05.survey', 'MiniGPT paragraph without its size', 'ex-7',
          (MINIGPT_SIZE, "MiniGPT is small: the model, its gradients and Adam's state fit on any single device many times "
                         "over."),
          says='how many parameters MiniGPT has'),
    wrong('05.survey', 'one sentence copied into two sections', 'ex-7',
          ('- **When not to use**: with few layers or few micro-batches:',
           '- **When not to use**: when the model with its optimizer state does not fit on one device: replication saves no\n'
           '  memory at all, so shard with FSDP. Also with few layers or few micro-batches:'),
          says='share the sentence'),
    wrong('05.survey_ddp', "DDP's and FSDP's Pattern texts swapped", 'ex-7',
          (DDP_PATTERN, 'DDP-PATTERN'), (FSDP_PATTERN, DDP_PATTERN), ('DDP-PATTERN', FSDP_PATTERN),
          says='what each device holds'),
    wrong('05.survey_ddp', 'DDP named with the collective but not what it carries', 'ex-7',
          ('- **Communicates**: one all-reduce of the gradients per step,', '- **Communicates**: one all-reduce per step,'),
          says='not what it carries'),
    wrong('05.survey_fsdp', "FSDP's gradients all-reduced, the reduce-scatter only named in passing", 'ex-7',
          (FSDP_COMM, "- **Communicates**: an all-gather of each unit's parameters in forward and again in backward, and an\n"
                      "  all-reduce of its gradients after backward, so that every device has the averaged gradient, of which\n"
                      "  it keeps its shard (what a reduce-scatter would also give)."),
          says='all-reduces the gradients'),
    wrong('05.survey_fsdp', 'FSDP said to need no reduce-scatter, its gradients all-reduced', 'ex-7',
          (FSDP_COMM, "- **Communicates**: an all-gather of each unit's parameters in forward and again in backward; no\n"
                      "  reduce-scatter is needed, since the gradients are all-reduced as in DDP and each device then keeps its\n"
                      "  own part of them."),
          says='does not name reduce-scatter.*negated'),
    wrong('05.survey_fsdp', "FSDP's collectives named, nothing said of what they carry", 'ex-7',
          (FSDP_COMM, "- **Communicates**: an all-gather and a reduce-scatter for every unit in each step, issued by FSDP2\n"
                      "  itself: about 1.5 times the traffic of data parallel with replicas, the price of the memory saved."),
          says='not what it carries'),
    wrong('05.survey_fsdp', "FSDP's Pattern says every device holds the whole model", 'ex-7',
          (FSDP_PATTERN, "- **Pattern**: Every device holds a full copy of the model with its gradients and optimizer state,\n"
                         "  and works on its own slice of each batch. Each unit (a transformer block, say) is gathered before it\n"
                         "  runs and freed again afterwards, which keeps the peak memory low."),
          says='what each device holds'),
    wrong('05.survey_tp', 'tensor parallel said to need no all-reduce', 'ex-7',
          (TP_COMM, "- **Communicates**: each device computes its slice of every layer's activations from its own weights, so\n"
                    "  no all-reduce is needed, in forward or in backward; the slices stay on their devices from layer to layer."),
          says='does not name all-reduce.*negated'),
    wrong('05.survey_tp', 'tensor parallel said to all-gather its activations instead', 'ex-7',
          ('- **Communicates**: an all-reduce of the activations in every layer,',
           '- **Communicates**: an all-gather of the activations in every layer,'),
          says='does not name all-reduce'),
    wrong('05.survey_tp', 'tensor parallel all-reduces, but not said to be per layer', 'ex-7',
          (TP_COMM, '- **Communicates**: an all-reduce of the partial activations, in forward and again in backward, on the\n'
                    '  critical path of the step.'),
          says='every layer'),
    wrong('05.survey_tp', "tensor parallel's Pattern without the split matrices", 'ex-7',
          ("- **Pattern**: The weight matrices inside each layer are split across devices: the first linear of an MLP by output\n"
           "  columns, the second by input rows. Every device sees the whole batch and computes a slice of each matrix product,\n"
           "  and the partial results are summed to give the layer's output.",
           "- **Pattern**: Every device runs the whole model on the whole batch, and the devices work in lockstep on each\n"
           "  step. Their results are combined after every layer, which keeps them in agreement."),
          says='what each device holds'),
    wrong('05.survey_pp', 'the pipeline said to all-reduce its activations', 'ex-7',
          ("- **Communicates**: point-to-point send/recv of each micro-batch's activations to the next stage, and of their\n"
           "  gradients back to the previous one.",
           "- **Communicates**: an all-reduce of each micro-batch's activations between the stages, and of their gradients on\n"
           "  the way back."),
          says='names all-reduce'),
    wrong('05.survey_pp', 'the removed torch.distributed.pipeline.sync.Pipe as the API', 'ex-7',
          ('- **API**: `torch.distributed.pipelining`: a `PipelineStage` on each device, run by a schedule such as\n'
           '  `ScheduleGPipe` or `Schedule1F1B`.',
           '- **API**: `torch.distributed.pipeline.sync.Pipe(model, chunks=8)`, which wraps a sequential model and runs\n'
           '  its micro-batches.'),
          says='removed'),
    wrong('05.survey_ddp', 'the single-process torch.nn.DataParallel named as the API', 'ex-7',
          ("- **API**: `torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank])`, one process per device, started by\n"
           "  torchrun.",
           "- **API**: `torch.nn.DataParallel(model)`, which copies the model to every GPU and splits each batch between\n"
           "  them."),
          says='DistributedDataParallel'),
    wrong('05.survey_ddp', 'DDP said to all-reduce the parameters', 'ex-7',
          ('- **Communicates**: one all-reduce of the gradients per step,',
           '- **Communicates**: one all-reduce of the parameters per step, once backward has computed the gradients,'),
          says='all-reduces the parameters'),
    wrong('05.survey_fsdp', "FSDP's two collectives swapped: gradients all-gathered, parameters reduce-scattered", 'ex-7',
          (FSDP_COMM, "- **Communicates**: an all-gather of the gradients and a reduce-scatter of the parameters of each\n"
                      "  unit, in forward and again in backward: about 1.5 times the traffic of data parallel with replicas."),
          says='all-gathers the gradients'),
    wrong('05.survey_tp', "tensor parallel's Pattern describes the pipeline: consecutive layers per device", 'ex-7',
          ("- **Pattern**: The weight matrices inside each layer are split across devices: the first linear of an MLP by output\n"
           "  columns, the second by input rows. Every device sees the whole batch and computes a slice of each matrix product,\n"
           "  and the partial results are summed to give the layer's output.",
           "- **Pattern**: The model's layers are split across devices: each device holds a group of consecutive layers\n"
           "  and computes them for the whole batch. The devices pass the activations on from one group to the next."),
          says="describes the pipeline's split"),
    wrong('05.survey_tp', "tensor parallel's all-reduce said to carry the weight gradients", 'ex-7',
          (TP_COMM, "- **Communicates**: an all-reduce of the weight gradients in every layer, once per step after backward,\n"
                    "  on the critical path between one layer and the next."),
          says='not what it carries'),
    # 7, new
    wrong('05.survey', 'MiniGPT given 181 million parameters: the unit slipped', 'ex-7',
          ('MiniGPT has about 181 thousand parameters,', 'MiniGPT has about 181 million parameters,'),
          says='size it does not have'),
    wrong('05.survey_pp', 'the pipeline said to send only the gradients between stages', 'ex-7',
          ("- **Communicates**: point-to-point send/recv of each micro-batch's activations to the next stage, and of their\n"
           "  gradients back to the previous one.",
           "- **Communicates**: point-to-point send/recv of each micro-batch's gradients back to the previous stage, once\n"
           "  backward reaches the cut."),
          says='not what it carries'),
    wrong('05.survey_ddp', 'DDP said to all-gather the parameters as well', 'ex-7',
          ('- **Communicates**: one all-reduce of the gradients per step,',
           '- **Communicates**: an all-gather of the parameters before forward and one all-reduce of the gradients per step,'),
          says='names all-gather'),
]

RIGHT = [
    right('05.collectives', 'all-gather into a list of tensors, then concatenated', 'ex-1',
          ('gathered = torch.empty(n * world_size, device=device)\n    dist.all_gather_into_tensor(gathered, mine)',
           'pieces = [torch.empty(n, device=device) for _ in range(world_size)]\n'
           '    dist.all_gather(pieces, mine)\n    gathered = torch.cat(pieces)')),
    right('05.collectives', 'a ring of blocking send/recv, even ranks sending first', 'ex-1',
          ('    ring = [dist.P2POp(dist.isend, outgoing, (rank + 1) % world_size),\n'
           '            dist.P2POp(dist.irecv, incoming, (rank - 1) % world_size)]\n'
           '    for work in dist.batch_isend_irecv(ring):\n        work.wait()\n',
           '    if rank % 2 == 0:\n'
           '        dist.send(outgoing, (rank + 1) % world_size)\n'
           '        dist.recv(incoming, (rank - 1) % world_size)\n'
           '    else:\n'
           '        dist.recv(incoming, (rank - 1) % world_size)\n'
           '        dist.send(outgoing, (rank + 1) % world_size)\n')),
    right('05.ddp', "a strided split of the batch (DistributedSampler's)", 'ex-2',
          (SLICE, "x, y = x[rank::world_size].to(device), y[rank::world_size].to(device)")),
    right(('05.survey', '05.survey_ddp', '05.survey_fsdp', '05.survey_tp', '05.survey_pp'),
          'the survey in other words: complete copy, 1/N of every parameter, sums of partial outputs, sends', 'ex-7',
          ('Every device holds a full copy of the model,', 'Each GPU keeps a complete copy of the model,'),
          ('Parameters, gradients and optimizer state are cut into N shards, and each device keeps only its own.',
           'Each rank stores 1/N of every parameter, and the same part of its gradient and optimizer state.'),
          (FSDP_COMM, "- **Communicates**: the parameters of a unit are all-gathered before it runs (forward, and again in\n"
                      "  backward), and its gradients are reduce-scattered, so that each rank ends with its part of the average."),
          (TP_COMM, "- **Communicates**: after each row-parallel layer an all-reduce sums the partial outputs, in forward and in\n"
                    "  backward, on the critical path between one layer and the next."),
          ("- **Communicates**: point-to-point send/recv of each micro-batch's activations to the next stage, and of their\n"
           "  gradients back to the previous one.",
           "- **Communicates**: each stage sends its activations to the next one with send/recv, and the gradients come back\n"
           "  the same way, one micro-batch at a time."),
          ('MiniGPT has about 181 thousand parameters,', 'MiniGPT has ~0.18M params,')),
    right(('05.survey', '05.survey_ddp'), 'the survey with "gradients are all-reduced" and a contrast with FSDP', 'ex-7',
          ('- **Communicates**: one all-reduce of the gradients per step,',
           '- **Communicates**: the gradients are all-reduced once per step (unlike FSDP, no all-gather),'),
          ('MiniGPT has about 181 thousand parameters,', 'MiniGPT has 180,992 parameters (0.18M),')),
    right('05.collectives', 'an explicit SUM, and the list form of reduce-scatter', 'ex-1',
          ('dist.all_reduce(summed)', 'dist.all_reduce(summed, op=dist.ReduceOp.SUM)'),
          ('my_slice = torch.empty(n, device=device)\n    dist.reduce_scatter_tensor(my_slice, whole)',
           'my_slice = torch.empty(n, device=device)\n    dist.reduce_scatter(my_slice, list(whole.chunk(world_size)))')),
    right('05.ddp', 'a hand-written hook that all-reduces and divides by world_size, and tensor_split slices', 'ex-2',
          ('        return allreduce_hook(state, bucket)',
           '        return dist.all_reduce(flat, async_op=True).get_future().then(lambda fut: fut.value()[0] / world_size)'),
          (SLICE, "x, y = x.tensor_split(world_size)[rank].to(device), y.tensor_split(world_size)[rank].to(device)")),
    right('05.fsdp', "the mean loss from every rank's float, gathered as objects", 'ex-3',
          ('        total_loss = loss.detach().clone()\n        dist.all_reduce(total_loss)\n'
           '        losses.append(total_loss.item() / world_size)',
           '        everyone = [None] * world_size\n        dist.all_gather_object(everyone, loss.item())\n'
           '        losses.append(sum(everyone) / world_size)')),
    right('05.tp', 'the plan with wildcards for every block', 'ex-4',
          ('    plan = {}\n    for i in range(len(model.blocks)):\n        plan[f"blocks.{i}.fc1"] = ColwiseParallel()\n'
           '        plan[f"blocks.{i}.fc2"] = RowwiseParallel()\n',
           '    plan = {"blocks.*.fc1": ColwiseParallel(), "blocks.*.fc2": RowwiseParallel()}\n')),
    right('05.pp', 'the split from tensor_split, the bubble as 1 - m / (m + p - 1)', 'ex-5a',
          (SIZES, '    sizes = [len(c) for c in torch.arange(len(blocks)).tensor_split(n_stages)]'),
          ('return (p - 1) / (m + p - 1)', 'return 1 - m / (m + p - 1)')),
    right('05.calculator', 'the ring factor as 1 - 1/N, GB as 1_000_000_000', 'ex-6',
          ('ring = (N - 1) / N', 'ring = 1 - 1 / N'),
          ('"params_GB": P * param_bytes * share_p / 1e9', '"params_GB": P * param_bytes * share_p / 1_000_000_000')),

    # new: correct answers written another way
    right('05.collectives', 'the ring as an isend, a blocking recv, then a wait on the send', 'ex-1',
          ('    ring = [dist.P2POp(dist.isend, outgoing, (rank + 1) % world_size),\n'
           '            dist.P2POp(dist.irecv, incoming, (rank - 1) % world_size)]\n'
           '    for work in dist.batch_isend_irecv(ring):\n        work.wait()\n',
           '    pending = dist.isend(outgoing, (rank + 1) % world_size)\n'
           '    dist.recv(incoming, (rank - 1) % world_size)\n    pending.wait()\n')),
    right('05.collectives', 'the all-reduce from ones, the buffers from new_zeros and new_empty', 'ex-1',
          ('summed = torch.full((n,), float(rank + 1), device=device)', 'summed = torch.ones(n, device=device) * (rank + 1)'),
          ('gathered = torch.empty(n * world_size, device=device)', 'gathered = mine.new_zeros(n * world_size)'),
          ('my_slice = torch.empty(n, device=device)', 'my_slice = whole.new_empty(n)')),
    right('05.ddp', 'bytes from nbytes, the default group as the hook state, ddp.zero_grad, grads read from ddp.module', 'ex-2',
          ('seen.append((flat.numel() * flat.element_size(), time.perf_counter()))', 'seen.append((flat.nbytes, time.perf_counter()))'),
          ('ddp.register_comm_hook(None, counting_hook)', 'ddp.register_comm_hook(dist.group.WORLD, counting_hook)'),
          ('        model.zero_grad()\n', '        ddp.zero_grad(set_to_none=True)\n'),
          ('{name: p.grad for name, p in model.named_parameters()}', '{name: p.grad for name, p in ddp.module.named_parameters()}')),
    right('05.ddp', "a bucket's bytes summed over its gradients, the clock read first", 'ex-2',
          ('        flat = bucket.buffer()\n        seen.append((flat.numel() * flat.element_size(), time.perf_counter()))\n',
           '        now = time.perf_counter()\n        size = sum(g.numel() * g.element_size() for g in bucket.gradients())\n'
           '        seen.append((size, now))\n')),
    right('05.fsdp', 'total counted after sharding (a DTensor counts the whole), an explicit mesh, the blocks by index', 'ex-3',
          ('    total = sum(p.numel() for p in model.parameters())\n    for block in model.blocks:\n        fully_shard(block)\n'
           '    fully_shard(model)\n',
           '    from torch.distributed.device_mesh import init_device_mesh\n\n'
           '    mesh = init_device_mesh(device.type, (world_size,))\n'
           '    for i in range(len(model.blocks)):\n        fully_shard(model.blocks[i], mesh=mesh)\n'
           '    fully_shard(model, mesh=mesh)\n    total = sum(p.numel() for p in model.parameters())\n')),
    right('05.fsdp', "gradients zeroed at the start of each step, the mean loss from an all-gather of the ranks' losses", 'ex-3',
          ('    for _ in range(cfg["steps"]):\n        with CommCounter() as comm:',
           '    for _ in range(cfg["steps"]):\n        opt.zero_grad(set_to_none=True)\n        with CommCounter() as comm:'),
          ('        opt.step()\n        opt.zero_grad()\n', '        opt.step()\n'),
          ('        total_loss = loss.detach().clone()\n        dist.all_reduce(total_loss)\n'
           '        losses.append(total_loss.item() / world_size)',
           '        everyone = torch.zeros(world_size, device=device)\n'
           '        dist.all_gather_into_tensor(everyone, loss.detach().reshape(1))\n'
           '        losses.append(everyone.mean().item())')),
    right('05.tp', 'each block parallelized on its own with a plan of its two linears, the output detached', 'ex-4',
          ('    plan = {}\n    for i in range(len(model.blocks)):\n        plan[f"blocks.{i}.fc1"] = ColwiseParallel()\n'
           '        plan[f"blocks.{i}.fc2"] = RowwiseParallel()\n    parallelize_module(model, mesh, plan)\n',
           '    for block in model.blocks:\n        parallelize_module(block, mesh, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})\n'),
          ('return {"out": out,', 'return {"out": out.detach(),')),
    right('05.pp', 'split_stages with divmod and insert, the bubble as idle / (idle + m), the last stage stepped first', 'ex-5a',
          ('    blocks = list(model.blocks)\n' + SIZES + '\n    stages, start = [], 0\n'
           '    for s, size in enumerate(sizes):\n'
           '        layers = ([model.inp] if s == 0 else []) + blocks[start:start + size] + ([model.head] if s == n_stages - 1 else [])\n'
           '        stages.append(nn.Sequential(*layers))\n        start += size\n',
           '    base, extra = divmod(len(model.blocks), n_stages)\n    stages, start = [], 0\n'
           '    for s in range(n_stages):\n        end = start + base + (1 if s < extra else 0)\n'
           '        mods = list(model.blocks[start:end])\n        if s == 0:\n            mods.insert(0, model.inp)\n'
           '        if s == n_stages - 1:\n            mods.append(model.head)\n'
           '        stages.append(nn.Sequential(*mods))\n        start = end\n'),
          ('return (p - 1) / (m + p - 1)', 'idle = p - 1\n    return idle / (idle + m)'),
          also=(Edit('ex-5b', (('                if rank == 0:\n                    schedule.step(x)\n'
                                '                elif rank == world_size - 1:\n                    out = schedule.step(target=y, losses=losses)\n',
                                '                if rank == world_size - 1:\n                    out = schedule.step(target=y, losses=losses)\n'
                                '                elif rank == 0:\n                    schedule.step(x)\n'),)),)),
    right('05.calculator', "a helper per figure, GB as 10**9, DDP's all-reduce as a reduce-scatter plus an all-gather", 'ex-6',
          source=CALCULATOR_OTHER_WAY),
    right('05.ddp', "the loss reported as the mean over the ranks (all-reduced, divided by world_size): the whole batch's", 'ex-2',
          ('    return {"grads": {name: p.grad for name, p in model.named_parameters()}, "loss": loss.item(),',
           '    mean = loss.detach().clone()\n    dist.all_reduce(mean)\n'
           '    return {"grads": {name: p.grad for name, p in model.named_parameters()}, "loss": mean.item() / world_size,')),
    right('05.tp', 'the loss as a float from float(loss), the output as a plain tensor', 'ex-4',
          ('return {"out": out, "loss": loss.item(),', 'return {"out": out.detach().clone(), "loss": float(loss),')),
    right(('05.survey', '05.survey_ddp', '05.survey_fsdp', '05.survey_tp', '05.survey_pp'),
          'the patterns as numbered ### headings under a ## heading, MiniGPT in scientific notation', 'ex-7',
          ('## DDP: distributed data parallel', '## The four patterns\n\n### 1. DDP (distributed data parallel)'),
          ('## FSDP: fully sharded data parallel', '### 2. FSDP (fully sharded data parallel)'),
          ('## Tensor parallel', '### 3. Tensor parallelism'),
          ('## Pipeline parallel', '### 4. Pipeline parallelism'),
          ('MiniGPT has about 181 thousand parameters,', 'MiniGPT has ≈1.8e5 trainable parameters,')),
]


# ---------------------------------------------------------------- the launches, grouped
LAUNCHED = {"05.collectives": ("collectives", "ex-1"), "05.ddp": ("ddp_worker", "ex-2"), "05.fsdp": ("fsdp_worker", "ex-3"),
            "05.tp": ("tp_worker", "ex-4"), "05.pp": ("pp_worker", "ex-5b")}
RUNNER = '''
def run_answers(rank, world_size, device, answers):
    """Each answer's script in a namespace of its own, its entry called as a launch would; a barrier after each."""
    import torch.distributed as dist
    from helpers import models

    out = []
    for script, entry, kwargs in answers:
        ns = {"__name__": "answer"}
        exec(compile(script, entry, "exec"), ns)
        models._STEPS.clear()                  # the fixed-cost log of a fresh process
        try:
            out.append({"result": ns[entry](rank, world_size, device, **kwargs), "busy": models.busy_log()})
        except Exception as err:               # what a launch reports: the last line of the rank's traceback
            import traceback

            out.append({"raised": "".join(traceback.format_exception_only(type(err), err)).rstrip().splitlines()[-1][:300]})
        dist.barrier()
    return out
'''
GROUP_TIMEOUT = 300   # seconds for one group's collectives (and, plus 30, for the whole group)
# Answers that raise on some ranks only (the others then wait in a collective, and the group's ranks fall out of
# step): each gets launches of its own, as the grader gives it.
ALONE = {"ScheduleGPipe without loss_fn: no loss, so no backward", "the batch cut for the notebook's 2 ranks: x.chunk(2)",
         "the device mesh of the notebook's 2 ranks"}


def script_of(fn, name: str) -> str | None:
    """The text of the script the check launches for the learner's `name` (None when it cannot be written)."""
    from helpers.dist import ScriptError, write_script

    entry, needs = lab05.checked_entry(fn, name)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            return write_script(entry, Path(tmp) / "script.py", needs).read_text()
        except ScriptError:
            return None


def run_cases(cases) -> list:
    """The RunCases a launched check's cases launch on this test run's device (an on_gpus case only where its ranks
    get a GPU each)."""
    from tests.in_process_grader import TEST_DEVICE

    found = [cases.run] if isinstance(cases, lab05.PipelineCase) else list(cases)
    return [c for c in found if not c.on_gpus or lab05.launch_device(TEST_DEVICE, c.nproc) == "cuda"]


class Prelaunched:
    """lab05.launch_result for the corpus: the launches of every launched answer, run ahead in one torchrun per
    number of ranks; a launch it has no result for (or that comes from outside the corpus) is a real one."""

    def __init__(self, real):
        self.real = real
        self.ready: dict[tuple, dict] = {}
        self.prepared = False

    def __call__(self, fn, name: str, case, device: str) -> dict:
        if not from_the_corpus():
            return self.real(fn, name, case, device)
        key = (script_of(fn, name), repr(case), device)
        if not self.prepared:
            self.prepared = True
            self.prepare(device)
        found = self.ready.get(key)
        return copy.deepcopy(found) if found is not None else self.real(fn, name, case, device)

    def prepare(self, device: str) -> None:
        """Build every launched answer's namespace, then launch all their cases, grouped by number of ranks."""
        from tests.in_process_grader import hidden_lab
        from tests.wrong_answers import Workbench

        saved = {k: v for k, v in linecache.cache.items() if k.startswith("<cell ")}
        bench = Workbench("05")
        h, refs = hidden_lab("05")
        groups: dict[int, dict[tuple, tuple]] = {}
        try:
            for item in [*WRONG, *RIGHT]:
                if item.why in ALONE:
                    continue
                names = (item.check,) if hasattr(item, "check") else item.checks
                for check in names:
                    cells = {e.cell for e in item.edits}
                    if check not in LAUNCHED or not (LAUNCHED[check][1] in cells or   # a right split_stages: launched
                                                     check == "05.pp" and "ex-5a" in cells and not hasattr(item, "check")):
                        continue
                    fname = LAUNCHED[check][0]
                    ns = bench.namespace(item.edits, item.fresh)
                    script = script_of(ns[fname], fname)
                    if script is None:
                        continue
                    entry, _ = lab05.checked_entry(ns[fname], fname)
                    for case in run_cases(checks.spec(check).public_cases()) + run_cases(h.cases_for(check, refs)):
                        groups.setdefault(case.nproc, {})[(script, repr(case), device)] = (script, entry, case.kwargs)
        finally:
            linecache.cache.update(saved)
        for nproc, answers in groups.items():
            self.launch_group(nproc, device, answers)

    def launch_group(self, nproc: int, device: str, answers: dict) -> None:
        """One torchrun for every answer of `answers` ({key: (script, entry, kwargs)}) on `nproc` ranks."""
        from helpers.dist import DistributedError, launch

        try:
            run = launch("run_answers", needs=[RUNNER], nproc=nproc, device=device, timeout=GROUP_TIMEOUT,
                         answers=list(answers.values()))
        except DistributedError as err:
            warnings.warn(f"the grouped launch on {nproc} ranks failed; each answer gets its own launch: {err}")
            return
        for i, key in enumerate(answers):
            ranks = [r[i] for r in run.results]
            if all("result" in r for r in ranks):
                self.ready[key] = lab05.rank_outputs([r["result"] for r in ranks], [r["busy"] for r in ranks], run.backend)
            elif all("raised" in r for r in ranks):   # failed on every rank: the error its own launch would report
                others = ", ".join(map(str, range(1, nproc)))
                self.ready[key] = {"error": (f"rank 0 of {nproc} raised {ranks[0]['raised']}"
                                             + (f" (then rank{'s' if nproc > 2 else ''} {others} failed too)" if nproc > 1 else ""))[:400]}


def from_the_corpus() -> bool:
    """Whether the check runs for this corpus (tests.wrong_answers' judge or Workbench), not for another test."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__") == "tests.wrong_answers":
            return True
        frame = frame.f_back
    return False


lab05.launch_result = Prelaunched(lab05.launch_result)
