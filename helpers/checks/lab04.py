"""Lab 04 — Inductor output: the acceptance checks.

Each check names the exercise it grades. The validators (`annotation_problems`,
`report_problems`, ...) are shared with the grader's hidden checks, which run
them on files and inputs the notebook never saw.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from pathlib import Path

import torch

from helpers.checks import CheckFailed, Context, register

LAB = "04"
ANNOTATION_FILE = "KERNEL_ANNOTATION.md"
REPORT_FILE = "REPORT.md"
MANIFEST_FILE = "manifest.json"
ANNOTATION_SECTIONS = ("Fused ATen ops", "Input read", "Output written", "Reductions", "What is not there")
REPORT_SECTIONS = ("Compile match", "Kernel", "Profile", "Where compiling loses")
# Ops a softmax annotation might name; naming one the kernel does not hold is an error.
SOFTMAX_VOCAB = ("amax", "max", "sub", "exp", "sum", "div", "_softmax", "softmax", "prepare_softmax_online",
                 "log", "mul", "reciprocal", "addmm", "mm", "permute", "t")


def kernel_is_softmax(kernel) -> bool:
    """The criterion the exercise describes: the kernel exponentiates and reduces."""
    ops = set(kernel.aten_ops)
    return bool(kernel.reductions) and bool({"exp", "_softmax", "prepare_softmax_online"} & ops)


# ---------------------------------------------------------------- A: compile
def tiny_head_case(seed: int, d: int = 64, vocab: int = 600, batch: int = 2):
    """A TinyHead and an input, reproducible from a seed."""
    from helpers.models import TinyHead

    torch.manual_seed(seed)
    return TinyHead(d, vocab).eval(), torch.randn(batch, d)


def compiled_problems(compiled, model, x) -> list[str]:
    """Why `compiled` is not a torch.compile'd `model` that matches eager within 1e-6."""
    if not isinstance(compiled, torch._dynamo.eval_frame.OptimizedModule):
        return [f"compile_head returned a {type(compiled).__name__}; return the result of torch.compile(model)."]
    if compiled._orig_mod is not model:
        return ["compile_head returned a compiled module, but not of the model it was given."]
    before = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    with torch.no_grad():
        want, got = model(x), compiled(x)
    graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"] - before
    err = (want - got).abs().max().item()
    problems = []
    if err > 1e-6:
        problems.append(f"compiled and eager outputs differ by {err:.2e} (must be ≤ 1e-6).")
    if graphs == 0 and torch._dynamo.utils.counters["stats"]["unique_graphs"] == 0:
        problems.append("Dynamo captured no graph: is the model really compiled, and was it called?")
    return problems


@register("04.compile_match", points=2, exercise="A", title="torch.compile'd TinyHead matches eager within 1e-6")
def _compile_match(ctx: Context) -> str:
    model, x = tiny_head_case(seed=4)
    problems = compiled_problems(ctx.call("compile_head", model), model, x)
    if problems:
        raise CheckFailed(" ".join(problems))
    return "compiled output matches eager within 1e-6"


# ---------------------------------------------------------------- B: dump
DEBUG_FILES = ("output_code.py", "ir_pre_fusion.txt", "ir_post_fusion.txt")


def debug_folder_problems(folder, marker: str) -> list[str]:
    """Why `folder` is not a fresh Inductor debug folder for a graph whose code mentions `marker`."""
    if folder is None:
        return ["dump_inductor_debug returned None; return the folder that holds output_code.py."]
    folder = Path(folder)
    if not folder.is_dir():
        return [f"{folder} is not a folder; return the Inductor debug folder (the one with {', '.join(DEBUG_FILES)})."]
    missing = [f for f in DEBUG_FILES if not (folder / f).is_file()]
    if missing:
        hint = " (an FX-graph-cache hit writes no debug files: turn the cache off while dumping)" if "ir_post_fusion.txt" in missing else ""
        return [f"{folder} lacks {', '.join(missing)}{hint}."]
    if marker not in (folder / "output_code.py").read_text(errors="replace"):
        return [f"{folder}/output_code.py is not the code of the function you were given (no {marker!r} in it): return the folder of THIS compile, not an older one."]
    return []


def odd_fn(t: torch.Tensor) -> torch.Tensor:
    """A function whose generated code is recognisable by its shape."""
    return torch.tanh(t) * 3.0


@register("04.debug_dump", points=2, exercise="B", title="Inductor's debug files are dumped for a fresh compile")
def _debug_dump(ctx: Context) -> str:
    shape = (7, 13)
    with tempfile.TemporaryDirectory() as tmp:
        folder = ctx.call("dump_inductor_debug", odd_fn, (torch.randn(*shape),), Path(tmp))
        problems = debug_folder_problems(folder, marker="91")  # 7*13 elements appear in the loop bound
    if problems:
        raise CheckFailed(" ".join(problems))
    return "output_code.py, ir_pre_fusion.txt and ir_post_fusion.txt written for the function given"


# ---------------------------------------------------------------- C: find the kernel
def decoys(kernels: list) -> list:
    """The kernel list shuffled and padded with look-alikes that are not a softmax."""
    from helpers.inductor import Kernel

    fake_exp = Kernel(name="cpp_fused_exp_0", kind="cpp", device="cpu", aten_ops=["exp"], aten_ops_source="kernel_name",
                      loads=[], stores=[], reductions=[], source="// exp only, no reduction")
    fake_sum = Kernel(name="cpp_fused_sum_1", kind="cpp", device="cpu", aten_ops=["sum"], aten_ops_source="kernel_name",
                      loads=[], stores=[], reductions=["sum"], source="// a sum, no exp")
    return [fake_exp, *reversed(kernels), fake_sum]


@register("04.find_softmax", points=2, exercise="C", title="find the fused softmax kernel and save it")
def _find_softmax(ctx: Context) -> str:
    code = ctx.get("code")
    want = [k for k in code.kernels if kernel_is_softmax(k)]
    if len(want) != 1:
        raise CheckFailed(f"the captured code should hold one softmax kernel but holds {len(want)}; re-run the capture cell.")
    for kernels, what in ((code.kernels, "your capture"), (decoys(code.kernels), "a shuffled list with look-alike kernels")):
        got = ctx.call("find_softmax_kernel", kernels)
        if getattr(got, "name", None) != want[0].name:
            raise CheckFailed(f"on {what}, find_softmax_kernel returned {getattr(got, 'name', got)!r}; expected {want[0].name!r} "
                              "(the kernel that both reduces and exponentiates).")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(ctx.call("save_kernel", want[0], Path(tmp)))
        ext = ".cpp" if want[0].kind == "cpp" else ".py"
        if path.name != "kernel" + ext:
            raise CheckFailed(f"save_kernel wrote {path.name}; a {want[0].kind} kernel goes to kernel{ext}.")
        if path.read_text() != want[0].source:
            raise CheckFailed("save_kernel's file is not exactly the kernel's source.")
    return f"found {want[0].name} and saved its source"


# ---------------------------------------------------------------- D: annotation
def sections(text: str) -> dict[str, str]:
    """Markdown '## Heading' → body, keyed by the heading in lower case."""
    parts = re.split(r"^#{2,3}\s+(.+?)\s*$", text, flags=re.M)
    return {parts[i].strip().lower(): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def _squash(s: str) -> str:
    """Index expressions compared without spaces, casts and L suffixes."""
    s = re.sub(r"static_cast<[^>]+>", "", s)
    s = re.sub(r"(\d+)L\b", r"\1", s)
    return re.sub(r"[\s()]", "", s)


def _mentions(body: str, op: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(op)}(?!\w)", body) is not None


def annotation_problems(text: str, kernel) -> list[str]:
    """Everything wrong with an annotation of `kernel` (an empty list when it is right)."""
    found = sections(text)
    missing = [s for s in ANNOTATION_SECTIONS if s.lower() not in found]
    if missing:
        return [f"the annotation lacks the section(s) {', '.join('## ' + m for m in missing)}."]
    problems = []
    ops_body = re.sub(r"aten\.|prims\.", "", found["fused aten ops"])
    ops_line = next((line for line in ops_body.splitlines() if line.strip()), "")
    have = set(kernel.aten_ops)
    absent = [op for op in kernel.aten_ops if not _mentions(ops_body, op)]
    if absent:
        problems.append(f"'Fused ATen ops' misses {', '.join(absent)}: your dump ({kernel.name}) fuses {', '.join(kernel.aten_ops)}.")
    wrong = [op for op in SOFTMAX_VOCAB if op not in have and _mentions(ops_line, op)
             and not (op == "softmax" and "_softmax" in have) and not (op == "max" and "amax" in have)]
    if wrong:
        problems.append(f"the first line of 'Fused ATen ops' lists {', '.join(wrong)}, which this kernel does not hold "
                        f"(its ops: {', '.join(kernel.aten_ops)}; CPU and GPU, and torch versions, differ — annotate your own dump).")
    loads = {_squash(a.index) for a in kernel.loads if a.index}
    quoted_in = [_squash(q) for q in re.findall(r"`([^`]+)`", found["input read"])]
    if not any(i in q for q in quoted_in for i in loads):
        problems.append("'Input read' should quote, in `backticks`, the index expression of the input load, e.g. one of: "
                        + ", ".join(dict.fromkeys(f"`{a.index}`" for a in kernel.loads)) + ".")
    stores = kernel.stores
    out_body = found["output written"]
    if not any(a.buffer in out_body and _squash(a.index) in _squash(out_body) for a in stores):
        problems.append("'Output written' should name the output pointer and its index expression, e.g. "
                        + ", ".join(f"`{a.buffer}` at `{a.index}`" for a in stores[-2:]) + ".")
    red_body = found["reductions"].lower()
    kinds = [r for r in kernel.reductions if r.lower() not in red_body and not (r == "online_softmax" and "online" in red_body)]
    if kinds:
        problems.append(f"'Reductions' should say which reductions the kernel performs ({', '.join(kernel.reductions)}); missing: {', '.join(kinds)}.")
    quoted = [q for q in re.findall(r"`([^`]+)`", found["reductions"]) if q.strip() and q.strip() in kernel.source]
    if not quoted:
        problems.append("'Reductions' should quote (in `backticks`) the code that performs a reduction, copied from the kernel.")
    gone = found["what is not there"].lower()
    if not (("intermediate" in gone or "buffer" in gone) and ("exp" in gone or "softmax" in gone)):
        problems.append("'What is not there' should say which intermediate (the exp(x - max) tensor) never gets its own buffer in memory.")
    return problems


@register("04.annotation", points=3, exercise="D", title="KERNEL_ANNOTATION.md explains the fused kernel of your dump")
def _annotation(ctx: Context) -> str:
    code = ctx.get("code")
    kernel = next((k for k in code.kernels if kernel_is_softmax(k)), None)
    if kernel is None:
        raise CheckFailed("the captured code holds no softmax kernel; re-run the capture cell in part C.")
    problems = annotation_problems(ctx.file(ANNOTATION_FILE).read_text(), kernel)
    if problems:
        raise CheckFailed(" ".join(problems))
    return f"the annotation matches {kernel.name}"


# ---------------------------------------------------------------- E: crossover
CROSSOVER_CASES = (
    ([0.5, 0.7, 1.2, 1.5], [1, 8, 64, 512], 64),
    ([0.4, 0.6, 0.8], [1, 8, 64], None),
    ([1.3, 1.5, 2.0], [2, 4, 8], 2),
    ([0.8, 1.1, 0.9, 1.2, 1.3], [1, 2, 4, 8, 16], 8),
)


def rows_for(speedups, sizes) -> list[dict]:
    """Sweep rows with the given speedups (eager time / compiled time)."""
    return [{"batch": b, "eager_ms": 1.0, "compiled_ms": 1.0 / s, "speedup": s} for s, b in zip(speedups, sizes)]


def crossover_problems(find_crossover, cases=CROSSOVER_CASES) -> list[str]:
    """Cases on which `find_crossover` gives the wrong answer."""
    problems = []
    for speedups, sizes, want in cases:
        got = find_crossover(rows_for(speedups, sizes))
        if got != want:
            problems.append(f"for speedups {speedups} at batch sizes {sizes}, find_crossover returned {got!r}; expected {want!r} "
                            "(the smallest batch from which compiled is faster at every larger batch too; None if never).")
            break
    return problems


@register("04.crossover", points=2, exercise="E", title="the eager-vs-compiled sweep and its crossover")
def _crossover(ctx: Context) -> str:
    problems = crossover_problems(lambda rows: ctx.call("find_crossover", rows))
    rows = ctx.get("sweep_rows")
    if not rows or not all({"batch", "eager_ms", "compiled_ms", "speedup"} <= set(r) for r in rows):
        problems.append("sweep_rows should be a list of dicts with batch, eager_ms, compiled_ms and speedup.")
    elif any(abs(r["speedup"] - r["eager_ms"] / r["compiled_ms"]) > 1e-6 * r["speedup"] + 1e-9 for r in rows):
        problems.append("each row's speedup should be eager_ms / compiled_ms.")
    if problems:
        raise CheckFailed(" ".join(problems))
    return "find_crossover is right on every case, and the sweep rows are consistent"


# ---------------------------------------------------------------- S: scheduler
SCHEDULER_CASE = """op0: ExternKernelSchedulerNode(ExternKernelOut)
op0.writes = [StarDep(name='buf0', mode=None)]
op0.node.kernel = extern_kernels.mm


op1_op2: FusedSchedulerNode(SchedulerNode,SchedulerNode)
op1_op2.writes = [MemoryDep('buf1', c0, {c0: 8})]
op1_op2.snodes[0] =
op1: SchedulerNode(ComputedBuffer)
op1.writes = [MemoryDep('buf1', c0, {c0: 8})]
op1_op2.snodes[1] =
op2: SchedulerNode(ComputedBuffer)
op2.writes = [MemoryDep('buf2', c0, {c0: 8})]


op3: NopKernelSchedulerNode(ComputedBuffer)
op3.writes = []
"""
SCHEDULER_WANT = ["op0", "op1_op2", "op3"]


def scheduler_problems(pre: list[str], post: list[str]) -> list[str]:
    """Whether pre- and post-fusion node lists look like one graph before and after fusion."""
    if not pre or not post:
        return ["scheduler_nodes found no nodes in your dump's IR files."]
    if len(post) >= len(pre):
        return [f"post-fusion has {len(post)} nodes and pre-fusion {len(pre)}: fusion should leave fewer (are nested .snodes counted?)."]
    covered = sorted(op for name in post for op in name.split("_"))
    if covered != sorted(pre):
        return [f"the fused node names {post} should cover the pre-fusion nodes {pre} exactly once each."]
    return []


@register("04.scheduler", points=2, exercise="S", title="list Inductor's scheduler nodes before and after fusion")
def _scheduler(ctx: Context) -> str:
    got = ctx.call("scheduler_nodes", SCHEDULER_CASE)
    if list(got) != SCHEDULER_WANT:
        raise CheckFailed(f"on a small IR sample, scheduler_nodes returned {got!r}; expected {SCHEDULER_WANT!r} "
                          "(top-level nodes only: the nodes listed under '.snodes[i] =' belong to the fused node above them).")
    code = ctx.get("code")
    if not (code.ir_pre_fusion and code.ir_post_fusion):
        raise CheckFailed("the capture in part C has no IR files; re-run it.")
    pre, post = ctx.call("scheduler_nodes", code.ir_pre_fusion), ctx.call("scheduler_nodes", code.ir_post_fusion)
    problems = scheduler_problems(list(pre), list(post))
    if problems:
        raise CheckFailed(" ".join(problems))
    return f"{len(pre)} nodes before fusion, {len(post)} after"


# ---------------------------------------------------------------- G: report
def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def report_problems(out_dir: Path) -> list[str]:
    """Everything wrong with REPORT.md and manifest.json in `out_dir`."""
    report, manifest = out_dir / REPORT_FILE, out_dir / MANIFEST_FILE
    if not report.is_file():
        return [f"{out_dir.name}/{REPORT_FILE} does not exist: run write_report."]
    found = sections(report.read_text())
    missing = [s for s in REPORT_SECTIONS if s.lower() not in found]
    if missing:
        return [f"REPORT.md lacks the section(s) {', '.join('## ' + m for m in missing)}."]
    problems = []
    if not re.search(r"\d\.?\d*e-\d+|0\.0+\d*|\b0\b", found["compile match"]):
        problems.append("'Compile match' should give the measured max abs error as a number.")
    if ANNOTATION_FILE not in found["kernel"] or not re.search(r"kernel\.(cpp|py)", found["kernel"]):
        problems.append("'Kernel' should point to kernel.cpp or kernel.py and to KERNEL_ANNOTATION.md.")
    if len(found["where compiling loses"].split()) < 25:
        problems.append("'Where compiling loses' should explain, in a few sentences, where and why compiling is slower.")
    if not manifest.is_file():
        return problems + [f"{out_dir.name}/{MANIFEST_FILE} does not exist: write_report should write it."]
    try:
        data = json.loads(manifest.read_text())
        files = data["files"]
        versions = data["versions"]
    except (ValueError, KeyError, TypeError):
        return problems + ["manifest.json should be JSON with 'files' ({name: {sha256, bytes}}) and 'versions'."]
    if REPORT_FILE not in files:
        problems.append("manifest.json should list REPORT.md.")
    if "torch" not in versions:
        problems.append("manifest.json 'versions' should include torch.")
    for name, meta in files.items():
        path = out_dir / name
        if not path.is_file():
            problems.append(f"manifest.json lists {name}, which does not exist.")
        elif not isinstance(meta, dict) or meta.get("sha256") != sha256(path):
            problems.append(f"manifest.json's sha256 for {name} does not match the file (re-run write_report after changing files).")
    return problems


@register("04.report", points=2, exercise="G", title="REPORT.md and manifest.json")
def _report(ctx: Context) -> str:
    problems = report_problems(ctx.out_dir)
    if problems:
        raise CheckFailed(" ".join(problems))
    return "REPORT.md and manifest.json are complete and consistent"
