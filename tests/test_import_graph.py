"""helpers/ imports as a tree: no module imports, at any depth or inside a function, a module that imports it back."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def module_files(package: Path = ROOT / "helpers") -> dict[str, Path]:
    """{"helpers.llm_bench.cli": path} for every module of the package (a package is its __init__.py)."""
    found = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that `name` imports anywhere in its file (module level, functions, try blocks)."""
    def known(dotted: str) -> str | None:   # the module itself, else the package that holds the name
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {known(a.name) for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:   # relative: from the module's package, up level − 1
                package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in modules else known(base) for a in node.names}
    return found - {None, name}


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as [a, b, …, a], or None (depth-first search, three colours)."""
    state: dict[str, int] = {}   # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = 2
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_finder_sees_a_function_level_cycle(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import g\n")
    (package / "b.py").write_text("def g():\n    from pkg import a\n")
    modules = module_files(package)
    graph = {name: imports_of(name, path, modules) for name, path in modules.items()}
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.a"]


def test_helpers_has_no_import_cycle():
    graph = import_graph()
    assert "helpers.llm_bench.hf" in graph["helpers.llm_bench.backends"]   # the graph sees real imports
    cycle = find_cycle(graph)
    assert cycle is None, ("import cycle: " + " → ".join(cycle) + ". Move what both need into the lower module "
                           "(see helpers/llm_bench/base.py, helpers.notebooks.manual_items)")


@pytest.mark.parametrize("module", ["helpers.llm_bench.backends", "helpers.llm_bench.hf", "helpers.notebooks",
                                    "helpers.points_table"])
def test_module_imports_first_in_a_fresh_interpreter(module):
    proc = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
