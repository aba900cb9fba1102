"""`workbook release`: the learner bundle — labs, the helpers package, set-up files; no solutions, no hidden checks."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

from helpers import notebooks
from helpers.points_table import build_labs

LEARNER_README = """# How PyTorch 2 compiles a model — labs

```bash
make lab      # creates .venv, installs everything, checks the machine, opens JupyterLab (prints the URL)
make doctor   # what is wrong with this machine, and what to do about it
```

Open the lab your instructor named (e.g. `04_inductor_output.ipynb`) and run the cells from the top. After each
exercise a check cell prints ✅, or ❌ with what to fix. Your instructor grades with hidden variants of the same
checks on other inputs, so make your functions work in general. Hand in the notebook file itself.

Run a lab without JupyterLab, every cell from the top (the executed copy is written to `experiments/`; a part not
done yet stops nothing, and the command ends by naming the cells that raised):

```bash
.venv/bin/workbook run 04 --quick      # --quick: small sizes, as grading runs it; --device cpu to leave a GPU alone
```

Benchmark LLM inference on your own machine (Lab 07's runner as a command; `--help` lists every option, including
custom shapes and `compare A.json B.json` for two saved runs):

```bash
.venv/bin/workbook llm-bench --backend eager compiled --workload short-chat --out results.json
# a checkpoint of your own (a local folder in transformers' format; `.venv/bin/python -m pip install transformers`):
.venv/bin/workbook llm-bench --backend hf --hf-model ./my-llama --device cuda --out mine.json
```

`workbook --help` also lists the instructor's commands (build, grade, desk, ...): they need the course repository,
and say so here.

Needs: Python 3.10–3.13 with venv, a C++ compiler (g++), make. A CUDA GPU is optional: every lab runs on a CPU.
Conda instead: `conda env create -f environment.yml`, then `jupyter lab labs/`.
"""

LEARNER_MAKEFILE = """PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TORCH_VERSION ?= 2.13.0
export JUPYTER_PATH := $(abspath $(VENV))/share/jupyter

.PHONY: lab doctor
$(VENV)/.installed: pyproject.toml
\t$(PYTHON) -m venv $(VENV)
\t$(BIN)/python -m pip install --quiet "torch==$(TORCH_VERSION)"
\t$(BIN)/python -m pip install --quiet -e ".[lab]"
\t$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
\ttouch $@

lab: $(VENV)/.installed
\t$(BIN)/workbook doctor || true
\t$(BIN)/jupyter lab --no-browser --ip=127.0.0.1 --ServerApp.root_dir=labs $(if $(filter 0,$(shell id -u)),--allow-root,)

doctor: $(VENV)/.installed
\t$(BIN)/workbook doctor
"""

# int8_triton.py is Lab 07 part E2's answer (the package's int8-triton backend runs it): instructors' copy only.
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "grading", "experiments", ".ipynb_checkpoints", "int8_triton.py")


def make_release(root: Path, out: Path) -> Path:
    """Write the bundle to `out` (emptied first) and prove it holds no solution."""
    if out.resolve() in (root.resolve(), *root.resolve().parents):
        raise ValueError(f"--out {out} would overwrite the repository; pick a new folder")
    problems = build_labs(root, check=True)
    if problems:
        raise RuntimeError("labs/ is not in step with solutions/: " + "; ".join(map(str, problems)) + " (run `workbook build`)")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copytree(root / "labs", out / "labs", ignore=SKIP)
    shutil.copytree(root / "helpers", out / "helpers", ignore=SKIP)
    for name in ("environment.yml", "pyproject.toml"):
        shutil.copy(root / name, out / name)
    (out / "README.md").write_text(LEARNER_README)
    (out / "Makefile").write_text(LEARNER_MAKEFILE)
    leaks = leaks_in(out, root)
    if leaks:
        shutil.rmtree(out)
        raise RuntimeError("the bundle would leak: " + "; ".join(leaks))
    return out


def leaks_in(bundle: Path, root: Path) -> list[str]:
    """Files in the bundle that hold a solution region, or a function or class of the hidden cases and inputs."""
    hidden = [p.read_text() for p in (root / "solutions" / "hidden").rglob("*.py") if "dumps" not in p.parts]
    hidden_defs = {line.strip() for src in hidden for line in src.splitlines() if line.startswith(("def ", "class "))}
    found = []
    for path in sorted(bundle.rglob("*")):
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        rel = path.relative_to(bundle)
        lines = {line.strip() for line in text.splitlines()}
        if path.suffix == ".ipynb":
            lines = {line.strip() for cell in nbformat.reads(text, as_version=4).cells for line in cell.source.splitlines()}
        if {notebooks.BEGIN, notebooks.END} & lines or any(line.startswith(notebooks.MD_BEGIN) for line in lines):
            found.append(f"{rel} holds a solution region")
        if hidden_defs & lines:
            found.append(f"{rel} holds hidden-check code ({sorted(hidden_defs & lines)[0]})")
    return found
