"""Several grading jobs per GPU (helpers/grading/gpus.py): which GPU each job slot gets, its share of the GPU's
memory, and a submission that runs out of GPU memory beside other jobs graded again alone (never scored 0 for the
grader's choice of --jobs). No GPU is needed: the batch's jobs are stood in for."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from helpers import env
from helpers.checks import Result
from helpers.grading import batch, gpus
from helpers.grading.gradebook import SubmissionResult

ROOT = Path(__file__).resolve().parents[1]


def test_slots_are_dealt_over_the_gpus_in_turn_with_a_share_each():
    plan = gpus.GpuPlan(("0", "1"), 5)
    assert [plan.gpu_of(s) for s in range(1, 6)] == ["0", "1", "0", "1", "0"]
    assert [plan.sharing(s) for s in range(1, 6)] == [3, 2, 3, 2, 3]
    assert plan.env(1) == {"CUDA_VISIBLE_DEVICES": "0", env.GPU_SHARE_ENV: "0.317"}
    assert plan.env(2) == {"CUDA_VISIBLE_DEVICES": "1", env.GPU_SHARE_ENV: "0.475"}
    assert plan.env(0, alone=True) == plan.env(3, alone=True) == {"CUDA_VISIBLE_DEVICES": "0"}   # the warm-up, a retry
    assert gpus.GpuPlan(("0",), 1).env(1) == {"CUDA_VISIBLE_DEVICES": "0"}   # one job: the whole GPU, no cap
    assert gpus.GpuPlan(("3", "5"), 2).describe() == "GPU 3: 1 job, GPU 5: 1 job"
    assert plan.describe() == "GPU 0: 3 jobs (32% of its memory each), GPU 1: 2 jobs (48% of its memory each)"


def test_a_lab_with_one_process_per_gpu_gets_a_group_of_gpus_per_job(tmp_path):
    assert gpus.gpus_per_job("05") == 2 and gpus.gpus_per_job("01") == 1
    two = gpus.GpuPlan(("0", "1"), 3, per_job=2)          # Lab 05 on a 2-GPU host: every job sees both GPUs
    assert [two.gpu_of(s) for s in range(1, 4)] == ["0,1"] * 3
    assert two.env(2) == {"CUDA_VISIBLE_DEVICES": "0,1", env.GPU_SHARE_ENV: "0.317"}
    assert two.env(0, alone=True) == {"CUDA_VISIBLE_DEVICES": "0,1"}
    assert two.describe() == "GPUs 0,1: 3 jobs (32% of their memory each)"
    four = gpus.GpuPlan(("0", "1", "2", "3", "4"), 2, per_job=2)   # an odd GPU out is left idle, not half a group
    assert [four.gpu_of(s) for s in (1, 2, 3)] == ["0,1", "2,3", "0,1"] and four.share(1) is None
    one = gpus.GpuPlan(("0",), 2, per_job=2)              # one GPU: one each; the lab runs its ranks with gloo
    assert one.gpu_of(1) == "0" and one.sharing(1) == 2
    settings = batch.Settings(lab="05", out=tmp_path, jobs=2, device="cuda", gpus="0,1")
    assert settings.gpu_plan().gpu_of(1) == "0,1"
    assert batch.Settings(lab="01", out=tmp_path, jobs=2, device="cuda", gpus="0,1").gpu_plan().gpu_of(2) == "1"


def test_visible_gpus(monkeypatch):
    assert gpus.visible_gpus("0, 2") == ["0", "2"]
    with pytest.raises(ValueError, match="--gpus 0,1"):
        gpus.visible_gpus(",")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "GPU-aaa,GPU-bbb")
    assert gpus.visible_gpus() == ["GPU-aaa", "GPU-bbb"]
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    with pytest.raises(ValueError, match="--device cpu"):
        gpus.visible_gpus()


def test_an_out_of_memory_error_is_told_from_a_mention_of_one():
    def notebook(*outputs, source=""):
        return json.dumps({"cells": [{"cell_type": "code", "source": source, "outputs": list(outputs)}]}).encode()

    oom = {"output_type": "error", "ename": "OutOfMemoryError", "evalue": "CUDA out of memory. Tried to allocate 2 GiB"}
    assert gpus.ran_out_of_memory(notebook(oom), [])
    assert gpus.ran_out_of_memory(notebook(), ["07.static_decode: RuntimeError: CUDA error: out of memory"])
    assert not gpus.ran_out_of_memory(notebook(source="except torch.OutOfMemoryError: ..."), ["wrong shape"])
    assert not gpus.ran_out_of_memory(notebook({"output_type": "error", "ename": "ValueError", "evalue": "x"}), [])
    assert not gpus.ran_out_of_memory(b"not json", [])


def test_the_share_is_read_and_refused_clearly(monkeypatch):
    monkeypatch.delenv(env.GPU_SHARE_ENV, raising=False)
    assert env.gpu_share() is None
    monkeypatch.setenv(env.GPU_SHARE_ENV, "0.475")
    assert env.gpu_share() == 0.475
    assert env.apply_gpu_share(torch.device("cpu")) == 0.475   # on a CPU nothing is capped
    capped = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "set_per_process_memory_fraction", lambda share, index: capped.append((share, index)))
    env.apply_gpu_share(torch.device("cuda"))      # torch wants an index: "cuda" alone is refused there
    env.apply_gpu_share(torch.device("cuda:1"))
    assert capped == [(0.475, 0), (0.475, 1)]
    for bad in ("half", "0", "1.5"):
        monkeypatch.setenv(env.GPU_SHARE_ENV, bad)
        with pytest.raises(ValueError, match=r"number in \(0, 1\]"):
            env.gpu_share()


def test_out_of_memory_beside_other_jobs_is_graded_again_alone(tmp_path, monkeypatch):
    """Four submissions on one GPU with --jobs 2: 'big' runs out of memory whenever it shares the GPU. It is graded
    again after the batch, alone with the whole GPU, and scores what it deserves; the others are graded once."""
    folder = tmp_path / "subs"
    folder.mkdir()
    for name in ("a", "b", "big", "c"):
        shutil.copy(ROOT / "labs" / "02_fx_rewrites.ipynb", folder / f"{name}.ipynb")
    calls = []

    def fake_grade_one(path, settings, kit, slot, warm, keep_cache=None, gpu_env=None):
        calls.append((path.stem, dict(gpu_env or {})))
        shared = env.GPU_SHARE_ENV in (gpu_env or {})
        oom = path.stem == "big" and shared
        checks = [Result(s.name, "failed" if oom else "passed", 0 if oom else s.points, s.points,
                         "OutOfMemoryError: CUDA out of memory" if oom else "ok") for s in kit.specs]
        result = SubmissionResult(submission=path.stem, key=batch.submission_key(path), sha256=batch.file_hash(path),
                                  lab=settings.lab, status="ok", message="", checks=checks)
        result.gpu_oom = gpus.ran_out_of_memory(None, [c.message for c in checks])
        return result

    monkeypatch.setattr(batch, "grade_one", fake_grade_one)
    monkeypatch.setattr(batch, "warm_up", lambda settings, lab_nb, specs, hidden_lab, progress, plan:
                        batch.LabKit(lab_nb, specs, hidden_lab, {}))
    monkeypatch.setattr(gpus, "visible_gpus", lambda requested=None: ["0"])
    settings = batch.Settings(lab="02", out=tmp_path / "grades", jobs=2, device="cuda")
    results = {r.submission: r for r in batch.grade([folder], settings, progress=False)}
    assert sorted(results) == ["a", "b", "big", "c"]
    top = results["a"].max_total
    assert all(r.total == top for r in results.values()), {k: r.total for k, r in results.items()}
    assert [c for c in calls if c[0] == "big"] == [("big", {"CUDA_VISIBLE_DEVICES": "0", env.GPU_SHARE_ENV: "0.475"}),
                                                   ("big", {"CUDA_VISIBLE_DEVICES": "0"})]
    assert sum(1 for c in calls if c[0] != "big") == 3
    assert any("graded alone" in n.lower() for n in results["big"].notes)
    assert "graded again alone" in (settings.out / "grader.log").read_text()


def test_the_warm_up_is_redone_on_another_gpu_model_and_kept_on_the_same(tmp_path, monkeypatch):
    """A gradebook warmed on one GPU model is warmed again on another (its compiled kernels are that model's), and
    reused as it is on the same model."""
    graded = []

    def fake_grade_one(path, settings, kit, slot, warm, keep_cache=None, gpu_env=None):
        graded.append((slot, dict(gpu_env or {})))
        return SubmissionResult(submission="solution", key="solution", sha256="", lab=settings.lab, status="ok",
                                message="", checks=[Result(s.name, "passed", s.points, s.points, "ok") for s in kit.specs])

    monkeypatch.setattr(batch, "grade_one", fake_grade_one)
    monkeypatch.setattr(batch.references, "references", lambda *a, **k: {})
    settings = batch.Settings(lab="02", out=tmp_path, device="cuda", jobs=2)
    plan = gpus.GpuPlan(("0",), 2)
    for model in ("NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3", "NVIDIA H200"):
        monkeypatch.setattr(gpus, "gpu_model", lambda model=model: model)
        batch.warm_up(settings, plan=plan)
    assert graded == [(0, {"CUDA_VISIBLE_DEVICES": "0"})] * 2   # the first H100 and the H200: the whole GPU, no cap
    assert (tmp_path / ".warm" / "gpu-model.txt").read_text() == "NVIDIA H200"
