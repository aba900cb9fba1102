"""Tests for helpers/plots.py: every figure has a title with the device label, axis labels and a legend."""

from matplotlib.figure import Figure

from helpers.plots import plot_ratio, plot_roofline, plot_timings, save

ROWS = [
    {"size": s, "label": k, "median_ms": m, "q25_ms": m * 0.9, "q75_ms": m * 1.1, "device": "cpu"}
    for s, ms in ((1_000, (0.01, 0.05)), (100_000, (0.5, 0.2)), (10_000_000, (50.0, 10.0)))
    for k, m in zip(("eager", "compiled"), ms)
]


def assert_labelled(fig, device_label):
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert device_label in ax.get_title()
    assert ax.get_xlabel() and ax.get_ylabel()
    assert ax.get_legend() is not None and ax.get_legend().get_texts()


def test_plot_timings(tmp_path):
    fig = plot_timings(ROWS, title="chain_ops", device_label="TEST-DEV", xlabel="elements")
    assert_labelled(fig, "TEST-DEV")
    assert "(ms)" in fig.axes[0].get_ylabel() and fig.axes[0].get_xlabel() == "elements"
    assert "chain_ops" in fig.axes[0].get_title()
    assert len(fig.axes[0].get_lines()) == 2
    out = save(fig, tmp_path / "figs" / "t.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_timings_default_label_names_this_machine():
    fig = plot_timings(ROWS)
    assert "torch" in fig.axes[0].get_title() and "CPU" in fig.axes[0].get_title()


def test_plot_ratio():
    fig = plot_ratio(ROWS, "eager", "compiled", device_label="TEST-DEV")
    assert_labelled(fig, "TEST-DEV")
    ax = fig.axes[0]
    assert any("below 1" in t.get_text() for t in ax.texts)
    ratios = list(ax.get_lines()[0].get_ydata())
    assert ratios == [0.01 / 0.05, 0.5 / 0.2, 50.0 / 10.0]


def test_plot_roofline(tmp_path):
    fig = plot_roofline(3350, 67_000, [("chain_ops", 0.6, 1800.0), ("matmul", 1000, 50_000.0)], device_label="TEST-DEV")
    assert_labelled(fig, "TEST-DEV")
    assert "FLOP/byte" in fig.axes[0].get_xlabel()
    bw = plot_roofline(3350, points=[("copy", 0.125, 2900.0)], device_label="TEST-DEV")
    assert "GB/s" in bw.axes[0].get_ylabel()
    assert save(bw, tmp_path / "roof.png").exists()


def test_figures_show_as_pictures_in_jupyter():
    """A cell ending in a figure shows a PNG, not "<Figure size ...>", whatever the matplotlib backend."""
    from IPython.core.formatters import PNGFormatter

    fig = plot_timings(ROWS, device_label="TEST-DEV")
    assert PNGFormatter()(fig)[:8] == b"\x89PNG\r\n\x1a\n"


def test_payoff_plot_says_what_each_verdict_means_and_draws_the_band():
    rows = [{"mode": "eager", "first_steps_s": 0.1, "median_ms": 20.0},
            {"mode": "default, cold compile", "first_steps_s": 12.0, "median_ms": 17.0, "verdict": "faster",
             "ci": (1.10, 1.25), "pay_off_steps": 4000, "steps": (4000, 3100, 6000)},
            {"mode": "default, warm compile", "first_steps_s": 0.8, "median_ms": 17.0, "verdict": "faster",
             "ci": (1.10, 1.25), "pay_off_steps": 250, "steps": (250, 200, 400)},
            {"mode": "reduce-overhead, warm compile", "first_steps_s": 0.9, "median_ms": 20.1, "verdict": "no difference",
             "ci": (0.95, 1.04), "pay_off_steps": None, "steps": (None, 400, float("inf"))},
            {"mode": "max-autotune", "first_steps_s": 30.0, "median_ms": 25.0, "verdict": "slower", "ci": (0.7, 0.9),
             "pay_off_steps": float("inf"), "steps": (float("inf"),) * 3}]
    from helpers.plots import plot_payoff
    fig = plot_payoff(rows, device_label="test")
    ax = fig.axes[0]
    box = ax.texts[-1].get_text()
    assert "default, cold compile: pays off after 4,000 steps (3,100–6,000)" in box
    assert "reduce-overhead, warm compile: pay-off not resolved (no difference)" in box
    assert "max-autotune: never pays off (slower)" in box
    assert len(ax.collections) == 4                               # a band per compiled line
    dots = [l for l in ax.get_lines() if l.get_marker() == "o"]
    assert len(dots) == 2                                         # where the two faster lines cross eager's
    modes = [l for l in ax.get_lines() if l.get_marker() != "o"]
    assert [l.get_linestyle() for l in modes].count("--") == 2 and len(modes) == 5     # the warm compiles dashed
    assert ax.get_xlim()[1] >= 1.2 * 6000 * 0.99                  # the interval's far end is on the chart


def test_payoff_dot_sits_where_the_lines_cross_and_lines_that_never_cross_never_pay_off():
    rows = [{"mode": "eager", "first_steps_s": 0.5, "median_ms": 20.0},
            {"mode": "default", "first_steps_s": 2.5, "median_ms": 10.0, "pay_off_steps": 200},
            {"mode": "slow", "first_steps_s": 3.0, "median_ms": 25.0, "pay_off_steps": float("inf")}]
    from helpers.plots import plot_payoff
    ax = plot_payoff(rows, device_label="test").axes[0]
    (dot,) = [l for l in ax.get_lines() if l.get_marker() == "o"]
    n, y = dot.get_xdata()[0], dot.get_ydata()[0]
    assert abs(n - 203) < 1e-6 and abs(y - (0.5 + 200 * 0.020)) < 1e-9        # on both lines
    assert "slow: never pays off (the lines do not cross)" in ax.texts[-1].get_text()
