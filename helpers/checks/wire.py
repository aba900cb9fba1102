"""What crosses between the learner's code and a check: plain data only, the same in the notebook and the grader.

A probe's answer is reduced to tensors, numbers, strings, lists and str-keyed dicts (`plain`), written with
`torch.save` (`encode`) and read back with `torch.load(weights_only=True)` (`decode`), so nothing the learner's
code returns can run code where it is read. The notebook's checks make the same round trip as the grader's, so a
check cannot pass in one and fail in the other because of what a probe returned.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

import torch

MAX_ANSWER_BYTES = 256 << 20
MAX_DEPTH = 12


def plain(value: Any, depth: int = 0) -> Any:
    """`value` as plain data: tensors (detached, on the CPU), numbers, strings, None, lists and str-keyed dicts."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().clone() if value.layout == torch.strided else repr(value)[:200]
    if value is None:
        return None
    for kind in (bool, int, float, str):      # subclasses too (torch's version string, numpy's floats): as the base type
        if isinstance(value, kind):
            return kind(value)
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):   # numpy scalars and arrays, as Python values
        return plain(value.tolist(), depth + 1)
    if isinstance(value, (torch.dtype, torch.device, torch.Size)):
        return list(value) if isinstance(value, torch.Size) else str(value)
    if depth >= MAX_DEPTH:
        return repr(value)[:200]
    if isinstance(value, dict):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v, depth + 1) for v in value), key=repr)
    return f"<{type(value).__name__}: {_safe_repr(value)}>"


def _safe_repr(value: Any) -> str:
    try:
        return repr(value)[:200]
    except Exception:
        return "unprintable"


def encode(value: Any) -> bytes:
    """Plain data as bytes that `decode` reads without running code."""
    buf = io.BytesIO()
    torch.save(plain(value), buf)
    return buf.getvalue()


def decode(raw: bytes, limit: int = MAX_ANSWER_BYTES) -> Any:
    """Read what `encode` wrote; ValueError when it is too large or not plain data."""
    if len(raw) > limit:
        raise ValueError(f"an answer of {len(raw) / 2**20:.0f} MB is over the {limit >> 20} MB limit")
    try:
        return torch.load(io.BytesIO(raw), weights_only=True)
    except Exception as err:
        raise ValueError(f"not plain data ({type(err).__name__})") from None


def round_trip(value: Any) -> Any:
    """What the grader would read back from `value`."""
    return decode(encode(value))


def fresh(args: Any) -> Any:
    """A private copy of a probe's arguments, made the way the grader sends them (pickled)."""
    return pickle.loads(pickle.dumps(args))
