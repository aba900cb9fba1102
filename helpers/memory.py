"""Memory: peak and delta of a block of code, and an allocator timeline you can open in a browser.

CUDA: the caching allocator's own counters (memory_allocated, max_memory_allocated) and its
recorded history (torch.cuda.memory._record_memory_history + torch.cuda._memory_viz).
CPU: there is no such allocator, so the fallback is the process RSS, clearly labelled as such.
Introduced in Lab 03 (fusion saves intermediate buffers) and used again in Lab 05.
"""

from __future__ import annotations

import html
import os
import pickle
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import torch

CPU_NOTE = "CPU fallback: process RSS, not the CUDA caching allocator; includes Python and allocator overhead"
CUDA_NOTE = "CUDA caching allocator: bytes held by live tensors (memory_allocated); nvidia-smi shows more (cache, context)"
SAMPLE_EVERY_S = 0.002


def format_bytes(n: float) -> str:
    """Human-readable size in binary units: 512 B, 1.5 KiB, 200.0 MiB, 1.25 GiB (sign kept)."""
    sign, n = ("-" if n < 0 else ""), abs(n)
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{sign}{n / scale:.{2 if unit == 'GiB' else 1}f} {unit}"
    return f"{sign}{int(n)} B"


@dataclass
class MemoryStats:
    """What a block of code did to memory; filled in when the `track_memory` block exits."""

    device: str
    method: str  # "cuda-allocator" or "cpu-rss"
    note: str
    start_bytes: int = 0
    end_bytes: int = 0
    peak_bytes: int = 0  # highest level seen during the block (max_memory_allocated on CUDA, peak RSS on CPU)
    peak_delta_bytes: int = 0  # the same peak measured from the level at the start of the block
    samples: list[tuple[float, int]] = field(default_factory=list, repr=False)  # (seconds, bytes); CPU only

    @property
    def delta_bytes(self) -> int:
        """Allocated (CUDA) or resident (CPU) after the block minus before: what it left behind."""
        return self.end_bytes - self.start_bytes

    def __str__(self) -> str:
        return (f"peak +{format_bytes(self.peak_delta_bytes)} above start ({format_bytes(self.peak_bytes)} in all), "
                f"delta {'+' if self.delta_bytes >= 0 else ''}{format_bytes(self.delta_bytes)} on {self.device} "
                f"[{self.method}]\n  {self.note}")


def _device(device: str | torch.device | None) -> torch.device:
    """The device given, else CUDA when it is available, else CPU."""
    if device is not None:
        return torch.device(device)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


# -----------------------------------------------------------------------------
# CPU fallback: resident set size, sampled by a thread, peak from the kernel where it can reset it


def _rss() -> int:
    """This process's resident set size in bytes."""
    import psutil

    return psutil.Process(os.getpid()).memory_info().rss


def _reset_linux_peak() -> bool:
    """Reset the kernel's peak-RSS counter (VmHWM) for this process; False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _linux_peak() -> int | None:
    """The kernel's peak RSS (VmHWM) in bytes, catching spikes shorter than the sampling interval."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


class _RssSampler(threading.Thread):
    """Samples RSS every few milliseconds until stopped, for the peak and the timeline."""

    def __init__(self, every_s: float = SAMPLE_EVERY_S):
        super().__init__(daemon=True)
        self.every_s, self.t0 = every_s, time.perf_counter()
        self.samples: list[tuple[float, int]] = [(0.0, _rss())]
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(self.every_s):
            self.samples.append((time.perf_counter() - self.t0, _rss()))

    def stop(self) -> list[tuple[float, int]]:
        self._stop_event.set()
        self.join()
        self.samples.append((time.perf_counter() - self.t0, _rss()))
        return self.samples


@contextmanager
def _track_cpu(stats: MemoryStats) -> Iterator[MemoryStats]:
    """Fill stats from process RSS around the block."""
    hwm_ok = _reset_linux_peak()
    sampler = _RssSampler()
    stats.start_bytes = sampler.samples[0][1]
    sampler.start()
    try:
        yield stats
    finally:
        stats.samples = sampler.stop()
        stats.end_bytes = stats.samples[-1][1]
        peak = max(b for _, b in stats.samples)
        hwm = _linux_peak() if hwm_ok else None
        stats.peak_bytes = max(peak, hwm or 0)
        stats.peak_delta_bytes = max(0, stats.peak_bytes - stats.start_bytes)


@contextmanager
def _track_cuda(stats: MemoryStats, dev: torch.device) -> Iterator[MemoryStats]:
    """Fill stats from the CUDA caching allocator's counters around the block."""
    torch.cuda.synchronize(dev)
    torch.cuda.reset_peak_memory_stats(dev)
    stats.start_bytes = torch.cuda.memory_allocated(dev)
    try:
        yield stats
    finally:
        torch.cuda.synchronize(dev)
        stats.end_bytes = torch.cuda.memory_allocated(dev)
        stats.peak_bytes = torch.cuda.max_memory_allocated(dev)
        stats.peak_delta_bytes = max(0, stats.peak_bytes - stats.start_bytes)


@contextmanager
def track_memory(device: str | torch.device | None = None) -> Iterator[MemoryStats]:
    """`with track_memory(dev) as m: ...` then print(m): peak above start and delta, CUDA or labelled CPU fallback."""
    dev = _device(device)
    if dev.type == "cuda":
        stats = MemoryStats(device=str(dev), method="cuda-allocator", note=CUDA_NOTE)
        with _track_cuda(stats, dev):
            yield stats
    else:
        stats = MemoryStats(device=str(dev), method="cpu-rss", note=CPU_NOTE)
        with _track_cpu(stats):
            yield stats


# -----------------------------------------------------------------------------
# allocator timeline as HTML


def _viz_html(snapshot: dict, pickle_name: str) -> str:
    """The allocator timeline from torch.cuda._memory_viz, whichever plot this torch version has."""
    from torch.cuda import _memory_viz

    banner = (f"<p style='font-family:sans-serif'>CUDA allocator timeline. The viewer loads MemoryViz.js from the web; "
              f"offline, open <code>{html.escape(pickle_name)}</code> at https://pytorch.org/memory_viz later.</p>")
    for name in ("trace_plot", "segment_plot"):
        plot = getattr(_memory_viz, name, None)
        if plot is None:
            continue
        try:
            page = plot(snapshot)
        except Exception:
            continue
        return page.replace("<body>", "<body>\n" + banner, 1)
    return (f"<!DOCTYPE html><html><body>{banner}<p>This torch version has no HTML plot in torch.cuda._memory_viz; "
            f"drag <code>{html.escape(pickle_name)}</code> onto https://pytorch.org/memory_viz.</p></body></html>")


def _cpu_html(stats: MemoryStats, fn_name: str, max_rows: int = 200) -> str:
    """A page that says there is no CUDA allocator here, with the RSS fallback's timeline as a table."""
    step = max(1, len(stats.samples) // max_rows)
    rows = "\n".join(
        f"<tr><td>{t * 1e3:.1f}</td><td>{b / 2**20:.1f}</td><td>{(b - stats.start_bytes) / 2**20:+.1f}</td></tr>"
        for t, b in stats.samples[::step])
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Memory timeline (CPU fallback)</title>
<style>body{{font-family:sans-serif;max-width:48em;margin:2em}} td,th{{padding:0 1em;text-align:right}}</style></head>
<body>
<h1>No CUDA allocator on this machine</h1>
<p>This page was written on <b>{html.escape(stats.device)}</b>. A CUDA memory snapshot records every allocation of
the caching allocator; a CPU has no such allocator, so what follows is the fallback:
<b>{html.escape(stats.note)}</b>.</p>
<p>Function: <code>{html.escape(fn_name)}</code> &middot; peak above start: <b>{format_bytes(stats.peak_delta_bytes)}</b>
&middot; left behind: <b>{format_bytes(stats.delta_bytes)}</b> &middot; {len(stats.samples)} samples every
~{SAMPLE_EVERY_S * 1e3:.0f} ms (showing every {step}).</p>
<table><tr><th>time (ms)</th><th>RSS (MiB)</th><th>above start (MiB)</th></tr>
{rows}
</table>
<p>On a CUDA GPU the same call writes the allocator's interactive timeline instead.</p>
</body></html>
"""


def memory_snapshot_html(fn: Callable, path: str | os.PathLike, *args: Any,
                         device: str | torch.device | None = None, max_entries: int = 100_000) -> Path:
    """Run fn(*args) while recording memory and write an HTML timeline to path (plus the raw .pickle on CUDA)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    dev = _device(device)
    fn_name = getattr(fn, "__name__", repr(fn))
    if dev.type != "cuda":
        with track_memory(dev) as stats:
            fn(*args)
        path.write_text(_cpu_html(stats, fn_name), encoding="utf-8")
        return path
    torch.cuda.synchronize(dev)
    torch.cuda.memory._record_memory_history(max_entries=max_entries)
    try:
        fn(*args)
        torch.cuda.synchronize(dev)
        snapshot = torch.cuda.memory._snapshot()
    finally:
        torch.cuda.memory._record_memory_history(enabled=None)  # stop recording
    pickle_path = path.with_suffix(".pickle")
    with open(pickle_path, "wb") as f:
        pickle.dump(snapshot, f)
    path.write_text(_viz_html(snapshot, pickle_path.name), encoding="utf-8")
    return path
