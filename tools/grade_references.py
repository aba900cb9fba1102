"""Grade every lab's reference solution and untouched lab with `workbook grade`, and print one table.

    python3 tools/grade_references.py --device cuda --device cpu [--labs 01 02] [--parallel 3] [--out DIR]

For each lab and device: a folder with the solution and the untouched lab is graded by `workbook grade` in a
process of its own (labs run side by side with --parallel), and the table gives the scores, statuses, seconds and
the command's exit code. The grader works on a machine when every solution scores full marks, every untouched lab
scores 0 with status ok, and every exit code is 0. Used to prove the grader on a GPU machine and on other torch
versions; prints JSON with --json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from helpers.grading import gradebook  # noqa: E402


def grade(lab: str, device: str, work: Path, jobs: int, warm: bool = True) -> dict:
    """One `workbook grade` of (solution, untouched) for a lab on a device."""
    subs, out = work / f"{lab}-{device}" / "subs", work / f"{lab}-{device}" / "grades"
    subs.mkdir(parents=True)
    shutil.copy(next((ROOT / "solutions").glob(f"{lab}_*.ipynb")), subs / "solution.ipynb")
    shutil.copy(next((ROOT / "labs").glob(f"{lab}_*.ipynb")), subs / "untouched.ipynb")
    cmd = [sys.executable, "-m", "helpers.cli", "grade", "--lab", lab, str(subs), "--out", str(out), "--device", device,
           "--jobs", str(jobs), "--quiet", *([] if warm else ["--no-warm"])]
    start = time.monotonic()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    row = {"lab": lab, "device": device, "exit": done.returncode, "seconds": round(time.monotonic() - start)}
    try:
        grades = gradebook.by_submission(json.loads((out / "grades.json").read_text()))
    except (OSError, ValueError):
        return {**row, "error": (done.stdout + done.stderr)[-2000:]}
    for name in ("solution", "untouched"):
        g = grades.get(name, {})
        row[name] = f"{g.get('total', '?'):g}/{g.get('max_total', '?'):g} {g.get('status', '?')}" if g else "missing"
        row[f"{name}_failed"] = {k: c["message"][:300] for k, c in g.get("checks", {}).items()
                                 if (c["status"] != "passed") == (name == "solution")}
    sol, lab_ = grades.get("solution", {}), grades.get("untouched", {})
    row["ok"] = (done.returncode == 0 and sol.get("total") == sol.get("max_total") and sol.get("status") == "ok"
                 and lab_.get("total") == 0 and lab_.get("status") == "ok")
    return row


def print_row(r: dict) -> None:
    print(f"{r['lab']:<4} {r['device']:<7} {r.get('solution', '-'):<14} {r.get('untouched', '-'):<14} "
          f"{r['seconds']:>8} {r['exit']:>5}  {'yes' if r.get('ok') else 'NO'}", flush=True)
    for name in ("solution_failed", "untouched_failed"):
        for check, message in r.get(name, {}).items():
            print(f"      {name.split('_')[0]} {check}: {message}", flush=True)
    if "error" in r:
        print("      " + r["error"].replace("\n", "\n      "), flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", action="append", help="cpu or cuda (repeat for both); default cpu")
    ap.add_argument("--labs", nargs="*", default=None, help="lab numbers (default: every lab)")
    ap.add_argument("--jobs", type=int, default=2, help="--jobs of each workbook grade (default 2)")
    ap.add_argument("--parallel", type=int, default=1, help="how many gradings run at once (default 1)")
    ap.add_argument("--out", type=Path, default=None, help="keep the gradebooks here")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows as JSON (rewritten as each finishes)")
    ap.add_argument("--no-warm", action="store_true", help="skip each batch's warm-up (grading the reference solution first)")
    args = ap.parse_args()
    labs = args.labs or sorted(p.name[:2] for p in (ROOT / "labs").glob("[0-9][0-9]_*.ipynb"))
    work = args.out or Path(tempfile.mkdtemp(prefix="grade-references-"))
    work.mkdir(parents=True, exist_ok=True)
    todo = [(lab, dev) for dev in (args.device or ["cpu"]) for lab in labs]
    import torch

    print(f"torch {torch.__version__}, python {sys.version.split()[0]}, "
          f"{torch.cuda.get_device_name() if torch.cuda.is_available() else 'no GPU'}", flush=True)
    print(f"{'lab':<4} {'device':<7} {'solution':<14} {'untouched':<14} {'seconds':>8} {'exit':>5}  ok", flush=True)
    rows = []
    with ThreadPoolExecutor(max_workers=max(1, args.parallel)) as pool:
        futures = [pool.submit(grade, lab, dev, work, args.jobs, not args.no_warm) for lab, dev in todo]
        for fut in as_completed(futures):
            r = fut.result()
            rows.append(r)
            print_row(r)
            if args.json:
                args.json.write_text(json.dumps(rows, indent=2))
    return 0 if all(r.get("ok") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
