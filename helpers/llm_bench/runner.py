"""Run backends over workloads: warm-up, timed repeats in interleaved rounds, verdicts, percentiles, peak memory, JSON.

Every backend is loaded first. For each workload, each backend runs `warmup` untimed generations (compilation and
CUDA-graph recording happen there); then come `repeats` **rounds**, each running every backend's generation once,
in a fresh random order, so round i of one backend and round i of another ran at the same moment: load that comes
and goes hits both alike. The verdicts between backends (`BenchResults.comparisons`: every backend against the first,
on TTFT and on TPOT, per workload) are bench.paired over those rounds: "faster", "slower" or "no difference this
machine can resolve", with a 95 % interval. Then each backend runs once more under helpers.memory.track_memory (its
own run, so that measuring cannot slow the timed ones): its own peak is its weights and cache plus the tensor memory
that run allocated on top (MEMORY_NOTE), whatever the other backends hold. The other programs'
load during the timed rounds is kept (`meta["other_load"]`, cores' worth; bench.LoadMeter). TTFT and e2e percentiles
are over runs; TPOT is each run's mean gap, ITL every gap of every run pooled (vLLM's names); the table prints a tail
percentile only from enough samples (min_samples). `decode_gbps` divides the bytes a decode step must move (weights +
KV cache, mid-run context) by the median TPOT: compare it with the device's memory bandwidth. LEGEND explains every
column of the table, `compiles` included. Every run's numbers are kept in the JSON (`runs`), for `compare`.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import platform
import random
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import torch
from torch import nn

from helpers import bench
from helpers.bench import table as markdown_table
from helpers.env import device_label, pick_device, versions
from helpers.llama import kv_cache_bytes, param_count
from helpers.llm_bench.backends import make_backend
from helpers.llm_bench.base import LLMBackend, graphs_compiled
from helpers.llm_bench.generation import GenerationConfig, GenerationResult, percentiles
from helpers.llm_bench.quantize import weight_bytes
from helpers.llm_bench.tokenizer import ByteTokenizer
from helpers.memory import format_bytes, track_memory
from helpers.profiling import peak_allocated_bytes


# a workload's fields: (least value, why); a file or the command line names them prompt_len, new_tokens, batch
SHAPE_LIMITS = {"prompt_tokens": (1, "prefill needs a token"), "new_tokens": (2, "TPOT is the gap between two tokens"),
                "batch": (1, "a batch needs a prompt")}
FILE_KEYS = {"prompt_len": "prompt_tokens", "new_tokens": "new_tokens", "batch": "batch"}


def shape_error(field_name: str, value) -> str | None:
    """What is wrong with a workload field's value ("must be a whole number ≥ 2 (…); got 0"), or None."""
    low, why = SHAPE_LIMITS[field_name]
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        return f"must be a whole number ≥ {low} ({why}); got {value!r}"
    return None


@dataclass(frozen=True)
class Workload:
    """One request shape: prompt length × new tokens × batch (equal-length prompts)."""

    name: str
    prompt_tokens: int
    new_tokens: int
    batch: int = 1

    def __post_init__(self):
        for field_name in SHAPE_LIMITS:
            if error := shape_error(field_name, getattr(self, field_name)):
                raise ValueError(f"workload {self.name!r}: {field_name} {error}")

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


def read_workloads(path: str | os.PathLike, quick: bool = False) -> list[Workload]:
    """Workloads from a JSON file: a list of preset names and {"name", "prompt_len", "new_tokens", "batch"} objects
    (name and batch optional); ValueError naming the file and the entry for anything else."""
    try:
        entries = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: cannot read a JSON workload list ({e})") from None
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{path}: want a non-empty JSON list of preset names and "
                         '{"prompt_len": 64, "new_tokens": 32, "batch": 1} objects')
    shapes = []
    for i, entry in enumerate(entries, 1):
        where = f"{path}: entry {i}"
        if isinstance(entry, str):
            try:
                shapes.append(workload(entry, quick))
            except ValueError as e:
                raise ValueError(f"{where}: {e}") from None
            continue
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: want a preset name or an object, got {entry!r}")
        if unknown := sorted(set(entry) - {"name", *FILE_KEYS}):
            raise ValueError(f"{where}: unknown key {unknown[0]!r}; use name, {', '.join(FILE_KEYS)}")
        fields = {"batch": 1, **{FILE_KEYS[k]: v for k, v in entry.items() if k in FILE_KEYS}}
        missing = [k for k, f in FILE_KEYS.items() if f not in fields]
        if missing:
            raise ValueError(f"{where}: {missing[0]} is missing")
        for key, field_name in FILE_KEYS.items():
            if error := shape_error(field_name, fields[field_name]):
                raise ValueError(f"{where}: {key} {error}")
        shapes.append(Workload(str(entry.get("name", f"file-{i}")), **fields))
    return shapes


def check_workloads(shapes: list[Workload], max_seq_len: int | None) -> None:
    """ValueError unless the names are distinct (results are kept by name) and each fits the model's context."""
    names = [w.name for w in shapes]
    if len(set(names)) != len(names):
        raise ValueError(f"two workloads share a name ({', '.join(names)}): results are kept by name")
    for w in shapes:
        if max_seq_len is not None and w.prompt_tokens + w.new_tokens > max_seq_len:
            raise ValueError(f"workload {w.name!r}: {w.prompt_tokens} prompt + {w.new_tokens} new tokens exceed the "
                             f"model's context of {max_seq_len} tokens")


def synthetic_prompts(n_tokens: int, batch: int, vocab_size: int, tokenizer: ByteTokenizer | None = None) -> list[list[int]]:
    """`batch` prompts of exactly n_tokens byte ids of English text (each row starts further into it)."""
    ids = (tokenizer or ByteTokenizer()).encode(PROMPT_TEXT)
    rows = []
    for row in range(batch):
        start = 7 * row
        rows.append([ids[(start + i) % len(ids)] % vocab_size for i in range(n_tokens)])
    return rows


def min_samples(q: float) -> int:
    """Samples needed before percentile q is printed: 100 / (100 − q) for a high tail (p95: 20, p99: 100), 100 / q
    for a low one (p5: 20); fewer, and pq is only the extreme sample, interpolated."""
    return 1 if q == 50 else math.ceil(100 / min(q, 100 - q) - 1e-9)


def tail(values: dict, q: float, scale: float = 1.0) -> float | str:
    """values[f"p{q}"] × scale when values["n"] samples are enough for it (min_samples), else '⚠ n=9<20'."""
    need = min_samples(q)
    return values[f"p{q:g}"] * scale if values["n"] >= need else f"⚠ n={values['n']}<{need}"


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
        """p50/p95/p99/mean (seconds) and n of TTFT, TPOT, ITL, e2e, naive TTFT; tokens/s as p50/p5/p1 (its slow tail)."""
        def summary(values: list[float], qs=(50, 95, 99)) -> dict:
            return {**percentiles(values, qs), "n": sum(not math.isnan(v) for v in values)}

        per_run = {key: [getattr(r, key) for r in self.runs] for key in ("ttft_s", "tpot_s", "e2e_s", "naive_ttft_s")}
        stats = {key: summary(values) for key, values in per_run.items()}
        stats["tokens_per_s"] = summary([r.tokens_per_s for r in self.runs], qs=(50, 5, 1))
        stats["itl_s"] = summary([gap for r in self.runs for gap in r.itl_s])
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
        """One table row (LEGEND says what each column is): milliseconds, tokens/s, own peak memory, compiles."""
        s = self.stats()
        ms = lambda key, q: s[key][q] * 1e3
        return {"backend": self.backend, "workload": self.workload.name, "P+N×B": self.workload.shape,
                "ttft_p50_ms": ms("ttft_s", "p50"), "ttft_p95_ms": tail(s["ttft_s"], 95, 1e3),
                "tpot_p50_ms": ms("tpot_s", "p50"), "tpot_p95_ms": tail(s["tpot_s"], 95, 1e3),
                "itl_p99_ms": tail(s["itl_s"], 99, 1e3), "e2e_p50_ms": ms("e2e_s", "p50"),
                "tok_per_s": s["tokens_per_s"]["p50"], "naive_ttft_ms": ms("naive_ttft_s", "p50"),
                "peak_mem": format_bytes(self.memory["peak_bytes"]),
                "compiles": f"{self.compiles_warmup}+{self.compiles_timed}"}


TABLE_COLUMNS = ("backend", "workload", "P+N×B", "ttft_p50_ms", "ttft_p95_ms", "tpot_p50_ms", "tpot_p95_ms",
                 "itl_p99_ms", "e2e_p50_ms", "tok_per_s", "naive_ttft_ms", "peak_mem", "compiles")
LEGEND = (
    "P+N×B: prompt tokens + new tokens × batch. ttft: time to the first token on the host; tpot: a run's mean gap "
    "after it; itl: every gap of every run, pooled; e2e: call to last token; naive_ttft: e2e ÷ tokens, the shortcut "
    "(for comparison); tok_per_s: the median run's tokens (all sequences) per second of e2e.",
    "pN of n samples is printed only when n ≥ 100/(100−N) (p95: 20 runs, p99: 100; below that it is the slowest "
    "sample, interpolated): '⚠ n=9<20' means run more --repeats. Throughput's slow tail is p5/p1 in the JSON.",
    "peak_mem: this backend's own peak: its weights and KV cache + the most tensor memory one generation of it (run "
    "after the timed rounds) allocated on top (CUDA: the allocator's peak; CPU: torch.profiler's allocation "
    "events). Tensor bytes only, not the process's resident total.",
    "compiles: graphs torch.compile made for this backend during its warm-up + during the timed runs. The first is "
    "the compile cost, paid once per cache size; the second must be 0, else compile time was timed. Eager: 0+0.")


def _plain(x):
    """x with NaN and infinities as None, so the JSON is strict."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


METRICS = {"ttft": "TTFT", "tpot": "TPOT"}  # what the verdicts between backends compare, per run


@dataclass
class BenchResults:
    """Everything one benchmark run measured, with where and how: to_json(), rows(), table(), verdicts()."""

    meta: dict
    results: list[WorkloadResult] = field(default_factory=list)
    # one per (workload, metric, backend other than the first): {"workload", "metric", "baseline", "backend",
    # "comparison": bench.Comparison from the rounds' pairs}
    comparisons: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return _plain({"meta": self.meta, "results": [r.to_dict() for r in self.results],
                       "comparisons": [{**{k: v for k, v in c.items() if k != "comparison"},
                                        **c["comparison"].to_dict()} for c in self.comparisons]})

    def to_json(self, path: str | os.PathLike) -> Path:
        """Write the results as strict JSON (NaN as null), atomically: a reader never sees half a file."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        try:
            tmp.write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        return path

    def rows(self) -> list[dict]:
        """One row per (backend, workload) for a table."""
        return [r.row() for r in self.results]

    def table(self) -> str:
        """The rows as an aligned markdown table."""
        return markdown_table(self.rows(), columns=TABLE_COLUMNS)

    def comparison(self, workload: str, metric: str, backend: str) -> bench.Comparison:
        """The verdict of `backend` against the first backend on `metric` ("ttft" or "tpot") in `workload`."""
        for c in self.comparisons:
            if (c["workload"], c["metric"], c["backend"]) == (workload, metric, backend):
                return c["comparison"]
        raise KeyError(f"no comparison of {backend!r} on {metric!r} in {workload!r}; have "
                       f"{[(c['workload'], c['metric'], c['backend']) for c in self.comparisons]}")

    def verdicts(self) -> str:
        """Every comparison in words, one line each, with the rounds and the other programs' load."""
        if not self.comparisons:
            return "(no verdicts between backends: one backend, or no runs)"
        lines = []
        for c in self.comparisons:
            comp = c["comparison"]
            lines.append(f"{c['workload']:<22}{METRICS[c['metric']]:<6}{comp.sentence()}")
        head = (f"verdicts against {self.comparisons[0]['baseline']}, each pair one round (both backends' generations "
                f"ran in the same round, in random order); {self.meta.get('repeats')} rounds per workload")
        return "\n".join([head, *lines])

    def legend(self) -> str:
        """What the table's columns are, the percentile rule and the memory method included."""
        return "\n".join(LEGEND)

    def load_warning(self) -> str | None:
        """A warning when other programs kept this machine's cores busy during the timed rounds; else None."""
        load, cpus = self.meta.get("other_load"), self.meta.get("cpus")
        if load is None or load < bench.LOAD_WARN:
            return None
        of = f" of this machine's {cpus} cores" if cpus else " cores"
        verdicts = ("the verdicts compare backends within the same rounds, so they hold, with wider intervals. "
                    if self.comparisons else "")
        return (f"⚠ other programs used {load:.1f}{of} during the timed runs: the times in the table are slower than "
                f"this machine can do; {verdicts}Close other programs for tighter figures.")


def _cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _meta(backends: list[LLMBackend], device: torch.device, warmup: int, repeats: int, quick: bool, seed: int) -> dict:
    """Where and how the numbers were taken: device, versions, model shapes, settings."""
    config = backends[0].config if backends and backends[0].config is not None else None
    return {"created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "device_label": device_label(device), "versions": versions(device), "platform": platform.platform(),
            "torch_threads": torch.get_num_threads(), "cpus": _cpus(), "argv": sys.argv,
            "model": asdict(config) if config else None,
            "param_count": param_count(config) if config else None,
            "dtype": str(backends[0].dtype).removeprefix("torch.") if backends else None,
            "warmup": warmup, "repeats": repeats, "quick": quick, "seed": seed,
            "timing": "time.perf_counter() when each token's ids reach the host (one device sync per token)",
            "order": "interleaved: each round runs every backend once, in a fresh random order",
            "other_load": None,
            "percentile_rule": LEGEND[1], "memory": LEGEND[2],
            "other_load_note": "cores' worth of other programs' CPU time during the timed rounds, the most of any "
                               "workload's (bench.LoadMeter; null where it cannot be measured)"}


def _decode_bytes(backend: LLMBackend, w: Workload) -> float | None:
    """Weights + KV cache one decode step moves, at the mean context of the run."""
    info = backend.info()
    if backend.config is None or not info.get("decode_weight_bytes"):
        return None
    context = w.prompt_tokens + w.new_tokens // 2
    kv_bytes = torch.finfo(backend.dtype).bits // 8
    return info["decode_weight_bytes"] + kv_cache_bytes(backend.config, context + 1, w.batch, kv_bytes)


MEMORY_NOTE = {
    "cuda-allocator": "own peak = weights + KV cache (tensor bytes) + the CUDA allocator's peak during one generation "
                      "above the level before it (torch.cuda.reset_peak_memory_stats before the run)",
    "cpu-profiler": "own peak = weights + KV cache (tensor bytes) + the peak of the tensor bytes one generation "
                    "allocated and had not freed (torch.profiler's memory events; helpers.profiling)"}


def own_peak(backend: LLMBackend, prompts, config: GenerationConfig) -> dict:
    """One more generation, its memory measured: this backend's own peak, whatever the others loaded beside it hold."""
    held = held_bytes(backend)
    if backend.device.type == "cuda":
        with track_memory(backend.device) as mem:
            backend.collect(prompts, config)
        method, rise = mem.method, mem.peak_delta_bytes
    else:   # the process's RSS would count Python, the libraries and every backend: tensor bytes are this one's
        method, rise = "cpu-profiler", peak_allocated_bytes(backend.collect, prompts, config)
    return {"method": method, "note": MEMORY_NOTE[method], "peak_bytes": held + rise, "held_bytes": held,
            "run_rise_bytes": rise}


def held_bytes(backend: LLMBackend) -> int:
    """Bytes a loaded backend keeps on its device between runs: its weights and buffers, and its KV cache."""
    model = getattr(backend, "model", None)
    held = weight_bytes(model) if isinstance(model, nn.Module) else 0
    cache = getattr(backend, "cache", None)
    return held + int(getattr(cache, "nbytes", 0) or 0)


@dataclass
class Interleaved:
    """Generations of several backends in rounds: runs[label][i] ran in round i, in the order orders[i]."""

    runs: dict[str, list[GenerationResult]]
    orders: list[list[str]]
    other_load: float | None  # cores' worth of other programs' CPU time during the rounds (None: unknown)
    compiles: dict[str, int]  # graphs torch.compile compiled during each label's runs (0 after a warm-up)

    def values(self, label: str, metric: str) -> list[float]:
        """Per round, `metric` ("ttft", "tpot", "e2e") of label's run, in milliseconds."""
        return [getattr(r, f"{metric}_s") * 1e3 for r in self.runs[label]]

    def compare(self, a: str, b: str, metric: str, device: str = "cpu") -> bench.Comparison | None:
        """b against a on `metric`, one pair per round (bench.paired); None when a round has no value (NaN)."""
        xs, ys = self.values(a, metric), self.values(b, metric)
        if not xs or any(math.isnan(v) for v in xs + ys):
            return None
        return bench.paired(xs, ys, labels=(a, b), device=device, method=f"{METRICS.get(metric, metric)} of "
                            "interleaved generations", threads=torch.get_num_threads(), other_load=self.other_load)


def interleaved_runs(backends: Mapping[str, LLMBackend], prompts, config: GenerationConfig, repeats: int,
                     seed: int = 0, progress: Callable[[int], None] | None = None) -> Interleaved:
    """`repeats` rounds, each one generation of every (loaded, warmed-up) backend in a fresh random order.

    `prompts`: the prompt ids (one prompt or a batch) every backend gets, or {label: prompt ids} where their
    vocabularies differ.
    """
    own = prompts if isinstance(prompts, Mapping) else {k: prompts for k in backends}
    rng = random.Random(seed)
    labels = list(backends)
    runs: dict[str, list[GenerationResult]] = {k: [] for k in labels}
    compiles = {k: 0 for k in labels}
    orders = []
    meter = bench.LoadMeter().start()
    for _ in range(repeats):
        order = rng.sample(labels, len(labels))
        orders.append(order)
        for label in order:
            before = graphs_compiled()
            runs[label].append(backends[label].collect(own[label], config))
            compiles[label] += graphs_compiled() - before
            if progress:
                progress(1)
    load = meter.stop()
    if load is None:            # the rounds were too short to measure over: measure the load right after them
        load = bench.other_load()
    return Interleaved(runs, orders, load, compiles)


def run_benchmark(backends: list[str | LLMBackend], workloads: list[str | Workload], model: str = "tiny",
                  device: str = "auto", dtype: str = "auto", warmup: int = 1, repeats: int = bench.MIN_ROUNDS,
                  seed: int = 0, quick: bool | None = None, compile_mode: str = "auto",
                  progress: Callable[[int], None] | None = None, hf_model: str | None = None,
                  options: dict | None = None) -> BenchResults:
    """Benchmark each backend (a name from backends.BACKENDS or an instance) on each workload, in interleaved rounds.

    quick=None picks QUICK sizes on CPU and full ones on CUDA. `progress` is called with 1 after every
    generation (a tqdm bar's update). Every backend stays loaded until the end (the rounds alternate between
    them), then each is cleaned up. Results are listed backend by backend, workloads in the order given.
    hf_model: the transformers model (local folder or Hub id) of the "hf" backend; else it builds `model` itself.
    options: the static-cache backends' decode-step switches, as make_backend takes them (fused, flash_decode,
    greedy_in_graph).
    """
    dev = pick_device(device)
    quick = dev.type != "cuda" if quick is None else quick
    loads = [make_backend(b, model=model, device=dev, dtype=dtype, seed=seed, compile_mode=compile_mode,
                          hf_model=hf_model, **(options or {})) if isinstance(b, str) else b for b in backends]
    shapes = [workload(w, quick) if isinstance(w, str) else w for w in workloads]
    check_workloads(shapes, min((b.config.max_seq_len for b in loads if b.config is not None), default=None))
    results = BenchResults(meta=_meta(loads, dev, warmup, repeats, quick, seed))
    by_pair: dict[tuple[str, str], WorkloadResult] = {}
    loads_per_workload: dict[str, float] = {}
    orders: dict[str, list[list[str]]] = {}
    try:
        for backend in loads:
            backend.load()
        names = [b.name for b in loads]   # after load(), which names the model's switches (eager+fused)
        if len(set(names)) != len(names):
            raise ValueError(f"two backends share a name ({names}): the rounds tell them apart by name")
        for w in shapes:
            interleaved = _run_workload(loads, w, warmup, repeats, seed, progress, by_pair, dev)
            orders[w.name] = interleaved.orders
            if interleaved.other_load is not None:
                loads_per_workload[w.name] = interleaved.other_load
            for metric in METRICS:
                for other in names[1:]:
                    c = interleaved.compare(names[0], other, metric, device=str(dev))
                    if c is not None:
                        results.comparisons.append({"workload": w.name, "metric": metric, "baseline": names[0],
                                                    "backend": other, "comparison": c})
    finally:
        for backend in loads:
            backend.cleanup()
    results.results = [by_pair[(n, w.name)] for n in names for w in shapes if (n, w.name) in by_pair]
    results.meta["orders"] = orders
    results.meta["other_load"] = max(loads_per_workload.values()) if loads_per_workload else None
    results.meta["other_load_per_workload"] = loads_per_workload
    return results


def _run_workload(backends: list[LLMBackend], w: Workload, warmup: int, repeats: int, seed: int,
                  progress: Callable[[int], None] | None, out: dict, device: torch.device) -> Interleaved:
    """Warm-up of every backend, the timed rounds, and a memory run of each, on one workload; results into `out`."""
    tick = progress or (lambda n: None)
    config = GenerationConfig(max_new_tokens=w.new_tokens, seed=seed)
    prompts = {b.name: synthetic_prompts(w.prompt_tokens, w.batch, b.config.vocab_size if b.config is not None else 256)
               for b in backends}
    warm_compiles = {}
    for b in backends:
        start = graphs_compiled()
        for _ in range(warmup):
            b.collect(prompts[b.name], config)
            tick(1)
        warm_compiles[b.name] = graphs_compiled() - start
    by_name = {b.name: b for b in backends}
    interleaved = interleaved_runs(by_name, prompts, config, repeats, seed, tick)
    for b in backends:
        memory = own_peak(b, prompts[b.name], config)
        tick(1)
        out[(b.name, w.name)] = WorkloadResult(b.name, w, interleaved.runs[b.name], memory, b.info(),
                                               _decode_bytes(b, w), compiles_warmup=warm_compiles[b.name],
                                               compiles_timed=interleaved.compiles[b.name])
    return interleaved
