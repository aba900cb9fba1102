"""Named acceptance checks with points and messages that say what to fix.

In a notebook::

    from helpers.checks import check
    check("04.find_softmax")        # prints ✅ or ❌ and what to fix

Each lab's checks live in ``helpers/checks/labNN.py`` and are registered with
``@register("04.find_softmax", points=2, exercise="C")``. A check is a function
of a ``Context``: it calls the learner's code through ``ctx.call`` (the adapter:
checks never reach into a notebook's variables by accident), reads the files the
notebook wrote under ``ctx.out_dir``, and raises ``CheckFailed`` with a message
when something is wrong. The grader runs the hidden twin of each check (kept in
``solutions/hidden/``) with a context whose ``call`` runs the learner's code in
a separate, sandboxed process.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

STATUSES = ("passed", "failed", "error", "timeout", "crashed", "not run")


class CheckFailed(Exception):
    """The learner's work does not meet the criterion; the message says what to fix."""

    status = "failed"


class NotImplementedYet(CheckFailed):
    """The exercise still raises NotImplementedError."""


@dataclass(frozen=True)
class Spec:
    """A registered check: its name, points, exercise and the function that runs it."""

    name: str
    points: float
    exercise: str
    title: str
    fn: Callable[["Context"], str | None]


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
        return f"{mark} {self.name} [{self.score:g}/{self.max_score:g}] {self.message}"

    def to_dict(self) -> dict:
        return asdict(self)


def fail_if(problems: list[str], most: int = 3) -> None:
    """Raise CheckFailed with the first `most` problems (and how many more there are), if there are any."""
    if problems:
        more = len(problems) - most
        raise CheckFailed(" ".join(problems[:most]) + (f" (and {more} more)" if more > 0 else ""))


def learner(label: str, fn: Callable, *args, **kwargs) -> Any:
    """Call something that runs the learner's code; NotImplementedError becomes 'not written yet'."""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        raise NotImplementedYet(f"{label}: not written yet; replace the `raise NotImplementedError` in its cell.") from None


REGISTRY: dict[str, Spec] = {}


def register(name: str, points: float, exercise: str, title: str = "") -> Callable:
    """Decorator: add a check to the registry under `name` ("NN.what")."""

    def wrap(fn: Callable) -> Callable:
        REGISTRY[name] = Spec(name, points, exercise, title or (fn.__doc__ or "").strip().split("\n")[0], fn)
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


class Context:
    """What a check sees: the learner's code (through `call`) and the files the notebook wrote."""

    def __init__(self, ns: dict[str, Any], out_dir: Path | None = None):
        self.ns = ns
        self.out_dir = Path(out_dir if out_dir is not None else ns.get("OUT_DIR", "."))

    def get(self, name: str) -> Any:
        """A value the notebook defined; a clear failure when it is missing."""
        if name not in self.ns:
            raise CheckFailed(f"`{name}` is not defined: run the cells above this check first (Run ▸ Run All Above Selected Cell).")
        return self.ns[name]

    def call(self, fn_name: str, *args, **kwargs) -> Any:
        """Call the learner's function `fn_name`; NotImplementedError becomes a friendly failure."""
        fn = self.get(fn_name)
        if not callable(fn):
            raise CheckFailed(f"`{fn_name}` should be a function, but it is a {type(fn).__name__}.")
        try:
            return fn(*args, **kwargs)
        except NotImplementedError:
            raise NotImplementedYet(f"`{fn_name}` is not written yet: replace the `raise NotImplementedError` in its cell.") from None

    def file(self, name: str) -> Path:
        """A file the notebook should have written under OUT_DIR."""
        path = self.out_dir / name
        if not path.is_file():
            raise CheckFailed(f"{self.out_dir.name}/{name} does not exist: run the cell that writes it.")
        return path


def run(spec_: Spec, ctx: Context) -> Result:
    """Run one check and turn whatever happens into a Result (never raises, except KeyboardInterrupt)."""
    try:
        note = spec_.fn(ctx)
    except CheckFailed as err:
        return Result(spec_.name, err.status, 0, spec_.points, str(err))
    except KeyboardInterrupt:
        raise
    except Exception as err:  # the learner's code crashed inside the check
        where = _learner_frame(err)
        return Result(spec_.name, "error", 0, spec_.points, f"{type(err).__name__}: {err}{where}")
    return Result(spec_.name, "passed", spec_.points, spec_.points, note or "passed")


def _learner_frame(err: BaseException) -> str:
    """' (in cell line N)' when the traceback passes through notebook code."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if "ipykernel" in f.filename or f.filename.startswith("<")]
    return f" (raised at {frames[-1].name}, line {frames[-1].lineno})" if frames else ""


def check(name: str, ns: dict[str, Any] | None = None) -> None:
    """Run check `name` against the calling notebook and print ✅ or ❌ with what to fix."""
    print(run_check(name, ns if ns is not None else sys._getframe(1).f_globals).line())


def run_check(name: str, ns: dict[str, Any]) -> Result:
    """Run check `name` against the namespace `ns` and return its Result (no printing)."""
    return run(spec(name), Context(ns))


def summary(lab: str, results: list[Result]) -> str:
    """A score line for a list of results."""
    total = sum(r.score for r in results)
    top = sum(r.max_score for r in results)
    return f"Lab {lab}: {total:g} / {top:g} points"
