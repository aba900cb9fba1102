"""The int8 decode kernels against bf16 cuBLAS, per matmul shape of a model: time, GB/s, share of the copy bandwidth.

    python benchmarks/int8_kernel.py --model 1b --batch 1 8
    python benchmarks/int8_kernel.py --model 1b --batch 1 --sweep      # every config of both kernels, one by one

Each shape is timed as decode runs it: one weight per layer (`--layers`, default the model's), so the weights stream
from memory rather than from L2, called back to back inside one CUDA graph (bench.cuda_graphed); the time per call is
the replay's over the layers. Variants, in the same rounds (bench.compare_many): bf16 `F.linear` (cuBLAS), weight-only
int8 under torch.compile (Int8Linear's path: a fused multiply-and-sum for one row, cast + mm for more), and
helpers.llm_bench.int8_triton's `int8_linear` (autotuned; the GEMV kernel for one row, the tl.dot kernel for more).
GB/s counts the weights as stored (int8 + scales, or bf16) and x and the output once; the share is of the measured
copy bandwidth. `--sweep` times every config of `int8_linear_kernel` (tl.dot) and `int8_gemv_kernel` alone, to
choose the autotuner's lists. Needs a CUDA GPU.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers import bench  # noqa: E402
from helpers.env import device_label, versions  # noqa: E402
from helpers.llama import LlamaConfig  # noqa: E402
from helpers.llm_bench.quantize import Int8Linear  # noqa: E402


def shapes(config: LlamaConfig) -> dict[str, tuple[int, int]]:
    """(N, K) of every matmul of one decode step, and of the fused q/k/v and gate/up variants."""
    d, kv, f = config.dim, config.n_kv_heads * config.dim // config.n_heads, config.ffn_dim
    return {"q / o": (d, d), "k / v": (kv, d), "gate / up": (f, d), "down": (d, f), "qkv fused": (d + 2 * kv, d),
            "gate+up fused": (2 * f, d), "head": (config.vocab_size, d)}


def over_layers(fn, x, layers):
    """fn(x, layer) over every layer, back to back (what one decode step does per matmul kind)."""
    def run(*_):
        for layer in layers:
            fn(x, layer)
    return run


def sweep_fns(B, N, K):
    """{label: fn(x, layer)}: every config of int8_linear_kernel (tl.dot) and int8_gemv_kernel, launched as they are."""
    from helpers.llm_bench import int8_triton as it
    import triton

    def launcher(kernel, grid, meta):
        def launch(x, layer):
            q, s = layer.weight_int8, layer.scales
            out = torch.empty((B, N), device=x.device, dtype=x.dtype)
            kernel[grid](x, q, s, out, B, N, K, x.stride(0), x.stride(1), q.stride(0), q.stride(1), out.stride(0),
                         out.stride(1), **meta)
            return out
        return launch

    fns = {}
    if B > it.GEMV_ROWS:     # the tl.dot kernel serves these batches
        for bn in (16, 32, 64):
            for bk in (128, 256, 512):
                for st in (3, 4, 5):
                    fns[f"dot n{bn} k{bk} s{st}"] = launcher(
                        it.int8_linear_kernel, (triton.cdiv(N, bn), triton.cdiv(B, it.BLOCK_B)),
                        dict(BLOCK_B=it.BLOCK_B, BLOCK_N=bn, BLOCK_K=bk, DOT_IN_FP32=False, num_warps=4, num_stages=st))
        return fns
    for bn in (1, 2, 4, 8, 16):       # one row: the GEMV kernel, with and without software pipelining
        for bk in (256, 512, 1024, 2048):
            for w in (4, 8):
                for st in (1, 2, 3):
                    if 1024 <= bn * bk <= 8192:
                        fns[f"gemv n{bn} k{bk} w{w} s{st}"] = launcher(
                            it.int8_gemv_kernel, (triton.cdiv(N, bn), B),
                            dict(BLOCK_N=bn, BLOCK_K=bk, num_warps=w, num_stages=st))
    return fns


def make_variants(B, N, K, layers, dev, sweep):
    """x, {label: (fn(x, layer), its layers)} and each variant's largest error against its exact matmul."""
    from helpers.llm_bench.int8_triton import int8_linear

    torch.manual_seed(N + K)
    x = torch.randn(B, K, device=dev, dtype=torch.bfloat16)
    bf16 = [nn.Linear(K, N, bias=False, device=dev, dtype=torch.bfloat16) for _ in range(layers)]
    int8 = [Int8Linear.from_linear(lin) for lin in bf16]            # per-row scales, as the int8 backends quantize
    variants = {"bf16 F.linear": (lambda x, lin: F.linear(x, lin.weight), bf16),
                "int8 compiled": (torch.compile(lambda x, layer: layer(x)), int8),   # Int8Linear's own forward
                "int8-triton": (lambda x, layer: int8_linear(x, layer.weight_int8, layer.scales), int8)}
    if sweep:
        variants.update({k: (fn, int8) for k, fn in sweep_fns(B, N, K).items()})
    exact = {"bf16": F.linear(x.float(), bf16[0].weight.float()), "int8": F.linear(x.float(), int8[0].dequantized().float())}
    err = {k: (fn(x, ws[0]).float() - exact["bf16" if k.startswith("bf16") else "int8"]).abs().max().item()
           for k, (fn, ws) in variants.items()}
    return x, variants, err


def shape_rows(name, B, N, K, layers, copy_bw, seconds, sweep):
    dev = torch.device("cuda")
    x, variants, err = make_variants(B, N, K, layers, dev, sweep)
    graphed = {k: bench.cuda_graphed(over_layers(fn, x, ws), device=dev) for k, (fn, ws) in variants.items()}
    if sweep:   # too many for one set of rounds: each alone, then the best few against the baselines
        alone = {k: bench.measure(fn, device=dev, min_run_time=0.1).median_ms for k, fn in graphed.items()}
        best = sorted((k for k in alone if k[:3] in ("dot", "gem")), key=alone.get)[:4]
        for k in list(graphed):
            if k[:3] in ("dot", "gem") and k not in best:
                del graphed[k]
        print(f"  {name} B={B}: fastest alone: " + ", ".join(f"{k} {alone[k] / layers * 1e3:.1f} µs" for k in best))
    r = bench.compare_many(graphed, device=dev, min_run_time=seconds)
    rows = []
    for k in graphed:
        t = r.timing(k)
        per_call = t.median_ms / layers
        wbytes = N * K * 2 if k.startswith("bf16") else N * K + N * 2
        moved = wbytes + (B * K + B * N) * 2
        rows.append({"shape": name, "B": B, "N×K": f"{N}×{K}", "variant": k, "µs per call": per_call * 1e3,
                     "q25–q75 µs": f"{t.q25_ms / layers * 1e3:.1f}–{t.q75_ms / layers * 1e3:.1f}",
                     "GB/s": moved / (per_call * 1e-3) / 1e9, "% of copy": 100 * moved / (per_call * 1e-3) / copy_bw,
                     "vs bf16": r.timing("bf16 F.linear").median_ms / t.median_ms, "max err": err[k]})
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="1b", help="a helpers.llama config: 1b or 7b")
    p.add_argument("--batch", type=int, nargs="+", default=[1, 8])
    p.add_argument("--layers", type=int, help="weights per shape (default: the model's layers; 1 for the head)")
    p.add_argument("--only", nargs="+", help="shape names to time (default all)")
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--sweep", action="store_true")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    if not torch.cuda.is_available():
        print("int8_kernel.py times Triton kernels on a CUDA GPU; none is usable here.", file=sys.stderr)
        return 2
    config = LlamaConfig.named(args.model)
    dev = torch.device("cuda")
    copy_bw = bench.copy_bandwidth(dev)
    print(f"{device_label(dev)} · {versions(dev)} · {args.model} · copy bandwidth {copy_bw / 1e9:,.0f} GB/s", flush=True)
    rows = []
    for name, (n, k) in shapes(config).items():
        if args.only and name not in args.only:
            continue
        layers = 1 if name == "head" else (args.layers or config.n_layers)
        for b in args.batch:
            rows += shape_rows(name, b, n, k, layers, copy_bw, args.seconds, args.sweep)
            print(bench.table([r for r in rows if r["shape"] == name and r["B"] == b],
                              columns=("shape", "B", "N×K", "variant", "µs per call", "q25–q75 µs", "GB/s",
                                       "% of copy", "vs bf16", "max err")), flush=True)
    if args.out:
        args.out.write_text(json.dumps({"device": device_label(dev), "versions": versions(dev), "model": args.model,
                                        "copy_gbps": copy_bw / 1e9, "rows": rows}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
