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


# The longest scopes first (make test prints the durations), so that pytest-xdist's workers, which take scopes in
# collection order, start them early and finish together instead of one worker grading alone at the end.
LONGEST_FIRST = ("tests/test_grading.py", "tests/test_sealed_grader.py", "tests/test_grading_labs.py", "solutions/",
                 "tests/test_catch_rates.py")


def _rank(item) -> int:
    path = item.nodeid.split("::")[0]
    return next((i for i, prefix in enumerate(LONGEST_FIRST) if path.startswith(prefix)), len(LONGEST_FIRST))


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
def warm_lab04(tmp_path_factory):
    """A gradebook folder's `.warm` for Lab 04 (the batch's references and the reference solution's compile caches),
    built once per test run and shared by the pytest-xdist workers: the grading tests copy it into their gradebook
    instead of each computing the references and warming up from cold (about a minute and a half each)."""
    from filelock import FileLock

    from helpers.grading import batch

    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    root = tmp_path_factory.getbasetemp().parent / f"warm-{run}" if run else tmp_path_factory.getbasetemp() / "warm"
    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root) + ".lock"):
        if not (root / "04" / ".warm" / ".done").exists():
            batch.warm_up(batch.Settings(lab="04", out=root / "04"))
    return root / "04" / ".warm"

