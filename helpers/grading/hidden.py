"""The grader's side of a hidden check: a context whose `call` runs the learner's code in the worker.

Hidden checks live in ``solutions/hidden/labNN.py`` (never released). Each is
registered under the same name as the public check it mirrors, and gets a
`GraderContext`: ``ctx.call("find_softmax_kernel", kernels, post="result = result.name")``
runs the learner's function in the sandboxed worker and returns plain data;
``ctx.file(name)`` reads what the notebook wrote; ``ctx.truth(key)`` is ground
truth the grader computed itself, once per batch.
"""

from __future__ import annotations

import importlib.util
import io
import os
import pickle
import select
import sys
import time
from pathlib import Path
from typing import Any, Callable

from helpers.checks import CheckFailed, Context, NotImplementedYet
from helpers.grading import sandbox
from helpers.grading.worker import recv, send

ROOT = Path(__file__).resolve().parents[2]
HIDDEN_DIR = ROOT / "solutions" / "hidden"


class LearnerError(CheckFailed):
    """The learner's code raised while the grader ran it."""

    status = "error"


class CheckTimeout(CheckFailed):
    """The learner's code ran past the time the grader allows one call."""

    status = "timeout"


class WorkerDied(CheckFailed):
    """The worker process died (the learner's code crashed it)."""

    status = "crashed"


def load_hidden(lab: str) -> dict[str, Callable]:
    """The hidden checks of a lab: {check name: fn(ctx)} from solutions/hidden/labNN.py."""
    path = HIDDEN_DIR / f"lab{lab}.py"
    if not path.is_file():
        raise FileNotFoundError(f"no hidden checks for lab {lab} at {path}; the grader needs the full repository, not the release bundle")
    spec = importlib.util.spec_from_file_location(f"workbook_hidden_lab{lab}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.HIDDEN, getattr(module, "TRUTHS", {}), getattr(module, "WORKER_CELLS", None)


class Worker:
    """A sandboxed process holding the learner's definitions; answers the grader's snippets."""

    def __init__(self, cells: list[dict], cwd: Path, limits: "sandbox.Limits", env: dict, uid: int | None, call_timeout: float):
        self.cells, self.cwd, self.limits, self.env, self.uid = cells, cwd, limits, env, uid
        self.call_timeout = call_timeout
        self.job = None
        self.setup_errors: list[str] = []

    def _start(self) -> None:
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        cmd = [sys.executable, "-m", "helpers.grading.worker", str(req_r), str(resp_w)]
        self.job = sandbox.spawn(cmd, self.cwd, self.limits, env=self.env, uid=self.uid, pass_fds=(req_r, resp_w))
        os.close(req_r)
        os.close(resp_w)
        self.req, self.resp = req_w, resp_r
        send(self.req, pickle.dumps({"cells": self.cells}))
        answer = self._answer(timeout=max(self.call_timeout, 300))
        self.setup_errors = answer.get("errors", [])

    def _answer(self, timeout: float) -> dict:
        """Wait for one answer, decoded safely; raise CheckTimeout / WorkerDied."""
        import torch

        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop()
                raise CheckTimeout(f"your code ran for more than {timeout:.0f} s on the grader's input and was stopped.")
            ready, _, _ = select.select([self.resp], [], [], min(left, 1.0))
            if ready:
                break
            if self.job.poll() is not None:
                outcome = self.stop()
                raise WorkerDied(f"your code crashed the Python process ({outcome.message}).")
        try:
            raw = recv(self.resp, limit=256 << 20)
        except (OSError, ValueError) as err:
            self.stop()
            raise WorkerDied(f"the answer from your code could not be read ({err}).") from None
        if raw is None:
            outcome = self.stop()
            raise WorkerDied(f"your code crashed the Python process ({outcome.message}).")
        try:
            answer = torch.load(io.BytesIO(raw), weights_only=True)
        except Exception as err:
            raise LearnerError(f"your function returned something the grader cannot read back ({type(err).__name__}); return plain values.") from None
        if not isinstance(answer, dict) or "ok" not in answer:
            raise LearnerError("the answer from your code was malformed.")
        return answer

    def run(self, snippet: str, inputs: dict | None = None, timeout: float | None = None) -> Any:
        """Run the grader's snippet in the learner's namespace; return its `result`."""
        if self.job is None:
            self._start()
        send(self.req, pickle.dumps({"snippet": snippet, "inputs": inputs or {}}))
        answer = self._answer(timeout or self.call_timeout)
        if answer["ok"]:
            return answer.get("result")
        if answer.get("kind") == "not_implemented":
            raise NotImplementedYet("not written yet: it still raises NotImplementedError.")
        where = f" ({answer['where']})" if answer.get("where") else ""
        raise LearnerError(f"your code raised {answer.get('error', 'an error')}{where} on the grader's input.")

    def stop(self):
        """Stop the worker; the next call starts a fresh one."""
        if self.job is None:
            return None
        for fd in (getattr(self, "req", None), getattr(self, "resp", None)):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.req = self.resp = None
        job, self.job = self.job, None
        return job.stop()


class GraderContext(Context):
    """What a hidden check sees: the worker, the submission's files, and ground truth."""

    def __init__(self, worker: Worker, out_dir: Path, truths: dict[str, Any]):
        super().__init__({}, out_dir)
        self.worker, self.truths = worker, truths

    def get(self, name: str) -> Any:
        raise CheckFailed("hidden checks do not read notebook variables")

    def call(self, fn_name: str, *args, post: str = "", timeout: float | None = None, **kwargs) -> Any:
        """Call the learner's `fn_name(*args, **kwargs)` in the worker; `post` may reduce `result` to plain data."""
        if not fn_name.isidentifier():
            raise ValueError(fn_name)
        snippet = (f"if '{fn_name}' not in globals():\n    raise NameError('{fn_name} is not defined')\n"
                   f"result = {fn_name}(*__args, **__kwargs)\n{post}")
        try:
            return self.worker.run(snippet, {"__args": args, "__kwargs": kwargs}, timeout)
        except NotImplementedYet:
            raise NotImplementedYet(f"`{fn_name}` is not written yet: it still raises NotImplementedError.") from None
        except LearnerError as err:
            raise LearnerError(f"`{fn_name}`: {err}") from None

    def run(self, snippet: str, timeout: float | None = None, **inputs) -> Any:
        """Run a snippet of the grader's code in the learner's namespace."""
        return self.worker.run(snippet, inputs, timeout)

    def truth(self, key: str) -> Any:
        """Ground truth the grader computed (e.g. this machine's own Inductor dump)."""
        return self.truths[key]
