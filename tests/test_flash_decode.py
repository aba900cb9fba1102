"""helpers.llm_bench.flash_decode: decode attention over the filled part of the static cache (`--flash-decode`).

On a CPU the kernel runs in Triton's interpreter (conftest sets TRITON_INTERPRET=1 before Triton is imported)."""

import pytest
import torch
import torch.nn.functional as F

from helpers.llama import LlamaConfig, StaticKVCache, build_model
from helpers.llm_bench import GenerationConfig, make_backend

pytest.importorskip("triton")
from helpers.llm_bench.flash_decode import decode_attention, use_flash_decode  # noqa: E402


def masked_sdpa(q, keys, values, pos):
    """The model's own path: SDPA over the whole cache, positions after `pos` masked off."""
    visible = torch.arange(keys.shape[2])[None, :] <= pos
    return F.scaled_dot_product_attention(q.float(), keys.float(), values.float(), attn_mask=visible,
                                          enable_gqa=q.shape[1] != keys.shape[1])


@pytest.mark.parametrize("heads, kv_heads, head_dim, max_tokens, pos, dtype", [
    (4, 2, 32, 64, 0, torch.float32),          # one filled position
    (4, 2, 32, 300, 200, torch.float32),       # several blocks, a partial last one, positions past it left out
    (8, 8, 16, 256, 255, torch.float32),       # no grouping, the cache full to its last position
    (6, 2, 32, 130, 129, torch.bfloat16),      # a group of 3, a bf16 cache
    (4, 1, 64, 512, 17, torch.bfloat16),       # every query head on one key/value head
])
def test_kernel_matches_masked_sdpa_over_the_whole_cache(heads, kv_heads, head_dim, max_tokens, pos, dtype):
    g = torch.Generator().manual_seed(pos)
    q = torch.randn(2, 1, heads, head_dim, generator=g).to(dtype).transpose(1, 2)      # the model's transposed view
    keys, values = (torch.randn(2, kv_heads, max_tokens, head_dim, generator=g).to(dtype) for _ in range(2))
    out = decode_attention(q, keys, values, torch.tensor([pos]))
    assert out.shape == (2, heads, 1, head_dim) and out.dtype == dtype
    tolerance = 1e-5 if dtype == torch.float32 else 2**-7
    assert (out.float() - masked_sdpa(q, keys, values, pos)).abs().max() < tolerance


def test_positions_past_the_last_written_one_are_never_read():
    """NaN in every position after `pos` (what an unwritten cache may hold) changes nothing."""
    g = torch.Generator().manual_seed(1)
    q = torch.randn(1, 4, 1, 32, generator=g)
    keys, values = (torch.randn(1, 2, 256, 32, generator=g) for _ in range(2))
    clean = decode_attention(q, keys, values, torch.tensor([40]))
    keys[:, :, 41:], values[:, :, 41:] = float("nan"), float("nan")
    assert torch.equal(decode_attention(q, keys, values, torch.tensor([40])), clean)


def test_kernel_refuses_what_it_cannot_compute():
    keys = torch.zeros(1, 2, 8, 32)
    with pytest.raises(ValueError, match="one new token"):
        decode_attention(torch.zeros(1, 4, 2, 32), keys, keys, torch.tensor([0]))
    with pytest.raises(ValueError, match="evenly"):
        decode_attention(torch.zeros(1, 3, 1, 32), keys, keys, torch.tensor([0]))
    with pytest.raises(ValueError, match="power of two"):
        decode_attention(torch.zeros(1, 4, 1, 24), torch.zeros(1, 2, 8, 24), torch.zeros(1, 2, 8, 24), torch.tensor([0]))


def test_the_model_decodes_the_same_with_the_kernel():
    """A tiny model's decode logits with the kernel equal SDPA's; prefill (several tokens) keeps SDPA."""
    config = LlamaConfig.named("tiny").with_(name="tiny-2", n_layers=2)
    model = build_model(config, seed=3)
    prompt = torch.tensor([[5, 9, 2, 77, 31]])
    logits = {}
    for kernel in (False, True):
        if kernel:
            assert use_flash_decode(model) == config.n_layers
        cache = StaticKVCache(config, 1, 64)
        with torch.no_grad():
            model(prompt, torch.arange(5), cache)
            logits[kernel] = [model(torch.tensor([[t]]), torch.tensor([5 + i]), cache) for i, t in enumerate([3, 8, 1])]
    for plain, kernel in zip(logits[False], logits[True]):
        assert (plain - kernel).abs().max() < 1e-4


def test_backends_take_the_switch_and_name_it():
    backend = make_backend("eager", "tiny", device="cpu", flash_decode=True)
    with backend:
        assert backend.name == "eager+flashdecode"
        tokens = backend.collect([5, 9, 2], GenerationConfig(max_new_tokens=4)).sequences()
    with make_backend("eager", "tiny", device="cpu") as plain:
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
