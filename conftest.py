"""pytest set-up shared by every test: CPU by default, headless plots, device-aware skips.

nbval collects the solution notebooks (`pytest --nbval-lax solutions/`): the
first cell tagged `parameters` is followed by an injected QUICK=True cell.
"""

import os

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")


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
# prefixes, the first that matches ranks an item. Seconds of a worker in the last fresh-clone `make test` (this 2-core
# machine): corpus 416, Lab 06 grading 355 (its cold warm-up), sealed corpus 131 (after Lab 06's: waiting for the
# shared Lab 04 warm-up would idle a worker), Lab 05 grading 155, Lab 04 catch rates 146, Lab 06 catch rates 149,
# grading 03 89 and 07 87, release bundle 79, grading 01 75; the rest under 60.
LONGEST_FIRST = ("tests/test_grading.py", "tests/test_grading_labs.py::TestGradeLab06", "tests/test_sealed_grader.py",
                 "tests/test_catch_rates.py::TestLab04", "tests/test_checks_lab05.py",
                 "tests/test_grading_labs.py::TestGradeLab03", "tests/test_grading_labs.py::TestGradeLab05",
                 "solutions/05", "tests/test_release.py", "tests/test_catch_rates.py::TestLab06",
                 "tests/test_checks_lab03.py", "tests/test_grading_labs.py", "solutions/", "tests/test_catch_rates.py",
                 "tests/test_job.py", "tests/test_checks_lab06.py", "tests/test_dist.py")


def _rank(item) -> int:
    return next((i for i, prefix in enumerate(LONGEST_FIRST) if item.nodeid.startswith(prefix)), len(LONGEST_FIRST))


def pytest_ignore_collect(collection_path, config):
    """nbval runs the solution notebooks only, never an executed copy saved under solutions/experiments/."""
    if collection_path.suffix == ".ipynb":
        return collection_path.parent.name != "solutions"
    return None


# What nbval's kernels run with (CI's QUICK mode on the CPU). Set only around the notebooks' cells, so that the
# kernel nbval starts for a notebook inherits it and the tests in the same worker keep the machine's own device.
NOTEBOOK_ENV = {"WORKBOOK_QUICK": "1", "WORKBOOK_DEVICE": "cpu"}


def _is_notebook_cell(item) -> bool:
    return item.nodeid.split("::")[0].endswith(".ipynb")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before a notebook's cell (and so before nbval starts its kernel): the notebook environment."""
    if _is_notebook_cell(item):
        item.stash_env = {k: os.environ.get(k) for k in NOTEBOOK_ENV}
        os.environ.update({k: os.environ.get(k) or v for k, v in NOTEBOOK_ENV.items()})   # a caller's own wins


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """After a notebook's cell: the environment as it was."""
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


def pytest_sessionfinish(session):
    """In a pytest-xdist worker: hand the catch rates it counted to the controller, which prints the table."""
    import json
    import sys

    corpus = sys.modules.get("tests.wrong_answers")
    if corpus is not None and hasattr(session.config, "workeroutput"):
        session.config.workeroutput["catch_rates"] = json.dumps(corpus.RESULTS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """In the pytest-xdist controller: merge a finished worker's catch rates."""
    import json

    counted = getattr(node, "workeroutput", {}).get("catch_rates")
    if counted:
        from tests import wrong_answers

        for lab, rows in json.loads(counted).items():
            wrong_answers.RESULTS.setdefault(lab, {}).update(rows)


def pytest_terminal_summary(terminalreporter):
    """The checks' catch rates against the corpus of wrong answers (tests/test_catch_rates.py), when it ran."""
    import sys

    corpus = sys.modules.get("tests.wrong_answers")
    lines = corpus.summary_lines() if corpus else []
    if lines:
        terminalreporter.section("catch rates of the checks (tests/wrong_answers)")
        for line in lines:
            terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def warm_lab(tmp_path_factory):
    """`warm_lab("06")`: a gradebook folder's `.warm` for that lab, as `workbook grade` makes it before a batch (the
    references, and the reference solution graded once: its result in `.warm/.done`, its compile caches kept),
    built once per test run and shared by the pytest-xdist workers (one lock per lab). A grading test copies it
    into its gradebook instead of computing the references and compiling from cold: graded alone on this 2-core
    machine, a Lab 06 job took 23 s (untouched lab) and 33 s (solution) warm, 55 s and 149 s cold."""
    from filelock import FileLock

    from helpers.grading import batch

    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    root = tmp_path_factory.getbasetemp().parent / f"warm-{run}" if run else tmp_path_factory.getbasetemp() / "warm"
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
