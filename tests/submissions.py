"""Submissions the grading tests are made of: the solution, the untouched lab, partial and hostile notebooks.

Each maker writes one file into a folder and returns its path. They are built
from the real lab and solution notebooks, so they follow every change to Lab 04.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

from helpers import notebooks

ROOT = Path(__file__).resolve().parents[1]
LAB = ROOT / "labs" / "04_inductor_output.ipynb"
SOLUTION = ROOT / "solutions" / "04_inductor_output.ipynb"


def lab() -> nbformat.NotebookNode:
    return notebooks.read(LAB)


def solution() -> nbformat.NotebookNode:
    return notebooks.read(SOLUTION)


def cell(nb, cid: str):
    return next(c for c in nb.cells if c.id == cid)


def with_solved(cell_ids: list[str]) -> nbformat.NotebookNode:
    """The lab with only these exercise cells taken from the solution."""
    nb, sol = lab(), solution()
    for cid in cell_ids:
        cell(nb, cid).source = cell(sol, cid).source
    return nb


def add_cell(nb, source: str, after: str) -> nbformat.NotebookNode:
    """A learner-added code cell after the cell `after`."""
    new = nbformat.v4.new_code_cell(source)
    ids = [c.id for c in nb.cells]
    nb.cells.insert(ids.index(after) + 1, new)
    return nb


def write(nb, folder: Path, name: str) -> Path:
    path = folder / f"{name}.ipynb"
    notebooks.write(nb, path)
    return path


def solution_file(folder: Path, name: str = "solution") -> Path:
    path = folder / f"{name}.ipynb"
    shutil.copy(SOLUTION, path)
    return path


def untouched_file(folder: Path, name: str = "untouched") -> Path:
    path = folder / f"{name}.ipynb"
    shutil.copy(LAB, path)
    return path


ALTERNATIVE = {
    # The same behaviour, written differently from solutions/: checks must test behaviour, not our code.
    "ex-a": "def compile_head(model):\n    compiled = torch.compile(model)\n    return compiled\n",
    "ex-b": (
        "def dump_inductor_debug(fn, args, debug_root):\n"
        "    import os, glob\n"
        "    torch._dynamo.reset()\n"
        "    old = (inductor_config.trace.enabled, inductor_config.fx_graph_cache, torch._dynamo.config.debug_dir_root)\n"
        "    inductor_config.trace.enabled, inductor_config.fx_graph_cache = True, False\n"
        "    torch._dynamo.config.debug_dir_root = str(debug_root)\n"
        "    pattern = os.path.join(str(debug_root), '**', 'ir_post_fusion.txt')\n"
        "    before = set(glob.glob(pattern, recursive=True))   # other runs' dumps, however new\n"
        "    try:\n"
        "        with torch.no_grad():\n"
        "            torch.compile(fn, backend='inductor')(*args)\n"
        "    finally:\n"
        "        inductor_config.trace.enabled, inductor_config.fx_graph_cache, torch._dynamo.config.debug_dir_root = old\n"
        "    found = sorted(set(glob.glob(pattern, recursive=True)) - before, key=os.path.getmtime)\n"
        "    return Path(found[-1]).parent\n"
    ),
    "ex-c": (
        "def _is_softmax(k):\n"
        "    return len(k.reductions) > 0 and any(op in ('exp', '_softmax', 'prepare_softmax_online') for op in k.aten_ops)\n\n"
        "def find_softmax_kernel(kernels):\n"
        "    return next(k for k in kernels if _is_softmax(k))\n\n"
        "def save_kernel(kernel, out_dir):\n"
        "    suffix = {'cpp': '.cpp'}.get(kernel.kind, '.py')\n"
        "    p = Path(out_dir, 'kernel' + suffix)\n"
        "    with open(p, 'w') as f:\n"
        "        f.write(kernel.source)\n"
        "    return p\n"
    ),
    "ex-e": (
        "def measure_sweep(model, compiled, batch_sizes, d=64):\n"
        "    out = []\n"
        "    for b in batch_sizes:\n"
        "        inp = torch.randn(b, d, device=device)\n"
        "        with torch.no_grad():\n"
        "            cmp = bench.compare(model, compiled, inp)\n"
        "        e, c = cmp.a.median_ms, cmp.b.median_ms\n"
        "        out.append(dict(batch=b, eager_ms=e, compiled_ms=c, speedup=e / c, verdict=cmp.verdict, ci=cmp.ci))\n"
        "    return out\n\n"
        "def find_crossover(rows):\n"
        "    rows = sorted(rows, key=lambda r: r['batch'])\n"
        "    for i, r in enumerate(rows):\n"
        "        if all(s['verdict'] == 'faster' for s in rows[i:]):\n"
        "            return r['batch']\n"
        "    return None\n"
    ),
    "ex-s": (
        "def scheduler_nodes(ir_text):\n"
        "    lines = ir_text.split('\\n')\n"
        "    out = []\n"
        "    for i, line in enumerate(lines):\n"
        "        m = re.match(r'(\\w+): (\\w*SchedulerNode)\\(', line)\n"
        "        nested = i > 0 and re.search(r'\\.snodes\\[\\d+\\] =\\s*$', lines[i - 1])\n"
        "        if m and not nested:\n"
        "            out.append(m.group(1))\n"
        "    return out\n"
    ),
}


def alternative() -> nbformat.NotebookNode:
    """A correct solution written differently: other code for every function exercise, our written answers."""
    nb = solution()
    for cid, source in ALTERNATIVE.items():
        cell(nb, cid).source = source
    return nb
