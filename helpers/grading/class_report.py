"""The class report: grades/summary.html and grades/summary.png, written after every batch and every merge.

What an instructor looks at first: how the scores spread, which checks almost nobody passes (a broken check
or an unclear exercise, more often than a weak class), how the notebooks ended (ok, timeout, crashed, memory,
invalid, error), and how long each took to grade.
"""

from __future__ import annotations

import base64
import html
import io
import statistics
from collections import Counter
from pathlib import Path

from helpers.grading.gradebook import STATUS_WORDS, SubmissionResult, write_atomic

RARELY_PASSED = 0.25   # a check passed by fewer than this share of the gradable submissions is flagged


def pass_rates(results: list[SubmissionResult], check_names: list[str]) -> dict[str, tuple[int, int]]:
    """{check: (passed, out of)} over the submissions whose notebook ran (status ok)."""
    ran = [r for r in results if r.status == "ok"]
    passed = Counter(c.name for r in ran for c in r.checks if c.passed)
    return {name: (passed[name], len(ran)) for name in check_names}


def flagged(rates: dict[str, tuple[int, int]]) -> list[str]:
    """Checks almost nobody passes (and at least one submission ran)."""
    return [name for name, (ok, n) in rates.items() if n and ok / n < RARELY_PASSED]


def summary_figure(results: list[SubmissionResult], check_names: list[str], lab: str):
    """Four panels: score distribution, pass rate per check, statuses, grading time per submission."""
    from matplotlib.ticker import MaxNLocator

    from helpers.plots import LabFigure

    fig = LabFigure(figsize=(12, 8), layout="constrained")
    axes = fig.subplots(2, 2)
    top = max((r.max_total for r in results), default=0) or 1
    ax = axes[0][0]
    edges = [i - 0.5 for i in range(int(top) + 2)] if top <= 60 else 20   # one bar per whole point
    ax.hist([r.total for r in results], bins=edges, color="#4c72b0", rwidth=0.9)
    ax.set_xlabel(f"score (of {top:g})")
    ax.set_ylabel("submissions")
    ax.set_title("score distribution")

    rates = pass_rates(results, check_names)
    rare = set(flagged(rates))
    ax = axes[0][1]
    shares = [ok / n if n else 0 for ok, n in rates.values()]
    ax.barh(range(len(rates)), shares, color=["#c44e52" if k in rare else "#55a868" for k in rates])
    ax.set_yticks(range(len(rates)), list(rates), fontsize=8)
    ax.invert_yaxis()
    for i, (name, (ok, n)) in enumerate(rates.items()):
        ax.text(0.01, i, f"{ok}/{n}", va="center", fontsize=8, color="#a00" if name in rare else "black")
    ax.set_xlim(0, 1)
    ax.axvline(RARELY_PASSED, color="#c44e52", lw=1, ls="--")
    ax.set_xlabel("share of the notebooks that ran which pass it (red: almost nobody)")
    ax.set_title("pass rate per check")

    ax = axes[1][0]
    counts = Counter(r.status for r in results)
    statuses = [s for s in STATUS_WORDS if counts[s]] + sorted(set(counts) - set(STATUS_WORDS))
    ax.bar(statuses, [counts[s] for s in statuses], color="#8172b2")
    ax.set_ylabel("submissions")
    ax.set_title("how the notebooks ended")

    ax = axes[1][1]
    seconds = sorted(r.seconds for r in results)
    ax.plot(range(1, len(seconds) + 1), seconds, marker="o", ms=3)
    ax.set_xlabel("submissions, fastest first")
    ax.set_ylabel("seconds to grade")
    ax.set_title("grading time per submission")
    for ax in (axes[0][0], axes[1][0]):
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.suptitle(f"Lab {lab}: {len(results)} submissions", fontsize=12)
    return fig


def summary_html(results: list[SubmissionResult], check_names: list[str], titles: dict[str, str], lab: str,
                 png: bytes) -> str:
    """A self-contained page: the figure, the numbers behind it, and the checks to look at first."""
    rates = pass_rates(results, check_names)
    rare = flagged(rates)
    scores = [r.total for r in results]
    top = max((r.max_total for r in results), default=0)
    counts = Counter(r.status for r in results)
    esc = html.escape
    parts = [f"<h1>Lab {esc(lab)}: class report</h1>",
             f"<p>{len(results)} submissions; score median {statistics.median(scores) if scores else 0:g} / {top:g}, "
             f"mean {statistics.fmean(scores) if scores else 0:.1f}; grading time median "
             f"{statistics.median([r.seconds for r in results]) if results else 0:.0f} s, total "
             f"{sum(r.seconds for r in results) / 60:.1f} min.</p>"]
    if rare:
        parts.append("<p class='flag'>Almost nobody passes " + ", ".join(f"<code>{esc(n)}</code>" for n in rare)
                     + f" (under {RARELY_PASSED:.0%} of the notebooks that ran): read a few feedback files for it; a "
                     "check that fails for everyone is more often a broken check or an unclear exercise than a weak "
                     "class.</p>")
    parts.append(f"<img alt='class summary' src='data:image/png;base64,{base64.b64encode(png).decode()}'>")
    parts.append("<h2>Checks</h2><table><tr><th>check</th><th>what</th><th>passed</th><th>of</th><th>share</th></tr>")
    for name, (ok, n) in rates.items():
        cls = " class='flag'" if name in rare else ""
        parts.append(f"<tr{cls}><td><code>{esc(name)}</code></td><td>{esc(titles.get(name, ''))}</td><td>{ok}</td>"
                     f"<td>{n}</td><td>{(ok / n if n else 0):.0%}</td></tr>")
    parts.append("</table><h2>How the notebooks ended</h2><table><tr><th>status</th><th>meaning</th><th>submissions</th></tr>")
    parts += [f"<tr><td>{esc(s)}</td><td>{esc(STATUS_WORDS.get(s, ''))}</td><td>{c}</td></tr>" for s, c in counts.most_common()]
    parts.append("</table><h2>Submissions</h2><table><tr><th>submission</th><th>key</th><th>status</th><th>score</th>"
                 "<th>seconds</th><th>feedback</th></tr>")
    for r in sorted(results, key=lambda r: (r.total, r.submission)):
        parts.append(f"<tr><td>{esc(r.submission)}</td><td>{esc(r.key)}</td><td>{esc(r.status)}</td>"
                     f"<td>{r.total:g} / {r.max_total:g}</td><td>{r.seconds:.0f}</td>"
                     f"<td><a href='feedback/{esc(r.key)}.html'>feedback</a></td></tr>")
    parts.append("</table>")
    style = ("body{font-family:sans-serif;max-width:70em;margin:2em auto}td,th{border:1px solid #ccc;padding:.2em .5em}"
             "table{border-collapse:collapse}img{max-width:100%}.flag{color:#a00}")
    return (f"<!doctype html><meta charset='utf-8'><title>Lab {esc(lab)} class report</title><style>{style}</style>\n"
            + "\n".join(parts) + "\n")


def write_class_report(out: Path, results: list[SubmissionResult], check_names: list[str], titles: dict[str, str],
                       lab: str) -> Path:
    """Write summary.png and summary.html into the gradebook folder; returns the HTML's path."""
    fig = summary_figure(results, check_names, lab)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    png = buf.getvalue()
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / ".summary.png.tmp"
    tmp.write_bytes(png)
    tmp.replace(out / "summary.png")
    write_atomic(out / "summary.html", summary_html(results, check_names, titles, lab, png))
    return out / "summary.html"
