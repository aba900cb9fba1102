"""`python -m helpers.llm_bench`: benchmark backends on workloads, print a table and the verdicts, write JSON.

The backends run in interleaved rounds (helpers.llm_bench.runner), so the verdicts between them ("faster",
"slower", "no difference this machine can resolve") compare generations run at the same moments; the CLI warns
when other programs kept the cores busy meanwhile. On a CPU, torch runs on one thread (bench.thread_policy).
main(argv) returns an exit code, so `workbook llm-bench` can call it with its own arguments.
"""

from __future__ import annotations

import argparse
import sys

from helpers import bench
from helpers.llama import CONFIGS, param_count
from helpers.llm_bench.backends import BACKENDS, COMPILE_MODES, DTYPES
from helpers.llm_bench.runner import WORKLOADS

EXAMPLE = ("example: python -m helpers.llm_bench --model tiny --backend eager compiled int8 "
           "--workload short-chat --device auto --repeats 9 --out results.json")


def build_parser(prog: str = "python -m helpers.llm_bench") -> argparse.ArgumentParser:
    """The command line's options, with an example in the help."""
    p = argparse.ArgumentParser(prog=prog, description="Benchmark LLM inference backends: TTFT, TPOT, tokens/s, "
                                "peak memory. Random weights, byte tokenizer: nothing is downloaded.", epilog=EXAMPLE)
    p.add_argument("--model", default="tiny", choices=[n for n in CONFIGS if n != "7b"],
                   help="model size from helpers.llama.CONFIGS (default: tiny)")
    p.add_argument("--backend", nargs="+", default=["eager"], choices=BACKENDS, help="one or more backends")
    p.add_argument("--workload", nargs="+", default=["short-chat"], choices=list(WORKLOADS), help="one or more presets")
    p.add_argument("--device", default="auto", help='"auto" (CUDA when usable), "cpu" or "cuda"')
    p.add_argument("--dtype", default="auto", choices=["auto", *DTYPES], help="auto: bfloat16 on CUDA, float32 on CPU")
    p.add_argument("--compile-mode", default="auto", choices=["auto", *COMPILE_MODES],
                   help="for compiled backends; auto: reduce-overhead on CUDA, default on CPU")
    p.add_argument("--quick", action=argparse.BooleanOptionalAction, default=None,
                   help="QUICK workload sizes (default: on for CPU, off for CUDA)")
    p.add_argument("--warmup", type=int, default=1, help="untimed generations per workload (default: 1)")
    p.add_argument("--repeats", type=int, default=bench.MIN_ROUNDS,
                   help="timed rounds per workload, each one generation of every backend in random order (default: "
                        f"{bench.MIN_ROUNDS}, the fewest whose 95%% interval leaves out the extreme round at either end)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="llm_bench_results.json", help="where to write the JSON results")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: list[str] | None = None, prog: str = "python -m helpers.llm_bench") -> int:
    """Run the benchmark the arguments describe; 0 on success, 2 on a usage or set-up error."""
    try:
        args = build_parser(prog).parse_args(argv)
    except SystemExit as stop:   # --help, or a usage error argparse has already explained
        return int(stop.code or 0)
    from tqdm import tqdm

    from helpers import bench
    from helpers.env import device_label, pick_device
    from helpers.llm_bench.runner import run_benchmark, workload

    if args.repeats < 1 or args.warmup < 0:
        print("error: --repeats must be at least 1 and --warmup at least 0", file=sys.stderr)
        return 2
    try:
        device = pick_device(args.device)
    except (RuntimeError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(bench.thread_policy(device))
    quick = device.type != "cuda" if args.quick is None else args.quick
    shapes = [workload(w, quick) for w in args.workload]
    print(f"{args.model} ({param_count(CONFIGS[args.model]) / 1e6:.1f}M parameters, random weights) on "
          f"{device_label(device)}; {'QUICK' if quick else 'full'} sizes: "
          + ", ".join(f"{w.name} {w.shape}" for w in shapes), flush=True)
    runs = len(args.backend) * len(shapes) * (args.warmup + args.repeats + 1)
    with tqdm(total=runs, desc="generations", unit="gen", disable=args.no_progress, file=sys.stderr) as bar:
        try:
            results = run_benchmark(args.backend, shapes, model=args.model, device=device, dtype=args.dtype,
                                    warmup=args.warmup, repeats=args.repeats, seed=args.seed, quick=quick,
                                    compile_mode=args.compile_mode, progress=bar.update)
        except (ImportError, ValueError) as e:  # an optional backend's package is missing, two backends of one name
            print(f"error: {e}", file=sys.stderr)
            return 2
    print(results.table())
    if len(args.backend) > 1:
        print(results.verdicts())
    if warning := results.load_warning():
        print(warning)
    memory = results.results[0].memory if results.results else None
    if memory:
        print(f"peak_mem: {memory['note']}")
    print("ttft: first token's time on the host; tpot: mean gap after it; naive_ttft: e2e / tokens (for comparison)")
    print(f"wrote {results.to_json(args.out)}")
    return 0
