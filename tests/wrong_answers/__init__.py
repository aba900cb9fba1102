"""The corpus of wrong answers: plausible mistakes for every exercise, run against the public and hidden checks.

Each lab has a module here (`lab02.py` ...) with

- ``SOLUTION``: the solution notebook, and ``CELLS``: the code cells the checks need, in order;
- ``WRONG``: a list of `Wrong`, one mistake each, the way a learner makes it (an off-by-one rule, a missed
  spelling, a forgotten recompile or eps, an argument ignored, the wrong unit, a shortcut the text forbids, a
  hard-coded or made-up value), with the reason it is wrong and the words the catching message must contain;
- ``HIDDEN_NAMES`` (optional): words of the grader's cases a hidden message must never show;
- ``RIGHT``: a list of `Right`, correct answers written another way, which must keep full marks.

`tests/test_catch_rates.py` applies each one to the solution and runs the check it targets, public (the
notebook's cases) and hidden (the grader's): the catch rate per lab is a mutation score for the checks, and
`make test` prints the table. To add a wrong answer a learner has found: write it here as a `Wrong` (the cell,
the smallest edit that makes the mistake, why it is wrong, the words a good message would use) and run
``pytest tests/test_catch_rates.py -k labNN``; if the checks let it through, strengthen the check or its cases.
"""

from __future__ import annotations

import hashlib
import importlib
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from helpers import bench, checks, notebooks
from helpers.checks.dynamo_state import settings_kept
from helpers.notebooks import remember_source
from tests.in_process_grader import lab_env, run_hidden, run_public

ROOT = Path(__file__).resolve().parents[2]
LABS = ("01", "02", "03", "04", "05", "06", "07")
# A message that is an exception's own text, not words about the exercise.
RAW = re.compile(r"^\s*[A-Z]\w*(Error|Exception|Warning)\b|Traceback \(most recent call last\)")


@dataclass(frozen=True)
class Edit:
    """One exercise cell of the solution, changed: textual replacements, or a whole new source."""

    cell: str
    replace: tuple[tuple[str, str], ...] = ()
    source: str | None = None

    def apply(self, original: str) -> str:
        if self.source is not None:
            return self.source
        text = original
        for old, new in self.replace:
            if old not in text:
                raise AssertionError(f"{old!r} is not in cell {self.cell}: the solution changed, update the corpus")
            text = text.replace(old, new)
        return text


@dataclass(frozen=True)
class Wrong:
    """A plausible wrong answer: the check it should fail, why it is wrong, and what the message must say.

    `says` is a regular expression (case-insensitive) the public message must match; the hidden message, which
    never shows the grader's cases, must match `hidden_says` when given. `edits` change one or more cells."""

    check: str
    why: str
    edits: tuple[Edit, ...]
    says: str
    hidden_says: str = ""
    fresh: bool = False      # rebuild the whole namespace (the mistake changes shared objects in place)
    gpus: int = 0            # a mistake only NCCL shows: judged where the test run has this many GPUs (one per rank)

    @property
    def name(self) -> str:
        return f"{self.check}: {self.why}"

    def judged_here(self) -> bool:
        """Whether this run can tell it apart: a mistake only NCCL shows needs WORKBOOK_TEST_DEVICE=cuda and its GPUs."""
        if not self.gpus:
            return True
        import torch

        from tests.in_process_grader import TEST_DEVICE

        return TEST_DEVICE == "cuda" and torch.cuda.is_available() and torch.cuda.device_count() >= self.gpus


@dataclass(frozen=True)
class Right:
    """A correct answer written another way: every check it names must still give full marks, public and hidden
    (`public=False`: the hidden check only, for an answer right for the grader but not for this machine's own
    notebook, such as an annotation of a GPU's kernel graded on a CPU)."""

    checks: tuple[str, ...]
    why: str
    edits: tuple[Edit, ...]
    fresh: bool = False
    public: bool = True


def wrong(check: str, why: str, cell: str, *replace: tuple[str, str], says: str, source: str | None = None,
          hidden_says: str = "", fresh: bool = False, also: tuple[Edit, ...] = (), gpus: int = 0) -> Wrong:
    """A `Wrong` that edits one cell (and optionally others, `also`)."""
    return Wrong(check, why, (Edit(cell, tuple(replace), source), *also), says, hidden_says, fresh, gpus)


def right(check_names: str | tuple[str, ...], why: str, cell: str, *replace: tuple[str, str],
          source: str | None = None, also: tuple[Edit, ...] = (), fresh: bool = False, public: bool = True) -> Right:
    names = (check_names,) if isinstance(check_names, str) else tuple(check_names)
    return Right(names, why, (Edit(cell, tuple(replace), source), *also), fresh, public)


def corpus(lab: str):
    """The lab's corpus module."""
    return importlib.import_module(f"tests.wrong_answers.lab{lab}")


class Workbench:
    """A lab's solution namespace, built once cell by cell, and the same with a mistake: the cells from the first
    edited one onwards re-run on a copy of the namespace as it stood before that cell (faster than a rebuild)."""

    def __init__(self, lab: str):
        self.lab = lab
        self.module = corpus(lab)
        self.out = tempfile.TemporaryDirectory(prefix=f"corpus{lab}-")
        self.sources = {c.id: c.source for c in notebooks.read(self.module.SOLUTION).cells if c.cell_type == "code"}
        missing = [c for c in self.module.CELLS if c not in self.sources]
        assert not missing, f"cells {missing} are not in {self.module.SOLUTION.name}"
        self.last_cell = self._last_cells_before_checks()
        self.before: dict[str, dict] = {}
        ns: dict = {"__name__": "__main__"}
        for cell in self.module.CELLS:
            self.before[cell] = dict(ns)
            self._run(ns, cell, self.sources[cell])
        self.solution = ns

    def _last_cells_before_checks(self) -> dict[str, int]:
        """Per check: the index in CELLS of the last cell that comes before the check's cell in the notebook (where
        the notebook calls `check("NAME")`). What a check reads is defined by then, or the notebook's own check could
        not pass; a mistake judged against that check need not run the cells after it (Lab 01's dispatch answers
        re-ran every later demonstration, 3 s of CPU each)."""
        code = [c for c in notebooks.read(self.module.SOLUTION).cells if c.cell_type == "code"]
        where = {c.id: i for i, c in enumerate(code)}
        last: dict[str, int] = {}
        for i, cell in enumerate(code):
            for name in re.findall(r"""check\(\s*["']([0-9]{2}\.\w+)["']""", cell.source):
                before = [k for k, c in enumerate(self.module.CELLS) if where.get(c, len(code)) < i]
                last.setdefault(name, max(before, default=-1))
        return last

    def stop_after(self, check_names) -> int:
        """The index in CELLS after which no cell matters to these checks (the end, for a check no cell calls)."""
        ends = [self.last_cell.get(name, len(self.module.CELLS) - 1) for name in check_names]
        return max(ends, default=len(self.module.CELLS) - 1)

    def _run(self, ns: dict, cell: str, source: str) -> None:
        """Run one cell. Its timings take the fewest samples (bench.shortest_timings): a given cell's measurements are
        the notebook's demonstration, run again for every answer after it (Lab 04's timed comparisons were over half
        its corpus's CPU), and the checks, which run outside this, time with their own budgets."""
        # A file name per source: Triton (and inspect) read a function's source lazily, by its file name.
        name = f"<cell {cell} {hashlib.sha1(source.encode()).hexdigest()[:10]}>"
        with lab_env(self.out.name), bench.shortest_timings():
            exec(compile(source, remember_source(source, name), "exec"), ns)

    def namespace(self, edits: tuple[Edit, ...], fresh: bool = False, for_checks: tuple[str, ...] = ()) -> dict:
        """The solution's namespace with the edits; with `for_checks`, only as far as those checks' cells."""
        changed = {e.cell: e.apply(self.sources[e.cell]) for e in edits}
        unknown = set(changed) - set(self.module.CELLS)
        assert not unknown, f"cells {sorted(unknown)} are not in CELLS of tests/wrong_answers/lab{self.lab}.py"
        order = list(self.module.CELLS)
        start = 0 if fresh else min(order.index(c) for c in changed)
        stop = max(self.stop_after(for_checks) if for_checks else len(order) - 1, *(order.index(c) for c in changed))
        ns = {"__name__": "__main__"} if fresh else dict(self.before[order[start]])
        for cell in order[start:stop + 1]:
            self._run(ns, cell, changed.get(cell, self.sources[cell]))
        return ns

    def public(self, ns: dict, name: str) -> checks.Result:
        return run_public(name, ns, self.out.name)

    def hidden(self, ns: dict, name: str) -> checks.Result:
        return run_hidden(name, ns, self.out.name)


@dataclass
class Verdict:
    """What the checks made of one wrong answer."""

    wrong: Wrong
    public: checks.Result
    hidden: checks.Result
    problems: list[str] = field(default_factory=list)

    @property
    def caught_public(self) -> bool:
        return not self.public.passed      # a check worth 0 points (a one-liner) catches by failing, not by scoring

    @property
    def caught_hidden(self) -> bool:
        return not self.hidden.passed


def judge(bench: Workbench, w: Wrong) -> Verdict:
    """Run the wrong answer through its check, public and hidden, and list what is wrong with the messages."""
    with settings_kept():      # a mistake's Dynamo settings end with it, as its own grading job would
        ns = bench.namespace(w.edits, w.fresh, for_checks=(w.check,))
        v = Verdict(w, bench.public(ns, w.check), bench.hidden(ns, w.check))
    for where, result, pattern in (("public", v.public, w.says), ("hidden", v.hidden, w.hidden_says)):
        if result.passed:
            continue
        if "not written yet" in result.message:
            v.problems.append(f"{where}: blamed as not written: {result.message[:200]}")
        if RAW.search(result.message):
            v.problems.append(f"{where}: a raw exception, not words about the mistake: {result.message[:200]}")
        if pattern and not re.search(pattern, result.message, re.I | re.S):
            v.problems.append(f"{where}: message does not say {pattern!r}: {result.message[:300]}")
    leaked = [word for word in getattr(bench.module, "HIDDEN_NAMES", ()) if word in v.hidden.message]
    if leaked:
        v.problems.append(f"hidden: the message gives the grader's cases away ({leaked}): {v.hidden.message[:200]}")
    return v


def rates(verdicts: list[Verdict]) -> dict:
    """Per exercise (check): corpus size, caught by the public check, caught by the hidden check."""
    table: dict[str, list[int]] = {}
    for v in verdicts:
        row = table.setdefault(v.wrong.check, [0, 0, 0])
        row[0] += 1
        row[1] += v.caught_public
        row[2] += v.caught_hidden
    return table


# Filled by tests/test_catch_rates.py; conftest.py prints it at the end of the run. MISSED: per lab, the wrong answers
# a check let through ("name [public]"), printed under the table, so that a rare miss under load is named.
RESULTS: dict[str, dict[str, list[int]]] = {}
MISSED: dict[str, list[str]] = {}


def summary_lines() -> list[str]:
    """The catch-rate table: lab × exercises × corpus size × caught public × caught hidden."""
    if not RESULTS:
        return []
    lines = [f"{'lab':<4} {'exercises':>9} {'wrong answers':>13} {'caught public':>14} {'caught hidden':>14}"]
    for lab in sorted(RESULTS):
        rows = RESULTS[lab].values()
        n, p, h = (sum(r[i] for r in rows) for i in range(3))
        lines.append(f"{lab:<4} {len(RESULTS[lab]):>9} {n:>13} {p:>8} ({p / n:4.0%}) {h:>8} ({h / n:4.0%})")
    lines += [f"  let through in Lab {lab}: {name}" for lab in sorted(MISSED) for name in MISSED[lab]]
    return lines


__all__ = ["Edit", "Right", "Wrong", "Workbench", "Verdict", "corpus", "judge", "right", "rates", "wrong"]
