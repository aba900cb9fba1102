"""Named acceptance checks with points and messages that say what to fix, each written once.

In a notebook::

    from helpers.checks import check
    check("04.crossover")        # prints ✅ or ❌ and what to fix

A check has one shape. A *probe* runs the learner's code through the one door (`Learner`) and returns plain
data; a *judge* (the `*_problems` functions) turns that data into messages. The check itself is a function of a
context and its cases, registered once with its points::

    @register("04.crossover", points=2, exercise="E", cases=PUBLIC_CASES)
    def _crossover(ctx, cases):
        got = ctx.probe(probe_crossover, [c.rows for c in cases])     # the learner's code runs here
        fail_if(crossover_problems(got, cases, reveal=ctx.reveal))   # judged where the check runs
        return "right on every case"

In the notebook, `check(name)` runs it on the public cases and the probe runs in the notebook's own kernel. The
grader runs the very same function on the hidden cases (``solutions/hidden/labNN.py``: cases and reference
answers, no rules) with `reveal=False`, and `ctx.probe` sends the probe, by its importable name and pickled
arguments, to the submission's kernel inside its sandbox. Either way the answer makes the same plain-data round
trip (`helpers.checks.wire`).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import sys
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from helpers.checks import wire

STATUSES = ("passed", "failed", "error", "timeout", "crashed", "not run")


class CheckFailed(Exception):
    """The learner's work does not meet the criterion; the message says what to fix."""

    status = "failed"


class NotImplementedYet(CheckFailed):
    """The exercise still raises NotImplementedError."""


# What an exercise's stub raises: "C: find softmax kernel: write your solution here" (helpers.notebooks writes these),
# "E2: int8 kernel: …" (a part inserted after E), "exercise 8a: linear_gelu" or "5: pipeline parallel: …" (a stub of
# the solution's own): the part, then what it is.
STUB_MESSAGE = re.compile(r"^(?:exercise\s+)?(\d+[a-z]?|[A-Z]\d?)\s*:\s*(.*)$", re.S)
STUB_WORDS = "write your solution here"


def unfinished_part(err: BaseException) -> str | None:
    """"part C (find softmax kernel)" when err is an exercise stub's NotImplementedError, else None."""
    text = getattr(err, "stub", None) or str(err)     # helpers.dist's RankNotImplemented keeps the rank's stub message
    m = STUB_MESSAGE.match(text) if isinstance(err, NotImplementedError) else None
    if m is None:
        return None
    what = m.group(2).split(":")[0].strip()
    return f"part {m.group(1)}" + (f" ({what})" if what and what != STUB_WORDS else "")


def not_done(err: NotImplementedError, goes_on: bool = True) -> str:
    """The line a cell prints when an exercise it uses is still its stub: "⏭ part C (find softmax kernel) is not done
    yet: …". goes_on: the cell carries on without it (a given cell that catches the error) or stops there."""
    name = unfinished_part(err) or "an exercise this cell uses"
    then = "this cell goes on without it" if goes_on else "this cell needs it"
    return f"⏭ {name} is not done yet: {then}; run it again once that part is done."


def stub_behind(err: BaseException | None) -> NotImplementedError | None:
    """The exercise stub's NotImplementedError that err is, or was raised from (a pipeline that wraps it), or None."""
    seen = 0
    while err is not None and seen < 10:
        if unfinished_part(err) is not None:
            return err
        err, seen = err.__cause__ or err.__context__, seen + 1
    return None


@contextlib.contextmanager
def needs_earlier_parts():
    """In a given cell, around code that uses earlier parts' answers: when one of them is still its stub, print which
    part is not done yet and carry on after the block, instead of stopping the cell (and Run All) there."""
    try:
        yield
    except Exception as err:       # noqa: BLE001 - only a stub's error (or one raised from it) is caught
        stub = stub_behind(err)
        if stub is None:
            raise
        print(not_done(stub))


def stub_or(fn: Callable, instead: Callable, noticed: Callable[[str], None]) -> Callable:
    """`fn`, or, for a call that stops at an exercise's stub, `instead` (after telling `noticed` which part is not
    done). A written `fn`, right or wrong, is always the one that answers; any other error goes through."""
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except NotImplementedError as err:
            part = unfinished_part(err)
            if part is None:
                raise
            noticed(part)
            return instead(*args, **kwargs)

    return call


def mine_or(fn: Callable, instead: Callable, what: str) -> Callable:
    """For a given cell: the learner's `fn`, or, while it is still its stub, `instead` (the package's or the checker's
    own), saying once which part is not done yet and what stands in for it."""
    said: list[str] = []

    def notice(part: str) -> None:
        if not said:
            said.append(part)
            print(f"⏭ {part} is not done yet: this cell uses {what} in its place.")

    return stub_or(fn, instead, notice)


def part_not_done(part: str, needs: str) -> str:
    """The line a given cell prints when what it reads (`needs`) was never made because part `part` is not done."""
    return (f"⏭ part {part} is not done yet: this cell needs {needs} from it and goes on without; run it again once "
            "that part is done.")


def show_unfinished_parts() -> None:
    """In a Jupyter kernel, a cell stopped by an exercise's stub (or by an error raised from one, as torch.compile
    wraps a backend's) prints one line naming the part that is not done yet instead of a traceback into the stub;
    every other error keeps its traceback. (The cell still ends in
    an error: Run All stops there, and the grader goes on to the next cell as always.)"""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return

    def handler(shell, etype, value, tb, tb_offset=None):
        stub = stub_behind(value)      # the stub itself, or an error raised from it (Dynamo's BackendCompilerFailed)
        if stub is None:
            shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
            return None
        stb = [not_done(stub, goes_on=False)]
        shell._showtraceback(etype, value, stb)      # an error output, as a traceback would be, of one line
        return stb

    shell.set_custom_exc((Exception,), handler)


class LearnerError(CheckFailed):
    """The learner's code raised while a check ran it."""

    status = "error"


# ---------------------------------------------------------------- the one door to the learner's code
class Learner:
    """The one way a probe reaches the learner's code: a name is found or reported missing in words, and
    NotImplementedError becomes "not written yet"."""

    def __init__(self, ns: dict[str, Any]):
        self.ns = ns

    @property
    def settings(self):
        """The run's settings (device, QUICK, OUT_DIR, seed) as the grader or CI set them, never the parameters cell's."""
        from helpers.env import current_settings

        return current_settings()

    @property
    def out_dir(self) -> Path:
        return Path(self.settings.out_dir)

    def has(self, name: str) -> bool:
        return name in self.ns

    def value(self, name: str) -> Any:
        """A value the notebook defined; a clear failure when it is missing."""
        if name not in self.ns:
            raise CheckFailed(f"`{name}` is not defined: run the cells above this check first "
                              "(Run ▸ Run All Above Selected Cell), and keep the name the exercise gives.")
        return self.ns[name]

    def function(self, name: str) -> Callable:
        """The learner's function itself (to hand to torch.compile, say); call it inside `running(name)`."""
        fn = self.value(name)
        if not callable(fn):
            raise CheckFailed(f"`{name}` should be a function, but it is a {type(fn).__name__}.")
        return fn

    @contextlib.contextmanager
    def running(self, label: str):
        """Code under this block runs the learner's `label`: NotImplementedError means it is not written yet (or the
        earlier part it uses is not: the message names that part)."""
        try:
            yield
        except NotImplementedError as err:
            part = unfinished_part(err)
            raise NotImplementedYet(f"`{label}` is not written yet: replace the `raise NotImplementedError` in its cell."
                                    if part is None or self._own_stub(label, err) else
                                    f"`{label}` stopped at a stub: {part} is not done yet, and `{label}` uses it."
                                    ) from None

    def _own_stub(self, label: str, err: NotImplementedError) -> bool:
        """Whether the stub that raised is `label`'s own (raised in the function's own code, not deeper)."""
        fn = self.ns.get(label)
        code = getattr(fn, "__code__", None) or getattr(getattr(fn, "__init__", None), "__code__", None)
        tb = err.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        return code is None or tb is None or tb.tb_frame.f_code.co_filename == code.co_filename

    @contextlib.contextmanager
    def replacing(self, name: str, value: Any):
        """While this block runs, the notebook's `name` is `value` (the checker's own), whatever the learner wrote."""
        missing = object()
        original = self.ns.get(name, missing)
        self.ns[name] = value
        try:
            yield
        finally:
            if original is missing:
                self.ns.pop(name, None)
            else:
                self.ns[name] = original

    @contextlib.contextmanager
    def replacing_global(self, function: str, name: str, value: Any):
        """While this block runs, `name` is `value` where the learner's `function` looks it up: its own globals (the
        notebook's namespace, or the module it was defined in), and the notebook's namespace."""
        fn = self.ns.get(function)
        spaces = [self.ns] + [g for g in [getattr(fn, "__globals__", None)] if isinstance(g, dict) and g is not self.ns]
        missing = object()
        saved = [(space, space.get(name, missing)) for space in spaces]
        for space in spaces:
            space[name] = value
        try:
            yield
        finally:
            for space, old in saved:
                if old is missing:
                    space.pop(name, None)
                else:
                    space[name] = old

    @contextlib.contextmanager
    def standing_in(self, name: str, stand_in: Callable):
        """While this block runs, the learner's `name` is called as usual, but while it is still its stub (an earlier
        part not done yet) `stand_in` answers in its place: a check judges its own exercise, not the one before. A
        wrong but written `name` is used as it is (`replacing` puts the checker's own in for every call). Yields the
        parts stood in for."""
        original = self.ns.get(name)
        stood_in: list[str] = []
        if not callable(original):
            yield stood_in
            return
        def notice(part: str) -> None:
            if part not in stood_in:
                stood_in.append(part)

        with self.replacing(name, stub_or(original, stand_in, notice)):
            yield stood_in

    def call(self, name: str, *args, **kwargs) -> Any:
        """Call the learner's function `name`."""
        fn = self.function(name)
        with self.running(name):
            return fn(*args, **kwargs)

    def fn(self, name: str) -> Callable:
        """The learner's function wrapped in `running`, to pass where a plain callable is wanted."""
        self.function(name)
        return lambda *args, **kwargs: self.call(name, *args, **kwargs)


# ---------------------------------------------------------------- contexts: where a check runs
class Context:
    """What a check sees: `probe` runs the learner's code, `reveal` says whether messages may show expected values."""

    reveal = True

    def probe(self, probe: Callable, *args, timeout: float | None = None, **kwargs) -> Any:
        raise NotImplementedError


class NotebookContext(Context):
    """A check run in the learner's own kernel: probes run here, with the grader's plain-data round trip."""

    def __init__(self, ns: dict[str, Any], reveal: bool = True):
        self.learner = Learner(ns)
        self.reveal = reveal

    def probe(self, probe: Callable, *args, timeout: float | None = None, **kwargs) -> Any:
        from helpers.checks.torch_defaults import torch_defaults

        args, kwargs = wire.fresh((args, kwargs))
        with torch_defaults():
            return wire.round_trip(probe(self.learner, *args, **kwargs))


def probe_name(probe: Callable) -> str:
    """'module:qualname', the importable name by which a probe travels to the grader's job."""
    name = f"{probe.__module__}:{probe.__qualname__}"
    if "<" in name:
        raise ValueError(f"probe {name} is not importable: define it at module level")
    return name


PROBE_PACKAGES = ("helpers.checks", "hidden_inputs")


def resolve_probe(name: str) -> Callable:
    """The probe called 'module:qualname'; only from the packages that hold probes."""
    module, _, qualname = name.partition(":")
    if not any(module == p or module.startswith(p + ".") for p in PROBE_PACKAGES) or not qualname:
        raise ValueError(f"{name!r} is not a probe")
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def probe_settings(learner: Learner) -> dict:
    """The settings and versions the learner's kernel runs with (the grader records them with each grade)."""
    import torch

    from helpers.env import apply_gpu_share, pick_device

    s = learner.settings
    seen = {"device": s.device, "quick": s.quick, "out_dir": s.out_dir, "seed": s.seed, "torch": torch.__version__,
            "cuda": torch.cuda.is_available(), "threads": torch.get_num_threads()}
    if s.device != "cpu" and torch.cuda.is_available():
        device = pick_device(s.device)
        seen.update(gpu=torch.cuda.get_device_name(device), gpu_share=apply_gpu_share(device),   # the checks run under it too
                    cuda_visible_devices=os.environ.get("CUDA_VISIBLE_DEVICES", ""))
    return seen


def probe_files(learner: Learner, names: list[str], max_bytes: int = 4 << 20) -> dict:
    """The files the notebook wrote under OUT_DIR: {name: {exists, bytes, sha256, text}} (text for small text files)."""
    import hashlib

    out = {}
    root = learner.out_dir
    for name in names:
        path = root / name
        if not path.is_file():
            out[name] = {"exists": False}
            continue
        data = path.read_bytes()[: max_bytes + 1]
        entry = {"exists": True, "bytes": path.stat().st_size, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
        if len(data) <= max_bytes:
            try:
                entry["text"] = data.decode("utf-8")
            except UnicodeDecodeError:
                pass
        out[name] = entry
    return out


# ---------------------------------------------------------------- registry
@dataclass(frozen=True)
class Spec:
    """A registered check: its name, points, exercise, title, the function that runs it and its public cases."""

    name: str
    points: float
    exercise: str
    title: str
    fn: Callable[[Context, Any], str | None]
    cases: Any = None

    def public_cases(self) -> Any:
        return self.cases() if callable(self.cases) else self.cases


@dataclass
class Result:
    """The outcome of one check."""

    name: str
    status: str
    score: float
    max_score: float
    message: str

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def line(self) -> str:
        """One line for a notebook or a feedback file."""
        mark = "✅" if self.passed else "❌"
        points = f"{self.score:g}/{self.max_score:g}" if self.max_score else "practice, no points"
        return f"{mark} {self.name} [{points}] {self.message}"

    def to_dict(self) -> dict:
        return asdict(self)


def fail_if(problems: list[str], most: int = 3) -> None:
    """Raise CheckFailed with the first `most` problems (and how many more there are), if there are any."""
    if problems:
        more = len(problems) - most
        raise CheckFailed(" ".join(problems[:most]) + (f" (and {more} more)" if more > 0 else ""))


REGISTRY: dict[str, Spec] = {}


def register(name: str, points: float, exercise: str, title: str = "", cases: Any = None) -> Callable:
    """Decorator: add a check `fn(ctx, cases)` to the registry under `name` ("NN.what"), with its public cases."""

    def wrap(fn: Callable) -> Callable:
        REGISTRY[name] = Spec(name, points, exercise, title or (fn.__doc__ or "").strip().split("\n")[0], fn, cases)
        return fn

    return wrap


def lab_of(name: str) -> str:
    """"04.find_softmax" → "04"."""
    lab = name.split(".", 1)[0]
    if not (len(lab) == 2 and lab.isdigit()):
        raise KeyError(f"check names look like '04.find_softmax'; got {name!r}")
    return lab


def load_lab(lab: str) -> list[Spec]:
    """Import helpers.checks.labNN and return its checks in registration order."""
    importlib.import_module(f"helpers.checks.lab{lab}")
    return [s for s in REGISTRY.values() if lab_of(s.name) == lab]


def spec(name: str) -> Spec:
    """The registered check called `name`, importing its lab's module on first use."""
    if name not in REGISTRY:
        load_lab(lab_of(name))
    if name not in REGISTRY:
        known = ", ".join(s.name for s in load_lab(lab_of(name)))
        raise KeyError(f"no check called {name!r}; this lab has: {known}")
    return REGISTRY[name]


# ---------------------------------------------------------------- running a check
def run(spec_: Spec, ctx: Context, cases: Any) -> Result:
    """Run one check on `cases` and turn whatever happens into a Result (never raises, except KeyboardInterrupt)."""
    try:
        note = spec_.fn(ctx, cases)
    except CheckFailed as err:
        return Result(spec_.name, err.status, 0, spec_.points, str(err))
    except KeyboardInterrupt:
        raise
    except Exception as err:  # the learner's code crashed inside a probe run in this process
        return Result(spec_.name, "error", 0, spec_.points, f"{type(err).__name__}: {err}{learner_frame(err)}")
    return Result(spec_.name, "passed", spec_.points, spec_.points, note or "passed")


def learner_frame(err: BaseException) -> str:
    """' (raised at NAME, line N)' when the traceback passes through notebook code."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if "ipykernel" in f.filename or f.filename.startswith("<")]
    return f" (raised at {frames[-1].name}, line {frames[-1].lineno})" if frames else ""


def check(name: str, ns: dict[str, Any] | None = None) -> None:
    """Run check `name` against the calling notebook and print ✅ or ❌ with what to fix."""
    print(run_check(name, ns if ns is not None else sys._getframe(1).f_globals).line())


def run_check(name: str, ns: dict[str, Any], cases: Any = None, reveal: bool = True) -> Result:
    """Run check `name` against the namespace `ns` (its public cases unless others are given); no printing."""
    from helpers.checks.torch_defaults import torch_defaults

    s = spec(name)
    with torch_defaults():      # the cases are built as the grader builds them, whatever defaults the notebook set
        return run(s, NotebookContext(ns, reveal=reveal), s.public_cases() if cases is None else cases)


def summary(lab: str, results: list[Result]) -> str:
    """A score line for a list of results."""
    total = sum(r.score for r in results)
    top = sum(r.max_score for r in results)
    return f"Lab {lab}: {total:g} / {top:g} points"


__all__ = ["CheckFailed", "NotImplementedYet", "LearnerError", "Learner", "Context", "NotebookContext", "Spec",
           "Result", "register", "check", "run", "run_check", "fail_if", "load_lab", "spec", "probe_name",
           "resolve_probe", "probe_settings", "probe_files"]
