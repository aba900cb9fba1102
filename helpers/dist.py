"""Run a function on N processes with torchrun from a notebook, and gather what every rank returns (Lab 05).

A notebook cannot hand its functions to `torch.multiprocessing.spawn` (the children cannot import `__main__`),
so `launch` writes a script instead: the function's source, the notebook functions and classes it uses, the
imports and constants it needs, and a `__main__` that runs it under `torchrun`::

    from helpers.dist import launch

    def hello(rank, world_size, device, greeting):
        import torch.distributed as dist
        t = torch.ones(1, device=device) * rank
        dist.all_reduce(t)                          # every rank now holds 0 + 1 + ... + (world_size - 1)
        return f"{greeting} from rank {rank}: sum {t.item():g}"

    run = launch(hello, nproc=2, greeting="hi")     # CPU: gloo; two or more GPUs: NCCL, one GPU per rank
    run.results                                     # ['hi from rank 0: sum 1', 'hi from rank 1: sum 1']

Every rank calls ``fn(rank, world_size, device, **kwargs)`` with the process group already initialized;
whatever it returns (tensors are moved to the CPU) comes back in ``run.results``, indexed by global rank, and
what each rank's fixed-cost layers did, step by step (`helpers.models.busy_log`), in ``run.busy``.
If any rank raises, `launch` raises one `DistributedError` whose message holds that rank's traceback
(`RankNotImplemented` when every failing rank raised NotImplementedError). A rank that hangs (a collective
that not every rank calls) is stopped after `timeout` seconds.

Several machines: run the same call on every machine with ``nnodes``, ``node_rank``, ``master_addr`` and
``master_port`` (passed to torchrun as ``--nnodes --node-rank --master-addr --master-port``); every machine
needs this repository (the script imports helpers) and the same Python environment. The results are
gathered on the machine of global rank 0; the others get ``run.results == None``. The script is saved too
(``run.script``), so it can be started by hand: ``torchrun --nnodes 2 --node-rank 0 --master-addr HOST
--master-port 29500 --nproc-per-node 8 path/to/script.py`` on each machine.

Also here: `CommCounter`, which counts the collectives a process issues and their payload bytes (torch's own
`CommDebugMode` counts calls but not bytes), and `bytes_written`, which measures what a rank really sent (Linux).
The small model the lab spreads over processes is in `helpers.models` (`ToyStack`, built by `toy_model(cfg)`, with
its data from `toy_batch(cfg)`).
"""

from __future__ import annotations

import ast
import builtins
import dis
import inspect
import linecache
import math
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings
import traceback
import types
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable, Iterable

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from helpers.notebooks import stub_message

ROOT = Path(__file__).resolve().parents[1]
ARGS_FILE, RESULTS_FILE = "args.pt", "results.pt"
# Lines torchrun and torch print on every launch that say nothing about the learner's code.
NOISE = ("OMP_NUM_THREADS", "*****", "Setting OMP_NUM_THREADS", "torch.distributed.run", "warnings.warn(",
         "Starting elastic_operator", "[W socket.cpp", "ProcessGroupGloo.cpp")


class DistributedError(RuntimeError):
    """One or more ranks failed; `failures` maps each failing global rank to its traceback text."""

    def __init__(self, message: str, failures: dict[int, str] | None = None, output: str = ""):
        super().__init__(message)
        self.failures = failures or {}
        self.output = output


class RankNotImplemented(DistributedError, NotImplementedError):
    """Every failing rank raised NotImplementedError: the function is not written yet. `stub`: the message the
    exercise's stub raised ("2: DDP: write your solution here"), which names the part that is not done."""

    stub = ""


@dataclass
class Run:
    """What one launch gave back."""

    results: list | None  # fn's return value per global rank (None on machines other than rank 0's)
    output: str  # what the ranks printed, each line prefixed with its rank
    seconds: float  # wall time of the whole launch, process start-up included
    script: Path  # the script torchrun ran (keep it to re-run by hand or on several machines)
    backend: str  # "gloo" or "nccl"
    world_size: int
    command: list[str] = field(default_factory=list)
    busy: list | None = None  # per global rank, its fixed-cost layers' calls step by step (helpers.models.busy_log())


# ---------------------------------------------------------------------------------------------------- backend
def backend_for(device: str | torch.device = "auto", nproc: int = 2) -> tuple[str, str]:
    """(backend, device type) for `nproc` ranks per machine: NCCL with one GPU per rank, else gloo on the CPU.

    device "auto" picks NCCL when this machine has at least `nproc` GPUs and CUDA works, else gloo;
    "cpu" always gloo; "cuda" NCCL, or gloo on the CPU with a warning that says why when there are fewer GPUs than
    ranks (one GPU cannot hold two NCCL ranks): a grader's `--device cuda` on a one-GPU machine runs the lab there.
    """
    import torch.distributed as dist

    pref = str(device).strip().lower()
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    nccl = dist.is_available() and dist.is_nccl_available()
    if pref == "cpu":
        return "gloo", "cpu"
    if pref.startswith("cuda"):
        if gpus < nproc or not nccl:
            warnings.warn(f"device={device!r} asks for NCCL with one GPU per rank, but this machine has {gpus} GPU(s) for "
                          f"{nproc} ranks{'' if nccl else ' and this torch has no NCCL'}: the ranks run on the CPU with gloo "
                          "instead (set DEVICE='cpu' or 'auto' to choose that yourself).", stacklevel=2)
            return "gloo", "cpu"
        return "nccl", "cuda"
    if pref != "auto":
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda'; got {device!r}")
    return ("nccl", "cuda") if gpus >= nproc and nccl else ("gloo", "cpu")


# ---------------------------------------------------------------------------------------------------- the script
class ScriptError(ValueError):
    """The function uses something from the notebook that a script cannot carry."""


def _source_of_function(fn: Callable) -> str:
    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError) as err:
        raise ScriptError(f"cannot read the source of `{fn.__name__}` ({err}); define it in a notebook cell or a "
                          "module, or pass its source text in needs=[...].") from None
    source = textwrap.dedent(source)
    if fn.__name__ == "<lambda>":
        raise ScriptError("a lambda cannot be written into a script: define the function with `def` in a cell.")
    return source


def _source_of_class(cls: type) -> str:
    """A class's source, found through the file its methods were compiled from (works in notebook cells)."""
    for member in vars(cls).values():
        func = getattr(member, "__func__", member)
        code = getattr(func, "__code__", None)
        if code is None:
            continue
        lines = linecache.getlines(code.co_filename)
        if not lines:
            continue
        text = "".join(lines)
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        found = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls.__name__
                 and n.lineno <= code.co_firstlineno <= (n.end_lineno or n.lineno)]
        if found:
            node = found[-1]
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            return textwrap.dedent("".join(lines[start - 1:node.end_lineno]))
    try:
        return textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError) as err:
        raise ScriptError(f"cannot read the source of class `{cls.__name__}` ({err}).") from None


def _global_names(code: types.CodeType) -> set[str]:
    """Names a code object (and the functions, classes and comprehensions inside it) reads as globals."""
    names = {ins.argval for ins in dis.get_instructions(code) if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _definition_names(source: str) -> set[str]:
    """Names the top-level def/class statement evaluates in the global scope: decorators, defaults, bases."""
    tree = ast.parse(source)
    names = set()
    for node in tree.body:
        parts = list(getattr(node, "decorator_list", []))
        if isinstance(node, ast.ClassDef):
            parts += node.bases + [k.value for k in node.keywords]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            parts += node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
        for part in parts:
            names |= {n.id for n in ast.walk(part) if isinstance(n, ast.Name)}
    return names


_PLAIN = (type(None), bool, int, float, complex, str, bytes)


def _literal(value: Any, depth: int = 0) -> bool:
    if isinstance(value, _PLAIN):
        return not (isinstance(value, float) and not math.isfinite(value))
    if depth < 4 and isinstance(value, (tuple, list, set, frozenset)):
        return all(_literal(v, depth + 1) for v in value)
    if depth < 4 and isinstance(value, dict):
        return all(_literal(k, depth + 1) and _literal(v, depth + 1) for k, v in value.items())
    return False


class _Writer:
    """Collects the pieces of a script in dependency order."""

    def __init__(self):
        self.imports: list[str] = []
        self.blocks: list[str] = []
        self.done: set[int] = set()
        self.bound: set[str] = set()

    def add_import(self, line: str, name: str) -> None:
        if line not in self.imports:
            self.imports.append(line)
        self.bound.add(name)

    def carry(self, name: str, value: Any, user: str) -> None:
        """Bind `name` to `value` in the script (an import, a definition or a literal)."""
        if name in self.bound or (hasattr(builtins, name) and getattr(builtins, name) is value):
            return
        if isinstance(value, types.ModuleType):
            mod = value.__name__
            self.add_import(f"import {mod}" if mod == name else f"import {mod} as {name}", name)
            return
        module = getattr(value, "__module__", None)
        qualname = getattr(value, "__qualname__", None)
        if module and module != "__main__" and qualname and "<" not in qualname and _importable(module, qualname, value):
            head = qualname.split(".")[0]
            line = f"from {module} import {head}" + (f" as {name}" if name != head else "")
            if "." not in qualname:
                self.add_import(line, name)
                return
        if isinstance(value, (types.FunctionType, type)) and (module == "__main__" or module is None or qualname is None
                                                             or not _importable(module, qualname, value)):
            self.define(value)
            if value.__name__ != name:
                self.blocks.append(f"{name} = {value.__name__}\n")
                self.bound.add(name)
            return
        if isinstance(value, torch.dtype):
            self.add_import("import torch", "torch")
            self.blocks.append(f"{name} = {value!r}\n")
            self.bound.add(name)
            return
        if isinstance(value, torch.device):
            self.add_import("import torch", "torch")
            self.blocks.append(f"{name} = torch.device({str(value)!r})\n")
            self.bound.add(name)
            return
        if _literal(value) and len(repr(value)) < 20_000:
            self.blocks.append(f"{name} = {value!r}\n")
            self.bound.add(name)
            return
        raise ScriptError(f"`{user}` uses `{name}` from the notebook, a {type(value).__name__} that a script cannot "
                          f"carry: pass it to launch(...) as a keyword argument (it arrives as an argument of the "
                          f"function), or build it inside the function.")

    def define(self, obj: Callable | type) -> None:
        """Write the source of a notebook function or class, after everything it uses."""
        if id(obj) in self.done:
            return
        self.done.add(id(obj))
        if isinstance(obj, type):
            source = _source_of_class(obj)
            codes = [getattr(m, "__func__", m).__code__ for m in vars(obj).values()
                     if hasattr(getattr(m, "__func__", m), "__code__")]
            glb = next((getattr(m, "__func__", m).__globals__ for m in vars(obj).values()
                        if hasattr(getattr(m, "__func__", m), "__globals__")), vars(sys.modules.get(obj.__module__, builtins)))
            where = codes[0].co_filename if codes else "?"
        else:
            source = _source_of_function(obj)
            codes, glb, where = [obj.__code__], obj.__globals__, obj.__code__.co_filename
        needed = _definition_names(source) | set().union(*(_global_names(c) for c in codes))
        needed.discard(obj.__name__)
        self.bound.add(obj.__name__)
        for name in sorted(needed):
            if name in glb:
                self.carry(name, glb[name], obj.__name__)
        self.blocks.append(f"# {obj.__name__}: from {where}\n{source.rstrip()}\n")


def _importable(module: str, qualname: str, value: Any) -> bool:
    mod = sys.modules.get(module)
    if mod is None or module == "__main__":
        return False
    obj = mod
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return False
    return obj is value


def _grouped(imports: list[str]) -> str:
    """Import lines in a stable order, `from m import a, b` merged per module."""
    plain = sorted({line for line in imports if line.startswith("import ") and line not in ("import os", "import torch")})
    froms: dict[str, list[str]] = {}
    for line in imports:
        if line.startswith("from "):
            module, _, names = line[5:].partition(" import ")
            froms.setdefault(module, []).append(names)
    merged = [f"from {m} import {', '.join(sorted(set(n)))}" for m, n in sorted(froms.items())]
    return "".join(line + "\n" for line in plain + merged)


def write_script(fn: Callable | str, path: str | Path, needs: Iterable[Callable | type | str] = ()) -> Path:
    """Write a script that runs `fn` on every rank under torchrun; returns its path.

    fn: a function defined in a notebook cell or a module, or the name of one defined by a source text in
    `needs`. needs: extra functions or classes to include, or source texts (e.g. a hidden model). The notebook
    functions, classes, modules and plain constants that fn uses are found and carried over by themselves.
    """
    w = _Writer()
    for extra in needs:
        if isinstance(extra, str):
            w.blocks.append(textwrap.dedent(extra).rstrip() + "\n")
            w.bound |= {n.name for n in ast.parse(textwrap.dedent(extra)).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        else:
            w.define(extra)
    if callable(fn):
        w.define(fn)
        name = fn.__name__
    else:
        name = fn
        if name not in w.bound:
            raise ScriptError(f"no function called {name!r} in the sources given in needs=[...]")
    header = (f'"""Written by helpers.dist.launch: runs `{name}` on every rank.\n\n'
              "Run it again by hand with torchrun, e.g. on one machine with 2 processes:\n"
              "    torchrun --standalone --nproc-per-node 2 THIS_FILE\n"
              "or on two machines (node-rank 0 on HOST, 1 on the other; this repository on both):\n"
              "    torchrun --nnodes 2 --node-rank 0 --master-addr HOST --master-port 29500 --nproc-per-node 2 THIS_FILE\n"
              f'Its keyword arguments are in {ARGS_FILE} next to it; rank 0 writes every rank\'s result to {RESULTS_FILE}.\n"""\n')
    text = (header + "import os\nimport torch\n" + _grouped(w.imports)
            + "\n\n" + "\n\n".join(w.blocks) + "\n\nif __name__ == '__main__':\n    from helpers.dist import rank_main\n\n"
            + f"    rank_main({name}, os.path.dirname(os.path.abspath(__file__)))\n")
    compile(text, str(path), "exec")            # a syntax error shows here, not in N processes
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------------------------------- in each rank
class _Prefixed:
    """A text stream that writes whole lines, each starting with a prefix (so the ranks' lines never interleave)."""

    def __init__(self, stream, prefix: str):
        self.stream, self.prefix, self.pending = stream, prefix, ""

    def write(self, text: str) -> int:
        self.pending += text
        if "\n" in self.pending:
            done, _, self.pending = self.pending.rpartition("\n")
            self.stream.write("".join(f"{self.prefix}{line}\n" for line in done.split("\n")))
            self.stream.flush()
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.stream.write(self.prefix + self.pending)
            self.pending = ""
        self.stream.flush()

    def __getattr__(self, name):
        return getattr(self.stream, name)


def to_cpu(value: Any) -> Any:
    """Tensors (in dicts, lists, tuples) detached and moved to the CPU, so rank 0 can gather and save them."""
    if isinstance(value, torch.Tensor):
        try:
            from torch.distributed.tensor import DTensor

            if isinstance(value, DTensor):
                value = value.to_local()
        except ImportError:
            pass
        return value.detach().cpu().clone()
    if isinstance(value, dict):
        return {k: to_cpu(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(to_cpu(v) for v in value) if not hasattr(value, "_fields") else type(value)(*(to_cpu(v) for v in value))
    return value


def _busy_log() -> list | None:
    """This rank's helpers.models.busy_log() (its fixed-cost layers' calls, step by step), if it used that module."""
    models = sys.modules.get("helpers.models")
    return models.busy_log() if models is not None else None


def rank_main(fn: Callable, run_dir: str) -> None:
    """The script's entry point in each rank: init, call fn, gather results on rank 0, record a failure."""
    import torch.distributed as dist

    run_dir = Path(run_dir)
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    sys.stdout = _Prefixed(sys.stdout, f"[rank {rank}] ")
    sys.stderr = _Prefixed(sys.stderr, f"[rank {rank}] ")
    args = torch.load(run_dir / ARGS_FILE, weights_only=False)
    backend, timeout = args.pop("__backend"), args.pop("__timeout")
    device = torch.device("cuda", local) if backend == "nccl" else torch.device("cpu")
    if backend == "nccl":
        torch.cuda.set_device(device)
    dist.init_process_group(backend, timeout=timedelta(seconds=timeout))
    try:
        result = to_cpu(fn(rank, world, device, **args))
    except BaseException as err:
        kind = "NotImplementedError" if isinstance(err, NotImplementedError) else type(err).__name__
        (run_dir / f"error_rank{rank}.txt").write_text(f"{kind}\n{err}\n{traceback.format_exc()}")
        raise
    gathered = [None] * world if rank == 0 else None
    dist.gather_object((result, _busy_log()), gathered, dst=0)
    if rank == 0:
        torch.save(gathered, run_dir / RESULTS_FILE)
    dist.barrier()
    dist.destroy_process_group()
    sys.stdout.flush()
    sys.stderr.flush()
    # Everything is saved: skip interpreter teardown, where gloo's and FSDP's background threads can still be
    # alive and a rank sometimes aborts ("terminate called without an active exception") after a good run.
    os._exit(0)


# ---------------------------------------------------------------------------------------------------- the launcher
def torchrun_command(script: str | Path, nproc: int, nnodes: int = 1, node_rank: int = 0,
                     master_addr: str | None = None, master_port: int = 29500) -> list[str]:
    """The torchrun command line: --standalone on one machine (a free port), static rendezvous on several."""
    cmd = [sys.executable, "-m", "torch.distributed.run", f"--nproc-per-node={nproc}"]
    if nnodes == 1:
        cmd += ["--standalone", "--nnodes=1"]
    else:
        if not master_addr:
            raise ValueError("several machines need master_addr: the address of the machine with node_rank 0")
        cmd += [f"--nnodes={nnodes}", f"--node-rank={node_rank}", f"--master-addr={master_addr}", f"--master-port={master_port}"]
    return cmd + ["--max-restarts=0", str(script)]


def _rank_threads() -> int:
    """Torch threads per CPU rank: one, the course's thread policy (helpers.bench.thread_policy), so that timings taken
    in the ranks slow in proportion to other programs' load; WORKBOOK_THREADS overrides it, as in the notebook."""
    from helpers.bench import THREADS_ENV

    try:
        return max(1, int(os.environ.get(THREADS_ENV, "").strip() or 1))
    except ValueError:
        return 1


def _clean(output: str) -> str:
    return "\n".join(line for line in output.splitlines() if line.strip() and not any(n in line for n in NOISE))


def launch(fn: Callable | str, *, nproc: int = 2, device: str = "auto", needs: Iterable = (), timeout: float = 300,
           nnodes: int = 1, node_rank: int = 0, master_addr: str | None = None, master_port: int = 29500,
           script_dir: str | Path | None = None, echo: bool = False, **kwargs) -> Run:
    """Run ``fn(rank, world_size, device, **kwargs)`` on `nproc` processes per machine with torchrun.

    nproc: processes on this machine (one GPU each with NCCL). device: "auto", "cpu" (gloo) or "cuda" (NCCL).
    needs: extra functions, classes or source texts for the script (what fn uses is found by itself).
    timeout: seconds before hung ranks are stopped. nnodes, node_rank, master_addr, master_port: torchrun's
    options for several machines (run the same call on each). script_dir: where the script is written
    (default: a new temporary folder). echo: print what the ranks printed. kwargs: fn's keyword arguments
    (tensors welcome; they are saved next to the script).
    Returns a `Run`; raises `DistributedError` (with every failing rank's traceback) when a rank fails.
    """
    import torch.distributed as dist  # noqa: F401  (fails here, clearly, on a torch without distributed)

    backend, _ = backend_for(device, nproc)
    name = fn if isinstance(fn, str) else fn.__name__
    stub = stub_message(fn) if callable(fn) else None
    if stub is not None:
        err = RankNotImplemented(f"`{name}` is not written yet ({stub or 'NotImplementedError'}): no processes were "
                                 "started. Write it, run its cell, then this one.")
        err.stub = stub
        raise err
    run_dir = (Path(script_dir) / name if script_dir is not None else Path(tempfile.mkdtemp(prefix=f"dist-{name}-"))).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    for stale in [run_dir / RESULTS_FILE, *run_dir.glob("error_rank*.txt")]:
        stale.unlink(missing_ok=True)
    script = write_script(fn, run_dir / f"{name}.py", needs)
    torch.save({**kwargs, "__backend": backend, "__timeout": float(timeout)}, run_dir / ARGS_FILE)
    cmd = torchrun_command(script, nproc, nnodes, node_rank, master_addr, master_port)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
           "PYTHONUNBUFFERED": "1", "LOGLEVEL": "ERROR"}
    env.pop("TORCHELASTIC_ERROR_FILE", None)
    env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // nproc)))
    if backend == "gloo":
        env["CUDA_VISIBLE_DEVICES"] = ""     # CPU ranks: FSDP and DTensor would otherwise put their state on a visible GPU
        env["OMP_NUM_THREADS"] = str(_rank_threads())   # the course's thread policy (helpers.bench.thread_policy)
    for attempt in range(3 if nnodes == 1 else 1):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                                cwd=str(run_dir), start_new_session=True)
        try:
            raw, _ = proc.communicate(timeout=timeout + 30)   # the ranks' own timeout fires first
        except subprocess.TimeoutExpired:
            _stop(proc)
            raw = proc.communicate()[0] or ""
            raise DistributedError(f"`{name}` did not finish on {nproc * nnodes} ranks in {timeout:.0f} s and was "
                                   "stopped. A collective that not every rank calls (or calls in another order) waits "
                                   "forever: check that every rank reaches the same collectives.\n" + _tail(_clean(raw)),
                                   output=raw) from None
        elapsed = time.perf_counter() - start
        output = _clean(raw)
        if not (proc.returncode and _port_taken(output, run_dir)):
            break   # torchrun picks a free port and then binds it: another launch can take it in between; try again
    if echo and output:
        print(output)
    world = nproc * nnodes
    if proc.returncode != 0:
        raise _failure(name, run_dir, world, output, proc.returncode)
    gathered = torch.load(run_dir / RESULTS_FILE, weights_only=False) if (run_dir / RESULTS_FILE).is_file() else None
    if gathered is None and node_rank == 0:
        raise DistributedError(f"`{name}` finished but rank 0 wrote no results.\n" + _tail(output), output=output)
    results, busy = ([r for r, _ in gathered], [b for _, b in gathered]) if gathered is not None else (None, None)
    return Run(results, output, elapsed, script, backend, world, cmd, busy)


PORT_TAKEN = ("Address already in use", "EADDRINUSE", "failed to listen", "DistNetworkError")


def _port_taken(output: str, run_dir: Path) -> bool:
    """True when the launch failed to bind its rendezvous port before any rank ran the function."""
    return not any(run_dir.glob("error_rank*.txt")) and any(s in output for s in PORT_TAKEN)


def _stop(proc: subprocess.Popen) -> None:
    """Stop torchrun and every rank it started (they share its process group)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            continue


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[-lines:])


def _head_tail(text: str, head: int = 25, tail: int = 10) -> str:
    lines = text.splitlines()
    return "\n".join(lines if len(lines) <= head + tail else lines[:head] + ["[...]"] + lines[-tail:])


SECONDARY = ("Connection closed by peer", "Connection reset by peer", "Broken pipe", "NCCL communicator was aborted",
             "ProcessGroupNCCL", "Timed out", "timed out")  # what the other ranks see when one rank dies


def _trim(tb: str) -> str:
    """The traceback without the launcher's own frame (rank_main), so it starts at the learner's code."""
    lines, out, skip = tb.splitlines(), [], False
    for line in lines:
        if line.startswith("  File "):
            skip = 'helpers/dist.py' in line.replace("\\", "/") and "in rank_main" in line
        if not skip:
            out.append(line)
    return "\n".join(out)


TRACEBACK = "Traceback (most recent call last):"


def raised_line(tb: str, kind: str) -> str:
    """The exception a traceback ends with, on one line ("ValueError: ... "): from the last line that starts with its
    type's name to the end, so that a message of several lines is kept whole (its last line alone can be a bracket)."""
    lines = tb.splitlines()
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i]
        if line and not line[0].isspace() and line.split(":")[0].split(".")[-1] == kind:
            said = " ".join(part.strip() for part in lines[i:] if part.strip())
            return said if len(said) <= 400 else said[:399] + "…"
    return lines[-1] if lines else kind


def _failure(name: str, run_dir: Path, world: int, output: str, code: int) -> DistributedError:
    """One exception for the whole launch: the rank that failed first (the cause) in full, then the others."""
    found = []
    for path in run_dir.glob("error_rank*.txt"):
        kind, _, rest = path.read_text().partition("\n")
        at = rest.find(TRACEBACK)           # the message before it may take several lines
        tb = rest[at:] if at >= 0 else rest.partition("\n")[2]
        found.append((any(s in tb for s in SECONDARY), path.stat().st_mtime_ns, int(path.stem[len("error_rank"):]), kind,
                      _trim(tb.rstrip())))
    if not found:
        return DistributedError(f"`{name}` failed (torchrun exit code {code}) before any rank could report an error: "
                                f"a rank was killed (out of memory?) or could not start. What the ranks printed:\n"
                                + _head_tail(output), output=output)
    found.sort()
    failures = {rank: tb for _, _, rank, _, tb in found}
    first, tb0 = found[0][2], found[0][4]
    last_line = raised_line(tb0, found[0][3])
    others = [rank for _, _, rank, _, _ in found[1:]]
    text = (f"rank {first} of {world} raised {last_line}"
            + (f" (then rank{'s' if len(others) > 1 else ''} {', '.join(map(str, others))} failed too)" if others else "")
            + f"\n\n--- rank {first} (script: {run_dir / (name + '.py')}) ---\n{tb0}")
    for _, _, rank, _, tb in found[1:]:
        text += f"\n\n--- rank {rank} ---\n{tb}"
    if all(secondary for secondary, *_ in found) and any("imed out" in tb for *_, tb in found):
        text = ("every rank waited longer than the timeout: a collective that not every rank calls (or that ranks call "
                "in another order) waits forever.\n" + text)
    elif all(secondary for secondary, *_ in found) and len(found) < world:
        quiet = sorted(set(range(world)) - {rank for _, _, rank, _, _ in found})
        text = (f"rank{'s' if len(quiet) > 1 else ''} {', '.join(map(str, quiet))} left without an error while the rest "
                "waited on them in a collective: a collective that not every rank calls (or that ranks call in another "
                "order) waits until a peer leaves: check that every rank reaches the same collectives (unless that rank was "
                "killed, out of memory say: what the ranks printed tells).\n" + text)
    if not all(kind == "NotImplementedError" for *_, kind, _ in found):
        return DistributedError(text, failures, output)
    err = RankNotImplemented(text, failures, output)
    err.stub = last_line.partition(": ")[2]
    return err


# ---------------------------------------------------------------------------------------------------- counting
def bytes_written() -> int | None:
    """Bytes this process has written so far, all threads together (Linux's /proc/self/io `wchar`); None elsewhere.

    Read it before and after a collective on gloo: the difference is what this rank wrote to its TCP sockets, the
    bytes the collective put on the wire from this rank (plus a few hundred bytes of gloo's headers). It counts
    every write of the process (files, a terminal), so measure around the collective alone. NCCL's traffic over
    NVLink or InfiniBand never passes through it, and macOS and Windows have no /proc: None there.
    """
    try:
        with open("/proc/self/io") as f:
            fields = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
        return int(fields["wchar"])
    except (OSError, KeyError, ValueError):
        return None


KINDS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all", "send", "recv")


def _kind(op_name: str) -> str | None:
    n = op_name.lower().replace("_", "")
    for key, kind in (("allreduce", "all_reduce"), ("allgather", "all_gather"), ("reducescatter", "reduce_scatter"),
                      ("broadcast", "broadcast"), ("alltoall", "all_to_all"), ("recv", "recv"), ("send", "send")):
        if key in n:
            return kind
    return None


def _nbytes(obj: Any) -> int:
    if isinstance(obj, torch.Tensor):
        return obj.numel() * obj.element_size()
    if isinstance(obj, (list, tuple)):
        return sum(_nbytes(o) for o in obj)
    return 0


class CommCounter(TorchDispatchMode):
    """Counts the collectives this process issues, and their payload bytes, while it is active.

    with CommCounter() as comm:
        loss = model(x).sum(); loss.backward()
    comm.calls["all_gather"], comm.bytes["all_gather"]

    Payload: the whole buffer the collective works on, as in its API: the tensor of an all-reduce, broadcast,
    send or recv; the gathered output of an all-gather; the full input of a reduce-scatter. It is a count, not a
    measurement of the wire: what each rank sends depends on the backend's algorithm (a ring all-reduce sends
    2(N-1)/N of it from every rank); `bytes_written` measures that on gloo. It sees the collectives of
    torch.distributed, DDP, FSDP2 (fully_shard), DTensor and pipelining, on gloo and NCCL, because they all
    pass through the dispatcher (c10d and _c10d_functional ops). Why not CommDebugMode: it counts calls only.
    """

    def __init__(self):
        super().__init__()
        self.calls = {k: 0 for k in KINDS}
        self.bytes = {k: 0 for k in KINDS}
        self.log: list[tuple[str, int]] = []

    def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
        kwargs = kwargs or {}
        try:
            from torch.distributed.tensor import DTensor
        except ImportError:  # pragma: no cover
            DTensor = ()
        if DTensor and any(issubclass(t, DTensor) for t in types_):
            return NotImplemented  # let DTensor run first: the collectives it issues then come through here
        out = func(*args, **kwargs)
        if func.namespace in ("c10d", "_c10d_functional"):
            kind = _kind(func.__name__ if hasattr(func, "__name__") else str(func))
            if kind is not None:
                self._count(kind, func.namespace, args, out)
        return out

    def _count(self, kind: str, namespace: str, args: tuple, out: Any) -> None:
        if namespace == "c10d":  # in-place ops: (outputs, inputs, ...) for all-gather and reduce-scatter
            if kind == "all_gather":
                size = _nbytes(args[0])
            elif kind == "reduce_scatter":
                size = _nbytes(args[1])
            else:
                size = _nbytes(args[0])
        else:  # functional: the result is the gathered tensor; the input is what is reduced
            size = _nbytes(out) if kind == "all_gather" else _nbytes(args[0])
        self.calls[kind] += 1
        self.bytes[kind] += size
        self.log.append((kind, size))

    def summary(self) -> dict:
        """{kind: {"calls", "bytes"}} for the kinds that occurred."""
        return {k: {"calls": self.calls[k], "bytes": self.bytes[k]} for k in KINDS if self.calls[k]}
