"""A Llama-style decoder with random weights, a static KV cache, and the arithmetic that predicts its speed.

The model: RMSNorm, rotary position embeddings (RoPE, the "rotate half" layout that Hugging Face's Llama
uses, so weights map one to one), grouped-query attention (n_kv_heads < n_heads; MQA when n_kv_heads == 1,
plain multi-head attention when equal), a SwiGLU MLP, and input/output embeddings tied or untied as the
config says. Weights are random from a seed: nothing is downloaded, so speed and memory are real while the
text is noise. Llama-3's long-context RoPE scaling is left out; it changes no shape and no timing.

The static cache: every layer's keys and values live in tensors preallocated for `max_tokens` positions and
are written in place at a position tensor. A decode step then has the same shapes at every token (it
attends over the whole cache with a mask that hides positions not yet written), so `torch.compile` compiles
it once and `mode="reduce-overhead"` can replay it as one CUDA graph. The price: each step attends over
`max_tokens` positions, not just the filled ones.

The arithmetic (`param_count`, `kv_cache_bytes`, `decode_bytes_per_step`, `flops_per_token`) needs no model,
so it works for the 7B config that is never instantiated. Introduced in Lab 07 (LLM inference benchmarks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class LlamaConfig:
    """The shapes of a Llama-style decoder. `head_dim` is dim // n_heads."""

    name: str = "custom"
    vocab_size: int = 320
    dim: int = 128
    n_layers: int = 4
    n_heads: int = 4
    n_kv_heads: int = 2
    ffn_dim: int = 384
    max_seq_len: int = 4096
    rope_theta: float = 10_000.0
    norm_eps: float = 1e-5
    tie_embeddings: bool = True  # True: the output projection is the input embedding table (Llama-3.2-1B)

    def __post_init__(self):
        if self.dim % self.n_heads:
            raise ValueError(f"dim={self.dim} must be a multiple of n_heads={self.n_heads}")
        if self.n_heads % self.n_kv_heads:
            raise ValueError(f"n_heads={self.n_heads} must be a multiple of n_kv_heads={self.n_kv_heads}")
        if self.head_dim % 2:
            raise ValueError(f"head_dim={self.head_dim} must be even for rotary embeddings")

    @property
    def head_dim(self) -> int:
        return self.dim // self.n_heads

    @classmethod
    def named(cls, name: str) -> "LlamaConfig":
        """One of CONFIGS by name: "tiny", "small", "1b" or "7b" (7b: arithmetic only)."""
        try:
            return CONFIGS[name]
        except KeyError:
            raise ValueError(f"unknown model size {name!r}; choose one of {', '.join(CONFIGS)}") from None

    def with_(self, **changes) -> "LlamaConfig":
        """A copy with some fields changed, e.g. `LlamaConfig.named("tiny").with_(n_kv_heads=1)`."""
        return replace(self, **changes)


CONFIGS: dict[str, LlamaConfig] = {
    # CPU and CI: ~0.82M parameters. Vocab 320 = the byte tokenizer's 259 ids padded to a multiple of 64.
    "tiny": LlamaConfig("tiny", vocab_size=320, dim=128, n_layers=4, n_heads=4, n_kv_heads=2, ffn_dim=384),
    # ~124M parameters (GPT-2-small scale), untied 32000-token vocab like Llama-2: a GPU benchmark in seconds.
    "small": LlamaConfig("small", vocab_size=32_000, dim=768, n_layers=12, n_heads=12, n_kv_heads=4,
                         ffn_dim=2048, tie_embeddings=False),
    # Llama-3.2-1B's shapes, its full 128256-token vocab kept so parameter count (1.24B) and bytes per decode
    # step match the real model; the byte tokenizer's ids are a subset of it. max_seq_len cut to 8192.
    "1b": LlamaConfig("1b", vocab_size=128_256, dim=2048, n_layers=16, n_heads=32, n_kv_heads=8, ffn_dim=8192,
                      max_seq_len=8192, rope_theta=500_000.0, tie_embeddings=True),
    # Llama-2-7B's shapes, for arithmetic only (6.74B parameters, 13.5 GB in fp16): never instantiated in tests.
    "7b": LlamaConfig("7b", vocab_size=32_000, dim=4096, n_layers=32, n_heads=32, n_kv_heads=32, ffn_dim=11_008,
                      max_seq_len=4096, tie_embeddings=False),
}


# -----------------------------------------------------------------------------
# arithmetic: no model needed


def param_count(config: LlamaConfig) -> int:
    """Parameters of the model this config builds (a tied embedding counted once)."""
    d, hd = config.dim, config.head_dim
    attention = d * (config.n_heads * hd) * 2 + d * (config.n_kv_heads * hd) * 2  # q, o and k, v projections
    mlp = 3 * d * config.ffn_dim  # gate, up, down
    per_layer = attention + mlp + 2 * d  # two RMSNorm weights
    embeddings = config.vocab_size * d * (1 if config.tie_embeddings else 2)
    return config.n_layers * per_layer + embeddings + d  # + final norm


def kv_cache_bytes(config: LlamaConfig, tokens: int, batch: int = 1, dtype_bytes: int = 2) -> int:
    """Bytes of keys and values for `tokens` positions: layers × 2 × n_kv_heads × head_dim × tokens × batch × bytes."""
    return config.n_layers * 2 * config.n_kv_heads * config.head_dim * tokens * batch * dtype_bytes


def streamed_weight_bytes(config: LlamaConfig, batch: int = 1, weight_bytes: float = 2) -> float:
    """Weight bytes one forward pass reads: every weight once, an untied input embedding only for `batch` rows."""
    weights = param_count(config) * weight_bytes
    if not config.tie_embeddings:  # the input table is looked up, not streamed; the output head is streamed
        weights -= (config.vocab_size - batch) * config.dim * weight_bytes
    return weights


def decode_bytes_per_step(config: LlamaConfig, context: int, batch: int = 1, weight_bytes: float = 2,
                          kv_bytes: int = 2) -> float:
    """Bytes one decode step reads and writes (one new token for each of `batch` sequences).

    Every weight is read once per step whatever the batch, each sequence's cache is read for `context`
    positions and written for one. With batch 1 this is the model's size plus its KV cache.
    """
    return streamed_weight_bytes(config, batch, weight_bytes) + kv_cache_bytes(config, context + 1, batch, kv_bytes)


def decode_bytes_per_token(config: LlamaConfig, context: int, batch: int = 1, weight_bytes: float = 2,
                           kv_bytes: int = 2) -> float:
    """Bytes moved per generated token: one decode step's bytes shared by the `batch` tokens it makes."""
    return decode_bytes_per_step(config, context, batch, weight_bytes, kv_bytes) / batch


def flops_per_token(config: LlamaConfig, context: float) -> float:
    """Forward FLOPs for one token that attends over `context` positions.

    2 FLOPs per weight of every matmul (the output head included, the embedding lookup not), plus
    attention: QKᵀ and attention×V, each 2 × context × n_heads × head_dim per layer. Norms, RoPE and
    softmax are left out (a fraction of a percent).
    """
    matmul_params = param_count(config) - config.vocab_size * config.dim * (0 if config.tie_embeddings else 1)
    matmul_params -= (2 * config.n_layers + 1) * config.dim  # norm weights do no matmul
    attention = 2 * 2 * config.n_layers * context * config.n_heads * config.head_dim
    return 2 * matmul_params + attention


def arithmetic_intensity(config: LlamaConfig, new_tokens: int, context: int = 0, batch: int = 1,
                         weight_bytes: float = 2, kv_bytes: int = 2) -> float:
    """FLOPs per byte of one forward pass over `new_tokens` per sequence after `context` cached positions.

    Prefill (new_tokens = prompt length, context 0) reuses each weight for every prompt token: high
    intensity, compute-bound on a GPU. Decode (new_tokens = 1) reads every weight for only `batch` tokens:
    about batch × 2 / weight_bytes FLOPs per byte, far below any GPU's ridge point: bandwidth-bound.
    Compare with the device's ridge point, peak FLOP/s ÷ memory bandwidth (H100 SXM bf16: ~989e12 / 3.35e12 ≈ 295).
    """
    mean_context = context + (new_tokens + 1) / 2  # token i attends over context + i positions (flops are linear in it)
    flops = batch * new_tokens * flops_per_token(config, mean_context)
    moved = streamed_weight_bytes(config, batch, weight_bytes) + kv_cache_bytes(config, context + new_tokens, batch, kv_bytes)
    return flops / moved


# -----------------------------------------------------------------------------
# the static KV cache


class StaticKVCache:
    """Keys and values of every layer, preallocated as (batch, n_kv_heads, max_tokens, head_dim) tensors.

    `update` writes new keys/values in place at a position tensor (index_copy_), so addresses and shapes
    never change: what a compiled, CUDA-graphed decode step needs. Nothing is cleared between prompts: a
    position is always written before the mask lets anyone read it.
    """

    def __init__(self, config: LlamaConfig, batch: int, max_tokens: int, dtype: torch.dtype = torch.float32,
                 device: str | torch.device = "cpu"):
        if max_tokens > config.max_seq_len:
            raise ValueError(f"max_tokens={max_tokens} exceeds the model's max_seq_len={config.max_seq_len}")
        self.config, self.batch, self.max_tokens, self.dtype = config, batch, max_tokens, dtype
        shape = (batch, config.n_kv_heads, max_tokens, config.head_dim)
        self.keys = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(config.n_layers)]
        self.values = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(config.n_layers)]

    @property
    def nbytes(self) -> int:
        """Bytes held by all the cache tensors."""
        return sum(t.numel() * t.element_size() for t in self.keys + self.values)

    def tensors(self) -> list[torch.Tensor]:
        """Every cache tensor (for torch._dynamo.mark_static_address and friends)."""
        return self.keys + self.values

    def update(self, layer: int, input_pos: torch.Tensor, k: torch.Tensor, v: torch.Tensor
               ) -> tuple[torch.Tensor, torch.Tensor]:
        """Write k, v (batch, n_kv_heads, T, head_dim) at positions input_pos (T,); return the layer's full cache."""
        keys, values = self.keys[layer], self.values[layer]
        keys.index_copy_(2, input_pos, k.to(keys.dtype))
        values.index_copy_(2, input_pos, v.to(values.dtype))
        return keys, values


# -----------------------------------------------------------------------------
# the model


class RMSNorm(nn.Module):
    """x / rms(x) × weight, computed in float32 and cast back (as Llama does)."""

    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x32 = x.float()
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x32.to(x.dtype)


def rope_tables(config: LlamaConfig, device: str | torch.device | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of position × frequency, (max_seq_len, head_dim) each, float32, halves repeated."""
    hd = config.head_dim
    inv_freq = 1.0 / (config.rope_theta ** (torch.arange(0, hd, 2, device=device, dtype=torch.float32) / hd))
    angles = torch.outer(torch.arange(config.max_seq_len, device=device, dtype=torch.float32), inv_freq)
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos(), angles.sin()


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate pairs (i, i + head_dim/2) of x (batch, heads, T, head_dim) by each position's angle."""
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos.to(x.dtype) + rotated * sin.to(x.dtype)


class Attention(nn.Module):
    """Grouped-query attention: n_heads query heads share n_kv_heads key/value heads."""

    def __init__(self, config: LlamaConfig):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = config.n_heads, config.n_kv_heads, config.head_dim
        self.q_proj = nn.Linear(config.dim, config.n_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(config.dim, config.n_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(config.dim, config.n_kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(config.n_heads * self.head_dim, config.dim, bias=False)
        self.qkv_proj: nn.Linear | None = None   # set by fuse_projections: q, k and v as one matmul
        # set by helpers.llm_bench.flash_decode.use_flash_decode: f(q, k, v, keys, values, cos, sin, input_pos), one
        # new token's RoPE, cache write and attention over the filled part of the cache in one Triton kernel, in place
        # of apply_rope, cache.update and SDPA over the whole cache
        self.decode_attention = None

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layer: int,
                input_pos: torch.Tensor, cache: StaticKVCache | None, visible: torch.Tensor | None) -> torch.Tensor:
        b, t, _ = x.shape
        if self.qkv_proj is not None:
            kv = self.n_kv_heads * self.head_dim
            q, k, v = self.qkv_proj(x).split([self.n_heads * self.head_dim, kv, kv], dim=-1)
        else:
            q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        q = q.view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = k.view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = v.view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        if cache is not None and t == 1 and self.decode_attention is not None:   # one new token, one kernel
            out = self.decode_attention(q, k, v, cache.keys[layer], cache.values[layer], cos, sin, input_pos)
            return self.o_proj(out.transpose(1, 2).reshape(b, t, -1))
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        gqa = self.n_kv_heads != self.n_heads
        if cache is None:  # no cache: plain causal attention over these t tokens
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=gqa)
        else:  # write this step's keys/values, attend over the whole cache, `visible` hides what lies ahead
            keys, values = cache.update(layer, input_pos, k, v)
            out = F.scaled_dot_product_attention(q, keys.to(q.dtype), values.to(q.dtype), attn_mask=visible,
                                                 enable_gqa=gqa)
        return self.o_proj(out.transpose(1, 2).reshape(b, t, -1))


class SwiGLU(nn.Module):
    """down(silu(gate(x)) × up(x))."""

    def __init__(self, config: LlamaConfig):
        super().__init__()
        self.gate_proj = nn.Linear(config.dim, config.ffn_dim, bias=False)
        self.up_proj = nn.Linear(config.dim, config.ffn_dim, bias=False)
        self.down_proj = nn.Linear(config.ffn_dim, config.dim, bias=False)
        self.gate_up_proj: nn.Linear | None = None   # set by fuse_projections: gate and up as one matmul

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.gate_up_proj is not None:
            gate, up = self.gate_up_proj(x).chunk(2, dim=-1)
        else:
            gate, up = self.gate_proj(x), self.up_proj(x)
        return self.down_proj(F.silu(gate) * up)


class DecoderLayer(nn.Module):
    """Pre-norm block: x + attention(norm(x)), then + mlp(norm(x))."""

    def __init__(self, config: LlamaConfig, index: int):
        super().__init__()
        self.index = index
        self.attn_norm = RMSNorm(config.dim, config.norm_eps)
        self.attn = Attention(config)
        self.mlp_norm = RMSNorm(config.dim, config.norm_eps)
        self.mlp = SwiGLU(config)

    def forward(self, x, cos, sin, input_pos, cache, visible):
        x = x + self.attn(self.attn_norm(x), cos, sin, self.index, input_pos, cache, visible)
        return x + self.mlp(self.mlp_norm(x))


class Llama(nn.Module):
    """The decoder. forward(tokens (B, T), input_pos (T,) or None, cache or None) → logits (B, T or 1, vocab)."""

    def __init__(self, config: LlamaConfig):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.dim)
        self.layers = nn.ModuleList(DecoderLayer(config, i) for i in range(config.n_layers))
        self.norm = RMSNorm(config.dim, config.norm_eps)
        self.lm_head = nn.Linear(config.dim, config.vocab_size, bias=False)
        if config.tie_embeddings:
            self.lm_head.weight = self.embed.weight
        cos, sin = rope_tables(config)
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)

    def forward(self, tokens: torch.Tensor, input_pos: torch.Tensor | int | None = None,
                cache: StaticKVCache | None = None, last_logits_only: bool = False) -> torch.Tensor:
        """Logits for tokens at positions input_pos (a (T,) tensor, or a start position; default 0..T-1).

        With a cache, keys/values are written at input_pos and attention sees every earlier position.
        Without one, attention is causal over these T tokens alone (RoPE is relative: the start does not matter).
        last_logits_only skips the output head for all but the last position (prefill needs only that).
        """
        t = tokens.shape[1]
        if input_pos is None or isinstance(input_pos, int):
            input_pos = torch.arange(input_pos or 0, (input_pos or 0) + t, device=tokens.device)
        cos, sin = self.rope_cos[input_pos], self.rope_sin[input_pos]
        visible = None  # (T, max_tokens): query at position p sees cache positions 0..p
        if cache is not None:
            visible = torch.arange(cache.max_tokens, device=tokens.device)[None, :] <= input_pos[:, None]
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x, cos, sin, input_pos, cache, visible)
        x = self.norm(x)
        if last_logits_only:
            x = x[:, -1:]
        return self.lm_head(x)

    def reset_rope(self) -> None:
        """Recompute the float32 RoPE tables on the model's device (after to_empty or a dtype cast)."""
        cos, sin = rope_tables(self.config, device=self.embed.weight.device)
        self.rope_cos, self.rope_sin = cos, sin


def _stacked(*linears: nn.Linear) -> nn.Linear:
    """One bias-free Linear whose output is the given layers' outputs side by side."""
    weight = torch.cat([m.weight.detach() for m in linears], dim=0)
    fused = nn.Linear(weight.shape[1], weight.shape[0], bias=False, device=weight.device, dtype=weight.dtype)
    fused.weight.data.copy_(weight)
    return fused


def fuse_projections(model: Llama) -> Llama:
    """In place: q, k, v become one matmul per layer, and gate, up another (gpt-fast's wqkv and w13).

    Same weights and outputs, fewer and larger kernels: a batch-1 decode step launches 3 matmuls per layer fewer,
    and a small matmul streams its weight further below the bandwidth roof than a large one.
    """
    for layer in model.layers:
        attn, mlp = layer.attn, layer.mlp
        if attn.qkv_proj is None:
            attn.qkv_proj = _stacked(attn.q_proj, attn.k_proj, attn.v_proj)
            del attn.q_proj, attn.k_proj, attn.v_proj
        if mlp.gate_up_proj is None:
            mlp.gate_up_proj = _stacked(mlp.gate_proj, mlp.up_proj)
            del mlp.gate_proj, mlp.up_proj
    return model


def init_weights(model: Llama, seed: int = 0) -> Llama:
    """Random weights from a seed: N(0, 0.02), output projections scaled by 1/sqrt(2 × layers), norms 1."""
    g = torch.Generator(device=model.embed.weight.device).manual_seed(seed)
    residual_std = 0.02 / math.sqrt(2 * model.config.n_layers)
    with torch.no_grad():
        for name, p in model.named_parameters():  # a tied weight is listed once
            if name.endswith("norm.weight"):
                p.fill_(1.0)
            else:
                std = residual_std if name.endswith(("o_proj.weight", "down_proj.weight")) else 0.02
                p.normal_(0.0, std, generator=g)
    return model


def build_model(config: LlamaConfig | str, seed: int = 0, device: str | torch.device = "cpu",
                dtype: torch.dtype = torch.float32) -> Llama:
    """A Llama with random weights from `seed`, made directly on `device` in `dtype` (no float32 detour).

    The same seed gives the same weights on the same kind of device; CPU and CUDA generators differ.
    """
    config = LlamaConfig.named(config) if isinstance(config, str) else config
    with torch.device("meta"):
        model = Llama(config)
    model = model.to(dtype=dtype).to_empty(device=device)
    if config.tie_embeddings:  # to_empty makes a new Parameter per module, which unties shared weights
        model.lm_head.weight = model.embed.weight
    model.reset_rope()
    return init_weights(model, seed).eval()
