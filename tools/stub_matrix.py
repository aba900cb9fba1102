"""Does one unfinished exercise cost only its own part? Run a lab with exercises left as their stubs and see which
other cells break.

    python tools/stub_matrix.py --lab 04              # the untouched lab: every exercise a stub
    python tools/stub_matrix.py --lab 04 --only C     # the solution with exercise C alone put back to its stub
    python tools/stub_matrix.py --all                 # every lab, untouched
    python tools/stub_matrix.py --lab 04 --each       # the matrix: each exercise in turn put back to its stub,
    python tools/stub_matrix.py --lab 04 --wrong      #   or given a wrong answer that runs (tests/wrong_answers)

The notebook runs in this process, cell by cell (QUICK, CPU unless WORKBOOK_DEVICE says otherwise), going on after
a cell that raises, as the grader does. A stub raising NotImplementedError in its own exercise cell is expected; so
is a check cell failing for an exercise that is not done. Every other failure is listed: a **given** cell that
raised (it should say which part is not done yet and go on), or any cell whose error is not the stub's own
NotImplementedError (a NameError or AttributeError cascading from an unfinished part); with --only, also every
check of another exercise that fails. Exit 1 when anything is listed.

--each and --wrong print one row per exercise: the checks that failed (exactly that exercise's checks must, and
no other) and the cells that raised that should not have; `--markdown` prints the rows as a table. Each row runs
in a process of its own, as each run of a notebook has a fresh kernel.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from helpers import bench, checks, notebooks  # noqa: E402

LABS = ("01", "02", "03", "04", "05", "06", "07")


def exercises(lab: str) -> list[str]:
    """The lab's graded exercises (their short names: '2a', 'C'), in notebook order."""
    graded = {s.exercise for s in checks.load_lab(lab)}
    names = [notebooks.exercise_name(c).split(":")[0].strip()
             for c in notebooks.read(notebooks.lab_path(lab, "solutions", ROOT)).cells if "exercise" in notebooks.tags(c)]
    return [n for i, n in enumerate(names) if n in graded and n not in names[:i]]


def with_wrong_answer(lab: str, exercise: str):
    """The solution's cells with the first wrong answer of the corpus whose check belongs to `exercise` (and that
    wrong answer), or None when the corpus has none."""
    sys.path.insert(0, str(ROOT))
    from tests import wrong_answers

    corpus = [w for name in (f"lab{lab}", f"lab{lab}_part8")
              if (ROOT / "tests" / "wrong_answers" / f"{name}.py").exists()
              for w in wrong_answers.corpus(name[3:]).WRONG
              if checks.spec(w.check).exercise == exercise and not w.gpus]   # a CPU run
    if not corpus:
        return None
    w = corpus[0]
    nb = notebooks.read(notebooks.lab_path(lab, "solutions", ROOT))
    by_id = {c.get("id"): c for c in nb.cells}
    own = next(c for c in nb.cells if "exercise" in notebooks.tags(c) and c.cell_type == "code"
               and notebooks.exercise_name(c).split(":")[0].strip() == exercise)
    for edit in w.edits:
        original = by_id[edit.cell].source
        changed = edit.apply(original)
        if edit.cell != own.get("id") and changed.startswith(original + "\n\n\n"):
            own.source = changed[len(original) + 3:]     # a corpus edit made late (re-run after slow cells): in place here
        elif "exercise" in notebooks.tags(by_id[edit.cell]):
            by_id[edit.cell].source = changed
        # else: the corpus trims a given cell to save time (its demo); a learner's notebook keeps given cells whole
    return nb.cells, w


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


def role_of(tags: list[str]) -> str:
    """A cell's part in the lab: exercise, check, given or other."""
    return "exercise" if "exercise" in tags else "check" if "check" in tags else "given" if "given" in tags else "other"


def expected_error(role: str, stub: bool, own_stub: bool) -> bool:
    """An error the untouched lab may show: an exercise's own stub, a failed check, or a given cell that stopped on
    the stub of the part it belongs to. Anything else is a cell broken by an unfinished part."""
    return (role == "exercise" and stub) or role == "check" or (role == "given" and own_stub)


def run(cells: list, only: str | None = None, failed: list | None = None, wrong: bool = False) -> list[dict]:
    """Run the code cells in one namespace, going on after errors; one row per cell that raised, and per check cell
    that failed a check of another exercise than `only`. The names of every failed check go into `failed`. wrong:
    `only` holds a wrong answer, and a cell of its own part may raise (the learner's own error, shown to them)."""
    ns: dict = {"__name__": "__main__"}
    failures = []
    failed = [] if failed is None else failed
    part = None                    # the exercise the cell belongs to: the last one above it
    for cell in cells:
        if "exercise" in notebooks.tags(cell):
            part = notebooks.exercise_name(cell).split(":")[0].strip()
        if cell.cell_type != "code":
            continue
        tags = notebooks.tags(cell)
        source = cell.source
        filename = notebooks.remember_source(source, f"<cell {cell.get('id')}>")
        out = io.StringIO()
        try:      # a given cell's timings take the fewest samples: the matrix reads which cells raise, not figures
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), \
                    (contextlib.nullcontext() if "check" in tags else bench.shortest_timings()):
                exec(compile(source, filename, "exec"), ns)
            failed += FAILED_CHECK.findall(out.getvalue()) if "check" in tags else []
            for name in check_failures(out.getvalue(), only) if "check" in tags else []:
                failures.append({"cell": cell.get("id"), "role": "check", "error": f"{name} failed", "expected": False,
                                 "where": "an exercise other than the one put back to its stub"})
        except BaseException as e:          # noqa: BLE001 - a learner's cell may raise anything
            if isinstance(e, KeyboardInterrupt):
                raise
            role = role_of(tags)
            # A part's own run cell stops on its own stub: that part is the one not done.
            behind = checks.stub_behind(e)       # the stub's error itself, or one raised from it (BackendCompilerFailed)
            own_stub = behind is not None and part is not None and checks.unfinished_part(behind).split(" ")[1] == part
            expected = expected_error(role, isinstance(e, NotImplementedError), own_stub) or (wrong and part == only)
            failures.append({"cell": cell.get("id"), "role": role, "error": f"{type(e).__name__}: {e}"[:300],
                             "expected": expected,
                             "where": traceback.format_exception(e)[-2].strip().splitlines()[0][:200]})
    return failures


STOPPED_ON = re.compile(r"⏭ part (\S+) ")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def executed_failures(nb) -> list[dict]:
    """run()'s rows, read from a notebook already executed with every exercise a stub (the untouched lab as the
    grader ran it): the cells whose error output is neither an exercise's own stub, nor a check, nor a given cell that
    stopped on the stub of its own part (its traceback then starts with "⏭ part X")."""
    failures, part = [], None
    for cell in nb.cells:
        if "exercise" in notebooks.tags(cell):
            part = notebooks.exercise_name(cell).split(":")[0].strip()
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if out.get("output_type") != "error":
                continue
            role = role_of(notebooks.tags(cell))
            shown = ANSI.sub("", "\n".join(out.get("traceback", [])))
            stopped = STOPPED_ON.match(shown.lstrip())
            own_stub = (stopped is not None and stopped.group(1) == part) or \
                f"NotImplementedError: {part}: " in shown or f"NotImplementedError: exercise {part}: " in shown
            expected = expected_error(role, out.get("ename") == "NotImplementedError", own_stub)
            failures.append({"cell": cell.get("id"), "role": role, "error": f"{out.get('ename')}: {out.get('evalue')}"[:300],
                             "expected": expected, "where": shown[-200:]})
    return failures


def matrix_row(lab: str, exercise: str, mode: str) -> dict:
    """One row of the matrix: the solution with `exercise` put back to its stub (mode "stub") or given a wrong answer
    from the corpus (mode "wrong"), run whole; what failed, and whether that was exactly the exercise's checks."""
    os.environ["WORKBOOK_OUT_DIR"] = tempfile.mkdtemp(prefix=f"stub_matrix_{lab}_{exercise}_")
    own = {s.name for s in checks.load_lab(lab) if s.exercise == exercise}
    about = "its stub"
    if mode == "stub":
        cells = with_stubs(lab, exercise)
    else:
        found = with_wrong_answer(lab, exercise)
        if found is None:
            return {"exercise": exercise, "mode": mode, "about": "no wrong answer in the corpus", "ok": None}
        cells, w = found
        about = w.why
    t0 = time.perf_counter()
    failed: list[str] = []
    failures = run(cells, exercise, failed, wrong=mode == "wrong")
    # A check worth 0 points that fails costs nothing (03.pitfalls runs parts 2 to 5 end to end): listed, not counted.
    others = sorted({n for n in failed if n not in own and checks.spec(n).points > 0})
    raised = [f"{f['role']} {f['cell']}: {f['error'][:120]}" for f in failures
              if not f["expected"] and f["role"] != "check"]
    # A stub must fail every check of its exercise; a wrong answer, at least the check it was written against.
    lost = sorted(own & set(failed))
    ok = not others and not raised and (lost == sorted(own) if mode == "stub" else w.check in failed)
    return {"exercise": exercise, "mode": mode, "about": about, "lost": lost, "others": others, "raised": raised,
            "ok": ok, "seconds": round(time.perf_counter() - t0)}


def print_row(lab: str, row: dict, markdown: bool) -> None:
    if row["ok"] is None:
        print(f"| {lab} | {row['exercise']} | {row['mode']} | – | – | – | {row['about']} |" if markdown else
              f"lab {lab} {row['exercise']:>4} {row['mode']:>5}: {row['about']}", flush=True)
        return
    lost, others = ", ".join(row["lost"]) or "nothing", ", ".join(row["others"]) or "none"
    raised = "; ".join(row["raised"]) or "none"
    if markdown:
        print(f"| {lab} | {row['exercise']} | {row['mode']} | {lost} | {others} | {raised} | "
              f"{'✅' if row['ok'] else '❌'} {row['about'][:70]} |", flush=True)
    else:
        print(f"lab {lab} {row['exercise']:>4} {row['mode']:>5}: {'ok ' if row['ok'] else 'BAD'} lost {lost}; other "
              f"checks failed: {others}; cells raised: {raised} ({row['seconds']} s)", flush=True)


def row_in_a_process(lab: str, exercise: str, mode: str) -> dict:
    """matrix_row in a fresh process, as a fresh kernel runs a notebook: no row inherits another's Dynamo caches,
    recompile counts or memory (one process for a whole Lab 03 matrix grew past 24 GB). A process that dies gives
    a failed row saying how."""
    done = subprocess.run([sys.executable, __file__, "--lab", lab, "--row", f"{exercise}:{mode}"], capture_output=True,
                          text=True)
    found = [line[len(ROW):] for line in done.stdout.splitlines() if line.startswith(ROW)]
    if found:
        return json.loads(found[-1])
    tail = " ".join((done.stdout + done.stderr).strip().splitlines()[-2:])[-200:]
    return {"exercise": exercise, "mode": mode, "about": f"the run died (exit {done.returncode}): {tail}", "lost": [],
            "others": [], "raised": [f"the process: exit {done.returncode}"], "ok": False, "seconds": 0}


ROW = "MATRIX ROW "


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lab", choices=LABS, action="append", default=[])
    p.add_argument("--all", action="store_true", help="every lab")
    p.add_argument("--only", help="put back this exercise alone (name or letter) in the solution")
    p.add_argument("--each", action="store_true", help="the matrix: each exercise in turn put back to its stub")
    p.add_argument("--wrong", action="store_true", help="the matrix: each exercise in turn given a wrong answer")
    p.add_argument("--exercises", help="with --each/--wrong: only these exercises (comma-separated)")
    p.add_argument("--markdown", action="store_true", help="print the matrix as a Markdown table")
    p.add_argument("--row", help=argparse.SUPPRESS)   # EXERCISE:MODE, one row of the matrix, printed as JSON
    args = p.parse_args(argv)
    labs = list(LABS) if args.all else args.lab
    if not labs:
        p.error("name a --lab or --all")
    if len(labs) > 1:      # one process per lab, as one kernel per notebook (Lab 03 must set TRITON_INTERPRET first)
        rest = [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--all"]
        rest = [a for i, a in enumerate(rest) if a != "--lab" and (i == 0 or rest[i - 1] != "--lab")]
        codes = [subprocess.run([sys.executable, __file__, "--lab", lab, *rest]).returncode for lab in labs]
        return max(codes)
    os.environ.setdefault("WORKBOOK_QUICK", "1")
    os.environ.setdefault("WORKBOOK_DEVICE", "cpu")
    os.environ.setdefault("MPLBACKEND", "Agg")
    bad = 0
    if args.row:
        exercise, mode = args.row.rsplit(":", 1)
        row = matrix_row(labs[0], exercise, mode)
        print(ROW + json.dumps(row), flush=True)
        return 0
    if args.each or args.wrong:
        if args.markdown:
            print("| lab | exercise | made | its checks failed | other checks failed | cells that raised | verdict |\n"
                  "|---|---|---|---|---|---|---|")
        for lab in labs:
            wanted = args.exercises.split(",") if args.exercises else exercises(lab)
            for exercise in wanted:
                for mode in ("stub",) * args.each + ("wrong",) * args.wrong:
                    row = row_in_a_process(lab, exercise, mode)
                    print_row(lab, row, args.markdown)
                    bad += row["ok"] is False
        return 1 if bad else 0
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
