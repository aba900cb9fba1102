"""The checks against the corpus of wrong answers (tests/wrong_answers/): a mutation score per lab.

For every lab: the hidden checks catch at least 95% of the wrong answers and the public checks at least 85%;
every catch says the cause in words (the `says` of the wrong answer, never a raw exception or "not written yet");
and every right answer written another way keeps full marks. `make test` prints the table at the end.
"""

from __future__ import annotations

import functools
import importlib.util

from helpers.checks.dynamo_state import settings_kept
from tests import wrong_answers as wa

HIDDEN_RATE, PUBLIC_RATE = 0.95, 0.85
LABS = [lab for lab in wa.LABS if importlib.util.find_spec(f"tests.wrong_answers.lab{lab}")]


@functools.lru_cache(maxsize=None)
def bench(lab: str) -> wa.Workbench:
    return wa.Workbench(lab)


@functools.lru_cache(maxsize=None)
def verdicts(lab: str) -> tuple[wa.Verdict, ...]:
    return tuple(wa.judge(bench(lab), w) for w in wa.corpus(lab).WRONG if w.judged_here())


class CatchRates:
    """The four tests for one lab; a subclass per lab below, so `pytest -n` spreads the labs over its workers."""

    lab = ""

    def test_corpus_is_well_formed(self):
        lab = self.lab
        from helpers import checks

        module = wa.corpus(lab)
        names = {s.name for s in checks.load_lab(lab)}
        assert module.WRONG, "a lab's corpus holds wrong answers"
        for w in module.WRONG:
            assert w.check in names, f"{w.check} is not one of Lab {lab}'s checks"
            assert len(w.why) >= 15 and w.says, f"{w.name}: say why it is wrong and what the message must say"
        assert len({w.name for w in module.WRONG}) == len(module.WRONG), "two wrong answers with the same reason"
        covered = {w.check for w in module.WRONG}
        assert covered == names, f"exercises without wrong answers: {sorted(names - covered)}"

    def test_checks_catch_the_corpus(self):
        lab = self.lab
        found = verdicts(lab)
        wa.RESULTS[lab] = wa.rates(list(found))
        n = len(found)
        public = sum(v.caught_public for v in found) / n
        hidden = sum(v.caught_hidden for v in found) / n
        missed = [f"{v.wrong.name} [public {'caught' if v.caught_public else 'MISSED'}, hidden "
                  f"{'caught' if v.caught_hidden else 'MISSED'}]" for v in found if not (v.caught_public and v.caught_hidden)]
        wa.MISSED[lab] = missed
        assert hidden >= HIDDEN_RATE and public >= PUBLIC_RATE, (
            f"Lab {lab}: public {public:.0%}, hidden {hidden:.0%} of {n}; let through:\n  " + "\n  ".join(missed))

    def test_every_catch_names_the_cause(self):
        lab = self.lab
        bad = [f"{v.wrong.name}:\n    " + "\n    ".join(v.problems) for v in verdicts(lab) if v.problems]
        assert not bad, "messages that do not say what is wrong:\n  " + "\n  ".join(bad)

    def test_right_answers_written_another_way_keep_full_marks(self):
        lab = self.lab
        b = bench(lab)
        failures = []
        for r in getattr(wa.corpus(lab), "RIGHT", []):
            with settings_kept():
                ns = b.namespace(r.edits, r.fresh, for_checks=r.checks)
                results = [run(ns, name) for name in r.checks for run in ((b.public, b.hidden) if r.public else (b.hidden,))]
            failures += [f"{r.why}: {result.line()}" for result in results if not result.passed]
        assert not failures, "\n".join(failures)


# One class per lab (pytest -k 03 selects a lab), so that pytest-xdist spreads the labs over its workers; the
# order they run in is conftest.LONGEST_FIRST's.
for _lab in LABS:
    globals()[f"TestLab{_lab}"] = type(f"TestLab{_lab}", (CatchRates,), {"lab": _lab})
