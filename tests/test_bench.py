"""Tests for helpers/bench.py: orderings with wide margins only, never timing thresholds."""

import time

import pytest
import torch

from helpers.bench import Comparison, Timing, compare, fmt_ms, measure, sweep, table

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def sleep_ms(ms: float):
    """A function that takes (at least) ms milliseconds."""
    return lambda: time.sleep(ms / 1e3)


def test_measure_quartiles_are_ordered():
    x = torch.randn(256, 256)
    t = measure(torch.mm, x, x, label="mm", min_run_time=0.05)
    assert t.method == "torch.utils.benchmark" and t.device == "cpu"
    assert 0 < t.min_ms <= t.q25_ms <= t.median_ms <= t.q75_ms
    assert t.n >= 5 and len(t.times_ms) == t.n and t.iqr_ms >= 0
    assert str(t).startswith("mm: ") and "IQR" in str(t) and f"n={t.n}" in str(t) and "cpu" in str(t)


def test_slow_function_measures_slower():
    fast = measure(lambda: None, label="fast", min_run_time=0.02)
    slow = measure(sleep_ms(2), label="slow", min_run_time=0.02)
    assert slow.median_ms > 1.5 and slow.median_ms > 20 * fast.median_ms
    assert slow.n >= 5  # topped up to the minimum sample count


def test_warmup_runs_before_timing():
    calls = []
    measure(lambda: calls.append(1), warmup=3, min_run_time=0.01)
    assert len(calls) > 3


def test_compare_ratio_above_one_when_b_is_faster():
    c = compare(sleep_ms(6), sleep_ms(1), labels=("slow", "fast"), min_run_time=0.08, rounds=2)
    assert isinstance(c, Comparison) and c.ratio > 2
    assert c.ratio_low <= c.ratio <= c.ratio_high
    assert str(c).startswith("fast is") and "faster than slow" in str(c)
    flipped = compare(sleep_ms(1), sleep_ms(6), labels=("eager", "compiled"), min_run_time=0.08, rounds=2)
    assert flipped.ratio < 0.5 and "compiled is" in str(flipped) and "SLOWER than eager" in str(flipped)


def test_compare_interleaves_rounds():
    order = []
    compare(lambda: order.append("a"), lambda: order.append("b"), warmup=1, rounds=4, min_run_time=0.004)
    timed = "".join(order)[2:]  # after one warm-up call each
    assert timed.index("b") < len(timed) - 1 - timed[::-1].index("a")  # some b runs before the last a


def test_compare_needs_distinct_labels():
    with pytest.raises(ValueError):
        compare(lambda: None, lambda: None, labels=("x", "x"))


def test_sweep_rows_and_table():
    fns = {"add": torch.add, "mul": torch.mul}
    rows = sweep(fns, lambda n: (torch.randn(n), torch.randn(n)), [100, 10_000], min_run_time=0.02, rounds=1)
    assert len(rows) == 4
    assert {(r["size"], r["label"]) for r in rows} == {(s, k) for s in (100, 10_000) for k in fns}
    for r in rows:
        assert {"median_ms", "q25_ms", "q75_ms", "min_ms", "n", "device", "method", "iqr_ms"} <= set(r)
        assert r["q25_ms"] <= r["median_ms"] <= r["q75_ms"]
    text = table(rows)
    lines = text.splitlines()
    assert lines[0].split("|")[1].strip() == "size" and "median_ms" in lines[0] and len(lines) == 2 + 4
    assert len({len(line) for line in lines}) == 1  # aligned


def test_sweep_accepts_a_single_tensor_from_make_args():
    rows = sweep({"relu": torch.relu}, lambda n: torch.randn(n), [64], min_run_time=0.01, rounds=1)
    assert rows[0]["label"] == "relu" and rows[0]["size"] == 64


def test_table_of_timings_and_comparison():
    t = Timing("eager", "cpu", "torch.utils.benchmark", 0.182, 0.180, 0.185, 0.17, 100)
    u = Timing("compiled", "cpu", "torch.utils.benchmark", 0.0366, 0.036, 0.037, 0.035, 100)
    assert "eager" in table(t) and "size" not in table(t)
    text = table(Comparison(t, u))
    assert "eager" in text and "compiled" in text and "0.182" in text
    assert str(t) == "eager: 0.182 ms (IQR 0.00500, n=100, cpu)"
    assert "4.97× faster than eager" in str(Comparison(t, u))


def test_fmt_ms():
    assert fmt_ms(0.182) == "0.182" and fmt_ms(12.345) == "12.3" and fmt_ms(1234.5) == "1234"
    assert fmt_ms(0.00264) == "0.00264" and fmt_ms(0.0) == "0"


@pytest.mark.gpu
@needs_cuda
def test_measure_on_gpu_waits_for_the_kernels():
    x = torch.randn(4096, 4096, device="cuda")
    t = measure(torch.mm, x, x, label="mm", min_run_time=0.05)
    assert t.method == "torch.utils.benchmark" and t.device.startswith("cuda")
    assert 0 < t.q25_ms <= t.median_ms <= t.q75_ms
    small = measure(torch.mm, x[:256, :256], x[:256, :256], min_run_time=0.05)
    assert t.median_ms > 5 * small.median_ms
    c = compare(lambda: x @ x, lambda: x[:256] @ x, labels=("big", "small"), device="cuda", min_run_time=0.05)
    assert c.ratio > 2


def test_a_spread_wider_than_the_median_is_flagged_noisy():
    from helpers.bench import Comparison, summarize, table
    calm = summarize([1.0, 1.01, 0.99, 1.0, 1.02], "calm", "cpu", "test")
    wild = summarize([0.2, 0.3, 5.0, 6.0, 0.25, 7.0], "wild", "cpu", "test")
    assert not calm.noisy and wild.noisy
    assert "noisy" in str(wild) and "noisy" not in str(calm)
    assert "noisy" in str(Comparison(calm, wild)) and "noisy" not in str(Comparison(calm, calm))
    assert "⚠" in table([calm, wild]) and "⚠" not in table([calm])


def test_cpu_contention_is_a_warning_or_nothing():
    from helpers.bench import cpu_contention
    got = cpu_contention()
    assert got is None or ("load average" in got and "close other programs" in got)
