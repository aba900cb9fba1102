"""A decode step's attention in one Triton kernel (`--flash-decode`): RoPE, the cache write and the attention.

helpers.llama's decode step rotates q and k (RoPE), writes the new key and value into the static cache
(`index_copy_`), then attends with SDPA over the whole cache, `max_tokens` positions, behind a mask that hides the
ones not written yet: three or four kernels a layer, and every step reads the whole cache. Here one program per
(sequence, query head) reads the position from the device (`input_pos`, so a CUDA graph replays the same kernel at
every step), rotates its query and the new key in registers, writes the new key and value into the cache (the first
program of each group of query heads writes its key/value head), and streams only positions 0..p-1 of the cache,
BLOCK_N at a time, with an online softmax in fp32 that starts from position p, held in registers: grouped-query
attention without copying the shared heads, no mask, no read past the last written position, one kernel a layer.

`use_flash_decode(model)` gives every attention layer of a helpers.llama model this kernel for its decode steps
(one new token, a cache); prefill and cache-less calls keep SDPA. The kernel is the custom op
`workbook::decode_attention`, which mutates the cache in place, so torch.compile treats it as one opaque call and
reduce-overhead records it in the step's CUDA graph. On a CPU it runs in Triton's interpreter (TRITON_INTERPRET=1
before Triton is imported: tests).
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
    def rotate(x_ptr, d, cos, sin, HEAD_DIM: tl.constexpr):
        """RoPE of one head's vector in fp32: pairs (i, i + HEAD_DIM/2) turned by the position's angles."""
        half = HEAD_DIM // 2
        partner = tl.load(x_ptr + (d + half) % HEAD_DIM).to(tl.float32)
        return tl.load(x_ptr + d).to(tl.float32) * cos + tl.where(d < half, -partner, partner) * sin

    @triton.jit
    def decode_attention_kernel(q_ptr, k_ptr, v_ptr, keys_ptr, values_ptr, cos_ptr, sin_ptr, pos_ptr, out_ptr, scale,
                                stride_qb, stride_qh, stride_kb, stride_kh, stride_vb, stride_vh,
                                stride_cb, stride_ch, stride_ct, stride_ob, stride_oh,
                                GROUP: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr):
        """For one query head of one sequence at position p: rotate q and the new k, write k and v at p (the group's
        first head does), and return softmax(q·Kᵀ × scale) · V over positions 0..p."""
        b = tl.program_id(0)
        h = tl.program_id(1)
        kv = h // GROUP                                   # the key/value head this query head shares
        pos = tl.load(pos_ptr)
        d = tl.arange(0, HEAD_DIM)
        cos, sin = tl.load(cos_ptr + d), tl.load(sin_ptr + d)
        q = rotate(q_ptr + b * stride_qb + h * stride_qh, d, cos, sin, HEAD_DIM) * scale
        k_new = rotate(k_ptr + b * stride_kb + kv * stride_kh, d, cos, sin, HEAD_DIM).to(keys_ptr.dtype.element_ty)
        v_new = tl.load(v_ptr + b * stride_vb + kv * stride_vh + d).to(values_ptr.dtype.element_ty)
        cache_at = b * stride_cb + kv * stride_ch
        # position p from registers (no program reads what another writes), then 0..p-1 from the cache; k and v are
        # written at p last, so that no load of the loop waits behind the stores (the compiler cannot tell that they
        # never touch the same addresses)
        m_i = tl.sum(k_new.to(tl.float32) * q, axis=0)    # running max: the only score so far
        l_i = m_i * 0.0 + 1.0                             # running sum of exp(score - max)
        acc = v_new.to(tl.float32)
        for start in range(0, pos, BLOCK_N):
            n = start + tl.arange(0, BLOCK_N)
            filled = n < pos
            k = tl.load(keys_ptr + cache_at + n[:, None] * stride_ct + d[None, :], mask=filled[:, None], other=0.0)
            v = tl.load(values_ptr + cache_at + n[:, None] * stride_ct + d[None, :], mask=filled[:, None], other=0.0)
            s = tl.sum(k.to(tl.float32) * q[None, :], axis=1)
            s = tl.where(filled, s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, axis=0))
            p = tl.exp(s - m_new)
            alpha = tl.exp(m_i - m_new)
            acc = acc * alpha + tl.sum(p[:, None] * v.to(tl.float32), axis=0)
            l_i = l_i * alpha + tl.sum(p, axis=0)
            m_i = m_new
        tl.store(out_ptr + b * stride_ob + h * stride_oh + d, (acc / l_i).to(out_ptr.dtype.element_ty))
        writer = (d * 0 + h % GROUP) == 0                 # one program per key/value head writes it
        tl.store(keys_ptr + cache_at + pos * stride_ct + d, k_new, mask=writer)
        tl.store(values_ptr + cache_at + pos * stride_ct + d, v_new, mask=writer)


def unavailable(device: torch.device) -> str | None:
    """Why the kernel cannot run on `device`, in words, or None when it can."""
    if triton is None:
        return "--flash-decode runs a Triton kernel, and Triton is not installed here (Linux wheels: pip install triton)"
    if device.type == "cuda" or (device.type == "cpu" and os.environ.get("TRITON_INTERPRET") == "1"):
        return None
    return (f"--flash-decode runs a Triton kernel on a CUDA GPU, or on the CPU in Triton's interpreter (TRITON_INTERPRET=1 "
            f"set before Python starts; slow, tiny models only); not on {device.type} as things stand: leave it off here")


def _check(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
           cos: torch.Tensor, sin: torch.Tensor, input_pos: torch.Tensor) -> None:
    if q.dim() != 4 or q.shape[2] != 1:
        raise ValueError(f"decode_attention takes one new token: q (batch, heads, 1, head_dim), got {tuple(q.shape)}")
    if keys.shape != values.shape or keys.dim() != 4 or keys.shape[0] != q.shape[0] or keys.shape[3] != q.shape[3]:
        raise ValueError(f"keys and values must be (batch, kv_heads, max_tokens, head_dim) matching q "
                         f"{tuple(q.shape)}; got {tuple(keys.shape)} and {tuple(values.shape)}")
    if keys.stride() != values.stride() or keys.stride(-1) != 1:
        raise ValueError("keys and values must share one layout, head_dim contiguous (as StaticKVCache makes them)")
    new = (keys.shape[0], keys.shape[1], 1, keys.shape[3])
    if tuple(k.shape) != new or tuple(v.shape) != new:
        raise ValueError(f"the new key and value must be {new} (batch, kv_heads, 1, head_dim); got {tuple(k.shape)} "
                         f"and {tuple(v.shape)}")
    if q.shape[1] % keys.shape[1]:
        raise ValueError(f"{q.shape[1]} query heads cannot share {keys.shape[1]} key/value heads evenly")
    head_dim = q.shape[3]
    if head_dim & (head_dim - 1):
        raise ValueError(f"head_dim must be a power of two for this kernel, not {head_dim}")
    if cos.numel() != head_dim or sin.numel() != head_dim:
        raise ValueError(f"cos and sin must be the position's {head_dim} angles each (one position); got "
                         f"{tuple(cos.shape)} and {tuple(sin.shape)}")
    if input_pos.numel() != 1:
        raise ValueError(f"input_pos must hold the one decode position, not {input_pos.numel()} values")


def launch(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
           cos: torch.Tensor, sin: torch.Tensor, input_pos: torch.Tensor,
           block_n: int = BLOCK_N, num_warps: int = NUM_WARPS) -> torch.Tensor:
    """decode_attention_kernel on one grid of (batch, heads) programs; the tile size and warps to try others."""
    _check(q, k, v, keys, values, cos, sin, input_pos)
    if triton is None:
        raise RuntimeError("decode_attention is a Triton kernel, and Triton is not installed here")
    q, k, v = (t if t.stride(-1) == 1 else t.contiguous() for t in (q, k, v))
    cos, sin = (t.reshape(-1).float().contiguous() for t in (cos, sin))
    batch, heads, _, head_dim = q.shape
    out = torch.empty((batch, heads, 1, head_dim), device=q.device, dtype=q.dtype)
    decode_attention_kernel[(batch, heads)](
        q, k, v, keys, values, cos, sin, input_pos, out, 1.0 / math.sqrt(head_dim),
        q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0), v.stride(1),
        keys.stride(0), keys.stride(1), keys.stride(2), out.stride(0), out.stride(1),
        GROUP=heads // keys.shape[1], HEAD_DIM=head_dim, BLOCK_N=block_n, num_warps=num_warps)
    return out


@torch.library.custom_op("workbook::decode_attention", mutates_args=("keys", "values"))
def decode_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
                     cos: torch.Tensor, sin: torch.Tensor, input_pos: torch.Tensor) -> torch.Tensor:
    """One new token's attention: q (batch, heads, 1, head_dim) and k, v (batch, kv_heads, 1, head_dim) before
    RoPE, cos and sin the position's angles (head_dim each, float32), input_pos its position p. Writes the rotated
    k and v at p into keys/values (batch, kv_heads, max_tokens, head_dim), in place, and returns the attention of
    the rotated q over positions 0..p, (batch, heads, 1, head_dim) in q's dtype."""
    return launch(q, k, v, keys, values, cos, sin, input_pos)


@decode_attention.register_fake
def _(q, k, v, keys, values, cos, sin, input_pos):
    return q.new_empty((q.shape[0], q.shape[1], 1, q.shape[3]))


def use_flash_decode(model: nn.Module) -> int:
    """Give every attention layer of a helpers.llama model this kernel for its decode steps, in place; how many."""
    layers = [m for m in model.modules() if hasattr(m, "decode_attention")]
    for m in layers:
        m.decode_attention = decode_attention
    return len(layers)
