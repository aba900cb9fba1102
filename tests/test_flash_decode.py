"""helpers.llm_bench.flash_decode: decode attention over the filled part of the static cache (`--flash-decode`).

On a CPU the kernel runs in Triton's interpreter (conftest sets TRITON_INTERPRET=1 before Triton is imported)."""

import pytest
import torch
import torch.nn.functional as F

from helpers.llama import LlamaConfig, StaticKVCache, apply_rope, build_model, rope_tables
from helpers.llm_bench import GenerationConfig, make_backend

pytest.importorskip("triton")
from helpers.llm_bench.flash_decode import decode_attention, use_flash_decode  # noqa: E402

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"   # the compiled kernel on a GPU, the interpreter elsewhere


def step(heads, kv_heads, head_dim, max_tokens, pos, dtype, seed=0):
    """A decode step's inputs: q, k, v of one new token (before RoPE, the model's transposed views), a cache with
    random contents, the position's cos and sin."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(2, 1, heads, head_dim, generator=g).to(dtype).transpose(1, 2)
    k, v = (torch.randn(2, 1, kv_heads, head_dim, generator=g).to(dtype).transpose(1, 2) for _ in range(2))
    keys, values = (torch.randn(2, kv_heads, max_tokens, head_dim, generator=g).to(dtype) for _ in range(2))
    cos, sin = rope_tables(LlamaConfig.named("tiny").with_(dim=head_dim * heads, n_heads=heads, n_kv_heads=kv_heads,
                                                            max_seq_len=max_tokens))
    return tuple(t.to(DEVICE) for t in (q, k, v, keys, values, cos[pos:pos + 1], sin[pos:pos + 1]))


def reference(q, k, v, keys, values, cos, sin, pos):
    """The model's own path: RoPE, the cache written with index_copy_, SDPA over the whole cache, later positions
    masked off; (output, keys, values)."""
    q, k = apply_rope(q.float(), cos, sin), apply_rope(k.float(), cos, sin)
    keys, values = keys.clone(), values.clone()
    keys.index_copy_(2, torch.tensor([pos], device=DEVICE), k.to(keys.dtype))
    values.index_copy_(2, torch.tensor([pos], device=DEVICE), v.to(values.dtype))
    visible = torch.arange(keys.shape[2], device=DEVICE)[None, :] <= pos
    out = F.scaled_dot_product_attention(q, keys.float(), values.float(), attn_mask=visible,
                                         enable_gqa=q.shape[1] != keys.shape[1])
    return out, keys, values


@pytest.mark.parametrize("heads, kv_heads, head_dim, max_tokens, pos, dtype", [
    (4, 2, 32, 64, 0, torch.float32),          # the first position: nothing read from the cache
    (4, 2, 32, 300, 200, torch.float32),       # several blocks, a partial last one, positions past it left out
    (8, 8, 16, 256, 255, torch.float32),       # no grouping, the cache full to its last position
    (6, 2, 32, 130, 129, torch.bfloat16),      # a group of 3, a bf16 cache
    (4, 1, 64, 512, 17, torch.bfloat16),       # every query head on one key/value head
])
def test_kernel_matches_rope_cache_write_and_masked_sdpa(heads, kv_heads, head_dim, max_tokens, pos, dtype):
    q, k, v, keys, values, cos, sin = step(heads, kv_heads, head_dim, max_tokens, pos, dtype, seed=pos)
    want, want_keys, want_values = reference(q, k, v, keys, values, cos, sin, pos)
    out = decode_attention(q, k, v, keys, values, cos, sin, torch.tensor([pos], device=DEVICE))
    assert out.shape == (2, heads, 1, head_dim) and out.dtype == dtype
    tolerance = 1e-5 if dtype == torch.float32 else 2**-7
    assert (out.float() - want).abs().max() < tolerance
    assert torch.equal(values, want_values)                                 # v written at pos, nothing else touched
    assert (keys.float() - want_keys.float()).abs().max() <= tolerance * 4 # k rotated in fp32, then rounded
    others = torch.arange(max_tokens, device=DEVICE) != pos
    assert torch.equal(keys[:, :, others], want_keys[:, :, others])


def test_positions_past_the_new_one_are_never_read():
    """NaN at the new position and after it (what an unwritten cache may hold) changes nothing."""
    q, k, v, keys, values, cos, sin = step(4, 2, 32, 256, 40, torch.float32, seed=1)
    at = torch.tensor([40], device=DEVICE)
    clean = decode_attention(q, k, v, keys.clone(), values.clone(), cos, sin, at)
    keys[:, :, 40:], values[:, :, 40:] = float("nan"), float("nan")
    assert torch.equal(decode_attention(q, k, v, keys, values, cos, sin, at), clean)


def test_kernel_refuses_what_it_cannot_compute():
    keys, new, cs = torch.zeros(1, 2, 8, 32), torch.zeros(1, 2, 1, 32), torch.zeros(1, 32)
    with pytest.raises(ValueError, match="one new token"):
        decode_attention(torch.zeros(1, 4, 2, 32), new, new, keys, keys, cs, cs, torch.tensor([0]))
    with pytest.raises(ValueError, match="evenly"):
        decode_attention(torch.zeros(1, 3, 1, 32), new, new, keys, keys, cs, cs, torch.tensor([0]))
    with pytest.raises(ValueError, match="new key and value"):
        decode_attention(torch.zeros(1, 4, 1, 32), new[:, :1], new, keys, keys, cs, cs, torch.tensor([0]))
    with pytest.raises(ValueError, match="power of two"):
        k24 = torch.zeros(1, 2, 8, 24)
        decode_attention(torch.zeros(1, 4, 1, 24), k24[:, :, :1], k24[:, :, :1], k24, k24.clone(), cs[:, :24],
                         cs[:, :24], torch.tensor([0]))


def decode_three(model, config, step=None):
    """Prefill five tokens into a fresh cache, then three decode steps (through `step`, else the model itself): the
    decode logits and the cache."""
    cache = StaticKVCache(config, 1, 64, device=DEVICE)
    step = step or (lambda tok, pos, cache: model(tok, pos, cache))
    with torch.no_grad():
        model(torch.tensor([[5, 9, 2, 77, 31]], device=DEVICE), torch.arange(5, device=DEVICE), cache)
        logits = [step(torch.tensor([[t]], device=DEVICE), torch.tensor([5 + i], device=DEVICE), cache).clone()
                  for i, t in enumerate([3, 8, 1])]
    return logits, cache


def test_the_model_decodes_the_same_with_the_kernel_eager_and_compiled():
    """A tiny model's decode logits and cache with the kernel equal SDPA's, eager and under torch.compile (which must
    write the cache in place, not a copy of it); prefill (several tokens) keeps SDPA."""
    config = LlamaConfig.named("tiny").with_(name="tiny-2", n_layers=2)
    model = build_model(config, seed=3, device=DEVICE)
    plain, plain_cache = decode_three(model, config)
    assert use_flash_decode(model) == config.n_layers
    compiled = torch.compile(lambda tok, pos, cache: model(tok, pos, cache), dynamic=False)
    for step in (None, compiled):
        logits, cache = decode_three(model, config, step)
        for a, b in zip(plain, logits):
            assert (a - b).abs().max() < 1e-4
        for a, b in zip(plain_cache.tensors(), cache.tensors()):
            assert (a - b).abs().max() < 1e-5


def test_backends_take_the_switch_and_name_it():
    backend = make_backend("eager", "tiny", device=DEVICE, flash_decode=True)
    with backend:
        assert backend.name == "eager+flashdecode"
        tokens = backend.collect([5, 9, 2], GenerationConfig(max_new_tokens=4)).sequences()
    with make_backend("eager", "tiny", device=DEVICE) as plain:
        assert plain.collect([5, 9, 2], GenerationConfig(max_new_tokens=4)).sequences() == tokens


def test_without_a_gpu_or_the_interpreter_the_switch_is_refused_in_words():
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in __import__("os").environ.items() if k != "TRITON_INTERPRET"}
    script = ("from helpers.llm_bench import make_backend\n"
              "try:\n    make_backend('eager', 'tiny', device='cpu', flash_decode=True)\n"
              "except RuntimeError as err:\n    print(err)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                         cwd=Path(__file__).resolve().parents[1], timeout=120)
    assert "TRITON_INTERPRET=1" in out.stdout and "CUDA GPU" in out.stdout, out.stdout + out.stderr
