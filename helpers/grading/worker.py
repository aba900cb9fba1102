"""The learner's code in a process of its own, answering the grader's requests.

The grader (trusted) starts this module in the sandbox with two pipe file
descriptors. The worker runs the notebook's definitions (parameters, set-up,
exercise cells, and the `def`/`class`/`import` statements of cells the learner
added), then answers requests: run this snippet of the grader's code in the
learner's namespace and send back `result`. Requests come pickled from the
grader; answers go back as `torch.save` data, which the grader reads with
`torch.load(weights_only=True)`, so nothing the learner's code returns can run
code in the grader.
"""

from __future__ import annotations

import ast
import io
import os
import pickle
import struct
import sys
import traceback

from helpers.notebooks import remember_source

HEADER = struct.Struct("!Q")


def send(fd: int, payload: bytes) -> None:
    """Write one length-prefixed message."""
    data = HEADER.pack(len(payload)) + payload
    while data:
        data = data[os.write(fd, data):]


def recv(fd: int, limit: int = 1 << 30) -> bytes | None:
    """Read one length-prefixed message (None at end of stream)."""
    head = _read_exact(fd, HEADER.size)
    if head is None:
        return None
    (size,) = HEADER.unpack(head)
    if size > limit:
        raise ValueError(f"message of {size} bytes is over the limit")
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


def definitions_only(source: str) -> str:
    """Keep the top-level def, class and import statements of a cell (a learner-added helper cell)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    keep = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
    tree.body = [node for node in tree.body if isinstance(node, keep)]
    return ast.unparse(tree)


def encode(value) -> bytes:
    """Serialise an answer for torch.load(weights_only=True)."""
    import torch

    buf = io.BytesIO()
    torch.save(value, buf)
    return buf.getvalue()


def load_namespace(cells: list[dict]) -> tuple[dict, list[str]]:
    """Execute the cells the grader chose; an error in one cell is recorded, not fatal."""
    ns: dict = {"__name__": "__main__"}
    errors = []
    for cell in cells:
        source = cell["source"] if cell["mode"] == "all" else definitions_only(cell["source"])
        filename = remember_source(source, f"<cell {cell['id']}>")
        try:
            exec(compile(source, filename, "exec"), ns)
        except BaseException as err:  # SystemExit too: a cell may call sys.exit()
            errors.append(f"cell '{cell['id']}': {type(err).__name__}: {str(err)[:200]}")
    return ns, errors


def serve(req_fd: int, resp_fd: int) -> None:
    """Answer requests until the grader closes the pipe."""
    setup = pickle.loads(recv(req_fd))
    ns, errors = load_namespace(setup["cells"])
    send(resp_fd, encode({"ok": True, "errors": errors}))
    while (raw := recv(req_fd)) is not None:
        request = pickle.loads(raw)
        scope = {**ns, **request.get("inputs", {})}       # one scope, so comprehensions see the snippet's names
        try:
            exec(compile(request["snippet"], "<grader>", "exec"), scope)
            answer = {"ok": True, "result": scope.get("result")}
        except NotImplementedError:
            answer = {"ok": False, "kind": "not_implemented", "error": "raises NotImplementedError"}
        except BaseException as err:
            tb = traceback.extract_tb(err.__traceback__)
            where = next((f"{f.name}, line {f.lineno}" for f in reversed(tb) if f.filename.startswith("<cell")), "")
            answer = {"ok": False, "kind": "error", "error": f"{type(err).__name__}: {str(err)[:300]}", "where": where}
        try:
            payload = encode(answer)
        except Exception as err:
            payload = encode({"ok": False, "kind": "error", "error": f"the answer could not be sent back ({type(err).__name__})"})
        send(resp_fd, payload)


if __name__ == "__main__":
    req, resp = int(sys.argv[1]), int(sys.argv[2])
    # The learner's prints go to the log, never into the answer channel.
    serve(req, resp)
