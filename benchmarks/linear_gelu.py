"""gelu(x @ w.T + b) in fp16: eager, torch.compile, max-autotune and Lab 03's kernel, against the two roofs.

    python benchmarks/linear_gelu.py                       # Llama-3-8B's MLP shapes, decode (M=16) and prefill
    python benchmarks/linear_gelu.py --m 1 16 64 4096 --no-max-autotune
    python benchmarks/linear_gelu.py --m 16 --sweep      # every tile of the lab's kernel, kernels only, fastest first

The kernel is the one Lab 03's solution teaches: this script runs the solution notebook's setup and part 8
cells (`ex-8a`, `ex-8b`, `ex-8c`, `run-8c`, `run-8b`) and times their `linear_gelu_tuned`. Every shape's variants run
in the same rounds (helpers.bench.compare_many), twice: per call, as a program makes it, and kernels only, each
call recorded once into a CUDA graph and replayed (bench.cuda_graphed), so a launcher's host cost is told apart
from the GPU's work. For each row: the median and quartiles, GB/s (x, w, b and the output once), the share of
the weight-streaming floor (the time reading w alone takes at the measured copy bandwidth, over the median),
TFLOP/s, and the verdict against eager in words with its 95 % interval. `--sweep` times the lab's kernel with
every tile shape, warp count and pipeline depth that fits in shared memory (kernels only, each config against eager
in its own rounds), to see how far the autotuner's list is from the best tile this GPU has. Needs a CUDA GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from helpers import bench, figures, notebooks  # noqa: E402
from helpers.env import device_label, versions  # noqa: E402

CELLS = ("parameters", "setup", "ex-8a", "ex-8b", "ex-8c", "run-8c", "run-8b")   # what linear_gelu_tuned needs


def lab_kernel() -> dict:
    """The namespace of Lab 03's solution cells that build linear_gelu_tuned (full sizes, on the GPU)."""
    return notebooks.cell_namespace(ROOT / "solutions" / "03_operator_fusion.ipynb", CELLS)


def eager_linear_gelu(x, w, b):
    return torch.nn.functional.gelu(torch.nn.functional.linear(x, w, b))


def shape_rows(m: int, n: int, k: int, yours, copy_bw: float, max_autotune: bool, seconds: float) -> list[dict]:
    device = torch.device("cuda")
    x = torch.randn(m, k, device=device, dtype=torch.float16)
    w = (torch.randn(n, k, device=device) / k**0.5).half()
    b = torch.randn(n, device=device, dtype=torch.float16)
    torch._dynamo.reset()
    variants = {"eager": eager_linear_gelu, "torch.compile": torch.compile(eager_linear_gelu)}
    if max_autotune:
        variants["max-autotune"] = torch.compile(eager_linear_gelu, mode="max-autotune-no-cudagraphs")
    variants["Lab 03 kernel"] = yours
    want = eager_linear_gelu(x.float(), w.float(), b.float())
    errors = {name: (fn(x, w, b).float() - want).abs().max().item() for name, fn in variants.items()}
    floor_ms = n * k * 2 / copy_bw * 1e3
    graphed = {name: bench.cuda_graphed(fn, x, w, b) for name, fn in variants.items()}
    rows = []
    for timing, fns in (("per call", variants), ("kernels only", graphed)):
        r = bench.compare_many(fns, x, w, b, min_run_time=seconds)
        for name in fns:
            t = r.timing(name)
            s = t.median_ms * 1e-3
            rows.append({"shape": f"{m}×{n}×{k}", "timing": timing, "variant": name, "median_ms": t.median_ms,
                         "q25_ms": t.q25_ms, "q75_ms": t.q75_ms, "GB/s": (m * k + n * k + n + m * n) * 2 / s / 1e9,
                         "% of weight floor": 100 * floor_ms / t.median_ms, "TFLOP/s": 2 * m * n * k / s / 1e12,
                         "against eager": None if name == "eager" else r.compare("eager", name).to_dict(),
                         "max err": errors[name]})
    return rows


def sweep_configs(m: int, smem_bytes, smem_limit: int) -> list[dict]:
    """Every tile for M rows (one BLOCK_M covers M, 16 to 64) that fits in shared memory at fp16."""
    block_m = min(64, max(16, 1 << (m - 1).bit_length()))
    return [dict(BLOCK_M=block_m, BLOCK_N=bn, BLOCK_K=bk, num_warps=nw, num_stages=st)
            for bn in (16, 32, 64) for bk in (64, 128, 256) for nw in (1, 2, 4) for st in (2, 3, 4, 5, 6)
            if not (nw == 1 and bn > 16) and smem_bytes(block_m, bn, bk, st, 2) <= smem_limit]


def sweep_rows(m: int, n: int, k: int, ns: dict, copy_bw: float, seconds: float) -> tuple[list[dict], object]:
    """The lab's kernel at every config of sweep_configs, kernels only (a CUDA graph per config), fastest first,
    each with its verdict against eager's graph timed in the same rounds; and the config the lab's autotuner picks."""
    import triton

    device = torch.device("cuda")
    x = torch.randn(m, k, device=device, dtype=torch.float16)
    w = (torch.randn(n, k, device=device) / k**0.5).half()
    b = torch.randn(n, device=device, dtype=torch.float16)
    kernel, args_of = ns["linear_gelu_kernel"], ns["linear_gelu_args"]
    limit = torch.cuda.get_device_properties(device).shared_memory_per_block_optin
    want = eager_linear_gelu(x.float(), w.float(), b.float())
    ns["linear_gelu_tuned"](x, w, b)
    picked = getattr(ns["linear_gelu_tuned_kernels"]["skinny" if m <= ns["SKINNY_M"] else "square"], "best_config", None)
    eager = bench.cuda_graphed(eager_linear_gelu, x, w, b)
    floor_ms = n * k * 2 / copy_bw * 1e3
    rows = []
    for c in sweep_configs(m, ns["smem_bytes"], limit):
        def launch(x, w, b, c=c):
            out, args = args_of(x, w, b)
            grid = (triton.cdiv(m, c["BLOCK_M"]), triton.cdiv(n, c["BLOCK_N"]))
            kernel[grid](*args, DOT_IN_FP32=False, **c)
            return out
        err = (launch(x, w, b).float() - want).abs().max().item()
        r = bench.compare_many({"eager": eager, "config": bench.cuda_graphed(launch, x, w, b)}, x, w, b,
                               min_run_time=seconds)
        t = r.timing("config")
        rows.append({"config": " ".join(f"{key.replace('BLOCK_', '').lower()}={v}" for key, v in c.items()),
                     "median_ms": t.median_ms, "q25_ms": t.q25_ms, "q75_ms": t.q75_ms,
                     "% of weight floor": 100 * floor_ms / t.median_ms,
                     "against eager": r.compare("eager", "config").to_dict(), "max err": err})
    return sorted(rows, key=lambda row: row["median_ms"]), picked


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--m", type=int, nargs="+", default=[16, 4096], help="rows of x (default: 16 and 4096)")
    p.add_argument("--n", type=int, default=14336)
    p.add_argument("--k", type=int, default=4096)
    p.add_argument("--seconds", type=float, default=1.0, help="timing per shape and timing kind (default 1)")
    p.add_argument("--no-max-autotune", action="store_true", help="leave max-autotune out (its compile is slow)")
    p.add_argument("--sweep", action="store_true", help="time every config of the lab's kernel (kernels only) instead")
    p.add_argument("--top", type=int, default=15, help="with --sweep: how many of the fastest configs to print")
    p.add_argument("--out", type=Path, help="write the rows as JSON here")
    args = p.parse_args(argv)
    if not torch.cuda.is_available():
        print("linear_gelu.py times a Triton kernel on a CUDA GPU; none is usable here.", file=sys.stderr)
        return 2
    os.environ.setdefault("WORKBOOK_DEVICE", "cuda")
    ns = lab_kernel()
    device = torch.device("cuda")
    copy_bw = bench.copy_bandwidth(device)
    print(f"{device_label(device)} · {versions(device)} · copy bandwidth {copy_bw / 1e9:,.0f} GB/s · fp16")
    rows = []
    if args.sweep:
        for m in args.m:
            found, picked = sweep_rows(m, args.n, args.k, ns, copy_bw, min(args.seconds, 0.3))
            print(f"{m}×{args.n}×{args.k}: {len(found)} configs, fastest first; the lab's autotuner picks {picked}")
            print(bench.table([{**r, "against eager": figures.fmt(r["against eager"])} for r in found[:args.top]],
                              columns=("config", "median_ms", "q25_ms", "q75_ms", "% of weight floor",
                                       "against eager", "max err")))
            rows += [{"shape": f"{m}×{args.n}×{args.k}", **r} for r in found]
    for m in ([] if args.sweep else args.m):
        rows += shape_rows(m, args.n, args.k, ns["linear_gelu_tuned"], copy_bw, not args.no_max_autotune,
                           args.seconds)
    if not args.sweep:       # a sweep printed its own tables above
        print(bench.table([{**r, "against eager": figures.fmt(r["against eager"])} for r in rows],
                          columns=("shape", "timing", "variant", "median_ms", "q25_ms", "q75_ms", "GB/s",
                                   "% of weight floor", "TFLOP/s", "against eager", "max err")))
    if args.out:
        args.out.write_text(json.dumps({"device": device_label(device), "versions": versions(device),
                                        "copy_gbps": copy_bw / 1e9, "rows": rows}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
