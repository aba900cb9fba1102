"""Decode against the bandwidth roof: TPOT of each backend, its GB/s, and its share of the measured copy bandwidth.

    python benchmarks/llm_decode.py --model 1b --backend eager compiled int8-compiled
    python benchmarks/llm_decode.py --model tiny --device cpu --tokens 32      # what CI's machine can do
    python benchmarks/llm_decode.py --model 1b --fused --batch 8 --backend compiled int8-triton
    python benchmarks/llm_decode.py --model 1b --fused --flash-decode --backend compiled --compare greedy-in-graph \
        --rounds 2 --keep 07.decode_changes       # then: python tools/record_gpu_figures.py --kept experiments/figures.json

For each backend: load, warm up (compiling and CUDA-graph recording happen there), then `--repeats` greedy
generations of `--tokens` tokens after a short prompt; TPOT is each run's mean gap between tokens (median and
spread over runs). A decode step must read every weight but the embedding lookups, and the KV cache; the script
counts the cache as the kernel reads it: the static cache's whole length (the attention mask hides the unused part,
but SDPA still reads it), and as the context (what a dynamic cache, or --flash-decode's kernel, reads), and divides
by the measured copy bandwidth (a `copy_` of a large tensor: 2 × its bytes, fastest sample). Figures are printed
with the device and versions, and written as JSON with `--out`. `--compare CHANGE` times each backend without and
with one of the switches (--fused, --flash-decode, --greedy-in-graph), alternated `--rounds` times in this one
command, and prints what the change bought (the median of each side's p50s); `--keep KEY` keeps the rows (or the
change's rows) as a figure (helpers.figures, in WORKBOOK_OUT_DIR/figures.json) for tools/record_gpu_figures.py. Lab 07's targets (H100, 1b, bf16, batch 1): compiled ≥ 80% of the copy
bandwidth, compiled ≥ 3× eager, int8-compiled ≥ 1.5× compiled.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers import bench, figures  # noqa: E402
from helpers.env import device_label, pick_device, versions  # noqa: E402
from helpers.llm_bench import GenerationConfig, make_backend  # noqa: E402
from helpers.llm_bench.base import resolve_dtype  # noqa: E402


def decode_row(name: str, args, device: torch.device, copy_bw: float) -> dict:
    mode = None if name in ("eager", "int8") else args.compile_mode
    backend = make_backend(name, args.model, device=device, dtype=args.dtype, compile_mode=args.compile_mode,
                           fused=args.fused, flash_decode=args.flash_decode,
                           greedy_in_graph=args.greedy_in_graph).load()
    # one prompt, or `--batch` prompts of the same length (different ids, so no two rows decode alike)
    prompt = (list(range(1, args.prompt + 1)) if args.batch == 1 else
              [[(row * 7 + j) % 90 + 1 for j in range(args.prompt)] for row in range(args.batch)])
    config = GenerationConfig(max_new_tokens=args.tokens)
    for _ in range(args.warmup):
        backend.collect(prompt, config)
    runs = [backend.collect(prompt, config) for _ in range(args.repeats)]
    tpots = sorted(r.tpot_s for r in runs)
    info = backend.info()
    weights, cache = info["decode_weight_bytes"], info["cache_bytes"]
    per_token_cache = cache / backend.cache.max_tokens
    tpot = statistics.median(tpots)
    read_static = weights + cache                                             # what SDPA over the static cache reads
    read_context = weights + per_token_cache * (args.prompt + args.tokens / 2 + 1)   # mid-run context
    row = {"backend": backend.name, "compile_mode": mode, "tpot_ms_p50": tpot * 1e3,
           "tpot_ms_min": tpots[0] * 1e3, "tpot_ms_max": tpots[-1] * 1e3, "tokens_per_s": args.batch / tpot,
           "decode_weight_bytes": weights, "cache_bytes": cache,
           "gbps_static": read_static / tpot / 1e9, "gbps_context": read_context / tpot / 1e9,
           "utilisation_static": read_static / tpot / copy_bw, "utilisation_context": read_context / tpot / copy_bw,
           "decode_compiles": info.get("decode_compiles"), "batch": args.batch}
    backend.cleanup()
    return row


CHANGES = {"fused": "one matmul for q/k/v and one for gate/up",
           "flash_decode": "attention over the filled part of the cache only",
           "greedy_in_graph": "the greedy pick and the position's increment inside the compiled step"}


def change_row(change: str, model: str, off: list[dict], on: list[dict]) -> dict:
    """What one switch bought a backend: the median of the p50 TPOTs (ms) and % of copy bandwidth without and with it."""
    median = lambda rows, key: statistics.median(r[key] for r in rows)
    return {"model": model, "backend": off[0]["backend"], "change": CHANGES[change], "runs": min(len(off), len(on)),
            "off_ms": median(off, "tpot_ms_p50"), "on_ms": median(on, "tpot_ms_p50"),
            "off_percent": 100 * median(off, "utilisation_static"), "on_percent": 100 * median(on, "utilisation_static"),
            "speedup": median(off, "tpot_ms_p50") / median(on, "tpot_ms_p50")}


def compare_change(args, device: torch.device, copy_bw: float) -> list[dict]:
    """Each backend without and with args.compare's switch, alternated args.rounds times; one change_row each."""
    flag = args.compare.replace("-", "_")
    out = []
    for name in args.backend:
        sides = {False: [], True: []}
        for _ in range(args.rounds):
            for on in (False, True):
                row = decode_row(name, argparse.Namespace(**{**vars(args), flag: on}), device, copy_bw)
                sides[on].append(row)
                print(f"  {row['backend']:<60} TPOT {row['tpot_ms_p50']:7.3f} ms", flush=True)
        out.append(change_row(flag, args.model, sides[False], sides[True]))
        r = out[-1]
        print(f"{name}: {r['change']}: {r['off_ms']:.3f} → {r['on_ms']:.3f} ms ({r['speedup']:.3f}×), "
              f"{r['off_percent']:.1f} → {r['on_percent']:.1f} % of copy (median of {r['runs']} alternated runs a side)",
              flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="1b", help="tiny, small or 1b (helpers.llama.CONFIGS)")
    parser.add_argument("--backend", nargs="+", default=["eager", "compiled", "int8-compiled"])
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--compile-mode", default="auto", help="auto: reduce-overhead on CUDA, default on CPU")
    parser.add_argument("--coordinate-descent", action="store_true",
                        help="torch._inductor.config.coordinate_descent_tuning = True (gpt-fast sets it)")
    parser.add_argument("--fused", action="store_true",
                        help="q/k/v and gate/up as one matmul each (helpers.llama.fuse_projections)")
    parser.add_argument("--flash-decode", action="store_true",
                        help="decode attention over the filled cache only, a Triton kernel (helpers.llm_bench.flash_decode)")
    parser.add_argument("--greedy-in-graph", action="store_true",
                        help="the compiled step picks the greedy token and moves the position itself (no kernel "
                             "outside the CUDA graph but the ids' copy to the host)")
    parser.add_argument("--prompt", type=int, default=16)
    parser.add_argument("--batch", type=int, default=1, help="sequences decoded together (each step reads the weights once)")
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--compare", choices=["fused", "flash-decode", "greedy-in-graph"],
                        help="time each backend without and with this switch, alternated --rounds times")
    parser.add_argument("--rounds", type=int, default=2, help="with --compare: runs a side")
    parser.add_argument("--keep", metavar="KEY", help="keep the rows as a figure (helpers.figures) under this key")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.compare == "greedy-in-graph" and (eager := [b for b in args.backend if b in ("eager", "int8")]):
        parser.error(f"--compare greedy-in-graph changes the compiled step; {', '.join(eager)} compiles nothing, "
                     "so both sides would run the same code: leave it out")
    device = pick_device(args.device)
    args.dtype = resolve_dtype(args.dtype, device)
    if args.compile_mode == "auto":
        args.compile_mode = "reduce-overhead" if device.type == "cuda" else "default"
    if args.coordinate_descent:
        import torch._inductor.config as inductor_config

        inductor_config.coordinate_descent_tuning = True
    copy_bw = bench.copy_bandwidth(device, args.dtype)
    v = versions(device)
    print(f"{device_label(device)} · {args.model} in {args.dtype} · "
          f"batch {args.batch}, prompt {args.prompt}, {args.tokens} tokens × {args.repeats} runs · copy bandwidth "
          f"{copy_bw / 1e9:.0f} GB/s" + (" · coordinate descent" if args.coordinate_descent else "")
          + (" · fused projections" if args.fused else "") + (" · flash-decode attention" if args.flash_decode else "")
          + (" · greedy token picked in the graph" if args.greedy_in_graph else ""))
    if args.compare:
        rows = compare_change(args, device, copy_bw)
        if args.keep:
            figures.keep(args.keep, rows, device)
        if args.out:
            args.out.write_text(json.dumps({"device": device_label(device), "versions": v, "rows": rows}, indent=1))
        return 0
    rows = []
    for name in args.backend:
        row = decode_row(name, args, device, copy_bw)
        rows.append(row)
        print(f"{row['backend']:<34} TPOT {row['tpot_ms_p50']:7.3f} ms (min {row['tpot_ms_min']:.3f}, max "
              f"{row['tpot_ms_max']:.3f})  {row['tokens_per_s']:8.1f} tok/s  {row['gbps_static']:7.1f} GB/s = "
              f"{row['utilisation_static']:5.1%} of copy (context only: {row['utilisation_context']:5.1%})", flush=True)
    by = {r["backend"].split(" ")[0]: r for r in rows}
    eager, compiled = by.get("eager"), next((r for r in rows if r["backend"].startswith("compiled")), None)
    int8 = next((r for r in rows if r["backend"].startswith("int8-compiled")), None)
    if eager and compiled:
        print(f"compiled / eager: {eager['tpot_ms_p50'] / compiled['tpot_ms_p50']:.2f}× (target ≥ 3×)")
    if compiled and int8:
        print(f"int8-compiled / compiled: {compiled['tpot_ms_p50'] / int8['tpot_ms_p50']:.2f}× (target ≥ 1.5×)")
    triton8 = next((r for r in rows if r["backend"].startswith("int8-triton")), None)
    if compiled and triton8:
        print(f"int8-triton / compiled: {compiled['tpot_ms_p50'] / triton8['tpot_ms_p50']:.2f}× at batch {args.batch} "
              f"(targets: ≥ 1.6× at batch 1, ≥ 1× at batch 8)")
    if args.keep:
        figures.keep(args.keep, [{"model": args.model, **r} for r in rows], device)
    if args.out:
        args.out.write_text(json.dumps({"device": device_label(device), "versions": v, "model": args.model,
                                        "dtype": str(args.dtype), "copy_gbps": copy_bw / 1e9,
                                        "batch": args.batch, "coordinate_descent": args.coordinate_descent,
                                        "fused": args.fused, "flash_decode": args.flash_decode,
                                        "greedy_in_graph": args.greedy_in_graph, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
