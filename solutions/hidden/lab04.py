"""Lab 04 hidden checks: the grader's twins of helpers/checks/lab04.py, on inputs the notebook never saw.

Never released. Each function takes a GraderContext: `ctx.call` runs the
learner's function in the sandboxed worker, `ctx.file` reads what the notebook
wrote, `ctx.truth` is the grader's own Inductor dump of TinyHead on this machine.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import torch

from helpers import inductor
from helpers.checks import CheckFailed
from helpers.checks import lab04 as public

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "inductor"

# The notebook cells whose definitions the worker loads (learner-added cells: their defs and imports).
WORKER_CELLS = ["parameters", "setup", "ex-a", "ex-b", "ex-c", "ex-e", "ex-s", "ex-g"]


def _capture_tinyhead():
    model, x = public.tiny_head_case(seed=0)
    return inductor.capture(model, x)


TRUTHS = {"tinyhead": _capture_tinyhead}


def fixture_dumps(name: str) -> list:
    """Every stored dump of `name` (tinyhead, chain, minigpt) across devices and torch versions."""
    return [inductor.load_dump(d) for d in sorted(FIXTURES.glob(f"*/{name}")) if (d / "output_code.py").is_file()]


def reference_scheduler_nodes(text: str) -> list[str]:
    """The grader's own answer to exercise S."""
    names, member = [], False
    for line in text.splitlines():
        if re.match(r"^\w+\.snodes\[\d+\] =", line):
            member = True
            continue
        m = re.match(r"^(\w+): \w*SchedulerNode\(", line)
        if m:
            if not member:
                names.append(m.group(1))
            member = False
    return names


def compile_match(ctx) -> str:
    model, x = public.tiny_head_case(seed=1234, d=48, vocab=333, batch=5)
    with torch.no_grad():
        want = model(x)
    got = ctx.run(
        "from helpers.models import TinyHead\n"
        "model = TinyHead(48, 333); model.load_state_dict(sd); model.eval()\n"
        "before = torch._dynamo.utils.counters['stats']['unique_graphs']\n"
        "c = compile_head(model)\n"
        "with torch.no_grad():\n    out = c(x)\n"
        "result = {'optimized': isinstance(c, torch._dynamo.eval_frame.OptimizedModule),\n"
        "          'same': getattr(c, '_orig_mod', None) is model, 'out': out,\n"
        "          'graphs': torch._dynamo.utils.counters['stats']['unique_graphs'] - before}\n",
        sd=model.state_dict(), x=x)
    if not (isinstance(got, dict) and got.get("optimized") and got.get("same")):
        raise CheckFailed("compile_head should return torch.compile(model) for the model it is given.")
    out = got.get("out")
    if not isinstance(out, torch.Tensor) or out.shape != want.shape:
        raise CheckFailed("on the grader's own TinyHead (other sizes), the compiled model's output has the wrong shape.")
    err = (out - want).abs().max().item()
    if err > 1e-6:
        raise CheckFailed(f"on the grader's own TinyHead (other sizes) the compiled output differs from eager by {err:.2e} (must be ≤ 1e-6).")
    if got.get("graphs", 0) < 1:
        raise CheckFailed("Dynamo captured no graph when the compiled model was called.")
    return "compiled output matches eager within 1e-6 on the grader's model"


def debug_dump(ctx) -> str:
    with tempfile.TemporaryDirectory(dir=ctx.out_dir) as tmp:
        Path(tmp).chmod(0o777)
        folder = ctx.run(
            "def graded_fn(t):\n    return torch.sigmoid(t) - 0.25\n"
            "result = dump_inductor_debug(graded_fn, (torch.randn(11, 17),), root)\n"
            "result = None if result is None else str(result)\n", root=tmp)
        problems = public.debug_folder_problems(folder, marker="187")
        if folder and not str(Path(folder).resolve()).startswith(str(Path(tmp).resolve())):
            problems.append("the folder returned is not under the debug_root it was given.")
    if problems:
        raise CheckFailed(" ".join(problems))
    return "the debug files of a fresh compile of the grader's function"


def find_softmax(ctx) -> str:
    cases = [("this machine's TinyHead", ctx.truth("tinyhead"))]
    cases += [(f"a stored {d.device} MiniGPT dump", d) for d in fixture_dumps("minigpt")]
    cases += [(f"a stored {d.device} TinyHead dump", d) for d in fixture_dumps("tinyhead")]
    for what, dump in cases:
        want = [k for k in dump.kernels if public.kernel_is_softmax(k)]
        if len(want) != 1:
            continue
        for kernels in (dump.kernels, public.decoys(dump.kernels)):
            got = ctx.call("find_softmax_kernel", kernels, post="result = getattr(result, 'name', repr(result))")
            if got != want[0].name:
                raise CheckFailed(f"on {what}, find_softmax_kernel returned {got!r}, not the kernel that reduces and exponentiates.")
    kernel = next(k for k in ctx.truth("tinyhead").kernels if public.kernel_is_softmax(k))
    for k in (kernel, next((k for d in fixture_dumps("tinyhead") for k in d.kernels if k.kind != "cpp"), kernel)):
        with tempfile.TemporaryDirectory(dir=ctx.out_dir) as tmp:
            Path(tmp).chmod(0o777)
            path = ctx.call("save_kernel", k, tmp, post="result = str(result)")
            ext = ".cpp" if k.kind == "cpp" else ".py"
            written = Path(tmp) / ("kernel" + ext)
            if Path(path).name != written.name or not written.is_file() or written.read_text() != k.source:
                raise CheckFailed(f"save_kernel should write a {k.kind} kernel's exact source to kernel{ext}.")
    return "finds the softmax kernel in CPU and GPU dumps of other models"


def annotation(ctx) -> str:
    kernel = next((k for k in ctx.truth("tinyhead").kernels if public.kernel_is_softmax(k)), None)
    if kernel is None:
        raise CheckFailed("the grader found no softmax kernel on this machine; tell your instructor.")
    problems = public.annotation_problems(ctx.file(public.ANNOTATION_FILE).read_text(errors="replace"), kernel)
    if problems:
        raise CheckFailed(" ".join(problems))
    return f"the annotation matches {kernel.name}, as the grader's own dump shows it"


HIDDEN_CROSSOVER = (   # (speedups, batch sizes, answer, what the case is about: the feedback says only this)
    ([0.5, 0.7, 1.2, 1.5], [1, 2, 4, 16], 4, "rows given largest batch first"),
    ([1.0, 1.2, 1.3], [1, 2, 3], 2, "a speedup of exactly 1.0 (not faster)"),
    ([0.9], [7], None, "a single row where compiled is slower"),
    ([2.0], [7], 7, "a single row where compiled is faster"),
    ([], [], None, "no rows at all"),
)


def crossover(ctx) -> str:
    for speedups, sizes, want, about in HIDDEN_CROSSOVER:
        rows = public.rows_for(speedups, sizes)[::-1]          # largest batch first
        got = ctx.call("find_crossover", rows)
        if got != want:
            raise CheckFailed(f"find_crossover gave a wrong answer on the grader's case with {about}; "
                              "sort the rows by batch and handle every size, not only the ones shown in the notebook.")
    rows = ctx.run("from helpers.models import TinyHead\nm = TinyHead(16, 24).eval()\n"
                   "import inspect\nkw = {'d': 16} if 'd' in inspect.signature(measure_sweep).parameters else {}\n"
                   "result = measure_sweep(m, m, [3, 5], **kw)\n", timeout=180)
    if not isinstance(rows, list) or [r.get("batch") for r in rows if isinstance(r, dict)] != [3, 5]:
        raise CheckFailed("measure_sweep should return one row per batch size, in order.")
    for r in rows:
        if not all(isinstance(r.get(k), (int, float)) and r[k] > 0 for k in ("eager_ms", "compiled_ms", "speedup")):
            raise CheckFailed("each row of measure_sweep needs positive eager_ms, compiled_ms and speedup.")
        if abs(r["speedup"] - r["eager_ms"] / r["compiled_ms"]) > 1e-6 * r["speedup"]:
            raise CheckFailed("each row's speedup should be eager_ms / compiled_ms.")
    return "find_crossover is right on the grader's cases and measure_sweep's rows are consistent"


def scheduler(ctx) -> str:
    texts = [(public.SCHEDULER_CASE, "the notebook's small sample")]
    for name in ("tinyhead", "minigpt", "chain"):
        for dump in fixture_dumps(name):
            texts += [(t, f"a stored {dump.device} {name} dump ({stage}-fusion IR)")
                      for t, stage in ((dump.ir_pre_fusion, "pre"), (dump.ir_post_fusion, "post")) if t]
    for text, about in texts:
        want = reference_scheduler_nodes(text)
        got = ctx.call("scheduler_nodes", text, post="result = list(result)")
        if got != want:
            raise CheckFailed(f"on {about}, scheduler_nodes returned {len(got)} names where there are {len(want)} "
                              "top-level nodes (count only nodes that open a line and are not listed under '.snodes[i] =').")
    return f"right on {len(texts)} IR files from CPU and GPU dumps"


def report(ctx) -> str:
    problems = public.report_problems(ctx.out_dir)
    if problems:
        raise CheckFailed(" ".join(problems))
    return "REPORT.md and manifest.json verified by the grader"


HIDDEN = {
    "04.compile_match": compile_match,
    "04.debug_dump": debug_dump,
    "04.find_softmax": find_softmax,
    "04.annotation": annotation,
    "04.crossover": crossover,
    "04.scheduler": scheduler,
    "04.report": report,
}
