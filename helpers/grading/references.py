"""Compute a lab's reference answers once per batch, in a process of their own.

    python -m helpers.grading.references 04 OUT.pkl

Some answers can only be had by running code on the grading machine (the Inductor dump of a model, what the
capture experiments do on this torch). They run here, with the batch's settings in the environment (the same
WORKBOOK_* channel the jobs get), never in the grader's own process (a compile there would leave its threads and
caches behind) and never in a job (the learner's code could change what they see). The result is pickled: this
process runs only the grader's code.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

from helpers.grading.hidden import load_hidden


def compute(lab: str) -> dict:
    """Every REFERENCES entry of the lab's hidden module, computed here."""
    hidden = load_hidden(lab)
    return {key: fn() for key, fn in hidden.references.items()}


def references(lab: str, out: Path, env: dict, cwd: Path, timeout: float = 900) -> dict:
    """The lab's references for this batch: computed once in a subprocess, then read from `out`."""
    if not out.is_file():
        if not load_hidden(lab).references:
            return {}
        cmd = [sys.executable, "-m", "helpers.grading.references", lab, str(out)]
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0 or not out.is_file():
            raise RuntimeError(f"the grader could not compute lab {lab}'s references on this machine:\n{done.stderr[-3000:]}")
    return pickle.loads(out.read_bytes())


def main() -> None:
    lab, out = sys.argv[1], Path(sys.argv[2])
    data = pickle.dumps(compute(lab))
    tmp = out.with_suffix(".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, out)
    sys.stdout.flush()
    os._exit(0)   # skip the interpreter's teardown of compile threads; the file is written


if __name__ == "__main__":
    main()
