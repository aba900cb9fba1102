"""Interactive explorers for the labs: a kernel explorer (Lab 04), a size sweep (Labs 01 and 03), a
parallelism calculator (Lab 05), a saved-tensor explorer (Lab 06), a token timeline (Lab 07).

Each function returns an `Explorer`. Shown as a cell's last value it is one output with three forms, and
the frontend picks the richest it can draw: the ipywidgets view in JupyterLab, else HTML with a static
matplotlib figure (nbconvert, a graded notebook, GitHub), else text. Headless runs (nbval, papermill)
therefore keep the content, and a machine without ipywidgets gets the static form instead of an error.
Nothing is measured when a control moves: the explorers redraw from numbers already taken.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from matplotlib.figure import Figure

from helpers.bench import fmt_ms, no_difference_words
from helpers.plots import LabFigure

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
COLORS = {"load": "#dbeafe", "store": "#ffedd5", "reduction": "#dcfce7"}  # line backgrounds in the source view
OP_COLOR = "#fde68a"
# How a fused op can be spelled in generated code, besides its own name (amax is a max reduction, ...).
OP_SPELLINGS = {"amax": ("max", "maximum", "max2", "max_propagate_nan"), "relu": ("maximum", "clamp_min"),
                "sum": ("sum", "sum2"), "_softmax": ("exp", "max", "sum"), "div": ("reciprocal",),
                "prepare_softmax_online": ("online_softmax_reduce", "online_softmax_combine"),
                "var_mean": ("welford", "welford_reduce"), "rsqrt": ("rsqrt",), "where": ("where", "blendv")}


def _ipywidgets() -> Any | None:
    """The ipywidgets module, or None where it is missing or broken (the static form is used then)."""
    try:
        import ipywidgets

        return ipywidgets
    except Exception:
        return None


def _png(fig: Figure, dpi: int = 90) -> bytes:
    """The figure as PNG bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


@dataclass
class Explorer:
    """An ipywidgets UI (None without ipywidgets) and its static stand-ins: figure, HTML and text."""

    figure: Figure
    html: str
    text: str
    widget: Any | None = None
    controls: dict[str, Any] = field(default_factory=dict)  # the widgets a learner moves, by name
    view: Any | None = None  # the widget that redraws when a control moves

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """Widget view, HTML with the figure, PNG and text in one output: the frontend shows what it can."""
        png = base64.b64encode(_png(self.figure)).decode()
        data = {"text/plain": self.text, "image/png": png,
                "text/html": f'<img src="data:image/png;base64,{png}" style="max-width:100%">{self.html}'}
        if self.widget is not None:
            view = self.widget._repr_mimebundle_().get(WIDGET_VIEW)
            if view is not None:
                data[WIDGET_VIEW] = view
        return data


def _table(header: list[str], rows: list[list[Any]]) -> str:
    """A small HTML table (numbers right-aligned)."""
    cell = lambda v: fmt_ms(v) if isinstance(v, float) else html.escape(str(v))
    align = lambda v: isinstance(v, (int, float))
    pad = "padding:1px 10px;border-bottom:1px solid #ddd"
    head = "".join(f'<th style="{pad};text-align:left">{html.escape(h)}</th>' for h in header)
    body = "".join("<tr>" + "".join(f'<td style="{pad};text-align:{"right" if align(v) else "left"}">{cell(v)}</td>'
                                    for v in r) + "</tr>" for r in rows)
    return f'<table class="workbook-table" style="border-collapse:collapse;font-size:12px">' \
           f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _image(widgets: Any, fig: Figure) -> Any:
    """An ipywidgets Image holding the figure."""
    return widgets.Image(value=_png(fig), format="png", layout=widgets.Layout(max_width="100%"))


# ---------------------------------------------------------------------------------------------
# kernel explorer (Lab 04)


def _code_label(code: Any) -> str:
    """Where a GeneratedCode was captured: meta.json of a saved dump, else this machine's label."""
    meta_path = Path(code.debug_dir) / "meta.json" if code.debug_dir else None
    if meta_path is not None and meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        parts = [meta.get("device_name") or meta.get("device", "?"), f"torch {str(meta.get('torch', '?')).split('+')[0]}"]
        if meta.get("triton"):
            parts.append(f"triton {meta['triton']}")
        return " · ".join(parts)
    from helpers.env import device_label

    try:
        import torch

        if code.device == "cuda" and not torch.cuda.is_available():
            return "CUDA (captured on another machine)"
    except Exception:
        pass
    return device_label(code.device if code.device in ("cpu", "cuda") else None)


def _kernel_order(code: Any) -> list[Any]:
    """Kernels in launch order, then any that call() never launches."""
    by_name = {k.name: k for k in code.kernels}
    names = list(dict.fromkeys(l.name for l in code.launches if l.name in by_name))
    return [by_name[n] for n in names] + [k for k in code.kernels if k.name not in names]


def line_roles(kernel: Any) -> list[set[str]]:
    """Per source line of a kernel: which of "load", "store", "reduction" it does (Triton or C++)."""
    from helpers.inductor import _REDUCTION_PATTERNS  # the parser's own patterns: highlights agree with Kernel.reductions

    names = {a.buffer for a in [*kernel.loads, *kernel.stores]}
    ptr = r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r"|in_out_ptr\d+|in_ptr\d+|out_ptr\d+)\b"
    reductions = [re.compile(p) for p, _ in _REDUCTION_PATTERNS] + [re.compile(r"vec_reduce_all<")]
    roles = []
    for line in kernel.source.splitlines():
        found = set()
        code = line.split("#", 1)[0] if kernel.kind != "cpp" else line.split("//", 1)[0]
        if re.search(r"\btl\.(store|atomic_\w+)\(", code) or re.search(r"\.store\(\s*" + ptr, code) \
                or re.match(r"\s*" + ptr + r"\s*\[[^\]]*\]\s*=(?!=)", code):
            found.add("store")
        rhs = re.split(r"(?<![=!<>])=(?!=)", code, maxsplit=1)[-1]
        if re.search(r"\btl\.load\(", code) or re.search(r"\bloadu?\(\s*" + ptr, code) \
                or re.search(ptr + r"\s*\[", rhs):
            found.add("load")
        if any(r.search(code) for r in reductions):
            found.add("reduction")
        roles.append(found)
    return roles


def _op_words(kernel: Any) -> list[str]:
    """Words in the source that spell one of the kernel's fused ops."""
    words = set()
    for op in kernel.aten_ops:
        words.add(op)
        words.update(OP_SPELLINGS.get(op, ()))
    return sorted((w for w in words if len(w) > 2), key=len, reverse=True)


def kernel_html(kernel: Any) -> str:
    """One kernel as HTML: kind, fused ops, loads and stores, and the source with those lines highlighted."""
    words = _op_words(kernel)
    op_re = re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b") if words else None
    lines = []
    for i, (line, roles) in enumerate(zip(kernel.source.splitlines(), line_roles(kernel)), 1):
        text = html.escape(line)
        if op_re is not None:
            text = op_re.sub(lambda m: f'<span class="op" style="background:{OP_COLOR}">{m.group(1)}</span>', text)
        role = next((r for r in ("store", "load", "reduction") if r in roles), None)
        style = f' style="background:{COLORS[role]}"' if role else ""
        tag = f'<span style="color:#888">{"/".join(sorted(roles)) or "":>9}</span>' if roles else " " * 9
        lines.append(f'<span class="{role or "plain"}"{style}>{i:>4} {tag} {text}</span>')
    chips = " ".join(f'<code style="background:{OP_COLOR};padding:0 3px">{html.escape(op)}</code>' for op in kernel.aten_ops)
    accesses = _table(["", "buffer", "index"], [["load", a.buffer, a.index] for a in kernel.loads]
                      + [["store", a.buffer, a.index] for a in kernel.stores])
    legend = " ".join(f'<span style="background:{c};padding:0 4px">{r} line</span>' for r, c in COLORS.items())
    return (f"<div><b>{html.escape(kernel.name)}</b> · {html.escape(kernel.kind)} · {html.escape(kernel.device)}<br>"
            f"fused ATen ops ({html.escape(kernel.aten_ops_source)}): {chips or 'none found'} · "
            f"reductions: {html.escape(', '.join(kernel.reductions) or 'none')}</div>{accesses}"
            f"<div style='margin:4px 0'>{legend} <span style='background:{OP_COLOR};padding:0 4px'>a fused op's name</span>"
            f"</div><pre style='max-height:480px;overflow:auto;font-size:11px;line-height:1.35'>{''.join(l + chr(10) for l in lines)}</pre>")


def _kernels_figure(kernels: list[Any], label: str, selected: str | None) -> Figure:
    """Horizontal bars per kernel (launch order): fused ATen ops, loads and stores."""
    fig = LabFigure(figsize=(8, 1.2 + 0.45 * max(1, len(kernels))), layout="constrained")
    ax = fig.add_subplot()
    ys = list(range(len(kernels)))
    for j, (what, counts) in enumerate((("fused ATen ops", [len(k.aten_ops) for k in kernels]),
                                        ("loads", [len(k.loads) for k in kernels]),
                                        ("stores", [len(k.stores) for k in kernels]))):
        ax.barh([y + (j - 1) * 0.27 for y in ys], counts, height=0.27, label=what, color=f"C{j}")
    names = [(k.name if len(k.name) <= 48 else k.name[:45] + "…") + f"  [{k.kind}]" for k in kernels]
    ax.set_yticks(ys, names, fontsize=8)
    for tick, k in zip(ax.get_yticklabels(), kernels):
        tick.set_fontweight("bold" if k.name == selected else "normal")
    ax.invert_yaxis()
    ax.set_xlabel("count per kernel (fused ATen ops; distinct loads and stores of global buffers)", fontsize=9)
    ax.set_title(f"Kernels Inductor generated, in launch order\n{label}", fontsize=11)
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


MODULE = "__module__"  # the dropdown entry for the whole output code


def _call_function(source: str) -> str:
    """The `def call(...)` function of the output code (what runs on every call), or '' if there is none."""
    lines = source.splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(r"\s*def call\(", line)), None)
    if start is None:
        return ""
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = next((j for j in range(start + 1, len(lines))
                if lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) <= indent), len(lines))
    return "\n".join(line[indent:] for line in lines[start:end]).rstrip()


def _highlight_module(source: str, launches: set[str]) -> str:
    """Output code as HTML lines: launches in orange, allocations and kernel definitions in blue."""
    lines = []
    for i, line in enumerate(source.splitlines(), 1):
        text = html.escape(line)
        if line.strip() in launches:
            text = f'<span class="launch" style="background:{COLORS["store"]}">{text}</span>'
        elif re.search(r"\bempty_strided\w*\(|= async_compile\.\w+\(", line):
            text = f'<span class="alloc" style="background:{COLORS["load"]}">{text}</span>'
        lines.append(f"{i:>4} {text}")
    return "\n".join(lines)


def module_html(code: Any) -> str:
    """The whole output code as HTML: launch order, call() with its allocations and launches, then every line."""
    launches = {l.line.strip() for l in code.launches}
    legend = (f'<span style="background:{COLORS["store"]};padding:0 4px">a launch</span> '
              f'<span style="background:{COLORS["load"]};padding:0 4px">a buffer allocated or a kernel defined</span>')
    pre = "<pre style='max-height:480px;overflow:auto;font-size:11px;line-height:1.35'>"
    return (f"<div><b>output_code.py</b>: the Python module Inductor wrote. <code>call()</code> runs, in order:</div>"
            f"<pre style='font-size:11px'>{html.escape(code.summary())}</pre><div>{legend}</div>"
            f"{pre}{_highlight_module(_call_function(code.output_code), launches)}</pre>"
            f"<details><summary>all of output_code.py ({len(code.output_code.splitlines())} lines)</summary>"
            f"{pre}{_highlight_module(code.output_code, launches)}</pre></details>")


def kernel_explorer(code: Any, device_label: str | None = None) -> Explorer:
    """Pick a kernel of a helpers.inductor.GeneratedCode and read its source, fused ops, loads and stores highlighted."""
    kernels = _kernel_order(code)
    label = device_label or _code_label(code)
    if not kernels:
        fig = _kernels_figure([], label, None)
        return Explorer(fig, module_html(code), "no generated kernels (everything ran as library calls)")
    first = max(kernels, key=lambda k: (len(k.aten_ops), bool(k.reductions)))
    fig = _kernels_figure(kernels, label, first.name)
    explorer = Explorer(fig, kernel_html(first), code.summary())
    widgets = _ipywidgets()
    if widgets is None:
        return explorer
    by_name = {k.name: k for k in kernels}
    options = [(f"{k.name} ({k.kind}, {len(k.aten_ops)} ops)", k.name) for k in kernels]
    pick = widgets.Dropdown(options=options + [("output_code.py: the whole module, call() and its launches", MODULE)],
                            value=first.name, description="kernel", layout=widgets.Layout(width="95%"),
                            style={"description_width": "initial"})
    view = widgets.HTML(kernel_html(first))
    view.add_class("workbook-view")

    def show(change: dict) -> None:
        view.value = module_html(code) if change["new"] == MODULE else kernel_html(by_name[change["new"]])

    pick.observe(show, names="value")
    box = widgets.VBox([widgets.HTML(f"<b>Kernel explorer</b> · {len(kernels)} generated kernel(s) · {html.escape(label)}"),
                        pick, view])
    box.add_class("workbook-kernel-explorer")
    explorer.widget, explorer.controls, explorer.view = box, {"kernel": pick}, view
    return explorer


# ---------------------------------------------------------------------------------------------
# size sweep (Labs 01 and 03)


def _sweep_stats(rows: list[dict], size: Any, labels: list[str], baseline: str,
                 bytes_for: Callable[[str, Any], float | None]) -> list[dict]:
    """Per label at one size: median and quartiles, bytes, GB/s and the speedup over the baseline."""
    at = {r["label"]: r for r in rows if r["size"] == size}
    base = at.get(baseline)
    out = []
    for lab in labels:
        r = at.get(lab)
        if r is None:
            continue
        med, q25, q75 = r["median_ms"], r.get("q25_ms", r["median_ms"]), r.get("q75_ms", r["median_ms"])
        nbytes = bytes_for(lab, size)
        stat = {"label": lab, "median_ms": med, "q25_ms": q25, "q75_ms": q75, "bytes": nbytes,
                "GBps": nbytes / med / 1e6 if nbytes else None}
        if base is not None and lab != baseline:
            if "speedup_low" in r:      # bench.sweep: the paired rounds' median ratio, its 95 % interval and verdict
                stat.update(speedup=r["speedup"], speedup_low=r["speedup_low"], speedup_high=r["speedup_high"],
                            verdict=r.get("verdict"))
            else:
                stat["speedup"] = base["median_ms"] / med
                stat["speedup_low"] = base.get("q25_ms", base["median_ms"]) / q75
                stat["speedup_high"] = base.get("q75_ms", base["median_ms"]) / q25
        out.append(stat)
    return out


def _fmt_bytes(n: float | None) -> str:
    """1.0 MB, 268 MB, 4.3 GB; '–' when unknown."""
    if not n:
        return "–"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def _verdict(stats: list[dict], baseline: str) -> str:
    """'compiled 2.40× faster than eager (95 % CI 2.1–2.6×)' for each label against the baseline.

    Rows from bench.sweep carry the verdict of their paired rounds; rows made by hand only a quartile range, and
    get no verdict word.
    """
    parts = []
    for s in stats:
        if "speedup" not in s:
            continue
        x, lo, hi = s["speedup"], s["speedup_low"], s["speedup_high"]
        verdict = s.get("verdict")
        if verdict is None:
            parts.append(f"{s['label']}: {baseline}'s time ÷ its time {x:.2f}× (quartiles {lo:.2f}–{hi:.2f}×)")
        elif verdict == "faster":
            parts.append(f"{s['label']} {x:.2f}× faster than {baseline} (95 % CI {lo:.2f}–{hi:.2f}×)")
        elif verdict == "slower":
            parts.append(f"{s['label']} {1 / x:.2f}× slower than {baseline} (95 % CI {1 / hi:.2f}–{1 / lo:.2f}×)")
        else:
            parts.append(f"{s['label']} vs {baseline}: {no_difference_words(lo, hi)} ({lo:.2f}–{hi:.2f}×)")
    return "; ".join(parts)


def _sweep_figure(rows: list[dict], size: Any, labels: list[str], baseline: str, stats: list[dict], title: str,
                  xlabel: str, label: str) -> Figure:
    """Left: time per call against size (median, quartile band, the chosen size marked). Right: the chosen size."""
    fig = LabFigure(figsize=(11, 4.3), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=[3, 2])
    for j, lab in enumerate(labels):
        group = sorted((r for r in rows if r["label"] == lab), key=lambda r: r["size"])
        xs = [r["size"] for r in group]
        left.plot(xs, [r["median_ms"] for r in group], marker="o", color=f"C{j}", label=f"{lab} (median)")
        left.fill_between(xs, [r.get("q25_ms", r["median_ms"]) for r in group], [r.get("q75_ms", r["median_ms"]) for r in group],
                          color=f"C{j}", alpha=0.25, label=f"{lab} (q25–q75)")
    left.axvline(size, color="black", ls="--", lw=1, label=f"shown: {size:,}")
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel(xlabel)
    left.set_ylabel("time per call (ms)")
    left.set_title("every size", fontsize=10)
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=8)
    names = [s["label"] for s in stats]
    meds = [s["median_ms"] for s in stats]
    err = [[s["median_ms"] - s["q25_ms"] for s in stats], [s["q75_ms"] - s["median_ms"] for s in stats]]
    bars = right.bar(names, meds, yerr=err, capsize=6, color=[f"C{labels.index(n)}" for n in names])
    for bar, s in zip(bars, stats):
        note = f"{fmt_ms(s['median_ms'])} ms"
        if s["GBps"]:
            note += f"\n{_fmt_bytes(s['bytes'])} moved\n{s['GBps']:.3g} GB/s"
        right.annotate(note, (bar.get_x() + bar.get_width() / 2, s["q75_ms"]), xytext=(0, 4),
                       textcoords="offset points", ha="center", va="bottom", fontsize=8)
    right.set_ylim(0, 1.5 * max(s["q75_ms"] for s in stats))
    right.set_ylabel("time per call (ms)")
    right.set_xlabel("bar: median · whisker: q25–q75", fontsize=8)
    right.set_title(f"at {size:,} {xlabel}\n{_verdict(stats, baseline)}", fontsize=9)
    right.grid(True, axis="y", alpha=0.3)
    fig.suptitle(f"{title}\n{label}", fontsize=11)
    return fig


def _sweep_html(stats: list[dict], size: Any, xlabel: str, baseline: str) -> str:
    """The numbers at one size as a table."""
    rows = [[s["label"], s["median_ms"], f"{fmt_ms(s['q25_ms'])}–{fmt_ms(s['q75_ms'])}", _fmt_bytes(s["bytes"]),
             f"{s['GBps']:.3g}" if s["GBps"] else "–",
             f"{s['speedup']:.2f}×" if "speedup" in s else "(baseline)"] for s in stats]
    return (f"<p><b>{size:,} {html.escape(xlabel)}</b></p>"
            + _table(["", "median ms", "q25–q75 ms", "bytes moved", "GB/s", f"speedup over {baseline}"], rows))


def size_sweep(rows: list[dict], bytes_moved: Callable[[Any], float] | dict[str, Callable[[Any], float]] | None = None,
               title: str = "Eager vs compiled", xlabel: str = "elements", baseline: str | None = None,
               device_label: str | None = None) -> Explorer:
    """Slide over measured sizes: time per call with its spread, the speedup, bytes moved and GB/s at each.

    rows are bench.sweep rows (size, label, median_ms, q25_ms, q75_ms). bytes_moved(size) gives the bytes one
    call reads and writes, or a dict {label: bytes_moved} when they differ (eager moves more than fused code).
    """
    from helpers.plots import _label_for

    rows = [dict(r, label=str(r.get("label", ""))) for r in rows]
    labels = list(dict.fromkeys(r["label"] for r in rows))
    sizes = sorted({r["size"] for r in rows})
    if len(labels) < 2 or not sizes:
        raise ValueError(f"size_sweep needs rows of two or more labels; got labels {labels} at {len(sizes)} size(s)")
    baseline = baseline or labels[0]
    label = _label_for(rows, device_label)

    def bytes_for(lab: str, size: Any) -> float | None:
        fn = bytes_moved.get(lab) if isinstance(bytes_moved, dict) else bytes_moved
        return float(fn(size)) if fn is not None else None

    def render(size: Any) -> tuple[Figure, str]:
        stats = _sweep_stats(rows, size, labels, baseline, bytes_for)
        return (_sweep_figure(rows, size, labels, baseline, stats, title, xlabel, label),
                _sweep_html(stats, size, xlabel, baseline))

    fig, table = render(sizes[-1])
    stats = {s: _sweep_stats(rows, s, labels, baseline, bytes_for) for s in sizes}
    text = "\n".join(f"{s:>12,} {xlabel}: {_verdict(stats[s], baseline)}" for s in sizes)
    explorer = Explorer(fig, "".join(_sweep_html(stats[s], s, xlabel, baseline) for s in sizes), text)
    widgets = _ipywidgets()
    if widgets is None:
        return explorer
    slider = widgets.SelectionSlider(options=[(f"{s:,}", s) for s in sizes], value=sizes[-1], description=xlabel,
                                     continuous_update=False, layout=widgets.Layout(width="70%"),
                                     style={"description_width": "initial"})
    image, numbers = _image(widgets, fig), widgets.HTML(table)
    image.add_class("workbook-view")

    def show(change: dict) -> None:
        new_fig, new_table = render(change["new"])
        image.value, numbers.value = _png(new_fig), new_table
        explorer.figure = new_fig

    slider.observe(show, names="value")
    box = widgets.VBox([widgets.HTML(f"<b>{html.escape(title)}</b>: drag the slider (measured once; nothing is "
                                     "re-measured)"), slider, image, numbers])
    box.add_class("workbook-size-sweep")
    explorer.widget, explorer.controls, explorer.view = box, {"size": slider}, image
    return explorer


# ---------------------------------------------------------------------------------------------
# parallelism calculator (Lab 05)


def _plan_figure(plan: dict[str, dict[str, float]], params_billion: float, n_devices: int, title: str,
                 memory_limit_GB: float | None) -> Figure:
    """Grouped bars per pattern: memory per device and communication per step per device."""
    names = list(plan)
    fig = LabFigure(figsize=(11, 4.2), layout="constrained")
    axes = fig.subplots(1, 2)
    for ax, key, ylabel in ((axes[0], "memory_GB", "memory per device (GB)"),
                            (axes[1], "comm_GB_per_step", "communication per device per step (GB)")):
        values = [float(plan[n][key]) for n in names]
        bars = ax.bar(range(len(names)), values, color=[f"C{i % 10}" for i in range(len(names))])
        ax.bar_label(bars, labels=[f"{v:.3g}" for v in values], fontsize=8)
        ax.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=8)
        ax.set_ylabel(ylabel)
        ax.grid(True, axis="y", alpha=0.3)
        limit = memory_limit_GB if key == "memory_GB" and memory_limit_GB else 0.0
        ax.set_ylim(0, 1.2 * max(values + [limit, 1e-9]))
    if memory_limit_GB:
        axes[0].axhline(memory_limit_GB, color="red", ls="--", lw=1, label=f"device memory {memory_limit_GB:g} GB")
        axes[0].legend(fontsize=8)
    axes[0].set_title("memory", fontsize=10)
    axes[1].set_title("communication", fontsize=10)
    fig.suptitle(f"{title}: {params_billion:.3g}B parameters on {n_devices} device(s)\n"
                 "computed from a model of the patterns, not measured", fontsize=11)
    return fig


def _plan_html(plan: dict[str, dict[str, float]]) -> str:
    """Every number the calculator returned, one row per pattern."""
    keys = list(dict.fromkeys(k for metrics in plan.values() for k in metrics))
    value = lambda v: f"{v:.4g}" if isinstance(v, float) else v
    return _table(["pattern", *keys], [[name, *(value(m.get(k, "")) for k in keys)] for name, m in plan.items()])


def _plan(calculate: Callable[..., dict], params_billion: float, n_devices: int, kw: dict) -> dict[str, dict[str, float]]:
    """calculate(...) with its result checked for the two numbers the chart needs."""
    plan = calculate(params_billion, n_devices, **kw)
    for name, metrics in plan.items():
        missing = [k for k in ("memory_GB", "comm_GB_per_step") if k not in metrics]
        if missing:
            raise KeyError(f"calculate() returned no {missing} for {name!r}; it has {sorted(metrics)}")
    return plan


def _control(widgets: Any, name: str, value: Any) -> Any | None:
    """A widget for one extra keyword of the calculator: checkbox, number or text; None for other types."""
    style = {"description_width": "initial"}
    if isinstance(value, bool):
        return widgets.Checkbox(value=value, description=name, style=style)
    if isinstance(value, int):
        return widgets.IntText(value=value, description=name, style=style)
    if isinstance(value, float):
        return widgets.FloatText(value=value, description=name, style=style)
    if isinstance(value, str):
        return widgets.Text(value=value, description=name, style=style)
    return None


def parallelism_calculator(calculate: Callable[..., dict[str, dict[str, float]]], *, title: str = "Parallelism plan",
                           memory_limit_GB: float | None = None, **defaults: Any) -> Explorer:
    """Sliders for model size and device count; bars and a table of memory and traffic per device per pattern.

    calculate(params_billion, n_devices, **kw) returns {pattern: {"memory_GB": ..., "comm_GB_per_step": ..., ...}};
    defaults give the starting params_billion and n_devices and the other keywords passed through.
    """
    params_billion = float(defaults.pop("params_billion", 7.0))
    n_devices = int(defaults.pop("n_devices", 8))
    plan = _plan(calculate, params_billion, n_devices, defaults)
    fig = _plan_figure(plan, params_billion, n_devices, title, memory_limit_GB)
    text = "\n".join(f"{name}: {m['memory_GB']:.3g} GB per device, {m['comm_GB_per_step']:.3g} GB per step"
                     for name, m in plan.items())
    explorer = Explorer(fig, _plan_html(plan), text)
    widgets = _ipywidgets()
    if widgets is None:
        return explorer
    style, wide = {"description_width": "initial"}, widgets.Layout(width="60%")
    size = widgets.FloatLogSlider(value=params_billion, base=10, min=-1, max=3.3, step=0.05, readout_format=".3g",
                                  description="parameters (billions)", continuous_update=False, style=style, layout=wide)
    counts = sorted({2**k for k in range(11)} | {n_devices})
    devices = widgets.SelectionSlider(options=counts, value=n_devices, description="devices", continuous_update=False,
                                      style=style, layout=wide)
    extra = {k: c for k, v in defaults.items() if (c := _control(widgets, k, v)) is not None}
    image, numbers = _image(widgets, fig), widgets.HTML(_plan_html(plan))
    image.add_class("workbook-view")

    def show(_: dict) -> None:
        kw = {**defaults, **{k: c.value for k, c in extra.items()}}
        try:
            new = _plan(calculate, size.value, devices.value, kw)
        except Exception as err:  # a combination the calculator refuses: say so, keep the last chart
            numbers.value = f"<p style='color:#b91c1c'>{html.escape(type(err).__name__)}: {html.escape(str(err))}</p>"
            return
        new_fig = _plan_figure(new, size.value, devices.value, title, memory_limit_GB)
        image.value, numbers.value = _png(new_fig), _plan_html(new)
        explorer.figure = new_fig

    for control in (size, devices, *extra.values()):
        control.observe(show, names="value")
    box = widgets.VBox([widgets.HTML(f"<b>{html.escape(title)}</b>: move the sliders"), size, devices,
                        *extra.values(), image, numbers])
    box.add_class("workbook-parallelism")
    explorer.widget, explorer.view = box, image
    explorer.controls = {"params_billion": size, "n_devices": devices, **extra}
    return explorer


# ---------------------------------------------------------------------------------------------
# saved-tensor explorer (Lab 06)


def _saved_names(fw: Any, bw: Any) -> dict[str, int]:
    """{name: bytes} of the backward's placeholders that are forward activations (not tangents, not forward inputs)."""
    inputs = {n.name for n in fw.graph.nodes if n.op == "placeholder"}
    out = {}
    for n in bw.graph.nodes:
        val = n.meta.get("val")
        if n.op == "placeholder" and not n.name.startswith("tangents") and n.name not in inputs and hasattr(val, "numel"):
            out[n.name] = val.numel() * val.element_size()
    return out


def _node_rows(fw: Any, bw: Any, fw_min: Any, bw_min: Any) -> list[list[Any]]:
    """One row per forward node: op, shape, saved by default / by min-cut, bytes, backward readers."""
    default, mincut = _saved_names(fw, bw), _saved_names(fw_min, bw_min)
    readers = {n.name: [u.name for u in n.users] for n in bw.graph.nodes if n.op == "placeholder"}
    rows = []
    for n in fw.graph.nodes:
        if n.op in ("placeholder", "output"):
            continue
        val = n.meta.get("val")
        shape = "×".join(map(str, val.shape)) if hasattr(val, "shape") else ""
        target = getattr(getattr(n.target, "overloadpacket", n.target), "__name__", str(n.target))
        rows.append([n.name, target, shape, "saved" if n.name in default else "", "saved" if n.name in mincut else "",
                     default.get(n.name, mincut.get(n.name, 0)), ", ".join(readers.get(n.name, [])[:4])])
    return rows


def _saved_figure(rows: list[list[Any]]) -> Figure:
    """Bytes saved per forward node, default partition against min-cut."""
    from helpers.plots import LabFigure

    fig = LabFigure(figsize=(9, 3.2), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    names = [r[0] for r in rows if r[3] or r[4]]
    by = {r[0]: r for r in rows}
    xs = range(len(names))
    ax.bar([x - 0.2 for x in xs], [by[n][5] if by[n][3] else 0 for n in names], width=0.4, label="default partition")
    ax.bar([x + 0.2 for x in xs], [by[n][5] if by[n][4] else 0 for n in names], width=0.4, label="min-cut")
    ax.set_xticks(list(xs), names, rotation=70, fontsize=7)
    ax.set_ylabel("bytes saved for backward")
    ax.legend(fontsize=8)
    ax.set_title("What the forward keeps for the backward, node by node", fontsize=10)
    return fig


def saved_tensor_explorer(fw: Any, bw: Any, fw_min: Any, bw_min: Any) -> Explorer:
    """Pick a forward node of an AOTAutograd forward graph: is it saved (default partition, min-cut), its bytes,
    and which backward nodes read it; the static form is a bar chart and a table of the saved nodes."""
    rows = _node_rows(fw, bw, fw_min, bw_min)
    header = ["node", "op", "shape", "default", "min-cut", "bytes", "read in backward by"]
    saved_rows = [r for r in rows if r[3] or r[4]]
    fig = _saved_figure(rows)
    line = "{:<20} {:<24} {:<8} {:<8} {:>8}".format
    text = "\n".join([line("node", "op", "default", "min-cut", "bytes"),
                      *(line(r[0], r[1], r[3] or "-", r[4] or "-", r[5]) for r in saved_rows)])
    explorer = Explorer(fig, _table(header, saved_rows), text)
    widgets = _ipywidgets()
    if widgets is None or not rows:
        return explorer
    by = {r[0]: r for r in rows}
    pick = widgets.Dropdown(options=[(f"{r[0]} ({r[1]}){' · saved' if r[3] or r[4] else ''}", r[0]) for r in rows],
                            value=(saved_rows or rows)[0][0], description="forward node",
                            style={"description_width": "initial"}, layout=widgets.Layout(width="70%"))
    view = widgets.HTML(_table(header, [by[pick.value]]))
    view.add_class("workbook-view")
    pick.observe(lambda change: setattr(view, "value", _table(header, [by[change["new"]]])), names="value")
    box = widgets.VBox([widgets.HTML("<b>Saved-tensor explorer</b> · forward nodes, and what each partition keeps"),
                        pick, view, _image(widgets, fig)])
    box.add_class("workbook-saved-tensors")
    explorer.widget, explorer.controls, explorer.view = box, {"node": pick}, view
    return explorer


def _token_rows(runs: dict[str, Any]) -> dict[str, list[float]]:
    """{label: [ms per token]}: the first token's TTFT, then each inter-token gap, from a GenerationResult or its
    summary() dict (token_offsets_s)."""
    out = {}
    for label, run in runs.items():
        offsets = run["token_offsets_s"] if isinstance(run, dict) else [t - run.start_s for t in run.token_times_s]
        out[label] = [1e3 * (b - a) for a, b in zip([0.0] + list(offsets), offsets)]
    return out


def _timeline_figure(per_token: dict[str, list[float]], title: str, selected: str | None) -> Figure:
    """Milliseconds per token against the token's index, one line per run (log scale: TTFT dwarfs a decode step)."""
    fig = LabFigure(figsize=(8, 3.6), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    for label, ms in per_token.items():
        if not ms:
            continue
        strong = selected is None or label == selected
        ax.plot(range(len(ms)), ms, marker="o" if len(ms) < 40 else None, markersize=3, lw=2 if strong else 1,
                alpha=1.0 if strong else 0.35, label=f"{label} (TTFT {ms[0]:.3g} ms)")
    ax.set_yscale("log")
    ax.set_xlabel("token (0 = first token: prefill + first sampling)")
    ax.set_ylabel("ms since the previous token")
    ax.set_title("\n".join(textwrap.fill(line, 95) for line in title.split("\n")), fontsize=10)   # whole, not cut
    ax.legend(fontsize=7)
    return fig


def _timeline_stats(label: str, ms: list[float]) -> list[Any]:
    gaps = sorted(ms[1:])
    median = gaps[len(gaps) // 2] if gaps else float("nan")
    naive = sum(ms) / len(ms) if ms else float("nan")
    return [label, len(ms), ms[0] if ms else float("nan"), median, max(gaps) if gaps else float("nan"), naive]


def token_timeline(runs: dict[str, Any], title: str = "Per-token latency", device_label: str | None = None) -> Explorer:
    """Per-token latency of one or more generations: the first point is TTFT, the others the gaps between tokens.

    `runs` maps a label ("eager, long prompt") to a GenerationResult or its summary() dict. The widget picks a run
    to highlight; the static form shows all of them and a table: TTFT, median and largest gap, and the naive TTFT
    (e2e / tokens) next to the real one.
    """
    per_token = _token_rows(runs)
    full_title = f"{title}\n{device_label}" if device_label else title
    header = ["run", "tokens", "TTFT ms", "median gap ms", "largest gap ms", "naive TTFT ms (e2e / tokens)"]
    rows = [_timeline_stats(label, ms) for label, ms in per_token.items()]
    fig = _timeline_figure(per_token, full_title, None)
    text = "\n".join(f"{r[0]:<28} {r[1]:>4} tokens  TTFT {fmt_ms(r[2])} ms  median gap {fmt_ms(r[3])} ms  "
                     f"naive TTFT {fmt_ms(r[5])} ms" for r in rows)
    explorer = Explorer(fig, _table(header, rows), text)
    widgets = _ipywidgets()
    if widgets is None or not per_token:
        return explorer
    by = {r[0]: r for r in rows}
    pick = widgets.Dropdown(options=list(per_token), value=next(iter(per_token)), description="run",
                            style={"description_width": "initial"}, layout=widgets.Layout(width="60%"))
    view = widgets.HTML(_table(header, [by[pick.value]]))
    view.add_class("workbook-view")
    image = _image(widgets, _timeline_figure(per_token, full_title, pick.value))

    def redraw(change):
        view.value = _table(header, [by[change["new"]]])
        image.value = _png(_timeline_figure(per_token, full_title, change["new"]))

    pick.observe(redraw, names="value")
    box = widgets.VBox([widgets.HTML("<b>Token timeline</b> · milliseconds each token waited for"), pick, view, image])
    box.add_class("workbook-token-timeline")
    explorer.widget, explorer.controls, explorer.view = box, {"run": pick}, view
    return explorer
