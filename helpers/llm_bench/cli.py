"""`python -m helpers.llm_bench`: benchmark backends on workloads, print a table and the verdicts, write JSON.

The backends run in interleaved rounds (helpers.llm_bench.runner), so the verdicts between them ("faster",
"slower", "no difference this machine can resolve", "no difference larger than the ±3 % …") compare generations
run at the same moments; the CLI warns when other programs kept the cores busy meanwhile. On a CPU, torch runs on
one thread (bench.thread_policy).
Every setting is checked before anything runs; a bad one ends with one line and exit code 2 (argparse's way).
`compare A.json B.json` compares two saved runs (helpers.llm_bench.compare). main(argv) returns an exit code, so
`workbook llm-bench` can call it with its own arguments.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from helpers import bench
from helpers.llama import CONFIGS, param_count
from helpers.llm_bench import compare
from helpers.llm_bench.backends import BACKENDS, compile_mode_for
from helpers.llm_bench.base import DTYPES
from helpers.llm_bench.llama_backends import COMPILE_MODES
from helpers.llm_bench.runner import WORKLOADS, Workload, check_workloads, read_workloads, shape_error, workload

EXAMPLES = """examples:
  %(prog)s --backend eager compiled int8 --workload short-chat --repeats 20 --out results.json
  %(prog)s --backend eager compiled --prompt-len 256 --new-tokens 64 --batch 4
  %(prog)s --workload-file shapes.json     (a JSON list: "short-chat", {"prompt_len": 64, "new_tokens": 32, "batch": 2})
  %(prog)s --backend hf --hf-model ./my-llama --device cuda     (a local transformers model folder; needs transformers)
  %(prog)s compare before.json after.json      (two saved runs, a verdict per metric)"""
SHAPE_OPTIONS = {"prompt_len": "prompt_tokens", "new_tokens": "new_tokens", "batch": "batch"}  # option → field


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error (the usage is one --help away), exit code 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser(prog: str = "python -m helpers.llm_bench") -> argparse.ArgumentParser:
    """The command line's options, with examples in the help."""
    p = Parser(prog=prog, description="Benchmark LLM inference backends: TTFT, TPOT, tokens/s, "
                                "own peak memory, graphs compiled. Random weights, byte tokenizer: nothing is "
                                "downloaded (except a Hub id given to --hf-model).", epilog=EXAMPLES,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="tiny", choices=[n for n in CONFIGS if n != "7b"],
                   help="model size from helpers.llama.CONFIGS (default: tiny)")
    p.add_argument("--backend", nargs="+", default=["eager"], choices=BACKENDS, help="one or more backends")
    p.add_argument("--hf-model", metavar="PATH_OR_ID",
                   help="for --backend hf: a local transformers model folder (config.json + weights) or a Hub id; "
                        "default: transformers' Llama built from --model with the same random weights as ours")
    shapes = p.add_argument_group("workloads", "presets, a custom shape, or a file; default: short-chat")
    shapes.add_argument("--workload", nargs="+", choices=list(WORKLOADS), help="one or more presets")
    shapes.add_argument("--prompt-len", type=int, help="a custom workload's prompt tokens (others from short-chat)")
    shapes.add_argument("--new-tokens", type=int, help="... its new tokens, at least 2 (TPOT needs two)")
    shapes.add_argument("--batch", type=int, help="... its prompts per generation (equal lengths)")
    shapes.add_argument("--workload-file", metavar="JSON", help='a JSON list of preset names and '
                        '{"name": ..., "prompt_len": P, "new_tokens": N, "batch": B} objects (name, batch optional)')
    step = p.add_argument_group("the decode step", "switches of the static-cache backends (not hf); each adds its "
                                "name to the backend's")
    step.add_argument("--fused", action="store_true", help="q/k/v and gate/up as one matmul each")
    step.add_argument("--flash-decode", action="store_true",
                      help="decode attention over the filled part of the cache only (a Triton kernel: a CUDA GPU, "
                           "or TRITON_INTERPRET=1 on a CPU)")
    step.add_argument("--greedy-in-graph", action="store_true",
                      help="compiled backends: a greedy generation picks each token and moves the position inside "
                           "the compiled step")
    p.add_argument("--device", default="auto", help='"auto" (CUDA when usable), "cpu" or "cuda"')
    p.add_argument("--dtype", default="auto", choices=["auto", *DTYPES], help="auto: bfloat16 on CUDA, float32 on CPU")
    p.add_argument("--compile-mode", default="auto", choices=["auto", *COMPILE_MODES],
                   help="for compiled backends; auto: reduce-overhead (CUDA graphs) on CUDA, default elsewhere; "
                        "reduce-overhead is refused on a CPU, which has no CUDA graphs")
    p.add_argument("--quick", action=argparse.BooleanOptionalAction, default=None,
                   help="QUICK preset sizes (default: on for CPU, off for CUDA)")
    p.add_argument("--warmup", type=int, default=1, help="untimed generations per workload (default: 1)")
    p.add_argument("--repeats", type=int, default=bench.MIN_ROUNDS,
                   help="timed rounds per workload, each one generation of every backend in random order (default: "
                        f"{bench.MIN_ROUNDS}, the fewest whose 95%% interval leaves out the extreme round at either "
                        "end; from 6 a verdict has its 95%% interval, with fewer there is none); p95 is printed from "
                        "20, p99 from 100")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="llm_bench_results.json", help="where to write the JSON results (checked first)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def compare_parser(prog: str) -> argparse.ArgumentParser:
    """`compare A.json B.json`'s options."""
    p = Parser(prog=prog, description="Compare two llm-bench result files: a verdict per metric (TTFT, TPOT, e2e) "
               "for every backend and workload found in both.", epilog=f"example: {prog} before.json after.json")
    p.add_argument("a", metavar="A.json", help="the baseline run")
    p.add_argument("b", metavar="B.json", help="the run compared with it (verdicts say how B does against A)")
    return p


def compare_main(argv: list[str], prog: str) -> int:
    """Print the comparison of two result files; 2 with a one-line error when they cannot be compared."""
    parser = compare_parser(prog)
    try:
        args = parser.parse_args(argv)
        try:
            text = compare.report(compare.load(args.a), compare.load(args.b), (args.a, args.b))
        except ValueError as e:
            parser.error(str(e))
    except SystemExit as stop:
        return int(stop.code or 0)
    print(text)
    return 0


def shapes_from(args: argparse.Namespace, quick: bool) -> list[Workload]:
    """The workloads the arguments ask for: presets, then the custom shape, then the file's; ValueError if wrong."""
    custom = {option: getattr(args, option) for option in SHAPE_OPTIONS if getattr(args, option) is not None}
    shapes = [workload(w, quick) for w in args.workload or ([] if custom or args.workload_file else ["short-chat"])]
    if custom:
        for option, value in custom.items():
            if error := shape_error(SHAPE_OPTIONS[option], value):
                raise ValueError(f"--{option.replace('_', '-')} {error}")
        base = workload("short-chat", quick)
        fields = {"prompt_tokens": base.prompt_tokens, "new_tokens": base.new_tokens, "batch": base.batch,
                  **{SHAPE_OPTIONS[option]: value for option, value in custom.items()}}
        shapes.append(Workload("custom", **fields))
    if args.workload_file:
        shapes += read_workloads(args.workload_file, quick)
    return shapes


def check_out(path: str) -> None:
    """ValueError unless a file can be written at path (its folder is made if missing): found now, not after the run."""
    out = Path(path)
    if out.is_dir():
        raise ValueError(f"--out {out} is a folder; name a file, e.g. {out / 'results.json'}")
    probe = out.with_name(out.name + ".tmp")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        probe.touch()
        probe.unlink()
        if out.exists():
            with open(out, "ab"):        # an existing file must take a write too (read-only, immutable): nothing is added
                pass
    except (FileExistsError, NotADirectoryError):
        raise ValueError(f"--out {out}: a file stands where its folder should be") from None
    except OSError as e:
        raise ValueError(f"--out {out}: cannot write there ({e.strerror or e})") from None


def settings(args: argparse.Namespace):
    """(device, quick, workloads) from the arguments, every one checked; ValueError in one line for the first wrong."""
    from helpers.env import pick_device

    if args.repeats < 1 or args.warmup < 0:
        raise ValueError("--repeats must be at least 1 and --warmup at least 0")
    if len(set(args.backend)) != len(args.backend):
        raise ValueError(f"--backend names one backend twice ({' '.join(args.backend)}): the rounds tell them apart by name")
    if any(b.startswith("int8-triton") for b in args.backend):
        from helpers.llm_bench.backends import INT8_TRITON_LEFT_OUT, int8_triton_present

        if not int8_triton_present():
            raise ValueError(INT8_TRITON_LEFT_OUT)
    if args.hf_model and "hf" not in args.backend:
        raise ValueError("--hf-model is for the hf backend: add --backend hf")
    try:
        device = pick_device(args.device)
    except RuntimeError:
        import torch

        raise ValueError(f"--device {args.device}: this machine has no usable CUDA GPU (torch {torch.__version__}, "
                         f"built with CUDA {torch.version.cuda}); use --device cpu, or --device auto to take a GPU "
                         "when there is one") from None
    check_step_switches(args, device)
    if "hf" in args.backend:
        from helpers.llm_bench.hf import require_transformers

        require_transformers()   # ImportError with the install hint
    if any("compiled" in b for b in args.backend) or args.compile_mode != "auto":
        compile_mode_for(args.compile_mode, device)
    quick = device.type != "cuda" if args.quick is None else args.quick
    shapes = shapes_from(args, quick)
    llama_only = not (args.hf_model and len(args.backend) == 1)
    check_workloads(shapes, CONFIGS[args.model].max_seq_len if llama_only else None)
    check_out(args.out)
    return device, quick, shapes


COMPILED_STEP = ("compiled", "int8-compiled", "int8-triton")   # the backends whose decode step torch.compile compiles


def step_options(args: argparse.Namespace) -> dict:
    """The decode-step switches as make_backend's keyword arguments."""
    return {"fused": args.fused, "flash_decode": args.flash_decode, "greedy_in_graph": args.greedy_in_graph}


def check_step_switches(args: argparse.Namespace, device) -> None:
    """ValueError, in words, for a decode-step switch that would do nothing or cannot run here."""
    named = [f"--{k.replace('_', '-')}" for k, on in step_options(args).items() if on]
    if named and "hf" in args.backend:
        raise ValueError(f"{' '.join(named)} change helpers.llama's model, and the hf backend runs transformers' own: "
                         "benchmark hf in a run of its own")
    if args.greedy_in_graph and not any(b in COMPILED_STEP for b in args.backend):
        from helpers.llm_bench.backends import int8_triton_present

        offered = [b for b in COMPILED_STEP if b != "int8-triton" or int8_triton_present()]
        raise ValueError(f"--greedy-in-graph changes the compiled decode step: add a compiled backend ({', '.join(offered)})")
    if args.flash_decode:
        from helpers.llm_bench.flash_decode import unavailable

        if why := unavailable(device):
            raise ValueError(why)


def main(argv: list[str] | None = None, prog: str = "python -m helpers.llm_bench") -> int:
    """Run the benchmark the arguments describe (or `compare A B`); 0 on success, 2 on a usage or set-up error."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["compare"]:
        return compare_main(argv[1:], prog=f"{prog} compare")
    parser = build_parser(prog)
    try:
        args = parser.parse_args(argv)
        try:
            device, quick, shapes = settings(args)
        except (ValueError, ImportError) as e:
            parser.error(str(e))
    except SystemExit as stop:   # --help, or a usage error argparse has already explained in one line
        return int(stop.code or 0)
    return run(args, device, quick, shapes)


def run(args: argparse.Namespace, device, quick: bool, shapes: list[Workload]) -> int:
    """The benchmark itself, once every setting is known to be good."""
    from tqdm import tqdm

    from helpers.env import device_label
    from helpers.llm_bench.runner import run_benchmark

    print(bench.thread_policy(device))
    model = args.hf_model if args.hf_model and len(args.backend) == 1 else (
        f"{args.model} ({param_count(CONFIGS[args.model]) / 1e6:.1f}M parameters, random weights)")
    print(f"{model} on {device_label(device)}; {'QUICK' if quick else 'full'} preset sizes; workloads: "
          + ", ".join(f"{w.name} {w.shape}" for w in shapes), flush=True)
    if args.hf_model and len(args.backend) > 1:   # (without --hf-model, hf runs helpers.llama's weights in transformers)
        print(f"⚠ two models: hf runs {args.hf_model} and the other backends helpers.llama's {model}; "
              "a verdict between hf and them compares the models as much as the backends")
    runs = len(args.backend) * len(shapes) * (args.warmup + args.repeats + 1)
    with tqdm(total=runs, desc="generations", unit="gen", disable=args.no_progress, file=sys.stderr) as bar:
        results = run_benchmark(args.backend, shapes, model=args.model, device=device, dtype=args.dtype,
                                warmup=args.warmup, repeats=args.repeats, seed=args.seed, quick=quick,
                                compile_mode=args.compile_mode, progress=bar.update, hf_model=args.hf_model,
                                options=step_options(args))
    print(results.table())
    print(results.legend())
    if len(args.backend) > 1:
        print(results.verdicts())
    if warning := results.load_warning():
        print(warning)
    try:
        print(f"wrote {results.to_json(args.out)}")
    except OSError as e:                 # the disk filled, or the file changed hands during the run: keep the results
        import tempfile

        kept = results.to_json(Path(tempfile.gettempdir()) / f"llm_bench_results-{os.getpid()}.json")
        print(f"could not write {args.out} ({e.strerror or e}); the results are in {kept} instead", file=sys.stderr)
        return 1
    return 0
