"""Two saved llm-bench runs side by side, a verdict per metric (`workbook llm-bench compare A.json B.json`).

Two files are two runs taken at different times, not rounds of one run, so there are no pairs: each (backend,
workload) found in both is compared from every run's own number, TTFT, TPOT and e2e, with bench.unpaired
(Hodges–Lehmann ratio of B to A with its Mann–Whitney 95 % interval; words as bench.Comparison's). Load that
differed between the two runs moves such a verdict, not only its width: the output says so, with each file's load.
Files of different models or of different shapes under one workload name are refused.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from helpers import bench

METRICS = {"ttft_s": "TTFT", "tpot_s": "TPOT", "e2e_s": "e2e"}
METHOD = ("unpaired: the two files were timed at different times, so each verdict compares every run of A with "
          "every run of B (Hodges–Lehmann ratio, Mann–Whitney 95 % interval); load that differed between the two runs "
          "moves it. For a verdict load cannot move, run both backends in one `llm-bench` run (interleaved rounds).")


def load(path: str) -> dict:
    """A result file as a dict; ValueError in one line when it is not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: cannot read it as JSON ({e})") from None
    if not isinstance(data, dict) or "results" not in data or "meta" not in data:
        raise ValueError(f"{path}: not an llm-bench result file (no 'meta' and 'results')")
    if any("runs" not in r for r in data["results"]):
        raise ValueError(f"{path}: its results keep no per-run numbers ('runs'); run the benchmark again to compare")
    return data


def model_of(data: dict) -> str:
    """The model a file measured: its config, else what the backends reported (a transformers model's path)."""
    if data["meta"].get("model"):
        return json.dumps(data["meta"]["model"], sort_keys=True)
    return ", ".join(sorted({str(r.get("backend_info", {}).get("model")) for r in data["results"]}))


def matched(a: dict, b: dict, paths: tuple[str, str]) -> list[tuple[dict, dict]]:
    """The (A result, B result) pairs of one backend on one workload; ValueError for a model or shape mismatch."""
    if model_of(a) != model_of(b):
        raise ValueError(f"{paths[0]} and {paths[1]} measured different models; compare runs of one model")
    by_key = {(r["backend"], r["workload"]["name"]): r for r in b["results"]}
    pairs = []
    for r in a["results"]:
        other = by_key.get((r["backend"], r["workload"]["name"]))
        if other is None:
            continue
        if other["workload"] != r["workload"]:
            raise ValueError(f"workload {r['workload']['name']!r} has different shapes in the two files "
                             f"({shape(r)} and {shape(other)}); compare runs of one shape")
        pairs.append((r, other))
    if not pairs:
        have = lambda d: ", ".join(f"{r['backend']}/{r['workload']['name']}" for r in d["results"]) or "nothing"
        raise ValueError(f"no backend ran the same workload in both files: A has {have(a)}; B has {have(b)}")
    return pairs


def shape(result: dict) -> str:
    w = result["workload"]
    return f"{w['prompt_tokens']}+{w['new_tokens']}×{w['batch']}"


def samples_ms(result: dict, key: str) -> list[float]:
    return [r[key] * 1e3 for r in result["runs"] if r.get(key) is not None and math.isfinite(r[key])]


def header(data: dict, label: str, path: str) -> str:
    meta = data["meta"]
    load = meta.get("other_load")
    busy = f"; ⚠ other programs used {load:.1f} cores meanwhile" if load is not None and load >= bench.LOAD_WARN else ""
    return (f"{label}: {path} ({meta.get('created', '?')}, {meta.get('device_label', '?')}, {meta.get('dtype', '?')}, "
            f"{meta.get('repeats', '?')} repeats{busy})")


def report(a: dict, b: dict, paths: tuple[str, str]) -> str:
    """The comparison as text: both files' settings, the method, then one line per metric with its verdict."""
    rows, verdicts = [], []
    pairs = matched(a, b, paths)
    loads = [d["meta"].get("other_load") for d in (a, b)]
    moved = (f" ⚠ other programs' load differed ({loads[0]:.1f} and {loads[1]:.1f} cores): it may be the load, not the "
             "backend" if None not in loads and abs(loads[0] - loads[1]) >= bench.LOAD_WARN else "")
    wide = max(len(ra["backend"]) for ra, _ in pairs) + 2, max(len(ra["workload"]["name"]) for ra, _ in pairs) + 2
    for ra, rb in pairs:
        for key, metric in METRICS.items():
            xs, ys = samples_ms(ra, key), samples_ms(rb, key)
            if not xs or not ys:
                continue
            c = bench.unpaired(xs, ys, labels=("A", "B"), method=f"{metric} of separate runs")
            rows.append({"backend": ra["backend"], "workload": ra["workload"]["name"], "P+N×B": shape(ra),
                         "metric": metric, "A_median_ms": c.a.median_ms, "B_median_ms": c.b.median_ms,
                         "B_vs_A": c.verdict, "runs": f"{len(xs)}/{len(ys)}"})
            verdicts.append(f"{ra['backend']:<{wide[0]}}{ra['workload']['name']:<{wide[1]}}{metric:<6}{c.sentence()}"
                            + (moved if c.verdict != bench.SAME else ""))
    table = bench.table(rows, columns=tuple(rows[0])) if rows else "(no metric has numbers in both files)"
    return "\n".join([header(a, "A", paths[0]), header(b, "B", paths[1]), METHOD, "", table, "", *verdicts])
