"""The grader's side of hidden checks, run in the test process instead of a sandboxed worker (Labs 02 and 05).

Answers still round-trip through torch.save / torch.load(weights_only=True), as the real worker's do;
test_grading_labs.py runs the same checks in the real sandbox.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Callable

import torch

from helpers import checks, notebooks
from helpers.grading import hidden
from helpers.grading.worker import load_namespace


class InProcessWorker:
    """The grader's worker, in this process: runs snippets in the learner's namespace, answers as plain data."""

    def __init__(self, ns: dict):
        self.ns = ns

    def run(self, snippet: str, inputs: dict | None = None, timeout: float | None = None):
        scope = {**self.ns, **(inputs or {})}
        try:
            exec(compile(snippet, "<grader>", "exec"), scope)
        except NotImplementedError:
            raise checks.NotImplementedYet("not written yet: it still raises NotImplementedError.") from None
        except Exception as err:
            raise hidden.LearnerError(f"your code raised {type(err).__name__}: {str(err)[:300]} on the grader's input.") from None
        buf = io.BytesIO()
        torch.save({"result": scope.get("result")}, buf)
        return torch.load(io.BytesIO(buf.getvalue()), weights_only=True)["result"]


def worker_namespace(path: Path, cells: list[str], out_dir: str | Path, overrides: dict[str, str] | None = None) -> dict:
    """The namespace the grader's worker builds from a notebook (CPU, QUICK, OUT_DIR given), some cells replaced."""
    params = f'DEVICE = "cpu"\nQUICK = True\nOUT_DIR = {str(out_dir)!r}\n'
    overrides = {"parameters": params, **(overrides or {})}
    chosen = [{"id": c.id, "source": overrides.get(c.id, c.source), "mode": "all"}
              for c in notebooks.read(path).cells if c.cell_type == "code" and c.id in cells]
    ns, errors = load_namespace(chosen)
    assert not errors, errors
    return ns


def run_hidden(name: str, fn: Callable, ns: dict, out_dir: str | Path) -> checks.Result:
    """Hidden check `name` (the function `fn`) on the learner's namespace, as the grader scores it."""
    ctx = hidden.GraderContext(worker=InProcessWorker(ns), out_dir=Path(out_dir), truths={})
    spec = checks.spec(name)
    return checks.run(checks.Spec(name, spec.points, spec.exercise, spec.title, fn), ctx)
