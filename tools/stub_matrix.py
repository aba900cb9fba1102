"""Does one unfinished exercise cost only its own part? Run a lab with exercises left as their stubs and see which
other cells break.

    python tools/stub_matrix.py --lab 04              # the untouched lab: every exercise a stub
    python tools/stub_matrix.py --lab 04 --only C     # the solution with exercise C alone put back to its stub
    python tools/stub_matrix.py --all                 # every lab, untouched

The notebook runs in this process, cell by cell (QUICK, CPU unless WORKBOOK_DEVICE says otherwise), going on after
a cell that raises, as the grader does. A stub raising NotImplementedError in its own exercise cell is expected; so
is a check cell failing for an exercise that is not done. Every other failure is listed: a **given** cell that
raised (it should say which part is not done yet and go on), or any cell whose error is not the stub's own
NotImplementedError (a NameError or AttributeError cascading from an unfinished part); with --only, also every
check of another exercise that fails. Exit 1 when anything is listed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from helpers import checks, notebooks  # noqa: E402

LABS = ("01", "02", "03", "04", "05", "06", "07")


def with_stubs(lab: str, only: str | None) -> list:
    """The lab's cells: the untouched lab, or the solution with one exercise (its name or letter) put back to its stub."""
    if only is None:
        return notebooks.read(notebooks.lab_path(lab, "labs", ROOT)).cells
    nb = notebooks.read(notebooks.lab_path(lab, "solutions", ROOT))
    hit = False
    for cell in nb.cells:
        name = notebooks.exercise_name(cell)
        if "exercise" in notebooks.tags(cell) and (name == only or name.split(":")[0].strip() == only):
            cell.source = notebooks.replace_code_solutions(cell.source, name) if cell.cell_type == "code" else \
                notebooks.replace_markdown_solutions(cell.source)
            hit = True
    if not hit:
        raise SystemExit(f"lab {lab} has no exercise {only!r}")
    return nb.cells


FAILED_CHECK = re.compile(r"❌ (\d\d\.\w+)")


def check_failures(printed: str, only: str | None) -> list[str]:
    """The checks a check cell printed as failed that belong to another exercise than `only` (None: every exercise is
    a stub, so any check may fail)."""
    if only is None:
        return []
    return [name for name in FAILED_CHECK.findall(printed) if checks.spec(name).exercise != only.split(":")[0].strip()]


def run(cells: list, only: str | None = None) -> list[dict]:
    """Run the code cells in one namespace, going on after errors; one row per cell that raised, and per check cell
    that failed a check of another exercise than `only`."""
    ns: dict = {"__name__": "__main__"}
    failures = []
    for cell in cells:
        if cell.cell_type != "code":
            continue
        tags = notebooks.tags(cell)
        source = cell.source
        filename = notebooks.remember_source(source, f"<cell {cell.get('id')}>")
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                exec(compile(source, filename, "exec"), ns)
            for name in check_failures(out.getvalue(), only) if "check" in tags else []:
                failures.append({"cell": cell.get("id"), "role": "check", "error": f"{name} failed", "expected": False,
                                 "where": "an exercise other than the one put back to its stub"})
        except BaseException as e:          # noqa: BLE001 - a learner's cell may raise anything
            if isinstance(e, KeyboardInterrupt):
                raise
            role = "exercise" if "exercise" in tags else "check" if "check" in tags else "given" if "given" in tags else "other"
            stub = isinstance(e, NotImplementedError)
            expected = (role == "exercise" and stub) or role == "check"
            failures.append({"cell": cell.get("id"), "role": role, "error": f"{type(e).__name__}: {e}"[:300],
                             "expected": expected,
                             "where": traceback.format_exception(e)[-2].strip().splitlines()[0][:200]})
    return failures


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lab", choices=LABS, action="append", default=[])
    p.add_argument("--all", action="store_true", help="every lab")
    p.add_argument("--only", help="put back this exercise alone (name or letter) in the solution")
    args = p.parse_args(argv)
    labs = list(LABS) if args.all else args.lab
    if not labs:
        p.error("name a --lab or --all")
    os.environ.setdefault("WORKBOOK_QUICK", "1")
    os.environ.setdefault("WORKBOOK_DEVICE", "cpu")
    os.environ.setdefault("MPLBACKEND", "Agg")
    bad = 0
    for lab in labs:
        os.environ["WORKBOOK_OUT_DIR"] = tempfile.mkdtemp(prefix=f"stub_matrix_{lab}_")   # fresh: no earlier run's files
        t0 = time.perf_counter()
        failures = run(with_stubs(lab, args.only), args.only)
        wrong = [f for f in failures if not f["expected"]]
        bad += len(wrong)
        print(f"lab {lab}{' with ' + args.only + ' stubbed' if args.only else ' untouched'}: {len(failures)} cell(s) "
              f"raised, {len(wrong)} that should not ({time.perf_counter() - t0:.0f} s)", flush=True)
        for f in wrong:
            print(f"  {f['role']:>8} {f['cell']}: {f['error']}\n           at {f['where']}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
