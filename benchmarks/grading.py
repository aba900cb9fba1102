"""Benchmark: grade 20 Lab 04 submissions with --jobs 2 and print the time per submission (warm cache).

    .venv/bin/python benchmarks/grading.py [--jobs 2] [--out DIR]

The batch is the grading tests' corpus (solution, alternative, untouched lab, partial and hostile notebooks)
plus copies of the solution and the lab up to 20. The first pass warms the shared compile cache by grading
the reference solution; the times printed are per submission after that. A figure to watch, not a test.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from helpers.env import device_label  # noqa: E402
from helpers.grading import batch  # noqa: E402
from tests import submissions as S  # noqa: E402
from tests.test_grading import build_corpus  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="grading-bench-"))
    folder, out = work / "submissions", args.out or work / "grades"
    folder.mkdir()
    build_corpus(folder, out)
    k = 0
    while len(list(folder.glob("*.ipynb"))) < 20:
        (S.solution_file if k % 2 == 0 else S.untouched_file)(folder, f"copy_{k:02d}")
        k += 1
    settings = batch.Settings(lab="04", out=out, jobs=args.jobs, cell_timeout=45, call_timeout=30)
    t0 = time.monotonic()
    results = batch.grade(sorted(folder.glob("*.ipynb"))[:20], settings, progress=True)
    wall = time.monotonic() - t0
    print(f"\n{'submission':<32} {'status':<8} {'score':>7} {'seconds':>8}")
    for r in sorted(results, key=lambda r: -r.seconds):
        print(f"{r.submission:<32} {r.status:<8} {r.total:>4g}/{r.max_total:<2g} {r.seconds:>8.1f}")
    secs = [r.seconds for r in results if r.status != "invalid"]
    print(f"\n{len(results)} submissions, --jobs {args.jobs}, on {device_label()}: batch wall {wall:.0f} s "
          f"(including the one-off warm-up); per submission median {statistics.median(secs):.1f} s, max {max(secs):.1f} s "
          f"(target: under 60 s each with a warm cache)")


if __name__ == "__main__":
    main()
