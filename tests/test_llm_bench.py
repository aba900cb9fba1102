"""Tests for helpers/llm_bench: tokenizer, generation arithmetic, backends, int8, runner JSON, the CLI."""

import json
import math
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest
import torch
from torch import nn

from helpers.llama import LlamaConfig, build_model
from helpers import bench
from helpers.llm_bench import (BenchResults, ByteTokenizer, CompiledBackend, EagerBackend, GenerationConfig,
                               GenerationResult, HFBackend, Int8Backend, LLMBackend, Workload, percentiles,
                               run_benchmark, workload, WORKLOADS)
from helpers.llm_bench.cli import main
from helpers.llm_bench.generation import sample_next
from helpers.llm_bench.quantize import Int8Linear, quantize_int8, weight_bytes

REPO = Path(__file__).resolve().parents[1]
TINY = LlamaConfig.named("tiny")
UNTIED = TINY.with_(name="tiny-untied", tie_embeddings=False)  # greedy tokens vary (a tied random model echoes)
PROMPT = list(ByteTokenizer().encode("The static cache keeps shapes fixed."))
LINEARS = (nn.Linear, Int8Linear)
TORCH_JIT_DEPRECATION = pytest.mark.filterwarnings("ignore::DeprecationWarning:torch.jit._script")  # Inductor's own


def greedy_without_cache(config: LlamaConfig, prompt: list[int], n: int) -> list[int]:
    """Reference: greedy ids from full forwards over the growing sequence, no cache at all."""
    model, ids = build_model(config), list(prompt)
    with torch.no_grad():
        for _ in range(n):
            ids.append(int(model(torch.tensor([ids]))[0, -1].argmax()))
    return ids[len(prompt):]


# -----------------------------------------------------------------------------
# tokenizer


@pytest.mark.parametrize("text", ["", "hello", "naïve café", "日本語のテキスト", "emoji 🧪🚀, ZWJ 👩‍💻, flag 🇫🇷",
                                  "e\u0301 (combining)", "\x00 tabs\tand\nnewlines", "Ωμέγα ∑ ∞"])
def test_tokenizer_round_trips_unicode(text):
    tok = ByteTokenizer()
    ids = tok.encode(text)
    assert ids == list(text.encode("utf-8")) and all(0 <= i < 256 for i in ids)
    assert tok.decode(ids) == text
    assert tok.decode(tok.encode(text, bos=True, eos=True)) == text


def test_tokenizer_specials_and_foreign_ids():
    tok = ByteTokenizer()
    assert tok.vocab_size == 259 <= TINY.vocab_size
    ids = tok.encode("hi", bos=True, eos=True)
    assert ids[0] == tok.bos_id and ids[-1] == tok.eos_id
    assert tok.decode(ids, skip_special=False) == "<bos>hi<eos>"
    assert tok.decode([0xE2, 0x82]) == "\ufffd"  # a cut-off UTF-8 sequence
    assert tok.decode([104, 5000, 105]) == "h\ufffdi"  # an id from a bigger model vocabulary


# -----------------------------------------------------------------------------
# generation arithmetic


def test_generation_result_arithmetic_from_synthetic_timestamps():
    r = GenerationResult(prompt_tokens=12, batch=2, start_s=100.0, token_times_s=[100.5, 100.6, 100.7, 100.9],
                         tokens=[[1, 2], [3, 4], [5, 6], [7, 8]])
    assert r.n_tokens == 4
    assert r.ttft_s == pytest.approx(0.5)
    assert r.itl_s == pytest.approx([0.1, 0.1, 0.2])
    assert r.tpot_s == pytest.approx(0.4 / 3)
    assert r.e2e_s == pytest.approx(0.9)
    assert r.tokens_per_s == pytest.approx(2 * 4 / 0.9)
    assert r.naive_ttft_s == pytest.approx(0.9 / 4)  # the no-stream guess: far from the real 0.5 s
    assert r.sequences() == [[1, 3, 5, 7], [2, 4, 6, 8]]
    summary = r.summary()
    assert summary["token_offsets_s"] == pytest.approx([0.5, 0.6, 0.7, 0.9]) and summary["ttft_s"] == r.ttft_s
    one = GenerationResult(prompt_tokens=3, batch=1, start_s=0.0, token_times_s=[0.25], tokens=[[9]])
    assert one.ttft_s == one.e2e_s == 0.25 and math.isnan(one.tpot_s)
    assert math.isnan(GenerationResult(3, 1, 0.0).ttft_s)


def test_percentiles_interpolate_like_numpy():
    p = percentiles([float(x) for x in range(1, 101)])
    assert p == pytest.approx({"p50": 50.5, "p95": 95.05, "p99": 99.01, "mean": 50.5})
    assert percentiles([2.0, math.nan, 4.0])["p50"] == 3.0
    assert all(math.isnan(v) for v in percentiles([]).values())


def test_sampling_greedy_seeded_and_top_k():
    logits = torch.randn(3, 50, generator=torch.Generator().manual_seed(0))
    assert torch.equal(sample_next(logits, GenerationConfig(), None), logits.argmax(-1))
    hot = GenerationConfig(temperature=1.0)
    draw = lambda seed: sample_next(logits, hot, torch.Generator().manual_seed(seed))
    assert torch.equal(draw(1), draw(1))
    assert any(not torch.equal(draw(1), draw(s)) for s in range(2, 6))
    top1 = GenerationConfig(temperature=1.0, top_k=1)
    assert torch.equal(sample_next(logits, top1, torch.Generator().manual_seed(3)), logits.argmax(-1))


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_two_stage_greedy_ids_equal_argmax_ties_and_nan_included(device):
    """greedy_ids is torch.argmax in two stages: the same ids for vocabularies that are and are not a multiple of its
    chunk, for many ties (the first maximum wins), a NaN (it wins, as in argmax) and a row of -inf, eager and compiled."""
    from helpers.llm_bench.generation import greedy_ids

    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    g = torch.Generator().manual_seed(0)
    for vocab in (300, 32000, 50257, 128256):
        for dtype in (torch.float32, torch.bfloat16):
            tied = torch.randint(-2, 3, (4, vocab), generator=g).to(device, dtype)
            tied[3] = float("-inf")
            odd = torch.randn(2, vocab, generator=g).to(device, dtype)
            odd[1, vocab // 3] = float("nan")
            for logits in (tied, odd):
                assert torch.equal(greedy_ids(logits), logits.argmax(-1)), (vocab, dtype)
    logits = torch.randint(-2, 3, (2, 128256), generator=g).float().to(device)
    assert torch.equal(torch.compile(greedy_ids)(logits), logits.argmax(-1))


# -----------------------------------------------------------------------------
# backends


def test_eager_stream_equals_greedy_without_cache():
    config = GenerationConfig(max_new_tokens=12)
    with EagerBackend(UNTIED, device="cpu") as backend:
        steps = list(backend.generate(PROMPT, config))
        result = backend.collect(PROMPT, config)
    assert len(steps) == 12 and all(isinstance(s, list) and len(s) == 1 for s in steps)
    assert [s[0] for s in steps] == result.sequences()[0] == greedy_without_cache(UNTIED, PROMPT, 12)
    assert result.prompt_tokens == len(PROMPT) and result.n_tokens == 12
    assert all(a < b for a, b in zip([result.start_s] + result.token_times_s, result.token_times_s))


def test_eager_batch_seed_stop_and_errors():
    backend = EagerBackend("tiny", device="cpu")
    with pytest.raises(RuntimeError, match="load"):
        next(backend.generate(PROMPT, GenerationConfig()))
    backend.load()
    rows = [PROMPT, PROMPT[::-1]]
    sampled = GenerationConfig(max_new_tokens=6, temperature=1.0, seed=7)
    a, b = backend.collect(rows, sampled), backend.collect(rows, sampled)
    assert a.batch == 2 and a.sequences() == b.sequences() and len(a.sequences()[1]) == 6
    first = a.tokens[0][0]
    stopped = backend.collect(PROMPT, GenerationConfig(max_new_tokens=6, temperature=1.0, seed=7,
                                                       stop_token_ids=(first,)))
    assert stopped.tokens == [[first]]  # the stop id is yielded, then generation ends
    with pytest.raises(ValueError, match="equal lengths"):
        backend.collect([PROMPT, PROMPT[:-1]], GenerationConfig())
    with pytest.raises(ValueError, match="max_seq_len"):
        backend.collect(PROMPT, GenerationConfig(max_new_tokens=TINY.max_seq_len))
    backend.cleanup()


def test_int8_linear_dequantizes_within_half_a_step():
    linear = nn.Linear(64, 48, bias=False)
    q = Int8Linear.from_linear(linear)
    assert q.weight_int8.dtype == torch.int8 and q.scales.shape == (48,)
    err = (q.dequantized() - linear.weight).abs()
    assert bool((err <= q.scales[:, None] / 2 + 1e-7).all())
    x = torch.randn(5, 64)
    torch.testing.assert_close(q(x), x @ q.dequantized().T, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype, ratio", [(torch.float32, 0.25), (torch.bfloat16, 0.5)])
def test_int8_weight_bytes_are_a_quarter_of_fp32_and_half_of_bf16(dtype, ratio):
    model = build_model(TINY, dtype=dtype)
    before_linear, before_all = weight_bytes(model, only=LINEARS), weight_bytes(model)
    assert quantize_int8(model) == 4 * 7 + 1  # seven per layer and the output head
    after_linear, after_all = weight_bytes(model, only=LINEARS), weight_bytes(model)
    assert ratio <= after_linear / before_linear <= ratio * 1.05  # + one scale per output row
    assert after_all / before_all < ratio * 1.3  # the embedding table stays unquantized


def test_int8_backend_logits_close_and_generates():
    with Int8Backend(UNTIED, device="cpu") as backend:
        err = backend.logits_error
        result = backend.collect(PROMPT, GenerationConfig(max_new_tokens=8))
        info = backend.info()
    assert err["rel_rms"] < 0.03 and err["top1_agreement"] >= 0.9 and err["reference_dtype"] == "float32"
    assert info["weight_bytes"] < 0.3 * info["weight_bytes_unquantized"]
    reference = greedy_without_cache(UNTIED, PROMPT, 8)
    assert sum(a == b for a, b in zip(result.sequences()[0], reference)) >= 6


@pytest.mark.slow
@TORCH_JIT_DEPRECATION
def test_compiled_decode_compiles_once_for_twenty_tokens():
    config = UNTIED.with_(name="tiny-2-layers", n_layers=2)  # fewer layers: a shorter compile
    with CompiledBackend(config, device="cpu", mode="default") as backend:
        first = backend.collect(PROMPT, GenerationConfig(max_new_tokens=20))
        assert backend.decode_compiles == 1  # one graph for 19 decode steps: no recompile per position
        second = backend.collect(PROMPT[:-3], GenerationConfig(max_new_tokens=20))  # same cache, other length
        assert backend.decode_compiles == 1 and backend.prefill_compiles == 0
        assert backend.info()["decode_compiles"] == 1
    assert first.sequences()[0] == greedy_without_cache(config, PROMPT, 20)
    assert second.sequences()[0] == greedy_without_cache(config, PROMPT[:-3], 20)


@pytest.mark.slow
@TORCH_JIT_DEPRECATION
def test_greedy_in_graph_picks_the_same_tokens_and_compiles_once():
    """greedy_in_graph: the compiled step writes its own argmax and position; the tokens are those of greedy decoding
    without a cache, one graph serves two prompts of different lengths, and sampling still samples (the plain step)."""
    config = UNTIED.with_(name="tiny-2-layers", n_layers=2)
    with CompiledBackend(config, device="cpu", mode="default", greedy_in_graph=True) as backend:
        assert backend.name == "compiled+greedy-in-graph"
        first = backend.collect(PROMPT, GenerationConfig(max_new_tokens=12))
        second = backend.collect(PROMPT[:-3], GenerationConfig(max_new_tokens=12))
        assert backend.decode_compiles == 1
        sampled = backend.collect(PROMPT, GenerationConfig(max_new_tokens=6, temperature=1.0, seed=1))
        assert backend.decode_compiles == 2 and sampled.n_tokens == 6   # the plain step, compiled now, did it
    assert first.sequences()[0] == greedy_without_cache(config, PROMPT, 12)
    assert second.sequences()[0] == greedy_without_cache(config, PROMPT[:-3], 12)


def test_stream_tokens_uses_the_ids_a_step_picked_itself():
    """advance may return (logits or None, ids): those ids are yielded as they are, never sampled again."""
    from helpers.llm_bench.generation import stream_tokens

    fed = []

    def advance(next_ids):
        fed.append(int(next_ids[0]))
        return None, next_ids + 2

    first = torch.zeros(1, 9)
    first[0, 1] = 1.0
    tokens = [ids[0] for ids in stream_tokens(first, advance, GenerationConfig(max_new_tokens=4), None)]
    assert tokens == [1, 3, 5, 7] and fed == [1, 3, 5]


@pytest.mark.slow
@TORCH_JIT_DEPRECATION
def test_compiled_int8_decode_matches_eager_int8():
    config = UNTIED.with_(name="tiny-1-layer", n_layers=1)  # under compile, one row takes the multiply-and-sum path
    generation = GenerationConfig(max_new_tokens=10)
    with Int8Backend(config, device="cpu") as eager:
        expected = eager.collect(PROMPT, generation).sequences()
    with Int8Backend(config, device="cpu", compile_mode="default") as compiled:
        assert compiled.collect(PROMPT, generation).sequences() == expected
        assert compiled.decode_compiles == 1 and compiled.name == "int8-compiled-default"


@pytest.mark.slow
@pytest.mark.gpu
@TORCH_JIT_DEPRECATION
def test_reduce_overhead_on_cuda_compiles_once_and_matches_eager():
    prompt, config = PROMPT, GenerationConfig(max_new_tokens=20)
    with EagerBackend(UNTIED, device="cuda", dtype="float32") as eager:
        expected = eager.collect(prompt, config).sequences()
    with CompiledBackend(UNTIED, device="cuda", dtype="float32", mode="reduce-overhead") as backend:
        for _ in range(3):  # the first run compiles and warms up, the second records the CUDA graph
            result = backend.collect(prompt, config)
        assert backend.decode_compiles == 1
    assert result.sequences() == expected


@pytest.mark.slow
@pytest.mark.gpu
@TORCH_JIT_DEPRECATION
def test_greedy_in_graph_under_cuda_graphs_matches_eager():
    """With reduce-overhead the greedy step's token and position live at fixed addresses and the step writes them:
    the same tokens as eager, one graph, and a stop id still stops."""
    with EagerBackend(UNTIED, device="cuda", dtype="float32") as eager:
        expected = eager.collect(PROMPT, GenerationConfig(max_new_tokens=20)).sequences()[0]
    stop = expected[7]
    with CompiledBackend(UNTIED, device="cuda", dtype="float32", mode="reduce-overhead",
                         greedy_in_graph=True) as backend:
        for _ in range(3):
            result = backend.collect(PROMPT, GenerationConfig(max_new_tokens=20))
        stopped = backend.collect(PROMPT, GenerationConfig(max_new_tokens=20, stop_token_ids=(stop,)))
        assert backend.decode_compiles == 1
    assert result.sequences()[0] == expected
    assert stopped.sequences()[0] == expected[:expected.index(stop) + 1]


@pytest.mark.slow
@pytest.mark.gpu
@TORCH_JIT_DEPRECATION
def test_cuda_decode_queues_the_next_step_yet_stops_and_stamps_like_eager():
    """On a GPU stream_tokens queues step t+1 before reading token t: same tokens, the same stop, stamps in order."""
    with EagerBackend(UNTIED, device="cuda", dtype="float32") as eager:
        full = eager.collect(PROMPT, GenerationConfig(max_new_tokens=12)).sequences()[0]
    stop = full[5]
    config = GenerationConfig(max_new_tokens=12, stop_token_ids=(stop,))
    with CompiledBackend(UNTIED, device="cuda", dtype="float32", mode="reduce-overhead") as backend:
        for _ in range(3):
            result = backend.collect(PROMPT, config)
        again = backend.collect(PROMPT, GenerationConfig(max_new_tokens=12)).sequences()[0]
    assert result.sequences()[0] == full[:full.index(stop) + 1]
    assert again == full                       # the step queued after the stop left nothing behind
    assert result.token_times_s == sorted(result.token_times_s) and result.token_times_s[0] > result.start_s


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_the_first_token_is_stamped_before_the_next_step_is_queued(device):
    """A step that keeps the host busy while it is queued (as an eager one does, about a whole step) is never queued
    before a token is read, on any device: a stamp taken after it would read one TPOT late (TTFT) or make one gap
    twice as long (an ITL tail that is not there). Each step is fed the token before it, once."""
    import time

    from helpers.llm_bench.generation import stream_tokens

    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    def logits_for(token):
        out = torch.zeros(1, 9, device=device)
        out[0, token] = 1.0
        return out

    queued, fed = [], []

    def advance(next_ids):                    # step t+1's logits point at the token after the one it is fed
        queued.append(time.perf_counter())
        fed.append(int(next_ids[0]))
        time.sleep(0.05)                      # a step that takes the host 50 ms to queue, as an eager one does
        return logits_for(fed[-1] + 1)

    stamps, tokens = [], []
    for ids in stream_tokens(logits_for(3), advance, GenerationConfig(max_new_tokens=4), None):
        stamps.append(time.perf_counter())
        tokens += ids
    assert tokens == [3, 4, 5, 6] and fed == [3, 4, 5], "each step must be fed the token before it, once"
    assert len(stamps) == 4 and len(queued) == 3
    assert stamps[0] < queued[0], "the first token waited for the second step to be queued"
    assert all(q < s for q, s in zip(queued, stamps[1:])), "a token was read before the step that makes it"
    assert all(s < q for s, q in zip(stamps, queued)), "a token was read only after the next step was queued"


@pytest.mark.gpu
def test_a_step_cheap_to_queue_is_queued_before_the_token_is_read():
    """On a GPU, where queueing a step costs the host little and the GPU then works for a while (a CUDA-graph replay),
    stream_tokens queues step t+1 before reading token t from the third token on, and still yields every token.
    The stand-in step stays on the device as a real one does (its position is `input_pos.add_(1)`): no host value is
    copied in (`out[0, k] = 1.0` would be a blocking copy, which waits for the GPU and makes queueing look slow) and
    none is read back (`int(ids[0])` would wait too)."""
    import time

    from helpers.llm_bench.generation import stream_tokens

    queued, fed = [], []

    def advance(next_ids):                    # ~15 ms of GPU work queued in microseconds
        queued.append(time.perf_counter())
        fed.append(next_ids.clone())
        torch.cuda._sleep(30_000_000)
        return torch.zeros(1, 16, device="cuda").scatter_(1, (next_ids + 1).view(1, 1), 1.0)

    first = torch.zeros(1, 16, device="cuda")
    first[0, 3] = 1.0
    advance(first.argmax(dim=-1)).argmax(dim=-1).to("cpu", non_blocking=True)   # every kernel launched once first
    torch.cuda.synchronize()
    queued.clear()
    fed.clear()
    stamps, tokens = [], []
    for ids in stream_tokens(first, advance, GenerationConfig(max_new_tokens=6), None):
        stamps.append(time.perf_counter())
        tokens += ids
    assert tokens == [3, 4, 5, 6, 7, 8] and [int(t[0]) for t in fed] == [3, 4, 5, 6, 7]
    assert stamps[0] < queued[0] and stamps[1] < queued[1], "the first two tokens are read before anything is queued"
    assert queued[2] < stamps[2] and queued[3] < stamps[3], "a cheap step was not queued ahead of the token"


def test_hf_backend_without_transformers_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "transformers", None)  # `import transformers` now raises ImportError
    with pytest.raises(ImportError, match="pip install transformers"):
        HFBackend("tiny", device="cpu")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # transformers' imports warn about torch.jit
def test_hf_backend_matches_our_model():
    """Our model against an independent implementation: same weights, same logits, same greedy tokens."""
    pytest.importorskip("transformers", reason="HFBackend needs transformers (pip install transformers)")
    from helpers.llm_bench.hf import hf_llama_from

    for config in (TINY, UNTIED.with_(n_kv_heads=1)):  # tied GQA, untied MQA
        ours = build_model(config)
        tokens = torch.randint(0, config.vocab_size, (2, 11))
        with torch.no_grad():
            torch.testing.assert_close(hf_llama_from(ours)(input_ids=tokens).logits, ours(tokens), atol=1e-5, rtol=1e-5)
    with HFBackend(UNTIED, device="cpu") as backend:
        result = backend.collect(PROMPT, GenerationConfig(max_new_tokens=10))
        assert backend.info()["transformers"]
    assert result.sequences()[0] == greedy_without_cache(UNTIED, PROMPT, 10)


# -----------------------------------------------------------------------------
# runner and command line


def test_workload_presets_have_quick_variants():
    assert {"short-chat", "long-generation", "long-prompt-summary"} <= set(WORKLOADS)
    for name in WORKLOADS:
        full, quick = workload(name), workload(name, quick=True)
        assert quick.name == full.name == name
        assert quick.prompt_tokens * quick.new_tokens * quick.batch < full.prompt_tokens * full.new_tokens * full.batch
    with pytest.raises(ValueError, match="short-chat"):
        workload("poetry")


def test_runner_writes_json_with_the_expected_keys(tmp_path):
    ticks = []
    results = run_benchmark(["eager", "int8"], [Workload("t", prompt_tokens=8, new_tokens=4, batch=2)],
                            model="tiny", device="cpu", warmup=1, repeats=2, progress=ticks.append)
    assert isinstance(results, BenchResults) and len(ticks) == 2 * (1 + 2 + 1)
    data = json.loads(results.to_json(tmp_path / "out" / "results.json").read_text(),
                      parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    meta = data["meta"]
    assert {"device_label", "versions", "model", "param_count", "dtype", "warmup", "repeats", "created"} <= set(meta)
    assert {"torch", "triton", "device"} <= set(meta["versions"]) and meta["model"]["name"] == "tiny"
    assert [r["backend"] for r in data["results"]] == ["eager", "int8"]
    for r in data["results"]:
        assert set(r["stats"]) >= {"ttft_s", "tpot_s", "itl_s", "e2e_s", "tokens_per_s", "naive_ttft_s"}
        assert set(r["stats"]["ttft_s"]) == {"p50", "p95", "p99", "mean", "n"} and r["stats"]["ttft_s"]["p50"] > 0
        assert set(r["stats"]["tokens_per_s"]) == {"p50", "p5", "p1", "mean", "n"}   # throughput's tail is its low end
        assert r["memory"]["method"] == "cpu-profiler" and r["memory"]["peak_bytes"] > 0
        assert len(r["runs"]) == 2 and r["runs"][0]["n_tokens"] == 4 and r["runs"][0]["batch"] == 2
        assert r["compiles_timed"] == 0 and r["decode_bytes_per_step"] > 0
    assert "logits_error" in data["results"][1]["backend_info"]
    assert data["meta"]["order"].startswith("interleaved") and len(data["meta"]["orders"]["t"]) == 2
    assert [(c["metric"], c["a"], c["b"]) for c in data["comparisons"]] == [("ttft", "eager", "int8"),
                                                                            ("tpot", "eager", "int8")]
    eager_mem, int8_mem = (r["memory"] for r in data["results"])   # each backend's own, whatever is loaded beside it
    for mem in (eager_mem, int8_mem):
        assert mem["peak_bytes"] == mem["held_bytes"] + mem["run_rise_bytes"] and mem["run_rise_bytes"] > 0
    assert int8_mem["held_bytes"] < eager_mem["held_bytes"]   # int8 weights: a quarter of fp32's, plus scales
    rows = results.rows()
    assert [row["backend"] for row in rows] == ["eager", "int8"] and rows[0]["P+N×B"] == "8+4×2"
    assert results.table().splitlines()[0].startswith("| backend")


class LoggingBackend(LLMBackend):
    """A backend that makes no model: each generation appends (name, n new tokens) to a shared log, one token per
    step after a fixed delay (so a round's order is visible and TTFT/TPOT are positive)."""

    def __init__(self, name: str, log: list, delay_s: float = 0.0):
        super().__init__("tiny", device="cpu")
        self.name, self.log, self.delay_s = name, log, delay_s

    def load(self):
        self.model = "loaded"
        return self

    def generate(self, prompt_ids, config):
        import time

        self.log.append((self.name, config.max_new_tokens))
        for _ in range(config.max_new_tokens):
            time.sleep(self.delay_s)
            yield [1] * len(prompt_ids)


def test_runner_interleaves_backends_in_random_rounds_after_their_warmups():
    log = []
    backends = [LoggingBackend(n, log, delay_s=0.0005) for n in ("a", "b", "c")]
    shapes = [Workload("w1", prompt_tokens=4, new_tokens=3), Workload("w2", prompt_tokens=4, new_tokens=5)]
    results = run_benchmark(backends, shapes, device="cpu", warmup=1, repeats=8, seed=3)
    for w, rest in ((shapes[0], log[:3 + 8 * 3 + 3]), (shapes[1], log[3 + 8 * 3 + 3:])):
        assert all(n == w.new_tokens for _, n in rest)          # workloads one after another, never mixed
        assert [name for name, _ in rest[:3]] == ["a", "b", "c"]     # every warm-up before any timed run
        timed = [name for name, _ in rest[3:3 + 8 * 3]]
        rounds = [timed[i:i + 3] for i in range(0, len(timed), 3)]
        assert all(sorted(r) == ["a", "b", "c"] for r in rounds)    # each round runs every backend once
        assert len({tuple(r) for r in rounds}) > 1                  # in a fresh random order
        assert rounds == results.meta["orders"][w.name]            # and the JSON says which
        assert [name for name, _ in rest[3 + 8 * 3:]] == ["a", "b", "c"]   # the memory runs come last
    assert [(r.backend, r.workload.name) for r in results.results] == [(b, w.name) for b in "abc" for w in shapes]
    assert all(len(r.runs) == 8 for r in results.results)
    # one verdict per (workload, metric, backend but the first), each from 8 pairs
    assert [(c["workload"], c["metric"], c["baseline"], c["backend"]) for c in results.comparisons] == [
        (w.name, m, "a", b) for w in shapes for m in ("ttft", "tpot") for b in ("b", "c")]
    assert all(c["comparison"].n == 8 for c in results.comparisons)
    text = results.verdicts()
    assert text.count("\n") == len(results.comparisons) and "w2" in text and "TPOT" in text
    data = results.to_dict()
    assert {"workload", "metric", "baseline", "backend", "ratio", "ci", "verdict", "rounds"} <= set(
        data["comparisons"][0])


def test_runner_records_other_programs_load_and_the_cli_warns(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(torch, "set_num_threads", lambda n: None)   # the CLI's thread policy: not for this process
    log = []
    results = run_benchmark([LoggingBackend("a", log), LoggingBackend("b", log)], [Workload("w", 2, 2)],
                            device="cpu", warmup=0, repeats=2)
    meta = results.to_dict()["meta"]
    assert meta["cpus"] >= 1 and "other_load" in meta
    if meta["other_load"] is not None:                            # None only where /proc/stat cannot be read
        assert meta["other_load"] >= 0 and meta["other_load_per_workload"]["w"] == meta["other_load"]
    assert "too few rounds for a verdict" in results.verdicts()   # 2 rounds give no 95 % interval: no verdict
    monkeypatch.setattr(bench.LoadMeter, "stop", lambda self: 1.5)   # other programs used 1.5 cores meanwhile
    busy = run_benchmark([LoggingBackend("a", log)], [Workload("w", 2, 2)], device="cpu", warmup=0, repeats=1)
    assert busy.meta["other_load"] == 1.5 and "1.5" in busy.load_warning()
    assert main(["--backend", "eager", "--workload", "short-chat", "--device", "cpu", "--quick", "--warmup", "0",
                 "--repeats", "1", "--out", str(tmp_path / "r.json"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "⚠ other programs used 1.5" in out and "threads: torch runs on" in out
    assert json.loads((tmp_path / "r.json").read_text())["meta"]["other_load"] == 1.5
    monkeypatch.setattr(bench.LoadMeter, "stop", lambda self: 0.1)
    assert main(["--backend", "eager", "--workload", "short-chat", "--device", "cpu", "--quick", "--warmup", "0",
                 "--repeats", "1", "--out", str(tmp_path / "r.json"), "--no-progress"]) == 0
    assert "⚠ other programs" not in capsys.readouterr().out


def test_cli_rejects_bad_settings(capsys):
    assert main(["--repeats", "0", "--device", "cpu"]) == 2
    assert "--repeats" in capsys.readouterr().err
    assert main(["--backend", "vllm"]) == 2          # argparse's usage error, as an exit code
    assert "invalid choice" in capsys.readouterr().err


def test_cli_runs_end_to_end(tmp_path):
    out = tmp_path / "results.json"
    cmd = [sys.executable, "-m", "helpers.llm_bench", "--model", "tiny", "--backend", "eager", "int8",
           "--workload", "short-chat", "--device", "cpu", "--quick", "--warmup", "1", "--repeats", "2",
           "--out", str(out), "--no-progress"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| backend" in proc.stdout and "short-chat" in proc.stdout and f"wrote {out}" in proc.stdout
    data = json.loads(out.read_text())
    assert [r["backend"] for r in data["results"]] == ["eager", "int8"]
    assert data["results"][0]["workload"] == asdict(workload("short-chat", quick=True))


def test_workbook_llm_bench_entry_point(tmp_path, capsys):
    """`workbook llm-bench` hands its arguments to the benchmark's own parser and returns its exit code."""
    from helpers.cli import main

    assert main(["llm-bench", "--help"]) == 0
    assert "workbook llm-bench" in capsys.readouterr().out
    assert main(["llm-bench", "--repeats", "0", "--out", str(tmp_path / "r.json")]) == 2
