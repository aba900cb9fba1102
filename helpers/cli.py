"""The `workbook` command: doctor, build, run, grade, merge, desk, export, release.

Examples:
    workbook doctor                          # can this machine run the labs?
    workbook build [--check]                 # labs/ from solutions/ (CI: --check)
    workbook run 04 [--quick] [--solution]   # execute a lab headlessly into experiments/
    workbook grade --lab 04 subs/ --out grades/ --jobs 2 [--shard 1/4]
    workbook merge grades-1/ grades-2/ --lab 04 --out grades/
    workbook desk grades/ --submissions subs/ # score the written answers in the browser
    workbook export grades/ --roster roster.csv --format canvas   # grades for an LMS
    workbook release --out bundle/
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cmd_doctor(args) -> int:
    from helpers import env

    findings = env.doctor()
    print(env.format_findings(findings))
    print("\nWhat runs here, lab by lab:\n" + "\n".join(env.lab_support(findings)))
    code = env.doctor_exit_code(findings)
    print("\nThe labs can run here." if code == 0 else "\nFix the ❌ lines above before running the labs.")
    return code


INSTRUCTOR_COMMANDS = ("build", "grade", "merge", "desk", "export", "release")


def missing_instructor_parts() -> str | None:
    """Why this copy cannot run the instructor's commands (the learner bundle has no grader and no solutions), or None."""
    import importlib.util

    if importlib.util.find_spec("helpers.grading") is None or not (ROOT / "solutions").is_dir():
        return ("is an instructor command: it needs the course repository (the solutions, helpers/grading and the "
                "hidden checks), which the learner bundle leaves out. Learners: run the check cells in your notebook, "
                "`workbook run NN` to run a lab headlessly, and `workbook doctor` to check this machine.")
    return None


def cmd_build(args) -> int:
    from helpers.points_table import build_labs, sync_readme

    problems = build_labs(ROOT, check=args.check)
    problems += sync_readme(ROOT, check=args.check)
    if args.check and (ROOT / "solutions" / "hidden").is_dir():
        from helpers.grading.wiring import wiring_problems

        problems += wiring_problems(ROOT)
    for p in problems:
        print(f"❌ {p}", file=sys.stderr)
    if not problems:
        print("labs/ is in step with solutions/, and every check is wired (check cell, points, hidden cases)"
              if args.check else "labs/ regenerated from solutions/")
    return 1 if problems else 0


def cmd_run(args) -> int:
    """Execute a lab (or its solution) with papermill, or without a kernel (--no-kernel) where Jupyter is absent."""
    from helpers.env import LabSettings
    from helpers.notebooks import lab_path

    nb_path = lab_path(args.lab, "solutions" if args.solution else "labs")
    out_dir = ROOT / "experiments" / nb_path.stem
    os.environ.update(LabSettings(device=args.device, quick=args.quick, out_dir=str(out_dir)).to_env())
    if args.no_kernel:
        from helpers import notebooks

        return notebooks.run_without_kernel(nb_path)
    import papermill

    from papermill.exceptions import PapermillExecutionError

    out = ROOT / "experiments" / f"{nb_path.stem}.executed.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    try:   # every cell runs, as in JupyterLab's Run All with errors let through: a part not done yet stops nothing
        papermill.execute_notebook(str(nb_path), str(out), cwd=str(ROOT), kernel_name="python3", allow_errors=True)
    except PapermillExecutionError:
        failed = cells_that_raised(out)
        print(f"executed notebook: {out}\n{len(failed)} cell(s) raised (every other cell ran):")
        for line in failed:
            print(f"  {line}")
        return 1
    print(f"executed notebook: {out}")
    return 0


def cells_that_raised(path: Path) -> list[str]:
    """One line per code cell of an executed notebook whose output is an error: its id, part, and the error."""
    import nbformat

    lines = []
    for cell in nbformat.read(str(path), as_version=4).cells:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "error":
                part = cell.get("metadata", {}).get("workbook", {}).get("exercise")
                what = f"{o.get('ename')}: {str(o.get('evalue', '')).splitlines()[0] if o.get('evalue') else ''}"
                lines.append(f"cell {cell.get('id')}{f' (part {part})' if part else ''}: {what[:160]}")
    return lines


def cmd_grade(args) -> int:
    from helpers.grading import batch

    settings = batch.Settings(lab=args.lab, out=Path(args.out), jobs=args.jobs, cell_timeout=args.cell_timeout,
                              notebook_timeout=args.timeout, call_timeout=args.call_timeout, memory_mb=args.memory_mb,
                              device=args.device, quick=not args.full, seed=args.seed, threads=args.threads,
                              bwrap=not args.no_bwrap, warm=not args.no_warm, force=args.force, only=tuple(args.only or ()),
                              gpus=args.gpus)
    if args.device != "cpu":
        from helpers.grading import gpus

        try:
            gpus.visible_gpus(args.gpus)
        except ValueError as err:
            print(err, file=sys.stderr)
            return 2
    paths = [Path(p) for p in args.submissions]
    if not paths:
        print("name at least one submission file or folder", file=sys.stderr)
        return 2
    results = batch.grade(paths, settings, shard=args.shard, progress=not args.quiet)
    if args.manual:
        results = adopt_manual(Path(args.out), args.lab, Path(args.manual))
    for r in results:
        print(f"{r.submission:<40} {r.status:<8} {r.total:g}/{r.max_total:g}  ({r.seconds:.0f} s)")
    print(f"gradebook: {Path(args.out) / 'grades.csv'}; feedback: {Path(args.out) / 'feedback'}; class report: "
          f"{Path(args.out) / 'summary.html'}")
    return 0


def adopt_manual(out: Path, lab: str, path: Path) -> list:
    """Check a filled manual.csv against this gradebook, make it the gradebook's own, and rebuild every output."""
    from helpers import checks
    from helpers.grading import batch, gradebook, manual

    rows = manual.read_rows(path)
    manual.scores(rows, manual.items(lab, ROOT), {r.key for r in gradebook.load_results(out)}, where=str(path))
    target = out / "manual.csv"
    if not target.exists() or path.resolve() != target.resolve():
        with gradebook.locked(out):
            gradebook.write_atomic(target, path.read_text(encoding="utf-8-sig"))
    return batch.finish(out, lab, checks.load_lab(lab))


def cmd_merge(args) -> int:
    from helpers import checks
    from helpers.grading import batch, gradebook

    out = Path(args.out)
    specs = checks.load_lab(args.lab)
    gradebook.merge([Path(p) for p in args.sources], out, [s.name for s in specs])
    results = adopt_manual(out, args.lab, Path(args.manual)) if args.manual else batch.finish(out, args.lab, specs)
    print(f"merged {len(results)} submissions into {out / 'grades.csv'}; class report: {out / 'summary.html'}")
    return 0


def cmd_desk(args) -> int:
    import shlex

    from helpers.grading import desk

    return desk.serve(Path(args.gradebook), lab=args.lab, port=args.port, open_browser=not args.no_browser,
                      submissions=[Path(p) for p in args.submissions or ()],
                      roster=Path(args.roster) if args.roster else None, grade_args=shlex.split(args.grade_args or ""))


def cmd_export(args) -> int:
    from helpers.grading import batch, export, gradebook

    folder = Path(args.gradebook)
    results = gradebook.load_results(folder)
    if not results:
        raise FileNotFoundError(f"no graded submissions in {folder / 'results'}: run `workbook grade` first")
    labs = sorted({r.lab for r in results})
    if len(labs) > 1:
        raise ValueError(f"{folder} holds results of labs {', '.join(labs)}: export one lab's gradebook at a time")
    results = batch.scored_results(folder, labs[0])[2]   # with the written answers' points, when scored
    matched = export.match(export.read_roster(Path(args.roster)), results)
    out = Path(args.out) if args.out else folder / f"export-{args.format}.csv"
    gradebook.write_atomic(out, export.export_text(args.format, matched, labs[0]))
    print(f"{len(matched.pairs)} grades of lab {labs[0]} written to {out} ({args.format})")
    for line in export.leftovers_text(matched):
        print(f"⚠ {line}", file=sys.stderr)
    return 0


def cmd_release(args) -> int:
    from helpers.grading import release

    out = release.make_release(ROOT, Path(args.out))
    print(f"learner bundle written to {out}")
    return 0


def cmd_llm_bench(argv: list[str]) -> int:
    from helpers.llm_bench.cli import main as llm_bench

    return llm_bench(argv, prog="workbook llm-bench")


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="workbook", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("doctor", help="check that this machine can run the labs").set_defaults(fn=cmd_doctor)
    b = sub.add_parser("build", help="generate labs/ from solutions/")
    b.add_argument("--check", action="store_true", help="fail if labs/ is stale, a notebook has outputs, or a check is not wired; change nothing")
    b.set_defaults(fn=cmd_build)
    r = sub.add_parser("run", help="execute one lab headlessly")
    r.add_argument("lab", help="lab number, e.g. 04")
    r.add_argument("--quick", action="store_true", help="small sizes, as CI and grading run it")
    r.add_argument("--solution", action="store_true", help="run the solution notebook instead of the lab")
    r.add_argument("--device", default="auto", help="auto, cpu or cuda")
    r.add_argument("--no-kernel", action="store_true", help="run the code cells in this process (no Jupyter needed)")
    r.set_defaults(fn=cmd_run)
    g = sub.add_parser("grade", help="grade submitted notebooks", description="Example: workbook grade --lab 04 submissions/ --out grades/ --jobs 2")
    g.add_argument("submissions", nargs="*", help="notebook files or folders of them")
    g.add_argument("--lab", required=True, help="lab number, e.g. 04")
    g.add_argument("--out", required=True, help="gradebook folder (grades.csv, grades.json, feedback/, executed/)")
    g.add_argument("--jobs", type=int, default=1, help="submissions graded at once (default 1)")
    g.add_argument("--shard", help="grade only share i of N (i/N), for spreading a class over machines; then `workbook merge`")
    g.add_argument("--cell-timeout", type=float, default=300, help="seconds one cell may run (default 300)")
    g.add_argument("--timeout", type=float, default=1200, help="seconds one notebook may run (default 1200)")
    g.add_argument("--call-timeout", type=float, default=60, help="seconds a hidden check may run the learner's function (default 60)")
    g.add_argument("--memory-mb", type=int, default=6144, help="memory one submission may use (default 6144)")
    g.add_argument("--device", default="cpu", help="the device every job runs on: cpu or cuda (default cpu)")
    g.add_argument("--gpus", metavar="IDS", help="with --device cuda: the GPUs the jobs are dealt over, as nvidia-smi "
                   "numbers them, e.g. 0,1 (default: every visible GPU); k jobs on one GPU may each fill 95%%/k of its memory")
    g.add_argument("--full", action="store_true", help="run the notebooks at full size (default: QUICK, as CI runs them)")
    g.add_argument("--seed", type=int, default=0, help="the seed every job gets (WORKBOOK_SEED, default 0)")
    g.add_argument("--threads", type=int, help="CPU threads per job (default: the cores shared out between --jobs)")
    g.add_argument("--no-bwrap", action="store_true", help="run jobs without the bubblewrap jail (debugging only)")
    g.add_argument("--no-warm", action="store_true", help="do not warm the compile cache with the reference solution")
    g.add_argument("--force", action="store_true", help="regrade every submission, even those already graded unchanged")
    g.add_argument("--only", nargs="+", metavar="NAME", help="regrade just these submissions (file name, stem or key)")
    g.add_argument("--manual", metavar="CSV", help="points for the written answers (the manual.csv a batch writes, filled in)")
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    g.set_defaults(fn=cmd_grade)
    m = sub.add_parser("merge", help="merge gradebook folders of several shards")
    m.add_argument("sources", nargs="+")
    m.add_argument("--lab", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--manual", metavar="CSV", help="points for the written answers (manual.csv, filled in)")
    m.set_defaults(fn=cmd_merge)
    d = sub.add_parser("desk", help="score the written answers in the browser; open feedback, regrade one, export",
                       description="Example: workbook desk grades/ --submissions submissions/ --roster roster.csv\n\n"
                       "Serves the gradebook on 127.0.0.1 behind a random token and prints its URL. Every entry is "
                       "saved at once into GRADEBOOK/manual.csv and the grades.",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    d.add_argument("gradebook", help="the gradebook folder `workbook grade --out` or `workbook merge --out` wrote")
    d.add_argument("--lab", help="lab number (default: the one the gradebook's results name)")
    d.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    d.add_argument("--no-browser", action="store_true", help="print the URL only; do not open a browser")
    d.add_argument("--submissions", nargs="+", metavar="PATH",
                   help="the notebooks or folders `workbook grade` read, to regrade one submission from the desk")
    d.add_argument("--roster", help="roster CSV for the export button (student_id,file,...); the page can name another")
    d.add_argument("--grade-args", metavar="ARGS", help="options a regrade passes to `workbook grade`, as the batch "
                   "had them, e.g. \"--device cuda --jobs 1\"")
    d.set_defaults(fn=cmd_desk)
    e = sub.add_parser("export", help="grades for an LMS (canvas, moodle, csv), students matched through a roster",
                       description="Example: workbook export grades/ --roster roster.csv --format canvas")
    e.add_argument("gradebook", help="the gradebook folder `workbook grade --out` wrote")
    e.add_argument("--roster", required=True, help="CSV with columns student_id,file (optional: name,email,section,lms_id)")
    e.add_argument("--format", choices=("canvas", "moodle", "csv"), default="csv")
    e.add_argument("--out", help="the file to write (default: GRADEBOOK/export-FORMAT.csv)")
    e.set_defaults(fn=cmd_export)
    llm = sub.add_parser("llm-bench", help="benchmark LLM inference backends (TTFT, TPOT, tokens/s, memory); "
                         "`workbook llm-bench --help` for its options", add_help=False)
    llm.add_argument("args", nargs=argparse.REMAINDER)
    llm.set_defaults(fn=lambda args: cmd_llm_bench(args.args))
    rel = sub.add_parser("release", help="write the learner bundle (labs, helpers, no solutions or hidden checks)")
    rel.add_argument("--out", required=True)
    rel.set_defaults(fn=cmd_release)
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["llm-bench"]:   # its own options, --help included, go to its own parser
        return cmd_llm_bench(argv[1:])
    args = parser().parse_args(argv)
    if args.command in INSTRUCTOR_COMMANDS and (why := missing_instructor_parts()):
        print(f"`workbook {args.command}` {why}", file=sys.stderr)
        return 2
    try:
        return args.fn(args) or 0
    except KeyboardInterrupt:
        print("\nstopped; what was finished is saved (re-run the same command to resume)", file=sys.stderr)
        return 130
    except (FileNotFoundError, ValueError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


def run() -> None:
    """The `workbook` command. Grading ends without the interpreter's teardown: on GPU machines torch's and Triton's
    teardown in the grader hung or crashed (SIGSEGV) after the gradebook was complete, turning a clean batch into a
    failed command; everything is written and flushed by then."""
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    run()
