"""Tests for helpers/figures.py: figures kept by a run, recorded per GPU model, shown beside the learner's own."""

import json

import pytest

from helpers import figures
from helpers.bench import Comparison, summarize


def _entry(value, device="NVIDIA H100 80GB HBM3", gpu=True, torch="2.11.0+cu130"):
    return {"value": value, "provenance": {"device": device, "gpu": gpu, "torch": torch, "triton": "3.6.0",
                                           "cuda": "13.0", "driver": "580", "python": "3.12.3", "date": "2026-11-26",
                                           "mode": "full"}}


@pytest.fixture
def out_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBOOK_OUT_DIR", str(tmp_path / "out"))
    monkeypatch.setenv("WORKBOOK_DEVICE", "cpu")
    figures._KEPT.clear()
    yield tmp_path / "out"
    figures._KEPT.clear()


def test_keep_writes_the_figure_with_its_machine_and_remembers_it(out_dir):
    a, b = summarize([2.0] * 7, "eager", "cpu", "t"), summarize([1.0] * 7, "compiled", "cpu", "t")
    figures.keep("01.payoff", {"rows": [1, 2.5, float("inf")], "verdict": Comparison(a, b, [2.0] * 7)})
    saved = json.loads((out_dir / "figures.json").read_text())["01.payoff"]
    assert saved["value"]["rows"] == [1, 2.5, "inf"]                  # JSON-safe
    assert saved["value"]["verdict"]["verdict"] == "faster" and saved["value"]["verdict"]["ci"] == [2.0, 2.0]
    assert saved["provenance"]["gpu"] is False and saved["provenance"]["torch"]
    assert figures.kept("01.payoff")["value"] == saved["value"]


def test_record_keeps_gpu_figures_only_one_file_per_model_and_merges(tmp_path):
    run1, run2 = tmp_path / "a.json", tmp_path / "b.json"
    run1.write_text(json.dumps({"03.copy": _entry({"gbps": 2959.7}), "03.cpu_only": _entry(1, "CPU (2 cores)", gpu=False)}))
    run2.write_text(json.dumps({"06.modes": _entry([{"mode": "eager", "ms": 8.8}], "NVIDIA H200")}))
    folder = tmp_path / "gpu_figures"
    written = figures.record([run1, run2], folder)
    assert sorted(p.name for p in written) == ["nvidia-h100-80gb-hbm3.json", "nvidia-h200.json"]
    run3 = tmp_path / "c.json"
    run3.write_text(json.dumps({"03.copy": _entry({"gbps": 2985.0}), "01.floor": _entry(8.3)}))
    figures.record([run3], folder)
    h100 = json.loads((folder / "nvidia-h100-80gb-hbm3.json").read_text())
    assert h100["gpu"] == "NVIDIA H100 80GB HBM3" and set(h100["figures"]) == {"01.floor", "03.copy"}
    assert h100["figures"]["03.copy"]["value"]["gbps"] == 2985.0        # a newer run replaces the figure
    assert set(figures.recorded("03.copy", folder)) == {"NVIDIA H100 80GB HBM3"}


def test_show_labels_every_gpu_and_puts_yours_and_your_model_first(tmp_path, out_dir):
    folder = tmp_path / "gpu_figures"
    for gpu in ("NVIDIA H100 80GB HBM3", "NVIDIA H200"):
        (folder).mkdir(exist_ok=True)
        (folder / f"{figures.slug(gpu)}.json").write_text(json.dumps(
            {"gpu": gpu, "figures": {"06.modes": _entry([{"mode": "eager", "ms": {"median": 8.8, "q25": 8.7, "q75": 9.0}},
                                                         {"mode": "default", "ms": 5.5}], gpu)}}))
    shown = str(figures.show("06.modes", {"mode": "mode", "ms": "step ms"}, folder=folder))
    assert "| where | mode | step ms |" in shown and "8.80 (8.70–9.00)" in shown
    assert shown.index("NVIDIA H100") < shown.index("NVIDIA H200") and "CUDA 13.0" in shown
    figures._KEPT["06.modes"] = _entry([{"mode": "eager", "ms": 7.0}], "NVIDIA H200", torch="2.15.0")
    shown = str(figures.show("06.modes", ["mode", "ms"], folder=folder))
    lines = [line for line in shown.splitlines() if line.startswith("| ")]
    assert lines[1].startswith("| yours | eager | 7.00")
    assert lines[2].startswith("| NVIDIA H200 [2]")                  # the learner's own model comes first
    assert "yours: NVIDIA H200 · torch 2.15.0" in shown


def test_show_without_a_record_says_how_to_make_one(tmp_path, out_dir):
    assert "record_gpu_figures.py" in str(figures.show("99.nothing", folder=tmp_path))


def test_per_gpu_states_a_conclusion_for_each_gpu(tmp_path, out_dir):
    folder = tmp_path / "gpu_figures"
    folder.mkdir()
    for gpu, r in (("NVIDIA H100 80GB HBM3", 0.66), ("NVIDIA H200", 1.09)):
        (folder / f"{figures.slug(gpu)}.json").write_text(json.dumps({"gpu": gpu, "figures": {"03.k": _entry(r, gpu)}}))
    text = str(figures.per_gpu("03.k", lambda r: f"{r:.2f}× eager", folder=folder))
    assert "**NVIDIA H100 80GB HBM3**" in text and "0.66× eager" in text and "1.09× eager" in text


def test_the_recorded_files_are_well_formed():
    for gpu, data in figures.gpu_files().items():
        assert data["gpu"] == gpu and data["figures"]
        for key, entry in data["figures"].items():
            prov = entry["provenance"]
            assert key[:2].isdigit() and prov["gpu"] and prov["device"] == gpu
            assert prov["torch"] and prov["triton"] and prov["cuda"] and prov["date"], key


def test_a_benchmarks_kept_figures_are_recorded_without_running_a_lab(tmp_path, capsys):
    """tools/record_gpu_figures.py --kept: a benchmark's figures.json (its --keep) into the GPU's file; a file with
    CPU figures only, or none at all, is refused in words."""
    from tools.record_gpu_figures import main

    kept, cpu, folder = tmp_path / "kept.json", tmp_path / "cpu.json", tmp_path / "gpu_figures"
    kept.write_text(json.dumps({"07.decode_changes": _entry([{"model": "1b", "off_ms": 1.38, "on_ms": 1.36}])}))
    cpu.write_text(json.dumps({"07.decode_changes": _entry([{"off_ms": 0.3}], "CPU (2 cores)", gpu=False)}))
    assert main(["--kept", str(kept), "--out", str(folder)]) == 0
    assert figures.recorded("07.decode_changes", folder)["NVIDIA H100 80GB HBM3"]["value"][0]["on_ms"] == 1.36
    assert main(["--kept", str(cpu), "--out", str(folder)]) == 2
    assert main(["--kept", str(tmp_path / "none.json"), "--out", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "no GPU figure" in err and "no such file" in err


def test_llm_decode_compare_keeps_what_a_change_bought(out_dir):
    """benchmarks/llm_decode.py --compare alternates a backend without and with one switch and keeps a row a backend:
    the medians of each side, their ratio and % of copy bandwidth (the eager tiny model with --fused: no compile)."""
    import sys

    sys.path.insert(0, str(figures.FIGURES_DIR.parents[1] / "benchmarks"))
    import llm_decode

    assert llm_decode.main(["--model", "tiny", "--device", "cpu", "--backend", "eager", "--tokens", "4", "--warmup",
                            "0", "--repeats", "1", "--compare", "fused", "--rounds", "2",
                            "--keep", "07.decode_changes"]) == 0
    row, = json.loads((out_dir / "figures.json").read_text())["07.decode_changes"]["value"]
    assert row["backend"] == "eager" and row["runs"] == 2 and row["change"] == llm_decode.CHANGES["fused"]
    assert row["speedup"] == pytest.approx(row["off_ms"] / row["on_ms"]) and row["on_percent"] > 0


def test_llm_decode_refuses_a_comparison_whose_sides_are_the_same_code(capsys):
    """--compare greedy-in-graph on a backend that compiles nothing would time one step twice: refused in words."""
    import sys

    sys.path.insert(0, str(figures.FIGURES_DIR.parents[1] / "benchmarks"))
    import llm_decode

    with pytest.raises(SystemExit):
        llm_decode.main(["--model", "tiny", "--device", "cpu", "--backend", "eager", "--compare", "greedy-in-graph"])
    assert "eager compiles nothing" in capsys.readouterr().err
