"""Lab 07's checks: the solution passes each one, public and hidden; the untouched lab fails each one with
"not written yet"; and the classic mistakes of each exercise fail the check that covers it, public and hidden,
with a message that names the cause."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from helpers import checks
from tests.in_process_grader import notebook_namespace, run_hidden, run_public

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "07_llm_bench.ipynb"
LAB = ROOT / "labs" / "07_llm_bench.ipynb"
CELLS = ["parameters", "setup", "ex-a", "ex-b", "ex-b2", "ex-c", "ex-c2", "ex-d", "ex-e", "given-e", "ex-e2", "ex-f", "ex-g"]
NAMES = [s.name for s in checks.load_lab("07")]


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("lab07")


@pytest.fixture(scope="module")
def solved(out) -> dict:
    return notebook_namespace(SOLUTION, out, CELLS)


@pytest.fixture(scope="module")
def untouched(out) -> dict:
    return notebook_namespace(LAB, out, CELLS)


def test_points():
    assert sum(s.points for s in checks.load_lab("07")) == 20


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes_public_and_hidden(name, solved, out):
    for run in (run_public, run_hidden):
        result = run(name, solved, out)
        assert result.passed, (run.__name__, result.line())


@pytest.mark.parametrize("name", NAMES)
def test_untouched_lab_fails_as_not_written(name, untouched, out):
    result = run_public(name, untouched, out)
    assert not result.passed
    assert "not written yet" in result.message, result.line()


def with_source(solved: dict, source: str) -> dict:
    ns = dict(solved)
    exec(source, ns)
    return ns


MISTAKES = {
    "07.latency": [
        ("TTFT as the absolute arrival time", """
def latency_summary(start_s, token_times_s):
    n = len(token_times_s)
    e2e = token_times_s[-1] - start_s
    ttft = token_times_s[0]
    tpot = (token_times_s[-1] - token_times_s[0]) / (n - 1) if n > 1 else math.nan
    return {"ttft_s": ttft, "tpot_s": tpot, "e2e_s": e2e, "naive_ttft_s": e2e / n, "naive_error": e2e / n / ttft - 1}
""", "start of the call"),
        ("TPOT as e2e / tokens", """
def latency_summary(start_s, token_times_s):
    n = len(token_times_s)
    ttft, e2e = token_times_s[0] - start_s, token_times_s[-1] - start_s
    return {"ttft_s": ttft, "tpot_s": e2e / n, "e2e_s": e2e, "naive_ttft_s": e2e / n, "naive_error": e2e / n / ttft - 1}
""", "(n - 1)"),
        ("naive TTFT over n - 1 tokens", """
def latency_summary(start_s, token_times_s):
    n = len(token_times_s)
    ttft, e2e = token_times_s[0] - start_s, token_times_s[-1] - start_s
    tpot = (token_times_s[-1] - token_times_s[0]) / (n - 1) if n > 1 else math.nan
    naive = e2e / max(n - 1, 1)
    return {"ttft_s": ttft, "tpot_s": tpot, "e2e_s": e2e, "naive_ttft_s": naive, "naive_error": naive / ttft - 1}
""", "e2e / number of tokens"),
    ],
    "07.flops_bytes": [
        ("attention left out", """
def flops_per_token(config, context):
    return 2 * matmul_weights(config)
""", "count attention"),
        ("an untied input embedding read whole", """
def decode_bytes_per_token(config, context, batch=1, weight_bytes=2, kv_bytes=2):
    streamed = matmul_weights(config) + (2 * config.n_layers + 1) * config.dim
    streamed += 0 if config.tie_embeddings else config.vocab_size * config.dim
    kv = config.n_layers * 2 * config.n_kv_heads * config.head_dim * (context + 1) * batch * kv_bytes
    return (streamed * weight_bytes + kv) / batch
""", "untied input embedding"),
        ("bytes per step, not per token", """
def decode_bytes_per_token(config, context, batch=1, weight_bytes=2, kv_bytes=2):
    streamed = matmul_weights(config) + (2 * config.n_layers + 1) * config.dim + (0 if config.tie_embeddings else batch * config.dim)
    kv = config.n_layers * 2 * config.n_kv_heads * config.head_dim * (context + 1) * batch * kv_bytes
    return streamed * weight_bytes + kv
""", "divide by the batch"),
    ],
    "07.roofline": [
        ("compute and memory time added", """
def roofline_time(flops, bytes_moved, peak_flops, bandwidth):
    c, m = flops / peak_flops, bytes_moved / bandwidth
    return c + m, "compute" if c > m else "bandwidth"
""", "not their sum"),
        ("the bound the wrong way round", """
def roofline_time(flops, bytes_moved, peak_flops, bandwidth):
    c, m = flops / peak_flops, bytes_moved / bandwidth
    return max(c, m), "bandwidth" if c > m else "compute"
""", "whichever takes longer"),
    ],
    "07.kv_cache": [
        ("query heads instead of KV heads", """
def kv_cache_bytes(config, tokens, batch=1, dtype_bytes=2):
    return config.n_layers * 2 * config.n_heads * config.head_dim * tokens * batch * dtype_bytes
""", "per KV head"),
        ("keys only", """
def kv_cache_bytes(config, tokens, batch=1, dtype_bytes=2):
    return config.n_layers * config.n_kv_heads * config.head_dim * tokens * batch * dtype_bytes
""", "keys and values"),
    ],
    "07.kv_budget": [
        ("a negative count when nothing fits", """
def max_sequences(config, tokens, memory_bytes, weight_bytes, dtype_bytes=2):
    return (memory_bytes - weight_bytes) // kv_cache_bytes(config, tokens, 1, dtype_bytes)
""", "return 0"),
        ("not rounded down", """
def max_sequences(config, tokens, memory_bytes, weight_bytes, dtype_bytes=2):
    return max(0, (memory_bytes - weight_bytes) / kv_cache_bytes(config, tokens, 1, dtype_bytes))
""", "round down"),
    ],
    "07.static_decode": [
        ("the position passed as a Python int", """
def generate_static(model, prompt_ids, max_new_tokens, compiler=None):
    w = model.embed.weight
    P = len(prompt_ids)
    cache = StaticKVCache(model.config, 1, P + max_new_tokens, dtype=w.dtype, device=w.device)
    decode = compiler(lambda token, pos: model(token, pos, cache)) if compiler else (lambda token, pos: model(token, pos, cache))
    with torch.no_grad():
        logits = model(torch.tensor([list(prompt_ids)], device=w.device), 0, cache, last_logits_only=True)
        ids = [int(logits[0, -1].argmax())]
        for i in range(max_new_tokens - 1):
            logits = decode(torch.tensor([[ids[-1]]], device=w.device), P + i)
            ids.append(int(logits[0, -1].argmax()))
    return ids
""", "Python int"),
        ("the compiler ignored", """
def generate_static(model, prompt_ids, max_new_tokens, compiler=None):
    w = model.embed.weight
    P = len(prompt_ids)
    cache = StaticKVCache(model.config, 1, P + max_new_tokens, dtype=w.dtype, device=w.device)
    with torch.no_grad():
        logits = model(torch.tensor([list(prompt_ids)], device=w.device), torch.arange(P), cache, last_logits_only=True)
        ids = [int(logits[0, -1].argmax())]
        pos = torch.tensor([P])
        for _ in range(max_new_tokens - 1):
            logits = model(torch.tensor([[ids[-1]]], device=w.device), pos, cache)
            ids.append(int(logits[0, -1].argmax()))
            pos += 1
    return ids
""", "never used the compiler"),
        ("the prompt fed through the decode step token by token", """
def generate_static(model, prompt_ids, max_new_tokens, compiler=None):
    w = model.embed.weight
    P = len(prompt_ids)
    cache = StaticKVCache(model.config, 1, P + max_new_tokens, dtype=w.dtype, device=w.device)
    step = lambda token, pos: model(token, pos, cache)
    decode = compiler(step) if compiler else step
    ids, pos = [], torch.tensor([0])
    with torch.no_grad():
        for t in list(prompt_ids):
            logits = decode(torch.tensor([[t]]), pos)
            pos += 1
        ids.append(int(logits[0, -1].argmax()))
        for _ in range(max_new_tokens - 1):
            logits = decode(torch.tensor([[ids[-1]]]), pos)
            ids.append(int(logits[0, -1].argmax()))
            pos += 1
    return ids
""", "eager prefill"),
        ("the position never advanced", """
def generate_static(model, prompt_ids, max_new_tokens, compiler=None):
    w = model.embed.weight
    P = len(prompt_ids)
    cache = StaticKVCache(model.config, 1, P + max_new_tokens, dtype=w.dtype, device=w.device)
    step = lambda token, pos: model(token, pos, cache)
    decode = compiler(step) if compiler else step
    with torch.no_grad():
        logits = model(torch.tensor([list(prompt_ids)]), torch.arange(P), cache, last_logits_only=True)
        ids, pos = [int(logits[0, -1].argmax())], torch.tensor([P])
        for _ in range(max_new_tokens - 1):
            logits = decode(torch.tensor([[ids[-1]]]), pos)
            ids.append(int(logits[0, -1].argmax()))
    return ids
""", "+1 per token"),
        ("the cache forgotten between steps", """
def generate_static(model, prompt_ids, max_new_tokens, compiler=None):
    w = model.embed.weight
    P = len(prompt_ids)
    make = lambda: StaticKVCache(model.config, 1, P + max_new_tokens, dtype=w.dtype, device=w.device)
    cache = make()
    step = lambda token, pos: model(token, pos, make())
    decode = compiler(step) if compiler else step
    with torch.no_grad():
        logits = model(torch.tensor([list(prompt_ids)]), torch.arange(P), cache, last_logits_only=True)
        ids, pos = [int(logits[0, -1].argmax())], torch.tensor([P])
        for _ in range(max_new_tokens - 1):
            logits = decode(torch.tensor([[ids[-1]]]), pos)
            ids.append(int(logits[0, -1].argmax()))
            pos += 1
    return ids
""", "keep the cache"),
    ],
    "07.int8_weights": [
        ("one scale for the whole tensor", """
def quantize_linear_int8(weight):
    w = weight.detach().float()
    scale = (w.abs().max() / 127.0).clamp(min=1e-12)
    q = torch.round(w / scale).clamp(-127, 127).to(torch.int8)
    return q, scale.expand(w.shape[0]).to(weight.dtype)
""", "one per tensor"),
        ("truncated instead of rounded", """
def quantize_linear_int8(weight):
    w = weight.detach().float()
    scales = (w.abs().amax(dim=1) / 127.0).clamp(min=1e-12)
    return (w / scales[:, None]).to(torch.int8), scales.to(weight.dtype)
""", "torch.round"),
        ("the unsigned range's 255", """
def quantize_linear_int8(weight):
    w = weight.detach().float()
    scales = (w.abs().amax(dim=1) / 255.0).clamp(min=1e-12)
    q = torch.round(w / scales[:, None]).clamp(-127, 127).to(torch.int8)
    return q, scales.to(weight.dtype)
""", "/ 127"),
        ("the scales never applied", """
def int8_linear(x, q, scales):
    return x @ q.to(x.dtype).T
""", "scale each output column"),
    ],
    "07.int8_model": [
        ("only the model's direct children", """
def quantize_model(model):
    for name, child in list(model.named_children()):
        if isinstance(child, nn.Linear):
            setattr(model, name, QuantLinear(*quantize_linear_int8(child.weight)))
    return model
""", "nested"),
        ("weights rounded but left in nn.Linear", """
def quantize_model(model):
    for m in model.modules():
        if isinstance(m, nn.Linear):
            q, s = quantize_linear_int8(m.weight)
            m.weight.data = q.float() * s[:, None]
    return model
""", "still there"),
    ],
    "07.percentiles": [
        ("ITL as one mean per run", """
def run_percentiles(runs):
    ttft = [(t[0] - s) * 1e3 for s, t in runs]
    tpot = [(t[-1] - t[0]) / (len(t) - 1) * 1e3 for s, t in runs if len(t) > 1]
    itl = tpot
    pct = lambda xs: {f"p{q}": float(np.percentile(xs, q)) for q in (50, 95, 99)}
    return {"ttft_ms": pct(ttft), "tpot_ms": pct(tpot), "itl_ms": pct(itl)}
""", "pooled"),
        ("seconds", """
def run_percentiles(runs):
    ttft = [(t[0] - s) for s, t in runs]
    tpot = [(t[-1] - t[0]) / (len(t) - 1) for s, t in runs if len(t) > 1]
    itl = [b - a for s, t in runs for a, b in zip(t, t[1:])]
    pct = lambda xs: {f"p{q}": float(np.percentile(xs, q)) for q in (50, 95, 99)}
    return {"ttft_ms": pct(ttft), "tpot_ms": pct(tpot), "itl_ms": pct(itl)}
""", "milliseconds"),
        ("nearest-rank percentiles", """
def run_percentiles(runs):
    ttft = [(t[0] - s) * 1e3 for s, t in runs]
    tpot = [(t[-1] - t[0]) / (len(t) - 1) * 1e3 for s, t in runs if len(t) > 1]
    itl = [(b - a) * 1e3 for s, t in runs for a, b in zip(t, t[1:])]
    pct = lambda xs: {f"p{q}": float(np.percentile(xs, q, method="nearest")) for q in (50, 95, 99)}
    return {"ttft_ms": pct(ttft), "tpot_ms": pct(tpot), "itl_ms": pct(itl)}
""", "interpolate linearly"),
    ],
    "07.bandwidth": [
        ("utilisation in percent", """
def bandwidth_utilisation(result, copy_bw):
    moved, tpot = result.get("decode_bytes_per_step"), result["stats"]["tpot_s"]["p50"]
    if not moved or tpot is None or not math.isfinite(tpot) or tpot <= 0:
        return None
    return {"gbps": moved / tpot / 1e9, "utilisation": 100 * moved / tpot / copy_bw}
""", "a fraction"),
        ("end-to-end time instead of TPOT", """
def bandwidth_utilisation(result, copy_bw):
    moved, e2e = result.get("decode_bytes_per_step"), result["stats"]["e2e_s"]["p50"]
    tpot = result["stats"]["tpot_s"]["p50"]
    if not moved or tpot is None or not math.isfinite(tpot):
        return None
    return {"gbps": moved / e2e / 1e9, "utilisation": moved / e2e / copy_bw}
""", "median TPOT"),
        ("zeros instead of None", """
def bandwidth_utilisation(result, copy_bw):
    moved, tpot = result.get("decode_bytes_per_step"), result["stats"]["tpot_s"]["p50"]
    if not moved or tpot is None or not math.isfinite(tpot) or tpot <= 0:
        return {"gbps": 0.0, "utilisation": 0.0}
    return {"gbps": moved / tpot / 1e9, "utilisation": moved / tpot / copy_bw}
""", "return None"),
    ],
}
CASES = [(name, about, src, words) for name, items in MISTAKES.items() for about, src, words in items]


def test_every_check_has_a_mistake():
    assert set(MISTAKES) == set(NAMES)


@pytest.mark.parametrize("name,about,source,words", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_classic_mistake_fails_with_a_message_that_says_why(name, about, source, words, solved, out):
    ns = with_source(solved, source)
    public = run_public(name, ns, out)
    assert not public.passed and words in public.message, public.line()
    assert public.status == "failed", public.line()
    assert not run_hidden(name, ns, out).passed


DELEGATIONS = [
    ("07.latency", """
from helpers.llm_bench.generation import GenerationResult
def latency_summary(start_s, token_times_s):
    r = GenerationResult(prompt_tokens=1, batch=1, start_s=start_s, token_times_s=list(token_times_s))
    return {"ttft_s": r.ttft_s, "tpot_s": r.tpot_s, "e2e_s": r.e2e_s, "naive_ttft_s": r.naive_ttft_s,
            "naive_error": r.naive_ttft_s / r.ttft_s - 1}
""", "GenerationResult.ttft_s"),
    ("07.flops_bytes", """
from helpers.llama import flops_per_token as _f, decode_bytes_per_token as _b
flops_per_token = lambda config, context: _f(config, context)
decode_bytes_per_token = lambda *a: _b(*a)
""", "helpers.llama.flops_per_token"),
    ("07.kv_cache", """
import helpers.llama as L
def kv_cache_bytes(config, tokens, batch, dtype_bytes):
    return L.kv_cache_bytes(config, tokens, batch, dtype_bytes)
""", "helpers.llama.kv_cache_bytes"),
    ("07.int8_weights", """
from helpers.llm_bench.quantize import Int8Linear
def quantize_linear_int8(weight):
    layer = Int8Linear.from_linear(_wrap(weight))
    return layer.weight_int8, layer.scales
def _wrap(weight):
    lin = torch.nn.Linear(weight.shape[1], weight.shape[0], bias=False, dtype=weight.dtype)
    lin.weight.data.copy_(weight)
    return lin
""", "Int8Linear.from_linear"),
    ("07.int8_model", """
from helpers.llm_bench.quantize import quantize_int8
def quantize_model(model):
    quantize_int8(model)
    return model
""", "quantize_int8"),
]


@pytest.mark.parametrize("name,source,words", DELEGATIONS, ids=[d[0] for d in DELEGATIONS])
def test_calling_the_packages_own_version_fails_and_says_so(name, source, words, solved, out):
    """The package's versions of an exercise refuse while the check runs; afterwards they work again."""
    from helpers import llama
    from helpers.llm_bench import quantize

    ns = with_source(solved, source)
    for run in (run_public, run_hidden):
        result = run(name, ns, out)
        assert not result.passed and words in result.message and "your own code" in result.message, result.line()
    assert llama.kv_cache_bytes(llama.LlamaConfig.named("tiny"), 1) > 0            # restored
    assert quantize.Int8Linear.from_linear(torch.nn.Linear(4, 2, bias=False)).weight_int8.dtype == torch.int8
