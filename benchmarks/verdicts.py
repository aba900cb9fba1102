"""Do the labs' timing verdicts hold under load? Every comparison of the seven labs, R times idle and R times busy.

    python benchmarks/verdicts.py                  # R = 5 idle and 5 busy, every lab, QUICK sizes, this machine's device
    python benchmarks/verdicts.py --quick          # R = 2 (a CI-sized look)
    python benchmarks/verdicts.py --repeats 3 --conditions idle --labs 01 03 --device cuda

Each run executes a lab's solution notebook headless (`helpers.notebooks.run_without_kernel`, the check cells left
out, QUICK sizes), so the comparisons are the very calls the notebooks make; every `bench.compare`, `bench.sweep`
and `bench.paired` appends its verdict to a log ($WORKBOOK_VERDICT_LOG). "busy" keeps every core of this machine
spinning in other processes for the whole run. A comparison is known by its lab, its two labels and which
occurrence of that pair it was in the run. A **flip** is one comparison printing "faster" in one run and "slower"
in another; "no difference" beside either is the interval widening, not a flip. The table lists every comparison
with the verdicts seen and the range of its ratios; the last line is `verdicts: N comparisons, F flips`, and the
exit code is 1 on any flip (2 when a lab failed to run).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from helpers.bench import FASTER, SAME, SLOWER, VERDICT_LOG_ENV  # noqa: E402
from helpers.notebooks import lab_path  # noqa: E402

LABS = ("01", "02", "03", "04", "05", "06", "07")
SPIN = "while True: pass"


def spinners(n: int) -> list[subprocess.Popen]:
    """n processes that keep one core busy each until killed."""
    return [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(n)]


def run_lab(lab: str, device: str, log: Path, scratch: Path, timeout: float) -> tuple[int, str]:
    """One headless run of the lab's solution (QUICK, no check cells), its verdicts appended to `log`."""
    env = {**os.environ, "WORKBOOK_DEVICE": device, "WORKBOOK_QUICK": "1", "WORKBOOK_OUT_DIR": str(scratch / lab),
           VERDICT_LOG_ENV: str(log), "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    code = ("import sys; from pathlib import Path; from helpers.notebooks import run_without_kernel; "
            "sys.exit(run_without_kernel(Path(sys.argv[1]), skip_tags=('check',)))")
    try:
        r = subprocess.run([sys.executable, "-c", code, str(lab_path(lab, "solutions", ROOT))], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=timeout)
        return r.returncode, "\n".join((r.stdout + r.stderr).strip().splitlines()[-12:])
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {timeout:.0f} s"


def read_log(lab: str, log: Path) -> list[tuple[tuple, dict]]:
    """((lab, a, b, occurrence), entry) for each verdict a run logged, in order."""
    seen: dict[tuple, int] = defaultdict(int)
    out = []
    for line in log.read_text().splitlines() if log.exists() else []:
        e = json.loads(line)
        pair = (lab, e["a"], e["b"])
        seen[pair] += 1
        out.append(((*pair, seen[pair]), e))
    return out


def report(results: dict[tuple, dict[str, list[dict]]], conditions: list[str]) -> tuple[str, int]:
    """The per-comparison table and the number of flips."""
    short = {FASTER: "faster", SLOWER: "slower", SAME: "same"}
    lines = [f"| lab | comparison | {' | '.join(conditions)} | ratios (B's speedup) | flip |",
             "|---|---|" + "---|" * len(conditions) + "---|---|"]
    flips = 0
    for key in sorted(results):
        lab, a, b, k = key
        by_cond = results[key]
        cells = []
        for cond in conditions:
            counts = defaultdict(int)
            for e in by_cond.get(cond, []):
                counts[e["verdict"]] += 1
            cells.append(", ".join(f"{short[v]}×{counts[v]}" for v in (FASTER, SAME, SLOWER) if counts[v]) or "–")
        every = [e for es in by_cond.values() for e in es]
        ratios = [e["ratio"] for e in every]
        flip = any(e["verdict"] == FASTER for e in every) and any(e["verdict"] == SLOWER for e in every)
        flips += flip
        lines.append(f"| {lab} | {b} vs {a}{f' #{k}' if k > 1 else ''} | {' | '.join(cells)} | "
                     f"{min(ratios):.3g}–{max(ratios):.3g}× | {'FLIP' if flip else ''} |")
    return "\n".join(lines), flips


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="example: python benchmarks/verdicts.py --repeats 5")
    p.add_argument("--repeats", "-r", type=int, default=5, help="runs per lab and condition (default 5)")
    p.add_argument("--quick", action="store_true", help="R = 2: a CI-sized look")
    p.add_argument("--labs", nargs="+", default=list(LABS), choices=LABS)
    p.add_argument("--conditions", nargs="+", default=["idle", "busy"], choices=["idle", "busy"])
    p.add_argument("--device", default="auto", help='"auto" (the GPU when there is one), "cpu" or "cuda"')
    p.add_argument("--timeout", type=float, default=1800, help="seconds per lab run (default 1800)")
    p.add_argument("--json", type=Path, help="write every verdict seen to this file (rewritten after each lab run)")
    p.add_argument("--add", type=Path, nargs="+", default=[], metavar="JSON",
                   help="fold in the verdicts of earlier runs (their --json files): one table across several sittings")
    p.add_argument("--deadline", type=float, help="seconds for the whole benchmark: no lab run starts after it, a run "
                                                  "still going then is stopped (its verdicts so far count; not a failure), "
                                                  "and the table covers what ran")
    args = p.parse_args(argv)
    repeats = 2 if args.quick else args.repeats
    if repeats < 1:
        p.error("--repeats must be at least 1")
    from helpers.env import cpu_count, pick_device

    device = str(pick_device(args.device))
    start = time.perf_counter()
    skipped = cut_short = 0
    results: dict[tuple, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    failed = []
    for earlier in args.add:
        for key, by_cond in json.loads(earlier.read_text()).items():
            lab, a, b, k = key.split("|")
            for cond, entries in by_cond.items():
                results[(lab, a, b, int(k))][cond].extend(entries)
    print(f"verdicts on {device}: labs {' '.join(args.labs)}, {repeats} run(s) per lab and condition, "
          f"conditions {' '.join(args.conditions)} ({cpu_count()} cores)", flush=True)
    with tempfile.TemporaryDirectory(prefix="verdicts_") as tmp:
        scratch = Path(tmp)
        for cond in args.conditions:
            for rep in range(repeats):
                for lab in args.labs:
                    left = None if args.deadline is None else args.deadline - (time.perf_counter() - start)
                    if left is not None and left < 10:
                        skipped += 1
                        continue
                    log = scratch / f"{cond}-{rep}-{lab}.jsonl"
                    spin = spinners(cpu_count()) if cond == "busy" else []
                    t0 = time.perf_counter()
                    by_deadline = left is not None and left < args.timeout     # this run's limit is the deadline's
                    try:
                        rc, tail = run_lab(lab, device, log, scratch, args.timeout if left is None else min(args.timeout, left))
                    finally:
                        for s in spin:
                            s.kill()
                            s.wait()
                    got = read_log(lab, log)
                    for key, entry in got:
                        results[key][cond].append(entry)
                    cut = rc == 124 and by_deadline      # stopped by --deadline: its verdicts so far count, no failure
                    print(f"{cond} run {rep + 1}/{repeats} lab {lab}: {len(got)} verdicts in "
                          f"{time.perf_counter() - t0:.0f} s" + ("" if rc == 0 else "  cut short by --deadline" if cut
                                                                 else f"  FAILED (exit {rc})"), flush=True)
                    if cut:
                        cut_short += 1
                    elif rc != 0:
                        failed.append((cond, rep, lab))
                        print("  " + tail.replace("\n", "\n  "), flush=True)
                    if args.json:
                        args.json.write_text(json.dumps({"|".join(map(str, k)): v for k, v in results.items()},
                                                        indent=1))
    conditions = [c for c in ("idle", "busy") if c in args.conditions or any(c in v for v in results.values())]
    table, flips = report(results, conditions)
    print()
    print(table)
    if skipped or cut_short:
        print(f"{skipped} lab run(s) not started and {cut_short} cut short: the --deadline of {args.deadline:.0f} s "
              "had passed", file=sys.stderr)
    if failed:
        print(f"runs that failed: {failed}", file=sys.stderr)
    print(f"verdicts: {len(results)} comparisons, {flips} flips")
    return 1 if flips else 2 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
