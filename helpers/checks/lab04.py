"""Lab 04 — Inductor output: the acceptance checks.

Each check is a probe (`probe_*`: runs the learner's code, returns plain data) and a judge (`*_problems`: says
what to fix), run on cases. The notebook runs them on the cases below; the grader runs the same functions on
hidden cases (other models, other functions, stored dumps from CPUs and GPUs of several torch versions).
Kernels travel as plain facts (`kernel_facts`): name, kind, fused ops, loads, stores, reductions, source.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import html
import io
import json
import math
import os
import random
import re
import shutil
import tempfile
import time
import warnings
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator

import torch

from helpers.checks import CheckFailed, Context, Learner, fail_if, register
from helpers.notebooks import stub_message

LAB = "04"
ANNOTATION_FILE = "KERNEL_ANNOTATION.md"
REPORT_FILE = "REPORT.md"
MANIFEST_FILE = "manifest.json"
REPORT_ARTIFACTS = ("kernel.cpp", "kernel.py", ANNOTATION_FILE, "sweep.png")   # files the report may point to
ANNOTATION_SECTIONS = ("Fused ATen ops", "Input read", "Output written", "Reductions", "What is not there")
REPORT_SECTIONS = ("Compile match", "Kernel", "Profile", "When compiling pays")
# Ops a softmax annotation might name; naming one the kernel does not hold is an error.
SOFTMAX_VOCAB = ("amax", "max", "sub", "exp", "sum", "div", "_softmax", "softmax", "prepare_softmax_online",
                 "log", "mul", "reciprocal", "addmm", "mm", "permute", "t",
                 # the Linear before the softmax (its bias add is inside the library addmm), and softmax's relatives
                 "add", "linear", "matmul", "bmm", "log_softmax", "_log_softmax", "logsumexp", "neg")


def kernel_facts(kernel) -> dict:
    """A parsed kernel (helpers.inductor.Kernel) as plain data."""
    return kernel if isinstance(kernel, dict) else dataclasses.asdict(kernel)


def kernel_is_softmax(kernel) -> bool:
    """The criterion the exercise describes: the kernel exponentiates and reduces."""
    k = kernel_facts(kernel)
    return bool(k["reductions"]) and bool({"exp", "_softmax", "prepare_softmax_online"} & set(k["aten_ops"]))


def max_abs_diff(got: Any, want: torch.Tensor) -> float:
    """Largest |got - want| in float64; inf when shapes differ or either side has NaN or inf (never passes)."""
    if not isinstance(got, torch.Tensor) or got.shape != want.shape:
        return math.inf
    if got.numel() == 0:
        return 0.0
    diff = (got.double().cpu() - want.double().cpu()).abs()
    return math.inf if not bool(torch.isfinite(diff).all()) else diff.max().item()


def raised(err: BaseException) -> str:
    """What the learner's code raised, in words."""
    return f"raised {type(err).__name__}: {str(err)[:200]}"


# ---------------------------------------------------------------- A: compile
@dataclass(frozen=True)
class HeadCase:
    """A TinyHead and its input, reproducible from a seed."""

    about: str
    seed: int
    d: int = 64
    vocab: int = 600
    batch: int = 2

    def build(self):
        from helpers.models import TinyHead

        torch.manual_seed(self.seed)
        return TinyHead(self.d, self.vocab).eval(), torch.randn(self.batch, self.d)

    def want(self) -> torch.Tensor:
        """Eager's answer in float64, computed where the check is judged."""
        model, x = self.build()
        with torch.no_grad():
            return model.double()(x.double())


def probe_compile(learner: Learner, case: HeadCase) -> dict:
    """compile_head on the case's TinyHead, on the run's device: what it returned, what it computed, graphs captured,
    and whether Inductor compiled them (Dynamo's caches are reset first, so the first call really compiles)."""
    from helpers.env import pick_device

    model, x = case.build()
    device = pick_device(learner.settings.device)
    model, x = model.to(device), x.to(device)
    try:
        try:
            compiled = learner.call("compile_head", model)
        finally:
            turned_on = global_mode_settings(restore=True)
        info = {"global_mode": turned_on, "optimized": isinstance(compiled, torch._dynamo.eval_frame.OptimizedModule),
                "same": getattr(compiled, "_orig_mod", None) is model, "type": type(compiled).__name__,
                "in_place": compiled is model and getattr(model, "_compiled_call_impl", None) is not None}
        if info["optimized"]:
            info["mode"] = mode_options(compiled)
            counters = torch._dynamo.utils.counters
            torch._dynamo.reset()
            graphs, inductor = counters["stats"]["unique_graphs"], sum(counters["inductor"].values())
            with torch.no_grad(), learner.running("compile_head"):
                info["out"] = compiled(x)
            info["graphs"] = counters["stats"]["unique_graphs"] - graphs
            info["inductor"] = sum(counters["inductor"].values()) > inductor
    except CheckFailed:
        raise
    except Exception as err:
        return {"raised": raised(err)}
    return info


# The Inductor settings a torch.compile mode turns on ("max-autotune", "reduce-overhead"): none of them is on by default.
MODE_SETTINGS = ("max_autotune", "max_autotune_gemm", "max_autotune_pointwise", "coordinate_descent_tuning",
                 "triton.cudagraphs")


def _mode_start(entry) -> Any:
    """A setting's value when nothing set it: the environment's (TORCHINDUCTOR_...), else its default."""
    env = getattr(entry, "env_value_default", None)
    return entry.default if env is None or type(env) is object else env      # object(): torch's "not set" sentinel


def global_mode_settings(restore: bool = False) -> list[str]:
    """The mode settings turned on in Inductor's global config that are off by default (set by hand, as in
    `inductor_config.coordinate_descent_tuning = True`); with restore, each is put back to its default."""
    import torch._inductor.config as inductor_config

    table = getattr(inductor_config, "_config", None)
    if not isinstance(table, dict):
        return []
    found = []
    for k in MODE_SETTINGS:
        entry = table.get(k)
        if entry is None:
            continue
        with contextlib.suppress(Exception):
            start = _mode_start(entry)
            *parents, name = k.split(".")
            holder = inductor_config
            for part in parents:
                holder = getattr(holder, part)
            if getattr(holder, name) and not start:
                found.append(k)
                if restore:
                    setattr(holder, name, start)
    return found


def mode_options(compiled) -> list[str]:
    """The mode settings the compiled module turns on that Inductor's own config leaves off (empty when its backend
    keeps no Inductor config, or this torch cannot say)."""
    import torch._inductor.config as inductor_config

    try:
        config = compiled.get_compiler_config()
    except Exception:
        return []
    if not isinstance(config, dict):
        return []

    def setting(dotted: str):
        value = inductor_config
        for part in dotted.split("."):
            value = getattr(value, part, None)
        return value

    return [k for k in MODE_SETTINGS if config.get(k) and not setting(k)]


def compiled_problems(info: dict, want: torch.Tensor, about: str) -> list[str]:
    """Why compile_head's result is not a model compiled by torch.compile's default backend that matches eager within 1e-6."""
    if "raised" in info:
        return [f"compile_head, or the compiled model when called, {info['raised']}."]
    if info.get("in_place"):
        return ["compile_head compiled the model in place (model.compile()) and returned it: the lab's eager "
                "baseline is that same model, so every eager-vs-compiled comparison after it would time compiled "
                "against compiled. Return torch.compile(model), which leaves `model` eager."]
    if not info.get("optimized"):
        return [f"compile_head returned a {info.get('type')}; return the result of torch.compile(model) (the model "
                "itself, not its forward method)."]
    if not info.get("same"):
        return ["compile_head returned a compiled module, but not of the model it was given (compile `model` itself, "
                "not a copy)."]
    if info.get("global_mode"):
        return [f"Inductor's global config had {', '.join(info['global_mode'])} turned on when compile_head ran (set "
                "by hand, as inductor_config.coordinate_descent_tuning = True does): a setting of mode='max-autotune', "
                "not of the default mode, and every later compile in the notebook would use it. Compile with torch.compile's "
                "default mode and leave Inductor's settings as they are (the check put them back)."]
    if info.get("mode"):
        return [f"compile_head compiled with a mode other than the default ({', '.join(info['mode'])} turned on, as "
                "mode='max-autotune' or 'reduce-overhead' does): the exercise asks for torch.compile's default backend "
                "and default mode."]
    err = max_abs_diff(info.get("out"), want)
    if err > 1e-6:
        said = "is not a finite tensor of the right shape" if math.isinf(err) else f"differs from eager by {err:.2e}"
        return [f"on {about}, the compiled output {said} (must be within 1e-6)."]
    if info.get("graphs", 0) < 1:
        return ["Dynamo captured no graph when the compiled model was called: is the model really compiled?"]
    if not info.get("inductor", True):
        return ["the model was compiled, but not by Inductor: no Inductor compile ran when it was first called. Use "
                "torch.compile's default backend (not backend='eager' or 'aot_eager', which run no generated code)."]
    return []


@register("04.compile_match", points=0, exercise="A", title="torch.compile'd TinyHead matches eager within 1e-6",
          cases=[HeadCase("the lab's TinyHead", seed=4),
                 HeadCase("a TinyHead of other sizes (32 features, 100 outputs, batch 3)", seed=5, d=32, vocab=100, batch=3)])
def _compile_match(ctx: Context, cases: list[HeadCase]) -> str:
    for case in cases:
        fail_if(compiled_problems(ctx.probe(probe_compile, case), case.want(), case.about))
    return "compiled output matches eager within 1e-6"


# ---------------------------------------------------------------- B: dump
DEBUG_FILES = ("output_code.py", "ir_pre_fusion.txt", "ir_post_fusion.txt")


def odd_fn(t: torch.Tensor) -> torch.Tensor:
    """A function whose generated code is recognisable by its shape."""
    return torch.tanh(t) * 3.0


@dataclass(frozen=True)
class DumpCase:
    """A function to dump, the shape of its input, a number its generated code must contain, and the names of the
    kernels Inductor writes for it on this machine (None: capture them here, once)."""

    fn: Callable
    shape: tuple
    marker: str
    kernels: tuple | None = None

    def kernel_names(self) -> tuple:
        if self.kernels is not None:
            return self.kernels
        from helpers import inductor

        return tuple(k.name for k in inductor.capture(self.fn, torch.randn(*self.shape)).kernels)


# Debug folders already under debug_root when the dump starts: an older run's, and one another run wrote "later"
# (a newer time in its name and on disk). Returning the newest folder on disk, not this compile's, gets a decoy.
DECOY_RUNS = (("run_2000_01_01_00_00_00_000000-pid_1", -3600.0), ("run_2999_12_31_23_59_59_999999-pid_1", 3600.0))


def plant_run(root: Path, run: str, when: float) -> Path:
    """Another run's debug folder under `root`, with every debug file but none of this function's code, dated `when`."""
    folder = root / run / "torchinductor" / "model__0_inference_0.0"
    folder.mkdir(parents=True)
    for name in DEBUG_FILES:
        (folder / name).write_text("# another run's dump: not the function you were given\n")
    for path in [*folder.iterdir(), folder, folder.parent, folder.parent.parent]:
        os.utime(path, (when, when))
    return root / run


def plant_decoys(root: Path) -> None:
    """Other runs' debug folders under `root`, written before the dump starts."""
    for run, age in DECOY_RUNS:
        plant_run(root, run, time.time() + age)


@contextlib.contextmanager
def run_alongside(root: Path) -> Iterator[list]:
    """Another process's run writes its debug folder under `root` while this compile runs (yields [its run folder]):
    planted as Inductor opens this compile's debug folder, so after the dump began and before this compile wrote any
    file. A dump that takes the folders written since it started, earliest first, gets it; one that takes this compile's
    folder, or the newest of the folders that were not there before (by any of its times), does not. Should this
    compile's output_code.py not come out newer after all (a coarse file clock), the folder is taken away again."""
    from torch._inductor import debug

    context = getattr(debug, "DebugContext", None)
    enter, close = getattr(context, "__enter__", None), getattr(context, "__exit__", None)
    planted: list = []
    if enter is None or close is None:      # another torch: no run alongside, nothing is judged by it
        yield planted
        return

    def enter_and_plant(self):
        result = enter(self)
        folder = getattr(self, "_path", None)
        if not planted and folder and Path(folder).resolve().is_relative_to(root.resolve()):
            stamp = time.strftime("%Y_%m_%d_%H_%M_%S_000000")
            planted.append(plant_run(root, f"run_{stamp}-pid_{os.getpid() + 1}", time.time()))
        return result

    def close_and_check(self, *exc):
        folder = getattr(self, "_path", None)
        result = close(self, *exc)
        code = Path(folder or "") / "output_code.py"
        if planted and folder and code.is_file():
            mine, other = code.stat(), (planted[0] / "torchinductor").stat()
            if mine.st_mtime <= other.st_mtime or mine.st_ctime <= other.st_ctime:
                shutil.rmtree(planted.pop(), ignore_errors=True)
        return result

    context.__enter__, context.__exit__ = enter_and_plant, close_and_check
    try:
        yield planted
    finally:
        context.__enter__, context.__exit__ = enter, close


def warm_caches(fn: Callable, shape: tuple) -> None:
    """Compile fn once with every cache on, as an earlier run of the notebook did: a dump that neither resets Dynamo
    nor turns the FX graph cache off then gets a cache hit, and Inductor writes no debug files for it."""
    with torch.no_grad():
        torch.compile(fn)(torch.randn(*shape))


# The settings a dump turns on or off for its own compile (module, setting): each must be as it was once it returns,
# or every later compile of the notebook writes debug folders and misses the FX graph cache.
DUMP_SETTINGS = (("torch._inductor.config", "trace.enabled"), ("torch._inductor.config", "fx_graph_cache"),
                 ("torch._functorch.config", "enable_autograd_cache"), ("torch._dynamo.config", "debug_dir_root"))


def _setting(module: str, dotted: str) -> tuple[Any, Any]:
    """(the config object that holds the setting, its value)."""
    import importlib

    holder = importlib.import_module(module)
    *parents, name = dotted.split(".")
    for part in parents:
        holder = getattr(holder, part)
    return holder, getattr(holder, name)


def settings_left_changed(saved: dict) -> list[str]:
    """The dump settings whose value differs from `saved` ({(module, setting): value}); each is put back."""
    changed = []
    for (module, dotted), value in saved.items():
        holder, now = _setting(module, dotted)
        if now != value:
            changed.append(dotted)
            setattr(holder, dotted.rsplit(".", 1)[-1], value)
    return changed


def probe_debug_dump(learner: Learner, fn: Callable, shape: tuple) -> dict:
    """dump_inductor_debug on a folder holding other runs' dumps (one written while it runs), after fn was compiled once
    with the caches on: what it returned (or raised), the files there, the generated code, whether the other runs' dumps
    are still there, and the settings it left changed (put back here); then, under "again", the same for a second dump
    of fn to the same folder in this process (Dynamo keeps one run folder per process and folder)."""
    from helpers import inductor as package_inductor     # its capture() does part B's job: refused while B is checked
    from helpers.checks.own_work import refusing

    root = Path(tempfile.mkdtemp(prefix="debug-root-"))
    try:
        plant_decoys(root)
        warm_caches(fn, shape)
        saved = {key: _setting(*key)[1] for key in DUMP_SETTINGS}
        with refusing("04.debug_dump", {"helpers.inductor.capture": package_inductor.capture}):
            with run_alongside(root) as alongside:
                info = dump_facts(learner, fn, shape, root, saved)
            if "raised" not in info and info.get("folder") is not None:
                info["again"] = dump_facts(learner, fn, shape, root, saved)
        others = [root / run for run, _ in DECOY_RUNS] + alongside
        info["others_kept"] = all(run.is_dir() for run in others)
        return info
    finally:
        shutil.rmtree(root, ignore_errors=True)


def dump_facts(learner: Learner, fn: Callable, shape: tuple, root: Path, saved: dict) -> dict:
    """One call of dump_inductor_debug: what it returned (or raised), the files there, the generated code, the settings
    it left changed (put back here)."""
    written = set(root.rglob("output_code.py"))
    wrote = lambda: bool(set(root.rglob("output_code.py")) - written)      # did this call's compile write any debug file?
    try:
        folder = learner.call("dump_inductor_debug", fn, (torch.randn(*shape),), root)
    except CheckFailed:
        raise
    except Exception as err:
        return {"raised": raised(err), "wrote": wrote()}
    finally:
        left = settings_left_changed(saved)
    if folder is None:
        return {"folder": None, "wrote": wrote()}
    folder = Path(folder)
    info = {"folder": str(folder), "is_dir": folder.is_dir(), "under_root": str(folder.resolve()).startswith(str(root.resolve())),
            "settings_left": left, "wrote": wrote()}
    if folder.is_dir():
        info["files"] = sorted(p.name for p in folder.iterdir() if p.is_file())
        code = folder / "output_code.py"
        info["output_code"] = code.read_text(errors="replace")[:500_000] if code.is_file() else None
        info["dumps_below"] = not code.is_file() and any(folder.glob("*/**/output_code.py"))
    return info


CACHE_HINT = ("the function had been compiled before with the caches on, so a compile that is a cache hit writes no debug "
              "files: call torch._dynamo.reset() and turn the FX graph cache off (inductor_config.fx_graph_cache = False) "
              "while dumping")


def debug_folder_problems(info: dict, marker: str, kernels: tuple = ()) -> list[str]:
    """Why the returned folder is not a fresh Inductor debug folder of the function given."""
    if "raised" in info:
        return [f"dump_inductor_debug {info['raised']}. Inductor writes debug files only when it really compiles: "
                f"call the compiled function (compiling is lazy), with the trace on; and {CACHE_HINT}."]
    if info.get("folder") is None:
        return ["dump_inductor_debug returned None; return the folder that holds output_code.py."]
    if not info.get("is_dir"):
        return [f"dump_inductor_debug returned {Path(info['folder']).name!r}, which is not a folder; return the Inductor "
                f"debug folder (the one with {', '.join(DEBUG_FILES)})."]
    if not info.get("under_root"):
        return ["the folder returned is not under the debug_root it was given."]
    missing = [f for f in DEBUG_FILES if f not in info.get("files", [])]
    if missing and info.get("dumps_below"):
        return ["the folder returned holds debug folders further down, not the debug files: return the folder that holds "
                "output_code.py itself (run_*/torchinductor/<graph>)."]
    if missing:
        hint = f" ({CACHE_HINT})" if "ir_post_fusion.txt" in missing else ""
        return [f"the folder lacks {', '.join(missing)}{hint}."]
    code = info.get("output_code") or ""
    if marker not in code or (kernels and not any(name in code for name in kernels)):
        return ["output_code.py in the folder returned is not the code of the function you were given: return the "
                "folder of THIS compile, not the newest folder on disk, nor the first one written since the dump began "
                "(debug_root held other runs' folders: an older one, a newer one, and one another run wrote while "
                "this compile ran)."]
    if not info.get("others_kept", True):
        return ["dump_inductor_debug deleted other runs' debug folders under debug_root: they are not yours to remove. "
                "Leave them, and tell this compile's folder apart from them (note the folders there before compiling)."]
    if info.get("settings_left"):
        return [f"dump_inductor_debug left {', '.join(info['settings_left'])} changed after it returned: every later "
                "compile in the notebook would write debug folders or miss the cache. Change the settings only for "
                "the dump and restore them (inductor_config.patch(...) and the other configs' patch, as context "
                "managers)."]
    again = info.get("again")
    if again is None:
        return []
    said = ["returned the first call's folder again"] if again.get("folder") == info["folder"] else \
        [again["raised"]] if "raised" in again else [f"failed: {p}" for p in debug_folder_problems(again, marker, kernels)]
    if said and again.get("wrote") is False and again.get("folder") != info["folder"]:
        return [f"dump_inductor_debug is right once, but when it is called again with the same function in the same "
                f"process, that second call compiled nothing: no debug file was written (it {said[0].rstrip('.')}). "
                "Dynamo still held what it compiled on the first call (for the function, or for a wrapper of it whose "
                "code is the same on every call), so Inductor never ran. Start every dump from scratch: "
                "torch._dynamo.reset() before compiling."]
    if said:
        return [f"dump_inductor_debug is right once, but not when it is called again with the same debug_root in the "
                f"same process (the second call {said[0].rstrip('.')}). Dynamo keeps one run_* folder per process and "
                "debug_root, so a later compile's debug folder is a new torchinductor/<graph> folder inside a run folder "
                "that was already there: tell this compile's folder apart from the graph folders there before it, not "
                "the run folders."]
    return []


# Seconds the grader waits for one dump probe: three compiles with the caches off (a warm one, the dump, a second
# dump), each of a CPU kernel (a C++ toolchain probe first in a process). The notebook's own check took 48-62 s on an
# H100 host (torch 2.11, whose first CPU compile probes the vector ISA in subprocesses that import torch) with the
# machine otherwise idle; under the load of several grading jobs the grader's default 60 s was sometimes too short,
# and the honest dump lost its points as "ran for more than 60 s".
DUMP_PROBE_TIMEOUT = 240


@register("04.debug_dump", points=3, exercise="B", title="Inductor's debug files are dumped for a fresh compile",
          cases=[DumpCase(odd_fn, (7, 13), "91")])    # 7*13 elements appear in the loop bound
def _debug_dump(ctx: Context, cases: list[DumpCase]) -> str:
    for case in cases:
        fail_if(debug_folder_problems(ctx.probe(probe_debug_dump, case.fn, case.shape, timeout=DUMP_PROBE_TIMEOUT),
                                      case.marker, case.kernel_names()))
    return "output_code.py, ir_pre_fusion.txt and ir_post_fusion.txt written for the function given"


# ---------------------------------------------------------------- C: find the kernel
CAPTURE = None   # a case's kernels: None means the notebook's own capture (`code`)


@dataclass(frozen=True)
class KernelsCase:
    """A list of parsed kernels (None: the notebook's capture) and the name of its softmax kernel (None: by the rule)."""

    about: str
    kernels: list | str | None = CAPTURE     # or ONLINE: a GPU's kernels, made where the probe runs
    want: str | None = None


def fake_source(name: str, kind: str, ops: list, reductions: list) -> str:
    """A stand-in kernel's source, in its language's shape: Triton's signature holds `tl.constexpr` (whose letters hold
    "exp"), so a search of the source text for "exp" finds every Triton kernel, whatever it computes."""
    said = f"{', '.join(ops)}; reductions: {', '.join(reductions) or 'none'}"
    if kind == "cpp":
        return f"// {name}: {said}\nextern \"C\" void kernel(const float* in_ptr0, float* out_ptr0)\n{{\n}}\n"
    return (f"# {name}: {said}\n@triton.jit\ndef {name}(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, "
            "R0_BLOCK : tl.constexpr):\n    xoffset = tl.program_id(0) * XBLOCK\n")


# The body of the look-alike layer norm: longer than any real softmax kernel's source (the page's "pick the largest file"
# finds it, not the softmax).
LONG_BODY = "".join(f"    tmp{i + 1} = tmp{i} * rstd + bias_{i % 7}\n" for i in range(2500))


def look_alikes() -> list:
    """Kernels that look like the softmax by their name, their place or their size, but do not both reduce and
    exponentiate. The second is Triton written for a CPU (Inductor's cpu_backend="triton"): its file is kernel.py, and
    its source is the longest of any list here. The fifth, a training graph's log-softmax backward, reduces and holds
    "exp" and "softmax" in its ops' names (expand, _log_softmax_backward_data), but not the op exp: a search of the
    names' letters finds it."""
    from helpers.inductor import Kernel

    def fake(name, kind, ops, reductions, device=None, body=""):
        return Kernel(name=name, kind=kind, device=device or ("cpu" if kind == "cpp" else "cuda"), aten_ops=ops,
                      aten_ops_source="kernel_name", loads=[], stores=[], reductions=reductions,
                      source=fake_source(name, kind, ops, reductions) + body)

    return [fake("cpp_fused__softmax_exp_0", "cpp", ["exp", "mul"], []),
            fake("triton_per_fused__softmax_layer_norm_1", "persistent_reduction",
                 ["var_mean", "sub", "add", "rsqrt", "mul", "amax", "sum", "div"], ["welford", "max", "sum"], "cpu",
                 LONG_BODY),
            fake("triton_red_fused__softmax_sum_2", "reduction", ["sum"], ["sum"]),
            fake("triton_poi_fused__softmax_exp_3", "pointwise", ["sub", "exp", "div"], []),
            fake("cpp_fused__log_softmax_backward_data_expand_nll_loss_backward_4", "cpp",
                 ["_log_softmax_backward_data", "eq", "expand", "nll_loss_backward", "view"], ["sum"])]


def old_cpp_kernel():
    """A C++ kernel as torch 2.0 named it (kernel_cpp_0: no "cpp_" in front, no fused ops in the name)."""
    from helpers.inductor import Kernel

    return Kernel(name="kernel_cpp_0", kind="cpp", device="cpu", aten_ops=["amax", "sub", "exp", "sum", "div"],
                  aten_ops_source="source_comments", loads=[], stores=[], reductions=["max", "sum"],
                  source=fake_source("kernel_cpp_0", "cpp", ["amax", "sub", "exp", "sum", "div"], ["max", "sum"]))


def template_kernel():
    """A Triton kernel of the kind "template" (a matmul template, as max-autotune writes): Triton, so kernel.py."""
    from helpers.inductor import Kernel

    return Kernel(name="triton_tem_fused_addmm_0", kind="template", device="cuda", aten_ops=["addmm"],
                  aten_ops_source="kernel_name", loads=[], stores=[], reductions=[],
                  source=fake_source("triton_tem_fused_addmm_0", "template", ["addmm"], []))


ONLINE = "online"   # a case's kernels: a GPU's, whose softmax is an online softmax (no amax, no separate max and sum ops)


def online_softmax_kernels() -> list:
    """A GPU capture of a small transformer block as a recent torch writes it: the softmax kernel computes an online
    softmax (prepare_softmax_online), so its ops are not the CPU's amax, sub, exp, sum, div, and its one reduction
    (online_softmax_reduce) is not a max and a sum."""
    from helpers.inductor import Kernel

    def fake(name, kind, ops, reductions):
        return Kernel(name=name, kind=kind, device="cuda", aten_ops=ops, aten_ops_source="kernel_name", loads=[],
                      stores=[], reductions=reductions, source=fake_source(name, kind, ops, reductions))

    return [fake("triton_poi_fused_embedding_0", "pointwise", ["embedding"], []),
            fake("triton_per_fused_native_layer_norm_1", "persistent_reduction", ["var_mean", "sub", "rsqrt", "mul", "add"],
                 ["welford"]),
            fake("triton_per_fused__softmax_div_exp_prepare_softmax_online_sub_2", "persistent_reduction",
                 ["prepare_softmax_online", "sub", "exp", "_softmax", "div"], ["online_softmax"]),
            fake("triton_poi_fused_gelu_3", "pointwise", ["mul", "erf", "add"], [])]


def decoys(kernels: list) -> tuple[list, dict]:
    """The kernels renamed (their names no longer say what they fuse) and shuffled, between look-alikes named like a
    softmax, one at each end; and {new name: the kernel's own name}."""
    renamed = [dataclasses.replace(k, name=f"kernel_{i}") for i, k in enumerate(kernels)]
    names = {k.name: orig.name for k, orig in zip(renamed, kernels)}
    random.Random(len(kernels)).shuffle(renamed)
    first, big, red, last, expand = look_alikes()
    return [first, expand, big, *renamed, red, last], names


def found_name(got: Any, names: dict) -> str:
    """What find_softmax_kernel returned, as the name of the kernel it is (or what it is instead)."""
    name = getattr(got, "name", None)
    if isinstance(name, str):
        return names.get(name, name)
    return f"a {type(got).__name__}" + (f" ({str(got)[:60]!r})" if isinstance(got, str) else "")


def probe_find_softmax(learner: Learner, kernels: list | None) -> dict:
    """find_softmax_kernel on the kernels (None: the notebook's capture) and on them renamed, shuffled and mixed with
    look-alikes; save_kernel on each kernel and on a Triton look-alike.

    Nothing of the answer travels here: the grader knows which kernel it expects, the probe reports what happened."""
    kernels = list(learner.value("code").kernels) if kernels is None else \
        online_softmax_kernels() if kernels == ONLINE else list(kernels)
    info = {"found": [], "saved": {}, "softmax_by_rule": [k.name for k in kernels if kernel_is_softmax(k)]}
    mixed, names = decoys(kernels)
    for ks in (kernels, mixed):
        try:
            got = learner.call("find_softmax_kernel", ks)
        except CheckFailed:
            raise
        except Exception as err:
            info["found"].append(raised(err))
            continue
        info["found"].append(found_name(got, names) if got is None or not hasattr(got, "name") or
                             any(got is k for k in ks) else {"not_in_list": found_name(got, names)})
    for kernel in [*kernels, look_alikes()[1], template_kernel(), old_cpp_kernel()]:
        folder = Path(tempfile.mkdtemp(prefix="save-kernel-"))
        for stale in ("kernel.cpp", "kernel.py"):          # an earlier run's kernel files: saving replaces them
            (folder / stale).write_text("// an earlier run's kernel, not this one\n")
        try:
            path = learner.call("save_kernel", kernel, folder)
            entry = {"kind": kernel.kind}
            if not isinstance(path, (str, Path)):
                entry["returned"] = type(path).__name__
            else:
                path = Path(path)
                entry.update(name=path.name, exists=path.is_file(), folder=path.is_dir(),
                             in_folder=path.parent.resolve() == folder.resolve(), matches=path.is_file() and path.read_text() == kernel.source)
            info["saved"][kernel.name] = entry
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return info


def find_problems(info: dict, want: str | None, about: str, reveal: bool) -> list[str]:
    """Whether find_softmax_kernel found `want` (None: the one kernel the rule picks) in both lists and save_kernel
    wrote each kernel's exact source."""
    if want is None:
        if len(info["softmax_by_rule"]) != 1:
            return [f"{about} should hold one softmax kernel but holds {len(info['softmax_by_rule'])}; re-run the capture cell."]
        want = info["softmax_by_rule"][0]
    rule = ("the kernel that both reduces and exponentiates, found by what it does, not by its name, its place or its "
            "size, whatever its reductions are (a max and a sum, or one online softmax)")
    for got, order in zip(info["found"], ("as given", "renamed and shuffled among look-alike kernels named like a softmax")):
        if isinstance(got, dict):
            return [f"on {about} ({order}), find_softmax_kernel returned a kernel that is not one of the list it was "
                    "given (one kept from an earlier call?): search the kernels it is given, every time."]
        if got.startswith("raised "):
            return [f"on {about} ({order}), find_softmax_kernel {got} (return {rule})."]
        if got.startswith("a "):
            return [f"on {about} ({order}), find_softmax_kernel returned {got}; return the Kernel itself."]
        if got != want:
            said = f"returned {got!r}; expected {want!r}" if reveal else "returned another kernel"
            return [f"on {about} ({order}), find_softmax_kernel {said} ({rule})."]
    for name, saved in info["saved"].items():
        ext = ".cpp" if saved.get("kind") == "cpp" else ".py"
        kind = f"a {saved.get('kind')} kernel" + ("" if ext == ".cpp" else " (Triton)")
        if "returned" in saved:
            return [f"save_kernel returned a {saved['returned']}; return the path of the file it wrote."]
        if saved.get("folder"):
            return ["save_kernel returned a folder, not the path of the file it wrote (out_dir/kernel.cpp or "
                    "out_dir/kernel.py): return the file's path."]
        if saved.get("name") != "kernel" + ext:
            named = "" if name.startswith("cpp" if ext == ".cpp" else "triton") else \
                f" The kernel was named {name!r}: decide by its kind, not by its name (older torch versions name C++ " \
                "kernels kernel_cpp_0)."
            return [f"save_kernel wrote {saved.get('name')!r} for {kind}; a C++ kernel (kind 'cpp') goes to kernel.cpp, "
                    "every Triton kind to kernel.py, whatever the device (Inductor writes Triton for CPUs too)." + named]
        if not saved.get("exists") or not saved.get("in_folder"):
            return ["save_kernel's file is not in the folder it was given: write it to out_dir (the argument) and return "
                    "its path."]
        if not saved.get("matches"):
            return ["save_kernel's file is not exactly the kernel's source: write kernel.source as it is, replacing "
                    "whatever a kernel file of that name held before (an earlier run's kernel)."]
    return []


ONLINE_CASE = KernelsCase("a GPU's kernels (an online softmax)", ONLINE)


@register("04.find_softmax", points=2, exercise="C", title="find the fused softmax kernel and save it",
          cases=[KernelsCase("your capture"), ONLINE_CASE])
def _find_softmax(ctx: Context, cases: list[KernelsCase]) -> str:
    cases = cases if ONLINE_CASE in cases else [*cases, ONLINE_CASE]    # whatever the cases, a GPU's online softmax too
    for case in cases:
        fail_if(find_problems(ctx.probe(probe_find_softmax, case.kernels), case.want, case.about, ctx.reveal))
    return f"found the softmax kernel in {len(cases)} list(s) of kernels and saved its source"


# ---------------------------------------------------------------- D: annotation
def heading_key(title: str) -> str:
    """A heading as the checks compare it: without numbering ("1.", "2)", "D:", "Part 3 -"), case, markup or punctuation."""
    t = re.sub(r"[*_`]", "", title).strip().lower()
    t = re.sub(r"^(?:(?:part|section|step)\s+)?(?:\d+|[a-z]|[ivx]+)\s*[.):\-–—]\s*", "", t)
    t = re.sub(r"^\(\s*(?:\d+|[a-z])\s*\)\s*", "", t)
    return " ".join(re.sub(r"(?<=\w\w)s$", "", w) for w in re.sub(r"[^\w\s]", " ", t).split())   # "Reduction(s)"


def sections(text: str) -> dict[str, str]:
    """Markdown headings (any level, # to ######, or a line underlined with === or ---; in a text with a title at most,
    lines that are wholly bold) → the text under them, keyed by `heading_key`."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")                                          # CRLF line ends
    text = re.sub(r"^([^\n|#>`-][^\n|]*)\n(?:={2,}|-{2,})[ \t]*$", r"## \1", text, flags=re.M)     # Setext headings
    heading = re.compile(r"^[ ]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)
    if len(heading.findall(text)) <= 1:   # a title at most: lines that are wholly bold ("**Fused ATen ops**") stand in
        text = re.sub(r"^[ ]{0,3}(?:\*\*|__)([^*_\n]+?)(?:\*\*|__)[ \t]*:?[ \t]*$", r"## \1", text, flags=re.M)
    parts = heading.split(text)
    found: dict[str, str] = {}
    for i in range(1, len(parts) - 1, 2):
        found.setdefault(heading_key(parts[i]), parts[i + 1])
    return found


NEGATION = r"\b(?:not|never|no|nothing|without|avoid\w*|skip\w*)\b|n t\b"      # in a heading_key, "isn't" is "isn t"
# A section's title in other words, a question most often ("## Which ATen ops does the kernel fuse?", "## When does
# compiling pay?"), as regexes over heading_key's words; a heading that names two sections names neither.
TITLE_WORDS = {
    "compile match": r"\b(?:match|agree|correct|accura|error|numeric|toleranc)|(?=.*\b(?:compil|eager))"
                     r"(?=.*\b(?:equal|identical|close|same|differ|change))",
    "kernel": r"\bcode\b|\bgenerat",
    "profile": r"^(?!.*\b(?:when|why|pay|paid|worth)\b).*\b(?:profil|sweep|timing|benchmark|measur|latenc|speed|"
               r"runtime|how fast|how long)",
    "when compiling pay": r"(?=.*\bcompil)(?=.*\b(?:pay|paid|worth|benefit|help|profit|when|why|should))",
    "fused aten op": rf"^(?!.*(?:{NEGATION})).*\b(?:fus|aten\b|op\b|operat)",
    "input read": rf"^(?!.*(?:{NEGATION})).*\b(?:input|read|load)",
    "output written": rf"^(?!.*(?:{NEGATION})).*\b(?:output|writ|wrote|stor)",
    "reduction": r"\breduc",
    "what is not there": rf"\b(?:missing|absent|lacking)\b|(?=.*(?:{NEGATION}))(?=.*\b(?:there|stor|writ|wrote|buffer|"
                         r"memory|materiali|allocat|kept|saved|exist|tensor|intermediate|appear|present|kernel|in\b))",
}
HEADING_HINT = ("open each section with a heading that names it: its title, as the exercise gives it, or a question that "
                "names that section and no other.")


def names_title(key: str, title_key: str) -> bool:
    """Whether a heading (its heading_key) names the section: its title, or the title in other words (TITLE_WORDS)."""
    return f" {title_key} " in f" {key} " or re.search(TITLE_WORDS.get(title_key, r"(?!)"), key) is not None


def document_title(text: str) -> str | None:
    """The heading_key of a text's title: a first heading of a level above every other heading's ("# Annotation of
    the fused kernel" over "## ..." sections), or None."""
    levels = re.findall(r"^[ ]{0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$", text, re.M)
    if len(levels) > 1 and len(levels[0][0]) < min(len(marks) for marks, _ in levels[1:]):
        return heading_key(levels[0][1])
    return None


def named_sections(text: str, titles: tuple, clues: dict | None = None) -> tuple[dict[str, str], list[str]]:
    """({title in lower case: its text}, [the titles not found]). A heading matches a title that it is, that it starts
    with ("## Reductions (max and sum)"), that it holds as words ("## The fused ATen ops"), or, failing those, that it
    alone of the titles names in other words ("## Which reductions does the kernel perform?"). A title still missing
    then takes the one heading that names no title and whose text is clearly that section's (`clues`: {title: a test
    of a section's text}): "## Results" over the sweep's table is the profile."""
    found, got, missing = sections(text), {}, []
    keys, title = [heading_key(t) for t in titles], document_title(text)
    used = set()
    for name, key in zip(titles, keys):
        match = next((k for k in found if k == key), None) or \
            next((k for k in found if k.startswith(key + " ")), None) or \
            next((k for k in found if f" {key} " in f" {k} "), None) or \
            next((k for k in found if k != title and names_title(k, key)
                  and not any(names_title(k, other) for other in keys if other != key)), None)
        if match is None:
            missing.append(name)
        else:
            got[name.lower()] = found[match]
            used.add(match)
    spare = [k for k in found if k not in used and k != title and found[k].strip()
             and not any(names_title(k, key) for key in keys)]
    for name in list(missing):
        clue = (clues or {}).get(name)
        fits = [k for k in spare if clue is not None and clue(found[k])]
        # the one spare heading whose text fits, and fits no other missing title (a text that fits two is no clue)
        if len(fits) == 1 and not any(other != name and (clues or {}).get(other) and clues[other](found[fits[0]])
                                      for other in missing):
            got[name.lower()] = found[fits[0]]
            spare.remove(fits[0])
            missing.remove(name)
    return got, missing


# A negation and the storing it denies, in one clause ("Nothing: exp(x - max) is written" denies nothing).
# ("… stays in registers", "… lives in the one-row scratch array local_buffer_data_0" say where it is kept instead.)
NOT_STORED = re.compile(r"(?:\b(?:no|not|never|without|nothing|avoid\w*|skip\w*|instead of|rather than)\b|n['’]t\b)"
                        r"[^.:;—–]{0,80}?"
                        r"\b(buffer|memory|stor\w*|writ\w*|materiali[sz]\w*|allocat\w*|sav\w*|round[- ]trip\w*|"
                        r"dram|hbm|global|tensor|creat\w*|spill\w*|emit\w*|persist\w*|v?ram|off[- ]chip)\b"
                        r"|\b(stays?|staying|kept|keeps?|lives?|living|held|holds?|remains?|resides?|confined|"
                        r"exists?\s+only|only\s+exists?)\b[^.]{0,40}?"
                        r"\b(registers?|on[- ]chip|(?:in|inside|within) the kernel|locally|scratch\w*|local_buffer\w*|"
                        r"sram|shared memory)\b"
                        # "… never leave the core's cache", "… never leaves the registers"
                        r"|\b(?:never|not|no longer)\s+(leaves?|leaving|escapes?)\s+(?:the\s+)?(?:\w+['’]s\s+)?"
                        r"(?:cache|registers?|chip|core|kernel)\b", re.I)
# "… is not kept in the scratch array", "… doesn't stay in registers": where it is kept, denied.
KEPT_DENIED = re.compile(r"\b(?:not|never|no longer)\s+(?:\w+\s+){0,2}?(?:stays?|staying|kept|keeps?|lives?|living|"
                         r"held|holds?|remains?|resides?)\b|n['’]t\s+(?:\w+\s+){0,2}?(?:stay|keep|live|hold|remain|"
                         r"reside)\b", re.I)


def denies_storing(sentence: str) -> bool:
    """Whether a sentence says something never goes to memory, or says where it is kept instead (and does not deny
    that)."""
    return any(m.group(1) or not KEPT_DENIED.search(sentence) for m in NOT_STORED.finditer(sentence))


EXP_WORDS = re.compile(r"\bexp\b|exp\(|e\^|exponen\w*|x\s*[-−]\s*max|shifted|numerator|intermediate", re.I)


# The words that name exp(x - max) itself ("intermediate" alone may name another tensor), and those that name the logits,
# the library addmm's output, which is written to memory (the kernel reads it through its input pointer).
EXP_ITSELF = re.compile(r"\bexp\b|exp\(|e\^|exponen\w*|x\s*[-−]\s*max|z\s*[-−]\s*max|shifted|numerator", re.I)
LOGITS = re.compile(r"\blogits?\b|\baddmm\b|\bmatmul\b|\bmm\b|\blinear(?:'s)?\s+(?:layer'?s?\s+)?output|\bx\s*@\s*w", re.I)


def sentences(text: str) -> list[str]:
    """A text's sentences: a line wrapped in the middle of a sentence stays one sentence; a list item, a table row and a
    blank line start a new one."""
    return re.split(r"(?<=[.!?])\s+|\n(?=[ \t]*(?:[-*+•|]|\d+[.)][ \t]))|\n[ \t]*\n", text)


def says_logits_not_stored(text: str) -> bool:
    """Whether a sentence says the logits (the addmm's output) never go to memory while the text never names
    exp(x - max) at all: what it says is not there is the logits, not the exponentials."""
    return not EXP_ITSELF.search(text) and any(denies_storing(s) and LOGITS.search(s)
                                               for s in sentences(text))


def says_not_stored(text: str) -> bool:
    """Whether a paragraph names the exp(x - max) intermediate and one of its sentences says it never goes to memory,
    in any words ("The exponentials … Those values never reach main memory")."""
    for paragraph in re.split(r"\n\s*\n", text):
        if EXP_WORDS.search(paragraph) and any(denies_storing(sentence)
                                               for sentence in sentences(paragraph)):
            return True
    return False


def code_quotes(text: str) -> list[str]:
    """The code a text quotes: each `inline span`, each fenced block (``` or ~~~) and each line of it, and each line of
    an indented code block."""
    fence = r"(?:```|~~~)[^\n]*\n(.*?)(?:```|~~~)"
    blocks = re.findall(fence, text, re.S)
    rest = re.sub(fence, " ", text, flags=re.S)
    indented = re.findall(r"^(?: {4}|\t)(.+)$", rest, re.M)
    inline = re.findall(r"`([^`]+)`", rest)
    return inline + blocks + [line for b in blocks for line in b.splitlines()] + indented


def index_quoted(index: str, quote: str) -> bool:
    """Whether a quote gives an index expression, in any order of its terms and factors (`600L*x0 + x1`, `x0*600 + x1`
    for `x1 + 600L*x0`), alone or inside the load that uses it."""
    terms = lambda e: {"*".join(sorted(t.split("*"))) for t in _squash(e).split("+") if t}
    return _squash(index) in _squash(quote) or terms(index) <= terms(quote)


def _squash(s: str) -> str:
    """Index expressions compared without spaces, casts and L suffixes."""
    s = re.sub(r"static_cast<[^>]+>", "", s)
    s = re.sub(r"(\d+)L\b", r"\1", s)
    return re.sub(r"[\s()]", "", s)


def _mentions(body: str, op: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(op)}(?!\w)", body) is not None


LOOP_VAR = r"(?:[xyz]\d+|r\d*_\d+|r\d+)"          # x0, x1, r0_1: the loop variables of C++ and Triton kernels
# The words for what a loop variable walks: a row of the batch, or a column (one logit, element or class of a row).
ROW_WORDS = r"rows?|batch(?:es)?(?:\s+(?:rows?|entries|items|elements))?|samples?|examples?|inputs?\s+rows?"
A_ROW = r"(?:a|the|each|every|its|one|that|this)\s+(?:single\s+)?row"          # one row, singular ("that row")
COLUMN_WORDS = (r"columns?|cols?|logits?(?:\s+of\s+(?:a|the|each|its|one)\s+row)?|class(?:es)?|"
                r"vocab(?:ulary)?(?:\s+entries)?|features?|"
                rf"(?:elements?|entries|positions?|offsets?|values?|outputs?|scores?|probabilities|items?)\s+"
                rf"(?:of|in|within|inside|along)\s+{A_ROW}\b(?!s)|"
                r"(?:reduction|inner|softmax)\s+(?:dimension|dim|axis)")
ROLE = rf"((?:{ROW_WORDS})(?!['’]s\b)|(?:{COLUMN_WORDS}))"      # "each row's columns" is not the rows
# Along one row, a row's elements: what the column variable walks ("x1 moves along that row", "x1 walks each row's 600
# columns"), though the word "row" is in it.
ALONG_A_ROW = (rf"(?:along|within|inside|across)\s+{A_ROW}\b(?![s'’])|"
               rf"{A_ROW}['’]s\s+(?:\d[\d,]*\s+)?(?:columns?|elements?|entries|values?|logits?|positions?)")
# After a loop variable: a parenthesis or a range ("x1 (0..599)", "x0 ∈ [0, 2)"), then a verb and a preposition, or the
# preposition alone ("x1 over the columns"), or neither ("x1 the column").
# ("(x0) runs over the rows": a variable in parentheses, its role after them)
VAR_TAIL = r"\)?\s*(?:\([^)]*\)\s*)?(?:(?:∈|in)\s*[\[(][^\])]*[\])]\s*)?,?\s*"
VERBS = (r"walks|indexes|iterates|runs|loops|ranges|steps|goes|moves|counts|enumerates|covers|selects|picks|visits|scans|"
         r"sweeps|chooses|addresses|handles|processes|denotes|represents|tracks|identifies|traverses|spans|marks|"
         r"corresponds\s+to|maps\s+to|stands\s+for|refers\s+to|is|for|=|->|→|:|\||—|–")
PREPOSITIONS = r"over|through|along|across|down|up|within|inside"
ROLE_SAID = [                                      # the ways an annotation says which variable walks what: (regex, var first?)
    # a role word and its variable side by side, as a label ("row x0, column x1"): before "x0, column" reads as x0's
    (rf"\b{ROLE}\s+\(?({LOOP_VAR})\b(?!\s*[,;]?\s*(?:walks|indexes|iterates|runs|loops|ranges|steps|goes|moves|is)\b)", False),
    (rf"\b{ROLE}\s+(?:index|variable|loop(?:\s+variable)?|counter|dimension)\s*(?:is\s+|[:=]\s*)?\(?({LOOP_VAR})\b", False),
    (rf"\b{ROLE}\s+(?:(?:are|is)\s+)?(?:(?:walked|indexed|iterated|enumerated|selected|picked|counted|traversed|handled|"
     rf"processed|covered|chosen|addressed|visited|scanned)"
     rf"(?:\s+over)?\s+)?by\s+({LOOP_VAR})\b", False),
    (rf"\b({LOOP_VAR})\b{VAR_TAIL}(?:(?:{VERBS})\s+)?({ALONG_A_ROW})", True),
    (rf"\b({LOOP_VAR})\b{VAR_TAIL}(?:(?:{VERBS})(?:\s+(?:{PREPOSITIONS}))?\s+|(?:{PREPOSITIONS})\s+)?"
     rf"(?:(?:which|one|each)\s+of\s+)?(?:(?:the|a|one|each|every|its|all|which)\s+)?(?:\d[\d,]*\s+)?"
     rf"(?:(?:outer|inner|outermost|innermost|first|second|last)\s+\(?)?{ROLE}", True),
    # "x0 moves from row to row", "x1 steps from element to element"
    (rf"\b({LOOP_VAR})\b{VAR_TAIL}(?:(?:{VERBS})\s+)?from\s+((?:{ROW_WORDS})|(?:{COLUMN_WORDS})|elements?|logits?|"
     rf"entr(?:y|ies)|positions?)\s+to\s+", True),
    # "Rows: x0. Columns: x1.", "rows → x0"
    (rf"\b{ROLE}\s*(?::|=|→|->|—|–|\|)\s*\(?({LOOP_VAR})\b", False),
]
REDUCTION_CODE = re.compile(r"max_propagate_nan|min_propagate_nan|vec_reduce_all|_masked_reduce|\btmp_acc\d+|\b[mM]ax2\b|"
                            r"\bmin2\b|\btl\.(?:max|min|sum|reduce|argmax|argmin)\b|online_softmax|welford|"
                            r"at::vec::(?:maximum|minimum)")


def _loop_vars(index: str) -> list[str]:
    return re.findall(rf"\b{LOOP_VAR}\b", _squash(index))


def whole_tensor(accesses: list[dict], prefix: str = "") -> list[dict]:
    """The accesses of whole tensors (the widest index, over every loop variable) of buffers named `prefix`…, not the
    per-row scalars (the max and the sum) a softmax kernel also loads and stores."""
    mine = [a for a in accesses if a["index"] and a["buffer"].startswith(prefix)] or [a for a in accesses if a["index"]]
    width = max((len(set(_loop_vars(a["index"]))) for a in mine), default=0)
    return [a for a in mine if len(set(_loop_vars(a["index"]))) == width]


def index_roles(index: str) -> dict[str, str]:
    """In a row-major index such as `x1 + 600L*x0`, the variable with a stride walks the rows and the one without the
    columns: {"x0": "rows", "x1": "columns"} (empty unless there is one of each)."""
    roles = {}
    for term in _squash(index).split("+"):
        names = _loop_vars(term)
        if len(names) == 1:
            roles[names[0]] = "rows" if "*" in term else "columns"
    return roles if sorted(roles.values()) == ["columns", "rows"] else {}


# "x0 and x1 walk the rows and the columns, respectively", "rows and columns are indexed by x0 and x1 respectively"
TWO = r"(?:\s*\([^)]*\))?\s*(?:,|\band\b|&|/)\s*(?:the\s+)?(?:\d[\d,]*\s+)?"     # "rows (step 600) and the 600 columns"
RESPECTIVELY = (re.compile(rf"\b({LOOP_VAR})\b{TWO}({LOOP_VAR})\b[^.;]{{0,40}}?\b(?:the\s+)?{ROLE}{TWO}{ROLE}"
                           rf"[^.;]{{0,40}}?\brespectively\b", re.I),
                re.compile(rf"\b{ROLE}{TWO}{ROLE}[^.;]{{0,40}}?\b({LOOP_VAR})\b{TWO}({LOOP_VAR})\b[^.;]{{0,20}}?"
                           rf"\brespectively\b", re.I))


def stated_roles(text: str) -> dict[str, str]:
    """Which loop variable the text says walks the rows and which the columns ("x0 walks the rows", "the column index
    is x1", "x0 and x1 walk the rows and the columns, respectively"), read from the plain text (a quoted index
    expression is not a statement)."""
    text = re.sub(r"`\s*(\w+)\s*`", r"\1", text)
    text = re.sub(r"`[^`]*`", " ", text)
    said: dict[str, str] = {}
    role = lambda word: "rows" if re.fullmatch(ROW_WORDS, word.lower().strip()) else "columns"
    for k, pattern in enumerate(RESPECTIVELY):
        for m in pattern.finditer(text):
            pairs = zip(m.group(1, 2), m.group(3, 4)) if k == 0 else zip(m.group(3, 4), m.group(1, 2))
            for var, word in pairs:
                said.setdefault(var, role(word))
        text = pattern.sub(" ", text)
    for pattern, var_first in ROLE_SAID:
        for m in re.finditer(pattern, text, re.I):
            var, role = (m.group(1), m.group(2)) if var_first else (m.group(2), m.group(1))
            said.setdefault(var, "rows" if re.fullmatch(ROW_WORDS, role.lower().strip()) else "columns")
    return said


def listed_ops(line: str) -> set[str]:
    """The ops a comma-separated list names: the first word of each item ("div: together, the softmax" lists div; the
    words that explain it list nothing)."""
    items = re.split(r"[,;/→]|\band\b|\s->\s|\s\+\s", line)
    return {m.group(1).lower() for item in items if (m := re.match(r"[\s`*'\"(\[|-]*([\w.]+)", item))}


# What makes a section's text clearly that section's, for a heading that names none ("## Memory" over what is not there).
ANNOTATION_CLUES = {
    "Fused ATen ops": lambda body: len(set(re.findall(r"\b(?:amax|sub|exp|sum|div|_softmax|prepare_softmax_online)\b",
                                                      body.split("\n\n")[0]))) >= 2,
    "Input read": lambda body: re.search(r"\bin_ptr\d", body) is not None and re.search(r"\bout_ptr\d", body) is None,
    "Output written": lambda body: re.search(r"\b(?:in_)?out_ptr\d", body) is not None and re.search(r"\bin_ptr\d", body) is None,
    "Reductions": lambda body: REDUCTION_CODE.search(body) is not None and reduction_said("sum", body),
    "What is not there": lambda body: (says_not_stored(body) or says_logits_not_stored(body))
    and REDUCTION_CODE.search(body) is None,
}


def annotation_problems(text: str, kernel) -> list[str]:
    """Everything wrong with an annotation of `kernel` (plain facts or a Kernel); an empty list when it is right."""
    k = kernel_facts(kernel)
    found, missing = named_sections(text, ANNOTATION_SECTIONS, ANNOTATION_CLUES)
    if missing:
        return [f"the annotation lacks the section(s) {', '.join('## ' + m for m in missing)}: {HEADING_HINT}"]
    problems = []
    ops_body = re.sub(r"(?:torch\.ops\.)?(?:aten|prims)(?:\.|::)", "", found["fused aten ops"], flags=re.I)
    ops_body = re.sub(r"(?<=\w)\.(?:default|Tensor|Scalar|int|dim_IntList)\b", "", ops_body)   # overloads: amax.default
    ops_line = next((line for line in ops_body.splitlines() if line.strip()), "")
    have = set(k["aten_ops"])
    absent = [op for op in k["aten_ops"] if not _mentions(ops_body.lower(), op.lower())]
    if absent:
        problems.append(f"'Fused ATen ops' misses {len(absent)} of the {len(k['aten_ops'])} ATen ops your dump's kernel "
                        f"({k['name']}) fuses: read them from the kernel's source-node comments or the IR, not from memory.")
    listed = listed_ops(ops_line)
    wrong = [op for op in SOFTMAX_VOCAB if op not in have and op in listed    # "softmax: amax, sub, ..." names the whole
             and op != "softmax" and not (op == "max" and "amax" in have)]
    if wrong:
        problems.append(f"the first line of 'Fused ATen ops' lists {', '.join(wrong)}, which this kernel does not hold "
                        f"(its ops: {', '.join(k['aten_ops'])}; CPU and GPU, and torch versions, differ — annotate your own dump).")
    problems += input_problems(found["input read"], whole_tensor(k["loads"], "in_"))
    out_body, outputs = found["output written"], whole_tensor(k["stores"])
    out_quotes = [out_body, *code_quotes(out_body)]
    if not any(_mentions(out_body, a["buffer"]) and any(index_quoted(a["index"], q) for q in out_quotes) for a in outputs):
        problems.append("'Output written' should name the pointer the probabilities are written through (a name from the "
                        "kernel's signature) and quote, in `backticks`, the index expression of that store as the kernel "
                        "writes it (not the per-row max or sum the kernel also stores).")
    problems += reads_once_problems(found["input read"], text, k)
    red_body = found["reductions"].lower()
    kinds = [r for r in k["reductions"] if not reduction_said(r, red_body)]
    if kinds:
        problems.append(f"'Reductions' should say which reductions the kernel performs ({', '.join(k['reductions'])}); missing: {', '.join(kinds)}.")
    if ACROSS_ROWS.search(red_body) and not ALONG_A_ROW_SAID.search(red_body):
        problems.append("'Reductions' says the reductions run across the rows (down the batch, one result per column): "
                        "look again at the loops of the reduction, which loop variable its accumulator runs over and "
                        "which one stays fixed while it does, and say along which axis each reduction runs.")
    quoted = [q.strip() for q in code_quotes(found["reductions"]) if q.strip() and q.strip() in k["source"]]
    if not any(REDUCTION_CODE.search(q) for q in quoted):
        said = " (what you quoted is not a reduction: a division or an exp works element by element)" if quoted else ""
        problems.append("'Reductions' should quote (in `backticks`) the code that performs a reduction (the running max "
                        f"or sum across a row), copied from the kernel{said}.")
    if says_logits_not_stored(found["what is not there"]):
        problems.append("'What is not there' says the logits (the Linear's output) never get a buffer: they do, the "
                        "library addmm writes them to memory and the kernel reads them through its input pointer. The "
                        "intermediate this kernel never writes as a tensor is exp(x - max): say that one, and where the "
                        "kernel keeps it instead.")
    elif not says_not_stored(found["what is not there"]):
        problems.append("'What is not there' should say, in a sentence, which intermediate (the exp(x - max) tensor) "
                        "never gets its own buffer in memory.")
    else:
        problems += scratch_problems(found["what is not there"], k["source"])
    return problems


# The words for a reduction, as a word of its own ("softmax" holds "max", "max_propagate_nan" is code, not words).
REDUCTION_WORDS = {"max": r"\b(?:a?max(?:imum|ima|es)?|largest|biggest|highest|greatest|peak)\b",
                   "sum": r"\b(?:sum(?:s|med|ming|mation)?|total|denominator|adds? (?:\w+ )?up|added (?:\w+ )?up)\b",
                   "online_softmax": r"\bonline\b"}


def reduction_said(kind: str, text: str) -> bool:
    """Whether a text names a reduction of this kind (max, sum, online_softmax, welford ...), in words."""
    return re.search(REDUCTION_WORDS.get(kind.lower(), re.escape(kind.lower())), text, re.I) is not None


# The axis of a softmax's reductions: along each row (over its columns). Said across the rows instead (down the batch,
# one result per column, dim 0), it is the other axis; a text that also says "per row" or "over the columns" is read as
# saying the right one (the outer loop may well be said to walk the rows).
ACROSS_ROWS = re.compile(r"\bper[- ]column\b|\b(?:each|every)\s+column\b(?!['’]?s?\s+of\s+(?:a|the|each|its|one)\s+row)|"
                         r"\bcolumn[- ]?wise\b|\b(?:over|across|along|down|through)\s+(?:the\s+|all\s+(?:the\s+)?|both\s+)?"
                         r"(?:\d+\s+)?(?:rows\b(?!['’])|batch(?:es)?\b(?!['’])|samples\b|examples\b)|\b(?:dim(?:ension)?|axis)\s*=?\s*0\b|"
                         r"\b(?:batch|first)\s+(?:dim(?:ension)?|axis)\b", re.I)
ALONG_A_ROW_SAID = re.compile(r"\bper[- ]row\b|\b(?:each|every|a|one|its|that|this|the same|a single)\s+row\b(?!s)|"
                              r"\brow[- ]?wise\b|\b(?:over|across|along|within|through|inside)\s+(?:the\s+|all\s+(?:the\s+)?|"
                              r"its\s+)?(?:\d[\d,]*\s+)?(?:columns|cols|classes|logits|vocab\w*|entries|elements|features|"
                              r"outputs|values)\b|\b(?:dim(?:ension)?|axis)\s*=?\s*(?:-1|1)\b|"
                              r"\b(?:last|inner|reduction|softmax)\s+(?:dim(?:ension)?|axis)\b", re.I)
# "reads each logit only once": a claim about the input's loads that the kernel's source can settle.
READ_ONCE = re.compile(r"\b(?:reads?|reading|loads?|loaded|loading|fetch\w*|touch\w*)\b[^.;:]{0,60}?"
                       r"\b(?:(?:only|just|exactly)\s+)?(?:once|a single time|one time)\b"
                       r"(?!\s+(?:per|each|for\s+each|in\s+each|every|more|again|it|the))", re.I)
# A sentence that says otherwise, or that the other reads are there and hit the cache ("read from main memory once;
# the later passes find the row in cache" is true of a CPU kernel that loads a short row again).
ONCE_DENIED = re.compile(r"\b(?:than|not|never|twice|again|second|two|both|cached?|caches|passes|later)\b|n['’]t\b", re.I)
INPUT_SAID = re.compile(r"\bin_(?:out_)?ptr\d|\binputs?\b|\blogits?\b", re.I)


def input_load_sites(k: dict) -> int:
    """How many places in the kernel's source load its input tensor (the whole-tensor load of an in_ pointer)."""
    sites = 0
    for buffer in {a["buffer"] for a in whole_tensor(k["loads"], "in_") if a["buffer"].startswith("in_")}:
        name = re.escape(buffer)
        sites += sum(1 for line in k["source"].splitlines()
                     if re.search(rf"\b{name}\b", line) and (re.search(r"\bload\w*\s*\(", line)
                                                            or re.search(rf"=\s*{name}\s*\[", line)))
    return sites


def reads_once_problems(input_body: str, text: str, k: dict) -> list[str]:
    """An annotation that says the kernel reads its input only once, of a kernel that loads it in more than one pass
    (a CPU kernel reads a row for the max and again for the exponentials: its vectorised loops load twice per pass)."""
    said = [s for s in sentences(input_body) + [s for s in sentences(text) if INPUT_SAID.search(s)]
            if READ_ONCE.search(s) and not ONCE_DENIED.search(s)]
    passes = input_load_sites(k) >= (3 if k.get("kind") == "cpp" else 2)
    if not said or not passes:
        return []
    return ["the annotation says the kernel reads its input only once, but this kernel's source loads the input in "
            "more than one place: look at which loops load it, and say what each read is for."]


SCRATCH = re.compile(r"\blocal_buffer_data_\d+\b")
SCRATCH_SAID = re.compile(r"local_buffer|scratch|local (?:array|buffer)|row[- ]sized|per[- ]row (?:array|buffer)|"
                          r"(?:array|buffer) (?:of|for) (?:one|a|each|every) row", re.I)


def scratch_problems(body: str, source: str) -> list[str]:
    """A kernel that stores exp(x - max) into a per-row scratch array (a CPU kernel) must not be said to keep it in
    registers: the annotation says where it really goes."""
    scratch = SCRATCH.search(source)
    if scratch is None or SCRATCH_SAID.search(body):
        return []
    return [f"'What is not there': this kernel does store exp(x - max), row by row, into `{scratch.group()}`, a "
            "scratch array of one row that each thread reuses (read the kernel's stores); say where the kernel keeps "
            "it instead of a [rows, columns] tensor."]


def input_problems(body: str, inputs: list[dict]) -> list[str]:
    """'Input read': the input pointer, its index quoted, and which loop variable walks the rows and which the columns."""
    quoted = code_quotes(body)
    hits = [a for a in inputs if _mentions(body, a["buffer"]) and any(index_quoted(a["index"], q) for q in quoted)]
    if not hits:
        return ["'Input read' should name the input pointer (a name from the kernel's signature) and quote, in "
                "`backticks`, the index expression of that load as the kernel writes it (not the per-row max or sum the "
                "kernel reads back)."]
    roles, said = index_roles(hits[0]["index"]), stated_roles(body)
    if not roles:
        return []
    wrong = [f"{var} walks the {said[var]}" for var in roles if var in said and said[var] != roles[var]]
    if wrong:
        return [f"'Input read' says {' and '.join(wrong)}: look again at the index you quoted (in a row-major index, the "
                "variable multiplied by the row length walks the rows and the one added alone the columns of a row)."]
    if not set(roles) <= set(said):
        return ["'Input read' should say, in a sentence, which loop variable walks the rows and which the columns of "
                "a row."]
    return []


def probe_annotation(learner: Learner, with_capture: bool) -> dict:
    """The annotation the notebook wrote, and (when asked) the softmax kernel of the notebook's own capture."""
    path = learner.out_dir / ANNOTATION_FILE
    info = {"text": path.read_text(errors="replace")[:200_000] if path.is_file() else None}
    if with_capture:
        info["kernels"] = [kernel_facts(k) for k in learner.value("code").kernels if kernel_is_softmax(k)]
    return info


@dataclass(frozen=True)
class AnnotationCase:
    """The dumps an honest annotation may describe: the notebook's capture (None) or the grader's reference kernels."""

    kernels: list | None = CAPTURE


def best_annotation_problems(text: str, kernels: list) -> list[str]:
    """The annotation judged against each dump it may describe: no problem if it describes one of them right."""
    tried = [annotation_problems(text, k) for k in kernels]
    return min(tried, key=len) if tried else ["no softmax kernel to compare with: re-run the capture cell in part C."]


@register("04.annotation", points=4, exercise="D", title="KERNEL_ANNOTATION.md explains the fused kernel of your dump",
          cases=AnnotationCase())
def _annotation(ctx: Context, case: AnnotationCase) -> str:
    info = ctx.probe(probe_annotation, case.kernels is CAPTURE)
    if info["text"] is None:
        raise CheckFailed(f"{ANNOTATION_FILE} does not exist in the output folder: run the cell that writes it.")
    kernels = info.get("kernels") if case.kernels is CAPTURE else [kernel_facts(k) for k in case.kernels]
    fail_if(best_annotation_problems(info["text"], kernels or []))
    return "the annotation matches the fused kernel of a real dump"


# ---------------------------------------------------------------- E: crossover
# Every timing judged here is load-proof: the stand-in models' sleeps set floors (load only adds time), a per-call time
# is bounded by the duration of the same measure_sweep call, and the rest is counts (the calls each model saw, at which
# batch sizes) and consistency (speedup = eager_ms / compiled_ms, a verdict that agrees with its own interval). No wall
# time is held against a threshold, and no two times taken at different moments are compared.
FASTER, SLOWER, SAME = "faster", "slower", "no difference"      # bench.Comparison.verdict's words
MIN_CALLS = 5   # calls of each model per batch size; bench.compare makes 13 or more (3 warm-up, 1 sizing, 9 rounds)


def verdict_of(speedup: float) -> str:
    """The verdict a comparison with this speedup and a narrow interval would give (for cases that name none)."""
    from helpers.bench import RESOLUTION

    return FASTER if speedup > RESOLUTION else SLOWER if speedup < 1 / RESOLUTION else SAME


def interval_for(speedup: float, verdict: str) -> list[float]:
    """A 95 % interval of the speedup that agrees with the verdict: beyond 3 % either way for faster and slower; for
    no difference, around the speedup but not wholly beyond the 3 % band, so above 1 when the speedup is well above 1
    (1.03–1.11: a gap too small to resolve, and not "faster": the verdict needs the interval beyond the band)."""
    from helpers.bench import RESOLUTION

    if verdict == FASTER:
        return [max(1.04, 0.95 * speedup), max(1.06, 1.05 * speedup)]
    if verdict == SLOWER:
        return [min(0.94, 0.95 * speedup), min(0.96, 1.05 * speedup)]
    return [min(RESOLUTION, 0.97 * speedup), max(1 / RESOLUTION, 1.03 * speedup)]


@dataclass(frozen=True)
class CrossoverCase:
    """find_crossover on rows with these speedups at these batch sizes, and the answer it should give. Each row's
    verdict is `verdicts`' (by default, the one a narrow interval around its speedup gives)."""

    speedups: tuple
    sizes: tuple
    want: int | None
    about: str = ""
    largest_first: bool = False
    verdicts: tuple | None = None

    def rows(self) -> list[dict]:
        rows = rows_for(self.speedups, self.sizes, self.verdicts)
        return rows[::-1] if self.largest_first else rows

    def orders(self) -> list[tuple[str, list[dict]]]:
        """The rows as the case gives them, then the other way round and in no order (no order is promised):
        [(how they come, rows)], each order once."""
        given = self.rows()
        ways = ("largest batch first", "smallest batch first")[::1 if self.largest_first else -1]
        orders = [(ways[0], given), (ways[1], given[::-1]), ("in no particular order", given[1::2] + given[0::2])]
        seen, out = set(), []
        for how, rows in orders:
            key = tuple(r["batch"] for r in rows)
            if key not in seen:
                seen.add(key)
                out.append((how, rows))
        return out


def rows_for(speedups, sizes, verdicts=None) -> list[dict]:
    """Sweep rows with the given speedups (eager time / compiled time) and verdicts, each with an interval to match."""
    verdicts = verdicts or [verdict_of(s) for s in speedups]
    return [{"batch": b, "eager_ms": 1.0, "compiled_ms": 1.0 / s, "speedup": s, "verdict": v, "ci": interval_for(s, v)}
            for s, b, v in zip(speedups, sizes, verdicts)]


@dataclass(frozen=True)
class SweepCase:
    """The notebook's `sweep_rows`, and (unless batches is None) measure_sweep on these batches with two stand-in
    models that take at least `eager_ms` and `compiled_ms` per call (a sleep: load only adds); every third call of the
    compiled one takes `fast_ms` instead, so its median call takes `compiled_ms` and its fastest far less."""

    batches: tuple | None = None
    d: int = 16
    eager_ms: float = 1.0
    compiled_ms: float = 40.0
    even: tuple = ()      # batch sizes (among `batches`) at which the compiled stand-in takes as long as the eager one
    fast_ms: float = 10.0

    def compiled_floor(self, batch: int) -> float:
        return self.eager_ms if batch in self.even else self.compiled_ms


class CountingHead(torch.nn.Module):
    """A small TinyHead that takes at least `ms` per call and records the batch size of every call, and in `log`, which
    two of them share, who was called at which size, in order: is the model really timed, at each size, over many
    calls, in rounds with the other? (A sweep that times nothing, invents its rows, times one call, or times one model
    and then the other, cannot hide it.)"""

    def __init__(self, d: int, ms: float, ms_at: dict | None = None, fast_ms: float | None = None,
                 log: list | None = None, label: str = ""):
        super().__init__()
        from helpers.models import TinyHead

        self.head, self.ms, self.seen, self.with_autograd = TinyHead(d, 24).eval(), ms, [], 0
        self.ms_at = dict(ms_at or {})     # {batch: ms} where a call takes another time
        self.fast_ms = fast_ms             # every third call at a size takes this long instead (not at ms_at sizes)
        self.log, self.label = (log if log is not None else []), label
        self.fresh: dict[int, int] = {}    # {batch: calls that got an input this model (or the other) never saw}
        self.devices: set[str] = set()

    MARK = "_lab04_checker_saw"   # set on every input a stand-in has seen (a tensor made in the timed call has none)

    def forward(self, x):
        batch = int(x.shape[0])
        self.seen.append(batch)
        self.devices.add(x.device.type)
        if not getattr(x, self.MARK, False):
            self.fresh[batch] = self.fresh.get(batch, 0) + 1
            with contextlib.suppress(Exception):
                setattr(x, self.MARK, True)
        self.log.append((self.label, batch))
        self.with_autograd += torch.is_grad_enabled()     # timed while autograd records a backward graph
        fast = self.fast_ms is not None and batch not in self.ms_at and self.seen.count(batch) % 3 == 0
        time.sleep((self.fast_ms if fast else self.ms_at.get(batch, self.ms)) / 1000)
        return self.head(x)


def probe_crossover(learner: Learner, row_lists: list[list[dict]], sweep: SweepCase) -> dict:
    """find_crossover on each list of rows (or what it raised); the notebook's sweep_rows; and, for sweep batches,
    measure_sweep's rows on two stand-in models, how many calls of each model it made at each batch size, and how long
    the whole measure_sweep call took."""
    import inspect

    info: dict = {"answers": []}
    for rows in row_lists:
        try:
            info["answers"].append(learner.call("find_crossover", rows))
        except CheckFailed:
            raise
        except Exception as err:
            info["answers"].append({"raised": raised(err)})
    info["rows"] = learner.value("sweep_rows")
    if sweep.batches is not None:
        from helpers.env import pick_device

        device = pick_device(learner.settings.device)
        log: list = []
        eager = CountingHead(sweep.d, sweep.eager_ms, log=log, label="eager").to(device)
        compiled = CountingHead(sweep.d, sweep.compiled_ms, {b: sweep.eager_ms for b in sweep.even}, sweep.fast_ms,
                                log, "compiled").to(device)
        from helpers import bench
        fn = learner.function("measure_sweep")
        kw = {"d": sweep.d} if "d" in inspect.signature(fn).parameters else {}
        start = time.perf_counter()
        try:
            with learner.running("measure_sweep"), bench.wall_clock_only():   # CPU time would miss the sleeps
                info["measured"] = fn(eager, compiled, list(sweep.batches), **kw)
        except CheckFailed:
            raise
        except Exception as err:
            info["measured"] = raised(err)
        info["wall_ms"] = (time.perf_counter() - start) * 1e3
        info["seen"] = {"eager": sorted(set(eager.seen)), "compiled": sorted(set(compiled.seen))}
        info["with_autograd"] = eager.with_autograd + compiled.with_autograd
        info["calls"] = {name: [model.seen.count(b) for b in sweep.batches]    # per batch size asked, in order
                         for name, model in (("eager", eager), ("compiled", compiled))}
        turns = [[label for label, b in log if b == batch] for batch in sweep.batches]
        info["switches"] = [sum(a != b for a, b in zip(t, t[1:])) for t in turns]   # eager to compiled or back
        info["fresh"] = {name: [model.fresh.get(b, 0) for b in sweep.batches] for name, model in
                         (("eager", eager), ("compiled", compiled))}
        info["elsewhere"] = sweep_elsewhere(learner, sweep.d, sweep.batches[0] if sweep.batches else 2)
    return info


ELSEWHERE = "meta"    # another device than the notebook's, on every machine: tensors of shapes alone, no data


def sweep_elsewhere(learner: Learner, d: int, batch: int = 2) -> list[str] | None:
    """measure_sweep run once more, at one batch size (one it has just measured), with the notebook's `device` set to
    another device (meta) and two stand-ins that live there: the devices of the inputs they got (a sweep that makes its
    inputs on the CPU alone, which a CPU machine cannot tell apart from a right one); [] when it returned rows without
    calling them (rows kept from an earlier call). None when the notebook has no `device` or nothing ran."""
    import inspect

    if not learner.has("device"):
        return None
    fn = learner.function("measure_sweep")
    kw = {"d": d} if "d" in inspect.signature(fn).parameters else {}
    eager = CountingHead(d, 0.0, label="eager").to(ELSEWHERE)
    compiled = CountingHead(d, 0.0, label="compiled").to(ELSEWHERE)
    returned = False
    try:
        with learner.replacing_global("measure_sweep", "device", torch.device(ELSEWHERE)), \
                warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            rows = learner.call("measure_sweep", eager, compiled, [batch], **kw)
            returned = isinstance(rows, list) and bool(rows)
    except CheckFailed:
        raise
    except Exception:
        pass                     # a model that got a tensor from elsewhere raises: what it got is what counts
    seen = sorted(eager.devices | compiled.devices)
    return seen or ([] if returned else None)


def times_problems(rows: Any, what: str) -> list[str]:
    """Why `rows` are not sweep rows: a list of dicts with positive times in ms and speedup = eager_ms / compiled_ms."""
    keys = ("batch", "eager_ms", "compiled_ms", "speedup")
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) and set(keys) <= set(r) for r in rows):
        return [f"{what} should be a list of dicts with batch, eager_ms, compiled_ms, speedup, verdict and ci."]
    for r in rows:
        if not all(isinstance(r[k], (int, float)) and math.isfinite(r[k]) and r[k] > 0 for k in keys[1:]):
            return [f"each row of {what} needs positive, finite eager_ms, compiled_ms and speedup."]
        if abs(r["speedup"] - r["eager_ms"] / r["compiled_ms"]) > 1e-6 * r["speedup"] + 1e-9:
            return [f"each row's speedup in {what} should be eager_ms / compiled_ms (above 1 when compiled is faster)."]
    return []


def verdict_problems(rows: list[dict], what: str) -> list[str]:
    """Whether each row carries its comparison's verdict and 95 % interval, and the two agree."""
    for r in rows:
        ci = r.get("ci")
        if r.get("verdict") not in (FASTER, SLOWER, SAME) or not isinstance(ci, (list, tuple)) or len(ci) != 2 or \
                not all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for v in ci) or ci[0] > ci[1]:
            return [f"each row of {what} needs the comparison's verdict on compiled ('faster', 'slower' or 'no "
                    "difference': c.verdict) and ci, the 95 % interval of compiled's speedup it comes from (c.ci, two "
                    "numbers, low first)."]
        low, high = ci
        if (r["verdict"] == FASTER and low <= 1) or (r["verdict"] == SLOWER and high >= 1):
            return [f"a row of {what} says compiled is {r['verdict']} with a speedup interval of {low:.2f}–{high:.2f}×: "
                    "take the verdict and the interval from the same comparison of eager (first) and compiled "
                    "(c.verdict, c.ci), not from the speedup."]
    return []


def rows_problems(rows: Any, what: str) -> list[str]:
    """Why `rows` are not the rows of a sweep: times, speedup, verdict and interval."""
    return times_problems(rows, what) or verdict_problems(rows, what)


def measured_problems(info: dict, sweep: SweepCase, reveal: bool) -> list[str]:
    """Whether measure_sweep really compared the two models it was given, over many calls of each, at each batch size,
    with per-call times in ms and each size's verdict."""
    rows, batches = info.get("measured"), list(sweep.batches)
    asked = f"at batch sizes {batches}" if reveal else "at the grader's batch sizes"
    if isinstance(rows, str):
        return [f"measure_sweep {rows}, when the check called it with two models of its own (rows of d={sweep.d} "
                f"features) {asked}: time the two models it is given on inputs built from its arguments "
                "(torch.randn(batch, d)), not the notebook's model, compiled model or x."]
    problems = times_problems(rows, "measure_sweep's rows")
    if problems:
        return problems
    if info.get("with_autograd"):
        return [f"measure_sweep timed the models with autograd on ({info['with_autograd']} calls): inference is timed "
                "under torch.no_grad(), as the exercise says; with autograd on, every eager call also records a graph "
                "for a backward that never comes."]
    if [r["batch"] for r in rows] != batches:
        return ["measure_sweep should return one row per batch size, in the order given."]
    seen = info["seen"]
    if not seen["eager"] and not seen["compiled"]:
        return ["measure_sweep never called the two models it was given: its rows must be their measured times, not a guess."]
    if info.get("elsewhere") == []:
        return ["measure_sweep, called once more by the check with two other models at a batch size it had just "
                "measured, returned a row without calling them: it keeps rows from an earlier call (a dict, a global or "
                "a default argument that outlives the call). Time the models it is given, on every call."]
    if seen["eager"] != sorted(set(batches)) or seen["compiled"] != sorted(set(batches)):
        return ["measure_sweep should time both models on an input of each batch size it is given (rows of d "
                f"features); the check's models were called with batch sizes {seen['eager']} and {seen['compiled']}, "
                f"not {sorted(set(batches))}." if reveal else "measure_sweep should time both models on an input of "
                "each batch size it is given (rows of d features); the grader's models were not called with those batch sizes."]
    low = {r["batch"]: (0.9 * sweep.eager_ms, 0.9 * sweep.compiled_floor(r["batch"])) for r in rows}
    # The stand-ins differ 40-fold (but at the `even` sizes) and sleep at least that long: load only adds time, so it
    # cannot make them look swapped or faster than their sleeps.
    uneven = [r for r in rows if r["batch"] not in sweep.even]
    if uneven and all(r["eager_ms"] >= low[r["batch"]][1] and r["compiled_ms"] < low[r["batch"]][1] for r in uneven):
        return ["measure_sweep's eager_ms and compiled_ms are swapped: eager_ms times the first model (eager), "
                "compiled_ms the second (compiled)."]
    fast = [r for r in uneven if 0.9 * sweep.fast_ms <= r["compiled_ms"] < low[r["batch"]][1]]
    if fast and all(r["eager_ms"] >= low[r["batch"]][0] for r in rows):
        return ["measure_sweep's compiled_ms is shorter than most calls of the compiled model took: give each model's "
                "median over the comparison's calls (c.a.median_ms, c.b.median_ms), not its fastest call or a mean."]
    if not all(r["eager_ms"] >= low[r["batch"]][0] and r["compiled_ms"] >= low[r["batch"]][1] for r in rows):
        return ["measure_sweep's times are shorter than the models it was given can run: each row must be the measured "
                "time of one call of each model, in milliseconds (not seconds), not a guess."]
    fewest = min((n for counts in info.get("calls", {}).values() for n in counts), default=0)
    if fewest < MIN_CALLS:
        return [f"measure_sweep called a model only {fewest} time(s) at one batch size: one call is not a measurement. "
                "The first call of a freshly compiled model includes a compile, and a single call says nothing about "
                "the next; compare many warmed-up calls of both models in paired rounds, as bench.compare does."]
    if min(info.get("switches") or [MIN_CALLS]) < MIN_CALLS:
        return ["measure_sweep timed the calls of one model, then those of the other, at a batch size: compare the two "
                "in one run of paired rounds of random order (bench.compare), so that whatever else the machine does "
                "hits both alike; two measurements taken one after the other (bench.measure twice, then an unpaired "
                "comparison) are not a paired comparison."]
    fresh = info.get("fresh") or {}
    for name, counts in fresh.items():
        calls = dict(zip(batches, info.get("calls", {}).get(name, [])))
        for b, made in zip(batches, counts):
            if made >= 3 and 2 * made > calls.get(b, 0):
                return [f"measure_sweep gave the {name} model a new input on {made} of its {calls.get(b, 0)} calls at "
                        "one batch size: a tensor made inside the timed function (torch.randn in a lambda) is timed "
                        "along with the model. Make each batch's input once, before timing, and compare the models "
                        "on it: bench.compare(model, compiled, xb)."]
    elsewhere = [d for d in info.get("elsewhere") or () if d != ELSEWHERE]
    if elsewhere:
        return [f"measure_sweep made its inputs on {elsewhere[0]}, not on `device`: the check ran it once more with "
                f"`device` set to another device ({ELSEWHERE}) and models that live there, and they still got "
                f"{elsewhere[0]} tensors. Make each input on `device`, torch.randn(batch, d, device=device): on a GPU "
                "machine your sweep would feed CPU tensors to a GPU model."]
    total = sum(r["eager_ms"] + r["compiled_ms"] for r in rows)
    if total > info.get("wall_ms", math.inf):
        return [f"measure_sweep's rows say one call of each model took {total:.4g} ms in all, longer than the whole "
                f"measure_sweep call ({info['wall_ms']:.4g} ms): give the time of one call in milliseconds (not "
                "microseconds, not a total over many calls)."]
    return verdict_problems(rows, "measure_sweep's rows")


def crossover_problems(info: dict, cases: list[CrossoverCase], sweep: SweepCase, reveal: bool) -> list[str]:
    """Wrong crossover answers (info["answers"]: each case's, in each of its orders); then (for sweep batches)
    measure_sweep on the stand-ins and the notebook's sweep."""
    answers = iter(info["answers"])
    asked = ((c, i, order, next(answers, None)) for c in cases for i, order in enumerate(c.orders()))
    for case, i, (how, rows), got in asked:
        where = ("for the rows (batch, verdict, speedup, interval) "
                 f"{[(r['batch'], r['verdict'], r['speedup'], [round(v, 3) for v in r['ci']]) for r in rows]}, given "
                 f"{how}") if reveal else f"on the grader's case with {case.about}" + (f", its rows given {how}" if i else "")
        if isinstance(got, dict) and set(got) == {"raised"}:
            return [f"find_crossover {got.get('raised')} {where}: handle every list of rows, an empty one too "
                    "(None: compiled is never faster)."]
        if got is not None and (isinstance(got, bool) or not isinstance(got, (int, float))):
            said = "a row (a dict)" if isinstance(got, dict) else f"a {type(got).__name__}"
            return [f"find_crossover returned {said} {where}: return the crossover's batch size, a number (the "
                    "row's 'batch'), or None when there is none; not the row itself."]
        if got != case.want:
            if reveal:
                return [f"{where}, find_crossover returned {got!r}; expected {case.want!r} (the smallest batch from which "
                        "compiled's verdict is 'faster', at every larger batch too; sort the rows by batch, whatever order "
                        "they come in; go by the verdict, not the speedup or the interval: a 'no difference' row is not "
                        "faster, even with an interval above 1, and a 'faster' row is, whatever its speedup; None if never)."]
            return [f"find_crossover gave a wrong answer {where}; sort the rows by batch (they may come in any order), "
                    "go by each row's verdict (not its speedup or its interval: the verdict is the comparison's own), "
                    "and handle every size, not only the ones shown in the notebook."]
    if sweep.batches is None:
        return []
    # measure_sweep's own mistakes first (they have a precise cause), then the notebook's sweep
    return measured_problems(info, sweep, reveal) or rows_problems(info.get("rows"), "your sweep (sweep_rows)")


@register("04.crossover", points=2, exercise="E", title="the eager-vs-compiled sweep, its verdicts and its crossover",
          cases=([CrossoverCase((0.5, 0.7, 1.2, 1.5), (1, 8, 64, 512), 64), CrossoverCase((0.4, 0.6, 0.8), (1, 8, 64), None),
                  CrossoverCase((1.3, 1.5, 2.0), (2, 4, 8), 2), CrossoverCase((0.8, 1.1, 0.9, 1.2, 1.3), (1, 2, 4, 8, 16), 8),
                  CrossoverCase((0.9, 1.0, 1.4), (1, 2, 4), 4), CrossoverCase((0.6, 1.1, 1.3), (16, 32, 64), 32, largest_first=True),
                  CrossoverCase((0.7, 1.02, 1.3), (1, 4, 16), 16, verdicts=(SLOWER, SAME, FASTER)),
                  CrossoverCase((1.2, 1.4, 1.1), (2, 8, 32), None, verdicts=(FASTER, FASTER, SAME)),
                  CrossoverCase((0.7, 0.98, 1.3), (1, 4, 16), 4, verdicts=(SLOWER, FASTER, FASTER)),
                  CrossoverCase((), (), None)],
                 SweepCase(batches=(2, 4, 6), even=(4,))))
def _crossover(ctx: Context, cases: tuple) -> str:
    crossovers, sweep = cases
    rows_only = dataclasses.replace(sweep, batches=None)     # find_crossover first: the sweep takes seconds
    row_lists = [rows for c in crossovers for _, rows in c.orders()]
    fail_if(crossover_problems(ctx.probe(probe_crossover, row_lists, rows_only, timeout=60),
                               crossovers, rows_only, ctx.reveal))
    if sweep.batches is not None:
        fail_if(crossover_problems(ctx.probe(probe_crossover, [], sweep, timeout=240), [], sweep, ctx.reveal))
    return "find_crossover is right on every case; measure_sweep compares the models it is given, with a verdict per size"


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


def _long_case() -> str:
    """As older torch versions write it, naming each node after its buffer (`buf1`, a fused `buf10_buf11_...`; recent
    ones write `op1`), with numbers of two digits (names in graph order are not in sorted order, and `buf1` is a prefix
    of `buf10`), a fused node of twelve members (member numbers of two digits: `.snodes[10] =`), and a kind of node the
    lab does not name (a ForeachKernelSchedulerNode: a GPU's grouped independent ops)."""
    def node(name: str, kind: str) -> list[str]:
        dep = f"StarDep(name='{name}', mode=None)" if kind.startswith("Extern") else f"MemoryDep('{name}', c0, {{c0: 8}})"
        return [f"{name}: {kind}", f"{name}.writes = [{dep}]"]

    def fused(members: list[str], kind: str) -> list[str]:
        name = "_".join(members)
        lines = [f"{name}: {kind}(NoneType)",
                 f"{name}.writes = [" + ", ".join(f"MemoryDep('{m}', c0, {{c0: 8}})" for m in members) + "]"]
        for i, m in enumerate(members):
            lines += [f"{name}.snodes[{i}] =", *node(m, "SchedulerNode(ComputedBuffer)")]
        return lines + ["", ""]

    lines = [*node("buf1", "SchedulerNode(ComputedBuffer)"), "", "", *node("buf9", "SchedulerNode(ComputedBuffer)"), "", "",
             *fused([f"buf{i}" for i in range(10, 22)], "FusedSchedulerNode"),
             *node("buf22", "ExternKernelSchedulerNode(ExternKernelOut)"), "", "",
             *fused(["buf23", "buf24"], "ForeachKernelSchedulerNode")]
    return "\n".join(lines)


SCHEDULER_CASE_LONG = _long_case()
SCHEDULER_LONG_NODES = ("buf1", "buf9", "_".join(f"buf{i}" for i in range(10, 22)), "buf22", "buf23_buf24")


@dataclass(frozen=True)
class IRCase:
    """An IR text and its top-level nodes; or, with text None, the notebook's own capture (judged by fusion's rules)."""

    about: str
    text: str | None = None
    want: tuple | None = None


def probe_scheduler(learner: Learner, texts: list[str | None]) -> list:
    """scheduler_nodes on each text (or what it raised); for None, on the notebook's own IR before and after fusion."""
    def nodes(text: str) -> Any:
        try:
            got = learner.call("scheduler_nodes", text)
        except CheckFailed:
            raise
        except Exception as err:
            return {"raised": raised(err)}
        if isinstance(got, (str, bytes, dict)) or not hasattr(got, "__iter__"):
            return {"returned": type(got).__name__}
        return list(got)

    out = []
    for text in texts:
        if text is not None:
            out.append(nodes(text))
        else:
            code = learner.value("code")
            if not (code.ir_pre_fusion and code.ir_post_fusion):
                raise CheckFailed("the capture in part C has no IR files; re-run it.")
            out.append([nodes(code.ir_pre_fusion), nodes(code.ir_post_fusion)])
    return out


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


def scheduler_case_problems(got: list, cases: list[IRCase], reveal: bool) -> list[str]:
    for case, answer in zip(cases, got):
        failed = [a for a in (answer if case.text is None else [answer]) if isinstance(a, dict)]
        if failed and "returned" in failed[0]:
            kind = failed[0]["returned"]
            return [f"on {case.about}, scheduler_nodes returned {'an' if kind[:1] in 'aeiou' else 'a'} {kind}; return "
                    "the list of the top-level nodes' names, in the order they appear."]
        if failed:
            return [f"on {case.about}, scheduler_nodes {failed[0]['raised']}."]
        junk = [n for a in (answer if case.text is None else [answer]) for n in a
                if not (isinstance(n, str) and re.fullmatch(r"\w+", n))]
        if junk:
            return [f"on {case.about}, scheduler_nodes returned {len(junk)} name(s) that are not node names: only a line "
                    "that starts with `name: ...SchedulerNode(` opens a node. A line that holds `SchedulerNode(` "
                    "elsewhere is not one: the NodeUser(node=SchedulerNode(name=...)) lines under .outputs list a "
                    "buffer's users, nodes already opened above."]
        if case.text is None:
            problems = scheduler_problems(*answer)
        elif answer != list(case.want):
            reordered = sorted(answer) == sorted(case.want)
            said = f"returned {answer!r}; expected {list(case.want)!r}" if reveal else \
                "returned the right names in another order" if reordered else \
                f"returned {len(answer)} names where there are {len(case.want)} top-level nodes"
            hint = "in the order they appear in the file" if reordered else \
                "top-level nodes only: the nodes listed under '.snodes[i] =' belong to the fused node above them" \
                if len(answer) > len(case.want) else "every line `name: ...SchedulerNode(` opens a node, whatever its " \
                "name (older torch versions name nodes after their buffers: buf1, buf2_buf3) and whatever its kind, " \
                "and only the one right after a '.snodes[i] =' line is a member of the fused node above it"
            problems = [f"on {case.about}, scheduler_nodes {said} ({hint})."]
        else:
            problems = []
        if problems:
            return problems
    return []


@register("04.scheduler", points=2, exercise="S", title="list Inductor's scheduler nodes before and after fusion",
          cases=[IRCase("a small IR sample", SCHEDULER_CASE, ("op0", "op1_op2", "op3")),
                 IRCase("a sample in older torch's naming (buf1, buf10_buf11...), with node and member numbers of two "
                        "digits and a foreach node", SCHEDULER_CASE_LONG, SCHEDULER_LONG_NODES),
                 IRCase("your capture")])
def _scheduler(ctx: Context, cases: list[IRCase]) -> str:
    fail_if(scheduler_case_problems(ctx.probe(probe_scheduler, [c.text for c in cases]), cases, ctx.reveal))
    return f"right on {len(cases)} IR texts"


# ---------------------------------------------------------------- G: report
def sweep_written(learner: Learner) -> bool:
    """Whether part E's measure_sweep is written: its body is more than the stub's one `raise NotImplementedError`."""
    fn = learner.ns.get("measure_sweep")
    return callable(fn) and stub_message(fn) is None


def probe_report(learner: Learner, with_capture: bool) -> dict:
    """REPORT.md, manifest.json, the size and SHA-256 of every file the manifest lists, the notebook's sweep, and (when
    asked) the softmax kernels of its capture."""
    root = learner.out_dir
    info = {}
    for name in (REPORT_FILE, MANIFEST_FILE):
        path = root / name
        info[name] = path.read_text(errors="replace")[:500_000] if path.is_file() else None
    listed = {}
    try:
        files = json.loads(info[MANIFEST_FILE] or "{}").get("files", {})
        names = list(files)[:50] if isinstance(files, dict) else []
    except (ValueError, AttributeError):
        names = []
    for name in names:
        path = root / str(name)
        inside = path.resolve().is_relative_to(root.resolve())
        listed[str(name)] = {"exists": inside and path.is_file(),
                             "sha256": hashlib.sha256(path.read_bytes()).hexdigest() if inside and path.is_file() else None,
                             "bytes": path.stat().st_size if inside and path.is_file() else None}
    info["listed"] = listed
    info["artifacts"] = [name for name in REPORT_ARTIFACTS if (root / name).is_file()]
    info["sweep_rows"] = learner.value("sweep_rows") if learner.has("sweep_rows") else None
    info["sweep_written"] = sweep_written(learner)
    crossover = learner.ns.get("crossover", "not run")          # part E's answer, as the notebook computed it
    info["crossover"] = crossover if crossover is None or isinstance(crossover, (int, float)) else "not run"
    info["kernel_saved"] = any((root / name).is_file() for name in ("kernel.cpp", "kernel.py"))   # part C's file
    facts = learner.ns.get("facts")
    saved_file = facts.get("kernel_file") if isinstance(facts, dict) else None
    device = facts.get("device") if isinstance(facts, dict) else None
    info["device"] = device if isinstance(device, str) and device.strip() else None      # the device the report names
    if isinstance(saved_file, str) and saved_file in ("kernel.cpp", "kernel.py") and (root / saved_file).is_file():
        info["kernel_file"] = saved_file           # the one part C saved (an earlier run may have left the other)
    err = learner.value("max_err") if learner.has("max_err") else None
    info["max_err"] = float(err) if isinstance(err, (int, float)) else None
    if with_capture:
        info["kernels"] = [k.name for k in learner.value("code").kernels if kernel_is_softmax(k)]
    if info[REPORT_FILE] is not None:
        info["again"] = report_again(learner)
    return info


AGAIN_MARK = "(A sentence the check added to the explanation it passed: the report shows the explanation it is given.)"


def report_again(learner: Learner) -> dict | None:
    """write_report run once more by the check, into a fresh folder holding copies of the files the report points to,
    with the notebook's `facts` and its EXPLANATION plus a sentence of the check's: whether it wrote REPORT.md there
    (not into the notebook's folder: whatever it wrote there is put back), showed the explanation it was given, and
    listed in the manifest the REPORT.md it wrote. None when the notebook has no facts or explanation to pass."""
    facts, explanation = learner.ns.get("facts"), learner.ns.get("EXPLANATION")
    if not isinstance(facts, dict) or not isinstance(explanation, str) or not callable(learner.ns.get("write_report")):
        return None
    root = learner.out_dir
    kept = {name: (root / name).read_bytes() for name in (REPORT_FILE, MANIFEST_FILE) if (root / name).is_file()}
    folder = Path(tempfile.mkdtemp(prefix="report-again-"))
    info: dict = {}
    try:
        for name in REPORT_ARTIFACTS:
            if (root / name).is_file():
                shutil.copy2(root / name, folder / name)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                learner.call("write_report", folder, facts, explanation + " " + AGAIN_MARK)
        except CheckFailed:
            raise
        except Exception as err:
            return {"raised": raised(err)}
        report = folder / REPORT_FILE
        info["written"] = report.is_file()
        info["root_changed"] = any(not (root / name).is_file() or (root / name).read_bytes() != data
                                   for name, data in kept.items()) or \
            AGAIN_MARK in ((root / REPORT_FILE).read_text(errors="replace") if (root / REPORT_FILE).is_file() else "")
        info["explanation_shown"] = info["written"] and AGAIN_MARK in report.read_text(errors="replace")
        try:
            files = json.loads((folder / MANIFEST_FILE).read_text()).get("files", {})
            listed = next((meta for name, meta in files.items()                   # "REPORT.md", "./REPORT.md"
                           if os.path.normpath(str(name)).replace("\\", "/") == REPORT_FILE), {})
            info["report_hashed"] = info["written"] and isinstance(listed, dict) and \
                manifest_digest(listed) == hashlib.sha256(report.read_bytes()).hexdigest()
        except (OSError, ValueError, AttributeError):
            info["report_hashed"] = None        # no manifest there, or not JSON: judged on the notebook's own files
        fake = synthetic_facts(facts)
        if fake is not None and info["written"] and not info["root_changed"]:
            info["synthetic"] = report_of(learner, fake, explanation, root)
        return info
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        for name, data in kept.items():          # the notebook's own report and manifest, as they were
            if not (root / name).is_file() or (root / name).read_bytes() != data:
                (root / name).write_bytes(data)


SYNTHETIC_ERR = 2.7e-08


def synthetic_facts(facts: dict) -> dict | None:
    """The notebook's facts with another max_err and another sweep: the same batch sizes (in the same order), other
    times (of the size of the sweep's own), and verdicts that the speedups alone would not give (a 'faster' row whose
    ratio of medians is just below 1, a 'no difference' row above 1), with the crossover those verdicts give. None
    without two sweep rows."""
    rows = facts.get("sweep_rows")
    if not isinstance(rows, list) or len(rows) < 2 or \
            not all(isinstance(r, dict) and isinstance(r.get("batch"), (int, float)) for r in rows):
        return None
    rank = sorted(range(len(rows)), key=lambda i: rows[i]["batch"])          # rank[j]: the j-th smallest batch's row
    n = len(rows)
    plan = {rank[n - 1]: (1.6, FASTER, [1.4, 1.8]), rank[n - 2]: (0.98, FASTER, [1.04, 1.12])}
    if n >= 3:
        plan[rank[n - 3]] = (1.2, SAME, [0.95, 1.45])
    fake = []
    for i, r in enumerate(rows):
        speedup, verdict, ci = plan.get(i, (0.6, SLOWER, [0.55, 0.66]))
        own = r.get("eager_ms")      # times of the sweep's own size, 37 % longer: printed as precisely as the learner's
        eager = 1.37 * own if isinstance(own, (int, float)) and math.isfinite(own) and own > 0 else 0.25 + 0.37 * (i + 1)
        row = dict(r, eager_ms=eager, compiled_ms=eager / speedup, verdict=verdict, ci=list(ci))
        row["speedup"] = row["eager_ms"] / row["compiled_ms"]
        for side in ("eager", "compiled"):
            for q in ("q25", "q75"):
                if f"{side}_{q}_ms" in row:
                    row[f"{side}_{q}_ms"] = row[f"{side}_ms"]
        fake.append(row)
    device = facts.get("device")
    other = {}
    if isinstance(device, str) and device.strip():     # a device of the other kind, with the label's other parts
        name, *rest = [part.strip() for part in device.split("·")]
        other["device"] = " · ".join(["NVIDIA H200" if CPU_SAID.search(name) else "CPU (8 cores)", *rest])
    return {**facts, "max_err": SYNTHETIC_ERR, "sweep_rows": fake, "crossover": rows[rank[n - 2]]["batch"], **other}


CPU_SAID = re.compile(r"\bcpus?\b", re.I)


def device_said(text: str, label: str) -> bool:
    """Whether a text names the device a device_label describes ("CPU (2 cores) · torch 2.13.0", "NVIDIA H100 80GB
    HBM3 · torch 2.11.0 · triton 3.6.0"): its name as the label gives it, or its kind in a word (CPU, or the platform's
    name: x86_64, arm64, Xeon...; GPU or CUDA), or a model number of its name (H100)."""
    name = label.split("·")[0].strip()
    flat = lambda t: " ".join(t.split()).lower()
    if name and flat(name) in flat(text):
        return True
    if CPU_SAID.search(name):
        words = [r"\bcpus?\b", r"\bprocessors?\b", r"\bx86(?:[-_]64)?\b", r"\bamd64\b", r"\baarch64\b", r"\barm64\b",
                 r"\bintel\b", r"\bxeon\b", r"\bepyc\b", r"\bryzen\b", r"\bapple m\d\b"]   # a platform's own name
    else:
        words = [r"\bgpus?\b", r"\bcuda\b", *(rf"\b{re.escape(t)}\b" for t in re.findall(r"\w+", name)
                                           if len(t) >= 3 and re.search(r"\d", t) and re.search(r"[a-z]", t, re.I))]
    return re.search("|".join(words), text, re.I) is not None


def outside_explanation(report: str, explanation: str) -> str:
    """The report without its explanation's text: the explanation is the learner's own words (it may name the notebook's
    device), the rest is what write_report wrote from the facts."""
    return report.replace(explanation, " ") if explanation.strip() else report


def report_of(learner: Learner, facts: dict, explanation: str, root: Path) -> dict:
    """write_report run into a fresh folder (holding copies of the files the report points to) with these facts: the
    REPORT.md it wrote (or what it raised), and the facts it was given that the report must show."""
    folder = Path(tempfile.mkdtemp(prefix="report-facts-"))
    shown = {"max_err": facts["max_err"], "sweep_rows": facts["sweep_rows"], "crossover": facts["crossover"],
             "device": facts.get("device")}
    try:
        for name in REPORT_ARTIFACTS:
            if (root / name).is_file():
                shutil.copy2(root / name, folder / name)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                learner.call("write_report", folder, facts, explanation)
        except CheckFailed:
            raise
        except Exception as err:
            return {"raised": raised(err), **shown}
        report = folder / REPORT_FILE
        return {"report": report.read_text(errors="replace")[:500_000] if report.is_file() else None, **shown}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def synthetic_problems(run: dict | None) -> list[str]:
    """Whether the report write_report wrote from the check's own facts shows those facts: the error, the sweep's
    times, each row's own verdict, the crossover."""
    if not run or not run.get("report"):
        return []
    found, missing = named_sections(run["report"], REPORT_SECTIONS, REPORT_CLUES)
    if missing:
        return []
    match, profile = found["compile match"], found["profile"]
    rows, crossover = run["sweep_rows"], run["crossover"]
    if compile_match_problems(match, run["max_err"]):
        said = f"'Compile match' did not give facts['max_err'] ({run['max_err']:.1e}) as a number"
    elif profile_problems(profile, rows):
        said = "the 'Profile' table did not give the times and speedups of facts['sweep_rows']"
    elif verdict_rows_problems(profile, rows):
        said = ("the 'Profile' table did not give each row's own verdict (facts['sweep_rows'][i]['verdict']): a row "
                "whose speedup is just below 1 can still be 'faster', and one above 1 'no difference', since the verdict "
                "comes from the paired rounds, not from the ratio of the medians")
    elif crossover_stated_problems(run["report"], profile, crossover):
        said = f"the crossover stated is not facts['crossover'] (batch {crossover})"
    elif isinstance(run.get("device"), str) and \
            not device_said(outside_explanation(run["report"], found["when compiling pays"]), run["device"]):
        said = f"it does not name facts['device'] ({run['device'].split('·')[0].strip()}) as the device measured on"
    else:
        return []
    return [f"write_report, run by the check with facts of its own (another max_err, sweep rows with other times "
            f"and verdicts, another device), wrote a report that does not show them: {said}. Write the report from the "
            "facts it is given, as they are: not from the notebook's variables, and not worked out again."]


def report_again_problems(again: dict | None) -> list[str]:
    """What write_report, run once more into another folder with another explanation, did wrong."""
    if not again:
        return []
    if "raised" in again:
        return [f"write_report, run once more by the check into a fresh folder (with your facts and explanation, and "
                f"copies of the files the report points to), {again['raised']}: write everything into the out_dir it "
                "is given, from the facts and explanation it is given."]
    if not again.get("written") or again.get("root_changed"):
        return ["write_report wrote into the notebook's output folder, not the folder it is given: the check called it "
                "with another out_dir, and REPORT.md did not appear there. Write REPORT.md and manifest.json under its "
                "out_dir argument."]
    if not again.get("explanation_shown"):
        return ["'When compiling pays' is not the explanation write_report is given: the check passed it another text, "
                "and REPORT.md did not show it. Write the `explanation` argument, not the notebook's EXPLANATION."]
    if again.get("report_hashed") is False:
        return ["manifest.json does not give the sha256 of the REPORT.md that write_report wrote (the check ran it "
                "into a fresh folder): write REPORT.md first, then hash the files for the manifest."]
    run = again.get("synthetic")
    if run and "raised" in run:
        return [f"write_report, run by the check with facts of its own (another max_err, and sweep rows with other "
                f"times and verdicts), {run['raised']}: write the report from whatever facts it is given."]
    return synthetic_problems(run)


NUMBER = re.compile(r"[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
TIMES_TEN = re.compile(r"(\d)\s*(?:×|x|\*|·|⋅)\s*10\s*(?:\^|\*\*)?\s*\(?([-+−]?\d+)\)?")


def e_notation(text: str) -> str:
    """Numbers written as 4.66 × 10⁻¹⁰, 4.66x10^-10 or 4.66*10**-10 rewritten as 4.66e-10 (NUMBER reads those)."""
    text = re.sub(r"10([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)", lambda m: "10^" + m.group(1).translate(SUPERSCRIPT), text)
    return TIMES_TEN.sub(lambda m: f"{m.group(1)}e{m.group(2).replace('−', '-')}", text)


EAGER, COMPILED = re.compile(r"eager", re.I), re.compile(r"compil\w*|inductor", re.I)     # "torch.compile (ms)" too


ITEM = r"(?:[-*+•]|\d+[.)])[ \t]"      # a bullet or a numbered item
NESTED = re.compile(rf"^([ \t]*)({ITEM}.*)((?:\n\1[ \t]+{ITEM}.*)+)", re.M)    # an item and the items under it


def join_items(text: str) -> str:
    """Text with each list item's sub-items joined to its line ("- batch 1" over "  - eager 0.12 ms")."""
    return NESTED.sub(lambda m: m.group(1) + m.group(2) + re.sub(r"\n[ \t]*\S+[ \t]+", ", ", m.group(3)), text)


HTML_TABLE = re.compile(r"<table\b.*?</table\s*>", re.I | re.S)
HTML_ROW, HTML_CELL = re.compile(r"<tr\b[^>]*>(.*?)(?=<tr\b|</tr\s*>|</table)", re.I | re.S), \
    re.compile(r"<t[hd]\b[^>]*>(.*?)(?=<t[hd]\b|</t[hd]\s*>|</tr|$)", re.I | re.S)


def html_tables(text: str) -> str:
    """A text with its HTML tables (<table><tr><th>batch</th>…) written as Markdown rows, one line a row."""
    def markdown(m) -> str:
        cell = lambda c: " ".join(html.unescape(re.sub(r"<[^>]+>", " ", c)).replace("|", "/").split())
        return "\n" + "\n".join("| " + " | ".join(cell(c) for c in HTML_CELL.findall(row)) + " |"
                                 for row in HTML_ROW.findall(m.group())) + "\n"
    return HTML_TABLE.sub(markdown, text)


RULER = re.compile(r"[\s\-=─━_+:|]*")


def spaced_tables(text: str) -> str:
    """A text with its tables of space-aligned columns (the sweep as the notebook prints it, pasted into a code block:
    "batch   eager ms  compiled ms  speedup  compiled vs eager", then "    1     0.0306       0.0725 ...") written as
    Markdown rows. A header is a line of three cells or more, two spaces or more apart, that names an eager and a
    compiled column; its rows are the lines after it that start with a number."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        head = re.split(r"\s{2,}", lines[i].strip())
        rows = []
        if "|" not in lines[i] and len(head) >= 3 and any(EAGER.search(c) and not COMPILED.search(c) for c in head) \
                and any(COMPILED.search(c) and not EAGER.search(c) for c in head):
            j = i + 1
            while j < len(lines) and (RULER.fullmatch(lines[j]) and lines[j].strip() or
                                      re.match(r"\s*[-+]?\d", lines[j]) and "|" not in lines[j]):
                if not RULER.fullmatch(lines[j]):
                    cells = re.split(r"\s{2,}", lines[j].strip())
                    rows.append(cells if len(cells) >= len(head) else lines[j].split(None, len(head) - 1))
                j += 1
        if rows:
            out += ["| " + " | ".join(cells) + " |" for cells in (head, *rows)]
            i = j
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)


def table_rows(text: str, prose: bool = True) -> list[list[str]]:
    """The rows of the sweep a text gives, as cell strings: the rows of its Markdown tables, with or without the outer
    pipes, alignment rows left out, (and of its HTML tables, of lines of tab-separated cells, and of space-aligned columns
    as the notebook prints them, `spaced_tables`), a column or a row of
    value pairs ("eager/compiled": "0.12/0.08") split in two (`split_pairs`), a table with the batch sizes as its
    columns turned round (`per_batch`); and a bullet list of the sizes, as a table (`bullet_cells`, on `join_items`)."""
    rows, table, said = [], [], []
    for line in [*join_items(spaced_tables(html_tables(text))).splitlines(), ""]:
        line = line.strip()
        if "|" in line or ("\t" in line and not re.match(ITEM, line)):
            cells = [c.strip() for c in (line.strip("|").split("|") if "|" in line else re.split(r"\t+", line))]
            if len(cells) >= 2 and not all(re.fullmatch(r":?-+:?", c) for c in cells if c):
                table.append(cells)
            continue
        rows += per_batch(split_pairs(table))
        table, cells = [], bullet_cells(line)
        if cells is None and prose and not re.match(ITEM, line):   # in prose: "At batch 1, eager 0.12 ms …; at batch 64, …"
            said += [part for part in map(bullet_cells, ("- " + p for p in re.split(r";\s+|(?<=[^\d\s])\.\s+", line)
                                                         if re.search(r"\bbatch|\bbs\b|\bB\s*=|\brows?\b", p)))
                     if part is not None]
        rows += [] if cells is None else [BULLET_HEADER, cells]
    return rows or [cell for part in said for cell in (BULLET_HEADER, part)]     # prose only where nothing else is


SIDE = r"(?:eager|torch\.compile\w*|compil\w*|inductor)"
TIME_UNIT = r"(?:µs|μs|us|ms|ns|s|sec)\b"
PAIR_LABEL = re.compile(rf"^(.*?)\b({SIDE})\s*/\s*({SIDE})(.*)$", re.I)
PAIR_VALUES = re.compile(rf"^[*`\s]*({NUMBER.pattern})\s*({TIME_UNIT})?\s*/\s*({NUMBER.pattern})\s*({TIME_UNIT})?[*`\s]*$",
                         re.I)


def _pair_label(cell: str) -> tuple[str, str] | None:
    """A label of two values, eager's and compiled's ("eager/compiled (ms)", "compiled / eager"), as two labels;
    None for any other cell, and for a ratio's label ("speedup (eager/compiled)")."""
    m = PAIR_LABEL.match(cell)
    if m is None or re.search(r"speed-?up|ratio|×|\bvs\b", cell, re.I) or \
            bool(EAGER.search(m.group(2))) == bool(EAGER.search(m.group(3))):
        return None
    return f"{m.group(1)}{m.group(2)}{m.group(4)}".strip(), f"{m.group(1)}{m.group(3)}{m.group(4)}".strip()


def _pair_values(cell: str) -> tuple[str, str]:
    """"0.12/0.08 ms" as ("0.12 ms", "0.08 ms"): a unit given once holds for both; a cell that is no pair, twice."""
    m = PAIR_VALUES.match(cell)
    if m is None:
        return cell, cell
    unit = m.group(2) or m.group(4) or ""
    return f"{m.group(1)} {m.group(2) or unit}".strip(), f"{m.group(3)} {m.group(4) or unit}".strip()


def split_pairs(table: list[list[str]]) -> list[list[str]]:
    """A table whose header has a column of value pairs ("| batch | eager/compiled (ms) |", "| 1 | 0.12/0.08 |"), or
    whose rows are labelled so ("| eager/compiled | 0.12/0.08 | ... |", the batch sizes as columns), with each pair in
    two columns (or rows) of their own. A column only when most of its cells are pairs."""
    if len(table) < 2:
        return table
    head, body = table[0], table[1:]
    for i in reversed(range(len(head))):
        labels = _pair_label(head[i])
        cells = [r[i] for r in body if i < len(r)]
        if labels and sum(PAIR_VALUES.match(c) is not None for c in cells) * 2 > len(cells):
            head = [*head[:i], *labels, *head[i + 1:]]
            body = [[*r[:i], *_pair_values(r[i]), *r[i + 1:]] if i < len(r) else r for r in body]
    rows = []
    for r in body:
        labels = _pair_label(r[0]) if r else None
        if labels and sum(PAIR_VALUES.match(c) is not None for c in r[1:]) * 2 > len(r) - 1:
            pairs = [_pair_values(c) for c in r[1:]]
            rows += [[labels[0], *(p[0] for p in pairs)], [labels[1], *(p[1] for p in pairs)]]
        else:
            rows.append(r)
    return [head, *rows]


# "eager/compiled: 0.12/0.08 ms", "0.12/0.08 ms (eager/compiled)": two times and their sides, said in one clause.
PAIR_SAID = (re.compile(rf"\b({SIDE})\s*/\s*({SIDE})\b(?:\s*\(({TIME_UNIT})\))?\s*[:=]?\s*({NUMBER.pattern})\s*"
                        rf"({TIME_UNIT})?\s*/\s*({NUMBER.pattern})\s*({TIME_UNIT})?", re.I),
             re.compile(rf"({NUMBER.pattern})\s*({TIME_UNIT})?\s*/\s*({NUMBER.pattern})\s*({TIME_UNIT})?\s*"
                        rf"(?:\(\s*|:\s*|for\s+)?({SIDE})\s*/\s*({SIDE})\b\)?", re.I))


def unpair(text: str) -> str:
    """Two times said as a pair ("eager/compiled: 0.12/0.08 ms") said one by one ("eager 0.12 ms, compiled 0.08 ms")."""
    def labels_first(m) -> str:
        unit = m.group(5) or m.group(7) or m.group(3) or ""
        return f"{m.group(1)} {m.group(4)} {m.group(5) or unit}, {m.group(2)} {m.group(6)} {m.group(7) or unit}"

    def values_first(m) -> str:
        unit = m.group(2) or m.group(4) or ""
        return f"{m.group(5)} {m.group(1)} {m.group(2) or unit}, {m.group(6)} {m.group(3)} {m.group(4) or unit}"

    if any(bool(EAGER.search(a)) == bool(EAGER.search(b)) for a, b in
           [(m.group(1), m.group(2)) for m in PAIR_SAID[0].finditer(text)] +
           [(m.group(5), m.group(6)) for m in PAIR_SAID[1].finditer(text)]):
        return text          # "eager/eager": no pair of sides
    return PAIR_SAID[1].sub(values_first, PAIR_SAID[0].sub(labels_first, text))


BATCH_CELL = re.compile(r"[*`_\s]*(?:(?:batch(?:\s+size)?|size|bs|b|n)\s*[=:]?\s*)?\d[\d,\u202f\u2009\u00a0']*(?:\s*(?:rows?|samples?))?"
                        r"[*`_\s]*", re.I)   # "64", "**B=64**", "bs=64", "64 rows"


def per_batch(table: list[list[str]]) -> list[list[str]]:
    """A table's rows, one per batch: a table with the batch sizes as its columns (| batch | 1 | 64 |, then a row per
    quantity: | eager ms | 0.031 | 0.041 |) turned round, its first column as its header."""
    head = table[0] if table else []
    if len(head) < 2 or _number(head[0]) is not None or not all(BATCH_CELL.fullmatch(c) for c in head[1:]):
        return table
    body = table[1:]
    corner = next((m.group() for u, _ in UNIT_SCALE[:3] if (m := u.search(head[0]))), "")    # "| µs | 1 | 64 |"
    label = lambda c: c if not corner or any(u.search(c) for u, _ in UNIT_SCALE) else f"{c} ({corner})"
    return [["batch", *(label(r[0]) for r in body)]] + [[size, *(r[i] if i < len(r) else "" for r in body)]
                                                        for i, size in enumerate(head) if i > 0]


BULLET_HEADER = ["batch", "eager", "compiled", "speedup", "verdict"]
CLAUSE_END = re.compile(r"[,;](?!\d)|\s(?:vs\.?|versus|and|against|while)\s|\s[/→|–—-]\s")


def bullet_cells(line: str) -> list[str] | None:
    """A size of a sweep written as a bullet list ("- batch 1: eager 0.12 ms, compiled 0.08 ms, speedup 0.67×, slower")
    as the cells of BULLET_HEADER: the batch (the number before the times), the clause of each time, the speedup and
    its number, the whole line. None for a line that is no such bullet."""
    item = re.match(rf"\s*{ITEM}\s*(.+)", line)
    text = ungroup(unpair(re.sub(r"[*`]", " ", item.group(1)))) if item else ""
    side = re.search(r"eager|compil|inductor", text, re.I)
    batch = NUMBER.search(text, 0, side.start()) if side else None
    if batch is None or not float(batch.group().replace(",", "")).is_integer():
        return None
    clauses = CLAUSE_END.split(text[batch.end():])
    times = [next((c for c in clauses if one.search(c) and not other.search(c) and re.search(r"\d", c)), None)
             for one, other in ((EAGER, COMPILED), (COMPILED, EAGER))]
    # "speedup 0.42×", "speedup (eager/compiled): 0.42"; "speedup 2.4× slower" kept whole, as a cell says it in words
    speedup = re.search(rf"speed-?up\W{{0,5}}(?:\w+\W+){{0,3}}?{NUMBER.pattern}(?:\s*[×x]?\s*(?:slower|faster))?",
                        text[batch.end():], re.I)
    return None if None in times else [batch.group(), *times, speedup.group() if speedup else "", line]


def _number(cell: str) -> float | None:
    """The first number in a table cell ("0.0306 ms", "**64**", "1,024"), or None."""
    m = NUMBER.search(ungroup(cell.replace("`", "").replace("*", "")))
    return float(m.group().replace(",", "")) if m else None


# A decimal comma ("0,0306", "30,6"): a comma that cannot group thousands, for the digits after it are not three or
# the number before it is 0. "1,024" stays a thousand and twenty-four.
DECIMAL_COMMA = re.compile(r"(?<![\d.,])(\d+),(\d+)(?![\d.,])")


def ungroup(text: str) -> str:
    """Numbers without the thin spaces, no-break spaces, apostrophes or underscores that group their thousands
    ("8 192", "8'192", "8_192"; commas are NUMBER's), and with a decimal point for a decimal comma."""
    text = DECIMAL_COMMA.sub(lambda m: f"{m[1]}.{m[2]}" if len(m[2]) != 3 or m[1] == "0" else m[0], text)
    return re.sub(r"(?<=\d)[\u202f\u2009\u00a0'_](?=\d{3}(?!\d))", "", text)


UNIT_SCALE = ((re.compile(r"µs|μs|\bus(?:ec)?\b|micro", re.I), 1e-3), (re.compile(r"\bms(?:ec)?\b|milli", re.I), 1.0),
              (re.compile(r"\bns\b|nano", re.I), 1e-6), (re.compile(r"\bs\b|\bsec", re.I), 1e3))


def _columns(cells: list[str]) -> dict | None:
    """A header row's columns: {"batch": i, "eager": i, "compiled": i, "speedup": i or None, "scale": (eager, compiled)
    to ms}, by the words of its cells; None when the row is not a header that names an eager and a compiled column."""
    def one(pattern, other):
        """The column of one side's median: the one that says "median" among several, else the first that is no
        quartile, spread or extreme ("eager q25 | eager median | eager q75"), else the first."""
        found = [i for i, c in enumerate(cells) if pattern.search(c) and not other.search(c)
                 and not re.search(r"speedup|ratio|vs|×", c, re.I)]
        spread = r"\b(?:q[13]|q25|q75|p25|p75|p90|p95|p99|iqr|min|max|std|stdev|sd|mad|spread|low|high|lower|upper)\b|±|%"
        return next((i for i in found if re.search(r"\bmedian\b|\bp50\b|\bmed\b", cells[i], re.I)), None) if len(found) > 1 \
            and any(re.search(r"\bmedian\b|\bp50\b|\bmed\b", cells[i], re.I) for i in found) else \
            next((i for i in found if not re.search(spread, cells[i], re.I)), found[0] if found else None)

    eager, compiled = one(EAGER, COMPILED), one(COMPILED, EAGER)
    if eager is None or compiled is None:
        return None
    batch = next((i for i, c in enumerate(cells) if re.search(r"batch|size|rows|\bb\b|\bn\b", c, re.I)), 0)
    speedup = next((i for i, c in enumerate(cells) if re.search(r"speed-?up", c, re.I)   # a "ratio" may be either way
                    and not re.search(r"\bci\b|interval|verdict|%", c, re.I)), None)
    ratio = rf"(?:{COMPILED.pattern})[^/÷\w]*[/÷][^/÷\w]*(?:t_)?eager"          # "compiled ÷ eager": as its header defines it
    if speedup is None:      # a ratio headed by what it divides: "eager/compiled", "ratio (t_eager ÷ t_compiled)"
        speedup = next((i for i, c in enumerate(cells) if i not in (eager, compiled) and
                        re.search(rf"eager[^/÷\w]*[/÷][^/÷\w]*(?:t_)?(?:{COMPILED.pattern})|{ratio}", c, re.I)), None)
    inverse = speedup is not None and re.search(ratio, cells[speedup], re.I) is not None
    corner = next((f for unit, f in UNIT_SCALE[:3] if unit.search(cells[0])), 1.0) if 0 not in (eager, compiled) else 1.0
    scale = lambda c: next((f for unit, f in UNIT_SCALE if unit.search(c)), corner)     # the corner's unit: "| µs | eager |"
    return {"batch": batch, "eager": eager, "compiled": compiled, "speedup": speedup, "inverse": inverse,
            "scale": (scale(cells[eager]), scale(cells[compiled]))}


CELL_UNIT = re.compile(r"\d\s*(µs|μs|us|usec|ms|msec|ns|s|sec)\b", re.I)


def cell_scale(cell: str, header: float) -> float:
    """A time cell's factor to ms: its own unit when it gives one ("30.6 µs", "1.23 ms"), else its header's."""
    m = CELL_UNIT.search(cell.replace("`", "").replace("*", ""))
    return next((f for unit, f in UNIT_SCALE if unit.search(m.group(1))), header) if m else header


def profile_table(profile: str, prose: bool = True) -> dict[int, tuple]:
    """{batch: (eager ms, compiled ms, speedup)} from the sweep's rows (`table_rows`): by the columns its header names
    (eager, compiled, their unit, a speedup; a cell's own unit, "30.6 µs", comes before its header's), or, without such
    a header, the first three cells of each row that holds three numbers. The speedup is None where there is no speedup column, or its cell says it in words ("4.8× slower")."""
    table: dict[int, tuple] = {}
    for block in profile_blocks(profile, prose):
        for batch, values in block.items():
            table.setdefault(batch, values)
    return table


def profile_blocks(profile: str, prose: bool = True) -> list[dict[int, tuple]]:
    """`profile_table`'s rows, one dict per table: a header that names other columns starts another table (the fixed
    cost at batch 2, or part D's three versions at batch 1024, beside the sweep)."""
    blocks, table, columns = [], {}, None
    for cells in table_rows(profile, prose):
        header = _columns(cells) if _number(cells[0]) is None else None
        if header is not None:
            if header != columns and table:
                blocks.append(table)
                table = {}
            columns = header
            continue
        where = columns or {"batch": 0, "eager": 1, "compiled": 2, "scale": (1.0, 1.0)}
        if max(where["batch"], where["eager"], where["compiled"]) >= len(cells):
            continue
        nums = [_number(cells[where[k]]) for k in ("batch", "eager", "compiled")]
        i = where.get("speedup")
        said = cells[i] if i is not None and i < len(cells) and not re.search(r"slower|faster|%", cells[i], re.I) else ""
        if None not in nums and float(nums[0]).is_integer():
            scale = [cell_scale(cells[where[k]], where["scale"][j]) for j, k in enumerate(("eager", "compiled"))]
            ratio = _number(said)
            if ratio and where.get("inverse"):
                ratio = 1 / ratio
            table.setdefault(int(nums[0]), (nums[1] * scale[0], nums[2] * scale[1], ratio))
    return [*blocks, table] if table else blocks


VERDICT_SAID = {"faster": r"faster|quicker", "slower": r"slower",
                "no difference": r"no (?:\w+ )?difference|not? (?:\w+ )?resolv|unresolv|inconclusive|indistinguishable|"
                                 r"within (?:the )?noise|no (?:clear|significant|measurable) |unclear|\bsame\b|\btie\b|"
                                 r"\beven\b|\bn/?s\b|≈|\bneither\b"}
# A verdict said of one side ("eager faster", "compiled is slower", "eager wins"): eager's win is compiled's loss.
SIDE_VERDICT = re.compile(rf"\b({SIDE})\b\s*(?:is|was|runs|ran|:|=|-|–|—)?\s*(?:[^\W\d]+\s+)?"
                          r"(faster|quicker|slower|wins?|won|loses?|lost|ahead|behind|better|worse)\b", re.I)
WINNER_COLUMN = re.compile(r"\bwinner\b|\bwins\b|\bfaster\b|\bfastest\b|\bquicker\b|\bbetter\b", re.I)


def verdicts_in_row(text: str, winner: str | None) -> set[str] | None:
    """The verdicts on compiled a row states of one side (SIDE_VERDICT), or in a "winner" / "faster" column that
    names the side (eager, compiled, or a tie); None when it names no side, and its bare words are read instead."""
    said = {("faster" if (m[2].lower() in ("faster", "quicker", "win", "wins", "won", "ahead", "better"))
             != m[1].lower().startswith("eager") else "slower") for m in SIDE_VERDICT.finditer(text)}
    if winner is not None:
        side = re.search(rf"\b{SIDE}\b", winner, re.I)
        if side:
            said.add("slower" if side.group().lower().startswith("eager") else "faster")
        elif re.search(VERDICT_SAID["no difference"] + r"|\bnone\b|^[\s*`]*[-–—=]?[\s*`]*$", winner, re.I):
            said.add("no difference")
    return said or None


def verdict_rows_problems(profile: str, rows: list) -> list[str]:
    """Whether each size's table row gives that size's verdict: in words ("slower", "no difference"), said of one
    side ("eager wins") or in a column that names the faster side."""
    rows_with_winner, winner_at = [], None
    for cells in table_rows(profile):
        if _number(cells[0]) is None and _columns(cells) is not None:      # a header: has it a "winner" column?
            winner_at = next((i for i, c in enumerate(cells) if WINNER_COLUMN.search(c)
                              and not re.search(r"speed-?up|ratio|×|\bms\b|µs|\bus\b", c, re.I)), None)
            continue
        rows_with_winner.append((cells, cells[winner_at] if winner_at is not None and winner_at < len(cells) else None))

    def row_of(batch: int) -> list:
        """The table row of that batch: the one that starts with it, else one with a cell that is just that number."""
        first = [r for r in rows_with_winner if _number(r[0][0]) == batch]
        alone = [r for r in rows_with_winner if any(re.fullmatch(rf"[*`\s]*{batch}[*`\s]*", c) for c in r[0])]
        return first or alone or [([""], None)]     # a size's rows (batch 2's fixed cost, its sweep row)

    def states(cells: list[str], winner: str | None, verdict: str) -> bool:
        """A row states "faster" or "slower" when what it says of the sides is that verdict and nothing else ("eager
        faster, compiled faster" says both: no verdict), else by its words; "no difference" by its words too, so that
        "no difference (eager slightly faster)" is read as the tie it says it is."""
        text = " ".join(cells)
        said = verdicts_in_row(text, winner)
        words = re.search(VERDICT_SAID[verdict], text, re.I) is not None
        if said is None:
            return words
        return words or verdict in said if verdict == "no difference" else said == {verdict}

    for r in rows:
        verdict = r.get("verdict") if isinstance(r, dict) else None
        if verdict in VERDICT_SAID and not any(states(cells, winner, verdict) for cells, winner in row_of(int(r["batch"]))):
            return ["'Profile' should give each size's verdict in its row (faster, slower or no difference: the "
                    "comparison's verdict on compiled), not only the times."]
    return []


def crossover_stated_problems(report: str, profile: str, crossover) -> list[str]:
    """Whether the report states part E's crossover: a line about the crossover that gives its batch, or says there is
    none (without the word, a sentence of 'Profile' that does)."""
    if crossover == "not run":
        return []
    word = r"cross-?over|break-?even"
    lines = [line for line in report.splitlines() if re.search(word, line, re.I) and not line.lstrip().startswith("#")]
    lines += [" ".join(f"{title} {body}".split()) for title, body in sections(report).items()     # "## Crossover" + its text
              if re.search(word, title, re.I)]
    if not lines:
        prose = " ".join(line for line in join_items(profile).splitlines() if "|" not in line and bullet_cells(line) is None)
        said = re.search(r"\bnever\b|\bnot faster\b|\bno (?:batch|size)\b|\bnone\b", prose, re.I) if crossover is None \
            else re.search(rf"(?<![\d.]){int(crossover)}(?!\d|\.\d)", ungroup(prose).replace(",", ""))
        return [] if said else ["'Profile' should state the crossover your sweep found (part E's `crossover`: the batch, "
                                "or that there is none)."]
    if crossover is None:
        said = any(re.search(r"\bnone\b|\bno\b|\bnever\b|\bnot\b|n['’]t\b|n/a|\bnowhere\b|cross-?over\W*$", line, re.I)
                   for line in lines)
    else:
        said = any(re.search(rf"(?<![\d.]){int(crossover)}(?!\d|\.\d)", ungroup(line).replace(",", "")) for line in lines)
    return [] if said else ["the report's crossover is not the one part E found (`crossover`, from your sweep's "
                            "verdicts): state that one, the batch or that there is none, not a value worked out "
                            "another way."]


VERDICT_WORDS = re.compile(r"faster|slower|quicker|no (?:\w+ )?difference|resolv|inconclusive|indistinguishable|"
                           r"outperform\w*|\bbeats?\b|\bbeaten\b|\bw[oi]ns?\b|\blos(?:t|es)\b|\bahead\b|\bbehind\b|"
                           r"\btie[ds]?\b", re.I)
RATIO_SAID = re.compile(rf"({NUMBER.pattern})\s*(?:×|x\b|times\b)", re.I)      # "2.6×", "1.3x", "2 times"


def explanation_problems(text: str, rows: list) -> list[str]:
    """'When compiling pays' quotes the sweep: a verdict and a batch size, a speedup or an interval it measured. A ratio
    ("0.38×", "2.6× slower", "eager was 2.6× faster") is a speedup or an interval bound, or its inverse where the words
    say so: a batch size does not count for it, and a ratio said "faster" of compiled is no slowdown's inverse (the
    page's "1.1×–2× faster" quotes no sweep, though the sweep has a batch 2 and a slowdown of 1/0.95)."""
    says_verdict = VERDICT_WORDS.search(text)
    batches, ratios = set(), set()
    for r in rows:
        if isinstance(r, dict):
            batches |= {float(r["batch"])} if isinstance(r.get("batch"), (int, float)) else set()
            ratios |= {float(v) for v in [r.get("speedup"), *(r.get("ci") or [])] if isinstance(v, (int, float)) and v > 0}
    said_ratios = {m.start(1) for m in RATIO_SAID.finditer(text)}

    def quoted(m) -> bool:
        said = m.group().replace(",", "")
        n = float(said)
        if m.start() not in said_ratios:
            return any(abs(n - v) <= 0.011 for v in batches | ratios)       # as printed, to two decimals
        digits = len(re.match(r"[-+]?\d*\.?(\d*)", said).group(1))
        close = lambda vs: any(abs(n - v) <= (0.5 * 10 ** -digits + 0.006 if digits else 0.05) for v in vs)
        way = re.search(r"faster|quicker|slower", text[m.end():m.end() + 25], re.I)
        before = re.split(r"[.;:!?]", text[:m.start()])[-1].lower()
        eager_said = "eager" in before and "compil" not in before             # "eager was 2.6× faster"
        if way is None:
            return close(ratios) or close({1 / v for v in ratios})
        inverse = (way.group().lower() == "slower") != eager_said
        return close({1 / v for v in ratios} if inverse else ratios) or (n < 1 and close(ratios))

    hits = [m for m in NUMBER.finditer(text) if re.search(r"\d", m.group()) and quoted(m)]
    # a batch size, or a ratio to two decimals, or two ratios: one ratio to a decimal or none ("1.1×–2× faster", the
    # page's) may match a sweep by chance
    precise = lambda m: len(re.match(r"[-+]?\d*\.?(\d*)", m.group()).group(1)) >= 2
    quotes = any(m.start() not in said_ratios or precise(m) for m in hits) or len({m.group() for m in hits}) >= 2
    if says_verdict and quotes:
        return claims_problems(text, rows)
    return ["'When compiling pays' should quote your sweep: the verdicts (where compiled was faster, slower or no "
            "different from eager) with the batch sizes and intervals they come from, then say why."]


# "compiled was slower at batch 1, 2 and 8", "eager was faster than compiled for batch 1": a side, the way it went, the
# sizes (a hedge or a negation between them, "not faster", "would be faster", says no such thing)
GROUPED = r"\d+(?:[,\u202f\u2009]\d{3}(?!\d))*"         # 8192, 8,192, 8 192
CLAIM = re.compile(r"\b(eager|compil\w*|inductor)\b((?:(?!\b(?:eager|compil\w*|inductor)\b)[^.;:!?\n]){0,40}?)"
                   r"\b(faster|quicker|slower)\b[^.;:!?\n]{0,24}?\b(?:at|for|with|on)\s+(?:the\s+)?(?:batch(?:es|\s+sizes?)?|"
                   r"sizes?|bs|B)\s*=?\s*(" + GROUPED + r"(?:(?:\s*,\s*and\s+|\s*,\s*|\s+(?:and|&|or)\s+)" + GROUPED + r")*)"
                   r"(?![\d.]|\s*[×x%]|\s*(?:ms|µs|us)\b)", re.I)
HEDGE = re.compile(r"\b(?:not|never|no|neither|nor|hardly|would|should|could|might|may|expect\w*|hope\w*|if|unless)\b|"
                   r"n['’]t\b", re.I)


def claims_problems(text: str, rows: list) -> list[str]:
    """Whether what 'When compiling pays' says of a size ("compiled was faster at batch 1") goes the way the sweep's
    verdict there went: faster said of a size where compiled was slower, or the reverse, is the sweep read backwards."""
    verdicts = {int(r["batch"]): r.get("verdict") for r in rows
                if isinstance(r, dict) and isinstance(r.get("batch"), (int, float))}
    for m in CLAIM.finditer(text):
        before = text[max(0, m.start() - 30):m.start()]
        if HEDGE.search(m.group(2)) or HEDGE.search(re.split(r"[.;:!?]", before)[-1]):
            continue
        sizes = [int(ungroup(n).replace(",", "")) for n in re.split(r"\s*,\s*and\s+|\s*,\s+|\s+(?:and|&|or)\s+",
                                                                      m.group(4).strip(", "))
                 if re.fullmatch(GROUPED, n)]
        if not sizes or not all(b in verdicts for b in sizes):
            continue
        went = "slower" if m.group(3).lower() == "slower" else "faster"
        if EAGER.search(m.group(1)):
            went = {"faster": "slower", "slower": "faster"}[went]
        against = [b for b in sizes if {went, verdicts[b]} == {"faster", "slower"}]
        if against:
            return [f"'When compiling pays' says compiled was {went} at batch {', '.join(map(str, against))}, where your "
                    f"sweep's verdict says it was {verdicts[against[0]]}: quote each verdict the way it went (the "
                    "speedup is eager_ms / compiled_ms, below 1 where compiled is slower)."]
    return []


def profile_problems(profile: str, rows) -> list[str]:
    """Whether the report's profile gives the notebook's own sweep (same batches, times within rounding), in a table
    either way round or a bullet list; what to write when it gives none the check can read."""
    blocks = profile_blocks(profile)
    if not isinstance(rows, list) or not rows:
        return ["'Profile' should give the table of your sweep (sweep_rows is empty or missing: run part E first)."]
    try:
        want = {int(r["batch"]): (float(r["eager_ms"]), float(r["compiled_ms"]),
                                  float(r.get("speedup", float(r["eager_ms"]) / float(r["compiled_ms"])))) for r in rows}
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return []          # the sweep's own format is judged by 04.crossover
    if not blocks:
        return ["'Profile' holds no sweep this check can read: write it as a Markdown table with one row per batch size, "
                "| batch | eager ms | compiled ms | speedup | verdict | (the batch sizes as its columns and a row per "
                "quantity read as well, and so does a bullet per size: '- batch 1: eager 0.12 ms, compiled 0.08 ms, "
                "speedup 1.50×, faster')."]
    close = lambda a, b: abs(a - b) <= 0.02 * abs(b) + 1e-3
    fits = lambda got, b: close(got[0], want[b][0]) and close(got[1], want[b][1])
    # each size from the table that gives it as measured (else the first that gives it); the tables that give a size of
    # the sweep hold no other size (a table of its own at another batch, part D's at 1024, is not the sweep's)
    table = {b: next((t[b] for t in blocks if b in t and fits(t[b], b)), None) or
             next((t[b] for t in blocks if b in t), None) for b in want}
    table = {b: v for b, v in table.items() if v is not None}
    table.update({b: v for t in blocks if set(t) & set(want) for b, v in t.items() if b not in want})
    if set(table) != set(want) or not all(fits(table[b], b) for b in want):
        lacking = ", ".join(str(b) for b in sorted(set(want) - set(table)))
        return ["'Profile' should give the numbers your sweep measured (sweep_rows), a row (or a bullet) per batch size as "
                "in | batch | eager ms | compiled ms | speedup | verdict |: the report's rows do not match them"
                + (f" (no row gives the eager and compiled times of batch {lacking})." if lacking else ".")]
    if not all(table[b][2] is None or abs(table[b][2] - s) <= 0.02 * s + 0.006 for b, (_, _, s) in want.items()):
        return ["the speedup column of 'Profile' does not give your sweep's speedups (sweep_rows): the speedup is "
                "eager_ms / compiled_ms, above 1 when compiled is faster, below 1 when it is slower."]
    return []


def compile_match_problems(body: str, max_err: Any) -> list[str]:
    """'Compile match' must state what part A measured, faithfully: a finite error as a number, a NaN or an infinity
    as such (part A's own check charges the mistake, once), and nothing in particular when part A did not run."""
    measured = re.sub(r"(\d)\s*([eE])\s*[−–]\s*(\d)", r"\1\2-\3", e_notation(body))      # 4.66e−10: a Unicode minus
    measured = re.sub(r"\b1(?:\.0*)?[eE]-0?6\b", "", measured)   # the criterion is not the measurement
    says_nan = re.search(r"\bnan\b|\binf(?:inity|inite)?\b|∞|not a number", measured, re.I) is not None
    says_number = re.search(r"\d\.?\d*e-\d+|0\.0+\d*|\b0\b|\d\.\d+", measured, re.I) is not None
    if max_err is None:                                   # part A left undone: the report cannot state a measurement
        return []
    if isinstance(max_err, float) and not math.isfinite(max_err):
        return [] if says_nan else ["'Compile match' should state the max abs error part A measured; your part A "
                                    "measured a non-finite value, and the report should say so."]
    if says_nan or not says_number:
        return ["'Compile match' should give the measured max abs error as a finite number."]
    text = measured.replace(",", "")
    stated = [abs(float(m.group())) for m in NUMBER.finditer(text) if re.search(r"\d", m.group())]
    bounds = [abs(float(m.group(1))) for m in re.finditer(rf"(?:<|≤|<=|below|under|less than|smaller than)\s*~?\s*({NUMBER.pattern})", text, re.I)]
    # rounded to a significant digit at least (4.66e-10 may read 5e-10, never 3.7e-09), or bounded within a decade
    err = abs(max_err)
    slack = 0.0 if err == 0 else 0.51 * 10 ** math.floor(math.log10(err))
    if not any(abs(n - err) <= slack for n in stated) and not any(err <= b <= 10 * err for b in bounds):
        return ["'Compile match' should give the max abs error part A measured (max_err), as your notebook measured "
                "it: the number in the report is not that one (re-run write_report after part A)."]
    return []


def manifest_digest(meta: dict) -> str | None:
    """A manifest entry's SHA-256, whatever the key's spelling ("sha256", "SHA-256", "sha_256") and with or without the
    "sha256:" prefix."""
    value = next((v for k, v in meta.items() if re.sub(r"[-_\s]", "", str(k)).lower() == "sha256"), None)
    return value.strip().lower().removeprefix("sha256:") if isinstance(value, str) else value


# What makes a section's text clearly that section's, for a heading that names none ("## Results" over the sweep).
REPORT_CLUES = {
    "Compile match": lambda body: re.search(r"\b(?:error|diff\w*|match\w*|eager)\b", body, re.I) is not None
    and re.search(r"\d\s*[eE]\s*[-−]\s*\d|×\s*10|\bnan\b|0\.0", body, re.I) is not None and not profile_table(body, prose=False),
    "Kernel": lambda body: re.search(r"kernel\.(?:cpp|py)\b|KERNEL_ANNOTATION", body) is not None,
    "Profile": lambda body: bool(profile_table(body, prose=False)),
    "When compiling pays": lambda body: len(body.split()) >= 25 and VERDICT_WORDS.search(body) is not None
    and not profile_table(body, prose=False),
}


def report_problems(info: dict, kernels: list[str]) -> list[str]:
    """Everything wrong with REPORT.md and manifest.json, from probe_report's facts; `kernels` are the softmax kernels
    a real dump holds (the report must name one)."""
    report, manifest = info.get(REPORT_FILE), info.get(MANIFEST_FILE)
    if report is None:
        return [f"{REPORT_FILE} does not exist in the output folder: run write_report."]
    found, missing = named_sections(report, REPORT_SECTIONS, REPORT_CLUES)
    if missing:
        return [f"REPORT.md lacks the section(s) {', '.join('## ' + m for m in missing)}: {HEADING_HINT}"]
    problems = []
    problems += compile_match_problems(found["compile match"], info.get("max_err", "unknown"))
    if info.get("kernel_saved", True):      # part C saved the kernel: the report points to it and names it
        named = sorted({f"kernel.{ext}" for ext in re.findall(r"kernel\.(cpp|py)\b", found["kernel"])})
        if ANNOTATION_FILE not in found["kernel"] or not named:
            problems.append("'Kernel' should point to kernel.cpp or kernel.py and to KERNEL_ANNOTATION.md.")
        elif (info.get("kernel_file") or named[0]) not in named or not set(named) & set(info.get("artifacts", named)):
            saved = [info["kernel_file"]] if info.get("kernel_file") else \
                [n for n in ("kernel.cpp", "kernel.py") if n in info.get("artifacts", [])]
            problems.append(f"'Kernel' points to {' and '.join(named)}, not to the file part C saved in the output folder, "
                            f"{' and '.join(saved) or 'another file'} (a C++ kernel goes to kernel.cpp, a Triton one to "
                            "kernel.py). Point to the file part C wrote (facts['kernel_file']), not a name typed in.")
        if not any(name in found["kernel"] for name in kernels):
            problems.append("'Kernel' should name the fused softmax kernel of your dump, as Inductor named it.")
    elif ANNOTATION_FILE not in found["kernel"]:   # part C not done (charged there): nothing to point to but part D's file
        problems.append("'Kernel' should point to KERNEL_ANNOTATION.md.")
    rows = info.get("sweep_rows")
    if info.get("sweep_written", True):     # part E not done (charged there): no sweep for these two sections
        problems += profile_problems(found["profile"], rows)
        if not problems and isinstance(rows, list):
            problems += verdict_rows_problems(found["profile"], rows) or \
                crossover_stated_problems(report, found["profile"], info.get("crossover", "not run"))
    device = info.get("device")
    if isinstance(device, str) and not device_said(outside_explanation(report, found["when compiling pays"]), device):
        problems.append("REPORT.md should say which device the sweep was measured on (facts['device']), beside the "
                        "profile: times and verdicts hold for the machine that measured them, and no other.")
    if info.get("sweep_written", True) and len(found["when compiling pays"].split()) < 25:
        problems.append("'When compiling pays' should explain, in a few sentences, what your sweep's verdicts say (where "
                        "compiled was faster, slower or no different from eager) and why.")
    elif info.get("sweep_written", True) and isinstance(rows, list) and rows:
        problems += explanation_problems(found["when compiling pays"], rows)
    if manifest is None:
        return problems + [f"{MANIFEST_FILE} does not exist: write_report should write it."]
    fmt = "manifest.json should be a JSON object with 'files' ({name: {\"sha256\": ..., \"bytes\": ...}}) and 'versions' ({\"torch\": ...})."
    try:
        data = json.loads(manifest)
        files, versions = data["files"], data["versions"]
        if not isinstance(files, dict) or not isinstance(versions, dict):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        return problems + [fmt]
    keys = {os.path.normpath(str(name)).replace("\\", "/") for name in files}     # "./REPORT.md" is REPORT.md too
    if REPORT_FILE not in keys:
        problems.append("manifest.json should list REPORT.md.")
    unlisted = [name for name in info.get("artifacts", []) if name in report and name not in keys]
    if unlisted:
        problems.append(f"manifest.json should list every file of the output folder the report points to, with its size "
                        f"and SHA-256; it lacks {', '.join(unlisted)}.")
    if "torch" not in versions:
        problems.append("manifest.json 'versions' should include torch.")
    problems += report_again_problems(info.get("again"))
    lacking = [key for key in ("lab", "device") if not str(data.get(key) or "").strip()]
    try:
        datetime.fromisoformat(str(data.get("created", data.get("date"))).replace("Z", "+00:00"))
    except ValueError:
        lacking.insert(1, "created")
    if lacking:
        problems.append(f"manifest.json should give the lab, the date and time it was created (\"created\", in ISO 8601: "
                        f"2026-11-23T10:00:00+00:00) and the device, as the exercise's shape shows; it lacks "
                        f"{', '.join(lacking)}.")
    for name, meta in files.items():
        seen = info["listed"].get(str(name), {})
        if not seen.get("exists"):
            problems.append(f"manifest.json lists {name}, which does not exist in the output folder.")
        elif not isinstance(meta, dict) or manifest_digest(meta) != seen.get("sha256"):
            problems.append(f"manifest.json's sha256 for {name} does not match the file (re-run write_report after changing files).")
        elif "bytes" in seen and meta.get("bytes", meta.get("size")) != seen["bytes"]:
            problems.append(f"manifest.json's bytes for {name} is not the file's size in bytes (its length on disk, "
                            "stat().st_size: a count of characters differs wherever the file holds non-ASCII text).")
    return problems


@dataclass(frozen=True)
class ReportCase:
    """The softmax kernels a report may name: the notebook's capture (None) or the grader's own and stored dumps."""

    kernels: tuple | None = CAPTURE


@register("04.report", points=2, exercise="G", title="REPORT.md and manifest.json", cases=ReportCase())
def _report(ctx: Context, case: ReportCase) -> str:
    info = ctx.probe(probe_report, case.kernels is CAPTURE)
    fail_if(report_problems(info, info.get("kernels", []) if case.kernels is CAPTURE else list(case.kernels)))
    return "REPORT.md and manifest.json are complete and agree with what the notebook measured"
