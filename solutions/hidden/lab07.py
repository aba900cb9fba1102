"""Lab 07 hidden cases: the grader's cases for the checks in helpers/checks/lab07.py.

Never released. Cases only: the rules are the public checks' (helpers.llama's arithmetic, helpers.llm_bench's int8
quantization, numpy's percentiles), run on situations the notebook never showed: other timestamp streams, GQA with
other head counts, MQA, fp16/bf16 and fp32 bytes, batches, weights with outlier and all-zero rows in bf16, another
model to quantize (hidden_inputs.lab07.TwoTower: nested Linear layers beside an embedding and a norm; and
hidden_inputs.lab07.tied_decoder, whose output head shares the embedding's weight), another model
and prompt to decode, other shapes, layouts and long sums for the int8 kernel. The answers the learner is asked to
work out (latency figures, the roofline, how many caches fit, percentiles, bandwidth utilisation) come from the
grader's own rules below, never released; the model's arithmetic and int8 quantization are checked against the
package, as in the notebook. Nothing needs computing on the grader's machine, so there are no REFERENCES.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from hidden_inputs import lab07 as inputs

from helpers.checks import lab07 as public
from helpers.llama import LlamaConfig

TINY = LlamaConfig.named("tiny")
SMALL = LlamaConfig.named("small")
ONE_B = LlamaConfig.named("1b")
SEVEN_B = LlamaConfig.named("7b")
# Another small decoder: 6 query heads sharing 2 KV heads, untied embeddings, odd sizes.
ODD = LlamaConfig("odd", vocab_size=200, dim=96, n_layers=3, n_heads=6, n_kv_heads=2, ffn_dim=200, tie_embeddings=False)
MQA = TINY.with_(n_kv_heads=1, n_layers=2)

REFERENCES: dict = {}


# ---------------------------------------------------------------- the grader's own answers
def latency_truth(case: public.StreamCase) -> dict:
    """TTFT, TPOT, e2e, the naive TTFT (e2e / tokens) and its relative error."""
    times, n = case.token_times_s, len(case.token_times_s)
    ttft, e2e = times[0] - case.start_s, times[-1] - case.start_s
    naive = e2e / n
    return {"ttft_s": ttft, "tpot_s": (times[-1] - times[0]) / (n - 1) if n > 1 else math.nan, "e2e_s": e2e,
            "naive_ttft_s": naive, "naive_error": naive / ttft - 1}


def roofline_truth(case: public.RooflineCase) -> tuple:
    compute_s, memory_s = case.flops / case.peak_flops, case.bytes_moved / case.bandwidth
    return (max(compute_s, memory_s), "compute" if compute_s > memory_s else "bandwidth")


def budget_truth(case: public.BudgetCase) -> int:
    free = case.memory_bytes - case.weight_bytes
    return max(0, free // public.kv_cache_bytes(case.config, case.tokens, 1, case.dtype_bytes))


def percentile_truth(case: public.RunsCase) -> dict:
    """p50/p95/p99 (numpy's linear interpolation) of TTFT and TPOT per run, of every gap pooled (ITL), in ms."""
    ttft = [(t[0] - s) * 1e3 for s, t in case.runs]
    tpot = [(t[-1] - t[0]) / (len(t) - 1) * 1e3 for s, t in case.runs if len(t) > 1]
    itl = [(b - a) * 1e3 for s, t in case.runs for a, b in zip(t, t[1:])]
    pct = lambda xs: {f"p{q}": float(np.percentile(xs, q)) if xs else math.nan for q in (50, 95, 99)}
    return {"ttft_ms": pct(ttft), "tpot_ms": pct(tpot), "itl_ms": pct(itl)}


def bandwidth_truth(case: public.BandwidthCase) -> dict | None:
    moved = case.result.get("decode_bytes_per_step")
    tpot = case.result.get("stats", {}).get("tpot_s", {}).get("p50")
    if not moved or tpot is None or not math.isfinite(tpot) or tpot <= 0:
        return None
    return {"gbps": moved / tpot / 1e9, "utilisation": moved / tpot / case.copy_bw}


def answered(cases: list, truth) -> list:
    return [replace(c, want=truth(c)) for c in cases]


CASES = {
    "07.latency": answered([
        public.StreamCase("a stream with one slow step in the middle", 100.0, (100.120, 100.125, 100.180, 100.185)),
        public.StreamCase("two tokens", 5.0, (5.010, 5.030)),
        public.StreamCase("a prefill ten times a decode step", 0.25, (0.35,) + tuple(0.35 + 0.01 * i for i in range(1, 20))),
        public.StreamCase("a single slow token", 3.0, (3.9,)),
    ], latency_truth),
    "07.flops_bytes": [
        public.ShapeCase("an odd-sized GQA model (6 heads, 2 KV heads, untied)", ODD, context=37, weight_bytes=4, kv_bytes=4),
        public.ShapeCase("the small model in bf16, batch 4", SMALL, context=512, batch=4),
        public.ShapeCase("the 1b model with int8 weights and a bf16 cache", ONE_B, context=4000, weight_bytes=1, kv_bytes=2),
        public.ShapeCase("Llama-2-7B at the first token", SEVEN_B, context=0),
        public.ShapeCase("an MQA model, batch 16", MQA, context=300, batch=16, weight_bytes=2, kv_bytes=2),
        public.ShapeCase("an odd-sized GQA model, batch 64, 10 positions cached", ODD, context=10, batch=64,
                         weight_bytes=4, kv_bytes=4),
    ],
    "07.roofline": answered([
        public.RooflineCase(1e12, 1e9, 1e12, 2e12), public.RooflineCase(4e9, 2e9, 1e12, 2e11),
        public.RooflineCase(3e6, 1e3, 1e9, 1e8), public.RooflineCase(5e9, 5e9, 1e11, 1e11 * 0.99),
        public.RooflineCase(7.0, 3.0, 2.0, 0.5),
    ], roofline_truth),
    "07.kv_cache": [
        public.KVCase("an MQA model (1 KV head), fp16, batch 2", MQA, 130, 2, "float16"),
        public.KVCase("an odd-sized GQA model (6 heads share 2), fp32", ODD, 77, 1, "float32"),
        public.KVCase("the small model (12 heads share 4), bf16, batch 4", SMALL, 64, 4, "bfloat16"),
        public.KVCase("the 1b model at 8192 tokens, batch 8, bf16", ONE_B, 8192, 8, "bfloat16", build=False),
        public.KVCase("Llama-2-7B at 2048 tokens, batch 4, fp32", SEVEN_B, 2048, 4, "float32", build=False),
    ],
    "07.kv_budget": answered([
        public.BudgetCase("the 1b model in bf16 on a 24 GB GPU, 8192 tokens", ONE_B, 8192, 24 * public.GB, 2_471_000_000),
        public.BudgetCase("Llama-2-7B with an fp32 cache on a 40 GB GPU, 2048 tokens", SEVEN_B, 2048, 40 * public.GB,
                          13_476_839_424, dtype_bytes=4),
        public.BudgetCase("Llama-2-7B on exactly its weights' memory", SEVEN_B, 100, 13_476_839_424, 13_476_839_424),
        public.BudgetCase("the small model's weights on a device too small for them", SMALL, 256, 10**8, 2 * 10**8),
        public.BudgetCase("an MQA model with plenty of room", MQA, 1000, 10**9, 10**6),
        public.BudgetCase("Llama-2-7B in fp16 on an 80 GB GPU, 2048 tokens", SEVEN_B, 2048, 80 * public.GB, 13_476_839_424),
        public.BudgetCase("room for exactly three caches", TINY, 500,
                          10**6 + 3 * public.kv_cache_bytes(TINY, 500, 1, 2), 10**6),
    ], budget_truth),
    "07.static_decode": [
        public.DecodeCase("the grader's model (6 heads share 2, untied) and prompt", ODD, seed=70,
                          prompt=(3, 141, 59, 26, 5, 35, 89, 79, 32), new_tokens=9),
        public.DecodeCase("an MQA model and a one-token prompt", MQA, seed=71, prompt=(42,), new_tokens=6),
        public.DecodeCase("the grader's model in bfloat16", ODD, seed=72, prompt=(5, 17, 99), new_tokens=5,
                          dtype="bfloat16", exact_ids=False),
        public.DecodeCase("one new token (the prefill's only)", ODD, seed=73, prompt=(11, 12, 13, 14), new_tokens=1),
    ],
    "07.int8_weights": [
        public.WeightCase("a 48×80 weight with two outlier rows", 48, 80, seed=21, outlier_rows=(0, 31)),
        public.WeightCase("a bf16 weight with an all-zero row", 40, 24, seed=22, dtype="bfloat16", zero_rows=(7,)),
        public.WeightCase("a tall 200×16 weight, 3-D activations", 200, 16, seed=23, outlier_rows=(199,), batch=2,
                          tokens=4),
    ],
    "07.int8_kernel": [
        public.KernelCase("batch 8, bf16, N=129, K=300, two all-zero weight rows", 8, 129, 300, seed=41,
                          zero_rows=(3, 128)),
        public.KernelCase("batch 1, fp16, a transposed weight, N=45, K=97", 1, 45, 97, seed=42, dtype="float16",
                          layout="q transposed"),
        public.KernelCase("batch 4, bf16, x a strided view (stride 2 along K), N=50, K=130", 4, 50, 130, seed=43,
                          layout="x sliced"),
        public.KernelCase("batch 7, fp32, N=17, K=1", 7, 17, 1, seed=44, dtype="float32"),
        public.KernelCase("batch 1, fp16, K=4096 with every term positive", 1, 33, 4096, seed=45, dtype="float16",
                          positive=True),
        public.KernelCase("batch 8, bf16, K=4096 with every term positive", 8, 24, 4096, seed=46, positive=True),
    ],
    "07.int8_model": [
        public.QuantModelCase("the grader's model (nested Linear layers, an outlier row)", inputs.TwoTower,
                              inputs.two_tower_input),
        public.QuantModelCase("a small decoder whose output head shares the embedding's weight", inputs.tied_decoder),
    ],
    "07.percentiles": answered([
        public.RunsCase("eleven runs with a tail", tuple(public._stream(float(i), 30 + (i % 4) + (25 if i == 9 else 0),
                                                                         [4 + (i + j) % 3 + (40 if (i, j) == (3, 2) else 0)
                                                                          for j in range(6)]) for i in range(11))),
        public.RunsCase("runs of different lengths, one of a single token",
                        (public._stream(0.0, 12, [2, 2, 2]), public._stream(1.0, 15, []),
                         public._stream(2.0, 11, [3, 2, 2, 9, 2, 2]))),
        public.RunsCase("three runs, none with a second token",
                        (public._stream(0.0, 17, []), public._stream(1.0, 19, []), public._stream(2.0, 26, []))),
    ], percentile_truth),
    "07.bandwidth": answered([
        public.BandwidthCase("the small model on a CPU", public._result(2.6e8, 0.02), 1.8e10),
        public.BandwidthCase("a model small enough to decode from the CPU's caches", public._result(6.0e6, 2.5e-4), 9.0e9),
        public.BandwidthCase("int8 weights at batch 8", public._result(1.3e9, 0.0298), 3.0e12),
        public.BandwidthCase("a run without a byte count", public._result(None, 0.01), 3.0e12),
        public.BandwidthCase("a NaN TPOT", public._result(1e9, float("nan")), 3.0e12),
        public.BandwidthCase("an infinite TPOT", public._result(7e8, float("inf")), 1.0e11),
        public.BandwidthCase("a median TPOT of zero", public._result(4e8, 0.0), 2.0e11),
    ], bandwidth_truth),
}
