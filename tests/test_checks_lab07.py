"""Lab 07's checks: the solution passes each one, public and hidden; the untouched lab fails each one with
"not written yet"; and a function that only calls the package's own version fails, public and hidden, and leaves
the package working afterwards. The mistakes each check must catch, and the answers written another way it must
accept, are in the corpus of wrong answers (tests/wrong_answers/lab07.py, run by tests/test_catch_rates.py)."""

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
CELLS = ["parameters", "setup", "ex-a", "ex-b", "ex-b2", "ex-c", "ex-c2", "ex-d", "ex-e", "given-e", "ex-e2", "ex-e2k",
         "ex-f", "ex-g"]
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
    assert sum(s.points for s in checks.load_lab("07")) == 23


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
    ("07.kv_cache", """
from helpers.llama import StaticKVCache
def kv_cache_bytes(config, tokens, batch, dtype_bytes):
    dtype = {1: torch.int8, 2: torch.float16, 4: torch.float32}[dtype_bytes]
    return StaticKVCache(config, batch, tokens, dtype=dtype, device="meta").nbytes
""", "helpers.llama.StaticKVCache"),
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
    ("07.int8_kernel", """
from helpers.llm_bench.int8_triton import int8_linear as package_kernel
def int8_linear_triton(x, q, scales):
    return package_kernel(x, q, scales)
""", "helpers.llm_bench.int8_triton.int8_linear"),
    ("07.int8_kernel", """
from helpers.llm_bench import int8_triton
def int8_linear_triton(x, q, scales):
    (B, K), N = x.shape, q.shape[0]
    out = torch.empty((B, N), device=x.device, dtype=x.dtype)
    int8_triton.int8_linear_kernel[(triton.cdiv(N, 32), 1)](
        x, q, scales, out, B, N, K, x.stride(0), x.stride(1), q.stride(0), q.stride(1), out.stride(0), out.stride(1),
        BLOCK_B=16, BLOCK_N=32, BLOCK_K=64, DOT_IN_FP32=x.dtype != torch.float32)
    return out
""", "helpers.llm_bench.int8_triton.int8_linear_kernel"),
]


@pytest.mark.parametrize("name,source,words", DELEGATIONS, ids=[f"{d[0]}-{d[2].rsplit('.', 1)[-1]}" for d in DELEGATIONS])
def test_calling_the_packages_own_version_fails_and_says_so(name, source, words, solved, out):
    """The package's versions of an exercise refuse while the check runs; afterwards they work again."""
    from helpers import llama
    from helpers.llm_bench import quantize

    ns = with_source(solved, source)
    for run in (run_public, run_hidden):
        result = run(name, ns, out)
        assert not result.passed and words in result.message and "your own code" in result.message, result.line()
    assert llama.kv_cache_bytes(llama.LlamaConfig.named("tiny"), 1) > 0            # restored
    assert llama.StaticKVCache(llama.LlamaConfig.named("tiny"), 1, 4).nbytes > 0
    assert quantize.Int8Linear.from_linear(torch.nn.Linear(4, 2, bias=False)).weight_int8.dtype == torch.int8
    if name == "07.int8_kernel":                                                         # the kernel launches again
        from helpers.llm_bench.int8_triton import int8_linear

        y = int8_linear(torch.ones(1, 3), torch.ones(2, 3, dtype=torch.int8), torch.full((2,), 0.5))
        assert y.tolist() == [[1.5, 1.5]]


def test_always_run_streams_carry_the_rules_answers():
    """The streams every latency check runs (the grader's too) hold literal answers: they follow the rule."""
    import math

    from helpers.checks import lab07

    for case in lab07.ALWAYS_STREAMS:
        t, n = case.token_times_s, len(case.token_times_s)
        e2e = t[-1] - case.start_s
        want = {"ttft_s": t[0] - case.start_s, "tpot_s": (t[-1] - t[0]) / (n - 1) if n > 1 else math.nan,
                "e2e_s": e2e, "naive_ttft_s": e2e / n, "naive_error": e2e / n / (t[0] - case.start_s) - 1}
        assert all(lab07.close(case.want[k], v, rel=1e-9) for k, v in want.items()), case.about
        assert all(round(t[0] - case.start_s, k) != t[0] - case.start_s for k in (3, 4)), "timestamps finer than 0.1 ms"


def test_static_decode_check_leaves_the_cache_class_as_it_was(solved, out):
    """The static-decode probe watches StaticKVCache's constructor and update (the cache's device and dtype), and
    puts both back afterwards, whatever the learner's code did."""
    from helpers import llama

    init, update = llama.StaticKVCache.__init__, llama.StaticKVCache.update
    assert run_public("07.static_decode", solved, out).passed
    ns = with_source(solved, """
_solution_generate = generate_static
def generate_static(model, prompt_ids, max_new_tokens, compiler=None):
    raise RuntimeError("a learner's decode that fails")
""")
    assert not run_public("07.static_decode", ns, out).passed
    assert (llama.StaticKVCache.__init__, llama.StaticKVCache.update) == (init, update)
