"""torch.profiler, quietly: count what a call launches (kernels on a GPU, dispatched ops on a CPU; Lab 03), and the
peak of torch's allocations during a call, measured on a CPU too (Labs 03 and 06)."""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections import Counter
from typing import Any, Callable, Iterator

import torch
from torch.profiler import ProfilerActivity, profile

from helpers.bench import infer_device

# ATen ops that compute nothing (allocations, views, type queries): not counted on a CPU.
BOOKKEEPING = {"aten::empty", "aten::empty_like", "aten::empty_strided", "aten::expand", "aten::view", "aten::as_strided",
               "aten::contiguous", "aten::promote_types", "aten::result_type", "aten::detach", "aten::t", "aten::transpose",
               "aten::reshape", "aten::lift_fresh", "aten::resize_", "aten::set_", "aten::alias", "aten::unsqueeze",
               "aten::squeeze", "aten::permute", "aten::slice", "aten::select"}


@contextlib.contextmanager
def _native_stderr_silenced() -> Iterator[None]:
    """Send file descriptor 2 to /dev/null for a moment: the profiler's C++ side prints start/stop lines there."""
    sys.stderr.flush()
    try:
        saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    except OSError:          # no fd 2 to redirect (an embedded interpreter): print the lines rather than fail
        yield
        return
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


# Some builds warn, on reading a profile's events, that "Profiler clears events at the end of each cycle": true of
# schedules with several cycles, which these helpers never use (one profile, one cycle), so it says nothing here.
warnings.filterwarnings("ignore", message=r".*Profiler clears events at the end of each cycle")


@contextlib.contextmanager
def quiet_profile(**kwargs: Any) -> Iterator[profile]:
    """torch.profiler.profile(**kwargs) without the lines some builds' profiler prints to stderr on start and stop."""
    prof = profile(**kwargs)
    with _native_stderr_silenced():
        prof.start()
    try:
        yield prof
    finally:
        with _native_stderr_silenced():
            prof.stop()


def peak_allocated_bytes(fn: Callable, *args: Any) -> int:
    """Peak of the bytes torch allocated and had not yet freed while fn(*args) ran, above where it started.

    From the profiler's memory events (profile_memory=True records every allocation and free with its size; a
    running sum gives the peak), so it works on a CPU, where torch keeps no peak statistics.
    """
    with quiet_profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        out = fn(*args)
    events = sorted((e.start_ns(), e.nbytes()) for e in prof.profiler.kineto_results.events() if e.name() == "[memory]")
    live = peak = 0
    for _, nbytes in events:
        live += nbytes          # an allocation adds its bytes, a free subtracts them
        peak = max(peak, live)
    del out
    return peak


def count_launches(fn: Callable, *args: Any, warmup: int = 1) -> Counter:
    """{name: count} of what one call of fn(*args) runs.

    On CUDA: the GPU kernels (a library call such as a matmul counts its own kernels).
    On CPU: the top-level ATen ops dispatched that compute something (not allocations or views), plus ranges named "triton::…" (a Triton launch that a
    backend labels with torch.profiler.record_function). Inductor's C++ kernels are plain function calls,
    invisible to the profiler: a compiled call that runs only those shows nothing but its own ops.
    """
    device = infer_device(args)
    for _ in range(warmup):
        fn(*args)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        with quiet_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            fn(*args)
            torch.cuda.synchronize(device)
        return Counter(e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
                       and not e.name.startswith(("Memcpy", "Memset", "triton::")))   # triton:: is a range, not a kernel
    with quiet_profile(activities=[ProfilerActivity.CPU]) as prof:
        fn(*args)
    counted = Counter()
    for e in prof.events():
        if e.name.startswith("triton::"):
            counted[e.name] += 1
        elif e.name.startswith("aten::") and e.name not in BOOKKEEPING and not _inside_op(e):
            counted[e.name] += 1
    return counted


def _inside_op(event) -> bool:
    """True when the event runs inside another ATen op or a triton:: range (counted there already)."""
    parent = event.cpu_parent
    while parent is not None:
        if parent.name.startswith(("aten::", "triton::")):
            return True
        parent = parent.cpu_parent
    return False
