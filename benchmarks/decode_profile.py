"""Where a decode step's time goes: the kernels of one compiled step, grouped, against the step's wall time.

    python benchmarks/decode_profile.py --model 1b --backend compiled int8-triton [--fused] [--flash-decode]
    python benchmarks/decode_profile.py --model 1b --backend compiled --fused --flash-decode --loop 64 [--greedy-in-graph]

For each backend: load it, record its decode step (torch.compile, reduce-overhead: one CUDA graph), replay it, and
profile `--steps` replays with torch.profiler. Prints per step: the wall time (CUDA events around the replays), the
kernel count, the GPU's busy time (kernels' summed durations) and the idle time between them, and the kernels grouped
as matmul (cuBLAS, the int8 kernels), attention, and the rest (norms, RoPE, residuals, cache writes, sampling),
then the slowest kernel names. With `--loop N`, the same for a whole greedy generation of N tokens as
`backend.collect` runs it (the token loop: sampling, the ids' copy to the host, the position's increment, the CUDA
graph's input copies), per token against the generation's TPOT, with the longest idle gaps between kernels and the
kernels on each side of them: where a token's time goes beyond the step's replay. Needs a CUDA GPU.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers import figures  # noqa: E402
from helpers.env import device_label, versions  # noqa: E402
from helpers.llm_bench import GenerationConfig, make_backend  # noqa: E402
from helpers.profiling import quiet_profile  # noqa: E402

MATMUL = ("gemm", "gemv", "int8_linear", "int8_gemv", "cutlass", "xmma", "nvjet", "splitk", "cublas", "mm_")
ATTENTION = ("flash", "attention", "fmha", "sdpa", "efficient")


def kind(name: str) -> str:
    low = name.lower()
    # Inductor's own kernels are named after the ops they fuse: one that prepares q for --flash-decode's kernel
    # (RoPE) carries `decode_attention` in its name, and is not attention
    if any(k in low for k in ATTENTION) and not low.startswith("triton_"):
        return "attention"
    if any(k in low for k in MATMUL):
        return "matmul"
    return "other"


def gpu_kernels(prof) -> list:
    """The profiler's GPU kernel events (copies, memsets and Triton's launcher entries left out), in start order."""
    return sorted((e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
                   and not e.name.startswith(("Memcpy", "Memset", "triton::"))), key=lambda e: e.time_range.start)


def print_kernels(kernels: list, per: int, top: int) -> dict[str, float]:
    """Kernel time per step (or token) by kind, then the `top` kernels by time; returns µs per step by kind."""
    by_kind, by_name = defaultdict(float), defaultdict(lambda: [0, 0.0])
    for e in kernels:
        by_kind[kind(e.name)] += e.device_time / per
        by_name[e.name][0] += 1
        by_name[e.name][1] += e.device_time / per
    print("  " + ", ".join(f"{k} {v:.0f} µs" for k, v in sorted(by_kind.items(), key=lambda kv: -kv[1])))
    for kname, (count, us) in sorted(by_name.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"  {us:8.1f} µs  {count / per:5.1f}×  [{kind(kname)}] {kname[:110]}")
    return dict(by_kind)


def profile_row(backend, args, what: str, time_us: float, kernels: list, per: int, by_kind: dict) -> dict:
    """One profile as a figure's row (µs per step or token): for `--keep`."""
    span = kernels[-1].time_range.end - kernels[0].time_range.start if what == "token loop" else time_us * per
    busy = sum(e.device_time for e in kernels)
    return {"model": args.model, "backend": backend.name, "what": what, "time_us": time_us,
            "kernels": round(len(kernels) / per, 1), "busy_us": busy / per, "idle_us": (span - busy) / per,
            **{f"{k}_us": by_kind.get(k, 0.0) for k in ("matmul", "attention", "other")}}


def profile_loop(backend, args) -> dict:
    """Profile the decode steps of one greedy generation of --loop tokens (from after the first token, so the
    prefill is left out): the GPU's busy and idle time per token against the TPOT of an unprofiled generation."""
    prompt, config = list(range(1, 17)), GenerationConfig(max_new_tokens=args.loop)
    for _ in range(3):
        tpot_us = backend.collect(prompt, config).tpot_s * 1e6
    stream = backend.generate(prompt, config)
    next(stream)                                   # the prefill and the first token
    torch.cuda.synchronize()
    with quiet_profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        start = time.perf_counter()
        tokens = sum(1 for _ in stream)
        torch.cuda.synchronize()
        profiled_us = (time.perf_counter() - start) / tokens * 1e6
    kernels = gpu_kernels(prof)
    span = kernels[-1].time_range.end - kernels[0].time_range.start
    busy = sum(e.device_time for e in kernels)
    gaps = sorted(((b.time_range.start - a.time_range.end, a.name, b.name) for a, b in zip(kernels, kernels[1:])),
                  reverse=True)
    print(f"\n{backend.name} ({args.model}), greedy, {tokens} decode steps: TPOT {tpot_us:.0f} µs unprofiled, "
          f"{profiled_us:.0f} µs a token while profiled; per token {len(kernels) / tokens:.1f} kernels, GPU busy "
          f"{busy / tokens:.0f} µs, idle between them {(span - busy) / tokens:.0f} µs")
    by_kind = print_kernels(kernels, tokens, args.top)
    print("  longest idle gaps (µs, the kernel before → the one after):")
    for gap, before, after in gaps[:args.gaps]:
        print(f"  {gap:8.1f}  {before[:60]} → {after[:60]}")
    return profile_row(backend, args, "token loop", tpot_us, kernels, tokens, by_kind)


def profile_backend(name: str, args) -> dict:
    backend = make_backend(name, args.model, device="cuda", dtype="bf16", compile_mode="reduce-overhead",
                           fused=args.fused, flash_decode=args.flash_decode,
                           greedy_in_graph=args.greedy_in_graph).load()
    if args.loop:
        row = profile_loop(backend, args)
        backend.cleanup()
        return row
    step = backend.decode_step_fn(context=args.context)
    for _ in range(5):
        step()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(50):
        step()
    end.record()
    torch.cuda.synchronize()
    wall_us = start.elapsed_time(end) / 50 * 1e3
    with quiet_profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        for _ in range(args.steps):
            step()
        torch.cuda.synchronize()
    kernels = gpu_kernels(prof)
    per = args.steps
    busy = sum(e.device_time for e in kernels) / per
    print(f"\n{backend.name} ({args.model}, context {args.context}): wall {wall_us:.0f} µs per step; "
          f"{len(kernels) / per:.0f} kernels, busy {busy:.0f} µs, between kernels {wall_us - busy:.0f} µs")
    by_kind = print_kernels(kernels, per, args.top)
    backend.cleanup()
    return profile_row(backend, args, "step", wall_us, kernels, per, by_kind)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="1b")
    p.add_argument("--backend", nargs="+", default=["compiled", "int8-triton"])
    p.add_argument("--fused", action="store_true")
    p.add_argument("--flash-decode", action="store_true", help="decode attention over the filled cache only (Triton)")
    p.add_argument("--greedy-in-graph", action="store_true",
                   help="the compiled step picks the greedy token and moves the position itself")
    p.add_argument("--loop", type=int, default=0, metavar="TOKENS",
                   help="profile a whole greedy generation of this many tokens instead of the step alone")
    p.add_argument("--gaps", type=int, default=8, help="with --loop: how many of the longest idle gaps to list")
    p.add_argument("--keep", metavar="KEY", help="keep each backend's profile as a figure (helpers.figures) under "
                   "this key, for tools/record_gpu_figures.py --kept")
    p.add_argument("--context", type=int, default=128)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--top", type=int, default=15)
    args = p.parse_args(argv)
    if not torch.cuda.is_available():
        print("decode_profile.py profiles CUDA kernels; no CUDA GPU is usable here.", file=sys.stderr)
        return 2
    dev = torch.device("cuda")
    print(f"{device_label(dev)} · {versions(dev)}")
    rows = [profile_backend(name, args) for name in args.backend]
    if args.keep:
        figures.keep(args.keep, rows, dev)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
