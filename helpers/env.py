"""Where the labs run: device choice, version labels, QUICK sizes and the `workbook doctor` report.

Every lab's parameters cell calls `pick_device(DEVICE)`; every plot and report is stamped with
`device_label(device)`, so a number never travels without the machine that produced it.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeVar

import torch

T = TypeVar("T")

SUPPORTED_PYTHON = ((3, 10), (3, 13))
SUPPORTED_TORCH = ((2, 11), (2, 15))
MIN_FREE_GB = 2.0  # the Inductor and Triton caches of all five labs stay well under this


# -----------------------------------------------------------------------------
# device and versions


def _cuda_works() -> bool:
    """True if CUDA is present and a tiny op actually runs (a broken driver fails here, not mid-lab)."""
    if not torch.cuda.is_available():
        return False
    try:
        x = torch.ones(4, device="cuda")
        return float((x + 1).sum().item()) == 8.0
    except Exception:
        return False


GPU_SHARE_ENV = "WORKBOOK_GPU_SHARE"   # set by the grader when jobs share a GPU: the share of its memory each may use


def gpu_share() -> float | None:
    """The share of the GPU's memory this process may use, when the grader shares the GPU between jobs; else None."""
    raw = os.environ.get(GPU_SHARE_ENV, "").strip()
    if not raw:
        return None
    try:
        share = float(raw)
    except ValueError:
        raise ValueError(f"{GPU_SHARE_ENV}={raw!r}: give the share of GPU memory as a number in (0, 1]") from None
    if not 0 < share <= 1:
        raise ValueError(f"{GPU_SHARE_ENV}={raw!r}: give the share of GPU memory as a number in (0, 1]")
    return share


def apply_gpu_share(device: torch.device) -> float | None:
    """Cap this process's CUDA caching allocator at its share of the GPU (`gpu_share()`), when one is set.

    The grader runs several submissions on one GPU this way: an allocation past the share raises
    torch.OutOfMemoryError in that job only, and the grader grades that submission again alone."""
    share = gpu_share()
    if share is not None and device.type == "cuda" and torch.cuda.is_available():
        index = device.index if device.index is not None else torch.cuda.current_device()   # "cuda" names no index
        torch.cuda.set_per_process_memory_fraction(share, index)
    return share


def pick_device(pref: str | torch.device = "auto") -> torch.device:
    """Turn the DEVICE parameter ("auto", "cpu", "cuda", "cuda:1") into a torch.device that works here."""
    device = _pick_device(pref)
    apply_gpu_share(device)
    return device


def _pick_device(pref: str | torch.device) -> torch.device:
    pref = str(pref).strip().lower()
    if pref == "auto":
        return torch.device("cuda") if _cuda_works() else torch.device("cpu")
    if pref == "cpu":
        return torch.device("cpu")
    if pref.startswith("cuda"):
        if not torch.cuda.is_available():
            raise RuntimeError(
                f'DEVICE="{pref}" but this machine has no usable CUDA GPU '
                f"(torch {torch.__version__}, built with CUDA {torch.version.cuda}). "
                'Set DEVICE = "cpu" or DEVICE = "auto" in the parameters cell; every lab runs on CPU.'
            )
        return torch.device(pref)
    raise ValueError(f'DEVICE must be "auto", "cpu" or "cuda" (got {pref!r}); "auto" picks the GPU when there is one.')


def _triton_version() -> str | None:
    """Triton's version, or None when it is not installed."""
    try:
        import triton

        return triton.__version__
    except Exception:
        return None


def cpu_count() -> int:
    """CPU cores this process may use (the container's share, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def versions(device: str | torch.device | None = None) -> dict:
    """Python, torch, triton, CUDA runtime, device name, compute capability and core count, as a dict."""
    device = torch.device(device) if device is not None else pick_device("auto")
    on_cuda = device.type == "cuda" and torch.cuda.is_available()
    cap = torch.cuda.get_device_capability(device) if on_cuda else None
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "triton": _triton_version(),
        "cuda": torch.version.cuda,  # the CUDA runtime torch was built with; None on CPU builds
        "device": torch.cuda.get_device_name(device) if on_cuda else f"CPU ({cpu_count()} cores)",
        "capability": f"{cap[0]}.{cap[1]}" if cap else None,
        "cpu_count": cpu_count(),
    }


def device_label(device: str | torch.device | None = None) -> str:
    """Short label for plots and reports, e.g. "NVIDIA H100 80GB HBM3 · torch 2.11.0 · triton 3.6.0"."""
    v = versions(device)
    parts = [v["device"], f"torch {v['torch'].split('+')[0]}"]
    if v["triton"]:
        parts.append(f"triton {v['triton']}")
    return " · ".join(parts)


# -----------------------------------------------------------------------------
# the run's settings: one name each, one channel (the environment) from the grader or CI to the notebook

SETTINGS_ENV = {"device": "WORKBOOK_DEVICE", "quick": "WORKBOOK_QUICK", "out_dir": "WORKBOOK_OUT_DIR",
                "seed": "WORKBOOK_SEED"}


@dataclass(frozen=True)
class LabSettings:
    """Where and how a lab runs: DEVICE ("auto", "cpu", "cuda"), QUICK, OUT_DIR and SEED."""

    device: str = "auto"
    quick: bool = False
    out_dir: str = "experiments"
    seed: int = 0

    def to_env(self) -> dict[str, str]:
        """The environment that makes every lab (and the grader's probes) run with these settings."""
        return {SETTINGS_ENV["device"]: self.device, SETTINGS_ENV["quick"]: "1" if self.quick else "0",
                SETTINGS_ENV["out_dir"]: str(self.out_dir), SETTINGS_ENV["seed"]: str(self.seed)}


_CURRENT: LabSettings | None = None


def _from_env(base: LabSettings) -> LabSettings:
    """`base` with every WORKBOOK_* variable that is set taking precedence."""
    env = {key: os.environ[var] for key, var in SETTINGS_ENV.items() if os.environ.get(var, "") != ""}
    if "quick" in env:
        env["quick"] = env["quick"].strip().lower() in ("1", "true", "yes")
    if "seed" in env:
        env["seed"] = int(env["seed"])
    return LabSettings(**{**base.__dict__, **env})


def lab_settings(DEVICE: str = "auto", QUICK: bool = False, OUT_DIR: str = "experiments", SEED: int = 0) -> LabSettings:
    """The lab's settings: the parameters cell's values, where the grader or CI (WORKBOOK_* variables) do not override them.

    Every lab's set-up cell calls this once; the checks read the same settings (`current_settings()`)."""
    global _CURRENT
    _CURRENT = _from_env(LabSettings(str(DEVICE), bool(QUICK), str(OUT_DIR), int(SEED)))
    return _CURRENT


def current_settings() -> LabSettings:
    """The settings this process runs with: the environment's first, then what the set-up cell resolved."""
    return _from_env(_CURRENT or LabSettings())


def scaled(full: T, quick: T, QUICK: bool) -> T:
    """The QUICK value when QUICK is on (CI, grading), else the full one."""
    return quick if QUICK else full


# -----------------------------------------------------------------------------
# doctor


@dataclass
class Finding:
    """One line of the doctor's report: what was checked, how it went, and what to do about it."""

    name: str
    status: Literal["ok", "warn", "fail"]
    detail: str
    fix: str | None = None


ICONS = {"ok": "✅", "warn": "⚠️ ", "fail": "❌"}


def _major_minor(version: str) -> tuple[int, int]:
    """(2, 13) from "2.13.0+cpu"."""
    m = re.match(r"(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def _check_python() -> Finding:
    """Python within the supported range."""
    v = sys.version_info[:2]
    lo, hi = SUPPORTED_PYTHON
    detail = f"{platform.python_version()} ({sys.executable})"
    if v < lo:
        return Finding("python", "fail", detail, "Use Python 3.10–3.13: `make lab` builds .venv with a supported python3.")
    if v > hi:
        return Finding("python", "warn", detail + ", newer than tested", "Python 3.10–3.13 is tested; if torch fails to install, use 3.12.")
    return Finding("python", "ok", detail)


def _check_torch() -> Finding:
    """torch within the supported range."""
    v = _major_minor(torch.__version__)
    lo, hi = SUPPORTED_TORCH
    detail = f"{torch.__version__} (CUDA build {torch.version.cuda})" if torch.version.cuda else f"{torch.__version__} (CPU build)"
    if not lo <= v <= hi:
        return Finding("torch", "warn", detail + ", outside the tested 2.11–2.15",
                       'Install a tested version: pip install "torch>=2.11,<2.16". Generated-code names may differ.')
    return Finding("torch", "ok", detail)


def _check_triton() -> Finding:
    """Triton importable (Inductor writes Triton kernels on GPU; the labs run it under the interpreter on CPU)."""
    v = _triton_version()
    if v:
        return Finding("triton", "ok", v)
    status = "fail" if sys.platform.startswith("linux") else "warn"
    return Finding("triton", status, "not importable: Lab 03's Triton kernels cannot run (Inductor's CPU code needs no Triton)",
                   'pip install "triton>=3.5,<4" (Linux only; on macOS/Windows do those exercises on a Linux machine).')


def _check_device() -> Finding:
    """Which device the labs will use, and whether Triton can target it."""
    if not torch.cuda.is_available():
        return Finding("device", "ok", f"CPU only ({cpu_count()} cores): labs run on CPU, Triton in the interpreter")
    if not _cuda_works():
        return Finding("device", "warn", "CUDA is visible but a tiny op failed on it; labs fall back to CPU",
                       "Check the driver with `nvidia-smi` and that torch's CUDA build matches it; or set DEVICE = \"cpu\".")
    name = torch.cuda.get_device_name(0)
    major, minor = torch.cuda.get_device_capability(0)
    detail = f"{name}, compute capability {major}.{minor}, CUDA {torch.version.cuda}"
    if torch.version.hip is None and major < 7:
        return Finding("device", "warn", detail + ": Triton needs sm 7.0+ on NVIDIA, so Inductor cannot write GPU kernels",
                       'Use a Volta-or-newer GPU, or set DEVICE = "cpu".')
    return Finding("device", "ok", detail + (" (Triton needs sm 7.0+: fine)" if torch.version.hip is None else ""))


def _find_cpp_compiler() -> str | None:
    """The C++ compiler Inductor will call, asked from Inductor itself, else the first one on PATH."""
    try:
        from torch._inductor.cpp_builder import get_cpp_compiler

        cxx = get_cpp_compiler()
        path = shutil.which(cxx) or (cxx if os.path.isfile(cxx) else None)
        if path:
            return path
    except Exception:
        pass
    for name in (os.environ.get("CXX"), "g++", "c++", "clang++"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def _check_cpp_compiler() -> Finding:
    """A C++ compiler, which Inductor needs for CPU kernels (and to build Triton's launcher on GPU)."""
    cxx = _find_cpp_compiler()
    if cxx:
        return Finding("c++ compiler", "ok", cxx)
    return Finding("c++ compiler", "fail", "none found: Inductor cannot build CPU kernels",
                   "Install one: `sudo apt-get install g++` (Debian/Ubuntu), `xcode-select --install` (macOS), "
                   "or `conda install -c conda-forge gxx_linux-64`; or set CXX to its path.")


_COMPILE_SNIPPET = """
import sys, torch
dev = sys.argv[1]
f = torch.compile(lambda x: (x + 1).relu())
x = torch.randn(64, device=dev)
assert torch.allclose(f(x), (x + 1).relu()), "compiled result differs from eager"
print("ok")
"""

_TRITON_SNIPPET = """
import sys, torch, triton, triton.language as tl
@triton.jit
def add_one(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)
x = torch.arange(1000, dtype=torch.float32, device=sys.argv[1])
y = torch.empty_like(x)
add_one[(triton.cdiv(1000, 256),)](x, y, 1000, BLOCK=256)
assert torch.equal(y, x + 1), "Triton kernel gave a wrong answer"
print("ok")
"""


def _run_snippet(code: str, args: list[str], timeout: float, env: dict | None = None) -> tuple[bool, str]:
    """Run Python code from a file in a fresh process (Triton needs real source); (ok, last error line)."""
    with tempfile.TemporaryDirectory(prefix="workbook_doctor_") as tmp:
        script = Path(tmp) / "snippet.py"
        script.write_text(code)
        try:
            r = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                               timeout=timeout, env={**os.environ, **(env or {})})
        except subprocess.TimeoutExpired:
            return False, f"timed out after {timeout:.0f} s"
    if r.returncode == 0 and r.stdout.strip().endswith("ok"):
        return True, ""
    lines = [ln for ln in (r.stderr or r.stdout).strip().splitlines() if ln.strip()]
    return False, lines[-1][:300] if lines else f"exit code {r.returncode}"


def _check_compile(device: str, timeout: float) -> Finding:
    """torch.compile of a one-line function really builds and runs here."""
    ok, err = _run_snippet(_COMPILE_SNIPPET, [device], timeout)
    if ok:
        return Finding("inductor compile", "ok", f"torch.compile(lambda x: (x + 1).relu()) runs on {device}")
    fix = ("If it timed out, run `workbook doctor` again (the first compile fills the cache) or raise the timeout. "
           "Otherwise run `TORCH_LOGS=output_code python -c \"...\"` on the lambda and read the first error; "
           "a missing compiler or Python headers (`apt-get install python3-dev`) is the usual cause.")
    return Finding("inductor compile", "fail", f"tiny torch.compile on {device} failed: {err}", fix)


def _check_triton_runs(on_cuda: bool, timeout: float) -> Finding:
    """Triton runs natively on the GPU, or at least under TRITON_INTERPRET=1 on CPU tensors."""
    if _triton_version() is None:
        return Finding("triton kernel", "fail" if sys.platform.startswith("linux") else "warn",
                       "Triton is not installed", 'pip install "triton>=3.5,<4"')
    if on_cuda:
        ok, err = _run_snippet(_TRITON_SNIPPET, ["cuda"], timeout)
        if ok:
            return Finding("triton kernel", "ok", "native: a Triton kernel compiled and ran on the GPU")
        native_err = err
    ok, err = _run_snippet(_TRITON_SNIPPET, ["cpu"], timeout, env={"TRITON_INTERPRET": "1"})
    if ok and on_cuda:
        return Finding("triton kernel", "warn", f"only the interpreter works; native run failed: {native_err}",
                       "Check that the triton and torch versions match (pip show triton) and that the driver is recent.")
    if ok:
        return Finding("triton kernel", "ok", "interpreter: kernels run on CPU tensors with TRITON_INTERPRET=1 (no GPU)")
    return Finding("triton kernel", "fail", f"a 10-line Triton kernel failed under TRITON_INTERPRET=1: {err}",
                   'Reinstall Triton: pip install --force-reinstall "triton>=3.5,<4" (it needs numpy).')


def inductor_cache_dir() -> Path:
    """The folder Inductor caches compiled kernels in (TORCHINDUCTOR_CACHE_DIR, else its default)."""
    env = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if env:
        return Path(env).expanduser().resolve()
    try:
        from torch._inductor.runtime.cache_dir_utils import default_cache_dir

        return Path(default_cache_dir()).resolve()
    except Exception:  # layout differs in some torch version: rebuild Inductor's default by hand
        user = re.sub(r'[\\/:*?"<>|]', "_", os.environ.get("USER", "user"))
        return Path(tempfile.gettempdir()) / f"torchinductor_{user}"


def _check_cache_dir(path: Path) -> Finding:
    """The Inductor cache folder exists (or can be made) and is writable."""
    fix = "Point it at a writable folder: export TORCHINDUCTOR_CACHE_DIR=$HOME/.cache/torchinductor"
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".doctor_"):
            pass
    except OSError as e:
        return Finding("inductor cache", "fail", f"{path} is not writable: {e.strerror or e}", fix)
    return Finding("inductor cache", "ok", f"{path} (writable)")


def _check_disk(path: Path) -> Finding:
    """Free disk space where the compiled kernels are cached."""
    probe = path if path.exists() else Path(tempfile.gettempdir())
    free_gb = shutil.disk_usage(probe).free / 1e9
    detail = f"{free_gb:.1f} GB free at {probe}"
    if free_gb < 0.2:
        return Finding("disk space", "fail", detail, "Free some space, or set TORCHINDUCTOR_CACHE_DIR to a disk with room.")
    if free_gb < MIN_FREE_GB:
        return Finding("disk space", "warn", detail + f" (labs want ~{MIN_FREE_GB:.0f} GB for caches and outputs)",
                       "Free some space, or set TORCHINDUCTOR_CACHE_DIR to a disk with room.")
    return Finding("disk space", "ok", detail)


def _check_jupyter() -> Finding:
    """The notebook tools: JupyterLab, widgets and papermill for the labs; nbval only to test the solutions.

    `make lab` installs packages only when it creates .venv, so the fix names the pip command, which works on any.
    """
    wanted = ["jupyterlab", "ipywidgets", "papermill"]
    missing = [m for m in wanted if importlib.util.find_spec(m) is None]
    if missing:
        return Finding("jupyter", "warn", "missing: " + ", ".join(missing),
                       "Install them into the course's environment: .venv/bin/python -m pip install -e '.[lab]' "
                       "(`make lab` does this only when it creates .venv).")
    if importlib.util.find_spec("nbval") is None:
        return Finding("jupyter", "ok", ", ".join(wanted) + " importable; nbval, which only tests notebooks (not "
                       "needed for the labs), is not: .venv/bin/python -m pip install -e '.[test]' adds it")
    return Finding("jupyter", "ok", ", ".join(wanted + ["nbval"]) + " importable")


def _check_sandbox() -> Finding | None:
    """For instructors: can the grader jail each job with bubblewrap here (as a job uid when we are root)?"""
    try:
        from helpers.grading import sandbox
    except ImportError:      # the learner bundle has no grader
        return None
    uid = sandbox.UID_BASE if os.geteuid() == 0 else None
    how, why = sandbox.isolation(uid)
    if not why:
        return Finding("grading sandbox", "ok", f"{how}: each graded notebook sees only its own folder, no network, "
                       "no other job, no solutions or gradebook")
    return Finding("grading sandbox", "warn", f"{how}: {why}",
                   "Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; `make test` does it as root), and "
                   "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) if it still fails; "
                   "until then `workbook grade` falls back to limits and clean-up only and records that per submission.")


def doctor(subprocess_checks: bool = True, timeout: float = 240.0) -> list[Finding]:
    """Check that this machine can run the labs; each problem comes with a fix. Subprocesses never hang it."""
    device = pick_device("auto")
    cache = inductor_cache_dir()
    findings = [_check_python(), _check_torch(), _check_triton(), _check_device(), _check_cpp_compiler()]
    if subprocess_checks:
        findings.append(_check_compile(device.type, timeout))
        findings.append(_check_triton_runs(device.type == "cuda", timeout))
    findings += [_check_cache_dir(cache), _check_disk(cache), _check_jupyter()]
    sandbox = _check_sandbox()
    return findings + ([sandbox] if sandbox else [])


# What each lab needs beyond torch: "compile" (Inductor builds C++ on a CPU), "triton" (kernels written by hand run
# natively on a GPU or in Triton's CPU interpreter, Linux only), "cuda" (parts that only mean something on a GPU).
LAB_NEEDS: dict[str, tuple[str, dict[str, str]]] = {
    "01": ("Eager vs graph", {"compile": "the torch.compile parts (2–4 and 6)"}),
    "02": ("FX rewrites", {}),
    "03": ("Operator fusion", {"triton": "parts 3–5, 7 and 8 (Triton kernels and the backend that runs them)",
                                 "compile": "the torch.compile comparisons"}),
    "04": ("Inductor output", {"compile": "the whole lab (it reads what Inductor generates)"}),
    "05": ("Distributed", {"cuda": "NCCL (gloo on CPU processes runs every part)"}),
    "06": ("Compiling training", {"compile": "parts that compile a training step", "cuda": "CUDA graphs (reduce-overhead)"}),
    "07": ("llm_bench", {"compile": "part D (compiled decode)", "cuda": "CUDA graphs and the bandwidth figures"}),
}


def lab_support(findings: list[Finding]) -> list[str]:
    """Per lab, what runs on this machine and what does not (from the doctor's findings), as ✅ / ⚠️ lines."""
    status = {f.name: f.status for f in findings}
    cuda = torch.cuda.is_available() and status.get("device") == "ok"
    have = {"compile": status.get("inductor compile", status.get("c++ compiler", "ok")) == "ok",
            "triton": status.get("triton") == "ok" and status.get("triton kernel", "ok") == "ok",
            "cuda": cuda}
    why = {"compile": "torch.compile cannot build here (see the inductor compile line above)",
           "triton": ("no Triton here (Linux only: on macOS or Windows use WSL2, a Linux machine or a cloud notebook)"
                      if not sys.platform.startswith("linux") else "Triton does not run here (see the triton lines above)"),
           "cuda": "needs a CUDA GPU, so the lab shows recorded GPU figures there"}
    lines = []
    for lab, (title, needs) in LAB_NEEDS.items():
        missing = [f"{part}: {why[need]}" for need, part in needs.items() if not have[need]]
        if not missing:
            lines.append(f"✅ Lab {lab} {title}: everything runs here" + (" (GPU)" if cuda else " (CPU)"))
        else:
            hard = [need for need in needs if not have[need] and need != "cuda"]
            icon = "⚠️ " if hard else "✅"
            lines.append(f"{icon} Lab {lab} {title}: runs here, except " + "; ".join(missing))
    return lines


def format_findings(findings: list[Finding]) -> str:
    """The report as ✅ / ⚠️ / ❌ lines, each problem followed by its fix."""
    lines = []
    for f in findings:
        lines.append(f"{ICONS.get(f.status, '?')} {f.name}: {f.detail}")
        if f.fix and f.status != "ok":
            lines.append(f"   → {f.fix}")
    n_fail = sum(f.status == "fail" for f in findings)
    n_warn = sum(f.status == "warn" for f in findings)
    if n_fail:
        lines.append(f"\n{n_fail} problem(s) stop the labs from running: fix the ❌ lines above.")
    elif n_warn:
        lines.append(f"\nThe labs can run; {n_warn} warning(s) above are worth a look.")
    else:
        lines.append("\nAll good: run `make lab`.")
    return "\n".join(lines)


def doctor_exit_code(findings: list[Finding]) -> int:
    """1 when any finding failed (the labs cannot run), else 0; warnings do not fail."""
    return 1 if any(f.status == "fail" for f in findings) else 0
