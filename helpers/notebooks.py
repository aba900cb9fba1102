"""Solution notebooks → learner labs: solution markers, cell roles, the sync check.

`solutions/NN_name.ipynb` is the source. `labs/NN_name.ipynb` is generated from
it: every solution region is replaced by a stub, outputs are dropped, cell ids
and tags are kept so the grader can find each cell again.

Markers, in code cells: a line `### BEGIN SOLUTION`, the answer, optionally a
line `### STUB` followed by what the lab shows instead (commented out with "# "
so it does not run in the solution; by default the lab raises
NotImplementedError), and a line `### END SOLUTION`. In markdown cells:
`<!-- BEGIN SOLUTION -->` … `<!-- END SOLUTION -->`.

Cell roles live in the tags: ``parameters`` (papermill), ``exercise`` (the learner
edits it), ``check`` and ``given`` (protected: the grader restores them),
everything else markdown is protected instructions.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    import nbformat


def _nbformat():
    """nbformat, imported on first use. Importing it costs about a second of CPU (jsonschema builds a URI grammar
    at import), which a process that only needs stub_message should not pay: every rank helpers.dist starts, and a
    lab's kernel. (A GPU box without Jupyter packages can still `workbook run --no-kernel`.)"""
    import nbformat

    return nbformat

BEGIN = "### BEGIN SOLUTION"
STUB = "### STUB"
END = "### END SOLUTION"
MD_BEGIN = "<!-- BEGIN SOLUTION -->"
MD_END = "<!-- END SOLUTION -->"
MD_STUB = "*Your answer here.*"
LAB_HEADING = "**Points.**"   # starts the points table at the end of a lab's introduction (helpers.points_table)

PROTECTED_TAGS = ("check", "given", "parameters")
NBFORMAT_MINOR = 5  # cell ids need nbformat 4.5


class MarkerError(ValueError):
    """A solution notebook has unbalanced or malformed solution markers."""


@dataclass
class Problem:
    """One reason `workbook build --check` fails."""

    path: Path
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def read(path: str | Path) -> nbformat.NotebookNode:
    """Read a notebook, upgrading it to nbformat 4.5 so every cell has an id."""
    nb = _nbformat().read(str(path), as_version=4)
    if nb.nbformat_minor < NBFORMAT_MINOR:
        nb.nbformat_minor = NBFORMAT_MINOR
    _nbformat().validator.normalize(nb)
    return nb


def write(nb: nbformat.NotebookNode, path: str | Path) -> None:
    """Write a notebook deterministically (sorted keys, one-space indent, trailing newline)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(dumps(nb), encoding="utf-8")


def dumps(nb: nbformat.NotebookNode) -> str:
    """The exact text `write` would produce."""
    return _nbformat().writes(nb, version=4) + "\n"


def tags(cell) -> list[str]:
    """The cell's tags (empty list when none)."""
    return list(cell.get("metadata", {}).get("tags", []))


def exercise_name(cell) -> str:
    """The exercise a cell belongs to, from its `workbook.exercise` metadata."""
    return cell.get("metadata", {}).get("workbook", {}).get("exercise", "this exercise")


def has_outputs(nb) -> bool:
    """True when any code cell holds outputs or an execution count."""
    return any(c.cell_type == "code" and (c.get("outputs") or c.get("execution_count")) for c in nb.cells)


def strip_outputs(nb) -> nbformat.NotebookNode:
    """Drop outputs, execution counts and run metadata (papermill, execution timings)."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        for key in ("execution", "papermill", "collapsed", "scrolled"):
            cell.metadata.pop(key, None)
    nb.metadata.pop("papermill", None)
    return nb


def _uncomment(line: str) -> str:
    """'    # text' → '    text' and '    #' → '': stub lines are comments in the solution."""
    body = line.lstrip()
    indent = line[: len(line) - len(body)]
    if body.startswith("# "):
        return indent + body[2:]
    if body == "#":
        return ""
    raise MarkerError(f"stub line {line!r} must be commented out with '# ' in the solution")


def _stub_code(solution: list[str], stub: list[str] | None, indent: str, name: str) -> list[str]:
    """What replaces one code solution region in the lab."""
    if stub is not None:
        return [_uncomment(line) for line in stub]
    return [f'{indent}raise NotImplementedError("{name}: write your solution here")']


def replace_code_solutions(source: str, name: str) -> str:
    """Replace every `### BEGIN SOLUTION` … `### END SOLUTION` region of a code cell by its stub."""
    out: list[str] = []
    region: list[str] | None = None
    stub: list[str] | None = None
    indent = ""
    for lineno, line in enumerate(source.split("\n"), 1):
        marker = line.strip()
        if marker == BEGIN:
            if region is not None:
                raise MarkerError(f"line {lineno}: nested '{BEGIN}'")
            region, stub, indent = [], None, line[: len(line) - len(line.lstrip())]
        elif marker == STUB:
            if region is None or stub is not None:
                raise MarkerError(f"line {lineno}: '{STUB}' outside a solution region")
            stub = []
        elif marker == END:
            if region is None:
                raise MarkerError(f"line {lineno}: '{END}' without '{BEGIN}'")
            out.extend(_stub_code(region, stub, indent, name))
            region, stub = None, None
        elif stub is not None:
            stub.append(line)
        elif region is not None:
            region.append(line)
        else:
            out.append(line)
    if region is not None:
        raise MarkerError(f"'{BEGIN}' is never closed by '{END}'")
    return "\n".join(out)


def replace_markdown_solutions(source: str) -> str:
    """Replace every markdown solution region by a placeholder the learner overwrites."""
    if source.count(MD_BEGIN) != source.count(MD_END):
        raise MarkerError("unbalanced markdown solution markers")
    pattern = re.compile(re.escape(MD_BEGIN) + r".*?" + re.escape(MD_END), re.S)
    return pattern.sub(MD_STUB, source)


def has_solution(text: str) -> bool:
    """True when text still holds a solution marker (never true of a lab or a release)."""
    return BEGIN in text or END in text or MD_BEGIN in text


def make_lab(solution: nbformat.NotebookNode, points: str | None = None) -> nbformat.NotebookNode:
    """The learner's notebook generated from a solution notebook; `points` (a Markdown table) ends its introduction."""
    lab = _nbformat().from_dict(solution)
    strip_outputs(lab)
    intro = next((c for c in lab.cells if c.cell_type == "markdown"), None)
    if points and intro is not None:
        intro.source = with_lab_table(intro.source, points)
    for cell in lab.cells:
        manual = cell.get("metadata", {}).get("workbook", {}).get("manual")
        if manual:   # the instructor's rubric stays in the solution; the learner sees the question and its points
            cell.metadata["workbook"]["manual"] = {k: v for k, v in manual.items() if k != "rubric"}
        try:
            if cell.cell_type == "code":
                cell.source = replace_code_solutions(cell.source, exercise_name(cell))
            elif cell.cell_type == "markdown":
                cell.source = replace_markdown_solutions(cell.source)
        except MarkerError as err:
            raise MarkerError(f"cell {cell.get('id')}: {err}") from None
    lab.metadata.setdefault("workbook", {})["generated_from"] = "solutions/ (do not edit labs/ by hand: run `workbook build`)"
    return lab


def solution_notebooks(root: Path) -> list[Path]:
    """The solution notebooks, in lab order."""
    return sorted((root / "solutions").glob("[0-9][0-9]_*.ipynb"))


def lab_path(lab: str, folder: str = "labs", root: Path | None = None) -> Path:
    """labs/04_*.ipynb (or solutions/04_*.ipynb) for lab "04"."""
    root = root or Path(__file__).resolve().parents[1]
    found = sorted((root / folder).glob(f"{lab}_*.ipynb"))
    if not found:
        have = ", ".join(p.name[:2] for p in sorted((root / "labs").glob("*.ipynb"))) or "none"
        raise FileNotFoundError(f"no {folder}/{lab}_*.ipynb; labs here: {have}")
    return found[0]


def with_lab_table(intro: str, table: str) -> str:
    """The intro cell's text with its points table (from LAB_HEADING on) replaced, or appended."""
    kept = without_points_table(intro)
    return f"{kept}\n\n{table}"


def without_points_table(intro: str) -> str:
    """The intro cell's text without its points table (a reference solution's intro has none)."""
    return intro.split(f"\n\n{LAB_HEADING}", 1)[0].rstrip()


def manual_items(nb) -> list[tuple[str, float]]:
    """(question, points) of each written answer an instructor scores: cells whose metadata holds workbook.manual."""
    specs = [c.metadata["workbook"]["manual"] for c in nb.cells if c.get("metadata", {}).get("workbook", {}).get("manual")]
    return [(m["question"], float(m["points"])) for m in specs]


def build(root: Path, check: bool = False, *, points: Callable[[str, list[tuple[str, float]]], str]) -> list[Problem]:
    """Regenerate labs/ from solutions/ (or, with check, report what is stale or has outputs).

    points(lab, written answers) is the lab's points table, ending its introduction: helpers.points_table.lab_table
    (passed in, since the table comes from the check registry, which sits above this module).
    """
    problems: list[Problem] = []
    for sol_path in solution_notebooks(root):
        sol = read(sol_path)
        if has_outputs(sol):
            problems.append(Problem(sol_path, "has outputs; run `workbook build` (it strips them) and commit"))
            if not check:
                write(strip_outputs(sol), sol_path)
        problems.extend(_check_ids(sol, sol_path))
        problems.extend(_check_roles(sol, sol_path))
        lab_path = root / "labs" / sol_path.name
        try:
            text = dumps(make_lab(sol, points=_points_for(sol_path, sol, points)))
        except MarkerError as err:
            problems.append(Problem(sol_path, str(err)))
            continue
        problems.extend(_run_all_stoppers(_nbformat().reads(text, as_version=4), lab_path))
        current = lab_path.read_text(encoding="utf-8") if lab_path.exists() else None
        if current != text:
            if check:
                problems.append(Problem(lab_path, "is stale or missing; run `workbook build` and commit labs/"))
            else:
                lab_path.parent.mkdir(parents=True, exist_ok=True)
                lab_path.write_text(text, encoding="utf-8")
    problems.extend(_orphan_labs(root))
    if not check:
        problems = [p for p in problems if "has outputs" not in p.message]
    return problems


def _points_for(path: Path, nb, points: Callable[[str, list[tuple[str, float]]], str]) -> str | None:
    """The lab's points table (None for a lab without a check module)."""
    try:
        return points(path.name[:2], manual_items(nb))
    except ModuleNotFoundError:
        return None


def _check_ids(nb, path: Path) -> list[Problem]:
    """Every cell needs a unique, stable id: the grader matches cells by it."""
    ids = [c.get("id") for c in nb.cells]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    return [Problem(path, f"duplicate cell id {d!r}") for d in dupes]


ROLES = ("exercise", "given", "check", "parameters")


def _check_roles(nb, path: Path) -> list[Problem]:
    """Every code cell says its role: the grader restores given and check cells, and grades exercises by name."""
    problems = [Problem(path, f"code cell {c.get('id')!r} has no role tag (one of {', '.join(ROLES)})")
                for c in nb.cells if c.cell_type == "code" and not set(tags(c)) & set(ROLES)]
    problems += [Problem(path, f"exercise cell {c.get('id')!r} has no workbook.exercise name in its metadata")
                 for c in nb.cells if "exercise" in tags(c) and "exercise" not in c.get("metadata", {}).get("workbook", {})]
    return problems


def _run_all_stoppers(lab, path: Path) -> list[Problem]:
    """Ungraded exercises (after the last check cell) whose stub raises: Run All would stop there, after all the work."""
    checks = [i for i, c in enumerate(lab.cells) if "check" in tags(c)]
    last = checks[-1] if checks else len(lab.cells)
    return [Problem(path, f"cell {c.get('id')}: an ungraded exercise after the last check raises NotImplementedError, "
                          "so Run All stops there; give it a `### STUB` that does not raise")
            for c in lab.cells[last + 1:]
            if c.cell_type == "code" and "exercise" in tags(c) and "raise NotImplementedError" in c.source]


def _orphan_labs(root: Path) -> list[Problem]:
    """Labs with no solution notebook behind them."""
    names = {p.name for p in solution_notebooks(root)}
    return [
        Problem(p, "has no solution notebook in solutions/; remove it or add the solution")
        for p in sorted((root / "labs").glob("*.ipynb"))
        if p.name not in names
    ]


def stub_message(fn: Callable) -> str | None:
    """When fn's body (its docstring, imports and `pass` aside) is one `raise NotImplementedError(...)`, an exercise
    stub, the message it raises ("" without one); None for any other function, however it behaves when called (a
    written function that raises a stub's message on some inputs is not a stub). helpers.dist.launch starts no
    process for a stub; a check does not judge work that builds on a part whose function is still its stub."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if len(defs) != 1:
        return None
    body = [n for n in defs[0].body if not isinstance(n, (ast.Import, ast.ImportFrom, ast.Pass))
            and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str))]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return None
    exc = body[0].exc
    raised = exc.func if isinstance(exc, ast.Call) else exc
    if not (isinstance(raised, ast.Name) and raised.id == "NotImplementedError"):
        return None
    args = exc.args if isinstance(exc, ast.Call) else []
    return args[0].value if args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str) else ""


def remember_source(source: str, filename: str) -> str:
    """Register code run with exec() in linecache, so inspect (torch.jit.script, tracebacks) can read it."""
    import linecache

    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return filename


def code_cells(path: Path) -> list[tuple[str, list[str], str]]:
    """(id, tags, source) of a notebook's code cells, read as plain JSON (a GPU machine without Jupyter has no
    nbformat)."""
    import json

    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    return [(cell.get("id"), cell.get("metadata", {}).get("tags", []),
             "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"])
            for cell in cells if cell["cell_type"] == "code"]


def _exec_cell(cell_id: str, source: str, ns: dict) -> None:
    exec(compile(source, remember_source(source, f"<cell {cell_id}>"), "exec"), ns)   # Triton reads a kernel's source


def cell_namespace(path: Path, ids: tuple[str, ...]) -> dict:
    """Run the code cells with these ids, in this order, in a fresh namespace, and return it (a benchmark that
    times what a solution's cells define)."""
    by_id = {cell_id: source for cell_id, _, source in code_cells(path)}
    ns: dict = {"__name__": "__main__"}
    for cell_id in ids:
        _exec_cell(cell_id, by_id[cell_id], ns)
    return ns


def run_without_kernel(path: Path, skip_tags: tuple[str, ...] = ()) -> int:
    """Run a notebook's code cells in this process (for machines without Jupyter); stop at the first error.

    The run's settings come from the WORKBOOK_* environment, as they do in a kernel. Cells tagged with any of
    skip_tags are left out (benchmarks/verdicts.py skips the check cells)."""
    import traceback

    ns: dict = {"__name__": "__main__"}
    for cell_id, tags, source in code_cells(path):
        if set(tags) & set(skip_tags):
            continue
        print(f"--- cell {cell_id} ---", flush=True)
        try:
            _exec_cell(cell_id, source, ns)
        except Exception:
            traceback.print_exc()
            print(f"cell {cell_id} failed", flush=True)
            return 1
    return 0
