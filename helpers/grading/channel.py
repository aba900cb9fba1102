"""Length-prefixed messages over the two pipes between the grader and a grading job.

The grader writes requests (pickled: they come from the trusted side); the job writes answers as plain data
(`helpers.checks.wire.encode`), which the grader reads with `decode`, never with pickle.
"""

from __future__ import annotations

import os
import struct

HEADER = struct.Struct("!Q")


def send(fd: int, payload: bytes) -> None:
    """Write one length-prefixed message."""
    data = HEADER.pack(len(payload)) + payload
    while data:
        data = data[os.write(fd, data):]


def recv(fd: int, limit: int = 1 << 30) -> bytes | None:
    """Read one length-prefixed message (None at end of stream); ValueError when it is over `limit` bytes."""
    head = _read_exact(fd, HEADER.size)
    if head is None:
        return None
    (size,) = HEADER.unpack(head)
    if size > limit:
        raise ValueError(f"a message of {size} bytes is over the limit of {limit}")
    return _read_exact(fd, size)


def _read_exact(fd: int, n: int) -> bytes | None:
    chunks, left = [], n
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
