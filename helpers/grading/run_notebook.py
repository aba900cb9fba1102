"""A grading job: run one submission top to bottom, keep its kernel, and answer the grader's probes in it.

    python -m helpers.grading.run_notebook IN.ipynb OUT.ipynb --requests FD --answers FD [--cell-timeout 300] [--budget 1200]
    python -m helpers.grading.run_notebook EXECUTED.ipynb --replay --requests FD --answers FD

Runs inside the grader's sandbox, as the learner ran the notebook: every cell, IPython magics included, with
papermill (through its engine interface), each cell under a time limit (interrupted, then the run goes on) and
the whole run under a budget (cells past it are not run). The settings come from the WORKBOOK_* environment,
the one channel the grader uses. The executed notebook is saved after every cell; a cell that ran past its
limit or killed the kernel is marked in its metadata (``grading_outcome``).

Then the job tells the grader how the run went and serves probe requests in the same kernel until the grader
closes the pipe: each request's probe runs through `helpers.checks.remote.answer`. A probe that runs past its
time is interrupted. When the kernel is gone (it died, or stayed busy after an interrupt) the job answers what it
can and exits; the grader then starts a replay job (``--replay``), which re-runs in a fresh kernel the cells
that had finished, saves nothing, and serves the remaining probes. Nothing from here is trusted by the grader:
it reads the answers as plain data.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile
import time
from pathlib import Path

# jsonschema (under nbformat) builds rfc3987_syntax's Lark parsers when imported, for IRI formats no notebook schema
# uses: 0.8 s of CPU in every job (a 2-core machine, torch 2.13.0: this module imported in 1.6 s instead of 2.7 s).
# jsonschema skips those formats when the module cannot be imported (python-jsonschema/jsonschema#1428).
sys.modules.setdefault("rfc3987_syntax", None)
import nbformat  # noqa: E402

from helpers.checks import wire
from helpers.grading.channel import recv, send

SETTLE_S = 15.0  # after an interrupted cell or probe, how long the kernel may take to become free again
MAX_PRINTED_CHARS = 1_000_000  # what a cell may print into the executed notebook (the gradebook keeps less of it)
OUTCOME = "grading_outcome"  # cell metadata key: what went wrong with a cell in the graded run


class KernelGone(Exception):
    """The kernel died or cannot be used any more."""


def _dead_kernel_error():
    from nbclient.exceptions import DeadKernelError

    return DeadKernelError


class Run:
    """How the cells went: the run's status, and where the kernel died if it did."""

    def __init__(self):
        self.status, self.message, self.dead_id = "ok", "", None


MAX_RESTARTS = 2  # kernels a graded run may restart after a cell killed one (a notebook that kills every kernel stops)


def run_cells(client, run: Run, cell_timeout: float, budget: float) -> bool:
    """Execute every cell in order under the per-cell limit and the budget; True while the kernel lives.

    A cell that kills the kernel costs its own part only: the kernel is restarted, the cells that had finished
    before it are run again (their outputs are not touched), the cell that killed it is skipped, and the run goes
    on with the next cell, up to MAX_RESTARTS times."""
    deadline = time.monotonic() + budget
    start, restarts = 0, 0
    while True:
        died_at = _run_from(client, run, start, cell_timeout, deadline)
        if died_at is None:
            return True
        if restarts >= MAX_RESTARTS or deadline - time.monotonic() <= 1:
            return False
        why = _restart(client)
        if why:
            run.message = f"the notebook's kernel died and could not be restarted ({why})"
            return False
        restarts += 1
        if not _rerun_finished(client, died_at, cell_timeout, deadline):
            return False
        run.message = (f"cell {run.dead_id or died_at + 1} killed the notebook's kernel; the grader restarted it, re-ran "
                       "the cells that had finished before it and ran the rest")
        start = died_at + 1


def _run_from(client, run: Run, start: int, cell_timeout: float, deadline: float) -> int | None:
    """Execute the cells from `start` on; the index of a cell that killed the kernel, or None."""
    dead_kernel = _dead_kernel_error()
    nb_man = getattr(client, "nb_man", None)
    for index in range(start, len(client.nb.cells)):
        cell = client.nb.cells[index]
        left = deadline - time.monotonic()
        if left <= 1:
            run.status, run.message = "timeout", "the notebook ran past its time budget; the cells after that were not run"
            return None
        client.timeout = int(max(1, min(cell_timeout, left)))
        started = time.monotonic()
        alive = True
        try:
            if nb_man is not None:
                best_effort(nb_man.cell_start, cell, index)
            client.execute_cell(cell, index)
        except dead_kernel:
            run.status, run.message, run.dead_id = "crashed", "the notebook's kernel died", cell.get("id")
            cell.metadata[OUTCOME] = "killed the kernel"
            alive = False
        finally:
            if cell.cell_type == "code" and alive and time.monotonic() - started >= client.timeout - 0.5:
                cell.metadata[OUTCOME] = "ran past its time limit"
            elif cell.cell_type == "code" and alive and exhausted_limits(cell):
                cell.metadata[OUTCOME] = "ran out of the job's processes or memory"
            if nb_man is not None:
                best_effort(nb_man.cell_complete, client.nb.cells[index], cell_index=index)
        if not alive:
            return index
    return None


# What a cell raises when it used up the job's process or memory limit (a fork loop, an allocation loop). Such a cell
# finished with an error and may have left processes behind; a replay or a restart must not run it again.
EXHAUSTED = ("Resource temporarily unavailable", "can't start new thread", "Cannot allocate memory")


def exhausted_limits(cell) -> bool:
    """Whether the cell ended with MemoryError or an error that says the job ran out of processes or memory."""
    return any(out.get("output_type") == "error" and (out.get("ename") == "MemoryError" or
                                                      any(w in str(out.get("evalue", "")) for w in EXHAUSTED))
               for out in cell.get("outputs", []))


def _restart(client) -> str:
    """A fresh kernel in place of the dead one, with a new client; why not, when it cannot be started ("" when it was)."""
    from jupyter_core.utils import ensure_async, run_sync

    async def restart():
        await ensure_async(client.km.restart_kernel(now=True))

    try:
        if client.kc is not None:
            client.kc.stop_channels()
        run_sync(restart)()
        client.start_new_kernel_client()
        return ""
    except Exception as err:
        return f"{type(err).__name__}: {str(err)[:200]}"


def _rerun_finished(client, before: int, cell_timeout: float, deadline: float) -> bool:
    """Run again, in the fresh kernel, copies of the code cells before `before` that had finished; False if it died."""
    import copy

    for index, cell in enumerate(client.nb.cells[:before]):
        if cell.cell_type != "code" or OUTCOME in cell.metadata:
            continue
        left = deadline - time.monotonic()
        if left <= 1:
            return False
        again = copy.deepcopy(cell)
        again.outputs = []
        client.timeout = int(max(1, min(cell_timeout, left)))
        try:
            client.execute_cell(again, index, store_history=False)
        except _dead_kernel_error():
            return False
        finally:
            client.nb.cells[index] = cell      # nbclient stores the cell it ran back at its index: keep the graded one
    return True


def best_effort(save, *args, **kwargs) -> None:
    """Papermill's bookkeeping, which saves the executed notebook: a notebook that broke its own file (a link, a
    folder in its place) loses the saved copy, not its grading."""
    try:
        save(*args, **kwargs)
    except Exception:
        pass


def finished_cells(nb) -> list:
    """The cells of an executed notebook that ran to their end in the graded run (what a replay re-runs)."""
    keep = []
    for cell in nb.cells:
        meta = cell.get("metadata", {})
        pm = meta.get("papermill", {})
        if cell.cell_type == "code" and pm.get("end_time") and OUTCOME not in meta:
            keep.append(cell)
    return keep


class Prober:
    """Runs probe requests in a live kernel through a one-cell notebook client sharing that kernel."""

    def __init__(self, km, kernel_name: str, workdir: Path):
        from nbclient import NotebookClient

        self.cell = nbformat.v4.new_code_cell("")
        self.client = NotebookClient(nbformat.v4.new_notebook(cells=[self.cell]), km=km, kernel_name=kernel_name,
                                     allow_errors=True, interrupt_on_timeout=True, record_timing=False,
                                     error_on_timeout={"ename": "Timeout", "evalue": "", "traceback": []})
        self.workdir = workdir
        self.count = 0

    def __enter__(self):
        self._ctx = self.client.setup_kernel()
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)

    def execute(self, source: str, timeout: float) -> float:
        """Run `source` in the kernel, without output or history; the seconds it took."""
        self.cell.source, self.cell.outputs = source, []
        self.client.timeout = int(max(1, timeout))
        start = time.monotonic()
        try:
            self.client.execute_cell(self.cell, 0, store_history=False)
        except _dead_kernel_error():
            raise KernelGone from None
        self.cell.outputs = []          # what the learner's code printed is not kept
        return time.monotonic() - start

    def probe(self, request: dict, timeout: float) -> tuple[bytes, bool]:
        """Run one probe request: the answer's bytes (plain data), and whether the kernel is still usable."""
        self.count += 1
        req, ans = self.workdir / f"{self.count}.request", self.workdir / f"{self.count}.answer"
        req.write_bytes(pickle.dumps(request))
        took = self.execute(f"__import__('helpers.checks.remote', fromlist=['answer']).answer({str(req)!r}, {str(ans)!r})",
                            timeout)
        if ans.is_file():
            raw = ans.read_bytes()
            ans.unlink()
            return raw, True
        if took >= timeout - 0.5:
            usable = self.execute("pass", SETTLE_S) < SETTLE_S - 0.5
            return wire.encode({"ok": False, "kind": "timeout", "message": f"ran past {timeout:.0f} s"}), usable
        return wire.encode({"ok": False, "kind": "crashed", "message": "the probe gave no answer"}), True


def serve(km, kernel_name: str, run: Run, req_fd: int, resp_fd: int, workdir: Path) -> None:
    """Tell the grader how the run went, then answer its requests until it closes the pipe or the kernel is gone."""
    send(resp_fd, wire.encode({"event": "ran", "status": run.status, "message": run.message, "dead_cell": run.dead_id,
                               "serving": km is not None}))
    if km is None:
        return
    with Prober(km, kernel_name, workdir) as prober:
        while (raw := recv(req_fd)) is not None:
            request = pickle.loads(raw)
            try:
                answer, usable = prober.probe(request["request"], request["timeout"])
            except KernelGone:
                answer, usable = wire.encode({"ok": False, "kind": "crashed", "message": "the learner's code killed the kernel"}), False
            send(resp_fd, answer)
            if not usable:
                return


def output_chars(out) -> int:
    """The characters an output holds: its text, and every text-valued entry of its data (images are base64)."""
    return len(out.get("text", "") or "") + sum(len(v) for v in out.get("data", {}).values() if isinstance(v, str))


def make_engine(on_cells_done, cell_timeout: float, budget: float):
    """A papermill engine whose client runs the cells under our limits, then hands the live kernel to `on_cells_done`."""
    from papermill.clientwrap import PapermillNotebookClient
    from papermill.engines import NBClientEngine

    class GradingClient(PapermillNotebookClient):
        def output(self, outs, msg, display_id, cell_index):
            """Keep what a cell outputs (printed text, results, displays) up to MAX_PRINTED_CHARS: the notebook is
            saved after every cell, and a cell that printed 100 MB would make each later save write it again."""
            out = super().output(outs, msg, display_id, cell_index)
            if out is None:
                return out
            used = self.printed.get(cell_index, 0)
            self.printed[cell_index] = used + output_chars(out)
            if self.printed[cell_index] <= MAX_PRINTED_CHARS:
                return out
            kept = out.get("text", "")[:MAX_PRINTED_CHARS - used] if out.get("output_type") == "stream" else ""
            note = "" if used > MAX_PRINTED_CHARS else (
                f"\n[... the grader keeps the first {MAX_PRINTED_CHARS:,} characters a cell outputs ...]\n")
            if used > MAX_PRINTED_CHARS and not display_id and outs and outs[-1] is out:
                outs.pop()                        # cut already: drop the rest
                return None
            out.clear()                           # in place: a display id keeps pointing at this entry
            out.update(nbformat.v4.new_output("stream", name="stdout", text=kept + note))
            return out

        def execute(self, **kwargs):
            self.printed = {}
            self.reset_execution_trackers()
            run = Run()
            with self.setup_kernel(**kwargs):
                alive = run_cells(self, run, cell_timeout, budget)
                best_effort(self.nb_man.save)
                on_cells_done(self.km if alive else None, self.kernel_name, run)
            return self.nb

    class GradingEngine(NBClientEngine):
        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):
            # After a cell's limit: interrupt it and wait up to SETTLE_S for it to end (a long C call takes the
            # interrupt when it returns), then go on; papermill's default gave up after 4 s and failed the whole run.
            return GradingClient(nb_man, kernel_name=kernel_name, allow_errors=True, interrupt_on_timeout=True,
                                 raise_on_iopub_timeout=False, iopub_timeout=int(SETTLE_S),
                                 startup_timeout=kwargs.get("start_timeout", 120),
                                 error_on_timeout={"ename": "CellTimeout", "evalue": "stopped by the grader",
                                                   "traceback": ["CellTimeout: the grader stopped this cell at its time limit"]}
                                 ).execute()

    return GradingEngine


def graded_run(args, workdir: Path) -> None:
    """Run the submission with papermill (saving OUT after each cell), then serve probes in its kernel."""
    import papermill
    from papermill.engines import papermill_engines

    announced = []

    def on_cells_done(km, kernel_name, run):
        announced.append(True)
        serve(km, kernel_name, run, args.requests, args.answers, workdir)

    papermill_engines.register("workbook-grading", make_engine(on_cells_done, args.cell_timeout, args.budget))
    try:
        papermill.execute_notebook(args.input, args.output, engine_name="workbook-grading", kernel_name="python3",
                                   progress_bar=False, log_output=False, request_save_on_cell_execute=True,
                                   start_timeout=120)
    except Exception as err:   # papermill raises when cells had errors: expected, each exercise is graded on its own
        if not announced:
            run = Run()
            run.status, run.message = "error", f"the notebook could not be run ({type(err).__name__}: {str(err)[:300]})"
            serve(None, "python3", run, args.requests, args.answers, workdir)


def replay(args, workdir: Path) -> None:
    """Re-run the finished cells of an executed notebook in a fresh kernel (saving nothing), then serve probes."""
    from nbclient import NotebookClient

    executed = nbformat.read(args.input, as_version=4)
    nb = nbformat.v4.new_notebook(cells=finished_cells(executed), metadata=executed.metadata)
    client = NotebookClient(nb, kernel_name="python3", allow_errors=True, interrupt_on_timeout=True, record_timing=False,
                            raise_on_iopub_timeout=False, iopub_timeout=int(SETTLE_S), startup_timeout=120,
                            error_on_timeout={"ename": "CellTimeout", "evalue": "", "traceback": []})
    run = Run()
    with client.setup_kernel():
        alive = run_cells(client, run, args.cell_timeout, args.budget)
        serve(client.km if alive else None, "python3", run, args.requests, args.answers, workdir)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("input")
    ap.add_argument("output", nargs="?")
    ap.add_argument("--replay", action="store_true", help="re-run the finished cells of an executed notebook, save nothing")
    ap.add_argument("--requests", type=int, required=True)
    ap.add_argument("--answers", type=int, required=True)
    ap.add_argument("--cell-timeout", type=float, default=300)
    ap.add_argument("--budget", type=float, default=1200)
    args = ap.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="probes-"))
    (replay if args.replay else graded_run)(args, workdir)
    os._exit(0)   # kernels are shut down; the sandbox ends whatever is left


if __name__ == "__main__":
    main()
