"""Grade a batch of submissions: restore, execute in a sandbox, score with hidden checks, write the gradebook.

    workbook grade --lab 04 submissions/*.ipynb --out grades/ --jobs 2

Per submission: read it (a broken file is graded "invalid", never aborts the
batch), restore protected cells from the released lab, execute it with
papermill in its own scratch folder under time, memory and process limits,
then run the lab's hidden checks in the grader's process against the
learner's code (re-run in a sandboxed worker) and the files the notebook
wrote. Results land in OUT/results/ one file per submission, so a batch that is
stopped resumes where it was, and a re-run gives the same grades.
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
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from helpers import checks, notebooks
from helpers.notebooks import lab_path
from helpers.checks import Result
from helpers.grading import gradebook, hidden, restore, sandbox
from helpers.grading.gradebook import SubmissionResult

ROOT = Path(__file__).resolve().parents[2]
GRADER_VERSION = "1"


@dataclass
class Settings:
    """How to grade: limits, parallelism, device and where the learner's lab lives."""

    lab: str
    out: Path
    jobs: int = 1
    cell_timeout: float = 300
    notebook_timeout: float = 1200
    call_timeout: float = 60
    memory_mb: int = 6144
    nproc: int = 512
    device: str = "cpu"
    params: dict = field(default_factory=dict)
    warm: bool = True


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


def cell_fates(executed: Path) -> tuple[dict[str, bool], str | None]:
    """Which cells started running ({id: True}), and a description of the last one that did."""
    try:
        nb = nbformat.read(str(executed), as_version=4)
    except Exception:
        return {}, None
    started = {c.get("id"): bool(c.get("metadata", {}).get("papermill", {}).get("start_time")) for c in nb.cells}
    last = next((c for c in reversed(nb.cells) if started.get(c.get("id"))), None)
    if last is None:
        return started, None
    first_line = next((line.strip() for line in last.source.splitlines() if line.strip()), "")[:60]
    return started, f"cell '{last.get('id')}'" + (f" ({first_line})" if first_line else "")


def worker_cells(nb, wanted: list[str] | None, lab_ids: set[str]) -> list[dict]:
    """The cells the worker runs: the lab's chosen cells in full, learner-added cells' definitions only."""
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cid = cell.get("id")
        if cid in lab_ids:
            if wanted is None or cid in wanted:
                cells.append({"id": cid, "source": cell.source, "mode": "all"})
        else:
            cells.append({"id": cid, "source": cell.source, "mode": "definitions"})
    return cells


def job_env(scratch: Path, settings: Settings) -> dict[str, str]:
    """A clean environment for the sandboxed job: its own home, caches and temp folder."""
    home = scratch / "home"
    threads = str(max(1, (os.cpu_count() or 2) // max(1, settings.jobs)))
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(home),
        "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg", "TMPDIR": str(scratch / "tmp"),
        "TORCHINDUCTOR_CACHE_DIR": str(scratch / "cache" / "inductor"), "TRITON_CACHE_DIR": str(scratch / "cache" / "triton"),
        "TORCHINDUCTOR_COMPILE_THREADS": "1", "OMP_NUM_THREADS": threads,
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "JUPYTER_DATA_DIR": str(home / "data"), "IPYTHONDIR": str(home / "ipython"),
        "XDG_CACHE_HOME": str(home / "cache"), "PYTHONDONTWRITEBYTECODE": "1", "WORKBOOK_GRADING": "1",
        GRADEBOOK_VAR: str(settings.out.resolve()),
    }
    for key in ("CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "CC", "CXX", "VIRTUAL_ENV"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env


def prepare(scratch: Path, uid: int | None, warm: Path | None) -> None:
    """A fresh scratch folder owned by the job's uid, its caches seeded from the warm cache."""
    if scratch.exists():
        shutil.rmtree(scratch, ignore_errors=True)
    sandbox.prepare_scratch(scratch, uid)
    for sub in ("home", "tmp", "cache"):
        (scratch / sub).mkdir(parents=True, exist_ok=True)
    if warm is not None and warm.is_dir():
        shutil.copytree(warm, scratch / "cache", dirs_exist_ok=True, symlinks=True)
    if uid is not None:
        for dirpath, dirnames, filenames in os.walk(scratch):
            for name in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
                os.lchown(name, uid, uid)


@dataclass
class LabKit:
    """What grading one lab needs, loaded once per batch: the released lab, its checks and ground truth."""

    lab_nb: nbformat.NotebookNode
    specs: list
    hidden_checks: dict
    truths: dict
    worker_cell_ids: list[str] | None


def grade_one(path: Path, settings: Settings, kit: LabKit, slot: int, warm: Path | None,
              keep_cache: Path | None = None) -> SubmissionResult:
    """Grade one submission from file to result; never raises for anything the submission does.

    With keep_cache, the submission's compile caches are kept there afterwards (to warm later submissions)."""
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

    uid = job_uid(slot)
    scratch = scratch_root(settings.out) / key
    prepare(scratch, uid, warm)
    src, executed = scratch / "submission.ipynb", scratch / "executed.ipynb"
    notebooks.write(repaired.nb, src)
    out_dir = scratch / "experiments" / notebooks_out_dir(lab_nb)
    params = {"DEVICE": settings.device, "QUICK": True, "OUT_DIR": str(out_dir), **settings.params}
    env = job_env(scratch, settings)
    limits = sandbox.Limits(wall_s=settings.notebook_timeout, memory_mb=settings.memory_mb, nproc=settings.nproc,
                            use_cuda=settings.device != "cpu")
    cmd = [sys.executable, "-m", "helpers.grading.execute", str(src), str(executed), "--cwd", str(scratch),
           "--cell-timeout", str(settings.cell_timeout), "--params", json.dumps(params)]
    outcome = sandbox.run_limited(cmd, scratch, limits, env=env, uid=uid)
    status, message = notebook_status(outcome, executed)
    if status != "ok":
        log(settings.out, f"{key}: {status}: {message}; runner output tail: {outcome.output[-1500:]!r}")

    started, last_cell = cell_fates(executed)
    where = check_cells(lab_nb)
    worker = hidden.Worker(worker_cells(repaired.nb, kit.worker_cell_ids, {c.id for c in lab_nb.cells}),
                           scratch, sandbox.Limits(wall_s=3600, memory_mb=settings.memory_mb, nproc=settings.nproc,
                                                   use_cuda=settings.device != "cpu"),
                           env, uid, settings.call_timeout)
    ctx = hidden.GraderContext(worker=worker, out_dir=out_dir, truths=kit.truths)
    results = []
    try:
        for spec in specs:
            if status != "ok" and not started.get(where.get(spec.name)):
                why = f"not run: {message}" + (f", in {last_cell}" if last_cell else "")
                kind = {"timeout": "timeout", "crashed": "crashed", "memory": "crashed"}.get(status, "not run")
                results.append(Result(spec.name, kind, 0, spec.points, why))
                continue
            results.append(checks.run(checks.Spec(spec.name, spec.points, spec.exercise, spec.title, kit.hidden_checks[spec.name]), ctx))
    finally:
        worker.stop()
        if uid is not None:
            sandbox.kill_user(uid)
    if worker.setup_errors:
        repaired.notes.append("While re-running your definitions the grader met: " + "; ".join(worker.setup_errors[:3]))
    keep_executed(settings.out, key, executed)
    if keep_cache is not None:
        shutil.copytree(scratch / "cache", keep_cache, dirs_exist_ok=True, symlinks=True)
    shutil.rmtree(scratch, ignore_errors=True)
    return SubmissionResult(status=status, message=message, checks=results, notes=repaired.notes,
                            seconds=round(time.monotonic() - start, 1), **base)


GRADEBOOK_VAR = "WORKBOOK_GRADEBOOK"  # every job of a batch carries it: a killed batch's leftovers are found by it


def scratch_root(out: Path) -> Path:
    """Where a batch's submissions run: a folder under the system temp dir that job uids can reach."""
    import tempfile

    root = Path(tempfile.gettempdir()) / f"workbook-grading-{hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:12]}"
    root.mkdir(mode=0o711, exist_ok=True)
    root.chmod(0o711)
    return root


def others_can_read(path: Path) -> bool:
    """True when a user with no rights of ours can reach and read `path` (every folder above it searchable)."""
    path = path.resolve()
    try:
        if not path.stat().st_mode & 0o004:
            return False
        return all(parent.stat().st_mode & 0o001 for parent in path.parents)
    except OSError:
        return False


_CLAIMED: dict[int, int] = {}     # job slot → uid this process holds a lock on
_LOCKS: list = []


def claim_uids(slots: int) -> None:
    """Take `slots` job uids no other grading batch on this machine holds (a lock file per uid, kept till exit)."""
    import fcntl
    import tempfile

    if os.geteuid() != 0 or len(_CLAIMED) >= slots:
        return
    folder = Path(tempfile.gettempdir()) / "workbook-grading-uids"
    folder.mkdir(mode=0o700, exist_ok=True)
    for offset in range(2000):
        if len(_CLAIMED) >= slots:
            return
        uid = sandbox.job_uid(0) + offset
        handle = open(folder / f"{uid}.lock", "w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            continue
        _LOCKS.append(handle)
        _CLAIMED[len(_CLAIMED)] = uid
    raise RuntimeError("no free job uid: 2000 grading jobs already hold one on this machine")


def job_uid(slot: int) -> int | None:
    """This batch's own unprivileged uid for a job slot, when we are root and that uid can run our Python; else None."""
    if os.geteuid() != 0:
        return None
    claim_uids(slot + 1)
    uid = _CLAIMED[slot]
    needed = [Path(sys.executable), Path(sys.base_prefix) / "lib", ROOT / "helpers" / "__init__.py", Path(sys.prefix) / "pyvenv.cfg"]
    if not all(others_can_read(p) for p in needed):
        if not getattr(job_uid, "warned", False):
            job_uid.warned = True
            print("note: running jobs as our own user: Python or the repository is not readable by other users "
                  f"({', '.join(str(p.resolve()) for p in needed if not others_can_read(p))}); limits and clean-up still "
                  "apply, file isolation between submissions is weaker.", file=sys.stderr)
        return None
    return uid


def notebooks_out_dir(lab_nb) -> str:
    """The lab's OUT_DIR leaf (e.g. 04_inductor_output), from its parameters cell."""
    for cell in lab_nb.cells:
        if "parameters" in notebooks.tags(cell):
            m = re.search(r"OUT_DIR\s*=\s*['\"]([^'\"]+)['\"]", cell.source)
            if m:
                return Path(m.group(1)).name
    return "out"


def notebook_status(outcome: "sandbox.Outcome", executed: Path) -> tuple[str, str]:
    """The notebook-level status and a sentence about it."""
    status_file = Path(str(executed) + ".status.json")
    if outcome.status == "timeout":
        return "timeout", f"the notebook ran past its {outcome.wall_s:.0f} s limit and was stopped"
    if outcome.status == "memory":
        return "memory", outcome.message
    if outcome.status in ("killed", "nproc"):
        return "crashed", outcome.message
    try:
        data = json.loads(status_file.read_text())
        if data.get("status") in ("crashed", "error"):
            return "crashed", data.get("message", "")
    except (OSError, ValueError):
        return "crashed", "the notebook runner stopped without a status (" + outcome.message + ")"
    return "ok", ""


MAX_OUTPUT_CHARS = 20_000


def keep_executed(out: Path, key: str, executed: Path) -> None:
    """Keep the executed notebook in the gradebook folder, each output cut to MAX_OUTPUT_CHARS."""
    if not executed.is_file() or executed.stat().st_size > 512 * 2**20:
        return
    try:
        nb = nbformat.read(str(executed), as_version=4)
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
def compute_truths(truths_fns: dict, cache: Path) -> dict:
    """Ground truth the hidden checks compare against, computed once in the grader's own process."""
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(cache / "inductor")
    os.environ["TRITON_CACHE_DIR"] = str(cache / "triton")
    return {key: fn() for key, fn in truths_fns.items()}


def grade(paths: list[Path], settings: Settings, shard: str | None = None, progress: bool = True) -> list[SubmissionResult]:
    """Grade every submission not graded yet; return all results in the gradebook folder."""
    from tqdm import tqdm

    out = settings.out
    out.mkdir(parents=True, exist_ok=True)
    os.chmod(out, 0o755)
    stale = sandbox.kill_env(GRADEBOOK_VAR, str(out.resolve()))
    if stale and progress:
        print(f"stopped {stale} processes left by an earlier, interrupted run of this batch", file=sys.stderr)
    shutil.rmtree(scratch_root(out), ignore_errors=True)
    lab_nb = notebooks.read(lab_path(settings.lab))
    specs = checks.load_lab(settings.lab)
    hidden_checks, truth_fns, cells = hidden.load_hidden(settings.lab)
    missing = [s.name for s in specs if s.name not in hidden_checks]
    if missing:
        raise RuntimeError(f"hidden checks missing for {missing}: add them to solutions/hidden/lab{settings.lab}.py")
    todo = [p for p in shard_of(discover(paths), shard) if not already_graded(out, p)]
    warm = out / ".warm"
    truths = compute_truths(truth_fns, warm)
    kit = LabKit(lab_nb, specs, hidden_checks, truths, cells)
    if settings.warm and not (warm / ".done").exists():
        if progress:
            print("warming the shared compile cache by grading the reference solution once ...", file=sys.stderr)
        ref = grade_one(lab_path(settings.lab, "solutions"), settings, kit, 0, warm, keep_cache=warm)
        if ref.total < ref.max_total and progress:
            print(f"warning: the reference solution scored {ref.total:g}/{ref.max_total:g} on this machine: "
                  + "; ".join(f"{c.name}: {c.message}" for c in ref.checks if not c.passed), file=sys.stderr)
        (warm / ".done").parent.mkdir(parents=True, exist_ok=True)
        (warm / ".done").write_text(json.dumps(ref.to_dict()))
    names = [s.name for s in specs]
    titles = {s.name: s.title for s in specs}
    lock = threading.Lock()
    slots = list(range(1, settings.jobs + 1))
    claim_uids(settings.jobs + 1)
    guard = gradebook.Guard(out / "results")

    def run(path: Path) -> SubmissionResult:
        with lock:
            slot = slots.pop()
        try:
            try:
                result = grade_one(path, settings, kit, slot, warm if settings.warm else None)
            except Exception as err:  # a grader bug must cost one submission, never the batch
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
            bar.set_postfix_str(f"{r.submission}: {r.total:g}/{r.max_total:g}")
            bar.update()
        bar.close()
    for note in guard.repair():
        log(out, note)
    results = gradebook.write_gradebook(out, names)
    for r in results:
        gradebook.write_feedback(out, r, titles)
    return results


def log(out: Path, line: str) -> None:
    """Append one line to the batch's log (OUT/grader.log)."""
    with open(out / "grader.log", "a", encoding="utf-8") as f:
        f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n")


def already_graded(out: Path, path: Path) -> bool:
    """True when OUT/results holds a result for this exact file (same path and content)."""
    result = out / "results" / f"{submission_key(path)}.json"
    try:
        return json.loads(result.read_text()).get("sha256") == file_hash(path)
    except (OSError, ValueError):
        return False
