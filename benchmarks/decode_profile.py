"""Where a decode step's time goes: the kernels of one compiled step, grouped, against the step's wall time.

    python benchmarks/decode_profile.py --model 1b --backend compiled int8-triton [--fused] [--flash-decode]

For each backend: load it, record its decode step (torch.compile, reduce-overhead: one CUDA graph), replay it, and
profile `--steps` replays with torch.profiler. Prints per step: the wall time (CUDA events around the replays), the
kernel count, the GPU's busy time (kernels' summed durations) and the idle time between them, and the kernels grouped
as matmul (cuBLAS, the int8 kernels), attention, and the rest (norms, RoPE, residuals, cache writes, sampling),
then the slowest kernel names. Needs a CUDA GPU.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers.env import device_label, versions  # noqa: E402
from helpers.llm_bench import make_backend  # noqa: E402
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


def profile_backend(name: str, args) -> None:
    backend = make_backend(name, args.model, device="cuda", dtype="bf16", compile_mode="reduce-overhead",
                           fused=args.fused, flash_decode=args.flash_decode).load()
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
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
               and not e.name.startswith(("Memcpy", "Memset", "triton::"))]
    per = args.steps
    busy = sum(e.device_time for e in kernels) / per
    by_kind, by_name = defaultdict(float), defaultdict(lambda: [0, 0.0])
    for e in kernels:
        by_kind[kind(e.name)] += e.device_time / per
        by_name[e.name][0] += 1
        by_name[e.name][1] += e.device_time / per
    print(f"\n{backend.name} ({args.model}, context {args.context}): wall {wall_us:.0f} µs per step; "
          f"{len(kernels) / per:.0f} kernels, busy {busy:.0f} µs, between kernels {wall_us - busy:.0f} µs")
    print("  " + ", ".join(f"{k} {v:.0f} µs" for k, v in sorted(by_kind.items(), key=lambda kv: -kv[1])))
    for kname, (count, us) in sorted(by_name.items(), key=lambda kv: -kv[1][1])[:args.top]:
        print(f"  {us:8.1f} µs  {count / per:5.0f}×  [{kind(kname)}] {kname[:110]}")
    backend.cleanup()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="1b")
    p.add_argument("--backend", nargs="+", default=["compiled", "int8-triton"])
    p.add_argument("--fused", action="store_true")
    p.add_argument("--flash-decode", action="store_true", help="decode attention over the filled cache only (Triton)")
    p.add_argument("--context", type=int, default=128)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--top", type=int, default=15)
    args = p.parse_args(argv)
    if not torch.cuda.is_available():
        print("decode_profile.py profiles CUDA kernels; no CUDA GPU is usable here.", file=sys.stderr)
        return 2
    dev = torch.device("cuda")
    print(f"{device_label(dev)} · {versions(dev)}")
    for name in args.backend:
        profile_backend(name, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
