"""The grader's side of the checks: hidden cases, reference answers, and a context whose probes run in the job.

A lab's hidden module (``solutions/hidden/labNN.py``, never released) holds, for every check the lab registers,
the cases the grader runs it on and their reference answers: ``CASES = {"04.crossover": ...}``, each a value or a
function of the batch's references. ``REFERENCES = {key: fn}`` are answers the grader must compute by running
code on this machine (an Inductor dump, the capture experiments); `helpers.grading.references` computes them
once per batch in a process of their own. Inputs that must exist inside the job (a model class, a function with
a graph break) live in ``solutions/hidden/hidden_inputs/labNN.py``, which the job can import and the learner
bundle never holds. The check functions themselves are the public ones: the grader runs them with
`GraderContext`, whose `probe` runs in the submission's kernel and whose `reveal` is False.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from helpers.checks import Context

ROOT = Path(__file__).resolve().parents[2]
HIDDEN_DIR = ROOT / "solutions" / "hidden"


@dataclass
class HiddenLab:
    """A lab's hidden cases (by check name) and the references they may need."""

    lab: str
    cases: dict[str, Any]
    references: dict[str, Callable[[], Any]] = field(default_factory=dict)
    notebook_cells: list[str] = field(default_factory=list)   # solution-notebook cells the module reads

    def cases_for(self, name: str, refs: dict) -> Any:
        """The hidden cases of check `name`, built with this batch's references."""
        value = self.cases[name]
        return value(refs) if callable(value) else value


def hidden_path() -> str:
    """The folder that holds `hidden_inputs`, for sys.path and the job's PYTHONPATH."""
    return str(HIDDEN_DIR)


def load_hidden(lab: str) -> HiddenLab:
    """solutions/hidden/labNN.py, loaded by path (it is not a package the job could import)."""
    path = HIDDEN_DIR / f"lab{lab}.py"
    if not path.is_file():
        raise FileNotFoundError(f"no hidden cases for lab {lab} at {path}; the grader needs the full repository, "
                                "not the release bundle")
    if hidden_path() not in sys.path:
        sys.path.append(hidden_path())
    name = f"workbook_hidden_lab{lab}"
    if name in sys.modules:
        module = sys.modules[name]
    else:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return HiddenLab(lab, dict(module.CASES), dict(getattr(module, "REFERENCES", {})),
                     list(getattr(module, "NOTEBOOK_CELLS", [])))


class Turns:
    """One thread at a time runs check code in the grader process; a thread hands its turn on while it waits on its job.

    Jobs run side by side, but building cases and judging happen in the grader's own process, in one thread per
    job, and torch is not thread-safe there: `torch.fx.symbolic_trace` patches `nn.Module.__call__` for as long as
    it traces, so two threads tracing at once break each other ("module is not installed as a submodule").
    """

    def __init__(self) -> None:
        self._lock, self._mine = threading.Lock(), threading.local()

    @contextlib.contextmanager
    def turn(self):
        """Hold the turn for the block."""
        self._lock.acquire()
        self._mine.held = True
        try:
            yield
        finally:
            self._mine.held = False
            self._lock.release()

    @contextlib.contextmanager
    def away(self):
        """Let other threads take turns for the block (while this one waits on its job); a no-op without the turn."""
        if not getattr(self._mine, "held", False):
            yield
            return
        self._mine.held = False
        self._lock.release()
        try:
            yield
        finally:
            self._lock.acquire()
            self._mine.held = True


GRADER_TURNS = Turns()


class GraderContext(Context):
    """What a check sees under the grader: probes run in the submission's kernel; messages reveal no hidden value."""

    reveal = False

    NEAR = 0.5    # a probe that used more than this share of its time limit is logged: on a busier machine it may not fit

    def __init__(self, job, call_timeout: float):
        self.job, self.call_timeout = job, call_timeout
        self.near_limit: list[tuple[str, float, float]] = []   # (probe, seconds it took, its limit), since last taken

    def probe(self, probe: Callable, *args, timeout: float | None = None, **kwargs) -> Any:
        limit = timeout or self.call_timeout
        start = time.monotonic()
        try:
            with GRADER_TURNS.away():
                return self.job.probe(probe, args, kwargs, limit)
        finally:
            took = time.monotonic() - start
            if took > self.NEAR * limit:
                self.near_limit.append((probe.__name__, took, limit))

    def take_near_limit(self) -> list[tuple[str, float, float]]:
        """The probes that came near their time limit since the last call, and forget them."""
        near, self.near_limit = self.near_limit, []
        return near
