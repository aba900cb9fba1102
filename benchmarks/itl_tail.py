"""Where eager decode's ITL tail comes from: the slowest gaps of each run and where they fall, GC on and off.

    python benchmarks/itl_tail.py --model 1b            # a GPU (bf16)
    python benchmarks/itl_tail.py --model tiny          # a CPU (float32; another process's load shows as stalls)

Prints TPOT, the ITL percentiles and p99 ÷ TPOT, then for three runs the positions and lengths of the six slowest
gaps: stalls at the same positions in every run point at the model (a cache that grows, a reallocation); bursts at
random places, with Python's garbage collector on or off, point at the host. On a GPU, the caching allocator's
retries are printed too. A figure to read, not a test.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers.env import device_label, pick_device  # noqa: E402
from helpers.llm_bench import GenerationConfig, make_backend  # noqa: E402


def show(label: str, runs) -> None:
    gaps = [g for r in runs for g in r.itl_s]
    q = statistics.quantiles(gaps, n=100, method="inclusive")   # as numpy.percentile's default
    tpot = statistics.mean(r.tpot_s for r in runs)
    print(f"{label}: TPOT {tpot * 1e3:.2f} ms, ITL p50 {q[49] * 1e3:.2f}, p90 {q[89] * 1e3:.2f}, p99 {q[98] * 1e3:.2f}, "
          f"max {max(gaps) * 1e3:.2f} ms; p99 / TPOT {q[98] / tpot:.2f}")
    for i, r in enumerate(runs[:3]):
        slow = sorted(sorted(range(len(r.itl_s)), key=lambda k: -r.itl_s[k])[:6])
        print(f"   run {i}: slowest gaps at tokens {slow}: {[round(r.itl_s[k] * 1e3, 2) for k in slow]} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="1b", help="tiny, small or 1b (helpers.llama.CONFIGS)")
    parser.add_argument("--backend", default="eager")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    device = pick_device(args.device)
    backend = make_backend(args.backend, args.model, device=device,
                           dtype="bfloat16" if device.type == "cuda" else "float32").load()
    config, prompt = GenerationConfig(max_new_tokens=args.tokens), list(range(1, 17))
    for _ in range(2):
        backend.collect(prompt, config)
    print(f"{args.backend}, {args.model}, {args.repeats} × {args.tokens} tokens; {device_label(device)}")
    show("GC on", [backend.collect(prompt, config) for _ in range(args.repeats)])
    gc.collect()
    gc.disable()
    try:
        show("GC off", [backend.collect(prompt, config) for _ in range(args.repeats)])
    finally:
        gc.enable()
    if device.type == "cuda":
        print("caching allocator retries:", torch.cuda.memory_stats().get("num_alloc_retries"))
    backend.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
