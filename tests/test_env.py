"""Tests for helpers/env.py: device choice, labels, and the doctor's report."""

import pytest
import torch

from helpers import env
from helpers.env import Finding, device_label, doctor, doctor_exit_code, format_findings, pick_device, scaled, versions

no_cuda = pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only behaviour")
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

TOPICS = {"python", "torch", "triton", "device", "c++ compiler", "inductor compile", "triton kernel",
          "inductor cache", "disk space", "jupyter", "grading sandbox"}


@no_cuda
def test_auto_picks_cpu_without_gpu():
    assert pick_device("auto") == torch.device("cpu")
    assert pick_device("cpu") == torch.device("cpu")


@no_cuda
def test_cuda_without_gpu_says_what_to_do():
    with pytest.raises(RuntimeError, match='DEVICE = "cpu"') as e:
        pick_device("cuda")
    assert "auto" in str(e.value)


def test_unknown_device_is_rejected():
    with pytest.raises(ValueError, match="auto"):
        pick_device("tpu")


def test_versions_and_label():
    v = versions("cpu")
    assert set(v) >= {"python", "torch", "triton", "cuda", "device", "capability", "cpu_count"}
    assert v["cpu_count"] >= 1
    label = device_label("cpu")
    assert label.startswith("CPU (") and f"torch {torch.__version__.split('+')[0]}" in label
    if v["triton"]:
        assert f"triton {v['triton']}" in label


def test_scaled():
    assert scaled(1000, 10, QUICK=True) == 10
    assert scaled(1000, 10, QUICK=False) == 1000


def test_doctor_fast_checks_are_valid():
    findings = doctor(subprocess_checks=False)
    names = {f.name for f in findings}
    assert names == TOPICS - {"inductor compile", "triton kernel"}
    for f in findings:
        assert f.status in ("ok", "warn", "fail"), f
        assert f.detail
        if f.status != "ok":
            assert f.fix, f"{f.name} is {f.status} but has no fix"


@pytest.mark.slow
def test_doctor_full_passes_here():
    findings = doctor(timeout=300)
    assert {f.name for f in findings} == TOPICS
    by_name = {f.name: f for f in findings}
    assert by_name["inductor compile"].status == "ok", by_name["inductor compile"]
    assert by_name["triton kernel"].status == "ok", by_name["triton kernel"]
    assert doctor_exit_code(findings) == 0, format_findings(findings)


def test_exit_code_and_format():
    ok = [Finding("python", "ok", "3.12"), Finding("jupyter", "warn", "missing: nbval", "run make lab")]
    assert doctor_exit_code(ok) == 0
    bad = ok + [Finding("c++ compiler", "fail", "none found", "apt-get install g++")]
    assert doctor_exit_code(bad) != 0
    text = format_findings(bad)
    assert "✅ python" in text and "⚠️" in text and "❌ c++ compiler" in text
    assert "apt-get install g++" in text and "run make lab" in text


@pytest.mark.parametrize("absent, status, advice", [
    ({"jupyterlab"}, "warn", "pip install -e '.[lab]'"),      # `make lab` installs only when it creates .venv
    ({"nbval"}, "ok", "pip install -e '.[test]'"),           # only tests need nbval: not a warning for learners
    (set(), "ok", "nbval importable")])
def test_jupyter_finding_names_the_command_that_installs_what_is_missing(monkeypatch, absent, status, advice):
    real = env.importlib.util.find_spec
    monkeypatch.setattr(env.importlib.util, "find_spec", lambda name, *a: None if name in absent else real(name, *a))
    finding = env._check_jupyter()
    assert finding.status == status and advice in f"{finding.detail} {finding.fix}"
    assert "make lab" not in (finding.fix or "").split("(")[0]


def test_snippet_failure_reports_last_error_line():
    ok, err = env._run_snippet("raise ValueError('boom')", [], timeout=60)
    assert not ok and "ValueError: boom" in err
    ok, err = env._run_snippet("import time; time.sleep(10)", [], timeout=1)
    assert not ok and "timed out" in err


def test_unwritable_cache_dir_fails_with_fix(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    f = env._check_cache_dir(blocker / "cache")
    assert f.status == "fail" and "TORCHINDUCTOR_CACHE_DIR" in f.fix


def test_cache_dir_follows_env(monkeypatch, tmp_path):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "ind"))
    assert env.inductor_cache_dir() == (tmp_path / "ind").resolve()
    assert env._check_cache_dir(env.inductor_cache_dir()).status == "ok"


@pytest.mark.gpu
@needs_cuda
def test_gpu_device_and_label():
    assert pick_device("auto").type == "cuda"
    assert pick_device("cuda").type == "cuda"
    v = versions("cuda")
    assert v["capability"] and v["device"] == torch.cuda.get_device_name(0)
    assert device_label("cuda").startswith(torch.cuda.get_device_name(0))
    assert env._check_device().status == "ok"


def test_lab_support_names_what_a_missing_tool_stops():
    from helpers.env import LAB_NEEDS, lab_support
    ok = [Finding("triton", "ok", "3.9"), Finding("inductor compile", "ok", "runs"), Finding("device", "ok", "cpu")]
    lines = lab_support(ok)
    assert len(lines) == len(LAB_NEEDS) and all(line.startswith("✅") for line in lines)
    no_triton = lab_support([Finding("triton", "warn", "missing"), *ok[1:]])
    lab03 = next(line for line in no_triton if "Lab 03" in line)
    assert lab03.startswith("⚠️") and "Triton" in lab03 and "parts 3–5, 7 and 8" in lab03
    assert next(line for line in no_triton if "Lab 02" in line).startswith("✅")
    no_cc = lab_support([ok[0], Finding("inductor compile", "fail", "no g++"), ok[2]])
    assert next(line for line in no_cc if "Lab 04" in line).startswith("⚠️")


def test_workbook_run_lists_the_cells_that_raised(tmp_path):
    """`workbook run NN` on an unfinished lab runs every cell and names, one line each, the cells that raised."""
    import nbformat

    from helpers.cli import cells_that_raised

    nb = nbformat.v4.new_notebook()
    stub = nbformat.v4.new_code_cell("raise NotImplementedError('C: write your solution here')", id="ex-c")
    stub.metadata["workbook"] = {"exercise": "C"}
    stub.outputs = [nbformat.v4.new_output("error", ename="NotImplementedError", evalue="C: write your solution here",
                                           traceback=[])]
    fine = nbformat.v4.new_code_cell("print(1)", id="run-c")
    fine.outputs = [nbformat.v4.new_output("stream", text="1\n")]
    nb.cells = [stub, fine]
    nbformat.write(nb, str(tmp_path / "x.ipynb"))
    assert cells_that_raised(tmp_path / "x.ipynb") == ["cell ex-c (part C): NotImplementedError: C: write your solution here"]
