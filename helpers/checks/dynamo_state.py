"""Dynamo state a learner's answer can change, seen and put back by the probes that run it.

A recompile limit, `error_on_recompile = False` or the `eager_on_recompile` stance hides a recompilation by running
the frame eagerly: counting the graphs Dynamo compiled then misses it, counting how often each compiled graph ran
does not (`count_runs`). Whatever Dynamo settings or stance the answer set end with the probe (`settings_kept`)."""

from __future__ import annotations

import contextlib
import warnings
from typing import Callable, Iterator

import torch


def count_runs(backend: Callable, runs: list[int]) -> Callable:
    """`backend` (a torch.compile backend callable), with one counter per graph it compiles appended to `runs`, each
    counting the graph's runs."""

    def counting_backend(gm, example_inputs):
        compiled = backend(gm, example_inputs)
        slot = len(runs)
        runs.append(0)

        def run(*args):
            runs[slot] += 1
            return compiled(*args)

        run._boxed_call = getattr(compiled, "_boxed_call", False)
        return run

    return counting_backend


@contextlib.contextmanager
def settings_kept() -> Iterator[None]:
    """Dynamo's settings and the compiler stance as they were before the block, whatever it set."""
    config = torch._dynamo.config
    saved = config.get_config_copy()
    try:
        yield
    finally:
        torch.compiler.set_stance("default")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # (reading a setting torch deprecated warns)
            changed = {k: v for k, v in saved.items() if getattr(config, k) != v}
            for key, value in changed.items():       # only those the block changed: writing back every setting
                setattr(config, key, value)          # would also write the deprecated ones
