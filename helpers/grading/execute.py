"""Execute one restored submission with papermill (run inside the grader's sandbox).

    python -m helpers.grading.execute IN.ipynb OUT.ipynb --cwd DIR --cell-timeout 300 --params '{"QUICK": true}'

Errors in cells do not stop the run (each exercise is graded on its own); a cell
that runs past the per-cell timeout is interrupted and the run goes on. The
executed notebook is saved after every cell, so a run killed from outside
still leaves the cells that finished. A status line is written to OUT.status.json.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--cell-timeout", type=float, default=300)
    ap.add_argument("--params", default="{}")
    args = ap.parse_args()
    status_path = Path(args.output + ".status.json")
    status = {"status": "ok", "message": ""}
    try:
        import papermill
        from nbclient.exceptions import DeadKernelError
        from papermill.exceptions import PapermillExecutionError

        try:
            papermill.execute_notebook(
                args.input, args.output, parameters=json.loads(args.params), cwd=args.cwd,
                kernel_name="python3", progress_bar=False, log_output=False, request_save_on_cell_execute=True,
                execution_timeout=args.cell_timeout, allow_errors=True, interrupt_on_timeout=True,
                start_timeout=120,
            )
        except PapermillExecutionError:
            pass  # some cells raised: expected for unfinished exercises; graded per check
        except DeadKernelError as err:
            status = {"status": "crashed", "message": f"the notebook's kernel died ({str(err)[:200]})"}
    except Exception as err:
        status = {"status": "error", "message": f"{type(err).__name__}: {str(err)[:300]}"}
    tmp = status_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(status))
    os.replace(tmp, status_path)


if __name__ == "__main__":
    main()
