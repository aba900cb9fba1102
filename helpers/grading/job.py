"""The grader's side of a grading job: start it in the sandbox, learn how the notebook ran, send it probes.

A `NotebookJob` runs `helpers.grading.run_notebook` under the sandbox's limits with two pipes. The job runs the
submission and keeps its kernel; `probe()` sends a probe by its importable name with pickled arguments and
reads the answer as plain data (never unpickled). When the kernel is gone (it died in a cell or in a probe, or a
probe hung it) the next probe starts a replay job that re-runs the cells that had finished, a bounded number of
times; a probe that cannot be answered costs its own check only.
"""

from __future__ import annotations

import os
import pickle
import select
import sys
import time
from pathlib import Path
from typing import Any, Callable

from helpers.checks import CheckFailed, NotImplementedYet, LearnerError, probe_name, wire
from helpers.grading import sandbox
from helpers.grading.channel import recv, send

MAX_REPLAYS = 2
ANSWER_LIMIT = 256 << 20


class CheckTimeout(CheckFailed):
    """The learner's code ran past the time the grader allows one call."""

    status = "timeout"


class WorkerDied(CheckFailed):
    """The learner's kernel died (the learner's code crashed it) or the job stopped."""

    status = "crashed"


class JobGone(Exception):
    """The job closed its pipe or was stopped: it serves no more probes."""


class Process:
    """One run of run_notebook under the sandbox, with its request and answer pipes."""

    def __init__(self, args: list[str], jail: "sandbox.Jail", limits: "sandbox.Limits"):
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        cmd = [sys.executable, "-m", "helpers.grading.run_notebook", *args,
               "--requests", str(req_r), "--answers", str(resp_w)]
        self.job = jail.spawn(cmd, limits, pass_fds=(req_r, resp_w))
        os.close(req_r)
        os.close(resp_w)
        self.req, self.resp = req_w, resp_r
        self.ran: dict | None = None

    def read(self, timeout: float) -> Any:
        """The job's next message, decoded as plain data; JobGone when it ended, TimeoutError when it is late."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([self.resp], [], [], min(left, 1.0))
            if ready:
                break
            if self.job.poll() is not None:
                ready, _, _ = select.select([self.resp], [], [], 0)
                if not ready:
                    raise JobGone
        try:
            raw = recv(self.resp, limit=ANSWER_LIMIT)
        except (OSError, ValueError):
            raise JobGone from None
        if raw is None:
            raise JobGone
        try:
            return wire.decode(raw)
        except ValueError:
            return {"ok": False, "kind": "error", "message": "the answer could not be read back as plain data"}

    def write(self, message: dict) -> None:
        try:
            send(self.req, pickle.dumps(message))
        except (BrokenPipeError, OSError):
            raise JobGone from None

    def stop(self) -> "sandbox.Outcome":
        """Close the pipes (the job then exits) and make sure nothing of it is left running."""
        for fd in (self.req, self.resp):
            try:
                os.close(fd)
            except OSError:
                pass
        deadline = time.monotonic() + 10
        while self.job.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        return self.job.stop()


class NotebookJob:
    """One submission's grading job: its graded run, and the replays that serve probes when its kernel is gone."""

    def __init__(self, jail: "sandbox.Jail", notebook: Path, executed: Path, limits: "sandbox.Limits",
                 cell_timeout: float, budget: float):
        self.jail, self.notebook, self.executed = jail, notebook, executed
        self.limits, self.cell_timeout, self.budget = limits, cell_timeout, budget
        self.process: Process | None = None
        self.replays = 0
        self.outcome: "sandbox.Outcome | None" = None
        self.ran: dict = {}

    def _timing(self) -> list[str]:
        return ["--cell-timeout", str(self.cell_timeout), "--budget", str(self.budget)]

    def run(self) -> dict:
        """Run the notebook; the job's report {"status", "message", "dead_cell", "serving"}, or status "gone" (with the
        sandbox's outcome) when it ended without one."""
        self.process = Process([str(self.notebook), str(self.executed), *self._timing()], self.jail, self.limits)
        try:
            report = self.process.read(self.budget + 180)
        except (JobGone, TimeoutError):
            report = None
        if isinstance(report, dict) and report.get("event") == "ran":
            self.ran = report
        elif report is None:
            self.ran = {"status": "gone", "serving": False}
        else:
            self.ran = {"status": "error", "message": "the job's report was malformed", "serving": False}
        if not self.ran.get("serving"):
            self.outcome = self.process.stop()
            self.process = None
        return self.ran

    def _replay(self) -> None:
        """Start a replay job on the executed notebook; JobGone when no replay is left or it cannot serve."""
        if self.replays >= MAX_REPLAYS or not self.executed.is_file():
            raise JobGone
        self.replays += 1
        self.process = Process([str(self.executed), "--replay", *self._timing()], self.jail, self.limits)
        try:
            ran = self.process.read(self.budget + 180)
        except (JobGone, TimeoutError):
            ran = {}
        if not (isinstance(ran, dict) and ran.get("serving")):
            self.process.stop()
            self.process = None
            raise JobGone

    def probe(self, probe: Callable, args: tuple, kwargs: dict, timeout: float) -> Any:
        """Run `probe(learner, *args, **kwargs)` in the submission's kernel and return its plain-data answer."""
        message = {"request": {"probe": probe_name(probe), "args": args, "kwargs": kwargs}, "timeout": timeout}
        try:
            pickle.dumps(message)
        except Exception as err:
            raise RuntimeError(f"the grader's case for {probe_name(probe)} cannot be sent to the job: {err}") from None
        while True:
            try:
                if self.process is None:
                    self._replay()
                self.process.write(message)
                answer = self.process.read(timeout + 60)
                break
            except JobGone:
                if self.process is not None:
                    self.process.stop()
                    self.process = None
                if self.replays >= MAX_REPLAYS or not self.executed.is_file():   # nothing left to replay
                    raise WorkerDied("the grader could not run your notebook's kernel again to check this "
                                     "(it had died or hung before).") from None
            except TimeoutError:
                self.process.stop()
                self.process = None
                raise CheckTimeout(f"your code ran for more than {timeout:.0f} s on the grader's input and was stopped.") from None
        return self._unpack(answer, timeout)

    @staticmethod
    def _unpack(answer: Any, timeout: float) -> Any:
        if not isinstance(answer, dict) or "ok" not in answer:
            raise LearnerError("the answer from your kernel was malformed.")
        if answer["ok"]:
            return answer.get("result")
        kind, message = answer.get("kind"), str(answer.get("message", ""))[:600]
        if kind == "not_implemented":
            raise NotImplementedYet(message or "not written yet: it still raises NotImplementedError.")
        if kind == "failed":
            raise CheckFailed(message)
        if kind == "timeout":
            raise CheckTimeout(f"your code ran for more than {timeout:.0f} s on the grader's input and was stopped.")
        if kind == "crashed":
            raise WorkerDied(f"your code crashed the notebook's kernel on the grader's input ({message}).")
        where = f" ({answer['where']})" if answer.get("where") else ""
        raise LearnerError(f"your code raised {message}{where} on the grader's input.")

    def stop(self) -> None:
        """Stop whatever still runs."""
        if self.process is not None:
            outcome = self.process.stop()
            self.outcome = self.outcome or outcome
            self.process = None
