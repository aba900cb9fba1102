"""Answer one of the grader's probe requests inside the learner's kernel.

The grader's job runs the submission top to bottom (papermill) and keeps its kernel. For each hidden check it
writes a request file (the probe's importable name and pickled arguments) and runs
``__import__("helpers.checks.remote", fromlist=["answer"]).answer(REQUEST, ANSWER)`` in that kernel, silently.
The probe gets the notebook's namespace through `Learner`, as a public check does, and its answer is written
as plain data (`helpers.checks.wire.encode`), which the grader reads without running any code.
"""

from __future__ import annotations

import os
import pickle
import sys
import traceback
from pathlib import Path

from helpers.checks import CheckFailed, Learner, NotImplementedYet, resolve_probe, wire
from helpers.checks.torch_defaults import torch_defaults


def notebook_namespace() -> dict:
    """The kernel's user namespace (IPython's), or __main__'s outside IPython."""
    try:
        from IPython import get_ipython

        shell = get_ipython()
        if shell is not None:
            return shell.user_ns
    except ImportError:
        pass
    return vars(sys.modules["__main__"])


def learner_where(err: BaseException) -> str:
    """'name, line N' of the innermost notebook frame in the traceback."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if "ipykernel" in f.filename or f.filename.startswith("<")]
    return f"{frames[-1].name}, line {frames[-1].lineno}" if frames else ""


def outcome(request: dict, ns: dict) -> dict:
    """Run the requested probe against `ns` and describe what happened, as plain data."""
    try:
        probe = resolve_probe(request["probe"])
        with torch_defaults():
            result = probe(Learner(ns), *request.get("args", ()), **request.get("kwargs", {}))
        return {"ok": True, "result": result}
    except NotImplementedYet as err:
        return {"ok": False, "kind": "not_implemented", "message": str(err)}
    except CheckFailed as err:
        return {"ok": False, "kind": "failed", "message": str(err), "status": err.status}
    except KeyboardInterrupt:
        return {"ok": False, "kind": "timeout", "message": "interrupted"}
    except BaseException as err:  # SystemExit too: the learner's code may call sys.exit()
        return {"ok": False, "kind": "error", "message": f"{type(err).__name__}: {str(err)[:300]}", "where": learner_where(err)}


def answer(request_path: str, answer_path: str) -> None:
    """Read a request, run its probe, write the answer file atomically."""
    try:
        request = pickle.loads(Path(request_path).read_bytes())
        result = outcome(request, notebook_namespace())
    except BaseException as err:
        result = {"ok": False, "kind": "error", "message": f"the request could not be read ({type(err).__name__})"}
    try:
        payload = wire.encode(result)
    except BaseException as err:
        payload = wire.encode({"ok": False, "kind": "error", "message": f"the answer could not be written ({type(err).__name__})"})
    tmp = answer_path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(payload)
    os.replace(tmp, answer_path)
