"""Capture real Inductor dumps of the shared models as test fixtures for helpers/inductor.py.

Runs with plain python3 where torch (and triton, for CUDA) is installed; no Jupyter and no
install of this project needed. Writes DIR/<device>-torch<major.minor>/<model>/ with
output_code.py, the IR before and after fusion, the provenance JSON, the FX graphs and meta.json.

    python3 tools/capture_inductor_fixtures.py --out solutions/hidden/dumps                # CPU
    python3 tools/capture_inductor_fixtures.py --out solutions/hidden/dumps --device cuda  # GPU
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root, for `helpers`

import torch  # noqa: E402

from helpers.inductor import DUMP_FILES, PROVENANCE_FILE, capture  # noqa: E402
from helpers.models import MiniGPT, TinyHead, chain_ops  # noqa: E402


class TrainStep:
    """One training step of a MiniGPT (forward, loss, backward): Inductor writes a forward and a backward module."""

    def __init__(self, model):
        self.model = model

    def __call__(self, idx):
        logits = self.model(idx)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), idx.roll(-1, 1).flatten())
        loss.backward()
        return loss


TRAINING = {"minigpt_train"}   # captured with gradients on; output_code.py holds both modules


def cases(device: str) -> dict:
    """The fixture models and their inputs, on `device`."""
    torch.manual_seed(0)
    return {
        "tinyhead": (TinyHead().eval().to(device), torch.randn(2, 64, device=device)),
        "chain": (chain_ops, torch.randn(1024, 1024, device=device)),
        "minigpt": (MiniGPT(n_layers=1).eval().to(device), torch.randint(0, 600, (2, 32), device=device)),
        "minigpt_train": (TrainStep(MiniGPT(n_layers=1).to(device)), torch.randint(0, 600, (2, 32), device=device)),
    }


def cpu_name() -> str:
    """The CPU's model name (Linux), else what platform knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def meta(device: str, name: str, x: torch.Tensor, seconds: float) -> dict:
    """Versions and device the fixture was captured with."""
    try:
        import triton
        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    cuda = device == "cuda"
    return {
        "model": name,
        "input": {"shape": list(x.shape), "dtype": str(x.dtype)},
        "device": device,
        "device_name": torch.cuda.get_device_name() if cuda else cpu_name(),
        "capability": list(torch.cuda.get_device_capability()) if cuda else None,
        "torch": torch.__version__,
        "triton": triton_version,
        "python": platform.python_version(),
        "compile_seconds": round(seconds, 1),
        "captured": time.strftime("%Y-%m-%d"),
    }


def save(code, out: Path, info: dict, training: bool = False) -> list[str]:
    """Copy the known dump files (no compiled artefacts) into out; return their names.

    A training step's debug folders are one per graph, so its output_code.py is the whole captured code instead."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        old.unlink()
    if training:
        (out / "output_code.py").write_text(code.output_code)
    elif code.debug_dir is not None:
        for name in DUMP_FILES:
            src = code.debug_dir / name
            if src.is_file():
                shutil.copyfile(src, out / name)
    if not (out / "output_code.py").exists():
        (out / "output_code.py").write_text(code.output_code)
    if code.provenance is not None and not (out / PROVENANCE_FILE).exists():
        (out / PROVENANCE_FILE).write_text(json.dumps(code.provenance))
    (out / "meta.json").write_text(json.dumps(info, indent=2) + "\n")
    return sorted(p.name for p in out.iterdir())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="solutions/hidden/dumps", help="fixture root (default: %(default)s)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--only", nargs="*", help="capture only these models (tinyhead chain minigpt minigpt_train)")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("--device cuda asked for, but torch.cuda.is_available() is False on this machine")

    version = ".".join(torch.__version__.split("+")[0].split(".")[:2])
    root = Path(args.out) / f"{args.device}-torch{version}"
    print(f"torch {torch.__version__} on {args.device}: writing fixtures to {root.resolve()}")
    for name, (model, x) in cases(args.device).items():
        if args.only and name not in args.only:
            continue
        start = time.time()
        with tempfile.TemporaryDirectory() as tmp:
            code = capture(model, x, debug_dir=tmp, no_grad=name not in TRAINING)
            seconds = time.time() - start
            files = save(code, root / name, meta(args.device, name, x, seconds), training=name in TRAINING)
        kernels = ", ".join(k.name for k in code.kernels)
        print(f"  {name:<9} {seconds:5.1f} s  {len(code.kernels)} kernels ({kernels})")
        print(f"            -> {root / name}: {', '.join(files)}")


if __name__ == "__main__":
    main()
