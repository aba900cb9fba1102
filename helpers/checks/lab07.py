"""Lab 07 — LLM inference measured right: the acceptance checks.

Each check is a probe (`probe_*`: runs the learner's code in the kernel, returns plain data) and a judge
(`*_problems`: says what to fix), run on cases. Where the answer is something the learner is asked to work out
(latency figures, the roofline, how many caches fit, percentiles, bandwidth utilisation) a case carries its answer
(`want`): literals here, and for the hidden cases the grader's own rules in solutions/hidden/lab07.py, so no released
file holds them. The model's arithmetic is compared with `helpers.llama` (kv_cache_bytes, decode_bytes_per_token,
flops_per_token) and int8 with `helpers.llm_bench.quantize`, the package the lab uses. The grader runs the same
functions on hidden cases (other head counts, MQA, fp16/bf16 bytes, weights with outlier rows, other timestamp
streams, another model to quantize) with `reveal=False`.
"""

from __future__ import annotations

import copy
import inspect
import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode

from helpers.checks import CheckFailed, Context, Learner, fail_if, register
from helpers.checks.dynamo_state import count_runs, settings_kept
from helpers.checks.lab03 import GuardSpace, InputCopies, OpRecorder, interpreted, launches_marked, poisoned_masked_loads
from helpers.checks.own_work import refusing
from helpers.llama import LlamaConfig, StaticKVCache, build_model, decode_bytes_per_token, flops_per_token, kv_cache_bytes

LAB = "07"
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "int8": 1}


def package_versions(*names: str) -> dict:
    """{label: the package's own function} for the exercises that rebuild one (see helpers.checks.own_work)."""
    from helpers import llama
    from helpers.llm_bench import generation, quantize, runner

    table = {
        "helpers.llama.param_count": llama.param_count, "helpers.llama.kv_cache_bytes": llama.kv_cache_bytes,
        "helpers.llama.flops_per_token": llama.flops_per_token,
        "helpers.llama.decode_bytes_per_token": llama.decode_bytes_per_token,
        "helpers.llama.decode_bytes_per_step": llama.decode_bytes_per_step,
        "helpers.llama.streamed_weight_bytes": llama.streamed_weight_bytes,
        "helpers.llama.arithmetic_intensity": llama.arithmetic_intensity,
        # a cache built to read its size off: the package's allocation answers the formula (not refused where a
        # check runs generate_static, which must build one)
        "helpers.llama.StaticKVCache": llama.StaticKVCache.__init__,
        "helpers.llama.StaticKVCache.nbytes": llama.StaticKVCache.nbytes,
        "GenerationResult.ttft_s": generation.GenerationResult.ttft_s,
        "GenerationResult.tpot_s": generation.GenerationResult.tpot_s,
        "GenerationResult.e2e_s": generation.GenerationResult.e2e_s,
        "GenerationResult.naive_ttft_s": generation.GenerationResult.naive_ttft_s,
        "helpers.llm_bench.quantize.Int8Linear.from_linear": quantize.Int8Linear.from_linear,
        "helpers.llm_bench.quantize.Int8Linear.forward": quantize.Int8Linear.forward,
        "helpers.llm_bench.quantize.Int8Linear.dequantized": quantize.Int8Linear.dequantized,
        "helpers.llm_bench.quantize.quantize_int8": quantize.quantize_int8,
        "helpers.llm_bench.generation.percentiles": generation.percentiles,
        "GenerationResult.itl_s": generation.GenerationResult.itl_s,
        "WorkloadResult.stats": runner.WorkloadResult.stats,
    }
    if any(name.startswith("helpers.llm_bench.int8_triton") for name in names):   # it imports Triton: only when asked
        try:
            from helpers.llm_bench import int8_triton
        except ImportError:     # the learner bundle leaves the package's kernel out: nothing of it to refuse
            return {label: fn for label, fn in table.items() if label.startswith(names)}
        table.update({f"helpers.llm_bench.int8_triton.{name}": getattr(int8_triton, name)
                      for name in ("int8_linear", "int8_linear_kernel", "int8_linear_tuned")
                      if hasattr(int8_triton, name)})
        table["helpers.llm_bench.int8_triton.Int8TritonLinear.forward"] = int8_triton.Int8TritonLinear.forward
    return {label: fn for label, fn in table.items() if label.startswith(names)}


ARITHMETIC = ("helpers.llama.",)
LATENCY = ("GenerationResult.",)
INT8 = ("helpers.llm_bench.quantize.",)
PERCENTILES = ("helpers.llm_bench.generation.percentiles", "GenerationResult.itl_s", "WorkloadResult.stats")
RUNNER_STATS = ("WorkloadResult.stats",)      # where the runner computes decode_gbps, part G's answer


def run_device(learner: Learner) -> torch.device:
    from helpers.env import pick_device

    return pick_device(learner.settings.device)


def is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def close(a: Any, b: float, rel: float = 1e-6, abs_: float = 1e-12) -> bool:
    """a is a number within rel of b; NaN matches only NaN."""
    if not is_number(a):
        return False
    if math.isnan(b):
        return math.isnan(a)
    return not math.isnan(a) and abs(a - b) <= max(rel * abs(b), abs_)


def fmt(x: Any) -> str:
    """A number as a message shows it: a whole number with thousands separators (524,288), else 6 significant digits."""
    if not is_number(x):
        return repr(x)
    if math.isfinite(x) and float(x).is_integer() and abs(x) < 1e18:
        return f"{int(x):,}"
    return f"{x:.6g}"


def attempt(learner: Learner, name: str, *args) -> Any:
    """The learner's `name`(*args), or {"raised": "ZeroDivisionError: ..."} when its arithmetic fails on the case
    (a division by a zero count, a None where a number was expected), so the judge can say which case and why."""
    try:
        return learner.call(name, *args)
    except (ArithmeticError, TypeError, ValueError, IndexError, KeyError, RuntimeError) as err:   # RuntimeError: torch's
        return {"raised": f"{type(err).__name__}: {err}"[:160]}                                     # shape mismatches


def raised(answer: Any) -> str | None:
    """What the learner's function raised, if `attempt` caught something."""
    return answer.get("raised") if isinstance(answer, dict) and set(answer) == {"raised"} else None


def unit_slip(got: Any, want: float) -> str:
    """' (in milliseconds? report seconds)'-style words when `got` is `want` in another unit, else ''."""
    if not is_number(got) or not is_number(want) or want == 0 or math.isnan(want):
        return ""
    for factor, words in ((1e3, "in milliseconds? report seconds"), (1e-3, "in seconds? report milliseconds"),
                          (1e9 / 2**30, "in GiB (2³⁰ bytes)? report GB, 10⁹ bytes"),
                          (1e2, "in percent? report a fraction"), (8, "in bits (× 8)? report bytes")):
        if close(got, want * factor, rel=1e-6):
            return f" ({words})"
    return ""


# ---------------------------------------------------------------- A: TTFT from a stream, and the naive guess
@dataclass(frozen=True)
class StreamCase:
    """One generation as the host saw it: when the call started and when each token arrived (seconds), and the
    answer: {ttft_s, tpot_s, e2e_s, naive_ttft_s, naive_error} (literals here; the grader's are worked out by its
    hidden module, so no released file holds the rule)."""

    about: str
    start_s: float
    token_times_s: tuple
    want: dict = field(default_factory=dict)


CHANGED_INPUT = "changed its input"     # a probe's answer when the learner's function wrote into what it was given


def probe_latency(learner: Learner, cases: list[StreamCase]) -> list:
    out = []
    with refusing("07.latency", package_versions(*LATENCY)):
        for c in cases:
            times = list(c.token_times_s)
            answer = attempt(learner, "latency_summary", c.start_s, times)
            out.append(answer if raised(answer) or times == list(c.token_times_s) else {"changed": CHANGED_INPUT})
    return out


LATENCY_HINTS = {
    "ttft_s": "TTFT is the first token's arrival minus the start of the call (timestamps are absolute perf_counter readings)",
    "tpot_s": "TPOT is the mean gap between successive tokens after the first: (last - first) / (n - 1), NaN with one "
              "token (the first token's wait is TTFT, not a decode step; and the mean, not the median gap)",
    "e2e_s": "e2e is the last token's arrival minus the start",
    "naive_ttft_s": "the naive TTFT is e2e / number of tokens, what you would guess without the stream",
    "naive_error": "naive_error is naive_ttft / ttft - 1 (negative when the guess is too small)",
}


def latency_problems(got: list, cases: list[StreamCase], reveal: bool) -> list[str]:
    for answer, case in zip(got, cases):
        if raised(answer):
            hint = (" With one token there is no gap between tokens: TPOT is NaN (math.nan)."
                    if len(case.token_times_s) == 1 else
                    f" If the times were put in a tensor: {FLOAT32_TIMES}" if large_times(case) else "")
            return [f"on {case.about}, latency_summary raised {raised(answer)}.{hint}"]
        if answer == {"changed": CHANGED_INPUT}:
            return [f"on {case.about}, latency_summary changed the list of token times it was given: read it, do not "
                    "write into it (work on a copy, or on the differences). The caller keeps that list: a "
                    "GenerationResult's own TTFT, TPOT and e2e read it afterwards."]
        if not isinstance(answer, dict) or not set(LATENCY_HINTS) <= set(answer):
            keys = sorted(answer) if isinstance(answer, dict) else type(answer).__name__
            return [f"latency_summary should return a dict with {', '.join(LATENCY_HINTS)}; it returned {keys}."]
        want = case.want
        for key, hint in LATENCY_HINTS.items():
            if not close(answer[key], want[key], rel=1e-6):
                said = f"{fmt(answer[key])}, expected {fmt(want[key])}" if reveal else fmt(answer[key])
                if rounded(answer[key], want[key]):
                    return [f"on {case.about}, {key} = {said}: do not round; return the figures as the timestamps give "
                            "them (round only where you print them). Timestamps here are not whole milliseconds."]
                if key != "naive_error" and within_float32(answer[key], want[key], case):
                    return [f"on {case.about}, {key} = {said}: off by no more than float32's resolution of these "
                            f"timestamps. {FLOAT32_TIMES}"]
                if key == "tpot_s" and is_number(answer[key]) and want[key] and close(answer[key] * want[key], 1.0):
                    return [f"on {case.about}, {key} = {said}: that is the decode rate, tokens per second (gaps ÷ "
                            "time); TPOT is its inverse, the time per output token in seconds: (last - first) / (n - 1)."]
                return [f"on {case.about}, {key} = {said}{unit_slip(answer[key], want[key])}: {hint}."]
    return []


FLOAT32_TIMES = ("A float32 tensor (what torch.tensor makes of Python floats) keeps 24 significant bits: a "
                 "perf_counter reading counts seconds since the machine started, and at 10⁵ s float32's steps are "
                 "about 8 ms, so the differences between timestamps are lost. Subtract them as Python floats (or in "
                 "float64).")


def float32_step(case: StreamCase) -> float:
    """float32's spacing at the largest timestamp of the case (seconds)."""
    import numpy as np

    return float(np.spacing(np.float32(max(abs(case.start_s), *(abs(t) for t in case.token_times_s)))))


def within_float32(got: Any, want: float, case: StreamCase) -> bool:
    """`got` is off from `want`, but by no more than a few of float32's steps at these timestamps: they were rounded
    to float32 on the way."""
    return is_number(got) and is_number(want) and math.isfinite(want) and not close(got, want, rel=1e-6) and \
        abs(got - want) <= 4 * float32_step(case)


def large_times(case: StreamCase) -> bool:
    """Timestamps large enough that float32 cannot tell the tokens apart."""
    return float32_step(case) > min(abs(b - a) for a, b in zip((case.start_s, *case.token_times_s), case.token_times_s))


def rounded(got: Any, want: float) -> bool:
    """`got` (not 0) is `want` rounded to 2..6 decimals (and differs from it)."""
    return is_number(got) and got != 0 and is_number(want) and math.isfinite(want) and any(
        got == round(want, k) and not close(got, want, rel=1e-6) for k in range(2, 7))


# Streams every latency check runs, the grader's as well as the notebook's: timestamps that are not whole
# milliseconds (a perf_counter reading never is), so an answer that rounds its figures shows.
ALWAYS_STREAMS = [StreamCase("a stream timed to the microsecond", 7.0, (7.012345, 7.015678, 7.019012),
                             {"ttft_s": 0.012345, "tpot_s": 0.0033335, "e2e_s": 0.019012, "naive_ttft_s": 0.019012 / 3,
                              "naive_error": 0.019012 / 3 / 0.012345 - 1}),
                  StreamCase("perf_counter readings of a machine up for four days", 352817.25,   # steps of 2⁻¹⁰ s:
                             (352817.2626953125, 352817.2666015625, 352817.26953125),              # exact in float64
                             {"ttft_s": 0.0126953125, "tpot_s": 0.00341796875, "e2e_s": 0.01953125,
                              "naive_ttft_s": 0.01953125 / 3, "naive_error": 0.01953125 / 3 / 0.0126953125 - 1})]


@register("07.latency", points=2, exercise="A", title="TTFT, TPOT and the naive TTFT from a token stream",
          cases=[StreamCase("a short prompt (fast prefill)", 10.0, (10.004, 10.006, 10.007, 10.013),
                            {"ttft_s": 0.004, "tpot_s": 0.003, "e2e_s": 0.013, "naive_ttft_s": 0.00325,
                             "naive_error": -0.1875}),
                 StreamCase("a long prompt (slow prefill)", 2.5, (2.75, 2.752, 2.754, 2.756, 2.758, 2.760),
                            {"ttft_s": 0.25, "tpot_s": 0.002, "e2e_s": 0.26, "naive_ttft_s": 0.26 / 6,
                             "naive_error": 0.26 / 6 / 0.25 - 1}),
                 StreamCase("one token", 0.0, (0.2,), {"ttft_s": 0.2, "tpot_s": math.nan, "e2e_s": 0.2,
                                                       "naive_ttft_s": 0.2, "naive_error": 0.0}),
                 StreamCase("two tokens (one gap)", 1.0, (1.03, 1.05), {"ttft_s": 0.03, "tpot_s": 0.02, "e2e_s": 0.05,
                                                                        "naive_ttft_s": 0.025, "naive_error": -1 / 6})])
def _latency(ctx: Context, cases: list[StreamCase]) -> str:
    cases = [*cases, *(c for c in ALWAYS_STREAMS if c not in cases)]
    fail_if(latency_problems(ctx.probe(probe_latency, cases), cases, ctx.reveal))
    return "TTFT, TPOT, e2e and the naive guess right on every stream"


# ---------------------------------------------------------------- B: FLOPs and bytes from the shapes
@dataclass(frozen=True)
class ShapeCase:
    """A model's shapes and one decode situation: context positions already cached, batch, bytes per element."""

    about: str
    config: LlamaConfig
    context: int
    batch: int = 1
    weight_bytes: float = 2
    kv_bytes: int = 2


def probe_flops_bytes(learner: Learner, cases: list[ShapeCase]) -> list:
    out = []
    with refusing("07.flops_bytes", package_versions(*ARITHMETIC)):
        for c in cases:
            out.append({"flops": learner.call("flops_per_token", c.config, c.context),
                        "bytes": learner.call("decode_bytes_per_token", c.config, c.context, c.batch, c.weight_bytes,
                                              c.kv_bytes)})
    return out


# Bytes within 0.5 % pass (the exercise says so): the norm weights are about 0.1 % of a step's bytes, and an answer
# that leaves them out is not wrong about what binds a step. FLOPs are judged exactly. A case where the caches
# outweigh the weights makes a missing cache position (2 % there) show.
BYTES_TOLERANCE = 0.005


def flops_bytes_problems(got: list, cases: list[ShapeCase], reveal: bool) -> list[str]:
    for answer, c in zip(got, cases):
        want_f = flops_per_token(c.config, c.context)
        want_b = decode_bytes_per_token(c.config, c.context, c.batch, c.weight_bytes, c.kv_bytes)
        f, b = answer["flops"], answer["bytes"]
        if not close(f, want_f, rel=1e-9):
            said = f"{fmt(f)}, expected {fmt(want_f)}" if reveal else fmt(f)
            attention = 4 * c.config.n_layers * c.context * c.config.n_heads * c.config.head_dim
            one_layer = attention / c.config.n_layers
            hint = ("count attention too: QKᵀ and attention×V are 2 × context × n_heads × head_dim FLOPs each, per layer"
                    if is_number(f) and abs(f + attention - want_f) < 1e-3 * want_f else
                    "attention runs in every layer, each over its own keys and values: its FLOPs are per layer, "
                    "× n_layers (yours look like one layer's)"
                    if is_number(f) and attention and c.config.n_layers > 1 and
                    close(f, want_f - attention + one_layer, rel=1e-9) else
                    "2 FLOPs per weight of every matmul (the output head included, the embedding lookup and norm "
                    "weights not) plus 4 × layers × context × n_heads × head_dim for attention")
            return [f"flops_per_token on {c.about} gave {said}: {hint}."]
        if not close(b, want_b, rel=BYTES_TOLERANCE):
            said = f"{fmt(b)}, expected {fmt(want_b)}" if reveal else fmt(b)
            one_position = kv_cache_bytes(c.config, 1, c.batch, c.kv_bytes) / c.batch
            caches = kv_cache_bytes(c.config, c.context + 1, c.batch, c.kv_bytes) / c.batch
            hint = (" The cache is read for `context` positions and the new key and value written for one more: "
                    "context + 1 positions, not context." if close(b, want_b - one_position, rel=BYTES_TOLERANCE / 2)
                    else " Every layer keeps its own cache, and a step reads every layer's: × n_layers (yours look "
                    "like one layer's)." if c.config.n_layers > 1 and
                    close(b, want_b - caches * (1 - 1 / c.config.n_layers), rel=BYTES_TOLERANCE / 2)
                    else "")
            return [f"decode_bytes_per_token on {c.about} (batch {c.batch}, {c.weight_bytes} bytes per weight, "
                    f"{c.kv_bytes} per cache element) gave {said}, more than {BYTES_TOLERANCE:.1%} away: a decode "
                    "step reads every weight once (an untied input embedding is looked up, not read whole; a tied one "
                    "is read as the output head) and the KV cache of each sequence for context + 1 positions; the "
                    "step makes `batch` tokens, so divide "
                    f"by the batch.{hint}"]
    return []


@register("07.flops_bytes", points=3, exercise="B", title="FLOPs and bytes per token from the model's shapes",
          cases=[ShapeCase("the tiny model", LlamaConfig.named("tiny"), context=100, weight_bytes=4, kv_bytes=4),
                 ShapeCase("the tiny model, batch 64, 20 positions cached (the caches outweigh the weights)",
                           LlamaConfig.named("tiny"), context=20, batch=64, weight_bytes=4, kv_bytes=4),
                 ShapeCase("Llama-3.2-1B's shapes, batch 8", LlamaConfig.named("1b"), context=1000, batch=8),
                 ShapeCase("Llama-2-7B's shapes (untied embeddings)", LlamaConfig.named("7b"), context=2048),
                 ShapeCase("the tiny model with int8 weights and an fp32 cache", LlamaConfig.named("tiny"), context=50,
                           weight_bytes=1, kv_bytes=4)])
def _flops_bytes(ctx: Context, cases: list[ShapeCase]) -> str:
    fail_if(flops_bytes_problems(ctx.probe(probe_flops_bytes, cases), cases, ctx.reveal))
    return "FLOPs and bytes per token match the shapes"


@dataclass(frozen=True)
class RooflineCase:
    """A step's FLOPs and bytes, a device's peak FLOP/s and bandwidth, and the answer (seconds, bound)."""

    flops: float
    bytes_moved: float
    peak_flops: float
    bandwidth: float
    want: tuple = ()


def probe_roofline(learner: Learner, cases: list[RooflineCase]) -> list:
    return [learner.call("roofline_time", c.flops, c.bytes_moved, c.peak_flops, c.bandwidth) for c in cases]


ROOFLINE_UNITS = ("The arguments are in base units, FLOPs, bytes, FLOP/s and bytes/s (not GB/s or TFLOP/s), and the "
                  "time is in seconds.")


def roofline_problems(got: list, cases: list[RooflineCase], reveal: bool) -> list[str]:
    for i, (answer, c) in enumerate(zip(got, cases)):
        seconds, bound = c.want
        if not isinstance(answer, (list, tuple)) or len(answer) != 2:
            return [f"roofline_time should return (seconds, 'compute' or 'bandwidth'); it returned {answer!r}."]
        s, b = answer
        case = (f"roofline_time({c.flops:g}, {c.bytes_moved:g}, {c.peak_flops:g}, {c.bandwidth:g})" if reveal else
                f"roofline_time on the grader's case {i + 1} of {len(cases)}")
        if b not in ("compute", "bandwidth"):
            return [f"{case} said the bound is {b!r}: return 'compute' or 'bandwidth'."]
        if b != bound:
            return [f"{case} said '{b}'" + (f", expected '{bound}'" if reveal else "") + ": a step is bound by whichever "
                    "takes longer, its FLOPs at peak FLOP/s or its bytes at the bandwidth (equivalently: compare the "
                    f"intensity FLOPs/byte with the ridge point peak FLOP/s ÷ bandwidth). {ROOFLINE_UNITS}"]
        if not close(s, seconds, rel=1e-6):
            said = f"{fmt(s)} s, expected {seconds:.6g}" if reveal else f"{fmt(s)} s"
            return [f"{case} gave {said}{unit_slip(s, seconds)}: the roofline's time is the larger of flops / peak_flops "
                    f"and bytes / bandwidth (not their sum: the two overlap). {ROOFLINE_UNITS}"]
    return []


@register("07.roofline", points=0, exercise="B", title="roofline time and bound of a step",
          cases=[RooflineCase(2e9, 1e6, 1e12, 1e11, (2e-3, "compute")),
                 RooflineCase(2.5e9, 2.5e9, 9.89e14, 3.35e12, (2.5e9 / 3.35e12, "bandwidth")),
                 RooflineCase(1e6, 4e6, 5e10, 2e10, (2e-4, "bandwidth")),
                 RooflineCase(2.5e9, 1.25e9, 9.89e14, 3.35e12, (1.25e9 / 3.35e12, "bandwidth"))])
def _roofline(ctx: Context, cases: list[RooflineCase]) -> str:
    fail_if(roofline_problems(ctx.probe(probe_roofline, cases), cases, ctx.reveal))
    return "time and bound right on every case"


# ---------------------------------------------------------------- C: the KV cache
@dataclass(frozen=True)
class KVCase:
    """A cache of `tokens` positions for `batch` sequences in `dtype`; `build` makes the real StaticKVCache too."""

    about: str
    config: LlamaConfig
    tokens: int
    batch: int = 1
    dtype: str = "bfloat16"
    build: bool = True


def probe_kv(learner: Learner, cases: list[KVCase]) -> list:
    out = []
    for c in cases:
        with refusing("07.kv_cache", package_versions(*ARITHMETIC)):
            got = learner.call("kv_cache_bytes", c.config, c.tokens, c.batch, DTYPE_BYTES[c.dtype])
        real = None
        if c.build:   # the real tensors' bytes: the formula must describe what the cache allocates
            real = StaticKVCache(c.config, c.batch, c.tokens, dtype=getattr(torch, c.dtype)).nbytes
        out.append({"bytes": got, "real": real})
    return out


def kv_problems(got: list, cases: list[KVCase], reveal: bool) -> list[str]:
    every = kv_mistake_on_every_case(got, cases)
    for answer, c in zip(got, cases):
        want = kv_cache_bytes(c.config, c.tokens, c.batch, DTYPE_BYTES[c.dtype])
        b = answer["bytes"]
        if answer["real"] is not None and answer["real"] != want:   # the package and its formula disagree: a bug here
            return [f"internal: StaticKVCache holds {answer['real']} bytes on {c.about}, the formula says {want}."]
        if is_number(b) and b == want and not isinstance(b, int):
            return [f"kv_cache_bytes on {c.about} gave {fmt(b)} as a {type(b).__name__}: a byte count is a whole number "
                    "(an int). head_dim is an int (config.head_dim, or dim // n_heads); true division `/` makes a float "
                    "of every product after it, and a float count of bytes loses exactness past 2⁵³."]
        if not is_number(b) or b != want:
            said = f"{fmt(b)}, expected {fmt(want)}" if reveal else f"{fmt(b)}, not the bytes the cache's tensors hold"
            said += next((f" (in {unit}? return bytes)" for unit, size in (("GiB", 2**30), ("GB, 10⁹ bytes", 1e9),
                                                                           ("MiB", 2**20), ("MB, 10⁶ bytes", 1e6),
                                                                           ("bits", 1 / 8))
                          if is_number(b) and close(b * size, want, rel=1e-6)), "")
            return [f"kv_cache_bytes on {c.about} ({c.tokens} tokens, batch {c.batch}, {c.dtype}) gave {said}: layers × 2 "
                    f"(keys and values) × n_kv_heads × head_dim × tokens × batch × bytes per element."
                    f"{every or kv_hint(b, want, c)}"]
    return []


def kv_mistake_on_every_case(got: list, cases: list[KVCase]) -> str:
    """The sentence of the one mistake that explains the answers of every case, said for the first case it changes
    (a case the answer got right counts: a mistake that would have changed it is not the one made); '' when none or
    several do. One case alone can fit two: on the tiny model in float32 a quarter is both 4 layers and 4 bytes per
    element."""
    kinds, first = None, {}
    for answer, c in zip(got, cases):
        b, want = answer["bytes"], kv_cache_bytes(c.config, c.tokens, c.batch, DTYPE_BYTES[c.dtype])
        if not is_number(b) or not want:
            return ""
        fits = {kind for kind, ratio, _ in kv_mistakes(c) if close(b, want * ratio, rel=1e-9)}
        for kind, ratio, sentence in kv_mistakes(c):
            if ratio != 1 and kind in fits:
                first.setdefault(kind, sentence)
        kinds = fits if kinds is None else kinds & fits
    kinds = {kind for kind in kinds or () if kind in first}     # a mistake that changed no case explains nothing
    return first[kinds.pop()] if len(kinds) == 1 else ""


def kv_mistakes(c: KVCase) -> list[tuple[str, float, str]]:
    """(the mistake, the ratio of its answer to the right one on case c, its sentence for c); ratio 1: it changes
    nothing on c."""
    cfg, element = c.config, DTYPE_BYTES[c.dtype]
    return [("query heads", cfg.n_heads / cfg.n_kv_heads, " Keys and values are stored per KV head (n_kv_heads), not "
             "per query head: that is what GQA and MQA save."),
            ("factor 2", 0.5, " Keys *and* values: the factor 2."),
            ("layers", 1 / cfg.n_layers, " Every layer keeps its own cache: × n_layers."),
            ("batch", 1 / c.batch, " Every sequence of the batch has its own cache: × batch."),
            ("two bytes", 2 / element, f" Bytes per element follow the dtype ({c.dtype}: {element}), not always 2."),
            ("elements", 1 / element, f" Count bytes, not elements: × {element} for {c.dtype}.")]


def kv_hint(got: Any, want: int, c: KVCase) -> str:
    """The sentence for the mistake the answer shows on this case alone (its ratio to the right one), or '' when
    none fits."""
    if not is_number(got) or not want:
        return ""
    fits = [sentence for _, ratio, sentence in kv_mistakes(c) if ratio != 1 and close(got, want * ratio, rel=1e-9)]
    return fits[0] if len(fits) == 1 else "".join(f" Perhaps:{sentence}" for sentence in fits)   # a ratio two fit


TINY = LlamaConfig.named("tiny")


@register("07.kv_cache", points=2, exercise="C", title="the KV cache's bytes from the shapes, as the cache allocates them",
          cases=[KVCase("the tiny model (GQA, 2 KV heads)", TINY, 256, 1, "float32"),
                 KVCase("the tiny model as MHA, batch 3", TINY.with_(n_kv_heads=4), 100, 3, "bfloat16"),
                 KVCase("Llama-2-7B at 4096 tokens", LlamaConfig.named("7b"), 4096, 1, "float16", build=False)])
def _kv_cache(ctx: Context, cases: list[KVCase]) -> str:
    fail_if(kv_problems(ctx.probe(probe_kv, cases), cases, ctx.reveal))
    return "cache bytes match the tensors, GQA and MHA"


@dataclass(frozen=True)
class BudgetCase:
    """How many sequences of `tokens` fit in `memory_bytes` beside `weight_bytes` of weights."""

    about: str
    config: LlamaConfig
    tokens: int
    memory_bytes: int
    weight_bytes: int
    dtype_bytes: int = 2
    want: int = -1


def probe_budget(learner: Learner, cases: list[BudgetCase]) -> list:
    with refusing("07.kv_budget", package_versions(*ARITHMETIC)):
        return [attempt(learner, "max_sequences", c.config, c.tokens, c.memory_bytes, c.weight_bytes, c.dtype_bytes)
                for c in cases]


def whole(n: Any) -> Any:
    """A count given as 3.0 or as a one-element tensor, as the int it is; anything else as it is."""
    if isinstance(n, torch.Tensor) and n.numel() == 1 and not n.is_complex() and n.dtype != torch.bool:
        n = n.item()
    return int(n) if isinstance(n, float) and n.is_integer() else n


def budget_problems(got: list, cases: list[BudgetCase], reveal: bool) -> list[str]:
    for n, c in zip(got, cases):
        want, n = c.want, whole(n)
        if raised(n):
            return [f"max_sequences on {c.about} raised {raised(n)}: (memory − weights) ÷ one sequence's cache, rounded "
                    "down, and 0 when nothing fits."]
        if not isinstance(n, int) or isinstance(n, bool) or n != want:
            said = f"{n!r}, expected {want}" if reveal else repr(n)
            hint = ("a whole number of sequences (an int): round down" if is_number(n) and not isinstance(n, int) else
                    "nothing fits when the weights alone fill the memory: return 0, not a negative count"
                    if want == 0 and is_number(n) and n < 0 else
                    "when the memory left beside the weights cannot hold one sequence's cache, none fits: return 0 "
                    "(round down, never up, and no minimum of one)"
                    if want == 0 and is_number(n) and n > 0 else
                    "a sequence that does not fit whole does not fit: round down, not up or to the nearest"
                    if is_number(n) and n == want + 1 else
                    "the memory left beside the weights holds a whole number of caches exactly here, and a cache "
                    "that fits exactly, fits: count it (compare with <=, or divide with //)"
                    if is_number(n) and n == want - 1 and exact_fit(c) else
                    "weight_bytes is the weights' size in bytes as given, whatever dtype the cache is in (and not a "
                    "count of parameters): subtract it as it is; (memory − weights) ÷ one sequence's cache, rounded down"
                    if is_number(n) and weights_rescaled(n, c) else
                    "(memory − weights) ÷ one sequence's cache (in the cache's dtype), rounded down")
            return [f"max_sequences on {c.about} gave {said}: {hint}."]
    return []


def weights_rescaled(n: Any, c: BudgetCase) -> bool:
    """`n` is the count with the weights' bytes scaled by the cache's element size (÷ 2, or as if weight_bytes counted
    parameters), where that changes the count."""
    one = kv_cache_bytes(c.config, c.tokens, 1, c.dtype_bytes)
    counts = {max(0, int((c.memory_bytes - c.weight_bytes * factor) // one)) for factor in (c.dtype_bytes / 2, c.dtype_bytes)}
    return n != c.want and n in counts


def exact_fit(c: BudgetCase) -> bool:
    """The memory left beside the weights is a whole number (> 0) of one sequence's caches."""
    one = kv_cache_bytes(c.config, c.tokens, 1, c.dtype_bytes)
    free = c.memory_bytes - c.weight_bytes
    return free > 0 and free % one == 0


GB = 10**9


@register("07.kv_budget", points=1, exercise="C", title="how many sequences' caches fit beside the weights",
          cases=[BudgetCase("Llama-2-7B in fp16 on an 80 GB GPU, 4096 tokens", LlamaConfig.named("7b"), 4096, 80 * GB,
                            13_476_839_424, want=30),
                 BudgetCase("Llama-2-7B on a 16 GB GPU, 4096 tokens", LlamaConfig.named("7b"), 4096, 16 * GB, 13_476_839_424,
                            want=1),
                 BudgetCase("Llama-2-7B on a 12 GB GPU", LlamaConfig.named("7b"), 1024, 12 * GB, 13_476_839_424, want=0),
                 BudgetCase("Llama-2-7B with an fp32 cache on an 80 GB GPU, 4096 tokens", LlamaConfig.named("7b"), 4096,
                            80 * GB, 13_476_839_424, dtype_bytes=4, want=15),
                 BudgetCase("Llama-2-7B with room for exactly two 4096-token fp16 caches beside its weights",
                            LlamaConfig.named("7b"), 4096, 13_476_839_424 + 2 * 2 * 1024**3, 13_476_839_424, want=2)])
def _kv_budget(ctx: Context, cases: list[BudgetCase]) -> str:
    fail_if(budget_problems(ctx.probe(probe_budget, cases), cases, ctx.reveal))
    return "sequences counted right, including when none fits"


# ---------------------------------------------------------------- D: a static cache and one compiled decode graph
@dataclass(frozen=True)
class DecodeCase:
    """A random-weight Llama (built on the CPU from a seed, then moved), a prompt, and how many tokens to make."""

    about: str
    config: LlamaConfig
    seed: int
    prompt: tuple
    new_tokens: int
    dtype: str = "float32"      # the model's; a cache of another dtype is wrong
    exact_ids: bool = True      # compare with the checker's greedy decode (bf16 rounding may break near-ties: off)

    def build(self, device) -> nn.Module:
        """The model with attention made to matter: with plain N(0, 0.02) weights a tied model mostly repeats its
        input token, and a decode that loses its cache would still pick the right ids."""
        model = build_model(self.config, seed=self.seed)
        with torch.no_grad():
            for layer in model.layers:
                for proj, gain in (("q_proj", 3), ("k_proj", 3), ("v_proj", 10), ("o_proj", 10)):
                    getattr(layer.attn, proj).weight.mul_(gain)
        return model.to(device=device, dtype=getattr(torch, self.dtype))


def greedy_reference(model: nn.Module, prompt: list[int], new_tokens: int) -> list[int]:
    """The checker's own greedy decode: the whole sequence through the model without a cache, every step."""
    device = model.embed.weight.device
    ids = list(prompt)
    with torch.no_grad():
        for _ in range(new_tokens):
            logits = model(torch.tensor([ids], device=device))
            ids.append(int(logits[0, -1].argmax()))
    return ids[len(prompt):]


class Recompiling(Exception):
    """Raised by the checker's compiler once the decode step has compiled GRAPHS_ENOUGH graphs: recompiling per
    token is proven, and tracing the rest of the generation would only cost time."""


GRAPHS_ENOUGH = 3


def probe_static_decode(learner: Learner, case: DecodeCase) -> dict:
    """generate_static with a counting compiler (torch.compile on a CompileCounter backend, static shapes; stopped
    once it has compiled GRAPHS_ENOUGH graphs), then without one; the checker's own greedy decode of the same model."""
    from torch._dynamo.testing import CompileCounter

    device = run_device(learner)
    model = case.build(device)
    counter, calls, wrapped, graph_runs = CompileCounter(), [0], [0], []
    backend = count_runs(counter, graph_runs)    # one backend for every compiler() call: Dynamo guards on it

    def compiler(fn):
        wrapped[0] += 1
        compiled = torch.compile(fn, backend=backend, fullgraph=True, dynamic=False)

        def counted(*args, **kwargs):
            calls[0] += 1
            out = compiled(*args, **kwargs)
            if counter.frame_count >= GRAPHS_ENOUGH:
                raise Recompiling
            return out
        return counted

    cache_dtypes: set = set()
    cache_sizes: set = set()
    grad_modes: set = set()
    caches: dict = {"compiled": [], "eager": []}      # the caches each call wrote into (held: their ids stay unique)
    phase = ["compiled"]
    update, init = StaticKVCache.update, StaticKVCache.__init__
    no_device: list = []      # caches made without a device: StaticKVCache's default, the CPU, whatever the model's

    def seen_init(self, *args, **kwargs):
        if torch.compiler.is_compiling():    # a cache made inside the traced step: Dynamo cannot trace inspect
            return init(self, *args, **kwargs)
        try:
            given = inspect.signature(init).bind(self, *args, **kwargs).arguments.get("device")
        except TypeError:     # the constructor itself says what is wrong with these arguments
            given = True
        if given is None:
            no_device.append(True)
        return init(self, *args, **kwargs)

    def note(cache, layer):       # which cache each call writes into, and how long it is
        if not any(c is cache for c in caches[phase[0]]):
            caches[phase[0]].append(cache)
        cache_sizes.add(int(cache.keys[layer].shape[2]))

    def seen_update(self, layer, *args, **kwargs):      # which dtype the cache the model writes into holds
        if not torch.compiler.is_compiling():            # the eager prefill only: Dynamo never sees `caches` (a cache
            note(self, layer)                            # made inside a traced step is no input it could wrap)
        cache_dtypes.add(str(self.keys[layer].dtype).removeprefix("torch."))
        grad_modes.add(torch.is_grad_enabled())          # and whether autograd records the generation
        return update(self, layer, *args, **kwargs)

    torch._dynamo.reset()
    stopped = False
    StaticKVCache.update, StaticKVCache.__init__ = seen_update, seen_init
    try:
        try:   # a limit above GRAPHS_ENOUGH, so a step that recompiles every token is caught, not sent back to eager
            with settings_kept(), torch._dynamo.config.patch(recompile_limit=64):
                ids = learner.call("generate_static", model, list(case.prompt), case.new_tokens, compiler)
        except (Recompiling, getattr(torch._dynamo.exc, "FailOnRecompileLimitHit", Recompiling)):   # (a lowered limit)
            ids, stopped = None, True
        finally:
            frames = counter.frame_count
            torch._dynamo.reset()
        phase[0] = "eager"
        eager, compiled_anyway = without_compiling(learner, model, case)
    except CheckFailed:
        raise
    except Exception as err:      # noqa: BLE001 - the learner's decode may raise anything: said in words below
        said = f"{type(err).__name__}: {(str(err).splitlines() or [''])[0][:160]}"
        return {"past_cache": said, "no_device": bool(no_device), "cache_sizes": sorted(cache_sizes)} \
            if past_the_cache(err) else {"raised": said, "no_device": bool(no_device)}
    finally:
        StaticKVCache.update, StaticKVCache.__init__ = update, init
    as_ints = lambda xs: [int(x) for x in xs] if isinstance(xs, (list, tuple)) else None
    not_int = lambda xs: next((type(x).__name__ for x in xs if not isinstance(x, numbers.Integral) or isinstance(x, bool)),
                              None) if isinstance(xs, (list, tuple)) else None
    return {"ids": as_ints(ids), "eager": as_ints(eager), "want": greedy_reference(model, list(case.prompt), case.new_tokens),
            "not_int": not_int(eager) or not_int(ids), "grad": True in grad_modes,
            "frames": frames, "calls": calls[0], "wrapped": wrapped[0], "stopped": stopped,
            "graph_runs": sum(graph_runs), "compiled_anyway": compiled_anyway,
            "cache_kept": any(c is d for c in caches["compiled"] for d in caches["eager"]), "no_device": bool(no_device),
            "cache_dtypes": sorted(cache_dtypes), "cache_sizes": sorted(cache_sizes)}


def without_compiling(learner: Learner, model: nn.Module, case: DecodeCase) -> tuple:
    """generate_static with no compiler, and whether it compiled anything all the same (torch.compile called, or a
    graph Dynamo compiled): torch.compile hands the function back uncompiled meanwhile, so such an answer costs no
    compile here."""
    from torch._dynamo.utils import counters

    asked: list = []
    real = torch.compile

    def not_compiling(model=None, *args, **kwargs):
        asked.append(True)
        return (lambda fn: fn) if model is None else model

    before = counters["stats"]["unique_graphs"]
    torch.compile = not_compiling
    try:
        ids = learner.call("generate_static", model, list(case.prompt), case.new_tokens, None)
    finally:
        torch.compile = real
    return ids, bool(asked) or counters["stats"]["unique_graphs"] > before


def decode_error_hint(said: str) -> str:
    """Words for what generate_static raised: the likely cause, said for the exercise."""
    if "one element tensors" in said or "converted to Python scalars" in said:
        return ("A new id should be one number: take the argmax over the vocabulary, the last dimension, of the last "
                "position's logits (logits[:, -1].argmax(-1) gives one id for the batch of one), then int() of it.")
    if "tensor of dimension 0" in said or "0-d" in said or "zero-dim" in said:
        return ("A 0-dim tensor was indexed: the position of a decode step is a 1-element tensor of shape (1,), "
                "torch.tensor([P]) rather than torch.tensor(P), as the prefill's positions are torch.arange(P): the "
                "cache writes each step's key and value at the positions that tensor lists.")
    if "shape" in said or "size" in said:
        return ("The shapes do not fit: make a new StaticKVCache in every call, from this model's config (its layers, "
                "KV heads and head_dim), its weights' dtype and device, and room for this prompt and these new "
                "tokens; feed each new token as a (1, 1) tensor of ids and its position as a 1-element tensor.")
    return ("Greedy decoding with a static cache: one StaticKVCache made in this call for len(prompt_ids) + "
            "max_new_tokens positions, an eager prefill of the prompt, then one step per new token at its position.")


def past_the_cache(err: BaseException) -> bool:
    """True when `err` (or what it wraps: Dynamo re-raises a traced op's error) is an index past the end of a tensor
    along a dimension: what writing a position the cache has no room for raises."""
    while err is not None:
        if isinstance(err, (IndexError, RuntimeError)) and "out of bounds" in str(err):
            return True
        err = err.__cause__ or err.__context__
    return False


def static_decode_problems(got: dict, case: DecodeCase, reveal: bool) -> list[str]:
    n = case.new_tokens
    if got.get("no_device"):     # on a GPU the decode then fails on tensors of two devices; on a CPU it runs
        return [f"on {case.about}, generate_static made its StaticKVCache without a device: its default is the CPU, "
                "whatever device the model is on, so on a GPU the decode step would mix CPU and GPU tensors. Pass "
                "the model's device (its weights', like the dtype): StaticKVCache(..., dtype=..., device=...)."]
    if got.get("raised"):
        return [f"on {case.about}, generate_static raised {got['raised']}. {decode_error_hint(got['raised'])}"]
    if got.get("cache_kept"):
        return [f"on {case.about}, two calls of generate_static wrote into the same KV cache: make a new StaticKVCache "
                "in every call, for that call's model (its config, its weights' dtype and device) and for its prompt "
                "and new tokens. A cache kept from an earlier call fits another model or generation badly, and holds "
                "its keys and values."]
    if got.get("past_cache") and max(got.get("cache_sizes") or [0]) >= len(case.prompt) + n:
        return [f"on {case.about}, generate_static wrote past the end of its KV cache ({got['past_cache']}), though "
                "the cache has room for the prompt and every new token: the positions ran ahead. Advance the position "
                "by one position per token, once per step (in the loop or inside the step, not both): the prefill "
                "writes 0..P-1, the decode steps P, P+1, …"]
    if got.get("past_cache"):
        return [f"on {case.about}, generate_static wrote past the end of its KV cache ({got['past_cache']}): "
                "preallocate one StaticKVCache with room for every position the generation writes, the prompt's "
                "and the new tokens' (len(prompt_ids) + max_new_tokens)."]
    for key in ("eager", "ids"):
        ids = got[key]
        label = "without a compiler" if key == "eager" else "with the compiler"
        if key == "ids" and got.get("stopped"):
            return [f"the decode step compiled {got['frames']} graphs in its first {got['calls']} steps (with static "
                    "shapes), expected 1 for the whole generation: something the step depends on changes every token. "
                    "Pass the position as a tensor that you update (a Python int is a constant to Dynamo: every new "
                    "value is a new graph), and preallocate one StaticKVCache for prompt + new tokens so no shape changes."]
        if ids is None or len(ids) != n:
            return [f"generate_static ({label}) should return the {n} new token ids as a list of ints; it returned "
                    f"{'something else' if ids is None else f'{len(ids)} ids'}."]
        if case.exact_ids and ids != got["want"]:
            first = next(i for i, (a, b) in enumerate(zip(ids, got["want"])) if a != b)
            return [f"on {case.about}, generate_static ({label}) differs from greedy decoding from token {first} on: take "
                    "the argmax of the last position's logits, feed each step the token the step before chose, write "
                    "each step's key/value at its position (input_pos = prompt length, then +1 per token) and keep "
                    "the cache between steps."]
    if got.get("not_int"):
        return [f"generate_static returned its ids as {got['not_int']} objects: return a list of ints (int(next_id) or "
                "next_id.item() for each new token), as the exercise asks."]
    if got.get("grad"):
        return [f"on {case.about}, generate_static ran the model with autograd on: run the whole generation under "
                "torch.no_grad() (or torch.inference_mode()). With autograd on, every step records what a backward "
                "pass would need, and the cache, written in place, carries that record from step to step: memory "
                "and time a benchmark should not pay."]
    wrong_dtype = [d for d in got.get("cache_dtypes", []) if d != case.dtype]
    if wrong_dtype:
        return [f"on {case.about}, the KV cache holds {', '.join(wrong_dtype)} while the model computes in {case.dtype}: "
                "allocate the cache in the model's dtype (its weights'). A wider cache holds more bytes than it "
                "needs, and decode reads all of them every step."]
    sizes, written = got.get("cache_sizes", []), len(case.prompt) + n
    if sizes and max(sizes) > 2 * written:
        return [f"on {case.about}, the KV cache holds {max(sizes)} positions for a generation of "
                f"{'a prompt and new tokens' if not reveal else f'{len(case.prompt)} + {n} tokens'}: preallocate it for "
                "the prompt and the new tokens (len(prompt_ids) + max_new_tokens), not for the model's longest context. "
                "Each decode step attends over every position the cache holds, so a cache far longer than the "
                "generation costs reads and compute at every step."]
    if got.get("compiled_anyway"):
        return [f"on {case.about}, generate_static compiled the decode step although no compiler was given "
                "(compiler is None): run the step as it is then (`decode = compiler(step) if compiler is not None "
                "else step`). The run without a compiler is the eager baseline the compiled one is compared with."]
    if n == 1:   # the prefill's argmax is the only new token: no decode step runs, so no graph is compiled
        if got["calls"]:
            return [f"on {case.about}, generate_static ran the compiled decode step {got['calls']} time(s) for one new "
                    "token: the prefill's argmax is that token, so no decode step should run (each later token is "
                    "one call of the step: max_new_tokens − 1 calls)."]
        return [] if got["wrapped"] <= 1 else \
            [f"generate_static called the compiler {got['wrapped']} times: compile the step once, before the loop."]
    if got["wrapped"] == 0 or got["calls"] == 0:
        return ["generate_static never used the compiler it was given: wrap the decode step once, "
                "`decode = compiler(step)`, and call `decode` for every new token."]
    if got["calls"] != n - 1:
        return [f"the compiled decode step ran {got['calls']} times for {n} new tokens, expected {n - 1}: the prompt goes "
                "through the model in one eager prefill (which also gives the first token), and each later token is "
                "one call of the compiled step."]
    if got["wrapped"] > 1:
        return [f"generate_static called the compiler {got['wrapped']} times: compile the step once, before the loop."]
    if got.get("graph_runs", got["calls"]) < got["calls"]:
        return [f"the compiled decode step ran as a compiled graph in {got['graph_runs']} of its {got['calls']} calls; the "
                "rest ran eagerly. A recompile limit or the eager_on_recompile stance hides a recompilation by "
                "skipping the compile, it does not remove it: pass the position as a tensor that you update, and "
                "preallocate one StaticKVCache for prompt + new tokens so no shape changes."]
    if got["frames"] != 1:
        return [f"the decode step compiled {got['frames']} graphs over {n - 1} steps (with static shapes), expected 1: "
                "something the step depends on changes every token. Pass the position as a tensor that you update "
                "(a Python int is a constant to Dynamo: every new value is a new graph), and preallocate one "
                "StaticKVCache for prompt + new tokens so no shape changes."]
    return []


@register("07.static_decode", points=4, exercise="D", title="one compiled graph for a whole generation (static KV cache)",
          cases=[DecodeCase("the tiny model", TINY, seed=7, prompt=(72, 101, 108, 108, 111, 32), new_tokens=12),
                 DecodeCase("the tiny model in bfloat16", TINY, seed=8, prompt=(87, 104, 121, 32), new_tokens=6,
                            dtype="bfloat16", exact_ids=False),
                 DecodeCase("one new token (the prefill gives it)", TINY, seed=9, prompt=(80, 82), new_tokens=1)])
def _static_decode(ctx: Context, cases: list[DecodeCase]) -> str:
    for case in cases:
        fail_if(static_decode_problems(ctx.probe(probe_static_decode, case), case, ctx.reveal))
    return "greedy tokens right, one graph compiled, no recompiles"


# ---------------------------------------------------------------- E: weight-only int8
@dataclass(frozen=True)
class WeightCase:
    """A weight (out_features × in_features) from a seed, some rows scaled up (outliers), in a dtype."""

    about: str
    out_features: int
    in_features: int
    seed: int
    dtype: str = "float32"
    outlier_rows: tuple = ()
    zero_rows: tuple = ()
    batch: int = 3
    tokens: int = 0       # > 0: x is (batch, tokens, in_features), as a model's activations are

    def make(self) -> tuple[torch.Tensor, torch.Tensor]:
        g = torch.Generator().manual_seed(self.seed)
        w = torch.randn(self.out_features, self.in_features, generator=g) * 0.02
        for r in self.outlier_rows:
            w[r] *= 50
        for r in self.zero_rows:
            w[r] = 0
        x = torch.randn(self.batch, *((self.tokens,) if self.tokens else ()), self.in_features, generator=g)
        return w.to(getattr(torch, self.dtype)), x.to(getattr(torch, self.dtype))


class NonFiniteToInt(TorchDispatchMode):
    """Notes a cast to an integer dtype of a float tensor that holds NaN or ±inf (0 / 0 from an all-zero row and
    its zero scale): what such a cast gives is undefined (it happens to be 0 on some machines, not on others)."""

    def __init__(self):
        super().__init__()
        self.seen = False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func.overloadpacket.__name__
        source, dtype = ((args[0], kwargs.get("dtype")) if name == "_to_copy" and args else
                         (args[1], args[0].dtype) if name == "copy_" and len(args) > 1 and
                         isinstance(args[0], torch.Tensor) else (None, None))
        if isinstance(source, torch.Tensor) and source.is_floating_point() and dtype is not None and \
                not dtype.is_floating_point and not dtype.is_complex and dtype != torch.bool and \
                not bool(torch.isfinite(source).all()):
            self.seen = True
        return func(*args, **kwargs)


MATMUL_OPS = {"mm", "addmm", "bmm", "baddbmm", "matmul", "mv", "addmv", "dot", "linear", "einsum", "_int_mm"}


class MatmulDtypes(OpRecorder):
    """An OpRecorder that also notes the dtypes of the floating-point operands of every matmul dispatched."""

    def __init__(self):
        super().__init__()
        self.dtypes: set = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.overloadpacket.__name__ in MATMUL_OPS:
            self.dtypes |= {str(a.dtype) for a in args if isinstance(a, torch.Tensor) and a.is_floating_point()}
        return super().__torch_dispatch__(func, types, args, kwargs)


def probe_int8_weights(learner: Learner, case: WeightCase) -> dict:
    w, x = case.make()
    casts = NonFiniteToInt()
    given = w.clone()
    with refusing("07.int8_weights", package_versions(*INT8)), casts:
        out = learner.call("quantize_linear_int8", given)
    if not torch.equal(given, w):       # an in-place op on the weight (a float32 weight's .float() is itself)
        return {"pair": True, "changed_weight": True}
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        return {"pair": False}
    q, s = out
    info: dict = {"pair": True, "nonfinite_cast": casts.seen, "q_dtype": str(getattr(q, "dtype", type(q).__name__)),
                  "q_shape": list(getattr(q, "shape", [])), "s_shape": list(getattr(s, "shape", [])),
                  "s_dtype": str(getattr(s, "dtype", type(s).__name__))}
    if not (isinstance(q, torch.Tensor) and isinstance(s, torch.Tensor)):
        return info
    matmuls = MatmulDtypes()
    with refusing("07.int8_weights", package_versions(*INT8)), matmuls:
        y = attempt(learner, "int8_linear", x, q, s)
    info.update(q=q, s=s, w=w, x=x, y=y if isinstance(y, torch.Tensor) else None, y_raised=raised(y),
                matmul_dtypes=sorted(matmuls.dtypes))
    return info


def int8_weights_problems(got: dict, case: WeightCase, reveal: bool) -> list[str]:
    out, inp = case.out_features, case.in_features
    if not got.get("pair"):
        return ["quantize_linear_int8 should return a pair (int8 weight, scales)."]
    if got.get("changed_weight"):
        return [f"on {case.about}, quantize_linear_int8 changed the weight it was given: an in-place op (div_, "
                "round_, clamp_, /=) wrote into it. `.to(torch.float32)` and `.float()` return the tensor itself when "
                "it is float32 already, so compute the quotient out of place (w / step): the model's own weights must "
                "stay as they were."]
    if got["q_dtype"] != "torch.int8" or got["q_shape"] != [out, inp]:
        return [f"the quantized weight should be a torch.int8 tensor of the weight's shape [{out}, {inp}]; got "
                f"{got['q_dtype']} {got['q_shape']}."]
    if got["s_shape"] not in ([out], [out, 1]):
        return [f"scales should hold one value per output channel (row): shape [{out}], got {got['s_shape']}. "
                + ("One scale for the whole tensor lets one outlier row flatten every other row's resolution."
                   if got["s_shape"] in ([], [1]) else "")]
    if got["s_dtype"] != f"torch.{case.dtype}":
        return [f"on {case.about}, the scales are {got['s_dtype']}: return them in the weight's dtype (torch.{case.dtype}), "
                "cast back after computing in float32."]
    if got.get("nonfinite_cast"):
        return [f"on {case.about}, quantize_linear_int8 cast a NaN or an infinity to int8 (an all-zero row divided by "
                "its zero scale: 0 / 0): what that cast gives is undefined. Give an all-zero row a nonzero scale (any "
                "will do: its int8 values are all 0) before dividing."]
    w, q, s = got["w"].float(), got["q"], got["s"].float().reshape(-1)
    want_s = (w.abs().amax(dim=1) / 127.0)
    nonzero = want_s > 0
    rtol = max(1e-5, 0.51 * torch.finfo(getattr(torch, case.dtype)).eps)   # the scale rounded once to the weight's dtype
    if not torch.allclose(s[nonzero], want_s[nonzero], rtol=rtol, atol=0):
        bad = int((~torch.isclose(s[nonzero], want_s[nonzero], rtol=rtol)).nonzero()[0])
        ratio = float(s[nonzero][bad] / want_s[nonzero][bad])
        hint = ("the scales look like one per tensor: compute max |w| per row (amax over dim=1)"
                if s.numel() > 1 and s.unique().numel() == 1 else
                f"scale = max |w| of the row / 127 (symmetric int8 uses -127..127); yours is {ratio:.3g}× that")
        return [f"on {case.about}, the scale of row {bad} is off: {hint}."]
    if bool((q == -128).any()):
        return [f"on {case.about}, the int8 weight holds -128: clamp to -127..127 before casting (a value of 128 wraps "
                "round to -128 in int8), so the range is symmetric."]
    if not nearest_integers(w, q, [want_s, s]):
        return [f"on {case.about}, some int8 values are not w / scale rounded to the nearest integer: compute the "
                "quotient in float32 and round it (torch.round) before casting. `.to(torch.int8)` alone truncates, "
                "and a quotient computed in bf16 or fp16 is rounded already (bf16 keeps 8 significant bits: between "
                "64 and 127 its values are 0.5 apart)."]
    deq = q.float() * s[:, None]
    err = (deq - w).abs()
    half = 0.5 if case.dtype == "float32" else 0.8   # bf16/fp16 inputs: the weight itself is rounded already
    bound = s[:, None] * half + 1e-6 * w.abs().amax()
    if bool((err > bound * 1.01 + 1e-12).any()):
        return [f"on {case.about}, some weights are off by more than half a quantization step after dequantizing: "
                "round to the nearest integer (torch.round) before casting; .to(torch.int8) alone truncates."]
    y = got.get("y")
    ref = (got["x"].float() @ deq.T)
    leading = (" x here is (batch, tokens, in_features), as a model's activations are: use @ or torch.matmul (or "
               "F.linear), which keep the leading dimensions; torch.mm takes matrices only." if got["x"].dim() > 2 else "")
    if got.get("y_raised"):
        return [f"on {case.about}, int8_linear(x, q, scales) raised {got['y_raised']}: compute x @ qᵀ in x's dtype, then "
                f"scale each output column by its row's scale.{leading}"]
    if y is None or list(y.shape) != list(ref.shape):
        return [f"int8_linear(x, q, scales) should return x @ Wᵀ with shape {list(ref.shape)}; got "
                f"{None if y is None else list(y.shape)}.{leading}"]
    if y.dtype != got["x"].dtype:
        return [f"int8_linear should compute in the activations' dtype ({got['x'].dtype}); it returned {y.dtype}."]
    wider = [d for d in got.get("matmul_dtypes", []) if d != str(got["x"].dtype)]
    if wider:
        return [f"on {case.about}, int8_linear multiplied in {', '.join(wider)} for {got['x'].dtype} activations: compute "
                "in the activations' dtype (q.to(x.dtype)), as the exercise asks: a copy of the weight in a wider "
                "dtype moves more bytes at every call, and a matmul in it runs slower."]
    tol = 2e-2 if case.dtype != "float32" else 1e-4
    rel = float((y.float() - ref).norm() / ref.norm().clamp(min=1e-12))
    if rel > tol:
        return [f"on {case.about}, int8_linear is {rel:.1e} (relative) away from x @ (q × scale)ᵀ: cast q to x's dtype, "
                "multiply, and scale each output column by its row's scale, (x @ qᵀ) × scales."]
    return []


def nearest_integers(w: torch.Tensor, q: torch.Tensor, scales: list[torch.Tensor]) -> bool:
    """Every q is within half a step (and a float32 quotient's error) of w / s for one of the given per-row scales
    (the exact float32 one, or the learner's own, rounded to the weight's dtype: either is an honest divisor)."""
    w64, q64 = w.double(), q.double()
    ok = torch.zeros_like(q64, dtype=torch.bool)
    for s in scales:
        s64 = s.double().reshape(-1, 1)
        quotient = torch.where(s64 > 0, w64 / torch.where(s64 > 0, s64, 1.0), 0.0)
        ok |= (q64 - quotient).abs() <= 0.5 + 1e-3
    return bool(ok.all())


@register("07.int8_weights", points=2, exercise="E", title="per-channel int8 weights and the matmul that dequantizes",
          cases=[WeightCase("a 64×48 weight, x of shape (3, 5, 48) as a model's activations", 64, 48, seed=1, tokens=5),
                 WeightCase("a 32×40 weight with one outlier row", 32, 40, seed=2, outlier_rows=(5,)),
                 WeightCase("a bf16 24×16 weight with an all-zero row", 24, 16, seed=3, dtype="bfloat16",
                            zero_rows=(9,))])
def _int8_weights(ctx: Context, cases: list[WeightCase]) -> str:
    for case in cases:
        fail_if(int8_weights_problems(ctx.probe(probe_int8_weights, case), case, ctx.reveal))
    return "int8 weights within half a step of the original, per-row scales, matmul right"


def tiny_llama(seed: int = 11) -> nn.Module:
    """The lab's tiny Llama with random weights (tied output head)."""
    return build_model("tiny", seed=seed)


def tiny_llama_input(model: nn.Module, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, model.config.vocab_size, (2, 9), generator=g)


@dataclass(frozen=True)
class QuantModelCase:
    """A model factory and an input factory (both importable), for quantize_model."""

    about: str
    make: Callable = tiny_llama
    make_input: Callable = tiny_llama_input


def checker_quantize(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Part E's quantize_linear_int8, the checker's own: put in for the learner's while the model pass is judged, so
    a mistake in it is charged once, by 07.int8_weights."""
    w = weight.detach().float()
    scales = (w.abs().amax(dim=1) / 127.0).clamp(min=1e-12)
    return torch.round(w / scales[:, None]).clamp(-127, 127).to(torch.int8), scales.to(weight.dtype)


def checker_int8_linear(x: torch.Tensor, q: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    """Part E's int8_linear, the checker's own (for the same reason)."""
    return torch.nn.functional.linear(x, q.to(x.dtype)) * scales.to(x.dtype)


def probe_int8_model(learner: Learner, case: QuantModelCase) -> dict:
    """quantize_model on the case's model against helpers.llm_bench.quantize_int8 on a copy: same outputs, no Linear
    left. The learner's quantize_linear_int8 and int8_linear are the checker's own meanwhile (07.int8_weights judges
    them): this check judges the pass."""
    from helpers.llm_bench.quantize import quantize_int8

    device = run_device(learner)
    torch.manual_seed(0)
    model = case.make().to(device).eval()
    x = case.make_input(model).to(device)
    linears = sum(isinstance(m, nn.Linear) for m in model.modules())
    shapes = {name: tuple(m.weight.shape) for name, m in model.named_modules() if isinstance(m, nn.Linear)}
    reference = copy.deepcopy(model)
    quantize_int8(reference)
    with torch.no_grad():
        want, full = reference(x).float(), model(x).float()
    with refusing("07.int8_model", package_versions(*INT8)), \
            learner.replacing("quantize_linear_int8", checker_quantize), learner.replacing("int8_linear", checker_int8_linear):
        returned = learner.call("quantize_model", model)
        q = returned if isinstance(returned, nn.Module) else model
        left = sum(isinstance(m, nn.Linear) for m in q.modules())
        swapped = swapped_layers(q, shapes)
        try:
            with torch.no_grad(), learner.running("quantize_model"):
                got = q(x).float()
        except (RuntimeError, TypeError, ValueError, IndexError) as err:   # a QuantLinear where no matmul was
            return {"linears": linears, "returned": type(returned).__name__, "same": returned is model,
                    "transposed": transposed_layers(q, shapes), "swapped": swapped,
                    "forward_raised": f"{type(err).__name__}: {str(err).splitlines()[0][:160]}"}
    return {"linears": linears, "left": left, "returned": type(returned).__name__, "swapped": swapped,
            "same": returned is model, "left_in_given": sum(isinstance(m, nn.Linear) for m in model.modules()),
            "rel_to_reference": float((got - want).norm() / want.norm().clamp(min=1e-12)),
            "rel_to_full": float((got - full).norm() / full.norm().clamp(min=1e-12)),
            "int8_buffers": sum(t.dtype == torch.int8 for t in q.state_dict().values())}


def swapped_layers(model: nn.Module, shapes: dict) -> int:
    """How many of the layers that were nn.Linear now hold QuantLinear's two tensors the other way round: an int8
    tensor as the scales, or a 1-D tensor as the int8 weight."""
    modules = dict(model.named_modules())
    count = 0
    for name in shapes:
        m = modules.get(name)
        scales, weight = getattr(m, "scales", None), getattr(m, "weight_int8", None)
        count += (isinstance(scales, torch.Tensor) and scales.dtype == torch.int8 and scales.dim() == 2) or \
            (isinstance(weight, torch.Tensor) and weight.dim() == 1)
    return count


def transposed_layers(model: nn.Module, shapes: dict) -> int:
    """How many of the layers that were nn.Linear now hold an int8 tensor of their weight's shape transposed (in,
    out), not (out, in) (square layers cannot tell)."""
    modules = dict(model.named_modules())
    count = 0
    for name, (out, inp) in shapes.items():
        m = modules.get(name)
        held = [tuple(t.shape) for t in (m.state_dict().values() if m is not None else ()) if t.dtype == torch.int8]
        count += out != inp and (inp, out) in held and (out, inp) not in held
    return count


def int8_model_problems(got: dict, case: QuantModelCase) -> list[str]:
    if got["returned"] == "NoneType":
        return ["quantize_model returned None: return the model (changed in place) so it can be used as "
                "`quantized = quantize_model(model)`."]
    if got.get("swapped"):
        return [f"on {case.about}, {got['swapped']} layer(s) hold the scales where QuantLinear keeps the int8 weight and "
                "the int8 weight where it keeps the scales: QuantLinear(q, scales) takes the int8 weight first, then "
                "its per-row scales, the order quantize_linear_int8 returns them in."]
    if got.get("forward_raised") and got.get("transposed"):
        return [f"on {case.about}, the quantized model could not run its input: {got['forward_raised']}. "
                f"{got['transposed']} layer(s) hold their int8 weight transposed, (in_features, out_features): "
                "quantize each nn.Linear's weight as it is stored, (out_features, in_features), one scale per output "
                "row; QuantLinear computes x @ qᵀ from that layout, as nn.Linear does."]
    if got.get("forward_raised"):
        return [f"on {case.about}, the quantized model could not run its input: {got['forward_raised']}. Replace the "
                "nn.Linear layers only (isinstance(m, nn.Linear)): an embedding or a norm has a weight too, but it is "
                "no matmul, and a QuantLinear in its place multiplies what it is given (token ids, say) by it."]
    if got["returned"] != "NoneType" and not got.get("same", True):
        still = (f" (the model it was given still has {got['left_in_given']} of its {got['linears']} nn.Linear layers)"
                 if got.get("left_in_given") else "")
        return [f"on {case.about}, quantize_model returned another module than the one it was given (a copy?){still}: "
                "change the model in place (setattr each QuantLinear on its parent) and return that same model; a "
                "copy holds a second set of weights in memory."]
    if got["left"]:
        return [f"on {case.about}, {got['left']} of {got['linears']} nn.Linear layers are still there after quantize_model: "
                "walk every module (model.named_modules(), nested ones too) and replace each nn.Linear on its parent "
                "(setattr(parent, child_name, QuantLinear(...)))."]
    if got["int8_buffers"] < got["linears"]:
        return [f"on {case.about}, the quantized model holds {got['int8_buffers']} int8 tensors for {got['linears']} "
                "Linear layers: store each weight as int8 (quantize_linear_int8), not dequantized."]
    if got["rel_to_reference"] > 1e-4:
        return [f"on {case.about}, the quantized model's outputs are {got['rel_to_reference']:.1e} (relative) away from "
                "per-row symmetric int8 quantization of every Linear: quantize each layer's own weight with your "
                "quantize_linear_int8, and keep every other module (embeddings, norms) as it was."]
    return []


@register("07.int8_model", points=2, exercise="E", title="a quantization pass over the model",
          cases=[QuantModelCase("the tiny Llama")])
def _int8_model(ctx: Context, cases: list[QuantModelCase]) -> str:
    for case in cases:
        fail_if(int8_model_problems(ctx.probe(probe_int8_model, case), case))
    return "every Linear quantized, outputs as int8 predicts"


# ---------------------------------------------------------------- E2: the int8 decode kernel in Triton
@dataclass(frozen=True)
class KernelCase:
    """Inputs of int8_linear_triton, made from a seed: x (batch × in_features) in `dtype`, q (out × in) int8 with
    per-row scales in x's dtype, quantized as part E says. `layout`: "q transposed" (q a view with strides (1, N)),
    "x sliced" (x a view with a stride of 2 along K). `positive`: every term of every dot product > 0, so the sum only
    grows and an accumulator narrower than fp32 loses its low bits at every add (a long K makes that measurable)."""

    about: str
    batch: int
    out_features: int
    in_features: int
    seed: int
    dtype: str = "bfloat16"
    zero_rows: tuple = ()
    layout: str = ""
    positive: bool = False

    def make(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(x, q, scales) as contiguous CPU tensors; `view` gives the case's layout."""
        g = torch.Generator().manual_seed(self.seed)
        w = torch.randn(self.out_features, self.in_features, generator=g) * 0.02
        x = torch.randn(self.batch, self.in_features, generator=g)
        if self.positive:
            w, x = w.abs() + 0.01, x.abs() + 0.5
        for r in self.zero_rows:
            w[r] = 0
        row_max = w.abs().amax(dim=1)
        scales = torch.where(row_max > 0, row_max / 127.0, torch.ones_like(row_max))
        q = (w / scales[:, None]).round().clamp(-127, 127).to(torch.int8)
        dtype = getattr(torch, self.dtype)
        return x.to(dtype), q, scales.to(dtype)

    def view(self, x: torch.Tensor, q: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x and q in the case's layout (the same values, other strides), made where they are."""
        if self.layout == "q transposed":
            q = q.t().contiguous().t()
        if self.layout == "x sliced":
            x = torch.stack([x, torch.zeros_like(x)], dim=2).flatten(1)[:, ::2]
        return x, q


def reference_int8_linear(x: torch.Tensor, q: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    """(x @ qᵀ) × scales in fp64, from the inputs as given."""
    return (x.double() @ q.double().T) * scales.double()


# The ATen ops that would mean PyTorch computed part of it: the matmul, the cast of the weight, the scaling.
INT8_KERNEL_OPS = {"mm", "addmm", "matmul", "linear", "bmm", "baddbmm", "mv", "dot", "einsum", "sum", "mul", "mul_",
                   "div", "div_", "_int_mm", "_weight_int8pack_mm", "addmv", "addcmul", "prod"}
INT8_KERNEL = ("helpers.llm_bench.int8_triton.",)


class WeightUse(InputCopies):
    """Lab 03's InputCopies (copies of the weight, on a GPU) that also notes a cast of the weight to another dtype,
    interpreter or not (the interpreter's own copies keep the dtype)."""

    def __init__(self, q: torch.Tensor):
        super().__init__(q)
        self.cast = False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        source = args[0] if args else None
        if func.overloadpacket.__name__ == "_to_copy" and isinstance(source, torch.Tensor) and \
                source.untyped_storage().data_ptr() in self.storages and \
                (kwargs or {}).get("dtype", source.dtype) != source.dtype:
            self.cast = True
        return super().__torch_dispatch__(func, types, args, kwargs)


def probe_int8_kernel(learner: Learner, cases: list[KernelCase]) -> dict:
    """Run int8_linear_triton on each case (inputs with guard space after them under the interpreter), recording the
    ATen ops it dispatches and the copies it makes of q."""
    device = run_device(learner)
    outs = []
    for case in cases:
        x, q, scales = case.make()
        guard = GuardSpace()              # under the interpreter: guard space after every tensor (Lab 03 part 3)
        with guard:
            x, q, scales = (guard.guard(t.to(device), name) for t, name in ((x, "x"), (q, "q"), (scales, "the scales")))
            x, q = case.view(x, q)
        rec = WeightUse(q)
        try:
            with refusing("07.int8_kernel", package_versions(*INT8_KERNEL, *INT8)), poisoned_masked_loads(), \
                    launches_marked(), guard.reads_watched(), rec, guard:
                y = learner.call("int8_linear_triton", x, q, scales)
            if guard.overrun():
                outs.append({"overrun": True})
                continue
            if guard.read_past:
                outs.append({"read_past": sorted(guard.read_past)})
                continue
            outs.append({"out": y.detach().cpu().clone() if isinstance(y, torch.Tensor) else type(y).__name__,
                         "computed": sorted({op for op in rec.ops if op in INT8_KERNEL_OPS}),
                         "cast": rec.cast, "copied": sorted(rec.copied)})
        except CheckFailed:
            raise
        except Exception as err:      # noqa: BLE001 - the learner's kernel may raise anything; said in words
            outs.append({"error": f"{type(err).__name__}: {str(err)[:300]}"})
    return {"outs": outs, "device": str(device), "interpreted": interpreted(),
            # only where the first case ran cleanly: this call has no guard space around its tensors
            "kept_output": bool(outs) and "out" in outs[0] and kept_output(learner, cases[0], device)}


def kept_output(learner: Learner, case: KernelCase, device) -> bool:
    """Whether two calls on inputs of the same shapes hand back one output tensor (a buffer kept between calls), or
    the second changes what the first returned: a caller keeps each result while the next call runs."""
    x, q, scales = (t.to(device) for t in case.make())
    try:
        with refusing("07.int8_kernel", package_versions(*INT8_KERNEL, *INT8)):
            first = learner.call("int8_linear_triton", x, q, scales)
            if not isinstance(first, torch.Tensor):
                return False
            before = first.detach().clone()
            second = learner.call("int8_linear_triton", (-x).contiguous(), q, scales)
    except CheckFailed:
        raise
    except Exception:      # noqa: BLE001 - what the kernel raises is said by the cases
        return False
    same = isinstance(second, torch.Tensor) and second.untyped_storage().data_ptr() == first.untyped_storage().data_ptr()
    return same or not torch.equal(first.detach(), before)


# Relative error of one rounding to the output's dtype: half an ulp when rounded to nearest (a GPU), a whole ulp when
# truncated (Triton's interpreter truncates fp32 → bf16). bf16 keeps 8 significant bits: one ulp is at most 2⁻⁷ of the
# value; fp16 keeps 11 (2⁻¹⁰). The reference is exact (fp64) and the accumulator fp32, so the store's rounding is
# the only error that counts, plus the fp32 sum's own: at most about K × 2⁻²⁴ of Σ|terms|, allowed as 2⁻¹² of it (2⁻¹⁰
# on a GPU with fp32 inputs: tl.dot rounds them to tf32, 10 bits).
OUTPUT_ROUNDING = {torch.bfloat16: 2**-7, torch.float16: 2**-10, torch.float32: 2**-20}


def int8_kernel_tolerance(x: torch.Tensor, q: torch.Tensor, scales: torch.Tensor, device: str) -> tuple:
    """(reference, allowed |difference| per element) for one case."""
    ref = reference_int8_linear(x, q, scales)
    magnitude = (x.double().abs() @ q.double().abs().T) * scales.double().abs()     # Σ|terms| per output
    summing = 2**-10 if x.dtype == torch.float32 and device.startswith("cuda") else 2**-12
    return ref, OUTPUT_ROUNDING[x.dtype] * ref.abs() + summing * magnitude + 1e-30


def output_difference(case: KernelCase, got: torch.Tensor, device: str) -> tuple:
    """(reference, |got − reference|, the elements off by more than the tolerance) for one case's output."""
    ref, allowed = int8_kernel_tolerance(*case.make(), device)
    diff = (got.double() - ref).abs()
    return ref, diff, ~(diff <= allowed)          # NaN counts as a difference


def int8_kernel_problems(report: dict, cases: list[KernelCase], reveal: bool = True) -> list[str]:
    """Wrong values (with the likely cause), overruns, work done in PyTorch, copies of the weight, the wrong dtype."""
    problems = []
    if report.get("kept_output"):
        problems.append("two calls of int8_linear_triton on inputs of the same shapes returned one output tensor: the "
                        "second call wrote over the first call's result. Return a new output tensor from every call "
                        "(torch.empty in the launcher, in x's dtype): a caller keeps each result while the next call "
                        "runs (a layer's output is the next layer's input).")
    near_misses = rounding_only(report, cases)
    for case, r in zip(cases, report["outs"]):
        about = case.about
        if r.get("overrun"):
            problems.append(f"on {about}, int8_linear_triton wrote past the end of its output (into guard space put "
                            "there to catch it): mask the store with rows < B and columns < N.")
            continue
        if r.get("read_past"):
            problems.append(f"on {about}, int8_linear_triton read past the end of {' and '.join(r['read_past'])} (into "
                            "guard space put there to catch it): a lane of a tl.load that no mask turns off reads it, "
                            "and on a GPU that is another tensor's memory or a fault, even when the lane is never "
                            "stored. Check the masks on N and K of every load: x's rows < B and columns < K, q's rows "
                            "< N and columns < K, the scales' rn < N."
                            + (" The scales are N values, one per output column: load scales[rn] after the K loop, "
                               "and each output column's scale multiplies it." if "the scales" in r["read_past"] else ""))
            continue
        if "error" in r:
            problems.append(f"on {about}, int8_linear_triton raised {r['error']}.")
            continue
        if r["computed"] or r["cast"]:
            ops = r["computed"] + (["_to_copy of q"] if r["cast"] else [])
            problems.append(f"on {about}, PyTorch computed ({', '.join(ops)}): the matmul, the cast of the int8 "
                            "weight and the scaling all belong in the Triton kernel (a cast of the whole weight in "
                            "PyTorch is the full-size copy this kernel exists to avoid).")
        if r["copied"]:
            problems.append(f"on {about}, the launcher copied the weight ({', '.join(r['copied'])}): pass q.stride(0) "
                            "and q.stride(1) to the kernel instead of making it contiguous; a copy moves the weight "
                            "twice.")
        got = r["out"]
        if not isinstance(got, torch.Tensor):
            problems.append(f"on {about}, int8_linear_triton returned a {got}, not a tensor.")
            continue
        x, q, scales = case.make()
        if tuple(got.shape) != (case.batch, case.out_features):
            problems.append(f"on {about}, the result has shape {tuple(got.shape)}, not (B, N)"
                            + (f" = {(case.batch, case.out_features)}." if reveal else " (x's rows by q's rows)."))
            continue
        if got.dtype != x.dtype:
            problems.append(f"on {about}, the result is {got.dtype}: store it in x's dtype ({x.dtype}), converting the "
                            "fp32 accumulator once, at the store.")
            continue
        ref, diff, bad = output_difference(case, got, report["device"])
        if not bool(bad.any()):
            continue
        where = (f"{int(bad.sum())} of {bad.numel()} outputs are off (largest difference "
                 f"{float(diff.nan_to_num(float('inf')).max()):.3g})" if reveal else
                 f"{int(bad.sum())} of {bad.numel()} outputs differ from the expected result")
        unscaled = reference_int8_linear(x, q, torch.ones_like(scales))
        finite = bool(torch.isfinite(got).all())
        near = lambda want: finite and bool(torch.isfinite(want).all()) and bool(
            torch.allclose(got.double(), want, rtol=2**-6, atol=2**-10 * float(want.abs().max())))
        one_scale = float((got.double() * unscaled).sum() / (unscaled * unscaled).sum().clamp(min=1e-30)) if finite else 0.0
        if bool(got.isnan().any()):
            hint = ("there are NaNs: a load masked on K needs `other=0.0` (`other=0` for q): the lanes past K are "
                    "undefined on a GPU, and this check fills them with NaN")
        elif near_misses:
            hint = ("every wrong output is within a few percent of the right one, on every input: rounding, not a "
                    "wrong index or scale. Accumulate in fp32 (tl.zeros(..., dtype=tl.float32), `acc += tl.dot(...)`) "
                    "and convert once, at the store (Triton's interpreter gets bf16 arithmetic wrong, so there a bf16 "
                    "or fp16 accumulator is off on any input)")
        elif near(unscaled):
            hint = "the scales were never applied: multiply column n of the fp32 accumulator by scales[n], once, after the K loop"
        elif near(unscaled * one_scale):
            hint = ("every column got the same scale: the scales are per output channel, load scales[rn] with the "
                    "columns' offsets")
        elif any(near(first_block_again(x, q, scales, block)) for block in (16, 32, 64, 128, 256)
                 if block < case.in_features):
            hint = ("every pass of the K loop read the same first BLOCK_K columns of x and q: offset both loads by the "
                    "loop's k0 (k0 + tl.arange(0, BLOCK_K), in the pointers and in the K masks), or advance both "
                    "pointers by BLOCK_K × their K stride after each pass")
        elif case.positive and bool(((got.double() - ref).abs() <= 0.2 * ref.abs()).all()):
            hint = ("every term of this sum is positive and K is long: an accumulator in bf16 or fp16 rounds at every "
                    "add and drifts. Accumulate in fp32 (tl.zeros(..., dtype=tl.float32), `acc += tl.dot(...)`) and "
                    "round once, at the store")
        elif case.layout:
            hint = (f"this input is a strided view ({case.layout}): take the strides from the tensors (x.stride(0), "
                    "x.stride(1), q.stride(0), q.stride(1)) rather than assuming a contiguous layout")
        else:
            hint = ("check the masks on N and K (a load masked on K needs `other=0`), the strides, that each output "
                    "column's scale multiplies it after the K loop, and accumulate in fp32 (one rounding, at the "
                    "store; Triton's interpreter gets bf16 arithmetic wrong, so there a bf16 accumulator is off on "
                    "any input)")
        problems.append(f"on {about}, {where}: {hint}.")
    return problems


def first_block_again(x: torch.Tensor, q: torch.Tensor, scales: torch.Tensor, block: int) -> torch.Tensor:
    """What a kernel computes whose K loop never moves its loads: the first `block` columns, once per pass."""
    return math.ceil(x.shape[1] / block) * reference_int8_linear(x[:, :block], q[:, :block], scales)


def rounding_only(report: dict, cases: list[KernelCase]) -> bool:
    """True when every case whose outputs are off is off by less than 3 % (relative, over the whole output), and at
    least one is: the signature of a narrow accumulator, not of a wrong mask, stride or scale (those miss by far more)."""
    misses = []
    for case, r in zip(cases, report["outs"]):
        got = r.get("out")
        if not isinstance(got, torch.Tensor) or tuple(got.shape) != (case.batch, case.out_features):
            continue
        ref, diff, bad = output_difference(case, got, report["device"])
        if bool(bad.any()):
            misses.append(float(diff.nan_to_num(float("inf")).norm() / ref.norm().clamp(min=1e-30)))
    return bool(misses) and max(misses) < 0.03


@register("07.int8_kernel", points=3, exercise="E2",
          title="int8_linear_triton: int8 weights dequantized in registers, one Triton launch",
          cases=[KernelCase("batch 1 (a decode step), bf16, N=37, K=75 (no size a multiple of a block)", 1, 37, 75,
                            seed=31),
                 KernelCase("batch 8, fp16, N=61, K=203, with an all-zero weight row", 8, 61, 203, seed=32,
                            dtype="float16", zero_rows=(4,)),
                 KernelCase("a transposed int8 weight (strides (1, N)), batch 3, bf16, N=40, K=96", 3, 40, 96, seed=33,
                            layout="q transposed"),
                 KernelCase("batch 5, fp32, N=24, K=33", 5, 24, 33, seed=34, dtype="float32"),
                 KernelCase("x a strided view (a stride of 2 along K), batch 2, fp16, N=20, K=50", 2, 20, 50, seed=36,
                            dtype="float16", layout="x sliced"),
                 KernelCase("batch 2, bf16, K=4096 with every term positive (a long sum that only grows)", 2, 40, 4096,
                            seed=35, positive=True)])
def _int8_kernel(ctx: Context, cases: list[KernelCase]) -> str:
    report = ctx.probe(probe_int8_kernel, cases, timeout=300)
    fail_if(int8_kernel_problems(report, cases, ctx.reveal))
    where = "Triton's interpreter" if report["interpreted"] else report["device"]
    return f"right on {len(cases)} shapes, layouts and dtypes ({where}), with no PyTorch op computing any part"


# ---------------------------------------------------------------- F: percentiles over runs
@dataclass(frozen=True)
class RunsCase:
    """Several generations of one workload, (start_s, token times) per run, and the answer: p50/p95/p99 in ms of
    TTFT, TPOT and ITL."""

    about: str
    runs: tuple
    want: dict = field(default_factory=dict)


PERCENTILE_KEYS = ("ttft_ms", "tpot_ms", "itl_ms")


def probe_percentiles(learner: Learner, cases: list[RunsCase]) -> list:
    out = []
    with refusing("07.percentiles", package_versions(*PERCENTILES)):
        for c in cases:
            runs = [(s, list(t)) for s, t in c.runs]
            answer = attempt(learner, "run_percentiles", runs)
            same = [(s, list(t)) for s, t in runs] == [(s, list(t)) for s, t in c.runs]
            out.append(answer if raised(answer) or same else {"changed": CHANGED_INPUT})
    return out


def percentile_problems(got: list, cases: list[RunsCase], reveal: bool) -> list[str]:
    for answer, case in zip(got, cases):
        want = case.want
        no_gaps = all(len(t) < 2 for s, t in case.runs)
        if raised(answer):
            return [f"on {case.about}, run_percentiles raised {raised(answer)}: TTFT is one number per run, TPOT one per "
                    "run of two tokens or more (leave out runs of one token: they have no gap), ITL every gap pooled."
                    + (" Here no run has a gap, so there is no TPOT and no ITL to take percentiles of: give NaN "
                       "(math.nan) for each of their percentiles, as part A's TPOT of one token is NaN." if no_gaps else "")]
        if answer == {"changed": CHANGED_INPUT}:
            return [f"on {case.about}, run_percentiles changed the runs it was given (their token times): read them, do "
                    "not write into them. The caller keeps those lists: the runner's results read them afterwards."]
        if not isinstance(answer, dict) or not all(isinstance(answer.get(k), dict) for k in PERCENTILE_KEYS):
            return ["run_percentiles should return {'ttft_ms': {'p50', 'p95', 'p99'}, 'tpot_ms': {...}, 'itl_ms': {...}}."]
        for key in PERCENTILE_KEYS:
            for q in ("p50", "p95", "p99"):
                v, w = answer[key].get(q), want[key][q]
                if close(v, w, rel=1e-6, abs_=1e-9):
                    continue
                said = f"{fmt(v)}, expected {fmt(w)}" if reveal else fmt(v)
                if math.isnan(w):
                    return [f"on {case.about}, {key}['{q}'] = {fmt(v)}: no run here has two tokens, so there is no "
                            f"{'TPOT' if key == 'tpot_ms' else 'gap'} to take a percentile of: give NaN (math.nan)."]
                p50 = answer[key].get("p50")
                if q != "p50" and is_number(v) and is_number(p50) and v < p50 and w > want[key]["p50"]:
                    return [f"on {case.about}, {key}['{q}'] = {said}, below its own p50 ({fmt(p50)}): for a latency, p95 "
                            "and p99 are the slow tail, the values 95 % and 99 % of the runs stay under "
                            "(numpy.percentile(xs, 95)), not the fast end."]
                if is_number(v) and close(v * 1e3, w, rel=1e-6):
                    hint = "report milliseconds, not seconds"
                elif is_number(v) and any(v == round(w, k) for k in range(4)):
                    return [f"on {case.about}, {key}['{q}'] = {said}: do not round, return the percentiles as numpy "
                            "computes them (round only where you print them)."]
                elif slip := ranking_slip(answer[key], run_lists(case)[key]):
                    hint = slip
                elif key == "itl_ms":
                    hint = ("ITL is every gap between successive tokens of every run, pooled, then its percentiles "
                            "(not one mean per run)")
                elif key == "tpot_ms":
                    hint = "TPOT is one number per run, (last - first) / (n - 1); leave out runs of one token"
                else:
                    hint = "TTFT is one number per run, first token minus start, for every run given (leave none out)"
                return [f"on {case.about}, {key}['{q}'] = {said}: {hint}; percentiles interpolate linearly between the "
                        "closest ranks (numpy.percentile's default), not the nearest rank."]
    return []


def run_lists(case: RunsCase) -> dict:
    """TTFT and TPOT per run and every gap pooled (ms), in the order of the runs and their tokens."""
    return {"ttft_ms": [(t[0] - s) * 1e3 for s, t in case.runs],
            "tpot_ms": [(t[-1] - t[0]) / (len(t) - 1) * 1e3 for s, t in case.runs if len(t) > 1],
            "itl_ms": [(b - a) * 1e3 for s, t in case.runs for a, b in zip(t, t[1:])]}


def interpolated(xs: list, q: float, sort: bool = True, rank_of_n: bool = False) -> float:
    """The q-th percentile by linear interpolation between ranks (numpy's default), or as two slips of writing it out
    give it: the values left in their order, or the rank taken as q/100 × n (capped at the last) instead of × (n − 1)."""
    s = sorted(xs) if sort else list(xs)
    r = min(q / 100 * (len(s) if rank_of_n else len(s) - 1), len(s) - 1)
    lo = int(r)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (r - lo) * (s[hi] - s[lo])


def ranking_slip(got: dict, xs: list) -> str:
    """Words for p50, p95 and p99 that are all the percentiles of the right values computed with one slip in their
    ranks; '' when no slip explains all three."""
    if len(xs) < 2 or not all(is_number(got.get(f"p{q}")) for q in (50, 95, 99)):
        return ""
    for how, words in (({"sort": False}, "the values were not sorted: a percentile's ranks count from the smallest "
                                         "value up, so sort them first (numpy.percentile does)"),
                       ({"rank_of_n": True}, "the rank was q/100 × n, one rank too far: number the n sorted values 0 "
                                             "to n − 1, and the q-th percentile sits at rank q/100 × (n − 1) (p100 is "
                                             "the largest value)")):
        if all(close(got[f"p{q}"], interpolated(xs, q, **how), rel=1e-6, abs_=1e-9) for q in (50, 95, 99)):
            return words
    return ""


def _stream(start: float, first_ms: float, gaps_ms: list[float]) -> tuple:
    times, t = [], start + first_ms / 1e3
    for gap in [0.0] + gaps_ms:
        t += gap / 1e3
        times.append(round(t, 9))
    return (start, tuple(times))


@register("07.percentiles", points=3, exercise="F", title="latency percentiles over runs: TTFT, TPOT and pooled ITL",
          cases=[RunsCase("five runs, one with a stall", (_stream(0.0, 40, [5, 5, 6, 5]), _stream(1.0, 42, [5, 5, 5, 5]),
                                                           _stream(2.0, 39, [5, 30, 5, 5]), _stream(3.0, 45, [6, 5, 5, 5]),
                                                           _stream(4.0, 41, [5, 5, 5, 7])),
                          {"ttft_ms": {"p50": 41.0, "p95": 44.4, "p99": 44.88},
                           "tpot_ms": {"p50": 5.25, "p95": 10.1, "p99": 11.02},
                           "itl_ms": {"p50": 5.0, "p95": 8.15, "p99": 25.63}}),
                 RunsCase("three runs, one of a single token", (_stream(0.0, 20, [4, 6]), _stream(1.0, 25, []),
                                                                _stream(2.0, 22, [5, 5, 8])),
                          {"ttft_ms": {"p50": 22.0, "p95": 24.7, "p99": 24.94},
                           "tpot_ms": {"p50": 5.5, "p95": 5.95, "p99": 5.99},
                           "itl_ms": {"p50": 5.0, "p95": 7.6, "p99": 7.92}}),
                 RunsCase("four runs of different lengths", (_stream(0.0, 31, [3, 4, 4]), _stream(1.0, 33, [5, 2, 3, 9, 2, 2]),
                                                            _stream(2.0, 29, [4, 4, 5]),
                                                            _stream(3.0, 35, [3, 3, 3, 4, 4, 3, 3])),
                          {"ttft_ms": {"p50": 32.0, "p95": 34.7, "p99": 34.94},
                           "tpot_ms": {"p50": 3.75, "p95": 23 / 6 + 0.85 * 0.5, "p99": 23 / 6 + 0.97 * 0.5},
                           "itl_ms": {"p50": 3.0, "p95": 5.4, "p99": 8.28}}),
                 RunsCase("two runs of a single token each", (_stream(0.0, 20, []), _stream(1.0, 24, [])),
                          {"ttft_ms": {"p50": 22.0, "p95": 23.8, "p99": 23.96},
                           "tpot_ms": {"p50": math.nan, "p95": math.nan, "p99": math.nan},
                           "itl_ms": {"p50": math.nan, "p95": math.nan, "p99": math.nan}})])
def _percentiles(ctx: Context, cases: list[RunsCase]) -> str:
    fail_if(percentile_problems(ctx.probe(probe_percentiles, cases), cases, ctx.reveal))
    return "percentiles of TTFT, TPOT and ITL right"


# ---------------------------------------------------------------- G: memory-bandwidth utilisation
@dataclass(frozen=True)
class BandwidthCase:
    """One runner result (as WorkloadResult.to_dict() writes it, trimmed) and the device's copy bandwidth (bytes/s)."""

    about: str
    result: dict
    copy_bw: float
    want: dict | None = None     # {gbps, utilisation}; None: the answer is None (nothing to measure)


def probe_bandwidth(learner: Learner, cases: list[BandwidthCase]) -> list:
    with refusing("07.bandwidth", package_versions(*RUNNER_STATS)):
        return [attempt(learner, "bandwidth_utilisation", copy.deepcopy(c.result), c.copy_bw) for c in cases]


def bandwidth_problems(got: list, cases: list[BandwidthCase], reveal: bool) -> list[str]:
    for answer, case in zip(got, cases):
        want = case.want
        if raised(answer):
            hint = ("return None when there is no byte count or no finite, positive median TPOT" if want is None else
                    "the result's stats['tpot_s'] holds the TPOT's percentiles in seconds ('p50', 'p95', 'p99', "
                    "'mean', 'n'): divide the step's bytes by the median, stats['tpot_s']['p50']")
            return [f"on {case.about}, bandwidth_utilisation raised {raised(answer)}: {hint}."]
        if want is None:
            if answer is not None:
                return [f"on {case.about} there is no decode step to measure (one token, no byte count, or a median TPOT that is "
                        "not a finite positive number): return None."]
            continue
        if not isinstance(answer, dict) or not {"gbps", "utilisation"} <= set(answer):
            return ["bandwidth_utilisation should return {'gbps': …, 'utilisation': …} (or None when there is no TPOT)."]
        for key, hint in (("gbps", "bytes a decode step must read ÷ the median TPOT (stats['tpot_s']['p50']), in "
                                   "10⁹ bytes per second"),
                          ("utilisation", "achieved bytes per second ÷ the copy bandwidth it is given (copy_bw), a "
                                          "fraction (0.8, not 80)")):
            if not close(answer[key], want[key], rel=1e-6):
                said = f"{fmt(answer[key])}, expected {fmt(want[key])}" if reveal else fmt(answer[key])
                above = (" (a utilisation can be more than 1: a small model's weights read from the CPU's caches "
                         "come faster than a copy through main memory; report it as measured, do not cap it)"
                         if key == "utilisation" and want[key] > 1 and is_number(answer[key]) and answer[key] <= 1
                         else "")
                return [f"on {case.about}, {key} = {said}{unit_slip(answer[key], want[key])}: {hint}"
                        f"{other_statistic(answer, want, case)}{above}."]
    return []


def other_statistic(answer: dict, want: dict, case: BandwidthCase) -> str:
    """' (that is the mean TPOT's figure …)' when the answer divided by another of the TPOT's statistics."""
    tpot = case.result["stats"]["tpot_s"]
    for name, words in (("mean", "the mean TPOT's: one slow step moves a mean, so the median is the step's time"),
                        ("p95", "the p95 TPOT's: the median is the typical step")):
        other = tpot.get(name)
        if other and is_number(answer.get("gbps")) and close(answer["gbps"], want["gbps"] * tpot["p50"] / other,
                                                             rel=1e-6):
            return f" (that is {words})"
    return ""


def _result(bytes_per_step: float | None, tpot_p50: float | None, ttft_p50: float = 0.05) -> dict:
    """A runner result as results.json holds it (trimmed): percentiles, mean and n of each latency, in seconds."""
    scaled = lambda f: None if tpot_p50 is None else tpot_p50 * f
    return {"decode_bytes_per_step": bytes_per_step,
            "stats": {"tpot_s": {"p50": tpot_p50, "p95": scaled(1.2), "p99": scaled(1.3), "mean": scaled(1.05),
                                 "n": 9},
                      "ttft_s": {"p50": ttft_p50, "mean": ttft_p50}, "e2e_s": {"p50": 1.0, "mean": 1.0}}}


@register("07.bandwidth", points=1, exercise="G", title="memory-bandwidth utilisation of a decode step",
          cases=[BandwidthCase("the 1b model, bf16, on a 3 TB/s device", _result(2.5e9, 1.9e-3), 3.0e12,
                               {"gbps": 2.5e9 / 1.9e-3 / 1e9, "utilisation": 2.5e9 / 1.9e-3 / 3.0e12}),
                 BandwidthCase("the tiny model, fp32, on a CPU copying 12 GB/s", _result(3.5e6, 4.0e-4), 1.2e10,
                               {"gbps": 3.5e6 / 4.0e-4 / 1e9, "utilisation": 3.5e6 / 4.0e-4 / 1.2e10}),
                 BandwidthCase("the tiny model on a CPU whose weights sit in its caches, faster than the copy",
                               _result(3.5e6, 1.0e-4), 1.2e10, {"gbps": 3.5e6 / 1.0e-4 / 1e9,
                                                               "utilisation": 3.5e6 / 1.0e-4 / 1.2e10}),
                 BandwidthCase("a one-token run", _result(2.5e9, None), 3.0e12, None),
                 BandwidthCase("a result without a byte count", _result(None, 1.9e-3), 3.0e12, None),
                 BandwidthCase("a run whose median TPOT is NaN", _result(2.5e9, math.nan), 3.0e12, None),
                 BandwidthCase("a run whose median TPOT is infinite", _result(2.5e9, math.inf), 3.0e12, None),
                 BandwidthCase("a run whose median TPOT is 0 (its tokens within one clock tick)", _result(2.5e9, 0.0),
                               3.0e12, None)])
def _bandwidth(ctx: Context, cases: list[BandwidthCase]) -> str:
    fail_if(bandwidth_problems(ctx.probe(probe_bandwidth, cases), cases, ctx.reveal))
    return "achieved bandwidth and utilisation right"
