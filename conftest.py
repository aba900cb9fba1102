"""pytest set-up shared by every test: CPU by default, headless plots, device-aware skips.

nbval collects the solution notebooks (`pytest --nbval-lax solutions/`): the
first cell tagged `parameters` is followed by an injected QUICK=True cell.
"""

import os

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")


def _cuda_available() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    """Skip tests marked gpu when there is no CUDA device, with a reason that says so."""
    if _cuda_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (none on this machine)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
