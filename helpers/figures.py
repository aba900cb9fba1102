"""GPU figures as data: what the labs measured on named GPUs, one JSON file per GPU model, shown beside your own.

keep(key, value)     a lab cell notes a figure it measured: yours, in OUT_DIR/figures.json (and the recorder's source)
recorded(key)        that figure from every file in helpers/gpu_figures/, each with the machine it came from
show(key, ...)       a table of it: every recorded GPU, labelled (GPU, torch, triton, CUDA, date), and yours beside
                     them when this run kept it, the recorded GPU of your model first
per_gpu(key, fmt)    one line per recorded GPU, for conclusions that differ between GPUs

`tools/record_gpu_figures.py` runs every lab's solution on the GPU it finds and writes
helpers/gpu_figures/<gpu>.json from what the labs kept. No figure from a GPU is typed into a lab's text: the text
says what holds on every GPU, and the tables come from here. Values are plain JSON: numbers, strings, a spread
{"median", "q25", "q75"}, a comparison (bench.Comparison.to_dict()), or lists and dicts of those (rows).
"""

from __future__ import annotations

import datetime
import json
import math
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterable

FIGURES_DIR = Path(__file__).resolve().parent / "gpu_figures"
KEPT_FILE = "figures.json"  # in the lab's OUT_DIR

_KEPT: dict[str, dict] = {}  # this process's own figures: key -> {"value", "provenance"}


# -----------------------------------------------------------------------------
# provenance


def slug(gpu: str) -> str:
    """A file name for a GPU model: 'NVIDIA H100 80GB HBM3' -> 'nvidia-h100-80gb-hbm3'."""
    return re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-") or "unknown-gpu"


def provenance(device: Any = None) -> dict:
    """Where a figure comes from: device name, torch, triton, CUDA, driver, Python, date, QUICK or full mode."""
    import torch

    from helpers.env import current_settings, pick_device, versions

    device = torch.device(device) if device is not None else pick_device(current_settings().device)
    v = versions(device)
    driver = None
    if device.type == "cuda":
        try:
            import subprocess

            driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                    capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
        except Exception:
            driver = None
    return {"device": v["device"], "gpu": device.type == "cuda", "torch": v["torch"], "triton": v["triton"],
            "cuda": v["cuda"], "driver": driver, "python": v["python"], "date": datetime.date.today().isoformat(),
            "mode": "QUICK" if current_settings().quick else "full"}


def describe(prov: dict) -> str:
    """'NVIDIA H100 80GB HBM3 · torch 2.11.0+cu130 · triton 3.6.0 · CUDA 13.0 · 2026-11-26'."""
    parts = [prov.get("device", "?"), f"torch {prov.get('torch')}"]
    if prov.get("triton"):
        parts.append(f"triton {prov['triton']}")
    if prov.get("gpu") and prov.get("cuda"):
        parts.append(f"CUDA {prov['cuda']}")
    parts.append(str(prov.get("date", "")))
    if prov.get("mode") == "QUICK":
        parts.append("QUICK sizes")
    return " · ".join(p for p in parts if p)


# -----------------------------------------------------------------------------
# keeping (a lab's cells) and recording (tools/record_gpu_figures.py)


def _plain(value: Any) -> Any:
    """JSON-ready: Comparisons and Timings as dicts, tuples as lists, NaN and infinities as strings."""
    from helpers import bench

    if isinstance(value, bench.Comparison):
        return _plain(value.to_dict())
    if isinstance(value, bench.Timing):
        return {"median": value.median_ms, "q25": value.q25_ms, "q75": value.q75_ms, "unit": "ms", "n": value.n}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if hasattr(value, "item") and callable(value.item):  # a 0-dim tensor or numpy scalar
        return _plain(value.item())
    return value


def keep(key: str, value: Any, device: Any = None) -> None:
    """Note a figure this run measured under `key` ("03.copy_bandwidth"): in memory for show(), and in OUT_DIR.

    A figure that cannot be written (a read-only folder) is still shown; keeping never stops a lab.
    """
    entry = {"value": _plain(value), "provenance": provenance(device)}
    _KEPT[key] = entry
    try:
        from helpers.env import current_settings

        path = Path(current_settings().out_dir) / KEPT_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        kept = json.loads(path.read_text()) if path.exists() else {}
        kept[key] = entry
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(kept, indent=1))
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass


def kept(key: str) -> dict | None:
    """This run's own entry for key ({"value", "provenance"}), or None."""
    return _KEPT.get(key)


def record(kept_files: Iterable[Path], out_dir: Path = FIGURES_DIR) -> list[Path]:
    """Merge labs' figures.json files (from GPU runs) into out_dir/<gpu>.json, one file per GPU model; the paths."""
    by_gpu: dict[str, dict] = {}
    for f in kept_files:
        for key, entry in json.loads(Path(f).read_text()).items():
            prov = entry.get("provenance", {})
            if not prov.get("gpu"):
                continue  # only GPU figures are recorded: CPU figures are every learner's own
            by_gpu.setdefault(prov["device"], {})[key] = entry
    written = []
    for gpu, figures in by_gpu.items():
        path = out_dir / f"{slug(gpu)}.json"
        data = json.loads(path.read_text()) if path.exists() else {"gpu": gpu, "figures": {}}
        data["figures"].update(figures)
        data["figures"] = dict(sorted(data["figures"].items()))
        out_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


def gpu_files(folder: Path = FIGURES_DIR) -> dict[str, dict]:
    """{gpu name: its data} for every recorded GPU."""
    out = {}
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        out[data["gpu"]] = data
    return out


def recorded(key: str, folder: Path = FIGURES_DIR) -> dict[str, dict]:
    """{gpu name: {"value", "provenance"}} for every recorded GPU that has the figure `key`."""
    return {gpu: data["figures"][key] for gpu, data in gpu_files(folder).items() if key in data["figures"]}


# -----------------------------------------------------------------------------
# showing


def fmt(value: Any) -> str:
    """One cell: 12.3, '0.182 (0.181–0.183)' for a spread, '1.23× faster (1.18–1.30)' for a comparison."""
    from helpers.bench import FASTER, RESOLUTION, SLOWER, fmt_ms
    from helpers.bench import fmt_x as _x

    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value != 0 and abs(value) < 1e-3:
            return f"{value:.2g}"          # a loss gap of 7.5e-08, not 0.000000
        return fmt_ms(value) if abs(value) < 1e4 else f"{value:,.0f}"
    if isinstance(value, dict) and "median" in value:
        return f"{fmt_ms(value['median'])} ({fmt_ms(value['q25'])}–{fmt_ms(value['q75'])})"
    if isinstance(value, dict) and "verdict" in value and "ratio" in value:
        low, high = value["ci"]
        r = value["ratio"]
        if value["verdict"] == FASTER:
            return f"{_x(r)}× faster ({_x(low)}–{_x(high)})"
        if value["verdict"] == SLOWER:
            return f"{_x(1 / r)}× slower ({_x(1 / high)}–{_x(1 / low)})"
        if low <= 1 <= high:
            return f"no difference ({_x(low)}–{_x(high)}×)"
        within = f"±{(RESOLUTION - 1) * 100:.0f} %" if value.get("null_ci") is None else "the noise floor"
        return f"no difference: within {within} ({_x(low)}–{_x(high)}×)"   # a measured gap too small to be a verdict
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt(v) for v in value)
    return str(value)


class Shown:
    """Markdown that Jupyter renders as a table and print() writes as text."""

    def __init__(self, text: str):
        self.text = text

    def _repr_markdown_(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


def _sources(key: str, folder: Path) -> list[tuple[str, dict]]:
    """(label, entry) to show: yours first when kept, then the recorded GPU of your model, then the others."""
    rec = recorded(key, folder)
    mine = kept(key)
    order = sorted(rec, key=lambda gpu: (mine is None or gpu != mine["provenance"].get("device"), gpu))
    out = [(f"yours: {mine['provenance'].get('device')}", mine)] if mine else []
    return out + [(gpu, rec[gpu]) for gpu in order]


def _rows(value: Any) -> list[dict]:
    """A figure as rows: a list of dicts as it is, a dict as one row, anything else as {"value": it}."""
    if isinstance(value, list) and all(isinstance(r, dict) for r in value):
        return value
    if isinstance(value, dict):
        return [value]
    return [{"value": value}]


def show(key: str, columns: dict[str, str] | Iterable[str] | None = None, title: str | None = None,
         folder: Path = FIGURES_DIR) -> Shown:
    """The figure `key` from every recorded GPU (and yours, when this run kept it) as one Markdown table.

    columns: {field: header} or field names (default: every field of the first row). Each source's rows carry its
    label in the first column; below the table, what each source ran on.
    """
    sources = _sources(key, folder)
    if not sources:
        return Shown(f"*(no recorded figure `{key}` yet: `python tools/record_gpu_figures.py` on a GPU records it)*")
    if columns is None:
        first = _rows(sources[0][1]["value"])[0]
        columns = {c: c for c in first}
    elif not isinstance(columns, dict):
        columns = {c: c for c in columns}
    head = ["where", *columns.values()]
    lines = [f"**{title}**" if title else "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    notes = []
    for i, (label, entry) in enumerate(sources, 1):
        where = "yours" if label.startswith("yours") else f"{entry['provenance'].get('device')} [{i}]"
        for row in _rows(entry["value"]):
            lines.append("| " + " | ".join([where, *(fmt(row.get(c)) for c in columns)]) + " |")
        notes.append(f"[{i}] {describe(entry['provenance'])}" if not label.startswith("yours")
                     else f"yours: {describe(entry['provenance'])}")
    if any(not label.startswith("yours") for label, _ in sources):
        notes.append(ONE_RUN)
    return Shown("\n".join(line for line in lines if line) + "\n\n" + "; ".join(notes))


# Under every table of recorded figures: a recorded row is one run (measured: Lab 06 part H, full size, twice on the
# same H100 with the same versions, 2026-11-26 and 11-27: default 1.14× (1.14–1.14) and 1.21× (1.17–1.25) eager's speed).
ONE_RUN = ("each recorded row is one run: runs on the same GPU differ by more than one run's interval (two runs of "
           "Lab 06's part H on one H100: compiled 1.14× and 1.21× faster than eager), so compare directions and sizes, "
           "not the last digit")


def per_gpu(key: str, sentence: Callable[[Any], str], folder: Path = FIGURES_DIR) -> Shown:
    """One bullet per source of `key`: its label and sentence(value), for a conclusion stated per GPU."""
    sources = _sources(key, folder)
    if not sources:
        return Shown(f"*(no recorded figure `{key}` yet)*")
    return Shown("\n".join(f"- **{label}** ({describe(e['provenance'])}): {sentence(e['value'])}"
                           for label, e in sources))
