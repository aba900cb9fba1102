"""Benchmark: how grading scales with --jobs. Submissions per minute for --jobs 1, 2, 4, 8 (where the cores exist).

    .venv/bin/python benchmarks/grading.py --lab 02 --copies 8 [--jobs 1 2 4 8] [--device cpu] [--burners 0]

Each --jobs value gets a fresh gradebook: the warm-up (references, then the reference solution graded once to
fill the shared compile cache) is timed on its own, then a batch of `copies` copies of the reference solution is
graded and timed. The table gives the median seconds one job took (a job slower with more jobs beside it shows
what is shared: cores, memory bandwidth, the disk), the batch's submissions per minute, the speedup over --jobs 1 and the
efficiency (speedup / jobs). With --burners N, N processes spin on the CPU throughout (a busy grading machine):
the scores must not change. A figure to watch, not a test.
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
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


def run(lab: str, jobs: int, copies: int, device: str, work: Path, threads: int | None) -> dict:
    """Warm up, then grade `copies` copies of the reference solution; times and scores."""
    folder, out = work / f"subs-{jobs}", work / f"grades-{jobs}"
    folder.mkdir(parents=True)
    for k in range(copies):
        shutil.copy(lab_path(lab, "solutions"), folder / f"copy_{k:02d}.ipynb")
    settings = batch.Settings(lab=lab, out=out, jobs=jobs, device=device, threads=threads)
    t0 = time.monotonic()
    batch.grade([], settings, progress=False)                    # references and the reference solution, once
    warm = time.monotonic() - t0
    t0 = time.monotonic()
    results = batch.grade([folder], settings, progress=False)
    wall = time.monotonic() - t0
    job_s = sorted(r.seconds for r in results)
    return {"jobs": jobs, "warm_s": warm, "batch_s": wall, "per_min": 60 * copies / wall,
            "job_s": job_s[len(job_s) // 2] if job_s else float("nan"),
            "scores": sorted({f"{r.total:g}/{r.max_total:g}" for r in results}),
            "statuses": sorted({r.status for r in results}),
            "problems": [f"{r.submission}: {r.status}: {r.message}" for r in results if r.status != "ok"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lab", default="02")
    ap.add_argument("--copies", type=int, default=8)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2, 4, 8])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=None, help="CPU threads per job (default: cores / jobs)")
    ap.add_argument("--burners", type=int, default=0, help="processes that keep cores busy during the runs")
    ap.add_argument("--keep", action="store_true", help="keep the gradebooks (printed path)")
    args = ap.parse_args()
    cores = cpu_count()
    jobs = [j for j in args.jobs if j <= cores] or [1]
    work = Path(tempfile.mkdtemp(prefix="grading-bench-"))
    burners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.burners)]
    for b in burners:
        b.start()
    rows = []
    try:
        for j in jobs:
            rows.append(run(args.lab, j, args.copies, args.device, work, args.threads))
            r = rows[-1]
            print(f"--jobs {j}: warm-up {r['warm_s']:.0f} s, {args.copies} submissions in {r['batch_s']:.0f} s "
                  f"({r['per_min']:.2f}/min), scores {r['scores']}, statuses {r['statuses']}", flush=True)
            for problem in r["problems"]:
                print(f"    {problem}", flush=True)
    finally:
        for b in burners:
            b.kill()
    base = rows[0]["per_min"]
    print(f"\nLab {args.lab}, {args.copies} copies of the reference solution, --device {args.device}, {cores} cores, "
          f"{args.burners} busy-loop processes beside, on {device_label('cpu')}")
    print(f"{'jobs':>4} {'warm-up s':>10} {'batch s':>8} {'job s':>6} {'per min':>8} {'speedup':>8} {'efficiency':>10}  scores")
    for r in rows:
        speed = r["per_min"] / base
        print(f"{r['jobs']:>4} {r['warm_s']:>10.0f} {r['batch_s']:>8.0f} {r['job_s']:>6.0f} {r['per_min']:>8.2f} {speed:>7.2f}× "
              f"{speed / r['jobs']:>10.2f}  {', '.join(r['scores'])}")
    if args.keep:
        print(f"gradebooks kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
