"""Count what a call launches, with torch.profiler: kernels on a GPU, dispatched ops on a CPU (Lab 03)."""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable

import torch
from torch.profiler import ProfilerActivity, profile

from helpers.bench import infer_device

# ATen ops that compute nothing (allocations, views, type queries): not counted on a CPU.
BOOKKEEPING = {"aten::empty", "aten::empty_like", "aten::empty_strided", "aten::expand", "aten::view", "aten::as_strided",
               "aten::contiguous", "aten::promote_types", "aten::result_type", "aten::detach", "aten::t", "aten::transpose",
               "aten::reshape", "aten::lift_fresh", "aten::resize_", "aten::set_", "aten::alias", "aten::unsqueeze",
               "aten::squeeze", "aten::permute", "aten::slice", "aten::select"}


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
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            fn(*args)
            torch.cuda.synchronize(device)
        return Counter(e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
                       and not e.name.startswith(("Memcpy", "Memset", "triton::")))   # triton:: is a range, not a kernel
    with profile(activities=[ProfilerActivity.CPU]) as prof:
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
