"""Weight-only int8 with a hand-written Triton decode kernel: the `int8-triton` backend (Lab 07 part E2's solution).

`int8_linear(x, q, scales)` computes (x @ qᵀ) × scales in one launch: x is (B, K) in bf16, fp16 or fp32, q the (N, K)
int8 weight (any strides), scales (N,) in x's dtype. Each program streams BLOCK_N rows of q through a K loop, casts
each int8 tile to x's dtype in registers (exact: |q| ≤ 127 fits bf16's 8 significant bits), multiplies it with a
16-row tile of x on `tl.dot` (x's rows padded to 16 by the mask, so batch 1 to 16 reads the same weight stream), adds
into an fp32 accumulator and scales the columns once, before the one store. Eager `Int8Linear` casts the whole weight
to a full-size temporary at every call instead (a read and a write more than the int8 bytes).

On a GPU the kernel is autotuned per (B, N, K) over CONFIGS. On a CPU it runs in Triton's interpreter, which needs
TRITON_INTERPRET=1 set before Triton is imported and is slow (tiny models only); its bf16 `tl.dot` is wrong, so
there the tiles are converted to fp32 first (a bf16 × bf16 product is exact in fp32). Without a GPU and without the
interpreter the backend refuses with what to do. Importing this module imports Triton: helpers.llm_bench.backends
imports it only when an `int8-triton` backend is made.
"""

from __future__ import annotations

import os

import torch
from torch import nn

from helpers.llm_bench.llama_backends import Int8Backend, logits_error
from helpers.llm_bench.quantize import Int8Linear

try:
    import triton
    import triton.language as tl
except ImportError:       # macOS, native Windows: no Triton wheel
    triton = tl = None

GEMV_ROWS = 1  # up to this many rows of x: int8_gemv_kernel; more: int8_linear_kernel's tl.dot tiles
BLOCK_B = 16   # tl.dot's smallest tile: x's B rows, padded with masked-off zeros
# Measured good on an H100 for this shape family (1 to 8 rows, Llama MLP and attention widths): BLOCK_N 32–64,
# BLOCK_K 128–256, 4 warps, 3–4 stages; the autotuner picks per (B, N, K).
CONFIGS = [dict(BLOCK_N=n, BLOCK_K=k, num_warps=4, num_stages=s) for n in (32, 64) for k in (128, 256) for s in (3, 4)]
# One row (batch-1 decode): int8_gemv_kernel, few outputs per program over long K blocks (the fastest on an H100 at
# Llama-3.2-1B's and Llama-2-7B's shapes: benchmarks/int8_kernel.py --sweep; on an H200 one output a program for
# 1b's 2048-row matrices, 16 over 256-wide K blocks for gate+up and the head, each timed alone).
GEMV_CONFIGS = [dict(BLOCK_N=n, BLOCK_K=k, num_warps=w, num_stages=1)
                for n, k, w in ((1, 1024, 4), (2, 1024, 2), (2, 1024, 4), (2, 1024, 8), (2, 512, 4), (4, 1024, 8),
                                (4, 512, 4), (4, 512, 8), (8, 128, 8), (8, 256, 8), (8, 512, 4), (16, 128, 8),
                                (16, 256, 4))]


def interpreted() -> bool:
    """True when Triton runs kernels in its CPU interpreter (TRITON_INTERPRET=1 when Triton was imported)."""
    return os.environ.get("TRITON_INTERPRET") == "1"


def unavailable(device: torch.device) -> str | None:
    """Why the kernel cannot run on `device`, in words, or None when it can."""
    if triton is None:
        return "int8-triton needs Triton, which is not installed here (Linux wheels only: `pip install triton`)"
    if device.type == "cuda" or (device.type == "cpu" and interpreted()):
        return None
    if device.type == "cpu":
        return ("int8-triton runs Triton kernels, and this machine has no CUDA GPU: run on a GPU, or set "
                "TRITON_INTERPRET=1 before starting Python to run them in Triton's CPU interpreter (slow: the tiny "
                "model only)")
    return f"int8-triton runs on a CUDA GPU or, under TRITON_INTERPRET=1, on the CPU; not on {device.type}"


if triton is not None:
    @triton.jit
    def int8_linear_kernel(x_ptr, q_ptr, s_ptr, out_ptr, B, N, K,
                           stride_xb, stride_xk, stride_qn, stride_qk, stride_ob, stride_on,
                           BLOCK_B: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                           DOT_IN_FP32: tl.constexpr):
        """One BLOCK_B×BLOCK_N tile of (x @ qᵀ) × scales: int8 tiles cast up in registers, fp32 accumulator."""
        rb = tl.program_id(1) * BLOCK_B + tl.arange(0, BLOCK_B)
        rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
        rk = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_B, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            kk = k0 + rk
            x = tl.load(x_ptr + rb[:, None] * stride_xb + kk[None, :] * stride_xk,
                        mask=(rb[:, None] < B) & (kk[None, :] < K), other=0.0)       # BLOCK_B×BLOCK_K of x
            q = tl.load(q_ptr + rn[None, :] * stride_qn + kk[:, None] * stride_qk,
                        mask=(rn[None, :] < N) & (kk[:, None] < K), other=0)         # BLOCK_K×BLOCK_N of qᵀ, 1 B each
            if DOT_IN_FP32:      # fp32 x (a GPU's tl.dot would round it to TF32), or the interpreter (its bf16 is
                acc += tl.dot(x.to(tl.float32), q.to(tl.float32), input_precision="ieee")   # wrong): exact products
            else:
                acc += tl.dot(x, q.to(x.dtype))                                    # dequantized in registers
        scales = tl.load(s_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
        tl.store(out_ptr + rb[:, None] * stride_ob + rn[None, :] * stride_on,
                 (acc * scales[None, :]).to(out_ptr.dtype.element_ty), mask=(rb[:, None] < B) & (rn[None, :] < N))

    @triton.jit
    def int8_gemv_kernel(x_ptr, q_ptr, s_ptr, out_ptr, B, N, K,
                         stride_xb, stride_xk, stride_qn, stride_qk, stride_ob, stride_on,
                         BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        """BLOCK_N outputs of one row of x (program axis 1: the row; axis 0 the outputs, whose count may pass the
        65,535 programs a grid's second axis allows: a 128,256-word head one output a program): a BLOCK_N×BLOCK_K
        fp32 accumulator of products, summed once after the K loop. No tl.dot, so no tile padded to 16 rows: the
        weight-streaming shape of batch-1 decode."""
        b = tl.program_id(1)
        rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
        rk = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_N, BLOCK_K), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            kk = k0 + rk
            x = tl.load(x_ptr + b * stride_xb + kk * stride_xk, mask=kk < K, other=0.0).to(tl.float32)
            q = tl.load(q_ptr + rn[:, None] * stride_qn + kk[None, :] * stride_qk,
                        mask=(rn[:, None] < N) & (kk[None, :] < K), other=0)
            acc += q.to(tl.float32) * x[None, :]
        scales = tl.load(s_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
        y = tl.sum(acc, axis=1) * scales
        tl.store(out_ptr + b * stride_ob + rn * stride_on, y.to(out_ptr.dtype.element_ty), mask=rn < N)

    int8_linear_tuned = triton.autotune(
        configs=[triton.Config({"BLOCK_N": c["BLOCK_N"], "BLOCK_K": c["BLOCK_K"]}, num_warps=c["num_warps"],
                               num_stages=c["num_stages"]) for c in CONFIGS],
        key=["B", "N", "K"])(int8_linear_kernel)

    int8_gemv_tuned = triton.autotune(
        configs=[triton.Config({"BLOCK_N": c["BLOCK_N"], "BLOCK_K": c["BLOCK_K"]}, num_warps=c["num_warps"],
                               num_stages=c["num_stages"]) for c in GEMV_CONFIGS],
        key=["B", "N", "K"])(int8_gemv_kernel)


def int8_linear(x: torch.Tensor, q: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    """(x @ qᵀ) × scales in x's dtype, in one launch of int8_linear_kernel (autotuned on a GPU), for any strides."""
    if x.dim() != 2 or q.dim() != 2 or scales.dim() != 1 or q.shape[1] != x.shape[1] or scales.shape[0] != q.shape[0]:
        raise ValueError(f"int8_linear wants x (B, K), q (N, K) and scales (N,); got {tuple(x.shape)}, "
                         f"{tuple(q.shape)}, {tuple(scales.shape)}")
    if q.dtype != torch.int8:
        raise ValueError(f"q must be int8, not {q.dtype}")
    why = unavailable(x.device)
    if why:
        raise RuntimeError(why)
    (B, K), N = x.shape, q.shape[0]
    out = torch.empty((B, N), device=x.device, dtype=x.dtype)
    if out.numel() == 0:
        return out
    args = (x, q, scales, out, B, N, K, x.stride(0), x.stride(1), q.stride(0), q.stride(1), out.stride(0),
            out.stride(1))
    if B <= GEMV_ROWS:
        if x.device.type == "cuda":
            int8_gemv_tuned[lambda meta: (triton.cdiv(N, meta["BLOCK_N"]), B)](*args)
        else:
            int8_gemv_kernel[(triton.cdiv(N, 8), B)](*args, BLOCK_N=8, BLOCK_K=64)
    elif x.device.type == "cuda":
        grid = lambda meta: (triton.cdiv(N, meta["BLOCK_N"]), triton.cdiv(B, BLOCK_B))
        int8_linear_tuned[grid](*args, BLOCK_B=BLOCK_B, DOT_IN_FP32=x.dtype == torch.float32)
    else:
        block_n, block_k = 32, 64
        int8_linear_kernel[(triton.cdiv(N, block_n), triton.cdiv(B, BLOCK_B))](
            *args, BLOCK_B=BLOCK_B, BLOCK_N=block_n, BLOCK_K=block_k, DOT_IN_FP32=True)
    return out


class Int8TritonLinear(Int8Linear):
    """Int8Linear whose forward is int8_linear's kernel: the weight is read once, as int8, whatever the batch."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.reshape(-1, x.shape[-1])
        return int8_linear(rows, self.weight_int8, self.scales.to(x.dtype)).reshape(*x.shape[:-1], self.out_features)


def use_triton_kernel(model: nn.Module) -> int:
    """Give every Int8Linear of `model` the Triton kernel's forward, in place; returns how many."""
    layers = [m for m in model.modules() if type(m) is Int8Linear]
    for m in layers:
        m.__class__ = Int8TritonLinear
    return len(layers)


class Int8TritonBackend(Int8Backend):
    """Weight-only int8 (as Int8Backend) with every matmul in int8_linear's Triton kernel. compile_mode compiles the
    decode step around the kernels (torch.compile takes user-written Triton kernels in; reduce-overhead replays the
    step as one CUDA graph, without a Python launch per layer); on a CPU the interpreter runs them eagerly."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        why = unavailable(self.device)
        if why:
            raise RuntimeError(why)
        self.name = "int8-triton" if self.compile_mode is None else f"int8-triton-compiled-{self.compile_mode}"

    def _prepare(self) -> None:
        super()._prepare()         # quantizes (eager Int8Linear); logits_error: against the unquantized model
        g = torch.Generator().manual_seed(self.seed)
        probe = torch.randint(0, self.config.vocab_size, (1, min(self.PROBE_TOKENS, self.config.max_seq_len)),
                              generator=g).to(self.device)
        with torch.no_grad():
            eager_int8 = self.model(probe).float()
            use_triton_kernel(self.model)
            kernel = self.model(probe).float()
        self.kernel_error = logits_error(kernel, eager_int8)     # the kernel against eager int8: rounding only

    def info(self) -> dict:
        return {**super().info(), "kernel_vs_eager_int8": getattr(self, "kernel_error", {})}
