"""Run every lab's solution on this machine's GPU and record what the labs kept: helpers/gpu_figures/<gpu>.json.

    python tools/record_gpu_figures.py                  # all seven labs, full sizes, on the GPU found here
    python tools/record_gpu_figures.py --labs 03 06     # some labs; the other labs' figures in the file stay
    python tools/record_gpu_figures.py --out DIR        # write the GPU's file under DIR instead (then copy it in)
    python tools/record_gpu_figures.py --kept experiments/figures.json   # what a benchmark kept (--keep): no lab run

Each lab runs headless in its own process, without Jupyter (`helpers.notebooks.run_without_kernel`), with
WORKBOOK_DEVICE=cuda and full sizes, its figures going to a scratch OUT_DIR. Every figure a cell passed to
`helpers.figures.keep` is merged into the GPU model's file with the GPU name, torch, triton, CUDA, driver and the
date of the run. A lab that fails part-way still records what it kept before the failure, and the tool says which
lab failed and where; it exits 1 then. The labs' recorded tables (`figures.show`) read these files.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from helpers import figures  # noqa: E402
from helpers.notebooks import lab_path  # noqa: E402

LABS = ("01", "02", "03", "04", "05", "06", "07")


def run_lab(lab: str, scratch: Path, quick: bool, timeout: float) -> tuple[Path, int, str, float]:
    """Run one solution notebook on the GPU; (its figures.json, exit code, last lines of its output, seconds)."""
    out_dir = scratch / lab
    out_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "WORKBOOK_DEVICE": "cuda", "WORKBOOK_QUICK": "1" if quick else "0",
           "WORKBOOK_OUT_DIR": str(out_dir), "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    code = ("import sys; from pathlib import Path; from helpers.notebooks import run_without_kernel; "
            "sys.exit(run_without_kernel(Path(sys.argv[1])))")
    t0 = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, "-c", code, str(lab_path(lab, "solutions", ROOT))], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=timeout)
        rc, text = r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        rc, text = 124, (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
    (scratch / f"{lab}.log").write_text(text)
    return out_dir / figures.KEPT_FILE, rc, "\n".join(text.strip().splitlines()[-15:]), time.perf_counter() - t0


def record_kept(files: list[Path], out: Path) -> int:
    """Record the GPU figures of figures.json files a benchmark kept; 2 when a file is missing or holds none."""
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        print(f"no such file: {', '.join(missing)} (a benchmark run with --keep KEY writes WORKBOOK_OUT_DIR/"
              f"{figures.KEPT_FILE}, experiments/ by default)", file=sys.stderr)
        return 2
    written = figures.record(files, out)
    if not written:
        print("these files hold no GPU figure (figures kept on a CPU are every learner's own and are not recorded)",
              file=sys.stderr)
        return 2
    for path in written:
        print(f"recorded → {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="example: python tools/record_gpu_figures.py --labs 03 07",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--labs", nargs="+", default=list(LABS), choices=LABS, help="labs to run (default: all)")
    p.add_argument("--out", type=Path, default=figures.FIGURES_DIR, help="folder of the per-GPU files")
    p.add_argument("--quick", action="store_true", help="QUICK sizes (a try-out: recorded figures are full-size)")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per lab (default 1800)")
    p.add_argument("--logs", type=Path, help="keep each lab's output here")
    p.add_argument("--deadline", type=float, help="seconds for the whole run: each lab gets what is left (its "
                   "figures up to then are recorded), and no lab starts with under a minute left")
    p.add_argument("--kept", nargs="+", type=Path, metavar="FIGURES_JSON",
                   help="record the GPU figures these files hold (a benchmark's --keep) and run no lab")
    args = p.parse_args(argv)
    if args.kept:
        return record_kept(args.kept, args.out)

    import torch

    if not torch.cuda.is_available():
        print("no CUDA GPU here: this tool records GPU figures; on a CPU every lab shows your own figures", file=sys.stderr)
        return 2
    print(f"recording on {torch.cuda.get_device_name(0)} (torch {torch.__version__}) into {args.out}", flush=True)
    failed, start = [], time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gpu_figures_") as tmp:
        scratch = Path(args.logs or tmp)
        scratch.mkdir(parents=True, exist_ok=True)
        for lab in args.labs:
            left = args.timeout if args.deadline is None else args.deadline - (time.perf_counter() - start)
            if left < 60:
                print(f"lab {lab}: not started ({left:.0f} s left of the deadline)", flush=True)
                failed.append(lab)
                continue
            kept, rc, tail, seconds = run_lab(lab, scratch, args.quick, min(args.timeout, left))
            n = len(json.loads(kept.read_text())) if kept.exists() else 0
            written = figures.record([kept], args.out) if kept.exists() else []
            print(f"lab {lab}: {'ok' if rc == 0 else f'FAILED (exit {rc})'} in {seconds:.0f} s, {n} figure(s) kept"
                  + (f" → {', '.join(str(w) for w in written)}" if written else ""), flush=True)
            if rc != 0:
                failed.append(lab)
                print("  " + tail.replace("\n", "\n  "), flush=True)
    if failed:
        print(f"labs that failed: {' '.join(failed)} (their figures up to the failure were recorded)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
