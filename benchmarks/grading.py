"""Benchmark: how grading scales with --jobs, per lab, on a CPU or on GPUs. Notebooks per minute for each --jobs.

    .venv/bin/python benchmarks/grading.py --lab 02 --copies 8 [--jobs 1 2 4 8] [--device cpu] [--burners 0]
    python benchmarks/grading.py --device cuda --lab 01 06 --copies 8 --jobs 1 4 8 [--gpus 0,1]
    python benchmarks/grading.py --device cuda --lab 03 --copies 15 --jobs 8 16 --gpus 0 0,1   # one GPU, then two

Per lab the warm-up (the references, then the reference solution graded once to fill the shared compile cache; a
batch does it once per GPU model) is timed on its own, once; then for each --jobs value a fresh gradebook starts
from that warm cache and grades `copies` copies of the reference solution and one untouched lab. The table gives
the median seconds one job took (a job slower with more jobs beside it shows what is shared: cores, GPU, memory
bandwidth), notebooks per minute, the amortized seconds per notebook, the speedup over the first --jobs and the
scores: every copy of the solution must score full marks and the untouched lab 0 at every --jobs (the script exits 1
otherwise). With --burners N, N processes spin on the CPU throughout (a busy grading machine): the scores must not
change. A figure to watch, not a test.
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from helpers.env import cpu_count, device_label  # noqa: E402
from helpers.grading import batch  # noqa: E402
from helpers.notebooks import lab_path  # noqa: E402


def spin() -> None:
    """Keep one core busy until killed."""
    while True:
        pass


def gpus_for(jobs: int, args) -> str | None:
    """The --gpus of the run with `jobs` jobs: one value for every run, or one per --jobs value, in order."""
    if not args.gpus:
        return None
    return args.gpus[0] if len(args.gpus) == 1 else args.gpus[args.jobs.index(jobs)]


def settings_for(lab: str, out: Path, jobs: int, args) -> batch.Settings:
    return batch.Settings(lab=lab, out=out, jobs=jobs, device=args.device, threads=args.threads,
                          gpus=gpus_for(jobs, args))


def warm(lab: str, work: Path, args) -> tuple[Path, float]:
    """The lab's warm-up, once: references and the reference solution graded into WORK/warm-LAB/.warm."""
    out = work / f"warm-{lab}"
    out.mkdir(parents=True)
    settings = batch.Settings(lab=lab, out=out, jobs=1, device=args.device, threads=args.threads,
                              gpus=args.gpus[0] if args.gpus else None)
    t0 = time.monotonic()
    batch.warm_up(settings, progress=False, plan=settings.gpu_plan())
    return out / ".warm", time.monotonic() - t0


def lost(result) -> str:
    """The checks a copy of the reference solution lost points on, each with the grader's message."""
    return "".join(f"\n      {c.name} {c.score:g}/{c.max_score:g}: {c.message[:600]}" for c in result.checks
                   if c.score < c.max_score)


def run(lab: str, jobs: int, warm_dir: Path, work: Path, args) -> dict:
    """Grade `copies` copies of the reference solution and one untouched lab from the warm cache; times and scores."""
    folder, out = work / f"subs-{lab}-{jobs}", work / f"grades-{lab}-{jobs}"
    folder.mkdir(parents=True)
    for k in range(args.copies):
        shutil.copy(lab_path(lab, "solutions"), folder / f"copy_{k:02d}.ipynb")
    shutil.copy(lab_path(lab, "labs"), folder / "untouched.ipynb")
    shutil.copytree(warm_dir, out / ".warm", symlinks=True)
    t0 = time.monotonic()
    results = batch.grade([folder], settings_for(lab, out, jobs, args), progress=False)
    wall = time.monotonic() - t0
    copies = [r for r in results if r.submission != "untouched"]
    untouched = [r for r in results if r.submission == "untouched"]
    n = len(results)
    wrong = ([f"{r.submission}: {r.status} {r.total:g}/{r.max_total:g}{lost(r)}" for r in copies
              if r.total != r.max_total or r.status != "ok"]
             + [f"untouched: {r.status} {r.total:g}/{r.max_total:g}" for r in untouched if r.total != 0])
    return {"jobs": jobs, "gpus": gpus_for(jobs, args) or "all", "batch_s": wall, "per_min": 60 * n / wall, "per_nb_s": wall / n,
            "job_s": statistics.median(r.seconds for r in results),
            "scores": sorted({f"{r.total:g}/{r.max_total:g}" for r in copies}),
            "untouched": sorted({f"{r.total:g}" for r in untouched}), "wrong": wrong,
            "alone": sum(1 for r in results if any("Graded alone" in note for note in r.notes)),
            "problems": [f"{r.submission}: {r.status}: {r.message}" for r in results if r.status != "ok"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lab", nargs="+", default=["02"])
    ap.add_argument("--copies", type=int, default=8, help="copies of the reference solution per batch (plus one untouched lab)")
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2, 4, 8])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--gpus", nargs="+", help="with --device cuda: the GPUs to spread the jobs over (default: every "
                    "visible one); one value for every run, or one per --jobs value (--jobs 8 16 --gpus 0 0,1)")
    ap.add_argument("--threads", type=int, default=None, help="CPU threads per job (default: cores / jobs)")
    ap.add_argument("--burners", type=int, default=0, help="processes that keep cores busy during the runs")
    ap.add_argument("--keep", action="store_true", help="keep the gradebooks (printed path)")
    args = ap.parse_args()
    if args.gpus and len(args.gpus) not in (1, len(args.jobs)):
        ap.error(f"--gpus takes one value or one per --jobs value ({len(args.jobs)}), not {len(args.gpus)}")
    cores = cpu_count()
    jobs = [j for j in args.jobs if j <= cores] or [1]
    work = Path(tempfile.mkdtemp(prefix="grading-bench-"))
    burners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.burners)]
    for b in burners:
        b.start()
    tables, failed = [], False
    try:
        for lab in args.lab:
            warm_dir, warm_s = warm(lab, work, args)
            print(f"lab {lab}: warm-up {warm_s:.0f} s", flush=True)
            rows = []
            for j in jobs:
                r = run(lab, j, warm_dir, work, args)
                rows.append(r)
                print(f"lab {lab} --jobs {j}: {args.copies + 1} notebooks in {r['batch_s']:.0f} s ({r['per_nb_s']:.0f} s each, "
                      f"{r['per_min']:.2f}/min), solution {r['scores']}, untouched {r['untouched']}", flush=True)
                for line in r["problems"] + r["wrong"]:
                    print(f"    {line}", flush=True)
                failed |= bool(r["wrong"])
            tables.append((lab, warm_s, rows))
    finally:
        for b in burners:
            b.kill()
    print(f"\n{args.copies} copies of the reference solution + 1 untouched lab per batch, --device {args.device}"
          f"{' --gpus ' + ' '.join(args.gpus) if args.gpus else ''}, {cores} cores, {args.burners} busy-loop processes beside; "
          f"{device_label(args.device)}")
    print(f"{'lab':>3} {'jobs':>4} {'gpus':>5} {'warm-up s':>9} {'batch s':>8} {'job s':>6} {'s/notebook':>10} {'per min':>8} {'speedup':>8}  "
          f"{'solution':<10} untouched  graded alone")
    for lab, warm_s, rows in tables:
        base = rows[0]["per_min"]
        for r in rows:
            print(f"{lab:>3} {r['jobs']:>4} {r['gpus']:>5} {warm_s:>9.0f} {r['batch_s']:>8.0f} {r['job_s']:>6.0f} {r['per_nb_s']:>10.1f} "
                  f"{r['per_min']:>8.2f} {r['per_min'] / base:>7.2f}×  {', '.join(r['scores']):<10} "
                  f"{', '.join(r['untouched']):<9}  {r['alone']}")
    if args.keep:
        print(f"gradebooks kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    if failed:
        print("a score changed with --jobs (above): honest scores must not depend on it", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
