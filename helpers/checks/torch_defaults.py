"""The process-wide torch settings every probe runs under, whatever the learner's own cells left set.

A scratch cell may change a default for the whole kernel: `torch.set_default_dtype(torch.float64)`,
`torch.set_grad_enabled(False)`, `torch.set_default_device("cuda")`, `torch.use_deterministic_algorithms(True)`,
`torch.autograd.set_detect_anomaly(True)` or `warnings.filterwarnings("error")`. The checks build their cases and
call the learner's functions under torch's defaults instead (a check judges the answer, not the kernel's settings),
and put the learner's settings back when the probe ends, so the notebook goes on as the learner left it.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Iterator

import torch


@contextlib.contextmanager
def torch_defaults() -> Iterator[None]:
    """Default dtype float32, gradients on, no inference mode, default device CPU, nondeterministic algorithms
    allowed, anomaly detection off, no warning turned into an error; each put back as it was afterwards."""
    dtype = torch.get_default_dtype()
    device = torch.get_default_device() if hasattr(torch, "get_default_device") else torch.device("cpu")
    deterministic = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    anomaly = torch.is_anomaly_enabled()
    try:
        if dtype != torch.float32:
            torch.set_default_dtype(torch.float32)
        if device.type != "cpu":
            torch.set_default_device(None)
        if deterministic:
            torch.use_deterministic_algorithms(False)
        if anomaly:
            torch.autograd.set_detect_anomaly(False)
        with warnings.catch_warnings(), torch.inference_mode(False), torch.enable_grad():
            warnings.filters[:] = [f for f in warnings.filters if f[0] != "error"]
            yield
    finally:
        if dtype != torch.float32:
            torch.set_default_dtype(dtype)
        if device.type != "cpu":
            torch.set_default_device(device)
        if deterministic:
            torch.use_deterministic_algorithms(True, warn_only=warn_only)
        if anomaly:
            torch.autograd.set_detect_anomaly(True)
