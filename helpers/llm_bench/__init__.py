"""LLM inference benchmarks: a byte tokenizer, backends behind one streaming interface, a runner, a CLI.

    from helpers.llm_bench import run_benchmark
    results = run_benchmark(["eager", "int8"], ["short-chat"], model="tiny", repeats=3)
    print(results.table()); results.to_json("results.json")

Command line: `python -m helpers.llm_bench --help` (custom shapes, workload files; `compare A.json B.json` for two
saved runs). Modules: base (the interface), llama_backends and hf (the backends), backends (the registry by name),
generation, runner, compare, cli. Introduced in Lab 07; the model is helpers.llama.
"""

from helpers.llm_bench.backends import BACKENDS, make_backend
from helpers.llm_bench.base import LLMBackend
from helpers.llm_bench.hf import HFBackend  # transformers itself is imported only when one is made
from helpers.llm_bench.llama_backends import CompiledBackend, EagerBackend, Int8Backend, LlamaBackend
from helpers.llm_bench.generation import GenerationConfig, GenerationResult, percentiles
from helpers.llm_bench.runner import (WORKLOADS, BenchResults, Interleaved, Workload, WorkloadResult, interleaved_runs,
                                      run_benchmark, workload)
from helpers.llm_bench.tokenizer import ByteTokenizer


__all__ = ["BACKENDS", "BenchResults", "ByteTokenizer", "CompiledBackend", "EagerBackend", "GenerationConfig",
           "GenerationResult", "HFBackend", "Int8Backend", "Interleaved", "LLMBackend", "LlamaBackend", "WORKLOADS",
           "Workload", "WorkloadResult", "interleaved_runs", "make_backend", "percentiles", "run_benchmark", "workload"]
