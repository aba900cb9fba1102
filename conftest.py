"""pytest set-up shared by every test: CPU by default, headless plots, device-aware skips.

nbval collects the solution notebooks (`pytest --nbval-lax solutions/`): the
first cell tagged `parameters` is followed by an injected QUICK=True cell.
"""

import os
import re
import resource
import shutil
from collections import Counter
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
# One CPU thread per test process and notebook kernel, as the grader gives each job: pytest-xdist's two workers share
# the 2 cores, and Inductor's CPU kernels are built for the thread count they compile with, so the compile caches the
# grading tests' warm-ups leave (conftest.warm_lab) also fit what the in-process tests and nbval's kernels compile.
os.environ.setdefault("OMP_NUM_THREADS", "1")
# ... and Inductor compiles in that process too, as a CPU grading job does (sandbox.job_environment): a pool of compile
# workers per test process and kernel, each importing torch, costs more than it saves when every core is busy.
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
CALLERS_INDUCTOR_CACHE = os.environ.get("TORCHINDUCTOR_CACHE_DIR")   # one set by the caller is used throughout


def _cuda_available() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:
        return False


if not _cuda_available():
    # Triton decides at import whether its own library functions (tl.sigmoid ...) run in the interpreter; the
    # tests import triton long before Lab 03's cells set TRITON_INTERPRET, so set it first (no GPU kernels here).
    os.environ.setdefault("TRITON_INTERPRET", "1")


# The longest scopes first, so that pytest-xdist's workers (`--dist loadscope --no-loadscope-reorder`: scopes in
# collection order) start them early and finish together instead of one worker grading alone at the end. Node-id
# prefixes, the first that matches ranks an item. Seconds of a worker in a full run from a clean clone on this 2-core
# machine, four workers (torch 2.13.0, 2026-11-29, empty compile caches as CI starts; the summary's timeline line, and
# WORKBOOK_TEST_TIMELINE=path for every scope): the Lab 04 corpus 461 (its jobs mostly wait on time limits), Lab 01
# catch rates 483, Lab 06's 454, Lab 03's 381, Lab 06 grading 351 (its cold warm-up), Lab 02 catch rates 306, the stub
# matrix 242, Lab 04 catch rates 224, Lab 05 grading 170, Lab 07 catch rates 172 (started at 1,125 s of 1,228 when it
# was not named here), grading 07 140, release bundle 139, the job tests 114 (waiting on time limits), the sealed
# corpus 107, grading 01 107; the rest under 100. The grading tests come before the tests that compile the same lab
# in-process or under nbval, which then start from the caches their warm-up left.
LONGEST_FIRST = ("tests/test_grading.py", "tests/test_grading_labs.py::TestGradeLab06",
                 "tests/test_grading_labs.py::TestGradeLab05", "tests/test_grading_labs.py::TestGradeLab01",
                 "tests/test_grading_labs.py::TestGradeLab03", "tests/test_grading_labs.py::TestGradeLab07",
                 "tests/test_sealed_grader.py", "tests/test_catch_rates.py::TestLab01",
                 "tests/test_catch_rates.py::TestLab06", "tests/test_catch_rates.py::TestLab03",
                 "tests/test_grading_labs.py::TestGradeLab02", "tests/test_catch_rates.py::TestLab02",
                 "tests/test_catch_rates.py::TestLab04", "tests/test_catch_rates.py::TestLab07",
                 "tests/test_stub_matrix.py", "tests/test_catch_rates.py::TestLab05", "tests/test_release.py",
                 "solutions/05", "tests/test_checks_lab05.py", "tests/test_job.py", "tests/test_checks_lab03.py",
                 "solutions/", "tests/test_checks_lab06.py", "tests/test_dist.py")


def _rank(item) -> int:
    return next((i for i, prefix in enumerate(LONGEST_FIRST) if item.nodeid.startswith(prefix)), len(LONGEST_FIRST))


def pytest_ignore_collect(collection_path, config):
    """nbval runs the solution notebooks only, never an executed copy saved under solutions/experiments/."""
    if collection_path.suffix == ".ipynb":
        return collection_path.parent.name != "solutions"
    return None


# What nbval's kernels run with (CI's QUICK mode on the CPU, one thread). Set only around the notebooks' cells, so
# that the kernel nbval starts for a notebook inherits it and the tests in the same worker keep the machine's device.
NOTEBOOK_ENV = {"WORKBOOK_QUICK": "1", "WORKBOOK_DEVICE": "cpu", "OMP_NUM_THREADS": "1"}
# The tests that compile a lab's code in their own process or in nbval's kernel: a solution notebook, a lab's checks
# and its corpus of wrong answers (the grading tests' jobs have caches of their own).
LAB_OF = re.compile(r"^(?:solutions/(\d\d)_|tests/test_checks_lab(\d\d)\.py"
                    r"|tests/test_catch_rates\.py::TestLab(\d\d)::)")


def _is_notebook_cell(item) -> bool:
    return item.nodeid.split("::")[0].endswith(".ipynb")


def _warm_root(config) -> Path:
    """Where conftest.warm_lab keeps each lab's `.warm`: one folder for the whole run, shared by the xdist workers.
    (config._tmp_path_factory is the session's tmp_path_factory, which a hook cannot request as a fixture.)"""
    base = config._tmp_path_factory.getbasetemp()
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    return base.parent / f"warm-{run}" if run else base / "warm"


def _warm_inductor_cache(config, lab: str) -> Path | None:
    """The lab's Inductor cache for the tests that compile its code here (its checks and corpus in-process, its
    notebook under nbval), shared by the pytest-xdist workers: a copy of the one the lab's warm-up left, made once
    that warm-up has finished. A warm-up in progress in another worker is waited for (compiling the same graphs from
    cold beside it would cost the CPU twice while this worker's wait costs nothing: two other workers keep both cores
    busy), one not started is not (the grading tests run first, see LONGEST_FIRST). One cache for every worker, not
    one each: the kernels one worker's checks compile for the grader's hidden cases serve the other worker's corpus
    of wrong answers, as Inductor's default cache serves every process of a user (its writes are atomic and its
    compiles locked). Measured: nbval ran solutions/06 in 19 s with the warm cache and 70 s from an empty one (this
    2-core machine, torch 2.13.0, nothing else running). The cells still all run; only Inductor's code generation
    and C++ builds are served from the cache, as a CI cache would serve them."""
    from filelock import FileLock, Timeout

    root = _warm_root(config)
    warm, shared, lock = root / lab / ".warm", root / lab / "inductor-tests", root / f"{lab}.lock"
    if not shared.exists() and not (warm / ".done").exists() and lock.exists():
        try:
            with FileLock(str(lock), timeout=0):
                pass                                  # free: no warm-up is running for this lab
        except Timeout:
            try:
                with FileLock(str(lock), timeout=1200):
                    pass                              # it finished (or failed: then there is no cache to copy)
            except Timeout:
                pass
    if not shared.exists() and (warm / ".done").exists() and (warm / "inductor").is_dir():
        with FileLock(str(root / f"{lab}-tests.lock")):
            if not shared.exists():                   # the warm-up's own is read by the grading tests: copy it
                part = shared.with_name("inductor-tests.part")
                shutil.rmtree(part, ignore_errors=True)   # a copy an earlier failure left half done
                shutil.copytree(warm / "inductor", part, symlinks=True)
                part.rename(shared)
    return shared if shared.exists() else None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before a notebook's cell (and so before nbval starts its kernel): the notebook environment. Before any test
    that compiles a lab's code here: the lab's warm Inductor cache, when there is one."""
    # a caller's own settings win
    env = {k: os.environ.get(k) or v for k, v in NOTEBOOK_ENV.items()} if _is_notebook_cell(item) else {}
    found = LAB_OF.match(item.nodeid) if CALLERS_INDUCTOR_CACHE is None else None   # (torch sets it once it compiles)
    cache = _warm_inductor_cache(item.config, next(g for g in found.groups() if g)) if found else None
    if cache is not None:
        env["TORCHINDUCTOR_CACHE_DIR"] = str(cache)
    if env:
        item.stash_env = {k: os.environ.get(k) for k in env}
        os.environ.update(env)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """After it: the environment as it was."""
    for key, value in getattr(item, "stash_env", {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def pytest_collection_modifyitems(config, items):
    """Longest scopes first; skip tests marked gpu when there is no CUDA device, with a reason that says so."""
    items.sort(key=_rank)   # stable: the order within a scope is kept
    if _cuda_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (none on this machine)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


# The Inductor caches this run compiled for the labs (the grading warm-ups', and the copies nbval and the in-process
# tests added to), kept for `make test-browser`, whose kernels then compile no more than nbval's did.
KEPT_INDUCTOR_CACHE = Path(__file__).resolve().parent / "build" / "warm-inductor"


def _keep_lab_caches(config) -> None:
    """In the controller, at the end of the run: merge the labs' warm Inductor caches into KEPT_INDUCTOR_CACHE (keyed by
    content, so merging is safe; the folder is replaced, never grown across runs)."""
    base = config._tmp_path_factory.getbasetemp()
    found = [*base.glob("warm*/[0-9][0-9]/.warm/inductor"), *base.glob("warm*/[0-9][0-9]/inductor-tests")]
    if CALLERS_INDUCTOR_CACHE is not None or not found:
        return
    shutil.rmtree(KEPT_INDUCTOR_CACHE, ignore_errors=True)
    for cache in found:
        shutil.copytree(cache, KEPT_INDUCTOR_CACHE, dirs_exist_ok=True, symlinks=True)


def pytest_sessionfinish(session):
    """In a pytest-xdist worker: hand the catch rates it counted to the controller, which prints the table. In the
    controller (or a run without workers): keep the labs' compile caches for the browser test."""
    import json
    import sys

    corpus = sys.modules.get("tests.wrong_answers")
    if hasattr(session.config, "workeroutput"):
        if corpus is not None:
            session.config.workeroutput["catch_rates"] = json.dumps({"rates": corpus.RESULTS, "missed": corpus.MISSED})
        return
    try:
        _keep_lab_caches(session.config)
    except OSError as err:   # a convenience for the next command: never fail the run over it
        print(f"\nnote: the labs' compile caches were not kept in {KEPT_INDUCTOR_CACHE}: {err}")


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """In the pytest-xdist controller: merge a finished worker's catch rates."""
    import json

    counted = getattr(node, "workeroutput", {}).get("catch_rates")
    if counted:
        from tests import wrong_answers

        counted = json.loads(counted)
        for lab, rows in counted["rates"].items():
            wrong_answers.RESULTS.setdefault(lab, {}).update(rows)
        wrong_answers.MISSED.update(counted["missed"])


def _cpu_seconds() -> float:
    """User and system CPU of this process and of the processes it has waited for (a grader's jobs, nbval's kernels
    once shut down, the g++ runs of Inductor's CPU kernels)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each phase's report carries the CPU seconds spent since the previous one (pytest-xdist hands it on)."""
    outcome = yield
    now = _cpu_seconds()
    outcome.get_result().cpu_s = now - getattr(item.config, "_cpu_mark", now)
    item.config._cpu_mark = now


def _scope(nodeid: str) -> str:
    """A test's file and class, or a file or notebook: what one pytest-xdist worker runs whole (--dist loadscope)."""
    parts = nodeid.split("::")
    return parts[0] if parts[0].endswith(".ipynb") or len(parts) < 3 else "::".join(parts[:2])


CPU_BY_SCOPE: Counter = Counter()


# Per scope: [worker, first start, last stop] (wall clock), for the summary's line on idle cores and the timeline
# WORKBOOK_TEST_TIMELINE=path writes (one JSON object per scope), to see what a run's last minutes wait on: set it for
# `make test`, not `.ci/run`, whose second pytest run (the browser tests) would write the file again.
SPAN_BY_SCOPE: dict[str, list] = {}
MACHINE_AT_START: list = []     # the machine's CPU times when the run began: busy cores counted whoever used them


def pytest_sessionstart(session):
    import psutil

    MACHINE_AT_START[:] = [psutil.cpu_times()]


def pytest_runtest_logreport(report):
    scope = _scope(report.nodeid)
    CPU_BY_SCOPE[scope] += getattr(report, "cpu_s", 0.0)
    start, stop = getattr(report, "start", None), getattr(report, "stop", None)
    if start is not None and stop is not None:
        worker = getattr(getattr(getattr(report, "node", None), "gateway", None), "id", "main")
        span = SPAN_BY_SCOPE.setdefault(scope, [worker, start, stop])
        span[1], span[2] = min(span[1], start), max(span[2], stop)


def pytest_terminal_summary(terminalreporter):
    """Where the CPU went (the test-time budget of `make test` is CPU on a 2-core machine), and the checks' catch
    rates against the corpus of wrong answers (tests/test_catch_rates.py), when it ran."""
    import sys

    if CPU_BY_SCOPE:
        total = sum(CPU_BY_SCOPE.values())
        terminalreporter.section(f"CPU seconds by test scope: {total:,.0f} in all (largest 25)")
        for scope, seconds in CPU_BY_SCOPE.most_common(25):
            terminalreporter.write_line(f"{seconds:8.0f}  {seconds / total:4.0%}  {scope}")
        if SPAN_BY_SCOPE:
            _write_spans(terminalreporter, total)
    corpus = sys.modules.get("tests.wrong_answers")
    lines = corpus.summary_lines() if corpus else []
    if lines:
        terminalreporter.section("catch rates of the checks (tests/wrong_answers)")
        for line in lines:
            terminalreporter.write_line(line)


def _write_spans(terminalreporter, cpu_total: float) -> None:
    """One line: the tests' wall time, how busy the cores were, and the scopes that finished last (what a shorter
    run would have to start sooner or make cheaper); WORKBOOK_TEST_TIMELINE=path writes every scope's span."""
    import json

    first = min(s[1] for s in SPAN_BY_SCOPE.values())
    wall = max(s[2] for s in SPAN_BY_SCOPE.values()) - first
    last = sorted(SPAN_BY_SCOPE.items(), key=lambda kv: kv[1][2])[-3:]
    cores = os.cpu_count() or 1
    machine = ""
    if MACHINE_AT_START:        # the grading tests' own `workbook grade` runs are not this run's children: count them
        import psutil

        before, now = MACHINE_AT_START[0], psutil.cpu_times()
        idle = (now.idle + getattr(now, "iowait", 0)) - (before.idle + getattr(before, "iowait", 0))
        spent = sum(now) - sum(before)
        machine = f" (the whole machine's cores: {1 - idle / spent:.0%} busy since the run began)" if spent > 0 else ""
    terminalreporter.write_line(
        f"tests ran {wall:,.0f} s on {cores} cores: {cpu_total / (wall * cores):.0%} busy by the scopes' own CPU"
        f"{machine}; finished last: "
        + "; ".join(f"{scope} ({w}, {a - first:,.0f}–{b - first:,.0f} s)" for scope, (w, a, b) in reversed(last)))
    path = os.environ.get("WORKBOOK_TEST_TIMELINE")
    if path:
        rows = [{"scope": scope, "worker": w, "start_s": round(a - first, 1), "stop_s": round(b - first, 1),
                 "cpu_s": round(CPU_BY_SCOPE[scope], 1)} for scope, (w, a, b) in sorted(SPAN_BY_SCOPE.items(),
                                                                                      key=lambda kv: kv[1][1])]
        Path(path).write_text("\n".join(json.dumps(r) for r in rows) + "\n")


@pytest.fixture(scope="session")
def warm_lab(request):
    """`warm_lab("06")`: a gradebook folder's `.warm` for that lab, as `workbook grade` makes it before a batch (the
    references, and the reference solution graded once: its result in `.warm/.done`, its compile caches kept),
    built once per test run and shared by the pytest-xdist workers (one lock per lab). A grading test copies it
    into its gradebook instead of computing the references and compiling from cold: graded alone on this 2-core
    machine, a Lab 06 job took 23 s (untouched lab) and 33 s (solution) warm, 55 s and 149 s cold."""
    from filelock import FileLock

    from helpers.grading import batch

    root = _warm_root(request.config)
    root.mkdir(parents=True, exist_ok=True)

    def warm(lab: str):
        with FileLock(str(root / f"{lab}.lock")):
            if not (root / lab / ".warm" / ".done").exists():
                # the limits the grading tests use: generous, as another worker grades beside this one; one CPU
                # thread, as their jobs have (Inductor's CPU kernels are built for the thread count they compile
                # with, and OpenMP threads that spin for a busy core burn it)
                batch.warm_up(batch.Settings(lab=lab, out=root / lab, cell_timeout=300, call_timeout=120, threads=1))
        return root / lab / ".warm"

    return warm


@pytest.fixture(scope="session")
def warm_lab04(warm_lab):
    """Lab 04's `.warm` (see warm_lab), for its two grading corpora."""
    return warm_lab("04")
