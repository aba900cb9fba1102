"""Run backends over workloads: warm-up, timed repeats, percentiles, peak memory, one JSON file.

For each backend: load it, then for each workload run `warmup` untimed generations (compilation and
CUDA-graph recording happen there), `repeats` timed ones, and one more under helpers.memory.track_memory
(memory gets its own run so that the CPU fallback's RSS sampler thread cannot slow the timed ones).
TTFT and e2e percentiles are over runs; TPOT is each run's mean gap, ITL every gap of every run pooled
(vLLM's names). `decode_gbps` divides the bytes a decode step must move (weights + KV cache, mid-run
context) by the median TPOT: compare it with the device's memory bandwidth. `compiles` counts graphs
torch.compile made during warm-up and during the timed runs (the second must be 0).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import platform
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import torch

from helpers.bench import table as markdown_table
from helpers.env import device_label, pick_device, versions
from helpers.llama import kv_cache_bytes, param_count
from helpers.llm_bench.backends import LLMBackend, graphs_compiled, make_backend
from helpers.llm_bench.generation import GenerationConfig, GenerationResult, percentiles
from helpers.llm_bench.tokenizer import ByteTokenizer
from helpers.memory import format_bytes, track_memory


@dataclass(frozen=True)
class Workload:
    """One request shape: prompt length × new tokens × batch (equal-length prompts)."""

    name: str
    prompt_tokens: int
    new_tokens: int
    batch: int = 1

    @property
    def shape(self) -> str:
        return f"{self.prompt_tokens}+{self.new_tokens}×{self.batch}"


# name → (full size for a GPU, QUICK size for CPU and CI)
WORKLOADS: dict[str, tuple[Workload, Workload]] = {
    "short-chat": (Workload("short-chat", 128, 128), Workload("short-chat", 32, 16)),
    "long-generation": (Workload("long-generation", 64, 1024), Workload("long-generation", 16, 64)),
    "long-prompt-summary": (Workload("long-prompt-summary", 2048, 64), Workload("long-prompt-summary", 512, 8)),
    "batch-chat": (Workload("batch-chat", 128, 128, batch=8), Workload("batch-chat", 32, 16, batch=4)),
}

PROMPT_TEXT = ("The compiler reads the model once, writes kernels for it, and replays them for every token. "
               "Prefill reads each weight once for the whole prompt; decode reads every weight for one token. ")


def workload(name: str, quick: bool = False) -> Workload:
    """A preset by name, full-sized or QUICK-sized."""
    try:
        full, small = WORKLOADS[name]
    except KeyError:
        raise ValueError(f"unknown workload {name!r}; choose one of {', '.join(WORKLOADS)}") from None
    return small if quick else full


def synthetic_prompts(n_tokens: int, batch: int, vocab_size: int, tokenizer: ByteTokenizer | None = None) -> list[list[int]]:
    """`batch` prompts of exactly n_tokens byte ids of English text (each row starts further into it)."""
    ids = (tokenizer or ByteTokenizer()).encode(PROMPT_TEXT)
    rows = []
    for row in range(batch):
        start = 7 * row
        rows.append([ids[(start + i) % len(ids)] % vocab_size for i in range(n_tokens)])
    return rows


@dataclass
class WorkloadResult:
    """The timed runs of one backend on one workload, with the memory run and what the backend reported."""

    backend: str
    workload: Workload
    runs: list[GenerationResult]
    memory: dict
    backend_info: dict
    decode_bytes_per_step: float | None = None
    compiles_warmup: int = 0  # graphs torch.compile compiled during the warm-up runs
    compiles_timed: int = 0  # ... and during the timed runs: anything but 0 means compile time was timed

    def stats(self) -> dict:
        """Percentiles (p50/p95/p99/mean, seconds) of TTFT, TPOT, ITL, e2e, naive TTFT, and tokens/s."""
        per_run = {key: [getattr(r, key) for r in self.runs]
                   for key in ("ttft_s", "tpot_s", "e2e_s", "naive_ttft_s", "tokens_per_s")}
        stats = {key: percentiles(values) for key, values in per_run.items()}
        stats["itl_s"] = percentiles([gap for r in self.runs for gap in r.itl_s])
        tpot = stats["tpot_s"]["p50"]
        stats["decode_gbps"] = (self.decode_bytes_per_step / tpot / 1e9
                                if self.decode_bytes_per_step and tpot and not math.isnan(tpot) else None)
        return stats

    def to_dict(self) -> dict:
        return {"backend": self.backend, "workload": asdict(self.workload), "stats": self.stats(),
                "memory": self.memory, "backend_info": self.backend_info,
                "decode_bytes_per_step": self.decode_bytes_per_step,
                "compiles_warmup": self.compiles_warmup, "compiles_timed": self.compiles_timed,
                "runs": [r.summary() for r in self.runs]}

    def row(self) -> dict:
        """One table row: milliseconds, tokens/s, peak memory, graphs compiled (warm-up+timed)."""
        s = self.stats()
        ms = lambda key, q: s[key][q] * 1e3
        return {"backend": self.backend, "workload": self.workload.name, "P+N×B": self.workload.shape,
                "ttft_p50_ms": ms("ttft_s", "p50"), "ttft_p95_ms": ms("ttft_s", "p95"),
                "tpot_p50_ms": ms("tpot_s", "p50"), "tpot_p95_ms": ms("tpot_s", "p95"),
                "itl_p99_ms": ms("itl_s", "p99"), "e2e_p50_ms": ms("e2e_s", "p50"),
                "tok_per_s": s["tokens_per_s"]["p50"], "naive_ttft_ms": ms("naive_ttft_s", "p50"),
                "peak_mem": format_bytes(self.memory["peak_bytes"]),
                "compiles": f"{self.compiles_warmup}+{self.compiles_timed}"}


TABLE_COLUMNS = ("backend", "workload", "P+N×B", "ttft_p50_ms", "ttft_p95_ms", "tpot_p50_ms", "tpot_p95_ms",
                 "itl_p99_ms", "e2e_p50_ms", "tok_per_s", "naive_ttft_ms", "peak_mem", "compiles")


def _plain(x):
    """x with NaN and infinities as None, so the JSON is strict."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


@dataclass
class BenchResults:
    """Everything one benchmark run measured, with where and how: to_json(), rows(), table()."""

    meta: dict
    results: list[WorkloadResult] = field(default_factory=list)

    def to_dict(self) -> dict:
        return _plain({"meta": self.meta, "results": [r.to_dict() for r in self.results]})

    def to_json(self, path: str | os.PathLike) -> Path:
        """Write the results as strict JSON (NaN as null), atomically: a reader never sees half a file."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
        return path

    def rows(self) -> list[dict]:
        """One row per (backend, workload) for a table."""
        return [r.row() for r in self.results]

    def table(self) -> str:
        """The rows as an aligned markdown table."""
        return markdown_table(self.rows(), columns=TABLE_COLUMNS)


def _meta(backends: list[LLMBackend], device: torch.device, warmup: int, repeats: int, quick: bool, seed: int) -> dict:
    """Where and how the numbers were taken: device, versions, model shapes, settings."""
    config = backends[0].config if backends and backends[0].config is not None else None
    return {"created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "device_label": device_label(device), "versions": versions(device), "platform": platform.platform(),
            "torch_threads": torch.get_num_threads(), "argv": sys.argv,
            "model": asdict(config) if config else None,
            "param_count": param_count(config) if config else None,
            "dtype": str(backends[0].dtype).removeprefix("torch.") if backends else None,
            "warmup": warmup, "repeats": repeats, "quick": quick, "seed": seed,
            "timing": "time.perf_counter() when each token's ids reach the host (one device sync per token)"}


def _decode_bytes(backend: LLMBackend, w: Workload) -> float | None:
    """Weights + KV cache one decode step moves, at the mean context of the run."""
    info = backend.info()
    if backend.config is None or not info.get("decode_weight_bytes"):
        return None
    context = w.prompt_tokens + w.new_tokens // 2
    kv_bytes = torch.finfo(backend.dtype).bits // 8
    return info["decode_weight_bytes"] + kv_cache_bytes(backend.config, context + 1, w.batch, kv_bytes)


def run_benchmark(backends: list[str | LLMBackend], workloads: list[str | Workload], model: str = "tiny",
                  device: str = "auto", dtype: str = "auto", warmup: int = 1, repeats: int = 3, seed: int = 0,
                  quick: bool | None = None, compile_mode: str = "auto",
                  progress: Callable[[int], None] | None = None) -> BenchResults:
    """Benchmark each backend (a name from backends.BACKENDS or an instance) on each workload.

    quick=None picks QUICK sizes on CPU and full ones on CUDA. `progress` is called with 1 after every
    generation (a tqdm bar's update). Backends run one after another; each is cleaned up before the next.
    """
    dev = pick_device(device)
    quick = dev.type != "cuda" if quick is None else quick
    loads = [make_backend(b, model=model, device=dev, dtype=dtype, seed=seed, compile_mode=compile_mode)
             if isinstance(b, str) else b for b in backends]
    shapes = [workload(w, quick) if isinstance(w, str) else w for w in workloads]
    results = BenchResults(meta=_meta(loads, dev, warmup, repeats, quick, seed))
    for backend in loads:
        backend.load()
        try:
            for w in shapes:
                results.results.append(_run_workload(backend, w, warmup, repeats, seed, progress))
        finally:
            backend.cleanup()
    return results


def _run_workload(backend: LLMBackend, w: Workload, warmup: int, repeats: int, seed: int,
                  progress: Callable[[int], None] | None) -> WorkloadResult:
    """Warm-up, timed repeats and a memory run of one workload on a loaded backend."""
    vocab = backend.config.vocab_size if backend.config is not None else 256
    prompts = synthetic_prompts(w.prompt_tokens, w.batch, vocab)
    config = GenerationConfig(max_new_tokens=w.new_tokens, seed=seed)
    tick = progress or (lambda n: None)
    start = graphs_compiled()
    for _ in range(warmup):
        backend.collect(prompts, config)
        tick(1)
    warmed = graphs_compiled()
    runs = []
    for _ in range(repeats):
        runs.append(backend.collect(prompts, config))
        tick(1)
    timed = graphs_compiled()
    with track_memory(backend.device) as mem:
        backend.collect(prompts, config)
    tick(1)
    memory = {"method": mem.method, "note": mem.note, "peak_bytes": mem.peak_bytes,
              "peak_delta_bytes": mem.peak_delta_bytes, "start_bytes": mem.start_bytes}
    return WorkloadResult(backend.name, w, runs, memory, backend.info(), _decode_bytes(backend, w),
                          compiles_warmup=warmed - start, compiles_timed=timed - warmed)
