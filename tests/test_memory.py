"""Tests for helpers/memory.py: the CPU fallback is labelled and measures real allocations."""

import pickle

import pytest
import torch

from helpers.memory import CPU_NOTE, MemoryStats, format_bytes, memory_snapshot_html, track_memory

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
MB = 2**20


def test_format_bytes():
    assert format_bytes(512) == "512 B"
    assert format_bytes(1536) == "1.5 KiB"
    assert format_bytes(200 * MB) == "200.0 MiB"
    assert format_bytes(-3 * MB) == "-3.0 MiB"
    assert format_bytes(3 * 2**30) == "3.00 GiB"


def test_cpu_fallback_sees_a_200mb_tensor():
    with track_memory("cpu") as m:
        x = torch.ones(50 * MB)  # 200 MiB of float32, written so the pages are resident
    assert isinstance(m, MemoryStats)
    assert m.method == "cpu-rss" and m.device == "cpu" and m.note == CPU_NOTE
    assert m.peak_delta_bytes > 150 * MB and m.delta_bytes > 150 * MB
    assert m.peak_bytes >= m.start_bytes + m.peak_delta_bytes - 1
    text = str(m)
    assert "MiB" in text and "CPU fallback" in text
    del x


def test_cpu_peak_catches_a_short_lived_tensor():
    with track_memory("cpu") as m:
        y = torch.ones(50 * MB).sum()
    assert m.peak_delta_bytes > 150 * MB and m.delta_bytes < 50 * MB
    assert float(y) == 50 * MB


def test_snapshot_html_on_cpu(tmp_path):
    path = memory_snapshot_html(lambda n: torch.ones(n).sum(), tmp_path / "out" / "snap.html", 10 * MB, device="cpu")
    text = path.read_text()
    assert path.exists() and "No CUDA allocator" in text and "CPU fallback" in text and "<table>" in text


@pytest.mark.gpu
@needs_cuda
def test_cuda_peak_and_delta():
    with track_memory("cuda") as m:
        x = torch.ones(50 * MB, device="cuda")
        y = x * 2
        del y
    assert m.method == "cuda-allocator"
    assert m.peak_delta_bytes >= 400 * MB - 1 and 190 * MB < m.delta_bytes < 210 * MB
    del x


@pytest.mark.gpu
@needs_cuda
def test_snapshot_html_on_cuda(tmp_path):
    path = memory_snapshot_html(lambda: (torch.ones(MB, device="cuda") * 2).sum(), tmp_path / "snap.html")
    assert path.exists() and len(path.read_text()) > 1000
    snap = pickle.loads(path.with_suffix(".pickle").read_bytes())
    assert "segments" in snap
