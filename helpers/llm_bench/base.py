"""LLMBackend: the interface every backend implements (load, generate as a stream of tokens, collect, cleanup).

Also what every backend shares: dtype names (resolve_dtype), prompt batches (as_batch), and torch.compile's graph
counter. A backend module imports from here; helpers.llm_bench.backends names them all (BACKENDS).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import Iterator, Sequence

import torch

from helpers.env import pick_device
from helpers.llama import LlamaConfig
from helpers.llm_bench.generation import GenerationConfig, GenerationResult

DTYPES = {"float32": torch.float32, "fp32": torch.float32, "bfloat16": torch.bfloat16, "bf16": torch.bfloat16,
          "float16": torch.float16, "fp16": torch.float16}
def resolve_dtype(dtype: str | torch.dtype, device: torch.device) -> torch.dtype:
    """"auto" → bfloat16 on CUDA, float32 on CPU; or a name like "bf16", or a torch.dtype."""
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype == "auto":
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    try:
        return DTYPES[dtype]
    except KeyError:
        raise ValueError(f"dtype must be 'auto' or one of {', '.join(DTYPES)} (got {dtype!r})") from None


def as_batch(prompt_ids: Sequence[int] | Sequence[Sequence[int]] | torch.Tensor) -> list[list[int]]:
    """One prompt (list of ids) or a batch of equal-length prompts, as a list of lists."""
    if isinstance(prompt_ids, torch.Tensor):
        prompt_ids = prompt_ids.tolist()
    prompts = [list(prompt_ids)] if prompt_ids and isinstance(prompt_ids[0], int) else [list(p) for p in prompt_ids]
    if not prompts or not prompts[0]:
        raise ValueError("generate needs at least one prompt of at least one token")
    if len({len(p) for p in prompts}) != 1:
        raise ValueError(f"prompts in a batch must have equal lengths (got {sorted({len(p) for p in prompts})}); "
                         "there is no padding")
    return prompts


def graphs_compiled() -> int:
    """Graphs torch.compile has compiled in this process so far (torch._dynamo's own counter)."""
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"])


class LLMBackend(ABC):
    """The interface every backend implements: load(), generate() as a token stream, cleanup().

    generate(prompt_ids, config) yields, for every step, the list of new ids (one per sequence), each only
    once it is on the host. collect() runs a generation and returns a GenerationResult with a timestamp per
    step. Use as a context manager to load and clean up.
    """

    name = "backend"

    def __init__(self, model: str | LlamaConfig = "tiny", device: str | torch.device = "auto",
                 dtype: str | torch.dtype = "auto", seed: int = 0):
        self.config = LlamaConfig.named(model) if isinstance(model, str) else model
        self.device = pick_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        self.seed = seed

    @abstractmethod
    def load(self) -> "LLMBackend":
        """Build or load the model on the device; returns self."""

    @abstractmethod
    def generate(self, prompt_ids, config: GenerationConfig) -> Iterator[list[int]]:
        """Yield the new ids of every step (one per sequence), each as soon as it reaches the host."""

    def cleanup(self) -> None:
        """Drop the model and its caches so the next backend starts from free memory."""
        self.model = None
        if self.device.type == "cuda":
            torch.cuda.empty_cache()

    def info(self) -> dict:
        """What this backend is, for reports: name, model, dtype, device, and anything it measured."""
        return {"backend": self.name, "model": self.config.name, "dtype": str(self.dtype).removeprefix("torch."),
                "device": str(self.device)}

    def collect(self, prompt_ids, config: GenerationConfig) -> GenerationResult:
        """Run generate to the end; stamp each step with time.perf_counter() when its ids arrive."""
        prompts = as_batch(prompt_ids)
        if self.device.type == "cuda":  # earlier queued work must not be timed as this generation's
            torch.cuda.synchronize(self.device)
        result = GenerationResult(prompt_tokens=len(prompts[0]), batch=len(prompts), start_s=time.perf_counter())
        for ids in self.generate(prompts, config):
            result.token_times_s.append(time.perf_counter())
            result.tokens.append(ids)
        return result

    def __enter__(self) -> "LLMBackend":
        return self.load()

    def __exit__(self, *exc) -> None:
        self.cleanup()
