"""helpers.llm_bench.int8_triton: the int8 decode kernel (Lab 07 part E2's solution) and the `int8-triton` backend.

On a CPU the kernel runs in Triton's interpreter (conftest sets TRITON_INTERPRET=1 before Triton is imported)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from helpers.llama import LlamaConfig
from helpers.llm_bench import GenerationConfig, Int8Backend, make_backend

pytest.importorskip("triton")
from helpers.llm_bench.int8_triton import Int8TritonLinear, int8_linear  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
ONE_LAYER = LlamaConfig.named("tiny").with_(name="tiny-untied-1", tie_embeddings=False, n_layers=1)
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"   # the compiled kernels on a GPU, the interpreter elsewhere


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("batch", [1, 8, 19])
def test_kernel_matches_the_reference_on_odd_shapes_and_a_transposed_weight(dtype, batch):
    g = torch.Generator().manual_seed(batch)
    n, k = 37, 75
    x = torch.randn(batch, k, generator=g).to(dtype)
    q = torch.randint(-127, 128, (k, n), generator=g, dtype=torch.int8).t()       # strides (1, N)
    scales = (torch.rand(n, generator=g) / 127).to(dtype)
    want = (x.double() @ q.double().T) * scales.double()
    y = int8_linear(x.to(DEVICE), q.to(DEVICE), scales.to(DEVICE)).cpu()
    assert y.dtype == dtype and y.shape == (batch, n)
    rounding = {torch.float32: 1e-6, torch.bfloat16: 2**-7, torch.float16: 2**-10}[dtype]
    magnitude = (x.double().abs() @ q.double().abs().T) * scales.double()
    assert bool(((y.double() - want).abs() <= rounding * want.abs() + 2**-12 * magnitude).all())


def test_kernel_refuses_shapes_that_do_not_fit():
    with pytest.raises(ValueError, match="int8_linear wants"):
        int8_linear(torch.zeros(2, 4), torch.zeros(3, 5, dtype=torch.int8), torch.zeros(3))
    with pytest.raises(ValueError, match="int8"):
        int8_linear(torch.zeros(2, 4), torch.zeros(3, 4), torch.zeros(3))


@pytest.mark.slow
def test_backend_logits_and_tokens_match_the_int8_backend():
    """The kernel only reorders fp32 sums: logits within rounding of eager int8's, the same greedy tokens."""
    prompt, generation = [5, 9, 2, 77, 31, 4], GenerationConfig(max_new_tokens=4)
    backend = make_backend("int8-triton", ONE_LAYER, device=DEVICE, dtype="float32")   # fp32: only the sums reorder
    with backend:
        assert backend.name.startswith("int8-triton")    # on a GPU: "int8-triton-compiled-reduce-overhead"
        assert sum(isinstance(m, Int8TritonLinear) for m in backend.model.modules()) == 7 + 1
        assert backend.kernel_error["rel_rms"] < 1e-5 and backend.kernel_error["top1_agreement"] == 1.0
        tokens = backend.collect(prompt, generation).sequences()
        info = backend.info()
    with Int8Backend(ONE_LAYER, device=DEVICE, dtype="float32") as eager:
        assert tokens == eager.collect(prompt, generation).sequences()
    assert info["kernel_vs_eager_int8"]["max_abs"] < 1e-4 and info["weight_bytes"] < 0.5 * info["weight_bytes_unquantized"]


def test_without_gpu_or_interpreter_the_backend_says_what_to_do():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    code = ("from helpers.llm_bench import make_backend\n"
            "try:\n    make_backend('int8-triton', 'tiny', device='cpu')\n"
            "except RuntimeError as err:\n    print(err)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    if torch.cuda.is_available():
        pytest.skip("a GPU is here: the CPU refusal is not what runs")
    assert "TRITON_INTERPRET=1" in out.stdout and "no CUDA GPU" in out.stdout, out.stdout + out.stderr
