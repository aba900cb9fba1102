"""Decode attention over the filled part of a static KV cache, in one Triton kernel (`--flash-decode`).

helpers.llama's decode step attends with SDPA over the whole static cache, `max_tokens` positions, and a mask hides
the ones not written yet: every step reads the whole cache and pays for a mask, whatever the context. Here one
program per (sequence, query head) reads the position from the device (`input_pos`, so a CUDA graph replays the same
kernel at every step) and streams only positions 0..p of its key/value head, BLOCK_N at a time, with an online
softmax in fp32 registers: grouped-query attention without copying the shared key/value heads, no mask tensor, and
no read past the last written position.

`use_flash_decode(model)` gives every attention layer of a helpers.llama model this kernel for its decode steps
(one new token, a cache); prefill and cache-less calls keep SDPA. The kernel is the custom op
`workbook::decode_attention`, so torch.compile treats it as one opaque call and reduce-overhead records it in the
step's CUDA graph. On a CPU it runs in Triton's interpreter (TRITON_INTERPRET=1 before Triton is imported: tests).
"""

from __future__ import annotations

import math
import os

import torch
from torch import nn

try:
    import triton
    import triton.language as tl
except ImportError:       # macOS, native Windows: no Triton wheel
    triton = tl = None

BLOCK_N = 128   # cache positions per loop step: a 128 × head_dim fp32 tile of scores' inputs per program
NUM_WARPS = 4


if triton is not None:
    @triton.jit
    def decode_attention_kernel(q_ptr, k_ptr, v_ptr, pos_ptr, out_ptr, scale,
                                stride_qb, stride_qh, stride_kb, stride_kh, stride_kt,
                                stride_vb, stride_vh, stride_vt, stride_ob, stride_oh,
                                GROUP: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr):
        """softmax(q·Kᵀ × scale) · V for one query head of one sequence over cache positions 0..input_pos[0]."""
        b = tl.program_id(0)
        h = tl.program_id(1)
        kv = h // GROUP                                   # the key/value head this query head shares
        length = tl.load(pos_ptr) + 1                     # the query at position p sees positions 0..p
        d = tl.arange(0, HEAD_DIM)
        q = tl.load(q_ptr + b * stride_qb + h * stride_qh + d).to(tl.float32) * scale
        k_base = k_ptr + b * stride_kb + kv * stride_kh
        v_base = v_ptr + b * stride_vb + kv * stride_vh
        m_i = tl.max(tl.zeros([BLOCK_N], dtype=tl.float32), axis=0) - float("inf")   # running max
        l_i = tl.sum(tl.zeros([BLOCK_N], dtype=tl.float32), axis=0)                  # running sum of exp
        acc = tl.zeros([HEAD_DIM], dtype=tl.float32)
        for start in range(0, length, BLOCK_N):
            n = start + tl.arange(0, BLOCK_N)
            filled = n < length
            k = tl.load(k_base + n[:, None] * stride_kt + d[None, :], mask=filled[:, None], other=0.0)
            v = tl.load(v_base + n[:, None] * stride_vt + d[None, :], mask=filled[:, None], other=0.0)  # both in flight
            s = tl.sum(k.to(tl.float32) * q[None, :], axis=1)
            s = tl.where(filled, s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, axis=0))
            p = tl.exp(s - m_new)
            alpha = tl.exp(m_i - m_new)
            acc = acc * alpha + tl.sum(p[:, None] * v.to(tl.float32), axis=0)
            l_i = l_i * alpha + tl.sum(p, axis=0)
            m_i = m_new
        tl.store(out_ptr + b * stride_ob + h * stride_oh + d, (acc / l_i).to(out_ptr.dtype.element_ty))


def unavailable(device: torch.device) -> str | None:
    """Why the kernel cannot run on `device`, in words, or None when it can."""
    if triton is None:
        return "--flash-decode runs a Triton kernel, and Triton is not installed here (Linux wheels: pip install triton)"
    if device.type == "cuda" or (device.type == "cpu" and os.environ.get("TRITON_INTERPRET") == "1"):
        return None
    return (f"--flash-decode runs a Triton kernel on a CUDA GPU, or on the CPU in Triton's interpreter (TRITON_INTERPRET=1 "
            f"set before Python starts; slow, tiny models only); not on {device.type} as things stand: leave it off here")


def _check(q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, input_pos: torch.Tensor) -> None:
    if q.dim() != 4 or q.shape[2] != 1:
        raise ValueError(f"decode_attention takes one new token: q (batch, heads, 1, head_dim), got {tuple(q.shape)}")
    if keys.shape != values.shape or keys.dim() != 4 or keys.shape[0] != q.shape[0] or keys.shape[3] != q.shape[3]:
        raise ValueError(f"keys and values must be (batch, kv_heads, max_tokens, head_dim) matching q "
                         f"{tuple(q.shape)}; got {tuple(keys.shape)} and {tuple(values.shape)}")
    if q.shape[1] % keys.shape[1]:
        raise ValueError(f"{q.shape[1]} query heads cannot share {keys.shape[1]} key/value heads evenly")
    head_dim = q.shape[3]
    if head_dim & (head_dim - 1):
        raise ValueError(f"head_dim must be a power of two for this kernel, not {head_dim}")
    if input_pos.numel() != 1:
        raise ValueError(f"input_pos must hold the one decode position, not {input_pos.numel()} values")


def launch(q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, input_pos: torch.Tensor,
           block_n: int = BLOCK_N, num_warps: int = NUM_WARPS) -> torch.Tensor:
    """decode_attention_kernel on one grid of (batch, heads) programs; the tile size and warps to try others."""
    _check(q, keys, values, input_pos)
    if triton is None:
        raise RuntimeError("decode_attention is a Triton kernel, and Triton is not installed here")
    q, keys, values = (t if t.stride(-1) == 1 else t.contiguous() for t in (q, keys, values))
    batch, heads, _, head_dim = q.shape
    out = torch.empty((batch, heads, 1, head_dim), device=q.device, dtype=q.dtype)
    decode_attention_kernel[(batch, heads)](
        q, keys, values, input_pos, out, 1.0 / math.sqrt(head_dim),
        q.stride(0), q.stride(1), keys.stride(0), keys.stride(1), keys.stride(2),
        values.stride(0), values.stride(1), values.stride(2), out.stride(0), out.stride(1),
        GROUP=heads // keys.shape[1], HEAD_DIM=head_dim, BLOCK_N=block_n, num_warps=num_warps)
    return out


@torch.library.custom_op("workbook::decode_attention", mutates_args=())
def decode_attention(q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, input_pos: torch.Tensor
                     ) -> torch.Tensor:
    """Attention of one new token (q: batch, heads, 1, head_dim) over cache positions 0..input_pos of keys/values
    (batch, kv_heads, max_tokens, head_dim); (batch, heads, 1, head_dim) in q's dtype."""
    return launch(q, keys, values, input_pos)


@decode_attention.register_fake
def _(q, keys, values, input_pos):
    return q.new_empty((q.shape[0], q.shape[1], 1, q.shape[3]))


def use_flash_decode(model: nn.Module) -> int:
    """Give every attention layer of a helpers.llama model this kernel for its decode steps, in place; how many."""
    layers = [m for m in model.modules() if hasattr(m, "decode_attention")]
    for m in layers:
        m.decode_attention = decode_attention
    return len(layers)
