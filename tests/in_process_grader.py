"""The checks, public and hidden, run in the test process on a namespace built from a notebook's cells.

The hidden cases are the grader's (solutions/hidden/labNN.py) and the check functions are the public ones, so
this is how the grader judges, with the probes run here instead of in a job's kernel; answers still make the
plain-data round trip (helpers.checks.wire). test_grading_labs.py runs the same checks through real jobs.
"""

from __future__ import annotations

import contextlib
import functools
import os
from pathlib import Path

from helpers import checks, notebooks
from helpers.env import LabSettings
from helpers.grading import hidden
from helpers.notebooks import remember_source


def skip_guard_latency_profile() -> None:
    """Dynamo times each new set of guards once, after flushing the CPU caches, only to log the figure
    (torch._dynamo.guards.profile_guard_manager, torch 2.11 to 2.15): 17 ms a compile on the 2-core machine, a quarter
    of Lab 01's corpus's CPU (py-spy). The checks this module runs in the test process, thousands of small compiles,
    skip it; the guards are still built and checked. The notebooks, the grader's jobs and a learner's kernel keep torch
    as it is."""
    import torch._dynamo.guards as guards

    if callable(getattr(guards, "profile_guard_manager", None)):
        guards.profile_guard_manager = lambda *args, **kwargs: 0.0


skip_guard_latency_profile()


# The device the corpus and these checks run on: "cpu" in CI; WORKBOOK_TEST_DEVICE=cuda runs them on a GPU machine
# (Lab 05 on two GPUs: its ranks talk through NCCL, where some mistakes only show).
TEST_DEVICE = os.environ.get("WORKBOOK_TEST_DEVICE", "cpu")


@contextlib.contextmanager
def lab_env(out_dir: str | Path):
    """The grader's settings (TEST_DEVICE, QUICK, this OUT_DIR, seed 0) in the environment, for a while."""
    env = LabSettings(device=TEST_DEVICE, quick=True, out_dir=str(out_dir)).to_env()
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def notebook_namespace(path: Path, out_dir: str | Path, cells: list[str] | None = None,
                       overrides: dict[str, str] | None = None) -> dict:
    """Run a notebook's code cells (these ids only, when given; some sources replaced) in a fresh namespace, their
    timings with the fewest samples (bench.shortest_timings: the tests judge what the checks say, not the figures)."""
    from helpers import bench

    ns: dict = {"__name__": "__main__"}
    overrides = overrides or {}
    with lab_env(out_dir), bench.shortest_timings():
        for c in notebooks.read(path).cells:
            if c.cell_type != "code" or (cells is not None and c.id not in cells):
                continue
            source = overrides.get(c.id, c.source)
            exec(compile(source, remember_source(source, f"<cell {c.id}>"), "exec"), ns)
    return ns


@functools.lru_cache(maxsize=None)
def hidden_lab(lab: str) -> tuple[hidden.HiddenLab, dict]:
    """The lab's hidden cases and its references, computed here once."""
    h = hidden.load_hidden(lab)
    return h, {key: fn() for key, fn in h.references.items()}


def run_public(name: str, ns: dict, out_dir: str | Path) -> checks.Result:
    """The check as the notebook runs it."""
    with lab_env(out_dir):
        return checks.run_check(name, ns)


def run_hidden(name: str, ns: dict, out_dir: str | Path) -> checks.Result:
    """The check as the grader runs it: the hidden cases, nothing revealed."""
    h, refs = hidden_lab(checks.lab_of(name))
    with lab_env(out_dir):
        return checks.run_check(name, ns, cases=h.cases_for(name, refs), reveal=False)
