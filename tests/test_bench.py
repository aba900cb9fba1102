"""Tests for helpers/bench.py: orderings with wide margins only, never timing thresholds."""

import os
import time
from pathlib import Path

import pytest
import torch

from helpers.bench import (MIN_ROUNDS, RESOLUTION, Comparison, Timing, compare, fmt_ms, measure, paired,
                           summarize, sweep, table, wall_clock_only)

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def sleep_ms(ms: float):
    """A function that takes (at least) ms milliseconds."""
    return lambda: time.sleep(ms / 1e3)


def test_measure_quartiles_are_ordered():
    x = torch.randn(256, 256)
    t = measure(torch.mm, x, x, label="mm", min_run_time=0.05)
    assert t.method.startswith("blocks of back-to-back calls") and t.device == "cpu"
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
    c = compare(sleep_ms(6), sleep_ms(1), labels=("slow", "fast"), min_run_time=0.08)
    assert isinstance(c, Comparison) and c.ratio > 2 and c.verdict == "faster"
    assert c.ci_low <= c.ratio <= c.ci_high and c.n >= MIN_ROUNDS and len(c.ratios) == c.n
    assert str(c).startswith("fast is") and "faster than slow (95 % CI" in str(c) and "paired rounds" in str(c)
    flipped = compare(sleep_ms(1), sleep_ms(6), labels=("eager", "compiled"), min_run_time=0.08)
    assert flipped.ratio < 0.5 and flipped.verdict == "slower"
    assert str(flipped).startswith("compiled is") and "slower than eager (95 % CI" in str(flipped)


def test_the_same_function_twice_is_no_difference_with_its_noise_floor():
    c = compare(sleep_ms(2), sleep_ms(2), labels=("a", "b"), min_run_time=0.1, null=True)
    assert c.verdict == "no difference" and "no difference this machine can resolve right now" in str(c)
    assert c.null is not None and "noise floor: a against itself" in str(c)
    low, high = c.band
    assert low <= 1 / RESOLUTION and high >= RESOLUTION


def test_the_verdict_comes_from_the_whole_interval_not_the_median():
    a, b = summarize([1.0] * 9, "a", "cpu", "test"), summarize([1.0] * 9, "b", "cpu", "test")
    wide = Comparison(a, b, [0.7, 0.9, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8])     # median 1.4, but the interval reaches 0.9
    assert wide.ratio == 1.4 and wide.ci == (0.9, 1.7) and wide.verdict == "no difference"
    tight = Comparison(a, b, [1.38, 1.39, 1.4, 1.4, 1.4, 1.41, 1.42, 1.43, 1.45])
    assert tight.verdict == "faster"
    slower = Comparison(a, b, [0.5] * 9)
    assert slower.verdict == "slower" and "2.00× slower" in slower.sentence()
    within = Comparison(a, b, [1.01, 1.02, 1.02, 1.02, 1.02, 1.02, 1.02, 1.02, 1.025])   # real, but under RESOLUTION
    assert within.verdict == "no difference"


def test_too_few_rounds_give_no_verdict_whatever_the_ratio():
    """Five pairs cannot give a 95 % interval (the min–max covers 93.75 %): no 'faster', and the sentence says why."""
    from helpers.bench import paired, unpaired

    few = paired([2.0] * 5, [1.0] * 5, labels=("eager", "compiled"))
    assert few.too_few and few.verdict == "no difference"
    assert "too few rounds for a verdict (5 rounds" in few.sentence() and "needs 6 or more" in few.sentence()
    assert paired([2.0] * 6, [1.0] * 6, labels=("eager", "compiled")).verdict == "faster"
    runs = unpaired([2.0, 2.1, 2.2], [1.0, 1.1], labels=("A", "B"))
    assert runs.verdict == "no difference" and "too few runs for a verdict" in runs.sentence()


def test_a_comparison_needs_pairs_from_the_same_rounds():
    t = summarize([1.0, 1.1, 0.9, 1.0, 1.0], "a", "cpu", "test")
    with pytest.raises(ValueError, match="paired rounds"):
        Comparison(t, t)


def test_order_statistic_interval_covers_at_least_95_percent():
    from helpers.bench import order_statistic_ci
    for n in range(6, 60):
        low, high, coverage = order_statistic_ci(range(n))
        assert coverage >= 0.95 and low <= (n - 1) / 2 <= high
    assert order_statistic_ci(range(1, 10))[:2] == (2, 8)      # n = 9: the 2nd smallest and 2nd largest (96.1 %)


def test_compare_randomises_the_order_within_each_round():
    order = []
    compare(lambda: order.append("a"), lambda: order.append("b"), warmup=1, rounds=20, min_run_time=0.004)
    starts = [order[i + 1] for i in range(len(order) - 1) if order[i] != order[i + 1]]   # each switch of side
    assert {"a", "b"} <= set(starts) and len(starts) >= 20


def test_paired_takes_pairs_timed_elsewhere_and_refuses_unpaired_lists():
    c = paired([10.0, 11.0, 10.5, 10.2, 10.8, 10.1, 10.4], [5.0, 5.5, 5.2, 5.1, 5.4, 5.0, 5.2], labels=("e2e/tokens", "ttft"))
    assert c.verdict == "faster" and 1.9 < c.ratio < 2.1
    with pytest.raises(ValueError, match="one pair per run"):
        paired([1.0, 2.0], [1.0], labels=("a", "b"))


def test_every_comparison_goes_to_the_verdict_log_when_asked(tmp_path, monkeypatch):
    import json
    log = tmp_path / "verdicts.jsonl"
    monkeypatch.setenv("WORKBOOK_VERDICT_LOG", str(log))
    compare(sleep_ms(3), sleep_ms(1), labels=("slow", "fast"), min_run_time=0.05)
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(entries) == 1 and entries[0]["a"] == "slow" and entries[0]["verdict"] == "faster"
    assert len(entries[0]["ci"]) == 2 and entries[0]["rounds"] >= MIN_ROUNDS


def test_thread_policy_puts_torch_on_one_cpu_thread(monkeypatch):
    from helpers.bench import thread_policy
    before = torch.get_num_threads()
    try:
        monkeypatch.delenv("WORKBOOK_THREADS", raising=False)
        assert "1 CPU thread" in thread_policy("cpu") and torch.get_num_threads() == 1
        monkeypatch.setenv("WORKBOOK_THREADS", "2")
        assert "2 CPU threads" in thread_policy("cpu") and torch.get_num_threads() == 2
        monkeypatch.setenv("WORKBOOK_THREADS", "many")
        with pytest.raises(ValueError, match="whole number"):
            thread_policy("cpu")
    finally:
        torch.set_num_threads(before)


def test_one_thread_computing_is_timed_in_cpu_time_and_a_call_that_sleeps_by_the_wall_clock():
    before = torch.get_num_threads()
    x = torch.randn(512, 512)
    try:
        torch.set_num_threads(1)
        busy = measure(torch.mm, x, x, min_run_time=0.05)
        assert busy.clock == "cpu" and busy.method.endswith("CPU time") and "CPU time" in str(busy)
        sleepy = measure(sleep_ms(2), min_run_time=0.05)
        assert sleepy.clock == "wall" and sleepy.median_ms >= 2           # CPU time would miss the sleep
        mixed = compare(lambda: torch.mm(x, x), sleep_ms(1), labels=("mm", "sleep"), min_run_time=0.05)
        assert mixed.a.clock == mixed.b.clock == "wall"                  # both sides on one clock
        if (os.cpu_count() or 1) > 1:
            torch.set_num_threads(2)                                     # another thread's work: the wall clock
            assert measure(torch.mm, x, x, min_run_time=0.05).clock == "wall"
    finally:
        torch.set_num_threads(before)


def _spin():
    while True:
        pass


def _cpu_seconds(pid: int) -> float:
    """A process's user + system CPU seconds, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_the_load_meter_counts_other_programs_not_this_one():
    """Its own busy loop is not counted; a spinning child's CPU time is. Judged against what each one really used, so
    it holds on a machine that other programs (pytest's other workers) keep busy, where a spinner only takes cores
    from them and the total cannot rise."""
    import multiprocessing as mp
    from helpers.bench import LoadMeter, other_load
    if other_load(0.1) is None:
        pytest.skip("no /proc/stat here")
    quiet = other_load(0.3) < 0.2
    meter = LoadMeter().start()
    t0 = time.process_time()
    while time.process_time() - t0 < 0.3:     # this process busy: its own time must not count as other programs'
        pass
    alone = meter.stop()
    if quiet:                                 # nothing else ran: only our own 0.3 s could have been counted
        assert alone < 0.5, alone
    spinner = mp.get_context("spawn").Process(target=_spin, daemon=True)
    spinner.start()
    try:
        time.sleep(0.5)
        c0, w0 = _cpu_seconds(spinner.pid), time.perf_counter()
        meter = LoadMeter().start()
        time.sleep(0.4)
        with_spinner = meter.stop()
        c1, w1 = _cpu_seconds(spinner.pid), time.perf_counter()
    finally:
        spinner.kill()
    spun = (c1 - c0) / (w1 - w0)              # cores' worth the spinner used in the window
    assert spun > 0.1, spun
    assert with_spinner >= 0.8 * spun - 0.05, (with_spinner, spun)


def test_compare_needs_distinct_labels():
    with pytest.raises(ValueError):
        compare(lambda: None, lambda: None, labels=("x", "x"))


def test_sweep_rows_and_table():
    fns = {"add": torch.add, "mul": torch.mul}
    rows = sweep(fns, lambda n: (torch.randn(n), torch.randn(n)), [100, 10_000], min_run_time=0.02)
    assert len(rows) == 4
    assert {(r["size"], r["label"]) for r in rows} == {(s, k) for s in (100, 10_000) for k in fns}
    for r in rows:
        assert {"median_ms", "q25_ms", "q75_ms", "min_ms", "n", "device", "method", "iqr_ms", "threads"} <= set(r)
        assert r["q25_ms"] <= r["median_ms"] <= r["q75_ms"] and r["n"] >= MIN_ROUNDS
        if r["label"] == "mul":      # the verdict against the baseline (the first label), from the same rounds
            assert r["speedup_low"] <= r["speedup"] <= r["speedup_high"] and r["verdict"] in ("faster", "slower", "no difference")
        else:
            assert "verdict" not in r
    text = table(rows)
    lines = [line for line in text.splitlines() if line.startswith("|")]    # a ⚠ footnote follows when rows were noisy
    assert lines[0].split("|")[1].strip() == "size" and "median_ms" in lines[0] and len(lines) == 2 + 4
    assert len({len(line) for line in lines}) == 1  # aligned


def test_sweep_accepts_a_single_tensor_from_make_args():
    rows = sweep({"relu": torch.relu, "sigmoid": torch.sigmoid}, lambda n: torch.randn(n), [64], min_run_time=0.01)
    assert rows[0]["label"] == "relu" and rows[0]["size"] == 64


def test_table_of_timings_and_comparison():
    t = Timing("eager", "cpu", "torch.utils.benchmark", 0.182, 0.180, 0.185, 0.17, 100)
    u = Timing("compiled", "cpu", "torch.utils.benchmark", 0.0366, 0.036, 0.037, 0.035, 100)
    assert "eager" in table(t) and "size" not in table(t)
    c = Comparison(t, u, [4.9, 4.95, 4.96, 4.97, 4.97, 4.98, 5.0])
    text = table(c)
    assert "eager" in text and "compiled" in text and "0.182" in text
    assert str(t) == "eager: 0.182 ms (IQR 0.00500, n=100, cpu)"
    assert "compiled is 4.97× faster than eager (95 % CI 4.90–5.00×); 7 paired rounds, cpu" in str(c)


def test_table_marks_a_noisy_timing_in_any_column():
    quiet = Timing("eager", "cpu", "torch.utils.benchmark", 0.182, 0.180, 0.185, 0.17, 100)
    noisy = Timing("compiled", "cpu", "torch.utils.benchmark", 0.0366, 0.01, 0.09, 0.005, 100)
    text = table([{"elements": 10, "eager ms": quiet, "compiled ms": noisy}], columns=("elements", "eager ms", "compiled ms"))
    row = next(line for line in text.splitlines() if line.startswith("| ") and "10" in line)
    assert "0.182 |" in row and "0.0366 ⚠" in row and "0.182 ⚠" not in row
    assert "settle nothing alone" in text
    assert "⚠" not in table([{"elements": 10, "eager ms": quiet}], columns=("elements", "eager ms"))


def test_fmt_ms():
    assert fmt_ms(0.182) == "0.182" and fmt_ms(12.345) == "12.3" and fmt_ms(1234.5) == "1234"
    assert fmt_ms(0.00264) == "0.00264" and fmt_ms(0.0) == "0"


@pytest.mark.gpu
@needs_cuda
def test_measure_on_gpu_waits_for_the_kernels():
    x = torch.randn(4096, 4096, device="cuda")
    t = measure(torch.mm, x, x, label="mm", min_run_time=0.05)
    assert t.method.endswith("wall clock") and t.clock == "wall" and t.device.startswith("cuda")
    assert 0 < t.q25_ms <= t.median_ms <= t.q75_ms
    small = measure(torch.mm, x[:256, :256], x[:256, :256], min_run_time=0.05)
    assert t.median_ms > 5 * small.median_ms
    c = compare(lambda: x @ x, lambda: x[:256] @ x, labels=("big", "small"), device="cuda", min_run_time=0.05)
    assert c.ratio > 2 and c.verdict == "faster" and "cuda" in str(c)


def test_a_single_timing_is_flagged_when_its_spread_or_other_programs_make_it_unsettled():
    calm = summarize([1.0, 1.01, 0.99, 1.0, 1.02], "calm", "cpu", "test", other_load=0.1)
    wild = summarize([0.2, 0.3, 5.0, 6.0, 0.25, 7.0], "wild", "cpu", "test")
    loaded = summarize([20.0, 20.1, 19.9, 20.0, 20.2], "loaded", "cpu", "test", other_load=1.8)   # tight, but 10× slow
    assert not calm.noisy and wild.noisy and loaded.noisy
    assert "noisy" in str(wild) and "⚠" not in str(calm)
    assert "other programs used 1.8 cores meanwhile" in str(loaded) and "bench.compare" in str(loaded)
    assert "⚠" in table([calm, wild]) and "⚠" not in table([calm])


def test_cpu_contention_is_a_warning_or_nothing():
    from helpers.bench import cpu_contention
    got = cpu_contention()
    assert got is None or ("other programs used" in got and "Close other programs" in got)


def test_moses_rank_matches_the_mann_whitney_tables():
    from helpers.bench import moses_rank

    # two-sided 5 % critical U of the tables (reject when U ≤ it) + 1: the rank of the interval's ends
    assert [moses_rank(n, m)[0] for n, m in ((9, 9), (10, 10), (20, 20), (5, 8))] == [18, 24, 128, 7]
    assert all(moses_rank(n, m)[1] >= 0.95 for n, m in ((9, 9), (10, 10), (20, 20), (5, 8), (60, 60)))
    k, coverage = moses_rank(3, 3)            # 20 arrangements: the extremes are all it has, at 90 %
    assert k == 1 and coverage == pytest.approx(0.9)


def test_a_gap_inside_the_noise_band_reads_as_too_small_not_as_unresolved():
    from helpers import figures
    from helpers.bench import SAME, paired

    a = [10.0 + 0.01 * i for i in range(15)]
    c = paired(a, [x / 0.975 for x in a], labels=("A", "B"))      # B steadily 2.5 % slower: the interval excludes 1
    assert c.verdict == SAME and c.ci_high < 1
    assert "no difference larger than the ±3 % that load moves" in c.sentence() and "can resolve" not in c.sentence()
    assert figures.fmt(c.to_dict()).startswith("no difference: within ±3 % (0.97")
    unresolved = paired(a, a[::-1], labels=("A", "B"))
    assert "no difference this machine can resolve right now" in unresolved.sentence()
    assert figures.fmt(unresolved.to_dict()).startswith("no difference (")


def test_unpaired_verdicts_from_two_separate_sets_of_runs():
    from helpers.bench import FASTER, SAME, SLOWER, unpaired

    a = [10.0 + 0.1 * i for i in range(9)]
    faster = unpaired(a, [x / 1.5 for x in reversed(a)], labels=("A", "B"))
    assert faster.verdict == FASTER and faster.ratio == pytest.approx(1.5, rel=0.02) and faster.n == 9
    assert faster.sentence().startswith("B is 1.5") and "95 % CI" in faster.sentence()
    assert "unpaired" in str(faster) and "Mann–Whitney" in str(faster)
    assert unpaired(a, [x * 1.5 for x in a], labels=("A", "B")).verdict == SLOWER
    same = unpaired(a, a[::2], labels=("A", "B"))
    assert same.verdict == SAME and "no difference this machine can resolve" in same.sentence()
    with pytest.raises(ValueError, match="both sides"):
        unpaired(a, [], labels=("A", "B"))


def test_copy_bandwidth_is_bytes_per_second_of_a_copy():
    """Read plus write of the copied bytes over the fastest block: a positive, finite figure on any device."""
    import math

    from helpers import bench

    gbps = bench.copy_bandwidth("cpu", torch.float32, numel=1 << 16, min_run_time=0.05) / 1e9
    assert math.isfinite(gbps) and gbps > 0.01


def test_a_block_stretched_by_a_wait_does_not_fix_the_block_size_at_one_call():
    """One call that spends its time off the CPU (here a sleep; on a busy machine, another program's turn on the
    core) must not settle the block size: single calls time their cold caches, not the call."""
    from helpers import bench

    calls = []

    def fn():
        calls.append(1)
        if len(calls) == 1:
            time.sleep(0.05)          # the first call: 50 ms of wall clock, almost no CPU time

    number, block_s = bench._block_size(fn, (), torch.device("cpu"), target_s=0.01)
    assert number > 100, number
    assert block_s < 0.05, block_s


def test_inside_wall_clock_only_a_call_that_sleeps_is_timed_by_the_wall_clock():
    """A check whose stand-in op sleeps judges the unit against the sleep: CPU time, which misses the sleep, is off
    there, even for a call that computes half its time on one thread (elsewhere timed in CPU time)."""
    def compute_then_nap():
        end = time.thread_time() + 0.001
        while time.thread_time() < end:
            pass
        time.sleep(0.001)

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with wall_clock_only():
            t = measure(compute_then_nap, min_run_time=0.05)
    finally:
        torch.set_num_threads(threads)
    assert t.clock == "wall" and t.q25_ms >= 2.0


def test_linear_gelu_sweep_tries_only_tiles_that_fit_and_cover_m():
    """benchmarks/linear_gelu.py --sweep: one BLOCK_M covers M (16 to 64), every config fits the shared memory."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import linear_gelu

    smem = lambda bm, bn, bk, stages, itemsize: stages * (bm * bk + bk * bn) * itemsize
    configs = linear_gelu.sweep_configs(16, smem, 232_448)
    assert configs and {c["BLOCK_M"] for c in configs} == {16}
    assert all(smem(c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"], c["num_stages"], 2) <= 232_448 for c in configs)
    assert all(c["BLOCK_N"] == 16 for c in configs if c["num_warps"] == 1)
    assert {c["BLOCK_M"] for c in linear_gelu.sweep_configs(1, smem, 232_448)} == {16}
    assert {c["BLOCK_M"] for c in linear_gelu.sweep_configs(40, smem, 232_448)} == {64}
    small = linear_gelu.sweep_configs(16, smem, 48 * 1024)
    assert 0 < len(small) < len(configs) and max(c["BLOCK_K"] * c["num_stages"] for c in small) <= 768


def test_shortest_timings_takes_the_fewest_samples_whatever_the_budget():
    """A check that runs a timing function only to see what it does (Lab 01's sweep on another device) times it
    with the fewest samples: MIN_SAMPLES blocks for measure, MIN_ROUNDS rounds for compare, and nothing longer."""
    from helpers import bench

    x = torch.ones(4)
    t0 = time.perf_counter()
    with bench.shortest_timings():
        t = bench.measure(lambda v: v + 1, x, min_run_time=5.0)
        r = bench.compare_many({"a": lambda: x + 1, "b": lambda: x * 2}, min_run_time=5.0)
    assert time.perf_counter() - t0 < 2.0
    assert t.n == bench.MIN_SAMPLES and len(r.timing("a").times_ms) == bench.MIN_ROUNDS
    assert bench.measure(lambda v: v + 1, x, min_run_time=0.3).n > bench.MIN_SAMPLES     # outside it: the budget
