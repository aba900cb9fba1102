"""helpers.widgets: each explorer builds from real inputs, redraws when a control moves, and falls back to
a static figure (never an error) when ipywidgets cannot be imported."""

import sys
from pathlib import Path

import pytest
from matplotlib.figure import Figure

from helpers import widgets
from helpers.inductor import load_dump
from helpers.llm_bench.generation import GenerationResult

FIXTURES = Path(__file__).resolve().parents[1] / "solutions" / "hidden" / "dumps"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

def _sweep_row(size, label, ms, eager_ms):
    """A row as bench.sweep makes it: the non-baseline rows carry their paired verdict against eager."""
    row = {"size": size, "label": label, "median_ms": ms, "q25_ms": ms * 0.9, "q75_ms": ms * 1.2, "device": "cpu"}
    if label != "eager":
        r = eager_ms / ms
        row.update(speedup=r, speedup_low=r * 0.95, speedup_high=r * 1.05,
                   verdict="faster" if r * 0.95 > 1.03 else "slower" if r * 1.05 < 1 / 1.03 else "no difference")
    return row


ROWS = [_sweep_row(s, k, m, ms[0])
        for s, ms in ((1_024, (0.01, 0.02)), (65_536, (0.05, 0.04)), (1_048_576, (1.0, 0.4)))
        for k, m in zip(("eager", "compiled"), ms)]
BYTES = {"eager": lambda n: 5 * 2 * 4 * n, "compiled": lambda n: 2 * 4 * n}   # Lab 01's chain: 5 kernels vs 1


def plan(params_billion: float, n_devices: int, bytes_per_param: int = 2, zero: bool = True) -> dict:
    """A stand-in for Lab 05's parallelism_plan: weights, grads and Adam state, sharded or not."""
    weights = params_billion * bytes_per_param
    state = params_billion * 12
    return {"DDP": {"memory_GB": 2 * weights + state, "comm_GB_per_step": 2 * weights},
            "ZeRO-3": {"memory_GB": (2 * weights + state) / n_devices if zero else 2 * weights + state,
                       "comm_GB_per_step": 3 * weights, "fits_80GB": (2 * weights + state) / n_devices < 80}}


@pytest.fixture
def no_ipywidgets(monkeypatch):
    """Make `import ipywidgets` fail, as on a machine without it."""
    monkeypatch.setitem(sys.modules, "ipywidgets", None)


def assert_static(explorer):
    """The static forms are there: a labelled figure, HTML with the figure in it, text."""
    assert isinstance(explorer.figure, Figure) and explorer.figure.axes
    assert all(ax.get_title() or explorer.figure.get_suptitle() for ax in explorer.figure.axes)
    bundle = explorer._repr_mimebundle_()
    assert bundle["image/png"] and bundle["text/plain"]
    assert bundle["text/html"].startswith('<img src="data:image/png;base64,')
    return bundle


@pytest.mark.parametrize("dump", ["cpu-torch2.13/tinyhead", "cpu-torch2.13/minigpt", "cuda-torch2.11/tinyhead",
                                  "cuda-torch2.11/chain"])
def test_kernel_explorer_shows_each_kernel(dump):
    code = load_dump(FIXTURES / dump)
    ex = widgets.kernel_explorer(code)
    bundle = assert_static(ex)
    assert WIDGET_VIEW in bundle
    pick = ex.controls["kernel"]
    assert [value for _, value in pick.options] == [k.name for k in widgets._kernel_order(code)] + [widgets.MODULE]
    shown = code.kernel(pick.value)
    assert shown.name in ex.view.value and all(op in ex.view.value for op in shown.aten_ops)
    assert widgets.COLORS["load"] in ex.view.value and widgets.COLORS["store"] in ex.view.value
    for name in [value for _, value in pick.options if value not in (shown.name, widgets.MODULE)][:2]:
        before = ex.view.value
        pick.value = name
        assert ex.view.value != before and name in ex.view.value
    pick.value = widgets.MODULE                                   # the whole module: launch order and call()
    assert "def call(" in ex.view.value and "launch" in ex.view.value


def test_kernel_explorer_labels_a_saved_dump_with_its_machine():
    ex = widgets.kernel_explorer(load_dump(FIXTURES / "cuda-torch2.11" / "tinyhead"))
    assert "NVIDIA H100" in ex.figure.axes[0].get_title()


def test_line_roles_mark_loads_stores_and_reductions():
    k = load_dump(FIXTURES / "cpu-torch2.13" / "tinyhead").kernels[0]
    roles = dict(zip(k.source.splitlines(), widgets.line_roles(k)))
    loads = [line for line, r in roles.items() if "load" in r]
    stores = [line for line, r in roles.items() if "store" in r]
    assert any("in_ptr0" in line for line in loads) and any("out_ptr2" in line for line in stores)
    assert any("reduction" in r for r in roles.values())
    triton = load_dump(FIXTURES / "cuda-torch2.11" / "chain").kernels[0]
    roles = dict(zip(triton.source.splitlines(), widgets.line_roles(triton)))
    assert [r for line, r in roles.items() if "tl.load(" in line] == [{"load"}]
    assert [r for line, r in roles.items() if "tl.store(" in line] == [{"store"}]


def test_size_sweep_slider_redraws_at_the_chosen_size():
    ex = widgets.size_sweep(ROWS, bytes_moved=BYTES, title="chain_ops")
    bundle = assert_static(ex)
    assert WIDGET_VIEW in bundle
    slider = ex.controls["size"]
    assert slider.value == 1_048_576 and "2.50× faster than eager (95 % CI 2.38–2.62×)" in ex.figure.axes[1].get_title()
    png, table = ex.view.value, ex.widget.children[-1].value
    assert "41.9 MB" in table and "8.39 MB" in table           # bytes moved, eager and fused
    slider.value = 1_024
    assert ex.view.value != png and ex.widget.children[-1].value != table
    assert "1,024" in ex.figure.axes[1].get_title() and "2.00× slower than eager" in ex.figure.axes[1].get_title()
    assert "GB/s" in ex.widget.children[-1].value


def test_size_sweep_of_rows_made_by_hand_gives_no_verdict_word():
    bare = [{k: v for k, v in r.items() if not k.startswith(("speedup", "verdict"))} for r in ROWS]
    ex = widgets.size_sweep(bare, bytes_moved=BYTES, title="chain_ops")
    title = ex.figure.axes[1].get_title()
    assert "quartiles" in title and "faster" not in title and "slower" not in title


def test_size_sweep_needs_two_labels():
    with pytest.raises(ValueError, match="two or more labels"):
        widgets.size_sweep([r for r in ROWS if r["label"] == "eager"])


def test_size_sweep_without_bytes():
    ex = widgets.size_sweep(ROWS, title="no bytes")
    assert "GB/s" not in ex.figure.axes[1].texts[0].get_text()


def test_parallelism_calculator_updates_live():
    ex = widgets.parallelism_calculator(plan, params_billion=7, n_devices=8, bytes_per_param=2, zero=True,
                                        memory_limit_GB=80)
    bundle = assert_static(ex)
    assert WIDGET_VIEW in bundle and "fits_80GB" in ex.html
    mem = lambda: [p.get_height() for p in ex.figure.axes[0].patches]
    before, png = mem(), ex.view.value
    ex.controls["n_devices"].value = 64
    assert mem()[1] == pytest.approx(before[1] / 8) and mem()[0] == pytest.approx(before[0])
    assert ex.view.value != png
    ex.controls["params_billion"].value = 70
    assert mem()[0] == pytest.approx(before[0] * 10, rel=1e-6)
    ex.controls["zero"].value = False                            # an extra keyword gets its own control
    assert mem()[1] == pytest.approx(mem()[0])


def test_parallelism_calculator_reports_a_refused_combination():
    def picky(params_billion, n_devices):
        if n_devices > 16:
            raise ValueError("tensor parallel stops at one node (16 devices)")
        return plan(params_billion, n_devices)

    ex = widgets.parallelism_calculator(picky, params_billion=1, n_devices=8)
    ex.controls["n_devices"].value = 64
    assert "one node" in ex.widget.children[-1].value


def test_parallelism_calculator_names_missing_keys():
    with pytest.raises(KeyError, match="comm_GB_per_step"):
        widgets.parallelism_calculator(lambda p, n: {"DDP": {"memory_GB": 1.0}})


def test_static_fallback_without_ipywidgets(no_ipywidgets):
    explorers = [widgets.kernel_explorer(load_dump(FIXTURES / "cpu-torch2.13" / "tinyhead")),
                 widgets.size_sweep(ROWS, bytes_moved=BYTES),
                 widgets.parallelism_calculator(plan, params_billion=7, n_devices=8)]
    for ex in explorers:
        assert ex.widget is None and ex.controls == {}
        bundle = assert_static(ex)
        assert WIDGET_VIEW not in bundle
    assert "cpp_fused__softmax_0" in explorers[0].html
    assert explorers[1].html.count("<table") == 3                 # one table per measured size
    assert "ZeRO-3" in explorers[2].text



def test_token_timeline_shows_ttft_and_gaps():
    run = GenerationResult(prompt_tokens=3, batch=1, start_s=10.0, token_times_s=[10.1, 10.11, 10.12, 10.15])
    explorer = widgets.token_timeline({"streamed": run, "from json": run.summary()}, device_label="cpu")
    bundle = explorer._repr_mimebundle_()
    assert {"text/plain", "image/png", "text/html"} <= set(bundle)
    assert "TTFT 100" in explorer.text                    # the first point is TTFT, not a gap
    assert "naive TTFT 37.5 ms" in explorer.text             # e2e 150 ms over 4 tokens
    assert explorer.text.count("\n") == 1                      # one line per run
