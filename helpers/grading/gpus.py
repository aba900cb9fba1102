"""Which GPU each grading job runs on, and the share of its memory it may use.

`workbook grade --device cuda --jobs N [--gpus 0,1]` deals its N job slots over the GPUs in turn (slot 1 on the
first, slot 2 on the second, ...). A job sees only its own GPU (CUDA_VISIBLE_DEVICES) and, where k jobs share one,
may fill 0.95 / k of its memory (WORKBOOK_GPU_SHARE, applied by `helpers.env.apply_gpu_share` when the lab picks its
device and again before the checks run). A submission that runs out of GPU memory beside other jobs is graded again
alone, with the whole GPU, so the grader's choice of N never costs a learner a point.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass

from helpers.env import GPU_SHARE_ENV

HEADROOM = 0.95   # of a GPU's memory, shared out between its jobs; the rest is each CUDA context's own overhead
OOM = re.compile(r"OutOfMemoryError|CUDA out of memory|CUDA error: out of memory")
# Labs whose notebook runs one process per GPU: Lab 05 launches WORLD = 2 NCCL ranks, so each of its jobs gets a group
# of two GPUs where the host has them (with one GPU its ranks run on the CPU with gloo, as the lab says).
GPUS_PER_JOB = {"05": 2}


def gpus_per_job(lab: str) -> int:
    """How many GPUs one job of `lab` uses: 1, or the number of ranks of a lab that runs one process per GPU."""
    return GPUS_PER_JOB.get(lab, 1)


def visible_gpus(requested: str | None = None) -> list[str]:
    """The GPUs to spread jobs over: `requested` ("0,1", the host's numbering, as nvidia-smi shows it), else the
    grader's own CUDA_VISIBLE_DEVICES, else every GPU torch sees.

    Raises ValueError with what to do when there is none."""
    if requested:
        ids = [part.strip() for part in requested.split(",") if part.strip()]
        if not ids:
            raise ValueError(f"--gpus {requested!r}: name the GPUs, e.g. --gpus 0,1")
        return ids
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None and env.strip() not in ("", "-1"):
        return [part.strip() for part in env.split(",") if part.strip()]
    import torch

    n = torch.cuda.device_count()
    if n == 0:
        raise ValueError("--device cuda, but torch sees no CUDA GPU here: grade with --device cpu, or check "
                         "`nvidia-smi` and `workbook doctor`")
    return [str(i) for i in range(n)]


def gpu_model() -> str:
    """The name of the first GPU the grader sees (what a warm compile cache was built for); "" without one."""
    try:
        import torch

        return torch.cuda.get_device_name(0) if torch.cuda.is_available() else ""
    except Exception:
        return ""


@dataclass(frozen=True)
class GpuPlan:
    """Job slots 1..jobs dealt over `gpus` in turn; slot 0 (the warm-up) and a job graded alone get a whole GPU.

    With per_job = k > 1 (a lab that runs one process per GPU) the GPUs are dealt in groups of k ("0,1", "2,3"); a
    host with fewer than k GPUs gives each job one, and the lab runs its ranks as it does on such a machine."""

    gpus: tuple[str, ...]
    jobs: int
    per_job: int = 1

    def groups(self) -> list[str]:
        """The CUDA_VISIBLE_DEVICES values jobs are dealt: single GPUs, or groups of per_job GPUs."""
        k = self.per_job if 1 < self.per_job <= len(self.gpus) else 1
        return [",".join(self.gpus[i:i + k]) for i in range(0, len(self.gpus) - k + 1, k)]

    def gpu_of(self, slot: int) -> str:
        groups = self.groups()
        return groups[(max(slot, 1) - 1) % len(groups)]

    def sharing(self, slot: int) -> int:
        """How many job slots share this slot's GPU."""
        if slot <= 0:
            return 1
        gpu = self.gpu_of(slot)
        return sum(1 for s in range(1, self.jobs + 1) if self.gpu_of(s) == gpu)

    def share(self, slot: int) -> float | None:
        """The share of GPU memory this slot's job may fill; None when it has the GPU to itself."""
        k = self.sharing(slot)
        return round(HEADROOM / k, 3) if k > 1 else None

    def env(self, slot: int, alone: bool = False) -> dict[str, str]:
        """The job's CUDA_VISIBLE_DEVICES and, when it shares its GPU, its WORKBOOK_GPU_SHARE."""
        env = {"CUDA_VISIBLE_DEVICES": self.gpu_of(slot)}
        share = None if alone else self.share(slot)
        if share is not None:
            env[GPU_SHARE_ENV] = f"{share:g}"
        return env

    def describe(self) -> str:
        """e.g. "GPU 0: 3 jobs (32% of its memory each), GPU 1: 2 jobs (48% of its memory each)"."""
        first = {}
        for slot in range(1, self.jobs + 1):
            first.setdefault(self.gpu_of(slot), slot)
        return ", ".join(f"GPU{'s' if ',' in g else ''} {g}: {self.sharing(s)} job{'s' if self.sharing(s) > 1 else ''}"
                         + (f" ({self.share(s):.0%} of {'their' if ',' in g else 'its'} memory each)" if self.share(s) else "")
                         for g, s in first.items())


def ran_out_of_memory(executed: bytes | None, messages: list[str]) -> bool:
    """Whether a job hit CUDA's out-of-memory error: an error output of its executed notebook, or a check's message."""
    errors = []
    try:
        for cell in json.loads(executed or b"{}").get("cells", []):
            errors += [f"{o.get('ename', '')}: {o.get('evalue', '')}" for o in cell.get("outputs", [])
                       if o.get("output_type") == "error"]
    except (ValueError, AttributeError):
        pass
    return any(OOM.search(text or "") for text in [*errors, *messages])
