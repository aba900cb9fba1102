"""Backends on helpers.llama's model with its static KV cache: eager, compiled, int8.

EagerBackend     plain PyTorch.
CompiledBackend  the decode step under torch.compile (mode "default" or "reduce-overhead": CUDA graphs on a GPU;
                 a CPU has none, and helpers.llm_bench.backends refuses that mode there). Prefill stays eager unless
                 compile_prefill=True (prompt lengths vary: a second length compiles a dynamic-shape graph).
                 Graphs compiled are counted from torch._dynamo's counters: `decode_compiles`,
                 `prefill_compiles`. A new cache size (a longer request, another batch) compiles again.
                 greedy_in_graph=True: a greedy generation runs a step that picks its own token (a two-stage
                 argmax) and moves the position, in tensors at fixed addresses (a sampled one runs the plain step).
Int8Backend      weight-only int8 (helpers.llm_bench.quantize), eager or compiled; `logits_error` compares
                 its logits with the unquantized model's, in the same dtype, on a fixed probe prompt.
"""

from __future__ import annotations

from typing import Callable, Iterator

import torch

from helpers.llama import LlamaConfig, StaticKVCache, build_model, fuse_projections
from helpers.llm_bench.base import LLMBackend, as_batch, graphs_compiled
from helpers.llm_bench.generation import GenerationConfig, greedy_ids, stream_tokens
from helpers.llm_bench.quantize import decode_weight_bytes, quantize_int8, weight_bytes

COMPILE_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
CACHE_BLOCK = 256  # cache lengths are rounded up to this, so nearby request sizes share one compiled graph


class LlamaBackend(LLMBackend):
    """helpers.llama's model with a static KV cache: prefill the prompt, then one decode step per token.

    compile_mode=None runs eager; a torch.compile mode compiles the decode step (fullgraph, static shapes)
    and, with compile_prefill, the prefill (dynamic shapes). Graphs compiled are counted per phase.
    """

    name = "llama"

    def __init__(self, model: str | LlamaConfig = "tiny", device: str | torch.device = "auto",
                 dtype: str | torch.dtype = "auto", seed: int = 0, compile_mode: str | None = None,
                 compile_prefill: bool = False, fused: bool = False, flash_decode: bool = False,
                 greedy_in_graph: bool = False):
        super().__init__(model, device, dtype, seed)
        self.fused = fused   # q/k/v and gate/up as one matmul each (helpers.llama.fuse_projections)
        self.flash_decode = flash_decode   # decode attention over the filled cache only (helpers.llm_bench.flash_decode)
        # greedy decoding with the argmax and the position's increment inside the compiled step (compiled backends)
        self.greedy_in_graph = greedy_in_graph
        if flash_decode:
            from helpers.llm_bench.flash_decode import unavailable   # imports Triton: only when asked

            why = unavailable(self.device)
            if why:
                raise RuntimeError(why)
        if compile_mode not in (None, *COMPILE_MODES):
            raise ValueError(f"unknown torch.compile mode {compile_mode!r}; choose one of {', '.join(COMPILE_MODES)}")
        self.compile_mode, self.compile_prefill = compile_mode, compile_prefill
        self.model = None
        self.cache: StaticKVCache | None = None
        self.decode_compiles = 0  # graphs compiled while decoding: 1 after the first step, and it must stay 1
        self.prefill_compiles = 0
        self._decode_fn = self._prefill_fn = self._greedy_fn = None
        self._token = self._position = None   # greedy_in_graph's token and position, at fixed addresses

    def load(self) -> "LlamaBackend":
        self.model = build_model(self.config, self.seed, self.device, self.dtype)
        if self.fused:
            fuse_projections(self.model)
            self.name += "+fused"
        if self.flash_decode:
            from helpers.llm_bench.flash_decode import use_flash_decode   # imports Triton: only when asked

            use_flash_decode(self.model)
            self.name += "+flashdecode"
        if self.greedy_in_graph and self.compile_mode is not None:
            self.name += "+greedy-in-graph"
        self._prepare()
        self._decode_fn, self._prefill_fn, self._greedy_fn = self._step_functions()
        return self

    def _prepare(self) -> None:
        """Hook run after the model is built, before compiling (Int8Backend quantizes here)."""

    def _step_functions(self):
        """(decode, prefill, greedy decode): the model's forward, compiled where asked (torch.compile compiles a
        function at its first call, so the greedy step costs nothing until a greedy_in_graph generation runs)."""
        model = self.model

        def decode_step(token, input_pos, cache):
            return model(token, input_pos, cache)

        def greedy_step(token, input_pos, cache):
            """A decode step that also writes its greedy token into `token` and moves `input_pos` on, in place: the
            next step's inputs are ready on the device, with no kernel launched outside the step."""
            logits = model(token, input_pos, cache)[:, -1]
            token.copy_(greedy_ids(logits)[:, None])
            input_pos.add_(1)
            return logits

        def prefill(tokens, input_pos, cache):
            return model(tokens, input_pos, cache, last_logits_only=True)

        if self.compile_mode is not None:
            decode_step = torch.compile(decode_step, mode=self.compile_mode, fullgraph=True, dynamic=False)
            greedy_step = torch.compile(greedy_step, mode=self.compile_mode, fullgraph=True, dynamic=False)
            if self.compile_prefill:
                prefill = torch.compile(prefill, dynamic=None)
        return decode_step, prefill, greedy_step

    def _cache_for(self, batch: int, tokens: int) -> StaticKVCache:
        """The cache, reused while it fits; else a new one, its length rounded up to CACHE_BLOCK."""
        if tokens > self.config.max_seq_len:
            raise ValueError(f"prompt + new tokens = {tokens} exceeds the model's max_seq_len={self.config.max_seq_len}")
        if self.cache is None or self.cache.batch != batch or self.cache.max_tokens < tokens:
            self.cache = None  # free the old one first
            length = min(self.config.max_seq_len, -(-tokens // CACHE_BLOCK) * CACHE_BLOCK)
            self.cache = StaticKVCache(self.config, batch, length, self.dtype, self.device)
            self._token = torch.zeros((batch, 1), dtype=torch.long, device=self.device)
            self._position = torch.zeros(1, dtype=torch.long, device=self.device)
            if self.compile_mode is not None:
                # CUDA graphs may mutate an input only if its address never changes: say the cache's is fixed (and
                # the token and position greedy_in_graph's step writes).
                mark_static = getattr(torch._dynamo, "mark_static_address", None)
                for t in [*self.cache.tensors(), self._token, self._position] if mark_static else ():
                    mark_static(t)
        return self.cache

    def _counted(self, fn, *args) -> tuple[torch.Tensor, int]:
        """fn(*args) and how many graphs torch.compile compiled meanwhile."""
        before = graphs_compiled()
        out = fn(*args)
        return out, graphs_compiled() - before

    def generate(self, prompt_ids, config: GenerationConfig) -> Iterator[list[int]]:
        if self.model is None:
            raise RuntimeError(f"{self.name}: call load() before generate()")
        prompts = as_batch(prompt_ids)
        batch, prompt_len = len(prompts), len(prompts[0])
        cache = self._cache_for(batch, prompt_len + config.max_new_tokens)
        generator = None if config.greedy else torch.Generator(device=self.device).manual_seed(config.seed)
        with torch.no_grad():
            tokens = torch.tensor(prompts, dtype=torch.long, device=self.device)
            logits, compiled = self._counted(self._prefill_fn, tokens, torch.arange(prompt_len, device=self.device), cache)
            self.prefill_compiles += compiled
            input_pos = torch.tensor([prompt_len], device=self.device)

        def advance(next_ids):
            logits, compiled = self._counted(self._decode_fn, next_ids[:, None], input_pos, cache)
            self.decode_compiles += compiled
            input_pos.add_(1)
            return logits[:, -1]

        token, position = self._token, self._position

        def advance_in_graph(next_ids):
            """The greedy step: it reads the token and position where the previous step wrote them (the first time,
            the prefill's token is copied there) and returns its own token, still on the device, as that view."""
            if next_ids.data_ptr() != token.data_ptr():
                token.copy_(next_ids[:, None])
                position.copy_(input_pos)
            _, compiled = self._counted(self._greedy_fn, token, position, cache)
            self.decode_compiles += compiled
            return None, token[:, 0]

        in_graph = self.greedy_in_graph and config.greedy and self.compile_mode is not None
        yield from stream_tokens(logits[:, -1], advance_in_graph if in_graph else advance, config, generator)

    def cleanup(self) -> None:
        """Drop model and cache; a compiled backend also forgets compiled code and CUDA graphs.

        torch.compiler.reset() acts on the whole process: clean up only once every backend that shares the process
        is done (the runner interleaves its backends and cleans them all up at the end).
        """
        self._decode_fn = self._prefill_fn = self._greedy_fn = None
        self.cache = self._token = self._position = None
        if self.compile_mode is not None:
            torch.compiler.reset()
        super().cleanup()

    def decode_step_fn(self, context: int, batch: int = 1) -> Callable[[], torch.Tensor]:
        """One decode step at position `context` on this backend's cache, as a function of no arguments.

        For timing the step alone against another backend's (bench.compare_many): the first calls compile it (and,
        with reduce-overhead, record its CUDA graph); every call writes the same cache position.
        """
        if self.model is None:
            raise RuntimeError(f"{self.name}: call load() before decode_step_fn()")
        cache = self._cache_for(batch, context + 1)
        token = torch.full((batch, 1), 5, dtype=torch.long, device=self.device)
        position = torch.tensor([context], device=self.device)
        decode = self._decode_fn

        def step() -> torch.Tensor:
            with torch.no_grad():
                return decode(token, position, cache)

        return step

    def info(self) -> dict:
        loaded = self.model is not None
        info = {**super().info(), "weight_bytes": weight_bytes(self.model) if loaded else None,
                "decode_weight_bytes": decode_weight_bytes(self.model) if loaded else None,
                "cache_bytes": self.cache.nbytes if self.cache is not None else 0}
        if self.compile_mode is not None:
            info.update(compile_mode=self.compile_mode, decode_compiles=self.decode_compiles,
                        prefill_compiles=self.prefill_compiles)
        return info


class EagerBackend(LlamaBackend):
    """Plain PyTorch: no compilation."""

    name = "eager"

    def __init__(self, model: str | LlamaConfig = "tiny", device: str | torch.device = "auto",
                 dtype: str | torch.dtype = "auto", seed: int = 0, **options):
        super().__init__(model, device, dtype, seed, **options)


class CompiledBackend(LlamaBackend):
    """The decode step under torch.compile with mode "default" or "reduce-overhead" (CUDA graphs on a GPU)."""

    def __init__(self, model: str | LlamaConfig = "tiny", device: str | torch.device = "auto",
                 dtype: str | torch.dtype = "auto", seed: int = 0, mode: str = "default",
                 compile_prefill: bool = False, **options):
        super().__init__(model, device, dtype, seed, compile_mode=mode, compile_prefill=compile_prefill, **options)
        self.name = "compiled" if mode == "default" else f"compiled-{mode}"


class Int8Backend(LlamaBackend):
    """Weight-only int8 Linear layers, eager (compile_mode=None) or with the decode step compiled.

    At load, logits of the unquantized model (same dtype) on a fixed probe prompt are compared with the
    quantized model's: `logits_error`. Weight bytes before and after are kept too.
    """

    PROBE_TOKENS = 32

    def __init__(self, model: str | LlamaConfig = "tiny", device: str | torch.device = "auto",
                 dtype: str | torch.dtype = "auto", seed: int = 0, compile_mode: str | None = None,
                 **options):
        super().__init__(model, device, dtype, seed, compile_mode=compile_mode, **options)
        self.name = "int8" if compile_mode is None else f"int8-compiled-{compile_mode}"
        self.logits_error: dict = {}
        self.weight_bytes_unquantized = 0

    def _prepare(self) -> None:
        g = torch.Generator().manual_seed(self.seed)
        length = min(self.PROBE_TOKENS, self.config.max_seq_len)
        probe = torch.randint(0, self.config.vocab_size, (1, length), generator=g).to(self.device)
        with torch.no_grad():
            reference = self.model(probe).float()
            self.weight_bytes_unquantized = weight_bytes(self.model)
            quantize_int8(self.model)
            quantized = self.model(probe).float()
        self.logits_error = {**logits_error(quantized, reference), "reference_dtype": str(self.dtype).removeprefix("torch.")}

    def info(self) -> dict:
        return {**super().info(), "weight_bytes_unquantized": self.weight_bytes_unquantized,
                "logits_error": self.logits_error}


def logits_error(logits: torch.Tensor, reference: torch.Tensor) -> dict:
    """How far logits are from reference: max |Δ|, ‖Δ‖/‖ref‖, and how often the argmax agrees."""
    diff = logits - reference
    return {"max_abs": float(diff.abs().max()),
            "rel_rms": float(diff.norm() / reference.norm().clamp(min=1e-12)),
            "top1_agreement": float((logits.argmax(-1) == reference.argmax(-1)).float().mean())}
