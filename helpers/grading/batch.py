"""Grade a batch of submissions: restore, run each in its sandboxed job, score with the hidden cases, write the gradebook.

    workbook grade --lab 04 submissions/*.ipynb --out grades/ --jobs 2

Per submission: read it (a broken file is graded "invalid", never aborts the batch), restore protected cells
from the released lab, and start its job (`helpers.grading.job`): the notebook runs top to bottom with papermill
in its own scratch folder under time, memory and process limits, with the batch's settings (device, QUICK,
OUT_DIR, seed) in the WORKBOOK_* environment, and its kernel stays up. Then every check the lab registers runs
here, in the grader, on the lab's hidden cases: its probes run in that kernel, their answers come back as plain
data and are judged here. Results land in OUT/results/ one file per submission, so a batch that is stopped
resumes where it was, and a re-run gives the same grades.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from helpers import checks, notebooks
from helpers.notebooks import lab_path
from helpers.checks import Result
from helpers.env import LabSettings, cpu_count
from helpers.grading import class_report, gpus, gradebook, hidden, manual, references, restore, sandbox
from helpers.grading.job import NotebookJob
from helpers.grading.gradebook import SubmissionResult

ROOT = Path(__file__).resolve().parents[2]
GRADER_VERSION = "2"


@dataclass
class Settings:
    """How to grade: limits, parallelism, and the run's settings every job gets (device, QUICK, seed)."""

    lab: str
    out: Path
    jobs: int = 1
    cell_timeout: float = 300
    notebook_timeout: float = 1200
    call_timeout: float = 60
    memory_mb: int = 6144
    nproc: int = 512
    device: str = "cpu"
    quick: bool = True
    seed: int = 0
    threads: int | None = None   # CPU threads per job; default: the cores shared out between the jobs
    bwrap: bool = True           # jail each job with bubblewrap where it can start
    warm: bool = True
    force: bool = False          # regrade every submission, even those already graded unchanged
    only: tuple = ()             # regrade just these submissions (file name, stem or gradebook key)
    gpus: str | None = None      # --device cuda: the GPUs to spread the jobs over ("0,1"; default every visible one)

    def gpu_plan(self) -> gpus.GpuPlan | None:
        """Which GPU each job slot runs on and its share of GPU memory; None on a CPU."""
        if self.device == "cpu":
            return None
        return gpus.GpuPlan(tuple(gpus.visible_gpus(self.gpus)), self.jobs, gpus.gpus_per_job(self.lab))

    def lab_settings(self, out_dir: Path) -> LabSettings:
        """The settings a job's notebook and probes run with, through the WORKBOOK_* environment."""
        return LabSettings(device=self.device, quick=self.quick, out_dir=str(out_dir), seed=self.seed)

    def threads_per_job(self) -> int:
        return self.threads or max(1, cpu_count() // max(1, self.jobs))


def discover(paths: list[Path]) -> list[Path]:
    """Files named on the command line, and the .ipynb files inside folders named."""
    found = []
    for p in paths:
        if p.is_dir():
            found += sorted(q for q in p.rglob("*.ipynb") if ".ipynb_checkpoints" not in q.parts)
        else:
            found.append(p)
    return found


def submission_key(path: Path) -> str:
    """A file-system-safe, stable key for a submission: its name plus a hash of its path."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", path.stem)[:60] or "submission"
    return f"{stem}-{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:8]}"


def file_hash(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


def shard_of(items: list[Path], shard: str | None) -> list[Path]:
    """The i-th of N shares ("i/N", 1-based) of the sorted submissions."""
    if not shard:
        return items
    i, n = (int(v) for v in shard.split("/"))
    if not 1 <= i <= n:
        raise ValueError(f"--shard {shard}: use i/N with 1 ≤ i ≤ N")
    ordered = sorted(items, key=lambda p: str(p.resolve()))
    return [p for k, p in enumerate(ordered) if k % n == i - 1]


# ---------------------------------------------------------------- one submission
def check_cells(lab_nb) -> dict[str, str]:
    """{check name: id of the cell that runs it} from the lab's check cells."""
    found = {}
    for cell in lab_nb.cells:
        if "check" in notebooks.tags(cell):
            for name in re.findall(r"check\(\s*['\"]([^'\"]+)['\"]", cell.source):
                found[name] = cell.id
    return found


def cell_fates(executed: bytes | None) -> tuple[dict[str, bool], str | None]:
    """Which cells started running ({id: True}), and a description of the last one that did."""
    try:
        nb = nbformat.reads(executed.decode("utf-8"), as_version=4)
    except Exception:
        return {}, None
    started = {c.get("id"): bool(c.get("metadata", {}).get("papermill", {}).get("start_time")) for c in nb.cells}
    last = next((c for c in reversed(nb.cells) if started.get(c.get("id"))), None)
    if last is None:
        return started, None
    first_line = next((line.strip() for line in last.source.splitlines() if line.strip()), "")[:60]
    return started, f"cell '{last.get('id')}'" + (f" ({first_line})" if first_line else "")


@dataclass
class LabKit:
    """What grading one lab needs, loaded once per batch: the released lab, its checks, hidden cases and references."""

    lab_nb: nbformat.NotebookNode
    specs: list
    hidden: hidden.HiddenLab
    references: dict


def grade_one(path: Path, settings: Settings, kit: LabKit, slot: int, warm: Path | None,
              keep_cache: Path | None = None, gpu_env: dict | None = None) -> SubmissionResult:
    """Grade one submission from file to result; never raises for anything the submission does.

    With keep_cache, the submission's compile caches are kept there afterwards (to warm later submissions); gpu_env
    names the job's GPU and its share of that GPU's memory (`gpus.GpuPlan.env`). The result's `gpu_oom` says
    whether the job ran out of GPU memory."""
    start = time.monotonic()
    lab_nb, specs = kit.lab_nb, kit.specs
    key, digest = submission_key(path), file_hash(path)
    base = dict(submission=path.stem, key=key, sha256=digest, lab=settings.lab)

    def not_run(status: str, message: str) -> list[Result]:
        return [Result(s.name, status, 0, s.points, message) for s in specs]

    try:
        sub = restore.load_submission(path)
    except restore.InvalidSubmission as err:
        return SubmissionResult(status="invalid", message=str(err), checks=not_run("not run", str(err)), seconds=0.0, **base)
    repaired = restore.restore(sub, lab_nb)

    uid = sandbox.leased_uid(slot)
    scratch = sandbox.scratch_root(settings.out) / key
    out_dir = scratch / "experiments" / notebooks_out_dir(lab_nb)
    # the warm-up on a GPU runs alone: all the cores compile its kernels (a CPU job's thread count is part of what
    # Inductor compiles, so there the warm-up keeps the jobs' count)
    threads = cpu_count() if slot == 0 and settings.device != "cpu" else settings.threads_per_job()
    jail = sandbox.Jail(scratch, uid, {**settings.lab_settings(out_dir).to_env(), **(gpu_env or {})}, settings.out,
                        threads, gpu=settings.device != "cpu", use_bwrap=settings.bwrap)
    jail.prepare(warm)
    src, executed = scratch / "submission.ipynb", scratch / "executed.ipynb"
    notebooks.write(repaired.nb, src)
    limits = sandbox.Limits(wall_s=3 * settings.notebook_timeout + 30 * settings.call_timeout + 600,
                            memory_mb=settings.memory_mb, nproc=settings.nproc, use_cuda=settings.device != "cpu")
    job = NotebookJob(jail, src, executed, limits, settings.cell_timeout, settings.notebook_timeout)
    results, seen, executed_bytes = [], {}, None
    try:
        ran = job.run()
        status, message = notebook_status(ran, job.outcome)
        if status != "ok":
            log(settings.out, f"{key}: {status}: {message}")
        started, last_cell = cell_fates(jail.read(executed.name, MAX_EXECUTED_BYTES))
        where = check_cells(lab_nb)
        ctx = hidden.GraderContext(job, settings.call_timeout)
        try:
            seen = job.probe(checks.probe_settings, (), {}, settings.call_timeout)
        except checks.CheckFailed:
            seen = {}
        for spec in specs:
            if status != "ok" and not started.get(where.get(spec.name)):
                why = f"not run: {message}" + (f", in {last_cell}" if last_cell else "")
                kind = {"timeout": "timeout", "crashed": "crashed", "memory": "crashed"}.get(status, "not run")
                results.append(Result(spec.name, kind, 0, spec.points, why))
                continue
            with hidden.GRADER_TURNS.turn():   # cases and judges run here, one thread at a time
                results.append(checks.run(spec, ctx, kit.hidden.cases_for(spec.name, kit.references)))
            for probe, took, limit in ctx.take_near_limit():     # for the instructor: a limit that may be too tight
                log(settings.out, f"{key}: {spec.name}'s {probe} took {took:.0f} s of its {limit:.0f} s limit "
                                  f"({results[-1].status}); on a busier machine it may run out (see --call-timeout)")
    finally:
        job.stop()
        executed_bytes = jail.read(executed.name, MAX_EXECUTED_BYTES)
        keep_executed(settings.out, key, executed_bytes)
        jail.close(keep_cache)
    if job.replays:
        repaired.notes.append(f"Your notebook's kernel was gone after it ran (it died or hung), so the grader re-ran the "
                              f"cells that had finished {job.replays} time(s) to finish grading.")
    result = SubmissionResult(status=status, message=message, checks=results, notes=repaired.notes, settings=seen,
                              isolation=jail.isolation, seconds=round(time.monotonic() - start, 1), **base)
    result.gpu_oom = settings.device != "cpu" and gpus.ran_out_of_memory(executed_bytes, [message, *(r.message for r in results)])
    return result


def notebooks_out_dir(lab_nb) -> str:
    """The lab's OUT_DIR leaf (e.g. 04_inductor_output), from its parameters cell."""
    for cell in lab_nb.cells:
        if "parameters" in notebooks.tags(cell):
            m = re.search(r"OUT_DIR\s*=\s*['\"]([^'\"]+)['\"]", cell.source)
            if m:
                return Path(m.group(1)).name
    return "out"


def notebook_status(ran: dict, outcome: "sandbox.Outcome | None") -> tuple[str, str]:
    """The notebook-level status and a sentence about it, from the job's report or, if it died, the sandbox's."""
    if ran.get("status") == "gone" and outcome is not None:
        if outcome.status == "timeout":
            return "timeout", f"the notebook ran past its {outcome.wall_s:.0f} s limit and was stopped"
        if outcome.status == "memory":
            return "memory", outcome.message
        return "crashed", f"the grading job stopped ({outcome.message})"
    status = ran.get("status")
    if status in ("ok", "timeout", "crashed"):
        return status, str(ran.get("message", ""))
    return "crashed", str(ran.get("message") or "the notebook could not be run")


MAX_OUTPUT_CHARS = 20_000


MAX_EXECUTED_BYTES = 512 * 2**20


def keep_executed(out: Path, key: str, executed: bytes | None) -> None:
    """Keep the executed notebook in the gradebook folder, each output cut to MAX_OUTPUT_CHARS."""
    try:
        nb = nbformat.reads(executed.decode("utf-8"), as_version=4)
    except Exception:
        return
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            for field_name in ("text", "traceback"):
                value = output.get(field_name)
                text = "\n".join(value) if isinstance(value, list) else value
                if isinstance(text, str) and len(text) > MAX_OUTPUT_CHARS:
                    output[field_name] = text[:MAX_OUTPUT_CHARS] + f"\n[... {len(text) - MAX_OUTPUT_CHARS:,} characters cut by the grader ...]"
            for mime, value in list(output.get("data", {}).items()):
                if isinstance(value, str) and len(value) > 5 * MAX_OUTPUT_CHARS:
                    output["data"][mime] = value[:MAX_OUTPUT_CHARS] if mime.startswith("text") else ""
    gradebook.write_atomic(out / "executed" / f"{key}.ipynb", nbformat.writes(nb))


# ---------------------------------------------------------------- the batch
def loads(path: Path) -> bool:
    """Whether the grader will run this file (an invalid notebook is recorded without running anything)."""
    try:
        restore.load_submission(path)
        return True
    except restore.InvalidSubmission:
        return False


def warm_up(settings: Settings, lab_nb=None, specs=None, hidden_lab=None, progress: bool = False,
            plan: gpus.GpuPlan | None = None) -> LabKit:
    """The batch's references (computed once into OUT/.warm) and, with settings.warm, the shared compile cache
    (the reference solution graded once, its caches kept in OUT/.warm); both are reused by later runs on OUT.

    On a GPU the warm-up is done once per GPU model: a gradebook warmed on another model is warmed again."""
    lab_nb = lab_nb if lab_nb is not None else notebooks.read(lab_path(settings.lab))
    specs = specs if specs is not None else checks.load_lab(settings.lab)
    hidden_lab = hidden_lab if hidden_lab is not None else hidden.load_hidden(settings.lab)
    out = settings.out
    warm = out / ".warm"
    if settings.device != "cpu":
        model, stamp = gpus.gpu_model(), warm / "gpu-model.txt"
        if stamp.exists() and stamp.read_text() != model:
            for stale in (warm / ".done", warm / f"references-{settings.device}.pkl"):
                stale.unlink(missing_ok=True)
        warm.mkdir(parents=True, exist_ok=True)
        stamp.write_text(model)
    for sub in ("home", "tmp", "cache"):
        (warm / sub).mkdir(parents=True, exist_ok=True)
    env = sandbox.job_environment(warm, settings.lab_settings(warm / "experiments").to_env(), out, settings.threads_per_job())
    refs = references.references(settings.lab, warm / f"references-{settings.device}.pkl",   # the grader's own code
                                 {**env, "USER": os.environ.get("USER", sandbox.JOB_USER)}, warm)
    kit = LabKit(lab_nb, specs, hidden_lab, refs)
    if settings.warm and not (warm / ".done").exists():
        if progress:
            print("warming the shared compile cache by grading the reference solution once ...", file=sys.stderr)
        ref = grade_one(lab_path(settings.lab, "solutions"), settings, kit, 0, warm, keep_cache=warm,
                        gpu_env=plan.env(0, alone=True) if plan else None)
        if ref.total < ref.max_total and progress:
            print(f"warning: the reference solution scored {ref.total:g}/{ref.max_total:g} on this machine: "
                  + "; ".join(f"{c.name}: {c.message}" for c in ref.checks if not c.passed), file=sys.stderr)
        (warm / ".done").write_text(json.dumps(ref.to_dict()))
    return kit


def grade(paths: list[Path], settings: Settings, shard: str | None = None, progress: bool = True) -> list[SubmissionResult]:
    """Grade every submission not graded yet; return all results in the gradebook folder."""
    from tqdm import tqdm

    out = settings.out
    out.mkdir(parents=True, exist_ok=True)
    os.chmod(out, 0o700)                      # no job, jailed or not, may read the gradebook
    stale = sandbox.kill_env(sandbox.GRADEBOOK_VAR, str(out.resolve()))
    if stale and progress:
        print(f"stopped {stale} processes left by an earlier, interrupted run of this batch", file=sys.stderr)
    shutil.rmtree(sandbox.scratch_root(out), ignore_errors=True)
    lab_nb = notebooks.read(lab_path(settings.lab))
    specs = checks.load_lab(settings.lab)
    hidden_lab = hidden.load_hidden(settings.lab)
    missing = [s.name for s in specs if s.name not in hidden_lab.cases]
    if missing:
        raise RuntimeError(f"hidden cases missing for {missing}: add them to solutions/hidden/lab{settings.lab}.py")
    todo = to_grade(shard_of(discover(paths), shard), out, settings.force, settings.only)
    runnable = [p for p in todo if loads(p)]
    how, why_not = sandbox.isolation(sandbox.leased_uid(1), settings.bwrap)
    if why_not and progress and runnable:
        print(f"note: jobs run as '{how}', without bubblewrap ({why_not}): each job keeps its limits and clean-up but "
              "sees the machine as its user does. The gradebook records each submission's isolation.", file=sys.stderr)
    plan = settings.gpu_plan() if runnable else None
    if plan and progress:
        print(f"jobs on the GPU: {plan.describe()}; a submission that runs out of GPU memory is graded again alone",
              file=sys.stderr)
    # invalid files need no references and no warm cache: a batch of only those computes nothing
    kit = (warm_up(settings, lab_nb, specs, hidden_lab, progress, plan) if runnable
           else LabKit(lab_nb, specs, hidden_lab, {}))
    warm = out / ".warm"
    names = [s.name for s in specs]
    titles = {s.name: s.title for s in specs}
    lock = threading.Lock()
    slots = list(range(1, settings.jobs + 1))
    sandbox.lease_uids(settings.jobs + 1)
    guard = gradebook.Guard(out / "results")
    again_alone: list[Path] = []   # out of GPU memory beside other jobs: graded again, alone, after the batch

    def run(path: Path, alone: bool = False) -> SubmissionResult | None:
        with lock:
            slot = slots.pop()
        try:
            try:
                gpu_env = plan.env(slot, alone) if plan else None
                result = grade_one(path, settings, kit, slot, warm if settings.warm else None, gpu_env=gpu_env)
                if getattr(result, "gpu_oom", False) and not alone and plan and plan.share(slot) is not None:
                    log(out, f"{result.key}: out of GPU memory beside {plan.sharing(slot) - 1} other job(s): "
                             "graded again alone after the batch")
                    with lock:
                        again_alone.append(path)
                    return None
                if alone:
                    result.notes.append("Graded alone on the GPU: beside the batch's other jobs it ran out of GPU "
                                        "memory, so the grader ran it again with the whole GPU.")
            except Exception as err:  # a grader bug must cost one submission, never the batch
                log(out, f"grader error on {path}: {traceback.format_exc()}")
                result = SubmissionResult(submission=path.stem, key=submission_key(path), sha256=file_hash(path), lab=settings.lab,
                                          status="error", message=f"the grader failed on this submission: {type(err).__name__}: {err}",
                                          checks=[Result(s.name, "not run", 0, s.points, "grader error") for s in specs])
            with lock:
                gradebook.save_result(out, result)
                gradebook.write_feedback(out, result, titles)
                guard.record(out / "results" / f"{result.key}.json")
                for note in guard.repair():
                    log(out, note)
                gradebook.write_gradebook(out, names)
            return result
        finally:
            with lock:
                slots.append(slot)

    log(out, f"grading {len(todo)} submissions of lab {settings.lab} with {settings.jobs} job(s)")
    with ThreadPoolExecutor(max_workers=max(1, settings.jobs)) as pool:
        futures = [pool.submit(run, p) for p in todo]
        bar = tqdm(total=len(futures), desc=f"grading lab {settings.lab}", unit="nb", disable=not progress, file=sys.stderr)
        for fut in as_completed(futures):
            r = fut.result()
            if r is not None:
                bar.set_postfix_str(f"{r.submission}: {r.total:g}/{r.max_total:g}")
                bar.update()
        for path in again_alone:   # one at a time, each with a whole GPU
            r = run(path, alone=True)
            bar.set_postfix_str(f"{r.submission}: {r.total:g}/{r.max_total:g} (alone)")
            bar.update()
        bar.close()
    for note in guard.repair():
        log(out, note)
    return finish(out, settings.lab, specs)


def scored_results(out: Path, lab: str) -> tuple[list, list[dict], list[SubmissionResult]]:
    """(manual items, manual.csv's rows, the gradebook's results with the manual points applied, if any)."""
    its = manual.items(lab, ROOT)
    rows = manual.read_rows(out / "manual.csv") if (out / "manual.csv").exists() else []
    return its, rows, manual.apply(gradebook.load_results(out), its, rows)


def finish(out: Path, lab: str, specs: list) -> list[SubmissionResult]:
    """After a batch or a merge: manual points (if any are filled in), grades.csv and .json, every feedback file,
    the class report, and for a lab with written answers, answers.html and the manual.csv to fill. Under the
    gradebook's lock: manual.csv is read and written back whole, and must not miss an entry the desk saves meanwhile."""
    with gradebook.locked(out):
        its, rows, results = scored_results(out, lab)
        applied = any(".manual." in c.name for r in results for c in r.checks)
        names = [s.name for s in specs] + ([i.check_name for i in its] if applied else [])
        titles = {s.name: s.title for s in specs} | {i.check_name: i.question for i in its}
        gradebook.write_gradebook(out, names, results)
        for r in results:
            gradebook.write_feedback(out, r, titles)
        # pass rates are about the automatic checks: a scored written answer is "manual", never "passed"
        class_report.write_class_report(out, results, [s.name for s in specs], titles, lab)
        if its:
            gradebook.write_atomic(out / "answers.html", manual.answers_html(lab, its, results, out))
            gradebook.write_atomic(out / "manual.csv", manual.template_text(its, results, rows))
        return results


def log(out: Path, line: str) -> None:
    """Append one line to the batch's log (OUT/grader.log)."""
    with open(out / "grader.log", "a", encoding="utf-8") as f:
        f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n")


def to_grade(found: list[Path], out: Path, force: bool = False, only: tuple = ()) -> list[Path]:
    """The submissions this run grades: those not graded yet (same path and content); all of them with `force`; just
    the ones `only` names (by file name, stem or gradebook key), graded again whatever the gradebook holds."""
    if only:
        names = set(only)
        picked = [p for p in found if {p.name, p.stem, submission_key(p)} & names]
        unknown = names - {n for p in picked for n in (p.name, p.stem, submission_key(p))}
        if unknown:
            raise ValueError(f"--only names no submission found here: {', '.join(sorted(unknown))} "
                             f"(give a file name, its stem, or the key from grades/results/)")
        return picked
    return list(found) if force else [p for p in found if not already_graded(out, p)]


def already_graded(out: Path, path: Path) -> bool:
    """True when OUT/results holds a result for this exact file (same path and content)."""
    result = out / "results" / f"{submission_key(path)}.json"
    try:
        return json.loads(result.read_text()).get("sha256") == file_hash(path)
    except (OSError, ValueError):
        return False
