"""The backends by name: BACKENDS maps each name the CLI and run_benchmark accept to how it is made.

eager, compiled, int8, int8-compiled   helpers.llm_bench.llama_backends (helpers.llama's model, static KV cache)
int8-triton                            helpers.llm_bench.int8_triton (int8 with a hand-written Triton kernel)
hf                                     helpers.llm_bench.hf (any transformers causal LM; transformers is optional)

A new backend: its own module, importing from helpers.llm_bench.base (and llama_backends, to reuse the static-cache
model), and one entry here. Modules below this one never import it, so the import graph stays a tree
(tests/test_import_graph.py).
"""

from __future__ import annotations

from typing import Callable

import torch

from helpers.env import pick_device
from helpers.llama import LlamaConfig
from helpers.llm_bench.base import LLMBackend
from helpers.llm_bench.hf import HFBackend
from helpers.llm_bench.llama_backends import CompiledBackend, EagerBackend, Int8Backend

# name → factory(mode, **settings): settings are model, device, dtype, seed, options, hf_model; `mode` is the
# torch.compile mode already resolved for the device, `options` the static-cache model's switches (fused,
# flash_decode, greedy_in_graph). A factory takes the settings it needs and ignores the rest.
BACKENDS: dict[str, Callable[..., LLMBackend]] = {
    "eager": lambda mode, model, device, dtype, seed, options, **_: EagerBackend(model, device, dtype, seed, **options),
    "compiled": lambda mode, model, device, dtype, seed, options, **_: CompiledBackend(model, device, dtype, seed,
                                                                                       mode=mode, **options),
    "int8": lambda mode, model, device, dtype, seed, options, **_: Int8Backend(model, device, dtype, seed, **options),
    "int8-compiled": lambda mode, model, device, dtype, seed, options, **_: Int8Backend(model, device, dtype, seed,
                                                                                        compile_mode=mode, **options),
    "int8-triton": lambda mode, model, device, dtype, seed, options, **_: _int8_triton(mode, model, device, dtype,
                                                                                      seed, options),
    "hf": lambda mode, model, device, dtype, seed, hf_model=None, **_: HFBackend(hf_model or model, device, dtype, seed),
}


INT8_TRITON_LEFT_OUT = ("int8-triton runs the course's answer to Lab 07 part E2, which the learner bundle leaves out: "
                        "use int8-compiled, or time your own kernel in Lab 07's part E2 cells")


def int8_triton_present() -> bool:
    """Whether this copy of the package has the int8-triton backend's kernel (the learner bundle does not)."""
    import importlib.util

    return importlib.util.find_spec("helpers.llm_bench.int8_triton") is not None


def _int8_triton(mode, model, device, dtype, seed, options) -> LLMBackend:
    """The Triton kernel's int8 backend: its decode step compiled on a GPU (CUDA graphs), eager in the CPU interpreter."""
    try:
        from helpers.llm_bench.int8_triton import Int8TritonBackend   # imports Triton: only when this backend is made
    except ModuleNotFoundError as err:
        if err.name != "helpers.llm_bench.int8_triton":
            raise
        raise ValueError(INT8_TRITON_LEFT_OUT) from None

    return Int8TritonBackend(model, device, dtype, seed, compile_mode=mode if device.type == "cuda" else None,
                             **options)


CUDA_GRAPH_MODES = ("reduce-overhead",)  # torch.compile modes whose point is CUDA graphs, which a CPU has none of


def compile_mode_for(compile_mode: str, device: torch.device) -> str:
    """ "auto" → reduce-overhead on CUDA, default elsewhere; ValueError for a CUDA-graph mode off CUDA."""
    if compile_mode == "auto":
        return "reduce-overhead" if device.type == "cuda" else "default"
    if compile_mode in CUDA_GRAPH_MODES and device.type != "cuda":
        raise ValueError(f"compile mode {compile_mode!r} records CUDA graphs, and {device.type} has none: on "
                         f"{device.type} it would run the same code as 'default' under another name; use 'default'")
    return compile_mode


def make_backend(name: str, model: str | LlamaConfig = "tiny", device: str | torch.device = "auto",
                 dtype: str | torch.dtype = "auto", seed: int = 0, compile_mode: str = "auto",
                 fused: bool = False, flash_decode: bool = False, greedy_in_graph: bool = False,
                 hf_model: str | None = None) -> LLMBackend:
    """A backend by name (one of BACKENDS). fused: q/k/v and gate/up as one matmul each;
    flash_decode: decode attention over the filled part of the cache only (helpers.llm_bench.flash_decode);
    greedy_in_graph: a compiled backend's greedy decoding picks each token and moves the position inside the compiled
    step; hf_model: a local folder or Hub id for the "hf" backend."""
    try:
        factory = BACKENDS[name]
    except KeyError:
        raise ValueError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}") from None
    dev = pick_device(device)
    return factory(compile_mode_for(compile_mode, dev), model=model, device=dev, dtype=dtype, seed=seed,
                   options=dict(fused=fused, flash_decode=flash_decode, greedy_in_graph=greedy_in_graph),
                   hf_model=hf_model)
